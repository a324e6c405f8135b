"""The path for tiny inputs: a run of a few documents evaluated in microseconds.

:func:`ranklens.evaluate`, :meth:`ranklens.Evaluator.evaluate` and
``ranklens.compat.pytrec_eval.RelevanceEvaluator.evaluate`` take it when what they are
given is small (:data:`TINY_ENTRIES` entries at most, see :func:`small`) and plain (dicts
of dicts with ``str`` ids written in ASCII, ``int`` grades, finite ``float`` or ``int``
scores), the options are the ordinary ones and every measure has a per-query kernel in
:mod:`ranklens.kernels.scalar` (:func:`scalar_kernels`). Anything else, and any input that
the general path would refuse or warn about in words this path cannot reproduce, goes the
general way, so every error and warning stays the general path's.

What it skips is what a tiny call does not need: building columnar :class:`~ranklens.Qrels`
and :class:`~ranklens.Run` (interning, grouping, the native core's threads), the vectorised
alignment and the numpy kernels, whose fixed cost per call (tens of numpy calls per
measure) is what a call on three documents pays. What it computes is the same: documents
ranked by the same tie policy (score descending, then document id descending for
``"trec_eval"``, ascending for ``"docid_asc"``, input order for ``"input"``; ids compared
as the general path compares their UTF-8 bytes, which for ASCII is Python's order), cut
at ``depth``, joined with the qrels as :func:`ranklens.ranking.align.align` joins them
(``-1`` unjudged, ``-2`` a negative judgment), the same query counts and checks, the same
count of tie-affected queries, and the values of the per-query kernels, which repeat the
vectorised kernels' floating-point operations in the same order: every number is
bit-identical to the general path's (``tests/test_tiny_path.py`` proves it on generated
inputs over the whole registry, every query and tie policy).

The measures with a per-query kernel: ``P``, ``R``, ``AP``, ``GMAP``, ``RR``, ``nDCG``
(linear gains, ``dcg='log2'``), ``Rprec``, ``Bpref``, ``IPrec``, ``Success``, ``Judged``,
``NumRet``, ``NumRelRet``, ``Hits``, ``NumRel``, ``NumQ``, with any of their parameters
(cut-offs, ``rel``, ``judged_only``, ``norm``, ``rounding``). Kept between calls, bounded:
the kernels made for each measure (:data:`KERNEL_CACHE_SIZE`), and on an evaluator its
:class:`TinyState` (the kernels of its measures, its qrels' judgments read query by query
as runs need them).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from ranklens.data.qrels import Qrels
from ranklens.kernels import scalar
from ranklens.kernels.scalar import Grades
from ranklens.measures.base import Measure
from ranklens.measures.registry import REGISTRY

__all__ = [
    "TINY_ENTRIES",
    "Judged",
    "KernelFunction",
    "ScalarKernel",
    "TinyRanking",
    "TinyState",
    "judgment_at",
    "plain_ids",
    "plain_judgments",
    "plain_scores",
    "rank_documents",
    "rank_run",
    "scalar_kernel",
    "scalar_kernels",
    "small",
    "tie_affected",
    "values",
]

TINY_ENTRIES = 2048
"""The most entries (run entries plus the judgments of the queries involved) that the tiny
path takes; beyond, the vectorised path is as fast or faster (``benchmarks/tiny_bench.py``
measures where the two meet)."""

KERNEL_CACHE_SIZE = 1024
"""How many measures' per-query kernels are kept made."""

LONG = 1 << 63
"""Grades must fit a signed 64-bit integer (the general path refuses others)."""

KernelFunction = Callable[[Sequence[int], Grades], float]
"""A measure's value for one query: ``function(rel, grades)``."""


@dataclass(frozen=True, slots=True)
class ScalarKernel:
    """A measure's per-query kernel: ``function(rel, grades)``, on the ranking without its
    unjudged (and negatively judged) documents when ``judged_only``."""

    function: KernelFunction
    judged_only: bool


def _cut(params: Mapping[str, Any]) -> int | None:
    cutoff: int | None = params["cutoff"]
    return cutoff


