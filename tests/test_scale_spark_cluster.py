"""A multi-node rehearsal: ranklens.spark.evaluate on Spark's ``local-cluster[2,1,2048]``
master (two executors, each a JVM of its own with one core and 2 GiB, and its own Python
workers, standing in for two nodes) gives ``==`` the single machine's Results.

local-cluster mode launches executor JVMs through the scripts of the Spark distribution
(pyspark's ``bin/``); where they cannot start here, the module is skipped with the reason
found at run time."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import ranklens
from scale_data import MEASURES, make_case, same

pd = pytest.importorskip("pandas")
pytest.importorskip("pyarrow")
pytest.importorskip("pyspark", reason="the Spark tests need pyspark")

import ranklens.spark as rspark  # noqa: E402
from ranklens.base.errors import MissingDependencyError  # noqa: E402
from ranklens.scale import parquet_units  # noqa: E402
from ranklens.scale.spark_backend import check_spark_pandas  # noqa: E402

try:
    check_spark_pandas()
except MissingDependencyError as exc:
    pytest.skip(str(exc), allow_module_level=True)

pytestmark = pytest.mark.filterwarnings(
    "ignore:PySpark does not yet fully support pandas:FutureWarning"
)

MASTER = "local-cluster[2,1,2048]"
EXECUTORS = 2


def _executors(session: Any) -> int:
    """The executors registered with the driver (the driver itself not counted)."""
    status = session.sparkContext._jsc.sc().getExecutorMemoryStatus()
    return int(status.size()) - 1


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    """A SparkSession on ``local-cluster[2,1,2048]``, or a skip saying why it could not
    start (no other SparkContext may be running in this process)."""
    from pyspark import SparkContext
    from pyspark.sql import SparkSession

    running = SparkContext._active_spark_context
    if running is not None:
        pytest.skip(f"a SparkContext on {running.master} is already running in this process")
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    try:
        session = (
            SparkSession.builder.master(MASTER)
            .appName("ranklens-cluster-tests")
            .config("spark.sql.shuffle.partitions", "4")
            .config("spark.ui.enabled", "false")
            .config("spark.executor.memory", "1g")
            .getOrCreate()
        )
    except Exception as exc:  # the JVM's own error, whatever it is: the reason to skip
        pytest.skip(f"Spark's {MASTER} master could not start here: {exc}")
    session.sparkContext.setLogLevel("ERROR")
    deadline = time.monotonic() + 120
    while _executors(session) < EXECUTORS and time.monotonic() < deadline:
        time.sleep(0.5)
    found = _executors(session)
    if found < EXECUTORS:
        session.stop()
        pytest.skip(f"{MASTER}: only {found} of {EXECUTORS} executors started in 120 s")
    yield session
    session.stop()


@pytest.mark.parametrize(("queries", "ties"), [("qrels", "trec_eval"), ("run", "input")])
@pytest.mark.parametrize("layout", ["in place", "exchange", "path"])
def test_two_executors_equal_one_machine(
    cluster: Any,
    queries: str,
    ties: str,
    layout: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The run grouped by query and evaluated where its partitions lie, hashed by query
    (``partitioned_by_query=False``), or read from Parquet by the executors' tasks."""
    case = make_case(11, n_queries=60)
    q = pd.DataFrame(case.qrels, columns=["query_id", "doc_id", "relevance"])
    r = pd.DataFrame(case.run, columns=["query_id", "doc_id", "score"])
    expected = ranklens.evaluate(q, r, MEASURES, queries=queries, ties=ties)
    options: dict[str, Any] = {"queries": queries, "ties": ties}
    if layout == "path":
        path = tmp_path / "run.parquet"
        r.to_parquet(path, index=False, row_group_size=97)
        monkeypatch.setattr(parquet_units, "UNIT_ROWS", (1, 1))  # a task per row group
        run: Any = str(path)
        options["spark"] = cluster
    else:
        run = cluster.createDataFrame(r)
        assert run.rdd.getNumPartitions() >= EXECUTORS
        options["buckets"] = 6
        options["partitioned_by_query"] = None if layout == "in place" else False
    got = rspark.evaluate(cluster.createDataFrame(q), run, MEASURES, **options)
    same(got, expected)


def test_the_rehearsal_has_two_worker_processes(cluster: Any) -> None:
    """The premise of the rehearsal: on this master, Python tasks (as the evaluation's
    ``mapInArrow`` partitions) run in more than one worker process, none of them the
    driver's, so no one process holds the whole table."""
    import pyarrow as pa

    def pid(batches: Any) -> Any:
        for _ in batches:
            pass
        yield pa.RecordBatch.from_pydict({"pid": [os.getpid()]})

    frame = cluster.range(0, 1000, numPartitions=8).repartition(8)
    pids = {row["pid"] for row in frame.mapInArrow(pid, "pid long").collect()}
    assert len(pids) >= EXECUTORS
    assert os.getpid() not in pids
