"""ranx's ``comb_gmnz`` (``ranx.fusion.comb_gmnz``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ranklens.compat.ranx._errors import ranx_errors
from ranklens.compat.ranx.data_structures.run import Run
from ranklens.compat.ranx.fusion._common import combine

__all__ = ["comb_gmnz"]

Runs = Sequence[Any]


@ranx_errors
def comb_gmnz(runs: Runs, gamma: float, name: str = "comb_gmnz") -> Run:
    """CombGMNZ: the sum of a document's scores times ``n ** gamma``, ``n`` the runs
    retrieving it."""
    return combine(runs, "comb_gmnz", name, gamma=gamma)
