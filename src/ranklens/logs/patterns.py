"""What the click models read of a log: counts that do not grow with its length.

Every click model's likelihood depends on a session only through

- its **cells**: for each shown (query, document) pair, its rank, the rank of the click
  above it (0: none), whether it was clicked and where it lies relative to the session's
  last click (:data:`BEFORE`, :data:`LAST`, :data:`BELOW`, or :data:`NO_CLICK` in a
  session without clicks). PBM, UBM and the closed forms read only these, and so do the
  parts of the DBN family's likelihood above the last click, where nothing is hidden
  (every rank above the last click was read, and left without satisfaction);
- its **tail**: the last click and the ranks below it (the whole session when nothing was
  clicked), where the DBN family's hidden variables are: whether the last click
  satisfied, how far the user read on.

Cells are counted per distinct (pair, rank, previous click, click, zone): at most pairs x
ranks x (ranks + 1) x 8 of them. Tails are counted per distinct (query, offset, clicked
first, documents): at most rankings x ranks x 2. Neither grows with the number of
impressions, so a log streamed from Parquet is held in memory that depends on its queries,
documents and rankings, not on its length.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace

import numpy as np

from ranklens.base.types import BoolArray, Float64Array, Int64Array
from ranklens.logs.log import ClickLog

CHUNK_PATTERNS = 1 << 18
"""Tails handled at once by the estimates (their work arrays are this many rows)."""
BEFORE, LAST, BELOW, NO_CLICK = 0, 1, 2, 3
"""Where a cell lies: above the session's last click, the last click, below it, or in a
session without clicks."""
PAIR_SHIFT = np.int64(1 << 31)
"""A (query, document) pair as one integer while reading: query * PAIR_SHIFT + document."""


@dataclass(frozen=True, eq=False)
class Patterns:
    """Distinct pseudo-sessions (the tails of sessions) with counts.

    Attributes
    ----------
    pair : int64 (rows x ranks): the pair at each position, -1 past the end.
    clicks : bool (rows x ranks), False past the end.
    length : int64 per row: the number of positions.
    count : float64 per row: how many sessions had it.
    offset : int64 per row: the session rank (0-based) of the row's first position.
    """

    pair: Int64Array
    clicks: BoolArray
    length: Int64Array
    count: Float64Array
    offset: Int64Array

    @property
    def ranks(self) -> int:
        """The width of :attr:`pair`."""
        return int(self.pair.shape[1])

    @property
    def valid(self) -> BoolArray:
        """Which cells of :attr:`pair` show a document."""
        return np.arange(self.ranks)[None, :] < self.length[:, None]

    def chunks(self, size: int | None = None) -> Iterator[Patterns]:
        """The rows in slices of at most ``size`` (default :data:`CHUNK_PATTERNS`), so that
        the work arrays of an estimate stay bounded."""
        size = size or CHUNK_PATTERNS
        for start in range(0, max(self.pair.shape[0], 1), size):
            stop = start + size
            yield replace(
                self,
                pair=self.pair[start:stop],
                clicks=self.clicks[start:stop],
                length=self.length[start:stop],
                count=self.count[start:stop],
                offset=self.offset[start:stop],
            )


@dataclass(frozen=True, eq=False)
class LogStats:
    """The counts a click model is fitted to (see the module's documentation).

    Attributes
    ----------
    queries, documents : the id tables.
    pair_query, pair_doc : int64 per query-document pair: its query's and document's index.
    ranks : the most positions of any session.
    cell_pair, cell_rank, cell_prev, cell_click, cell_zone, cell_count : the distinct cells
        (rank 0-based; previous click rank 1-based, 0 for none) and how many there were.
    tails : the distinct tails, their pairs as indices into the pair table.
    """

    queries: tuple[str, ...]
    documents: tuple[str, ...]
    pair_query: Int64Array
    pair_doc: Int64Array
    ranks: int
    cell_pair: Int64Array
    cell_rank: Int64Array
    cell_prev: Int64Array
    cell_click: BoolArray
    cell_zone: Int64Array
    cell_count: Float64Array
    tails: Patterns

    @property
    def num_pairs(self) -> int:
        return int(self.pair_query.shape[0])

    def pair_counts(self) -> Float64Array:
        """How many times each pair was shown."""
        counts = np.bincount(self.cell_pair, weights=self.cell_count, minlength=self.num_pairs)
        return counts.astype(np.float64)


@dataclass
class Partial:
    """Counts of some sessions, pairs still as query * PAIR_SHIFT + document keys."""

    cells: Int64Array  # (n, 5): key, rank, prev, click, zone
    cell_count: Float64Array
    tails: Int64Array  # (n, 3 + width): query, offset, clicked first, documents (-1 past end)
    tail_length: Int64Array
    tail_count: Float64Array


def _unique_rows(rows: Int64Array, counts: Float64Array) -> tuple[Int64Array, Float64Array]:
    """Identical rows merged, their counts summed."""
    if rows.shape[0] == 0:
        return rows, counts
    rows = np.ascontiguousarray(rows)
    view = rows.view(np.dtype((np.void, rows.dtype.itemsize * rows.shape[1]))).reshape(-1)
    _, first, inverse = np.unique(view, return_index=True, return_inverse=True)
    summed = np.bincount(inverse.reshape(-1), weights=counts, minlength=first.shape[0])
    return rows[first], summed.astype(np.float64)


def partial_of_sessions(
    query: Int64Array, docs: Int64Array, clicks: BoolArray, length: Int64Array
) -> Partial:
    """The counts of sessions given as matrices: ``query`` per session, ``docs``
    (sessions x ranks, -1 past the end), ``clicks``, ``length``."""
    n, width = docs.shape
    valid = np.arange(width)[None, :] < length[:, None]
    clicks = clicks & valid
    ranks = np.arange(1, width + 1)[None, :]
    clicked_ranks = np.where(clicks, ranks, 0)
    running = np.maximum.accumulate(clicked_ranks, axis=1)
    prev = np.zeros_like(running)
    prev[:, 1:] = running[:, :-1]
    last = running[:, -1] if width else np.zeros(n, dtype=np.int64)
    zone = np.where(
        (last == 0)[:, None],
        NO_CLICK,
        np.where(ranks < last[:, None], BEFORE, np.where(ranks == last[:, None], LAST, BELOW)),
    )
    keys = query[:, None] * PAIR_SHIFT + docs
    cells = np.stack(
        [
            keys[valid],
            np.broadcast_to(np.arange(width)[None, :], valid.shape)[valid],
            prev[valid],
            clicks[valid].astype(np.int64),
            zone[valid],
        ],
        axis=1,
    )
    cells, cell_count = _unique_rows(cells, np.ones(cells.shape[0]))
    # the tail: from the last click (or the first rank) to the end
    start = np.maximum(last - 1, 0)
    index = start[:, None] + np.arange(width)[None, :]
    inside = index < length[:, None]
    tail_docs = np.where(inside, np.take_along_axis(docs, np.minimum(index, width - 1), axis=1), -1)
    tails = np.concatenate(
        [query[:, None], start[:, None], (last > 0)[:, None].astype(np.int64), tail_docs], axis=1
    )
    tail_length = length - start
    merged = np.concatenate([tails, tail_length[:, None]], axis=1)
    merged, tail_count = _unique_rows(merged, np.ones(n))
    return Partial(cells, cell_count, merged[:, :-1], merged[:, -1].copy(), tail_count)


def merge_partials(parts: list[Partial]) -> Partial:
    """Several partial counts as one (rows merged)."""
    width = max(p.tails.shape[1] for p in parts)
    tails = [
        np.pad(p.tails, ((0, 0), (0, width - p.tails.shape[1])), constant_values=-1) for p in parts
    ]
    cells, cell_count = _unique_rows(
        np.concatenate([p.cells for p in parts]), np.concatenate([p.cell_count for p in parts])
    )
    merged = np.concatenate(
        [np.concatenate(tails), np.concatenate([p.tail_length for p in parts])[:, None]], axis=1
    )
    merged, tail_count = _unique_rows(merged, np.concatenate([p.tail_count for p in parts]))
    return Partial(cells, cell_count, merged[:, :-1], merged[:, -1].copy(), tail_count)


def finish(
    partial: Partial,
    queries: tuple[str, ...],
    documents: tuple[str, ...],
    query_rank: Int64Array | None = None,
    doc_rank: Int64Array | None = None,
) -> LogStats:
    """The :class:`LogStats` of merged counts: pairs interned (queries and documents
    renumbered by ``query_rank``/``doc_rank`` when their codes were not in sorted order)."""
    tail_docs = partial.tails[:, 3:]
    shown = tail_docs >= 0
    tail_keys = partial.tails[:, :1] * PAIR_SHIFT + tail_docs
    keys = np.unique(np.concatenate([partial.cells[:, 0], tail_keys[shown]]))
    pair_query = keys // PAIR_SHIFT
    pair_doc = keys % PAIR_SHIFT
    if query_rank is not None and doc_rank is not None:
        pair_query = query_rank[pair_query]
        pair_doc = doc_rank[pair_doc]
    tail_pair = np.full(tail_docs.shape, -1, dtype=np.int64)
    tail_pair[shown] = np.searchsorted(keys, tail_keys[shown])
    width = int(partial.tails.shape[1] - 3)
    tails = Patterns(
        pair=tail_pair,
        clicks=np.zeros(tail_pair.shape, dtype=bool)
        | ((np.arange(width)[None, :] == 0) & (partial.tails[:, 2:3] == 1)),
        length=partial.tail_length,
        count=partial.tail_count,
        offset=partial.tails[:, 1].copy(),
    )
    cells = partial.cells
    return LogStats(
        queries=queries,
        documents=documents,
        pair_query=pair_query,
        pair_doc=pair_doc,
        ranks=int(cells[:, 1].max()) + 1 if cells.shape[0] else 1,
        cell_pair=np.searchsorted(keys, cells[:, 0]),
        cell_rank=cells[:, 1].copy(),
        cell_prev=cells[:, 2].copy(),
        cell_click=cells[:, 3].astype(bool),
        cell_zone=cells[:, 4].copy(),
        cell_count=partial.cell_count,
        tails=tails,
    )


def session_matrix(
    log: ClickLog,
) -> tuple[Int64Array, Int64Array, BoolArray, Int64Array, Int64Array]:
    """The log as (pair per cell, query-document pair table as (query, doc) codes, clicks per
    cell, lengths, pair of each row): one row per impression, ``-1``/False past each
    impression's end."""
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


def patterns_of(log: ClickLog) -> LogStats:
    """The counts of an in-memory log."""
    n = log.num_impressions
    width = max(log.max_length, 1)
    docs = np.full((n, width), -1, dtype=np.int64)
    clicks = np.zeros((n, width), dtype=bool)
    rows, cols = log.impression_of_rows, log.positions - 1
    docs[rows, cols] = log.doc
    clicks[rows, cols] = log.clicked
    partial = partial_of_sessions(log.query, docs, clicks, log.lengths)
    return finish(partial, log.queries, log.documents)
