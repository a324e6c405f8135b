"""Shared fixtures: where the shared test data lives."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest_plugins = ["browser"]  # the headless Chromium fixture of the report tests

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
TREC_EVAL_DATA = SHARED / "data" / "trec_eval"
QRELS_DATA = SHARED / "data" / "qrels"
SEEDS = SHARED / "seeds"


@pytest.fixture(scope="session")
def trec_eval_data() -> Path:
    """trec_eval's own test inputs and expected outputs."""
    if not TREC_EVAL_DATA.is_dir():
        pytest.skip(f"shared trec_eval data not found at {TREC_EVAL_DATA}")
    return TREC_EVAL_DATA
