"""trec_eval's experimental gain measures: binG, G, ndcg_rel and Rndcg (``m_binG.c``,
``m_G.c``, ``m_ndcg_rel.c``, ``m_Rndcg.c``).

They walk the ranking and the ideal gain list (:func:`ranklens.kernels.gains.ideal_gains`)
together and read running sums at some ranks; the running sums are computed as the C loops
compute them (:func:`ranklens.kernels._running.segment_cumsum`), so the values match
trec_eval's to the last bit.
"""

from __future__ import annotations

import numpy as np

from ranklens.base.segments import segment_count, segment_sum
from ranklens.base.types import BoolArray, Float64Array, Int64Array
from ranklens.kernels._running import c_log2, segment_cumsum
from ranklens.kernels._util import safe_divide
from ranklens.kernels.gains import IdealGains, gain_pairs, ideal_gains, rank_gains
from ranklens.ranking.align import Ranked


def binary_g(r: Ranked, rel: int) -> Float64Array:
    """Binary G: ``(1/R) * sum over relevant retrieved of 1 / log2(2 + non-relevant above)``
    (trec_eval ``binG``; every retrieved non-relevant or unjudged document counts)."""
    hits = r.hits(rel)
    above = r.pos[hits] - (r.hit_number(rel) - 1)  # documents above that are not relevant
    disc = r.discounts(int(above.max(initial=-1)) + 1)
    weights = 1.0 / disc[above]
    return safe_divide(segment_sum(weights, r.ids[hits], r.num_queries), r.num_rel(rel))


def _take(values: Float64Array, index: Int64Array, valid: BoolArray) -> Float64Array:
    """``values[index]`` where ``valid``, 0.0 elsewhere (``index`` may be anything there)."""
    out = np.zeros(index.shape[0], dtype=np.float64)
    out[valid] = values[index[valid]]
    return out


def _last(values: Float64Array, offsets: Int64Array) -> Float64Array:
    """The last element of every segment (0 for an empty one)."""
    counts = np.diff(offsets)
    out = np.zeros(counts.shape[0], dtype=np.float64)
    filled = counts > 0
    out[filled] = values[offsets[1:][filled] - 1]
    return out


def _ideal_running_dcg(r: Ranked, ideal: IdealGains) -> Float64Array:
    """IDCG after every ideal position (running sum per query)."""
    disc = r.discounts(int(ideal.pos.max(initial=-1)) + 1)
    return segment_cumsum(ideal.gains / disc[ideal.pos], ideal.offsets)


def _running_dcg(r: Ranked, gains: Float64Array) -> Float64Array:
    """DCG after every rank (running sum per query, zero gains adding nothing)."""
    disc = r.discounts(int(r.num_ret.max(initial=0)))
    return segment_cumsum(np.where(gains != 0.0, gains / disc[r.pos], 0.0), r.offsets)


def g_measure(r: Ranked, gains: object, ideal: str = "sorted") -> Float64Array:
    """Normalised gain G (trec_eval ``G``, experimental).

    With ``S(i)`` the gain of ranks 1..i and ``cost(i) = sum_{j<=i} max(ig_j, 1)``, where
    ``ig_j`` is the j-th ideal gain (the cost grows by 1 after the positive ideal gains):
    ``G = [sum over ranks i with gain_i != 0 of gain_i / log2(2 + cost(i) - S(i))] / sum ig``;
    0 when the ideal sum is 0. With fractional gains that trec_eval's comparator mis-orders
    (see :mod:`ranklens.kernels.gains`), a rank's gain can reach its cost and the term
    divides by log2(1) = 0 (or less): the value is then inf or NaN, as in trec_eval.
    """
    pairs = gain_pairs(gains) or ()
    values = rank_gains(r, pairs)
    best = ideal_gains(r, pairs, ideal)
    length = best.length
    inside = r.pos < length[r.ids]
    ig = np.zeros(values.shape[0], dtype=np.float64)
    ig[inside] = best.gains[best.offsets[:-1][r.ids[inside]] + r.pos[inside]]
    cost = segment_cumsum(np.where(inside & (ig >= 1.0), ig, 1.0), r.offsets)
    so_far = segment_cumsum(values, r.offsets)
    gained = np.flatnonzero(values != 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):  # as C: inf / NaN, see above
        terms = values[gained] / c_log2((2.0 + cost[gained]) - so_far[gained])
    total = segment_sum(terms, r.ids[gained], r.num_queries)
    ideal_total = segment_sum(best.gains, best.ids, r.num_queries)
    out = np.zeros(r.num_queries, dtype=np.float64)
    np.divide(total, ideal_total, out=out, where=ideal_total > 0.0)
    return out


