"""Evaluation on Spark: DataFrames co-grouped by query, the ordinary evaluation per group,
the per-query values combined in query order.

How the numbers stay exact:

1. Every row gets its position (``monotonically_increasing_id``, which follows the
   DataFrame's row order: the "input order" of ``ties="input"`` and of duplicates) and a
   bucket computed from the query id alone (``pmod(xxhash64(qid), B)``), so all rows of a
   query, qrels and run alike, share a bucket.
2. ``run.groupBy(bucket).cogroup(qrels.groupBy(bucket)).applyInPandas(...)`` hands each
   bucket's rows of both tables to :func:`ranklens.scale.partition.evaluate_frames` (an
   ordinary :class:`~ranklens.Evaluator` on pandas rows, sorted back into input order),
   which returns one row per evaluated query (its values as a ``double`` array, exact
   through Arrow) and one row of query counts.
3. The driver collects those rows, and :func:`ranklens.evaluation.parts.combine` sorts the
   queries into byte order and sums each column in that order: the same floating-point
   sum as :func:`ranklens.evaluate`.

ERR's default ``g_max`` (the highest grade of the evaluated queries) is one Spark
aggregation, done first and given to every group.
"""

from __future__ import annotations

import threading
import uuid
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from ranklens.base.errors import MissingDependencyError
from ranklens.base.optional import require
from ranklens.base.progress import Progress
from ranklens.base.types import DuplicatePolicy, QueryPolicy, TiePolicy
from ranklens.evaluation.evaluator import check_overlap
from ranklens.evaluation.parts import Part, combine, set_dependent
from ranklens.evaluation.results import Results
from ranklens.measures.base import Measure
from ranklens.scale.partition import (
    DOC,
    QUERY,
    ROW,
    VALUE,
    Options,
    evaluate_frames,
    qrels_columns,
    run_columns,
)

_BUCKET = "_bucket"
_SCHEMA = (
    "query_id string, vals array<double>, qrels_queries long, run_queries long, both long, "
    "retrieving long, matched long, retrieved long, tied long, counts boolean"
)


def _normalised(fn: Any, frame: Any, columns: tuple[str, str, str], buckets: int) -> Any:
    q, d, v = columns
    qid = fn.col(q).cast("string")
    return frame.select(
        qid.alias(QUERY),
        fn.col(d).cast("string").alias(DOC),
        fn.col(v).alias(VALUE),
        fn.monotonically_increasing_id().alias(ROW),
        fn.pmod(fn.xxhash64(qid), fn.lit(buckets)).alias(_BUCKET),
    )


def _group_function(options: Options) -> Any:
    def evaluate_group(run: Any, qrels: Any) -> Any:
        pd = require("pandas", "ranklens.spark")

        part = evaluate_frames(qrels, run, options)
        rows = {
            "query_id": [*part.queries, None],
            "vals": [*np.asarray(part.values, dtype=np.float64), None],
            "qrels_queries": [0] * len(part.queries) + [part.qrels_queries],
            "run_queries": [0] * len(part.queries) + [part.run_queries],
            "both": [0] * len(part.queries) + [part.both],
            "retrieving": [0] * len(part.queries) + [part.retrieving],
            "matched": [0] * len(part.queries) + [part.matched],
            "retrieved": [0] * len(part.queries) + [part.retrieved],
            "tied": [0] * len(part.queries) + [-1 if part.tied is None else part.tied],
            "counts": [False] * len(part.queries) + [True],
        }
        return pd.DataFrame(rows)

    return evaluate_group


def _g_max(fn: Any, qrels: Any, run: Any, queries: QueryPolicy) -> int:
    judged = qrels
    if queries != "qrels":
        judged = qrels.join(run.select(QUERY).distinct(), on=QUERY, how="left_semi")
    top = judged.agg(fn.max(fn.col(VALUE).cast("long")).alias("g")).collect()[0]["g"]
    return max(int(top), 0) if top is not None else 0


def check_spark_pandas() -> None:
    """Raise :class:`MissingDependencyError` if this pyspark cannot exchange data with the
    installed pandas and pyarrow (its pandas functions need newer releases than ranklens'
    core does: pandas 2.2 for pyspark 4)."""
    from pyspark.sql.pandas import utils

    try:
        with warnings.catch_warnings():  # its "not yet fully supports pandas 3" is for later
            warnings.simplefilter("ignore", FutureWarning)
            utils.require_minimum_pandas_version()
            utils.require_minimum_pyarrow_version()
    except ImportError as exc:
        raise MissingDependencyError(
            f"ranklens.spark runs pandas functions on Spark, and this pyspark says: {exc} "
            "(pip install 'ranklens[spark]' upgrades them)"
        ) from None


