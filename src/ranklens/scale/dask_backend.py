"""Evaluation on Dask: DataFrames (or Parquet) split by query, the ordinary evaluation per
partition, the per-query values combined in query order.

A run grouped by query is not split at all: a local Parquet run's row groups are read by
the tasks themselves (:mod:`ranklens.scale.dask_files`), and a DataFrame of several
partitions is evaluated where its partitions lie (:mod:`ranklens.scale.dask_in_place`);
either gives way to what follows when it cannot give the in-memory numbers.

How the numbers stay exact, and the tables stay Arrow, when they are split:

1. Each input partition is put into the shape of :func:`ranklens.scale.arrow_parts.prepared`:
   ids as Arrow ``large_string`` (never a Python object per row), the value, the row's
   place in the input (``_row``, for ``ties="input"``, duplicates and error messages) and
   ``_key``, a hash of the query id that every process computes alike.
2. Both tables are hash-partitioned on ``_key`` into ``P`` parts, as Arrow tables: one
   task per input partition reads, prepares and splits it
   (:func:`~ranklens.scale.arrow_parts.split_table`), and the task evaluating part ``j``
   takes the ``j``-th table of every input partition (:func:`_arrow_tasks`); with
   ``dask.config`` ``dataframe.shuffle.method`` set (``tasks`` or ``p2p``), Dask's own
   ``DataFrame.shuffle(on="_key")`` of pandas frames instead. No ``set_index`` and no
   sort: the same key goes to the same part in both tables, so part ``j`` of the qrels
   and part ``j`` of the run hold the same whole queries.
   A run already partitioned by query (a Parquet dataset partitioned on the query column,
   an index on the query id with known divisions, or ``partitioned_by_query=True``) is not
   shuffled at all: each run partition is evaluated where it is, with the qrels rows of its
   queries (selected from the qrels partitions that hold them).
3. Each part's rows go to the native Arrow readers (:meth:`ranklens.Qrels.from_frame` on a
   ``pyarrow.Table``), in input order (with ``ties="rank"``, the run's ``rank`` column
   too), and are evaluated by the ordinary
   :class:`~ranklens.Evaluator`; only the per-query values and the query counts come back.
4. :func:`ranklens.evaluation.parts.combine` sorts the queries into byte order and
   :class:`~ranklens.Results` sums each column in that order, once, on the client: the
   same floating-point sum as :func:`ranklens.evaluate`.

ERR's default ``g_max`` (the highest grade of the evaluated queries) is computed first,
over all partitions, and given to every partition.

Errors. A task never raises a ranklens error (a worker would log it with its traceback,
and with the row as the task numbers it): it returns it (:class:`Failed`), the tasks after
it pass it on, and the client raises the first one the single machine would meet, in the
single machine's terms (:func:`_in_user_terms`: the table's name and columns; a
DataFrame's rows from 0, a Parquet file's lines from 1). Only Dask's own shuffle
(``dataframe.shuffle.method`` set) still raises from inside its ``map_partitions``.
"""

from __future__ import annotations

import functools
import os
import re
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ranklens.base.errors import (
    DuplicateError,
    EmptyInputError,
    InputError,
    OptionError,
    RanklensError,
)
from ranklens.base.optional import require
from ranklens.base.progress import Progress, stage
from ranklens.base.types import DuplicatePolicy, QueryPolicy, TiePolicy
from ranklens.data.frames import QID_NAMES, RANK_COLUMN
from ranklens.evaluation.evaluator import check_overlap
from ranklens.evaluation.parts import Part, combine, set_dependent
from ranklens.evaluation.results import Results
from ranklens.measures.base import Measure
from ranklens.ranking.interactions import TrainLike
from ranklens.ranking.item_features import ItemFeaturesLike
from ranklens.ranking.items import PopularityLike
from ranklens.scale.arrow_parts import (
    KEY,
    SHIFT,
    arrow_ids,
    decode_row,
    empty_prepared,
    evaluate_tables,
    grade_of_tables,
    prepared,
    prepared_table,
    split_table,
    value_kind,
)
from ranklens.scale.dask_files import active_client, evaluate_parquet, local_parquet
from ranklens.scale.dask_in_place import evaluate_frame
from ranklens.scale.partition import (
    DOC,
    QUERY,
    SIDES,
    VALUE,
    Options,
    qrels_columns,
    run_columns,
)


def _load(dd: Any, table: Any, query: str | None = None) -> Any:
    """A Dask DataFrame of a table; a Parquet path read Arrow-backed (a dataset directory
    partitioned on ``query``, ``query=value/``, with that column read as strings: pyarrow
    would otherwise guess integers and turn ``007`` into 7)."""
    if isinstance(table, str) or hasattr(table, "__fspath__"):
        pa = require("pyarrow", "ranklens.dask")
        options: dict[str, Any] = {}
        if query is not None:
            ds = require("pyarrow.dataset", "ranklens.dask")
            schema = pa.schema([(query, pa.string())])
            options["dataset"] = {"partitioning": ds.partitioning(schema, flavor="hive")}
        try:  # Arrow-backed columns (strings never become Python objects); one partition
            # per row group: by default Dask puts 20 row groups of 1M rows in one partition
            return dd.read_parquet(
                str(os.fspath(table)), dtype_backend="pyarrow", split_row_groups=True, **options
            )
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


