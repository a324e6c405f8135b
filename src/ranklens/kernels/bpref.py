"""Binary preference (bpref)."""

from __future__ import annotations

import numpy as np

from ranklens._segments import inclusive_count, segment_sum
from ranklens._types import Float64Array
from ranklens.align import Ranked
from ranklens.kernels._util import safe_divide


def bpref(r: Ranked, rel: int) -> Float64Array:
    """``bpref = (1/R) * sum over relevant retrieved d of (1 - min(n_d, R) / min(N, R))``.

    ``n_d`` is the number of judged non-relevant documents ranked above ``d`` and ``N`` the
    number of judged non-relevant documents of the query (retrieved or not); unjudged
    documents are skipped (trec_eval 8+ ``bpref``). 0 when ``R = 0``.
    """
    nonrel = r.judged & (r.rel < rel)
    nonrel_above = inclusive_count(nonrel, r.offsets, r.ids)
    num_rel = r.num_rel(rel)
    num_nonrel = r.levels[:, : max(min(rel, r.levels.shape[1]), 0)].sum(axis=1)
    relevant = r.relevant(rel)
    q = r.ids
    cap = np.minimum(num_nonrel, num_rel)[q].astype(np.float64)
    penalty = np.zeros(r.rel.shape[0], dtype=np.float64)
    seen = relevant & (nonrel_above > 0)
    np.divide(np.minimum(nonrel_above, num_rel[q]), cap, out=penalty, where=seen, dtype=np.float64)
    weights = np.where(relevant, np.where(seen, 1.0 - penalty, 1.0), 0.0)
    return safe_divide(segment_sum(weights, q, r.num_queries), num_rel)
