"""Qrels and runs as Parquet and JSON lines files, round-tripping exactly.

Both formats hold one row per (query, document) in the grouped order of the object
(queries in byte order, documents in input order within a query), with the columns
``query_id``, ``doc_id`` and ``relevance`` (int64) for qrels, ``score`` (float64) for runs:
the column names :meth:`Qrels.from_frame` and :meth:`Run.from_frame` look for, so pandas,
polars and DuckDB read the files as they are. A run's name is kept in the Parquet file's
metadata (key ``ranklens.run``) and in a ``run`` column of JSON lines (as a TREC run's tag).

JSON lines numbers are written with Python's ``repr``, the shortest text that reads back
as the same float64, so scores round-trip exactly. Parquet needs pyarrow
(``pip install 'ranklens[frames]'``); JSON lines needs nothing.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO, TYPE_CHECKING, Any, cast

import numpy as np

from ranklens.base.errors import InputError, ParseError
from ranklens.base.optional import require
from ranklens.data.kinds import DELIMITED_SUFFIXES as DELIMITED_SUFFIXES
from ranklens.data.kinds import JSONL_SUFFIXES as JSONL_SUFFIXES
from ranklens.data.kinds import PACKED as _PACKED
from ranklens.data.kinds import PARQUET_SUFFIXES as PARQUET_SUFFIXES
from ranklens.data.kinds import file_kind as file_kind

if TYPE_CHECKING:
    from ranklens.data.qrels import Qrels
    from ranklens.data.run import Run

RUN_KEY = b"ranklens.run"
PathLike = str | os.PathLike[str]


def _is_qrels(table: Qrels | Run) -> bool:
    return hasattr(table, "rels")


def _columns(table: Qrels | Run) -> dict[str, Any]:
    qidx = table.query_of_entries()
    qids = np.asarray(table.qids, dtype=object)[qidx].tolist() if len(table) else []
    if _is_qrels(table):
        return {"query_id": qids, "doc_id": table.docids(), "relevance": table.rels}  # type: ignore[union-attr]
    return {"query_id": qids, "doc_id": table.docids(), "score": table.scores}  # type: ignore[union-attr]


# ----------------------------------------------------------------------------- Parquet


def write_parquet(table: Qrels | Run, path: PathLike) -> None:
    """Write ``table`` as a Parquet file (string ids, int64 relevance or float64 scores).

    The document ids go to Arrow as they are held (one byte buffer and offsets: Arrow's
    ``large_string`` layout), the query ids by one gather, without Python strings."""
    pa = require("pyarrow", "Writing Parquet")
    pc = require("pyarrow.compute", "Writing Parquet")
    pq = require("pyarrow.parquet", "Writing Parquet")
    n = len(table)
    docs = pa.LargeStringArray.from_buffers(
        n,
        pa.py_buffer(np.ascontiguousarray(table.doc_offsets, dtype=np.int64)),
        pa.py_buffer(np.ascontiguousarray(table.doc_data)),
    )
    qids = pc.take(pa.array(list(table.qids), pa.string()), pa.array(table.query_of_entries()))
    if _is_qrels(table):
        values = pa.array(np.asarray(table.rels), pa.int64())  # type: ignore[union-attr]
        value_name = "relevance"
    else:
        values = pa.array(np.asarray(table.scores), pa.float64())  # type: ignore[union-attr]
        value_name = "score"
    arrow = pa.table({"query_id": qids, "doc_id": docs.cast(pa.string()), value_name: values})
    if not _is_qrels(table):
        name = str(getattr(table, "name", ""))
        arrow = arrow.replace_schema_metadata({RUN_KEY: name.encode("utf-8")})
    pq.write_table(arrow, os.fspath(path))


def open_parquet(path: PathLike, what: str = "Reading Parquet") -> Any:
    """The Arrow table of a Parquet file (``.gz``, ``.bz2`` or ``.xz`` compressed as a
    whole: decompressed in memory first).

    Raises
    ------
    InputError
        The file is missing, empty, truncated or not Parquet (naming it).
    """
    pa = require("pyarrow", what)
    pq = require("pyarrow.parquet", what)
    where = os.fspath(path)
    try:
        if where.lower().endswith(_PACKED[1:]):
            from ranklens.data.source import read_binary

            return pq.read_table(pa.BufferReader(read_binary(where)[0]))
        return pq.read_table(where)
    except FileNotFoundError:
        raise InputError("no such file; check the path", path=where) from None
    except (OSError, pa.ArrowException) as exc:  # ArrowInvalid: empty, truncated, not Parquet
        raise InputError(
            f"cannot read it as Parquet: it is empty, truncated or not a Parquet file ({exc})",
            path=where,
        ) from None


def read_parquet(path: PathLike, named: bool = True) -> tuple[Any, str | None]:
    """The Arrow table of a Parquet file and the run name saved in it (or ``None``; a name
    that is not UTF-8 is an error, unless ``named`` is false: the caller has a name)."""
    arrow = open_parquet(path)
    saved = (arrow.schema.metadata or {}).get(RUN_KEY)
    if not saved or not named:
        return arrow, None
    try:
        return arrow, saved.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(
            f"the run name saved in it ({RUN_KEY.decode()} metadata) is not UTF-8 text; "
            "pass a name for the run",
            path=os.fspath(path),
        ) from None


def parquet_columns(
    path: PathLike, integer: bool, named: bool = True
) -> tuple[dict[str, Any], str | None]:
    """The grouped columns of qrels (``integer``) or a run saved as Parquet, and the run
    name saved in it (if ``named``); messages name the file and the row (from 1)."""
    from ranklens.data.frames import from_frame

    arrow, saved = read_parquet(path, named and not integer)
    return from_frame(arrow, integer, source=os.fspath(path), first_row=1), saved


# ------------------------------------------------------------------------- JSON lines


@contextmanager
def _text(path: PathLike | IO[str], mode: str) -> Iterator[IO[str]]:
    if not isinstance(path, str | os.PathLike):
        yield path
        return
    name = os.fspath(path)
    if name.endswith(".gz"):
        import gzip

        with gzip.open(name, mode + "t", encoding="utf-8") as packed:
            yield cast("IO[str]", packed)
    else:
        with open(name, mode, encoding="utf-8") as plain:
            yield plain


def describe(path: object) -> str:
    """The name of ``path`` in messages."""
    if isinstance(path, str | os.PathLike):
        return os.fspath(path)
    return str(getattr(path, "name", "<stream>"))


def write_jsonl(table: Qrels | Run, path: PathLike | IO[str]) -> None:
    """Write ``table`` as JSON lines: ``{"query_id", "doc_id", "relevance"}`` per
    judgment, or ``{"query_id", "doc_id", "score", "run"}`` per retrieved document
    (``.gz`` compresses)."""
    import json  # (imported where used: every evaluation reads file_kind from here)

    cols = _columns(table)
    is_qrels = _is_qrels(table)
    values = cols["relevance" if is_qrels else "score"].tolist()
    with _text(path, "w") as out:
        for q, d, v in zip(cols["query_id"], cols["doc_id"], values, strict=True):
            row: dict[str, Any] = {"query_id": q, "doc_id": d}
            if is_qrels:
                row["relevance"] = v
            else:
                row["score"] = v
                row["run"] = getattr(table, "name", "")
            out.write(json.dumps(row, ensure_ascii=False, allow_nan=False) + "\n")


def read_jsonl(
    path: PathLike | IO[str] | IO[bytes], value: str
) -> tuple[list[tuple[Any, Any, Any]], list[int], str]:
    """The ``(query_id, doc_id, value)`` of each line, the line numbers, and the last
    line's ``run`` (or ``""``).

    Gzip, bzip2 and xz are recognised by their magic number, whatever the file is called
    (as for TREC text), and a UTF-8 byte-order mark is skipped. Each
    line must be UTF-8 JSON; anything else (binary content, a truncated or corrupt
    compressed file, nesting deeper than Python's recursion limit, an integer of more than
    4,300 digits, a lone surrogate escape in an id) is a :class:`ParseError` naming the
    line.
    """
    import json

    from ranklens.data.memory import is_text
    from ranklens.data.source import BOM, read_binary

    data, where = read_binary(path)
    if data.startswith(BOM):
        data = data[len(BOM) :]
    from ranklens.data.frames import DOC_NAMES, QID_NAMES

    records: list[tuple[Any, Any, Any]] = []
    lines: list[int] = []
    tag = ""
    keys: tuple[str, str] | None = None
    for number, raw in enumerate(data.split(b"\n"), 1):
        if not raw.strip():
            continue
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ParseError(
                f"is not UTF-8 text (byte {exc.start + 1} of the line): is it a JSON lines file?",
                path=where,
                line=number,
            ) from None
        try:
            row = json.loads(line)
        except RecursionError:
            raise ParseError(
                "not JSON that can be read: nested too deeply", path=where, line=number
            ) from None
        except ValueError as exc:  # JSONDecodeError, and integers of over 4,300 digits
            reason = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)
            raise ParseError(f"not JSON: {reason}", path=where, line=number) from None
        if keys is None and isinstance(row, dict):  # the first line names the id columns
            keys = (_first_key(row, QID_NAMES), _first_key(row, DOC_NAMES))
        try:
            records.append((row[keys[0]], row[keys[1]], row[value]))  # type: ignore[index]
        except (KeyError, TypeError, IndexError):
            raise ParseError(
                f"each line must be an object with 'query_id', 'doc_id' and '{value}' (or "
                "'user_id' / 'item_id', as the first line names them)",
                path=where,
                line=number,
            ) from None
        lines.append(number)
        tag = str(row.get("run", tag))
    if not is_text(tag):
        raise ParseError(
            "the run name holds a lone surrogate escape (\\ud800-\\udfff)",
            path=where,
            line=lines[-1],
        )
    return records, lines, tag


def _first_key(row: dict[str, Any], names: tuple[str, ...]) -> str:
    """The first of ``names`` that ``row`` has (the first name when it has none)."""
    return next((name for name in names if name in row), names[0])


def jsonl_columns(
    path: PathLike | IO[str] | IO[bytes], integer: bool, *, allow_empty: bool = False
) -> tuple[dict[str, Any], str]:
    """The grouped columns of qrels (``integer``) or a run saved as JSON lines, and the
    last line's ``run``; messages name the file and its line."""
    from ranklens.data.memory import from_records
    from ranklens.data.source import describe as source_name

    records, lines, tag = read_jsonl(path, "relevance" if integer else "score")
    where = source_name(path)
    columns = from_records(
        records, integer, where, allow_empty=allow_empty, lines=np.asarray(lines, np.int64)
    )
    return columns, tag


