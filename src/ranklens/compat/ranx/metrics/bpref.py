"""ranx's ``bpref`` (``ranx.metrics.bpref``)."""

from __future__ import annotations

from ranklens.compat.ranx.metrics._arrays import ranx_metric

__all__ = ["bpref"]

bpref = ranx_metric(
    __name__,
    "bpref",
    "bpref",
    """Bpref (trec_eval's): how often judged relevant documents precede judged
    non-relevant ones (``k`` is not read, as in ranx).""",
    reads_k=False,
)
