"""ranx's ``rbc`` (``ranx.fusion.rbc``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ranklens.compat.ranx._errors import ranx_errors
from ranklens.compat.ranx.data_structures.run import Run
from ranklens.compat.ranx.fusion._common import combine

__all__ = ["rbc"]

Runs = Sequence[Any]


@ranx_errors
def rbc(runs: Runs, phi: float, name: str = "rbc") -> Run:
    """Rank-biased centroid: ``sum_i (1 - phi) * phi^(r_i - 1)``."""
    return combine(runs, "rbc", name, phi=phi)
