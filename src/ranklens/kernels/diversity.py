"""Diversity (novelty and intent-aware) measures over subtopic judgments, as NIST's ndeval.

A ranking is given flat: ``offsets`` (nq + 1) and, at each rank, ``rows``: the row of the
document in :class:`~ranklens.data.subtopics.SubtopicQrels` (-1 if it is not judged), with
``nsub`` (the ranking's queries' numbers of subtopics with a relevant document, ``|S|``).
Everything is computed from the (rank, subtopic) pairs where a ranked document is relevant
to a subtopic; ``c`` is the number of earlier ranks that covered the same subtopic, and the
gain of a rank ``i`` (0-based) is ``g_i = sum over its subtopics of (1 - alpha)^c``.

* ``alpha-DCG@k = sum_{i<k} g_i / log2(i + 2)`` divided by the collection-independent ideal
  ``|S| sum_{i<k} (1 - alpha)^i / log2(i + 2)``; ``ERR-IA@k`` likewise with ``1 / (i + 1)``.
  As in ndeval, the cut-off 1 is not divided.
* ``alpha-nDCG@k``, ``nERR-IA@k`` divide by the same sums of a greedy ideal ranking of the
  judged documents (at each rank the document of largest gain, ties to the larger docno).
* ``NRBP = (1 - (1 - alpha) beta) / |S| sum_i beta^i g_i`` over the whole ranking;
  ``nNRBP`` divides it by the ideal ranking's.
* ``MAP-IA = 1/|S| sum_s AP_s``, ``P-IA@k = |pairs above k| / (k |S|)``,
  ``strec@k = |subtopics covered above k| / |S|``.

A query with no subtopic (|S| = 0) scores 0 everywhere. Sums run in ndeval's order (rank by
rank, subtopic by subtopic) so values agree with it to the last printed digit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ranklens.base.errors import MeasureError
from ranklens.base.types import Float64Array, Int64Array
from ranklens.data.subtopics import SubtopicQrels

if TYPE_CHECKING:
    from ranklens.ranking.align import Ranked


@dataclass(frozen=True)
class Pairs:
    """The (rank, subtopic) pairs of a ranking where the document is relevant to the
    subtopic, in rank order then subtopic order."""

    pos: Int64Array
    """The flat position of the pair's rank."""
    rank: Int64Array
    """The 0-based rank within its query."""
    query: Int64Array
    """The query (index into the ranking's queries)."""
    sub: Int64Array
    """The global subtopic id."""
    seen: Int64Array
    """How many earlier ranks of the query covered the subtopic."""
    num_queries: int
    size: int
    """The number of ranks."""


def pairs_of(offsets: Int64Array, rows: Int64Array, sq: SubtopicQrels) -> Pairs:
    """Expand a ranking's judged rows into (rank, subtopic) pairs.

    >>> sq = SubtopicQrels.from_dict({"q": {"a": {"1": 1, "2": 1}, "b": {"2": 1}}})
    >>> p = pairs_of(np.array([0, 3]), np.array([1, 0, -1]), sq)
    >>> p.rank.tolist(), p.sub.tolist(), p.seen.tolist()
    ([0, 1, 1], [1, 0, 1], [0, 0, 1])
    """
    n = int(offsets[-1])
    nq = len(offsets) - 1
    query_of = np.repeat(np.arange(nq, dtype=np.int64), np.diff(offsets))
    flat = np.flatnonzero(rows >= 0)
    r = rows[flat]
    counts = sq.pair_offsets[r + 1] - sq.pair_offsets[r]
    total = int(counts.sum())
    pos = np.repeat(flat, counts)
    starts = np.repeat(sq.pair_offsets[r] - (np.cumsum(counts) - counts), counts)
    sub = sq.pair_sub[starts + np.arange(total, dtype=np.int64)]
    query = query_of[pos]
    rank = pos - offsets[query]
    order = np.lexsort((pos, sub))
    sorted_sub = sub[order]
    first = np.ones(total, dtype=bool)
    if total > 1:
        first[1:] = sorted_sub[1:] != sorted_sub[:-1]
    group_start = np.maximum.accumulate(np.where(first, np.arange(total), 0))
    seen = np.empty(total, dtype=np.int64)
    seen[order] = np.arange(total) - group_start
    return Pairs(pos, rank, query, sub, seen, nq, n)


