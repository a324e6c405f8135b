"""Average precision."""

from __future__ import annotations

from ranklens._segments import segment_sum
from ranklens._types import Float64Array
from ranklens.align import Ranked
from ranklens.kernels._util import safe_divide


def average_precision(r: Ranked, rel: int, cutoff: int | None) -> Float64Array:
    """``AP@k = (1/R) * sum over relevant ranks i <= k of P@i`` (trec_eval ``map``, ``map_cut``).

    The sum runs in rank order; 0 when ``R = 0``.
    """
    ids, pos = r.hit_places(rel)
    number = r.hit_number(rel)
    rank = pos + 1
    if cutoff is not None:
        inside = rank <= cutoff
        ids, number, rank = ids[inside], number[inside], rank[inside]
    total = segment_sum(number / rank, ids, r.num_queries)
    return safe_divide(total, r.num_rel(rel))