def _query_index(frame: Any, given: str | None) -> tuple[Any, bool]:
    """The frame with an index that holds the query ids made a column, and whether that
    index had known divisions (then every query's rows are in one partition)."""
    name = getattr(frame.index, "name", None)
    columns = [str(c) for c in frame.columns]
    if name is None or str(name) in columns:
        return frame, False
    wanted = given if given is not None else next((n for n in QID_NAMES if n in columns), None)
    if wanted is not None and wanted != str(name):
        return frame, False
    if wanted is None and str(name) not in QID_NAMES:
        return frame, False
    return frame.reset_index(), bool(frame.known_divisions)


def _hive_query(table: Any, given: str | None) -> str | None:
    """The query column a local Parquet dataset directory is partitioned on
    (``query_id=.../``: ``given``, or one of the usual query id names), or None."""
    if not (isinstance(table, str) or hasattr(table, "__fspath__")):
        return None
    path = str(os.fspath(table))
    if not os.path.isdir(path):
        return None
    keys = {entry.split("=", 1)[0] for entry in os.listdir(path) if "=" in entry}
    wanted = (given,) if given is not None else QID_NAMES
    return next((name for name in wanted if name in keys), None)


@dataclass(frozen=True)
class Failed:
    """What a task returns instead of raising: a worker logs every exception a task
    raises, traceback and all (with the row as the task numbers it, ``partition << 40 |
    position``), before the client names the error in the user's terms. The client raises
    the first one (:func:`first_failure`) once the computation is done.

    Attributes
    ----------
    error : the error.
    reading : whether it was met reading the rows (ids and values), which the single
        machine names in the file of a Parquet dataset that holds the row; other errors
        (duplicates, ranks) name the dataset, as there.
    """

    error: RanklensError
    reading: bool


def _order(failed: Failed) -> tuple[int, int, int]:
    """Which failure the single machine would meet first: reading before evaluating, the
    qrels before the run, then the row."""
    error = failed.error
    side = SIDES.index(error.path) if isinstance(error, InputError) and error.path in SIDES else 2
    line = error.line if isinstance(error, InputError) and error.line is not None else 0
    return (0 if failed.reading else 1, side, line)


def first_failure(values: Any) -> Failed | None:
    """The first :class:`Failed` among ``values`` (lists and tuples looked into), or None."""
    found: list[Failed] = []
    pending = [values]
    while pending:
        value = pending.pop()
        if isinstance(value, Failed):
            found.append(value)
        elif isinstance(value, list | tuple):
            pending.extend(value)
    return min(found, key=_order) if found else None


@dataclass(frozen=True)
class _Guarded:
    """A task function that returns a :class:`Failed` instead of raising a ranklens error,
    and passes on a failure among its arguments without running."""

    function: Callable[..., Any]
    reading: bool = False

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        failed = first_failure(list(args))
        if failed is not None:
            return failed
        try:
            return self.function(*args, **kwargs)
        except RanklensError as exc:
            return Failed(exc, self.reading)


def _piece(split: Any, j: int) -> Any:
    """The ``j``-th table of a split input partition (its failure, if it failed)."""
    return split if isinstance(split, Failed) else split[j]


def _computed(dask: Any, tasks: Sequence[Any]) -> tuple[Any, ...]:
    """``dask.compute(*tasks)``, raising the first failure among the results."""
    found = tuple(dask.compute(*tasks))
    raise_failure(found)
    return found


def raise_failure(results: Any) -> None:
    """Raise the first :class:`Failed` among ``results``, if any (an input error carries
    whether it was met reading, for :func:`_in_user_terms`)."""
    failed = first_failure(results)
    if failed is None:
        return
    error = failed.error
    if isinstance(error, InputError):
        raise _TaskInputError(error, failed.reading)
    raise error


class _TaskInputError(Exception):
    """An input error from a task on its way to :func:`_in_user_terms` (never leaves this
    module)."""

    def __init__(self, error: InputError, reading: bool) -> None:
        super().__init__(str(error))
        self.error = error
        self.reading = reading


def _prepare_partition(
    frame: Any,
    columns: tuple[str, str, str],
    side: str,
    kind: Any,
    rank: bool = False,
    partition_info: Any = None,
) -> Any:
    number = 0 if partition_info is None else int(partition_info["number"])
    return prepared(frame, columns, side, kind, number, rank)


