"""ranx's DCG family (``ranx.metrics.ndcg``): ``dcg``, ``ndcg``, ``dcg_burges``,
``ndcg_burges``. A grade below ``rel_lvl`` gains nothing (ranx's ``-lN``)."""

from __future__ import annotations

from ranklens.compat.ranx.metrics._arrays import ranx_metric

__all__ = ["dcg", "dcg_burges", "ndcg", "ndcg_burges"]

_GAINS_FROM = "Grades below it gain nothing."

dcg = ranx_metric(
    __name__,
    "dcg",
    "dcg",
    "DCG (Järvelin and Kekäläinen): ``sum_{i <= k} rel_i / log2(i + 1)``.",
    rel_lvl_doc=_GAINS_FROM,
)
ndcg = ranx_metric(
    __name__,
    "ndcg",
    "ndcg",
    """nDCG: DCG over the DCG of the ideal ranking (0 when that is 0). The ideal ranking
    orders the judgments by relevance (ranx reads a qrels array's rows in their order:
    the same when they are sorted, as ranx's own conversion sorts them).""",
    rel_lvl_doc=_GAINS_FROM,
)
dcg_burges = ranx_metric(
    __name__,
    "dcg_burges",
    "dcg_burges",
    "DCG with Burges' gain: ``sum_{i <= k} (2^rel_i - 1) / log2(i + 1)``.",
    rel_lvl_doc=_GAINS_FROM,
)
ndcg_burges = ranx_metric(
    __name__,
    "ndcg_burges",
    "ndcg_burges",
    "nDCG with Burges' gain ``2^rel - 1``.",
    rel_lvl_doc=_GAINS_FROM,
)
