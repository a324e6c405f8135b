"""ranklens.spark.evaluate without an exchange: a run grouped by query is evaluated in its
own input partitions (queries cut at partition edges finished on the driver), with
``ranklens.evaluate``'s Results; a run that is not grouped is hashed by query instead,
and a wrong declaration is an error."""

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
from ranklens.evaluation.parts import combine  # noqa: E402
from ranklens.scale.partition import Options  # noqa: E402
from ranklens.scale.spark_in_place import evaluate_in_place  # noqa: E402

pytestmark = pytest.mark.filterwarnings(
    "ignore:PySpark does not yet fully support pandas:FutureWarning"
)

Q_COLS = ("query_id", "doc_id", "relevance")
R_COLS = ("query_id", "doc_id", "score")


@pytest.fixture(scope="module")
def spark() -> Iterator[Any]:
    yield from local_session("ranklens-in-place-tests", {"spark.sql.shuffle.partitions": "3"})


def sliced(spark: Any, frame: Any, slices: int, schema: str | None = None) -> Any:
    """``frame`` as a DataFrame of ``slices`` partitions holding consecutive rows, in order
    (so a query's rows are cut wherever a slice ends)."""
    rows = [tuple(row) for row in frame.itertuples(index=False)]
    rdd = spark.sparkContext.parallelize(rows, slices)
    return spark.createDataFrame(rdd, schema=schema or list(frame.columns))


def frames(seed: int) -> tuple[Any, Any]:
    case = make_case(seed)
    return (
        pd.DataFrame(case.qrels, columns=list(Q_COLS)),
        pd.DataFrame(case.run, columns=list(R_COLS)),
    )


def with_repeats(run: Any, seed: int) -> Any:
    """``run`` with 8 of its rows repeated (another score) after their query's rows: still
    grouped by query."""
    rng = np.random.default_rng(seed)
    copies = run.iloc[rng.choice(len(run), size=8, replace=False)]
    copies = copies.assign(score=1.0 - copies["score"])
    rows = pd.concat([run, copies], ignore_index=True)
    first_seen = {qid: k for k, qid in enumerate(pd.unique(run["query_id"]))}
    order = rows["query_id"].map(first_seen).to_numpy()
    return rows.iloc[np.argsort(order, kind="stable")].reset_index(drop=True)


def in_place(q: Any, r: Any, measures: list[str], *, declared: bool = False, **options: Any) -> Any:
    """The parts :func:`evaluate_in_place` returns (``None``: it declined), combined."""
    from pyspark.sql import functions as fn

    edge_limit = options.pop("edge_rows_limit", 1_000_000)
    opts = Options.of(
        measures,
        options.get("ties", "trec_eval"),
        options.get("queries", "qrels"),
        options.get("depth"),
        options.get("duplicates", "error"),
    )
    parts = evaluate_in_place(
        fn,
        q,
        r,
        (Q_COLS, R_COLS),
        opts,
        with_rank=options.get("ties") == "rank",
        declared=declared,
        progress=None,
        edge_rows_limit=edge_limit,
    )
    if parts is None:
        return None
    plain = Options.of(measures, opts.ties, opts.queries, opts.depth, opts.duplicates)
    return combine("run", plain.measures, opts.queries, parts)


@pytest.mark.parametrize(
    ("seed", "slices", "options"),
    [
        (1, 7, {}),
        (2, 3, {"ties": "input", "queries": "both", "depth": 5}),
        (3, 60, {"queries": "run", "ties": "docid_asc"}),  # single-query and empty slices
        (4, 1, {"queries": "qrels", "ties": "input"}),
        (5, 11, {"duplicates": "first", "ties": "input"}),
        (6, 5, {"duplicates": "max", "queries": "run"}),
    ],
)
def test_a_grouped_run_is_evaluated_in_place(
    spark: Any, seed: int, slices: int, options: dict[str, Any]
) -> None:
    """Run rows grouped by query, cut into partitions at arbitrary rows: the tasks
    evaluate their inner queries and the driver the cut ones; every value, mean and count
    ``==`` the in-memory evaluation of the same rows in the same order (repeated documents
    placed within their query's rows, so ``duplicates=`` and the input order decide)."""
    q, r = frames(seed)
    if options.get("duplicates"):
        r = with_repeats(r, seed)
    expected = ranklens.evaluate(q, r, MEASURES, **options)
    q_frame = sliced(spark, q, 3, "query_id string, doc_id string, relevance long")
    r_frame = sliced(spark, r, slices, "query_id string, doc_id string, score double")
    got = in_place(q_frame, r_frame, MEASURES, **dict(options))
    assert got is not None, "a grouped run was not evaluated in place"
    same(got, expected)
    same(rspark.evaluate(q_frame, r_frame, MEASURES, **options), expected)


