"""A Parquet run given by its path, read by an engine's tasks themselves: the run's row
groups planned as *units* and each unit evaluated where it is, so no row passes through
the engine's own machinery (Spark's JVM, Dask's DataFrames).

:func:`plan_units` cuts the run's row groups (from the files' footers) into units of whole
row groups of one file, in path order. Each task reads its unit
(:func:`ranklens.data.parquet_stream.read_row_groups`, the columns used only) and evaluates
it as any piece of a grouped run (:func:`ranklens.scale.in_place.evaluate_rows`): the
queries inside the unit there, the first and last query's rows sent back, where they are
put in row order and evaluated with the qrels' queries no task saw
(:func:`evaluate_units`). The run must be grouped by query, as the single machine's
Parquet streaming needs it (:class:`RunNotGroupedError` otherwise); an error in the rows
names the file and the row as the single machine does (the first in row order).

The engines (:mod:`ranklens.scale.spark_files`, :mod:`ranklens.scale.dask_files`) give
:func:`evaluate_units` a way to run one task per unit and collect the batches.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from ranklens.base.errors import DuplicateError, EmptyInputError, InputError, RanklensError
from ranklens.base.optional import require
from ranklens.data.coerce import as_qrels
from ranklens.data.frames import is_frame
from ranklens.data.parquet_stream import (
    ParquetSource,
    file_starts,
    in_file,
    parquet_source,
    read_row_groups,
    row_group_rows,
    run_columns_of,
)
from ranklens.data.qrels import Qrels
from ranklens.evaluation.parts import Part, set_dependent
from ranklens.scale.in_place import (
    Broadcast,
    DeclinedError,
    NotGroupedError,
    RunColumns,
    TaskError,
    edge_blocks,
    edge_rows,
    error_record,
    evaluate_rows,
    gather,
    grouped,
    qrels_rows,
    read_run,
    top_grade,
)
from ranklens.scale.part_batches import SCHEMA, error_kinds, record_batch
from ranklens.scale.partition import Options

UNIT_ROWS = (1 << 18, 1 << 21)
"""The fewest and the most rows a task reads (whole row groups: a row group larger than
the most is one unit)."""

_NO_EDGE_LIMIT = 1 << 62


class RunNotGroupedError(InputError):
    """A Parquet run read by the tasks is not grouped by query."""


@dataclass(frozen=True)
class Unit:
    """Row groups of one file that one task reads: the file's index in the run, the row
    groups, and the run's row (from 0) the first of them starts at."""

    file: int
    groups: tuple[int, ...]
    first: int


@dataclass(frozen=True)
class ParquetUnits:
    """A Parquet run cut into units, and the columns each task reads."""

    source: ParquetSource
    used: tuple[str, ...]
    units: tuple[Unit, ...]


