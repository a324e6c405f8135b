"""Discounted cumulative gain and its normalised form.

Without a gain map these are trec_eval's ``ndcg`` / ``ndcg_cut`` with linear gain (the
grade). With ``gains`` (see :mod:`ranklens.kernels.gains`) they are trec_eval's
``ndcg.1=3,2=9`` / ``dcg`` / ``ideal_dcg``; trec_eval's ``ndcg_cut`` has no gain parameter,
so ranklens's ``nDCG(gains=...)@k`` (custom gains, cut at k) has no trec_eval counterpart.
``dcg="exp-log2"`` uses ``2^gain - 1`` as the gain (Burges et al.) on the same ideal.
"""

from __future__ import annotations

import numpy as np

from ranklens.base.segments import segment_ids, segment_sum
from ranklens.base.types import Float64Array, Int64Array
from ranklens.kernels._util import safe_divide
from ranklens.kernels.gains import (
    GainPairs,
    check_form,
    check_ideal,
    gain_pairs,
    ideal_gains,
    rank_gains,
    shaped,
)
from ranklens.ranking.align import Ranked


def linear_gain(rel: Int64Array) -> Float64Array:
    """trec_eval's default gain: the grade itself; 0 for unjudged and negative judgments."""
    return np.where(rel > 0, rel, 0).astype(np.float64)


def _linear_dcg(r: Ranked, cutoff: int | None) -> Float64Array:
    gained = np.flatnonzero(r.rel > 0)
    ids, pos = r.locate(gained)
    if cutoff is not None:
        inside = pos < cutoff
        gained, ids, pos = gained[inside], ids[inside], pos[inside]
    disc = r.discounts(int(r.num_ret.max(initial=0)))
    weights = linear_gain(r.rel[gained]) / disc[pos]
    return segment_sum(weights, ids, r.num_queries)


def _linear_ideal_dcg(r: Ranked, cutoff: int | None) -> Float64Array:
    table = r.grades
    positive = np.flatnonzero(table.grade > 0)
    # highest grade first within each query
    order = positive[np.lexsort((-table.grade[positive], table.query[positive]))]
    query, grade, reps = table.query[order], table.grade[order], table.count[order]
    if cutoff is not None:
        # Only the first k ideal positions matter; clip the repetitions per query.
        before = np.cumsum(reps) - reps
        start = np.concatenate(
            ([0], np.cumsum(np.bincount(query, weights=reps, minlength=r.num_queries)))
        )
        before = before - start[:-1][query].astype(np.int64)
        reps = np.clip(cutoff - before, 0, reps)
    per_query = np.bincount(query, weights=reps, minlength=r.num_queries).astype(np.int64)
    gains = np.repeat(grade, reps).astype(np.float64)
    offsets = np.zeros(r.num_queries + 1, dtype=np.int64)
    np.cumsum(per_query, out=offsets[1:])
    ids = segment_ids(offsets)
    pos = np.arange(gains.shape[0], dtype=np.int64) - offsets[:-1][ids]
    disc = r.discounts(int(per_query.max(initial=0)))
    return segment_sum(gains / disc[pos], ids, r.num_queries)


def _gain_dcg(r: Ranked, cutoff: int | None, pairs: GainPairs, form: str) -> Float64Array:
    values = shaped(rank_gains(r, pairs), form)
    gained = np.flatnonzero(values != 0.0)
    if cutoff is not None:
        gained = gained[r.pos[gained] < cutoff]
    disc = r.discounts(int(r.num_ret.max(initial=0)))
    return segment_sum(values[gained] / disc[r.pos[gained]], r.ids[gained], r.num_queries)


def _gain_ideal_dcg(
    r: Ranked, cutoff: int | None, pairs: GainPairs, form: str, order: str
) -> Float64Array:
    ideal = ideal_gains(r, pairs, order)
    values, pos, ids = shaped(ideal.gains, form), ideal.pos, ideal.ids
    if cutoff is not None:
        inside = pos < cutoff
        values, pos, ids = values[inside], pos[inside], ids[inside]
    disc = r.discounts(int(pos.max(initial=-1)) + 1)
    return segment_sum(values / disc[pos], ids, r.num_queries)


def _dcg_pair(
    r: Ranked, cutoff: int | None, gains: object, form: str, which: str, order: str = "sorted"
) -> Float64Array:
    check_form(form)
    check_ideal(order)
    pairs = gain_pairs(gains)
    if pairs is None and form == "log2":
        return _linear_dcg(r, cutoff) if which == "dcg" else _linear_ideal_dcg(r, cutoff)
    pairs = pairs or ()
    if which == "dcg":
        return _gain_dcg(r, cutoff, pairs, form)
    return _gain_ideal_dcg(r, cutoff, pairs, form, order)


def dcg(r: Ranked, cutoff: int | None, gains: object = None, dcg: str = "log2") -> Float64Array:
    """``DCG@k = sum over ranks i <= k of gain_i / log2(i + 1)``, added in rank order.

    ``gain_i`` is the grade, or its custom gain from ``gains`` (``2^g - 1`` of it with
    ``dcg="exp-log2"``); documents that gain 0 add nothing and negative custom gains
    subtract (trec_eval ``dcg``).
    """
    return _dcg_pair(r, cutoff, gains, dcg, "dcg")


def ideal_dcg(
    r: Ranked,
    cutoff: int | None,
    gains: object = None,
    dcg: str = "log2",
    ideal: str = "sorted",
) -> Float64Array:
    """DCG of the ideal ranking: every judged document of the query's qrels, retrieved or
    not, by decreasing gain, up to the first gain that is not positive (trec_eval's ideal;
    not truncated to the retrieved count, only to ``cutoff``). ``ideal="trec_eval"`` orders
    custom gains as trec_eval does (:mod:`ranklens.kernels.gains`)."""
    return _dcg_pair(r, cutoff, gains, dcg, "ideal", ideal)


def ndcg(
    r: Ranked,
    cutoff: int | None,
    gains: object = None,
    dcg: str = "log2",
    ideal: str = "sorted",
) -> Float64Array:
    """``nDCG@k = DCG@k / IDCG@k`` (trec_eval ``ndcg``, ``ndcg_cut``); 0 when IDCG = 0.

    With custom ``gains`` the ideal is ordered by exact decreasing gain, so a perfect
    ranking scores 1 for any finite gains; ``ideal="trec_eval"`` gives trec_eval's numbers
    for its ``ndcg.1=g1,2=g2`` (whose ``(int)(g1 - g2)`` comparison ties fractional gains).
    """
    return safe_divide(
        _dcg_pair(r, cutoff, gains, dcg, "dcg"),
        _dcg_pair(r, cutoff, gains, dcg, "ideal", ideal),
    )
