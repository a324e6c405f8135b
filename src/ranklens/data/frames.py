"""Building qrels and runs from tables: pandas and polars DataFrames and pyarrow Tables,
through Arrow and without a row loop.

Arrow string columns (``string``, ``large_string``; pyarrow, polars, pandas'
``string[pyarrow]``) already hold the layout of ranklens' id columns (one byte buffer and
offsets), so their buffers are read directly, chunk by chunk; dictionary (categorical)
columns are decoded by gathering from their dictionary; integer id columns are written as
their decimal strings by the native core. pandas object-dtype id columns of ``str`` are
read by the native core from the objects in place (no Arrow conversion). A query column
is read run by run: only the first row of each run of equal ids is encoded and interned.
"""

from __future__ import annotations

import contextlib
import math
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from ranklens.base.errors import InputError
from ranklens.base.optional import require
from ranklens.base.types import Int64Array, UInt8Array
from ranklens.data.kinds import is_frame as is_frame  # (where the readers have had them)
from ranklens.data.kinds import refuse_lazy as refuse_lazy
from ranklens.data.memory import group_columns
from ranklens.data.native import core as _core

# a recommender's user_id / item_id (or user / item) columns are query and document ids
QID_NAMES = ("query_id", "qid", "q_id", "query", "user_id", "user")
DOC_NAMES = ("doc_id", "docid", "docno", "document_id", "doc", "item_id", "item")
REL_NAMES = ("relevance", "rel", "label", "judgment", "grade")
SCORE_NAMES = ("score", "sim", "similarity")

_SOURCE = "<DataFrame>"
_OBJECT = np.dtype(object)  # pandas' object dtype (its str and string dtypes are Arrow's)


def _pick(columns: list[str], wanted: str | None, names: tuple[str, ...], what: str) -> str:
    if wanted is not None:
        if wanted not in columns:
            raise InputError(f"table has no column '{wanted}' (columns: {columns})")
        return wanted
    for name in names:
        if name in columns:
            return name
    hint = (
        f"name one of {list(names)}, or give the column names to Qrels.from_frame(frame, "
        "qid_col=, doc_col=, rel_col=) or Run.from_frame(frame, qid_col=, doc_col=, "
        "score_col=) and pass that to ranklens.evaluate"
    )
    if "query-id" in columns and "corpus-id" in columns:  # BEIR's qrels
        hint = (
            "these are BEIR's qrels columns: rename them, frame.rename(columns={'query-id': "
            "'query_id', 'corpus-id': 'doc_id', 'score': 'relevance'}), or build "
            "Qrels.from_frame(frame, qid_col='query-id', doc_col='corpus-id', "
            "rel_col='score')"
        )
    raise InputError(f"table has no {what} column: {hint} (columns present: {columns})")


def column_names(frame: Any) -> list[str]:
    """The names of a pandas or polars DataFrame's or a pyarrow Table's columns (str)."""
    return _column_names(frame)


def _column_names(frame: Any) -> list[str]:
    module = type(frame).__module__.split(".")[0]
    if module in ("pandas", "polars"):
        return [str(c) for c in frame.columns]
    return [str(c) for c in frame.schema.names]


def _check_used(columns: list[str], used: list[str]) -> None:
    """Refuse a used column whose name the table gives to several columns."""
    for name in used:
        if columns.count(name) > 1:
            raise InputError(
                f"table has {columns.count(name)} columns named '{name}': rename or drop all "
                "but one",
                path=_SOURCE,
            )


def _polars_used(frame: Any, used: list[str], ids: set[str]) -> Any:
    """The used columns of a polars frame, 128-bit integers (which Arrow does not read)
    cast: ids to their decimal strings, values to int64 (an error if one does not fit)."""
    pl = require("polars", "Reading a polars DataFrame")
    wide = tuple(getattr(pl, kind) for kind in ("Int128", "UInt128") if hasattr(pl, kind))
    picked = frame.select(used)
    for name in used:
        if picked.schema[name] in wide:
            if name in ids:
                picked = picked.with_columns(pl.col(name).cast(pl.String))
                continue
            try:
                picked = picked.with_columns(pl.col(name).cast(pl.Int64, strict=True))
            except Exception:  # polars' InvalidOperationError: a value out of range
                raise InputError(
                    f"column '{name}' has a value that does not fit a 64-bit integer",
                    path=_SOURCE,
                ) from None
    return picked.to_arrow()