def plan_units(
    path: str | os.PathLike[str] | ParquetSource,
    cores: int,
    given: tuple[str | None, str | None, str | None] = (None, None, None),
) -> tuple[ParquetUnits, RunColumns]:
    """The units of the Parquet run ``path`` (or its files) for ``cores`` cores (about
    four units per core, each within :data:`UNIT_ROWS`), and its columns (the usual names
    unless ``given``).

    Raises
    ------
    InputError
        Nothing is found at ``path``, a file is not Parquet (or compressed as a whole), or
        the run lacks a column.
    """
    source = path if isinstance(path, ParquetSource) else parquet_source(path)
    query, doc, score, used = run_columns_of(source, given)
    sizes = [row_group_rows(f) for f in source.files]
    total = sum(sum(groups) for groups in sizes)
    target = min(max(total // max(4 * cores, 1), UNIT_ROWS[0]), UNIT_ROWS[1])
    units: list[Unit] = []
    before = 0
    for index, groups in enumerate(sizes):
        held: list[int] = []
        rows = 0
        start = before
        for group, size in enumerate(groups):
            held.append(group)
            rows += size
            before += size
            if rows >= target:
                units.append(Unit(index, tuple(held), start))
                held, rows, start = [], 0, before
        if held:
            units.append(Unit(index, tuple(held), start))
    columns = RunColumns(query, doc, score, where=source.where)
    return ParquetUnits(source, used, tuple(units)), columns


def read_unit(units: ParquetUnits, index: int) -> Any:
    """The rows of unit ``index`` (an Arrow table)."""
    unit = units.units[index]
    path = units.source.files[unit.file]
    hive = units.source.partitions[unit.file]
    return read_row_groups(path, hive, unit.groups, units.used, units.source.where)


QUERIES_SCHEMA = "q string"
"""The batches of :func:`unit_queries`: one column of query ids."""


class UnitRunner(Protocol):
    """An engine's way to run ``task(index)`` for every unit index ``0 .. n-1``, one task
    each, and collect the Arrow batches they return (in any order) as one table whose
    schema is ``schema`` (Spark's DDL); ``report``: tell the evaluation's progress."""

    def __call__(self, task: Callable[[int], Any], schema: str, report: bool) -> Any: ...


def starts_grouped(units: ParquetUnits, query: str, rows: int = 1 << 16) -> bool:
    """Whether the run's first ``rows`` rows hold their queries in stretches (its query
    column read alone): a cheap look that tells a run in another order before any task
    reads it. ``True`` where it cannot tell (the tasks then find out, and name any error)."""
    if not units.units:
        return True
    pa = require("pyarrow", "ranklens's engines")
    pq = require("pyarrow.parquet", "ranklens's engines")
    first = units.units[0]
    try:
        with pq.ParquetFile(units.source.files[first.file]) as handle:
            if query not in handle.schema_arrow.names:  # a hive folder's value
                return True
            batches = handle.iter_batches(
                batch_size=rows, row_groups=[first.groups[0]], columns=[query]
            )
            batch = next(batches, None)
    except (OSError, pa.ArrowException):
        return True
    if batch is None:
        return True
    return grouped(batch.column(0))


def unit_batch(units: ParquetUnits, sent: Broadcast, index: int) -> Any:
    """What the task of unit ``index`` returns: its rows evaluated where they are (the
    batch of :func:`ranklens.scale.in_place.evaluate_rows`), or the error its rows hold."""
    pa = require("pyarrow", "ranklens's engines")
    try:
        rows = read_unit(units, index)
    except RanklensError as exc:
        return record_batch(pa, error_record(exc))
    return evaluate_rows(rows, units.units[index].first, sent)


def unit_queries(units: ParquetUnits, query: str, index: int) -> Any:
    """The distinct query ids of unit ``index`` (its query column read alone), as a batch
    of :data:`QUERIES_SCHEMA`."""
    pa = require("pyarrow", "ranklens's engines")
    pc = require("pyarrow.compute", "ranklens's engines")
    only = ParquetUnits(units.source, (query,), units.units)
    ids = pc.unique(read_unit(only, index).column(query).combine_chunks())
    return pa.RecordBatch.from_arrays([pc.cast(ids, pa.string())], names=["q"])


def read_qrels(
    qrels: Any, given: tuple[str | None, str | None, str | None], options: Options
) -> tuple[Qrels, Any]:
    """Qrels that :func:`ranklens.evaluate` reads (a path, a dict, a DataFrame: its
    columns the usual ones unless ``given``), read where the evaluation starts, and their
    rows as the Arrow table :func:`ranklens.scale.in_place.qrels_rows` takes."""
    if is_frame(qrels) and any(name is not None for name in given):
        whole = Qrels.from_frame(
            qrels,
            qid_col=given[0],
            doc_col=given[1],
            rel_col=given[2],
            duplicates=options.duplicates,
        )
    else:
        whole = as_qrels(qrels, options.duplicates)
    return whole, qrels_table(whole)


def qrels_table(whole: Qrels) -> Any:
    """The rows of ``whole`` as an Arrow table (query, document, grade), with no Python
    object per row."""
    pa = require("pyarrow", "ranklens's engines")
    queries = pa.DictionaryArray.from_arrays(
        pa.array(whole.query_of_entries()), pa.array(whole.qids, pa.string())
    ).cast(pa.string())
    docs = pa.LargeStringArray.from_buffers(
        len(whole),
        pa.py_buffer(np.ascontiguousarray(whole.doc_offsets)),
        pa.py_buffer(np.ascontiguousarray(whole.doc_data)),
    )
    return pa.table([queries, docs, pa.array(whole.rels, pa.int64())], names=["q", "d", "r"])


def evaluate_units(
    whole: Qrels,
    q_table: Any,
    units: ParquetUnits,
    columns: RunColumns,
    options: Options,
    run_all: UnitRunner,
    sort_hint: str,
) -> list[Part]:
    """The parts of the evaluation of the units' run (see the module) against the qrels
    ``whole`` (their rows ``q_table``), one task per unit run by ``run_all``.
    ``sort_hint``: what the error of a run not grouped by query tells the user to do.

    Raises
    ------
    RunNotGroupedError
        The run is not grouped by query.
    InputError
        As :func:`ranklens.evaluate` on the same qrels and run would (naming the file and
        the row).
    EmptyInputError
        The run holds no rows.
    """
    pa = require("pyarrow", "ranklens's engines")
    if set_dependent(options.measures):
        in_run = None
        if options.queries != "qrels":
            found = run_all(
                functools.partial(unit_queries, units, columns.query), QUERIES_SCHEMA, False
            )
            in_run = {str(q) for q in found.column("q").to_pylist()}
        options = options.pinned(top_grade(whole, in_run))
    sent = Broadcast(options, qrels_rows(q_table, pa), columns, True, _NO_EDGE_LIMIT)
    table = run_all(functools.partial(unit_batch, units, sent), SCHEMA, True)
    where = units.source.where
    try:
        parts = gather(table, sent)
    except NotGroupedError as exc:
        raise RunNotGroupedError(
            f"the run is not grouped by query: query {exc.query!r} has rows in more than one "
            f"place. Its tasks read a Parquet run by its row groups, which needs all rows "
            f"of a query together; {sort_hint.replace('QUERY_COLUMN', repr(columns.query))}",
            path=where,
        ) from None
    except TaskError as exc:
        raise _first([_as_error(r) for r in exc.records], units) from None
    except DeclinedError:  # only for a missing query id, which the reader names first
        raise InputError("holds a row without a query id", path=where) from None
    except RanklensError as exc:  # in the edge rows: find it with its rows
        raise _first(_edge_errors(table, sent) or [exc], units) from None
    if sum(p.run_queries for p in parts) == 0:
        raise EmptyInputError("holds no entries", path=where)
    return parts


def _as_error(record: dict[str, Any]) -> RanklensError:
    """The exception a task's error record stands for."""
    if record["kind"] == "DuplicateError":
        lines = record.get("lines")
        return DuplicateError(
            record["message"],
            path=record.get("path"),
            lines=None if lines is None else (int(lines[0]), int(lines[1])),
            query=str(record.get("query")),
            document=str(record.get("document")),
        )
    if "path" in record:
        kind = error_kinds().get(record["kind"], InputError)
        if not issubclass(kind, InputError):
            kind = InputError
        return kind(record["message"], path=record.get("path"), line=record.get("line"))
    return RanklensError(record["message"])


def _edge_errors(table: Any, sent: Broadcast) -> list[RanklensError]:
    """The errors of the edge rows, each read with its rows' numbers."""
    edges = edge_rows(table)
    found: list[RanklensError] = []
    for block, first in [] if edges is None else edge_blocks(edges):
        try:
            read_run(block, sent, first + 1)
        except RanklensError as exc:
            found.append(exc)
    return found


def _row(exc: RanklensError) -> float:
    if isinstance(exc, DuplicateError) and exc.lines is not None:
        return float(exc.lines[1])
    if isinstance(exc, InputError) and exc.line is not None:
        return float(exc.line)
    return float("inf")


def _first(errors: list[RanklensError], units: ParquetUnits) -> RanklensError:
    """The error met first in row order, naming the file and its row (a dataset's row
    counted within its file, as the single machine's reader does)."""
    first = min(errors, key=_row)
    if isinstance(first, InputError) and len(units.source.files) > 1:
        return in_file(first, units.source, file_starts(units.source))
    return first
