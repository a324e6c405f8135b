"""A slope chart of two orderings of the runs (:func:`ranklens.leaderboard_agreement`):
each run's position under the first judgments on the left, under the second on the right,
joined by a line; runs that swap places cross.

Like every ranklens plot it is drawn without pyplot and returns the Figure.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ranklens.presentation.plots._style import style as run_style
from ranklens.presentation.plots.figures import _target

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from ranklens.analysis.leaderboard import LeaderboardComparison

__all__ = ["plot_leaderboard_slope"]


def plot_leaderboard_slope(
    comparison: LeaderboardComparison,
    labels: tuple[str, str] = ("judgments A", "judgments B"),
    *,
    ax: Axes | None = None,
    title: str | None = None,
    figsize: tuple[float, float] | None = None,
    dpi: float | None = None,
) -> Figure:
    """The two orderings of :class:`~ranklens.analysis.leaderboard.LeaderboardComparison`
    as a slope chart (best at the top), each end labelled with the run and its score.

    Parameters
    ----------
    comparison
        One measure's entry of :func:`ranklens.leaderboard_agreement`.
    labels
        The names of the two sets of judgments, under the two axes.
    ax, title, figsize, dpi
        As for :func:`ranklens.presentation.plots.plot_pr`.
    """
    n = len(comparison.order_a)
    height = max(2.5, 0.35 * n + 1.0)
    fig, ax = _target(ax, figsize or (5.0, height), dpi, "plot_leaderboard_slope")
    for i, run in enumerate(comparison.order_a):
        left = comparison.order_a.index(run) + 1
        right = comparison.order_b.index(run) + 1
        look = run_style(i)
        ax.plot(
            [0, 1],
            [left, right],
            color=look.color,
            linestyle=look.linestyle,
            marker=look.marker,
            linewidth=1.5,
        )
        ax.text(-0.04, left, f"{run}  {comparison.scores_a[run]:.4f}", ha="right", va="center")
        ax.text(1.04, right, f"{comparison.scores_b[run]:.4f}  {run}", ha="left", va="center")
    ax.set_xlim(-0.9, 1.9)
    ax.set_ylim(n + 0.5, 0.5)
    ax.set_xticks([0, 1], list(labels))
    ax.set_yticks([])
    for side in ("left", "right", "top"):
        ax.spines[side].set_visible(False)
    ax.set_title(title if title is not None else comparison.measure)
    return fig
