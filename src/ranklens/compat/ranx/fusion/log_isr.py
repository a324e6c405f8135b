"""ranx's ``log_isr`` (``ranx.fusion.log_isr``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ranklens.compat.ranx._errors import ranx_errors
from ranklens.compat.ranx.data_structures.run import Run
from ranklens.compat.ranx.fusion._common import combine

__all__ = ["log_isr"]

Runs = Sequence[Any]


@ranx_errors
def log_isr(runs: Runs, name: str = "log_isr") -> Run:
    """log_ISR: ``log(n) * sum_i 1 / r_i^2``."""
    return combine(runs, "log_isr", name)
