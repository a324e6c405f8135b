"""Reading click logs: JSON lines, Parquet, CSV/TSV, pandas/polars DataFrames, Arrow
tables, a dict of columns or a list of records, in either of two layouts.

Long layout, one row per (impression, position)::

    session_id  query_id  doc_id  position  clicked  [team] [dwell] [propensity]
                                                     [step_propensity] [ranker]

Wide layout, one impression per row: ``doc_ids`` (the documents shown, in order) and either
``clicks`` (one boolean per shown document) or ``clicked_positions`` (1-based positions);
optionally ``session_id`` (default: the row number), ``teams``, ``dwells``,
``propensities``, ``step_propensities`` (lists like ``doc_ids``) and ``ranker``.

Every problem is one :class:`~ranklens.base.errors.InputError` naming the file and the line
(text files) or row (Parquet, frames), what was expected and what to do.
"""

from __future__ import annotations

import gzip
import io
import json
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ranklens.base.errors import EmptyInputError, InputError
from ranklens.base.optional import require
from ranklens.base.types import BoolArray, Float64Array, Int64Array
from ranklens.logs.log import ClickLog

LONG_NAMES: dict[str, tuple[str, ...]] = {
    "session_id": ("session_id", "session", "impression_id", "impression"),
    "query_id": ("query_id", "query", "qid"),
    "doc_id": ("doc_id", "docid", "doc", "document"),
    "position": ("position", "rank"),
    "clicked": ("clicked", "click"),
    "team": ("team",),
    "dwell": ("dwell", "dwell_time"),
    "propensity": ("propensity",),
    "step_propensity": ("step_propensity",),
    "ranker": ("ranker",),
}
WIDE_NAMES: dict[str, tuple[str, ...]] = {
    "session_id": LONG_NAMES["session_id"],
    "query_id": LONG_NAMES["query_id"],
    "doc_ids": ("doc_ids", "docs", "documents"),
    "clicks": ("clicks",),
    "clicked_positions": ("clicked_positions",),
    "teams": ("teams",),
    "dwells": ("dwells", "dwell_times"),
    "propensities": ("propensities",),
    "step_propensities": ("step_propensities",),
    "ranker": ("ranker",),
}
FILE_KINDS = {
    ".parquet": "parquet",
    ".pq": "parquet",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".csv": "csv",
    ".tsv": "tsv",
}


def file_kind(path: str) -> str | None:
    """``"parquet"``, ``"jsonl"``, ``"csv"`` or ``"tsv"`` from the file name (a ``.gz``
    suffix allowed for the text formats), or ``None``."""
    name = path.lower()
    if name.endswith(".gz"):
        name = name[:-3]
    for suffix, kind in FILE_KINDS.items():
        if name.endswith(suffix):
            return kind
    return None


@dataclass(frozen=True)
class Table:
    """Columns of a source with the way to name a row in an error."""

    columns: dict[str, np.ndarray]
    source: str
    lines: Int64Array | None  # physical line of each row (text files), else None
    is_file: bool

    @property
    def num_rows(self) -> int:
        return len(next(iter(self.columns.values()))) if self.columns else 0

    def error(self, row: int, message: str) -> InputError:
        """An error about row ``row`` (0-based, in source order)."""
        if self.lines is not None:
            return InputError(message, path=self.source, line=int(self.lines[row]))
        return InputError(f"row {row + 1}: {message}", path=self.source)


def read_log(source: Any, *, layout: str | None = None) -> ClickLog:
    """Read a click log.

    Parameters
    ----------
    source
        A path (``.parquet``/``.pq``, ``.jsonl``/``.ndjson``, ``.csv``, ``.tsv``; the text
        formats also gzipped), a pandas or polars DataFrame, a pyarrow Table, a dict of
        columns, a list of records (dicts), or a :class:`ClickLog` (returned as it is).
    layout
        ``"long"`` (one row per impression and position), ``"wide"`` (one impression per
        row) or ``None``: wide when a ``doc_ids`` column is present, long otherwise.

    Returns
    -------
    ClickLog
        Impressions ordered by first appearance of their ``session_id``, rows by position.

    Raises
    ------
    InputError
        Naming the file and line (or row): a missing column, a missing query or session, a
        position that is not a positive integer, a position gap or a position twice, a click
        at a position that shows no document, a document shown twice in one impression, one
        session with two queries, a ``clicked`` value that is not a boolean.
    EmptyInputError
        The source holds no rows.

    Examples
    --------
    >>> from ranklens.logs import read_log
    >>> log = read_log([{"session_id": 1, "query_id": "q", "doc_ids": ["a", "b"],
    ...                  "clicked_positions": [2]}])
    >>> log.documents, log.clicked.tolist()
    (('a', 'b'), [False, True])
    >>> read_log({"session_id": [1, 1], "query_id": ["q", "q"], "doc_id": ["a", "b"],
    ...           "position": [1, 3], "clicked": [True, False]})
    Traceback (most recent call last):
    ...
    ranklens.base.errors.InputError: <dict>: row 2: session '1' has a position gap: ...
    """
    if isinstance(source, ClickLog):
        return source
    table = load_table(source)
    return build_log(table, layout)


