"""Set and cut-off measures: precision, recall, success, R-precision, judged fraction, counts."""

from __future__ import annotations

import numpy as np

from ranklens.base.errors import MeasureError
from ranklens.base.segments import segment_count
from ranklens.base.types import Float64Array, Int64Array
from ranklens.kernels._util import depth_limit, safe_divide
from ranklens.ranking.align import Ranked


def count_above(r: Ranked, index: Int64Array, limit: int | Int64Array | None) -> Int64Array:
    """Per query, how many of the flat indices ``index`` lie in its top ``limit`` ranks
    (``limit`` per query, or one number, or ``None`` for all)."""
    ids, pos = r.locate(index)
    if limit is not None:
        bound = limit if isinstance(limit, int) else limit[ids]
        ids = ids[pos < bound]
    return segment_count(ids, r.num_queries)


def relevant_retrieved(r: Ranked, rel: int, cutoff: int | None = None) -> Float64Array:
    """Relevant documents among the top ``cutoff`` (all retrieved when ``None``)."""
    if cutoff is None:
        return r.hit_counts(rel).astype(np.float64)
    return count_above(r, r.hits(rel), cutoff).astype(np.float64)


def precision(r: Ranked, rel: int, cutoff: int | None) -> Float64Array:
    """``P@k = |relevant in top k| / k``; a ranking shorter than k is padded with
    non-relevant documents (trec_eval ``P_k``). Without a cutoff: relevant retrieved /
    retrieved (trec_eval ``set_P``), 0 for an empty ranking."""
    hits = relevant_retrieved(r, rel, cutoff)
    if cutoff is None:
        return safe_divide(hits, r.num_ret)
    return hits / np.float64(cutoff)


RECALL_NORMS = ("R", "min")
"""Recall denominators: all relevant documents, or min(R, k) (the recommender convention)."""


def recall(r: Ranked, rel: int, cutoff: int | None, norm: str = "R") -> Float64Array:
    """``R@k = |relevant in top k| / N``, 0 when ``N = 0``. ``norm="R"``: ``N = R``, the
    relevant documents in the qrels (trec_eval ``recall_k``); ``norm="min"``:
    ``N = min(R, k)`` (``min(R, n)`` without a cutoff, n retrieved)."""
    hits = relevant_retrieved(r, rel, cutoff)
    if norm == "R":
        return safe_divide(hits, r.num_rel(rel))
    if norm == "min":
        return safe_divide(
            hits, np.minimum(r.num_rel(rel), r.num_ret if cutoff is None else cutoff)
        )
    raise MeasureError(f"R norm must be one of {list(RECALL_NORMS)}, got {norm!r}")


def success(r: Ranked, rel: int, cutoff: int | None) -> Float64Array:
    """1 if a relevant document is in the top k, else 0."""
    return (relevant_retrieved(r, rel, cutoff) > 0).astype(np.float64)


def r_precision(r: Ranked, rel: int) -> Float64Array:
    """Precision at rank R: ``|relevant in top min(R, retrieved)| / R`` (0 when R = 0)."""
    num_rel = r.num_rel(rel)
    return safe_divide(count_above(r, r.hits(rel), num_rel), num_rel)


def judged_fraction(r: Ranked, cutoff: int | None) -> Float64Array:
    """Fraction of the top ``min(k, retrieved)`` documents that are judged (0 if none)."""
    limit = depth_limit(r.num_ret, cutoff)
    return safe_divide(count_above(r, np.flatnonzero(r.judged), cutoff), limit)


def num_ret(r: Ranked, cutoff: int | None) -> Float64Array:
    """Retrieved documents (within the top ``cutoff``)."""
    return depth_limit(r.num_ret, cutoff).astype(np.float64)


def num_rel(r: Ranked, rel: int) -> Float64Array:
    """Relevant documents in the qrels, retrieved or not (``R``)."""
    return r.num_rel(rel).astype(np.float64)


def num_q(r: Ranked) -> Float64Array:
    """1 for every evaluated query (summed, it counts them)."""
    return np.ones(r.num_queries, dtype=np.float64)
