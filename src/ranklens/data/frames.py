"""Building qrels and runs from pandas and polars DataFrames (through Arrow, no row loop)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ranklens.base.errors import InputError
from ranklens.base.optional import require
from ranklens.data.memory import group_columns

QID_NAMES = ("query_id", "qid", "q_id", "query")
DOC_NAMES = ("doc_id", "docid", "docno", "document_id", "doc")
REL_NAMES = ("relevance", "rel", "label", "judgment", "grade")
SCORE_NAMES = ("score", "sim", "similarity")


def is_frame(obj: object) -> bool:
    """True for a pandas or polars DataFrame (checked without importing either)."""
    module = type(obj).__module__.split(".")[0]
    return module in ("pandas", "polars") and type(obj).__name__ == "DataFrame"


def _pick(columns: list[str], wanted: str | None, names: tuple[str, ...], what: str) -> str:
    if wanted is not None:
        if wanted not in columns:
            raise InputError(f"DataFrame has no column '{wanted}' (columns: {columns})")
        return wanted
    for name in names:
        if name in columns:
            return name
    raise InputError(
        f"DataFrame has no {what} column: name one of {list(names)} or pass the column name "
        f"(columns present: {columns})"
    )


def from_frame(
    frame: Any,
    integer: bool,
    qid_col: str | None = None,
    doc_col: str | None = None,
    value_col: str | None = None,
) -> dict[str, Any]:
    """Columns from a pandas (2 or 3) or polars DataFrame.

    Id columns may hold strings, categoricals or integers (converted with ``str``); the value
    column must be numeric without missing values. ``row`` in messages counts from 0.
    """
    pa = require("pyarrow", "Reading a DataFrame")
    pc = require("pyarrow.compute", "Reading a DataFrame")
    module = type(frame).__module__.split(".")[0]
    table = frame.to_arrow() if module == "polars" else pa.Table.from_pandas(frame)
    columns = [str(c) for c in table.column_names]
    values_names = REL_NAMES if integer else SCORE_NAMES
    qname = _pick(columns, qid_col, QID_NAMES, "query id")
    dname = _pick(columns, doc_col, DOC_NAMES, "document id")
    vname = _pick(columns, value_col, values_names, "relevance" if integer else "score")
    source = "<DataFrame>"

    def as_strings(name: str) -> Any:
        column = table.column(name)
        if pa.types.is_dictionary(column.type):
            column = column.cast(column.type.value_type)
        column = column.cast(pa.large_string()).combine_chunks()
        if column.null_count:
            row = int(pc.index(pc.is_null(column), True).as_py())
            raise InputError(f"column '{name}' has a missing value", path=source, line=row)
        return column

    qids = as_strings(qname)
    docs = as_strings(dname)
    encoded = pc.dictionary_encode(qids)
    codes = encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64)
    uniques = encoded.dictionary.to_pylist()
    if docs.offset:
        docs = pa.concat_arrays([docs])  # zero the array offset
    _, offsets_buf, data_buf = docs.buffers()
    doc_offsets = np.frombuffer(offsets_buf, dtype=np.int64)[: len(docs) + 1].copy()
    doc_offsets -= doc_offsets[0]
    doc_data = (
        np.frombuffer(data_buf, dtype=np.uint8).copy()
        if data_buf is not None
        else np.zeros(0, np.uint8)
    )
    values_col = table.column(vname).combine_chunks()
    if values_col.null_count:
        row = int(pc.index(pc.is_null(values_col), True).as_py())
        raise InputError(f"column '{vname}' has a missing value", path=source, line=row)
    try:
        values = np.asarray(values_col.to_numpy(zero_copy_only=False), dtype=np.float64)
    except (TypeError, ValueError, pa.ArrowInvalid):
        raise InputError(f"column '{vname}' must be numeric", path=source) from None
    bad = (
        ~np.isfinite(values) if not integer else (values != np.trunc(values)) | ~np.isfinite(values)
    )
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        what = "an integer" if integer else "a finite number"
        raise InputError(
            f"column '{vname}' value {values[row]!r} is not {what}", path=source, line=row
        )
    typed = values.astype(np.int64) if integer else values
    return group_columns(
        codes, uniques, doc_data, doc_offsets, typed, np.arange(len(docs), dtype=np.int64), source
    )
