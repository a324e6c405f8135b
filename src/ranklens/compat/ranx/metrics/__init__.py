"""ranx's metric functions (``ranx.metrics``): per-query values from arrays.

Each takes ``qrels`` and ``run`` in ranx's array form (per query a ``(n, 2)`` array of
``[doc_id, relevance]`` rows and of ``[doc_id, score]`` rows in ranked order; a 3-d array,
a list or a ``numba.typed.List``, e.g. ``Qrels.to_typed_list()``), a cut-off ``k`` (0: every
document) and a relevance level ``rel_lvl``, and returns one value per query. The values
are ranklens' measures (:mod:`ranklens.measures`), ranx's wherever ranx's kernels follow
the measure's definition (docs/coming-from.md lists where they do not).

>>> import numpy as np
>>> from ranklens.compat.ranx import metrics
>>> qrels = [np.array([[1, 1], [4, 1], [5, 1], [6, 1]])]
>>> run = [np.array([[1, 0.9], [2, 0.8], [3, 0.7], [4, 0.6], [5, 0.5]])]
>>> metrics.hits(qrels, run, 5).tolist(), metrics.precision(qrels, run, 2).tolist()
([3.0], [0.5])
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ranklens.base.errors import MeasureError
from ranklens.compat.ranx.metrics.average_precision import average_precision
from ranklens.compat.ranx.metrics.bpref import bpref
from ranklens.compat.ranx.metrics.f1 import f1
from ranklens.compat.ranx.metrics.get_hit_lists import get_hit_lists
from ranklens.compat.ranx.metrics.hit_rate import hit_rate
from ranklens.compat.ranx.metrics.hits import hits
from ranklens.compat.ranx.metrics.interpolated_precision_at_recall import (
    interpolated_precision_at_recall,
)
from ranklens.compat.ranx.metrics.ndcg import dcg, dcg_burges, ndcg, ndcg_burges
from ranklens.compat.ranx.metrics.precision import precision
from ranklens.compat.ranx.metrics.r_precision import r_precision
from ranklens.compat.ranx.metrics.rank_biased_precision import rank_biased_precision
from ranklens.compat.ranx.metrics.recall import recall
from ranklens.compat.ranx.metrics.reciprocal_rank import reciprocal_rank

__all__ = [
    "average_precision",
    "bpref",
    "dcg",
    "dcg_burges",
    "f1",
    "get_hit_lists",
    "hit_rate",
    "hits",
    "interpolated_precision_at_recall",
    "metric_switch",
    "ndcg",
    "ndcg_burges",
    "precision",
    "r_precision",
    "rank_biased_precision",
    "recall",
    "reciprocal_rank",
]

_SWITCH: dict[str, Callable[..., Any]] = {
    "hits": hits,
    "hit_rate": hit_rate,
    "precision": precision,
    "recall": recall,
    "f1": f1,
    "r-precision": r_precision,
    "mrr": reciprocal_rank,
    "map": average_precision,
    "dcg": dcg,
    "dcg_burges": dcg_burges,
    "ndcg": ndcg,
    "ndcg_burges": ndcg_burges,
    "bpref": bpref,
    "rbp": rank_biased_precision,
}


def metric_switch(metric: str) -> Callable[..., Any]:
    """The function of ranx's metric name ``metric`` (without cut-off or level).

    Raises
    ------
    MeasureError
        A name ranx does not have (a ``ValueError``, as ranx's).
    """
    if metric not in _SWITCH:
        raise MeasureError(
            f"Metric {metric} not supported. Supported metrics are {', '.join(_SWITCH)}."
        )
    return _SWITCH[metric]
