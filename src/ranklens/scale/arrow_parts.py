"""Arrow rows of whole queries in, a :class:`~ranklens.evaluation.parts.Part` out: what a
Dask partition runs, without a Python object per row.

A distributed table is first put into the shape :func:`prepared` returns (per input
partition): the query and document ids as Arrow ``large_string`` (categories decoded,
integers as their decimal digits, missing ids kept missing for the reader to refuse), the
value as ``int64`` or ``float64``, :data:`~ranklens.scale.partition.ROW` (the row's place in
the input: ``partition << 40 | position``, so sorting on it restores the input order)
and :data:`KEY`, a hash of the query id that is the same in every process (pandas'
SipHash with its fixed key, on each distinct id of the partition), on which both tables are
hash-partitioned. :func:`evaluate_tables` then reads a part's rows with the native Arrow
readers (:meth:`Qrels.from_frame <ranklens.Qrels.from_frame>` on a ``pyarrow.Table``) in
their input order and evaluates them with :func:`~ranklens.scale.partition.evaluate_part`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any, Literal

import numpy as np

from ranklens.base.errors import DuplicateError, InputError
from ranklens.base.optional import require
from ranklens.data.frames import RANK_COLUMN
from ranklens.data.qrels import Qrels
from ranklens.data.run import Run
from ranklens.evaluation.parts import Part
from ranklens.scale.partition import DOC, QUERY, ROW, VALUE, Options, evaluate_part

KEY = "_key"
"""A 63-bit hash of the query id (the same for a query in every table and process)."""

SHIFT = 40
""":data:`ROW` is ``input partition << SHIFT | position in that partition``."""

ValueKind = Literal["int64", "float64"]


def value_kind(dtype: Any, integer: bool) -> ValueKind:
    """The value column's type in the prepared rows: ``int64`` for integer qrels grades (as
    the in-memory reader keeps them), ``float64`` otherwise (scores; and grades given as
    floats, which the reader checks are integers)."""
    if not integer:
        return "float64"
    kind = getattr(dtype, "kind", "")
    pa_type = getattr(dtype, "pyarrow_dtype", None)
    if pa_type is not None:
        pa = require("pyarrow", "ranklens.dask")
        return "int64" if pa.types.is_integer(pa_type) else "float64"
    return "int64" if kind in "iu" else "float64"


def arrow_ids(column: Any, name: str, side: str) -> Any:
    """An id column (a pyarrow ChunkedArray) as ``large_string``: strings as they are,
    categories decoded, integers as their decimal digits (as ranklens reads them in
    memory); missing ids stay missing (the reader refuses them, naming the row).

    Raises
    ------
    InputError
        The column holds another type (floats, dates ...), as the in-memory reader says.
    """
    pa = require("pyarrow", "ranklens.dask")
    pc = require("pyarrow.compute", "ranklens.dask")
    chunks = []
    for chunk in column.chunks:
        if pa.types.is_dictionary(chunk.type):
            chunk = chunk.dictionary_decode()
        kind = chunk.type
        ok = (
            pa.types.is_string(kind)
            or pa.types.is_large_string(kind)
            or pa.types.is_string_view(kind)
            or pa.types.is_integer(kind)
            or pa.types.is_null(kind)
        )
        if not ok:
            raise InputError(
                f"column '{name}' holds {kind}: ids must be strings, categoricals or integers",
                path=side,
            )
        chunks.append(pc.cast(chunk, pa.large_string()))
    return pa.chunked_array(chunks, pa.large_string())


def query_keys(ids: Any) -> Any:
    """Each row's :data:`KEY`: pandas' SipHash (a fixed key, so every process agrees) of
    its query id, computed once per distinct id; 0 for a missing id. Rows grouped by query
    (a run as written) are hashed once per group: the first id of each stretch of equal
    ids, repeated over the stretch."""
    pa = require("pyarrow", "ranklens.dask")
    pc = require("pyarrow.compute", "ranklens.dask")
    rows = len(ids)
    if rows > 1:
        flat = ids.combine_chunks() if isinstance(ids, pa.ChunkedArray) else ids
        changed = pc.fill_null(pc.not_equal(flat[1:], flat[:-1]), True)
        heads = np.flatnonzero(
            np.concatenate(([True], np.asarray(changed.to_numpy(zero_copy_only=False), bool)))
        )
        if len(heads) * 8 < rows:
            lengths = np.diff(np.append(heads, rows))
            return np.repeat(_distinct_keys(flat.take(pa.array(heads))), lengths)
    return _distinct_keys(ids)


def _distinct_keys(ids: Any) -> Any:
    """:func:`query_keys` by dictionary: each distinct id hashed once."""
    pa = require("pyarrow", "ranklens.dask")
    pc = require("pyarrow.compute", "ranklens.dask")
    pd = require("pandas", "ranklens.dask")
    encoded = pc.dictionary_encode(ids)
    if isinstance(encoded, pa.ChunkedArray):
        encoded = encoded.combine_chunks()
    words = encoded.dictionary.to_numpy(zero_copy_only=False).astype(object)
    hashes = pd.util.hash_array(words, categorize=False).astype(np.uint64) >> np.uint64(1)
    table = np.concatenate([hashes.astype(np.int64), np.zeros(1, np.int64)])
    index = pc.fill_null(encoded.indices, pa.scalar(len(words), encoded.indices.type))
    return table[np.asarray(index.to_numpy(zero_copy_only=False), dtype=np.int64)]


def _values(column: Any, name: str, side: str, kind: ValueKind) -> Any:
    """The value column as a numpy array of ``kind``, refusing what the in-memory reader
    refuses (a missing value, a non-numeric column, a uint64 beyond int64)."""
    pa = require("pyarrow", "ranklens.dask")
    pc = require("pyarrow.compute", "ranklens.dask")
    if pa.types.is_dictionary(column.type):
        column = pa.chunked_array([c.dictionary_decode() for c in column.chunks])
    if column.null_count:
        at = int(pc.index(pc.is_null(column), True).as_py())
        raise InputError(f"column '{name}' has a missing value", path=side, line=at)
    if not (pa.types.is_integer(column.type) or pa.types.is_floating(column.type)):
        if pa.types.is_null(column.type):  # no rows
            return np.zeros(len(column), dtype=kind)
        raise InputError(f"column '{name}' must be numeric, not {column.type}", path=side)
    if kind == "int64" and pa.types.is_uint64(column.type):
        big = pc.max(column).as_py()
        if big is not None and big >= 2**63:
            raise InputError(
                f"column '{name}' value {big} does not fit a 64-bit integer", path=side
            )
    if kind == "int64" and not pa.types.is_integer(column.type):
        raise InputError(f"column '{name}' changed type between partitions", path=side)
    return np.asarray(column.to_numpy(), dtype=kind)


def _ranks(column: Any) -> Any:
    """A run's ``rank`` column as ``float64`` (missing, or not a number: NaN), the values
    the in-memory reader turns into ranks (a NaN becomes a rank that ``ties="rank"``
    refuses, naming the row)."""
    pc = require("pyarrow.compute", "ranklens.dask")
    try:
        return np.asarray(
            pc.fill_null(pc.cast(column, "float64"), float("nan")).to_numpy(), np.float64
        )
    except (ValueError, TypeError, NotImplementedError):
        return np.full(len(column), float("nan"))


def prepared_table(
    frame: Any,
    columns: tuple[str, str, str],
    side: str,
    kind: ValueKind,
    number: int,
    rank: bool = False,
) -> Any:
    """One input partition (a pandas DataFrame with any id and value dtypes, or a pyarrow
    Table) as a pyarrow Table of the rows the backends partition and evaluate:
    :data:`QUERY` and :data:`DOC` as ``large_string``, :data:`VALUE` as ``kind``,
    :data:`ROW` as int64 and, with ``rank`` (a run evaluated with ``ties="rank"``), the
    run's ``rank`` column as ``float64`` when it has one. Errors name the row as
    :data:`ROW` (see :func:`decode_row`)."""
    pa = require("pyarrow", "ranklens.dask")
    q, d, v = columns
    names = [str(c) for c in (frame.column_names if isinstance(frame, pa.Table) else frame.columns)]
    keep_rank = rank and RANK_COLUMN in names and RANK_COLUMN not in columns
    wanted = list(dict.fromkeys([*columns, *([RANK_COLUMN] if keep_rank else [])]))
    if isinstance(frame, pa.Table):
        table = frame.select(wanted)
    else:
        try:
            table = pa.Table.from_pandas(frame[wanted], preserve_index=False)
        except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError) as exc:
            raise InputError(
                f"a column cannot be read ({exc}); ids must be strings, categoricals or "
                "integers, values numbers",
                path=side,
            ) from None
    base = number << SHIFT
    try:
        qids = arrow_ids(table.column(q), q, side)
        docs = arrow_ids(table.column(d), d, side)
        values = _values(table.column(v), v, side, kind)
    except InputError as exc:
        line = None if exc.line is None else base + exc.line
        raise InputError(exc.message, path=side, line=line) from None
    out = {
        QUERY: qids,
        DOC: docs,
        VALUE: values,
        ROW: np.arange(base, base + table.num_rows, dtype=np.int64),
    }
    if keep_rank:
        out[RANK_COLUMN] = _ranks(table.column(RANK_COLUMN))
    return pa.table(out)


def prepared(
    frame: Any,
    columns: tuple[str, str, str],
    side: str,
    kind: ValueKind,
    number: int,
    rank: bool = False,
) -> Any:
    """:func:`prepared_table` as a pandas DataFrame (ids as ``pd.ArrowDtype``) with
    :data:`KEY` added: the rows Dask's own shuffle partitions (``shuffle(on=KEY)``)."""
    pa = require("pyarrow", "ranklens.dask")
    pd = require("pandas", "ranklens.dask")
    table = prepared_table(frame, columns, side, kind, number, rank)
    string = pd.ArrowDtype(pa.large_string())
    out = {
        QUERY: pd.Series(pd.arrays.ArrowExtensionArray(table.column(QUERY)), dtype=string),
        DOC: pd.Series(pd.arrays.ArrowExtensionArray(table.column(DOC)), dtype=string),
        VALUE: table.column(VALUE).to_numpy(),
        ROW: table.column(ROW).to_numpy(),
        KEY: query_keys(table.column(QUERY)),
    }
    if RANK_COLUMN in table.column_names:
        out[RANK_COLUMN] = table.column(RANK_COLUMN).to_numpy()
    return pd.DataFrame(out)


