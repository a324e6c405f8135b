"""Evaluation on Spark: Arrow batches of whole queries, ranklens' native readers and the
ordinary evaluation per task, the per-query values combined in query order.

Three ways, the cheapest that applies first: a Parquet run given by its path, or a
DataFrame that is a bare scan of local Parquet files, is read by the tasks themselves
(:mod:`ranklens.scale.spark_files`); a DataFrame grouped by query is evaluated where its
partitions lie (:mod:`ranklens.scale.spark_in_place`); any other is hashed by query, as
this module describes. How the numbers of the last stay exact:

1. Both tables are cut down to their query, document and value columns (ids as Spark
   has them when both sides hold strings, or both the same integer type; cast to strings
   otherwise, which writes an integer as its decimal digits, as ranklens reads it), each
   row gets its position (``monotonically_increasing_id``, which follows the DataFrame's
   row order: the "input order" of ``ties="input"`` and of duplicates) and its side; the
   two are put one under the other (``unionByName``) and ``repartition(P, query id)``
   hashes every row of a query, qrels and run alike, to the same partition. No sort, no
   ``groupBy``: one exchange.
2. ``mapInArrow`` hands each partition's Arrow record batches to a Python worker, which
   splits them by side (in input order where the conventions depend on it) and gives the
   Arrow columns to :meth:`ranklens.Qrels.from_frame` and :meth:`ranklens.Run.from_frame`
   (the native readers read Arrow's string buffers where they are: no pandas, no Python
   object per row), then an ordinary :class:`~ranklens.Evaluator`
   (:func:`ranklens.scale.partition.evaluate_part`). Only one Arrow batch comes back per
   partition: each evaluated query's values (a ``double`` array, exact through Arrow) and
   the partition's query counts.
3. The driver reads those batches (``toArrow``), and
   :func:`ranklens.evaluation.parts.combine` sorts the queries into byte order and sums
   each column in that order: the same floating-point sum as :func:`ranklens.evaluate`.

ERR's default ``g_max`` (the highest grade of the evaluated queries) is one Spark
aggregation, done first and given to every partition. An error in a partition's rows
(a duplicate, a missing id) comes back as data and is raised on the driver as the same
:class:`~ranklens.base.errors.InputError` ``ranklens.evaluate`` raises, the row counted
from 0 over the whole DataFrame (one more Spark job, only then, counts the rows of each
input partition).
"""

from __future__ import annotations

import json
import os
import re
import warnings
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from ranklens.base.errors import (
    DuplicateError,
    EmptyInputError,
    InputError,
    MissingDependencyError,
    OptionError,
    RanklensError,
)
from ranklens.base.optional import require
from ranklens.base.progress import Progress
from ranklens.base.types import DuplicatePolicy, QueryPolicy, TiePolicy
from ranklens.data.frames import RANK_COLUMN
from ranklens.data.parquet_stream import parquet_run_name
from ranklens.evaluation.evaluator import check_overlap
from ranklens.evaluation.parts import Part, combine, set_dependent
from ranklens.evaluation.results import Results
from ranklens.measures.base import Measure
from ranklens.ranking.interactions import TrainLike
from ranklens.ranking.item_features import ItemFeaturesLike
from ranklens.ranking.items import PopularityLike
from ranklens.scale.parquet_units import read_qrels
from ranklens.scale.part_batches import (
    SCHEMA,
    error_kinds,
    part_batch,
    partition_rows,
    parts_of,
    record_batch,
)
from ranklens.scale.partition import (
    DOC,
    QUERY,
    ROW,
    Options,
    evaluate_part,
    qrels_columns,
    run_columns,
)
from ranklens.scale.spark_files import RunNotGroupedError, evaluate_parquet, plain_parquet
from ranklens.scale.spark_in_place import evaluate_in_place, small_enough
from ranklens.scale.spark_parts import collect

_SIDE, _GRADE, _SCORE = "_side", "relevance", "score"
_POSITION_BITS = 33  # monotonically_increasing_id: partition index << 33 | row in partition
_ID_TYPES = ("StringType", "ByteType", "ShortType", "IntegerType", "LongType")


