"""ranx's ``wmnz`` (``ranx.fusion.wmnz``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ranklens.compat.ranx._errors import ranx_errors
from ranklens.compat.ranx.data_structures.run import Run
from ranklens.compat.ranx.fusion._common import combine

__all__ = ["wmnz"]

Runs = Sequence[Any]


@ranx_errors
def wmnz(runs: Runs, weights: Sequence[float], name: str = "wmnz") -> Run:
    """Weighted MNZ: the sum of the weights of the runs retrieving the document times the
    sum of its scores."""
    return combine(runs, "wmnz", name, weights=weights)
