"""What the Spark test modules share: a local SparkSession, and the comparison of two
Results (every value, mean and count ``==``)."""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np
import pytest

import ranklens


def skip_without_spark() -> None:
    """Skip the calling test module where pandas, pyarrow or pyspark is missing, or where
    this pyspark cannot exchange Arrow data with them."""
    pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    pytest.importorskip("pyspark", reason="the Spark tests need pyspark")
    from ranklens.base.errors import MissingDependencyError
    from ranklens.scale.spark_backend import check_spark_pandas

    try:
        check_spark_pandas()
    except MissingDependencyError as exc:  # e.g. the dependency matrix's oldest pandas
        pytest.skip(str(exc), allow_module_level=True)


def local_session(app: str, conf: Mapping[str, str] | None = None) -> Iterator[Any]:
    """A ``local[2]`` SparkSession named ``app`` (with ``conf``), stopped after use: the
    body of a module-scoped fixture."""
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    builder = SparkSession.builder.master("local[2]").appName(app)
    for key, value in {"spark.ui.enabled": "false", **(conf or {})}.items():
        builder = builder.config(key, value)
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def same(a: ranklens.Results, b: ranklens.Results) -> None:
    """The same queries, measures, values, means (NaN where NaN), counts and tie counts."""
    assert a.queries == b.queries
    assert a.names == b.names
    np.testing.assert_array_equal(a.values, b.values)
    for name in a.names:
        x, y = a.aggregate[name], b.aggregate[name]
        assert x == y or (math.isnan(x) and math.isnan(y)), name
    assert dict(a.query_counts) == dict(b.query_counts)
    assert a.tie_affected_queries == b.tie_affected_queries
