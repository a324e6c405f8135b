"""Shared fixtures: where the test data lives (tests/data, copied from the project's shared
folder so that a plain clone runs every test)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

if os.environ.get("PYTEST_XDIST_WORKER"):  # pytest-xdist's workers get COLUMNS=80, LINES=24:
    for _name in ("COLUMNS", "LINES"):  # a terminal's size, which the tables would fit
        os.environ.pop(_name, None)

# MLflow's telemetry thread sets and removes a variable of os.environ while requests, on the
# test's thread, iterates over os.environ for proxies: "KeyError: '_MLFLOW_TELEMETRY_SESSION_ID'"
# (seen in CI, 2026-11-27). The tests send no telemetry (nothing outside the machine can be
# reached anyway); the tracking servers they start inherit this.
os.environ.setdefault("MLFLOW_DISABLE_TELEMETRY", "true")

pytest_plugins = ["browser"]  # the headless Chromium fixture of the report tests

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data"
TREC_EVAL_DATA = DATA / "trec_eval"
"""trec_eval 10.0's test inputs and expected outputs (9.0.8's in ``v9.0.8/``)."""
SEEDS = DATA / "seeds"
"""The founding documents (their worked examples are test cases) and their ERRATA."""


@pytest.fixture(scope="session")
def trec_eval_data() -> Path:
    """trec_eval's own test inputs and expected outputs."""
    return TREC_EVAL_DATA


_ENGINE_GROUPS = (
    ("spark", ("spark_support", "SparkSession")),
    ("dask", ("dask_support", "LocalCluster")),
)
"""Test files that start a Spark session or a Dask cluster: each group runs on one worker
of ``pytest -n`` (``--dist loadgroup``), so the JVM and the clusters start there only, and
two engines never compete for the same two cores from two workers."""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Put the tests of the engines' files in their xdist group (see :data:`_ENGINE_GROUPS`)."""
    groups: dict[str, str | None] = {}
    for item in items:
        path = Path(str(item.fspath))
        if path not in groups:
            text = path.read_text(encoding="utf-8") if path.suffix == ".py" else ""
            groups[path] = next(
                (name for name, marks in _ENGINE_GROUPS if any(m in text for m in marks)), None
            )
        if groups[path] is not None:
            item.add_marker(pytest.mark.xdist_group(groups[path]))
