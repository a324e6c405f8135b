"""pytrec_eval's API on ranklens: ``import ranklens.compat.pytrec_eval as pytrec_eval``.

The same names as pytrec_eval 0.5 (``RelevanceEvaluator``, ``supported_measures``,
``supported_nicknames``, ``parse_qrel``, ``parse_run``, ``compute_aggregated_measure``),
the same measure strings (``"map"``, ``"ndcg_cut.10,20"``, ``"P_5"``, ``"recall"``,
nicknames such as ``"official"``), the same result keys (``ndcg_cut_10``, ``P_5``, ...),
the same values (pytrec_eval bundles trec_eval 9.0.8: scores are kept as 32-bit floats and
``iprec_at_recall`` / ``11pt_avg`` reach a recall level as 9.0.8 does) and the same
exceptions for the same misuse. pytrec_eval is not imported.

Examples
--------
>>> import ranklens.compat.pytrec_eval as pytrec_eval
>>> qrel = {"q1": {"d1": 0, "d2": 1, "d3": 0}, "q2": {"d2": 1, "d3": 1}}
>>> evaluator = pytrec_eval.RelevanceEvaluator(qrel, {"map", "ndcg_cut.3", "P_5"})
>>> result = evaluator.evaluate({"q1": {"d1": 1.0, "d2": 0.0, "d3": 1.5}, "q2": {}})
>>> sorted(result["q1"].items())
[('P_5', 0.2), ('map', 0.3333333333333333), ('ndcg_cut_3', 0.5)]

Differences (on misuse only): ``supported_measures`` is a ``frozenset`` and
``supported_nicknames`` a read-only mapping (pytrec_eval's are mutable module globals);
measure parameters trec_eval refuses (a zero cut-off) raise :class:`ValueError`, where
pytrec_eval's behaviour is undefined.
"""

from __future__ import annotations

import collections
import math
import re
from array import array
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from functools import lru_cache
from types import MappingProxyType
from typing import Any

import numpy as np

from ranklens.base.errors import RanklensError
from ranklens.base.types import Float64Array
from ranklens.data.memory import plain_dict_columns
from ranklens.data.qrels import Qrels
from ranklens.data.run import Run
from ranklens.evaluation import tiny
from ranklens.evaluation.tiny import KernelFunction
from ranklens.kernels.scalar import Grades
from ranklens.measures.base import GMEAN_FLOOR, Measure
from ranklens.measures.trec_table import (
    BY_NAME,
    MEASURES,
    Options,
    Slot,
    TrecUsageError,
    request,
)
from ranklens.ranking.align import PreparedQrels, Ranked, align

__all__ = [
    "RelevanceEvaluator",
    "compute_aggregated_measure",
    "parse_qrel",
    "parse_run",
    "supported_measures",
    "supported_nicknames",
]

__version__ = "0.5.11"
"""The pytrec_eval version whose API and values this module reproduces."""

supported_measures: frozenset[str] = frozenset(
    {
        "11pt_avg", "G", "P", "Rndcg", "Rprec", "Rprec_mult", "binG", "bpref", "gm_bpref",
        "gm_map", "infAP", "iprec_at_recall", "map", "map_cut", "ndcg", "ndcg_cut",
        "ndcg_rel", "num_nonrel_judged_ret", "num_q", "num_rel", "num_rel_ret", "num_ret",
        "recall", "recip_rank", "relative_P", "relstring", "runid", "set_F", "set_P",
        "set_map", "set_recall", "set_relative_P", "success", "utility",
    }
)  # fmt: skip
"""trec_eval 9.0.8's measures on ordinary qrels (pytrec_eval's list)."""

_SET = (
    "num_q", "num_ret", "num_rel", "num_rel_ret", "runid", "set_F", "set_P", "set_map",
    "set_recall", "set_relative_P", "utility",
)  # fmt: skip
_OFFICIAL = (
    "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
    "recip_rank", "iprec_at_recall", "P",
)  # fmt: skip
_PREFS = (
    "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret", "prefs_simp",
    "prefs_pair", "prefs_avgjg",
)  # fmt: skip
_ALL_PREFS = (
    *_PREFS, "prefs_simp_ret", "prefs_simp_imp", "prefs_pair_ret", "prefs_pair_imp",
    "prefs_avgjg_ret", "prefs_avgjg_imp", "prefs_avgjg_Rnonrel", "prefs_avgjg_Rnonrel_ret",
)  # fmt: skip

