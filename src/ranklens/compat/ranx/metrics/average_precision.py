"""ranx's ``average_precision`` (``ranx.metrics.average_precision``)."""

from __future__ import annotations

from ranklens.compat.ranx.metrics._arrays import ranx_metric

__all__ = ["average_precision"]

average_precision = ranx_metric(
    __name__,
    "average_precision",
    "map",
    """Average precision (ranx's ``map@k``): the mean of the precision at each
    relevant rank, over the relevant documents.""",
)
