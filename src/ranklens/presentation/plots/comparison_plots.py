"""Plots of a comparison of many runs: the critical-difference diagram of Friedman's test
(Demšar 2006), the rank intervals of the runs ("tied with #1") and the per-group mean
differences of a comparison with query groups.

The numbers drawn are computed by the plain functions here (:func:`cd_cliques`,
:func:`group_delta_data`), so they can be checked without matplotlib.

Examples
--------
>>> cd_cliques({"a": 1.2, "b": 1.9, "c": 2.9}, 1.1)
[('a', 'b'), ('b', 'c')]
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from ranklens.base.errors import OptionError
from ranklens.presentation.plots._style import PALETTE
from ranklens.presentation.plots.figures import _target

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from ranklens.analysis.comparison import Comparison
    from ranklens.analysis.stats.friedman import FriedmanResult

__all__ = [
    "cd_cliques",
    "group_delta_data",
    "plot_cd",
    "plot_group_deltas",
    "plot_rank_intervals",
]


def cd_cliques(mean_ranks: dict[str, float], critical_difference: float) -> list[tuple[str, ...]]:
    """The maximal groups of runs (by mean rank, best first) whose mean ranks all lie
    within ``critical_difference`` of each other: the runs the Nemenyi test cannot tell
    apart, joined by a bar in the diagram. Groups of one run are left out."""
    ordered = sorted(mean_ranks.items(), key=lambda kv: (kv[1], kv[0]))
    out: list[tuple[str, ...]] = []
    last_end = -1
    for i in range(len(ordered)):
        j = i
        while j + 1 < len(ordered) and ordered[j + 1][1] - ordered[i][1] < critical_difference:
            j += 1
        if j > i and j > last_end:  # not inside the previous group
            out.append(tuple(name for name, _ in ordered[i : j + 1]))
            last_end = j
    return out


def plot_cd(
    result: FriedmanResult,
    *,
    measure: str = "",
    ax: Axes | None = None,
    title: str | None = None,
    figsize: tuple[float, float] | None = None,
    dpi: float | None = None,
) -> Figure:
    """The critical-difference diagram of Friedman's test (Demšar 2006): the runs on an
    axis of mean ranks (1, the best, on the left), the Nemenyi critical difference as a
    bar above it, and a thick line joining the runs that do not differ significantly
    (:func:`cd_cliques`).

    Parameters
    ----------
    result
        :meth:`ranklens.Comparison.friedman`'s result.
    measure
        The measure's name, for the title.
    ax, title, figsize, dpi
        As for :func:`~ranklens.presentation.plots.plot_pr`.
    """
    k = len(result.mean_ranks)
    height = 1.2 + 0.3 * k
    fig, ax = _target(ax, figsize or (8.0, height), dpi, "plot_cd")
    ordered = sorted(result.mean_ranks.items(), key=lambda kv: (kv[1], kv[0]))
    ax.set_xlim(0.5, k + 0.5)
    ax.set_ylim(-(math.ceil(k / 2) * 0.5 + 0.6), 2.0)
    ax.axhline(0.0, color="black", linewidth=1.0)
    for r in range(1, k + 1):
        ax.plot([r, r], [0.0, 0.15], color="black", linewidth=0.8)
        ax.text(r, 0.25, str(r), ha="center", va="bottom", fontsize="small")
    cd = result.critical_difference
    ax.plot([1, 1 + cd], [1.3, 1.3], color="black", linewidth=1.5)
    for end in (1, 1 + cd):
        ax.plot([end, end], [1.2, 1.4], color="black", linewidth=1.0)
    ax.text(1 + cd / 2, 1.45, f"CD = {cd:.3f}", ha="center", va="bottom", fontsize="small")
    half = math.ceil(k / 2)
    for i, (name, rank) in enumerate(ordered):
        left = i < half
        depth = -(i + 1 if left else k - i) * 0.5 - 0.3
        x_text = 0.6 if left else k + 0.4
        ax.plot([rank, rank, x_text], [0.0, depth, depth], color=PALETTE[0], linewidth=0.8)
        ax.text(
            x_text,
            depth,
            f"{name} ({rank:.2f})" if left else f"({rank:.2f}) {name}",
            ha="left" if left else "right",
            va="bottom",
            fontsize="small",
        )
    ranks = dict(ordered)
    for level, clique in enumerate(cd_cliques(result.mean_ranks, cd)):
        y = -0.15 - 0.12 * level
        ax.plot(
            [ranks[clique[0]] - 0.03, ranks[clique[-1]] + 0.03],
            [y, y],
            color=PALETTE[1],
            linewidth=3.0,
            solid_capstyle="round",
        )
    ax.set_axis_off()
    what = f"Critical difference (Nemenyi, alpha = {result.alpha:g}, {result.queries} queries)"
    if measure:
        what = f"{measure}: {what}"
    p = "nan" if math.isnan(result.p_value) else f"{result.p_value:.2g}"
    ax.set_title(title if title is not None else f"{what}; Friedman p = {p}")
    return fig


def plot_rank_intervals(
    cmp: Comparison,
    measure: str,
    *,
    ax: Axes | None = None,
    title: str | None = None,
    figsize: tuple[float, float] | None = None,
    dpi: float | None = None,
) -> Figure:
    """Each run's rank interval (:attr:`ranklens.Comparison.ranks`, with ``all_pairs``)
    as a horizontal segment from its best to its worst rank, runs ordered by their mean
    (best on top); the runs tied with the first (best rank 1) drawn in the first colour
    and the others in the second."""
    intervals = cmp.ranks[measure]
    hib = cmp.higher_is_better[measure]
    order = sorted(cmp.runs, key=lambda r: -cmp.means[r][measure] if hib else cmp.means[r][measure])
    k = len(order)
    fig, ax = _target(ax, figsize or (8.0, 1.0 + 0.45 * k), dpi, "plot_rank_intervals")
    for y, run in enumerate(order):
        best, worst = intervals[run]
        color = PALETTE[0] if best == 1 else PALETTE[1]
        ax.plot([best, worst], [y, y], color=color, linewidth=6.0, solid_capstyle="butt")
        ax.plot([best, worst], [y, y], "|", color="black", markersize=12)
        if best == worst:  # one rank: a dot
            ax.plot([best], [y], "o", color=color, markersize=8)
    ax.set_yticks(range(k), order)
    ax.invert_yaxis()
    ax.set_xlim(0.5, k + 0.5)
    ax.set_xticks(range(1, k + 1))
    ax.set_xlabel("rank (1 = best)")
    ax.grid(True, axis="x", alpha=0.3)
    tied = sum(1 for r in order if intervals[r][0] == 1)
    what = f"{measure}: rank intervals from the corrected pairwise tests; {tied} tied with #1"
    ax.set_title(title if title is not None else what)
    return fig


def group_delta_data(cmp: Comparison, measure: str) -> dict[str, Any]:
    """What :func:`plot_group_deltas` draws: ``groups`` (names), ``sizes`` (queries per
    group), ``runs`` (the runs compared with the baseline), and ``delta``, ``ci_low``,
    ``ci_high`` arrays (groups x runs; nan where a group is too small)."""
    if not cmp.groups:
        raise OptionError("the comparison has no query groups: compare with groups=...")
    name = cmp._measure(measure)
    runs = [r for r in cmp.runs if r != cmp.baseline]
    groups = list(cmp.groups)
    shape = (len(groups), len(runs))
    delta, low, high = np.empty(shape), np.empty(shape), np.empty(shape)
    for i, g in enumerate(groups):
        for j, r in enumerate(runs):
            st = cmp.groups[g].vs_baseline[r][name]
            delta[i, j], low[i, j], high[i, j] = st.delta, st.ci_low, st.ci_high
    sizes = [len(cmp.groups[g].queries) for g in groups]
    return {
        "groups": groups,
        "sizes": sizes,
        "runs": runs,
        "delta": delta,
        "ci_low": low,
        "ci_high": high,
    }


def plot_group_deltas(
    cmp: Comparison,
    measure: str,
    *,
    ax: Axes | None = None,
    title: str | None = None,
    figsize: tuple[float, float] | None = None,
    dpi: float | None = None,
) -> Figure:
    """The mean difference from the baseline of each run in each query group, as
    horizontal bars with their confidence intervals (none where a group is too small for
    one), the overall difference as a dashed line per run."""
    data = group_delta_data(cmp, measure)
    groups, runs = data["groups"], data["runs"]
    fig, ax = _target(
        ax, figsize or (8.0, 1.2 + 0.35 * len(groups) * max(1, len(runs))), dpi, "plot_group_deltas"
    )
    height = 0.8 / max(1, len(runs))
    y = np.arange(len(groups), dtype=np.float64)
    for j, run in enumerate(runs):
        color = PALETTE[j % len(PALETTE)]
        pos = y + (j - (len(runs) - 1) / 2) * height
        d = data["delta"][:, j]
        ax.barh(pos, np.nan_to_num(d), height=height * 0.9, color=color, label=run)
        ok = np.isfinite(data["ci_low"][:, j])
        if np.any(ok):
            err = np.vstack([d[ok] - data["ci_low"][ok, j], data["ci_high"][ok, j] - d[ok]])
            ax.errorbar(d[ok], pos[ok], xerr=err, fmt="none", ecolor="black", capsize=2)
        overall = cmp.vs_baseline[run][cmp._measure(measure)].delta
        ax.axvline(overall, color=color, linestyle="--", linewidth=0.8)
    labels = [f"{g} ({n})" for g, n in zip(groups, data["sizes"], strict=True)]
    ax.set_yticks(y, labels)
    ax.invert_yaxis()
    ax.axvline(0.0, color="black", linewidth=0.8)
    ax.set_xlabel(f"{measure}: run - {cmp.baseline} (dashed: all queries)")
    ax.grid(True, axis="x", alpha=0.3)
    ax.legend(loc="best", fontsize="small")
    what = f"{measure} per query group (queries), {cmp.confidence:.0%} intervals"
    ax.set_title(title if title is not None else what)
    return fig