def split_table(table: Any, parts: int) -> list[Any]:
    """A :func:`prepared_table`'s rows hash-partitioned by query: ``parts`` pyarrow Tables,
    the ``i``-th holding the rows whose :data:`KEY` is ``i`` modulo ``parts`` (the same
    queries in every table and process), each in the input order. One ``take`` per part,
    so that each holds its own buffers: a slice would keep (and Dask's ``sizeof`` would
    count, making the workers spill) the whole partition's buffers."""
    if parts == 1:
        return [table]
    buckets = query_keys(table.column(QUERY)) % np.int64(parts)
    if parts <= np.iinfo(np.int16).max:  # a radix sort
        buckets = buckets.astype(np.int16)
    order = np.argsort(buckets, kind="stable")
    ends = np.cumsum(np.bincount(buckets, minlength=parts)).tolist()
    return [table.take(order[a:b]) for a, b in zip([0, *ends[:-1]], ends, strict=True)]


def empty_prepared(kind: ValueKind, rank: bool = False) -> Any:
    """The (empty) frame :func:`prepared` returns: the Dask ``meta`` (with ``rank``, the
    run's ``rank`` column too)."""
    pa = require("pyarrow", "ranklens.dask")
    pd = require("pandas", "ranklens.dask")
    string = pd.ArrowDtype(pa.large_string())
    columns = {
        QUERY: pd.Series([], dtype=string),
        DOC: pd.Series([], dtype=string),
        VALUE: np.zeros(0, dtype=kind),
        ROW: np.zeros(0, dtype=np.int64),
        KEY: np.zeros(0, dtype=np.int64),
    }
    if rank:
        columns[RANK_COLUMN] = np.zeros(0, dtype=np.float64)
    return pd.DataFrame(columns)


