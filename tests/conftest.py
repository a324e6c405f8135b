"""Shared fixtures: where the test data lives (tests/data, copied from the project's shared
folder so that a plain clone runs every test)."""

from __future__ import annotations

from pathlib import Path

import pytest

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
