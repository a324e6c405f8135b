"""The run-level measures (``Coverage``, ``Gini``, ``Entropy``, ``PSP``, ``PSnDCG``, ``PSR``,
``PopREO``) on Spark ``local[2]``: each task sends back its states (pickled, with its
per-query rows), merged on the driver into the in-memory ``ranklens.evaluate`` values to
the bit."""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

import ranklens
from run_level_data import MEASURES, RUN_LEVEL, make_rec_case

pd = pytest.importorskip("pandas")
pytest.importorskip("pyarrow")
pytest.importorskip("pyspark", reason="the Spark tests need pyspark")

import ranklens.spark as rspark  # noqa: E402
from ranklens.base.errors import MissingDependencyError  # noqa: E402
from ranklens.scale.spark_backend import check_spark_pandas  # noqa: E402

try:
    check_spark_pandas()
except MissingDependencyError as exc:  # e.g. the dependency matrix's oldest pandas (2.0)
    pytest.skip(str(exc), allow_module_level=True)

pytestmark = [
    pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning"),
    pytest.mark.filterwarnings("ignore::ranklens.base.errors.InputWarning"),
]


@pytest.fixture(scope="module")
def spark() -> Iterator[Any]:
    """One local[2] SparkSession for this module, with 4 shuffle partitions."""
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    session = (
        SparkSession.builder.master("local[2]")
        .appName("ranklens-run-level-tests")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.execution.arrow.pyspark.enabled", "true")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


@pytest.mark.parametrize(("seed", "queries", "buckets"), [(1, "qrels", 5), (2, "run", 3)])
def test_spark_equals_in_memory(spark: Any, seed: int, queries: str, buckets: int) -> None:
    case = make_rec_case(seed)
    q, r = case.frames()
    expected = ranklens.evaluate(q, r, MEASURES, queries=queries, **case.item_data())
    got = rspark.evaluate(
        spark.createDataFrame(q),
        spark.createDataFrame(r),
        MEASURES,
        queries=queries,
        buckets=buckets,
        **case.item_data(),
    )
    assert got.queries == expected.queries
    np.testing.assert_array_equal(got.values, expected.values)
    for name in expected.names:
        x, y = got.aggregate[name], expected.aggregate[name]
        assert x == y or (math.isnan(x) and math.isnan(y)), (name, x, y)
    assert dict(got.query_counts) == dict(expected.query_counts)
    assert set(got.run_statistics) == set(RUN_LEVEL)
    weights = np.random.default_rng(seed).integers(0, 3, size=(3, len(got.queries))).astype(float)
    for name in ("PSR@10", "PopREO@10"):  # per user, in the results' query order
        np.testing.assert_array_equal(
            got.run_statistics[name].values(weights), expected.run_statistics[name].values(weights)
        )
