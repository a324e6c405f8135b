"""Joining a run with its qrels, once: the arrays every measure reads.

The result, :class:`Aligned`, holds for each evaluated query its ranking (after the tie
policy and the depth limit) as the judgment at each rank: the grade if judged (>= 0), ``-1``
for a document not in the qrels, ``-2`` for a negative judgment ("pooled, not judged").
:meth:`Aligned.view` gives the :class:`Ranked` arrays the kernels use, with unjudged
documents removed for ``judged_only`` measures.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from functools import cached_property
from itertools import repeat
from typing import Any

import numpy as np

from ranklens.base.errors import DuplicateError, MeasureError, OptionError
from ranklens.base.segments import positions, segment_ids
from ranklens.base.types import (
    QUERY_POLICIES,
    BoolArray,
    Float64Array,
    Int64Array,
    QueryPolicy,
    TiePolicy,
)
from ranklens.data.native import core as _core
from ranklens.data.qrels import Qrels
from ranklens.data.run import Run
from ranklens.ranking.judgments import Judgments

UNJUDGED = -1
"""Judgment of a retrieved document that the qrels do not mention."""
NEGATIVE = -2
"""Judgment of a retrieved document whose qrels value is negative (pooled, not judged)."""


@dataclass(frozen=True, eq=False)
class GradeCounts:
    """Judged documents per query and grade, sparse: one row per (query, grade) present,
    sorted by query then grade. Grades are >= 0 (negative judgments are not counted)."""

    query: Int64Array
    grade: Int64Array
    count: Int64Array
    num_queries: int

    @classmethod
    def of(cls, qidx: Int64Array, rels: Int64Array, num_queries: int) -> GradeCounts:
        """Count the judgments ``rels`` of queries ``qidx`` (negative ones are skipped)."""
        judged = rels >= 0
        if not judged.any():
            empty = np.zeros(0, dtype=np.int64)
            return cls(empty, empty, empty, num_queries)
        queries, grades = qidx[judged], rels[judged]
        width = int(grades.max()) + 1
        if num_queries * width >= 1 << 62:  # grades so large that a combined key overflows
            order = np.lexsort((grades, queries))
            queries, grades = queries[order], grades[order]
            starts = np.flatnonzero(
                np.concatenate(
                    ([True], (queries[1:] != queries[:-1]) | (grades[1:] != grades[:-1]))
                )
            )
            count = np.diff(np.append(starts, queries.shape[0]))
            return cls(queries[starts], grades[starts], count.astype(np.int64), num_queries)
        key = queries * width + grades  # sorts as (query, grade)
        if num_queries * width <= max(4 * key.shape[0], 1 << 20):
            counts = np.bincount(key, minlength=num_queries * width)
            present = np.flatnonzero(counts)
            count = counts[present]
        else:  # few judgments, huge grades: sort the keys instead
            present, count = np.unique(key, return_counts=True)
        query, grade = np.divmod(present, width)
        return cls(
            query.astype(np.int64), grade.astype(np.int64), count.astype(np.int64), num_queries
        )

    def total(self, mask: BoolArray) -> Int64Array:
        """Per query, the judged documents of the rows selected by ``mask``."""
        sums = np.bincount(self.query[mask], weights=self.count[mask], minlength=self.num_queries)
        return sums.astype(np.int64)

    def select(self, rows: Int64Array) -> GradeCounts:
        """The counts for queries ``rows`` (distinct indices into this table, -1 for none),
        in order. Each query's rows are found by binary search in the sorted ``query``, so
        that a streamed chunk's few queries cost their own rows, not the whole table's."""
        lo = np.searchsorted(self.query, rows, side="left")
        hi = np.searchsorted(self.query, rows, side="right")
        sizes = np.where(rows >= 0, hi - lo, 0).astype(np.int64)
        entries = _core.ranges(lo.astype(np.int64), sizes, 1)
        mapped = np.repeat(np.arange(rows.shape[0], dtype=np.int64), sizes)
        # rows in order, each query's grades in order: sorted by (query, grade) as built
        return GradeCounts(mapped, self.grade[entries], self.count[entries], rows.shape[0])

    def dense(self) -> Int64Array:
        """``counts[q, g]`` for grades 0..max (memory grows with the highest grade).

        Raises
        ------
        MeasureError
            The highest grade makes the table too large (over 2^28 cells).
        """
        highest = int(self.grade.max(initial=0))
        if self.num_queries * (highest + 1) > 1 << 28:
            raise MeasureError(
                f"a relevance grade of {highest} is too large for the measures that walk every "
                "grade as trec_eval does (nDCG with custom gains, ...): map the grades to a "
                "smaller range"
            )
        width = highest + 1
        out = np.zeros((self.num_queries, width), dtype=np.int64)
        out[self.query, self.grade] = self.count
        return out


@dataclass(frozen=True, eq=False)
class RankingSource:
    """What a ranking was made from: the run, its tie policy and depth limit, and the
    judgement data beside the qrels (``None`` without it)."""

    run: Run
    ties: TiePolicy
    depth: int | None
    judgments: Judgments | None = None


@dataclass(frozen=True, eq=False)
class Ranked:
    """Per-query rankings as judgments, plus the qrels' grade counts: what kernels read.

    Attributes
    ----------
    qids : the evaluated queries, in byte order.
    offsets : int64 (nq + 1); query ``j``'s ranks are ``offsets[j]:offsets[j+1]``.
    rel : int64 (n); the judgment at each rank (>= 0 grade, -1 unjudged, -2 negative).
    grades : the judged documents of each query's qrels per grade, retrieved or not.
    entry, run_scores : where each rank's entry is in the run, and the run's scores (set by
        :func:`align`); :attr:`scores` gathers from them on first use.
    source : the ranked run, its depth limit and judgement data beside the qrels (set by
        :func:`align`), for the measures that look documents up by id (trec_eval's
        preference and judgement-group measures, through :meth:`windows`).
    tie_starts : int64 (nq) or None; per query, the 0-based rank where its first group of
        equal scores holding documents of different gains begins, -1 if none (set by
        :func:`align` in the join's pass; read by
        :func:`ranklens.ranking.ties.tie_affected_queries`).
    """

    qids: tuple[str, ...]
    offsets: Int64Array
    rel: Int64Array
    grades: GradeCounts
    entry: Int64Array | None = None
    run_scores: Float64Array | None = None
    source: RankingSource | None = None
    tie_starts: Int64Array | None = None
    _memo: dict[tuple[str, int], np.ndarray] = field(default_factory=dict, repr=False)
    _derived: dict[Hashable, Any] = field(default_factory=dict, repr=False)

    @property
    def judgments(self) -> Judgments:
        """The judgement data beside the qrels (raises if none was given to :func:`align`)."""
        if self.source is None or self.source.judgments is None:
            raise MeasureError(
                "this measure needs a judgement file (preference judgments or "
                "judgement-group qrels): evaluate it with ranklens.evaluate() or "
                "ranklens.Evaluator (judgments=PATH, or the qrels as a path)"
            )
        return self.source.judgments

    def derived(self, key: Hashable, make: Callable[[], Any]) -> Any:
        """``make()``, computed once per ``key`` for these arrays (values that several
        measures share, such as the 14 preference values of every query)."""
        if key not in self._derived:
            self._derived[key] = make()
        return self._derived[key]

    def windows(self, ties: TiePolicy) -> list[np.ndarray]:
        """Each query's ranked document ids (a numpy string array), ranked by ``ties`` and
        cut to the depth limit, in :attr:`qids` order; empty for a query not in the run.

        The measures that look documents up by id read this; trec_eval's preference measures
        rank ties by docno ascending, the others by docno descending.

        Raises
        ------
        DuplicateError
            A document twice in a query's (cut) ranking (trec_eval stops there too).
        """
        if self.source is None:
            raise MeasureError("these arrays were built without a run to look documents up in")
        found: list[np.ndarray] = self.derived(("windows", ties), lambda: self._windows(ties))
        return found

    def _windows(self, ties: TiePolicy) -> list[np.ndarray]:
        if self.source is None:
            raise MeasureError("these arrays were built without a run to look documents up in")
        run, depth = self.source.run, self.source.depth
        index = run.query_index()
        out = [np.array([], dtype=str) for _ in self.qids]
        present = [(i, index[q]) for i, q in enumerate(self.qids) if q in index]
        if not present:
            return out
        perm = run.ranking(ties)
        docs = np.array(run.docids(), dtype=str)
        bounds = run.q_offsets
        for i, j in present:
            entries = perm[int(bounds[j]) : int(bounds[j + 1])]
            if depth is not None:
                entries = entries[:depth]
            window = docs[entries]
            if not run.unique and np.unique(window).shape[0] != window.shape[0]:
                values, counts = np.unique(window, return_counts=True)
                document = str(values[np.argmax(counts > 1)])
                raise DuplicateError(
                    f"run has document '{document}' twice for query '{self.qids[i]}'",
                    path=run.source,
                    query=self.qids[i],
                    document=document,
                )
            out[i] = window
        return out

    @cached_property
    def scores(self) -> Float64Array | None:
        """The run's score at each rank (for measures that compare scores with grades, such
        as ``MSE``), or ``None`` where the arrays were built without a run."""
        if self.entry is None or self.run_scores is None:
            return None
        scores: Float64Array = self.run_scores[self.entry]
        return scores

    @cached_property
    def levels(self) -> Int64Array:
        """Dense ``(nq, G)`` judged-document counts for grades ``0..G-1`` (G = highest grade
        + 1), for the kernels that walk every grade as trec_eval does."""
        return self.grades.dense()

    @cached_property
    def max_grade(self) -> Int64Array:
        """The highest judged grade of each query, -1 if it has no judged document."""
        out = np.full(self.num_queries, -1, dtype=np.int64)
        np.maximum.at(out, self.grades.query, self.grades.grade)
        return out

    @property
    def num_queries(self) -> int:
        """The number of evaluated queries."""
        return len(self.qids)

    @cached_property
    def ids(self) -> Int64Array:
        """The query index of every rank."""
        return segment_ids(self.offsets)

    @cached_property
    def pos(self) -> Int64Array:
        """The 0-based rank of every entry within its query."""
        return positions(self.offsets, self.ids)

    @cached_property
    def num_ret(self) -> Int64Array:
        """Retrieved documents per query."""
        return np.diff(self.offsets)

    @cached_property
    def judged(self) -> BoolArray:
        """Whether the document at each rank is judged (grade >= 0)."""
        return self.rel >= 0

    def relevant(self, threshold: int) -> BoolArray:
        """Whether the document at each rank is relevant: judged with grade >= ``threshold``."""
        key = ("relevant", threshold)
        if key not in self._memo:
            mask = self.rel >= threshold
            if threshold < 0:
                mask &= self.judged
            self._memo[key] = mask
        return self._memo[key]

    def locate(self, index: Int64Array) -> tuple[Int64Array, Int64Array]:
        """The query and the 0-based rank of the flat entries ``index`` (sorted or not),
        without building the per-entry arrays :attr:`ids` and :attr:`pos`."""
        ids = np.searchsorted(self.offsets, index, side="right") - 1
        return ids, index - self.offsets[ids]

    def hit_places(self, threshold: int) -> tuple[Int64Array, Int64Array]:
        """:meth:`locate` of the relevant ranks (:meth:`hits`), cached."""
        key_ids, key_pos = ("hit_ids", threshold), ("hit_pos", threshold)
        if key_ids not in self._memo:
            ids, pos = self.locate(self.hits(threshold))
            self._memo[key_ids], self._memo[key_pos] = ids, pos
        return self._memo[key_ids], self._memo[key_pos]

    def hits(self, threshold: int) -> Int64Array:
        """The flat indices of the relevant ranks, in order (sparse form of :meth:`relevant`)."""
        key = ("hits", threshold)
        if key not in self._memo:
            self._memo[key] = np.flatnonzero(self.relevant(threshold))
        return self._memo[key]

    def hit_counts(self, threshold: int) -> Int64Array:
        """Relevant retrieved documents per query."""
        key = ("hit_counts", threshold)
        if key not in self._memo:
            ids, _ = self.hit_places(threshold)
            self._memo[key] = np.bincount(ids, minlength=self.num_queries)
        return self._memo[key]

    def hit_number(self, threshold: int) -> Int64Array:
        """For each relevant rank (see :meth:`hits`), how many relevant documents are at or
        above it in its query: 1 for the first, 2 for the second, ..."""
        key = ("hit_number", threshold)
        if key not in self._memo:
            ids, _ = self.hit_places(threshold)
            first = np.concatenate(([0], np.cumsum(self.hit_counts(threshold))))[:-1]
            self._memo[key] = np.arange(1, ids.shape[0] + 1) - first[ids]
        return self._memo[key]

    def num_rel(self, threshold: int) -> Int64Array:
        """Relevant documents per query in the qrels (``R``), retrieved or not."""
        key = ("num_rel", threshold)
        if key not in self._memo:
            self._memo[key] = self.grades.total(self.grades.grade >= max(threshold, 0))
        return self._memo[key]

    def num_nonrel(self, threshold: int) -> Int64Array:
        """Judged non-relevant documents per query in the qrels (grades 0..threshold-1)."""
        return self.grades.total(self.grades.grade < threshold)

    def discounts(self, length: int) -> Float64Array:
        """``log2(i + 2)`` for i in 0..length-1, computed with C's ``log2`` (as trec_eval)."""
        key = ("discounts", 0)
        cached = self._memo.get(key)
        if cached is None or cached.shape[0] < length:
            import math

            size = max(length, 1)
            cached = np.array([math.log2(i + 2) for i in range(size)], dtype=np.float64)
            self._memo[key] = cached
        return cached[:length]


