"""ir_measures' ``Accuracy``: the fraction of (relevant, non-relevant) pairs among the
retrieved documents that the ranking orders correctly.

Over the top ``k`` documents (the whole ranking without a cutoff), with unjudged documents
non-relevant: ``Accuracy = 1 - sum_{relevant d} |{non-relevant above d}| / (R_ret N_ret)``,
``R_ret`` and ``N_ret`` the retrieved relevant and non-relevant documents. ir_measures leaves
out a query without a retrieved relevant document (here it scores 0) and fails on one
without a retrieved non-relevant document (here 1: no pair is misordered).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ranklens.base.types import Float64Array

if TYPE_CHECKING:
    from ranklens.ranking.align import Ranked


def pair_accuracy(r: Ranked, rel: int, cutoff: int | None) -> Float64Array:
    """Per-query ordered-pair accuracy of the retrieved documents.

    >>> from ranklens.ranking.align import Ranked, GradeCounts
    >>> rels = np.array([0, 1, -1, 1, 0])  # N R N R N: 1 + 2 misordered of 2 * 3 pairs
    >>> r = Ranked(("q",), np.array([0, 5]), rels, GradeCounts.of(np.zeros(5, np.int64), rels, 1))
    >>> float(pair_accuracy(r, 1, None)[0])
    0.5
    """
    nq = len(r.offsets) - 1
    counts = np.diff(r.offsets)
    query = np.repeat(np.arange(nq, dtype=np.int64), counts)
    rank = np.arange(len(r.rel), dtype=np.int64) - r.offsets[query]
    keep = rank < cutoff if cutoff is not None else np.ones(len(rank), dtype=bool)
    relevant = (r.rel >= rel) & (r.rel >= 0) & keep
    nonrel = ~(r.rel >= rel) & keep
    cum = np.cumsum(nonrel)
    start = np.concatenate(([0], cum))[r.offsets[:-1]]
    above: np.ndarray = (
        cum - start[query]
    )  # non-relevant at or above each rank (none at a relevant one)
    misordered = np.bincount(query[relevant], above[relevant], minlength=nq)
    n_rel = np.bincount(query[relevant], minlength=nq).astype(np.float64)
    n_non = np.bincount(query[nonrel], minlength=nq).astype(np.float64)
    out = np.zeros(nq, dtype=np.float64)
    has_rel = n_rel > 0
    out[has_rel & (n_non == 0)] = 1.0
    both = has_rel & (n_non > 0)
    out[both] = 1.0 - misordered[both] / (n_non[both] * n_rel[both])
    return out
