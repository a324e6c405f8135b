"""ranx's ``normalize`` (``ranx.meta.normalize``)."""

from __future__ import annotations

from ranklens.compat.ranx._errors import ranx_errors
from ranklens.compat.ranx.data_structures.run import RanxTies, Run, check_ties
from ranklens.compat.ranx.meta._common import RunLike, run_side
from ranklens.compat.ranx.meta.fuse import norm_name, normalised_tables

__all__ = ["normalize"]


@ranx_errors
def normalize(run: RunLike, norm: str = "min-max", *, ties: RanxTies = "ranx") -> Run:
    """ranx's ``normalize``: ``run`` with its scores normalised per query (``min-max``,
    ``min-max-inverted``, ``max``, ``sum``, ``zmuv``, ``rank``); the documents stay in
    the run's order (``sorted`` is false, as in ranx: an evaluation sorts them first),
    except with ``min-max-inverted``, which ranx sorts."""
    table, queries = run_side(run, sort=False)
    chosen = norm_name(norm)
    policy = check_ties(ties)
    normalised = normalised_tables([table], chosen, "rank" if policy == "ranx" else policy)[0]
    name = run.name if isinstance(run, Run) else None
    out = Run(None, name)
    out._set_table(normalised, queries)
    # ranx sorts only the inverted run; the others are sorted when they are evaluated
    out.sorted = chosen == "inverted"
    return out
