"""Item codes of the recommender measures (:meth:`ranklens.ranking.items.ItemData.codes`):
the interned path (a column at least as long as the popularity data) and the looked-up
path (a shorter column, as a streamed chunk's top-k lists) give the codes of one
definition: a listed item's row in the popularity data, an unlisted one ``num_known`` plus
its rank of first appearance among the unlisted items of the column."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from ranklens.ranking.items import ItemData, encode

# NUL bytes (numpy's fixed-width strings drop trailing ones: the table path must take
# over) and ids longer than the binary search's width limit (65 x "b") among the rest
_IDS = st.one_of(
    st.text(alphabet="abcé\u4e2d0\x00", min_size=0, max_size=3),
    st.sampled_from(["b" * 65, "b" * 64, "a\x00", "a"]),
)
_PLAIN_IDS = st.text(alphabet="abcé\u4e2d0", min_size=0, max_size=4)


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


@settings(max_examples=150, deadline=None)
@given(
    known=st.lists(_PLAIN_IDS, unique=True, max_size=12),
    column=st.lists(
        st.one_of(_PLAIN_IDS, st.sampled_from(["a\x00", "\x00", "abcde"])), max_size=20
    ),
)
def test_a_nul_byte_or_a_longer_id_in_the_column_never_matches_a_listed_id(
    known: list[str], column: list[str]
) -> None:
    items = ItemData.of(dict.fromkeys(known, 1))
    assert items.codes(*encode(column)).tolist() == _expected(known, column)


def test_a_short_column_against_a_large_catalogue_is_looked_up() -> None:
    known = [f"item{i}" for i in range(1000)]
    items = ItemData.of(dict.fromkeys(known, 2))
    column = ["item999", "new", "item0", "new", "other", "item5"]
    assert items.codes(*encode(column)).tolist() == [999, 1000, 0, 1000, 1001, 5]
    long_column = column * 200  # longer than the catalogue: interned together with it
    assert items.codes(*encode(long_column)).tolist() == _expected(known, long_column)


@settings(max_examples=150, deadline=None)
@given(
    catalogue=st.dictionaries(_IDS, st.integers(0, 4), max_size=12),
    head_share=st.sampled_from([0.0, 0.2, 0.5, 0.99, 1.0]),
)
def test_long_tail_follows_its_definition(catalogue: dict[str, int], head_share: float) -> None:
    """Items ranked by popularity, highest first, equal popularity by id in byte order; the
    head is the shortest prefix holding ``head_share`` of the total; a zero-count item is
    always in the tail. (The byte order comes from the binary search's sorted keys where
    they exist, else from sorting the ids: ids with NUL bytes and long ids take the latter.)"""
    items = ItemData.of(dict(catalogue))
    known = list(catalogue)
    ranked = sorted(range(len(known)), key=lambda r: (-catalogue[known[r]], known[r].encode()))
    total = sum(catalogue.values())
    tail = [True] * len(known)
    if total > 0:
        running = 0
        for r in ranked:
            running += catalogue[known[r]]
            if catalogue[known[r]] > 0:
                tail[r] = False
            if running >= head_share * total:
                break
    assert items.long_tail(head_share).tolist() == tail


_INT_TEXTS = st.one_of(
    st.integers(0, 300).map(str),
    st.sampled_from(["017", "00", "-1", "+1", "", "1e2", "\u0663", "9" * 19, "12a"]),
)


@settings(max_examples=150, deadline=None)
@given(
    known=st.lists(st.integers(0, 250), unique=True, min_size=1, max_size=40),
    column=st.lists(_INT_TEXTS, max_size=60),
)
def test_a_catalogue_of_integer_ids_is_looked_up_by_value(
    known: list[int], column: list[str]
) -> None:
    """A catalogue whose ids are all plainly written integers is looked up by the integer
    each string writes (no string compared): the same codes, with ``017``, ``-1`` and the
    like never matching ``17`` or ``1``, on columns shorter and longer than the catalogue."""
    ids = [str(v) for v in known]
    items = ItemData.of(dict.fromkeys(ids, 1))
    assert items._rows_by_value() is not None  # the path under test is taken
    assert items.codes(*encode(column)).tolist() == _expected(ids, column)
    longer = column + ids[::-1]
    assert items.codes(*encode(longer)).tolist() == _expected(ids, longer)


def test_a_catalogue_that_is_not_all_plain_integers_is_looked_up_by_string() -> None:
    for ids in (["1", "017"], ["1", "x"], ["0", str(10**9)]):  # the last: too sparse
        items = ItemData.of(dict.fromkeys(ids, 1))
        assert items._rows_by_value() is None
        column = ["17", "017", "1", "x", str(10**9)]
        assert items.codes(*encode(column)).tolist() == _expected(ids, column)