def _id_column(fn: Any, frames: tuple[Any, Any], names: tuple[str, str]) -> tuple[Any, Any]:
    """The id column of each side, as it is where both sides hold strings or the same
    integer type (the native readers write integers as their decimal digits), otherwise
    cast to strings; an id column of another type is refused as ranklens refuses it."""
    kinds = []
    for frame, name in zip(frames, names, strict=True):
        kind = frame.schema[name].dataType
        if type(kind).__name__ not in _ID_TYPES:
            raise InputError(
                f"column '{name}' holds {kind.simpleString()}: ids must be strings, "
                "categoricals or integers",
                path="<DataFrame>",
            )
        kinds.append(kind)
    if kinds[0] == kinds[1]:
        return fn.col(names[0]), fn.col(names[1])
    return fn.col(names[0]).cast("string"), fn.col(names[1]).cast("string")


def _sides(
    fn: Any,
    qrels: Any,
    run: Any,
    q_cols: tuple[str, str, str],
    r_cols: tuple[str, str, str],
    with_rank: bool,
) -> tuple[Any, Any]:
    """The qrels and the run as frames of the same columns (side, query, document, grade,
    score, position, and ``rank`` for ``ties="rank"``), the other side's value null."""
    q_id, r_id = _id_column(fn, (qrels, run), (q_cols[0], r_cols[0]))
    q_doc, r_doc = _id_column(fn, (qrels, run), (q_cols[1], r_cols[1]))
    grade_type = qrels.schema[q_cols[2]].dataType
    score_type = run.schema[r_cols[2]].dataType
    rank = [fn.lit(None).cast("double").alias(RANK_COLUMN)] if with_rank else []
    q_side = qrels.select(
        fn.lit(0).cast("byte").alias(_SIDE),
        q_id.alias(QUERY),
        q_doc.alias(DOC),
        fn.col(q_cols[2]).alias(_GRADE),
        fn.lit(None).cast(score_type).alias(_SCORE),
        fn.monotonically_increasing_id().alias(ROW),
        *rank,
    )
    r_rank = [fn.col(RANK_COLUMN).cast("double").alias(RANK_COLUMN)] if with_rank else []
    r_side = run.select(
        fn.lit(1).cast("byte").alias(_SIDE),
        r_id.alias(QUERY),
        r_doc.alias(DOC),
        fn.lit(None).cast(grade_type).alias(_GRADE),
        fn.col(r_cols[2]).alias(_SCORE),
        fn.monotonically_increasing_id().alias(ROW),
        *r_rank,
    )
    return q_side, r_side


def _error_record(exc: RanklensError, side: int, table: Any) -> dict[str, Any]:
    """An error of one side's rows as data: its kind, message, ids, and the rows it names
    as their positions (``monotonically_increasing_id``) in the input."""
    record: dict[str, Any] = {"kind": type(exc).__name__, "message": str(exc), "side": side}
    if isinstance(exc, InputError) and exc.path in (None, "<DataFrame>"):
        record["message"] = exc.message
        positions = table.column(ROW)

        def position(row: int) -> int:
            return int(positions[row].as_py())

        if isinstance(exc, DuplicateError) and exc.lines is not None:
            record["rows"] = [position(r) for r in exc.lines]
            record["local"] = list(exc.lines)
            record["query"], record["document"] = exc.query, exc.document
        elif exc.line is not None:
            record["rows"] = [position(exc.line)]
    return record


def _partition_function(options: Options, in_order: bool) -> Any:
    """What each partition runs: its Arrow batches in, one Arrow batch out."""

    def evaluate_partition(batches: Iterator[Any]) -> Iterator[Any]:
        pa = require("pyarrow", "ranklens.spark")
        pc = require("pyarrow.compute", "ranklens.spark")

        rows = partition_rows(batches)
        if rows is None:
            return
        read = _read_sides(*_split(rows, in_order, pa, pc), options)
        if isinstance(read, dict) and not in_order:  # the error the input order meets first
            read = _read_sides(*_split(rows, True, pa, pc), options)
        del rows
        if isinstance(read, dict):
            yield record_batch(pa, json.dumps(read))
            return
        qrels, run = read
        try:
            part = evaluate_part(qrels, run, options)
        except RanklensError as exc:
            yield record_batch(pa, json.dumps({"kind": type(exc).__name__, "message": str(exc)}))
            return
        yield part_batch(pa, part, len(options.measures))

    return evaluate_partition


def _split(rows: Any, in_order: bool, pa: Any, pc: Any) -> tuple[Any, Any]:
    """A partition's qrels rows and run rows, each in input order (``in_order``) or in
    the order they arrived (enough where no convention depends on the order)."""
    keys = [(_SIDE, "ascending")] + ([(ROW, "ascending")] if in_order else [])
    table = rows.take(pc.sort_indices(rows, sort_keys=keys))  # a stable sort
    n_qrels = len(table) - int(pc.sum(table.column(_SIDE)).as_py() or 0)
    value = {0: _GRADE, 1: _SCORE}
    sides = []
    for side, (start, stop) in enumerate(((0, n_qrels), (n_qrels, len(table)))):
        used = [QUERY, DOC, value[side], ROW]
        if side == 1 and RANK_COLUMN in table.column_names:
            used.append(RANK_COLUMN)
        sides.append(table.slice(start, stop - start).select(used))
    return sides[0], sides[1]


