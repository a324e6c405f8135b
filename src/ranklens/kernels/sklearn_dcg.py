"""scikit-learn's ``dcg_score`` / ``ndcg_score`` conventions on a ranking.

sklearn scores the documents it is given (here: the retrieved ones; unjudged and negative
grades gain 0), with linear gain, discount ``1 / log_b(i + 1)`` (``log_base``, 2 by default)
and, unless ``ignore_ties``, *tie-averaged* DCG: documents with equal scores share their
positions, each tie group contributing its mean gain times the sum of its positions'
discounts. The ideal orders the same documents by grade: ``nDCG = DCG / IDCG`` (0 if
``IDCG = 0``), so judged documents that were not retrieved do not count (unlike trec_eval's
nDCG).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ranklens.base.errors import MeasureError
from ranklens.base.types import Float64Array

if TYPE_CHECKING:
    from ranklens.ranking.align import Ranked


def _layout(r: Ranked, cutoff: int | None, log_base: float) -> tuple[np.ndarray, ...]:
    if log_base <= 1.0:
        raise MeasureError(f"log_base must be > 1, got {log_base}")
    nq = len(r.offsets) - 1
    counts = np.diff(r.offsets)
    query = np.repeat(np.arange(nq, dtype=np.int64), counts)
    rank = np.arange(len(r.rel), dtype=np.int64) - r.offsets[query]
    gain = np.where(r.rel > 0, r.rel, 0).astype(np.float64)
    disc = np.log(log_base) / np.log(rank + 2.0)
    if cutoff is not None:
        disc = np.where(rank < cutoff, disc, 0.0)
    return query, rank, gain, disc


def sk_dcg(
    r: Ranked, cutoff: int | None, log_base: float = 2.0, ignore_ties: bool = False
) -> Float64Array:
    """sklearn's ``dcg_score`` per query (tie-averaged unless ``ignore_ties``).

    >>> from ranklens.ranking.align import Ranked, GradeCounts
    >>> rel = np.array([1, 0, 1])
    >>> counts = GradeCounts.of(np.zeros(3, np.int64), rel, 1)
    >>> r = Ranked(("q",), np.array([0, 3]), rel, counts, np.arange(3), np.array([2.0, 1.0, 1.0]))
    >>> round(float(sk_dcg(r, None)[0]), 4)  # 1 + (0 + 1)/2 * (1/log2(3) + 1/2)
    1.5655
    """
    nq = len(r.offsets) - 1
    query, rank, gain, disc = _layout(r, cutoff, log_base)
    if ignore_ties:
        return np.bincount(query, gain * disc, minlength=nq).astype(np.float64)
    scores = r.scores
    if scores is None:
        raise MeasureError("tie-averaged DCG needs the run's scores")
    new = np.ones(len(rank), dtype=bool)
    new[1:] = (rank[1:] != 0) & (scores[1:] != scores[:-1])
    new[1:] |= rank[1:] == 0
    group = np.cumsum(new) - 1
    size = np.bincount(group).astype(np.float64)
    mean_gain = np.bincount(group, gain) / np.maximum(size, 1.0)
    disc_sum = np.bincount(group, disc)
    group_query = query[new]
    out: Float64Array = np.bincount(group_query, mean_gain * disc_sum, minlength=nq).astype(
        np.float64
    )
    return out


def sk_ndcg(
    r: Ranked, cutoff: int | None, log_base: float = 2.0, ignore_ties: bool = False
) -> Float64Array:
    """sklearn's ``ndcg_score`` per query: DCG over the DCG of the retrieved documents
    ordered by grade (0 if that is 0)."""
    nq = len(r.offsets) - 1
    query, _, gain, disc = _layout(r, cutoff, log_base)
    order = np.lexsort((-gain, query))
    ideal = np.bincount(query, gain[order] * disc, minlength=nq)
    run = sk_dcg(r, cutoff, log_base, ignore_ties)
    out = np.zeros(nq, dtype=np.float64)
    ok = ideal > 0
    out[ok] = run[ok] / ideal[ok]
    return out


def label_ranking_ap(r: Ranked, rel: int) -> Float64Array:
    """sklearn's ``label_ranking_average_precision_score`` per query, over the retrieved
    documents: the mean over relevant documents d of ``|{relevant e: s_e >= s_d}| /
    |{e: s_e >= s_d}|`` (ties counted at their worst position); 1 if none or every
    retrieved document is relevant, as sklearn.

    >>> from ranklens.ranking.align import Ranked, GradeCounts
    >>> rel = np.array([0, 1, 1])
    >>> counts = GradeCounts.of(np.zeros(3, np.int64), rel, 1)
    >>> r = Ranked(("q",), np.array([0, 3]), rel, counts, np.arange(3), np.array([3.0, 2.0, 2.0]))
    >>> round(float(label_ranking_ap(r, 1)[0]), 4)  # both relevant at rank 3 (tie): 2/3
    0.6667
    """
    nq = len(r.offsets) - 1
    counts = np.diff(r.offsets)
    query = np.repeat(np.arange(nq, dtype=np.int64), counts)
    n = len(query)
    rank = np.arange(n, dtype=np.int64) - r.offsets[query]
    scores = r.scores
    if scores is None:
        raise MeasureError("label ranking average precision needs the run's scores")
    relevant = r.rel >= rel
    last = np.ones(n, dtype=bool)  # the last position of each tie group
    if n:
        last[:-1] = (rank[1:] == 0) | (scores[1:] != scores[:-1])
    end = np.flatnonzero(last)
    group_end = end[np.searchsorted(end, np.arange(n))]
    cum = np.cumsum(relevant)
    start = np.concatenate(([0], cum))[r.offsets[:-1]]
    above: np.ndarray = cum[group_end] - start[query]
    worst_rank = rank[group_end] + 1.0
    total = np.bincount(query[relevant], above[relevant] / worst_rank[relevant], minlength=nq)
    n_rel = np.bincount(query[relevant], minlength=nq)
    out = np.ones(nq, dtype=np.float64)
    some = (n_rel > 0) & (n_rel < counts)
    out[some] = total[some] / n_rel[some]
    return out
