"""Precision-like counts at a rank cutoff: relative precision, precision at a multiple of
R, and the fraction of unjudged documents (trec_eval ``relative_P``, ``Rprec_mult``, ``unj``).

A cutoff beyond the end of a ranking pads it with non-relevant, judged documents, as
trec_eval does.
"""

from __future__ import annotations

import numpy as np

from ranklens.base.types import Float64Array, Int64Array
from ranklens.kernels.precision import count_above
from ranklens.ranking.align import Ranked


def relative_precision(r: Ranked, rel: int, cutoff: int) -> Float64Array:
    """``|relevant in top k| / min(k, R)``; 0 when R = 0 (trec_eval ``relative_P_k``)."""
    found = count_above(r, r.hits(rel), cutoff).astype(np.float64)
    num_rel = r.num_rel(rel)
    out = np.zeros(r.num_queries, dtype=np.float64)
    np.divide(found, np.minimum(num_rel, cutoff).astype(np.float64), out=out, where=num_rel > 0)
    return out


def rprec_cutoff(mult: float, num_rel: Int64Array) -> Int64Array:
    """trec_eval's rank for multiple ``mult`` of R: ``(long)(mult * R + 0.9)``."""
    product = np.float64(mult) * num_rel.astype(np.float64) + 0.9
    cutoffs: Int64Array = np.trunc(product).astype(np.int64)
    return cutoffs


def precision_at_r_multiple(r: Ranked, rel: int, mult: float) -> Float64Array:
    """``P@c`` with ``c = (long)(mult * R + 0.9)`` (trec_eval ``Rprec_mult_x``, the same
    rule in 9.0.8 and 10); 0 when c = 0; beyond the ranking, ``relevant retrieved / c``."""
    c = rprec_cutoff(mult, r.num_rel(rel))
    found = count_above(r, r.hits(rel), c).astype(np.float64)
    out = np.zeros(r.num_queries, dtype=np.float64)
    np.divide(found, c.astype(np.float64), out=out, where=c > 0)
    return out


def unjudged_fraction(r: Ranked, cutoff: int) -> Float64Array:
    """``|unjudged in top k| / k``, unjudged meaning not in the qrels or judged negative;
    the divisor stays k for a shorter ranking (trec_eval 10 ``unj_k``)."""
    found = count_above(r, np.flatnonzero(r.rel < 0), cutoff).astype(np.float64)
    return found / np.float64(cutoff)
