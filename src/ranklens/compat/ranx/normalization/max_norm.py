"""ranx's ``max_norm`` (``ranx.normalization.max_norm``)."""

from __future__ import annotations

from typing import Any

from ranklens.compat.ranx._errors import ranx_errors
from ranklens.compat.ranx.data_structures.run import Run
from ranklens.compat.ranx.meta.normalize import normalize

__all__ = ["max_norm"]


@ranx_errors
def max_norm(run: Any) -> Run:
    """``s / max`` per query."""
    return normalize(run, "max")