def _arrow_table(frame: Any, pa: Any, ids: set[str], used: list[str]) -> tuple[Any, dict[str, Any]]:
    """The ``used`` columns of the frame as a pyarrow Table (the others are not converted),
    and apart from it (pandas) the object-dtype columns named in ``ids``, as numpy object
    arrays: the native core reads their ``str`` objects where they are, which is several
    times faster than Arrow's conversion."""
    module = type(frame).__module__.split(".")[0]
    _check_used(_column_names(frame), used)
    if module == "polars":
        return _polars_used(frame, used, ids), {}
    if module == "pandas":
        objects: dict[str, Any] = {}
        keep: list[int] = []
        for position, (label, dtype) in enumerate(frame.dtypes.items()):
            name = str(label)
            if name not in used or name in objects or position in keep:
                continue
            if getattr(dtype, "kind", "") == "c":
                raise InputError(
                    f"column '{name}' holds complex numbers ({dtype}): values must be real",
                    path=_SOURCE,
                )
            native = isinstance(dtype, np.dtype) and dtype == _OBJECT
            if native and name in ids:
                objects[name] = frame.iloc[:, position].to_numpy()
            else:
                keep.append(position)
        rest = frame.iloc[:, keep]
        rest.columns = [str(c) for c in rest.columns]
        try:
            return pa.Table.from_pandas(rest, preserve_index=False), objects
        except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError) as exc:
            raise InputError(
                f"a column cannot be read ({exc}); ids must be strings, categoricals or "
                "integers, values numbers",
                path=_SOURCE,
            ) from None
    if type(frame).__name__ == "RecordBatch":
        return pa.Table.from_batches([frame]).select(used), {}
    return frame.select(used), {}


def _encoded_objects(
    values: Any, name: str, runs: bool
) -> tuple[UInt8Array, Int64Array, Int64Array | None] | None:
    """An object column of ``str`` as a string column (with ``runs``, its runs' first
    rows and those rows); None when it holds anything else (missing values, numbers):
    Arrow's conversion then decides, as for any other column."""
    try:
        data, offsets, heads, bad = _core.encode_objects(values, runs)
    except UnicodeEncodeError as exc:
        raise InputError(
            f"column '{name}' holds a string that is not valid UTF-8 ({exc.reason})",
            path=_SOURCE,
        ) from None
    return None if bad >= 0 else (data, offsets, heads)


def _arrow_column(values: Any, name: str, pa: Any) -> Any:
    try:
        return pa.chunked_array([pa.array(values, from_pandas=True)])
    except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
        raise InputError(
            f"column '{name}' mixes types Arrow cannot read as one ({exc}); ids must be "
            "strings or integers: convert it with .astype(str)",
            path=_SOURCE,
        ) from None


def _interned(data: UInt8Array, offsets: Int64Array) -> tuple[Int64Array, list[bytes]]:
    """Each string's code, and the distinct strings (as bytes) in order of first
    appearance, which the codes index."""
    codes, first = _core.intern_strings(data, offsets)
    starts, stops = offsets[first].tolist(), offsets[first + 1].tolist()
    return codes, [data[a:b].tobytes() for a, b in zip(starts, stops, strict=True)]


def _codes_of_runs(
    data: UInt8Array, offsets: Int64Array, heads: Int64Array, rows: int
) -> tuple[Int64Array, list[str]]:
    """Each row's code from the ids of the runs' first rows (``heads``), and the distinct
    ids in order of first appearance."""
    head_codes, words = _interned(data, offsets)
    ends = np.empty(len(heads), dtype=np.int64)
    ends[:-1] = heads[1:]
    ends[-1:] = rows
    codes = _core.ranges(head_codes, ends - heads, 0)  # each run's code, repeated
    return codes, [w.decode("utf-8") for w in words]


