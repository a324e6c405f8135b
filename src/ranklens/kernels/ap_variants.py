"""Variants of average precision: inferred AP, YAAP and the interpolated-precision average
(trec_eval ``infAP``, ``yaap``, ``11pt_avg``)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ranklens.base.segments import segment_sum
from ranklens.base.types import Float64Array
from ranklens.kernels._running import c_log, exclusive_counts
from ranklens.kernels._util import safe_divide
from ranklens.kernels.interpolated import interpolated_precision
from ranklens.ranking.align import NEGATIVE, Ranked

INFAP_EPSILON = 0.00001
"""trec_eval's ``INFAP_EPSILON``."""


def inferred_ap(r: Ranked, rel: int) -> Float64Array:
    """Inferred AP (Yilmaz & Aslam, CIKM 2006) as trec_eval computes it (``m_infap.c``).

    For the relevant document at 0-based rank j (over all retrieved documents), with r the
    relevant documents up to it, n the judged non-relevant and u the negatively judged
    ("pooled, not judged") documents above it, and e = 1e-5::

        j = 0:  1
        else:   1/(j+1) + (j/(j+1)) * ((r-1+n+u)/j) * ((r-1+e)/(r-1+n+2e))

    The sum over relevant documents, in rank order, divided by R (0 when R = 0). Documents
    not in the qrels count only through j.
    """
    hits = r.hits(rel)
    q = r.ids[hits]
    nonrel = r.judged & ~r.relevant(rel)
    n = exclusive_counts(nonrel, r.offsets, r.ids)[hits]
    u = exclusive_counts(r.rel == NEGATIVE, r.offsets, r.ids)[hits]
    prior = r.hit_number(rel) - 1
    j = r.pos[hits].astype(np.float64)
    later = j > 0
    fj = np.where(later, j, 1.0)
    term = 1.0 / (fj + 1.0) + (fj / (fj + 1.0)) * ((prior + n + u) / fj) * (
        (prior + INFAP_EPSILON) / ((prior + n) + 2 * INFAP_EPSILON)
    )
    weights = np.where(later, term, 1.0)
    return safe_divide(segment_sum(weights, q, r.num_queries), r.num_rel(rel))


def yaap(r: Ranked, rel: int) -> Float64Array:
    """Yet Another Average Precision (Robertson, ECIR 2012; trec_eval ``yaap``):
    ``ln((1 + S) / (1 + R - S))`` with ``S = sum over relevant retrieved of P@rank``, the
    sum of AP before its division by R. 0 when R = 0; ranges over (-inf, inf)."""
    hits = r.hits(rel)
    precision = r.hit_number(rel) / (r.pos[hits] + 1)
    s = segment_sum(precision, r.ids[hits], r.num_queries)
    num_rel = r.num_rel(rel).astype(np.float64)
    return c_log((1.0 + s) / ((1.0 + num_rel) - s))


def eleven_point_average(
    r: Ranked, rel: int, rounding: str, levels: Sequence[float]
) -> Float64Array:
    """The mean of the interpolated precisions at the recall ``levels`` (trec_eval
    ``11pt_avg``), added from the highest level down as trec_eval adds them, then divided
    by the number of levels."""
    ordered = sorted(levels)
    total = np.zeros(r.num_queries, dtype=np.float64)
    for level in reversed(ordered):
        total = total + interpolated_precision(r, rel, level, rounding)
    return total / float(len(ordered))