def decode_row(row: int, first: Sequence[int]) -> int:
    """A :data:`ROW` value as the row's position in the whole input (``first[p]``: the
    rows before input partition ``p``)."""
    return int(first[row >> SHIFT]) + (row & ((1 << SHIFT) - 1))


def _arrow(frames: Iterable[Any]) -> Any:
    """Prepared rows (pandas frames of :func:`prepared` or pyarrow Tables of
    :func:`prepared_table`) as one pyarrow Table in input order (None when empty)."""
    pa = require("pyarrow", "ranklens.dask")
    pc = require("pyarrow.compute", "ranklens.dask")
    tables = [
        f if isinstance(f, pa.Table) else _from_prepared(f, pa)
        for f in frames
        if f is not None and len(f)
    ]
    if not tables:
        return None
    table = tables[0] if len(tables) == 1 else pa.concat_tables(tables)
    order = pc.sort_indices(table.column(ROW))
    rows = np.asarray(table.column(ROW).to_numpy())
    if len(rows) < 2 or bool(np.all(rows[1:] > rows[:-1])):
        return table
    return table.take(order)


def _from_prepared(frame: Any, pa: Any) -> Any:
    """A :func:`prepared` pandas frame as a pyarrow Table, without :data:`KEY`."""
    names = [QUERY, DOC, VALUE, ROW, *([RANK_COLUMN] if RANK_COLUMN in frame.columns else [])]
    return pa.Table.from_pandas(frame[names], preserve_index=False)


