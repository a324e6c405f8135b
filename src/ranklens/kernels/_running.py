"""Running sums and C math functions, computed so that the bits equal a C loop's.

trec_eval accumulates running sums (``results_dcg += ...``) one rank at a time and calls
libm's ``log``/``log2`` on them. A flat ``cumsum`` minus each query's prefix is not the same
double as a sum restarted from 0.0, and numpy may use its own vector ``log2``; the helpers
here reproduce the C arithmetic exactly.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from ranklens.base.types import Float64Array, Int64Array

_PADDED_CELLS = 1 << 23
"""How many cells (queries x longest ranking) one padded block of
:func:`segment_accumulate` may use; longer inputs are processed in blocks of queries."""


def segment_cumsum(values: Float64Array, offsets: Int64Array) -> Float64Array:
    """Per-segment running sums, each started from 0.0 and added left to right.

    ``out[i] = ((values[s] + values[s+1]) + ...) + values[i]`` where ``s`` is the start of
    ``i``'s segment: the doubles a C loop ``sum += v`` yields at every step.
    """
    if (
        values.shape[0]
        and np.abs(values).sum() < 2.0**53
        and bool(np.all(values == np.trunc(values)))
    ):
        # Whole numbers: every partial sum is an exact integer, whatever the order.
        total = np.cumsum(values)
        before = np.concatenate(([0.0], total))[offsets[:-1]]
        out: Float64Array = total - np.repeat(before, np.diff(offsets))
        return out
    return segment_accumulate(values, offsets, np.add)


def segment_cumprod(values: Float64Array, offsets: Int64Array) -> Float64Array:
    """Per-segment running products, each started from 1.0 and multiplied left to right:
    the doubles a C loop ``prod *= v`` yields at every step."""
    return segment_accumulate(values, offsets, np.multiply)


def segment_accumulate(values: Float64Array, offsets: Int64Array, ufunc: np.ufunc) -> Float64Array:
    """Per-segment ``ufunc.accumulate``, each segment on its own and left to right.

    The segments are laid out as the rows of a matrix padded with the ufunc's identity,
    whose rows numpy accumulates in order. Long inputs go by increasing segment length, in
    bands of lengths within a factor 2 (little padding), each band in blocks of at most
    :data:`_PADDED_CELLS` cells.
    """
    out = np.empty(values.shape[0], dtype=np.float64)
    if values.shape[0] == 0:
        return out
    counts = np.diff(offsets)
    width = int(counts.max())
    if counts.shape[0] * width <= _PADDED_CELLS:
        _accumulate_block(values, offsets[:-1], counts, out, ufunc)
        return out
    order = np.argsort(counts, kind="stable")
    lengths = counts[order]
    used = lengths > 0
    band = np.full(lengths.shape[0], -1, dtype=np.int64)  # -1: empty rankings
    band[used] = np.floor(np.log2(lengths[used])).astype(np.int64)
    edges = np.flatnonzero(np.diff(band, prepend=-2, append=-2) != 0).tolist()
    for lo, hi in itertools.pairwise(edges):
        if lengths[lo] == 0:
            continue
        rows = max(1, _PADDED_CELLS // int(lengths[hi - 1]))
        for first in range(lo, hi, rows):
            block = order[first : min(first + rows, hi)]
            _accumulate_block(values, offsets[:-1][block], counts[block], out, ufunc)
    return out


def _accumulate_block(
    values: Float64Array,
    starts: Int64Array,
    counts: Int64Array,
    out: Float64Array,
    ufunc: np.ufunc,
) -> None:
    """:func:`segment_accumulate` for the segments at ``starts`` with ``counts`` elements."""
    width = int(counts.max(initial=0))
    if width == 0:
        return
    inside = np.arange(width) < counts[:, None]
    first = np.cumsum(counts) - counts
    src = np.repeat(starts - first, counts) + np.arange(int(counts.sum()))
    padded = np.full((counts.shape[0], width), ufunc.identity, dtype=np.float64)
    padded[inside] = values[src]
    ufunc.accumulate(padded, axis=1, out=padded)
    out[src] = padded[inside]


def exclusive_counts(mask: np.ndarray, offsets: Int64Array, ids: Int64Array) -> Int64Array:
    """For every element, how many elements of its segment before it have ``mask`` set."""
    prefix = np.concatenate(([0], np.cumsum(mask, dtype=np.int64)))
    counts: Int64Array = prefix[:-1] - prefix[offsets[:-1][ids]]
    return counts


def _log2(x: float) -> float:
    if x > 0.0:
        return math.log2(x)
    return -math.inf if x == 0.0 else math.nan


def _log(x: float) -> float:
    if x > 0.0:
        return math.log(x)
    return -math.inf if x == 0.0 else math.nan


_LOG2 = np.frompyfunc(_log2, 1, 1)
_LOG = np.frompyfunc(_log, 1, 1)


def c_log2(values: Float64Array) -> Float64Array:
    """C's ``log2`` of every element (``-inf`` at 0, NaN below), through Python's ``math``
    (the same libm function), evaluated once per distinct value."""
    if values.shape[0] == 0:
        return np.zeros(0, dtype=np.float64)
    unique, inverse = np.unique(values, return_inverse=True)
    logs = np.asarray(_LOG2(unique), dtype=np.float64)
    return logs[inverse.reshape(values.shape)]


def c_log(values: Float64Array) -> Float64Array:
    """C's ``log`` of every element (``-inf`` at 0, NaN below), through Python's ``math``."""
    if values.shape[0] == 0:
        return np.zeros(0, dtype=np.float64)
    return np.asarray(_LOG(values), dtype=np.float64)


def powers(p: float, n: int) -> Float64Array:
    """``p^0 .. p^n`` as a C loop ``cur_p = cur_p * p`` produces them (not ``pow``)."""
    out = np.full(n + 1, p, dtype=np.float64)
    out[0] = 1.0
    np.multiply.accumulate(out, out=out)
    return out
