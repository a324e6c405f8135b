"""What the readers of a recommender's side data (popularity, training interactions, item
features) share about a table: the column names they look for, and the table as pandas."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

USER_NAMES = ("user_id", "user", "query_id", "qid")
"""Names of a user column, the first one present is read."""
ITEM_NAMES = ("item_id", "item", "doc_id", "docid", "docno", "document_id", "doc")
"""Names of an item column, the first one present is read."""
POPULARITY_COUNTS = ("users", "interactions")
"""What a measure's ``count=`` may name: an item's distinct training users, or its
interactions (:meth:`ranklens.ranking.items.ItemData.counts`); here, apart from the
readers, so that the measure declarations read it without importing them."""


def pandas_table(frame: Any) -> tuple[Any, list[str]]:
    """``frame`` (pandas, polars or pyarrow) as a pandas DataFrame, and its column names as
    strings."""
    if type(frame).__module__.split(".")[0] != "pandas":
        frame = frame.to_pandas()
    return frame, [str(c) for c in frame.columns]


def first_column(names: Sequence[str], columns: Sequence[str]) -> str | None:
    """The first of ``names`` among ``columns`` (``None``: none is)."""
    return next((c for c in names if c in columns), None)


def filled_column(frame: Any, column: str, what: str, source: str) -> Any:
    """The column ``column`` of the pandas DataFrame ``frame``, refused with the row of
    its first null (a null id would otherwise become the text ``"None"`` or ``"nan"``, an
    item of its own, or a crash).

    Raises
    ------
    InputError
        The column holds a null (also one hidden in a dictionary-encoded column).
    """
    from ranklens.base.errors import InputError

    values = frame[column]
    missing = values.isna().to_numpy()
    if missing.any():
        row = int(missing.argmax())
        raise InputError(
            f"{what} table: column {column!r} is null in row {row} (counted from 0); fill "
            "or drop that row",
            path=source,
        )
    return values
