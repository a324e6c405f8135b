"""ranklens.dask.evaluate on a Parquet run given by its path and grouped by query: the Dask
tasks read its row groups with Arrow and evaluate them where they are (no shuffle); the
Results ``==`` the single machine's on the same file. What this cannot evaluate (a run not
grouped by query, too many qrels, an error in the input) goes to the shuffle, which gives
the same Results and names errors as it always has."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import ranklens
from dask_support import local_client, ways_taken
from scale_data import MEASURES, PATH_CASES, broken_runs, make_case, repeated, run_table, same

pd = pytest.importorskip("pandas")
pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
dd = pytest.importorskip("dask.dataframe", reason="the Dask tests need dask[dataframe]")
pytest.importorskip("distributed", reason="the Dask tests need distributed")

import ranklens.dask as rdask  # noqa: E402
from ranklens.base.errors import DuplicateError, InputError  # noqa: E402
from ranklens.scale import dask_files, parquet_units  # noqa: E402


@pytest.fixture(scope="module")
def dask_client() -> Iterator[Any]:
    """Three worker processes of one thread each, with a memory limit each (standing in
    for nodes)."""
    yield from local_client(3)


@pytest.fixture
def small_units(monkeypatch: pytest.MonkeyPatch) -> None:
    """One unit (one task) per row group, so that queries are cut between tasks."""
    monkeypatch.setattr(parquet_units, "UNIT_ROWS", (1, 1))


@pytest.fixture
def by_units(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Records, for each evaluation, whether the tasks read the files (True) or the
    shuffle was left to do it (False)."""
    return ways_taken(monkeypatch, "evaluate_parquet")


def qrels_frame(case: Any) -> Any:
    return pd.DataFrame(case.qrels, columns=["query_id", "doc_id", "relevance"])


def test_without_a_client_the_threads_compute_it(
    small_units: None, by_units: list[bool], tmp_path: Path
) -> None:
    """Dask's local threads (no distributed client): the same Results."""
    case = make_case(31)
    path = tmp_path / "run.parquet"
    pq.write_table(run_table(case.run), path, row_group_size=47)
    assert dask_files.active_client() is None
    same(
        rdask.evaluate(qrels_frame(case), str(path), MEASURES),
        ranklens.evaluate(case.qrels, case.run, MEASURES),
    )
    assert by_units == [True]


@pytest.mark.parametrize(("seed", "row_group", "options"), PATH_CASES)
def test_a_parquet_run_by_path_equals_one_machine(
    dask_client: Any,
    small_units: None,
    by_units: list[bool],
    tmp_path: Path,
    seed: int,
    row_group: int,
    options: Any,
) -> None:
    """Every value, mean and count ``==`` ``ranklens.evaluate`` on the same file (ERR's
    default ``g_max`` under every ``queries=`` included); qrels as a pandas DataFrame, a
    Dask DataFrame or a Parquet path; queries cut between tasks."""
    case = make_case(seed)
    rows = repeated(case, seed) if "duplicates" in options else case.run
    path = tmp_path / "run.parquet"
    pq.write_table(run_table(rows, ranks=True), path, row_group_size=row_group)
    expected = ranklens.evaluate(case.qrels, str(path), MEASURES, **options)
    qrels = qrels_frame(case)
    q_path = tmp_path / "qrels.parquet"
    qrels.to_parquet(q_path, index=False)
    forms = (qrels, dd.from_pandas(qrels, npartitions=3), str(q_path)) if seed == 1 else (qrels,)
    for given in forms:
        got = rdask.evaluate(given, str(path), MEASURES, **options)
        same(got, expected)
    assert by_units == [True] * len(forms)


def test_a_dataset_directory_a_glob_and_other_column_names(
    dask_client: Any, small_units: None, by_units: list[bool], tmp_path: Path
) -> None:
    """A directory of files (queries cut between files, a file of one row), a glob, and
    columns of other names on both sides."""
    case = make_case(7)
    folder = tmp_path / "parts"
    folder.mkdir()
    cuts = [0, 5, 6, 40, 41, 100, len(case.run)]
    for k, (a, b) in enumerate(itertools.pairwise(cuts)):
        pq.write_table(run_table(case.run[a:b]), folder / f"part-{k}.parquet", row_group_size=30)
    expected = ranklens.evaluate(case.qrels, case.run, MEASURES)
    qrels = qrels_frame(case)
    for source in (str(folder), str(folder / "part-*.parquet")):
        same(rdask.evaluate(qrels, source, MEASURES), expected)
    renamed = tmp_path / "renamed.parquet"
    pq.write_table(run_table(case.run).rename_columns(["q", "d", "s"]), renamed, 33)
    q_renamed = qrels.rename(columns={"query_id": "topic", "doc_id": "doc", "relevance": "g"})
    got = rdask.evaluate(
        q_renamed,
        str(renamed),
        MEASURES,
        qrels_cols=("topic", "doc", "g"),
        run_cols=("q", "d", "s"),
    )
    same(got, expected)
    assert by_units == [True, True, True]


def test_run_level_measures_from_a_path(
    dask_client: Any, small_units: None, by_units: list[bool], tmp_path: Path
) -> None:
    """Coverage and Gini from the tasks' states, PSP from the popularity given."""
    case = make_case(8)
    path = tmp_path / "run.parquet"
    pq.write_table(run_table(case.run), path, row_group_size=45)
    measures = ["Coverage@5", "Gini@5", "PSP@5", "nDCG@5"]
    counts = {f"d{k}": k + 1 for k in range(60)}
    options = {"popularity": counts, "num_items": 200, "num_users": 500}
    expected = ranklens.evaluate(case.qrels, case.run, measures, **options)
    got = rdask.evaluate(qrels_frame(case), str(path), measures, **options)
    same(got, expected)
    assert got.run_statistics.keys() == expected.run_statistics.keys()
    assert by_units == [True]


