"""ranx's ``bordafuse`` (``ranx.fusion.bordafuse``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ranklens.compat.ranx._errors import ranx_errors
from ranklens.compat.ranx.data_structures.run import Run
from ranklens.compat.ranx.fusion._common import combine

__all__ = ["bordafuse"]

Runs = Sequence[Any]


@ranx_errors
def bordafuse(runs: Runs, name: str = "bordafuse") -> Run:
    """BordaFuse: Borda points ``c - r + 1`` summed (``c`` the candidates of the query); a
    run without the document gives it the mean of the points left."""
    return combine(runs, "bordafuse", name)
