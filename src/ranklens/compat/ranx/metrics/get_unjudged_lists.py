"""ranx's ``get_unjudged_lists`` (``ranx.metrics.get_unjudged_lists``)."""

from __future__ import annotations

from typing import Any

from ranklens.base.types import Float64Array
from ranklens.compat.ranx.metrics._arrays import mark_lists

__all__ = ["get_unjudged_lists"]


def get_unjudged_lists(qrels: Any, run: Any, k: int = 0) -> list[Float64Array]:
    """Per query, 1.0 at each rank whose document the qrels do not judge; 0.0 elsewhere.

    Only the first ``k`` ranks are listed (all for ``k = 0``).

    Returns
    -------
    list of numpy.ndarray
        One array per query, as long as its ranking (or ``k``).
    """
    return [1.0 - row for row in mark_lists(qrels, run, k, 1, "judged")]
