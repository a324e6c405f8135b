"""ranklens.spark.evaluate on a Parquet run given by its path: Spark tasks read its row
groups with Arrow and evaluate them where they are; the Results ``==`` the single
machine's on the same file, and every error is the single machine's (file, row)."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import ranklens
from scale_data import MEASURES, PATH_CASES, broken_runs, make_case, repeated, run_table, same
from spark_support import local_session, skip_without_spark

skip_without_spark()
pd = pytest.importorskip("pandas")
pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

import ranklens.spark as rspark  # noqa: E402
from ranklens.base.errors import (  # noqa: E402
    DuplicateError,
    EmptyInputError,
    InputError,
)
from ranklens.scale import parquet_units  # noqa: E402

pytestmark = pytest.mark.filterwarnings(
    "ignore:PySpark does not yet fully support pandas:FutureWarning"
)


@pytest.fixture(scope="module")
def spark() -> Iterator[Any]:
    yield from local_session("ranklens-files-tests")


@pytest.fixture
def small_units(monkeypatch: pytest.MonkeyPatch) -> None:
    """One unit (one task) per row group, so that queries are cut between tasks."""
    monkeypatch.setattr(parquet_units, "UNIT_ROWS", (1, 1))


@pytest.mark.parametrize(("seed", "row_group", "options"), PATH_CASES)
def test_a_parquet_run_by_path_equals_one_machine(
    spark: Any, small_units: None, tmp_path: Path, seed: int, row_group: int, options: Any
) -> None:
    """Every value, mean and count ``==`` ``ranklens.evaluate`` on the same file (ERR's
    default ``g_max`` under every ``queries=`` included); qrels as a Spark DataFrame, a
    pandas DataFrame or a path."""
    case = make_case(seed)
    rows = repeated(case, seed) if "duplicates" in options else case.run
    path = tmp_path / "run.parquet"
    pq.write_table(run_table(rows, ranks=True), path, row_group_size=row_group)
    expected = ranklens.evaluate(case.qrels, str(path), MEASURES, **options)
    qrels = pd.DataFrame(case.qrels, columns=["query_id", "doc_id", "relevance"])
    q_path = tmp_path / "qrels.parquet"
    pq.write_table(pa.Table.from_pandas(qrels, preserve_index=False), q_path)
    forms = (spark.createDataFrame(qrels), qrels, str(q_path)) if seed == 1 else (qrels,)
    for given in forms:
        got = rspark.evaluate(given, str(path), MEASURES, spark=spark, **options)
        same(got, expected)
        assert got.run == expected.run


def test_a_dataset_directory_glob_and_hive_folders(
    spark: Any, small_units: None, tmp_path: Path
) -> None:
    """A directory of files (queries cut between files), a glob, and a dataset partitioned
    on the query column (the id from the folder name, kept as text)."""
    case = make_case(7)
    folder = tmp_path / "parts"
    folder.mkdir()
    cuts = [0, 5, 6, 40, 41, 100, len(case.run)]
    for k, (a, b) in enumerate(itertools.pairwise(cuts)):
        pq.write_table(run_table(case.run[a:b]), folder / f"part-{k}.parquet", row_group_size=30)
    expected = ranklens.evaluate(case.qrels, case.run, MEASURES)
    for source in (str(folder), str(folder / "part-*.parquet")):
        same(rspark.evaluate(case.qrels, source, MEASURES, spark=spark), expected)
    rows = [(q if q != "1" else "01", d, s) for q, d, s in case.run]
    qrels = [(q if q != "1" else "01", d, r) for q, d, r in case.qrels]
    hive = tmp_path / "hive"
    pq.write_to_dataset(run_table(rows), hive, partition_cols=["query_id"])
    got = rspark.evaluate(qrels, str(hive), MEASURES, spark=spark)
    assert "01" in got.queries
    same(got, ranklens.evaluate(qrels, rows, MEASURES))


def test_run_level_measures_from_a_path(spark: Any, small_units: None, tmp_path: Path) -> None:
    """Coverage and Gini from the tasks' states, PSP from the popularity given."""
    case = make_case(8)
    path = tmp_path / "run.parquet"
    pq.write_table(run_table(case.run), path, row_group_size=45)
    measures = ["Coverage@5", "Gini@5", "PSP@5", "nDCG@5"]
    counts = {f"d{k}": k + 1 for k in range(60)}
    options = {"popularity": counts, "num_items": 200, "num_users": 500}
    expected = ranklens.evaluate(case.qrels, case.run, measures, **options)
    got = rspark.evaluate(case.qrels, str(path), measures, spark=spark, **options)
    same(got, expected)
    assert got.run_statistics.keys() == expected.run_statistics.keys()


