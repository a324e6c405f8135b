"""What ranx's ``evaluate``, ``compare`` and ``fuse`` share: the inputs read as ranklens
tables, ranx's metric names as ranklens measures, and the per-query values.

:func:`pair` takes what ranx's ``evaluate`` takes: :class:`Qrels` and :class:`Run`, ``{q_id:
{doc_id: value}}`` dicts, ranx's array form (per query a ``(n, 2)`` array of ``[doc_id,
value]`` rows, the run's in ranked order: a 3-d numpy array, a list or a
``numba.typed.List``), and, beyond ranx, ranklens' own ``Qrels``/``Run``, DataFrames and
paths of files in ranx's formats.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ranklens.base.errors import MeasureError, OptionError
from ranklens.base.types import Float64Array, TiePolicy
from ranklens.compat.ranx import _convert
from ranklens.compat.ranx._errors import (
    QueryMismatchError,
    RanxAssertionError,
    RanxInputError,
    describe,
)
from ranklens.compat.ranx._order import reordered
from ranklens.compat.ranx.data_structures.qrels import Qrels
from ranklens.compat.ranx.data_structures.run import Run
from ranklens.data.qrels import Qrels as _Qrels
from ranklens.data.run import Run as _Run
from ranklens.measures.base import Measure
from ranklens.measures.peer_names import translate

QrelsLike = Qrels | _Qrels | Mapping[str, Mapping[str, int]] | Any
RunLike = Run | _Run | Mapping[str, Mapping[str, float]] | Any


def _is_frame(obj: object) -> bool:
    module = type(obj).__module__.split(".")[0]
    return module in ("pandas", "polars", "pyarrow") and hasattr(obj, "columns")


def qrels_side(qrels: QrelsLike) -> tuple[_Qrels, list[str]]:
    """Qrels in any form ranx (or ranklens) takes, as a table and every query id in the
    order ranx reports them (a :class:`Qrels`' sorted, a dict's own)."""
    if isinstance(qrels, Qrels):
        table, queries = qrels._table_form()
        return table, list(queries)
    if isinstance(qrels, _Qrels):
        return qrels, list(qrels.qids)
    if isinstance(qrels, Mapping):
        return _convert.qrels_from_dict(qrels)
    if isinstance(qrels, str | os.PathLike):
        return qrels_side(Qrels.from_file(qrels))
    if _is_frame(qrels):
        return qrels_side(Qrels.from_df(qrels))
    raise RanxInputError(
        f"qrels must be Qrels, {{q_id: {{doc_id: relevance}}}}, arrays, a DataFrame or a "
        f"path, not {describe(qrels)}"
    )


def run_side(run: RunLike, sort: bool = True, ranx_order: bool = True) -> tuple[_Run, list[str]]:
    """A run in any form ranx (or ranklens) takes, as a table and every query id; each
    query's rows in ranx's order (a :class:`Run`'s; a plain dict's as ranx's ``evaluate``
    sorts it, ``descending_sort``), which ranking with ``ties="input"`` keeps.

    With ``sort``, a :class:`Run` not sorted (a normalised run, ``add_score``) is sorted
    first, in place, as ranx's ``to_typed_list`` sorts it before an evaluation; ranx's
    fusion functions read the run's dict as it is (``sort=False``). Without
    ``ranx_order`` a plain dict keeps its own order (``ties="input"``)."""
    if isinstance(run, Run):
        if sort and not run.sorted:
            run.sort()
        table, queries = run._table_form()
        return table, list(queries)
    if isinstance(run, _Run):
        return reordered(run), list(run.qids)
    if isinstance(run, Mapping):
        table, order = _convert.run_from_dict(run, "run")
        return (reordered(table, "dict") if ranx_order else table), order
    if isinstance(run, str | os.PathLike):
        return run_side(Run.from_file(run))
    if _is_frame(run):
        return run_side(Run.from_df(run))
    raise RanxInputError(
        f"run must be a Run, {{q_id: {{doc_id: score}}}}, arrays, a DataFrame or a path, "
        f"not {describe(run)}"
    )


@dataclass(frozen=True)
class Pair:
    """Qrels and a run as ranklens tables, with the queries to report, in ranx's order."""

    qrels: _Qrels
    run: _Run
    queries: tuple[str, ...]
    tied_order: bool
    """Whether the run's order of equal scores is to be decided by the tie policy (false
    for arrays, whose order is given)."""


