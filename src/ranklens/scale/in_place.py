"""Evaluating a run where its rows lie: no exchange for a run whose rows come grouped by
query (as a TREC run file, or a Parquet table written from one, holds them). The engines
(:mod:`ranklens.scale.spark_in_place`, :mod:`ranklens.scale.spark_files`,
:mod:`ranklens.scale.dask_files`) run :func:`evaluate_rows` in their tasks and
:func:`gather` where the results meet (Spark's driver, Dask's client).

A query's rows may still be cut where one piece of the run (an input partition, or a
Parquet unit of row groups) ends and the next begins, and only the first and the last
query of a piece can be. So:

1. The qrels are read once, where the evaluation starts (their errors are the in-memory
   ones), and sent to every task, as an Arrow table (:class:`Broadcast`).
2. Each task gets one piece's rows, in their order, and finds the stretches of equal query
   ids. The first and the last query (the piece's *edges*) go back as rows (an Arrow IPC
   stream, each row with its position); every other query (*inner*) is evaluated in the
   task with the qrels of those queries, by the ordinary evaluation
   (:func:`ranklens.scale.partition.evaluate_part`).
3. :func:`gather` checks that no inner query has rows anywhere else (a query inner in two
   pieces, or inner in one and an edge in another, means the run is not grouped), puts
   the edge rows in input order, and evaluates them with the qrels of every query no task
   evaluated (edges, and the qrels' queries the run lacks). The parts are combined as any
   parts (:func:`ranklens.evaluation.parts.combine`): the same sums in the same order as
   :func:`ranklens.evaluate`.

Whenever this cannot give the in-memory numbers, :func:`gather` says so
(:class:`DeclinedError`, :class:`NotGroupedError`) and the caller hashes the rows by query
instead: a piece whose queries are not in stretches (checked unless the user declared the
run partitioned by query), a run that turns out not to be grouped, a piece with more than
its limit of edge rows (a few huge queries), and, for a DataFrame's rows, any error in the
input (the exchange names it as ``ranklens.evaluate`` does, with its row). A Parquet run's
rows name their errors themselves (:class:`TaskError`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

import numpy as np

from ranklens.base.errors import DuplicateError, InputError, RanklensError
from ranklens.base.optional import require
from ranklens.data.frames import from_frame
from ranklens.data.qrels import Qrels
from ranklens.data.run import Run
from ranklens.evaluation.parts import Part
from ranklens.scale.part_batches import part_batch, parts_of, record_batch
from ranklens.scale.partition import DOC, QUERY, Options, evaluate_part

POSITION_BITS = 33
"""A DataFrame partition's first position: its number shifted left by this many bits."""
EDGE_ROWS_LIMIT = 1_000_000
"""The most run rows one partition sends to the driver (its first and last query)."""
GRADE, SCORE, _POSITION = "relevance", "score", "_position"
_FALL_BACK = json.dumps({"kind": "fall-back"})
_UNGROUPED = json.dumps({"kind": "ungrouped"})


@dataclass(frozen=True)
class RunColumns:
    """How a task reads its run rows: their query, document and score columns, and where
    they come from (``None``: a DataFrame's rows, whose errors the exchange names; a path:
    a Parquet run's rows, whose errors are sent back naming the path and the row)."""

    query: str
    doc: str
    score: str
    where: str | None = None


@dataclass(frozen=True)
class Broadcast:
    """What every task gets with its function: the options, the qrels rows (columns
    :data:`QUERY`, :data:`DOC`, ``relevance``), and how to read the run's rows."""

    options: Options
    qrels: Any
    columns: RunColumns
    contiguous_only: bool
    """Refuse (send back) a partition whose queries are not in stretches."""
    edge_rows_limit: int
    """The most edge rows one partition may send (more: exchange instead)."""


class NotGroupedError(Exception):
    """The run's rows are not grouped by query (``query``: one that shows it, if known)."""

    def __init__(self, query: str | None) -> None:
        super().__init__(query)
        self.query = query


