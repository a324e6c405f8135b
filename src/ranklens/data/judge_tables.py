"""Tables about judgments that are not qrels: covariates of the judged pairs, and
pairwise preferences shown in an order.

**Covariates** (:func:`read_covariates`): one row per (query, document) pair, a query
column, a document column (the names :meth:`Qrels.from_frame` knows: ``query_id``/``qid``,
``doc_id``/``docno`` ...) and numeric columns (document length, lexical overlap ...). A
DataFrame (pandas, polars, pyarrow), a ``{column: values}`` mapping, or a file: ``.csv``
(commas) or ``.tsv`` (tabs) with a header row, or whitespace-separated text whose first
line names the columns (``#`` lines and blank lines are skipped).

**Pairwise preferences shown in an order** (:func:`read_shown_preferences`): one row per
judgment ``query first second winner``: the judge was shown ``first`` then ``second``
and preferred ``winner``, which is one of the two documents or ``-`` for a tie.
trec_eval's preference files (:mod:`ranklens.data.prefs`) carry no display order, so this
is a table of its own: a whitespace-separated text file of those four fields (read by
:func:`ranklens.data.prefs.read_table`), a ``.csv``/``.tsv`` file or a DataFrame with the
columns ``query_id`` (or ``qid`` ...), ``first``, ``second`` and ``winner``, or an
iterable of 4-tuples.

Every refusal is an :class:`~ranklens.base.errors.InputError` naming the file and line
(the row, for in-memory tables).
"""

from __future__ import annotations

import csv
import io
import math
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ranklens.base.errors import EmptyInputError, InputError, ParseError
from ranklens.base.types import Float64Array
from ranklens.data.kinds import is_frame

TIE = "-"
"""The ``winner`` of a tie in a table of shown preferences."""

SHOWN_COLUMNS = ("query", "first", "second", "winner")
"""The four fields of a line of shown preferences."""


@dataclass(frozen=True)
class Covariates:
    """Numeric columns about (query, document) pairs, one row per pair."""

    qids: tuple[str, ...]
    docids: tuple[str, ...]
    names: tuple[str, ...]
    """The numeric columns, in the table's order."""
    values: Float64Array
    """``values[i, j]``: column ``names[j]`` of row ``i`` (rows x columns)."""
    lines: tuple[int, ...]
    """The physical line (file) or the 1-based row (in-memory table) of each row."""
    source: str | None
    """The file's name, or ``None`` for an in-memory table."""


@dataclass(frozen=True)
class ShownPreferences:
    """Pairwise judgments, each with the order its two documents were shown in."""

    qids: tuple[str, ...]
    first: tuple[str, ...]
    second: tuple[str, ...]
    winner: tuple[str | None, ...]
    """The preferred document, or ``None`` for a tie."""
    lines: tuple[int, ...]
    source: str | None


def _frame_columns(frame: Any) -> dict[str, list[Any]]:
    """``{column: values}`` of a pandas or polars DataFrame or a pyarrow table."""
    module = type(frame).__module__.split(".")[0]
    if module == "pandas":
        return {str(k): list(v) for k, v in frame.to_dict("list").items()}
    if module == "polars":
        return {str(k): list(v) for k, v in frame.to_dict(as_series=False).items()}
    return {str(k): list(v) for k, v in frame.to_pydict().items()}


def _delimited(
    source: str | os.PathLike[str],
) -> tuple[list[str], list[tuple[list[str], int]], str]:
    """The header and the rows (with their physical lines) of a table file with a header
    row: commas for ``.csv``, tabs for ``.tsv``, whitespace otherwise."""
    from ranklens.data.table_files import read_utf8_text

    text, where = read_utf8_text(source)
    base = os.fspath(source).lower()
    numbered: list[tuple[list[str], int]] = []
    if ".csv" in base or ".tsv" in base:
        reader = csv.reader(
            io.StringIO(text, newline=""), delimiter="\t" if ".tsv" in base else ","
        )
        for row in reader:
            if any(cell.strip() for cell in row):
                numbered.append(([cell.strip() for cell in row], reader.line_num))
    else:
        for number, text_line in enumerate(text.split("\n"), start=1):
            fields = text_line.split()
            if fields and not fields[0].startswith("#"):
                numbered.append((fields, number))
    if not numbered:
        raise EmptyInputError("holds no header row and no data", path=where)
    header = numbered[0][0]
    rows = numbered[1:]
    for fields, number in rows:
        if len(fields) != len(header):
            raise ParseError(
                f"{len(fields)} fields, but the header names {len(header)} ({', '.join(header)})",
                path=where,
                line=number,
            )
    return header, rows, where