def load_table(source: Any) -> Table:
    """The columns of ``source`` as numpy arrays, with how to name its rows."""
    if isinstance(source, str | os.PathLike):
        path = os.fspath(source)
        kind = file_kind(path)
        if kind is None:
            raise InputError(
                "cannot tell the log's format from its name: use a .parquet, .jsonl, .csv or "
                ".tsv file (or pass a DataFrame)",
                path=path,
            )
        if not os.path.exists(path):
            raise InputError("no such file", path=path)
        if kind == "jsonl":
            return _read_jsonl(path)
        if kind in ("csv", "tsv"):
            return _read_csv(path, "\t" if kind == "tsv" else ",")
        pq = require("pyarrow.parquet", "reading a Parquet click log")
        return _arrow_table(pq.read_table(path), path, None, True)
    module = type(source).__module__.split(".")[0]
    if module == "pandas":
        pa = require("pyarrow", "reading a pandas click log")
        return _arrow_table(pa.Table.from_pandas(source, preserve_index=False), "<frame>")
    if module == "polars":
        return _arrow_table(source.to_arrow(), "<frame>")
    if module == "pyarrow":
        return _arrow_table(source, "<table>")
    if isinstance(source, Mapping):
        columns = {str(k): _column_array(list(v)) for k, v in source.items()}
        lengths = {len(v) for v in columns.values()}
        if len(lengths) > 1:
            raise InputError("the columns have different lengths", path="<dict>")
        return Table(columns, "<dict>", None, False)
    if isinstance(source, Iterable) and not isinstance(source, str | bytes):
        return _records(list(source), "<records>", None)
    raise InputError(
        f"cannot read a click log from a {type(source).__name__}: give a path, a DataFrame, "
        "a pyarrow Table, a dict of columns or a list of records"
    )


def _column_array(values: list[Any]) -> np.ndarray:
    array = np.empty(len(values), dtype=object)
    array[:] = values
    return array


def _records(records: list[Any], source: str, lines: Int64Array | None) -> Table:
    names: dict[str, None] = {}
    for i, record in enumerate(records):
        if not isinstance(record, Mapping):
            where = Table({}, source, lines, lines is not None)
            raise where.error(i, f"expected an object (a record), found {type(record).__name__}")
        for key in record:
            names.setdefault(str(key), None)
    columns = {name: _column_array([record.get(name) for record in records]) for name in names}
    return Table(columns, source, lines, lines is not None)


def _read_jsonl(path: str) -> Table:
    opener: Callable[..., Any] = gzip.open if path.lower().endswith(".gz") else open
    records: list[Any] = []
    lines: list[int] = []
    # utf-8-sig: a byte-order mark at the start is read past, as every other reader does
    with opener(path, "rt", encoding="utf-8-sig") as handle:
        for number, text in enumerate(handle, start=1):
            if not text.strip():
                continue
            try:
                records.append(json.loads(text))
            except json.JSONDecodeError as exc:
                raise InputError(
                    f"not a JSON object ({exc.msg}); each line must be one JSON object",
                    path=path,
                    line=number,
                ) from None
            lines.append(number)
    return _records(records, path, np.asarray(lines, dtype=np.int64))


