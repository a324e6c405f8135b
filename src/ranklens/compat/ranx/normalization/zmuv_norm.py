"""ranx's ``zmuv_norm`` (``ranx.normalization.zmuv_norm``)."""

from __future__ import annotations

from typing import Any

from ranklens.compat.ranx._errors import ranx_errors
from ranklens.compat.ranx.data_structures.run import Run
from ranklens.compat.ranx.meta.normalize import normalize

__all__ = ["zmuv_norm"]


@ranx_errors
def zmuv_norm(run: Any) -> Run:
    """``(s - mean) / std`` per query (zero mean, unit variance)."""
    return normalize(run, "zmuv")