def _wanted(frame: Any, columns: tuple[str, str, str], rank: bool) -> Any:
    """The frame's columns that are read (Dask reads only these from Parquet), with the
    run's ``rank`` column when ``rank`` (``ties="rank"``) and it has one."""
    names = [str(c) for c in frame.columns]
    extra = [RANK_COLUMN] if rank and RANK_COLUMN in names else []
    return frame[list(dict.fromkeys([*columns, *extra]))]


def _prepare(
    frame: Any, columns: tuple[str, str, str], side: str, integer: bool, rank: bool = False
) -> Any:
    """Dask's own shuffle (``dataframe.shuffle.method`` set): the prepared pandas frames."""
    kind = value_kind(frame[columns[2]].dtype, integer)
    wanted = _wanted(frame, columns, rank)
    return wanted.map_partitions(
        _prepare_partition,
        columns,
        side,
        kind,
        rank,
        meta=empty_prepared(kind, rank and RANK_COLUMN in wanted.columns),
        align_dataframes=False,
        enforce_metadata=False,
    )


def _prepared_parts(
    dask: Any, frame: Any, columns: tuple[str, str, str], side: str, integer: bool, rank: bool
) -> list[Any]:
    """Each input partition as a task returning its :func:`prepared_table`."""
    kind = value_kind(frame[columns[2]].dtype, integer)
    delayed = dask.delayed(_Guarded(prepared_table, reading=True), pure=True)
    return [
        delayed(part, columns, side, kind, number, rank)
        for number, part in enumerate(_wanted(frame, columns, rank).to_delayed())
    ]


def _split_partition(
    frame: Any,
    columns: tuple[str, str, str],
    side: str,
    kind: Any,
    number: int,
    rank: bool,
    parts: int,
) -> list[Any]:
    """One input partition prepared and hash-partitioned by query: ``parts`` Arrow tables."""
    return split_table(prepared_table(frame, columns, side, kind, number, rank), parts)


def _shuffle_method(dask: Any) -> str:
    """``dataframe.shuffle.method`` if configured (``tasks`` or ``p2p``: Dask's own
    shuffle of pandas frames), else ``arrow``: each input partition split into Arrow
    tables by query hash in one task, each part's tables read by the task that evaluates
    it (no pandas split or concatenation; faster and leaner in
    ``benchmarks/scale_bench.py``, benchmarks/README.md)."""
    configured = dask.config.get("dataframe.shuffle.method", None)
    return str(configured) if configured else "arrow"


@dataclass(frozen=True)
class Plan:
    """The Dask tasks of one evaluation: one :class:`~ranklens.evaluation.parts.Part` per
    task, combined on the client by :func:`ranklens.evaluation.parts.combine`.

    Attributes
    ----------
    tasks : ``dask.delayed`` objects, one per part.
    shuffled : whether the tables are hash-partitioned by query (False: the run was
        already partitioned by query and is evaluated where it is).
    partitions : the number of parts of the run.
    """

    tasks: tuple[Any, ...]
    shuffled: bool
    partitions: int


def _evaluate_pair(qrels: Any, run: Any, options: Options) -> Any:
    return evaluate_tables([qrels], [run], options, SIDES)


def _grade_of_pair(qrels: Any, run: Any, queries: QueryPolicy) -> int:
    return grade_of_tables([qrels], [run], queries, SIDES)


def _evaluate_unit(qrels: list[Any], run: Any, options: Options) -> Any:
    return evaluate_tables(qrels, [run], options, SIDES)


def _evaluate_pieces(qrels: list[Any], run: list[Any], g_max: int | None, options: Options) -> Any:
    """Evaluate one part's Arrow tables (ERR's default ``g_max`` pinned when given)."""
    return evaluate_tables(qrels, run, options.pinned(g_max), SIDES)


def _grade_of_pieces(qrels: list[Any], run: list[Any], queries: QueryPolicy) -> int:
    return grade_of_tables(qrels, run, queries, SIDES)


def _highest(grades: list[int]) -> int:
    return max([0, *grades])


def _grade_of_unit(qrels: list[Any], run: Any, queries: QueryPolicy) -> int:
    return grade_of_tables(qrels, [run], queries, SIDES)


def _select(table: Any, queries: list[str] | None) -> Any:
    """The prepared rows (an Arrow table) of ``queries`` (all rows for None)."""
    if queries is None:
        return table
    pa = require("pyarrow", "ranklens.dask")
    pc = require("pyarrow.compute", "ranklens.dask")
    mask = pc.is_in(table.column(QUERY), value_set=pa.array(queries, pa.large_string()))
    return table.filter(mask)


def _distinct(frame: Any, column: str, side: str, number: int) -> list[str]:
    """The distinct query ids of one input partition, as strings (a missing id refused,
    naming its row)."""
    pa = require("pyarrow", "ranklens.dask")
    pc = require("pyarrow.compute", "ranklens.dask")
    table = pa.Table.from_pandas(frame[[column]], preserve_index=False)
    ids = arrow_ids(table.column(column), column, side)
    if ids.null_count:
        at = int(pc.index(pc.is_null(ids), True).as_py())
        raise InputError(
            f"column '{column}' has a missing value", path=side, line=(number << SHIFT) + at
        )
    return [str(x) for x in pc.unique(ids).to_pylist()]


