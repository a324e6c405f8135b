"""Item codes of the recommender measures (:meth:`ranklens.ranking.items.ItemData.codes`):
the interned path (a column at least as long as the popularity data) and the looked-up
path (a shorter column, as a streamed chunk's top-k lists) give the codes of one
definition: a listed item's row in the popularity data, an unlisted one ``num_known`` plus
its rank of first appearance among the unlisted items of the column."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from ranklens.ranking.items import ItemData, encode

_IDS = st.text(alphabet="abcé\u4e2d0", min_size=0, max_size=3)


def _expected(known: list[str], column: list[str]) -> list[int]:
    rows = {item: row for row, item in enumerate(known)}
    unlisted: dict[str, int] = {}
    out = []
    for item in column:
        if item in rows:
            out.append(rows[item])
        else:
            out.append(len(known) + unlisted.setdefault(item, len(unlisted)))
    return out


@settings(max_examples=150, deadline=None)
@given(
    known=st.lists(_IDS, unique=True, max_size=12),
    column=st.lists(_IDS, max_size=20),
)
def test_codes_follow_one_definition_on_both_paths(known: list[str], column: list[str]) -> None:
    items = ItemData.of(dict.fromkeys(known, 1))
    codes = items.codes(*encode(column)).tolist()
    assert codes == _expected(known, column)
    # again: the looked-up path reuses its table of ids; the answer must not change
    assert items.codes(*encode(column)).tolist() == codes


def test_a_short_column_against_a_large_catalogue_is_looked_up() -> None:
    known = [f"item{i}" for i in range(1000)]
    items = ItemData.of(dict.fromkeys(known, 2))
    column = ["item999", "new", "item0", "new", "other", "item5"]
    assert items.codes(*encode(column)).tolist() == [999, 1000, 0, 1000, 1001, 5]
    long_column = column * 200  # longer than the catalogue: interned together with it
    assert items.codes(*encode(long_column)).tolist() == _expected(known, long_column)
