"""ranx's ``fuse`` (``ranx.meta.fuse``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ranklens.base.errors import OptionError
from ranklens.base.types import TiePolicy
from ranklens.compat.ranx._errors import (
    QueryMismatchError,
    RanxAssertionError,
    ranx_errors,
)
from ranklens.compat.ranx.data_structures.run import Run, check_ties
from ranklens.compat.ranx.meta._common import RunLike, run_side
from ranklens.data.run import Run as _Run

__all__ = ["fuse", "fused_run", "negated", "norm_name"]

_NORMS = {
    "min-max": "min-max",
    "min_max": "min-max",
    "min-max-inverted": "inverted",
    "min_max_inverted": "inverted",
    "max": "max",
    "sum": "sum",
    "zmuv": "zmuv",
    "rank": "rank",
    "borda": "borda",
}


def norm_name(norm: str | None) -> str:
    """ranklens' name of a ranx normalisation (``None``: the raw scores); ``"inverted"`` is
    ranx's ``min-max-inverted``."""
    if norm is None:
        return "none"
    if not isinstance(norm, str) or norm not in _NORMS:
        raise OptionError(
            f"Normalization method {norm!r} not supported: use one of {sorted(_NORMS)} or None"
        )
    return _NORMS[norm]


def negated(run: _Run) -> _Run:
    """``run`` with every score negated (min-max of the negated scores is ranx's
    ``min-max-inverted``: ``(max - s) / (max - min)``)."""
    import dataclasses

    return dataclasses.replace(run, scores=-run.scores)


def fused_run(
    runs: Sequence[RunLike],
    method: str,
    norm: str | None,
    params: Mapping[str, Any],
    name: str,
    ties: TiePolicy,
) -> Run:
    """Fuse ``runs`` (any run form) with ranklens; the queries of every run are kept, those
    without documents too."""
    from ranklens.fusion import fuse as fuse_runs

    tables: list[_Run] = []
    queries: set[str] = set()
    for run in runs:
        table, order = run_side(run)
        tables.append(table)
        queries.update(order)
    chosen = norm_name(norm)
    if chosen == "inverted":
        tables, chosen = [negated(t) for t in tables], "min-max"
    options = dict(params)
    weights = options.pop("weights", None)
    fused = fuse_runs(
        tables,
        method,
        norm=chosen,
        weights=None if weights is None else list(weights),
        params=options,
        ties=ties,
        name=name,
    )
    out = Run(fused, name)
    out._set_table(fused, queries)
    return out


_DEFAULT_NAMES = {"wsum": "weighted_sum", "w_bordafuse": "weighted_bordafuse"}


@ranx_errors
def fuse(
    runs: Sequence[RunLike],
    norm: str | None = "min-max",
    method: str = "wsum",
    params: Mapping[str, Any] | None = None,
    *,
    ties: TiePolicy = "trec_eval",
) -> Run:
    """ranx's ``fuse``: normalise each run's scores, then combine them with ``method``.

    Parameters
    ----------
    runs
        Two or more runs with the same queries (ranx's rule).
    norm
        ranx's normalisations: ``"min-max"`` (default), ``"min-max-inverted"``, ``"max"``,
        ``"sum"``, ``"zmuv"``, ``"rank"``, ``"borda"``, or ``None``.
    method
        ranx's method names: ``"wsum"`` (default), ``"rrf"``, ``"sum"``, ``"mnz"``,
        ``"max"``, ``"min"``, ``"med"``, ``"anz"``, ``"gmnz"``, ``"isr"``, ``"log_isr"``,
        ``"logn_isr"``, ``"bordafuse"``, ``"w_bordafuse"``, ``"condorcet"``,
        ``"w_condorcet"``, ``"mixed"``, ``"wmnz"``, ``"rbc"``, ``"posfuse"``,
        ``"probfuse"``, ``"segfuse"``, ``"slidefuse"``, ``"bayesfuse"``, ``"mapfuse"``.
    params
        The method's parameters as ranx takes them (``{"weights": [...]}``, ``{"k": 60}``,
        ``{"phi": 0.8}``, ``{"probs": ...}``, ...); ``wsum`` without weights weighs the runs
        equally; ``"name"`` names the fused run.
    ties
        How equal scores are ranked before rank-based methods read ranks.

    Returns
    -------
    Run
        The fused run, named as ranx names it (``weighted_sum``, ``rrf``, ``comb_sum``...).

    Raises
    ------
    RanxAssertionError
        Fewer than two runs (an ``AssertionError``, as ranx's).
    QueryMismatchError
        Runs with different query ids (an ``AssertionError``, as ranx's).
    """
    from ranklens.fusion import get_method

    policy = check_ties(ties)
    if isinstance(runs, Run | _Run | Mapping | str) or len(runs) < 2:
        raise RanxAssertionError(
            "fuse needs a list of at least two runs (ranx: 'Only one run provided')"
        )
    orders = [run_side(run)[1] for run in runs]
    for i, order in enumerate(orders[1:], start=1):
        if set(order) != set(orders[0]):
            raise QueryMismatchError(
                f"runs 0 and {i} have different query ids; ranx fuses runs that have the same"
            )
    options = dict(params or {})
    spec = get_method(method)
    name = options.pop("name", None)
    if name is None:
        name = _DEFAULT_NAMES.get(spec.name, spec.name)
    return fused_run(runs, method, norm, options, name, policy)
