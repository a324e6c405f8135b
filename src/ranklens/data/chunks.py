"""Reading a run file grouped by query in chunks of whole queries, as a stream.

A TREC run is grouped by query: all lines of a query are together. :func:`query_chunks`
reads such a file a block at a time (plain, or gzip, bzip2 and xz decompressed as a
stream) and cuts each block just before the lines of its last query (which may go on in
the next block), so that every chunk holds whole queries. The cut is found by an
exponential then binary search back from the end of the block on the first field of the
lines, so it costs a few dozen line reads per block. ``ranklens.evaluation.streaming``
evaluates the chunks.
"""

from __future__ import annotations

import io
import os
from collections.abc import Callable, Iterator
from typing import IO, TYPE_CHECKING, Any

import numpy as np

from ranklens.base.errors import DuplicateError, EmptyInputError, InputError
from ranklens.base.progress import Progress
from ranklens.data.source import describe

if TYPE_CHECKING:
    from ranklens.data.run import Run

DEFAULT_CHUNK_BYTES = 16 << 20
"""Bytes of (decompressed) run text read per block: 16 MiB, about 400,000 run lines.

Small enough that every array made per chunk stays under glibc's largest mmap threshold
(32 MiB), so the allocator reuses the memory freed by the previous chunk instead of
mapping fresh pages (first touches cost ~1 ms per MB on some VMs): a 70M-line run took
9.1 s in 16 MiB chunks against 11.6 s in 128 MiB ones, with 0.23 GiB peak instead of
0.82 GiB."""

STREAM_THRESHOLD = 2 << 30
"""A run file larger than this (2 GiB on disk), or than a quarter of the available memory,
is streamed by :meth:`Evaluator.evaluate <ranklens.Evaluator.evaluate>` and ``ranklens
eval`` unless told otherwise."""

_COMPRESSED_RATIO = 5
"""How much larger than its file a compressed run is assumed to be once decompressed."""

_MAGIC = ((b"\x1f\x8b", "gzip"), (b"BZh", "bzip2"), (b"\xfd7zXZ\x00", "xz"))

SORT_HINT = (
    "sort it by query first, keeping the order of the lines within each query: "
    "LC_ALL=C sort -k1,1 -s RUN > RUN.sorted (for a .gz file: zcat RUN.gz | "
    "LC_ALL=C sort -k1,1 -s | gzip > RUN.sorted.gz), or evaluate it in memory "
    "(stream=False, or --no-stream on the command line)"
)


