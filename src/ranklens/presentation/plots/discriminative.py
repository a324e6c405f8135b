"""Plots of discriminative power (ASL curves, Sakai 2006) and swap rates (Voorhees and
Buckley 2002); see :mod:`ranklens.analysis.topics`.

Like every ranklens plot they are drawn without pyplot and return the Figure.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ranklens.base.errors import OptionError
from ranklens.presentation.plots._style import markevery
from ranklens.presentation.plots._style import style as run_style
from ranklens.presentation.plots.figures import _target

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from ranklens.analysis.topics import DiscriminativePower, SwapRate

__all__ = ["plot_asl_curves", "plot_swap_rates"]


def plot_asl_curves(
    dp: DiscriminativePower,
    method: str = "bootstrap",
    *,
    ax: Axes | None = None,
    title: str | None = None,
    figsize: tuple[float, float] | None = None,
    dpi: float | None = None,
) -> Figure:
    """ASL curves: for each measure, the ASLs of every pair of runs sorted in increasing
    order, against the pair's rank; a dashed line at ``alpha``. A curve lower and further
    right at ``alpha`` means a more discriminative measure.

    Parameters
    ----------
    dp
        The result of :func:`ranklens.discriminative_power`.
    method
        ``"bootstrap"`` or ``"tukey"`` (randomised Tukey HSD).
    ax, title, figsize, dpi
        As for :func:`ranklens.presentation.plots.plot_pr`.
    """
    if method not in ("bootstrap", "tukey"):
        raise OptionError(f"method must be 'bootstrap' or 'tukey', not {method!r}")
    fig, ax = _target(ax, figsize, dpi, "plot_asl_curves")
    table = dp.bootstrap if method == "bootstrap" else dp.tukey
    count = len(dp.measures)
    for i, m in enumerate(dp.measures):
        asl = np.sort(table[m].asl)
        look = run_style(i)
        ax.plot(
            np.arange(1, asl.shape[0] + 1),
            asl,
            color=look.color,
            linestyle=look.linestyle,
            marker=look.marker,
            markevery=markevery(i, count),
            label=f"{m} ({dp.power(m, method):.0%} of pairs)",
        )
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.axhline(dp.alpha, color="black", linestyle=":", linewidth=0.8)
    ax.set_xlabel("system pair, sorted by ASL")
    ax.set_ylabel("achieved significance level")
    ax.set_ylim(0.0, 1.0)
    ax.grid(True, alpha=0.3)
    ax.legend(loc="upper left")
    name = "paired bootstrap" if method == "bootstrap" else "randomised Tukey HSD"
    ax.set_title(
        title
        if title is not None
        else f"ASL curves ({name}, B = {dp.resamples}, {dp.topics} topics)"
    )
    return fig


def plot_swap_rates(
    sr: SwapRate,
    *,
    ax: Axes | None = None,
    title: str | None = None,
    figsize: tuple[float, float] | None = None,
    dpi: float | None = None,
) -> Figure:
    """Swap rate against the difference between two runs (the bins' lower edges), one line
    per topic set size (empty bins left out).

    Parameters
    ----------
    sr
        The result of :func:`ranklens.swap_rate`.
    ax, title, figsize, dpi
        As for :func:`ranklens.presentation.plots.plot_pr`.
    """
    fig, ax = _target(ax, figsize, dpi, "plot_swap_rates")
    rates: Any = sr.rates.rates
    lows = sr.rates.bin_edges[:-1]
    count = len(sr.rates.sizes)
    for i, size in enumerate(sr.rates.sizes.tolist()):
        keep = sr.rates.counts[i] > 0
        look = run_style(i)
        ax.plot(
            lows[keep],
            rates[i][keep],
            color=look.color,
            linestyle=look.linestyle,
            marker=look.marker,
            markevery=markevery(i, count),
            label=f"{size} topics",
        )
    ax.set_xlabel(f"difference in {sr.measure} on the first topic set (bin)")
    ax.set_ylabel("swap rate")
    ax.set_ylim(0.0, max(0.5, float(np.nanmax(rates)) if np.any(sr.rates.counts) else 0.5))
    ax.grid(True, alpha=0.3)
    ax.legend(loc="upper right")
    ax.set_title(
        title
        if title is not None
        else f"swap rates of {sr.measure} ({sr.rates.trials} random splits per size)"
    )
    return fig
