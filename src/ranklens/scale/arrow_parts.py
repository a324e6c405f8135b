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

from collections.abc import Iterable, Sequence
from typing import Any, Literal

import numpy as np

from ranklens.base.errors import DuplicateError, InputError
from ranklens.base.optional import require
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
    its query id, computed once per distinct id; 0 for a missing id."""
    pa = require("pyarrow", "ranklens.dask")
    pc = require("pyarrow.compute", "ranklens.dask")
    pd = require("pandas", "ranklens.dask")
    encoded = pc.dictionary_encode(ids).combine_chunks()
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


def prepared(
    frame: Any,
    columns: tuple[str, str, str],
    side: str,
    kind: ValueKind,
    number: int,
) -> Any:
    """One input partition (pandas, any id and value dtypes) as the rows the backends
    partition and evaluate: :data:`QUERY` and :data:`DOC` as Arrow ``large_string``
    (``pd.ArrowDtype``), :data:`VALUE` as ``kind``, :data:`ROW` and :data:`KEY` as int64.
    Errors name the row as :data:`ROW` (see :func:`decode_row`)."""
    pa = require("pyarrow", "ranklens.dask")
    pd = require("pandas", "ranklens.dask")
    q, d, v = columns
    picked = frame[list(dict.fromkeys(columns))]
    try:
        table = pa.Table.from_pandas(picked, preserve_index=False)
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
    rows = np.arange(base, base + len(picked), dtype=np.int64)
    string = pd.ArrowDtype(pa.large_string())
    return pd.DataFrame(
        {
            QUERY: pd.Series(pd.arrays.ArrowExtensionArray(qids), dtype=string),
            DOC: pd.Series(pd.arrays.ArrowExtensionArray(docs), dtype=string),
            VALUE: values,
            ROW: rows,
            KEY: query_keys(qids),
        }
    )


def empty_prepared(kind: ValueKind) -> Any:
    """The (empty) frame :func:`prepared` returns: the Dask ``meta``."""
    pa = require("pyarrow", "ranklens.dask")
    pd = require("pandas", "ranklens.dask")
    string = pd.ArrowDtype(pa.large_string())
    return pd.DataFrame(
        {
            QUERY: pd.Series([], dtype=string),
            DOC: pd.Series([], dtype=string),
            VALUE: np.zeros(0, dtype=kind),
            ROW: np.zeros(0, dtype=np.int64),
            KEY: np.zeros(0, dtype=np.int64),
        }
    )


def decode_row(row: int, first: Sequence[int]) -> int:
    """A :data:`ROW` value as the row's position in the whole input (``first[p]``: the
    rows before input partition ``p``)."""
    return int(first[row >> SHIFT]) + (row & ((1 << SHIFT) - 1))


def _arrow(frames: Iterable[Any]) -> Any:
    """Prepared pandas frames as one pyarrow Table in input order (None when empty)."""
    pa = require("pyarrow", "ranklens.dask")
    pc = require("pyarrow.compute", "ranklens.dask")
    tables = [
        pa.Table.from_pandas(f[[QUERY, DOC, VALUE, ROW]], preserve_index=False)
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
        raise type(exc)(exc.message, path=side, line=line) from None


def read_tables(
    qrels: Iterable[Any], run: Iterable[Any], options: Options, sides: tuple[str, str]
) -> tuple[Qrels | None, Run | None]:
    """The qrels and run of prepared frames (each side's rows in input order)."""
    q_table, r_table = _arrow(qrels), _arrow(run)
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
    """Evaluate prepared frames holding whole queries (either side possibly empty)."""
    q, r = read_tables(qrels, run, options, sides)
    return evaluate_part(q, r, options)


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
