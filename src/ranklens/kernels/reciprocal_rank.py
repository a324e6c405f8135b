"""Reciprocal rank."""

from __future__ import annotations

import numpy as np

from ranklens.base.segments import first_per_segment
from ranklens.base.types import Float64Array
from ranklens.ranking.align import Ranked


def reciprocal_rank(r: Ranked, rel: int, cutoff: int | None) -> Float64Array:
    """``1 / rank`` of the first relevant document (within the top k), else 0."""
    ids, pos = r.hit_places(rel)
    first = first_per_segment(pos, ids, r.num_queries)  # rank - 1 of the first hit
    found = first >= 0
    rank = np.where(found, first + 1, 0)
    if cutoff is not None:
        found &= rank <= cutoff
    out = np.zeros(r.num_queries, dtype=np.float64)
    np.divide(1.0, rank, out=out, where=found, dtype=np.float64)
    return out