class TaskError(Exception):
    """Tasks met errors in the input (``records``: what each sent back)."""

    def __init__(self, records: list[dict[str, Any]]) -> None:
        super().__init__(len(records))
        self.records = records


def stretch_starts(ids: Any, pc: Any) -> Any:
    """The first row of each stretch of equal query ids (``ids`` without nulls)."""
    n = len(ids)
    if n < 2:
        return np.zeros(min(n, 1), dtype=np.int64)
    change = pc.not_equal(ids.slice(1), ids.slice(0, n - 1))
    starts = np.flatnonzero(change.to_numpy(zero_copy_only=False)) + 1
    return np.concatenate([np.zeros(1, dtype=np.int64), starts.astype(np.int64)])


@dataclass(frozen=True)
class _Cut:
    inner: Any
    inner_start: int
    """The inner rows' first row in the partition (where they are one slice)."""
    edges: Any
    positions: Any
    """The edge rows' rows in the partition."""


def grouped(ids: Any) -> bool:
    """Whether the query ids ``ids`` (an Arrow array; dictionary-encoded or with nulls, which
    are skipped) come in stretches, each query's together."""
    pa = require("pyarrow", "ranklens's engines")
    pc = require("pyarrow.compute", "ranklens's engines")
    if pa.types.is_dictionary(ids.type):
        ids = pc.cast(ids, ids.type.value_type)
    ids = ids.drop_null()
    starts = stretch_starts(ids, pc)
    return len(pc.unique(ids.take(pa.array(starts)))) == len(starts)


def _cut(rows: Any, ids: Any, sent: Broadcast, pa: Any, pc: Any) -> _Cut | str:
    """The partition's inner and edge rows, or (where its queries are not in stretches
    and that is refused) a query id that shows it."""
    starts = stretch_starts(ids, pc)
    heads = ids.take(pa.array(starts))
    distinct = pc.unique(heads)
    contiguous = len(distinct) == len(starts)
    if not contiguous and sent.contiguous_only:
        counts = pc.value_counts(heads)
        again = counts.filter(pc.greater(counts.field("counts"), 1))
        return str(again.field("values")[0].as_py())
    n = len(rows)
    if contiguous:
        head_end = int(starts[1]) if len(starts) > 1 else n
        tail_start = int(starts[-1]) if len(starts) > 1 else n
        positions = np.concatenate([np.arange(head_end), np.arange(tail_start, n)])
        edges = pa.concat_tables([rows.slice(0, head_end), rows.slice(tail_start)])
        return _Cut(rows.slice(head_end, tail_start - head_end), head_end, edges, positions)
    ends = pc.unique(pa.array([heads[0].as_py(), heads[-1].as_py()], ids.type))
    is_edge = pc.is_in(ids, value_set=ends)
    mask = np.asarray(is_edge.to_numpy(zero_copy_only=False), dtype=bool)
    return _Cut(rows.filter(pc.invert(is_edge)), -1, rows.filter(is_edge), np.flatnonzero(mask))


def _ipc(table: Any, pa: Any) -> bytes:
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    return bytes(sink.getvalue())


def fall_back_batch() -> Any:
    """The batch of a task whose rows only the exchange by query can evaluate (an error
    it names in the DataFrame's terms)."""
    pa = require("pyarrow", "ranklens's engines")
    return record_batch(pa, _FALL_BACK)


def error_record(exc: RanklensError) -> str:
    """An error met in a task, as the JSON record it sends back."""
    record: dict[str, Any] = {"kind": type(exc).__name__, "message": str(exc)}
    if isinstance(exc, InputError):
        record.update(message=exc.message, path=exc.path, line=exc.line)
    if isinstance(exc, DuplicateError):
        record.update(lines=exc.lines, query=exc.query, document=exc.document)
    return json.dumps(record)


