"""Evaluation on Spark where the run lies (:mod:`ranklens.scale.in_place`): a DataFrame
whose partitions hold its rows grouped by query is evaluated with no exchange.

The qrels are read once, on the driver (:meth:`ranklens.Qrels.from_frame`: their errors
are the in-memory ones), after their size is checked (Spark's estimate of the plan, at
most :data:`QRELS_BROADCAST_BYTES`, or at most :data:`QRELS_BROADCAST_ROWS` rows where
Spark cannot size it), and sent to every task with the function. ``mapInArrow`` on the run
alone hands each input partition's rows, in their order, to a task running
:func:`ranklens.scale.in_place.evaluate_rows`; the driver finishes with
:func:`ranklens.scale.in_place.gather`. Whenever that cannot give the in-memory numbers,
:func:`evaluate_in_place` returns ``None`` and the caller hashes the rows by query.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ranklens.base.errors import InputError, RanklensError
from ranklens.base.optional import require
from ranklens.base.progress import Progress
from ranklens.data.frames import RANK_COLUMN
from ranklens.data.qrels import Qrels
from ranklens.evaluation.parts import Part, set_dependent
from ranklens.scale.in_place import (
    EDGE_ROWS_LIMIT,
    POSITION_BITS,
    SCORE,
    Broadcast,
    DeclinedError,
    NotGroupedError,
    RunColumns,
    TaskError,
    evaluate_rows,
    gather,
    qrels_rows,
    top_grade,
)
from ranklens.scale.part_batches import SCHEMA, partition_rows
from ranklens.scale.partition import DOC, QUERY, Options
from ranklens.scale.spark_parts import collect, to_arrow

QRELS_BROADCAST_BYTES = 256 << 20
"""The largest qrels (Spark's estimate of their plan) sent whole to every task."""


QRELS_BROADCAST_ROWS = 10_000_000
"""The most qrels rows sent whole to every task where Spark has no estimate of their size
(a DataFrame made from an RDD)."""


_UNKNOWN_SIZE = 1 << 62  # Spark's estimate of a plan it cannot size: Long.MaxValue


def _task(sent: Broadcast) -> Any:
    """What each input partition of the run runs: its Arrow batches in, one batch out."""

    def evaluate_partition(batches: Iterator[Any]) -> Iterator[Any]:
        from pyspark import TaskContext

        rows = partition_rows(batches)
        if rows is None:
            return
        task = TaskContext.get()
        first = (0 if task is None else task.partitionId()) << POSITION_BITS
        yield evaluate_rows(rows, first, sent)

    return evaluate_partition


def small_enough(frame: Any) -> bool:
    """Whether the qrels ``frame`` may be sent whole to every task: Spark's estimate of
    its plan is at most :data:`QRELS_BROADCAST_BYTES` or, where Spark cannot size it, it
    holds at most :data:`QRELS_BROADCAST_ROWS` rows (a job counting that far); a session
    that does not show its plan (Spark Connect) is trusted."""
    size = _estimated_bytes(frame)
    if size is None:
        return True
    if size < _UNKNOWN_SIZE:
        return size <= QRELS_BROADCAST_BYTES
    return int(frame.limit(QRELS_BROADCAST_ROWS + 1).count()) <= QRELS_BROADCAST_ROWS


def _estimated_bytes(frame: Any) -> int | None:
    """Spark's estimate of the size of ``frame``'s plan (what it decides broadcasts by),
    or ``None`` where this session does not expose it (Spark Connect)."""
    plan = getattr(frame, "_jdf", None)
    if plan is None:
        return None
    try:
        return int(str(plan.queryExecution().optimizedPlan().stats().sizeInBytes()))
    except Exception:  # py4j's errors: no estimate, not a failure
        return None


def _run_queries(run_frame: Any) -> set[str]:
    """The query ids of the run (one Spark job), as strings."""
    pc = require("pyarrow.compute", "ranklens.spark")
    in_run = to_arrow(run_frame.select(QUERY).distinct()).column(QUERY)
    return {str(q) for q in pc.cast(in_run, "string").to_pylist()}


def evaluate_in_place(
    fn: Any,
    qrels: Any,
    run: Any,
    columns: tuple[tuple[str, str, str], tuple[str, str, str]],
    options: Options,
    *,
    with_rank: bool,
    declared: bool,
    progress: Progress | None,
    edge_rows_limit: int = EDGE_ROWS_LIMIT,
) -> list[Part] | None:
    """The parts of the evaluation of ``run`` where it lies (see the module), or ``None``
    where only the exchange by query gives the in-memory numbers.

    Parameters
    ----------
    fn
        ``pyspark.sql.functions``.
    qrels, run
        The user's DataFrames; ``columns`` their (query, document, value) columns.
    options
        The evaluation's options (ERR's ``g_max`` is pinned here where it is needed).
    with_rank
        Read the run's ``rank`` column (``ties="rank"``).
    declared
        The user declared the run partitioned by query: a partition's queries need not be
        in stretches, and a query found in two partitions away from their edges is an
        error rather than a reason to exchange.
    progress
        As :func:`ranklens.scale.spark_backend.evaluate`.
    edge_rows_limit
        The most edge rows a partition sends to the driver; a partition with more makes
        this return ``None``.

    Raises
    ------
    InputError
        ``declared`` and the run is not partitioned by query.
    """
    pa = require("pyarrow", "ranklens.spark")
    q_cols, r_cols = columns
    q_frame = qrels.select(*(fn.col(c) for c in q_cols))
    if not small_enough(q_frame):
        return None
    q_table = to_arrow(q_frame)
    try:
        whole = Qrels.from_frame(
            q_table,
            qid_col=q_cols[0],
            doc_col=q_cols[1],
            rel_col=q_cols[2],
            duplicates=options.duplicates,
        )
    except RanklensError:
        return None
    rank = [fn.col(RANK_COLUMN).cast("double").alias(RANK_COLUMN)] if with_rank else []
    r_frame = run.select(
        fn.col(r_cols[0]).alias(QUERY),
        fn.col(r_cols[1]).alias(DOC),
        fn.col(r_cols[2]).alias(SCORE),
        *rank,
    )
    if set_dependent(options.measures):
        in_run = None if options.queries == "qrels" else _run_queries(r_frame)
        options = options.pinned(top_grade(whole, in_run))
    sent = Broadcast(
        options,
        qrels_rows(q_table, pa),
        RunColumns(QUERY, DOC, SCORE),
        not declared,
        edge_rows_limit,
    )
    table = collect(r_frame.mapInArrow(_task(sent), schema=SCHEMA), progress)
    try:
        return gather(table, sent)
    except NotGroupedError as exc:
        if not declared:
            return None
        raise InputError(
            "the run was declared partitioned by query (partitioned_by_query=True), but "
            f"query {exc.query!r} has rows in more than one input partition away from "
            "their first and last rows: sort or partition the run by query, or leave "
            "partitioned_by_query unset to have its rows hashed by query",
            path="<DataFrame>",
        ) from None
    except (DeclinedError, TaskError, RanklensError):
        return None
