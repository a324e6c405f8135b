"""Getting the bytes of a TREC file: paths, ``-`` for stdin, compression by magic number."""

from __future__ import annotations

import mmap
import os
import re
import stat
import sys
from typing import IO

from ranklens.base.errors import DuplicateError, InputError, ParseError, ResourceError

Source = str | os.PathLike[str] | IO[bytes] | IO[str]

_MAGIC = ((b"\x1f\x8b", "gzip"), (b"BZh", "bzip2"), (b"\xfd7zXZ\x00", "xz"))
_BOM = BOM = b"\xef\xbb\xbf"
_LONE_CR = re.compile(rb"\r(?!\n)")
ZIP_MESSAGE = (
    "is a zip archive, which ranklens does not read: unzip it (unzip FILE) and give the "
    "file inside (plain text, .gz, .bz2 or .xz)"
)
LONE_CR_MESSAGE = (
    "has a carriage return (\\r) that does not end a line: the file seems to use "
    "classic-Mac line ends, which ranklens does not read (they would make it one long "
    "line); convert them first, e.g. tr '\\r' '\\n' < FILE > FILE.unix"
)
"""The error for a carriage return that does not end a line (also the native parser's,
which finds it while it reads the lines: ``parse_trec(..., lone_cr=True)``)."""


def describe(source: object) -> str:
    """The name used for ``source`` in messages."""
    if isinstance(source, str | os.PathLike):
        text = os.fspath(source)
        return "<stdin>" if text == "-" else str(text)
    name = getattr(source, "name", None)
    return str(name) if isinstance(name, str) else "<stream>"


def read_source(
    source: object, check_line_ends: bool = True
) -> tuple[bytes | mmap.mmap | memoryview, str]:
    """Return the (decompressed) content of ``source`` and its display name.

    Plain files are memory-mapped rather than copied; pipes, process substitution, ``/proc``
    files and stdin are read as streams. Compression (gzip, bzip2, xz) is recognised by its
    magic number, whatever the file is called. A UTF-8 byte-order mark at the start is
    skipped. Line ends are ``\n`` or ``\r\n``; a carriage return that does not end a line
    (a file with classic-Mac ``\r`` line ends) is an error naming the line, since reading
    such a file as one long line would give wrong numbers. ``check_line_ends=False``
    leaves that check to the caller: the TREC readers have the native parser make it in
    its first pass over the lines (a pass of its own cost 20-30 ms at 7M lines).

    Raises
    ------
    InputError
        The file cannot be read, or a compressed file is corrupt or truncated.
    ParseError
        A lone carriage return.
    ResourceError
        Out of memory reading or decompressing it.
    """
    name = describe(source)
    try:
        content = _decompress(_raw(source, name), name)
    except MemoryError:
        raise ResourceError(
            f"{name}: out of memory while reading it; free memory or split the input"
        ) from None
    if check_line_ends:
        _check_line_ends(content, name)
    if bytes(content[:3]) == _BOM:
        return memoryview(content)[3:], name
    return content, name


def read_binary(source: object) -> tuple[bytes, str]:
    """The whole (decompressed) content of ``source`` as ``bytes`` and its display name,
    for the formats that are not TREC text (JSON lines, compressed Parquet): the same
    opening, decompression and errors as :func:`read_source`, without its checks of text
    (line ends, byte-order mark).

    Raises
    ------
    InputError
        The file cannot be read, or a compressed file is corrupt or truncated.
    ResourceError
        Out of memory reading or decompressing it.
    """
    name = describe(source)
    try:
        raw = _raw(source, name)
        content = _decompress(raw, name)
        whole = bytes(content)
    except MemoryError:
        raise ResourceError(
            f"{name}: out of memory while reading it; free memory or split the input"
        ) from None
    release(content)
    if content is not raw:
        release(raw)
    return whole, name


def _raw(source: object, name: str) -> bytes | mmap.mmap:
    """The bytes of ``source`` as stored (a path mapped, ``-`` or a file object read)."""
    if isinstance(source, str | os.PathLike):
        if os.fspath(source) == "-":
            return sys.stdin.buffer.read()
        return _read_path(_path_of(source), name)
    if hasattr(source, "read"):
        data = source.read()
        # lone surrogates (text decoded with surrogateescape) stay invalid UTF-8 bytes,
        # which the readers reject naming the line
        return data.encode("utf-8", "surrogatepass") if isinstance(data, str) else bytes(data)
    raise TypeError(f"expected a path, '-' or a file object, got {type(source).__name__}")


