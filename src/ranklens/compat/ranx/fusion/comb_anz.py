"""ranx's ``comb_anz`` (``ranx.fusion.comb_anz``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ranklens.compat.ranx._errors import ranx_errors
from ranklens.compat.ranx.data_structures.run import Run
from ranklens.compat.ranx.fusion._common import combine

__all__ = ["comb_anz"]

Runs = Sequence[Any]


@ranx_errors
def comb_anz(runs: Runs, name: str = "comb_anz") -> Run:
    """CombANZ: the sum of a document's scores over the number of runs retrieving it."""
    return combine(runs, "comb_anz", name)
