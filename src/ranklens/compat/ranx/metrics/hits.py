"""ranx's ``hits`` (``ranx.metrics.hits``)."""

from __future__ import annotations

from ranklens.compat.ranx.metrics._arrays import ranx_metric

__all__ = ["hits"]

hits = ranx_metric(
    __name__,
    "hits",
    "hits",
    """Hits (at k): the number of relevant documents retrieved.""",
)