def test_what_the_tasks_cannot_read_goes_to_the_shuffle(
    dask_client: Any,
    small_units: None,
    by_units: list[bool],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A run not grouped by query (a query back inside one task's rows, or in the middle
    of two tasks' rows), qrels with more rows than the client takes, ``ties="rank"``
    without a rank column, and ``partitioned_by_query=False``: the shuffle's Results (or
    its error)."""
    case = make_case(10)
    qrels = qrels_frame(case)
    moved = [*case.run[1:], case.run[0]]
    inner_q = case.run[60][0]
    boundary = next(
        k
        for k in range(len(case.run) - 60, 0, -1)
        if case.run[k - 1][0] != case.run[k][0] and case.run[k][0] != inner_q
    )
    spread = [*case.run[:boundary], case.run[60], *case.run[boundary:]]
    spread.pop(60)
    for rows, group in ((moved, len(moved)), (spread, 50)):
        path = tmp_path / f"moved-{group}.parquet"
        pq.write_table(run_table(rows), path, row_group_size=group)
        same(rdask.evaluate(qrels, str(path), MEASURES), ranklens.evaluate(qrels, rows, MEASURES))
    assert by_units == [False, False]

    at_edges = tmp_path / "at-edges.parquet"
    pq.write_table(run_table(moved), at_edges, row_group_size=50)
    same(
        rdask.evaluate(qrels, str(at_edges), MEASURES),
        ranklens.evaluate(qrels, moved, MEASURES),
    )
    assert by_units[-1] is True

    by_units.clear()
    same(
        rdask.evaluate(qrels, str(at_edges), MEASURES, partitioned_by_query=False),
        ranklens.evaluate(qrels, moved, MEASURES),
    )
    assert by_units == []
    with pytest.raises(ranklens.OptionError, match="rank"):
        rdask.evaluate(qrels, str(at_edges), MEASURES, ties="rank")
    monkeypatch.setattr(dask_files, "QRELS_CLIENT_ROWS", len(case.qrels) - 1)
    same(
        rdask.evaluate(qrels, str(at_edges), MEASURES),
        ranklens.evaluate(qrels, moved, MEASURES),
    )
    assert by_units == [False, False]


def _error(qrels: Any, run: str, **options: Any) -> InputError:
    with pytest.raises(InputError) as caught:
        rdask.evaluate(qrels, run, ["AP"], **options)
    return caught.value


def test_errors_are_the_shuffles(
    dask_client: Any, small_units: None, by_units: list[bool], tmp_path: Path
) -> None:
    """A repeated document (inside a task's rows, and cut between two tasks), a missing
    score in the second file of a dataset, a missing query id and a repeated judgment:
    the error (class, message, row) the shuffle names."""
    case = make_case(9)
    qrels = qrels_frame(case)
    broken = broken_runs(case, tmp_path)
    sources: list[tuple[Any, Any]] = [
        (qrels, str(path)) for path in (*broken.duplicated, broken.missing_score, broken.missing_id)
    ]
    good = tmp_path / "good.parquet"
    pq.write_table(run_table(case.run), good, row_group_size=50)
    sources.append((pd.concat([qrels, qrels.iloc[[5]]], ignore_index=True), str(good)))
    for q, r in sources:
        shuffled = _error(q, r, partitioned_by_query=False)
        got = _error(q, r)
        assert type(got) is type(shuffled)
        assert (str(got), got.path, got.line) == (str(shuffled), shuffled.path, shuffled.line)
        if isinstance(got, DuplicateError):
            assert got.lines == getattr(shuffled, "lines", None)
    assert by_units == [False] * len(sources)


def test_an_empty_side_is_the_single_machines_error(dask_client: Any, tmp_path: Path) -> None:
    """A run file without rows (one empty row group, or none at all), an empty run
    DataFrame and empty qrels: ``ranklens.evaluate``'s EmptyInputError, naming the same
    table, never values of 0."""
    from ranklens.base.errors import EmptyInputError

    case = make_case(11)
    qrels = qrels_frame(case)
    one_empty = tmp_path / "one-empty.parquet"
    pq.write_table(run_table([]), one_empty)
    no_groups = tmp_path / "no-groups.parquet"
    pq.ParquetWriter(no_groups, run_table([]).schema).close()
    assert pq.ParquetFile(no_groups).metadata.num_row_groups == 0
    empty_frame = run_table([]).to_pandas()
    empty_qrels = qrels.iloc[:0]
    run_path = tmp_path / "run.parquet"
    pq.write_table(run_table(case.run), run_path, row_group_size=50)
    for q, r in (
        (qrels, str(one_empty)),
        (qrels, str(no_groups)),
        (qrels, empty_frame),
        (empty_qrels, str(run_path)),
    ):
        with pytest.raises(EmptyInputError) as single:
            ranklens.evaluate(q, r, ["AP"])
        with pytest.raises(EmptyInputError) as spread:
            rdask.evaluate(q, r, ["AP"])
        assert (str(spread.value), spread.value.path) == (str(single.value), single.value.path)
