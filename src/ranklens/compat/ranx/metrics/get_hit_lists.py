"""ranx's ``get_hit_lists`` (``ranx.metrics.get_hit_lists``)."""

from __future__ import annotations

from typing import Any

from ranklens.base.types import Float64Array
from ranklens.compat.ranx.metrics._arrays import mark_lists

__all__ = ["get_hit_lists"]


def get_hit_lists(qrels: Any, run: Any, k: int = 0, rel_lvl: int = 1) -> list[Float64Array]:
    """Per query, 1.0 at each rank whose document is relevant (judged ``rel_lvl`` or
    higher); 0.0 elsewhere.

    Only the first ``k`` ranks are listed (all for ``k = 0``).

    Returns
    -------
    list of numpy.ndarray
        One array per query, as long as its ranking (or ``k``).
    """
    return mark_lists(qrels, run, k, rel_lvl, "relevant")
