"""Exact score ranges under incomplete judgments: :func:`bounds`.

A run retrieves documents the qrels do not judge; every measure scores them as it was told
to (trec_eval: not relevant). :func:`bounds` says how far each number could move: for every
measure, per query and for the aggregate, the lowest and the highest value the measure takes
over **every** assignment of a grade in ``{0, ..., G}`` to the unjudged documents the run
retrieved (``G``: the qrels' highest grade, or ``max_grade``). Judged documents keep their
grades and documents the run did not retrieve stay as they are. An assigned document becomes
part of the qrels: ``R``, the ideal ranking, bpref's count of judged non-relevant documents
and the ``judged_only`` views change with it. Every value is ``ranklens.evaluate``'s, on the
qrels of one assignment; what differs between measures is only which assignments are tried.

How the extremes are found (each method is exact; see docs/incomplete.md):

``corner``
    measures that are non-decreasing (or non-increasing) in each document's grade and
    whose normaliser does not depend on the unjudged documents' grades (P, RR, Success,
    DCG, CG, ERR, RBP with binary or raw gain, IDCG, the counts ...): the extremes are
    "every unjudged document at 0" and "every one at G". Two evaluations of the whole run,
    vectorised.
``top-grade``
    RBP with ``gain='graded'`` (trec_eval's ``rbp``): the gain is the grade over ``L``, the
    query's highest grade, and grading an unjudged document can raise ``L``, so the value
    is not monotone in a grade. For a fixed highest assigned grade ``l`` the extremes are
    closed-form ("every document at ``l``"; "the lowest-weighted at ``l``, the others 0")
    and the value is monotone in ``l`` between ``0, 1, 2, L, L + 1, G``: at most 24
    assignments per query (:func:`top_grade_rows`).
``prefix``
    binary measures (a threshold ``rel``) whose normaliser depends on the judgments only
    through ``R`` (and bpref's ``N``) and whose value does not decrease when a relevant
    document swaps places with a non-relevant one ranked above it (AP with
    ``norm='R'``/``'min'``, R, Rprec, bpref, F, the set measures, interpolated precision):
    for a fixed number ``m`` of unjudged documents made relevant, ``R`` and ``N`` are fixed
    and the exchange argument puts the maximum on the ``m`` highest-ranked unjudged
    documents and the minimum on the ``m`` lowest. ``2 (u + 1)`` assignments per query,
    ``u`` its unjudged retrieved documents; AP, R and Rprec score them by formula first
    (:func:`_ap_values`, :func:`_recall_values`) and evaluate the two highest and the two
    lowest.
``counts``
    nDCG (linear or exponential gain, no custom gains): for a fixed multiset of assigned
    grades the ideal DCG is fixed and, by the rearrangement inequality, DCG is largest with
    the grades in decreasing order down the ranking and smallest in increasing order. The
    grades needed are only 0, ``G`` and the query's judged grades between
    (:func:`ndcg_grades`), ``g`` of them: one assignment of each kind per multiset,
    ``C(u' + g - 1, g - 1)`` each, ``u'`` the unjudged documents within the cutoff (beyond
    it a grade only raises the ideal: 0 for the maximum, ``G`` for the minimum), whatever
    the size of ``G``. With one grade besides 0 and more than two sorted assignments, all
    are scored at once by formula (:func:`_binary_extreme`) and the two extremes
    evaluated; beyond ``limit`` assignments or :data:`_SEARCH_ROWS` rows, the sorted
    assignments are searched (:class:`_NdcgSearch`) and the results evaluated.
``exhaustive``
    every other measure: every assignment, ``(G + 1)^u`` per query (``2^u`` for the binary
    measures infAP, YAAP, AUC, Accuracy and Utility, which read a grade only through
    ``rel``), counted before any is built.

With ``judged_only``, a negatively judged document is left out of every assignment's
ranking (an unjudged one, once graded, stays), so the ranks the methods reason on are
those of the ranking without it.
A query without a document to grade keeps its value as its range. The copies of a
query evaluated for a measure with a cutoff that reads only its top ``k`` ranks
(:data:`_TOP_ONLY`) keep only those ranks.

Where an exhaustive query needs more than ``limit`` assignments, :func:`bounds` raises an
:class:`~ranklens.base.errors.OptionError` naming the measure, the query and the count,
rather than return a range that might not be exact. A ``max_grade`` a qrels grade cannot
hold (above ``2^63 - 1``), ERR's default ``max_rel`` below ``max_grade`` and
``dcg='exp-log2'`` above grade 960 are refused before anything is evaluated. Where
assignments are scored by formula or searched, only which of two assignments whose values
agree to the last bits is chosen can differ from evaluating them all.
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from ranklens.base.errors import InputWarning, MeasureError, OptionError
from ranklens.base.progress import Progress, report
from ranklens.base.types import Float64Array, Int64Array
from ranklens.data.coerce import QrelsLike, RunLike, as_qrels, as_run
from ranklens.data.native import core as _core
from ranklens.data.qrels import Qrels
from ranklens.data.run import Run
from ranklens.evaluation.evaluator import Evaluator
from ranklens.evaluation.results import aggregate
from ranklens.measures.base import Measure, is_run_level
from ranklens.measures.language import parse_measures

Method = Literal["corner", "top-grade", "prefix", "counts", "exhaustive"]

DEFAULT_LIMIT = 20_000
"""The most assignments :func:`bounds` evaluates for one query and one measure."""

_SEARCH_ROWS = 200_000
"""Above this many rows for one query's sorted assignments, nDCG's extremes are found by
the search (:class:`_NdcgSearch`) and only its results evaluated."""

_BATCH_ROWS = 2_000_000
"""Rows (qrels and run together) evaluated at once for the searched measures."""

_CORNER = frozenset(
    {
        "P",
        "RR",
        "Success",
        "Judged",
        "NumRelRet",
        "Hits",
        "NumRel",
        "NumQ",
        "Unjudged",
        "NumNonRelJudgedRet",
        "CG",
        "ERR",
        "RBP",
    }
)
_CORNER_LINEAR_GAIN = frozenset({"DCG", "IDCG"})
_PREFIX = frozenset(
    {
        "GMAP",
        "R",
        "Rprec",
        "Bpref",
        "GMBpref",
        "SetRelP",
        "SetAP",
        "SetF",
        "RelP",
        "RprecMult",
        "IPrec",
        "11ptAvg",
        "F",
        "F1",
        "TPR",
        "MissRate",
    }
)
_BINARY_EXHAUSTIVE = frozenset({"infAP", "YAAP", "AUC", "Accuracy", "Utility"})


def method_of(measure: Measure) -> Method:
    """How :func:`bounds` finds ``measure``'s extremes (see the module's docs).

    >>> from ranklens.measures import parse_measure
    >>> names = ("P@10", "AP", "nDCG@10", "RBP(gain='graded')", "infAP")
    >>> [method_of(parse_measure(m)) for m in names]
    ['corner', 'prefix', 'counts', 'top-grade', 'exhaustive']
    """
    name = measure.spec.name
    params = measure.params
    if is_run_level(measure):
        raise MeasureError(
            f"bounds: {measure.name} is computed over the whole run, not per query; score "
            "ranges cover per-query measures"
        )
    if measure.spec.judgments != "qrels":
        raise MeasureError(
            f"bounds: {measure.name} reads {measure.spec.judgments} judgments, not qrels "
            "grades; score ranges cover measures of ordinary qrels"
        )
    if name == "RBP" and params.get("gain") == "graded":
        return "top-grade"  # the gain divides by the query's highest grade
    if name in _CORNER:
        return "corner"
    if name == "NumRet" and params.get("rel") is None:
        return "corner"
    if name in _CORNER_LINEAR_GAIN and params.get("gains") is None:
        return "corner"
    if name == "AP" and params.get("norm") in ("R", "min"):
        return "prefix"
    if name in _PREFIX:
        return "prefix"
    if name == "nDCG" and params.get("gains") is None:
        return "counts"
    return "exhaustive"


@dataclass(frozen=True, eq=False)
class Bounds:
    """The ranges of one run's measures (see :func:`bounds`).

    ``low``, ``value`` and ``high`` are (queries x measures) matrices; ``value`` is
    :func:`ranklens.evaluate`'s. A measure's ``value`` may lie outside ``[low, high]``:
    the range covers the assignments, where every retrieved document is judged, and a
    measure that ignores unjudged documents (bpref, infAP, ``judged_only``) may score the
    run as it is higher or lower than any of them.
    """

    run: str
    measures: tuple[Measure, ...]
    queries: tuple[str, ...]
    low: Float64Array
    value: Float64Array
    high: Float64Array
    max_grade: int
    methods: Mapping[str, Method]
    """The method used for each measure (see :func:`method_of`)."""
    unjudged: Mapping[str, int] = field(default_factory=dict)
    """The number of unjudged retrieved documents of each evaluated query."""

    def _column(self, measure: str | Measure) -> int:
        wanted = parse_measures(measure)[0] if isinstance(measure, str) else measure
        for j, m in enumerate(self.measures):
            if m == wanted:
                return j
        raise MeasureError(f"{wanted.name} is not among these bounds' measures")

    @property
    def aggregate(self) -> dict[str, tuple[float, float, float]]:
        """``{measure: (low, value, high)}``, each aggregated as the measure declares (the
        mean, the sum or the geometric mean; each is non-decreasing in every query's
        value, so the aggregate of the lows is the lowest aggregate: queries are
        independent)."""
        return {
            m.name: (
                aggregate(m, self.low[:, j]),
                aggregate(m, self.value[:, j]),
                aggregate(m, self.high[:, j]),
            )
            for j, m in enumerate(self.measures)
        }

    def __getitem__(self, measure: str | Measure) -> tuple[float, float, float]:
        """The aggregate ``(low, value, high)`` of ``measure``."""
        return self.aggregate[self.measures[self._column(measure)].name]

    def query_values(self, measure: str | Measure) -> dict[str, tuple[float, float, float]]:
        """``{qid: (low, value, high)}`` for one measure."""
        j = self._column(measure)
        return {
            q: (float(self.low[i, j]), float(self.value[i, j]), float(self.high[i, j]))
            for i, q in enumerate(self.queries)
        }

    @property
    def per_query(self) -> dict[str, dict[str, tuple[float, float, float]]]:
        """``{qid: {measure: (low, value, high)}}``."""
        return {
            q: {
                m.name: (float(self.low[i, j]), float(self.value[i, j]), float(self.high[i, j]))
                for j, m in enumerate(self.measures)
            }
            for i, q in enumerate(self.queries)
        }


@dataclass(frozen=True)
class _Layout:
    """The evaluated queries' rankings and their unjudged documents."""

    qids: tuple[str, ...]
    offsets: Int64Array
    """Query ``i``'s ranks are ``entry[offsets[i]:offsets[i + 1]]``."""
    entry: Int64Array
    """Each rank's entry in the run."""
    unjudged: Int64Array
    """Whether each rank's document is unjudged (0/1)."""
    grades: Int64Array
    """Each rank's judgment (>= 0 a grade, -1 unjudged, -2 negative)."""
    qrels_row: Int64Array
    """Each evaluated query's row in the qrels (-1: not in the qrels)."""
    extra_offsets: Int64Array
    """Query ``i``'s other documents to grade are ``extra[extra_offsets[i]:...[i + 1]]``."""
    extra: Int64Array
    """Their indices in the string column (:func:`_strings`)."""