def _collect(frame: Any, progress: Progress | None) -> list[Any]:
    """``frame.collect()``; with ``progress``, its jobs run in a job group of their own
    (this thread's, restored after) whose tasks a polling thread reports."""
    if progress is None:
        return list(frame.collect())
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
        rows = list(frame.collect())
    finally:
        stop.set()
        watcher.join()
        context.setLocalProperty("spark.jobGroup.id", previous)
    total = max(tasks()[1], known[1], 1)
    progress(total, total)  # skipped stages never complete their tasks
    return rows


def evaluate(
    qrels: Any,
    run: Any,
    measures: Sequence[str | Measure] | str,
    *,
    ties: TiePolicy = "trec_eval",
    queries: QueryPolicy = "qrels",
    depth: int | None = None,
    duplicates: DuplicatePolicy = "error",
    name: str = "run",
    buckets: int | None = None,
    qrels_cols: tuple[str | None, str | None, str | None] = (None, None, None),
    run_cols: tuple[str | None, str | None, str | None] = (None, None, None),
    progress: Progress | None = None,
) -> Results:
    """Evaluate a run against qrels held in Spark DataFrames: the same :class:`Results` as
    :func:`ranklens.evaluate` on the same rows (``==``, every per-query value and mean).

    Parameters
    ----------
    qrels, run
        Spark DataFrames with the usual columns (``query_id``/``qid``, ``doc_id``/``docid``,
        ``relevance``/``rel`` or ``score``; string or integer ids).
    measures, ties, queries, depth, duplicates
        As :func:`ranklens.evaluate` (trec_eval's judgement-file measures excepted).
        ``ties="input"`` and duplicates follow the DataFrames' row order.
    name
        The run's name in the results.
    buckets
        Groups of queries evaluated together (default: ``spark.sql.shuffle.partitions``).
    qrels_cols, run_cols
        ``(query, document, value)`` column names where they are not the usual ones.
    progress
        Called as ``progress(done, total)`` with the Spark tasks of the evaluation finished
        and known so far (:mod:`ranklens.base.progress`), polled from Spark's status
        tracker while it runs.
    """
    fn = require("pyspark.sql.functions", "ranklens.spark")
    check_spark_pandas()
    options = Options.of(measures, ties, queries, depth, duplicates)
    spark = run.sparkSession
    count = int(buckets or int(spark.conf.get("spark.sql.shuffle.partitions", "200")))
    q_cols = qrels_columns(list(qrels.columns), qrels_cols)
    r_cols = run_columns(list(run.columns), run_cols)
    q_frame = _normalised(fn, qrels, q_cols, count)
    r_frame = _normalised(fn, run, r_cols, count)
    if set_dependent(options.measures):
        options = options.pinned(_g_max(fn, q_frame, r_frame, queries))
    out = (
        r_frame.groupBy(_BUCKET)
        .cogroup(q_frame.groupBy(_BUCKET))
        .applyInPandas(_group_function(options), schema=_SCHEMA)
    )
    rows = _collect(out, progress)
    width = len(options.measures)
    ids: list[str] = []
    values: list[list[float]] = []
    nq = nr = both = retrieving = matched = retrieved = 0
    tied: int | None = 0
    for row in rows:
        if row["counts"]:
            nq += int(row["qrels_queries"])
            nr += int(row["run_queries"])
            both += int(row["both"])
            retrieving += int(row["retrieving"])
            matched += int(row["matched"])
            retrieved += int(row["retrieved"])
            count = int(row["tied"])
            tied = None if tied is None or count < 0 else tied + count
        else:
            ids.append(row["query_id"])
            values.append(list(row["vals"]))
    matrix = np.asarray(values, dtype=np.float64).reshape(len(ids), width)
    part = Part(tuple(ids), matrix, nq, nr, both, retrieving, matched, retrieved, tied)
    original = Options.of(measures, ties, queries, depth, duplicates)
    combined = combine(name, original.measures, queries, [part])
    check_overlap(combined.query_counts, name, None)  # judged on the whole run
    return combined
