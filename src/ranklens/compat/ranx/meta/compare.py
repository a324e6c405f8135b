"""ranx's ``compare`` (``ranx.meta.compare``)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from ranklens.base.errors import OptionError
from ranklens.base.types import Float64Array
from ranklens.compat.ranx._errors import (
    RanxAssertionError,
    RanxEmptyInputError,
    RanxInputError,
    UnsupportedTestError,
    ranx_errors,
)
from ranklens.compat.ranx.data_structures.report import Report
from ranklens.compat.ranx.data_structures.run import RanxTies, Run, check_ties, ranklens_ties
from ranklens.compat.ranx.meta._common import (
    QrelsLike,
    RunLike,
    Scorer,
    check_queries,
    check_threads,
    longest,
    measures_of,
    metric_names,
    qrels_side,
    run_side,
)
from ranklens.data.run import Run as _Run

__all__ = ["check_stat_test", "compare", "significance", "two_samples"]

_STAT_TESTS = ("fisher", "student", "tukey")


def significance(
    names: Sequence[str],
    values: Mapping[str, Float64Array],
    stat_test: str,
    n_permutations: int,
    max_p: float,
    random_seed: int,
    metrics: Sequence[str],
) -> dict[frozenset[str], dict[str, dict[str, Any]]]:
    """ranx's comparisons: for each pair of runs and metric, ``{"p_value", "significant"}``
    (columns of ``values[name]`` follow ``metrics``). The t-test and Tukey's HSD are the
    scipy calls ranx makes (``ttest_rel``, ``tukey_hsd``), so their p-values are ranx's to
    the last bit; the randomization test is ranklens'.

    With a single query, as ranx: the t-test's p-value is NaN (scipy's), the randomization
    test's 1 (flipping the one difference leaves its size), Tukey's HSD is refused."""
    from ranklens.analysis.stats.randomization import randomization_test

    out: dict[frozenset[str], dict[str, dict[str, Any]]] = {}
    single = bool(names) and values[names[0]].shape[0] < 2
    if single and stat_test == "tukey":
        raise RanxInputError("Tukey's HSD needs at least two queries (ranx: scipy refuses one)")
    if stat_test == "tukey":
        if len(names) < 2:
            return out
        for j, metric in enumerate(metrics):
            table = np.column_stack([values[n][:, j] for n in names])
            p = _scipy_p("tukey", [table[:, k] for k in range(table.shape[1])])
            for a, name_a in enumerate(names):
                for b, name_b in enumerate(names):
                    p_ab = float(p[a, b])
                    entry = {"p_value": p_ab, "significant": bool(p_ab <= max_p)}
                    out.setdefault(frozenset((name_a, name_b)), {})[metric] = entry
        return out
    for a, name_a in enumerate(names):
        for name_b in names[a + 1 :]:
            diffs = values[name_a] - values[name_b]
            if single:
                p_values = np.full(len(metrics), np.nan if stat_test == "student" else 1.0)
            elif stat_test == "student":
                p_values = np.array(
                    [
                        1.0
                        if not np.any(diffs[:, j])
                        else float(
                            _scipy_p("student", [values[name_a][:, j], values[name_b][:, j]])
                        )
                        for j in range(len(metrics))
                    ]
                )
            else:
                p_values = randomization_test(diffs, n_permutations, random_seed).p_value
            out[frozenset((name_a, name_b))] = {
                m: {"p_value": float(p_values[j]), "significant": bool(p_values[j] <= max_p)}
                for j, m in enumerate(metrics)
            }
    return out


def _scipy_p(test: str, samples: Sequence[Float64Array]) -> Any:
    """The p-value(s) of scipy's ``ttest_rel`` (two-sided) or ``tukey_hsd`` on
    ``samples``, as ranx calls them (scipy's warnings on degenerate samples silenced: the
    values are the same)."""
    import importlib
    import warnings

    stats: Any = importlib.import_module("scipy.stats")  # untyped: scipy ships no stubs

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        if test == "student":
            return stats.ttest_rel(samples[0], samples[1], alternative="two-sided").pvalue
        return stats.tukey_hsd(*samples).pvalue


def two_samples(control: Any, treatment: Any) -> dict[str, Float64Array]:
    """Two paired samples (per-query values) as the one-column tables :func:`significance`
    reads, named ``control`` and ``treatment``."""
    return {
        "control": np.asarray(control, dtype=np.float64).reshape(-1, 1),
        "treatment": np.asarray(treatment, dtype=np.float64).reshape(-1, 1),
    }


def check_stat_test(stat_test: str) -> None:
    """ranx's tests; another is ranx's ``NotImplementedError``."""
    if stat_test not in _STAT_TESTS:
        raise UnsupportedTestError(
            f"stat_test must be one of {list(_STAT_TESTS)}, not {stat_test!r}"
        )


@ranx_errors
def compare(
    qrels: QrelsLike,
    runs: Sequence[RunLike],
    metrics: Iterable[str] | str,
    stat_test: str = "student",
    n_permutations: int = 1000,
    max_p: float = 0.01,
    random_seed: int = 42,
    threads: int = 0,
    rounding_digits: int = 3,
    show_percentages: bool = False,
    make_comparable: bool = False,
    *,
    ties: RanxTies = "ranx",
) -> Report:
    """ranx's ``compare``: evaluate ``runs`` and test every pair of them.

    Parameters
    ----------
    qrels, runs
        The qrels and a list of runs (named by their ``name``, else ``run_1``, ``run_2``...),
        in any form :func:`evaluate` takes but arrays.
    metrics
        ranx metric names (or ranklens names).
    stat_test
        ``"student"`` (paired t-test, default), ``"fisher"`` (paired randomization test
        with ``n_permutations`` sign flips seeded by ``random_seed``) or ``"tukey"``
        (Tukey's HSD, one-way, as :func:`scipy.stats.tukey_hsd`). The p-values are not
        corrected for multiple comparisons (ranx's); :func:`ranklens.compare` corrects them.
    max_p
        A difference is significant when its p-value is at most ``max_p``.
    threads
        Accepted for ranx's signature.
    rounding_digits, show_percentages
        How the report shows the means.
    make_comparable, ties
        As for :func:`evaluate`.

    Returns
    -------
    Report
    """
    names = metric_names(metrics)
    check_stat_test(stat_test)
    check_threads(threads)
    policy = check_ties(ties)
    if isinstance(runs, Run | _Run | Mapping | str) or len(runs) == 0:
        raise RanxAssertionError("compare needs a list of runs")
    if not 0 < max_p <= 1:
        raise OptionError(f"max_p must be in (0, 1], not {max_p!r}")
    qrels_table, qrels_order = qrels_side(qrels)
    if not qrels_order:
        raise RanxEmptyInputError("the qrels hold no query: there is nothing to compare")
    model_names: list[str] = []
    tables: list[_Run] = []
    for i, run in enumerate(runs):
        given = run.name if isinstance(run, Run) else None
        model = given if given is not None else f"run_{i + 1}"
        if model in model_names:
            raise OptionError(f"two runs are named {model!r}; give each run its own name")
        table, order = run_side(run, ranx_order=policy == "ranx")
        if not make_comparable:
            check_queries(qrels_order, order)
        model_names.append(model)
        tables.append(table)
    measures, column = measures_of(names, max(longest(table) for table in tables))
    scorer = Scorer(qrels_table, qrels_order, measures, ranklens_ties(policy))
    values = {
        model: scorer.values(table)[:, column]
        for model, table in zip(model_names, tables, strict=True)
    }
    results = {
        model: {m: float(np.mean(values[model][:, j])) for j, m in enumerate(names)}
        for model in model_names
    }
    comparisons = significance(
        model_names, values, stat_test, n_permutations, max_p, random_seed, names
    )
    win_tie_loss: dict[tuple[str, str], dict[str, dict[str, int]]] = {}
    for a in model_names:
        for b in model_names:
            if a != b:
                win_tie_loss[(a, b)] = {
                    m: {
                        "W": int(np.sum(values[a][:, j] > values[b][:, j])),
                        "T": int(np.sum(values[a][:, j] == values[b][:, j])),
                        "L": int(np.sum(values[a][:, j] < values[b][:, j])),
                    }
                    for j, m in enumerate(names)
                }
    return Report(
        model_names,
        results,
        comparisons,
        names,
        max_p,
        win_tie_loss,
        rounding_digits,
        show_percentages,
        stat_test,
    )