def _aligned_units(
    dask: Any,
    q_frame: Any,
    r_frame: Any,
    q_cols: tuple[str, str, str],
    r_cols: tuple[str, str, str],
    declared: bool,
) -> tuple[list[tuple[int | None, list[tuple[int, list[str] | None]]]], int] | None:
    """For a run partitioned by query: each unit of work as ``(run partition or None,
    [(qrels partition, its query ids to take, or None for all)])``; None when a query of
    the run turns out to be in several partitions (and it was not declared).

    Only the query id columns are read here (Parquet reads that column alone)."""
    delayed = dask.delayed
    r_ids_tasks = [
        delayed(_Guarded(_distinct, reading=True))(part, r_cols[0], SIDES[1], j)
        for j, part in enumerate(r_frame[[r_cols[0]]].to_delayed())
    ]
    q_ids_tasks = [
        delayed(_Guarded(_distinct, reading=True))(part, q_cols[0], SIDES[0], k)
        for k, part in enumerate(q_frame[[q_cols[0]]].to_delayed())
    ]
    found = _computed(dask, [*r_ids_tasks, *q_ids_tasks])
    r_ids, q_ids = found[: len(r_ids_tasks)], found[len(r_ids_tasks) :]
    owner: dict[str, int] = {}
    for j, ids in enumerate(r_ids):
        for qid in ids:
            other = owner.setdefault(qid, j)
            if other != j:
                if not declared:
                    return None
                raise InputError(
                    f"the run was declared partitioned by query (partitioned_by_query=True) "
                    f"but query {qid!r} has rows in partitions {other} and {j}: leave "
                    "partitioned_by_query unset to have the tables shuffled by query"
                )
    where: dict[str, list[int]] = {}
    for k, ids in enumerate(q_ids):
        for qid in ids:
            where.setdefault(qid, []).append(k)
    units: list[tuple[int | None, list[tuple[int, list[str] | None]]]] = []
    for j, ids in enumerate(r_ids):
        units.append((j, _takes([qid for qid in ids if qid in where], where, q_ids)))
    alone: dict[int, list[str]] = {}
    for qid, parts in where.items():
        if qid not in owner:
            alone.setdefault(min(parts), []).append(qid)
    for k in sorted(alone):
        units.append((None, _takes(alone[k], where, q_ids)))
    return units, len(r_ids)


def _takes(
    queries: list[str], where: dict[str, list[int]], q_ids: Sequence[list[str]]
) -> list[tuple[int, list[str] | None]]:
    """The qrels partitions holding ``queries``, each with the ids to take from it (None:
    the whole partition, when all its queries are wanted)."""
    picked: dict[int, list[str]] = {}
    for qid in queries:
        for k in where[qid]:
            picked.setdefault(k, []).append(qid)
    return [(k, None if len(ids) == len(q_ids[k]) else ids) for k, ids in sorted(picked.items())]


def plan(
    qrels: Any,
    run: Any,
    measures: Sequence[str | Measure] | str,
    *,
    ties: TiePolicy = "trec_eval",
    queries: QueryPolicy = "qrels",
    depth: int | None = None,
    duplicates: DuplicatePolicy = "error",
    npartitions: int | None = None,
    qrels_cols: tuple[str | None, str | None, str | None] = (None, None, None),
    run_cols: tuple[str | None, str | None, str | None] = (None, None, None),
    partitioned_by_query: bool | None = None,
) -> Plan:
    """The tasks :func:`evaluate` computes (for inspection: which tasks read which
    partitions). Parameters as :func:`evaluate`; with ERR's default ``g_max`` its value is
    computed here, over all partitions."""
    try:
        return _plan(
            qrels,
            run,
            Options.of(measures, ties, queries, depth, duplicates),
            npartitions,
            qrels_cols,
            run_cols,
            partitioned_by_query,
        )[0]
    except _TaskInputError as exc:  # met by the tasks the plan computes (ERR's g_max, ids)
        given = (qrels_cols, run_cols)
        raise _in_user_terms(
            exc.error, (qrels, run), (), (None, None), given, exc.reading
        ) from None