def _make_p(p: Mapping[str, Any]) -> KernelFunction:
    rel, cutoff = p["rel"], _cut(p)
    return lambda r, g: scalar.precision(r, g, rel, cutoff)


def _make_r(p: Mapping[str, Any]) -> KernelFunction:
    rel, cutoff, norm = p["rel"], _cut(p), p["norm"]
    return lambda r, g: scalar.recall(r, g, rel, cutoff, norm)


def _make_ap(p: Mapping[str, Any]) -> KernelFunction:
    rel, cutoff, norm = p["rel"], _cut(p), p["norm"]
    return lambda r, g: scalar.average_precision(r, g, rel, cutoff, norm)


def _make_gmap(p: Mapping[str, Any]) -> KernelFunction:
    rel = p["rel"]
    return lambda r, g: scalar.average_precision(r, g, rel, None, "R")


def _make_rr(p: Mapping[str, Any]) -> KernelFunction:
    rel, cutoff = p["rel"], _cut(p)
    return lambda r, g: scalar.reciprocal_rank(r, g, rel, cutoff)


def _make_ndcg(p: Mapping[str, Any]) -> KernelFunction | None:
    if p["gains"] is not None or p["dcg"] != "log2":
        return None  # custom gains and exp-log2: the general path
    cutoff = _cut(p)
    return lambda r, g: scalar.ndcg(r, g, cutoff)


def _make_rprec(p: Mapping[str, Any]) -> KernelFunction:
    rel = p["rel"]
    return lambda r, g: scalar.r_precision(r, g, rel)


def _make_bpref(p: Mapping[str, Any]) -> KernelFunction:
    rel = p["rel"]
    return lambda r, g: scalar.bpref(r, g, rel)


def _make_iprec(p: Mapping[str, Any]) -> KernelFunction:
    rel, level, rounding = p["rel"], p["recall"], p["rounding"]
    return lambda r, g: scalar.interpolated_precision(r, g, rel, level, rounding)


def _make_success(p: Mapping[str, Any]) -> KernelFunction:
    rel, cutoff = p["rel"], _cut(p)
    return lambda r, g: scalar.success(r, g, rel, cutoff)


def _make_judged(p: Mapping[str, Any]) -> KernelFunction:
    cutoff = _cut(p)
    return lambda r, g: scalar.judged_fraction(r, g, cutoff)


def _make_num_ret(p: Mapping[str, Any]) -> KernelFunction:
    rel, cutoff = p["rel"], _cut(p)
    return lambda r, g: scalar.num_ret(r, g, rel, cutoff)


def _make_rel_ret(p: Mapping[str, Any]) -> KernelFunction:
    rel, cutoff = p["rel"], _cut(p)
    return lambda r, g: scalar.relevant_retrieved(r, g, rel, cutoff)


def _make_num_rel(p: Mapping[str, Any]) -> KernelFunction:
    rel = p["rel"]
    return lambda r, g: scalar.num_rel(r, g, rel)


def _make_num_q(p: Mapping[str, Any]) -> KernelFunction:
    return scalar.num_q


_MAKERS: Mapping[str, Callable[[Mapping[str, Any]], KernelFunction | None]] = {
    "P": _make_p,
    "R": _make_r,
    "AP": _make_ap,
    "GMAP": _make_gmap,
    "RR": _make_rr,
    "nDCG": _make_ndcg,
    "Rprec": _make_rprec,
    "Bpref": _make_bpref,
    "IPrec": _make_iprec,
    "Success": _make_success,
    "Judged": _make_judged,
    "NumRet": _make_num_ret,
    "NumRelRet": _make_rel_ret,
    "Hits": _make_rel_ret,
    "NumRel": _make_num_rel,
    "NumQ": _make_num_q,
}
"""The built-in measures with a per-query kernel, by name: each maker reads the measure's
parameters and gives its kernel, or ``None`` for parameters it does not cover."""


@dataclass(frozen=True, slots=True)
class TinyState:
    """What an evaluator keeps for the tiny path: its measures' per-query kernels
    (``None`` if one has none) and its qrels' judgments, read query by query."""

    kernels: tuple[ScalarKernel, ...] | None
    judged: Judged


