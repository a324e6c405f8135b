"""ranx's ``comb_min`` (``ranx.fusion.comb_min``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ranklens.compat.ranx._errors import ranx_errors
from ranklens.compat.ranx.data_structures.run import Run
from ranklens.compat.ranx.fusion._common import combine

__all__ = ["comb_min"]

Runs = Sequence[Any]


@ranx_errors
def comb_min(runs: Runs, name: str = "comb_min") -> Run:
    """CombMIN: a document's lowest score among the runs retrieving it."""
    return combine(runs, "comb_min", name)
