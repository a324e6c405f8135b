"""ranx's ``mapfuse`` and ``mapfuse_train`` (``ranx.fusion.mapfuse``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ranklens.compat.ranx._errors import ranx_errors
from ranklens.compat.ranx.data_structures.run import Run
from ranklens.compat.ranx.fusion._common import combine, trained

__all__ = ["mapfuse", "mapfuse_train"]

Runs = Sequence[Any]


@ranx_errors
def mapfuse(runs: Runs, map_scores: Sequence[float], name: str = "mapfuse") -> Run:
    """MAPFuse: ``sum_i MAP_i / r_i``."""
    return combine(runs, "mapfuse", name, map_scores=list(map_scores))


@ranx_errors
def mapfuse_train(qrels: Any, runs: Runs) -> list[float]:
    """Each run's MAP on ``qrels``."""
    return [float(v) for v in trained("mapfuse", qrels, runs)]
