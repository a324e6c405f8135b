"""Expected reciprocal rank (Chapelle, Metzler, Zhang & Grinspan, CIKM 2009).

A user scans the ranking from the top; at rank i they are satisfied, and stop, with
probability ``R_i = (2^g_i - 1) / 2^g_max``; otherwise they go on to the next document
with probability ``p`` (founding document 001's variant; ``p = 1`` is Chapelle's ERR):

    ERR = sum_r (1/r) * R_r * prod_{i < r} p * (1 - R_i)

The running product is computed per query left to right (a padded matrix whose rows
``np.multiply.accumulate`` runs over in order), so every factor is the double a C loop
``prod *= p * (1 - R_i)`` holds at that rank; the terms are summed in rank order. The
result therefore equals a plain loop's to the last bit (the tests allow 1e-12).
"""

from __future__ import annotations

import numpy as np

from ranklens.base.segments import segment_ids, segment_sum
from ranklens.base.types import Float64Array, Int64Array
from ranklens.kernels._running import segment_cumprod
from ranklens.ranking.align import Ranked

_DIRECT = 1000
"""Up to this ``g_max`` the stop probability is computed as written (2^g_max is finite)."""


def stop_probability(rel: Int64Array, max_rel: int) -> Float64Array:
    """``R_i = (2^g_i - 1) / 2^max_rel`` for the judgments ``rel``, ``g_i`` the grade
    clipped to ``0..max_rel`` (unjudged and negatively judged documents: 0)."""
    if max_rel <= _DIRECT:
        grades = np.clip(rel, 0, max_rel).astype(np.float64)
        stop: Float64Array = (np.exp2(grades) - 1.0) / np.exp2(np.float64(max_rel))
        return stop
    if max_rel >= 2**63:  # beyond every int64 grade: 2^(g - max_rel) is 0 for all of them
        return np.zeros(rel.shape[0], dtype=np.float64)
    # 2^max_rel overflows a double: the same value as 2^(g - max_rel) - 2^-max_rel, with
    # g - max_rel computed exactly in int64 (g is clipped to 0..max_rel)
    below = (np.clip(rel, 0, max_rel) - np.int64(max_rel)).astype(np.float64)
    scaled: Float64Array = np.exp2(below) - np.exp2(-np.float64(max_rel))
    return scaled


def top_grade(r: Ranked) -> int:
    """The highest judged grade in the qrels of the evaluated queries (0 if none): ERR's
    default ``g_max``. With the default query policy (``queries="qrels"``) these are all
    the queries of the qrels, so ``g_max`` is the qrels' highest grade."""
    return max(int(r.grades.grade.max(initial=0)), 0)


def expected_reciprocal_rank(
    r: Ranked, cutoff: int | None, p: float = 1.0, max_rel: int | None = None
) -> Float64Array:
    """``ERR@k = sum_{r <= k} (1/r) * R_r * prod_{i < r} p * (1 - R_i)`` (module docs);
    ``max_rel`` (``g_max``) defaults to :func:`top_grade`. 0 for an empty ranking and for
    queries whose retrieved documents all have grade 0."""
    g_max = top_grade(r) if max_rel is None else max_rel
    if g_max <= 0:
        return np.zeros(r.num_queries, dtype=np.float64)
    offsets, rel = r.offsets, r.rel
    if cutoff is not None and int(r.num_ret.max(initial=0)) > cutoff:
        keep = r.pos < cutoff
        rel = rel[keep]
        offsets = np.zeros_like(r.offsets)
        np.cumsum(np.minimum(r.num_ret, cutoff), out=offsets[1:])
    ids = segment_ids(offsets)
    rank = (np.arange(ids.shape[0], dtype=np.int64) - offsets[:-1][ids] + 1).astype(np.float64)
    stop = stop_probability(rel, g_max)
    carry = segment_cumprod(p * (1.0 - stop), offsets)
    # The product before rank r: 1.0 at each query's first rank, else the running product
    # up to the previous rank.
    before = np.ones_like(carry)
    before[1:] = carry[:-1]
    before[offsets[:-1][offsets[:-1] < offsets[1:]]] = 1.0
    return segment_sum(before * stop / rank, ids, r.num_queries)