def _plan(
    qrels: Any,
    run: Any,
    options: Options,
    npartitions: int | None,
    qrels_cols: tuple[str | None, str | None, str | None],
    run_cols: tuple[str | None, str | None, str | None],
    partitioned_by_query: bool | None,
) -> tuple[Plan, tuple[Any, Any], tuple[tuple[str, str, str], tuple[str, str, str]]]:
    dask = require("dask", "ranklens.dask")
    hive = _hive_query(run, run_cols[0])
    frames, columns, indexed = _read_frames((qrels, run), (qrels_cols, run_cols))
    (q_frame, r_frame), (q_cols, r_cols) = frames, columns
    rank = options.ties == "rank"
    if rank and RANK_COLUMN not in r_frame.columns:
        raise OptionError(
            f"ties='rank' orders documents by the run's '{RANK_COLUMN}' column, and the run "
            f"has none (columns: {[str(c) for c in r_frame.columns]}): add it, or choose "
            "another tie policy (ties='trec_eval' orders by score)"
        )
    aligned = None
    if partitioned_by_query is not False and (partitioned_by_query or indexed or hive == r_cols[0]):
        aligned = _aligned_units(dask, q_frame, r_frame, q_cols, r_cols, bool(partitioned_by_query))
    if aligned is not None:
        units, count = aligned
        q_tables = _prepared_parts(dask, q_frame, q_cols, SIDES[0], True, False)
        r_tables = _prepared_parts(dask, r_frame, r_cols, SIDES[1], False, rank)
        tasks = _unit_tasks(dask, q_tables, r_tables, units, options)
        return Plan(tuple(tasks), False, count), frames, columns
    parts = int(npartitions or max(r_frame.npartitions, q_frame.npartitions, 1))
    method = _shuffle_method(dask)
    if method == "arrow":
        tasks = _arrow_tasks(dask, (q_frame, r_frame), columns, rank, parts, options)
        return Plan(tuple(tasks), True, parts), frames, columns
    q_prep = _prepare(q_frame, q_cols, SIDES[0], True)
    r_prep = _prepare(r_frame, r_cols, SIDES[1], False, rank)
    q_split = q_prep.shuffle(on=KEY, npartitions=parts, shuffle_method=method, ignore_index=True)
    r_split = r_prep.shuffle(on=KEY, npartitions=parts, shuffle_method=method, ignore_index=True)
    q_parts, r_parts = q_split.to_delayed(), r_split.to_delayed()
    if len(q_parts) != len(r_parts):  # pragma: no cover - shuffle(npartitions=) guarantees it
        raise RuntimeError("qrels and run were not split into the same partitions")
    if set_dependent(options.measures):
        q_split, r_split = dask.persist(q_split, r_split)
        q_parts, r_parts = q_split.to_delayed(), r_split.to_delayed()
        grades = _computed(
            dask,
            [
                dask.delayed(_Guarded(_grade_of_pair))(a, b, options.queries)
                for a, b in zip(q_parts, r_parts, strict=True)
            ],
        )
        options = options.pinned(max([0, *grades]))
    tasks = [
        dask.delayed(_Guarded(_evaluate_pair))(a, b, options)
        for a, b in zip(q_parts, r_parts, strict=True)
    ]
    return Plan(tuple(tasks), True, parts), frames, columns


def _read_frames(
    tables: tuple[Any, Any], given: tuple[tuple[str | None, str | None, str | None], ...]
) -> tuple[tuple[Any, Any], tuple[tuple[str, str, str], tuple[str, str, str]], bool]:
    """The qrels and the run as Dask DataFrames (a query index made a column), their
    (query, document, value) columns, and whether the run's index was the query id with
    known divisions."""
    dd = require("dask.dataframe", "ranklens.dask")
    qrels, run = tables
    q_frame = _load(dd, qrels, _hive_query(qrels, given[0][0]))
    r_frame = _load(dd, run, _hive_query(run, given[1][0]))
    q_frame, _ = _query_index(q_frame, given[0][0])
    r_frame, indexed = _query_index(r_frame, given[1][0])
    q_cols = qrels_columns([str(c) for c in q_frame.columns], given[0])
    r_cols = run_columns([str(c) for c in r_frame.columns], given[1])
    return (q_frame, r_frame), (q_cols, r_cols), indexed


