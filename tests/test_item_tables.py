"""The recommender's side tables (popularity, training interactions, item features) refuse
a null id or count with the row, instead of reading it as the text "None" / "nan" (an
item of its own) or crashing; a null hidden in a dictionary-encoded Arrow column too."""

from __future__ import annotations

import pandas as pd
import pyarrow as pa
import pytest

import ranklens
from ranklens.base.errors import InputError

QRELS = pd.DataFrame({"user_id": ["u1", "u2"], "item_id": ["a", "b"], "relevance": [1, 1]})
RUN = pd.DataFrame({"user_id": ["u1", "u1", "u2"], "item_id": ["a", "b", "a"], "score": [2, 1, 1]})


def _dictionary(values: list[str | None]) -> pa.Array:
    return pa.array(values).dictionary_encode()


@pytest.mark.parametrize(
    ("keyword", "table", "measure"),
    [
        ("popularity", pa.table({"item_id": _dictionary(["a", None]), "count": [3, 1]}), "ARP@2"),
        ("popularity", pd.DataFrame({"item_id": ["a", "b"], "count": [3.0, None]}), "ARP@2"),
        (
            "popularity",
            pd.DataFrame({"user_id": ["u1", None], "item_id": ["a", "b"]}),
            "ARP@2",
        ),
        (
            "train",
            pa.table({"user_id": ["u1", "u2"], "item_id": _dictionary(["a", None])}),
            "PopRSP@2",
        ),
        (
            "item_features",
            pa.table({"item_id": _dictionary(["a", None]), "f1": [1.0, 0.0], "f2": [0.0, 1.0]}),
            "ILD@2",
        ),
    ],
)
def test_a_null_in_a_side_table_is_refused_with_its_row(
    keyword: str, table: object, measure: str
) -> None:
    extra = {"num_items": 3} if keyword == "train" else {}
    with pytest.raises(InputError, match=r"is null in row 1 \(counted from 0\)"):
        ranklens.evaluate(QRELS, RUN, [measure], **{keyword: table}, **extra)


def test_the_same_tables_without_nulls_are_read() -> None:
    res = ranklens.evaluate(
        QRELS,
        RUN,
        ["ARP@2"],
        popularity=pa.table({"item_id": _dictionary(["a", "b"]), "count": [3, 1]}),
    )
    # u1 shows a (3) and b (1), u2 shows a (3): (2 + 3) / 2
    assert res.aggregate["ARP@2"] == pytest.approx(2.5)
