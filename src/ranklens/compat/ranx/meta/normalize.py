"""ranx's ``normalize`` (``ranx.meta.normalize``)."""

from __future__ import annotations

from ranklens.base.types import TiePolicy
from ranklens.compat.ranx._errors import ranx_errors
from ranklens.compat.ranx.data_structures.run import Run, check_ties
from ranklens.compat.ranx.meta._common import RunLike, run_side
from ranklens.compat.ranx.meta.fuse import negated, norm_name

__all__ = ["normalize"]


@ranx_errors
def normalize(run: RunLike, norm: str = "min-max", *, ties: TiePolicy = "trec_eval") -> Run:
    """ranx's ``normalize``: ``run`` with its scores normalised per query (``min-max``,
    ``min-max-inverted``, ``max``, ``sum``, ``zmuv``, ``rank``)."""
    from ranklens.fusion import normalize as normalize_runs

    table, queries = run_side(run)
    chosen = norm_name(norm)
    if chosen == "inverted":
        table, chosen = negated(table), "min-max"
    normalised = normalize_runs([table], chosen, ties=check_ties(ties))[0]
    name = run.name if isinstance(run, Run) else None
    out = Run(normalised, name)
    out._set_table(normalised, queries)
    return out
