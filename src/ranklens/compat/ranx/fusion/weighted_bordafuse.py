"""ranx's ``weighted_bordafuse`` (``ranx.fusion.weighted_bordafuse``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ranklens.compat.ranx._errors import ranx_errors
from ranklens.compat.ranx.data_structures.run import Run
from ranklens.compat.ranx.fusion._common import combine

__all__ = ["weighted_bordafuse"]

Runs = Sequence[Any]


@ranx_errors
def weighted_bordafuse(
    runs: Runs, weights: Sequence[float], name: str = "weighted_bordafuse"
) -> Run:
    """Weighted BordaFuse: Borda points times each run's weight."""
    return combine(runs, "w_bordafuse", name, weights=weights)