def _arrow_tasks(
    dask: Any,
    frames: tuple[Any, Any],
    columns: tuple[tuple[str, str, str], tuple[str, str, str]],
    rank: bool,
    parts: int,
    options: Options,
) -> list[Any]:
    """The ``arrow`` shuffle, as one graph: a ``ranklens-split`` task per input partition
    prepares and splits it into ``parts`` Arrow tables by query hash
    (:func:`~ranklens.scale.arrow_parts.split_table`); ``ranklens-piece`` ``(i, j)`` picks
    the ``j``-th table of input partition ``i``; ``ranklens-evaluate`` ``j`` reads the
    ``j``-th table of every input partition, in input order. ERR's default ``g_max`` (the
    maximum of the parts' grades) is a task the evaluations wait for, in the same
    computation. (Built as a graph rather than with ``dask.delayed``, whose argument
    traversal costs seconds for the ``inputs x parts`` pieces of 81 x 81 partitions.)"""
    highlevelgraph = require("dask.highlevelgraph", "ranklens.dask")
    delayed_module = require("dask.delayed", "ranklens.dask")
    token = uuid.uuid4().hex
    split, piece = f"ranklens-split-{token}", f"ranklens-piece-{token}"
    layer: dict[Any, Any] = {}
    sources: list[Any] = []
    pieces: list[list[list[Any]]] = []
    for side, (frame, names, integer) in enumerate(
        zip(frames, columns, (True, False), strict=True)
    ):
        kind = value_kind(frame[names[2]].dtype, integer)
        wanted = _wanted(frame, names, rank and not integer)
        splits = functools.partial(
            _split_partition,
            columns=names,
            side=SIDES[side],
            kind=kind,
            rank=rank and not integer,
            parts=parts,
        )
        inputs = wanted.to_delayed()
        sources.extend(inputs)
        keys: list[list[Any]] = []
        for number, source in enumerate(inputs):
            task = _Guarded(functools.partial(splits, number=number), reading=True)
            layer[(split, side, number)] = (task, source.key)
            keys.append([(piece, side, number, j) for j in range(parts)])
            for j in range(parts):
                layer[(piece, side, number, j)] = (_piece, (split, side, number), j)
        pieces.append(keys)
    g_max: Any = None
    if set_dependent(options.measures):
        grade = _Guarded(functools.partial(_grade_of_pieces, queries=options.queries))
        for j in range(parts):
            layer[(f"ranklens-grade-{token}", j)] = (
                grade,
                [keys[j] for keys in pieces[0]],
                [keys[j] for keys in pieces[1]],
            )
        g_max = f"ranklens-g-max-{token}"
        layer[g_max] = (_Guarded(_highest), [(f"ranklens-grade-{token}", j) for j in range(parts)])
    name = f"ranklens-evaluate-{token}"
    evaluate_piece = _Guarded(functools.partial(_evaluate_pieces, options=options))
    for j in range(parts):
        layer[(name, j)] = (
            evaluate_piece,
            [keys[j] for keys in pieces[0]],
            [keys[j] for keys in pieces[1]],
            g_max,
        )
    graph = highlevelgraph.HighLevelGraph.from_collections(name, layer, dependencies=sources)
    return [delayed_module.Delayed((name, j), graph, layer=name) for j in range(parts)]


def _unit_tasks(
    dask: Any,
    q_parts: list[Any],
    r_parts: list[Any],
    units: list[tuple[int | None, list[tuple[int, list[str] | None]]]],
    options: Options,
) -> list[Any]:
    delayed = dask.delayed
    inputs = [
        (
            [delayed(_Guarded(_select))(q_parts[k], ids) for k, ids in takes],
            None if j is None else r_parts[j],
        )
        for j, takes in units
    ]
    if set_dependent(options.measures):
        grades = _computed(
            dask, [delayed(_Guarded(_grade_of_unit))(q, r, options.queries) for q, r in inputs]
        )
        options = options.pinned(max([0, *grades]))
    return [delayed(_Guarded(_evaluate_unit))(q, r, options) for q, r in inputs]


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
    partitioned_by_query: bool | None = None,
    popularity: PopularityLike | None = None,
    num_items: int | None = None,
    num_users: int | None = None,
    item_features: ItemFeaturesLike | None = None,
    train: TrainLike | None = None,
) -> Results:
    """Evaluate a run against qrels held in Dask DataFrames: the same :class:`Results` as
    :func:`ranklens.evaluate` on the same rows (``==``, every per-query value and mean).

    Parameters
    ----------
    qrels, run
        Dask or pandas DataFrames, or Parquet paths, globs or dataset directories, with the
        usual columns (``query_id``/``qid``, ``doc_id``/``docid``, ``relevance``/``rel`` or
        ``score``; string, categorical or integer ids; the query id may be the index).
    measures, ties, queries, depth, duplicates
        As :func:`ranklens.evaluate` (trec_eval's judgement-file measures excepted).
    name
        The run's name in the results; by default, as ``ranklens eval --dask`` names it:
        a Parquet path's file name without its extensions (``bm25`` for
        ``runs/bm25.parquet``), ``"run"`` for a DataFrame.
    npartitions
        Partitions of the shuffled tables (default: the larger table's).
    qrels_cols, run_cols
        ``(query, document, value)`` column names where they are not the usual ones.
    progress
        Called as ``progress(done, parts)`` as the parts' evaluations finish
        (:mod:`ranklens.base.progress`).
    partitioned_by_query
        ``True``: every query's run rows are in one partition of the run, which is then
        evaluated without a shuffle (an error names a query found in two partitions).
        ``False``: always shuffle. ``None`` (default): no shuffle for a Parquet dataset
        directory partitioned on the query column (``run/query_id=.../``) or a run whose
        index is the query id with known divisions, when every query is indeed in one
        partition; otherwise both tables are hash-partitioned by query.
    popularity, num_items, num_users, item_features, train
        The item data of the recommender measures, as :func:`ranklens.evaluate`: read
        once here and sent to every part. The run-level measures (``Coverage@10``, ...)
        come back from each part as a small state (exposure counts by item id, or a few
        numbers per user) merged here, with the in-memory values.

    Returns
    -------
    Results
        Computed on the current Dask scheduler (a ``distributed.Client`` if one is active).
    """
    name = name or run_name(run)
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
    frames: tuple[Any, Any] = (None, None)
    columns: tuple[tuple[str, str, str], ...] = ()
    dask = require("dask", "ranklens.dask")
    results: Sequence[Any] | None = None
    if _by_units(run, run_cols, partitioned_by_query):
        results = evaluate_parquet(
            qrels,
            run,
            options,
            run_cols,
            functools.partial(_qrels_frame, given=qrels_cols),
            functools.partial(_compute, dask),
            progress,
        )
    elif partitioned_by_query is None and not isinstance(run, str | os.PathLike):
        results = _in_place(qrels, run, options, (qrels_cols, run_cols), dask, progress)
    if results is None:
        given = (qrels_cols, run_cols)
        try:
            built, frames, columns = _plan(
                qrels, run, options, npartitions, qrels_cols, run_cols, partitioned_by_query
            )
            results = _compute(dask, list(built.tasks), progress)
            raise_failure(results)
        except InputError as exc:
            raise _in_user_terms(exc, (qrels, run), columns, frames, given) from None
        except _TaskInputError as exc:
            raise _in_user_terms(
                exc.error, (qrels, run), columns, frames, given, exc.reading
            ) from None
    for table, count in ((qrels, "qrels_queries"), (run, "run_queries")):
        if sum(getattr(part, count) for part in results) == 0:
            # every row has a query: a side without queries has no rows
            raise EmptyInputError("holds no entries", path=_table_name(table))
    combined = combine(name, options.measures, queries, results)
    check_overlap(combined.query_counts, name, None)  # judged on the whole run
    return combined


