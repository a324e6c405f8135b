"""ranx's ``segfuse`` and ``segfuse_train`` (``ranx.fusion.segfuse``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ranklens.base.types import Float64Array
from ranklens.compat.ranx._errors import ranx_errors
from ranklens.compat.ranx.data_structures.run import Run
from ranklens.compat.ranx.fusion._common import combine, trained

__all__ = ["segfuse", "segfuse_train"]

Runs = Sequence[Any]


@ranx_errors
def segfuse(runs: Runs, probs: Sequence[Any], name: str = "segfuse") -> Run:
    """SegFuse: the sum of ``P(segment) * (s + 1)`` over the runs (segments of growing
    size)."""
    return combine(runs, "segfuse", name, probs=list(probs))


@ranx_errors
def segfuse_train(qrels: Any, runs: Runs) -> list[Float64Array]:
    """Each run's probability of relevance per segment (SegFuse's segments), on ``qrels``."""
    return list(trained("segfuse", qrels, runs))