@dataclass(frozen=True, eq=False)
class Aligned:
    """A run joined with its qrels for a set of evaluated queries (see module docs)."""

    base: Ranked
    entry: Int64Array
    """For each rank, the index of its entry in :attr:`run` (for doc ids and scores)."""
    run: Run
    query_counts: dict[str, int]
    """``qrels``, ``run``, ``evaluated``, ``missing`` (qrels queries absent from the run,
    scored on an empty ranking), ``unjudged`` (run queries without judgments, left out),
    ``shared`` (queries in both), ``retrieving`` and ``matched`` (shared queries that
    retrieve any document, and a document the qrels list) and ``retrieved`` (the documents
    they retrieve; see :func:`judged_counts`)."""
    _views: dict[bool, Ranked] = field(default_factory=dict, repr=False)

    @property
    def run_name(self) -> str:
        """The run's name."""
        return self.run.name

    @property
    def scores(self) -> Float64Array | None:
        """The score at each rank."""
        return self.base.scores

    def view(self, judged_only: bool = False) -> Ranked:
        """The arrays for measures; with ``judged_only``, unjudged documents are removed."""
        if not judged_only:
            return self.base
        view = self._views.get(True)
        if view is None:
            keep = self.base.judged
            counts = np.bincount(self.base.ids[keep], minlength=self.base.num_queries)
            offsets = np.zeros(self.base.num_queries + 1, dtype=np.int64)
            np.cumsum(counts, out=offsets[1:])
            entry = None if self.base.entry is None else self.base.entry[keep]
            view = Ranked(
                self.base.qids,
                offsets,
                self.base.rel[keep],
                self.base.grades,
                entry,
                self.base.run_scores,
                self.base.source,
            )
            self._views[True] = view
        return view


