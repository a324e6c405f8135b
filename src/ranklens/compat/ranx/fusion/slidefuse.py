"""ranx's ``slidefuse`` and ``slidefuse_train`` (``ranx.fusion.slidefuse``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ranklens.base.types import Float64Array
from ranklens.compat.ranx._errors import ranx_errors
from ranklens.compat.ranx.data_structures.run import Run
from ranklens.compat.ranx.fusion._common import combine, trained

__all__ = ["slidefuse", "slidefuse_train"]

Runs = Sequence[Any]


@ranx_errors
def slidefuse(runs: Runs, probs: Sequence[Any], w: int, name: str = "slidefuse") -> Run:
    """SlideFuse: the sum of each run's probabilities averaged over the ranks ``r - w`` to
    ``r + w``."""
    return combine(runs, "slidefuse", name, probs=list(probs), w=w)


@ranx_errors
def slidefuse_train(qrels: Any, runs: Runs) -> list[Float64Array]:
    """Each run's probability of relevance at each rank (as :func:`posfuse_train`)."""
    return list(trained("slidefuse", qrels, runs))
