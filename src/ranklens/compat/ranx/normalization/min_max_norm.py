"""ranx's ``min_max_norm`` (``ranx.normalization.min_max_norm``)."""

from __future__ import annotations

from typing import Any

from ranklens.compat.ranx._errors import ranx_errors
from ranklens.compat.ranx.data_structures.run import Run
from ranklens.compat.ranx.meta.normalize import normalize

__all__ = ["min_max_norm"]


@ranx_errors
def min_max_norm(run: Any, invert: bool = False) -> Run:
    """``(s - min) / (max - min)`` per query; ``invert``: ``(max - s) / (max - min)``."""
    return normalize(run, "min-max-inverted" if invert else "min-max")
