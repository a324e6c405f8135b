"""What a task sends back, and how the driver (or Dask's client) reads it: one Arrow batch
per piece of the run holding its evaluated queries' values, its query counts, the
run-level measures' states and (evaluating in place) the run rows it could not evaluate
alone.

Used by Spark's hash exchange by query (:mod:`ranklens.scale.spark_backend`) and by every
evaluation of a run where it lies (:mod:`ranklens.scale.in_place`).
"""

from __future__ import annotations

import pickle
import uuid
from collections.abc import Iterable
from typing import Any

import numpy as np

from ranklens.base.errors import RanklensError
from ranklens.base.optional import require
from ranklens.evaluation.parts import Part

SCHEMA = (
    "query_id string, vals array<double>, counts array<long>, error string, part long, "
    "state binary, edges binary, unlisted array<string>"
)
"""A partition's rows: one per query (its values), then one of counts (``query_id`` null)
holding the run-level measures' states (``state``, pickled, see
:mod:`ranklens.kernels.run_parts`), the run rows sent to the driver (``edges``, an Arrow
IPC stream) and the run's queries it saw but did not evaluate (``unlisted``: no qrels
under ``queries="qrels"``); ``part`` tells the partitions' rows apart; ``error`` a record
(JSON)."""
COLUMNS = ("query_id", "vals", "counts", "error", "part", "state", "edges", "unlisted")
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
    pa = require("pyarrow", "ranklens's engines")
    chunks = list(batches)
    return pa.Table.from_batches(chunks) if chunks else None


def part_batch(
    pa: Any,
    part: Part,
    width: int,
    edges: bytes | None = None,
    unlisted: list[str] | None = None,
) -> Any:
    """The Arrow batch a task sends for its evaluated ``part`` (``width`` measures), with
    the edge rows and the queries it saw but did not evaluate, where it has them."""
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
            pa.array([*blank, unlisted], pa.list_(pa.string())),
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
        pa.list_(pa.string()),
    )
    arrays = [pa.nulls(1, kind) for kind in kinds]
    arrays[3] = pa.array([record], pa.string())
    return pa.RecordBatch.from_arrays(arrays, names=list(COLUMNS))


def parts_of(table: Any, width: int) -> list[Part]:
    """The collected rows as one :class:`Part` per task: its queries and values, its
    query counts and its run-level states (the per-user ones follow its queries' order)."""
    pc = require("pyarrow.compute", "ranklens's engines")
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