def _read_sides(q_rows: Any, r_rows: Any, options: Options) -> tuple[Any, Any] | dict[str, Any]:
    """The partition's :class:`~ranklens.Qrels` and :class:`~ranklens.Run` (``None`` for a
    side without rows) from their Arrow rows, or the first error as a record."""
    from ranklens.data.qrels import Qrels
    from ranklens.data.run import Run

    qrels = run = None
    try:
        if len(q_rows):
            qrels = Qrels.from_frame(
                q_rows, qid_col=QUERY, doc_col=DOC, rel_col=_GRADE, duplicates=options.duplicates
            )
    except RanklensError as exc:
        return _error_record(exc, 0, q_rows)
    try:
        if len(r_rows):
            run = Run.from_frame(
                r_rows, qid_col=QUERY, doc_col=DOC, score_col=_SCORE, duplicates=options.duplicates
            )
    except RanklensError as exc:
        return _error_record(exc, 1, r_rows)
    return qrels, run


def _g_max(fn: Any, qrels: Any, run: Any, queries: QueryPolicy) -> int:
    judged = qrels
    if queries != "qrels":
        judged = qrels.join(run.select(QUERY).distinct(), on=QUERY, how="left_semi")
    top = judged.agg(fn.max(fn.col(_GRADE).cast("long")).alias("g")).collect()[0]["g"]
    return max(int(top), 0) if top is not None else 0


def check_spark_pandas() -> None:
    """Raise :class:`MissingDependencyError` if this pyspark cannot exchange Arrow data with
    the installed pandas and pyarrow (its Arrow functions check for newer releases than
    ranklens' core needs: pandas 2.2 for pyspark 4)."""
    from pyspark.sql.pandas import utils

    try:
        with warnings.catch_warnings():  # its "not yet fully supports pandas 3" is for later
            warnings.simplefilter("ignore", FutureWarning)
            utils.require_minimum_pandas_version()
            utils.require_minimum_pyarrow_version()
    except ImportError as exc:
        raise MissingDependencyError(
            f"ranklens.spark runs Arrow functions on Spark, and this pyspark says: {exc} "
            "(pip install 'ranklens[spark]' upgrades them)"
        ) from None


def _positions(fn: Any, frame: Any, ids: Sequence[int]) -> list[int]:
    """The positions, counted from 0 over the whole DataFrame, of the rows whose
    ``monotonically_increasing_id`` is ``ids`` (one job: the rows of each partition)."""
    sizes = {
        int(row["p"]): int(row["n"])
        for row in frame.groupBy(fn.spark_partition_id().alias("p"))
        .agg(fn.count(fn.lit(1)).alias("n"))
        .collect()
    }
    before = np.cumsum([0] + [sizes.get(p, 0) for p in range(max(sizes, default=0) + 1)])
    out = []
    for value in ids:
        partition, row = value >> _POSITION_BITS, value & ((1 << _POSITION_BITS) - 1)
        out.append(int(before[partition]) + row)
    return out


def _raise_error(
    fn: Any,
    records: list[dict[str, Any]],
    inputs: tuple[Any, Any],
    columns: tuple[tuple[str, str, str], tuple[str, str, str]],
) -> None:
    """Raise the error of the first record (qrels before run, then by row), in the user's
    terms: their column names, rows counted from 0 over the whole DataFrame."""
    record = min(records, key=lambda r: (r.get("side", 2), min(r.get("rows", [0]))))
    kind, message = record["kind"], record["message"]
    kinds = error_kinds()
    if "side" not in record:
        raise kinds.get(kind, RanklensError)(message)
    side = int(record["side"])
    internal = dict(zip((QUERY, DOC, (_GRADE, _SCORE)[side]), columns[side], strict=True))
    message = re.sub(
        r"column '(\w+)'", lambda m: f"column '{internal.get(m.group(1), m.group(1))}'", message
    )
    error = kinds.get(kind, InputError)
    if not issubclass(error, InputError):
        raise error(message)
    if "rows" not in record:
        raise error(message, path="<DataFrame>")
    rows = _positions(fn, inputs[side], record["rows"])
    if kind == "DuplicateError":
        local = record["local"]
        message = message.replace(
            f"rows {local[0]} and {local[1]}", f"rows {rows[0]} and {rows[1]}"
        )
        raise DuplicateError(
            message,
            path="<DataFrame>",
            lines=(rows[0], rows[1]),
            query=record["query"],
            document=record["document"],
        )
    raise error(message, path="<DataFrame>", line=rows[0])