def check_queries(qrels: Sequence[str], run: Sequence[str]) -> None:
    """ranx's ``check_keys``: the same query ids on both sides."""
    only_qrels = sorted(set(qrels) - set(run))
    only_run = sorted(set(run) - set(qrels))
    if only_qrels or only_run:
        raise QueryMismatchError(
            f"qrels and run query ids do not match (only in the qrels: {only_qrels[:3]}, only "
            f"in the run: {only_run[:3]}); pass make_comparable=True to score the queries "
            "missing from the run 0 and leave out the run's queries the qrels do not judge"
        )


def pair(qrels: QrelsLike, run: RunLike, make_comparable: bool, ranx_order: bool = True) -> Pair:
    """Both sides read, their queries checked (unless ``make_comparable``); a plain dict
    run in ranx's order with ``ranx_order`` (:func:`run_side`)."""
    arrays = (_convert.is_array_form(qrels), _convert.is_array_form(run))
    if any(arrays):
        if not all(arrays):
            raise RanxInputError(
                "give the qrels and the run both as arrays (ranx pairs them by position) or "
                "both with query ids (Qrels/Run, dicts), not one of each"
            )
        tables = _convert.tables_from_arrays(qrels, run)
        return Pair(tables.qrels, tables.run, tables.queries, False)
    qrels_table, qrels_order = qrels_side(qrels)
    run_table, run_order = run_side(run, ranx_order=ranx_order)
    if not make_comparable:
        check_queries(qrels_order, run_order)
    return Pair(qrels_table, run_table, tuple(qrels_order), True)


# ----------------------------------------------------------------------------- metrics

_BARE_RBP = re.compile(r"rbp(?:-l-?\d+)?")
_DCG_LEVEL = re.compile(r"(?P<name>n?dcg(?:_burges)?)(?P<at>@\d+)?-l(?P<rel>-?\d+)")


def _translate(name: str) -> str:
    """A ranx metric name as a ranklens measure name (ranklens names pass through)."""
    level = _DCG_LEVEL.fullmatch(name.strip().lower())
    if level is None:
        translated = translate(name)
        if translated is None and _BARE_RBP.fullmatch(name.strip().lower()):
            raise MeasureError(f"'{name}': ranx's RBP needs its persistence, e.g. rbp.95")
        return translated or name
    rel = int(level.group("rel"))
    base = translate(level.group("name") + (level.group("at") or "")) or name
    if rel < 1:
        raise MeasureError(
            f"'{name}': a relevance level below 1 keeps negative grades as negative gains "
            "in ranx's DCG, which ranklens does not compute; use a level of 1 or more"
        )
    if rel == 1:
        return base
    # ranx's -lN drops the grades below N from the gains: they gain 0
    gains = "gains={" + ",".join(f"{g}:0" for g in range(1, rel)) + "}"
    measure, at, cutoff = base.partition("@")
    measure = f"{measure[:-1]},{gains})" if measure.endswith(")") else f"{measure}({gains})"
    return measure + at + cutoff


def metric_names(metrics: Iterable[str] | str) -> list[str]:
    """ranx's ``format_metrics`` and its check that every metric is a string."""
    names = [metrics] if isinstance(metrics, str) else list(metrics)
    if not names or not all(isinstance(m, str) for m in names):
        raise RanxAssertionError(
            f"metrics must be a metric name or a non-empty list of names, not {describe(metrics)}"
        )
    return names


def longest(run: _Run) -> int:
    """The most documents any query of ``run`` retrieves (at least 1)."""
    return max(int(np.diff(run.q_offsets).max(initial=0)), 1)