def evaluate_rows(rows: Any, first: int, sent: Broadcast) -> Any:
    """One partition's (or Parquet unit's) run rows evaluated where they are: the batch a
    task sends back. ``first`` is the position of its first row (a partition's index
    shifted left by 33 bits, or the row's number in a Parquet run)."""
    pa = require("pyarrow", "ranklens's engines")
    pc = require("pyarrow.compute", "ranklens's engines")
    in_files = sent.columns.where is not None
    ids = rows.column(sent.columns.query).combine_chunks()
    if ids.null_count:  # the reader names the row (for a DataFrame, the exchange's)
        if in_files:
            try:
                read_run(rows, sent, first + 1)
            except RanklensError as exc:
                return record_batch(pa, error_record(exc))
        return record_batch(pa, _FALL_BACK)
    cut = _cut(rows, ids, sent, pa, pc)
    if isinstance(cut, str):
        return record_batch(pa, json.dumps({"kind": "ungrouped", "query": cut}))
    if len(cut.edges) > sent.edge_rows_limit:
        return record_batch(pa, _FALL_BACK)
    edges = cut.edges.append_column(_POSITION, pa.array(cut.positions + first, pa.int64()))
    try:
        part, keys = _evaluate_inner(cut.inner, first + cut.inner_start + 1, sent, pa, pc)
    except RanklensError as exc:
        return record_batch(pa, error_record(exc) if in_files else _FALL_BACK)
    listed = set(part.queries)
    unlisted = [q for q in pc.cast(keys, pa.string()).to_pylist() if q not in listed]
    return part_batch(pa, part, len(sent.options.measures), _ipc(edges, pa), unlisted)


def read_run(rows: Any, sent: Broadcast, first_row: int) -> Run:
    """A :class:`Run` of ``rows``; rows of a Parquet run named in messages from
    ``first_row`` (1 for its first row), as the single machine's Parquet reader names
    them."""
    columns, options = sent.columns, sent.options
    if columns.where is None:
        return Run.from_frame(
            rows,
            qid_col=columns.query,
            doc_col=columns.doc,
            score_col=columns.score,
            duplicates=options.duplicates,
        )
    read = from_frame(
        rows,
        False,
        columns.query,
        columns.doc,
        columns.score,
        source=columns.where,
        first_row=first_row,
    )
    values = read.pop("values")
    return Run(scores=values, name="run", **read).deduplicated(options.duplicates)


def _evaluate_inner(
    inner: Any, first_row: int, sent: Broadcast, pa: Any, pc: Any
) -> tuple[Part, Any]:
    """A partition's inner queries evaluated with their qrels, and their ids (an Arrow
    array)."""
    options = sent.options
    run = qrels = None
    keys = pa.array([], pa.string())
    if len(inner):
        run = read_run(inner, sent, first_row)
        keys = pc.unique(inner.column(sent.columns.query).combine_chunks())
        wanted = sent.qrels.filter(
            pc.is_in(
                sent.qrels.column(QUERY),
                value_set=pc.cast(keys, sent.qrels.schema.field(QUERY).type),
            )
        )
        if len(wanted):
            qrels = Qrels.from_frame(
                wanted, qid_col=QUERY, doc_col=DOC, rel_col=GRADE, duplicates=options.duplicates
            )
    return evaluate_part(qrels, run, options), keys


def top_grade(qrels: Qrels, in_run: set[str] | None) -> int:
    """ERR's default ``g_max``: the highest grade (>= 0) of the judgments of the evaluated
    queries (all of the qrels' where ``in_run`` is ``None``, else those of the queries in
    ``in_run``, the run's)."""
    grades = qrels.rels
    if in_run is not None:
        judged = np.fromiter((qid in in_run for qid in qrels.qids), bool, len(qrels.qids))
        grades = grades[np.repeat(judged, np.diff(qrels.q_offsets))]
    return max(int(grades.max()) if len(grades) else 0, 0)


class DeclinedError(Exception):
    """A task could not evaluate its rows where they are (an error the exchange names, or
    too many edge rows)."""


def qrels_rows(table: Any, pa: Any) -> Any:
    """The qrels rows sent to the tasks: columns :data:`QUERY` (as strings: a task
    compares them with its run's query ids, also as strings), :data:`DOC` and
    ``relevance``."""
    rows = table.rename_columns([QUERY, DOC, GRADE])
    return rows.set_column(0, QUERY, rows.column(QUERY).cast(pa.string()))


