"""What kind of input an object or a path is, told without importing a reader.

Every evaluation asks these questions of its inputs (a DataFrame? a polars LazyFrame? a
directory or glob of Parquet files?) before it reads them. The readers that answer them
(:mod:`ranklens.data.frames`, :mod:`ranklens.data.parquet_stream`) cost a TREC file's
evaluation their imports (about 5 ms; 2026-11-27), so the questions live here.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

from ranklens.base.errors import InputError

_GLOB_CHARS = frozenset("*?[")
PACKED = ("", ".gz", ".bz2", ".xz")
"""The suffixes of a file compressed as a whole (none, gzip, bzip2, xz)."""
PARQUET_SUFFIXES = tuple(base + pack for base in (".parquet", ".pq") for pack in PACKED)
JSONL_SUFFIXES = tuple(base + pack for base in (".jsonl", ".ndjson") for pack in PACKED)
DELIMITED_SUFFIXES = tuple(base + pack for base in (".csv", ".tsv") for pack in PACKED)
PLAIN_PARQUET = (".parquet", ".pq")
"""The suffixes of the data files of a Parquet directory (not compressed as a whole)."""


def file_kind(path: object) -> str | None:
    """``"parquet"``, ``"jsonl"`` or ``"delimited"`` (``.csv``/``.tsv`` with a header
    row) when ``path`` names such a file by its suffix, else ``None`` (TREC text).

    >>> file_kind("run.parquet"), file_kind("qrels.tsv.gz"), file_kind("run.txt")
    ('parquet', 'delimited', None)
    """
    if not isinstance(path, str | os.PathLike):
        return None
    name = os.fspath(path).lower()
    if name.endswith(PARQUET_SUFFIXES):
        return "parquet"
    if name.endswith(JSONL_SUFFIXES):
        return "jsonl"
    if name.endswith(DELIMITED_SUFFIXES):
        return "delimited"
    return None


def is_frame(obj: object) -> bool:
    """True for a pandas or polars DataFrame or a pyarrow Table or RecordBatch (checked
    without importing any of them).

    >>> is_frame({"q1": {"d1": 1}})
    False
    """
    module = type(obj).__module__.split(".")[0]
    name = type(obj).__name__
    if module in ("pandas", "polars"):
        return name == "DataFrame"
    return module == "pyarrow" and name in ("Table", "RecordBatch")


def refuse_lazy(obj: object, what: str) -> None:
    """Refuse a polars LazyFrame (a query plan, not data) with what to do about it.

    Raises
    ------
    InputError
        ``obj`` is a LazyFrame.
    """
    if type(obj).__module__.split(".")[0] == "polars" and type(obj).__name__ == "LazyFrame":
        raise InputError(
            f"{what}: a polars LazyFrame is a query, not data: call .collect() on it first "
            "(ranklens does not run it for you, so that you choose how)"
        )


def has_glob(path: str) -> bool:
    """Whether ``path`` holds a glob character (``*``, ``?``, ``[``)."""
    return any(c in _GLOB_CHARS for c in path)


def is_data_file(name: str) -> bool:
    """A Parquet data file of a dataset directory (not ``_SUCCESS``, ``_metadata``, a
    hidden or a checksum file), by its suffix, as pyarrow's dataset discovery skips them."""
    base = os.path.basename(name)
    return not base.startswith(("_", ".")) and base.lower().endswith(PLAIN_PARQUET)


def _iter_data_files(path: str) -> Iterator[str]:
    for _root, _dirs, files in os.walk(path):
        for f in files:
            if is_data_file(f):
                yield f


def is_parquet_source(source: object) -> bool:
    """Whether ``source`` names a Parquet run: a path ending in ``.parquet`` or ``.pq``
    (also compressed as a whole), a directory holding such files, or a glob matching some.

    Examples
    --------
    >>> is_parquet_source("run.parquet"), is_parquet_source("run.txt")
    (True, False)
    """
    if not isinstance(source, str | os.PathLike):
        return False
    path = os.fspath(source)
    if not isinstance(path, str):
        return False
    if file_kind(path) == "parquet":
        return True
    if os.path.isdir(path):
        return any(True for _ in _iter_data_files(path))
    if not has_glob(path):
        return False
    import glob  # imported where used, not by every evaluation

    return any(is_data_file(p) for p in glob.iglob(path, recursive=True))


def is_parquet_dataset(source: object) -> bool:
    """Whether ``source`` is a directory or a glob of Parquet files (which the in-memory
    readers do not take: they are always streamed)."""
    if not is_parquet_source(source):
        return False
    path = os.fspath(source)  # type: ignore[call-overload]
    return os.path.isdir(path) or (has_glob(path) and not os.path.isfile(path))
