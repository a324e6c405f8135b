"""ranx's ``optimize_fusion`` (``ranx.meta.optimize_fusion``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ranklens.compat.ranx._errors import QueryMismatchError, RanxAssertionError, ranx_errors
from ranklens.compat.ranx.data_structures.optimization_report import OptimizationReport
from ranklens.compat.ranx.data_structures.run import RanxTies, Run, check_ties
from ranklens.compat.ranx.meta._common import RunLike, qrels_side, run_side
from ranklens.compat.ranx.meta.fuse import norm_name, normalised_tables
from ranklens.data.run import Run as _Run

__all__ = ["optimize_fusion"]


def _normalised(
    runs: Sequence[RunLike],
    sides: Sequence[tuple[_Run, Sequence[str]]],
    norm: str | None,
    ties: RanxTies,
) -> list[Run]:
    """``runs`` (read as ``sides``, ``run_side(run, sort=False)`` of each) normalised as
    ranx's ``optimize_fusion`` normalises them (each run alone, all of them together for
    ``borda``), in ranx's dict order."""
    chosen = norm_name(norm)
    tables = normalised_tables(
        [table for table, _ in sides], chosen, "rank" if ties == "ranx" else ties
    )
    out = []
    for run, table, (_, queries) in zip(runs, tables, sides, strict=True):
        normalised = Run(None, run.name if isinstance(run, Run) else None)
        normalised._set_table(table, queries)
        normalised.sorted = chosen == "inverted"
        out.append(normalised)
    return out


@ranx_errors
def optimize_fusion(
    qrels: Any,
    runs: Sequence[RunLike],
    norm: str | None = "min-max",
    method: str = "wsum",
    metric: str = "ndcg",
    return_optimization_report: bool = False,
    rounding_digits: int = 3,
    show_percentages: bool = False,
    *,
    ties: RanxTies = "ranx",
    **kwargs: Any,
) -> Any:
    """ranx's ``optimize_fusion``: the parameters of ``method`` that fuse the normalised
    ``runs`` best by ``metric`` on ``qrels`` (a grid search), or that its trainer
    estimates (``posfuse``, ``segfuse``, ``bayesfuse``, ``mapfuse``).

    Parameters
    ----------
    qrels, runs
        The judgments and two or more runs, all with the same query ids (ranx's rule).
    norm
        ranx's normalisation applied first (see :func:`~ranklens.compat.ranx.fuse`).
    method
        ``"wsum"`` (default), ``"wmnz"``, ``"mixed"``, ``"w_bordafuse"``, ``"w_condorcet"``
        (weights on ranx's grid of ``step=0.1``), ``"rbc"`` (``phi``), ``"rrf"`` (``k``),
        ``"gmnz"`` (``gamma``), ``"logn_isr"`` (``sigma``), ``"probfuse"`` (the number of
        segments), ``"slidefuse"`` (``w``); ``"posfuse"``, ``"segfuse"``, ``"bayesfuse"``,
        ``"mapfuse"`` are trained.
    metric
        A ranx metric name, the mean to maximise.
    return_optimization_report
        Also return an :class:`OptimizationReport` of every configuration's score
        (methods with a grid only).
    rounding_digits, show_percentages
        How the report prints scores.
    ties
        ``"ranx"`` (default): ties ranked as ranx ranks them; or a ranklens policy.
    **kwargs
        The grid, as ranx's optimisers take it: ``step``, ``min_k`` / ``max_k``,
        ``min_phi`` / ``max_phi``, ``min_n_segments`` / ``max_n_segments``, ``min_w`` /
        ``max_w``, ... and ``show_progress`` (accepted, no bar is shown).

    Returns
    -------
    dict or (dict, OptimizationReport)
        The best parameters (``{"weights": (...)}``, ``{"phi": 0.5}``, ...): among equal
        scores the last configuration tried, as ranx keeps it.

    Raises
    ------
    RanxAssertionError
        Fewer than two runs (an ``AssertionError``, as ranx's).
    QueryMismatchError
        Runs or qrels with different query ids (an ``AssertionError``, as ranx's).
    OptionError
        A method ranx does not optimise, or a report asked of a trained method (a
        ``ValueError``, as ranx's).

    Examples
    --------
    >>> from ranklens.compat.ranx import Qrels, Run, optimize_fusion
    >>> qrels = Qrels({"q": {"d1": 1}})
    >>> a, b = Run({"q": {"d1": 0.2, "d2": 0.9}}), Run({"q": {"d1": 0.8, "d2": 0.1}})
    >>> optimize_fusion(qrels, [a, b], method="rrf", metric="mrr", min_k=10, max_k=30)
    {'k': 30}
    """
    from ranklens.compat.ranx.fusion_optimization import (
        SEARCHED,
        has_hyperparams,
        optimization_switch,
    )

    policy = check_ties(ties)
    if method in SEARCHED:
        kwargs = {**kwargs, "metric": metric, "ties": policy}
        if return_optimization_report:
            kwargs["return_optimization_report"] = True
    if isinstance(runs, Run | str) or not isinstance(runs, Sequence) or len(runs) < 2:
        raise RanxAssertionError("optimize_fusion needs a list of at least two runs")
    sides = [run_side(run, sort=False) for run in runs]
    queries = [set(order) for _, order in sides]
    for i, found in enumerate(queries[1:], start=1):
        if found != queries[0]:
            raise QueryMismatchError(f"runs 0 and {i} have different query ids")
    if queries[0] != set(qrels_side(qrels)[1]):
        raise QueryMismatchError("the runs and the qrels have different query ids")
    normalised = _normalised(runs, sides, norm, policy)
    optimize = optimization_switch(method)
    if return_optimization_report and has_hyperparams(method):
        best, scores = optimize(qrels, normalised, **kwargs)
        report = OptimizationReport(
            method,
            list(scores),
            list(scores.values()),
            metric,
            rounding_digits,
            show_percentages,
        )
        return best, report
    return optimize(qrels, normalised, **kwargs)
