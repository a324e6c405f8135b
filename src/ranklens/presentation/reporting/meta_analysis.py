"""An HTML page of meta-analyses across collections (:func:`ranklens.meta_analysis`): the
pooled effects of every run, then per measure and run a forest plot and the collections'
rows. Self-contained like the leaderboard page (inline SVG, no script)."""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from html import escape
from typing import TYPE_CHECKING

from ranklens.data.output import check_destination, write_atomically
from ranklens.presentation.meta_analysis_format import collection_rows, description, summary_rows
from ranklens.presentation.plots.forest import plot_forest
from ranklens.presentation.reporting._page import static_head, table
from ranklens.presentation.reporting._svg import figure_svg

if TYPE_CHECKING:
    from ranklens.analysis.meta_analysis import MetaAnalysis

__all__ = ["meta_analysis_html", "write_meta_analysis_report"]


def _table(header: list[str], rows: list[list[str]]) -> str:
    return table(
        [escape(h) for h in header], [[escape(c) for c in row] for row in rows], first_is_id=False
    )


def meta_analysis_html(
    metas: Sequence[MetaAnalysis],
    *,
    plots: bool = True,
    title: str = "ranklens meta-analysis",
) -> str:
    """The page (a string); ``plots=False`` leaves out the forest plots (no matplotlib).

    >>> meta_analysis_html([], plots=False).startswith("<!DOCTYPE html>")
    True
    """
    parts = static_head(title)
    if metas:
        parts += [
            f'<p class="meta">{escape(description(metas[0]))}</p>',
            "<h2>Random-effects summaries</h2>",
            _table(*summary_rows(metas)),
        ]
        parts += [
            f'<p class="note">{escape(m.measure)}: {escape(n)}</p>' for m in metas for n in m.notes
        ]
    count = 0
    for m in metas:
        for run in m.summary:
            parts.append(f"<h2>{escape(m.measure)}: {escape(run)} - {escape(m.baseline)}</h2>")
            if plots:
                count += 1
                svg = figure_svg(plot_forest(m, run), f"forest{count}")
                parts.append(
                    f"<figure>{svg}<figcaption>Each collection's effect and interval (square: "
                    "its random-effects weight); the diamonds: the pooled effects.</figcaption>"
                    "</figure>"
                )
            header, rows = collection_rows([m])
            parts.append(_table(header, [r for r in rows if r[1] == run]))
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def write_meta_analysis_report(
    path: str | os.PathLike[str],
    metas: Sequence[MetaAnalysis],
    inputs: Iterable[object] = (),
    force: bool = False,
) -> None:
    """Write :func:`meta_analysis_html` to ``path`` (atomically; never over an input file,
    over another existing file only with ``force``)."""
    listed = list(inputs)
    check_destination(path, listed, force)
    write_atomically(path, meta_analysis_html(metas), inputs=listed, force=force)