def _read_csv(path: str, delimiter: str) -> Table:
    csv = require("pyarrow.csv", "reading a CSV click log")
    pa = require("pyarrow", "reading a CSV click log")
    opener: Callable[..., Any] = gzip.open if path.lower().endswith(".gz") else open
    with opener(path, "rb") as handle:
        data = handle.read()
    try:
        table = csv.read_csv(
            io.BytesIO(data),
            parse_options=csv.ParseOptions(delimiter=delimiter),
            convert_options=csv.ConvertOptions(
                column_types={
                    name: pa.string()
                    for aliases in (
                        LONG_NAMES["session_id"],
                        LONG_NAMES["query_id"],
                        LONG_NAMES["doc_id"],
                        LONG_NAMES["team"],
                        LONG_NAMES["ranker"],
                    )
                    for name in aliases
                },
                strings_can_be_null=True,
            ),
        )
    except pa.ArrowInvalid as exc:
        raise InputError(f"not a valid CSV table: {exc}", path=path) from None
    lines = np.arange(table.num_rows, dtype=np.int64) + 2  # line 1 is the header
    return _arrow_table(table, path, lines, True)


def _arrow_table(
    table: Any, source: str, lines: Int64Array | None = None, is_file: bool = False
) -> Table:
    columns: dict[str, np.ndarray] = {}
    for name in table.column_names:
        column = table.column(name)
        columns[str(name)] = _arrow_to_numpy(column)
    return Table(columns, source, lines, is_file)


def _arrow_to_numpy(column: Any) -> np.ndarray:
    pa = require("pyarrow", "reading a click log")
    kind = column.type
    if pa.types.is_list(kind) or pa.types.is_large_list(kind):
        return _column_array(column.to_pylist())
    if pa.types.is_dictionary(kind):
        column = column.cast(kind.value_type)
        kind = kind.value_type
    if (pa.types.is_string(kind) or pa.types.is_large_string(kind)) and not column.null_count:
        # text without nulls: a fixed-width numpy array, gathered from the distinct values
        pc = require("pyarrow.compute", "reading a click log")
        encoded = pc.dictionary_encode(column).combine_chunks()
        distinct = np.asarray(encoded.dictionary.to_pylist(), dtype=str)
        indices = encoded.indices.to_numpy(zero_copy_only=False)
        return distinct[indices] if distinct.size else np.zeros(0, dtype=str)
    if column.null_count or pa.types.is_string(kind) or pa.types.is_large_string(kind):
        return _column_array(column.to_pylist())
    return np.asarray(column.to_numpy())


def _find(columns: Mapping[str, Any], names: tuple[str, ...]) -> str | None:
    for name in names:
        if name in columns:
            return name
    return None


def build_log(table: Table, layout: str | None) -> ClickLog:
    """Validate ``table`` and build the :class:`ClickLog`."""
    if table.num_rows == 0:
        raise EmptyInputError("the click log has no rows", path=table.source)
    wide = _find(table.columns, WIDE_NAMES["doc_ids"]) is not None
    if layout == "wide" or (layout is None and wide):
        return _from_long(_explode(table), table)
    if layout not in (None, "long"):
        raise InputError(f"layout must be 'long' or 'wide', not {layout!r}")
    return _from_long(_long_columns(table), table)


@dataclass
class _Long:
    """Long columns with, for each row, the source row it came from."""

    session: np.ndarray
    query: np.ndarray
    doc: np.ndarray
    position: Int64Array
    clicked: BoolArray
    row: Int64Array
    team: np.ndarray | None = None
    dwell: Float64Array | None = None
    propensity: Float64Array | None = None
    step_propensity: Float64Array | None = None
    ranker: np.ndarray | None = None


def _require(table: Table, names: dict[str, tuple[str, ...]], key: str, layout: str) -> str:
    found = _find(table.columns, names[key])
    if found is None:
        have = ", ".join(table.columns) or "none"
        raise InputError(
            f"the {layout} click log needs a '{key}' column (columns found: {have}); see "
            "docs/logs.md for the two layouts",
            path=table.source,
        )
    return found


def _missing(values: np.ndarray) -> BoolArray:
    """Which values are missing (None, NaN or an empty string)."""
    if values.dtype.kind == "f":
        return np.asarray(np.isnan(values), dtype=bool)
    if values.dtype.kind in "iub":
        return np.zeros(values.shape[0], dtype=bool)
    if values.dtype.kind == "U":
        return np.asarray(values == "", dtype=bool)
    return np.fromiter(
        (v is None or v == "" or (isinstance(v, float) and v != v) for v in values.tolist()),
        dtype=bool,
        count=values.shape[0],
    )


def _ids(values: np.ndarray) -> np.ndarray:
    """Ids as str (ints and floats holding integers written without a decimal point)."""
    if values.dtype.kind in "iuU":  # interned as they are (:func:`_intern`)
        return values
    out = [
        str(int(v)) if isinstance(v, float) and v.is_integer() else str(v) for v in values.tolist()
    ]
    return np.asarray(out, dtype=object)