def _columns_of(source: object, what: str) -> tuple[dict[str, list[Any]], list[int], str | None]:
    """``{column: values}``, the line of each row and the source's name, from a frame, a
    mapping of columns or a table file."""
    if is_frame(source):
        columns = _frame_columns(source)
        rows = len(next(iter(columns.values()), []))
        return columns, list(range(1, rows + 1)), None
    if isinstance(source, Mapping):
        columns = {str(k): list(v) for k, v in source.items()}
        lengths = {len(v) for v in columns.values()}
        if len(lengths) > 1:
            raise InputError(f"the {what} columns have different lengths: {sorted(lengths)}")
        rows = lengths.pop() if lengths else 0
        return columns, list(range(1, rows + 1)), None
    if isinstance(source, str | os.PathLike):
        header, rows_read, where = _delimited(source)
        names = [h.strip() for h in header]
        if len(set(names)) != len(names):
            raise ParseError(
                f"the header names a column twice: {', '.join(names)}", path=where, line=1
            )
        columns = {name: [fields[i] for fields, _ in rows_read] for i, name in enumerate(names)}
        return columns, [line for _, line in rows_read], where
    raise InputError(
        f"{what} must be a DataFrame, a mapping of columns or a .csv/.tsv file, not "
        f"{type(source).__name__}"
    )


def _pick(columns: Mapping[str, Any], names: Sequence[str], what: str, source: str | None) -> str:
    lowered = {c.lower(): c for c in columns}
    for name in names:
        if name in lowered:
            return lowered[name]
    raise InputError(
        f"the table has no {what} column (one of {', '.join(names)}); its columns are "
        f"{', '.join(columns) or 'none'}",
        path=source,
    )


def _number(value: Any, column: str, line: int, source: str | None) -> float:
    where = {"path": source, "line": line} if source is not None else {"line": line}
    if isinstance(value, bool):
        raise InputError(f"column {column!r} holds {value!r}: covariates must be numbers", **where)
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise InputError(
            f"column {column!r} holds {value!r}, not a number: covariates must be numeric "
            "(encode a category as 0/1 columns, or leave the column out)",
            **where,
        ) from None
    if not math.isfinite(number):
        raise InputError(
            f"column {column!r} holds {value!r}: covariates must be finite numbers (fill or "
            "drop the row)",
            **where,
        )
    return number