supported_nicknames: Mapping[str, frozenset[str]] = MappingProxyType(
    {
        "official": frozenset(_OFFICIAL),
        "set": frozenset(_SET),
        "all_trec": supported_measures,
        "all_prefs": frozenset(("runid", "num_q", *_ALL_PREFS)),
        "prefs": frozenset(("runid", "num_q", *_PREFS)),
        "qrels_jg": frozenset(("runid", "num_q", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg")),
    }
)
"""pytrec_eval's nicknames: each stands for the measures it lists (``all_prefs``, ``prefs``
and ``qrels_jg`` name measures that pytrec_eval does not compute: asking for them is a
:class:`ValueError`, as in pytrec_eval)."""

SLOTS_CACHE_SIZE = 256
"""How many (measure strings, relevance level) pairs :func:`_slots_of` keeps translated."""

_MEASURE_ORDER = tuple(sorted(supported_measures, key=lambda m: (-len(m), m)))
_PARAMS = r"[\._]([0-9]+(\.[0-9]+)?(,[0-9]+(\.[0-9]+)?)*)"
_CONSTANT = {"runid": 0.0, "relstring": 0.0, "num_q": 1.0}
"""The per-query value pytrec_eval gives the measures trec_eval computes only for a run."""


def parse_run(f_run: Iterable[str]) -> dict[str, dict[str, float]]:
    """Parse the lines of a TREC run (``qid Q0 docid rank score tag``).

    Returns ``{qid: {docid: score}}`` (a ``defaultdict``, as pytrec_eval's); a document
    given twice for a query raises :class:`AssertionError`, as pytrec_eval does.
    """
    run: dict[str, dict[str, float]] = collections.defaultdict(dict)
    for line in f_run:
        query_id, _, object_id, _, score, _ = line.strip().split()
        if object_id in run[query_id]:
            raise AssertionError(f"document {object_id} twice for query {query_id}")
        run[query_id][object_id] = float(score)
    return run


def parse_qrel(f_qrel: Iterable[str]) -> dict[str, dict[str, int]]:
    """Parse the lines of a TREC qrels file (``qid 0 docid relevance``).

    Returns ``{qid: {docid: relevance}}`` (a ``defaultdict``, as pytrec_eval's); a document
    given twice for a query raises :class:`AssertionError`, as pytrec_eval does.
    """
    qrel: dict[str, dict[str, int]] = collections.defaultdict(dict)
    for line in f_qrel:
        query_id, _, object_id, relevance = line.strip().split()
        if object_id in qrel[query_id]:
            raise AssertionError(f"document {object_id} twice for query {query_id}")
        qrel[query_id][object_id] = int(relevance)
    return qrel


def compute_aggregated_measure(measure: str, values: list[float]) -> float:
    """Aggregate per-query ``values`` of ``measure`` as trec_eval's summary does.

    ``num_*`` measures are summed, ``gm_*`` ones (whose per-query values are logarithms)
    give ``exp(mean)``, the others the mean.

    >>> compute_aggregated_measure("num_ret", [3.0, 4.0])
    7.0
    >>> compute_aggregated_measure("map", [0.5, 1.0])
    0.75
    """
    if measure.startswith("num_"):
        return float(np.sum(values))
    if measure.startswith("gm_"):
        return float(np.exp(np.sum(values) / len(values)))
    return float(np.mean(values))


def _expand_nicknames(measures: Iterable[str]) -> set[str]:
    result: set[str] = set()
    for measure in measures:
        if measure in supported_nicknames:
            result.update(supported_nicknames[measure])
        else:
            result.add(measure)
    return result


def _combine_measures(measures: Iterable[str]) -> list[str]:
    """``meas``, ``meas.p1,p2`` or ``meas_p1`` strings merged into one ``meas.params`` each
    (the union of the parameters, as pytrec_eval does); an unknown name is a ValueError."""
    params: dict[str, set[str]] = {}
    for measure in measures:
        if measure not in supported_measures and measure not in supported_nicknames:
            base = None
            for name in _MEASURE_ORDER:
                match = re.match(re.escape(name) + _PARAMS, measure)
                if match is not None:
                    base = name
                    params.setdefault(name, set()).update(match.group(1).split(","))
                    break
            if base is None:
                raise ValueError(f"unsupported measure {measure}")
        elif measure not in params:
            params[measure] = set()
    return [f"{m}.{','.join(sorted(p))}" if p else m for m, p in params.items()]


def _checked(mapping: Mapping[Any, Any], integer: bool) -> dict[str, dict[str, Any]]:
    """pytrec_eval's type checks of a ``{qid: {docid: value}}`` mapping (TypeError), and the
    mapping with plain ``str`` ids and ``int`` / ``float`` values (a ``bool`` relevance or a
    numpy ``float64`` score is accepted, as pytrec_eval does); the input is not changed."""
    plain: dict[str, dict[str, Any]] = {}
    for qid, docs in mapping.items():
        if not isinstance(qid, str):
            raise TypeError("Expected string as key.")
        if not isinstance(docs, dict):
            raise TypeError("Expected dictionary as value.")
        if not set(map(type, docs)) <= {str}:
            if not all(isinstance(d, str) for d in docs):
                raise TypeError(
                    "Expected mapping of document id to query relevance or matching score."
                )
            docs = {str(d): v for d, v in docs.items()}
        kinds = set(map(type, docs.values()))
        if not kinds <= ({int} if integer else {int, float}):
            for value in docs.values():
                if integer and not isinstance(value, int):
                    raise TypeError("Expected relevance to be integer.")
                if not integer and not isinstance(value, int | float):
                    raise TypeError("Expected matching score to be int, long or float.")
            convert = int if integer else float
            docs = {d: convert(v) for d, v in docs.items()}
        plain[str(qid)] = docs
    return plain


@lru_cache(maxsize=SLOTS_CACHE_SIZE)
def _slots_of(names: tuple[str, ...], relevance_level: int) -> tuple[Slot, ...]:
    """:func:`_slots`, made once per measure strings and relevance level (slots are
    immutable; a bounded cache: an evaluator built in a loop, as pytrec_eval's
    ``examples/rl.py`` builds one per query, does not translate its names again)."""
    return _slots(list(names), relevance_level)


def _slots(names: list[str], relevance_level: int) -> tuple[Slot, ...]:
    """The values to compute, in trec_eval's registry order (pytrec_eval's key order). A
    measure with one value is keyed by its bare name, whatever its parameters
    (``set_F.0.5`` gives ``set_F``), as in pytrec_eval."""
    options = Options(level=relevance_level, v9=True)
    order = {m.name: i for i, m in enumerate(MEASURES)}
    found: list[tuple[int, list[Slot]]] = []
    for name in names:
        base = name.partition(".")[0]
        try:
            slots = request([name], options)
        except TrecUsageError as exc:
            raise ValueError(str(exc).replace("\n", "; ")) from None
        if BY_NAME[base].params not in ("cutoffs", "levels"):
            slots = [replace(slot, name=base) for slot in slots]
        found.append((order[base], slots))
    return tuple(slot for _, slots in sorted(found, key=lambda item: item[0]) for slot in slots)


class RelevanceEvaluator:
    """Evaluate runs against relevance judgments, as pytrec_eval's ``RelevanceEvaluator``.

    Parameters
    ----------
    query_relevance
        ``{qid: {docid: relevance}}`` with integer relevance; queries without judgments
        are ignored.
    measures
        trec_eval measure names (``"map"``, ``"P.5,10"``, ``"ndcg_cut_10"``) and nicknames
        (``"official"``, ``"all_trec"``, ``"set"``).
    relevance_level
        The lowest relevance that counts as relevant (trec_eval ``-l``; at least 1).
    judged_docs_only_flag
        Drop retrieved documents without a judgment before computing (trec_eval ``-J``).

    Raises
    ------
    ValueError
        An unknown measure (``"unsupported measure NAME"``).
    TypeError
        ``relevance_level`` below 1, or judgments that are not ``{str: {str: int}}``.
    """

    def __init__(
        self,
        query_relevance: Mapping[str, Mapping[str, int]],
        measures: Iterable[str],
        relevance_level: int = 1,
        judged_docs_only_flag: bool = False,
    ) -> None:
        names = _combine_measures(_expand_nicknames(measures))
        nonempty = query_relevance
        if type(query_relevance) is not dict or not all(map(len, query_relevance.values())):
            nonempty = {qid: docs for qid, docs in query_relevance.items() if len(docs) > 0}
        if not isinstance(relevance_level, int) or not isinstance(judged_docs_only_flag, int):
            raise TypeError("Expected object_relevance_per_qid dictionary and measures set.")
        if relevance_level < 1:
            raise TypeError("Argument relevance_level should be positive.")
        # plain judgments are read by the native core in one walk, which also proves they
        # hold what the checks accept (else: checked first, pytrec_eval's TypeErrors)
        columns = plain_dict_columns(nonempty, True, "<dict>", rows=False) if nonempty else None
        qrels: Qrels | None = None
        if columns is not None:
            qrels = Qrels._make(columns)
        else:
            judged = _checked(nonempty, integer=True)
            qrels = Qrels.from_dict(judged) if judged else None
        self._slots = _slots_of(tuple(names), relevance_level)
        self._judged_only = bool(judged_docs_only_flag)
        self._names = tuple(slot.name for slot in self._slots)
        self._gm = tuple(slot.summary == "gm" for slot in self._slots)
        self._qrels = qrels
        self._prepared_qrels: PreparedQrels | None = None  # (made on the general path's use)
        # the tiny path (small runs; ranklens.evaluation.tiny): each slot's value for one
        # query (None when a measure has no per-query kernel); the judgments of the queries
        # it evaluates, read from the qrels on first use
        self._kernels = _slot_functions(self._slots)
        self._gm_columns = tuple(j for j, gm in enumerate(self._gm) if gm)
        self._judged = tiny.Judged(qrels=qrels) if qrels is not None else tiny.Judged({})

    def evaluate(self, scores: Mapping[str, Mapping[str, float]]) -> dict[str, dict[str, float]]:
        """``{qid: {measure: value}}`` for the queries of ``scores`` that have judgments,
        in the order of ``scores``; an empty ``scores`` gives ``{}``.

        Raises
        ------
        TypeError
            ``scores`` is not a dict of ``{str: {str: int or float}}``.
        """
        if not scores:
            return {}
        if not isinstance(scores, dict):
            raise TypeError("Argument object scores should be of type dictionary.")
        size = _entries(scores, tiny.TINY_ENTRIES)
        # a plain run past the tiny path's size is read by the native core in one walk,
        # which also proves it holds what the checks below accept (else: checked first)
        read = None
        if size is not None and (size > tiny.TINY_ENTRIES or self._kernels is None):
            read = plain_dict_columns(scores, False, "<dict>", allow_empty=True, rows=False)
        if read is None:
            try:
                plain = _checked(scores, integer=False)
            except TypeError:
                raise TypeError("Unable to extract query/object scores.") from None
        else:
            plain = scores
        if self._qrels is None:
            return {}
        index = self._judged.index()
        wanted = [qid for qid in plain if qid in index]
        if not self._slots:
            return {qid: {} for qid in wanted}
        if not wanted:
            return {}
        if read is not None:
            run = Run._make(read, "run")
        else:
            if self._kernels is not None:
                found = self._evaluate_tiny(plain, wanted, self._kernels)
                if found is not None:
                    return found
            run = Run.from_dict({qid: plain[qid] for qid in wanted})
        # trec_eval 9.0.8 keeps a score as a C float (one beyond its range is infinite there,
        # silently, as in pytrec_eval)
        with np.errstate(over="ignore"):
            single = run.scores.astype(np.float32)
        run = replace(run, scores=single.astype(np.float64))
        prepared = self._prepared_qrels
        if prepared is None:
            prepared = self._prepared_qrels = PreparedQrels.of(self._qrels)
        try:
            view = align(prepared, run, "trec_eval", "qrels").view(self._judged_only)
        except RanklensError as exc:  # not expected with dict input: say what failed
            raise ValueError(str(exc)) from None
        columns = []
        for slot, gm in zip(self._slots, self._gm, strict=True):
            if slot.measure is None:
                columns.append(np.full(len(view.qids), _CONSTANT.get(slot.kind, 0.0)))
                continue
            values = slot.measure.compute_on(view)
            values = _empty_ranking_nan(slot.measure, view, values)
            if gm:
                values = np.log(np.maximum(values, GMEAN_FLOOR))
            columns.append(values)
        table = np.column_stack(columns).tolist()
        row_of = dict(zip(view.qids, table, strict=True))
        names = self._names
        return {qid: dict(zip(names, row_of[qid], strict=True)) for qid in wanted}


    def _evaluate_tiny(
        self,
        plain: dict[str, dict[str, Any]],
        wanted: list[str],
        functions: tuple[KernelFunction, ...],
    ) -> dict[str, dict[str, float]] | None:
        """:meth:`evaluate` of a small run by the tiny path (:mod:`ranklens.evaluation.tiny`):
        the same values, or ``None`` where it cannot take the run (too large, ids not
        ASCII, a score not finite or beyond a 32-bit float)."""
        judged = self._judged
        total = 0
        for qid in wanted:
            total += len(plain[qid]) + judged.size(qid)
            if total > tiny.TINY_ENTRIES:
                return None
        rows: list[list[float]] = []
        judged_only = self._judged_only
        for qid in wanted:
            docs = plain[qid]
            scores = list(docs.values())
            # (the ids are str, as the checks made them: their order is their bytes' if ASCII)
            if not "".join(docs).isascii() or not all(map(math.isfinite, scores)):
                return None  # (the general path refuses a score that is not finite)
            # trec_eval 9.0.8 keeps a score as a C float (as the general path's cast does:
            # to nearest, infinite beyond the range)
            single = dict(zip(docs, array("f", scores).tolist(), strict=True))
            rel = tiny.judgment_at(tiny.rank_documents(single, "trec_eval"), judged.docs(qid))
            if judged_only:
                rel = [judgment for judgment in rel if judgment >= 0]
            grades = judged.grades(qid)
            rows.append([function(rel, grades) for function in functions])
        for j in self._gm_columns:  # the same numpy log as the general path
            column = np.array([row[j] for row in rows], dtype=np.float64)
            logs = np.log(np.maximum(column, GMEAN_FLOOR)).tolist()
            for row, value in zip(rows, logs, strict=True):
                row[j] = value
        names = self._names
        return {
            qid: dict(zip(names, row, strict=True)) for qid, row in zip(wanted, rows, strict=True)
        }


def _entries(scores: dict[Any, Any], limit: int) -> int | None:
    """The number of entries of a ``{qid: {docid: score}}`` dict, counted until it passes
    ``limit``; ``None`` if a value met before is not a dict (the checks then say what is
    wrong)."""
    total = 0
    for docs in scores.values():
        if type(docs) is not dict:
            return None
        total += len(docs)
        if total > limit:
            break
    return total


def _slot_functions(slots: tuple[Slot, ...]) -> tuple[KernelFunction, ...] | None:
    """Each slot's value for one query on the tiny path, ``function(rel, grades)``: a
    constant, or its measure's per-query kernel (giving 9.0.8's NaN where
    :func:`_empty_ranking_nan` would); ``None`` if a slot's measure has no such kernel (the
    evaluator then takes the general path)."""
    out: list[KernelFunction] = []
    for slot in slots:
        measure = slot.measure
        if measure is None:
            out.append(_constant(_CONSTANT.get(slot.kind, 0.0)))
            continue
        kernel = tiny.scalar_kernel(measure)
        if kernel is None or kernel.judged_only:
            return None
        if measure.spec.name in ("IPrec", "11ptAvg"):
            out.append(_nan_if_undefined(measure, kernel.function))
        else:
            out.append(kernel.function)
    return tuple(out)


def _constant(value: float) -> KernelFunction:
    """The same ``value`` for every query."""

    def constant(rel: Sequence[int], grades: Grades) -> float:
        return value

    return constant


def _nan_if_undefined(measure: Measure, function: KernelFunction) -> KernelFunction:
    """``function``, but NaN on an empty ranking where trec_eval 9.0.8 divides 0 by 0."""

    def value(rel: Sequence[int], grades: Grades) -> float:
        if not rel and _undefined(measure, grades):
            return math.nan
        return function(rel, grades)

    return value


def _undefined(measure: Measure, grades: Grades) -> bool:
    """:func:`_empty_ranking_nan` for one query with an empty ranking: whether trec_eval
    9.0.8 divides 0 by 0 there."""
    name = measure.spec.name
    if name not in ("IPrec", "11ptAvg"):
        return False
    num_rel = grades.num_rel(int(measure["rel"]))
    levels = (measure["recall"],) if name == "IPrec" else measure["levels"]
    return any(math.floor(float(level) * num_rel + 0.9) == 0 for level in levels)


def _empty_ranking_nan(measure: Measure, view: Ranked, values: Float64Array) -> Float64Array:
    """trec_eval 9.0.8's 0/0 on an empty ranking (an empty score dict, or nothing judged
    left with ``judged_docs_only_flag``): ``iprec_at_recall`` at a level whose relevant
    document count ``floor(x * R + 0.9)`` is 0, and ``11pt_avg`` when any of its levels is."""
    name = measure.spec.name
    if name not in ("IPrec", "11ptAvg"):
        return values
    empty = view.num_ret == 0
    if not empty.any():
        return values
    num_rel = view.num_rel(int(measure["rel"]))
    levels = (measure["recall"],) if name == "IPrec" else measure["levels"]
    undefined = np.zeros(len(values), dtype=bool)
    for level in levels:
        undefined |= np.floor(np.float64(level) * num_rel + 0.9) == 0
    return np.where(empty & undefined, np.nan, values)