def streamed_error(qrels: Any, path: Path) -> InputError:
    with pytest.raises(InputError) as caught:
        ranklens.Evaluator(qrels, ["AP"]).evaluate(path, stream=True)
    return caught.value


def test_errors_name_the_file_and_row_as_one_machine(
    spark: Any, small_units: None, tmp_path: Path
) -> None:
    """A repeated document inside a task's rows and one cut between two tasks, a missing
    score in the second file of a dataset, a missing column, no rows: the single machine's
    error (class, message, file, row)."""
    case = make_case(9)
    broken = broken_runs(case, tmp_path)
    for path in broken.duplicated:
        expected = streamed_error(case.qrels, path)
        with pytest.raises(DuplicateError) as caught:
            rspark.evaluate(case.qrels, str(path), ["AP"], spark=spark)
        assert str(caught.value) == str(expected)
        assert caught.value.lines == getattr(expected, "lines", None)

    folder = broken.missing_score
    expected = streamed_error(case.qrels, folder)
    with pytest.raises(InputError) as caught:
        rspark.evaluate(case.qrels, str(folder), ["AP"], spark=spark)
    assert str(caught.value) == str(expected)
    assert (caught.value.path, caught.value.line) == (str(folder / "b.parquet"), 5)

    no_id_path = broken.missing_id
    expected = streamed_error(case.qrels, no_id_path)
    with pytest.raises(InputError) as caught:
        rspark.evaluate(case.qrels, str(no_id_path), ["AP"], spark=spark)
    assert (str(caught.value), caught.value.line) == (str(expected), 71)

    other = tmp_path / "other.parquet"
    pq.write_table(pa.table({"qid": ["q"], "doc": ["d"], "value": [1.0]}), other)
    with pytest.raises(InputError, match="no score column"):
        rspark.evaluate(case.qrels, str(other), ["AP"], spark=spark)
    empty = tmp_path / "empty.parquet"
    pq.write_table(run_table([]), empty)
    with pytest.raises(EmptyInputError):
        rspark.evaluate(case.qrels, str(empty), ["AP"], spark=spark)


