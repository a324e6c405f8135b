"""Interpolated precision at recall levels."""

from __future__ import annotations

import numpy as np

from ranklens._segments import count_in_top, range_max
from ranklens._types import Float64Array
from ranklens.align import Ranked


def interpolated_precision(r: Ranked, rel: int, recall: float) -> Float64Array:
    """Interpolated precision at recall level ``recall`` (trec_eval 10 ``iprec_at_recall``).

    ``IPrec@x = max{P@i : i >= rank of the c-th relevant document}`` with
    ``c = round(x * R)`` (halves away from zero), over the retrieved ranks only; 0 when
    fewer than c relevant documents are retrieved (and for an empty ranking). For ``c = 0``
    the maximum starts at the first relevant document.
    """
    relevant = r.relevant(rel)
    num_rel = r.num_rel(rel)
    found = count_in_top(relevant, r.offsets, r.num_ret)
    c = np.floor(np.float64(recall) * num_rel + 0.5).astype(np.int64)
    target = np.maximum(c, 1)
    ok = (target <= found) & (found > 0)
    precision = np.divide(r.relevant_so_far(rel), r.pos + 1, dtype=np.float64)
    hits = np.flatnonzero(relevant)
    first_hit = np.concatenate(([0], np.cumsum(found)))[:-1]
    pick = np.where(ok, first_hit + target - 1, 0)
    starts = np.where(ok, hits[np.minimum(pick, max(hits.shape[0] - 1, 0))] if hits.shape[0] else 0, 0)
    best = range_max(precision, starts.astype(np.int64), np.where(ok, r.offsets[1:], starts))
    return np.where(ok & (c <= found), best, 0.0)
