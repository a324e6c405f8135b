"""Evaluation on Spark of a Parquet run given by its path: the tasks read its row groups
with Arrow themselves, so no row passes through Spark's JVM.

``ranklens.spark.evaluate(qrels, "run/")`` plans the run's row groups as units
(:func:`ranklens.scale.parquet_units.plan_units`) and runs one Spark task per unit
(``spark.range(n).mapInArrow``), each evaluating its unit where it is
(:func:`ranklens.scale.parquet_units.evaluate_units`); the driver finishes the queries cut
between units. The run must be grouped by query, as the single machine's Parquet streaming
needs it (a run that is not is an :class:`~ranklens.base.errors.InputError` saying how to
sort it); an error in the rows names the file and the row as the single machine does.
:func:`plain_parquet` recognises a DataFrame that is a bare scan of local Parquet files,
which is read the same way.

The qrels (a Spark DataFrame, or anything :func:`ranklens.evaluate` reads: a path, a
dict, a DataFrame) are read once on the driver and sent to every task.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import unquote, urlparse

from ranklens.base.progress import Progress
from ranklens.data.parquet_stream import ParquetSource
from ranklens.data.qrels import Qrels
from ranklens.evaluation.parts import Part
from ranklens.scale.parquet_units import (
    RunNotGroupedError,
    UnitRunner,
    evaluate_units,
    plan_units,
    read_qrels,
)
from ranklens.scale.partition import Options, qrels_columns
from ranklens.scale.spark_parts import collect, to_arrow

__all__ = ["RunNotGroupedError", "evaluate_parquet", "plain_parquet"]

SORT_HINT = (
    "sort it by query first, keeping the order of the rows within each query (e.g. with "
    "polars: pl.scan_parquet(RUN).sort(QUERY_COLUMN, maintain_order=True)"
    ".sink_parquet(SORTED)), or pass it as a Spark DataFrame (spark.read.parquet(RUN)), "
    "whose rows ranklens hashes by query"
)


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


def _runner(spark: Any, n: int, progress: Progress | None) -> UnitRunner:
    """Spark's way to run one task per unit: ``spark.range(n).mapInArrow``, a partition
    per unit, collected on the driver."""

    def run_all(task: Callable[[int], Any], schema: str, report: bool) -> Any:
        def per_partition(batches: Iterator[Any]) -> Iterator[Any]:
            for batch in batches:
                for index in batch.column(0).to_pylist():
                    yield task(int(index))

        frame = spark.range(n, numPartitions=max(n, 1)).mapInArrow(per_partition, schema)
        return collect(frame, progress if report else None)

    return run_all


def _qrels_table(
    qrels: Any, given: tuple[str | None, str | None, str | None], options: Options
) -> tuple[Qrels, Any]:
    """The qrels read on the driver (a Spark DataFrame's rows, its columns the usual ones
    unless ``given``, or anything :func:`ranklens.evaluate` reads), and their rows as an
    Arrow table."""
    if hasattr(qrels, "sparkSession") and hasattr(qrels, "toArrow"):
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
    return read_qrels(qrels, given, options)


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
    cores = int(spark.sparkContext.defaultParallelism)
    q_given, r_given = (*columns, (None, None, None), (None, None, None))[:2]
    whole, q_table = _qrels_table(qrels, q_given, options)
    units, r_columns = plan_units(run, cores, r_given)
    run_all = _runner(spark, len(units.units), progress)
    return evaluate_units(whole, q_table, units, r_columns, options, run_all, SORT_HINT)
