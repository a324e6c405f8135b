"""A self-contained HTML report: summary and significance tables, plots, a sortable and
filterable per-query table, and worked computations for the queries a reader clicks.

>>> from ranklens.presentation.reporting import build_report
>>> from ranklens.data.examples import example_paths
>>> qrels, runs = example_paths()
>>> html = build_report(qrels, runs, ["nDCG@10", "AP"], plots=False)
>>> html.startswith("<!DOCTYPE html>") and "Content-Security-Policy" in html
True
"""

from __future__ import annotations

from ranklens.presentation.reporting._build import build_report, write_report
from ranklens.presentation.reporting._scores import build_scores_report

__all__ = ["build_report", "build_scores_report", "write_report"]
