"""ranx's ``comb_sum`` (``ranx.fusion.comb_sum``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ranklens.compat.ranx._errors import ranx_errors
from ranklens.compat.ranx.data_structures.run import Run
from ranklens.compat.ranx.fusion._common import combine

__all__ = ["comb_sum"]

Runs = Sequence[Any]


@ranx_errors
def comb_sum(runs: Runs, name: str = "comb_sum") -> Run:
    """CombSUM: the sum of a document's scores."""
    return combine(runs, "comb_sum", name)
