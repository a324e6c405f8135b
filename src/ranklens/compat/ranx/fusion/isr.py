"""ranx's ``isr`` (``ranx.fusion.isr``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ranklens.compat.ranx._errors import ranx_errors
from ranklens.compat.ranx.data_structures.run import Run
from ranklens.compat.ranx.fusion._common import combine

__all__ = ["isr"]

Runs = Sequence[Any]


@ranx_errors
def isr(runs: Runs, name: str = "isr") -> Run:
    """ISR: ``n * sum_i 1 / r_i^2``."""
    return combine(runs, "isr", name)
