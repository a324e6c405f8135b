"""ranklens.dask.evaluate on a DataFrame run whose partitions hold its rows grouped by
query: each partition evaluated where it lies (no shuffle), the queries cut between
partitions finished on the client; the Results ``==`` ``ranklens.evaluate`` on the same
rows. What this cannot evaluate goes to the shuffle, with the same Results or error."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

import ranklens
from dask_support import local_client, ways_taken
from scale_data import MEASURES, MEASURES_FIXED, make_case, repeated, same

pd = pytest.importorskip("pandas")
pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
dd = pytest.importorskip("dask.dataframe", reason="the Dask tests need dask[dataframe]")
pytest.importorskip("distributed", reason="the Dask tests need distributed")
dask = pytest.importorskip("dask")

import ranklens.dask as rdask  # noqa: E402
from ranklens.base.errors import InputError  # noqa: E402


@pytest.fixture(scope="module")
def dask_client() -> Iterator[Any]:
    """Three single-threaded worker processes with a memory limit each."""
    yield from local_client(3)


@pytest.fixture
def in_place(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Records, for each evaluation of a DataFrame, whether it was evaluated where it lies
    (True) or left to the shuffle (False)."""
    return ways_taken(monkeypatch, "evaluate_frame")


def cut(frame: Any, cuts: list[int]) -> Any:
    """A Dask DataFrame of ``frame``'s rows cut at ``cuts`` (empty partitions allowed)."""
    bounds = [0, *cuts, len(frame)]
    pieces = [frame.iloc[a:b].reset_index(drop=True) for a, b in itertools.pairwise(bounds)]
    return dd.from_delayed(
        [dask.delayed(p) for p in pieces], meta=frame.iloc[:0], verify_meta=False
    )


def frames(rows: list[tuple[str, str, float]], qrels: list[tuple[str, str, int]]) -> Any:
    return (
        pd.DataFrame(qrels, columns=["query_id", "doc_id", "relevance"]),
        pd.DataFrame(rows, columns=["query_id", "doc_id", "score"]),
    )


@pytest.mark.parametrize(
    ("seed", "options"),
    [
        (1, {}),
        (2, {"ties": "input", "queries": "both", "depth": 5}),
        (3, {"queries": "run", "ties": "rank"}),
        (4, {"duplicates": "first", "ties": "input"}),
        (5, {"duplicates": "max", "queries": "run"}),
    ],
)
def test_a_grouped_frame_equals_one_machine_wherever_it_is_cut(
    dask_client: Any, in_place: list[bool], seed: int, options: Any
) -> None:
    """Cuts at random rows (inside queries, empty partitions, a partition of one query or
    one row): every value, mean and count ``==`` ``ranklens.evaluate``; ERR's default
    ``g_max`` with ``queries="qrels"`` in place, with the others by the shuffle."""
    case = make_case(seed)
    rows = repeated(case, seed) if "duplicates" in options else case.run
    q, r = frames(rows, case.qrels)
    r = r.assign(rank=np.arange(len(r), 0, -1))
    expected = ranklens.evaluate(q, r, MEASURES, **options)
    rng = np.random.default_rng(seed)
    for parts in (2, 3, 17):
        cuts = sorted(rng.choice(len(r), size=parts - 1, replace=True).tolist())
        same(rdask.evaluate(q, cut(r, cuts), MEASURES, **options), expected)
    fixed = ranklens.evaluate(q, r, MEASURES_FIXED, **options)
    same(rdask.evaluate(q, cut(r, [5, 5, 60]), MEASURES_FIXED, **options), fixed)
    err_default_in_place = options.get("queries", "qrels") == "qrels"
    assert in_place == [err_default_in_place] * 3 + [True]