def _exchanged(
    fn: Any,
    sides: tuple[Any, Any],
    columns: tuple[tuple[str, str, str], tuple[str, str, str]],
    options: Options,
    count: int,
    progress: Progress | None,
) -> list[Part]:
    """The parts of the evaluation with both tables hashed by query into ``count``
    partitions (one exchange), each evaluated by one task."""
    q_side, r_side = sides
    if set_dependent(options.measures):
        options = options.pinned(_g_max(fn, q_side, r_side, options.queries))
    in_order = options.ties == "input" or options.duplicates != "error"
    rows = q_side.unionByName(r_side).repartition(count, QUERY)
    table = collect(
        rows.mapInArrow(_partition_function(options, in_order), schema=SCHEMA), progress
    )
    errors = table.column("error").drop_null().to_pylist()
    if errors:
        _raise_error(fn, [json.loads(e) for e in errors], sides, columns)
    return parts_of(table, len(options.measures))


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
    buckets: int | None = None,
    qrels_cols: tuple[str | None, str | None, str | None] = (None, None, None),
    run_cols: tuple[str | None, str | None, str | None] = (None, None, None),
    progress: Progress | None = None,
    popularity: PopularityLike | None = None,
    num_items: int | None = None,
    num_users: int | None = None,
    item_features: ItemFeaturesLike | None = None,
    train: TrainLike | None = None,
    partitioned_by_query: bool | None = None,
    spark: Any = None,
) -> Results:
    """Evaluate a run against qrels on Spark: the same :class:`Results` as
    :func:`ranklens.evaluate` on the same rows (``==``, every per-query value and mean).

    Parameters
    ----------
    qrels, run
        Spark DataFrames with the usual columns (``query_id``/``qid``, ``doc_id``/``docid``,
        ``relevance``/``rel`` or ``score``; string or integer ids). The run may be the path
        of a Parquet run (a file, a directory, a glob; grouped by query), read by the
        Spark tasks themselves, as is a DataFrame that is a bare scan of local Parquet
        files (``spark.read.parquet(path)``); the qrels may then also be anything
        :func:`ranklens.evaluate` reads (a path, a dict, a pandas DataFrame).
    measures, ties, queries, depth, duplicates
        As :func:`ranklens.evaluate` (trec_eval's judgement-file measures excepted).
        ``ties="input"`` and duplicates follow the DataFrames' row order; ``ties="rank"``
        reads the run's ``rank`` column.
    name
        The run's name in the results (default ``"run"``; for a path, the name saved in
        the file, else the file's or folder's name, as :func:`ranklens.evaluate`).
    buckets
        The number of partitions the rows are hashed into by query id, each evaluated by
        one task (default: ``spark.sql.shuffle.partitions``).
    qrels_cols, run_cols
        ``(query, document, value)`` column names where they are not the usual ones.
    progress
        Called as ``progress(done, total)`` with the Spark tasks of the evaluation finished
        and known so far (:mod:`ranklens.base.progress`), polled from Spark's status
        tracker while it runs.
    popularity, num_items, num_users, item_features, train
        The item data of the recommender measures, as :func:`ranklens.evaluate`: read
        once here and sent to every task. The run-level measures (``Coverage@10``, ...)
        come back from each task as a small state (exposure counts by item id, or a few
        numbers per user) merged here, with the in-memory values.
    partitioned_by_query
        ``None`` (default): a DataFrame run whose partitions hold its rows grouped by
        query is evaluated where its partitions lie, the queries cut at their edges
        finished here; any other is hashed by query (one exchange). ``True``: each
        partition holds whole queries in any row order (a query found in two partitions is
        an error). ``False``: always hashed by query.
    spark
        The SparkSession for a run given as a path (default: the qrels DataFrame's, else
        the active one).

    Raises
    ------
    InputError
        As :func:`ranklens.evaluate` would on the same rows (a duplicate, a missing id or
        value), naming the row counted from 0 over the whole DataFrame, or for a path the
        file and its row; a Parquet run given by its path that is not grouped by query.
    OptionError
        The run is neither a Spark DataFrame nor a path, or no SparkSession is active.
    """
    fn = require("pyspark.sql.functions", "ranklens.spark")
    check_spark_pandas()
    options = Options.of(
        measures,
        ties,
        queries,
        depth,
        duplicates,
        popularity,
        num_items,
        num_users,
        item_features,
        train,
    )
    conventions = (measures, ties, queries, depth, duplicates)
    if isinstance(run, str | os.PathLike):
        session = _session(spark, qrels)
        read = evaluate_parquet(session, qrels, run, options, progress, (qrels_cols, run_cols))
        return _combined(name if name is not None else parquet_run_name(run), read, conventions)
    if not hasattr(run, "sparkSession"):
        raise OptionError(
            f"ranklens.spark.evaluate takes the run as a Spark DataFrame or a Parquet path, "
            f"not {type(run).__name__}: evaluate it in memory with ranklens.evaluate"
        )
    session = run.sparkSession
    if not hasattr(qrels, "sparkSession"):  # a path, a dict, a pandas frame: read here
        qrels = session.createDataFrame(read_qrels(qrels, qrels_cols, options)[0].to_pandas())
        qrels_cols = (None, None, None)
    q_cols = qrels_columns(list(qrels.columns), qrels_cols)
    r_cols = run_columns(list(run.columns), run_cols)
    with_rank = ties == "rank" and RANK_COLUMN in run.columns
    q_side, r_side = _sides(fn, qrels, run, q_cols, r_cols, with_rank)
    parts: list[Part] | None = None
    grouped = partitioned_by_query is not False
    if grouped:
        parts, grouped = _read_by_tasks(
            session, qrels, run, options, progress, (qrels_cols, run_cols)
        )
    if parts is None and (grouped or partitioned_by_query):  # declared: checked there
        parts = evaluate_in_place(
            fn,
            qrels,
            run,
            (q_cols, r_cols),
            options,
            with_rank=with_rank,
            declared=bool(partitioned_by_query),
            progress=progress,
        )
    if parts is None:
        count = int(buckets or int(session.conf.get("spark.sql.shuffle.partitions", "200")))
        parts = _exchanged(fn, (q_side, r_side), (q_cols, r_cols), options, count, progress)
    if sum(p.qrels_queries for p in parts) == 0 or sum(p.run_queries for p in parts) == 0:
        # every row has a query: a side without queries has no rows
        raise EmptyInputError("holds no entries", path="<DataFrame>")
    return _combined(name or "run", parts, conventions)