def _integer_codes(ints: Int64Array) -> tuple[Int64Array, list[str]]:
    """Each row's code for an integer query column, and the distinct ids as ``str(v)``
    in order of first appearance (what :func:`_codes_of_runs` gives from their decimal
    text): the runs' first values made distinct by a sort of the integers, and only the
    distinct ones written, by Python's ``str`` (a 100M-row run's million users: about
    0.5 s less than their text interned and decoded one by one, 2026-11-27)."""
    if ints.shape[0] == 0:
        return np.zeros(0, dtype=np.int64), []
    heads = np.flatnonzero(np.concatenate([[True], ints[1:] != ints[:-1]]))
    distinct, first, inverse = np.unique(ints[heads], return_index=True, return_inverse=True)
    by_appearance = np.argsort(first, kind="stable")
    code_of = np.empty(distinct.shape[0], dtype=np.int64)
    code_of[by_appearance] = np.arange(distinct.shape[0], dtype=np.int64)
    ends = np.empty(heads.shape[0], dtype=np.int64)
    ends[:-1] = heads[1:]
    ends[-1:] = ints.shape[0]
    codes = _core.ranges(code_of[inverse.reshape(-1)], ends - heads, 0)  # each run's code
    return codes, list(map(str, distinct[by_appearance].tolist()))


def _integers(column: Any, pa: Any, pc: Any) -> Int64Array | None:
    """An integer column's values as int64 (None for uint64 values above int64's range)."""
    if pa.types.is_uint64(column.type):
        big = pc.max(column).as_py()
        if big is not None and big >= 2**63:
            return None
    return _joined(column.chunks, len(column), "int64")


def _joined(chunks: Any, rows: int, kind: Literal["int64", "float64"]) -> np.ndarray:
    """Arrow numeric chunks (no nulls) as one int64 or float64 array, copied once into an
    array of the native core's allocator (see memory.taken)."""
    out: np.ndarray = _core.empty(rows, kind)
    at = 0
    for chunk in chunks:
        part = chunk.to_numpy(zero_copy_only=False)
        out[at : at + len(part)] = part
        at += len(part)
    return out


def _first_null(column: Any, pc: Any) -> int:
    return int(pc.index(pc.is_null(column), True).as_py())


def _check_dictionary_nulls(column: Any, name: str, pa: Any, pc: Any) -> None:
    """Refuse a dictionary column with a null in its dictionary that a row uses (Arrow's
    ``dictionary_encode(null_encoding="encode")``: the column's ``null_count`` is 0, the
    missing value is a dictionary entry)."""
    row = 0
    for chunk in column.chunks:
        words = chunk.dictionary
        if words.null_count:
            nulls = words.is_null().to_numpy(zero_copy_only=False)
            missing = pa.array(np.flatnonzero(nulls), chunk.indices.type)
            hit = pc.is_in(chunk.indices, value_set=missing)
            at = pc.index(hit, True).as_py()
            if at is not None and at >= 0:
                raise InputError(
                    f"column '{name}' has a missing value", path=_SOURCE, line=row + int(at)
                )
        row += len(chunk)


def _string_buffers(chunk: Any, pa: Any) -> tuple[UInt8Array, Int64Array]:
    """The bytes and int64 offsets (from 0) of a ``string``/``large_string`` array."""
    wide = pa.types.is_large_string(chunk.type)
    _, offsets_buf, data_buf = chunk.buffers()
    n = len(chunk)
    if offsets_buf is None or n == 0:
        return np.zeros(0, np.uint8), np.zeros(n + 1, np.int64)
    raw = np.frombuffer(offsets_buf, dtype=np.int64 if wide else np.int32)
    window = raw[chunk.offset : chunk.offset + n + 1]
    start, stop = int(window[0]), int(window[-1])
    # large_string offsets from 0 are used as they are (the Arrow buffer, read-only)
    offsets: Int64Array = (
        window.view(np.int64) if wide and start == 0 else window.astype(np.int64) - start
    )
    if data_buf is None:
        return np.zeros(0, np.uint8), offsets
    return np.frombuffer(data_buf, dtype=np.uint8)[start:stop], offsets


