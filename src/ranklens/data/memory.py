"""Building qrels and runs from Python objects: dicts of dicts and (qid, docid, value) records."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from numbers import Integral, Real
from typing import Any

import numpy as np

from ranklens.base.errors import DuplicateError, EmptyInputError, InputError
from ranklens.data.native import core as _core

_NATIVE_KINDS = {np.dtype(np.int64): "int64", np.dtype(np.float64): "float64"}


def taken(values: np.ndarray, index: np.ndarray) -> np.ndarray:
    """``values[index]`` for valid indices, int64 and float64 columns into an array of the
    native core's allocator: numpy advises huge pages for every array of 4 MiB or more,
    which where memory is fragmented makes first touching it stall (see data/native)."""
    kind = _NATIVE_KINDS.get(values.dtype)
    if kind is None or values.ndim != 1:
        fancy: np.ndarray = values[index]
        return fancy
    out: np.ndarray = _core.empty(index.shape[0], kind)  # type: ignore[call-overload]
    np.take(values, index, out=out, mode="clip")  # clip: out is not buffered
    return out


def group_columns(
    qid_codes: np.ndarray,
    uniques: list[str],
    doc_data: np.ndarray,
    doc_offsets: np.ndarray,
    values: np.ndarray,
    first_line: int,
    source: str,
    *,
    all_used: bool = False,
    allow_empty: bool = False,
    lines: np.ndarray | None = None,
) -> dict[str, Any]:
    """Group entries by query (queries in byte order, entries in input order).

    ``qid_codes[i]`` indexes ``uniques``, which may be in any order and may hold ids no
    entry uses (unused categories), which are dropped (``all_used`` says there are none).
    Entry ``i`` came from line (row) ``first_line + i``, or ``lines[i]`` when given.
    Entries already grouped in query order (as most runs are) are not moved. No entry at
    all is an :class:`~ranklens.base.errors.EmptyInputError` unless ``allow_empty``.
    """
    codes = np.asarray(qid_codes, dtype=np.int64)
    if codes.shape[0] == 0:
        if allow_empty:
            return {
                "qids": (),
                "q_offsets": np.zeros(1, dtype=np.int64),
                "doc_data": np.zeros(0, dtype=np.uint8),
                "doc_offsets": np.zeros(1, dtype=np.int64),
                "lines": np.zeros(0, dtype=np.int64),
                "source": source,
                "values": np.zeros(0, dtype=values.dtype),
            }
        raise EmptyInputError("holds no entries", path=source)
    if not all_used:
        used = np.bincount(codes, minlength=len(uniques)) > 0
        if not used.all():
            kept = np.flatnonzero(used)
            renumber = np.full(len(uniques), -1, dtype=np.int64)
            renumber[kept] = np.arange(kept.shape[0])
            codes = renumber[codes]
            uniques = [uniques[i] for i in kept.tolist()]
    order_of_unique = sorted(range(len(uniques)), key=uniques.__getitem__)
    if order_of_unique != list(range(len(uniques))):
        rank_of = np.empty(len(uniques), dtype=np.int64)
        rank_of[np.asarray(order_of_unique, dtype=np.int64)] = np.arange(len(uniques))
        codes = taken(rank_of, codes)
    if codes.shape[0] < 2 or bool(np.all(codes[1:] >= codes[:-1])):
        q_offsets = np.zeros(len(uniques) + 1, dtype=np.int64)
        np.cumsum(np.bincount(codes, minlength=len(uniques)), out=q_offsets[1:])
        if lines is None:  # first_line, first_line + 1, ...
            lines = _core.ranges(np.array([first_line]), np.array([codes.shape[0]]))
    else:
        order, q_offsets = _core.group_by_query(codes, len(uniques))
        doc_data, doc_offsets = _core.take_strings(doc_data, doc_offsets, order)
        values = taken(values, order)
        if lines is not None:
            lines = taken(lines, order)
        else:
            lines = np.add(order, first_line, out=order) if first_line else order
    return {
        "qids": tuple(map(uniques.__getitem__, order_of_unique)),
        "q_offsets": q_offsets,
        "doc_data": np.ascontiguousarray(doc_data),
        "doc_offsets": np.ascontiguousarray(doc_offsets),
        "lines": lines,
        "source": source,
        "values": np.ascontiguousarray(values),
    }


def check_value(value: object, integer: bool, where: str, source: str, row: int) -> float | int:
    """Validate one relevance (``integer``) or score value."""
    if isinstance(value, bool) or not isinstance(value, Real):
        what = "relevance" if integer else "score"
        raise InputError(f"{where}: {what} {value!r} is not a number", path=source, line=row)
    if integer:
        if isinstance(value, Integral):
            grade = int(value)
        else:
            number = float(value)
            if not (math.isfinite(number) and number == int(number)):
                raise InputError(
                    f"{where}: relevance {value!r} is not an integer", path=source, line=row
                )
            grade = int(number)
        if not -(2**63) <= grade < 2**63:
            raise InputError(
                f"{where}: relevance {value!r} does not fit a 64-bit integer",
                path=source,
                line=row,
            )
        return grade
    try:
        number = float(value)
    except OverflowError:
        number = math.inf
    if not math.isfinite(number):
        raise InputError(f"{where}: score {value!r} is not finite", path=source, line=row)
    return number


def id_text(value: object) -> str | None:
    """An id as a string: a str as it is, an integer (Python or numpy) as its decimal
    digits; ``None`` for anything else."""
    if isinstance(value, str):
        return value
    if isinstance(value, Integral) and not isinstance(value, bool):
        return str(int(value))
    return None


def is_text(value: str) -> bool:
    """Whether ``value`` can be written as UTF-8 (it holds no lone surrogate)."""
    if value.isascii():
        return True
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def check_ids(qid: object, docid: object, source: str, row: int | None) -> tuple[str, str]:
    """The query and document ids of one entry as strings (see :func:`id_text`).

    Raises
    ------
    InputError
        An id that is neither a str nor an integer, or a str with a lone surrogate."""
    qid_text, doc_text = id_text(qid), id_text(docid)
    if qid_text is None or doc_text is None:
        raise InputError(
            f"query and document ids must be str or int, got {type(qid).__name__} and "
            f"{type(docid).__name__}",
            path=source,
            line=row,
        )
    for what, text in (("query", qid_text), ("document", doc_text)):
        if not is_text(text):
            raise InputError(
                f"{what} id {text!r} holds a lone surrogate, which is not text (UTF-8 cannot "
                "write it); decode the ids with errors='strict' or 'replace'",
                path=source,
                line=row,
            )
    return qid_text, doc_text


def from_records(
    records: Iterable[tuple[object, object, object]],
    integer: bool,
    source: str,
    *,
    allow_empty: bool = False,
    lines: np.ndarray | None = None,
) -> dict[str, Any]:
    """Columns from ``(qid, docid, value)`` tuples; ``row`` in messages counts from 1, or
    is ``lines[i]`` for the ``i``-th record (a file's line numbers) when given.

    Ids are strings, or integers (Python or numpy), kept as their decimal digits; an id
    with a lone surrogate (not UTF-8 text) is an error."""
    index: dict[str, int] = {}
    codes: list[int] = []
    docs: list[str] = []
    values: list[float | int] = []
    line_of = None if lines is None else lines.tolist()
    for count, record in enumerate(records, start=1):
        row = count if line_of is None else line_of[count - 1]
        try:
            qid, docid, value = record
        except (TypeError, ValueError):
            raise InputError(
                f"expected a (qid, docid, value) tuple, got {record!r}", path=source, line=row
            ) from None
        qid, docid = check_ids(qid, docid, source, row)
        codes.append(index.setdefault(qid, len(index)))
        docs.append(docid)
        values.append(
            check_value(value, integer, f"query '{qid}', document '{docid}'", source, row)
        )
    doc_data, doc_offsets = _core.encode_strings(docs)
    dtype = np.int64 if integer else np.float64
    return group_columns(
        np.asarray(codes, dtype=np.int64),
        list(index),
        doc_data,
        doc_offsets,
        np.asarray(values, dtype=dtype),
        1,
        source,
        all_used=True,
        allow_empty=allow_empty,
        lines=None if lines is None else np.asarray(lines, dtype=np.int64),
    )


def _insertion_rows(mapping: Mapping[Any, Any], keys: list[Any], counts: np.ndarray) -> np.ndarray:
    """The 1-based row of each entry in the mapping's own iteration order, for entries
    read query by query in the order of ``keys``."""
    position = {key: i for i, key in enumerate(mapping)}
    where = np.fromiter((position[key] for key in keys), dtype=np.int64, count=len(keys))
    in_order = np.zeros(len(keys), dtype=np.int64)
    in_order[where] = counts
    starts = np.cumsum(in_order) - in_order
    rows: np.ndarray = _core.ranges(starts[where] + 1, counts)
    return rows


def plain_dict_columns(
    mapping: object,
    integer: bool,
    source: str,
    *,
    allow_empty: bool = False,
    rows: bool = True,
) -> dict[str, Any] | None:
    """The columns of :func:`from_dict` when ``mapping`` is a plain ``dict`` of ``dict``
    that the native core reads in one walk (``str`` ids that are text, ``float`` or
    ``int`` scores that are finite, or ``int`` grades that fit 64 bits), else ``None``
    (nothing raised: :func:`from_dict`'s checked path then says what is wrong).

    ``rows=False`` keeps no row numbers (``lines`` is ``None``; for callers whose messages
    never name a row) and groups the columns without a pass over the entries: the walk
    visited the queries in byte order already."""
    keys: list[Any] | None = None
    if type(mapping) is dict:
        try:  # visit the queries in byte order, so that nothing is moved afterwards
            keys = sorted(mapping)
        except TypeError:  # ids of several types: the checked path says which is wrong
            keys = None
    fast = _core.dict_columns(mapping, integer, keys)
    if fast is None:
        return None
    qids, counts, doc_data, doc_offsets, values = fast
    if not rows and keys is not None:  # grouped in byte order already: offsets suffice
        if doc_offsets.shape[0] == 1 and not allow_empty:
            raise EmptyInputError("holds no entries", path=source)
        used = counts > 0  # (a query without entries is no query)
        q_offsets = np.zeros(int(np.count_nonzero(used)) + 1, dtype=np.int64)
        np.cumsum(counts[used], out=q_offsets[1:])
        kept = zip(qids, used.tolist(), strict=True)
        return {
            "qids": tuple(qids) if bool(used.all()) else tuple(q for q, keep in kept if keep),
            "q_offsets": q_offsets,
            "doc_data": doc_data,
            "doc_offsets": doc_offsets,
            "lines": None,
            "source": source,
            "values": values,
            "unique": True,  # str keys of plain dicts: no id twice
        }
    codes = _core.ranges(np.arange(len(qids), dtype=np.int64), counts, 0)
    # rows are numbered in the dict's own order (the walk visited the queries sorted)
    lines = None
    if keys is not None and rows and isinstance(mapping, dict):
        lines = _insertion_rows(mapping, keys, counts)
    # str keys of plain dicts: no id twice
    return group_columns(
        codes,
        qids,
        doc_data,
        doc_offsets,
        values,
        1,
        source,
        allow_empty=allow_empty,
        lines=lines,
    ) | {"unique": True}


def from_dict(
    mapping: Mapping[str, Mapping[str, object]],
    integer: bool,
    source: str,
    *,
    allow_empty: bool = False,
    duplicates: str = "error",
) -> dict[str, Any]:
    """Columns from ``{qid: {docid: value}}``.

    The native core reads a dict of dicts with str ids and float/int values in one walk;
    anything else (integer ids, numpy scalars, a bad value) takes the checked path below,
    which gives the same columns or the error that names the query and document.

    Keys of different types can name the same id (``"1"`` and ``1``): two such document
    keys are a repeated (query, document) pair, which the caller resolves by its
    ``duplicates`` policy (the columns are not marked ``unique``); two such query keys are
    a :class:`~ranklens.base.errors.DuplicateError` under ``duplicates="error"``, and
    their documents are read as one query's otherwise.
    """
    fast = plain_dict_columns(mapping, integer, source, allow_empty=allow_empty)
    if fast is not None:
        return fast

    def records() -> Iterable[tuple[object, object, object]]:
        seen: dict[str, object] = {}
        for qid, docs in mapping.items():
            text = id_text(qid)
            if text is not None and duplicates == "error":
                other = seen.setdefault(text, qid)
                if other is not qid:
                    raise DuplicateError(
                        f"query id '{text}' is given twice, as the keys {other!r} and {qid!r}; "
                        "merge them, or choose duplicates='first' or 'max' to read them as "
                        "one query",
                        path=source,
                        query=text,
                    )
            if not isinstance(docs, Mapping):
                raise InputError(
                    f"query '{qid}': expected a dict of document -> value, got "
                    f"{type(docs).__name__}",
                    path=source,
                )
            for docid, value in docs.items():
                yield qid, docid, value

    return from_records(records(), integer, source, allow_empty=allow_empty)
