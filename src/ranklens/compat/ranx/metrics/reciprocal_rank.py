"""ranx's ``reciprocal_rank`` (``ranx.metrics.reciprocal_rank``)."""

from __future__ import annotations

from ranklens.compat.ranx.metrics._arrays import ranx_metric

__all__ = ["reciprocal_rank"]

reciprocal_rank = ranx_metric(
    __name__,
    "reciprocal_rank",
    "mrr",
    """Reciprocal rank (at k): 1 over the rank of the first relevant document.""",
)
