"""Evaluation on Spark of a Parquet run given by its path: the tasks read its row groups
with Arrow themselves, so no row passes through Spark's JVM.

``ranklens.spark.evaluate(qrels, "run/")`` plans the run's row groups (from the files'
footers) as *units* of whole row groups of one file, in path order, and runs one Spark
task per unit (``spark.range(n).mapInArrow``). Each task reads its unit
(:func:`ranklens.data.parquet_stream.read_row_groups`, the columns used only) and
evaluates it where it is, exactly as a DataFrame's partition is evaluated in place
(:func:`ranklens.scale.spark_in_place.evaluate_rows`): the queries inside the unit there,
the first and last query's rows sent to the driver, where they are put in row order and
evaluated with the qrels' queries no task saw. The run must be grouped by query, as the
single machine's Parquet streaming needs it (a run that is not is an
:class:`~ranklens.base.errors.InputError` saying how to sort it); an error in the rows
names the file and the row as the single machine does (the first in row order).

The qrels (a Spark DataFrame, or anything :func:`ranklens.evaluate` reads: a path, a
dict, a DataFrame) are read once on the driver and sent to every task.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlparse

import numpy as np

from ranklens.base.errors import DuplicateError, EmptyInputError, InputError, RanklensError
from ranklens.base.optional import require
from ranklens.base.progress import Progress
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
from ranklens.scale.partition import Options
from ranklens.scale.spark_in_place import (
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
    qrels_rows,
    read_run,
    top_grade,
)
from ranklens.scale.spark_parts import SCHEMA, collect, error_kinds, record_batch, to_arrow

UNIT_ROWS = (1 << 18, 1 << 21)
"""The fewest and the most rows a task reads (whole row groups: a row group larger than
the most is one unit)."""
_NO_EDGE_LIMIT = 1 << 62
SORT_HINT = (
    "sort it by query first, keeping the order of the rows within each query (e.g. with "
    "polars: pl.scan_parquet(RUN).sort(QUERY_COLUMN, maintain_order=True)"
    ".sink_parquet(SORTED)), or pass it as a Spark DataFrame (spark.read.parquet(RUN)), "
    "whose rows ranklens hashes by query"
)


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


_SCAN = "org.apache.spark.sql.execution.datasources."
_BARE_PLAN = _SCAN + "LogicalRelation"
_BARE_RELATION = (
    _SCAN + "HadoopFsRelation",
    _SCAN + "parquet.ParquetFileFormat",
    _SCAN + "InMemoryFileIndex",
)
"""A bare scan of Parquet files: the plan, then its relation, file format and index."""


def plain_parquet(frame: Any) -> ParquetSource | None:
    """The files of ``frame`` where it is a bare scan of local Parquet files (as
    ``spark.read.parquet(path)`` gives: no filter, projection, partition column or table
    format of its own, such as Delta's), in path order; else ``None`` (also where the
    session does not show its plan: Spark Connect)."""
    handle = getattr(frame, "_jdf", None)
    if handle is None:
        return None
    try:
        plan = handle.queryExecution().optimizedPlan()
        if plan.getClass().getName() != _BARE_PLAN:
            return None
        relation = plan.relation()
        found = (
            relation.getClass().getName(),
            relation.fileFormat().getClass().getName(),
            relation.location().getClass().getName(),
        )
        if found != _BARE_RELATION:
            return None
        if int(relation.partitionSchema().length()) != 0:
            return None
        uris = [str(uri) for uri in frame.inputFiles()]
    except Exception:  # py4j's errors: a plan this does not know, so not a bare scan
        return None
    paths = []
    for uri in uris:
        parsed = urlparse(uri)
        if parsed.scheme not in ("file", ""):
            return None
        paths.append(unquote(parsed.path))
    if not paths:
        return None
    files = tuple(sorted(paths))
    where = files[0] if len(files) == 1 else os.path.commonpath(files)
    return ParquetSource(where, files, tuple({} for _ in files))


def _task(sent: Broadcast, units: ParquetUnits) -> Any:
    """What each task runs: the indices of its units in, one batch out per unit."""

    def evaluate_units(batches: Iterator[Any]) -> Iterator[Any]:
        pa = require("pyarrow", "ranklens.spark")
        for batch in batches:
            for index in batch.column(0).to_pylist():
                try:
                    rows = read_unit(units, int(index))
                except RanklensError as exc:
                    yield record_batch(pa, error_record(exc))
                    continue
                yield evaluate_rows(rows, units.units[int(index)].first, sent)

    return evaluate_units


def _qrels_table(
    qrels: Any, given: tuple[str | None, str | None, str | None], options: Options, pa: Any
) -> tuple[Qrels, Any]:
    """The qrels read on the driver (a Spark DataFrame's rows, its columns the usual ones
    unless ``given``, or anything :func:`ranklens.evaluate` reads), and their rows as an
    Arrow table."""
    if hasattr(qrels, "sparkSession") and hasattr(qrels, "toArrow"):
        from ranklens.scale.partition import qrels_columns

        q_cols = qrels_columns(list(qrels.columns), given)
        table = to_arrow(qrels.select(*q_cols))
        whole = Qrels.from_frame(
            table,
            qid_col=q_cols[0],
            doc_col=q_cols[1],
            rel_col=q_cols[2],
            duplicates=options.duplicates,
        )
        return whole, table
    from ranklens.data.coerce import as_qrels

    whole = as_qrels(qrels, options.duplicates)
    queries = pa.DictionaryArray.from_arrays(
        pa.array(whole.query_of_entries()), pa.array(whole.qids, pa.string())
    ).cast(pa.string())
    docs = pa.LargeStringArray.from_buffers(
        len(whole),
        pa.py_buffer(np.ascontiguousarray(whole.doc_offsets)),
        pa.py_buffer(np.ascontiguousarray(whole.doc_data)),
    )
    table = pa.table([queries, docs, pa.array(whole.rels, pa.int64())], names=["q", "d", "r"])
    return whole, table


def _run_queries(spark: Any, units: ParquetUnits, query: str) -> set[str]:
    """The query ids of the run (one Spark job reading only the query column)."""
    pa = require("pyarrow", "ranklens.spark")
    pc = require("pyarrow.compute", "ranklens.spark")
    only = ParquetUnits(units.source, (query,), units.units)

    def distinct(batches: Iterator[Any]) -> Iterator[Any]:
        for batch in batches:
            for index in batch.column(0).to_pylist():
                ids = pc.unique(read_unit(only, int(index)).column(query).combine_chunks())
                yield pa.RecordBatch.from_arrays([pc.cast(ids, pa.string())], names=["q"])

    n = len(units.units)
    found = to_arrow(spark.range(n, numPartitions=max(n, 1)).mapInArrow(distinct, "q string"))
    return {str(q) for q in found.column("q").to_pylist()}


def evaluate_parquet(
    spark: Any,
    qrels: Any,
    run: str | os.PathLike[str] | ParquetSource,
    options: Options,
    progress: Progress | None = None,
    columns: tuple[tuple[str | None, str | None, str | None], ...] = (),
) -> list[Part]:
    """The parts of the evaluation of the Parquet run ``run`` (a file, a directory or a
    glob, or its files, grouped by query) read by the Spark tasks themselves (see the
    module). ``columns``: the qrels' and the run's (query, document, value) columns where
    they are not the usual ones.

    Raises
    ------
    InputError
        As :func:`ranklens.evaluate` on the same qrels and run would (naming the file and
        the row); :class:`RunNotGroupedError`, the run is not grouped by query.
    EmptyInputError
        The run holds no rows.
    """
    pa = require("pyarrow", "ranklens.spark")
    cores = int(spark.sparkContext.defaultParallelism)
    q_given, r_given = (*columns, (None, None, None), (None, None, None))[:2]
    whole, q_table = _qrels_table(qrels, q_given, options, pa)
    units, r_columns = plan_units(run, cores, r_given)
    if set_dependent(options.measures):
        in_run = None
        if options.queries != "qrels":
            in_run = _run_queries(spark, units, r_columns.query)
        options = options.pinned(top_grade(whole, in_run))
    sent = Broadcast(options, qrels_rows(q_table, pa), r_columns, True, _NO_EDGE_LIMIT)
    n = len(units.units)
    tasks = spark.range(n, numPartitions=max(n, 1)).mapInArrow(_task(sent, units), SCHEMA)
    table = collect(tasks, progress)
    where = units.source.where
    try:
        parts = gather(table, sent)
    except NotGroupedError as exc:
        raise RunNotGroupedError(
            f"the run is not grouped by query: query {exc.query!r} has rows in more than one "
            f"place. ranklens.spark reads a Parquet run by its row groups, which needs all "
            f"rows of a query together; {SORT_HINT.replace('QUERY_COLUMN', repr(r_columns.query))}",
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
