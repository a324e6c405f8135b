"""ranx's ``hit_rate`` (``ranx.metrics.hit_rate``)."""

from __future__ import annotations

from ranklens.compat.ranx.metrics._arrays import ranx_metric

__all__ = ["hit_rate"]

hit_rate = ranx_metric(
    __name__,
    "hit_rate",
    "hit_rate",
    """Hit rate (at k): 1 if a relevant document is retrieved, else 0.""",
)
