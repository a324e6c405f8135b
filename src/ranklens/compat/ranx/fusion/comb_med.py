"""ranx's ``comb_med`` (``ranx.fusion.comb_med``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ranklens.compat.ranx._errors import ranx_errors
from ranklens.compat.ranx.data_structures.run import Run
from ranklens.compat.ranx.fusion._common import combine

__all__ = ["comb_med"]

Runs = Sequence[Any]


@ranx_errors
def comb_med(runs: Runs, name: str = "comb_med") -> Run:
    """CombMED: the median of a document's scores among the runs retrieving it."""
    return combine(runs, "comb_med", name)