def read_utf8_text(path: PathLike) -> tuple[str, str]:
    """The text of a (possibly compressed) file, without a UTF-8 byte-order mark, and its
    display name; a file that is not UTF-8 is refused naming the line."""
    from ranklens.data.source import BOM, read_binary

    data, where = read_binary(path)
    if data.startswith(BOM):
        data = data[len(BOM) :]
    try:
        return data.decode("utf-8"), where
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise ParseError("is not UTF-8 text", path=where, line=line) from None


def delimited_columns(path: PathLike, integer: bool) -> tuple[dict[str, Any], str]:
    """The grouped columns of qrels (``integer``) or a run in a ``.csv`` (commas) or
    ``.tsv`` (tabs) file whose first row names the columns: a query column, a document
    column and a relevance (qrels) or score (run) column, by the names
    :meth:`Run.from_frame` knows (``query_id``/``qid``, ``doc_id``/``docno``,
    ``relevance``/``rel``, ``score``; any case); other columns are ignored, but a ``run``
    (or ``tag``) column names the run. Compressed files are read as for TREC text.
    Returns the columns and the run's name (``""`` when the file gives none).
    """
    import csv
    import io

    from ranklens.data.frames import DOC_NAMES, QID_NAMES, REL_NAMES, SCORE_NAMES
    from ranklens.data.memory import from_records

    text, where = read_utf8_text(path)
    base = os.fspath(path).lower() if isinstance(path, str | os.PathLike) else ""
    delimiter = "\t" if ".tsv" in base else ","
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    header: list[str] | None = None
    header_line = 0
    for header_row in reader:
        if any(cell.strip() for cell in header_row):
            header, header_line = [c.strip().lower() for c in header_row], reader.line_num
            break
    value_names = REL_NAMES if integer else SCORE_NAMES
    positions: list[int] = []
    for names in (QID_NAMES, DOC_NAMES, value_names):
        found = next((header.index(n) for n in names if header and n in header), None)
        if found is None:
            value = "relevance" if integer else "score"
            shown = ", ".join(header or []) or "nothing"
            raise ParseError(
                f"a {'.tsv' if delimiter == chr(9) else '.csv'} file needs a header row naming "
                f"its columns: query_id, doc_id and {value} (or qid, docno, ...); the first "
                f"row has {shown}. A TREC file separated by spaces needs another suffix",
                path=where,
                line=header_line or 1,
            )
        positions.append(found)
    tag_at = next(
        (header.index(n) for n in ("run", "tag", "run_id") if header and n in header), None
    )
    records: list[tuple[str, str, object]] = []
    lines: list[int] = []
    tag = ""
    width = len(header or [])
    for row in reader:
        if not any(cell.strip() for cell in row):
            continue
        if len(row) != width:
            raise ParseError(
                f"{len(row)} fields, but the header names {width}; quote a field that holds "
                f"{'a tab' if delimiter == chr(9) else 'a comma'}",
                path=where,
                line=reader.line_num,
            )
        q, d, v = (row[i].strip() for i in positions)
        records.append((q, d, _number(v, integer, where, reader.line_num)))
        lines.append(reader.line_num)
        if tag_at is not None:
            tag = row[tag_at].strip()
    columns = from_records(records, integer, where, lines=np.asarray(lines, np.int64))
    return columns, tag


def _number(text: str, integer: bool, where: str, line: int) -> object:
    """The value of a delimited file's cell: an int for qrels, a float for a run."""
    try:
        return int(text) if integer else float(text)
    except ValueError:
        what = "a whole relevance grade" if integer else "a score (a number)"
        raise ParseError(f"{text!r} is not {what}", path=where, line=line) from None