def ndcg_rel(r: Ranked, gains: object, ideal: str = "sorted") -> Float64Array:
    """nDCG averaged over the relevant documents (trec_eval ``ndcg_rel``, experimental).

    With P the number of positive ideal gains: ``(1/P) * [sum over retrieved ranks r with
    gain > 0 of DCG(r) / IDCG(min(r, P)) + (P - those ranks) * DCG(n) / IDCG(P)]``, the sum
    in rank order; 0 when that is not positive.
    """
    pairs = gain_pairs(gains) or ()
    values = rank_gains(r, pairs)
    best = ideal_gains(r, pairs, ideal)
    length = best.length
    running = _running_dcg(r, values)
    ideal_running = _ideal_running_dcg(r, best)
    positive = np.flatnonzero(values > 0.0)
    q = r.ids[positive]
    depth = np.minimum(r.pos[positive] + 1, length[q])
    usable = depth > 0  # always, unless a positive gain is missing from the ideal list
    ideal_at = _take(ideal_running, best.offsets[:-1][q] + depth - 1, usable)
    ratios = np.zeros(positive.shape[0], dtype=np.float64)
    np.divide(running[positive], ideal_at, out=ratios, where=usable)
    total = segment_sum(ratios, q, r.num_queries)
    found = segment_count(q, r.num_queries)
    final_dcg = _last(running, r.offsets)
    final_ideal = _last(ideal_running, best.offsets)
    rest = np.zeros(r.num_queries, dtype=np.float64)
    np.divide(
        (length - found).astype(np.float64) * final_dcg,
        final_ideal,
        out=rest,
        where=final_ideal > 0.0,
    )
    total = total + rest
    out = np.zeros(r.num_queries, dtype=np.float64)
    np.divide(total, length.astype(np.float64), out=out, where=(total > 0.0) & (length > 0))
    return out


def r_ndcg(r: Ranked, gains: object, rel: int, ideal: str = "sorted") -> Float64Array:
    """nDCG averaged at the ideal gain boundaries (trec_eval ``Rndcg``, experimental).

    Points: every ideal position b (1 <= b <= P) after which the ideal gain changes, P
    included, scored ``DCG(min(b, n)) / IDCG(b)``; and, when n > P + 1, ``DCG(n) / IDCG(P)``.
    The value is their mean (summed in that order); 0 when R = 0 at threshold ``rel``, and
    0 (trec_eval: NaN) when there is no point.
    """
    pairs = gain_pairs(gains) or ()
    values = rank_gains(r, pairs)
    best = ideal_gains(r, pairs, ideal)
    length = best.length
    n = r.num_ret
    running = _running_dcg(r, values)
    ideal_running = _ideal_running_dcg(r, best)
    # Boundaries inside the ideal list (b = pos, where the gain differs from the one above)
    # and at its end (b = P).
    changed = np.flatnonzero((best.pos > 0) & (best.gains != np.roll(best.gains, 1)))
    ends = np.flatnonzero(length > 0)
    q = np.concatenate((best.ids[changed], ends))
    b = np.concatenate((best.pos[changed], length[ends]))
    order = np.lexsort((b, q))
    q, b = q[order], b[order]
    ideal_at = ideal_running[best.offsets[:-1][q] + b - 1]
    depth = np.minimum(b, n[q])
    dcg_at = _take(running, r.offsets[:-1][q] + depth - 1, depth > 0)
    total = segment_sum(dcg_at / ideal_at, q, r.num_queries)
    count = segment_count(q, r.num_queries)
    extra = (n > length + 1) & (length > 0)
    final = np.zeros(r.num_queries, dtype=np.float64)
    np.divide(_last(running, r.offsets), _last(ideal_running, best.offsets), out=final, where=extra)
    total = np.where(extra, total + final, total)
    count = count + extra
    out = np.zeros(r.num_queries, dtype=np.float64)
    np.divide(total, count.astype(np.float64), out=out, where=(count > 0) & (r.num_rel(rel) > 0))
    return out
