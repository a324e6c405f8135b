"""Evaluation on Dask: DataFrames (or Parquet) split by query, the ordinary evaluation per
partition, the per-query values combined in query order.

How the numbers stay exact:

1. Both tables get their rows' positions (``_row``, for ``ties="input"`` and duplicates)
   and a partition number computed from the query id alone (a fixed hash modulo the
   number of partitions); ``set_index`` on it with the divisions ``0, 1, ..., P-1`` puts
   every row of a query, qrels and run alike, into partition ``hash(qid) % P`` of both
   tables, so partition ``i`` of the qrels and partition ``i`` of the run hold the same
   whole queries.
2. Each pair of partitions is evaluated by :func:`ranklens.scale.partition.evaluate_frames`
   (an ordinary :class:`~ranklens.Evaluator` on pandas rows, in their input order); only
   the per-query values and the query counts come back.
3. :func:`ranklens.evaluation.parts.combine` sorts the queries into byte order and
   :class:`~ranklens.Results` sums each column in that order, once, on the client: the
   same floating-point sum as :func:`ranklens.evaluate`.

ERR's default ``g_max`` (the highest grade of the evaluated queries) is computed first,
over all partitions, and given to every partition.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from ranklens.base.errors import DuplicateError, InputError
from ranklens.base.optional import require
from ranklens.base.progress import Progress, stage
from ranklens.base.types import DuplicatePolicy, QueryPolicy, TiePolicy
from ranklens.evaluation.evaluator import check_overlap
from ranklens.evaluation.parts import combine, set_dependent
from ranklens.evaluation.results import Results
from ranklens.measures.base import Measure
from ranklens.scale.partition import (
    DOC,
    QUERY,
    ROW,
    SIDES,
    VALUE,
    Options,
    as_strings,
    evaluate_frames,
    qrels_columns,
    run_columns,
    top_grade,
)

_PART = "_part"


def _load(dd: Any, table: Any) -> Any:
    if isinstance(table, str) or hasattr(table, "__fspath__"):
        pa = require("pyarrow", "ranklens.dask")
        try:
            return dd.read_parquet(str(table))
        except (OSError, ValueError, pa.ArrowException) as exc:  # ArrowInvalid: not Parquet
            raise InputError(
                f"cannot read it as Parquet: it is missing, empty, truncated or not a Parquet "
                f"file ({str(exc).splitlines()[-1]})",
                path=str(table),
            ) from None
    module = type(table).__module__.split(".")[0]
    if module == "pandas":
        return dd.from_pandas(table, npartitions=1, sort=False)
    if module == "dask" or hasattr(table, "map_partitions"):
        return table
    raise TypeError(
        f"expected a Dask or pandas DataFrame or a Parquet path or glob, got {type(table).__name__}"
    )


def _prepare_partition(
    frame: Any, columns: tuple[str, str, str], parts: int, first: Any, partition_info: Any = None
) -> Any:
    pd = require("pandas", "ranklens.dask")
    number = 0 if partition_info is None else int(partition_info["number"])
    q, d, v = columns
    qid = as_strings(frame[q])
    out = pd.DataFrame(
        {
            QUERY: qid.to_numpy(dtype=object),
            DOC: as_strings(frame[d]).to_numpy(dtype=object),
            VALUE: frame[v].to_numpy(),
            ROW: range(int(first[number]), int(first[number]) + len(frame)),
        }
    )
    hashes = pd.util.hash_pandas_object(pd.Series(out[QUERY]), index=False).to_numpy()
    out[_PART] = (hashes % parts).astype("int64")
    return out


def _split(dd: Any, frame: Any, columns: tuple[str, str, str], parts: int) -> Any:
    import numpy as np

    lengths = frame.map_partitions(len).compute()
    first = np.concatenate(([0], np.cumsum(np.asarray(lengths, dtype=np.int64))))
    meta = {
        QUERY: object,
        DOC: object,
        VALUE: frame[columns[2]].dtype,
        ROW: "int64",
        _PART: "int64",
    }
    prepared = frame.map_partitions(
        _prepare_partition, columns, parts, first, meta=meta, align_dataframes=False
    )
    divisions = [*range(parts), parts - 1] if parts > 1 else [0, 0]
    return prepared.set_index(_PART, divisions=divisions, sorted=False)


def _evaluate_pair(qrels: Any, run: Any, options: Options) -> Any:
    return evaluate_frames(
        qrels.reset_index(drop=True), run.reset_index(drop=True), options, whole_rows=True
    )


def _grade_of_pair(qrels: Any, run: Any, queries: QueryPolicy) -> int:
    return top_grade(qrels, run, queries)


def evaluate(
    qrels: Any,
    run: Any,
    measures: Sequence[str | Measure] | str,
    *,
    ties: TiePolicy = "trec_eval",
    queries: QueryPolicy = "qrels",
    depth: int | None = None,
    duplicates: DuplicatePolicy = "error",
    name: str | None = None,
    npartitions: int | None = None,
    qrels_cols: tuple[str | None, str | None, str | None] = (None, None, None),
    run_cols: tuple[str | None, str | None, str | None] = (None, None, None),
    progress: Progress | None = None,
) -> Results:
    """Evaluate a run against qrels held in Dask DataFrames: the same :class:`Results` as
    :func:`ranklens.evaluate` on the same rows (``==``, every per-query value and mean).

    Parameters
    ----------
    qrels, run
        Dask or pandas DataFrames, or Parquet paths or globs, with the usual columns
        (``query_id``/``qid``, ``doc_id``/``docid``, ``relevance``/``rel`` or ``score``;
        string, categorical or integer ids).
    measures, ties, queries, depth, duplicates
        As :func:`ranklens.evaluate` (trec_eval's judgement-file measures excepted).
    name
        The run's name in the results; by default, as ``ranklens eval --dask`` names it:
        a Parquet path's file name without its extensions (``bm25`` for
        ``runs/bm25.parquet``), ``"run"`` for a DataFrame.
    npartitions
        Partitions of the shuffled tables (default: the run's).
    qrels_cols, run_cols
        ``(query, document, value)`` column names where they are not the usual ones.
    progress
        Called as ``progress(done, partitions)`` as the partitions' evaluations finish
        (:mod:`ranklens.base.progress`).

    Returns
    -------
    Results
        Computed on the current Dask scheduler (a ``distributed.Client`` if one is active).
    """
    dd = require("dask.dataframe", "ranklens.dask")
    dask = require("dask", "ranklens.dask")
    name = name or run_name(run)
    options = Options.of(measures, ties, queries, depth, duplicates)
    q_frame, r_frame = _load(dd, qrels), _load(dd, run)
    q_cols = qrels_columns(list(q_frame.columns), qrels_cols)
    r_cols = run_columns(list(r_frame.columns), run_cols)
    parts = int(npartitions or max(r_frame.npartitions, q_frame.npartitions, 1))
    q_split = _split(dd, q_frame, q_cols, parts)
    r_split = _split(dd, r_frame, r_cols, parts)
    if q_split.npartitions != r_split.npartitions:  # pragma: no cover - set_index guarantees it
        raise RuntimeError("qrels and run were not split into the same partitions")
    try:
        return _evaluate_split(
            dask,
            q_split,
            r_split,
            options,
            queries,
            name,
            measures,
            (ties, depth, duplicates),
            progress,
        )
    except InputError as exc:
        raise _in_user_terms(exc, (qrels, run), (q_cols, r_cols)) from None


def _in_user_terms(
    exc: InputError, tables: tuple[Any, Any], columns: tuple[tuple[str, str, str], ...]
) -> InputError:
    """An error from a partition's rows (path ``<qrels>`` or ``<run>``, internal column
    names) in the user's terms: the table (its Parquet path, or ``<DataFrame>``), its
    column names; rows are counted from 0 over the whole table."""
    if exc.path not in SIDES:
        return exc
    side = SIDES.index(exc.path)
    table = tables[side]
    where = str(table) if isinstance(table, str) or hasattr(table, "__fspath__") else "<DataFrame>"
    internal = dict(zip((QUERY, DOC, VALUE), columns[side], strict=True))
    message = re.sub(
        r"column '(\w+)'",
        lambda m: f"column '{internal.get(m.group(1), m.group(1))}'",
        exc.message,
    )
    if isinstance(exc, DuplicateError):
        return DuplicateError(
            message, path=where, lines=exc.lines, query=exc.query, document=exc.document
        )
    return type(exc)(message, path=where, line=exc.line)


def _evaluate_split(
    dask: Any,
    q_split: Any,
    r_split: Any,
    options: Options,
    queries: QueryPolicy,
    name: str,
    measures: Sequence[str | Measure] | str,
    conventions: tuple[Any, Any, Any],
    progress: Progress | None = None,
) -> Results:
    ties, depth, duplicates = conventions
    q_parts, r_parts = q_split.to_delayed(), r_split.to_delayed()
    if set_dependent(options.measures):
        q_split, r_split = dask.persist(q_split, r_split)
        q_parts, r_parts = q_split.to_delayed(), r_split.to_delayed()
        grades = dask.compute(
            *[
                dask.delayed(_grade_of_pair)(a, b, queries)
                for a, b in zip(q_parts, r_parts, strict=True)
            ]
        )
        options = options.pinned(max([0, *grades]))
    results = _compute(
        dask,
        [
            dask.delayed(_evaluate_pair)(a, b, options)
            for a, b in zip(q_parts, r_parts, strict=True)
        ],
        progress,
    )
    original = Options.of(measures, ties, queries, depth, duplicates)
    combined = combine(name, original.measures, queries, results)
    check_overlap(combined.query_counts, name, None)  # judged on the whole run
    return combined


def run_name(run: Any) -> str:
    """A run's default name: a path's (or glob's) file name up to its first dot, as
    ``ranklens eval --dask`` names its runs; ``"run"`` for a DataFrame."""
    import os

    if isinstance(run, str) or hasattr(run, "__fspath__"):
        path = str(os.fspath(run)).rstrip("/")
        return os.path.basename(path).split(".")[0] or path
    return "run"


def _compute(dask: Any, tasks: list[Any], progress: Progress | None) -> tuple[Any, ...]:
    """``dask.compute(*tasks)``, reporting the tasks finished to ``progress``: through the
    futures of an active ``distributed.Client``, else a local scheduler's callbacks."""
    if progress is None or not tasks:
        return tuple(dask.compute(*tasks))
    client = _active_client()
    if client is not None:
        distributed = require("distributed", "ranklens.dask")
        futures = client.compute(tasks)
        for done, _ in enumerate(distributed.as_completed(futures), 1):
            progress(done, len(futures))
        return tuple(client.gather(futures))
    callbacks: Any = require("dask.callbacks", "ranklens.dask")
    total = len(tasks)
    keys = {task.key for task in tasks}
    finished: set[Any] = set()

    def posttask(key: Any, result: Any, dsk: Any, state: Any, worker_id: Any) -> None:
        if key in keys:
            finished.add(key)
            progress(len(finished), total)

    with callbacks.Callback(posttask=posttask):
        return tuple(dask.compute(*tasks))


def _active_client() -> Any:
    """The ``distributed.Client`` in use, or None (none, or distributed not installed)."""
    try:
        from distributed import get_client
    except ImportError:
        return None
    try:
        return get_client()
    except ValueError:  # no client
        return None


def evaluate_files(
    scheduler: str,
    qrels: str,
    runs: Sequence[str],
    measures: Sequence[str | Measure],
    progress: Progress | None = None,
    **options: Any,
) -> list[Results]:
    """``ranklens eval --dask SCHEDULER``: evaluate Parquet runs (paths or globs) against
    Parquet qrels on a Dask scheduler (an address, or ``"local"`` for a LocalCluster started
    and stopped here); each run is named after its file. ``progress`` sees the runs'
    partitions, each run an equal share of one total."""
    distributed = require("distributed", "ranklens eval --dask")
    if scheduler == "local":
        cluster: Any = distributed.LocalCluster(processes=True, dashboard_address="127.0.0.1:0")
        client = distributed.Client(cluster)
    else:
        cluster, client = None, distributed.Client(scheduler)
    try:
        share = 1000  # each run's part of the total, whatever its partitions
        return [
            evaluate(
                qrels,
                run,
                measures,
                name=run_name(run),
                progress=stage(progress, i * share, share, len(runs) * share),
                **options,
            )
            for i, run in enumerate(runs)
        ]
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
