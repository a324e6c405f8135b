"""ranx's ``precision`` (``ranx.metrics.precision``)."""

from __future__ import annotations

from ranklens.compat.ranx.metrics._arrays import ranx_metric

__all__ = ["precision"]

precision = ranx_metric(
    __name__,
    "precision",
    "precision",
    """Precision (at k): relevant retrieved documents over ``k`` (over the number
    retrieved for ``k = 0``).""",
)
