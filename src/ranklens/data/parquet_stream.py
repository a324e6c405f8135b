"""Reading a Parquet run larger than memory in chunks of whole queries, as a stream.

A Parquet run (one file, a directory of files, possibly hive-partitioned as
``query_id=q1/part-0.parquet``, or a glob) is read a record batch at a time
(:meth:`pyarrow.parquet.ParquetFile.iter_batches`, one file open at a time, only the
columns used). Batches are gathered until they hold about ``chunk_rows`` rows; the
chunk is then cut just before the rows of its last query, which go on with the next
chunk, so that every chunk holds whole queries when the run is grouped by query, as the
TREC text chunks of :mod:`ranklens.data.chunks` do. Each chunk goes to the native readers
as an Arrow table (:func:`ranklens.data.frames.from_frame`, no Python objects), and
becomes one :class:`~ranklens.Run`; ``ranklens.evaluation.streaming`` evaluates them.

The next chunks are read and turned into runs by a thread of their own while one is
evaluated (:func:`read_ahead`), so memory is bounded by three chunks (each fewer than
``chunk_rows`` plus one batch plus the longest query's rows) and the batch being decoded.
A query whose rows fall in two chunks is an :class:`~ranklens.base.errors.InputError`
saying how to sort the run.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ranklens.base.errors import DuplicateError, EmptyInputError, InputError
from ranklens.base.optional import require
from ranklens.base.progress import Progress
from ranklens.base.types import DuplicatePolicy
from ranklens.data.frames import DOC_NAMES, QID_NAMES, RANK_COLUMN, SCORE_NAMES, from_frame
from ranklens.data.kinds import PLAIN_PARQUET as _PLAIN_PARQUET
from ranklens.data.kinds import has_glob as _has_glob
from ranklens.data.kinds import is_data_file as _is_data_file
from ranklens.data.kinds import is_parquet_dataset as is_parquet_dataset
from ranklens.data.kinds import is_parquet_source as is_parquet_source
from ranklens.data.table_files import PARQUET_SUFFIXES, RUN_KEY

if TYPE_CHECKING:
    from ranklens.data.run import Run

DEFAULT_CHUNK_ROWS = 1 << 19
"""Rows of a Parquet run gathered per chunk (524,288: about the 16 MiB of TREC text of
:data:`ranklens.data.chunks.DEFAULT_CHUNK_BYTES`)."""

DEFAULT_BATCH_ROWS = 1 << 16
"""Rows per record batch read from a Parquet file (65,536)."""

TEXT_BYTES_PER_ROW = 40
"""A Parquet run is streamed automatically when the same run as TREC text would be: its
row count times this (a TREC run line's typical length; 38.6 bytes in the msmarco-shaped
benchmark run) against :data:`ranklens.data.chunks.STREAM_THRESHOLD`."""

PARQUET_SORT_HINT = (
    "sort it by query first, keeping the order of the rows within each query, e.g. with "
    "polars: pl.scan_parquet(RUN).sort(QUERY_COLUMN, maintain_order=True)"
    ".sink_parquet(SORTED), or evaluate it in memory (stream=False, or --no-stream on the "
    "command line)"
)


def _directory_files(path: str) -> list[str]:
    found: list[str] = []
    for root, dirs, files in os.walk(path):
        dirs[:] = sorted(d for d in dirs if not d.startswith(("_", ".")))
        found.extend(os.path.join(root, f) for f in sorted(files) if _is_data_file(f))
    return found


@dataclass(frozen=True)
class ParquetSource:
    """The files of a Parquet run, in the order they are read, with the hive partition
    values (``key=value`` folders) of each.

    Attributes
    ----------
    where : the path or glob as given (for messages).
    files : the data files, in path order.
    partitions : for each file, ``{column: value}`` from its folders below the base.
    """

    where: str
    files: tuple[str, ...]
    partitions: tuple[dict[str, str | None], ...]


def _hive_values(path: str, base: str) -> dict[str, str | None]:
    """The ``key=value`` folders of ``path`` below ``base`` (values URL-decoded, as
    pyarrow's hive partitioning reads them; ``__HIVE_DEFAULT_PARTITION__`` is missing)."""
    relative = os.path.relpath(os.path.dirname(path), base)
    values: dict[str, str | None] = {}
    if relative in (".", ""):
        return values
    for part in relative.split(os.sep):
        key, sep, value = part.partition("=")
        if sep and key:
            from urllib.parse import unquote

            decoded = unquote(value)
            values[key] = None if decoded == "__HIVE_DEFAULT_PARTITION__" else decoded
    return values


def _glob_base(pattern: str) -> str:
    """The folder of ``pattern`` above its first component holding a glob character."""
    parts = pattern.split(os.sep)
    fixed: list[str] = []
    for part in parts[:-1]:
        if _has_glob(part):
            break
        fixed.append(part)
    return os.sep.join(fixed) or ("." if not pattern.startswith(os.sep) else os.sep)


def parquet_source(source: str | os.PathLike[str]) -> ParquetSource:
    """The files of the Parquet run ``source`` (a file, a directory or a glob).

    Raises
    ------
    InputError
        Nothing matches, or the directory holds no Parquet file.
    """
    where = os.fspath(source)
    if os.path.isfile(where):
        return ParquetSource(where, (where,), ({},))
    if os.path.isdir(where):
        files = _directory_files(where)
        base = where
        if not files:
            raise InputError("is a directory without Parquet files (*.parquet, *.pq)", path=where)
    elif _has_glob(where):
        import glob

        files = sorted(p for p in glob.glob(where, recursive=True) if os.path.isfile(p))
        base = _glob_base(where)
        if not files:
            raise InputError("no file matches this pattern; check the path", path=where)
    else:
        raise InputError("no such file; check the path", path=where)
    return ParquetSource(where, tuple(files), tuple(_hive_values(f, base) for f in files))


def _open_file(path: str, pq: Any, pa: Any) -> Any:
    try:
        if path.lower().endswith(PARQUET_SUFFIXES) and not path.lower().endswith(_PLAIN_PARQUET):
            from ranklens.data.source import read_binary  # compressed as a whole

            return pq.ParquetFile(pa.BufferReader(read_binary(path)[0]), pre_buffer=False)
        # pre_buffer=False: with it, the reader keeps every row group's bytes it has read
        # until the file is closed (0.6 GiB more at 70M rows; measured 2026-11-24)
        return pq.ParquetFile(path, pre_buffer=False)
    except FileNotFoundError:
        raise InputError("no such file; check the path", path=path) from None
    except (OSError, pa.ArrowException) as exc:
        raise InputError(
            f"cannot read it as Parquet: it is empty, truncated or not a Parquet file ({exc})",
            path=path,
        ) from None


def parquet_row_count(source: object) -> int | None:
    """The rows of a Parquet run, from the files' footers (``None`` when it is not a
    Parquet run that can be opened, or is compressed as a whole)."""
    if not is_parquet_source(source):
        return None
    pq = require("pyarrow.parquet", "Reading Parquet")
    try:
        files = parquet_source(source).files  # type: ignore[arg-type]
        if any(not f.lower().endswith(_PLAIN_PARQUET) for f in files):
            return None
        return sum(int(pq.read_metadata(f).num_rows) for f in files)
    except (InputError, OSError, ValueError):
        return None
    except Exception:  # pyarrow's ArrowInvalid (not a Parquet file): not ours to decide
        return None


def _pick(
    names: list[str], wanted: str | None, candidates: tuple[str, ...], what: str, where: str
) -> str:
    if wanted is not None:
        if wanted not in names:
            raise InputError(f"has no column '{wanted}' (columns: {names})", path=where)
        return wanted
    for name in candidates:
        if name in names:
            return name
    raise InputError(
        f"has no {what} column: name one of {list(candidates)} (columns present: {names})",
        path=where,
    )


@dataclass(frozen=True)
class _Columns:
    query: str
    doc: str
    score: str
    used: tuple[str, ...]


def _columns_of(
    names: list[str],
    where: str,
    given: tuple[str | None, str | None, str | None] = (None, None, None),
    ranks: bool = True,
) -> _Columns:
    query = _pick(names, given[0], QID_NAMES, "query id", where)
    doc = _pick(names, given[1], DOC_NAMES, "document id", where)
    score = _pick(names, given[2], SCORE_NAMES, "score", where)
    used = list(dict.fromkeys([query, doc, score]))
    if ranks and RANK_COLUMN in names and RANK_COLUMN not in used:
        used.append(RANK_COLUMN)
    return _Columns(query, doc, score, tuple(used))


def _constant(value: str | None, rows: int, pa: Any) -> Any:
    """A column holding ``value`` in every row, as a dictionary array (one string)."""
    if value is None:
        return pa.nulls(rows, pa.string())
    indices = pa.array(np.zeros(rows, dtype=np.int32))
    return pa.DictionaryArray.from_arrays(indices, pa.array([value], pa.string()))


def _first_file(
    source: ParquetSource,
    pq: Any,
    pa: Any,
    given: tuple[str | None, str | None, str | None] = (None, None, None),
    ranks: bool = True,
) -> tuple[Any, _Columns]:
    """The run's first file, opened, and the columns picked from it and its hive folders
    (``rank`` only with ``ranks``)."""
    first = _open_file(source.files[0], pq, pa)
    names = [
        *first.schema_arrow.names,
        *(k for k in source.partitions[0] if k not in first.schema_arrow.names),
    ]
    return first, _columns_of(names, source.where, given, ranks)


def _present(
    handle: Any, used: tuple[str, ...], hive: dict[str, str | None], path: str, where: str
) -> tuple[set[str], list[str]]:
    """The columns the file ``handle`` holds, and those of ``used`` to read from it.

    Raises
    ------
    InputError
        It lacks a column that its hive folders do not give either (``rank`` may be
        missing).
    """
    present = set(handle.schema_arrow.names)
    missing = [c for c in used if c not in present and c not in hive]
    if missing and missing != [RANK_COLUMN]:
        raise InputError(
            f"has no column {missing[0]!r} (the first file of {where} has it)", path=path
        )
    return present, [c for c in used if c in present]


def source_batches(
    source: ParquetSource, batch_rows: int = DEFAULT_BATCH_ROWS, ranks: bool = True
) -> tuple[Iterator[Any], _Columns, str | None]:
    """The record batches of a Parquet run (only the columns used, hive partition
    columns added; the ``rank`` column only with ``ranks``), the columns picked, and the
    run name saved in the first file.

    Raises
    ------
    InputError
        A file cannot be read as Parquet, or lacks a column (naming the file).
    """
    pa = require("pyarrow", "Reading Parquet")
    pq = require("pyarrow.parquet", "Reading Parquet")
    first, columns = _first_file(source, pq, pa, ranks=ranks)
    saved = (first.schema_arrow.metadata or {}).get(RUN_KEY)
    name = None
    if saved:
        try:
            name = saved.decode("utf-8")
        except UnicodeDecodeError:
            raise InputError(
                f"the run name saved in it ({RUN_KEY.decode()} metadata) is not UTF-8 text; "
                "pass a name for the run",
                path=source.files[0],
            ) from None

    def batches() -> Iterator[Any]:
        for index, (path, hive) in enumerate(zip(source.files, source.partitions, strict=True)):
            handle = first if index == 0 else _open_file(path, pq, pa)
            present, read = _present(handle, columns.used, hive, path, source.where)
            try:
                for batch in handle.iter_batches(batch_size=batch_rows, columns=read):
                    rows = batch.num_rows
                    arrays = [
                        batch.column(c) if c in present else _constant(hive.get(c), rows, pa)
                        for c in columns.used
                    ]
                    yield pa.RecordBatch.from_arrays(arrays, names=list(columns.used))
            except pa.ArrowException as exc:
                raise InputError(f"cannot read it as Parquet ({exc})", path=path) from None

    return batches(), columns, name


def run_columns_of(
    source: ParquetSource, given: tuple[str | None, str | None, str | None] = (None, None, None)
) -> tuple[str, str, str, tuple[str, ...]]:
    """The query, document and score columns of a Parquet run (from its first file and
    hive folders; the usual names unless ``given``), and every column read (with ``rank``
    where there is one).

    Raises
    ------
    InputError
        The first file cannot be read as Parquet, or lacks a column.
    """
    pa = require("pyarrow", "Reading Parquet")
    pq = require("pyarrow.parquet", "Reading Parquet")
    columns = _first_file(source, pq, pa, given)[1]
    return columns.query, columns.doc, columns.score, columns.used


def row_group_rows(path: str) -> list[int]:
    """The rows of each row group of the Parquet file ``path`` (from its footer).

    Raises
    ------
    InputError
        It cannot be read as Parquet (or is compressed as a whole: its row groups cannot
        be read one by one).
    """
    pa = require("pyarrow", "Reading Parquet")
    pq = require("pyarrow.parquet", "Reading Parquet")
    if not path.lower().endswith(_PLAIN_PARQUET):
        raise InputError(
            "is compressed as a whole: its row groups cannot be read apart; decompress it",
            path=path,
        )
    meta = _open_file(path, pq, pa).metadata
    return [int(meta.row_group(k).num_rows) for k in range(meta.num_row_groups)]


def read_row_groups(
    path: str,
    hive: dict[str, str | None],
    groups: Iterable[int],
    used: tuple[str, ...],
    where: str,
) -> Any:
    """The row groups ``groups`` of the Parquet file ``path`` (of the run ``where``) as one
    Arrow table of the columns ``used`` (a hive folder's value where the file lacks the
    column; ``rank`` may be missing).

    Raises
    ------
    InputError
        The file cannot be read as Parquet, or lacks a column.
    """
    pa = require("pyarrow", "Reading Parquet")
    pq = require("pyarrow.parquet", "Reading Parquet")
    handle = _open_file(path, pq, pa)
    present, read = _present(handle, used, hive, path, where)
    try:
        table = handle.read_row_groups(list(groups), columns=read)
    except pa.ArrowException as exc:
        raise InputError(f"cannot read it as Parquet ({exc})", path=path) from None
    names = [c for c in used if c in present or c in hive]
    arrays = [
        table.column(c) if c in present else _constant(hive.get(c), table.num_rows, pa)
        for c in names
    ]
    return pa.table(arrays, names=names)


def _last_query_start(column: Any, pa: Any, pc: Any) -> int:
    """Where the rows of the last query of ``column`` begin (0 if it is one query)."""
    if pa.types.is_dictionary(column.type):
        column = column.dictionary_decode()
    last = column[len(column) - 1]
    if not last.is_valid:
        return len(column) - 1  # a missing id: the reader says so with its row
    other = pc.not_equal(column, last).to_numpy(zero_copy_only=False)
    at = np.flatnonzero(other)
    return int(at[-1]) + 1 if at.shape[0] else 0


def _same_schema(batch: Any, schema: Any, where: str) -> Any:
    """``batch`` with the types of ``schema`` (the first batch's): files of one run may
    have written a column as ``string`` or ``large_string``, plain or dictionary."""
    if batch.schema.equals(schema):
        return batch
    try:
        return batch.cast(schema)
    except Exception as exc:  # ArrowInvalid, ArrowNotImplementedError
        raise InputError(
            f"its files hold a column in types that cannot be read as one ({batch.schema} "
            f"against {schema}: {exc}); write every file with the same types",
            path=where,
        ) from None


def query_tables(
    batches: Iterable[Any], query: str, chunk_rows: int, where: str = "<parquet>"
) -> Iterator[tuple[Any, int]]:
    """Record batches gathered into Arrow tables of about ``chunk_rows`` rows, each cut
    just before the rows of its last query (which go on with the next table), with the
    number of rows before it. A table holds fewer than ``chunk_rows`` rows plus one batch
    plus the longest query's rows; batches are read only as needed (no read-ahead).

    Examples
    --------
    >>> import pyarrow as pa
    >>> b = pa.record_batch({"query_id": ["q1", "q1", "q2", "q2", "q3"], "x": [1, 2, 3, 4, 5]})
    >>> [(t.column("query_id").to_pylist(), first) for t, first in query_tables([b], "query_id", 2)]
    [(['q1', 'q1', 'q2', 'q2'], 0), (['q3'], 4)]
    """
    pa = require("pyarrow", "Reading Parquet")
    pc = require("pyarrow.compute", "Reading Parquet")
    limit = max(int(chunk_rows), 1)
    pending: list[Any] = []
    held = 0
    before = 0
    schema = None
    for batch in batches:
        rows = batch.num_rows
        if rows == 0:
            continue
        if schema is None:
            schema = batch.schema
        batch = _same_schema(batch, schema, where)
        if held + rows < limit:
            pending.append(batch)
            held += rows
            continue
        cut = _last_query_start(batch.column(query), pa, pc)
        if cut == 0:  # the whole batch is the last query: it goes on
            pending.append(batch)
            held += rows
            continue
        pending.append(batch.slice(0, cut))
        yield pa.Table.from_batches(pending, schema), before
        before += held + cut
        pending = [batch.slice(cut)]
        held = rows - cut
    if held:
        yield pa.Table.from_batches(pending, schema), before


def check_grouped_rows(
    run: Run, seen: dict[str, int], first_row: int, where: str, query: str
) -> None:
    """Raise :class:`InputError` (with how to sort the run) if a query of ``run`` (a chunk
    whose first row is ``first_row``, from 1) was in an earlier chunk; record its queries
    in ``seen`` (query id to the first row of the chunk that held it)."""
    if not seen.keys().isdisjoint(run.qids):  # (set operations: no loop per query in Python)
        qid = next(q for q in run.qids if q in seen)
        j = run.query_index()[qid]
        row = None
        if run.lines is not None:
            a, b = int(run.q_offsets[j]), int(run.q_offsets[j + 1])
            row = int(np.min(run.lines[a:b]))
        hint = PARQUET_SORT_HINT.replace("QUERY_COLUMN", repr(query))
        raise InputError(
            f"the run is not grouped by query: query '{qid}' appears again after rows of "
            f"other queries (it was seen before row {seen[qid]}). A large Parquet run is "
            f"read in chunks cut where the query id changes, which needs all rows of a "
            f"query together; {hint}",
            path=where,
            line=row,
        )
    seen.update(dict.fromkeys(run.qids, first_row))


def parquet_runs(
    source: str | os.PathLike[str],
    name: str | None = None,
    duplicates: DuplicatePolicy = "error",
    chunk_rows: int | None = None,
    batch_rows: int | None = None,
    progress: Progress | None = None,
    ranks: bool = True,
) -> Iterator[Run]:
    """The Parquet run ``source`` (a file, a directory or a glob; grouped by query) as
    one :class:`~ranklens.Run` per chunk of whole queries, named ``name``, else the name
    saved in the (first) file, else the file's or folder's name, as
    :meth:`Run.from_parquet <ranklens.Run.from_parquet>` names it. Chunks gather about
    ``chunk_rows`` rows (default :data:`DEFAULT_CHUNK_ROWS`) from batches of
    ``batch_rows`` (default :data:`DEFAULT_BATCH_ROWS`). ``progress`` is called with the
    rows read and the rows of the run (from the footers) after each chunk. The ``rank``
    column (read only by ``ties="rank"``) is read only with ``ranks``.

    Rows are counted from 1 over the files in path order in messages (the row of a
    file, for a dataset of several); a query whose rows fall in two chunks raises
    :class:`InputError` with how to sort the run (:func:`check_grouped_rows`).

    Raises
    ------
    EmptyInputError
        The run holds no rows.
    """
    from ranklens.data.run import Run

    parquet = parquet_source(source)
    batches, columns, saved = source_batches(parquet, batch_rows or DEFAULT_BATCH_ROWS, ranks)
    where = parquet.where
    the_name = name or saved or os.path.basename(where.rstrip(os.sep)) or where
    starts = file_starts(parquet) if len(parquet.files) > 1 else [0]
    total = parquet_row_count(where) if progress is not None else None
    seen: dict[str, int] = {}

    def read_chunks() -> Iterator[tuple[Run, int]]:
        chunks = query_tables(batches, columns.query, chunk_rows or DEFAULT_CHUNK_ROWS, where)
        for table, before in chunks:
            try:
                read = from_frame(
                    table,
                    False,
                    columns.query,
                    columns.doc,
                    columns.score,
                    source=where,
                    first_row=before + 1,
                )
            except InputError as exc:
                raise in_file(exc, parquet, starts) from None
            values = read.pop("values")
            run = Run(scores=values, name=the_name, **read).deduplicated(duplicates)
            check_grouped_rows(run, seen, before + 1, where, columns.query)
            yield run, before + table.num_rows

    # the next chunk is read, turned into columns, checked for duplicates and for queries
    # seen before while this one is evaluated (see read_ahead)
    for run, read_rows in read_ahead(read_chunks()):
        if progress is not None and total:
            progress(min(read_rows, total), total)
        yield run
    if not seen:
        raise EmptyInputError("holds no entries", path=where)


_END = object()


def read_ahead(items: Iterator[Any]) -> Iterator[Any]:
    """``items``, each produced by a thread of its own one item ahead of the consumer: the
    next chunk of a streamed run is read from Parquet, turned into columns and checked
    (pyarrow and the native core, which let go of the interpreter, do most of it) while
    this one is evaluated.
    Memory holds one chunk more. An exception of ``items`` is raised where it would
    have been (after the items before it). Not with ``RANKLENS_NUM_THREADS=1`` or on
    one core, where the items are produced in turn as before.
    """
    if os.environ.get("RANKLENS_NUM_THREADS", "").strip() == "1" or (os.cpu_count() or 1) < 2:
        yield from items
        return
    import queue
    import threading

    slots: queue.Queue[tuple[bool, Any]] = queue.Queue(maxsize=1)
    stop = threading.Event()

    def offer(outcome: tuple[bool, Any]) -> bool:
        while not stop.is_set():
            try:
                slots.put(outcome, timeout=0.05)
                return True
            except queue.Full:
                continue
        return False

    def produce() -> None:
        try:
            for item in items:
                if not offer((True, item)):
                    return
        except BaseException as exc:  # handed to the consumer, raised there
            offer((False, exc))
            return
        offer((True, _END))

    worker = threading.Thread(target=produce, name="ranklens-read-ahead", daemon=True)
    worker.start()
    try:
        while True:
            ok, item = slots.get()
            if not ok:
                raise item
            if item is _END:
                return
            yield item
    finally:
        stop.set()
        worker.join()


def file_starts(parquet: ParquetSource) -> list[int]:
    """The first row (from 0) of each file of a dataset, from the footers."""
    pq = require("pyarrow.parquet", "Reading Parquet")
    starts: list[int] = []
    total = 0
    for path in parquet.files:
        starts.append(total)
        try:
            total += int(pq.read_metadata(path).num_rows)
        except Exception:  # unreadable or compressed as a whole: the reader says why
            return [0]
    return starts


def in_file(exc: InputError, parquet: ParquetSource, starts: list[int]) -> InputError:
    """``exc`` (rows counted over the whole dataset) naming the file and its row."""
    if len(starts) < 2 or exc.line is None or isinstance(exc, DuplicateError):
        return exc
    index = int(np.searchsorted(np.asarray(starts), exc.line - 1, side="right")) - 1
    kind = type(exc)
    return kind(exc.message, path=parquet.files[index], line=exc.line - starts[index])


def should_stream_parquet(source: object, threshold: int | None = None) -> bool:
    """Whether ``source`` is a Parquet run to stream: a directory or a glob of Parquet
    files always; one file when the same run as TREC text would be streamed, its row
    count times :data:`TEXT_BYTES_PER_ROW` being over ``threshold`` bytes (default
    :data:`~ranklens.data.chunks.STREAM_THRESHOLD`, 2 GiB: about 54 million rows) or over
    a quarter of the memory available now. A file compressed as a whole is not streamed
    unless asked (its rows are not known without decompressing it).

    Examples
    --------
    >>> should_stream_parquet("run.txt")
    False
    """
    from ranklens.data.chunks import STREAM_THRESHOLD, available_memory

    if not is_parquet_source(source):
        return False
    if is_parquet_dataset(source):
        return True
    rows = parquet_row_count(source)
    if rows is None:
        return False
    limit = STREAM_THRESHOLD if threshold is None else threshold
    available = available_memory()
    if available is not None and threshold is None:
        limit = min(limit, available // 4)
    return rows * TEXT_BYTES_PER_ROW > limit


def read_parquet_run(
    source: str | os.PathLike[str], name: str | None = None, duplicates: DuplicatePolicy = "error"
) -> Run:
    """The whole Parquet run ``source`` (a file, a directory or a glob) in memory, read by
    the same reader as :func:`parquet_runs` (the same columns, hive partition values and
    name), but grouped by the in-memory reader: its queries need not be contiguous."""
    from ranklens.data.run import Run

    pa = require("pyarrow", "Reading Parquet")
    parquet = parquet_source(source)
    batches, columns, saved = source_batches(parquet)
    where = parquet.where
    pieces: list[Any] = []
    schema = None
    for batch in batches:
        schema = batch.schema if schema is None else schema
        pieces.append(_same_schema(batch, schema, where))
    if not pieces:
        raise EmptyInputError("holds no entries", path=where)
    table = pa.Table.from_batches(pieces, schema)
    starts = file_starts(parquet) if len(parquet.files) > 1 else [0]
    try:
        read = from_frame(
            table, False, columns.query, columns.doc, columns.score, source=where, first_row=1
        )
    except InputError as exc:
        raise in_file(exc, parquet, starts) from None
    values = read.pop("values")
    the_name = name or saved or os.path.basename(where.rstrip(os.sep)) or where
    return Run(scores=values, name=the_name, **read).deduplicated(duplicates)


def parquet_run_name(source: str | os.PathLike[str]) -> str:
    """The name a Parquet run read from ``source`` gets without one given: the name saved
    in its (first) file, else its file's or folder's name (as :func:`parquet_runs`)."""
    where = os.fspath(source)
    fallback = os.path.basename(where.rstrip(os.sep)) or where
    try:
        saved = _saved_name(where)
        return str(saved.decode("utf-8")) if saved else fallback
    except Exception:  # unreadable, or not UTF-8: the reader says why, or the plain name
        return fallback


def _saved_name(where: str) -> bytes | None:
    """The run name saved in the first file of the Parquet run ``where`` (raw bytes), if
    any; raises what opening it raises."""
    pq = require("pyarrow.parquet", "Reading Parquet")
    first = parquet_source(where).files[0]
    return (pq.read_schema(first).metadata or {}).get(RUN_KEY)


def parquet_default_name(source: object) -> str | None:
    """The name ``ranklens eval`` gives a Parquet run read alone: the name saved in its
    (first) file, else its file stem (``runs/bm25.parquet`` is ``bm25``); ``None`` for
    anything else, or a file that cannot be read (the reader then says why)."""
    from ranklens.data.naming import file_stem

    if not is_parquet_source(source):
        return None
    where = os.fspath(source)  # type: ignore[call-overload]
    try:
        if not parquet_source(where).files[0].lower().endswith(_PLAIN_PARQUET):
            return None
        saved = _saved_name(where)
    except Exception:  # InputError, OSError, ArrowInvalid: the reader reports it
        return None
    if saved:
        try:
            return str(saved.decode("utf-8"))
        except UnicodeDecodeError:
            return None
    return file_stem(where.rstrip(os.sep))
