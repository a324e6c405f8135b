"""A long-layout Parquet click log streamed by record batches into the counts the click
models read (:class:`~ranklens.logs.patterns.LogStats`).

Each batch is validated as :func:`~ranklens.logs.read_log` validates a whole log (errors
name the file and the row), its sessions are reduced to counts and merged with those of
the batches before: memory holds one batch, the counts (which do not grow with the log's
length) and 8 bytes per session to tell a session that comes back. A session's rows must
be consecutive in the file (the last session of a batch is carried over to the next).
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from ranklens.base.errors import EmptyInputError, InputError
from ranklens.base.optional import require
from ranklens.base.types import Int64Array
from ranklens.logs.log import ClickLog
from ranklens.logs.patterns import (
    LogStats,
    Partial,
    finish,
    merge_partials,
    partial_of_sessions,
    patterns_of,
)
from ranklens.logs.read import LONG_NAMES, WIDE_NAMES, check_grouped, file_kind, read_log

BATCH_ROWS = 1 << 20
"""Rows read per record batch."""
MERGE_ROWS = 1 << 21
"""Count rows gathered from batches before they are merged with the earlier ones."""


def patterns_from_source(source: Any) -> LogStats:
    """The counts of ``source``: streamed for a long-layout Parquet path, read whole with
    :func:`~ranklens.logs.read_log` otherwise."""
    if isinstance(source, ClickLog):
        return patterns_of(source)
    if isinstance(source, str | os.PathLike) and file_kind(os.fspath(source)) == "parquet":
        pq = require("pyarrow.parquet", "reading a Parquet click log")
        path = os.fspath(source)
        if not os.path.exists(path):
            raise InputError("no such file", path=path)
        names = pq.ParquetFile(path).schema_arrow.names
        if not any(n in names for n in WIDE_NAMES["doc_ids"]):
            return _stream(path, names)
    return patterns_of(read_log(source))


class _Interner:
    """Ids to codes in order of first sight, over all batches."""

    def __init__(self) -> None:
        self.codes: dict[Any, int] = {}

    def encode(self, column: Any, pc: Any, pa: Any) -> Int64Array:
        encoded = pc.dictionary_encode(column).combine_chunks()
        dictionary = encoded.dictionary.to_pylist()
        codes = self.codes
        table = np.fromiter(
            (codes.setdefault(str(v), len(codes)) for v in dictionary),
            dtype=np.int64,
            count=len(dictionary),
        )
        indices = encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64)
        codes_of_rows: Int64Array = table[indices]
        return codes_of_rows

    def sorted_labels(self) -> tuple[tuple[str, ...], Int64Array]:
        """The labels sorted, and each code's index among them."""
        labels = list(self.codes)
        order = sorted(range(len(labels)), key=labels.__getitem__)
        rank = np.empty(len(labels), dtype=np.int64)
        rank[np.asarray(order, dtype=np.int64)] = np.arange(len(labels), dtype=np.int64)
        return tuple(labels[i] for i in order), rank


class _SeenSessions:
    """The sessions of the batches so far (8 bytes a session: integer ids themselves, other
    ids a 64-bit hash), to tell a session that comes back after others. New keys wait in a
    short list and are merged into the sorted array when they outnumber it (amortised)."""

    def __init__(self) -> None:
        self.merged = np.zeros(0, dtype=np.int64)
        self.pending: list[Int64Array] = []
        self.pending_size = 0

    def add(self, keys: Int64Array) -> int | None:
        """Record the sessions ``keys`` of a batch; the index of the first one seen in an
        earlier batch, or ``None``."""
        found = np.zeros(keys.shape[0], dtype=bool)
        if self.merged.shape[0]:
            at = np.minimum(np.searchsorted(self.merged, keys), self.merged.shape[0] - 1)
            found |= self.merged[at] == keys
        for part in self.pending:
            found |= np.isin(keys, part)
        if found.any():
            return int(np.flatnonzero(found)[0])
        self.pending.append(np.sort(keys))
        self.pending_size += keys.shape[0]
        if self.pending_size >= max(self.merged.shape[0], 1 << 16) or len(self.pending) > 8:
            self.merged = np.sort(np.concatenate([self.merged, *self.pending]))
            self.pending, self.pending_size = [], 0
        return None


def _column(batch: Any, names: list[str], key: str, path: str) -> Any:
    for name in LONG_NAMES[key]:
        if name in names:
            return batch.column(names.index(name))
    raise InputError(
        f"the long click log needs a '{key}' column (columns found: {', '.join(names)}); see "
        "docs/logs.md for the two layouts",
        path=path,
    )


