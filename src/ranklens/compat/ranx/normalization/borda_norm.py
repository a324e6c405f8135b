"""ranx's ``borda_norm`` (``ranx.normalization.borda_norm``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ranklens.compat.ranx._errors import ranx_errors
from ranklens.compat.ranx.data_structures.run import Run
from ranklens.compat.ranx.meta._common import run_side

__all__ = ["borda_norm"]


@ranx_errors
def borda_norm(runs: Sequence[Any]) -> list[Run]:
    """Borda points over the candidates of all ``runs`` (``(c - r + 1) / c``; a run without
    a candidate gives it the mean of the points left), one run per input."""
    from ranklens.compat.ranx.meta.fuse import normalised_tables

    sides = [run_side(run, sort=False) for run in runs]
    out = []
    for run, (_, queries), normalised in zip(
        runs, sides, normalised_tables([table for table, _ in sides], "borda", "rank"), strict=True
    ):
        fresh = Run(None, run.name if isinstance(run, Run) else None)
        fresh._set_table(normalised, queries)
        fresh.sorted = False
        out.append(fresh)
    return out
