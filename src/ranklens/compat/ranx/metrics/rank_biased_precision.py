"""ranx's ``rank_biased_precision`` (``ranx.metrics.rank_biased_precision``)."""

from __future__ import annotations

from typing import Any

from ranklens.base.types import Float64Array
from ranklens.compat.ranx.metrics._arrays import per_query

__all__ = ["rank_biased_precision"]


def rank_biased_precision(qrels: Any, run: Any, p: float, rel_lvl: int = 1) -> Float64Array:
    """Rank-biased precision with ranx's gain (the grade itself, 0 below ``rel_lvl``):
    ``(1 - p) * sum_i rel_i * p^(i - 1)``.

    Parameters
    ----------
    qrels, run
        Per query, ``[doc_id, relevance]`` and ranked ``[doc_id, score]`` rows.
    p
        The persistence, in (0, 1).
    rel_lvl
        The lowest grade that gains.

    Returns
    -------
    numpy.ndarray
        One value per query.
    """
    return per_query(qrels, run, f"RBP(p={float(p)!r},gain='raw',rel={int(rel_lvl)})")
