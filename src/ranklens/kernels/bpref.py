"""Binary preference (bpref)."""

from __future__ import annotations

import numpy as np

from ranklens.base.segments import segment_sum
from ranklens.base.types import Float64Array
from ranklens.kernels._util import safe_divide
from ranklens.ranking.align import Ranked


def bpref(r: Ranked, rel: int) -> Float64Array:
    """``bpref = (1/R) * sum over relevant retrieved d of (1 - min(n_d, R) / min(N, R))``.

    ``n_d`` is the number of judged non-relevant documents ranked above ``d`` and ``N`` the
    number of judged non-relevant documents of the query (retrieved or not); unjudged
    documents are skipped (trec_eval 8+ ``bpref``). 0 when ``R = 0``.
    """
    hits = r.hits(rel)
    q, _ = r.hit_places(rel)
    nonrel = np.flatnonzero(r.judged & (r.rel < rel))
    # judged non-relevant documents above each relevant one, within its query
    above = np.searchsorted(nonrel, hits) - np.searchsorted(nonrel, r.offsets[:-1][q])
    num_rel = r.num_rel(rel)
    num_nonrel = r.num_nonrel(rel)
    cap = np.minimum(num_nonrel, num_rel)[q].astype(np.float64)
    seen = above > 0
    penalty = np.zeros(hits.shape[0], dtype=np.float64)
    np.divide(np.minimum(above, num_rel[q]), cap, out=penalty, where=seen, dtype=np.float64)
    weights = np.where(seen, 1.0 - penalty, 1.0)
    return safe_divide(segment_sum(weights, q, r.num_queries), num_rel)
