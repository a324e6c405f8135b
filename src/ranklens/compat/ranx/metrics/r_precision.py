"""ranx's ``r_precision`` (``ranx.metrics.r_precision``)."""

from __future__ import annotations

from ranklens.compat.ranx.metrics._arrays import ranx_metric

__all__ = ["r_precision"]

r_precision = ranx_metric(
    __name__,
    "r_precision",
    "r-precision",
    """R-precision: precision at rank R, R the number of relevant documents
    (``k`` is not read, as in ranx).""",
    reads_k=False,
)