def _extras(
    qids: tuple[str, ...],
    qrels: Qrels,
    run: Run,
    rows: Int64Array,
    extra: Mapping[str, Iterable[str]],
) -> tuple[list[str], Int64Array]:
    """The documents of ``extra`` to grade per evaluated query (not judged, not retrieved,
    each once), and the offsets of each query's."""
    judged = qrels.to_dict()
    run_index = run.query_index()
    docs: list[str] = []
    counts = np.zeros(len(qids), dtype=np.int64)
    for i, qid in enumerate(qids):
        wanted = extra.get(qid)
        if not wanted or rows[i] < 0:
            continue
        row = run_index.get(qid)
        retrieved: set[str] = set()
        if row is not None:
            a, b = int(run.q_offsets[row]), int(run.q_offsets[row + 1])
            retrieved = {run.docid(k) for k in range(a, b)}
        known = judged.get(qid, {})
        chosen = sorted({str(d) for d in wanted} - retrieved - set(known))
        docs.extend(chosen)
        counts[i] = len(chosen)
    offsets = np.zeros(len(qids) + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    return docs, offsets


def _layout(
    evaluator: Evaluator, run: Run, qrels: Qrels, extra: Mapping[str, Iterable[str]] | None
) -> tuple[_Layout, list[str]]:
    aligned = evaluator.align(run)
    base = aligned.base
    index = qrels.query_index()
    rows = np.array([index.get(q, -1) for q in base.qids], dtype=np.int64)
    offsets = np.asarray(base.offsets, dtype=np.int64)
    unjudged = (np.asarray(base.rel) == -1).astype(np.int64)
    # a query the qrels do not have is not evaluated under the default query policy; if it
    # is (queries="run"/"union"), its documents stay unjudged: assigning grades would add it
    has_qrels = np.repeat(rows >= 0, np.diff(offsets))
    unjudged = unjudged * has_qrels
    entry = aligned.entry
    if entry is None:  # pragma: no cover - align always sets it
        raise OptionError("bounds: the aligned ranking has no run entries")
    docs, extra_offsets = _extras(base.qids, qrels, run, rows, extra or {})
    extra_ids = len(qrels) + len(run) + np.arange(len(docs), dtype=np.int64)
    layout = _Layout(
        base.qids,
        offsets,
        np.asarray(entry, dtype=np.int64),
        unjudged,
        np.asarray(base.rel, dtype=np.int64),
        rows,
        extra_offsets,
        extra_ids,
    )
    return layout, docs


def _strings(qrels: Qrels, run: Run, extra: list[str]) -> tuple[np.ndarray, Int64Array]:
    """One string column: the qrels' document ids, then the run's, then ``extra``."""
    from ranklens.data.grouped import encode_ids

    more_data, more_offsets = encode_ids(extra)
    data = np.concatenate([qrels.doc_data, run.doc_data, more_data])
    first = qrels.doc_data.shape[0]
    second = first + run.doc_data.shape[0]
    offsets = np.concatenate(
        [qrels.doc_offsets[:-1], run.doc_offsets[:-1] + first, np.asarray(more_offsets) + second]
    )
    return data, offsets.astype(np.int64)


def _grouped(
    names: Sequence[str],
    codes: Int64Array,
    docs: Int64Array,
    strings: tuple[np.ndarray, Int64Array],
) -> tuple[Int64Array, np.ndarray, Int64Array, Int64Array]:
    """Entries (query code, string index ``docs``) grouped by query, ``names`` being in
    byte order: the query offsets, the documents' bytes and offsets in that grouping, and
    the order of the entries."""
    order = np.argsort(codes, kind="stable").astype(np.int64)
    counts = np.bincount(codes, minlength=len(names))
    q_offsets = np.zeros(len(names) + 1, dtype=np.int64)
    np.cumsum(counts, out=q_offsets[1:])
    doc_data, doc_offsets = _core.take_strings(strings[0], strings[1], docs[order])
    return q_offsets, doc_data, doc_offsets, order


def _make_qrels(
    names: tuple[str, ...],
    codes: Int64Array,
    docs: Int64Array,
    grades: Int64Array,
    strings: tuple[np.ndarray, Int64Array],
) -> Qrels:
    q_offsets, doc_data, doc_offsets, order = _grouped(names, codes, docs, strings)
    return Qrels(
        qids=names,
        q_offsets=q_offsets,
        doc_data=doc_data,
        doc_offsets=doc_offsets,
        lines=None,
        source="<bounds>",
        rels=np.ascontiguousarray(grades[order], dtype=np.int64),
        unique=True,
    )


def _make_run(
    names: tuple[str, ...],
    codes: Int64Array,
    docs: Int64Array,
    scores: Float64Array,
    strings: tuple[np.ndarray, Int64Array],
    name: str,
) -> Run:
    q_offsets, doc_data, doc_offsets, order = _grouped(names, codes, docs, strings)
    return Run(
        qids=names,
        q_offsets=q_offsets,
        doc_data=doc_data,
        doc_offsets=doc_offsets,
        lines=None,
        source="<bounds>",
        scores=np.ascontiguousarray(scores[order], dtype=np.float64),
        name=name,
        unique=True,
    )


def _quiet_values(qrels: Qrels, run: Run, measures: Sequence[Measure]) -> Float64Array:
    """``ranklens.evaluate``'s per-query values (queries of ``qrels``, in its order)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InputWarning)
        results = Evaluator(qrels, list(measures)).evaluate(run)
    if results.queries != qrels.qids:  # pragma: no cover - the qrels' queries are evaluated
        raise OptionError("bounds: the evaluated queries are not the qrels' queries")
    return np.asarray(results.values, dtype=np.float64)


def _corner_qrels(
    qrels: Qrels, run: Run, layout: _Layout, grade: int, strings: tuple[np.ndarray, Int64Array]
) -> Qrels:
    """The qrels with every unjudged retrieved document of an evaluated query at ``grade``."""
    ranks = np.flatnonzero(layout.unjudged)
    query_of_rank = np.repeat(np.arange(len(layout.qids), dtype=np.int64), np.diff(layout.offsets))
    extra_query = np.repeat(
        np.arange(len(layout.qids), dtype=np.int64), np.diff(layout.extra_offsets)
    )
    codes = np.concatenate(
        [
            qrels.query_of_entries(),
            layout.qrels_row[query_of_rank[ranks]],
            layout.qrels_row[extra_query],
        ]
    )
    docs = np.concatenate(
        [np.arange(len(qrels), dtype=np.int64), len(qrels) + layout.entry[ranks], layout.extra]
    )
    added = ranks.shape[0] + layout.extra.shape[0]
    grades = np.concatenate(
        [np.asarray(qrels.rels, dtype=np.int64), np.full(added, grade, dtype=np.int64)]
    )
    return _make_qrels(qrels.qids, codes.astype(np.int64), docs, grades, strings)


def _ap_values(
    relevant: np.ndarray, ranks: Int64Array, judged_relevant: int, cutoff: int | None, norm: str
) -> tuple[Float64Array, Float64Array]:
    """AP of the prefix assignments (the ``m`` highest-ranked unjudged documents made
    relevant, ``m = 0..u``) and of the suffix ones (the ``m`` lowest), in ``O(n + u)``:
    adding the next document of a prefix at rank ``p`` adds its precision
    ``(J_{p-1} + m + 1) / p`` and ``1/i`` for each relevant rank ``i`` below it (only judged
    ones); of a suffix, ``(J_{p-1} + 1) / p`` and ``1/i`` for the judged relevant and the
    documents already added below. ``relevant``: the retrieved ranks' judged relevance;
    ``ranks``: the unjudged (beyond ``len(relevant)``: not retrieved)."""
    n = relevant.shape[0]
    u = ranks.shape[0]
    if n == 0:  # nothing retrieved: the documents graded only raise R, AP stays 0
        return np.zeros(u + 1), np.zeros(u + 1)
    k = n if cutoff is None else min(cutoff, n)
    position = np.arange(1, n + 1, dtype=np.float64)
    inside = np.arange(n) < k
    counted = relevant & inside
    above = np.cumsum(relevant)  # judged relevant up to each rank, inclusive
    start = float(np.sum(np.where(counted, above / position, 0.0)))
    weights = np.where(counted, 1.0 / position, 0.0)
    below = np.concatenate([np.cumsum(weights[::-1])[::-1][1:], [0.0]]) if n else weights
    retrieved = ranks < n
    safe = np.minimum(ranks, max(n - 1, 0))
    p = ranks.astype(np.float64) + 1.0
    judged_above = np.where(
        retrieved, np.where(safe > 0, above[np.maximum(safe - 1, 0)], 0), above[-1] if n else 0
    ).astype(np.float64)
    judged_above = np.where(retrieved & (safe == 0), 0.0, judged_above)
    within = retrieved & (ranks < k)
    after = np.where(retrieved, below[safe] if n else 0.0, 0.0)
    m = np.arange(u, dtype=np.float64)
    added = np.where(within, (judged_above + m + 1.0) / p, 0.0) + after
    prefix = start + np.concatenate([[0.0], np.cumsum(added)])
    order = ranks[::-1]
    within_r, p_r = within[::-1], p[::-1]
    own = np.where(within_r, 1.0 / p_r, 0.0)
    earlier = np.concatenate([[0.0], np.cumsum(own)[:-1]])
    added_r = np.where(within_r, (judged_above[::-1] + 1.0) / p_r, 0.0) + after[::-1] + earlier
    del order
    suffix = start + np.concatenate([[0.0], np.cumsum(added_r)])
    total = judged_relevant + np.arange(u + 1, dtype=np.float64)
    if norm == "min":
        total = np.minimum(total, float(cutoff if cutoff is not None else n))
    with np.errstate(divide="ignore", invalid="ignore"):
        return (
            np.where(total > 0, prefix / total, 0.0),
            np.where(total > 0, suffix / total, 0.0),
        )


def _recall_values(
    relevant: np.ndarray,
    ranks: Int64Array,
    judged_relevant: int,
    cutoff: int | None,
    norm: str,
    precision_at_r: bool,
) -> tuple[Float64Array, Float64Array]:
    """R@k (or, ``precision_at_r``, Rprec) of the prefix and of the suffix assignments
    (see :func:`_ap_values`): the relevant documents within the top ``k`` (``R``) over the
    normaliser."""
    n = relevant.shape[0]
    u = ranks.shape[0]
    m = np.arange(u + 1)
    total = judged_relevant + m
    counts = np.concatenate([[0], np.cumsum(relevant)])  # judged relevant in the top i
    depth = (
        np.minimum(total, n)
        if precision_at_r
        else np.full(u + 1, n if cutoff is None else min(cutoff, n))
    )
    within = np.searchsorted(ranks, depth)  # unjudged ranked above each depth
    prefix = counts[depth] + np.minimum(m, within)
    suffix = counts[depth] + np.maximum(0, within - (u - m))
    if precision_at_r:
        denominator = total.astype(np.float64)
    elif norm == "min":
        denominator = np.minimum(total, n if cutoff is None else cutoff).astype(np.float64)
    else:
        denominator = total.astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        return (
            np.where(denominator > 0, prefix / denominator, 0.0),
            np.where(denominator > 0, suffix / denominator, 0.0),
        )


def _prefix_values(
    name: str, query: _ApQuery, ranks: Int64Array, cutoff: int | None, norm: str
) -> tuple[Float64Array, Float64Array]:
    """The prefix and suffix assignments' values of a measure :data:`_SCORED` lists."""
    if name in ("AP", "GMAP"):
        return _ap_values(query.relevant, ranks, query.judged_relevant, cutoff, norm)
    return _recall_values(
        query.relevant, ranks, query.judged_relevant, cutoff, norm, name == "Rprec"
    )


_SCORED = frozenset({"AP", "GMAP", "R", "Rprec"})
"""The prefix measures whose assignments are scored by formula first (only the extremes
are evaluated)."""


@dataclass(frozen=True)
class _ApQuery:
    """What the AP scorer needs of one query (see :func:`_ap_values`)."""

    relevant: np.ndarray
    judged_relevant: int


def _candidates(
    measure: Measure,
    method: Method,
    unjudged_ranks: Int64Array,
    max_grade: int,
    limit: int,
    qid: str,
    ndcg: _NdcgQuery | None = None,
    retrieved: int | None = None,
    ap: _ApQuery | None = None,
    judged_top: int = -1,
    rank_grades: Int64Array | None = None,
) -> np.ndarray:
    """The assignments to try for one query: a (candidates x u) matrix of grades, for the
    unjudged documents at ``unjudged_ranks`` (0-based ranks, increasing). ``judged_top``:
    the query's highest judged grade (-1: none), and ``rank_grades`` the judgments of its
    ranks, for :func:`top_grade_rows` (without them, every row is returned)."""
    u = int(unjudged_ranks.shape[0])
    if u == 0:
        return np.zeros((1, 0), dtype=np.int64)
    if method == "top-grade":
        weights = _rbp_weights(measure, unjudged_ranks, retrieved or 0)
        rows = top_grade_rows(weights, judged_top, max_grade)
        if rank_grades is None:
            return rows
        # score the rows by formula; evaluate the largest and the smallest
        seen = np.arange(rank_grades.shape[0], dtype=np.int64)
        judged_gain = np.where(rank_grades > 0, rank_grades, 0).astype(np.float64)
        fixed = float(np.sum(_rbp_weights(measure, seen, seen.shape[0]) * judged_gain))
        top = np.maximum(rows.max(axis=1), judged_top).astype(np.float64)
        values = (fixed + rows.astype(np.float64) @ weights) / np.where(top > 1, top, 1.0)
        return rows[[int(np.argmax(values)), int(np.argmin(values))]]
    if method == "prefix":
        rel = int(measure.params.get("rel", 1))
        top = max_grade
        if (top >= rel) == (rel <= 0):  # every assignment is the same for a threshold
            return np.zeros((1, u), dtype=np.int64)
        m = np.arange(u + 1)
        if ap is None:
            chosen_prefix, chosen_suffix = m, m
        else:  # AP: score the 2 (u + 1) assignments by formula; evaluate the two
            # largest and the two smallest (equal values: the first ones)
            cutoff = measure.params.get("cutoff")
            norm = str(measure.params.get("norm", "R"))
            best, worst = _prefix_values(measure.spec.name, ap, unjudged_ranks, cutoff, norm)
            values = np.concatenate([best, worst])
            order = np.argsort(values, kind="stable")
            keep = np.zeros(values.shape[0], dtype=bool)
            keep[order[:2]] = True
            keep[order[::-1][:2]] = True
            chosen_prefix, chosen_suffix = m[keep[: u + 1]], m[keep[u + 1 :]]
        columns = np.arange(u)
        prefixes = (columns[None, :] < chosen_prefix[:, None]) * top  # the first m documents
        suffixes = (columns[None, :] >= u - chosen_suffix[:, None]) * top  # the last m
        return np.concatenate([prefixes, suffixes]).astype(np.int64)
    if method == "counts":
        cutoff = measure.params.get("cutoff")
        # DCG weighs the unjudged documents within the cutoff and retrieved
        last = min(int(cutoff) if cutoff is not None else u + (retrieved or 0), retrieved or 0)
        inside = int(np.count_nonzero(unjudged_ranks < last)) if retrieved is not None else u
        grades = ndcg_grades(() if ndcg is None else ndcg.judged, max_grade)
        count = math.comb(inside + len(grades) - 1, len(grades) - 1)
        too_many = 2 * count > limit or 2 * count * (2 * (retrieved or 0) + u) > _SEARCH_ROWS
        # one grade: the sorted assignments are scored at once in O(u) (_binary_extreme);
        # evaluating only its two extremes is cheaper than evaluating every one
        too_many = too_many or (len(grades) == 2 and count > 2)
        if too_many and ndcg is not None:
            return _ndcg_candidates(unjudged_ranks, inside, max_grade, ndcg, cutoff, measure)
        kinds = len(grades) - 1
        _check_count(measure, qid, 2 * count, limit, f"C({inside} + {kinds}, {kinds}) x 2")
        sorted_rows = list(itertools.combinations_with_replacement(grades[::-1], inside))
        decreasing = np.array(sorted_rows, dtype=np.int64).reshape(len(sorted_rows), inside)
        best = np.zeros((len(sorted_rows), u), dtype=np.int64)
        best[:, :inside] = decreasing
        worst = np.full((len(sorted_rows), u), max_grade, dtype=np.int64)
        worst[:, :inside] = decreasing[:, ::-1]
        return np.concatenate([best, worst])
    binary = measure.spec.name in _BINARY_EXHAUSTIVE
    rel = int(measure.params.get("rel", 1)) if binary else 0
    two_grades = sorted({0, max_grade}) if binary and max_grade >= rel > 0 else None
    if binary and two_grades is None:
        return np.zeros((1, u), dtype=np.int64)
    choices = len(two_grades) if two_grades is not None else max_grade + 1
    _check_power(measure, qid, choices, u, limit)  # before a grade list is built
    grid = two_grades if two_grades is not None else list(range(max_grade + 1))
    count = choices**u
    return np.array(list(itertools.product(grid, repeat=u)), dtype=np.int64).reshape(count, u)


def ndcg_grades(judged: Iterable[int], top: int) -> list[int]:
    """The grades an nDCG extreme needs, increasing: 0, ``top`` and the query's judged
    positive grades below ``top``.

    Between two consecutive grades of this list, and the grades other unjudged documents
    get, a block of unjudged documents sharing one grade ``c`` keeps its places in the
    ranking and in the ideal ranking, so both DCG and the ideal DCG are affine in the
    block's gain (``c``, or ``2^c - 1``) and their ratio (or a difference of two DCGs over
    the ideal) is monotone in it: moving ``c`` to an end of its interval never loses an
    extreme. Repeated, every extreme is reached with grades from this list, whatever
    ``top`` is."""
    return sorted({0, top} | {int(g) for g in judged if 0 < int(g) < top})


def top_grade_rows(excess: Float64Array, judged_top: int, top: int) -> np.ndarray:
    """Gradings (grades ``0..top`` of the documents whose weights are ``excess``) among
    which the extremes of ``(C + sum_x excess_x g_x) / s(L)`` lie, ``L = max(judged_top,
    max_x g_x)`` and ``s(L) = L`` if ``L > 1``, else 1: graded RBP (``excess`` the RBP
    weights) or a difference of two runs' graded RBP (the weights' differences).

    For the largest value with ``max_x g_x = l`` fixed, ``s`` is fixed and the numerator is
    largest with ``g_x = l`` where ``excess_x >= 0`` and 0 elsewhere, and, if no document
    reaches ``l``, the one of largest excess at ``l``. As a function of ``l`` that value is
    ``(C + l E) / s(max(judged_top, l))``, monotone on ``l <= judged_top``, on ``judged_top <
    l <= 1`` and on ``l >= max(judged_top + 1, 2)``: the ends of those pieces are the ``l``
    to try (only 0 and ``top`` where ``judged_top >= top``: ``s`` is fixed). The smallest
    value is the largest of the negated weights. Every row is a grading; evaluating them
    all gives both extremes."""
    u = excess.shape[0]
    levels = sorted({v for v in (0, 1, 2, judged_top, judged_top + 1, top) if 0 <= v <= top})
    if judged_top >= top:  # L = judged_top whatever the grades: the ends are 0 and top
        levels = sorted({0, top})
    rows: list[np.ndarray] = []
    for sign in (1.0, -1.0):
        signed = sign * excess
        best = int(np.argmax(signed)) if u else 0
        for level in levels:
            row = np.where(signed >= 0, level, 0).astype(np.int64)
            rows.append(row)
            if u:
                reached = row.copy()
                reached[best] = level
                rows.append(reached)
    return np.unique(np.array(rows, dtype=np.int64).reshape(len(rows), u), axis=0)


def _rbp_weights(measure: Measure, ranks: Int64Array, retrieved: int) -> Float64Array:
    """RBP's weight ``(1 - p) p^r`` of each 0-based rank (0 where not retrieved)."""
    p = float(measure.params.get("p", 0.8))
    inside = ranks < retrieved
    power = np.power(p, np.where(inside, ranks, 0).astype(np.float64))
    return np.where(inside, (1.0 - p) * power, 0.0)


@dataclass(frozen=True)
class _NdcgQuery:
    """What the nDCG search needs of one query (see :func:`_ndcg_candidates`)."""

    judged_dcg: float
    """DCG of the judged retrieved documents (every unjudged one at grade 0)."""
    judged: Mapping[int, int]
    """The number of judged documents of each positive grade, retrieved or not."""


def _gain(grade: int, form: str) -> float:
    return float(2**grade - 1) if form == "exp-log2" else float(grade)


class _NdcgSearch:
    """Dinkelbach's method for the extremes of nDCG over sorted assignments.

    For a fixed multiset of grades the extremes are the sorted assignments (module docs),
    each given by the counts ``c_1 .. c_G`` of every grade. Over those, the ratio
    ``DCG / IDCG`` is optimised by Dinkelbach's method: for a trial value ``t``, the
    assignment maximising (or minimising) ``DCG - t IDCG`` is found by a dynamic
    programme over the grades whose state is the number of unjudged documents already
    given a grade (both DCG and the ideal DCG of a grade's documents depend only on that
    number and the grade's count); ``t`` becomes that assignment's nDCG until it no longer
    improves. The grades tried are :func:`ndcg_grades`'s (0, ``top`` and the judged grades
    between), so ``O(g u^2)`` per step, ``g`` those grades and ``u`` the unjudged documents
    inside the cutoff, however large ``top`` is.
    """

    def __init__(
        self,
        ranks: Int64Array,
        top: int,
        info: _NdcgQuery,
        cutoff: int | None,
        form: str,
        at_top: int,
        weights: Float64Array | None = None,
    ) -> None:
        self.u = int(ranks.shape[0])
        self.top = top
        self.grades = [g for g in ndcg_grades(info.judged, top) if g > 0]
        """The positive grades an extreme uses, increasing."""
        self.form = form
        self.cutoff = cutoff
        if weights is None:  # otherwise each document's own weight, in list order
            weights = 1.0 / np.log2(ranks.astype(np.float64) + 2.0)
        self.prefix = np.concatenate([[0.0], np.cumsum(weights)])
        judged = dict(info.judged)
        if at_top:  # unjudged documents beyond the cutoff, at the top grade for the minimum
            judged[top] = judged.get(top, 0) + at_top
        self.judged = judged
        self.base = info.judged_dcg
        length = sum(judged.values()) + self.u + 1
        if cutoff is not None:
            length = min(length, cutoff + 1)
        ideal_weights = 1.0 / np.log2(np.arange(1, length, dtype=np.float64) + 1.0)
        self.ideal = np.concatenate([[0.0], np.cumsum(ideal_weights)])
        above = 0
        self.judged_above: dict[int, int] = {}
        fixed = 0.0
        for grade in sorted(set(judged) | set(self.grades), reverse=True):
            self.judged_above[grade] = above
            count = judged.get(grade, 0)
            if grade > top:
                fixed += _gain(grade, form) * (self._ideal(above + count) - self._ideal(above))
            above += count
        self.fixed_ideal = fixed

    def _ideal(self, n: int | np.ndarray) -> np.ndarray:
        last = self.ideal.shape[0] - 1
        return np.asarray(self.ideal[np.minimum(n, last)], dtype=np.float64)

    def _terms(
        self, grade: int, before: np.ndarray, count: np.ndarray, decreasing: bool
    ) -> tuple[np.ndarray, np.ndarray]:
        """DCG and ideal DCG added by ``count`` documents of ``grade``, ``before`` being the
        unjudged documents given a higher grade (decreasing) or a lower one."""
        gain = _gain(grade, self.form)
        dcg = gain * (self.prefix[before + count] - self.prefix[before])
        higher = before if decreasing else self.u - before - count
        first = self.judged_above[grade] + higher
        ideal = gain * (self._ideal(first + self.judged.get(grade, 0) + count) - self._ideal(first))
        return dcg, ideal

    def value(self, counts: Mapping[int, int], decreasing: bool) -> float:
        """The nDCG of the sorted assignment with ``counts`` of each grade."""
        dcg, ideal = self.base, self.fixed_ideal
        grades = self.grades[::-1] if decreasing else self.grades
        done = 0 if decreasing else self.u - sum(counts.values())  # the zeros come first
        for grade in grades:
            c = counts.get(grade, 0)
            d, i = self._terms(grade, np.array(done), np.array(c), decreasing)
            dcg += float(d)
            ideal += float(i)
            done += c
        return dcg / ideal if ideal > 0 else 0.0

    def _solve(self, t: float, decreasing: bool) -> dict[int, int]:
        """The counts optimising ``DCG - t IDCG`` (maximising when ``decreasing``)."""
        u = self.u
        sign = 1.0 if decreasing else -1.0
        grades = self.grades[::-1] if decreasing else list(self.grades)
        before = np.arange(u + 1)[:, None]
        after = np.arange(u + 1)[None, :]
        valid = after >= before
        count = np.where(valid, after - before, 0)
        before_full = np.broadcast_to(before, valid.shape)
        # state: the unjudged documents given a grade so far (from the top when
        # decreasing; when increasing, the zeros come first, any number of them)
        best = np.where(np.arange(u + 1) == 0, 0.0, -np.inf) if decreasing else np.zeros(u + 1)
        choices: list[np.ndarray] = []
        for grade in grades:
            dcg, ideal = self._terms(grade, before_full, count, decreasing)
            table = np.where(valid, best[:, None] + sign * (dcg - t * ideal), -np.inf)
            chosen = np.argmax(table, axis=0)
            best = table[chosen, np.arange(u + 1)]
            choices.append(np.arange(u + 1) - chosen)
        state = int(np.argmax(best)) if decreasing else u
        counts: dict[int, int] = {}
        for grade, taken in zip(reversed(grades), reversed(choices), strict=True):
            c = int(taken[state])
            counts[grade] = c
            state -= c
        return counts

    def extreme(self, decreasing: bool) -> dict[int, int]:
        """The counts of the sorted assignment with the largest (``decreasing``) or the
        smallest nDCG."""
        counts: dict[int, int] = {self.top: self.u} if decreasing else {}
        t = self.value(counts, decreasing)
        for _ in range(100):
            trial = self._solve(t, decreasing)
            found = self.value(trial, decreasing)
            better = found > t if decreasing else found < t
            if not better or abs(found - t) <= 1e-15 * max(1.0, abs(t)):
                if better:
                    counts = trial
                break
            counts, t = trial, found
        return counts

    def assignment(self, counts: Mapping[int, int], decreasing: bool) -> np.ndarray:
        """The grades of the unjudged documents, in rank order, of a sorted assignment."""
        grades = sorted(counts, reverse=decreasing)
        row = [g for g in grades for _ in range(counts[g])]
        zeros = [0] * (self.u - len(row))
        return np.array(row + zeros if decreasing else zeros + row, dtype=np.int64)


def _ndcg_candidates(
    ranks: Int64Array, inside: int, top: int, info: _NdcgQuery, cutoff: int | None, measure: Measure
) -> np.ndarray:
    """The two assignments :class:`_NdcgSearch` finds (largest and smallest nDCG) and the
    two corners, for a query with too many sorted assignments to try them all."""
    u = int(ranks.shape[0])
    form = str(measure.params.get("dcg", "log2"))
    beyond = u - inside
    best_search = _NdcgSearch(ranks[:inside], top, info, cutoff, form, 0)
    worst_search = _NdcgSearch(ranks[:inside], top, info, cutoff, form, beyond)
    best = np.zeros(u, dtype=np.int64)
    worst = np.full(u, top, dtype=np.int64)
    if len(best_search.grades) == 1:  # one grade: every sorted assignment scored at once
        best[:inside] = _binary_extreme(best_search, True)
        worst[:inside] = _binary_extreme(worst_search, False)
    else:
        best[:inside] = best_search.assignment(best_search.extreme(True), True)
        worst[:inside] = worst_search.assignment(worst_search.extreme(False), False)
    corners = np.array([[0] * u, [top] * u], dtype=np.int64).reshape(2, u)
    return np.concatenate([best[None, :], worst[None, :], corners])


def _binary_extreme(search: _NdcgSearch, decreasing: bool) -> np.ndarray:
    """With grades 0 and ``top`` only (:func:`ndcg_grades`: no judged grade between), the
    sorted assignment of largest (``decreasing``: the top ``m`` documents at ``top``) or
    smallest nDCG (the bottom ``m``), every ``m`` scored at once, in ``O(u)``."""
    u = search.u
    m = np.arange(u + 1)
    start = m * 0 if decreasing else u - m
    dcg_sum, ideal_sum = search._terms(search.top, start, m, decreasing)
    dcg = search.base + dcg_sum
    ideal = search.fixed_ideal + ideal_sum
    with np.errstate(divide="ignore", invalid="ignore"):
        values = np.where(ideal > 0, dcg / ideal, 0.0)
    chosen = int(np.argmax(values) if decreasing else np.argmin(values))
    row = np.zeros(u, dtype=np.int64)
    if decreasing:
        row[:chosen] = search.top
    else:
        row[u - chosen :] = search.top
    return row


def _check_count(measure: Measure, qid: str, count: int, limit: int, formula: str) -> None:
    if count > limit:
        shown = str(count) if count < 10**15 else f"about 10^{len(str(count)) - 1}"
        raise OptionError(
            f"bounds: {measure.name} needs {formula} = {shown} assignments for query "
            f"{qid!r}, more than the limit of {limit} (limit=); its range has no "
            "shorter exact method: raise the limit, ask for the measure with a cutoff, or "
            "leave it out"
        )


def _check_power(measure: Measure, qid: str, choices: int, u: int, limit: int) -> None:
    """:func:`_check_count` of ``choices^u`` assignments, without computing a power of a
    huge grade."""
    if u * math.log2(max(choices, 1)) > 64 + math.log2(limit):
        raise OptionError(
            f"bounds: {measure.name} needs {choices}^{u} assignments for query {qid!r}, "
            f"far more than the limit of {limit} (limit=); its range has no shorter exact "
            "method: lower max_grade, ask for the measure with a cutoff, or leave it out"
        )
    _check_count(measure, qid, choices**u, limit, f"{choices}^{u}")


def _query_grading(layout: _Layout, i: int, judged: int) -> tuple[Int64Array, Int64Array]:
    """Query ``i``'s documents to grade: their ranks (those the run did not retrieve after
    its last) and their indices in the string column (``judged``: the qrels' size)."""
    start, stop = int(layout.offsets[i]), int(layout.offsets[i + 1])
    flags = np.flatnonzero(layout.unjudged[start:stop])
    extra = layout.extra[int(layout.extra_offsets[i]) : int(layout.extra_offsets[i + 1])]
    ranks = np.concatenate([flags, stop - start + np.arange(extra.shape[0])]).astype(np.int64)
    return ranks, np.concatenate([layout.entry[start + flags] + judged, extra])


def _seen_ranks(
    ranks: Int64Array, grades: Int64Array, judged_only: bool
) -> tuple[Int64Array, Int64Array]:
    """The ranks of the documents to grade, and the judgments of the ranking, as a measure
    sees them in every assignment: with ``judged_only``, a negatively judged document
    (``-2``) is left out of each (an unjudged one, graded, stays), so the ranks below it
    move up."""
    if not judged_only:
        return ranks, grades
    kept = grades != -2
    place = np.cumsum(kept) - 1  # each kept rank's place among the kept
    n, n_kept = grades.shape[0], int(np.count_nonzero(kept))
    inside = ranks < n
    moved = np.where(inside, place[np.minimum(ranks, max(n - 1, 0))] if n else 0, 0)
    seen = np.where(inside, moved, ranks - n + n_kept).astype(np.int64)
    return seen, grades[kept]


_TOP_ONLY = frozenset({"nDCG", "AP", "R", "P", "DCG", "CG", "NumRelRet", "Hits", "RR", "Success"})
"""Measures that, given a cutoff ``k`` (and not ``judged_only``), read only the top ``k``
ranks of the run (and the qrels): the copies of a query evaluated for them keep only those."""


def _read_depth(measures: Sequence[Measure]) -> int | None:
    """The ranks of the run every one of ``measures`` reads at most (``None``: all)."""
    depth = 0
    for m in measures:
        cutoff = m.params.get("cutoff")
        if m.spec.name not in _TOP_ONLY or cutoff is None or m.params.get("judged_only"):
            return None
        depth = max(depth, int(cutoff))
    return depth


def _evaluate_grids(
    measures: Sequence[Measure],
    qrels: Qrels,
    run: Run,
    layout: _Layout,
    grids: Mapping[int, np.ndarray],
    strings: tuple[np.ndarray, Int64Array],
) -> dict[int, Float64Array]:
    """Every measure's value under every assignment of ``grids`` (query ``i``: a
    (candidates x documents to grade) matrix of grades, in :func:`_query_grading`'s
    order): ``{i: (candidates x measures)}``, evaluated in batches of pseudo-queries."""
    out: dict[int, list[Float64Array]] = {i: [] for i in grids}
    q_bounds = qrels.q_offsets
    depth = _read_depth(measures)
    names: list[str] = []
    owner: list[int] = []
    pieces: dict[str, list[np.ndarray]] = {k: [] for k in ("qc", "qd", "qg", "rc", "rd", "rs")}
    rows = 0

    def flush() -> None:
        nonlocal rows
        if not names:
            return
        key = tuple(names)
        pseudo_qrels = _make_qrels(
            key,
            np.concatenate(pieces["qc"]),
            np.concatenate(pieces["qd"]),
            np.concatenate(pieces["qg"]),
            strings,
        )
        pseudo_run = _make_run(
            key,
            np.concatenate(pieces["rc"]),
            np.concatenate(pieces["rd"]),
            np.concatenate(pieces["rs"]),
            strings,
            run.name,
        )
        values = _quiet_values(pseudo_qrels, pseudo_run, measures)
        who = np.asarray(owner, dtype=np.int64)
        for i in np.unique(who).tolist():
            out[i].append(values[who == i])
        names.clear()
        owner.clear()
        for v in pieces.values():
            v.clear()
        rows = 0

    for i, grid in grids.items():
        row = int(layout.qrels_row[i])
        start, stop = int(layout.offsets[i]), int(layout.offsets[i + 1])
        _ranks, graded = _query_grading(layout, i, len(qrels))
        count = grid.shape[0]
        entries = layout.entry[start:stop] if depth is None else layout.entry[start:stop][:depth]
        judged_docs = np.arange(int(q_bounds[row]), int(q_bounds[row + 1]), dtype=np.int64)
        judged_grades = np.asarray(qrels.rels[judged_docs], dtype=np.int64)
        size = count * (judged_docs.shape[0] + graded.shape[0] + entries.shape[0])
        if rows and rows + size > _BATCH_ROWS:
            flush()
        first = len(names)
        codes = np.arange(first, first + count, dtype=np.int64)
        names.extend(f"{c:012d}" for c in range(first, first + count))
        owner.extend([i] * count)
        n_judged = judged_docs.shape[0]
        pieces["qc"].append(np.repeat(codes, n_judged + graded.shape[0]))
        pieces["qd"].append(np.tile(np.concatenate([judged_docs, graded]), count))
        block_grades = np.concatenate([np.broadcast_to(judged_grades, (count, n_judged)), grid], 1)
        pieces["qg"].append(block_grades.reshape(-1))
        pieces["rc"].append(np.repeat(codes, entries.shape[0]))
        pieces["rd"].append(np.tile(len(qrels) + entries, count))
        pieces["rs"].append(np.tile(np.asarray(run.scores[entries], dtype=np.float64), count))
        rows += size
    flush()
    return {i: np.concatenate(v) for i, v in out.items()}


def _searched(
    measure: Measure,
    method: Method,
    qrels: Qrels,
    run: Run,
    layout: _Layout,
    max_grade: int,
    limit: int,
    strings: tuple[np.ndarray, Int64Array],
    known: Float64Array | None = None,
) -> tuple[Float64Array, Float64Array]:
    """The per-query (low, high) of a searched measure. ``known``: the measure's value of
    each query as the qrels stand, the range of a query without a document to grade (its
    one assignment is the qrels as they are)."""
    nq = len(layout.qids)
    low = np.full(nq, np.nan)
    high = np.full(nq, np.nan)
    q_bounds = qrels.q_offsets
    judged_only = bool(measure.params.get("judged_only"))
    judged_dcg = None
    if method == "counts":  # the DCG of every assignment's fixed part, for the nDCG search:
        # every unjudged document at 0 (judged_only keeps them: they are judged then)
        dcg_measure = parse_measures(
            f"DCG(dcg={measure.params.get('dcg', 'log2')!r},judged_only={judged_only})"
            + ("" if measure.params.get("cutoff") is None else f"@{measure.params['cutoff']}")
        )
        at_zero = _corner_qrels(qrels, run, layout, 0, strings)
        judged_dcg = _quiet_values(at_zero, run, dcg_measure)[:, 0]
    grids: dict[int, np.ndarray] = {}
    for i in range(nq):
        row = int(layout.qrels_row[i])
        if row < 0:
            continue
        ranks, _graded = _query_grading(layout, i, len(qrels))
        if known is not None and ranks.shape[0] == 0:
            low[i] = high[i] = known[i]
            continue
        start, stop = int(layout.offsets[i]), int(layout.offsets[i + 1])
        ranks, rank_grades = _seen_ranks(ranks, layout.grades[start:stop], judged_only)
        retrieved = int(rank_grades.shape[0])
        judged = np.asarray(qrels.rels[int(q_bounds[row]) : int(q_bounds[row + 1])])
        info = None
        if judged_dcg is not None:
            positive, counts = np.unique(judged[judged > 0], return_counts=True)
            info = _NdcgQuery(
                float(judged_dcg[row]),
                dict(zip(positive.tolist(), counts.tolist(), strict=True)),
            )
        ap_info = None
        if measure.spec.name in _SCORED and method == "prefix":
            threshold = int(measure.params.get("rel", 1))
            ap_info = _ApQuery(rank_grades >= threshold, int(np.count_nonzero(judged >= threshold)))
        judged_top = int(judged.max()) if judged.shape[0] else -1
        grids[i] = _candidates(
            measure,
            method,
            ranks,
            max_grade,
            limit,
            layout.qids[i],
            info,
            retrieved,
            ap_info,
            judged_top,
            rank_grades,
        )
    for i, values in _evaluate_grids([measure], qrels, run, layout, grids, strings).items():
        low[i] = values[:, 0].min()
        high[i] = values[:, 0].max()
    return low, high


def graded_values(
    qrels: Qrels,
    run: Run,
    measures: Sequence[Measure],
    assignments: Mapping[str, tuple[Sequence[str], np.ndarray]],
    also_grade: Mapping[str, Iterable[str]] | None = None,
) -> dict[str, Float64Array]:
    """Every measure's value under given assignments: ``assignments[qid]`` is the documents
    graded (the query's unjudged documents the run retrieved, and those of ``also_grade``)
    and a (candidates x documents) matrix of grades; returns ``{qid: (candidates x
    measures)}``, each value :func:`ranklens.evaluate`'s on that assignment's qrels (for
    :mod:`ranklens.analysis.comparison_bounds`, which grades two runs' documents alike)."""
    evaluator = Evaluator(qrels, list(measures))
    layout, extra_docs = _layout(evaluator, run, qrels, also_grade)
    strings = _strings(qrels, run, extra_docs)
    index = {q: i for i, q in enumerate(layout.qids)}
    grids: dict[int, np.ndarray] = {}
    for qid, (docids, grid) in assignments.items():
        i = index.get(qid)
        if i is None or layout.qrels_row[i] < 0:
            raise OptionError(f"graded_values: query {qid!r} is not evaluated")
        _ranks, graded = _query_grading(layout, i, len(qrels))
        names = [
            run.docid(int(g) - len(qrels))
            if g < len(qrels) + len(run)
            else extra_docs[int(g) - len(qrels) - len(run)]
            for g in graded.tolist()
        ]
        where = {d: k for k, d in enumerate(docids)}
        if sorted(where) != sorted(names):
            raise OptionError(
                f"graded_values: query {qid!r} grades {sorted(names)}, not {sorted(where)}"
            )
        grids[i] = np.asarray(grid, dtype=np.int64)[:, [where[d] for d in names]]
    values = _evaluate_grids(list(measures), qrels, run, layout, grids, strings)
    return {layout.qids[i]: v for i, v in values.items()}


MAX_GRADE = int(np.iinfo(np.int64).max)
"""The highest ``max_grade``: a qrels grade is a 64-bit integer."""


def check_max_grade(max_grade: object, what: str = "bounds: max_grade") -> int:
    """``max_grade`` as an int, or :class:`~ranklens.base.errors.OptionError` where it is
    not a whole grade a qrels file can hold (``0`` to :data:`MAX_GRADE`).

    >>> check_max_grade(3)
    3
    """
    if isinstance(max_grade, bool) or not isinstance(max_grade, int | np.integer):
        raise OptionError(f"{what} must be a whole grade >= 0, not {max_grade!r}")
    if not 0 <= int(max_grade) <= MAX_GRADE:
        raise OptionError(
            f"{what} must be a grade from 0 to {MAX_GRADE} (the largest a qrels grade, a "
            f"64-bit integer, can hold), not {max_grade}"
        )
    return int(max_grade)


def _check_grade_fits(measure: Measure, grade: int, qrels_top: int) -> None:
    """Refuse a measure that grades up to ``grade`` would change for every query at once
    (ERR's default ``max_rel``) or could not score (``2^grade - 1`` gains beyond a double),
    before any assignment is built."""
    from ranklens.kernels.gains import _EXP_MAX

    name = measure.spec.name
    if name == "ERR" and measure.params.get("max_rel") is None and grade > qrels_top:
        raise OptionError(
            f"bounds: {measure.name}'s max_rel defaults to the qrels' highest grade "
            f"({qrels_top}), which grades up to max_grade={grade} would change for every "
            f"query at once; give it explicitly, e.g. ERR(max_rel={grade})"
        )
    exponential = measure.params.get("dcg") == "exp-log2" and measure.params.get("gains") is None
    if exponential and grade > _EXP_MAX:
        raise OptionError(
            f"bounds: {measure.name} gains 2^grade - 1, which overflows a double above grade "
            f"{_EXP_MAX}, and max_grade is {grade}: give max_grade {_EXP_MAX} or less, or use "
            "linear gains (dcg='log2')"
        )


def bounds(
    qrels: QrelsLike,
    run: RunLike,
    measures: Iterable[str | Measure] | str,
    max_grade: int | None = None,
    *,
    limit: int = DEFAULT_LIMIT,
    name: str | None = None,
    also_grade: Mapping[str, Iterable[str]] | None = None,
    progress: Progress | None = None,
) -> Bounds:
    """The exact range of each measure over every grading of the unjudged documents.

    For each measure (any name of the measure language), per query and aggregated, the
    lowest and highest value :func:`ranklens.evaluate` gives over every assignment of a
    grade in ``{0, ..., max_grade}`` to the documents the run retrieved for an evaluated
    query that its qrels do not judge (judged documents keep their grades; documents the
    run did not retrieve stay as they are). See the module's docs for how each measure's
    extremes are found.

    Parameters
    ----------
    qrels, run
        As :func:`ranklens.evaluate` takes them (paths, dicts, DataFrames, objects).
    measures
        Measure names (``"AP"``, ``["nDCG@10", "P(rel=2)@5"]``).
    max_grade
        ``G``, the highest grade an unjudged document may get (default: the qrels'
        highest grade, at least 0): a whole number from 0 to ``2^63 - 1``
        (:data:`MAX_GRADE`). Memory and time depend on the number of unjudged documents
        and of distinct judged grades, not on the size of ``G``.
    limit
        The most assignments tried for one query and one searched measure; a query that
        needs more raises :class:`~ranklens.base.errors.OptionError`.
    name
        The run's name.
    also_grade
        ``{qid: [docid, ...]}``: documents the run did not retrieve that are graded too
        (those of the query the qrels do not judge); :func:`pair_bounds` grades the
        unjudged documents of two runs together this way. They only change what depends on
        the qrels (``R``, the ideal ranking, ``NumRel`` ...).
    progress
        ``progress(done, total)``, called as each measure's ranges are found
        (:mod:`ranklens.base.progress`).

    Returns
    -------
    Bounds
        ``(low, value, high)`` per query and aggregated; ``value`` is
        :func:`ranklens.evaluate`'s.

    Examples
    --------
    >>> qrels = {"q1": {"a": 1, "b": 0}}
    >>> run = {"q1": {"a": 0.9, "x": 0.8, "b": 0.7}}
    >>> b = bounds(qrels, run, ["P@2", "AP"])
    >>> b["P@2"]
    (0.5, 0.5, 1.0)
    >>> b["AP"]
    (1.0, 1.0, 1.0)

    ``x`` at rank 2 can only help P@2; made relevant, it raises R too, and AP stays 1.
    """
    parsed = parse_measures(measures)
    if not parsed:
        raise MeasureError("bounds: no measure given: name at least one, e.g. ['nDCG@10', 'AP']")
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise OptionError(f"bounds: limit must be a positive number of assignments, not {limit!r}")
    the_qrels = as_qrels(qrels)
    the_run = as_run(run, name=name)
    if max_grade is None:
        grade = int(np.max(the_qrels.rels)) if len(the_qrels) else 0
        grade = max(grade, 0)
    else:
        grade = check_max_grade(max_grade)
    methods = {m.name: method_of(m) for m in parsed}
    qrels_top = max(int(np.max(the_qrels.rels)) if len(the_qrels) else 0, 0)  # ERR's g_max
    for m in parsed:
        _check_grade_fits(m, grade, qrels_top)
    evaluator = Evaluator(the_qrels, parsed)
    results = evaluator.evaluate(the_run, name)
    value = np.asarray(results.values, dtype=np.float64)
    layout, extra_docs = _layout(evaluator, the_run, the_qrels, also_grade)
    if layout.qids != results.queries:  # pragma: no cover - same evaluator, same queries
        raise OptionError("bounds: the aligned queries are not the evaluated ones")
    low = value.copy()
    high = value.copy()
    table = _strings(the_qrels, the_run, extra_docs)
    corner = [j for j, m in enumerate(parsed) if methods[m.name] == "corner"]
    steps = len(parsed) - len(corner) + (1 if corner else 0)
    done = 0
    report(progress, done, steps)
    if corner:
        chosen = [parsed[j] for j in corner]
        at_zero = _quiet_values(
            _corner_qrels(the_qrels, the_run, layout, 0, table), the_run, chosen
        )
        at_top = _quiet_values(
            _corner_qrels(the_qrels, the_run, layout, grade, table), the_run, chosen
        )
        rows = np.array([layout.qrels_row[i] for i in range(len(layout.qids))], dtype=np.int64)
        if np.any(rows < 0):  # pragma: no cover - the default policy evaluates qrels queries
            raise OptionError("bounds: a query without qrels was evaluated")
        zero, top = at_zero[rows], at_top[rows]
        low[:, corner] = np.fmin(zero, top)
        high[:, corner] = np.fmax(zero, top)
        done += 1
        report(progress, done, steps)
    for j, m in enumerate(parsed):
        method = methods[m.name]
        if method == "corner":
            continue
        lo, hi = _searched(m, method, the_qrels, the_run, layout, grade, limit, table, value[:, j])
        low[:, j] = lo
        high[:, j] = hi
        done += 1
        report(progress, done, steps)
    running = np.concatenate([[0], np.cumsum(layout.unjudged)])
    counts = (running[layout.offsets[1:]] - running[layout.offsets[:-1]]).tolist()
    unjudged = {q: int(counts[i]) for i, q in enumerate(layout.qids)}
    return Bounds(
        run=results.run,
        measures=tuple(parsed),
        queries=results.queries,
        low=low,
        value=value,
        high=high,
        max_grade=grade,
        methods=methods,
        unjudged=unjudged,
    )