def read_covariates(source: object) -> Covariates:
    """The covariates of (query, document) pairs from a DataFrame, a mapping of columns or
    a table file (see the module).

    Raises
    ------
    InputError
        No query or document column, no numeric column, a cell that is not a finite
        number, or a pair given twice; the file and line (or the row) are named.

    Examples
    --------
    >>> cov = read_covariates({"query_id": ["q1", "q1"], "doc_id": ["a", "b"],
    ...                        "length": [120, 40]})
    >>> cov.names, cov.values.tolist()
    (('length',), [[120.0], [40.0]])
    """
    from ranklens.data.frames import DOC_NAMES, QID_NAMES

    columns, lines, where = _columns_of(source, "covariates")
    qcol = _pick(columns, QID_NAMES, "query id", where)
    dcol = _pick(columns, DOC_NAMES, "document id", where)
    names = tuple(c for c in columns if c not in (qcol, dcol))
    if not names:
        raise InputError(
            "the covariates table has only the query and document columns: add numeric "
            "columns (document length, overlap ...)",
            path=where,
        )
    if not lines:
        raise EmptyInputError("the covariates table has no rows", path=where)
    values = np.empty((len(lines), len(names)), dtype=np.float64)
    for j, name in enumerate(names):
        for i, cell in enumerate(columns[name]):
            values[i, j] = _number(cell, name, lines[i], where)
    qids = tuple(str(q) for q in columns[qcol])
    docids = tuple(str(d) for d in columns[dcol])
    seen: dict[tuple[str, str], int] = {}
    for i, key in enumerate(zip(qids, docids, strict=True)):
        if key in seen:
            raise InputError(
                f"the pair (query {key[0]!r}, document {key[1]!r}) is given twice (first at "
                f"{'line' if where else 'row'} {seen[key]}): one row per pair",
                path=where,
                line=lines[i],
            )
        seen[key] = lines[i]
    values.flags.writeable = False
    return Covariates(qids, docids, names, values, tuple(lines), where)


def read_shown_preferences(source: object) -> ShownPreferences:
    """Pairwise judgments with their display order (see the module).

    Raises
    ------
    InputError
        A row whose winner is neither of its documents nor ``-``, a row whose two
        documents are the same, a missing column, or an empty table.

    Examples
    --------
    >>> prefs = read_shown_preferences([("q1", "a", "b", "a"), ("q1", "b", "a", "-")])
    >>> prefs.first, prefs.winner
    (('a', 'b'), ('a', None))
    """
    from ranklens.data.frames import QID_NAMES

    where: str | None
    rows: list[tuple[str, str, str, str]] = []
    lines: list[int] = []
    path_like = isinstance(source, str | os.PathLike)
    suffixed = path_like and any(
        s in str(os.fspath(source)).lower()  # type: ignore[call-overload]
        for s in (".csv", ".tsv")
    )
    if path_like and not suffixed:
        from ranklens.data.prefs import read_table

        read, where = read_table(source, SHOWN_COLUMNS, "preference")
        for fields, number in read:
            rows.append((fields[0], fields[1], fields[2], fields[3]))
            lines.append(number)
    elif path_like or is_frame(source) or isinstance(source, Mapping):
        columns, lines, where = _columns_of(source, "preferences")
        named = [
            _pick(columns, QID_NAMES, "query id", where),
            *(_pick(columns, (name,), name, where) for name in SHOWN_COLUMNS[1:]),
        ]
        for i in range(len(lines)):
            q, a, b, w = (str(columns[c][i]) for c in named)
            rows.append((q, a, b, w))
    elif isinstance(source, Iterable):
        where = None
        for i, row in enumerate(source, start=1):
            items = tuple(row)
            if len(items) != 4:
                raise InputError(
                    f"a preference is 4 fields (query, first, second, winner), not "
                    f"{len(items)}: {items!r}",
                    line=i,
                )
            rows.append((str(items[0]), str(items[1]), str(items[2]), str(items[3])))
            lines.append(i)
    else:
        raise InputError(
            "preferences must be a file, a DataFrame or rows (query, first, second, winner), "
            f"not {type(source).__name__}"
        )
    if not rows:
        raise EmptyInputError("the preferences table has no rows", path=where)
    winners: list[str | None] = []
    for (q, a, b, w), line in zip(rows, lines, strict=True):
        if a == b:
            raise InputError(
                f"query {q!r}: document {a!r} is compared with itself", path=where, line=line
            )
        if w not in (a, b, TIE):
            raise InputError(
                f"query {q!r}: the winner {w!r} is neither of the documents shown ({a!r}, "
                f"{b!r}) nor {TIE!r} (a tie)",
                path=where,
                line=line,
            )
        winners.append(None if w == TIE else w)
    return ShownPreferences(
        tuple(r[0] for r in rows),
        tuple(r[1] for r in rows),
        tuple(r[2] for r in rows),
        tuple(winners),
        tuple(lines),
        where,
    )
