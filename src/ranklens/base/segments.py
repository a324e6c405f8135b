"""Vectorised operations over flat arrays grouped by query (``offsets`` of length nq + 1).

Sums that end in a printed number use ``np.bincount`` with weights, which adds in index
order, so each query's sum is accumulated in rank order exactly as trec_eval's C loops do.
"""

from __future__ import annotations

import numpy as np

from ranklens.base.types import Float64Array, Int64Array


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


def segment_count(ids: Int64Array, n: int) -> Int64Array:
    """Per-segment number of elements listed in ``ids`` (one segment index per element)."""
    return np.bincount(ids, minlength=n).astype(np.int64, copy=False)


def first_per_segment(index: Int64Array, ids: Int64Array, n: int) -> Int64Array:
    """For sorted flat indices ``index`` with segment ids ``ids``, the first index of each
    segment, or -1 where a segment has none."""
    out = np.full(n, -1, dtype=np.int64)
    if index.shape[0]:
        first = np.r_[True, ids[1:] != ids[:-1]]
        out[ids[first]] = index[first]
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
