"""``GradeCounts.select`` (the qrels' grade counts of a streamed chunk's queries, by binary
search) against the definition: for each requested row in order, that query's (grade,
count) rows, renumbered to the row's position."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from ranklens.ranking.align import GradeCounts


@settings(max_examples=200, deadline=None)
@given(
    judgments=st.lists(st.tuples(st.integers(0, 6), st.integers(-2, 4)), min_size=0, max_size=40),
    data=st.data(),
)
def test_select_is_the_definition(judgments: list[tuple[int, int]], data: st.DataObject) -> None:
    num_queries = 7
    qidx = np.array([q for q, _ in judgments], dtype=np.int64)
    rels = np.array([g for _, g in judgments], dtype=np.int64)
    counts = GradeCounts.of(qidx, rels, num_queries)
    rows = data.draw(
        st.lists(st.integers(-1, num_queries - 1), max_size=num_queries).map(
            lambda xs: [x for i, x in enumerate(xs) if x < 0 or x not in xs[:i]]  # distinct
        )
    )
    got = counts.select(np.array(rows, dtype=np.int64))
    expected = [
        (position, grade, count)
        for position, row in enumerate(rows)
        for query, grade, count in zip(
            counts.query.tolist(), counts.grade.tolist(), counts.count.tolist(), strict=True
        )
        if row >= 0 and query == row
    ]
    found = zip(got.query.tolist(), got.grade.tolist(), got.count.tolist(), strict=True)
    assert list(found) == expected
    assert got.num_queries == len(rows)
    assert got.query.dtype == got.grade.dtype == got.count.dtype == np.int64
