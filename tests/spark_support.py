"""What the Spark test modules share: a local SparkSession."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Mapping
from typing import Any

import pytest


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
