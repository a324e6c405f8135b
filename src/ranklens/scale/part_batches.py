"""What a Spark task sends back, and how the driver reads it: one Arrow batch per input
partition holding its evaluated queries' values, its query counts, the run-level measures'
states and (evaluating in place) the run rows it could not evaluate alone.

Used by both ways :mod:`ranklens.scale.spark_backend` evaluates: the hash exchange by
query, and the run evaluated where it lies (:mod:`ranklens.scale.spark_in_place`).
"""

from __future__ import annotations

import pickle
import threading
import uuid
import warnings
from collections.abc import Iterable
from typing import Any

import numpy as np

from ranklens.base.errors import RanklensError
from ranklens.base.optional import require
from ranklens.base.progress import Progress
from ranklens.evaluation.parts import Part

SCHEMA = (
    "query_id string, vals array<double>, counts array<long>, error string, part long, "
    "state binary, edges binary"
)
"""A partition's rows: one per query (its values), then one of counts (``query_id`` null)
holding the run-level measures' states (``state``, pickled, see
:mod:`ranklens.kernels.run_parts`) and the run rows sent to the driver (``edges``, an Arrow
IPC stream); ``part`` tells the partitions' rows apart; ``error`` a record (JSON)."""
COLUMNS = ("query_id", "vals", "counts", "error", "part", "state", "edges")
COUNTS = ("qrels_queries", "run_queries", "both", "retrieving", "matched", "retrieved", "tied")


def error_kinds() -> dict[str, type[RanklensError]]:
    """ranklens' error classes by name: what the driver raises for a task's error record."""
    found: dict[str, type[RanklensError]] = {}
    pending: list[type[RanklensError]] = [RanklensError]
    while pending:
        cls = pending.pop()
        found[cls.__name__] = cls
        pending.extend(cls.__subclasses__())
    return found


def partition_rows(batches: Iterable[Any]) -> Any:
    """A partition's Arrow record batches as one table (``None`` for none)."""
    pa = require("pyarrow", "ranklens.spark")
    chunks = list(batches)
    return pa.Table.from_batches(chunks) if chunks else None


def part_batch(pa: Any, part: Part, width: int, edges: bytes | None = None) -> Any:
    """The Arrow batch a task sends for its evaluated ``part`` (``width`` measures)."""
    rows_out = len(part.queries) + 1
    state = pickle.dumps(dict(part.statistics)) if part.statistics else None
    flat = np.ascontiguousarray(part.values, dtype=np.float64).reshape(-1)
    offsets = np.arange(0, len(part.queries) * width + 1, width, dtype=np.int32)
    tied = -1 if part.tied is None else part.tied
    counts = [
        part.qrels_queries,
        part.run_queries,
        part.both,
        part.retrieving,
        part.matched,
        part.retrieved,
        tied,
    ]
    blank = [None] * len(part.queries)
    return pa.RecordBatch.from_arrays(
        [
            pa.array([*part.queries, None], pa.string()),
            pa.ListArray.from_arrays(
                pa.array(np.append(offsets, offsets[-1]), pa.int32()),
                pa.array(flat, pa.float64()),
            ),
            pa.array([*blank, counts], pa.list_(pa.int64())),
            pa.nulls(rows_out, pa.string()),
            pa.array([uuid.uuid4().int >> 65] * rows_out, pa.int64()),
            pa.array([*blank, state], pa.binary()),
            pa.array([*blank, edges], pa.binary()),
        ],
        names=list(COLUMNS),
    )


def record_batch(pa: Any, record: str) -> Any:
    """The one-row batch of a task that evaluated nothing: ``record`` (JSON) says why."""
    kinds = (
        pa.string(),
        pa.list_(pa.float64()),
        pa.list_(pa.int64()),
        pa.string(),
        pa.int64(),
        pa.binary(),
        pa.binary(),
    )
    arrays = [pa.nulls(1, kind) for kind in kinds]
    arrays[3] = pa.array([record], pa.string())
    return pa.RecordBatch.from_arrays(arrays, names=list(COLUMNS))


def parts_of(table: Any, width: int) -> list[Part]:
    """The collected rows as one :class:`Part` per task: its queries and values, its
    query counts and its run-level states (the per-user ones follow its queries' order)."""
    pc = require("pyarrow.compute", "ranklens.spark")
    is_count = pc.is_null(table.column("query_id"))
    values = table.filter(pc.invert(is_count))
    ids = [str(q) for q in values.column("query_id").to_pylist()]
    flat = values.column("vals").combine_chunks().flatten().to_numpy(zero_copy_only=False)
    matrix = np.asarray(flat, dtype=np.float64).reshape(len(ids), width)
    tags = np.asarray(values.column("part").to_numpy(zero_copy_only=False))
    order = np.argsort(tags, kind="stable")  # a partition's rows in its order
    sorted_tags = tags[order]
    counts_rows = table.filter(is_count)
    parts = []
    for tag, counts, state in zip(
        counts_rows.column("part").to_pylist(),
        counts_rows.column("counts").to_pylist(),
        counts_rows.column("state").to_pylist(),
        strict=True,
    ):
        lo, hi = np.searchsorted(sorted_tags, [tag, tag + 1])
        rows = order[lo:hi]
        nq, nr, both, retrieving, matched, retrieved, tied = (int(c) for c in counts)
        parts.append(
            Part(
                tuple(ids[i] for i in rows.tolist()),
                matrix[rows],
                nq,
                nr,
                both,
                retrieving,
                matched,
                retrieved,
                None if tied < 0 else tied,
                statistics={} if state is None else pickle.loads(state),
            )
        )
    return parts


def collect(frame: Any, progress: Progress | None) -> Any:
    """``frame.toArrow()`` (a pyarrow Table); with ``progress``, its jobs run in a job
    group of their own (this thread's, restored after) whose tasks a polling thread
    reports."""
    if progress is None:
        return to_arrow(frame)
    context = frame.sparkSession.sparkContext
    group = f"ranklens-{uuid.uuid4().hex}"
    previous = context.getLocalProperty("spark.jobGroup.id")
    stop = threading.Event()
    known = [0, 0]

    def tasks() -> tuple[int, int]:
        tracker = context.statusTracker()
        done = total = 0
        for job in tracker.getJobIdsForGroup(group):
            info = tracker.getJobInfo(job)
            for stage_id in info.stageIds if info is not None else ():
                stage = tracker.getStageInfo(stage_id)
                if stage is not None:
                    done, total = done + stage.numCompletedTasks, total + stage.numTasks
        return done, total

    def poll() -> None:
        while not stop.wait(0.25):
            done, total = tasks()
            if total and (done, total) != tuple(known):
                known[:] = [done, total]
                progress(done, total)

    context.setLocalProperty("spark.jobGroup.id", group)
    watcher = threading.Thread(target=poll, name="ranklens-spark-progress", daemon=True)
    watcher.start()
    try:
        table = to_arrow(frame)
    finally:
        stop.set()
        watcher.join()
        context.setLocalProperty("spark.jobGroup.id", previous)
    total = max(tasks()[1], known[1], 1)
    progress(total, total)  # skipped stages never complete their tasks
    return table


def to_arrow(frame: Any) -> Any:
    """``frame.toArrow()``, without pyspark's "not yet fully supports pandas 3" warning."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        return frame.toArrow()