def _chunk_strings(chunk: Any, name: str, pa: Any, pc: Any) -> tuple[UInt8Array, Int64Array]:
    kind = chunk.type
    if pa.types.is_dictionary(kind):
        words, word_offsets = _chunk_strings(chunk.dictionary, name, pa, pc)
        index = np.asarray(chunk.indices.to_numpy(zero_copy_only=False), dtype=np.int64)
        return _core.take_strings(words, word_offsets, index)
    if pa.types.is_string(kind) or pa.types.is_large_string(kind):
        return _string_buffers(chunk, pa)
    if pa.types.is_integer(kind):
        ints = _integers(pa.chunked_array([chunk]), pa, pc)
        if ints is not None:
            return _core.decimal_strings(ints)
    if pa.types.is_integer(kind) or pa.types.is_string_view(kind):
        return _string_buffers(pc.cast(chunk, pa.large_string()), pa)
    raise InputError(
        f"column '{name}' holds {kind}: ids must be strings, categoricals or integers",
        path=_SOURCE,
    )


def _strings(column: Any, name: str, pa: Any, pc: Any) -> tuple[UInt8Array, Int64Array]:
    """A string column of the table (any chunking) as one byte buffer and int64 offsets:
    the buffers of a single chunk as they are, several chunks copied once into place."""
    if column.null_count:
        raise InputError(
            f"column '{name}' has a missing value", path=_SOURCE, line=_first_null(column, pc)
        )
    if pa.types.is_dictionary(column.type):
        _check_dictionary_nulls(column, name, pa, pc)
    if column.num_chunks > 1 and pa.types.is_integer(column.type):
        ints = _integers(column, pa, pc)
        if ints is not None:  # the integers joined once, written out in one call
            return _core.decimal_strings(ints)
    parts = [_chunk_strings(chunk, name, pa, pc) for chunk in column.chunks]
    if len(parts) == 1:
        return parts[0]
    rows = sum(o.shape[0] - 1 for _, o in parts)
    size = sum(d.shape[0] for d, _ in parts)
    data = _core.empty(size, "uint8")  # the native allocator: see memory.taken
    offsets = _core.empty(rows + 1, "int64")
    offsets[0] = 0
    row = at = 0
    for chunk_data, chunk_offsets in parts:
        count = chunk_offsets.shape[0] - 1
        data[at : at + chunk_data.shape[0]] = chunk_data
        np.add(chunk_offsets[1:], at, out=offsets[row + 1 : row + 1 + count])
        row += count
        at += chunk_data.shape[0]
    return data, offsets


def _query_codes(column: Any, name: str, pa: Any, pc: Any) -> tuple[Int64Array, list[str], bool]:
    """Each row's query as a code into a list of distinct query ids, and whether every id
    of that list is used (a categorical's dictionary may hold unused ones)."""
    if column.null_count:
        raise InputError(
            f"column '{name}' has a missing value", path=_SOURCE, line=_first_null(column, pc)
        )
    if pa.types.is_dictionary(column.type):
        _check_dictionary_nulls(column, name, pa, pc)
        column = column.unify_dictionaries()
        words = column.chunk(0).dictionary if column.num_chunks else pa.array([], pa.string())
        if not (pa.types.is_string(words.type) or pa.types.is_large_string(words.type)):
            words = pc.cast(words, pa.large_string())
        codes = _joined([c.indices for c in column.chunks], len(column), "int64")
        return codes, [str(w) for w in words.to_pylist()], False
    if pa.types.is_integer(column.type):
        ints = _integers(column, pa, pc)
        if ints is not None:  # only the first row of each run is read
            return (*_integer_codes(ints), True)
    # Chunk by chunk: each chunk's ids are interned where they lie (no copy of the column
    # into one buffer), and the chunks' few distinct ids are merged in order of appearance.
    codes = _core.empty(len(column), "int64")
    code_of: dict[bytes, int] = {}
    row = 0
    for chunk in column.chunks:
        local, words = _interned(*_chunk_strings(chunk, name, pa, pc))
        remap = np.array([code_of.setdefault(w, len(code_of)) for w in words], dtype=np.int64)
        np.take(remap, local, out=codes[row : row + len(local)])
        row += len(local)
    return codes, [w.decode("utf-8") for w in code_of], True