def _positions(table: Table, values: np.ndarray, rows: Int64Array) -> Int64Array:
    if values.dtype.kind in "iu":
        out = values.astype(np.int64)
    else:
        out = np.zeros(values.shape[0], dtype=np.int64)
        for i, v in enumerate(values.tolist()):
            ok = isinstance(v, int | np.integer) and not isinstance(v, bool)
            if isinstance(v, float) and v.is_integer():
                ok, v = True, int(v)
            if isinstance(v, str) and v.strip().isdigit():
                ok, v = True, int(v)
            if not ok:
                raise table.error(
                    int(rows[i]), f"position {v!r} is not an integer; positions are 1, 2, ..."
                )
            out[i] = v
    bad = np.flatnonzero(out < 1)
    if bad.size:
        i = int(bad[0])
        raise table.error(
            int(rows[i]), f"position {int(out[i])} is not positive; positions start at 1"
        )
    return out


_TRUE = {True, "1", "true", "True", "TRUE", "t", "yes"}
_FALSE = {False, "0", "false", "False", "FALSE", "f", "no"}


def _booleans(table: Table, values: np.ndarray, rows: Int64Array, what: str) -> BoolArray:
    if values.dtype == np.bool_:
        return values.copy()
    if values.dtype.kind in "iu" and np.isin(values, (0, 1)).all():
        return values.astype(bool)
    out = np.zeros(values.shape[0], dtype=bool)
    for i, v in enumerate(values.tolist()):
        if isinstance(v, float) and v in (0.0, 1.0):
            v = int(v)
        if isinstance(v, list | dict | tuple | set):  # unhashable or not a flag at all
            raise table.error(
                int(rows[i]),
                f"{what} must be true or false (or 1/0), not a {type(v).__name__} ({v!r}); the "
                "long layout has one row per shown document (a list of clicks is the wide "
                "layout's 'clicks' or 'clicked_positions' with 'doc_ids')",
            )
        if v in _TRUE:
            out[i] = True
        elif v not in _FALSE:
            raise table.error(int(rows[i]), f"{what} must be true or false (or 1/0), not {v!r}")
    return out


def _floats(table: Table, values: np.ndarray, rows: Int64Array, what: str) -> Float64Array:
    out = np.zeros(values.shape[0], dtype=np.float64)
    for i, v in enumerate(values.tolist()):
        if v is None:
            out[i] = np.nan
            continue
        try:
            out[i] = float(v)
        except (TypeError, ValueError):
            raise table.error(int(rows[i]), f"{what} must be a number, not {v!r}") from None
    return out


def _long_columns(table: Table) -> _Long:
    cols = table.columns
    n = table.num_rows
    rows = np.arange(n, dtype=np.int64)
    names = {
        k: _require(table, LONG_NAMES, k, "long")
        for k in LONG_NAMES
        if k in ("session_id", "query_id", "doc_id", "position", "clicked")
    }
    session = cols[names["session_id"]]
    query = cols[names["query_id"]]
    for key, values, what in (
        ("session_id", session, "session id"),
        ("query_id", query, "query id"),
    ):
        gone = np.flatnonzero(_missing(values))
        if gone.size:
            raise table.error(int(gone[0]), f"missing {what} ('{key}'): every row needs one")
    position = _positions(table, cols[names["position"]], rows)
    clicked = _booleans(table, cols[names["clicked"]], rows, "'clicked'")
    doc = cols[names["doc_id"]]
    gone = np.flatnonzero(_missing(doc))
    if gone.size:
        i = int(gone[0])
        if clicked[i]:
            raise table.error(
                i,
                f"a click at position {int(position[i])}, which shows no document (no "
                "doc_id): a click must be on a shown document",
            )
        raise table.error(i, f"no document (doc_id) at position {int(position[i])}")
    out = _Long(_ids(session), _ids(query), _ids(doc), position, clicked, rows)
    optional = {k: _find(cols, LONG_NAMES[k]) for k in LONG_NAMES}
    if optional["team"] is not None:
        team = cols[optional["team"]]
        gone = np.flatnonzero(_missing(team))
        if gone.size:
            raise table.error(
                int(gone[0]), "missing team: with a 'team' column every row needs one"
            )
        out.team = _ids(team)
    if optional["dwell"] is not None:
        out.dwell = _floats(table, cols[optional["dwell"]], rows, "dwell")
    for key in ("propensity", "step_propensity"):
        found = optional[key]
        if found is not None:
            setattr(out, key, _probabilities(table, cols[found], rows, key))
    if optional["ranker"] is not None:
        out.ranker = _ids(cols[optional["ranker"]])
    return out