def measures_of(names: Sequence[str], depth: int = 1) -> tuple[list[Measure], list[int]]:
    """The distinct measures ``names`` stand for, and the measure of each name.

    A ranx metric without a cut-off means every retrieved document; where the ranklens
    measure needs one (``hit_rate`` is ``Success@k``) it is ``depth``, the longest ranking
    evaluated (the same value)."""
    from ranklens.measures.language import parse_measures

    measures: list[Measure] = []
    column: list[int] = []
    index: dict[str, int] = {}
    for name in names:
        text = _translate(name)
        try:
            parsed = parse_measures(text)
        except MeasureError as error:
            if "needs '@" not in str(error) or "@" in text:
                raise
            parsed = parse_measures(f"{text}@{depth}")
        if len(parsed) != 1:
            raise MeasureError(
                f"'{name}' stands for {len(parsed)} measures; name one measure per metric"
            )
        key = parsed[0].name
        if key not in index:
            index[key] = len(measures)
            measures.append(parsed[0])
        column.append(index[key])
    return measures, column


class Scorer:
    """Per-query values of measures over one set of qrels, for one run or many.

    The rows follow ``queries`` (ranx's order); a query the qrels hold no judgment for
    gets each measure's value for a query without relevant documents (0 for all of
    ranx's metrics), as ranx scores it.
    """

    def __init__(
        self,
        qrels: _Qrels,
        queries: Sequence[str],
        measures: Sequence[Measure],
        ties: TiePolicy,
    ) -> None:
        from ranklens.evaluation.evaluator import Evaluator

        self.queries = tuple(queries)
        self.measures = list(measures)
        self.evaluator = None
        if len(qrels):
            self.evaluator = Evaluator(qrels, self.measures, ties=ties, queries="qrels")
        empty = [m.spec.no_rel_value for m in self.measures]
        self.empty_row = np.array([np.nan if v is None else v for v in empty], dtype=np.float64)

    def values(self, run: _Run) -> Float64Array:
        """The (queries x measures) values of ``run``."""
        out = np.empty((len(self.queries), len(self.measures)), dtype=np.float64)
        out[:] = self.empty_row
        if self.evaluator is None:
            return out
        # each measure on the aligned run (what Evaluator.evaluate_part computes, without
        # the count of tie-affected queries and the Results that ranx has no use for)
        aligned = self.evaluator.align(run)
        position = {q: i for i, q in enumerate(aligned.base.qids)}
        rows = np.asarray([position.get(q, -1) for q in self.queries], dtype=np.int64)
        found = rows >= 0
        for j, measure in enumerate(self.measures):
            params = getattr(measure, "params", None) or {}
            if measure.name.startswith("RBP(") and params.get("gain") == "raw":
                computed = ranx_rbp(aligned.base, float(params["p"]), int(params["rel"]))
            else:
                computed = measure.compute(aligned)
            out[found, j] = computed[rows[found]]
        return out


def _power(base: float, exponent: int) -> float:
    """``base ** exponent`` by repeated squaring, as numba computes a float to an integer
    power (numpy's ``power`` can differ in the last bit)."""
    result = 1.0
    while True:
        if exponent & 1:
            result *= base
        exponent >>= 1
        if not exponent:
            return result
        base *= base


def ranx_rbp(ranked: Any, p: float, rel: int) -> Float64Array:
    """ranx's ``rbp.p`` per query of ``ranked`` (an aligned ranking): ``(1 - p) sum_i g_i
    p^i`` over the ranks ``i = 0, 1, ...``, ``g_i`` the grade where it is at least ``rel``
    (else 0), summed in rank order with ``p^i`` as numba computes it, so the values are
    ranx's to the bit.

    >>> from types import SimpleNamespace
    >>> ranked = SimpleNamespace(offsets=np.array([0, 3]), rel=np.array([2, 0, 1]))
    >>> float(ranx_rbp(ranked, 0.8, 1)[0]) == (1 - 0.8) * (2 + 0.8 * 0.8)
    True
    """
    offsets = np.asarray(ranked.offsets).tolist()
    grades = np.asarray(ranked.rel).tolist()
    out = np.zeros(len(offsets) - 1, dtype=np.float64)
    for q in range(len(offsets) - 1):
        total = 0.0
        for i in range(offsets[q + 1] - offsets[q]):
            grade = grades[offsets[q] + i]
            if grade >= rel:
                total += grade * _power(p, i)
        out[q] = (1 - p) * total
    return out


def check_threads(threads: int) -> None:
    """ranx's ``threads``: a non-negative integer (ranklens needs no threads setting)."""
    if isinstance(threads, bool) or not isinstance(threads, int | np.integer) or threads < 0:
        raise OptionError(f"threads must be a non-negative integer, not {threads!r}")
