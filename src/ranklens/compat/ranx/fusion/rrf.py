"""ranx's ``rrf`` (``ranx.fusion.rrf``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ranklens.compat.ranx._errors import ranx_errors
from ranklens.compat.ranx.data_structures.run import Run
from ranklens.compat.ranx.fusion._common import combine

__all__ = ["rrf"]

Runs = Sequence[Any]


@ranx_errors
def rrf(runs: Runs, k: int = 60, name: str = "rrf") -> Run:
    """Reciprocal rank fusion: ``sum_i 1 / (k + r_i)``."""
    return combine(runs, "rrf", name, k=k)