def _read_by_tasks(
    session: Any,
    qrels: Any,
    run: Any,
    options: Options,
    progress: Progress | None,
    columns: tuple[tuple[str | None, str | None, str | None], ...],
) -> tuple[list[Part] | None, bool]:
    """Where ``run`` is a bare scan of local Parquet files (``spark.read.parquet(path)``)
    and the qrels are small enough to send: the parts of its evaluation with the tasks
    reading its row groups themselves, as for a path
    (:func:`ranklens.scale.spark_files.evaluate_parquet`). ``None`` otherwise, and where
    that meets an error (the DataFrame's own evaluation names it in the DataFrame's
    terms). Several files are read in path order, which Spark's may not be: only where no
    convention depends on the order. The second value is ``False`` where the files showed
    that the run is not grouped by query (then only the exchange is left to try)."""
    source = plain_parquet(run)
    if source is None:
        return None, True
    if len(source.files) > 1 and (options.ties == "input" or options.duplicates != "error"):
        return None, True
    if hasattr(qrels, "sparkSession") and not small_enough(qrels):
        return None, True
    try:
        return evaluate_parquet(session, qrels, source, options, progress, columns), True
    except RunNotGroupedError:
        return None, False
    except RanklensError:
        return None, True


def _combined(name: str, parts: list[Part], conventions: tuple[Any, ...]) -> Results:
    """The parts as one :class:`Results`, checked as the in-memory evaluation checks it."""
    measures, ties, queries, depth, duplicates = conventions
    original = Options.of(measures, ties, queries, depth, duplicates)
    combined = combine(name, original.measures, queries, parts)
    check_overlap(combined.query_counts, name, None)  # judged on the whole run
    return combined


def _session(given: Any, qrels: Any) -> Any:
    """The SparkSession to run on: ``given``, the qrels DataFrame's, or the active one."""
    if given is not None:
        return given
    if hasattr(qrels, "sparkSession"):
        return qrels.sparkSession
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is None:
        raise OptionError(
            "no active SparkSession to read the run with: start one "
            "(SparkSession.builder.getOrCreate()) or pass spark="
        )
    return active
