"""Compatibility (Clarke, Vtyurina and Smucker, "Offline evaluation without gain", ICTIR
2020): the rank-biased overlap of a ranking with the ideal ranking of the qrels.

The ideal ranking ``I`` holds every judged document with grade > 0, by grade descending;
documents of equal grade are ordered as the run ranks them (the ideal most compatible with
the run), and the ones the run does not retrieve come after those of their grade. With
``R`` the ranking (unjudged and non-relevant documents included), ``D = max(|R|, |I|)``
and ``X_d = |R[:d] ∩ I[:d]|``::

    RBO(R, I) = sum_{d=1}^{D} p^(d-1) X_d / d  /  sum_{d=1}^{D} p^(d-1)
    Compat    = RBO(R, I) / RBO(I, I)       (normalize; RBO(R, I) if RBO(I, I) = 0)

A query without a relevant document, or without a ranking, scores 0.

A relevant document at rank ``r`` (from 1) and ideal position ``s`` is in the overlap from
depth ``max(r, s)`` on, so ``sum_d p^(d-1) X_d / d`` is a sum over the retrieved relevant
documents of ``sum_{d=max(r,s)}^{D} p^(d-1) / d``: two prefix sums, no loop over depths.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ranklens.base.errors import MeasureError
from ranklens.base.types import Float64Array, Int64Array

if TYPE_CHECKING:
    from ranklens.ranking.align import Ranked


def _ideal_positions(r: Ranked, query: Int64Array, rank: Int64Array) -> Int64Array:
    """The ideal position (from 0) of each retrieved relevant document (``query``, ``rank``
    within the query, its grade ``r.rel``): the judged documents of a higher grade, plus the
    retrieved ones of the same grade ranked above it."""
    grade = r.rel[r.offsets[query] + rank]
    counts = r.grades
    # dense codes for the grades, so that (query, grade) is one int64 key
    levels = np.unique(np.concatenate((counts.grade, grade)))
    width = np.int64(levels.shape[0])
    row_key = counts.query * width + np.searchsorted(levels, counts.grade)
    doc_key = query * width + np.searchsorted(levels, grade)
    # judged documents of grade <= g in the query: a prefix sum over the (query, grade) rows
    prefix = np.concatenate(([0], np.cumsum(counts.count)))
    at_most = prefix[np.searchsorted(row_key, doc_key, side="right")]
    query_start = prefix[np.searchsorted(counts.query, query, side="left")]
    query_end = prefix[np.searchsorted(counts.query, query, side="right")]
    higher = query_end - query_start - (at_most - query_start)
    # the same grade ranked above: position within the (query, grade) group in rank order
    order = np.lexsort((rank, grade, query))
    sorted_key = doc_key[order]
    starts = np.searchsorted(sorted_key, sorted_key, side="left")
    within = np.empty_like(order)
    within[order] = np.arange(order.shape[0], dtype=np.int64) - starts
    out: Int64Array = higher + within
    return out


def compatibility(r: Ranked, p: float, normalize: bool) -> Float64Array:
    """Compatibility with the ideal ranking, per query (RBO with persistence ``p``).

    >>> from ranklens.ranking.align import Ranked, GradeCounts
    >>> import numpy as np
    >>> rel = np.array([0, 2, 1])  # ranks 1-3; the qrels also hold an unretrieved grade 1
    >>> counts = GradeCounts.of(np.zeros(4, np.int64), np.array([0, 2, 1, 1]), 1)
    >>> r = Ranked(("q",), np.array([0, 3]), rel, counts)
    >>> # I = (grade 2, retrieved grade 1, unretrieved grade 1); X = 0, 1, 2, so with p = 1/2
    >>> rbo = (0 + 0.5 * 1 / 2 + 0.25 * 2 / 3) / (1 + 0.5 + 0.25)
    >>> best = (1 + 0.5 + 0.25) / (1 + 0.5 + 0.25)
    >>> bool(np.isclose(compatibility(r, 0.5, True)[0], rbo / best))
    True
    """
    if not 0.0 <= p <= 1.0:
        raise MeasureError(f"Compat: p must be in [0, 1], got {p!r}")
    nq = len(r.offsets) - 1
    counts = np.diff(r.offsets)
    judged_rel = r.grades.count * (r.grades.grade > 0)
    num_rel = np.bincount(r.grades.query, weights=judged_rel, minlength=nq).astype(np.int64)
    depth = np.maximum(counts, num_rel)
    longest = int(depth.max()) if nq else 0
    d = np.arange(1, longest + 1, dtype=np.float64)
    weight = np.power(p, d - 1.0)
    # prefix sums from depth 0: weights, and weights / d
    weights_upto = np.concatenate(([0.0], np.cumsum(weight)))
    share_upto = np.concatenate(([0.0], np.cumsum(weight / d)))

    query = np.repeat(np.arange(nq, dtype=np.int64), counts)
    rank = np.arange(r.rel.shape[0], dtype=np.int64) - np.repeat(r.offsets[:-1], counts)
    relevant = r.rel > 0
    query, rank = query[relevant], rank[relevant]
    joins = np.maximum(rank, _ideal_positions(r, query, rank))  # depth - 1 it joins at
    gained = share_upto[depth[query]] - share_upto[joins]
    overlap = np.bincount(query, weights=gained, minlength=nq)
    normalizer = weights_upto[depth]
    score = np.divide(overlap, normalizer, out=np.zeros(nq), where=normalizer > 0)
    if not normalize:
        return score
    # RBO(I, I): X_d = min(d, |I|)
    best = weights_upto[num_rel] + num_rel * (share_upto[depth] - share_upto[num_rel])
    best = np.divide(best, normalizer, out=np.zeros(nq), where=normalizer > 0)
    out: Float64Array = np.where(best > 0.0, score / np.where(best > 0.0, best, 1.0), score)
    return out