def scalar_kernel(measure: Measure) -> ScalarKernel | None:
    """The per-query kernel of ``measure``, or ``None`` if it has none (a measure outside
    :data:`_MAKERS`, a parameter its kernel does not cover, a user measure)."""
    spec = measure.spec
    if spec.name not in _MAKERS or REGISTRY.get(spec.name) is not spec:
        return None
    return _built_in_kernel(measure)


@lru_cache(maxsize=KERNEL_CACHE_SIZE)
def _built_in_kernel(measure: Measure) -> ScalarKernel | None:
    """:func:`scalar_kernel` of a built-in measure, made once per measure (measures are
    immutable; a bounded cache)."""
    make = _MAKERS[measure.spec.name]
    params = measure.params
    function = make(params)
    if function is None:
        return None
    return ScalarKernel(function, bool(params.get("judged_only", False)))


def scalar_kernels(measures: Sequence[Measure]) -> tuple[ScalarKernel, ...] | None:
    """The per-query kernels of ``measures``, or ``None`` if any has none."""
    out: list[ScalarKernel] = []
    for measure in measures:
        kernel = scalar_kernel(measure)
        if kernel is None:
            return None
        out.append(kernel)
    return tuple(out)


def plain_ids(keys: Any) -> bool:
    """Whether every key is a ``str`` written in ASCII (one C-level pass each): ids whose
    Python order is the order of their UTF-8 bytes, which the general path compares."""
    return set(map(type, keys)) <= {str} and "".join(keys).isascii()


def plain_judgments(mapping: object, limit: int | None = TINY_ENTRIES) -> dict[str, Any] | None:
    """``mapping`` itself if it is plain ``{qid: {docid: grade}}`` qrels: a ``dict`` of
    ``dict`` with ASCII ``str`` ids and ``int`` grades that fit 64 bits, holding at most
    ``limit`` judgments (``None``: any number) and at least one; else ``None``."""
    if type(mapping) is not dict or not plain_ids(mapping):
        return None
    total = 0
    for docs in mapping.values():
        if type(docs) is not dict:
            return None
        if not docs:
            continue
        total += len(docs)
        if limit is not None and total > limit:
            return None
        grades = docs.values()
        if set(map(type, grades)) != {int} or not plain_ids(docs):
            return None
        if min(grades) < -LONG or max(grades) >= LONG:
            return None
    return mapping if total else None


def plain_scores(mapping: object, limit: int = TINY_ENTRIES) -> dict[str, dict[str, float]] | None:
    """``{qid: {docid: score}}`` with ``float`` scores if ``mapping`` is a plain run: a
    ``dict`` of ``dict`` with ASCII ``str`` ids and finite ``float`` or ``int`` scores
    (not ``bool``), at most ``limit`` entries; else ``None``. The result is ``mapping``
    itself when every score is a ``float`` already, a converted copy otherwise."""
    if type(mapping) is not dict or not plain_ids(mapping):
        return None
    total = 0
    converted: dict[str, dict[str, float]] | None = None
    for qid, docs in mapping.items():
        if type(docs) is not dict:
            return None
        total += len(docs)
        if total > limit:
            return None
        if not docs:
            continue
        if not plain_ids(docs):
            return None
        kinds = set(map(type, docs.values()))
        if kinds != {float}:
            if not kinds <= {float, int}:
                return None
            try:
                docs = {doc: float(score) for doc, score in docs.items()}
            except OverflowError:
                return None
            if converted is None:
                converted = dict(mapping)
            converted[qid] = docs
        if not all(map(math.isfinite, docs.values())):
            return None
    return mapping if converted is None else converted


