"""A forest plot of a meta-analysis (:func:`ranklens.meta_analysis`): one row per
collection (the effect and its interval, the square's area proportional to the
collection's random-effects weight), then the fixed-effect and random-effects summaries as
diamonds, and a line at 0 (no difference from the baseline).

Like every ranklens plot it is drawn without pyplot and returns the Figure.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ranklens.base.errors import OptionError
from ranklens.presentation.plots._style import style as run_style
from ranklens.presentation.plots.figures import _target

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from ranklens.analysis.meta_analysis import MetaAnalysis

__all__ = ["plot_forest", "plot_forests"]


def plot_forest(
    meta: MetaAnalysis,
    run: str | None = None,
    *,
    ax: Axes | None = None,
    title: str | None = None,
    figsize: tuple[float, float] | None = None,
    dpi: float | None = None,
) -> Figure:
    """The forest plot of ``run`` (default: the first run with a summary).

    Each collection's row carries a label ``"<collection> (n = <queries>)"`` and the gid
    ``"collection <name>"``; the summaries' diamonds the gids ``"fixed effect"`` and
    ``"random effects"``; the title gives tau² and I².

    Parameters
    ----------
    meta
        The result of :func:`ranklens.meta_analysis`.
    run
        A run with a summary (in 2 or more collections).
    ax, title, figsize, dpi
        As for :func:`ranklens.presentation.plots.plot_pr`.
    """
    if run is None:
        run = next(iter(meta.summary))
    if run not in meta.summary:
        pooled = ", ".join(meta.summary)
        raise OptionError(f"no summary of a run named {run!r} to plot (runs pooled: {pooled})")
    summary = meta.summary[run]
    rows = [r for r in meta.rows if r.run == run]
    count = len(rows) + 2
    fig, ax = _target(ax, figsize or (7.0, max(2.5, 0.4 * count + 1.2)), dpi, "plot_forest")
    look = run_style(0)
    # a collection left out of the pooling (every difference equal) has no weight (nan):
    # it is drawn at the smallest size, and does not set the scale of the others
    weights = [r.weight_random for r in rows if math.isfinite(r.weight_random)]
    largest = max(weights, default=0.0)
    for i, r in enumerate(rows):
        weighted = math.isfinite(r.weight_random) and largest > 0
        size = 40.0 + 160.0 * r.weight_random / largest if weighted else 40.0
        ax.plot(
            [r.ci_low, r.ci_high], [i, i], color="black", linewidth=1.0, gid=f"ci {r.collection}"
        )
        ax.scatter(
            [r.effect],
            [i],
            s=size,
            marker="s",
            color=look.color,
            zorder=3,
            gid=f"collection {r.collection}",
        )
    diamonds = (
        ("fixed effect", summary.fixed.effect, summary.fixed.ci_low, summary.fixed.ci_high),
        ("random effects", summary.effect, summary.ci_low, summary.ci_high),
    )
    for j, (label, effect, low, high) in enumerate(diamonds):
        y = len(rows) + j + 0.5
        ax.fill(
            [low, effect, high, effect],
            [y, y - 0.3, y, y + 0.3],
            color="black" if j else "0.6",
            gid=label,
        )
    ax.axvline(0.0, color="black", linestyle=":", linewidth=0.8)
    labels = [f"{r.collection} (n = {r.n})" for r in rows] + [d[0] for d in diamonds]
    ax.set_yticks([*range(len(rows)), len(rows) + 0.5, len(rows) + 1.5], labels)
    ax.set_ylim(count + 0.2, -0.8)
    from ranklens.analysis.meta_analysis import EFFECT_LABELS

    ax.set_xlabel(f"{EFFECT_LABELS[meta.effect]} of {meta.measure}, {run} - {meta.baseline}")
    ax.grid(True, axis="x", alpha=0.3)
    tau2 = f"{summary.tau2:.2e}" if summary.tau2 else "0"
    ax.set_title(
        title
        if title is not None
        else f"{run} vs {meta.baseline}: tau² = {tau2}, I² = {summary.i2:.0%} "
        f"({meta.confidence:.0%} intervals)"
    )
    return fig


def plot_forests(
    meta: MetaAnalysis,
    runs: Sequence[str] | None = None,
    *,
    dpi: float | None = None,
) -> Figure:
    """The forest plots of ``runs`` (default: every run with a summary), one panel each,
    stacked in one figure."""
    from ranklens.presentation.plots.figures import _figure

    chosen = list(meta.summary) if runs is None else list(runs)
    if not chosen:
        raise OptionError("give at least one run to plot")
    heights = [max(2.5, 0.4 * (len(meta.rows_of(r)) + 2) + 1.2) for r in chosen]
    fig = _figure((7.0, sum(heights)), dpi, "plot_forests")
    axes = fig.subplots(len(chosen), 1, squeeze=False, height_ratios=heights)
    for run, row in zip(chosen, axes, strict=True):
        plot_forest(meta, run, ax=row[0])
    return fig
