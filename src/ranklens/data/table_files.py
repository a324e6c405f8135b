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

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO, TYPE_CHECKING, Any, cast

import numpy as np

from ranklens.base.errors import InputError, ParseError
from ranklens.base.optional import require

if TYPE_CHECKING:
    from ranklens.data.qrels import Qrels
    from ranklens.data.run import Run

RUN_KEY = b"ranklens.run"
PARQUET_SUFFIXES = (".parquet", ".pq")
JSONL_SUFFIXES = (".jsonl", ".ndjson", ".jsonl.gz", ".ndjson.gz")

PathLike = str | os.PathLike[str]


def file_kind(path: object) -> str | None:
    """``"parquet"`` or ``"jsonl"`` when ``path`` names such a file by its suffix, else
    ``None`` (TREC text)."""
    if not isinstance(path, str | os.PathLike):
        return None
    name = os.fspath(path).lower()
    if name.endswith(PARQUET_SUFFIXES):
        return "parquet"
    if name.endswith(JSONL_SUFFIXES):
        return "jsonl"
    return None


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


def read_parquet(path: PathLike) -> tuple[Any, str | None]:
    """The Arrow table of a Parquet file and the run name saved in it (or ``None``)."""
    pq = require("pyarrow.parquet", "Reading Parquet")
    try:
        arrow = pq.read_table(os.fspath(path))
    except OSError as exc:
        raise InputError(f"cannot read it as Parquet: {exc}", path=os.fspath(path)) from None
    saved = (arrow.schema.metadata or {}).get(RUN_KEY)
    return arrow, saved.decode("utf-8") if saved else None


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


def read_jsonl(path: PathLike | IO[str], value: str) -> tuple[list[tuple[Any, Any, Any]], str]:
    """The ``(query_id, doc_id, value)`` of each line and the last line's ``run`` (or
    ``""``)."""
    where = describe(path)
    records: list[tuple[Any, Any, Any]] = []
    tag = ""
    with _text(path, "r") as stream:
        for number, line in enumerate(stream, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
                records.append((row["query_id"], row["doc_id"], row[value]))
            except json.JSONDecodeError as exc:
                raise ParseError(f"not JSON: {exc.msg}", path=where, line=number) from None
            except (KeyError, TypeError):
                raise ParseError(
                    f"each line must be an object with 'query_id', 'doc_id' and '{value}'",
                    path=where,
                    line=number,
                ) from None
            tag = str(row.get("run", tag))
    return records, tag