class Judged:
    """The judgments of qrels, query by query, for the tiny path: a query's
    ``{docid: grade}`` (:meth:`docs`), its grade counts (:meth:`grades`) and its number of
    judgments (:meth:`size`), from plain ``{qid: {docid: grade}}`` (``mapping``) or from a
    :class:`~ranklens.Qrels` (``qrels``), each read on first use and kept (at most the
    qrels' own size): an evaluator holds one for the runs it evaluates."""

    def __init__(
        self, mapping: Mapping[str, Mapping[str, int]] | None = None, qrels: Qrels | None = None
    ) -> None:
        self._mapping = mapping
        self._qrels = qrels
        self._index: dict[str, int] | None = None  # (read on first use)
        self._docs: dict[str, Mapping[str, int] | None] = {}
        self._grades: dict[str, Grades] = {}
        self._qids = qrels.qids if mapping is None and qrels is not None else None

    def qids(self) -> tuple[str, ...]:
        """The judged queries (with at least one judgment), in byte order."""
        if self._qids is None:
            mapping = self._mapping or {}
            self._qids = tuple(sorted(qid for qid, docs in mapping.items() if docs))
        return self._qids

    def size(self, qid: str) -> int:
        """The number of judgments of query ``qid`` (0 if it has none)."""
        if self._mapping is not None:
            docs = self._mapping.get(qid)
            return 0 if docs is None else len(docs)
        if qid in self._docs:  # (read already)
            read = self._docs[qid]
            return 0 if read is None else len(read)
        row = self._row(qid)
        if row is None or self._qrels is None:
            return 0
        offsets = self._qrels.q_offsets
        return int(offsets[row + 1] - offsets[row])

    def index(self) -> Mapping[str, int]:
        """``{qid: row}`` of the judged queries, rows in byte order (the qrels' rows)."""
        if self._index is None:
            if self._qrels is not None:
                self._index = self._qrels.query_index()
            else:
                self._index = {qid: row for row, qid in enumerate(self.qids())}
        return self._index

    def _row(self, qid: str) -> int | None:
        """Query ``qid``'s row in the qrels, or ``None``."""
        if self._qrels is None:
            return None
        return self.index().get(qid)

    def docs(self, qid: str) -> Mapping[str, int] | None:
        """Query ``qid``'s ``{docid: grade}``, or ``None`` if it has no judgment."""
        if self._mapping is not None:
            docs = self._mapping.get(qid)
            return docs if docs else None
        if qid not in self._docs:
            self._docs[qid] = self._read(qid)
        return self._docs[qid]

    def _read(self, qid: str) -> dict[str, int] | None:
        qrels, row = self._qrels, self._row(qid)
        if qrels is None or row is None:
            return None
        start, stop = int(qrels.q_offsets[row]), int(qrels.q_offsets[row + 1])
        return {qrels.docid(k): int(qrels.rels[k]) for k in range(start, stop)} or None

    def grades(self, qid: str) -> Grades:
        """Query ``qid``'s judged documents per grade (none if it has no judgment)."""
        found = self._grades.get(qid)
        if found is None:
            docs = self.docs(qid)
            found = Grades.of(list(docs.values()) if docs is not None else [])
            self._grades[qid] = found
        return found


def small(run: Mapping[str, Mapping[str, float]], judged: Judged) -> bool:
    """Whether ``run``'s entries and the judgments of its queries are at most
    :data:`TINY_ENTRIES` together."""
    total = 0
    for qid, docs in run.items():
        total += len(docs) + judged.size(qid)
        if total > TINY_ENTRIES:
            return False
    return True


def rank_documents(docs: Mapping[str, float], ties: str) -> list[str]:
    """A query's document ids by score, descending, equal scores ordered by ``ties``
    (``"trec_eval"``: id descending; ``"docid_asc"``: ascending; ``"input"``: as given)."""
    if ties == "trec_eval":
        order = sorted(docs, reverse=True)
    elif ties == "docid_asc":
        order = sorted(docs)
    else:
        order = list(docs)
    order.sort(key=docs.__getitem__, reverse=True)  # stable: ties keep the order above
    return order


def judgment_at(ranked: Sequence[str], judged: Mapping[str, int] | None) -> list[int]:
    """The judgment of each ranked document: its grade, ``-1`` if the qrels do not list
    it, ``-2`` for a negative grade (as :func:`ranklens.ranking.align.align`)."""
    if judged is None:
        return [-1] * len(ranked)
    get = judged.get
    return [-1 if (grade := get(doc)) is None else grade if grade >= 0 else -2 for doc in ranked]