def test_a_run_not_grouped_by_query_is_an_error_saying_how_to_sort(
    spark: Any, small_units: None, tmp_path: Path
) -> None:
    """A query whose rows come back after other queries' inside one task's rows, or in the
    middle of two tasks' rows: the error names it and says how to sort the run, or to pass
    a DataFrame (hashed by query, with the in-memory Results). Rows of a query at the
    edges of two tasks (wherever they are) are put together: the in-memory Results."""
    case = make_case(10)
    qrels = pd.DataFrame(case.qrels, columns=["query_id", "doc_id", "relevance"])
    moved = [*case.run[1:], case.run[0]]
    inner_q = case.run[60][0]
    boundary = next(
        k
        for k in range(len(case.run) - 60, 0, -1)
        if case.run[k - 1][0] != case.run[k][0] and case.run[k][0] != inner_q
    )
    spread = [*case.run[:boundary], case.run[60], *case.run[boundary:]]
    spread.pop(60)
    for rows, group, query in ((moved, len(moved), case.run[0][0]), (spread, 50, inner_q)):
        path = tmp_path / f"moved-{group}.parquet"
        pq.write_table(run_table(rows), path, row_group_size=group)
        with pytest.raises(InputError, match="not grouped by query") as caught:
            rspark.evaluate(case.qrels, str(path), MEASURES, spark=spark)
        assert f"query '{query}'" in str(caught.value)
        assert "spark.read.parquet" in str(caught.value)
        same(
            rspark.evaluate(spark.createDataFrame(qrels), spark.read.parquet(str(path)), MEASURES),
            ranklens.evaluate(case.qrels, rows, MEASURES),
        )
    at_edges = tmp_path / "at-edges.parquet"
    pq.write_table(run_table(moved), at_edges, row_group_size=50)
    same(
        rspark.evaluate(case.qrels, str(at_edges), MEASURES, spark=spark),
        ranklens.evaluate(case.qrels, moved, MEASURES),
    )


def test_a_dataframe_that_is_a_bare_parquet_scan_is_read_by_the_tasks(
    spark: Any, small_units: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``spark.read.parquet(path)`` of local files is read as its path is (the tasks read
    the row groups), with the DataFrame's Results; a filtered frame, a dataset with
    partition columns and several files under ``ties="input"`` (Spark's file order is not
    the path order) are not; an error is named in the DataFrame's terms, as for any
    DataFrame (rows counted from 0)."""
    from ranklens.scale import spark_backend
    from ranklens.scale.spark_files import plain_parquet

    calls: list[Any] = []
    real = spark_backend.evaluate_parquet

    def recorded(*args: Any, **kwargs: Any) -> Any:
        calls.append(args[2])
        return real(*args, **kwargs)

    monkeypatch.setattr(spark_backend, "evaluate_parquet", recorded)
    case = make_case(12)
    qrels = pd.DataFrame(case.qrels, columns=["query_id", "doc_id", "relevance"])
    q_frame = spark.createDataFrame(qrels)
    path = tmp_path / "run.parquet"
    pq.write_table(run_table(case.run), path, row_group_size=61)
    frame = spark.read.parquet(str(path))
    assert plain_parquet(frame) is not None
    expected = ranklens.evaluate(case.qrels, case.run, MEASURES)
    same(rspark.evaluate(q_frame, frame, MEASURES), expected)
    assert len(calls) == 1 and calls[0].files == (str(path),)

    assert plain_parquet(frame.filter("score > 0.3")) is None
    hive = tmp_path / "hive"
    pq.write_to_dataset(run_table(case.run), hive, partition_cols=["query_id"])
    assert plain_parquet(spark.read.parquet(str(hive))) is None
    folder = tmp_path / "parts"
    folder.mkdir()
    for k, (a, b) in enumerate(itertools.pairwise([0, 100, 101, len(case.run)])):
        pq.write_table(run_table(case.run[a:b]), folder / f"part-{k}.parquet")
    several = spark.read.parquet(str(folder))
    assert plain_parquet(several) is not None
    calls.clear()
    same(
        rspark.evaluate(q_frame, several, MEASURES, ties="input"),
        ranklens.evaluate(case.qrels, several.toArrow(), MEASURES, ties="input"),
    )
    assert calls == []

    dup = list(case.run)
    dup.insert(3, dup[2])
    dup_path = tmp_path / "dup.parquet"
    pq.write_table(run_table(dup), dup_path)
    with pytest.raises(DuplicateError) as expected_error:
        ranklens.evaluate(qrels, pd.DataFrame(dup, columns=["query_id", "doc_id", "score"]), ["AP"])
    with pytest.raises(DuplicateError) as caught:
        rspark.evaluate(q_frame, spark.read.parquet(str(dup_path)), ["AP"])
    assert str(caught.value) == str(expected_error.value)
