"""ranx's ``rank_norm`` (``ranx.normalization.rank_norm``)."""

from __future__ import annotations

from typing import Any

from ranklens.compat.ranx._errors import ranx_errors
from ranklens.compat.ranx.data_structures.run import Run
from ranklens.compat.ranx.meta.normalize import normalize

__all__ = ["rank_norm"]


@ranx_errors
def rank_norm(run: Any) -> Run:
    """``1 - (r - 1) / n`` per query, ``r`` the rank and ``n`` the documents."""
    return normalize(run, "rank")
