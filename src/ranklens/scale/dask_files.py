"""Evaluation on Dask of a Parquet run given by its path, grouped by query: the tasks read
its row groups with Arrow themselves and evaluate them where they are, with no shuffle
and no Dask DataFrame of the run.

``ranklens.dask.evaluate(qrels, "run/")`` plans the run's row groups as units
(:func:`ranklens.scale.parquet_units.plan_units`, about four per worker thread) and
computes one task per unit (:func:`ranklens.scale.parquet_units.unit_batch`); the client
finishes the queries cut between units (:func:`ranklens.scale.parquet_units.evaluate_units`).
The qrels are read once, on the client, and sent to every worker once, with the function.

This is tried first for a local Parquet run that is not a dataset partitioned on the
query column (that one is evaluated partition by partition already). Whenever it cannot
give the in-memory numbers in Dask's own terms, :func:`evaluate_parquet` returns ``None``
and the caller shuffles by query as before: the run is not grouped by query (its first row
group's query ids, read alone, show most such runs before any task starts), the qrels are
larger than :data:`QRELS_CLIENT_ROWS`, or the input holds an error (the shuffle names it
as :func:`ranklens.evaluate` names it on the same input: a Parquet file's lines counted
from 1, see :func:`ranklens.scale.dask_backend._in_user_terms`).
"""

from __future__ import annotations

import os
import uuid
import warnings
from collections.abc import Callable, Sequence
from typing import Any

from ranklens.base.errors import InputError
from ranklens.base.optional import require
from ranklens.base.progress import Progress
from ranklens.data.frames import RANK_COLUMN
from ranklens.data.parquet_stream import parquet_source, row_group_rows
from ranklens.data.qrels import Qrels
from ranklens.evaluation.parts import Part
from ranklens.scale.parquet_units import (
    UnitRunner,
    evaluate_units,
    plan_units,
    read_qrels,
    starts_grouped,
)
from ranklens.scale.partition import Options

QRELS_CLIENT_ROWS = 10_000_000
"""The most qrels rows read on the client and sent whole to every worker."""

Compute = Callable[[list[Any], Progress | None], Sequence[Any]]
"""How the tasks are computed (``dask.compute``, reporting to a progress)."""


def local_parquet(run: Any) -> bool:
    """Whether ``run`` names a Parquet run on this machine's file system (a path or a glob,
    not a URL)."""
    if not (isinstance(run, str) or hasattr(run, "__fspath__")):
        return False
    return "://" not in str(os.fspath(run))


def _threads(client: Any) -> int:
    """The threads that run tasks: the workers' (a ``distributed.Client``), else this
    machine's cores."""
    if client is not None:
        threads = client.nthreads()
        if threads:
            return int(sum(threads.values()))
    return os.cpu_count() or 1


def _runner(dask: Any, n: int, compute: Compute, progress: Progress | None) -> UnitRunner:
    """Dask's way to run one task per unit: the function made a value of the graph (sent to
    each worker once, with the qrels it holds), one task calling it per unit."""
    pa = require("pyarrow", "ranklens.dask")

    def run_all(task: Callable[[int], Any], schema: str, report: bool) -> Any:
        tasks = shared_tasks(dask, task, [(i,) for i in range(n)], "ranklens-unit")
        batches = compute(tasks, progress if report else None)
        return pa.Table.from_batches(list(batches))

    return run_all


def shared_tasks(
    dask: Any, function: Callable[..., Any], arguments: list[tuple[Any, ...]], label: str
) -> list[Any]:
    """One task per item of ``arguments`` calling ``function`` on it, the function (and
    what it holds, such as the qrels) a value of the graph: sent to each worker once. Keys
    are named, so that nothing large is hashed to name them."""
    token = uuid.uuid4().hex
    shared = dask.delayed(function, name=f"{label}-function-{token}", pure=True)
    return [
        shared(*items, dask_key_name=f"{label}-{token}-{k}") for k, items in enumerate(arguments)
    ]


def client_qrels(
    qrels: Any, load: Callable[[Any], tuple[Any, tuple[str, str, str]]], options: Options
) -> tuple[Qrels, Any] | None:
    """The qrels read once on the client (by Dask's own reader, in this process) and their
    rows as an Arrow table, or ``None`` where they are too many (a Parquet path's rows
    counted from its footers first; ``load``: the qrels as a Dask DataFrame, read as the
    shuffle reads them, and its query, document and grade columns)."""
    if local_parquet(qrels) and _parquet_rows(qrels) > QRELS_CLIENT_ROWS:
        return None  # told from the footers, before anything is read
    frame, columns = load(qrels)
    dask = require("dask", "ranklens.dask")
    with dask.config.set(scheduler="sync"), warnings.catch_warnings():
        # read here, with no round trip through the workers; the deprecations of pandas
        # that Dask's reader meets are Dask's to mind, and no concern of this caller
        warnings.simplefilter("ignore", DeprecationWarning)
        rows = frame[list(columns)].compute()
    if len(rows) > QRELS_CLIENT_ROWS:
        return None
    return read_qrels(rows, columns, options)


def _parquet_rows(path: str | os.PathLike[str]) -> int:
    """The rows of the Parquet files at ``path``, from their footers (0 where they cannot
    be read so: Dask's reader then names what is wrong)."""
    try:
        return sum(sum(row_group_rows(f)) for f in parquet_source(path).files)
    except InputError:
        return 0


def evaluate_parquet(
    qrels: Any,
    run: str | os.PathLike[str],
    options: Options,
    run_columns: tuple[str | None, str | None, str | None],
    load_qrels: Callable[[Any], tuple[Any, tuple[str, str, str]]],
    compute: Compute,
    progress: Progress | None = None,
) -> list[Part] | None:
    """The parts of the evaluation of the Parquet run ``run`` read by the Dask tasks
    themselves (see the module), or ``None`` where the caller's shuffle is needed.

    Parameters
    ----------
    qrels
        What :func:`ranklens.dask.evaluate` takes.
    run
        A local Parquet file, directory or glob.
    options
        The evaluation's options.
    run_columns
        The run's (query, document, score) columns where they are not the usual ones.
    load_qrels
        The qrels as a Dask DataFrame, with their (query, document, grade) columns (Dask's
        own reading of them, as the shuffle reads them).
    compute
        Computes a list of tasks (reporting to a progress, or not).
    progress
        Called as the units' tasks finish.
    """
    dask = require("dask", "ranklens.dask")
    try:
        units, r_columns = plan_units(run, _threads(active_client()), run_columns)
        if options.ties == "rank" and RANK_COLUMN not in units.used:
            return None  # the caller refuses it, naming the options
        if not units.units or not starts_grouped(units, r_columns.query):
            return None  # no row group at all, or not grouped: the shuffle's to name
        read = client_qrels(qrels, load_qrels, options)
        if read is None:
            return None
        whole, q_table = read
        run_all = _runner(dask, len(units.units), compute, progress)
        return evaluate_units(whole, q_table, units, r_columns, options, run_all, "")
    except InputError:  # not grouped, or an error in the input: named by the shuffle
        return None


def active_client() -> Any:
    """The ``distributed.Client`` in use, or None (none, or distributed not installed)."""
    try:
        from distributed import get_client
    except ImportError:
        return None
    try:
        return get_client()
    except ValueError:  # no client
        return None
