"""Comparing per-topic scores made elsewhere, as runs are compared.

:func:`ranklens.compare` takes, besides runs, :class:`~ranklens.Results` (computed
earlier, or read by :func:`ranklens.read_scores` from ``trec_eval -q`` output, an
AutoJudge leaderboard, a table ...). This module prepares them so that
:func:`~ranklens.analysis.comparison.compare_results` sees what it would see had ranklens
evaluated the runs itself under the same ``queries=`` policy:

- **with qrels** (``compare(qrels, {"new": run, "old": results})``): the runs are
  evaluated; each Results keeps the topics the policy keeps: ``"qrels"``, the qrels'
  topics, a qrels topic missing from the scores counted as retrieving nothing (its value
  that of an empty ranking under these qrels, as ranklens and ``trec_eval -c`` score a
  query missing from a run; with the same warning when most are missing), a topic
  without judgments left out; ``"both"``, the topics in the qrels and the scores;
  ``"run"``, the scores' topics;
- **without qrels** (``compare(None, {"a": results_a, "b": results_b})``): ``"both"`` and
  ``"run"`` compare the topics common to every run (what ``compare`` does with runs
  under those policies); ``"qrels"`` (the default) needs the qrels to know the topics, so
  runs with different topics are refused there, naming the topics and the way out
  (``queries="both"``).

Then, as always, only the topics common to all runs are compared
(:attr:`Comparison.queries_dropped` counts the others).
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from ranklens.base.errors import InputError, InputWarning, OptionError
from ranklens.evaluation.result_set import ResultSet
from ranklens.evaluation.results import Results
from ranklens.measures.base import Measure

__all__ = ["is_scores", "prepare", "select_measures"]


def is_scores(entry: object) -> bool:
    """Whether ``entry`` of ``compare``'s runs is scores rather than a run."""
    return isinstance(entry, Results | ResultSet)


def select_measures(results: Results, measures: Sequence[Measure]) -> Results:
    """``results`` with only ``measures``' columns, in that order.

    Raises
    ------
    InputError
        One of the measures is not among the scores.
    """
    names = results.names
    missing = [m.name for m in measures if m.name not in names]
    if missing:
        raise InputError(
            f"run {results.run!r} has no scores of {', '.join(missing)} (it has "
            f"{', '.join(names)}); compare the measures every run has"
        )
    columns = [names.index(m.name) for m in measures]
    if columns == list(range(len(names))):
        return results
    kept = {m.name for m in measures}
    statistics = {k: v for k, v in results.run_statistics.items() if k in kept}
    return replace(
        results,
        measures=tuple(results.measures[j] for j in columns),
        values=np.ascontiguousarray(results.values[:, columns]),
        run_statistics=statistics,
    )


def _restricted(results: Results, keep: set[str]) -> Results:
    rows = [i for i, q in enumerate(results.queries) if q in keep]
    if len(rows) == len(results.queries):
        return results
    return replace(
        results,
        queries=tuple(results.queries[i] for i in rows),
        values=np.ascontiguousarray(results.values[rows]),
    )


def _measures_of(requested: Sequence[Any]) -> list[Measure]:
    from ranklens.evaluation.score_measures import measure_named

    out: list[Measure] = []
    for m in requested:
        out.append(m if isinstance(m, Measure) else measure_named(str(m)))
    if not out:
        raise OptionError("give at least one measure to compare")
    return out


def _expand(
    entries: Sequence[Any], names: Sequence[str] | None, qrels_given: bool
) -> tuple[list[Any], list[str | None]]:
    """The entries with each ResultSet (and, without qrels, each score file) spread into
    its runs, and their given names (``None``: the run's own; a file of one run whose name
    another run has too: the file's stem)."""
    from ranklens.data.naming import file_stem

    given: list[str | None] = list(names) if names is not None else [None] * len(entries)
    out: list[Any] = []
    out_names: list[str | None] = []
    stems: dict[int, str] = {}
    for entry, name in zip(entries, given, strict=True):
        if not qrels_given and not is_scores(entry):
            from ranklens.evaluation.scores_files import read_score_set

            path = entry if isinstance(entry, str | os.PathLike) else None
            entry = read_score_set(entry)
            if len(entry) == 1:
                entry = entry[0]
                if path is not None:
                    stems[len(out)] = file_stem(os.fspath(path))
        if isinstance(entry, ResultSet):
            if name is not None and len(entry) != 1:
                raise OptionError(
                    f"the name {name!r} was given to {len(entry)} runs ({', '.join(entry.runs)}); "
                    "name each run, or leave the names out"
                )
            for r in entry:
                out.append(r)
                out_names.append(name)
            continue
        out.append(entry)
        out_names.append(name)
    own = [
        n if n is not None else getattr(e, "run", None) for e, n in zip(out, out_names, strict=True)
    ]
    for i, stem in stems.items():
        if out_names[i] is None and own.count(own[i]) > 1:
            out_names[i] = stem
    return out, out_names


def _empty_values(evaluator: Any, name: str) -> Results:
    """The value of every qrels topic for a run that retrieves nothing."""
    from ranklens.data.run import Run

    return evaluator.evaluate_part(Run.from_dict({}, name=name))  # type: ignore[no-any-return]