def test_ids_of_other_types_and_a_parquet_read(
    dask_client: Any, in_place: list[bool], tmp_path: Any
) -> None:
    """Integer query ids in the run (strings in the qrels), categorical document ids, and
    ``dd.read_parquet`` of a grouped file: in place, the in-memory Results."""
    case = make_case(6)
    numbered = {q: str(1000 + k) for k, q in enumerate(dict.fromkeys(q for q, _, _ in case.run))}
    rows = [(numbered[q], d, s) for q, d, s in case.run]
    qrels = [(numbered.get(q, q), d, g) for q, d, g in case.qrels]
    q, r = frames(rows, qrels)
    r_typed = r.assign(query_id=r["query_id"].astype(int), doc_id=r["doc_id"].astype("category"))
    expected = ranklens.evaluate(q, r, MEASURES)
    same(rdask.evaluate(q, cut(r_typed, [40, 41, 90]), MEASURES), expected)
    path = tmp_path / "run.parquet"
    pq.write_table(pa.Table.from_pandas(r, preserve_index=False), path, row_group_size=37)
    same(rdask.evaluate(q, dd.read_parquet(str(path), split_row_groups=True), MEASURES), expected)
    assert in_place == [True, True]


def test_what_cannot_be_evaluated_in_place_goes_to_the_shuffle(
    dask_client: Any, in_place: list[bool]
) -> None:
    """A run whose first rows are not grouped (the look), one whose rows are grouped in
    the first rows but not further on (a partition's rows, and a query in two
    partitions), a run of one partition, and declared or refused partitioning: the
    shuffle's Results."""
    case = make_case(7)
    q, r = frames(case.run, case.qrels)
    moved = pd.concat([r.iloc[1:40], r.iloc[[0]], r.iloc[40:]], ignore_index=True)
    late = pd.concat([r.iloc[:100], r.iloc[[len(r) - 1]], r.iloc[100:-1]], ignore_index=True)
    inner = late.iloc[100]["query_id"]
    assert (late.iloc[:100]["query_id"] != inner).all()
    for frame, cuts in ((moved, [50]), (late, [60]), (late, [20, 101, 150])):
        same(
            rdask.evaluate(q, cut(frame, cuts), MEASURES),
            ranklens.evaluate(q, frame, MEASURES),
        )
    same(rdask.evaluate(q, cut(r, []), MEASURES), ranklens.evaluate(q, r, MEASURES))
    assert in_place == [False, False, False, False]  # the last: one partition, nothing to spread
    in_place.clear()
    boundary = next(k for k in range(30, len(r)) if r.iloc[k - 1, 0] != r.iloc[k, 0])
    for declared in (True, False):  # declared: each query in one partition, checked there
        same(
            rdask.evaluate(q, cut(r, [boundary]), MEASURES, partitioned_by_query=declared),
            ranklens.evaluate(q, r, MEASURES),
        )
    assert in_place == []


def test_errors_are_the_shuffles(dask_client: Any, in_place: list[bool]) -> None:
    """A repeated document (inside a partition, and cut between two), a missing score, a
    missing query id, a repeated judgment: the shuffle's error (class, message, row)."""
    case = make_case(9)
    q, r = frames(case.run, case.qrels)
    inside = pd.concat([r.iloc[:3], r.iloc[[2]], r.iloc[3:]], ignore_index=True)
    first = r.iloc[0]["query_id"]
    span = int((r["query_id"] == first).sum())
    across = pd.concat([r.iloc[:span], r.iloc[[0]], r.iloc[span:]], ignore_index=True)
    no_score = r.assign(score=r["score"].where(r.index != 70, None))
    no_id = r.assign(query_id=r["query_id"].where(r.index != 80, None))
    cases = [
        (q, inside, [50]),
        (q, across, [span - 1]),
        (q, no_score, [50]),
        (q, no_id, [50]),
        (pd.concat([q, q.iloc[[5]]], ignore_index=True), r, [50]),
    ]
    for qrels, frame, cuts in cases:
        with pytest.raises(InputError) as shuffled:
            rdask.evaluate(qrels, cut(frame, cuts), ["AP"], partitioned_by_query=False)
        with pytest.raises(InputError) as got:
            rdask.evaluate(qrels, cut(frame, cuts), ["AP"])
        assert type(got.value) is type(shuffled.value)
        assert (str(got.value), got.value.line) == (str(shuffled.value), shuffled.value.line)
    assert in_place == [False] * len(cases)
