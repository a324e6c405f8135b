"""ranx's ``logn_isr`` (``ranx.fusion.logn_isr``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ranklens.compat.ranx._errors import ranx_errors
from ranklens.compat.ranx.data_structures.run import Run
from ranklens.compat.ranx.fusion._common import combine

__all__ = ["logn_isr"]

Runs = Sequence[Any]


@ranx_errors
def logn_isr(runs: Runs, sigma: float = 0.01, name: str = "logn_isr") -> Run:
    """logn_ISR: ``log(n + sigma) * sum_i 1 / r_i^2``."""
    return combine(runs, "logn_isr", name, sigma=sigma)
