"""Getting the bytes of a TREC file: paths, ``-`` for stdin, compression by magic number."""

from __future__ import annotations

import bz2
import gzip
import lzma
import mmap
import os
import sys
from pathlib import Path
from typing import IO

from ranklens.base.errors import InputError

Source = str | os.PathLike[str] | IO[bytes] | IO[str]

_MAGIC = ((b"\x1f\x8b", "gzip"), (b"BZh", "bzip2"), (b"\xfd7zXZ\x00", "xz"))


def describe(source: object) -> str:
    """The name used for ``source`` in messages."""
    if isinstance(source, str | os.PathLike):
        text = os.fspath(source)
        return "<stdin>" if text == "-" else str(text)
    name = getattr(source, "name", None)
    return str(name) if isinstance(name, str) else "<stream>"


def read_source(source: object) -> tuple[bytes | mmap.mmap | memoryview, str]:
    """Return the (decompressed) content of ``source`` and its display name.

    Plain files are memory-mapped rather than copied. Compression (gzip, bzip2, xz) is
    recognised by its magic number, whatever the file is called.
    """
    name = describe(source)
    if isinstance(source, str | os.PathLike):
        if os.fspath(source) == "-":
            raw: bytes | mmap.mmap = sys.stdin.buffer.read()
        else:
            raw = _read_path(Path(os.fspath(source)), name)
    elif hasattr(source, "read"):
        data = source.read()
        raw = data.encode("utf-8") if isinstance(data, str) else bytes(data)
    else:
        raise TypeError(f"expected a path, '-' or a file object, got {type(source).__name__}")
    return _decompress(raw, name), name


def read_bytes(source: object) -> tuple[bytes, str]:
    """Like :func:`read_source`, but the whole content as ``bytes`` (the file is closed)."""
    content, name = read_source(source)
    try:
        return bytes(content), name
    finally:
        close = getattr(content, "close", None)
        if close is not None:
            close()


def _read_path(path: Path, name: str) -> bytes | mmap.mmap:
    try:
        with open(path, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            if size == 0:
                return b""
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
            try:
                if kind == "gzip":
                    return gzip.decompress(raw)
                if kind == "bzip2":
                    return bz2.decompress(raw)
                return lzma.decompress(raw)
            except (OSError, EOFError, ValueError, lzma.LZMAError) as exc:
                raise InputError(f"is not a valid {kind} file ({exc})", path=name) from None
    return raw
