"""Building qrels and runs from Python objects: dicts of dicts and (qid, docid, value) records."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from numbers import Integral, Real
from typing import Any

import numpy as np

from ranklens.base.errors import EmptyInputError, InputError
from ranklens.data.native import core as _core


def group_columns(
    qid_codes: np.ndarray,
    uniques: list[str],
    doc_data: np.ndarray,
    doc_offsets: np.ndarray,
    values: np.ndarray,
    lines: np.ndarray,
    source: str,
) -> dict[str, Any]:
    """Group entries by query (queries in byte order, entries in input order).

    ``qid_codes[i]`` indexes ``uniques``, which may be in any order.
    """
    if len(uniques) == 0:
        raise EmptyInputError("holds no entries", path=source)
    order_of_unique = sorted(range(len(uniques)), key=uniques.__getitem__)
    rank_of = np.empty(len(uniques), dtype=np.int64)
    rank_of[np.asarray(order_of_unique, dtype=np.int64)] = np.arange(len(uniques))
    codes = rank_of[np.asarray(qid_codes, dtype=np.int64)]
    order, q_offsets = _core.group_by_query(codes, len(uniques))
    doc_data, doc_offsets = _core.take_strings(doc_data, doc_offsets, order)
    return {
        "qids": tuple(uniques[i] for i in order_of_unique),
        "q_offsets": q_offsets,
        "doc_data": doc_data,
        "doc_offsets": doc_offsets,
        "lines": np.ascontiguousarray(lines[order]),
        "source": source,
        "values": np.ascontiguousarray(values[order]),
    }


def check_value(value: object, integer: bool, where: str, source: str, row: int) -> float | int:
    """Validate one relevance (``integer``) or score value."""
    if isinstance(value, bool) or not isinstance(value, Real):
        what = "relevance" if integer else "score"
        raise InputError(f"{where}: {what} {value!r} is not a number", path=source, line=row)
    if integer:
        if isinstance(value, Integral):
            return int(value)
        number = float(value)
        if math.isfinite(number) and number == int(number):
            return int(number)
        raise InputError(f"{where}: relevance {value!r} is not an integer", path=source, line=row)
    number = float(value)
    if not math.isfinite(number):
        raise InputError(f"{where}: score {value!r} is not finite", path=source, line=row)
    return number


def from_records(
    records: Iterable[tuple[object, object, object]], integer: bool, source: str
) -> dict[str, Any]:
    """Columns from ``(qid, docid, value)`` tuples; ``row`` in messages counts from 1."""
    index: dict[str, int] = {}
    codes: list[int] = []
    docs: list[str] = []
    values: list[float | int] = []
    for row, record in enumerate(records, start=1):
        try:
            qid, docid, value = record
        except (TypeError, ValueError):
            raise InputError(
                f"expected a (qid, docid, value) tuple, got {record!r}", path=source, line=row
            ) from None
        if not isinstance(qid, str) or not isinstance(docid, str):
            raise InputError(
                f"query and document ids must be str, got {type(qid).__name__} and "
                f"{type(docid).__name__}",
                path=source,
                line=row,
            )
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
        np.arange(1, len(docs) + 1, dtype=np.int64),
        source,
    )


def from_dict(
    mapping: Mapping[str, Mapping[str, object]], integer: bool, source: str
) -> dict[str, Any]:
    """Columns from ``{qid: {docid: value}}``."""

    def records() -> Iterable[tuple[object, object, object]]:
        for qid, docs in mapping.items():
            if not isinstance(docs, Mapping):
                raise InputError(
                    f"query '{qid}': expected a dict of document -> value, got "
                    f"{type(docs).__name__}",
                    path=source,
                )
            for docid, value in docs.items():
                yield qid, docid, value

    return from_records(records(), integer, source)