def _powers(base: float, count: int) -> Float64Array:
    """``base^0 .. base^(count-1)`` by repeated multiplication (as ndeval)."""
    out = np.full(max(count, 1), base, dtype=np.float64)
    out[0] = 1.0
    result: Float64Array = np.cumprod(out)[:count].astype(np.float64)
    return result


def rank_gains(p: Pairs, alpha: float) -> Float64Array:
    """``g_i`` at every flat position: the sum of ``(1 - alpha)^c`` over its subtopics."""
    table = _powers(1.0 - alpha, int(p.seen.max(initial=0)) + 1)
    out: Float64Array = np.bincount(p.pos, table[p.seen], minlength=p.size).astype(np.float64)
    return out


def discounts(kind: str, count: int) -> Float64Array:
    """The discount of ranks ``0 .. count-1``: ``log(2) / log(i + 2)`` for ``"dcg"``,
    ``1 / (i + 1)`` for ``"err"`` (what :func:`raw_at` multiplies each gain by).

    >>> discounts("err", 3).tolist()
    [1.0, 0.5, 0.3333333333333333]
    """
    return _discount(kind, count)


def _discount(kind: str, count: int) -> Float64Array:
    i = np.arange(count, dtype=np.float64)
    if kind == "dcg":
        d: Float64Array = np.log(2.0) / np.log(i + 2.0)
    else:
        d = 1.0 / (i + 1.0)
    return d


def raw_at(offsets: Int64Array, gains: Float64Array, kind: str, cutoff: int) -> Float64Array:
    """``sum_{i<k} g_i d(i)`` per query (``d`` the log discount for ``"dcg"``, ``1/(i+1)``
    for ``"err"``)."""
    nq = len(offsets) - 1
    query_of = np.repeat(np.arange(nq, dtype=np.int64), np.diff(offsets))
    rank = np.arange(len(gains), dtype=np.int64) - offsets[query_of]
    keep = rank < cutoff
    disc = _discount(kind, cutoff)
    out: Float64Array = np.bincount(
        query_of[keep], gains[keep] * disc[rank[keep]], minlength=nq
    ).astype(np.float64)
    return out


def ideal_ideal(nsub: Int64Array, alpha: float, kind: str, cutoff: int) -> Float64Array:
    """ndeval's collection-independent ideal: ``|S| (1-alpha)^i d(i)`` summed over ``i < k``."""
    disc = _discount(kind, cutoff)
    values, inverse = np.unique(nsub, return_inverse=True)
    out = np.empty(len(values), dtype=np.float64)
    for j, s in enumerate(values.tolist()):  # a handful of distinct |S|, not queries
        gain = np.full(cutoff, 1.0 - alpha)
        gain[0] = float(s)
        terms = np.cumprod(gain) * disc
        out[j] = np.cumsum(terms)[-1] if cutoff else 0.0
    result: Float64Array = out[inverse.reshape(-1)]
    return result


def normalised_at(
    raw: Float64Array, nsub: Int64Array, alpha: float, kind: str, cutoff: int
) -> Float64Array:
    """``alpha-DCG@k`` / ``ERR-IA@k``: ``raw`` over the ideal-ideal (not at ``k = 1``)."""
    out = np.zeros_like(raw)
    has = nsub > 0
    if cutoff <= 1:
        out[has] = raw[has]
        return out
    out[has] = raw[has] / ideal_ideal(nsub[has], alpha, kind, cutoff)
    return out


