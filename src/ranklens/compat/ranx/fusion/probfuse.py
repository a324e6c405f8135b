"""ranx's ``probfuse`` and ``probfuse_train`` (``ranx.fusion.probfuse``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ranklens.base.types import Float64Array
from ranklens.compat.ranx._errors import ranx_errors
from ranklens.compat.ranx.data_structures.run import Run
from ranklens.compat.ranx.fusion._common import combine, trained

__all__ = ["probfuse", "probfuse_train"]

Runs = Sequence[Any]


@ranx_errors
def probfuse(runs: Runs, probs: Sequence[Any], name: str = "probfuse") -> Run:
    """ProbFuse: the sum of each run's probability of relevance of the document's segment
    over the segment's number."""
    return combine(runs, "probfuse", name, probs=list(probs))


@ranx_errors
def probfuse_train(qrels: Any, runs: Runs, n_segments: int) -> list[Float64Array]:
    """Each run's probability of relevance in each of ``n_segments`` segments, on ``qrels``."""
    return list(trained("probfuse", qrels, runs, n_segments=n_segments))