def available_memory() -> int | None:
    """The memory available now, in bytes (``None`` where the system does not say)."""
    try:
        return int(os.sysconf("SC_AVPHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):
        return None


def should_stream(source: object, threshold: int | None = None) -> bool:
    """Whether ``source`` is a run file large enough to stream.

    It is a path to a regular file (not ``-``) whose size, times 5 if it is compressed, is
    over ``threshold`` bytes (default :data:`STREAM_THRESHOLD`) or over a quarter of the
    memory available now. Parquet and JSON lines files (by suffix) are never streamed:
    they are not TREC text, and are read in memory.

    Examples
    --------
    >>> should_stream({"q1": {"d1": 1.0}})
    False
    """
    if not isinstance(source, str | os.PathLike) or os.fspath(source) == "-":
        return False
    if not is_text_source(source):
        return False
    path = os.fspath(source)
    try:
        if not os.path.isfile(path):
            return False
        size = os.path.getsize(path)
        with open(path, "rb") as handle:
            head = handle.read(6)
    except OSError:
        return False
    if any(head.startswith(magic) for magic, _ in _MAGIC):
        size *= _COMPRESSED_RATIO
    limit = STREAM_THRESHOLD if threshold is None else threshold
    available = available_memory()
    if available is not None and threshold is None:
        limit = min(limit, available // 4)
    return size > limit


def is_file_source(source: object) -> bool:
    """Whether ``source`` is a path, ``-`` or a file object."""
    return isinstance(source, str | os.PathLike) or hasattr(source, "read")


def is_text_source(source: object) -> bool:
    """Whether ``source`` is a path, ``-`` or a file object of TREC text (what can be
    streamed): not a Parquet or JSON lines file (by its suffix)."""
    from ranklens.data.kinds import file_kind

    return is_file_source(source) and file_kind(source) is None


def _open_stream(source: object) -> tuple[IO[bytes], bool]:
    """A binary stream of the decompressed text, and whether the caller must close it."""
    if not isinstance(source, str | os.PathLike) or os.fspath(source) == "-":
        if not is_file_source(source):
            name = type(source).__name__
            raise TypeError(f"expected a path or a binary file object, got {name}")
        if isinstance(source, str | os.PathLike):
            import sys

            source = sys.stdin.buffer
        buffered = source if hasattr(source, "peek") else io.BufferedReader(source)  # type: ignore[type-var]
        return _decompressed(buffered, describe(source)), False
    path = os.fspath(source)
    try:
        handle = open(path, "rb")  # noqa: SIM115 (closed by the caller)
    except FileNotFoundError:
        raise InputError("no such file; check the path", path=path) from None
    except IsADirectoryError:
        raise InputError("is a directory, not a file", path=path) from None
    except OSError as exc:
        raise InputError(f"cannot read the file: {exc.strerror or exc}", path=path) from None
    try:
        return _decompressed(handle, path), True
    except BaseException:
        handle.close()
        raise


def _decompressed(handle: Any, name: str) -> IO[bytes]:
    head = handle.peek(6)[:6] if hasattr(handle, "peek") else b""
    for magic, kind in _MAGIC:
        if head.startswith(magic):
            # the codecs are imported for a compressed file only (every evaluation asks
            # should_stream of this module)
            opened: Any
            if kind == "gzip":
                import gzip

                opened = gzip.GzipFile(fileobj=handle, mode="rb")
            elif kind == "bzip2":
                import bz2

                opened = bz2.BZ2File(handle, "rb")
            else:
                import lzma

                opened = lzma.LZMAFile(handle, "rb")  # noqa: SIM115 (closed by the caller)
            stream_of: IO[bytes] = opened
            return stream_of
    stream: IO[bytes] = handle
    return stream


def _file_position(stream: IO[bytes]) -> Callable[[], tuple[int, int]] | None:
    """A function giving how far ``stream`` has read into its file and the file's size
    (the compressed file's, under a decompressor), or None without a sized file."""
    raw: Any = getattr(stream, "fileobj", None) or getattr(stream, "_fp", None) or stream
    try:
        size = os.fstat(raw.fileno()).st_size
        raw.tell()
    except (AttributeError, OSError, ValueError):  # io.UnsupportedOperation is both
        return None
    if size <= 0:
        return None

    def position() -> tuple[int, int]:
        return min(int(raw.tell()), size), int(size)

    return position


def _read(stream: IO[bytes], size: int, name: str) -> bytes:
    import lzma
    import zlib

    try:
        return stream.read(size)
    except (OSError, EOFError, lzma.LZMAError, zlib.error) as exc:
        raise InputError(
            f"is not a valid compressed file: it is corrupt or truncated ({exc})", path=name
        ) from None


def _newlines(chunk: bytes) -> int:
    """How many ``\n`` bytes ``chunk`` holds (numpy's compare and count: about 3x
    ``bytes.count`` here)."""
    return int(np.count_nonzero(np.frombuffer(chunk, dtype=np.uint8) == 10))


def _qid_of_line(block: bytes, start: int) -> bytes | None:
    """The query id of the line starting at ``start``; ``None`` for a blank or '#' line."""
    stop = block.find(b"\n", start)
    fields = block[start : stop if stop >= 0 else len(block)].split(None, 1)
    if not fields or fields[0].startswith(b"#"):
        return None
    return fields[0]


def _data_line_at(block: bytes, pos: int) -> tuple[bytes | None, int]:
    """The query id and start of the last data line starting at or before the line that
    holds byte ``pos`` (``(None, 0)`` if there is none)."""
    start = block.rfind(b"\n", 0, pos) + 1
    while True:
        qid = _qid_of_line(block, start)
        if qid is not None:
            return qid, start
        if start == 0:
            return None, 0
        start = block.rfind(b"\n", 0, start - 1) + 1


def query_cut(block: bytes, end: int) -> int:
    """Where the lines of the last query of ``block[:end]`` (complete lines) begin: the
    block is cut there, the rest goes on with the next block. 0 if the whole block is one
    query; ``end`` if it holds no data line.

    Examples
    --------
    >>> text = b"q1 Q0 a 1 1 t\\nq1 Q0 b 2 0 t\\nq2 Q0 a 1 1 t\\n"
    >>> query_cut(text, len(text))
    28
    """
    last, last_start = _data_line_at(block, end - 1)
    if last is None:
        return end
    hi, step = last_start, 1 << 12
    while True:  # exponential search back for a line of another query
        if hi == 0:
            return 0
        qid, start = _data_line_at(block, max(hi - step, 0))
        if qid is None:
            return 0
        if qid != last:
            lo = max(hi - step, 0)
            break
        hi, step = start, step * 2
    while hi - lo > 1:  # binary search between a position of another query and one of last
        mid = (lo + hi) // 2
        qid, start = _data_line_at(block, mid)
        if qid == last:
            hi = start if start > lo else mid
        else:
            lo = mid
    return _data_line_at(block, hi)[1]


def query_chunks(
    source: object, chunk_bytes: int = DEFAULT_CHUNK_BYTES, progress: Progress | None = None
) -> Iterator[tuple[bytes, int]]:
    """The run text in chunks of whole lines cut where the query id changes, each with the
    line number of its first line. A query longer than ``chunk_bytes`` makes its chunk
    longer; a chunk ends with a newline unless it is the end of the file. ``progress`` is
    called with the bytes of the file read (compressed, for a compressed file) and its
    size, after each block, when the file has a size (not a pipe)."""
    stream, close = _open_stream(source)
    name = describe(source)
    position = _file_position(stream) if progress is not None else None
    try:
        carried = b""
        line = 1
        while True:
            data = _read(stream, chunk_bytes, name)
            if position is not None and progress is not None:
                progress(*position())
            block = carried + data if carried else data
            if not data:
                if block:
                    yield block, line
                return
            end = block.rfind(b"\n") + 1
            cut = 0 if end == 0 else query_cut(block, end)
            if cut == 0:
                carried = block
                continue
            chunk, carried = block[:cut], block[cut:]
            yield chunk, line
            line += _newlines(chunk)
    finally:
        if close:
            close_stream(stream)


def close_stream(stream: IO[bytes]) -> None:
    """Close a stream of :func:`_open_stream` and the file under its decompressor (a
    ``GzipFile`` given a file object leaves that file open)."""
    inner = getattr(stream, "fileobj", None) or getattr(stream, "_fp", None)
    stream.close()
    if inner is not None and hasattr(inner, "close"):
        inner.close()


class ChunkFile:
    """A chunk of text as a file object whose ``read`` returns it without a copy (for the
    readers, which take a path or a file object)."""

    name = "<chunk>"

    def __init__(self, data: bytes) -> None:
        self._data = data

    def read(self) -> bytes:
        return self._data


def shift_error(exc: InputError, name: str, first_line: int) -> InputError:
    """``exc``, raised on a chunk that starts at line ``first_line`` of the file ``name``,
    with the file's name and line numbers."""

    def shift(n: int | None) -> int | None:
        return None if n is None else n + first_line - 1

    if isinstance(exc, DuplicateError):
        message, lines = exc.message, exc.lines
        if lines is not None:
            shifted = (first_line - 1 + lines[0], first_line - 1 + lines[1])
            for unit in ("lines", "rows"):  # the chunk's numbers in the message, if it has them
                message = message.replace(
                    f"({unit} {lines[0]} and {lines[1]})", f"(lines {shifted[0]} and {shifted[1]})"
                )
            lines = shifted
        return DuplicateError(
            message, path=name, lines=lines, query=exc.query, document=exc.document
        )
    kind = type(exc)
    return kind(exc.message, path=name, line=shift(exc.line))


def check_grouped(run: Run, seen: dict[str, int], first_line: int, where: str) -> None:
    """Raise :class:`InputError` (with how to sort the file) if a query of ``run`` (a chunk
    starting at line ``first_line``) was in an earlier chunk; record its queries in ``seen``
    (query id to the first line of the chunk that held it)."""
    again = [q for q in run.qids if q in seen]
    if again:
        qid = again[0]
        j = run.query_index()[qid]
        lines = run.lines
        line = None
        if lines is not None:
            a, b = int(run.q_offsets[j]), int(run.q_offsets[j + 1])
            line = int(np.min(lines[a:b])) + first_line - 1
        raise InputError(
            f"the run is not grouped by query: query '{qid}' appears again after lines of "
            f"other queries (it was seen before line {seen[qid]}). A large run is read in "
            f"chunks cut where the query id changes, which needs all lines of a query "
            f"together; {SORT_HINT}",
            path=where,
            line=line,
        )
    for q in run.qids:
        seen[q] = first_line


def grouped_runs(
    source: object,
    chunk_bytes: int,
    read: Callable[[IO[bytes]], Run],
    progress: Progress | None = None,
) -> Iterator[Run]:
    """The run file ``source`` (grouped by query) as one :class:`Run` per chunk of whole
    queries, each made by ``read`` from the chunk's text.

    A chunk of only blank and '#' lines is skipped; an error in a chunk names the file and
    its line; a query whose lines fall in two chunks raises :class:`InputError` with how to
    sort the file (:func:`check_grouped`).

    Raises
    ------
    EmptyInputError
        The file holds no run lines.
    """
    where = describe(source)
    seen: dict[str, int] = {}
    size = max(int(chunk_bytes), 1)
    # (without progress, called as before: tests substitute a two-argument query_chunks)
    chunks = query_chunks(source, size, progress) if progress else query_chunks(source, size)
    for chunk, first_line in chunks:
        try:
            run = read(ChunkFile(chunk))  # type: ignore[arg-type]
        except EmptyInputError:
            continue  # only blank and '#' lines
        except InputError as exc:
            raise shift_error(exc, where, first_line) from None
        check_grouped(run, seen, first_line, where)
        yield run
    if not seen:
        raise EmptyInputError(
            "holds no run lines (the file is empty, or has only blank and '#' lines)", path=where
        )