def nrbp(
    offsets: Int64Array, gains: Float64Array, nsub: Int64Array, alpha: float, beta: float
) -> Float64Array:
    """``NRBP`` per query over the whole ranking."""
    nq = len(offsets) - 1
    query_of = np.repeat(np.arange(nq, dtype=np.int64), np.diff(offsets))
    rank = np.arange(len(gains), dtype=np.int64) - offsets[query_of]
    decay = _powers(beta, int(rank.max(initial=0)) + 1)
    total = np.bincount(query_of, gains * decay[rank], minlength=nq).astype(np.float64)
    out = np.zeros(nq, dtype=np.float64)
    has = nsub > 0
    out[has] = total[has] * ((1.0 - (1.0 - alpha) * beta) / nsub[has])
    return out


def map_ia(p: Pairs, nsub: Int64Array, sq: SubtopicQrels) -> Float64Array:
    """``MAP-IA`` per query: the mean over subtopics of each subtopic's average precision."""
    terms = (p.seen + 1).astype(np.float64) / (p.rank + 1).astype(np.float64)
    n_sub = len(sq.sub_nrel)
    per_sub = np.bincount(p.sub, terms, minlength=n_sub)
    ap = per_sub / np.maximum(sq.sub_nrel, 1)
    # a subtopic belongs to the one ranking query whose documents cover it (0 if none)
    q_of = np.full(n_sub, -1, dtype=np.int64)
    q_of[p.sub] = p.query
    keep = q_of >= 0
    total = np.bincount(q_of[keep], ap[keep], minlength=p.num_queries).astype(np.float64)
    out = np.zeros(p.num_queries, dtype=np.float64)
    has = nsub > 0
    out[has] = total[has] / nsub[has]
    return out


def precision_ia(p: Pairs, nsub: Int64Array, cutoff: int) -> Float64Array:
    """``P-IA@k``: relevant (rank, subtopic) pairs above ``k`` over ``k |S|``."""
    keep = p.rank < cutoff
    count = np.bincount(p.query[keep], minlength=p.num_queries).astype(np.float64)
    out = np.zeros(p.num_queries, dtype=np.float64)
    has = nsub > 0
    out[has] = count[has] / (float(cutoff) * nsub[has])
    return out


def subtopic_recall(p: Pairs, nsub: Int64Array, cutoff: int | None) -> Float64Array:
    """``strec@k``: the fraction of subtopics covered above ``k`` (the whole ranking if
    ``None``)."""
    keep = p.seen == 0
    if cutoff is not None:
        keep &= p.rank < cutoff
    count = np.bincount(p.query[keep], minlength=p.num_queries).astype(np.float64)
    out = np.zeros(p.num_queries, dtype=np.float64)
    has = nsub > 0
    out[has] = count[has] / nsub[has]
    return out


@dataclass(frozen=True)
class Ideal:
    """The greedy ideal ranking of each query of the subtopic qrels (rows, relevant ones)."""

    offsets: Int64Array
    rows: Int64Array


def ideal_ranking(sq: SubtopicQrels, alpha: float) -> Ideal:
    """ndeval's greedy ideal: at each rank the unranked document with the largest gain
    (``sum (1 - alpha)^c`` over its subtopics), ties to the larger docno; computed for every
    query at once, one step per rank, and kept on ``sq`` per ``alpha``.

    >>> sq = SubtopicQrels.from_dict({"q": {"a": {"1": 1}, "b": {"1": 1, "2": 1}, "c": {"2": 1}}})
    >>> ideal_ranking(sq, 0.5).rows.tolist()
    [1, 2, 0]
    """
    found: Ideal = sq.cached(("ideal", alpha), lambda: _ideal(sq, alpha))
    return found


