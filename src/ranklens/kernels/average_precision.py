"""Average precision."""

from __future__ import annotations

import numpy as np

from ranklens.base.errors import MeasureError
from ranklens.base.segments import segment_count, segment_sum
from ranklens.base.types import Float64Array
from ranklens.kernels._util import safe_divide
from ranklens.ranking.align import Ranked

AP_NORMS = ("R", "min", "ret")
"""AP@k denominators: all relevant documents (trec_eval), min(R, k) (the recommender
convention: Spark, RecBole) and the relevant documents retrieved in the top k."""


def average_precision(r: Ranked, rel: int, cutoff: int | None, norm: str = "R") -> Float64Array:
    """``AP@k = (1/N) * sum over relevant ranks i <= k of P@i``.

    The sum runs in rank order. ``N`` by ``norm``: ``"R"``, the relevant documents in the
    qrels (trec_eval ``map``, ``map_cut``); ``"min"``, ``min(R, k)`` (``min(R, n)`` without
    a cutoff, n retrieved); ``"ret"``, the relevant documents retrieved in the top k. 0
    when ``N = 0``.
    """
    ids, pos = r.hit_places(rel)
    number = r.hit_number(rel)
    rank = pos + 1
    if cutoff is not None:
        inside = rank <= cutoff
        ids, number, rank = ids[inside], number[inside], rank[inside]
    total = segment_sum(number / rank, ids, r.num_queries)
    if norm == "R":
        return safe_divide(total, r.num_rel(rel))
    if norm == "min":
        return safe_divide(
            total, np.minimum(r.num_rel(rel), r.num_ret if cutoff is None else cutoff)
        )
    if norm == "ret":
        return safe_divide(total, segment_count(ids, r.num_queries))
    raise MeasureError(f"AP norm must be one of {list(AP_NORMS)}, got {norm!r}")
