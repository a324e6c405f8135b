"""Average precision."""

from __future__ import annotations

import numpy as np

from ranklens._segments import segment_sum
from ranklens._types import Float64Array
from ranklens.align import Ranked
from ranklens.kernels._util import safe_divide


def average_precision(r: Ranked, rel: int, cutoff: int | None) -> Float64Array:
    """``AP@k = (1/R) * sum over relevant ranks i <= k of P@i`` (trec_eval ``map``, ``map_cut``).

    The sum runs in rank order; 0 when ``R = 0``.
    """
    relevant = r.relevant(rel)
    if cutoff is not None:
        relevant = relevant & (r.pos < cutoff)
    weights = np.zeros(r.rel.shape[0], dtype=np.float64)
    so_far = r.relevant_so_far(rel)
    np.divide(so_far, r.pos + 1, out=weights, where=relevant, dtype=np.float64)
    total = segment_sum(weights, r.ids, r.num_queries)
    return safe_divide(total, r.num_rel(rel))