def _stream(path: str, names: list[str]) -> LogStats:
    pq = require("pyarrow.parquet", "reading a Parquet click log")
    pa = require("pyarrow", "reading a Parquet click log")
    pc = require("pyarrow.compute", "reading a Parquet click log")
    keys = ("session_id", "query_id", "doc_id", "position", "clicked")
    wanted = [next((n for n in LONG_NAMES[k] if n in names), k) for k in keys]
    for key, name in zip(keys, wanted, strict=True):
        if name not in names:
            _column(None, names, key, path)
    queries, documents = _Interner(), _Interner()
    seen = _SeenSessions()
    gathered: list[Partial] = []
    gathered_rows = 0
    carry: Any = None
    carry_start = 0
    row_base = 0
    seen_rows = 0
    reader = pq.ParquetFile(path)
    batches = reader.iter_batches(batch_size=BATCH_ROWS, columns=wanted)
    exhausted = False
    while not exhausted:
        batch = next(batches, None)
        if batch is None:
            exhausted = True
            if carry is None or carry.num_rows == 0:
                break
            table = carry
            start = carry_start
        else:
            seen_rows += batch.num_rows
            piece = pa.Table.from_batches([batch])
            table = piece if carry is None else pa.concat_tables([carry, piece])
            start = carry_start if carry is not None else row_base
            row_base += batch.num_rows
        if table.num_rows == 0:
            continue
        session = table.column(0)
        if not exhausted:
            # hold back the last session: it may go on in the next batch
            last = session[-1]
            is_last = pc.equal(session, last).to_numpy(zero_copy_only=False)
            run_start = int(np.flatnonzero(~is_last)[-1] + 1) if (~is_last).any() else 0
            if run_start == 0:
                carry, carry_start = table, start
                continue
            carry = table.slice(run_start)
            carry_start = start + run_start
            table = table.slice(0, run_start)
        else:
            carry = None
        result = _batch_patterns(table, start, path, queries, documents, seen, pa, pc)
        gathered.append(result)
        gathered_rows += result.cells.shape[0] + result.tails.shape[0]
        if gathered_rows >= MERGE_ROWS and len(gathered) > 1:
            merged = merge_partials(gathered)
            gathered, gathered_rows = [merged], merged.cells.shape[0] + merged.tails.shape[0]
    if seen_rows == 0:
        raise EmptyInputError("the click log has no rows", path=path)
    merged = merge_partials(gathered)
    query_labels, query_rank = queries.sorted_labels()
    doc_labels, doc_rank = documents.sorted_labels()
    return finish(merged, query_labels, doc_labels, query_rank, doc_rank)


