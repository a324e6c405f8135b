"""ranx's ``comb_max`` (``ranx.fusion.comb_max``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ranklens.compat.ranx._errors import ranx_errors
from ranklens.compat.ranx.data_structures.run import Run
from ranklens.compat.ranx.fusion._common import combine

__all__ = ["comb_max"]

Runs = Sequence[Any]


@ranx_errors
def comb_max(runs: Runs, name: str = "comb_max") -> Run:
    """CombMAX: a document's highest score."""
    return combine(runs, "comb_max", name)