def _read(table: Any, side: str, build: Any) -> Any:
    """``build(table)``, an :class:`InputError` naming its row by :data:`ROW` and its path
    ``side``."""
    try:
        return build(table)
    except InputError as exc:
        if exc.path not in (None, "<DataFrame>"):
            raise
        rows = table.column(ROW)

        def whole(at: int) -> int:
            return int(rows[at].as_py())

        if isinstance(exc, DuplicateError) and exc.lines is not None:
            first, second = (whole(r) for r in exc.lines)
            message = exc.message.replace(
                f"rows {exc.lines[0]} and {exc.lines[1]}", f"rows {first} and {second}"
            )
            raise DuplicateError(
                message, path=side, lines=(first, second), query=exc.query, document=exc.document
            ) from None
        line = None if exc.line is None else whole(exc.line)
        message = re.sub(  # ties="rank": "duplicate rank ... (rows a and b)"
            r"\brows (\d+) and (\d+)",
            lambda m: f"rows {whole(int(m.group(1)))} and {whole(int(m.group(2)))}",
            exc.message,
        )
        raise type(exc)(message, path=side, line=line) from None


def _built(
    q_table: Any, r_table: Any, options: Options, sides: tuple[str, str]
) -> tuple[Qrels | None, Run | None]:
    q = None
    if q_table is not None:
        q = _read(
            q_table,
            sides[0],
            lambda t: Qrels.from_frame(
                t, qid_col=QUERY, doc_col=DOC, rel_col=VALUE, duplicates=options.duplicates
            ),
        )
    r = None
    if r_table is not None:
        r = _read(
            r_table,
            sides[1],
            lambda t: Run.from_frame(
                t, qid_col=QUERY, doc_col=DOC, score_col=VALUE, duplicates=options.duplicates
            ),
        )
    return q, r


def evaluate_tables(
    qrels: Iterable[Any], run: Iterable[Any], options: Options, sides: tuple[str, str]
) -> Part:
    """Evaluate prepared frames holding whole queries (either side possibly empty); an
    error in the run's ranks (``ties="rank"``) names its rows by :data:`ROW`."""
    q_table, r_table = _arrow(qrels), _arrow(run)
    q, r = _built(q_table, r_table, options, sides)
    if r_table is None:
        return evaluate_part(q, r, options)
    part: Part = _read(r_table, sides[1], lambda _: evaluate_part(q, r, options))
    return part


def grade_of_tables(
    qrels: Iterable[Any], run: Iterable[Any], queries: str, sides: tuple[str, str]
) -> int:
    """The highest grade (>= 0) among the judgments of the queries these frames evaluate
    (ERR's default ``g_max`` is the maximum over the parts)."""
    pc = require("pyarrow.compute", "ranklens.dask")
    q_table, r_table = _arrow(qrels), _arrow(run)
    if q_table is None:
        return 0
    values = q_table.column(VALUE)
    if queries != "qrels":
        if r_table is None:
            return 0
        mask = pc.is_in(q_table.column(QUERY), value_set=pc.unique(r_table.column(QUERY)))
        values = pc.filter(values, mask)
    top = pc.max(values).as_py() if len(values) else None
    return max(int(top) if top is not None else 0, 0)
