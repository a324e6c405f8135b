"""ranx's ``posfuse`` and ``posfuse_train`` (``ranx.fusion.posfuse``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ranklens.base.types import Float64Array
from ranklens.compat.ranx._errors import ranx_errors
from ranklens.compat.ranx.data_structures.run import Run
from ranklens.compat.ranx.fusion._common import combine, trained

__all__ = ["posfuse", "posfuse_train"]

Runs = Sequence[Any]


@ranx_errors
def posfuse(runs: Runs, probs: Sequence[Any], name: str = "posfuse") -> Run:
    """PosFuse: the sum of each run's probability of relevance at the document's rank."""
    return combine(runs, "posfuse", name, probs=list(probs))


@ranx_errors
def posfuse_train(qrels: Any, runs: Runs) -> list[Float64Array]:
    """Each run's probability of relevance at each rank, on ``qrels``."""
    return list(trained("posfuse", qrels, runs))
