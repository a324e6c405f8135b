"""ranx's ``tukey_hsd_test`` (``ranx.statistical_tests.tukey_hsd_test``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ranklens.compat.ranx.meta.compare import significance

__all__ = ["tukey_hsd_test"]


def tukey_hsd_test(
    model_names: Sequence[str], scores: Sequence[Any], max_p: float
) -> list[dict[str, Any]]:
    """Tukey's HSD over all models at once: one entry per ordered pair of models (each
    model with itself too), ``{"control", "treatment", "p-value", "significant"}``."""
    values = {
        name: np.asarray(s, dtype=np.float64).reshape(-1, 1)
        for name, s in zip(model_names, scores, strict=True)
    }
    result = significance(list(model_names), values, "tukey", 0, max_p, 0, ["m"])
    return [
        {
            "control": a,
            "treatment": b,
            "p-value": result[frozenset((a, b))]["m"]["p_value"],
            "significant": result[frozenset((a, b))]["m"]["significant"],
        }
        for a in model_names
        for b in model_names
    ]
