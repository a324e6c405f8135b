"""ranx's ``f1`` (``ranx.metrics.f1``)."""

from __future__ import annotations

from ranklens.compat.ranx.metrics._arrays import ranx_metric

__all__ = ["f1"]

f1 = ranx_metric(
    __name__,
    "f1",
    "f1",
    """F1 (at k): the harmonic mean of precision and recall.""",
)