def _id_columns(
    table: Any, objects: dict[str, Any], name: str, query: bool, pa: Any, pc: Any
) -> Any:
    """The query column as ``(codes, uniques, all_used)``, or the document column as
    ``(data, offsets)``, from an object array of ``str`` or from the table."""
    if name in objects:
        values = objects[name]
        encoded = _encoded_objects(values, name, query)
        if encoded is not None:
            data, offsets, heads = encoded
            if heads is None:  # the document column: not read by runs
                return data, offsets
            return (*_codes_of_runs(data, offsets, heads, len(values)), True)
        column = _arrow_column(values, name, pa)
    else:
        column = table.column(name)
    if query:
        return _query_codes(column, name, pa, pc)
    return _strings(column, name, pa, pc)


def from_frame(
    frame: Any,
    integer: bool,
    qid_col: str | None = None,
    doc_col: str | None = None,
    value_col: str | None = None,
    *,
    source: str = _SOURCE,
    first_row: int = 0,
    extra_ids: tuple[str, ...] = (),
) -> dict[str, Any]:
    """Columns from a pandas (2 or 3) or polars DataFrame or a pyarrow Table.

    Id columns may hold strings, categoricals or integers (written as decimal strings); the
    value column must be numeric without missing values. Only the columns read are
    converted (another column may hold anything). Messages name ``source`` and a row,
    counted from ``first_row`` (0 for a DataFrame, 1 for a Parquet file). A run's ``rank``
    column, if there is one, becomes ``ranks`` (for ``ties="rank"``). The id columns named
    in ``extra_ids`` are read too, in row order, as ``extra`` (``{name: (data, offsets)}``).
    """
    try:
        return _from_frame(
            frame, integer, qid_col, doc_col, value_col, first_row, extra_ids, source
        )
    except InputError as exc:
        if exc.path not in (_SOURCE, None) or (source == _SOURCE and not first_row):
            raise
        line = None if exc.line is None else exc.line + first_row
        raise type(exc)(exc.message, path=source, line=line) from None