def _by_units(
    run: Any, run_cols: tuple[str | None, str | None, str | None], declared: bool | None
) -> bool:
    """Whether to try the run's row groups read by the tasks, evaluated where they lie
    (:mod:`ranklens.scale.dask_files`): a local Parquet run, not a dataset partitioned on
    its query column (evaluated partition by partition), and the shuffle not asked for."""
    if declared is False or not local_parquet(run):
        return False
    return _hive_query(run, run_cols[0]) is None


def _in_place(
    qrels: Any,
    run: Any,
    options: Options,
    given: tuple[tuple[str | None, str | None, str | None], ...],
    dask: Any,
    progress: Progress | None,
) -> list[Part] | None:
    """A DataFrame run evaluated where its rows lie
    (:func:`ranklens.scale.dask_in_place.evaluate_frame`), or ``None`` for the shuffle: its
    rows are not grouped, or it is indexed by query with known divisions (evaluated
    partition by partition), or its columns are not found (the shuffle names that)."""
    dd = require("dask.dataframe", "ranklens.dask")
    frame, indexed = _query_index(_load(dd, run), given[1][0])
    if indexed:
        return None
    try:
        columns = run_columns([str(c) for c in frame.columns], given[1])
    except InputError:
        return None
    return evaluate_frame(
        qrels,
        frame,
        columns,
        options,
        functools.partial(_qrels_frame, given=given[0]),
        functools.partial(_compute, dask),
        progress,
    )


def _qrels_frame(
    qrels: Any, given: tuple[str | None, str | None, str | None]
) -> tuple[Any, tuple[str, str, str]]:
    """The qrels as a Dask DataFrame, read as the shuffle reads them, and their (query,
    document, grade) columns."""
    dd = require("dask.dataframe", "ranklens.dask")
    frame, _ = _query_index(_load(dd, qrels, _hive_query(qrels, given[0])), given[0])
    return frame, qrels_columns([str(c) for c in frame.columns], given)


