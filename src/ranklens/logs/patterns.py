"""What the click models read of a log: its distinct sessions, counted.

A session is reduced to its query-document pairs in rank order and its clicks; identical
sessions are kept once with a count. Every click model's likelihood depends on the log only
through these (query, ranking, clicks) patterns, so they are fitted on the patterns, and a
log streamed from Parquet never has to be held whole: memory grows with the number of
distinct patterns, not with the number of impressions.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace

import numpy as np

from ranklens.base.types import BoolArray, Float64Array, Int64Array
from ranklens.logs.log import ClickLog

CHUNK_PATTERNS = 1 << 18
"""Patterns handled at once by the estimates (their work arrays are this many rows)."""


@dataclass(frozen=True, eq=False)
class Patterns:
    """Distinct sessions with counts.

    Attributes
    ----------
    queries, documents : the id tables.
    pair_query, pair_doc : int64 per query-document pair: its query's and document's index.
    pair : int64 (patterns x ranks): the pair shown at each rank, -1 past the session's end.
    clicks : bool (patterns x ranks), False past the end.
    length : int64 per pattern: the number of ranks shown.
    count : float64 per pattern: how many sessions had it.
    """

    queries: tuple[str, ...]
    documents: tuple[str, ...]
    pair_query: Int64Array
    pair_doc: Int64Array
    pair: Int64Array
    clicks: BoolArray
    length: Int64Array
    count: Float64Array

    @property
    def num_pairs(self) -> int:
        return int(self.pair_query.shape[0])

    @property
    def ranks(self) -> int:
        """The most ranks of any session (the width of :attr:`pair`)."""
        return int(self.pair.shape[1])

    @property
    def valid(self) -> BoolArray:
        """Which cells of :attr:`pair` show a document."""
        return np.arange(self.ranks)[None, :] < self.length[:, None]

    @property
    def num_sessions(self) -> float:
        return float(self.count.sum())

    def pair_counts(self) -> Float64Array:
        """How many times each pair was shown."""
        counts = np.zeros(self.num_pairs)
        for part in self.chunks():
            valid = part.valid
            weights = np.broadcast_to(part.count[:, None], valid.shape)[valid]
            counts += np.bincount(part.pair[valid], weights=weights, minlength=self.num_pairs)
        return counts

    def chunks(self, size: int | None = None) -> Iterator[Patterns]:
        """The patterns in slices of at most ``size`` rows (default :data:`CHUNK_PATTERNS`;
        the id and pair tables shared), so that the work arrays of an estimate stay
        bounded."""
        size = size or CHUNK_PATTERNS
        for start in range(0, max(self.pair.shape[0], 1), size):
            stop = start + size
            yield replace(
                self,
                pair=self.pair[start:stop],
                clicks=self.clicks[start:stop],
                length=self.length[start:stop],
                count=self.count[start:stop],
            )


def session_matrix(
    log: ClickLog,
) -> tuple[Int64Array, Int64Array, BoolArray, Int64Array, Int64Array]:
    """The log as (pair per cell, query-document pair table as (query, doc) codes, clicks per
    cell, lengths): one row per impression, ``-1``/False past each impression's end."""
    n = log.num_impressions
    width = max(log.max_length, 1)
    query_of_rows = log.query[log.impression_of_rows]
    keys = query_of_rows * np.int64(max(len(log.documents), 1)) + log.doc
    unique_keys, pair_of_rows = np.unique(keys, return_inverse=True)
    pair_of_rows = pair_of_rows.reshape(-1).astype(np.int64)
    docs_count = np.int64(max(len(log.documents), 1))
    pair_query = unique_keys // docs_count
    pair_doc = unique_keys % docs_count
    pair = np.full((n, width), -1, dtype=np.int64)
    clicks = np.zeros((n, width), dtype=bool)
    rows = log.impression_of_rows
    cols = log.positions - 1
    pair[rows, cols] = pair_of_rows
    clicks[rows, cols] = log.clicked
    return pair, np.stack([pair_query, pair_doc]), clicks, log.lengths.copy(), pair_of_rows


def deduplicate(
    pair: Int64Array, clicks: BoolArray, length: Int64Array, count: Float64Array
) -> tuple[Int64Array, BoolArray, Int64Array, Float64Array]:
    """Identical (pairs, clicks) rows merged, their counts summed (rows in sorted order)."""
    if pair.shape[0] == 0:
        return pair, clicks, length, count
    width = pair.shape[1]
    bits = np.packbits(clicks, axis=1, bitorder="little").astype(np.int64)
    key = np.concatenate([pair, bits, length[:, None]], axis=1)
    key = np.ascontiguousarray(key)
    view = key.view(np.dtype((np.void, key.dtype.itemsize * key.shape[1]))).reshape(-1)
    _, first, inverse = np.unique(view, return_index=True, return_inverse=True)
    inverse = inverse.reshape(-1)
    summed = np.bincount(inverse, weights=count, minlength=first.shape[0])
    return pair[first][:, :width], clicks[first], length[first], summed.astype(np.float64)


def patterns_of(log: ClickLog) -> Patterns:
    """The distinct sessions of ``log`` with their counts."""
    pair, table, clicks, length, _ = session_matrix(log)
    count = np.ones(pair.shape[0], dtype=np.float64)
    pair, clicks, length, count = deduplicate(pair, clicks, length, count)
    return Patterns(
        queries=log.queries,
        documents=log.documents,
        pair_query=table[0].copy(),
        pair_doc=table[1].copy(),
        pair=pair,
        clicks=clicks,
        length=length,
        count=count,
    )