def _from_frame(
    frame: Any,
    integer: bool,
    qid_col: str | None,
    doc_col: str | None,
    value_col: str | None,
    first_row: int,
    extra_ids: tuple[str, ...],
    source: str,
) -> dict[str, Any]:
    pa = require("pyarrow", "Reading a DataFrame")
    pc = require("pyarrow.compute", "Reading a DataFrame")
    columns = _column_names(frame)
    values_names = REL_NAMES if integer else SCORE_NAMES
    qname = _pick(columns, qid_col, QID_NAMES, "query id")
    dname = _pick(columns, doc_col, DOC_NAMES, "document id")
    vname = _pick(columns, value_col, values_names, "relevance" if integer else "score")
    used = list(dict.fromkeys([qname, dname, vname, *extra_ids]))
    if not integer and RANK_COLUMN in columns and RANK_COLUMN not in used:
        used.append(RANK_COLUMN)
    table, objects = _arrow_table(frame, pa, {qname, dname, *extra_ids}, used)
    extra = {name: _id_columns(table, objects, name, False, pa, pc) for name in extra_ids}

    codes, uniques, all_used = _id_columns(table, objects, qname, True, pa, pc)
    doc_data, doc_offsets = _id_columns(table, objects, dname, False, pa, pc)
    values_col = table.column(vname)
    if values_col.null_count:
        raise InputError(
            f"column '{vname}' has a missing value",
            path=_SOURCE,
            line=_first_null(values_col, pc),
        )
    if not (pa.types.is_integer(values_col.type) or pa.types.is_floating(values_col.type)):
        raise InputError(f"column '{vname}' must be numeric, not {values_col.type}", path=_SOURCE)
    exact = integer and pa.types.is_integer(values_col.type)
    if exact and pa.types.is_uint64(values_col.type):
        big = pc.max(values_col).as_py()
        if big is not None and big >= 2**63:
            raise InputError(
                f"column '{vname}' value {big} does not fit a 64-bit integer", path=_SOURCE
            )
    values = _joined(values_col.chunks, len(values_col), "int64" if exact else "float64")
    if exact:
        return _with_ranks(
            group_columns(
                codes,
                uniques,
                doc_data,
                doc_offsets,
                values,
                first_row,
                source,
                all_used=all_used,
            ),
            table,
            integer,
            first_row,
        ) | ({"extra": extra} if extra_ids else {})
    with np.errstate(over="ignore", invalid="ignore"):  # huge values: the sum overflows
        total = float(np.add.reduce(values))
    if not integer and math.isfinite(total):
        bad = np.zeros(0, dtype=bool)  # a finite sum: every value is finite, no mask needed
    else:
        finite = np.isfinite(values)
        bad = ~finite if not integer else (values != np.trunc(values)) | ~finite
    if integer and not bad.any():
        bad = (values < -(2.0**63)) | (values >= 2.0**63)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        what = "an integer" if integer else "a finite number"
        if integer and np.isfinite(values[row]) and values[row] == np.trunc(values[row]):
            what = "an integer that fits 64 bits"
        raise InputError(
            f"column '{vname}' value {values[row]!r} is not {what}", path=_SOURCE, line=row
        )
    typed = values.astype(np.int64) if integer else values
    return _with_ranks(
        group_columns(
            codes, uniques, doc_data, doc_offsets, typed, first_row, source, all_used=all_used
        ),
        table,
        integer,
        first_row,
    ) | ({"extra": extra} if extra_ids else {})


RANK_COLUMN = "rank"
_NO_RANK = -(2**63)


@dataclass(frozen=True, eq=False)
class TableRanks:
    """A run's rank column from a table's ``rank`` column, converted when it is first
    needed (``ties="rank"``; see :class:`ranklens.data.run.RankColumn`): ``-2**63`` where
    a value is missing or not an integer, as for a TREC file.

    Attributes
    ----------
    column : the table's ``rank`` column (Arrow).
    lines, first_row : each entry's row of the table is its line less ``first_row``.
    """

    column: Any
    lines: Int64Array
    first_row: int

    def load(self) -> Int64Array:
        """The rank of each entry (grouped order)."""
        pc = require("pyarrow.compute", "Reading a DataFrame")
        values = np.full(len(self.column), float("nan"))  # not numbers: every rank missing
        with contextlib.suppress(ValueError, TypeError, NotImplementedError):
            values = np.asarray(
                pc.fill_null(pc.cast(self.column, "float64"), float("nan")).to_numpy(),
                np.float64,
            )
        ok = np.isfinite(values) & (values == np.trunc(values)) & (np.abs(values) < 2.0**53)
        ranks = np.where(ok, np.where(ok, values, 0).astype(np.int64), np.int64(_NO_RANK))
        if not len(self.lines):
            return np.zeros(0, np.int64)
        out: Int64Array = ranks[self.lines - self.first_row]
        return out

    def subset(self, keep: Int64Array) -> TableRanks:
        """The column of the entries ``keep``."""
        return TableRanks(self.column, self.lines[keep], self.first_row)


def _with_ranks(
    columns: dict[str, Any], table: Any, integer: bool, first_row: int = 0
) -> dict[str, Any]:
    """A run's columns with ``ranks`` from the table's ``rank`` column, if it has one,
    converted when first needed (:class:`TableRanks`)."""
    if integer or RANK_COLUMN not in [str(c) for c in table.column_names]:
        return columns
    return {**columns, "ranks": TableRanks(table.column(RANK_COLUMN), columns["lines"], first_row)}
