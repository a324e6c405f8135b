"""ranklens.spark.evaluate on local[2] gives ranklens.evaluate's Results; and how its
numbers relate to Spark's own RankingMetrics."""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

import ranklens
from scale_data import MEASURES, make_case

pd = pytest.importorskip("pandas")
pytest.importorskip("pyarrow")
pyspark = pytest.importorskip("pyspark", reason="the Spark tests need pyspark")

import ranklens.spark as rspark  # noqa: E402
from ranklens.base.errors import MissingDependencyError  # noqa: E402
from ranklens.scale.spark_backend import check_spark_pandas  # noqa: E402

try:
    check_spark_pandas()
except MissingDependencyError as exc:  # e.g. the dependency matrix's oldest pandas (2.0)
    pytest.skip(str(exc), allow_module_level=True)

# pyspark 4.x warns that it does not fully support pandas 3 (what it uses here works:
# the tests below compare every value)
pytestmark = pytest.mark.filterwarnings(
    "ignore:PySpark does not yet fully support pandas:FutureWarning"
)


@pytest.fixture(scope="session")
def spark() -> Iterator[Any]:
    """One local[2] SparkSession for the test session (Spark is slow to start)."""
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    session = (
        SparkSession.builder.master("local[2]")
        .appName("ranklens-tests")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.execution.arrow.pyspark.enabled", "true")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def same(a: ranklens.Results, b: ranklens.Results) -> None:
    assert a.queries == b.queries
    assert a.names == b.names
    np.testing.assert_array_equal(a.values, b.values)
    for name in a.names:
        x, y = a.aggregate[name], b.aggregate[name]
        assert x == y or (math.isnan(x) and math.isnan(y)), name
    assert dict(a.query_counts) == dict(b.query_counts)


def frames(seed: int) -> tuple[Any, Any]:
    case = make_case(seed)
    q = pd.DataFrame(case.qrels, columns=["query_id", "doc_id", "relevance"])
    r = pd.DataFrame(case.run, columns=["query_id", "doc_id", "score"])
    return q, r


@pytest.mark.parametrize(
    ("queries", "ties", "depth"),
    [
        ("qrels", "trec_eval", None),
        ("both", "input", 5),
        ("run", "docid_asc", None),
        ("qrels", "input", 3),
    ],
)
def test_spark_equals_single_machine(
    spark: Any, queries: str, ties: str, depth: int | None
) -> None:
    q, r = frames(1)
    options = {"ties": ties, "queries": queries, "depth": depth}
    expected = ranklens.evaluate(q, r, MEASURES, **options)
    got = rspark.evaluate(
        spark.createDataFrame(q).repartition(1),
        spark.createDataFrame(r).repartition(1),
        MEASURES,
        **options,
    )
    same(got, expected)


def test_integer_ids_and_compare(spark: Any) -> None:
    qi = pd.DataFrame({"qid": [1, 1, 2, 10], "docid": [5, 6, 5, 7], "rel": [1, 0, 2, 1]})
    ri = pd.DataFrame(
        {"qid": [10, 1, 1, 2, 3], "docid": [7, 6, 5, 9, 1], "score": [1.0, 0.5, 0.5, 0.2, 0.1]}
    )
    measures = ["AP", "nDCG@3", "P@2"]
    same(
        rspark.evaluate(spark.createDataFrame(qi), spark.createDataFrame(ri), measures),
        ranklens.evaluate(qi, ri, measures),
    )
    q, r = frames(5)
    r2 = r.assign(score=r["score"][::-1].to_numpy())
    from ranklens.analysis.comparison import compare_results

    got = compare_results(
        [
            rspark.evaluate(spark.createDataFrame(q), spark.createDataFrame(r), measures, name="a"),
            rspark.evaluate(
                spark.createDataFrame(q), spark.createDataFrame(r2), measures, name="b"
            ),
        ]
    )
    expected = compare_results(
        [
            ranklens.evaluate(q, ranklens.Run.from_frame(r, name="a"), measures),
            ranklens.evaluate(q, ranklens.Run.from_frame(r2, name="b"), measures),
        ]
    )
    assert got.to_dict() == expected.to_dict()


@pytest.mark.filterwarnings("ignore:Deprecated in 3.0.0:FutureWarning")  # inside pyspark.mllib
def test_how_spark_rankingmetrics_relates(spark: Any) -> None:
    """Spark's RankingMetrics takes pre-ranked id lists and the set of relevant ids per
    query (only queries with both): its precisionAt(k) is P@k, recallAt(k) R@k,
    meanAveragePrecision AP, meanAveragePrecisionAt(k) AP(norm='min')@k (divided by
    min(R, k)) and ndcgAt(k) nDCG@k on binary relevance; the means agree to rounding (Spark
    sums in another order and uses ln for log2)."""
    from pyspark.mllib.evaluation import RankingMetrics

    case = make_case(6)
    qrels = [(q, d, 1 if r >= 1 else 0) for q, d, r in case.qrels]  # binary, as Spark
    run = ranklens.Run.from_records(case.run)
    res = ranklens.evaluate(
        qrels, run, ["P@5", "R@10", "AP", "AP(norm='min')@5", "nDCG@10"], queries="both"
    )
    relevant: dict[str, list[str]] = {}
    for q, d, r in qrels:
        relevant.setdefault(q, [])
        if r >= 1:
            relevant[q].append(d)
    order = run.ranking()
    ranked: dict[str, list[str]] = {}
    bounds = run.q_offsets.tolist()
    for j, q in enumerate(run.qids):
        ranked[q] = [run.docid(int(i)) for i in order[bounds[j] : bounds[j + 1]]]
    pairs = [(ranked[q], relevant[q]) for q in res.queries]
    metrics = RankingMetrics(spark.sparkContext.parallelize(pairs, 2))
    spark_values = {
        "P@5": metrics.precisionAt(5),
        "R@10": metrics.recallAt(10),
        "AP": metrics.meanAveragePrecision,
        "AP(norm='min')@5": metrics.meanAveragePrecisionAt(5),
        "nDCG@10": metrics.ndcgAt(10),
    }
    for name, value in spark_values.items():
        assert value == pytest.approx(res[name], rel=1e-12, abs=1e-15), name
    # and the convention that differs: trec_eval's AP@5 divides by R, not min(R, 5)
    ap5 = ranklens.evaluate(qrels, run, ["AP@5"], queries="both")["AP@5"]
    assert ap5 < spark_values["AP(norm='min')@5"]


def test_progress_reports_the_tasks_and_changes_nothing(spark: Any) -> None:
    """``progress`` sees monotone task counts ending at their total; the job group it
    uses is this thread's only while it runs; the values are those without it."""
    q, r = frames(2)
    context = spark.sparkContext
    context.setLocalProperty("spark.jobGroup.id", "mine")
    calls: list[tuple[int, int]] = []
    got = rspark.evaluate(
        spark.createDataFrame(q),
        spark.createDataFrame(r),
        MEASURES,
        progress=lambda done, total: calls.append((done, total)),
    )
    assert context.getLocalProperty("spark.jobGroup.id") == "mine"
    context.setLocalProperty("spark.jobGroup.id", None)
    assert calls and calls[-1][0] == calls[-1][1] >= 1
    assert all(0 <= done <= total for done, total in calls)
    same(got, ranklens.evaluate(q, r, MEASURES))