def _ideal(sq: SubtopicQrels, alpha: float) -> Ideal:
    counts = np.diff(sq.pair_offsets)
    cand = np.flatnonzero(counts > 0)  # rows in query order, then docno order
    nq = sq.num_queries
    row_query = np.repeat(np.arange(nq, dtype=np.int64), np.diff(sq.doc_offsets))
    cand_q = row_query[cand]
    per_q = np.bincount(cand_q, minlength=nq)
    offsets = np.zeros(nq + 1, dtype=np.int64)
    np.cumsum(per_q, out=offsets[1:])
    if len(cand) == 0:
        return Ideal(offsets, np.zeros(0, dtype=np.int64))
    local = np.repeat(np.arange(len(cand), dtype=np.int64), counts[cand])
    pair_idx = _ranges(sq.pair_offsets[cand], counts[cand])
    psub = sq.pair_sub[pair_idx]
    gain = np.ones(len(sq.sub_nrel), dtype=np.float64)
    picked = np.zeros(len(cand), dtype=bool)
    active_q = np.flatnonzero(per_q > 0)
    starts = offsets[active_q]
    steps = int(per_q.max())
    chosen = np.empty((steps, len(active_q)), dtype=np.int64)
    index = np.arange(len(cand), dtype=np.int64)
    owner = np.repeat(np.arange(len(active_q), dtype=np.int64), per_q[active_q])
    for t in range(steps):  # one step per rank, every query at once
        score = np.bincount(local, gain[psub], minlength=len(cand))
        score[picked] = -1.0
        best = np.maximum.reduceat(score, starts)
        tie = np.where(score == best[owner], index, -1)
        win = np.maximum.reduceat(tie, starts)
        live = best >= 0
        chosen[t] = np.where(live, win, -1)
        won = win[live]
        picked[won] = True
        mark = np.zeros(len(cand), dtype=bool)
        mark[won] = True
        gain_sub = psub[mark[local]]
        gain[gain_sub] *= 1.0 - alpha
    flat = chosen.T.reshape(-1)
    rows = cand[flat[flat >= 0]]
    return Ideal(offsets, rows.astype(np.int64))


def _ranges(starts: Int64Array, counts: Int64Array) -> Int64Array:
    total = int(counts.sum())
    base = np.repeat(starts - (np.cumsum(counts) - counts), counts)
    out: Int64Array = base + np.arange(total, dtype=np.int64)
    return out


@dataclass(frozen=True)
class IdealValues:
    """The ideal ranking's raw sums, per subtopic-qrels query."""

    sq: SubtopicQrels
    alpha: float

    def ranking(self) -> tuple[Ideal, Float64Array]:
        ideal = ideal_ranking(self.sq, self.alpha)
        gains = self.sq.cached(
            ("ideal_gains", self.alpha),
            lambda: rank_gains(pairs_of(ideal.offsets, ideal.rows, self.sq), self.alpha),
        )
        return ideal, gains

    def raw_at(self, kind: str, cutoff: int) -> Float64Array:
        def make() -> Float64Array:
            ideal, gains = self.ranking()
            return raw_at(ideal.offsets, gains, kind, cutoff)

        found: Float64Array = self.sq.cached(("ideal_raw", self.alpha, kind, cutoff), make)
        return found

    def nrbp(self, beta: float) -> Float64Array:
        def make() -> Float64Array:
            ideal, gains = self.ranking()
            return nrbp(ideal.offsets, gains, self.sq.num_subtopics, self.alpha, beta)

        found: Float64Array = self.sq.cached(("ideal_nrbp", self.alpha, beta), make)
        return found


def ratio(
    run: Float64Array,
    ideal: Float64Array,
    nsub: Int64Array,
    cutoff: int | None = None,
    alpha: float = 0.5,
    kind: str = "dcg",
) -> Float64Array:
    """``run / ideal`` where the run's value is not 0 (0 elsewhere). With a ``cutoff`` both
    are first divided by the ideal-ideal, as ndeval does (which changes the last bits)."""
    out = np.zeros_like(run)
    ok = (run != 0) & (ideal != 0)
    if cutoff is not None and cutoff > 1:
        ii = ideal_ideal(nsub[ok], alpha, kind, cutoff)
        out[ok] = (run[ok] / ii) / (ideal[ok] / ii)
    else:
        out[ok] = run[ok] / ideal[ok]
    return out


