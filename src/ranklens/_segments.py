"""Vectorised operations over flat arrays grouped by query (``offsets`` of length nq + 1).

Sums that end in a printed number use ``np.bincount`` with weights, which adds in index
order, so each query's sum is accumulated in rank order exactly as trec_eval's C loops do.
"""

from __future__ import annotations

import numpy as np

from ranklens._types import BoolArray, Float64Array, Int64Array


def segment_ids(offsets: Int64Array) -> Int64Array:
    """The segment index of every element."""
    counts = np.diff(offsets)
    return np.repeat(np.arange(counts.shape[0], dtype=np.int64), counts)


def positions(offsets: Int64Array, ids: Int64Array) -> Int64Array:
    """The 0-based position of every element inside its segment (its rank minus one)."""
    return np.arange(ids.shape[0], dtype=np.int64) - offsets[:-1][ids]


def segment_sum(weights: Float64Array, ids: Int64Array, n: int) -> Float64Array:
    """Per-segment sums, accumulated in element order."""
    return np.bincount(ids, weights=weights, minlength=n).astype(np.float64, copy=False)


def segment_count(mask: BoolArray, ids: Int64Array, n: int) -> Int64Array:
    """Per-segment number of true elements."""
    return np.bincount(ids[mask], minlength=n).astype(np.int64, copy=False)


def inclusive_count(mask: BoolArray, offsets: Int64Array, ids: Int64Array) -> Int64Array:
    """For each element, the number of true elements up to and including it in its segment."""
    total = np.cumsum(mask, dtype=np.int64)
    before = np.concatenate(([0], total))[offsets[:-1]]
    return total - before[ids]


def count_in_top(mask: BoolArray, offsets: Int64Array, k: int | Int64Array) -> Int64Array:
    """Per segment, the number of true elements among its first ``k`` (``k`` may vary)."""
    total = np.concatenate(([0], np.cumsum(mask, dtype=np.int64)))
    lengths = np.diff(offsets)
    stop = offsets[:-1] + np.minimum(np.maximum(k, 0), lengths)
    return total[stop] - total[offsets[:-1]]


def first_position(mask: BoolArray, offsets: Int64Array, ids: Int64Array) -> Int64Array:
    """Per segment, the position of its first true element, or -1 if it has none."""
    n = offsets.shape[0] - 1
    hits = np.flatnonzero(mask)
    out = np.full(n, -1, dtype=np.int64)
    if hits.shape[0]:
        seg = ids[hits]
        first = np.r_[True, seg[1:] != seg[:-1]]
        out[seg[first]] = hits[first] - offsets[seg[first]]
    return out


def range_max(values: Float64Array, starts: Int64Array, stops: Int64Array) -> Float64Array:
    """``max(values[starts[i]:stops[i]])`` for every i; ``-inf`` for an empty range."""
    if starts.shape[0] == 0:
        return np.zeros(0, dtype=np.float64)
    padded = np.append(values, -np.inf)
    stops = np.maximum(stops, starts)
    empty = stops == starts
    bounds = np.empty(2 * starts.shape[0], dtype=np.int64)
    bounds[0::2] = np.where(empty, values.shape[0], starts)
    bounds[1::2] = np.where(empty, values.shape[0], stops)
    result = np.maximum.reduceat(padded, bounds)[0::2]
    result[empty] = -np.inf
    return result


def ordered_total(values: Float64Array) -> float:
    """The sum of ``values`` added left to right, as a C loop would (not pairwise)."""
    if values.shape[0] == 0:
        return 0.0
    return float(np.cumsum(values)[-1])
