"""ranx's ``weighted_condorcet`` (``ranx.fusion.weighted_condorcet``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ranklens.compat.ranx._errors import ranx_errors
from ranklens.compat.ranx.data_structures.run import Run
from ranklens.compat.ranx.fusion._common import combine

__all__ = ["weighted_condorcet"]

Runs = Sequence[Any]


@ranx_errors
def weighted_condorcet(
    runs: Runs, weights: Sequence[float], name: str = "weighted_condorcet"
) -> Run:
    """Weighted CondorcetFuse: pairwise votes weighted by each run's weight."""
    return combine(runs, "w_condorcet", name, weights=weights)
