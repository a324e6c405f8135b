"""ranx's ``recall`` (``ranx.metrics.recall``)."""

from __future__ import annotations

from ranklens.compat.ranx.metrics._arrays import ranx_metric

__all__ = ["recall"]

recall = ranx_metric(
    __name__,
    "recall",
    "recall",
    """Recall (at k): relevant retrieved documents over the relevant ones.""",
)
