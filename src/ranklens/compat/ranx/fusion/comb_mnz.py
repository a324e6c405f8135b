"""ranx's ``comb_mnz`` (``ranx.fusion.comb_mnz``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ranklens.compat.ranx._errors import ranx_errors
from ranklens.compat.ranx.data_structures.run import Run
from ranklens.compat.ranx.fusion._common import combine

__all__ = ["comb_mnz"]

Runs = Sequence[Any]


@ranx_errors
def comb_mnz(runs: Runs, name: str = "comb_mnz") -> Run:
    """CombMNZ: the sum of a document's scores times the number of runs retrieving it."""
    return combine(runs, "comb_mnz", name)