def _probabilities(table: Table, values: np.ndarray, rows: Int64Array, what: str) -> Float64Array:
    out = _floats(table, values, rows, what)
    bad = np.flatnonzero(~((out > 0) & (out <= 1)))
    if bad.size:
        i = int(bad[0])
        raise table.error(
            int(rows[i]),
            f"{what} {values[i]!r} is not a probability in (0, 1]: a logged propensity must be "
            "positive",
        )
    return out


def _as_list(table: Table, value: Any, row: int, what: str) -> list[Any]:
    if value is None:
        return []
    if isinstance(value, np.ndarray):
        return list(value.tolist())
    if isinstance(value, list | tuple):
        return list(value)
    if isinstance(value, str):
        try:
            parsed = json.loads(value)
        except json.JSONDecodeError:
            parsed = None
        if isinstance(parsed, list):
            return parsed
    raise table.error(row, f"'{what}' must be a list, not {value!r}")


def _explode(table: Table) -> _Long:
    cols = table.columns
    n = table.num_rows
    docs_name = _require(table, WIDE_NAMES, "doc_ids", "wide")
    query_name = _require(table, WIDE_NAMES, "query_id", "wide")
    clicks_name = _find(cols, WIDE_NAMES["clicks"])
    positions_name = _find(cols, WIDE_NAMES["clicked_positions"])
    if clicks_name is None and positions_name is None:
        raise InputError(
            "the wide click log needs a 'clicks' column (one boolean per shown document) or "
            "a 'clicked_positions' column (1-based positions)",
            path=table.source,
        )
    session_name = _find(cols, WIDE_NAMES["session_id"])
    query = cols[query_name]
    gone = np.flatnonzero(_missing(query))
    if gone.size:
        raise table.error(int(gone[0]), "missing query id ('query_id'): every row needs one")
    docs = [_as_list(table, v, i, "doc_ids") for i, v in enumerate(cols[docs_name].tolist())]
    lengths = np.asarray([len(d) for d in docs], dtype=np.int64)
    empty = np.flatnonzero(lengths == 0)
    if empty.size:
        raise table.error(int(empty[0]), "the impression shows no documents ('doc_ids' is empty)")
    rows = np.repeat(np.arange(n, dtype=np.int64), lengths)
    flat_docs = _column_array([d for ds in docs for d in ds])
    gone = np.flatnonzero(_missing(flat_docs))
    if gone.size:
        raise table.error(int(rows[gone[0]]), "a missing document id in 'doc_ids'")
    starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))
    position = np.arange(rows.shape[0], dtype=np.int64) - np.repeat(starts, lengths) + 1
    clicked = np.zeros(rows.shape[0], dtype=bool)
    flag_values = cols[clicks_name].tolist() if clicks_name is not None else [None] * n
    position_values = cols[positions_name].tolist() if positions_name is not None else [None] * n
    for i, (value, listed) in enumerate(zip(flag_values, position_values, strict=True)):
        if value is not None:
            flags = _as_list(table, value, i, "clicks")
            if len(flags) > lengths[i]:
                raise table.error(
                    i,
                    f"a click at position {len(flags)}, which shows no document ('clicks' has "
                    f"{len(flags)} values for {int(lengths[i])} documents)",
                )
            if len(flags) < lengths[i]:
                raise table.error(
                    i,
                    f"'clicks' has {len(flags)} values for {int(lengths[i])} documents: give "
                    "one per shown document",
                )
            clicked[starts[i] : starts[i] + lengths[i]] = _booleans(
                table, _column_array(flags), np.full(len(flags), i, dtype=np.int64), "a click"
            )
            continue
        if listed is None:
            raise table.error(
                i, "no clicks given: fill 'clicks' or 'clicked_positions' (an empty list: none)"
            )
        for p in _as_list(table, listed, i, "clicked_positions"):
            ok = isinstance(p, int | np.integer) and not isinstance(p, bool)
            if not ok:
                raise table.error(i, f"clicked position {p!r} is not an integer")
            if not 1 <= p <= lengths[i]:
                raise table.error(
                    i,
                    f"a click at position {p}, which shows no document (the impression "
                    f"shows {int(lengths[i])})",
                )
            clicked[starts[i] + p - 1] = True
    if session_name is not None:
        session = cols[session_name]
        gone = np.flatnonzero(_missing(session))
        if gone.size:
            raise table.error(int(gone[0]), "missing session id ('session_id')")
        session_ids = _ids(session)
    else:
        session_ids = np.asarray([str(i + 1) for i in range(n)], dtype=object)
    out = _Long(
        np.repeat(session_ids, lengths),
        np.repeat(_ids(query), lengths),
        _ids(flat_docs),
        position,
        clicked,
        rows,
    )
    per_position = (
        ("teams", "team"),
        ("dwells", "dwell"),
        ("propensities", "propensity"),
        ("step_propensities", "step_propensity"),
    )
    for wide_key, long_key in per_position:
        name = _find(cols, WIDE_NAMES[wide_key])
        if name is None:
            continue
        values: list[Any] = []
        for i, value in enumerate(cols[name].tolist()):
            items = _as_list(table, value, i, wide_key)
            if len(items) != lengths[i]:
                raise table.error(
                    i,
                    f"'{wide_key}' has {len(items)} values for {int(lengths[i])} documents: "
                    "give one per shown document",
                )
            values.extend(items)
        array = _column_array(values)
        if long_key == "team":
            gone = np.flatnonzero(_missing(array))
            if gone.size:
                raise table.error(int(rows[gone[0]]), "a missing team in 'teams'")
            out.team = _ids(array)
        elif long_key == "dwell":
            out.dwell = _floats(table, array, rows, "dwell")
        else:
            setattr(out, long_key, _probabilities(table, array, rows, long_key))
    ranker_name = _find(cols, WIDE_NAMES["ranker"])
    if ranker_name is not None:
        out.ranker = np.repeat(_ids(cols[ranker_name]), lengths)
    return out


