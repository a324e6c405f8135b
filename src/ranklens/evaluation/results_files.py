"""Saving and loading :class:`~ranklens.Results` as Parquet and JSON lines, exactly.

Both hold one row per query (queries in byte order): a ``query_id`` column and one float64
column per measure, named by the measure's canonical name (read back with
:func:`~ranklens.parse_measure`, so the measures are equal).

- Parquet keeps the run's name, the measures in order, the query counts and the run's
  ir_metadata in the file's metadata (key ``ranklens.results``, a JSON object). Needs
  pyarrow.
- JSON lines: ``{"run": name, "query_id": qid, "<measure>": value, ...}`` a line; values are
  written as Python's ``repr`` (the shortest text that reads back as the same float64), nan
  as ``null``; a run-level measure (``Coverage@10``, ...) has its value for the run on every
  line (Parquet keeps those values in its metadata). Either way, read back they give the
  value, not the users' data that the bootstrap over users of ``compare`` needs. The
  query counts are not kept, and results of no query write no line (so their measures are
  lost); use Parquet for those.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Any

import numpy as np

from ranklens.base.errors import DuplicateError, InputError, MeasureError, ParseError
from ranklens.base.optional import require
from ranklens.base.types import Float64Array
from ranklens.data.ir_metadata import IrMetadata
from ranklens.measures.base import Measure, is_run_level
from ranklens.measures.language import parse_measure

if TYPE_CHECKING:
    from ranklens.evaluation.results import Results

META_KEY = b"ranklens.results"
PathLike = str | os.PathLike[str]


def write_parquet(results: Results, path: PathLike) -> None:
    """Write ``results`` to a Parquet file (see the module docstring)."""
    pa = require("pyarrow", "Results.to_parquet")
    pq = require("pyarrow.parquet", "Results.to_parquet")
    data: dict[str, Any] = {"query_id": pa.array(list(results.queries), pa.string())}
    for j, name in enumerate(results.names):
        data[name] = pa.array(np.asarray(results.values[:, j]), pa.float64())
    meta = {
        "run": results.run,
        "measures": results.names,
        "query_counts": dict(results.query_counts),
        "run_values": run_values(results),
        "metadata": None if results.metadata is None else results.metadata.text,
    }
    table = pa.table(data).replace_schema_metadata({META_KEY: json.dumps(meta).encode()})
    pq.write_table(table, os.fspath(path))


def run_values(results: Results) -> dict[str, float]:
    """The values of the run-level measures (``Coverage@10``, ...) of ``results`` whose
    statistic was kept."""
    return {
        m.name: results.run_statistics[m.name].value(None)
        for m in results.measures
        if is_run_level(m) and m.name in results.run_statistics
    }


@dataclass(frozen=True)
class StoredRunValue:
    """The value of a run-level measure read back from a results file: the value only
    (the users' data of the bootstrap over users is not saved)."""

    name: str
    stored: float
    num_queries: int

    def value(self, weights: Float64Array | None = None) -> float:
        """The saved value (``weights`` only as ``None``).

        Raises
        ------
        MeasureError
            With ``weights``: the bootstrap over users needs the evaluation itself.
        """
        if weights is not None:
            raise MeasureError(
                f"{self.name}: these results were read from a file, which keeps the value of "
                "this run-level measure but not the users' data that comparing it (the "
                "bootstrap over users) or taking it on a subset of users needs: evaluate the "
                "run again"
            )
        return self.stored

    def values(self, weights: Float64Array) -> Float64Array:
        """Refused (see :meth:`value`)."""
        self.value(np.asarray(weights, dtype=np.float64))
        return np.zeros(0)  # not reached


def stored_statistics(
    names: list[str], saved: dict[str, Any], num_queries: int
) -> dict[str, StoredRunValue]:
    """The run-level measures' values saved with results (``{name: value}``), as
    statistics (see :class:`StoredRunValue`)."""
    out: dict[str, StoredRunValue] = {}
    for name in names:
        if name in saved and is_run_level(parse_measure(name)):
            value = saved[name]
            out[name] = StoredRunValue(
                name, math.nan if value is None else float(value), num_queries
            )
    return out


Parts = tuple[str, tuple[Measure, ...], tuple[str, ...], np.ndarray, dict[str, int]]
"""The arguments of :class:`~ranklens.Results`: run, measures, queries, values, counts."""


def _build(
    run: str, names: list[str], queries: list[str], values: np.ndarray, counts: dict[str, int]
) -> Parts:
    # names ranklens does not know are scores read from elsewhere (external measures)
    from ranklens.evaluation.score_measures import measure_named

    return run, tuple(measure_named(n) for n in names), tuple(queries), values, counts


def read_parquet(path: PathLike) -> Parts:
    """The parts of the Results written by :func:`write_parquet`."""
    from ranklens.data.table_files import open_parquet

    where = os.fspath(path)
    table = open_parquet(where, "Results.from_parquet")  # a clear error if not Parquet
    raw = (table.schema.metadata or {}).get(META_KEY)
    if raw is None:
        raise InputError("not a ranklens Results file (no 'ranklens.results' metadata)", path=where)
    meta = json.loads(raw)
    names = list(meta["measures"])
    queries = [str(q) for q in table.column("query_id").to_pylist()]
    first_row: dict[str, int] = {}
    for row, qid in enumerate(queries):
        if qid in first_row:
            raise DuplicateError(
                f"query {qid!r} has two rows ({first_row[qid] + 1} and {row + 1}): a Results "
                "file holds one row per query",
                path=where,
                query=qid,
            )
        first_row[qid] = row
    values = np.empty((len(queries), len(names)), dtype=np.float64)
    for j, name in enumerate(names):
        values[:, j] = table.column(name).to_numpy()
    counts = {str(k): int(v) for k, v in meta.get("query_counts", {}).items()}
    return _build(str(meta["run"]), names, queries, values, counts)


def split_run_values(parts: Parts) -> tuple[Parts, dict[str, StoredRunValue]]:
    """JSON lines results with their run-level measures' columns (the run's value on
    every line) made NaN again, and those values as statistics."""
    run, measures, queries, values, counts = parts
    saved: dict[str, Any] = {}
    out = np.array(values, dtype=np.float64)
    for j, m in enumerate(measures):
        if is_run_level(m) and out.shape[0]:
            saved[m.name] = float(out[0, j])
            out[:, j] = math.nan
    stats = stored_statistics([m.name for m in measures], saved, len(queries))
    return (run, measures, queries, out, counts), stats


def read_parquet_metadata(path: PathLike) -> IrMetadata | None:
    """The run's ir_metadata saved by :func:`write_parquet` (only the file's metadata is
    read), or ``None``."""
    pq = require("pyarrow.parquet", "Results.from_parquet")
    schema = pq.read_schema(os.fspath(path))
    text = json.loads((schema.metadata or {})[META_KEY]).get("metadata")
    return None if not text else IrMetadata(str(text), os.fspath(path))


def read_parquet_run_values(path: PathLike) -> dict[str, StoredRunValue]:
    """The run-level measures' values saved by :func:`write_parquet` (only the file's
    metadata is read)."""
    pq = require("pyarrow.parquet", "Results.from_parquet")
    schema = pq.read_schema(os.fspath(path))
    meta = json.loads((schema.metadata or {})[META_KEY])
    rows = pq.ParquetFile(os.fspath(path)).metadata.num_rows
    return stored_statistics(list(meta["measures"]), meta.get("run_values", {}), int(rows))


def _json_number(value: float) -> float | None:
    return None if math.isnan(value) else value


@contextmanager
def _text(path: PathLike | IO[str], mode: str) -> Iterator[IO[str]]:
    if isinstance(path, str | os.PathLike):
        with open(path, mode, encoding="utf-8") as stream:
            yield stream
    else:
        yield path


def write_jsonl(results: Results, out: PathLike | IO[str]) -> None:
    """Write ``results`` as JSON lines (see the module docstring)."""
    with _text(out, "w") as stream:
        names = results.names
        kept = run_values(results)  # a run-level measure: its value on every line
        for qid, row in zip(results.queries, results.values.tolist(), strict=True):
            record: dict[str, Any] = {"run": results.run, "query_id": qid}
            record.update(
                {n: _json_number(kept.get(n, v)) for n, v in zip(names, row, strict=True)}
            )
            stream.write(json.dumps(record, ensure_ascii=False) + "\n")


def read_jsonl(source: PathLike | IO[str]) -> Parts:
    """The parts of the Results written by :func:`write_jsonl` (one run)."""
    where = os.fspath(source) if isinstance(source, str | os.PathLike) else "<stream>"
    run: str | None = None
    names: list[str] | None = None
    queries: list[str] = []
    rows: list[list[float]] = []
    first_line: dict[str, int] = {}
    with _text(source, "r") as stream:
        for number, line in enumerate(stream, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
                this_run, qid = str(record.pop("run")), str(record.pop("query_id"))
            except (json.JSONDecodeError, KeyError, AttributeError, TypeError):
                raise ParseError(
                    "each line must be a JSON object with 'run', 'query_id' and the measures",
                    path=where,
                    line=number,
                ) from None
            if run is None:
                run, names = this_run, list(record)
            elif this_run != run:
                raise ParseError(
                    f"a second run {this_run!r} (after {run!r}): one Results holds one run",
                    path=where,
                    line=number,
                )
            if list(record) != names:
                raise ParseError(
                    "the measures differ from the first line's", path=where, line=number
                )
            if qid in first_line:
                raise DuplicateError(
                    f"query {qid!r} is on lines {first_line[qid]} and {number}: a Results "
                    "file holds one line per query (values of two evaluations mixed?)",
                    path=where,
                    lines=(first_line[qid], number),
                    query=qid,
                )
            first_line[qid] = number
            queries.append(qid)
            rows.append([math.nan if v is None else float(v) for v in record.values()])
    if run is None or names is None:
        raise InputError("no results in it (empty file)", path=where)
    values = np.array(rows, dtype=np.float64).reshape(len(queries), len(names))
    return _build(run, names, queries, values, {})
