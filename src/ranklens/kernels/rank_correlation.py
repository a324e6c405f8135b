"""Rank correlation between a ranking and the relevance grades: the number of inversions
(discordant pairs, founding document 001's "Kendall tau distance") and Kendall's tau-b.

Both look only at the judged retrieved documents (grade >= 0; unjudged documents and
negative judgments are skipped) within the top k. A pair of such documents ``(i, j)`` with
``i`` ranked above ``j`` is *discordant* (an inversion) if ``grade_i < grade_j`` and
*concordant* if ``grade_i > grade_j``; pairs with equal grades are neither.

The counts are vectorised over all queries: the loop is over the distinct grades present
(few), each step a cumulative count within the query segments, so the cost is O(n * G).
"""

from __future__ import annotations

import numpy as np

from ranklens.base.types import Float64Array, Int64Array
from ranklens.ranking.align import Ranked


def judged_in_top(r: Ranked, cutoff: int | None) -> Int64Array:
    """The flat indices of the judged documents (grade >= 0) within the top ``cutoff`` ranks
    of every query (all ranks when ``None``), in rank order."""
    mask = r.judged if cutoff is None else r.judged & (r.pos < cutoff)
    return np.flatnonzero(mask)


def _labels(r: Ranked, index: Int64Array, rel: int | None) -> Int64Array:
    """The grades of ``index``, or with ``rel`` the binary relevance ``grade >= rel``."""
    grades = r.rel[index]
    return grades if rel is None else (grades >= rel).astype(np.int64)


def _pair_counts(
    ids: Int64Array, labels: Int64Array, num_queries: int
) -> tuple[Int64Array, Int64Array, Int64Array]:
    """Per query: the number of documents ``n``, the discordant pairs ``D`` and the pairs
    tied in label ``T``, for documents listed in rank order with query ``ids``."""
    n = np.bincount(ids, minlength=num_queries).astype(np.int64)
    discordant = np.zeros(num_queries, dtype=np.int64)
    if ids.shape[0] == 0:
        return n, discordant, np.zeros(num_queries, dtype=np.int64)
    levels, code = np.unique(labels, return_inverse=True)
    code = code.reshape(-1).astype(np.int64)
    start = np.zeros(num_queries + 1, dtype=np.int64)
    np.cumsum(n, out=start[1:])
    first = start[:-1][ids]  # the flat index of each document's query's first document
    lower = np.zeros(ids.shape[0], dtype=np.int64)
    for level in range(1, levels.shape[0]):
        lower += code == level - 1  # documents with a label below ``level``
        running = np.concatenate(([0], np.cumsum(lower)))
        above = running[:-1] - running[first]  # below-``level`` documents ranked above
        at = code == level
        discordant += np.bincount(ids[at], weights=above[at], minlength=num_queries).astype(
            np.int64
        )
    groups = np.bincount(ids * levels.shape[0] + code, minlength=num_queries * levels.shape[0])
    per_group = groups.reshape(num_queries, levels.shape[0]).astype(np.int64)
    ties = (per_group * (per_group - 1) // 2).sum(axis=1)
    return n, discordant, ties


def inversions(r: Ranked, cutoff: int | None, rel: int | None = None) -> Float64Array:
    """Per query, the discordant pairs among the judged documents of the top ``cutoff``:
    pairs ranked ``i`` above ``j`` with ``grade_i < grade_j`` (with ``rel``: ``i`` not
    relevant, ``j`` relevant). 0 for fewer than two judged documents."""
    index = judged_in_top(r, cutoff)
    _, discordant, _ = _pair_counts(r.ids[index], _labels(r, index, rel), r.num_queries)
    return discordant.astype(np.float64)


def kendall_tau(r: Ranked, cutoff: int | None, rel: int | None = None) -> Float64Array:
    """Per query, Kendall's tau-b between rank order (higher ranked first) and grade among
    the judged documents of the top ``cutoff``.

    With ``n`` documents, ``n0 = n (n - 1) / 2`` pairs, ``T`` pairs tied in grade and ``D``
    discordant pairs (so ``C = n0 - T - D`` concordant): ``(C - D) / sqrt(n0 (n0 - T))``
    (ranks never tie). 1 when the grades never increase down the ranking, -1 when they
    never decrease; 0 when undefined (``n < 2`` or all grades equal).
    """
    index = judged_in_top(r, cutoff)
    n, discordant, ties = _pair_counts(r.ids[index], _labels(r, index, rel), r.num_queries)
    pairs = (n * (n - 1) // 2).astype(np.float64)
    untied = pairs - ties.astype(np.float64)
    concordant = untied - discordant.astype(np.float64)
    out = np.zeros(r.num_queries, dtype=np.float64)
    den = np.sqrt(pairs * untied)
    np.divide(concordant - discordant, den, out=out, where=untied > 0)
    return np.clip(out, -1.0, 1.0)