def gather(table: Any, sent: Broadcast) -> list[Part]:
    """The parts of the tasks' batches (``table``, collected) and the driver's part (the
    edge queries and the qrels' queries no task saw).

    Raises
    ------
    DeclinedError
        A task sent its rows back to be exchanged.
    NotGroupedError
        A task's queries were not in stretches, or a query was inner in one partition and
        also had rows in another.
    TaskError
        Tasks met errors in their rows.
    RanklensError
        The edge rows hold an error.
    """
    pa = require("pyarrow", "ranklens's engines")
    pc = require("pyarrow.compute", "ranklens's engines")
    records = [json.loads(e) for e in table.column("error").drop_null().to_pylist()]
    if any(r["kind"] == "fall-back" for r in records):
        raise DeclinedError
    ungrouped = [r for r in records if r["kind"] == "ungrouped"]
    if ungrouped:
        raise NotGroupedError(ungrouped[0]["query"])
    if records:
        raise TaskError(records)
    parts = parts_of(table, len(sent.options.measures))
    edges = edge_rows(table)
    unlisted = table.column("unlisted").drop_null().combine_chunks().flatten().to_pylist()
    inner = [q for part in parts for q in part.queries] + [str(q) for q in unlisted]
    seen = set(inner)
    edge_ids: set[str] = set()
    if edges is not None:
        edge_ids = set(pc.cast(edges.column(sent.columns.query), pa.string()).to_pylist())
    if len(seen) != len(inner) or not seen.isdisjoint(edge_ids):
        raise NotGroupedError(_spread(inner, edge_ids))
    return [*parts, _evaluate_rest(seen, edges, sent, pa, pc)]


def edge_rows(table: Any) -> Any:
    """Every task's edge rows, in input order (by position), or ``None``."""
    pa = require("pyarrow", "ranklens's engines")
    pieces = [
        pa.ipc.open_stream(blob).read_all()
        for blob in table.column("edges").drop_null().to_pylist()
    ]
    pieces = [piece for piece in pieces if len(piece)]
    if not pieces:
        return None
    rows = pa.concat_tables(pieces)
    return rows.take(np.argsort(rows.column(_POSITION).to_numpy(), kind="stable"))


def _spread(inner: list[str], edge_ids: set[str]) -> str:
    """A query the tasks found away from its partition's edges and also elsewhere."""
    counted: dict[str, int] = {}
    for qid in inner:
        counted[qid] = counted.get(qid, 0) + 1
    return next(q for q in inner if counted[q] > 1 or q in edge_ids)


def _evaluate_rest(evaluated: set[str], edges: Any, sent: Broadcast, pa: Any, pc: Any) -> Part:
    """The edge queries and the qrels' queries no task saw, evaluated on the driver
    (raises the error the edge rows hold, if any)."""
    run = None
    if edges is not None:
        run = read_run(edges.drop_columns([_POSITION]), sent, 1)
    q_rows = sent.qrels
    done = pa.array(list(evaluated), pa.string())
    rest = q_rows.filter(pc.invert(pc.is_in(q_rows.column(QUERY), value_set=done)))
    qrels = None
    if len(rest):
        qrels = Qrels.from_frame(
            rest, qid_col=QUERY, doc_col=DOC, rel_col=GRADE, duplicates=sent.options.duplicates
        )
    return evaluate_part(qrels, run, sent.options)


def edge_blocks(edges: Any) -> list[tuple[Any, int]]:
    """The edge rows cut into blocks of consecutive positions (one cut query's rows each,
    or several queries' that follow one another), each with its first position."""
    positions = edges.column(_POSITION).to_numpy()
    breaks = np.flatnonzero(np.diff(positions) != 1) + 1
    bounds = [0, *breaks.tolist(), len(positions)]
    return [
        (edges.slice(a, b - a).drop_columns([_POSITION]), int(positions[a]))
        for a, b in pairwise(bounds)
    ]
