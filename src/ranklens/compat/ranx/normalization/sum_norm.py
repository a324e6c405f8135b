"""ranx's ``sum_norm`` (``ranx.normalization.sum_norm``)."""

from __future__ import annotations

from typing import Any

from ranklens.compat.ranx._errors import ranx_errors
from ranklens.compat.ranx.data_structures.run import Run
from ranklens.compat.ranx.meta.normalize import normalize

__all__ = ["sum_norm"]


@ranx_errors
def sum_norm(run: Any) -> Run:
    """``(s - min) / sum(s - min)`` per query."""
    return normalize(run, "sum")