# --- the measure language: a ranking aligned by the evaluator -----------------------------


def ranked_rows(r: Ranked) -> tuple[SubtopicQrels, Int64Array, Int64Array]:
    """The subtopic judgments, the row at each rank of ``r`` (-1: not judged) and each of
    ``r``'s queries' index in them (-1: no judgments); computed once per ranking."""
    return _ranked_rows(r)


def _ranked_rows(r: Ranked) -> tuple[SubtopicQrels, Int64Array, Int64Array]:
    """The subtopic judgments, the row at each rank of ``r`` and its queries' ``|S|``."""
    sq = r.judgments.subtopics
    if sq is None:
        raise MeasureError("a diversity measure needs subtopic qrels (judgments=...)")
    source = r.source
    if source is None or r.entry is None:
        raise MeasureError("these arrays were built without a run to look documents up in")

    def make() -> tuple[Int64Array, Int64Array]:
        from ranklens.data.native import core as _core

        run = source.run
        keys = sq.key_qrels()
        index = keys.query_index()
        run_to_keys = np.fromiter(
            (index.get(q, -1) for q in run.qids), dtype=np.int64, count=run.num_queries
        )
        by_entry = _core.align(
            run.q_offsets,
            run.doc_data,
            run.doc_offsets,
            np.arange(len(run), dtype=np.int64),
            run_to_keys,
            keys.q_offsets,
            keys.doc_data,
            keys.doc_offsets,
            keys.rels,
        )
        rows = np.where(by_entry[r.entry] >= 0, by_entry[r.entry], -1).astype(np.int64)
        sq_index = sq.query_index()
        at = np.array([sq_index.get(q, -1) for q in r.qids], dtype=np.int64)
        return rows, at

    rows, at = r.derived(("diversity_rows",), make)
    return sq, rows, at


def _ideal_of(values: Float64Array, at: Int64Array) -> Float64Array:
    out = np.zeros(len(at), dtype=np.float64)
    ok = at >= 0
    out[ok] = values[at[ok]]
    return out


def measure(
    r: Ranked, name: str, alpha: float = 0.5, beta: float = 0.5, cutoff: int | None = None
) -> Float64Array:
    """One diversity measure per query of the aligned ranking ``r`` (ndeval's definitions;
    ``name`` one of ``alpha_DCG``, ``alpha_nDCG``, ``ERR_IA``, ``nERR_IA``, ``NRBP``,
    ``nNRBP``, ``AP_IA``, ``P_IA``, ``StRecall``)."""
    sq, rows, at = _ranked_rows(r)
    nsub = np.where(at >= 0, sq.num_subtopics[np.maximum(at, 0)], 0).astype(np.int64)
    p: Pairs = r.derived(("diversity_pairs",), lambda: pairs_of(r.offsets, rows, sq))
    if name == "AP_IA":
        return map_ia(p, nsub, sq)
    if name == "StRecall":
        return subtopic_recall(p, nsub, cutoff)
    if name == "P_IA":
        return precision_ia(p, nsub, int(cutoff or 1))
    gains: Float64Array = r.derived(("diversity_gains", alpha), lambda: rank_gains(p, alpha))
    ideal = IdealValues(sq, alpha)
    if name in ("NRBP", "nNRBP"):
        value = nrbp(r.offsets, gains, nsub, alpha, beta)
        if name == "NRBP":
            return value
        return ratio(value, _ideal_of(ideal.nrbp(beta), at), nsub)
    k = int(cutoff or 1)
    kind = "dcg" if name.endswith("DCG") else "err"
    raw = raw_at(r.offsets, gains, kind, k)
    if name in ("alpha_DCG", "ERR_IA"):
        return normalised_at(raw, nsub, alpha, kind, k)
    return ratio(raw, _ideal_of(ideal.raw_at(kind, k), at), nsub, k, alpha, kind)
