"""An HTML page comparing the leaderboards under two sets of judgments: the table of
:func:`ranklens.leaderboard_agreement`'s numbers, and per measure a slope chart of the two
orderings, the runs' scores under each and the pairs that swap. Self-contained, like
:func:`~ranklens.presentation.reporting.build_report`'s pages (inline SVG, no script)."""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Mapping
from html import escape
from typing import TYPE_CHECKING

from ranklens.data.output import check_destination, write_atomically
from ranklens.presentation.reporting._page import static_head, table
from ranklens.presentation.reporting._svg import figure_svg

if TYPE_CHECKING:
    from ranklens.analysis.leaderboard import LeaderboardComparison


def _cell(value: float) -> str:
    return "nan" if math.isnan(value) else f"{value:.4f}"


def agreement_table(comparisons: Mapping[str, LeaderboardComparison]) -> str:
    """The HTML table of every measure's numbers (escaped markup)."""
    from ranklens.analysis.leaderboard import NUMBERS

    rows = [
        [
            escape(m),
            *(_cell(c[n]) for n in NUMBERS),
            escape(c.max_rank_change_run or "-"),
            str(len(c.swaps)),
        ]
        for m, c in comparisons.items()
    ]
    return table(["measure", *NUMBERS, "moved most", "swaps"], rows)


def measure_details(comparison: LeaderboardComparison) -> str:
    """One measure's scores and positions under both judgments, and the swapped pairs."""
    c = comparison
    score_rows = [
        [
            escape(r),
            _cell(c.scores_a[r]),
            str(c.order_a.index(r) + 1),
            _cell(c.scores_b[r]),
            str(c.order_b.index(r) + 1),
        ]
        for r in c.order_a
    ]
    swaps = ", ".join(f"{escape(a)} / {escape(b)}" for a, b in c.swaps) or "none"
    return (
        table(["run", "score A", "position A", "score B", "position B"], score_rows)
        + f'<p class="note">Pairs that swap: {swaps}</p>'
    )


SLOPE_CAPTION = "The runs' positions under A (left) and B (right); crossing lines swap."


def slope_svg(comparison: LeaderboardComparison, labels: tuple[str, str], prefix: str) -> str:
    """The slope chart of one measure as inline SVG (needs matplotlib)."""
    from ranklens.presentation.plots.leaderboard import plot_leaderboard_slope

    return figure_svg(plot_leaderboard_slope(comparison, labels), prefix)


def leaderboard_html(
    comparisons: Mapping[str, LeaderboardComparison],
    labels: tuple[str, str] = ("judgments A", "judgments B"),
    *,
    plots: bool = True,
    title: str = "ranklens leaderboards",
) -> str:
    """The page (a string); ``plots=False`` leaves out the slope charts (no matplotlib)."""
    parts = [
        *static_head(title),
        f'<p class="meta">A: {escape(labels[0])} · B: {escape(labels[1])}</p>',
        "<h2>Agreement of the orderings</h2>",
        agreement_table(comparisons),
    ]
    for i, (m, c) in enumerate(comparisons.items()):
        parts.append(f"<h2>{escape(m)}</h2>")
        if plots:
            svg = slope_svg(c, labels, f"lb{i}")
            parts.append(f"<figure>{svg}<figcaption>{SLOPE_CAPTION}</figcaption></figure>")
        parts.append(measure_details(c))
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def write_leaderboard_report(
    path: str | os.PathLike[str],
    comparisons: Mapping[str, LeaderboardComparison],
    qrels_a: object,
    qrels_b: object,
    inputs: Iterable[object] = (),
    force: bool = False,
) -> None:
    """Write :func:`leaderboard_html` to ``path`` (atomically; never over an input file, over
    another existing file only with ``force``)."""
    names = tuple(
        os.path.basename(os.fspath(q)) if isinstance(q, str | os.PathLike) else type(q).__name__
        for q in (qrels_a, qrels_b)
    )
    listed = list(inputs)
    check_destination(path, listed, force)
    write_atomically(
        path, leaderboard_html(comparisons, (names[0], names[1])), inputs=listed, force=force
    )