def _check_line_ends(content: bytes | mmap.mmap, name: str) -> None:
    if content.find(b"\r") < 0:
        return
    lone = _LONE_CR.search(content)
    if lone is not None:
        line = bytes(content[: lone.start()]).count(b"\n") + 1
        raise ParseError(LONE_CR_MESSAGE, path=name, line=line)


def release(content: object) -> None:
    """Close what :func:`read_source` returned (an mmap, or a view of one)."""
    if isinstance(content, memoryview):
        base = content.obj
        content.release()
        content = base
    close = getattr(content, "close", None)
    if close is not None:
        close()


def read_bytes(source: object) -> tuple[bytes, str]:
    """Like :func:`read_source`, but the whole content as ``bytes`` (the file is closed)."""
    content, name = read_source(source)
    try:
        return bytes(content), name
    finally:
        release(content)


_NORMALISED = re.compile(r"//|/\.(?:/|$)|^\./|/$")
"""What :class:`pathlib.Path` would rewrite in a POSIX path (repeated or trailing
slashes, ``.`` components)."""


def _path_of(source: str | os.PathLike[str]) -> str | os.PathLike[str]:
    """The path to open: the text itself when :class:`pathlib.Path` would keep it as it
    is (importing pathlib cost every evaluation about 5 ms), else the ``Path``, whose
    reading of it the readers have always had (``run.txt/`` is ``run.txt``)."""
    text = os.fspath(source)
    if isinstance(text, str) and text and os.sep == "/" and not _NORMALISED.search(text):
        return text
    from pathlib import Path

    return Path(text)


def _read_path(path: str | os.PathLike[str], name: str) -> bytes | mmap.mmap:
    try:
        with open(path, "rb") as handle:
            info = os.fstat(handle.fileno())
            if not stat.S_ISREG(info.st_mode) or info.st_size == 0:
                # a pipe, process substitution, /proc file or device: its size says nothing
                return handle.read()
            try:
                return mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
            except (OSError, ValueError):
                return handle.read()
    except FileNotFoundError:
        raise InputError("no such file; check the path", path=name) from None
    except IsADirectoryError:
        raise InputError("is a directory, not a file", path=name) from None
    except PermissionError:
        raise InputError("permission denied when opening the file", path=name) from None
    except OSError as exc:
        raise InputError(f"cannot read the file: {exc.strerror or exc}", path=name) from None


def _decompress(raw: bytes | mmap.mmap, name: str) -> bytes | mmap.mmap:
    head = bytes(raw[:6])
    for magic, kind in _MAGIC:
        if head.startswith(magic):
            # the codecs are imported only for a compressed file (they cost a plain one
            # about 2 ms of imports)
            import lzma
            import zlib

            try:
                if kind == "gzip":
                    import gzip

                    return gzip.decompress(raw)
                if kind == "bzip2":
                    import bz2

                    return bz2.decompress(raw)
                return lzma.decompress(raw)
            except (OSError, EOFError, ValueError, lzma.LZMAError, zlib.error) as exc:
                raise InputError(
                    f"is not a valid {kind} file: it is corrupt or truncated ({exc})", path=name
                ) from None
    if head.startswith((b"PK\x03\x04", b"PK\x05\x06")):
        raise InputError(ZIP_MESSAGE, path=name)
    return raw


def second_fields_of_duplicate(exc: DuplicateError) -> tuple[str, str] | None:
    """The second fields of the two lines of a file that ``exc`` (a repeated pair) names,
    when both are there and differ (a subtopic column of diversity qrels, a sample column
    of a stochastic run): a hint that the file is of another kind; else ``None``. Only for
    TREC text: the callers leave out table files (Parquet, JSON lines, CSV), which have no
    such columns."""
    if exc.path is None or exc.lines is None or str(exc.path).startswith("<"):
        return None
    try:
        content, _ = read_bytes(exc.path)
    except (OSError, ValueError):
        return None
    import io

    wanted = {exc.lines[0] - 1: "", exc.lines[1] - 1: ""}
    for number, line in enumerate(io.BytesIO(content)):
        if number in wanted:
            fields = line.split()
            wanted[number] = fields[1].decode("utf-8", "replace") if len(fields) > 1 else ""
        if number >= max(wanted):
            break
    first, second = wanted[exc.lines[0] - 1], wanted[exc.lines[1] - 1]
    return (first, second) if first != second and first and second else None
