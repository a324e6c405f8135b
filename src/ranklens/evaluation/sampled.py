"""Evaluating a stochastic run (several sampled rankings per query) with the measures that
read one: expected exposure ``EE-L``, ``EE-D``, ``EE-R``
(:mod:`ranklens.measures.catalog_exposure`).

:class:`~ranklens.evaluation.evaluator.Evaluator` sends such measures here. A run is
either stochastic or not: these measures are not mixed with those of one ranking per query
in one evaluation (evaluate those on a deterministic run, or on one sample of it). The
values are per query, in the qrels' order, and the aggregate is their mean. The evaluated
queries are those with a target exposure: a relevant document (with ``complete=True``,
any judged document); a query the run lacks gets the worst value of each measure (with
``queries="both"`` or ``"run"``, only the queries in both are evaluated).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ranklens.base.errors import InputError, InputWarning, MeasureError, OptionError
from ranklens.data.stochastic import (
    DocGroups,
    StochasticRun,
    no_samples_message,
    read_groups,
    read_stochastic_run,
)
from ranklens.evaluation.result_set import ResultSet
from ranklens.evaluation.results import Results
from ranklens.measures.base import Measure, is_sampled
from ranklens.ranking.stochastic import align_samples

if TYPE_CHECKING:
    from ranklens.evaluation.evaluator import Evaluator

OverlapCheck = Callable[[Mapping[str, int], str, "str | None", Sequence[str]], None]
"""``check(counts, run name, its file, some of its query ids)``: raises for a run that
cannot be meant for these qrels."""


@dataclass(frozen=True)
class SampledInputs:
    """What the evaluation of a stochastic run reads beside the qrels: the group labels
    (``None``: document-level exposure)."""

    groups: DocGroups | None


def sampled_groups(measures: Sequence[Measure], groups: object | None) -> SampledInputs | None:
    """The side data of the measures that read sampled rankings, or ``None`` when no such
    measure is asked for.

    Raises
    ------
    MeasureError
        Such measures are mixed with measures of one ranking per query.

    Warns
    -----
    InputWarning
        ``groups`` are given but no measure reads them.
    """
    sampled = [m for m in measures if is_sampled(m)]
    if not sampled:
        if groups is not None:
            import warnings

            warnings.warn(
                "groups= (--groups) is read only by the expected exposure measures (EE-L, "
                "EE-D, EE-R), none of which was asked for",
                InputWarning,
                stacklevel=4,
            )
        return None
    others = [m.name for m in measures if not is_sampled(m)]
    if others:
        raise MeasureError(
            f"{sampled[0].name} reads a stochastic run (several sampled rankings per query) "
            f"and {others[0]} one ranking per query: evaluate them separately (the measures "
            "of one ranking on a deterministic run, or on one sample of the stochastic run)"
        )
    return SampledInputs(read_groups(groups) if groups is not None else None)


def read_sampled_run(run: object, measure: str) -> StochasticRun:
    """The sampled rankings of ``run`` (:func:`ranklens.data.stochastic.read_stochastic_run`),
    refusing in one line a run without sample numbers (a :class:`~ranklens.Run`, a
    ``{qid: {docid: score}}`` dict, a TREC run with ``Q0``, a table without a sample
    column)."""
    if hasattr(run, "q_offsets"):  # a Run: one ranking per query
        raise InputError(no_samples_message("a Run holds one ranking per query", measure))
    if isinstance(run, Mapping) and any(isinstance(v, Mapping) for v in run.values()):
        raise InputError(
            no_samples_message("{qid: {docid: score}} holds one ranking per query", measure)
        )
    return read_stochastic_run(run, measure=measure)


def _run_name(run: object, name: str | None) -> tuple[str, str | None]:
    """The run's name (``name``, else its file's stem, else ``run``) and its file."""
    if isinstance(run, str | os.PathLike):
        path = os.fspath(run)
        return (name or Path(path).stem or "run"), path
    return (name or "run"), None


def evaluate_sampled(
    evaluator: Evaluator, run: object, name: str | None, check: OverlapCheck
) -> Results:
    """The values of ``evaluator``'s measures (all reading sampled rankings) on the
    stochastic ``run``: per query and their mean (module docstring). ``check`` refuses a
    run that shares no query with the qrels or retrieves no judged document
    (:func:`ranklens.evaluation.evaluator.check_overlap`).

    Raises
    ------
    InputError
        The run has no sample numbers, shares no query with the qrels or retrieves no judged
        document; a query's judged documents have no group label.
    MeasureError
        The measures evaluate different queries (``complete=True`` beside
        ``complete=False``).
    """
    inputs = evaluator.sampled
    if inputs is None:
        raise MeasureError("none of the measures reads a stochastic run")
    measures = evaluator.measures
    rankings = read_sampled_run(run, measures[0].name)
    run_name, source = _run_name(run, name)
    view, counts = align_samples(
        evaluator.qrels, rankings, inputs.groups, evaluator.queries, evaluator.depth
    )
    if counts["shared"] == 0:  # the same message as for any run, before any work
        check(counts, run_name, source, list(rankings))
    values = np.empty((view.num_queries, len(measures)), dtype=np.float64)
    for j, measure in enumerate(measures):
        values[:, j] = measure.compute_sampled(view)
    targeted = ~np.isnan(values).all(axis=1)
    if np.isnan(values[targeted]).any():
        raise MeasureError(
            f"{', '.join(m.name for m in measures)} evaluate different queries (complete=True "
            "evaluates every judged query, otherwise only those with a relevant document): "
            "evaluate them separately"
        )
    keep = np.flatnonzero(targeted).tolist()
    qids = tuple(view.qids[i] for i in keep)
    query_counts: dict[str, Any] = dict(counts)
    query_counts["evaluated"] = len(keep)
    if evaluator.queries == "qrels":  # among the queries with a target exposure
        query_counts["missing"] = sum(view.samples[i] is None for i in keep)
    check({**query_counts, "missing": 0}, run_name, source, list(rankings))
    missing = query_counts["missing"]
    if missing * 2 > len(keep):
        import warnings

        warnings.warn(
            f"{missing} of the {len(keep)} evaluated queries are missing from run "
            f"'{run_name}' and get the worst value of each measure; to evaluate only the "
            "queries in both, pass queries='both' (--queries both on the command line)",
            InputWarning,
            stacklevel=4,
        )
    return Results(run_name, measures, qids, np.ascontiguousarray(values[keep]), query_counts)


def is_many_sampled_runs(run: object) -> bool:
    """Whether ``run`` holds several stochastic runs: a list or tuple of paths, file objects
    or tables, or a mapping ``{name: run}`` whose values are paths, tables or
    ``{qid: [[docid, ...], ...]}`` (``{qid: [[docid, ...], ...]}`` itself is one run)."""
    if isinstance(run, list | tuple):
        return bool(run) and not isinstance(run[0], list | tuple)
    if isinstance(run, Mapping) and run:
        return all(
            _is_stochastic_dict(v)
            or isinstance(v, str | os.PathLike)
            or hasattr(v, "read")
            or _is_table(v)
            for v in run.values()
        )
    return False


def _is_stochastic_dict(obj: object) -> bool:
    """Whether ``obj`` is ``{qid: [[docid, ...], ...]}`` (not a query's ``{docid: score}``)."""
    return isinstance(obj, Mapping) and any(
        isinstance(v, Sequence) and not isinstance(v, str | bytes) for v in obj.values()
    )


def _is_table(obj: object) -> bool:
    return type(obj).__module__.split(".")[0] in ("pandas", "polars", "pyarrow")


def evaluate_many_sampled(
    evaluator: Evaluator, runs: Sequence[object], names: Sequence[str | None]
) -> ResultSet:
    """:func:`evaluate_sampled` for each run; a run's name is its given name, else its
    file's stem, else ``run1``, ``run2``, ... by position. Names must be distinct."""
    results = []
    for i, (run, name) in enumerate(zip(runs, names, strict=True), 1):
        chosen = name if name is not None else _run_name(run, None)[0]
        if name is None and not isinstance(run, str | os.PathLike):
            chosen = f"run{i}"
        results.append(evaluator.evaluate(run, chosen))
    seen = [r.run for r in results]
    repeated = sorted({n for n in seen if seen.count(n) > 1})
    if repeated:
        raise OptionError(
            f"several runs are named {repeated[0]!r}: give each run its own name (name=[...] "
            "or {name: run})"
        )
    return ResultSet(tuple(results))
