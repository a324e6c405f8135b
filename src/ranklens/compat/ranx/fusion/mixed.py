"""ranx's ``mixed`` (``ranx.fusion.mixed``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ranklens.compat.ranx._errors import ranx_errors
from ranklens.compat.ranx.data_structures.run import Run
from ranklens.compat.ranx.fusion._common import combine

__all__ = ["mixed"]

Runs = Sequence[Any]


@ranx_errors
def mixed(runs: Runs, weights: Sequence[float], name: str = "mixed") -> Run:
    """Mixed: ``sqrt(n) * sum_i weights[i] * s_i``, ``n`` the runs retrieving it."""
    return combine(runs, "mixed", name, weights=weights)
