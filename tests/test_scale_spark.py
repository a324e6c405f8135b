"""ranklens.spark.evaluate on local[2] gives ranklens.evaluate's Results; and how its
numbers relate to Spark's own RankingMetrics."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

import ranklens
from scale_data import MEASURES, make_case, same
from spark_support import local_session, skip_without_spark

skip_without_spark()
pd = pytest.importorskip("pandas")

import ranklens.spark as rspark  # noqa: E402

# pyspark 4.x warns that it does not fully support pandas 3 (what it uses here works:
# the tests below compare every value)
pytestmark = pytest.mark.filterwarnings(
    "ignore:PySpark does not yet fully support pandas:FutureWarning"
)


@pytest.fixture(scope="module")
def spark() -> Iterator[Any]:
    """One local[2] SparkSession for this module (Spark is slow to start; the module
    test_scale_spark_cluster.py starts its own, on another master)."""
    yield from local_session(
        "ranklens-tests",
        {
            "spark.sql.shuffle.partitions": "4",
            "spark.sql.execution.arrow.pyspark.enabled": "true",
        },
    )


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


def with_duplicates(frame: Any, seed: int) -> Any:
    """``frame`` with a few of its rows repeated elsewhere (other values), so that
    ``duplicates="first"``/``"max"`` and the input order decide."""
    rng = np.random.default_rng(seed)
    picked = frame.iloc[rng.choice(len(frame), size=6, replace=False)].copy()
    value = frame.columns[-1]
    picked[value] = picked[value][::-1].to_numpy()
    rows = pd.concat([frame, picked], ignore_index=True)
    return rows.iloc[rng.permutation(len(rows))].reset_index(drop=True)


@pytest.mark.parametrize(
    ("seed", "queries", "ties", "duplicates", "buckets"),
    [
        (3, "qrels", "input", "first", 3),
        (4, "run", "trec_eval", "max", 5),
        (7, "both", "input", "max", 1),
        (8, "qrels", "docid_asc", "first", 7),
    ],
)
def test_many_partitions_and_duplicates(
    spark: Any, seed: int, queries: str, ties: str, duplicates: str, buckets: int
) -> None:
    """Inputs in two partitions, the rows of a query shuffled over them and some repeated
    (the partition a row lands in, and the order rows arrive in, must not matter): every
    value and mean ``==`` one machine's on the same rows in the same order."""
    q, r = frames(seed)
    q, r = with_duplicates(q, seed), with_duplicates(r, seed + 1)
    options = {"ties": ties, "queries": queries, "duplicates": duplicates}
    expected = ranklens.evaluate(q, r, MEASURES, **options)
    q_frame = spark.createDataFrame(q)
    assert q_frame.rdd.getNumPartitions() > 1
    got = rspark.evaluate(
        q_frame,
        spark.createDataFrame(r, schema="qid string, docno string, sim double"),
        MEASURES,
        buckets=buckets,
        **options,
    )
    same(got, expected)


def test_rank_ties_and_integer_ids_on_one_side(spark: Any) -> None:
    """``ties="rank"`` reads the run's ``rank`` column; integer ids on one side and
    strings on the other are the same ids (decimal digits)."""
    qi = pd.DataFrame({"qid": [1, 1, 2, 10, 10], "docid": [5, 6, 5, 7, 8], "rel": [1, 0, 2, 1, 3]})
    rs = pd.DataFrame(
        {
            "qid": ["10", "10", "1", "1", "2", "3"],
            "docid": ["7", "8", "6", "5", "9", "1"],
            "score": [1.0, 1.0, 0.5, 0.5, 0.2, 0.1],
            "rank": [2, 1, 1, 2, 1, 1],
        }
    )
    measures = ["AP", "nDCG@3", "P@1", "RR"]
    for ties in ("rank", "trec_eval"):
        same(
            rspark.evaluate(
                spark.createDataFrame(qi), spark.createDataFrame(rs), measures, ties=ties
            ),
            ranklens.evaluate(qi, rs, measures, ties=ties),
        )


def expected_error(q: Any, r: Any) -> Any:
    with pytest.raises(ranklens.RanklensError) as caught:
        ranklens.evaluate(q, r, ["AP"])
    return caught.value


def test_errors_are_the_single_machines(spark: Any) -> None:
    """A duplicate (qrels or run) or a missing id raises the error ``ranklens.evaluate``
    raises on the same rows: same class, message, rows counted over the whole DataFrame
    (here spread over several input partitions), user's column names."""
    q, r = frames(9)
    r_dup = pd.concat([r, r.iloc[[5]]], ignore_index=True)
    q_dup = pd.concat([q.iloc[:-9], q.iloc[[len(q) - 30]], q.iloc[-9:]], ignore_index=True)
    r_missing = r.assign(qid=r["query_id"].where(r.index != 77, None)).drop(columns="query_id")
    cases = [(q, r_dup), (q_dup, r), (q, r_missing)]
    for qrels, run in cases:
        expected = expected_error(qrels, run)
        with pytest.raises(ranklens.RanklensError) as caught:
            rspark.evaluate(
                spark.createDataFrame(qrels),
                spark.createDataFrame(run),
                ["AP"],
                buckets=3,
            )
        got = caught.value
        assert type(got) is type(expected)
        assert str(got) == str(expected)
        assert getattr(got, "lines", None) == getattr(expected, "lines", None)


Q_SCHEMA = "query_id string, doc_id string, relevance long"
R_SCHEMA = "query_id string, doc_id string, score double"


def test_an_empty_side_is_refused_as_in_memory(spark: Any) -> None:
    q, r = frames(10)
    for qrels, run in ((q, r.iloc[:0]), (q.iloc[:0], r)):
        expected = expected_error(qrels, run)
        with pytest.raises(ranklens.RanklensError) as caught:
            rspark.evaluate(
                spark.createDataFrame(qrels, schema=Q_SCHEMA),
                spark.createDataFrame(run, schema=R_SCHEMA),
                ["AP"],
            )
        assert type(caught.value) is type(expected)
        assert str(caught.value) == str(expected)


def test_ids_that_are_not_strings_or_integers_are_refused(spark: Any) -> None:
    q = pd.DataFrame({"query_id": [1.0], "doc_id": ["a"], "relevance": [1]})
    r = pd.DataFrame({"query_id": ["1"], "doc_id": ["a"], "score": [1.0]})
    with pytest.raises(ranklens.InputError, match="'query_id' holds double: ids must be"):
        rspark.evaluate(spark.createDataFrame(q), spark.createDataFrame(r), ["AP"])


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