def _batch_patterns(
    table: Any,
    start: int,
    path: str,
    queries: _Interner,
    documents: _Interner,
    seen: _SeenSessions,
    pa: Any,
    pc: Any,
) -> Partial:
    """The counts of one batch of whole sessions (rows ``start`` ... of the file)."""

    def error(k: int, message: str) -> InputError:
        return InputError(f"row {start + k + 1}: {message}", path=path)

    session, query, doc, position, clicked = (table.column(i) for i in range(5))
    labels = ("session id ('session_id')", "query id ('query_id')")
    for column, what in zip((session, query), labels, strict=True):
        if column.null_count:
            k = int(np.flatnonzero(column.is_null().to_numpy(zero_copy_only=False))[0])
            raise error(k, f"missing {what}: every row needs one")
    if position.null_count or not pa.types.is_integer(position.type):
        values = position.to_pylist()
        for k, v in enumerate(values):
            if not isinstance(v, int):
                raise error(k, f"position {v!r} is not an integer; positions are 1, 2, ...")
    pos = position.to_numpy(zero_copy_only=False).astype(np.int64)
    if (pos < 1).any():
        k = int(np.flatnonzero(pos < 1)[0])
        raise error(k, f"position {int(pos[k])} is not positive; positions start at 1")
    if clicked.null_count or not (
        pa.types.is_boolean(clicked.type) or pa.types.is_integer(clicked.type)
    ):
        values = clicked.to_pylist()
        for k, v in enumerate(values):
            if v not in (True, False):
                raise error(k, f"'clicked' must be true or false (or 1/0), not {v!r}")
    click = clicked.to_numpy(zero_copy_only=False)
    if click.dtype != np.bool_:
        if not np.isin(click, (0, 1)).all():
            k = int(np.flatnonzero(~np.isin(click, (0, 1)))[0])
            raise error(k, f"'clicked' must be true or false (or 1/0), not {click[k]!r}")
        click = click.astype(bool)
    if doc.null_count:
        k = int(np.flatnonzero(doc.is_null().to_numpy(zero_copy_only=False))[0])
        if click[k]:
            raise error(
                k,
                f"a click at position {int(pos[k])}, which shows no document (no doc_id): a "
                "click must be on a shown document",
            )
        raise error(k, f"no document (doc_id) at position {int(pos[k])}")
    encoded = pc.dictionary_encode(session).combine_chunks()
    local = encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64)
    session_names = encoded.dictionary
    # sessions must be runs of consecutive rows
    change = np.flatnonzero(local[1:] != local[:-1]) + 1
    run_starts = np.concatenate(([0], change))
    run_of = local[run_starts]
    if np.unique(run_of).shape[0] != run_of.shape[0]:
        met = np.zeros(len(session_names), dtype=bool)
        for r, s in enumerate(run_of.tolist()):
            if met[s]:
                raise error(
                    int(run_starts[r]),
                    f"session '{session_names[s].as_py()}' appears again after other sessions: a "
                    "streamed Parquet log must keep each session's rows together (sort it by "
                    "session_id), or read it with read_log",
                )
            met[s] = True
    if pa.types.is_integer(session_names.type):  # the ids themselves: exact, no hashing
        keys = session_names.to_numpy(zero_copy_only=False).astype(np.int64)[run_of]
    else:
        names = session_names.to_pylist()
        keys = np.fromiter(
            (hash(str(names[s])) for s in run_of.tolist()), dtype=np.int64, count=run_of.size
        )
    again = seen.add(keys)
    if again is not None:
        raise error(
            int(run_starts[again]),
            f"session '{session_names[int(run_of[again])].as_py()}' appears again after "
            "other sessions: a streamed Parquet log must keep each session's rows together "
            "(sort it by session_id), or read it with read_log",
        )
    run_lengths = np.diff(np.append(run_starts, local.shape[0]))
    imp = np.repeat(np.arange(run_starts.shape[0], dtype=np.int64), run_lengths)
    in_order = np.arange(local.shape[0], dtype=np.int64) - np.repeat(run_starts, run_lengths) + 1
    order = None if np.array_equal(pos, in_order) else np.lexsort((pos, imp))

    def sort(values: Any) -> Any:
        return values if order is None else values[order]

    def row_of(k: int) -> int:
        return k if order is None else int(order[k])

    q = sort(queries.encode(query, pc, pa))
    d = sort(documents.encode(doc, pc, pa))
    query_list = list(queries.codes)
    doc_list = list(documents.codes)
    _, first, counts = check_grouped(
        imp,
        sort(pos),
        q,
        d,
        len(documents.codes),
        lambda k, message: error(row_of(k), message),
        lambda i: str(session_names[int(run_of[i])].as_py()),
        lambda code: query_list[code],
        lambda code: doc_list[code],
        documents=False,
    )
    n_imp = counts.shape[0]
    width = int(counts.max())
    docs = np.full((n_imp, width), -1, dtype=np.int64)
    clicks = np.zeros((n_imp, width), dtype=bool)
    rows = np.repeat(np.arange(n_imp, dtype=np.int64), counts)
    cols = np.arange(rows.shape[0], dtype=np.int64) - np.repeat(first, counts)
    docs[rows, cols] = d
    clicks[rows, cols] = sort(click)
    _check_documents_once(docs, first, error, row_of, doc_list, session_names, run_of)
    return partial_of_sessions(q[first], docs, clicks, counts)


def _check_documents_once(
    docs: Int64Array,
    first: Int64Array,
    error: Any,
    row_of: Any,
    doc_list: list[Any],
    session_names: Any,
    run_of: Int64Array,
) -> None:
    """A document shown twice in one impression is an error naming the later row."""
    width = docs.shape[1]
    padded = np.where(docs >= 0, docs, -1 - np.arange(width)[None, :])  # pads all differ
    ordered = np.sort(padded, axis=1)
    twice = np.flatnonzero((ordered[:, 1:] == ordered[:, :-1]).any(axis=1))
    if not twice.size:
        return
    i = int(twice[0])
    row = ordered[i]
    doc = int(row[1:][row[1:] == row[:-1]][0])
    where = np.flatnonzero(docs[i] == doc)
    raise error(
        row_of(int(first[i] + where[1])),
        f"session '{session_names[int(run_of[i])].as_py()}' shows document "
        f"{doc_list[doc]!r} twice (positions {int(where[0]) + 1} and {int(where[1]) + 1})",
    )
