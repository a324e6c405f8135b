"""Cumulative gain: the grades of the top k documents, summed."""

from __future__ import annotations

import numpy as np

from ranklens.base.segments import segment_sum
from ranklens.base.types import Float64Array
from ranklens.ranking.align import Ranked


def cumulative_gain(r: Ranked, cutoff: int | None) -> Float64Array:
    """``CG@k = sum_{i <= k} g_i`` with linear gain ``g_i`` = the grade of the document at
    rank i (0 for an unjudged or negatively judged document); without a cutoff, the whole
    ranking. Summed in rank order."""
    gained = np.flatnonzero(r.rel > 0)
    ids, pos = r.locate(gained)
    if cutoff is not None:
        inside = pos < cutoff
        gained, ids = gained[inside], ids[inside]
    return segment_sum(r.rel[gained].astype(np.float64), ids, r.num_queries)
