"""Evaluation on Dask of a DataFrame run where its rows lie: no shuffle for a run whose
partitions hold its rows grouped by query (as ``dd.read_parquet`` of a run written from a
TREC file, or any frame computed from one without reordering, holds them).

Each partition of the run is a task: its rows are put in the shape of
:func:`ranklens.scale.arrow_parts.prepared_table` (Arrow, ids as strings) and evaluated by
:func:`ranklens.scale.in_place.evaluate_rows`: the queries inside the partition there, the
rows of its first and last query sent back with their positions. The client puts those in
row order and evaluates them with the qrels' queries no task saw
(:func:`ranklens.scale.in_place.gather`). The qrels are read once on the client
(:func:`ranklens.scale.dask_files.client_qrels`) and sent to each worker once, with the
function.

Whenever this cannot give the in-memory numbers, :func:`evaluate_frame` returns ``None``
and the caller shuffles by query: the run has one partition (nothing to spread), the
run's first rows are not grouped by query (checked on them alone, from the first
partition, before any task runs), a partition's rows are not, a query is found in two
partitions, a partition has more than
:data:`~ranklens.scale.in_place.EDGE_ROWS_LIMIT` edge rows, the qrels are too many, ERR's
default ``g_max`` under ``queries="run"`` or ``"both"`` (it needs the run's queries
first), or any error in the input (the shuffle names it, counting the rows of the whole
table from 0).
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from typing import Any

from ranklens.base.errors import RanklensError
from ranklens.base.optional import require
from ranklens.base.progress import Progress
from ranklens.data.frames import RANK_COLUMN
from ranklens.evaluation.parts import Part, set_dependent
from ranklens.scale.arrow_parts import prepared_table
from ranklens.scale.dask_files import Compute, client_qrels, shared_tasks
from ranklens.scale.in_place import (
    EDGE_ROWS_LIMIT,
    POSITION_BITS,
    Broadcast,
    DeclinedError,
    NotGroupedError,
    RunColumns,
    TaskError,
    evaluate_rows,
    fall_back_batch,
    gather,
    grouped,
    qrels_rows,
    top_grade,
)
from ranklens.scale.partition import DOC, QUERY, ROW, SIDES, VALUE, Options

LOOK_ROWS = 1 << 16
"""The run's first rows read on the client to tell a run not grouped by query."""


def _partition_batch(
    frame: Any, number: int, columns: tuple[str, str, str], rank: bool, sent: Broadcast
) -> Any:
    """What the task of partition ``number`` returns: its rows evaluated where they are,
    a request to shuffle (its rows hold an error the shuffle names), or ``None`` for no
    rows."""
    try:
        rows = prepared_table(frame, columns, SIDES[1], "float64", number, rank)
    except RanklensError:
        return fall_back_batch()
    if not len(rows):
        return None
    return evaluate_rows(rows.drop_columns([ROW]), number << POSITION_BITS, sent)


def _starts_grouped(frame: Any, query: str) -> bool:
    """Whether the run's first :data:`LOOK_ROWS` rows (of its first partition) hold their
    queries in stretches; ``True`` where they cannot be read (the tasks name that)."""
    pa = require("pyarrow", "ranklens.dask")
    try:
        with warnings.catch_warnings():  # a first partition shorter than the look
            warnings.filterwarnings("ignore", "Insufficient elements", UserWarning)
            head = frame[[query]].head(LOOK_ROWS, npartitions=1)
        ids = pa.Table.from_pandas(head, preserve_index=False).column(0).combine_chunks()
    except (ValueError, TypeError, pa.ArrowException):
        return True
    return grouped(ids)


def evaluate_frame(
    qrels: Any,
    run: Any,
    columns: tuple[str, str, str],
    options: Options,
    load_qrels: Callable[[Any], tuple[Any, tuple[str, str, str]]],
    compute: Compute,
    progress: Progress | None = None,
) -> list[Part] | None:
    """The parts of the evaluation of the Dask DataFrame ``run`` where its rows lie (see
    the module), or ``None`` where the caller's shuffle is needed.

    Parameters
    ----------
    qrels
        What :func:`ranklens.dask.evaluate` takes.
    run
        The run as a Dask DataFrame (its query id a column), ``columns`` its (query,
        document, score) columns.
    options
        The evaluation's options.
    load_qrels
        The qrels as a Dask DataFrame, with their (query, document, grade) columns.
    compute
        Computes a list of tasks (reporting to a progress, or not).
    progress
        Called as the partitions' tasks finish.
    """
    dask = require("dask", "ranklens.dask")
    pa = require("pyarrow", "ranklens.dask")
    if run.npartitions < 2:  # nothing to spread: the shuffle is as fast
        return None
    rank = options.ties == "rank"
    names = [str(c) for c in run.columns]
    if rank and RANK_COLUMN not in names:
        return None  # the caller refuses it, naming the options
    if set_dependent(options.measures) and options.queries != "qrels":
        return None
    if not _starts_grouped(run, columns[0]):
        return None
    try:
        read = client_qrels(qrels, load_qrels, options)
    except RanklensError:
        return None
    if read is None:
        return None
    whole, q_table = read
    if set_dependent(options.measures):
        options = options.pinned(top_grade(whole, None))
    sent = Broadcast(
        options, qrels_rows(q_table, pa), RunColumns(QUERY, DOC, VALUE), True, EDGE_ROWS_LIMIT
    )
    wanted = list(dict.fromkeys([*columns, *([RANK_COLUMN] if rank else [])]))
    task = functools.partial(_partition_batch, columns=columns, rank=rank, sent=sent)
    partitions = list(enumerate(run[wanted].to_delayed()))
    tasks = shared_tasks(dask, task, [(part, k) for k, part in partitions], "ranklens-partition")
    batches = [batch for batch in compute(tasks, progress) if batch is not None]
    if not batches:
        return None
    try:
        return gather(pa.Table.from_batches(batches), sent)
    except (NotGroupedError, DeclinedError, TaskError, RanklensError):
        return None
