"""Reciprocal rank."""

from __future__ import annotations

import numpy as np

from ranklens._segments import first_position
from ranklens._types import Float64Array
from ranklens.align import Ranked


def reciprocal_rank(r: Ranked, rel: int, cutoff: int | None) -> Float64Array:
    """``1 / rank`` of the first relevant document (within the top k), else 0."""
    first = first_position(r.relevant(rel), r.offsets, r.ids)
    found = first >= 0
    if cutoff is not None:
        found &= first < cutoff
    out = np.zeros(r.num_queries, dtype=np.float64)
    np.divide(1.0, first + 1, out=out, where=found, dtype=np.float64)
    return out