@dataclass(frozen=True, eq=False)
class PreparedQrels:
    """Qrels with their per-query grade counts computed once, for evaluating many runs."""

    qrels: Qrels
    index: dict[str, int]
    grades: GradeCounts

    @classmethod
    def of(cls, qrels: Qrels) -> PreparedQrels:
        """Prepare ``qrels``."""
        counts = GradeCounts.of(qrels.query_of_entries(), qrels.rels, len(qrels.qids))
        return cls(qrels, qrels.query_index(), counts)


def align(
    prepared: PreparedQrels,
    run: Run,
    ties: TiePolicy = "trec_eval",
    queries: QueryPolicy = "qrels",
    depth: int | None = None,
    judgments: Judgments | None = None,
) -> Aligned:
    """Rank ``run`` and join it with the qrels.

    Parameters
    ----------
    prepared
        The qrels, prepared once.
    run
        The run to rank.
    ties
        The tie policy (see :data:`ranklens.base.types.TiePolicy`).
    queries
        Which queries are evaluated (see :data:`ranklens.base.types.QueryPolicy`).
    depth
        Keep only the top ``depth`` documents of each ranking (trec_eval ``-M``; 0 keeps
        none).
    judgments
        Judgement data beside the qrels (preferences, judgement groups), prepared once, for
        the measures that read it.
    """
    if queries not in QUERY_POLICIES:
        raise OptionError(f"queries must be one of {list(QUERY_POLICIES)}, not {queries!r}")
    if depth is not None and depth < 0:
        raise OptionError(f"depth must be a number of documents >= 0, not {depth}")
    qrels = prepared.qrels
    perm = run.ranking(ties)
    # (map over the dict's get: half the time of a generator, per query of a streamed chunk)
    run_to_qrels = np.fromiter(
        map(prepared.index.get, run.qids, repeat(-1)), dtype=np.int64, count=run.num_queries
    )
    columns = (
        run.q_offsets,
        run.doc_data,
        run.doc_offsets,
        perm,
        run_to_qrels,
        qrels.q_offsets,
        qrels.doc_data,
        qrels.doc_offsets,
        qrels.rels,
    )
    run_ties: Int64Array | None = None
    if ties == "rank":  # ranked by the rank column: no groups of equal scores to tell of
        rel = _core.align(*columns)
    else:  # the tie notice comes from the join's own pass over each ranking
        limit = -1 if depth is None else depth
        rel, run_ties = _core.align(*columns, scores=run.scores, depth=limit)
    keep_query = run_to_qrels >= 0 if queries != "run" else np.ones(run.num_queries, bool)
    if depth is None and keep_query.all():
        keep: slice | BoolArray = slice(None)
        counts_run = np.diff(run.q_offsets)
    else:
        run_ids = segment_ids(run.q_offsets)
        keep = keep_query[run_ids]
        if depth is not None:
            keep &= positions(run.q_offsets, run_ids) < depth
        counts_run = np.bincount(run_ids[keep], minlength=run.num_queries)
    in_both = int(np.count_nonzero(run_to_qrels >= 0))
    tie_starts: Int64Array | None = None
    if queries == "qrels":
        qids = qrels.qids
        counts = np.zeros(len(qids), dtype=np.int64)
        present = run_to_qrels >= 0
        counts[run_to_qrels[present]] = counts_run[present]
        grades = prepared.grades
        if run_ties is not None:
            tie_starts = np.full(len(qids), -1, dtype=np.int64)
            tie_starts[run_to_qrels[present]] = run_ties[present]
    else:
        chosen = np.flatnonzero(keep_query)
        if chosen.shape[0] == run.num_queries:  # every query of the run (a streamed chunk)
            qids = run.qids
        else:
            qids = tuple(run.qids[i] for i in chosen.tolist())
        counts = counts_run[chosen]
        rows = run_to_qrels[chosen]
        grades = prepared.grades.select(rows)
        if run_ties is not None:
            tie_starts = run_ties[chosen]
    offsets = np.zeros(len(qids) + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    entry = perm[keep]
    source = RankingSource(run, ties, depth, judgments)
    base = Ranked(qids, offsets, rel[keep], grades, entry, run.scores, source, tie_starts)
    retrieving, matched, retrieved = judged_counts(run.q_offsets, run_to_qrels, rel)
    query_counts = {
        "qrels": len(qrels.qids),
        "run": run.num_queries,
        "evaluated": len(qids),
        "missing": len(qrels.qids) - in_both if queries == "qrels" else 0,
        "unjudged": run.num_queries - in_both if queries != "run" else 0,
        "shared": in_both,
        "retrieving": retrieving,
        "matched": matched,
        "retrieved": retrieved,
    }
    return Aligned(base, entry, run, query_counts)


def judged_counts(
    q_offsets: Int64Array, run_to_qrels: Int64Array, rel: Int64Array
) -> tuple[int, int, int]:
    """Of the run's queries that the qrels judge, how many retrieve any document
    (``retrieving``) and how many retrieve a document the qrels list for them, whatever
    its grade (``matched``), and how many documents they retrieve in all (``retrieved``),
    over the whole ranking (before a depth limit): a run whose ``matched`` is 0 has
    document ids the qrels do not use (see
    :func:`ranklens.evaluation.evaluator.check_judged`).

    ``rel`` is the judgment of every run entry (:data:`UNJUDGED` where not listed); the
    run's queries absent from the qrels (``run_to_qrels`` -1) are all unjudged.
    """
    shared = run_to_qrels >= 0
    sizes = np.diff(q_offsets)
    retrieving = int(np.count_nonzero(shared & (sizes > 0)))
    retrieved = int(sizes[shared].sum())
    listed = np.flatnonzero(rel != UNJUDGED)
    if listed.shape[0] == 0:
        return retrieving, 0, retrieved
    query = np.searchsorted(q_offsets, listed, side="right") - 1
    matched = int(np.count_nonzero(query[1:] != query[:-1])) + 1
    return retrieving, matched, retrieved
