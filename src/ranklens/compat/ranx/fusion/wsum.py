"""ranx's ``wsum`` (``ranx.fusion.wsum``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ranklens.compat.ranx._errors import ranx_errors
from ranklens.compat.ranx.data_structures.run import Run
from ranklens.compat.ranx.fusion._common import combine

__all__ = ["wsum"]

Runs = Sequence[Any]


@ranx_errors
def wsum(runs: Runs, weights: Sequence[float], name: str = "weighted_sum") -> Run:
    """Weighted sum: ``sum_i weights[i] * s_i``."""
    return combine(runs, "wsum", name, weights=weights)