def test_integer_ids_rank_ties_and_run_order(spark: Any) -> None:
    """Integer query ids in the run and strings in the qrels (decimal digits) and
    ``ties="rank"``, in place."""
    qi = pd.DataFrame(
        {
            "query_id": ["1", "1", "2", "10", "10"],
            "doc_id": ["5", "6", "5", "7", "8"],
            "relevance": [1, 0, 2, 1, 3],
        }
    )
    ri = pd.DataFrame(
        {
            "query_id": [10, 10, 1, 1, 2, 3],
            "doc_id": ["7", "8", "6", "5", "9", "1"],
            "score": [1.0, 1.0, 0.5, 0.5, 0.2, 0.1],
            "rank": [2.0, 1.0, 1.0, 2.0, 1.0, 1.0],
        }
    )
    q_frame = sliced(spark, qi, 2, "query_id string, doc_id string, relevance long")
    r_frame = sliced(spark, ri, 3, "query_id long, doc_id string, score double, rank double")
    measures = ["AP", "nDCG@3", "P@1", "RR"]
    for ties in ("rank", "trec_eval"):
        expected = ranklens.evaluate(qi, ri, measures, ties=ties)
        got = in_place(q_frame, r_frame, measures, ties=ties)
        assert got is not None
        same(got, expected)
        same(rspark.evaluate(q_frame, r_frame, measures, ties=ties), expected)


def test_a_run_partitioned_by_query_when_declared(spark: Any) -> None:
    """A run hashed by query (each query in one partition, its rows interleaved with
    others'): declined unless declared; declared, evaluated in place with the same
    Results; a shuffled run declared partitioned is an error naming a query."""
    q, r = frames(7)
    expected = ranklens.evaluate(q, r, MEASURES)
    q_frame = spark.createDataFrame(q)
    shuffled = r.iloc[np.random.default_rng(7).permutation(len(r))]
    hashed = spark.createDataFrame(shuffled).repartition(3, "query_id")
    assert in_place(q_frame, hashed, MEASURES) is None
    got = in_place(q_frame, hashed, MEASURES, declared=True)
    assert got is not None
    same(got, expected)
    same(rspark.evaluate(q_frame, hashed, MEASURES, partitioned_by_query=True), expected)
    with pytest.raises(ranklens.InputError, match="declared partitioned by query"):
        rspark.evaluate(q_frame, sliced(spark, shuffled, 4), MEASURES, partitioned_by_query=True)


def test_what_is_not_grouped_is_exchanged(spark: Any) -> None:
    """A run whose queries are not in stretches, one whose grouped partitions still share
    a query away from their edges, and one with too many edge rows: declined (``None``),
    and ``ranklens.spark.evaluate`` gives the in-memory Results by the exchange (also with
    ``partitioned_by_query=False``)."""
    q, r = frames(8)
    expected = ranklens.evaluate(q, r, MEASURES)
    q_frame = spark.createDataFrame(q)
    shuffled = r.iloc[np.random.default_rng(8).permutation(len(r))].reset_index(drop=True)
    # each partition in stretches, but two partitions hold the same queries
    first = r.groupby("query_id", sort=False).head(1)
    second = r.drop(first.index)
    schema = "query_id string, doc_id string, score double"
    cases = [
        (shuffled, sliced(spark, shuffled, 3, schema), {}),
        (
            pd.concat([first, second], ignore_index=True),
            sliced(spark, first, 1, schema).union(sliced(spark, second, 1, schema)),
            {},
        ),
        (r, sliced(spark, r, 2, schema), {"edge_rows_limit": 5}),
    ]
    for run, r_frame, extra in cases:
        assert in_place(q_frame, r_frame, MEASURES, **extra) is None
        same(rspark.evaluate(q_frame, r_frame, MEASURES), ranklens.evaluate(q, run, MEASURES))
    same(
        rspark.evaluate(q_frame, sliced(spark, r, 4), MEASURES, partitioned_by_query=False),
        expected,
    )


def test_qrels_read_here_and_a_run_that_is_not_a_dataframe(spark: Any) -> None:
    """Qrels as anything ranklens reads (records here) with a DataFrame run: the same
    Results; a run that is neither a Spark DataFrame nor a path: one clear error."""
    case = make_case(11)
    r = pd.DataFrame(case.run, columns=list(R_COLS))
    same(
        rspark.evaluate(case.qrels, sliced(spark, r, 3), MEASURES),
        ranklens.evaluate(case.qrels, case.run, MEASURES),
    )
    with pytest.raises(ranklens.OptionError, match="Spark DataFrame or a Parquet path"):
        rspark.evaluate(case.qrels, r, MEASURES)