def _in_user_terms(
    exc: InputError,
    tables: tuple[Any, Any],
    columns: tuple[tuple[str, str, str], ...],
    frames: tuple[Any, Any],
    given: tuple[tuple[str | None, str | None, str | None], ...],
    reading: bool = False,
) -> InputError:
    """An error from a partition's rows (path ``<qrels>`` or ``<run>``, internal column
    names, rows as ``partition << 40 | position``) in the single machine's terms: the
    table (its Parquet path, or ``<DataFrame>``) and its column names; a DataFrame's rows
    counted from 0 over the whole frame (``rows a and b``), a Parquet file's from 1
    (``lines a and b``), and in a dataset of several files over the dataset in the
    single machine's file order, an error met reading the rows (``reading``) naming its
    file and its row there (:func:`ranklens.data.parquet_stream.in_file`)."""
    if exc.path not in SIDES:
        return exc
    side = SIDES.index(exc.path)
    where = _table_name(tables[side])
    message = exc.message
    if not columns or frames[side] is None:  # met before the plan was made: read them again
        frames, columns, _ = _read_frames(tables, given)
    if columns:
        internal = dict(zip((QUERY, DOC, VALUE), columns[side], strict=True))
        message = re.sub(
            r"column '(\w+)'",
            lambda m: f"column '{internal.get(m.group(1), m.group(1))}'",
            message,
        )
    rows: list[int] = [] if exc.line is None else [exc.line]
    if isinstance(exc, DuplicateError) and exc.lines is not None:
        rows = list(exc.lines)
    named = re.search(r"\brows (\d+) and (\d+)", message)  # ties="rank": a duplicate rank
    if named is not None and not isinstance(exc, DuplicateError):
        rows.extend(int(x) for x in named.groups())
    first: Any = [0]
    if rows and max(rows) >> SHIFT:
        lengths = frames[side].map_partitions(len).compute()
        first = np.concatenate(([0], np.cumsum(np.asarray(lengths, dtype=np.int64))))
    whole = [decode_row(r, first) for r in rows]
    if _is_path(tables[side]):  # Parquet: the single machine counts lines from 1
        unit = "lines"
        line_of, file_of = _parquet_numbering(str(os.fspath(tables[side])))
    else:
        unit, line_of, file_of = "rows", _as_is, _nowhere
    shown = [line_of(r) for r in whole]
    if isinstance(exc, DuplicateError):
        lines = exc.lines
        if lines is not None:
            message = message.replace(
                f"rows {lines[0]} and {lines[1]}", f"{unit} {shown[0]} and {shown[1]}"
            )
            lines = (shown[0], shown[1])
        return DuplicateError(
            message, path=where, lines=lines, query=exc.query, document=exc.document
        )
    if named is not None:
        message = message.replace(named.group(0), f"{unit} {shown[-2]} and {shown[-1]}")
    if exc.line is None:
        return type(exc)(message, path=where, line=None)
    # the single machine's reader names a bad value ("column 'x' ...") in its file,
    # whichever task met it here (an evaluation reads the prepared rows again)
    reading = reading or exc.message.startswith("column '")
    in_file = file_of(whole[0]) if reading else None
    if in_file is not None:
        return type(exc)(message, path=in_file[0], line=in_file[1])
    return type(exc)(message, path=where, line=shown[0])


def _is_path(table: Any) -> bool:
    return isinstance(table, str) or hasattr(table, "__fspath__")


def _as_is(row: int) -> int:
    return row


def _nowhere(row: int) -> tuple[str, int] | None:
    return None


def _parquet_numbering(
    path: str,
) -> tuple[Callable[[int], int], Callable[[int], tuple[str, int] | None]]:
    """For a Parquet file or dataset read by Dask (its files in Dask's order, "natural"
    sort: ``part.2`` before ``part.10``): a row of Dask's table (from 0) as the single
    machine's line over the whole input (from 1, its files in byte order), and, in a
    dataset of several files, as ``(file, line in that file)`` (None for one file, or
    where the footers cannot say)."""
    from dask.utils import natural_sort_key

    from ranklens.data.parquet_stream import parquet_source, row_group_rows

    def plain(row: int) -> int:
        return row + 1

    try:
        files = list(parquet_source(path).files)
        sizes = {f: sum(row_group_rows(f)) for f in files}
    except (InputError, OSError):
        return plain, lambda row: None
    dask_order = sorted(files, key=natural_sort_key)
    dask_starts = np.cumsum([0] + [sizes[f] for f in dask_order])
    own_starts = dict(zip(files, np.cumsum([0] + [sizes[f] for f in files]).tolist(), strict=False))

    def located(row: int) -> tuple[str, int] | None:
        if not 0 <= row < int(dask_starts[-1]):
            return None
        index = int(np.searchsorted(dask_starts, row, side="right")) - 1
        return dask_order[index], row - int(dask_starts[index]) + 1

    def line(row: int) -> int:
        found = located(row)
        return plain(row) if found is None else int(own_starts[found[0]]) + found[1]

    def in_file(row: int) -> tuple[str, int] | None:
        return located(row) if len(files) > 1 else None

    return line, in_file


def _table_name(table: Any) -> str:
    """A table as errors name it: its Parquet path, or ``<DataFrame>``."""
    return str(table) if isinstance(table, str) or hasattr(table, "__fspath__") else "<DataFrame>"


def run_name(run: Any) -> str:
    """A run's default name: a path's (or glob's) file name up to its first dot, as
    ``ranklens eval --dask`` names its runs; ``"run"`` for a DataFrame."""
    if isinstance(run, str) or hasattr(run, "__fspath__"):
        path = str(os.fspath(run)).rstrip("/")
        return os.path.basename(path).split(".")[0] or path
    return "run"


def _compute(dask: Any, tasks: list[Any], progress: Progress | None) -> tuple[Any, ...]:
    """``dask.compute(*tasks)``, reporting the tasks finished to ``progress``: through the
    futures of an active ``distributed.Client``, else a local scheduler's callbacks."""
    if progress is None or not tasks:
        return tuple(dask.compute(*tasks))
    client = active_client()
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
