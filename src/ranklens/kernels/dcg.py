"""Discounted cumulative gain and its normalised form."""

from __future__ import annotations

import numpy as np

from ranklens._segments import segment_ids, segment_sum
from ranklens._types import Float64Array, Int64Array
from ranklens.align import Ranked
from ranklens.kernels._util import safe_divide


def linear_gain(rel: Int64Array) -> Float64Array:
    """trec_eval's default gain: the grade itself; 0 for unjudged and negative judgments."""
    return np.where(rel > 0, rel, 0).astype(np.float64)


def dcg(r: Ranked, cutoff: int | None) -> Float64Array:
    """``DCG@k = sum over ranks i <= k of gain_i / log2(i + 1)`` with linear gain."""
    gained = np.flatnonzero(r.rel > 0)
    if cutoff is not None:
        gained = gained[r.pos[gained] < cutoff]
    disc = r.discounts(int(r.num_ret.max(initial=0)))
    weights = linear_gain(r.rel[gained]) / disc[r.pos[gained]]
    return segment_sum(weights, r.ids[gained], r.num_queries)


def ideal_dcg(r: Ranked, cutoff: int | None) -> Float64Array:
    """DCG of the ideal ranking: every judged document of the query's qrels, retrieved or
    not, by decreasing grade (trec_eval's ideal; not truncated to the retrieved count)."""
    levels = r.levels
    grades = np.arange(levels.shape[1] - 1, 0, -1, dtype=np.int64)  # highest grade first
    reps = levels[:, :0:-1] if levels.shape[1] > 1 else np.zeros((r.num_queries, 0), np.int64)
    if cutoff is not None:
        # Only the first k ideal positions matter; clip the repetitions per query.
        cum = np.cumsum(reps, axis=1)
        reps = np.clip(cutoff - (cum - reps), 0, reps)
    per_query = reps.sum(axis=1)
    gains = np.repeat(np.tile(grades, r.num_queries), reps.ravel()).astype(np.float64)
    offsets = np.zeros(r.num_queries + 1, dtype=np.int64)
    np.cumsum(per_query, out=offsets[1:])
    ids = segment_ids(offsets)
    pos = np.arange(gains.shape[0], dtype=np.int64) - offsets[:-1][ids]
    disc = r.discounts(int(per_query.max(initial=0)))
    return segment_sum(gains / disc[pos], ids, r.num_queries)


def ndcg(r: Ranked, cutoff: int | None) -> Float64Array:
    """``nDCG@k = DCG@k / IDCG@k`` (trec_eval ``ndcg``, ``ndcg_cut``); 0 when IDCG = 0."""
    return safe_divide(dcg(r, cutoff), ideal_dcg(r, cutoff))
