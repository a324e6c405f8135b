"""The report of results given as they are (scores read from files, results computed
earlier): no qrels, so no worked computations and no plots that need the judgments."""

from __future__ import annotations

import datetime as _dt
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ranklens.base.errors import OptionError
from ranklens.evaluation.result_set import ResultSet
from ranklens.evaluation.results import Results
from ranklens.presentation.reporting._build import (
    _comparison_figures,
    _summary_section,
    significance_html,
)
from ranklens.presentation.reporting._metadata import metadata_section
from ranklens.presentation.reporting._page import Figure, Section, page

if TYPE_CHECKING:
    from ranklens.analysis.comparison import Comparison

DIGITS = 4


def build_scores_report(
    results: Results | ResultSet | Sequence[Results],
    comparison: Comparison | None = None,
    *,
    title: str = "ranklens report",
    plots: bool = False,
) -> str:
    """One self-contained HTML page for results as they are: the summary (with the
    significance tables of ``comparison``, if given), the runs' ir_metadata, the
    per-topic distributions (``plots``, needs matplotlib) and the sortable per-query
    table (topics a run has no value for are empty).

    Parameters
    ----------
    results
        The runs' Results (those of ``comparison`` when it is given and this is empty).
    comparison
        A :class:`~ranklens.Comparison` of these runs.
    title
        The page's title.
    plots
        Draw the distribution of each measure (the first four).

    Returns
    -------
    str
        The HTML document.
    """
    shared = results.metadata if isinstance(results, ResultSet) else None
    runs = [results] if isinstance(results, Results) else list(results)
    if not runs and comparison is not None:
        runs = list(comparison.results)
    if not runs:
        raise OptionError("a report needs the results of at least one run")
    sections: list[Section] = []
    if comparison is not None:
        sections.append(
            Section("Summary and significance", significance_html(comparison), "summary")
        )
    else:
        sections.append(_summary_section(runs))
    meta_section = metadata_section(runs, shared)
    if meta_section is not None:
        sections.append(meta_section)
    figures = _figures(runs, comparison) if plots else []
    topics = sorted(
        {q for r in runs for q in r.queries}, key=lambda q: q.encode("utf-8", "surrogatepass")
    )
    columns = []
    for name in runs[0].per_query_names:
        for r in runs:
            if name not in r.names:
                continue
            by_topic = r.query_values(name)
            columns.append(
                {"label": f"{r.run} · {name}", "values": [by_topic.get(q) for q in topics]}
            )
    payload: dict[str, Any] = {
        "digits": DIGITS,
        "queries": topics,
        "columns": columns,
        "explanations": {},
        "no_explanation": (
            "No worked computation: these results were given as per-topic scores, without "
            "the qrels and runs they were computed from."
        ),
    }
    from ranklens.base.version import __version__

    meta = [
        f"ranklens {__version__} · {_dt.datetime.now().astimezone():%Y-%m-%d %H:%M %Z}",
        f"runs: {', '.join(r.run for r in runs)} (per-topic scores as given)",
        f"{len(topics)} topics",
    ]
    header = ["query"] + [str(c["label"]) for c in columns]
    return page(title, meta, sections, figures, header, payload)


def _figures(runs: Sequence[Results], comparison: Comparison | None = None) -> list[Figure]:
    from ranklens.presentation.plots import plot_dist
    from ranklens.presentation.reporting._svg import figure_svg

    out: list[Figure] = []

    def add(fig: Any, caption: str) -> None:
        out.append(Figure(figure_svg(fig, f"f{len(out) + 1}"), caption))

    shared = [n for n in runs[0].per_query_names if all(n in r.names for r in runs[1:])]
    for name in shared[:4]:
        add(plot_dist(list(runs), name, figsize=(6.4, 4.0)), f"Per-topic distribution of {name}")
    if comparison is not None and comparison.measures:
        _comparison_figures(comparison, comparison.measures[0], add)
    return out