def _intern(values: np.ndarray) -> tuple[tuple[str, ...], Int64Array]:
    """The distinct ids as text, sorted, and each value's index among them (integers are
    written in decimal)."""
    if values.shape[0] == 0:
        return (), np.zeros(0, dtype=np.int64)
    if values.dtype.kind in "iu":
        distinct, codes = np.unique(values, return_inverse=True)
        labels = [str(v) for v in distinct.tolist()]
    else:
        seen: dict[Any, int] = {}
        codes = np.fromiter(
            (seen.setdefault(v, len(seen)) for v in values.tolist()),
            dtype=np.int64,
            count=values.shape[0],
        )
        labels = [str(v) for v in seen]
    order = sorted(range(len(labels)), key=labels.__getitem__)
    rank = np.empty(len(labels), dtype=np.int64)
    rank[np.asarray(order, dtype=np.int64)] = np.arange(len(labels), dtype=np.int64)
    return tuple(labels[i] for i in order), rank[np.asarray(codes).reshape(-1)]


def _from_long(long: _Long, table: Table) -> ClickLog:
    sessions, session_code = _intern(long.session)
    # impressions in order of first appearance, rows by position (a stable sort keeps the
    # source order of rows that tie, so the first of two rows is the one errors name)
    first_seen = np.full(len(sessions), long.row.shape[0], dtype=np.int64)
    np.minimum.at(first_seen, session_code, np.arange(long.row.shape[0], dtype=np.int64))
    session_rank = np.argsort(np.argsort(first_seen, kind="stable"), kind="stable")
    order = np.lexsort((long.position, session_rank[session_code]))
    imp = session_rank[session_code][order]
    session_names = np.asarray(sessions, dtype=object)[np.argsort(session_rank, kind="stable")]
    queries, query_code = _intern(long.query)
    documents, doc_code = _intern(long.doc)
    rows = long.row[order]
    grouped = check_grouped(
        imp,
        long.position[order],
        query_code[order],
        doc_code[order],
        len(documents),
        lambda k, message: table.error(int(rows[k]), message),
        lambda i: str(session_names[i]),
        lambda q: queries[q],
        lambda d: documents[d],
    )
    offsets, first, counts = grouped
    teams: tuple[str, ...] | None = None
    team: Int64Array | None = None
    if long.team is not None:
        teams, team_code = _numeric_order(*_intern(long.team))
        team = team_code[order]
    rankers: tuple[str, ...] | None = None
    ranker: Int64Array | None = None
    if long.ranker is not None:
        rankers, ranker_code = _intern(long.ranker)
        per_row = ranker_code[order]
        differs = np.flatnonzero(per_row != np.repeat(per_row[first], counts))
        if differs.size:
            k = int(differs[0])
            raise table.error(
                int(rows[k]),
                f"session '{session_names[int(imp[k])]}' has two rankers: the ranker is one "
                "per impression",
            )
        ranker = per_row[first]
    return ClickLog(
        sessions=tuple(str(s) for s in session_names.tolist()),
        queries=queries,
        documents=documents,
        offsets=offsets,
        query=query_code[order][first].copy(),
        doc=doc_code[order],
        clicked=long.clicked[order],
        teams=teams,
        team=team,
        dwell=None if long.dwell is None else long.dwell[order],
        propensity=None if long.propensity is None else long.propensity[order],
        step_propensity=None if long.step_propensity is None else long.step_propensity[order],
        rankers=rankers,
        ranker=ranker,
        source=table.source,
    )