@dataclass(frozen=True, slots=True)
class TinyRanking:
    """A small run ranked and joined with its qrels, as the general path's
    :class:`~ranklens.ranking.align.Aligned`: the evaluated queries (in byte order), the
    judgment at each rank of each (after ``depth``), its ranked scores and grade counts,
    the query counts, and the run's query ids."""

    qids: tuple[str, ...]
    rel: tuple[list[int], ...]
    grades: tuple[Grades, ...]
    query_counts: dict[str, int]
    run_qids: tuple[str, ...]
    whole: tuple[tuple[list[int], list[float]], ...]
    """Per evaluated query, the judgment and the score at each rank of its whole ranking
    (before ``depth``): where tied groups are looked for."""
    depth: int | None


def rank_run(
    run: Mapping[str, Mapping[str, float]],
    judgments: Judged,
    ties: str,
    queries: str,
    depth: int | None,
) -> TinyRanking:
    """Rank ``run`` (plain, see :func:`plain_scores`) by ``ties``, cut it at ``depth`` and
    join it with the qrels' ``judgments``, evaluating the queries that ``queries`` names
    (``"qrels"``, ``"both"``, ``"run"``)."""
    qrels_qids = judgments.qids()
    judged_docs = judgments.docs
    run_qids = tuple(sorted([qid for qid, docs in run.items() if docs]))
    ranked: dict[str, tuple[list[int], list[float]]] = {}
    both: list[str] = []
    matched = retrieved = 0
    for qid in run_qids:
        docs = run[qid]
        order = rank_documents(docs, ties)
        judged = judged_docs(qid)
        rel = judgment_at(order, judged)
        if judged is not None:
            both.append(qid)
            retrieved += len(rel)
            matched += rel.count(-1) != len(rel)  # a document the qrels list
        ranked[qid] = (rel, [docs[doc] for doc in order])
    qids = qrels_qids if queries == "qrels" else tuple(both) if queries == "both" else run_qids
    empty: tuple[list[int], list[float]] = ([], [])
    rows = [ranked.get(qid, empty) for qid in qids]
    cut = [row[0] if depth is None else row[0][:depth] for row in rows]
    in_both = len(both)
    counts = {
        "qrels": len(qrels_qids),
        "run": len(run_qids),
        "evaluated": len(qids),
        "missing": len(qrels_qids) - in_both if queries == "qrels" else 0,
        "unjudged": len(run_qids) - in_both if queries != "run" else 0,
        "shared": in_both,
        "retrieving": in_both,  # (every query of a plain run retrieves a document)
        "matched": matched,
        "retrieved": retrieved,
    }
    grades = judgments.grades
    return TinyRanking(
        qids, tuple(cut), tuple([grades(qid) for qid in qids]), counts, run_qids, tuple(rows), depth
    )


def values(ranking: TinyRanking, kernels: Sequence[ScalarKernel]) -> np.ndarray:
    """The (queries x measures) float64 matrix of the kernels' values."""
    rows = []
    if any(kernel.judged_only for kernel in kernels):
        for rel, grades in zip(ranking.rel, ranking.grades, strict=True):
            judged = [judgment for judgment in rel if judgment >= 0]
            rows.append([k.function(judged if k.judged_only else rel, grades) for k in kernels])
    else:
        functions = [kernel.function for kernel in kernels]
        for rel, grades in zip(ranking.rel, ranking.grades, strict=True):
            rows.append([function(rel, grades) for function in functions])
    return np.array(rows, dtype=np.float64).reshape(len(rows), len(kernels))


def tie_affected(ranking: TinyRanking, cutoff: int | None) -> int:
    """How many queries have a group of equal scores that mixes gains (``max(rel, 0)``)
    and begins within the top ``cutoff`` ranks (``None``: anywhere) and above the depth
    limit (a group the limit cuts counts whole: it is looked for in the whole ranking), as
    :func:`ranklens.ranking.ties.tie_affected_queries` counts them."""
    limits = [limit for limit in (cutoff, ranking.depth) if limit is not None]
    limit = min(limits) if limits else None
    count = 0
    for rel, scores in ranking.whole:
        start = 0
        for i in range(len(scores) - 1):
            if limit is not None and start >= limit:
                break
            if scores[i + 1] != scores[i]:
                start = i + 1
                continue
            if max(rel[i], 0) != max(rel[i + 1], 0):
                count += 1
                break
    return count