def _with_qrels(results: Results, evaluator: Any, policy: str) -> Results:
    """``results`` on the topics ``policy`` keeps given the evaluator's qrels."""
    judged = evaluator.qrels.qids
    judged_set = set(judged)
    if policy == "run":
        return results
    kept = _restricted(results, judged_set)
    if policy == "both":
        if not kept.queries:
            raise InputError(
                f"run {results.run!r}: none of its {len(results.queries)} topics is in the "
                "qrels; check that these are the scores of these qrels' topics"
            )
        return kept
    have = set(kept.queries)
    missing = [q for q in judged if q not in have]
    if not missing:
        return kept
    if results.queries and not have:
        raise InputError(
            f"run {results.run!r} and the qrels share no topic: the scores have "
            f"{len(results.queries)} (e.g. {results.queries[0]!r}), the qrels {len(judged)}; "
            "check that these are the scores of these qrels' topics"
        )
    if len(missing) * 2 > len(judged):
        warnings.warn(
            f"{len(missing)} of the {len(judged)} qrels queries are missing from run "
            f"'{results.run}' and score 0 (only {len(have)} "
            f"{'is' if len(have) == 1 else 'are'} in it); to evaluate only the queries in "
            "both, pass queries='both' (--queries both on the command line)",
            InputWarning,
            stacklevel=5,
        )
    empty = _empty_values(evaluator, results.run)
    filler = select_measures(empty, kept.measures)
    rows = {q: i for i, q in enumerate(filler.queries)}
    values = np.empty((len(judged), len(kept.measures)), dtype=np.float64)
    own = {q: i for i, q in enumerate(kept.queries)}
    for i, q in enumerate(judged):
        values[i] = kept.values[own[q]] if q in own else filler.values[rows[q]]
    return replace(kept, queries=tuple(judged), values=values)


def prepare(
    qrels: Any,
    entries: Sequence[Any],
    names: Sequence[str] | None,
    measures: Sequence[Any],
    queries: str,
    evaluate_options: dict[str, Any],
) -> tuple[list[Results], list[str], Any]:
    """The Results to compare: runs evaluated, scores on the topics ``queries`` keeps
    (module docstring), every one with the ``measures``' columns only; their names; and the
    evaluator (``None`` without qrels).

    Raises
    ------
    OptionError
        Run options without qrels to evaluate runs with (``ties``, ``depth`` ...), names
        that do not fit, a measure twice.
    InputError
        Scores without a requested measure; under ``queries="qrels"`` without qrels, runs
        with different topics.
    """
    from ranklens.base.types import QUERY_POLICIES

    if queries not in QUERY_POLICIES:
        raise OptionError(f"queries must be one of {list(QUERY_POLICIES)}, not {queries!r}")
    qrels_given = qrels is not None
    spread, given = _expand(entries, names, qrels_given)
    if len(spread) < 2:
        raise OptionError(f"comparing needs at least 2 runs, not {len(spread)}")
    evaluator = None
    if qrels_given:
        from ranklens.evaluation.evaluator import Evaluator

        evaluator = Evaluator(qrels, list(measures), queries=queries, **evaluate_options)
        chosen = list(evaluator.measures)
    else:
        set_options = [
            k for k, v in evaluate_options.items() if v not in (None, "trec_eval", "error")
        ]
        if set_options:
            raise OptionError(
                f"{', '.join(set_options)} apply to runs that ranklens evaluates; these scores "
                "were computed elsewhere (give the qrels and the runs to evaluate them here)"
            )
        chosen = _measures_of(measures)
    if len({m.name for m in chosen}) != len(chosen):
        raise OptionError(f"a measure is named twice: {', '.join(m.name for m in chosen)}")
    results: list[Results] = []
    run_entries = [(i, e) for i, e in enumerate(spread) if not is_scores(e)]
    if run_entries and evaluator is not None:
        from ranklens.data.coerce import as_run
        from ranklens.data.naming import distinct_names

        read = [
            as_run(e, evaluate_options.get("duplicates", "error"), given[i]) for i, e in run_entries
        ]
        final = distinct_names(read, [given[i] for i, _ in run_entries])
        evaluated = {
            i: evaluator.evaluate(r.renamed(n))
            for (i, _), r, n in zip(run_entries, read, final, strict=True)
        }
    else:
        evaluated = {}
    for i, entry in enumerate(spread):
        if i in evaluated:
            results.append(evaluated[i])
            continue
        picked = select_measures(entry, chosen)
        if given[i] is not None:
            picked = replace(picked, run=str(given[i]))
        if evaluator is not None:
            picked = _with_qrels(picked, evaluator, queries)
        results.append(picked)
    if evaluator is None and queries == "qrels":
        _same_topics(results)
    return results, [r.run for r in results], evaluator


def _same_topics(results: Sequence[Results]) -> None:
    first = results[0]
    for other in results[1:]:
        if set(other.queries) == set(first.queries):
            continue
        only_first = sorted(set(first.queries) - set(other.queries))
        only_other = sorted(set(other.queries) - set(first.queries))
        parts = []
        if only_first:
            parts.append(f"{len(only_first)} only in {first.run!r} (e.g. {only_first[0]!r})")
        if only_other:
            parts.append(f"{len(only_other)} only in {other.run!r} (e.g. {only_other[0]!r})")
        raise InputError(
            f"the runs' scores cover different topics ({'; '.join(parts)}): under "
            "queries='qrels' a topic missing from a run counts as retrieving nothing, which "
            "needs the qrels; give the qrels, or compare the topics every run has with "
            "queries='both' (--queries both)"
        )