def check_grouped(
    imp: Int64Array,
    position: Int64Array,
    query: Int64Array,
    doc: Int64Array,
    num_docs: int,
    error: Callable[[int, str], InputError],
    session_name: Callable[[int], str],
    query_name: Callable[[int], str],
    doc_name: Callable[[int], str],
    documents: bool = True,
) -> tuple[Int64Array, Int64Array, Int64Array]:
    """Check rows sorted by (impression, position): positions 1..n in each impression, one
    query per impression, no document twice (unless ``documents`` is False: the caller
    checks that itself). Returns the offsets, each impression's first row and its number
    of rows; ``error(k, message)`` makes the error for sorted row ``k``."""
    n_imp = int(imp[-1]) + 1 if imp.shape[0] else 0
    counts = np.bincount(imp, minlength=n_imp).astype(np.int64)
    offsets = np.zeros(n_imp + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    first = offsets[:-1]
    expected = np.arange(position.shape[0], dtype=np.int64) - np.repeat(first, counts) + 1
    bad = np.flatnonzero(position != expected)
    if bad.size:
        k = int(bad[0])
        i = int(imp[k])
        shown = position[offsets[i] : offsets[i + 1]].tolist()
        if k > offsets[i] and position[k] == position[k - 1]:
            raise error(
                k,
                f"session '{session_name(i)}' has position {int(position[k])} twice: one row "
                "per (session, position)",
            )
        raise error(
            k,
            f"session '{session_name(i)}' has a position gap: positions {_short(shown)} "
            f"(expected 1 to {len(shown)} without gaps)",
        )
    differs = np.flatnonzero(query != np.repeat(query[first], counts))
    if differs.size:
        k = int(differs[0])
        i = int(imp[k])
        raise error(
            k,
            f"session '{session_name(i)}' has two queries ({query_name(int(query[first[i]]))!r} "
            f"and {query_name(int(query[k]))!r}): one query per session",
        )
    if not documents:
        return offsets, first, counts
    key = imp * np.int64(num_docs + 1) + doc
    order = np.argsort(key, kind="stable")
    sorted_keys = key[order]
    twice = np.flatnonzero(sorted_keys[1:] == sorted_keys[:-1])
    if twice.size:
        a, b = int(order[twice[0]]), int(order[twice[0] + 1])
        i = int(imp[a])
        raise error(
            max(a, b),
            f"session '{session_name(i)}' shows document {doc_name(int(doc[a]))!r} twice "
            f"(positions {int(position[a])} and {int(position[b])})",
        )
    return offsets, first, counts


def _numeric_order(
    labels: tuple[str, ...], codes: Int64Array
) -> tuple[tuple[str, ...], Int64Array]:
    """Labels that are all integers (teams 1, 2, 10) in numeric order, not text order."""
    if not labels or not all(label.lstrip("-").isdigit() for label in labels):
        return labels, codes
    order = sorted(range(len(labels)), key=lambda i: int(labels[i]))
    rank = np.empty(len(labels), dtype=np.int64)
    rank[np.asarray(order, dtype=np.int64)] = np.arange(len(labels), dtype=np.int64)
    return tuple(labels[i] for i in order), rank[codes]


def _short(values: list[int]) -> str:
    text = ", ".join(str(v) for v in values[:12])
    return text + (", ..." if len(values) > 12 else "")
