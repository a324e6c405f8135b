"""The order ranx gives a query's documents, reproduced: numba's ``np.argsort``.

ranx sorts each query's ``{doc_id: score}`` with numba's ``np.argsort`` (its default
``kind="quicksort"``, :mod:`numba.misc.quicksort`): ``Run(...)``, ``Run.sort()`` and every
fused run (``sort_dict_by_value``: ascending argsort of the negated scores, the dict rebuilt
in that order), and plain dicts given to ``evaluate`` (``descending_sort``: ascending
argsort of the scores, reversed). The sort is deterministic but not stable: a list of 16
documents or more is partitioned around median-of-three pivots, which moves equal scores
around, so the order of ties depends on the dict's order and on the algorithm.
:func:`quicksort_argsort` runs the same algorithm, step for step, in Python, so the same
dict gives ranx's order (lists of at most 15 documents, and lists without ties, are
sorted the fast way: the result is the same).

>>> quicksort_argsort([0.5, 0.1, 0.5, 0.3])
[1, 3, 0, 2]
>>> ranx_run_order([1.0] * 5)  # up to 15 documents: insertion sort, the dict's order
[0, 1, 2, 3, 4]
>>> ranx_run_order([1.0] * 17)  # 17 equal scores: the partitions move them
[15, 14, 13, 12, 11, 10, 9, 16, 8, 6, 5, 4, 3, 2, 1, 0, 7]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np

from ranklens.data.run import Run as _Run

__all__ = ["dict_order", "quicksort_argsort", "ranx_run_order", "reordered", "row_ranked"]

_SMALL = 15
"""numba's ``SMALL_QUICKSORT``: ranges of at most this many entries are insertion
sorted (a stable sort)."""


def _insertion_sort(keys: Sequence[float], order: list[int], low: int, high: int) -> None:
    for i in range(low + 1, high + 1):
        k = order[i]
        v = keys[k]
        j = i
        while j > low and v < keys[order[j - 1]]:
            order[j] = order[j - 1]
            j -= 1
        order[j] = k


def _partition(keys: Sequence[float], order: list[int], low: int, high: int) -> int:
    mid = (low + high) >> 1
    if keys[order[mid]] < keys[order[low]]:
        order[low], order[mid] = order[mid], order[low]
    if keys[order[high]] < keys[order[mid]]:
        order[high], order[mid] = order[mid], order[high]
    if keys[order[mid]] < keys[order[low]]:
        order[low], order[mid] = order[mid], order[low]
    pivot = keys[order[mid]]
    order[high], order[mid] = order[mid], order[high]
    i = low
    j = high - 1
    while True:
        while i < high and keys[order[i]] < pivot:
            i += 1
        while j >= low and pivot < keys[order[j]]:
            j -= 1
        if i >= j:
            break
        order[i], order[j] = order[j], order[i]
        i += 1
        j -= 1
    order[i], order[high] = order[high], order[i]
    return i


def quicksort_argsort(keys: Sequence[float]) -> list[int]:
    """The indices that sort ``keys`` ascending, as numba's ``np.argsort`` (quicksort) gives
    them, equal keys included.

    Insertion sort up to 15 entries; above, numba's median-of-three partition, the larger
    side pushed on a stack and the smaller one partitioned next (``run_quicksort1``).

    >>> quicksort_argsort([2.0, 1.0, 2.0])
    [1, 0, 2]
    """
    n = len(keys)
    if n <= _SMALL or len(set(keys)) == n:
        # an insertion sort (or any sort of distinct keys): numpy's stable sort agrees
        return np.argsort(np.asarray(keys, dtype=np.float64), kind="stable").tolist()  # type: ignore[no-any-return]
    order = list(range(n))
    stack = [(0, n - 1)]
    while stack:
        low, high = stack.pop()
        while high - low >= _SMALL:
            i = _partition(keys, order, low, high)
            if high - i > i - low:
                if high > i:
                    stack.append((i + 1, high))
                high = i - 1
            else:
                if i > low:
                    stack.append((low, i - 1))
                low = i + 1
        _insertion_sort(keys, order, low, high)
    return order


def ranx_run_order(scores: Sequence[float]) -> list[int]:
    """The order ranx's ``Run`` gives documents of these scores (in the dict's order):
    ``sort_dict_by_value``, an ascending argsort of the negated scores.

    >>> ranx_run_order([0.2, 0.9, 0.2])
    [1, 0, 2]
    """
    return quicksort_argsort([-s for s in scores])


def dict_order(scores: Sequence[float]) -> list[int]:
    """The order ranx's ``evaluate`` gives a plain dict's documents of these scores:
    ``descending_sort``, an ascending argsort reversed (equal scores end up reversed where
    the insertion sort applies).

    >>> dict_order([0.2, 0.9, 0.2])
    [1, 2, 0]
    """
    return quicksort_argsort(scores)[::-1]


def reordered(table: _Run, kind: Literal["run", "dict"] = "run") -> _Run:
    """``table`` with each query's rows in ranx's order of their scores (in the table's row
    order): ``"run"`` as a ``Run`` sorts them (:func:`ranx_run_order`), ``"dict"`` as
    ``evaluate`` sorts a plain dict (:func:`dict_order`). Ranking ``ties="input"`` then
    keeps that order.

    The queries without ties, or with at most 15 documents, are ordered in one stable
    numpy sort (the same order); the others run numba's algorithm."""
    from ranklens.data.native import core as _core

    scores = table.scores
    n = len(scores)
    if n == 0:
        return table
    query = table.query_of_entries()
    keys = -scores if kind == "run" else scores
    index = np.lexsort((keys, query))
    bounds = table.q_offsets
    counts = np.diff(bounds)
    sorted_keys = keys[index]
    tied = np.zeros(len(counts), dtype=bool)
    same = (sorted_keys[1:] == sorted_keys[:-1]) & (query[index][1:] == query[index][:-1])
    tied[query[index][1:][same]] = True
    if kind == "dict":
        position = np.arange(n, dtype=np.int64)
        start = bounds[query]
        index = index[start + bounds[query + 1] - 1 - position]
    order_of = ranx_run_order if kind == "run" else dict_order
    for j in np.flatnonzero(tied & (counts > _SMALL)).tolist():
        a, b = int(bounds[j]), int(bounds[j + 1])
        index[a:b] = a + np.asarray(order_of(scores[a:b].tolist()), dtype=np.int64)
    if np.array_equal(index, np.arange(n)):
        return table
    doc_data, doc_offsets = _core.take_strings(table.doc_data, table.doc_offsets, index)
    return _Run(
        qids=table.qids,
        q_offsets=table.q_offsets,
        doc_data=doc_data,
        doc_offsets=doc_offsets,
        lines=None if table.lines is None else table.lines[index],
        source=table.source,
        unique=table.unique,
        scores=table.scores[index],
        name=table.name,
        metadata=table.metadata,
    )


def row_ranked(table: _Run) -> _Run:
    """``table`` with a rank column giving each row its position in its query (1, 2, ...):
    ranked with ``ties="rank"``, the rows' order is the ranking whatever the scores, as
    ranx's fusion and normalisation functions read a run's dict (a normalised run's is not
    sorted again)."""
    counts = np.diff(table.q_offsets)
    starts = np.repeat(table.q_offsets[:-1], counts)
    ranks = np.arange(len(table.scores), dtype=np.int64) - starts + 1
    return table._with(ranks=ranks)
