"""Drawing the plots with matplotlib (an optional dependency: ``pip install 'ranklens[plot]'``).

Each ``plot_*`` function computes its data with :mod:`ranklens.presentation.plots.data`
and hands it to the matching ``draw_*`` function, which only draws. They return a
:class:`matplotlib.figure.Figure` made without pyplot (no global state, no backend to
choose: ``fig.savefig("x.png")`` renders it with Agg, ``.svg`` and ``.pdf`` with their own
back-ends), or, given ``ax=``, draw into that Axes and return its figure.

Every run has its own colour **and** line style and marker (hatch for bars), see
:mod:`ranklens.presentation.plots._style`, so that the plots survive greyscale printing.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ranklens.base.errors import OptionError
from ranklens.base.optional import require
from ranklens.presentation.plots._style import DEFAULT_DPI, DEFAULT_SIZE, PALETTE, markevery
from ranklens.presentation.plots._style import style as run_style
from ranklens.presentation.plots.data import (
    CutoffData,
    DeltaData,
    DistData,
    PrData,
    RocData,
    cutoff_data,
    delta_data,
    dist_data,
    pr_data,
    roc_data,
)

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from ranklens.data.coerce import QrelsLike
    from ranklens.evaluation.results import Results
    from ranklens.measures.base import Measure

__all__ = [
    "draw_cutoff",
    "draw_delta",
    "draw_dist",
    "draw_pr",
    "draw_roc",
    "plot_cutoff",
    "plot_delta",
    "plot_dist",
    "plot_pr",
    "plot_roc",
]

STYLES = ("box", "violin")
MAX_LEVEL_MARKERS = 21
"""An interpolated curve with up to this many recall levels has a marker on each."""
MAX_QUERY_LABELS = 60
"""A delta plot names its queries under the bars up to this many queries."""
_CRITERION_LABEL = {"youden": "max J", "distance": "min distance", "product": "max TPR(1-FPR)"}


def _figure(figsize: tuple[float, float] | None, dpi: float | None, feature: str) -> Figure:
    """A new figure (no pyplot), or :class:`MissingDependencyError` without matplotlib."""
    require("matplotlib", feature)
    from matplotlib.figure import Figure

    return Figure(figsize=figsize or DEFAULT_SIZE, dpi=dpi or DEFAULT_DPI, layout="constrained")


def _root(ax: Axes) -> Figure:
    from matplotlib.figure import Figure

    fig: Any = ax.figure
    while not isinstance(fig, Figure):  # a SubFigure: climb to the Figure
        fig = fig.figure
    return fig


def _target(
    ax: Axes | None, figsize: tuple[float, float] | None, dpi: float | None, feature: str
) -> tuple[Figure, Axes]:
    if ax is not None:
        return _root(ax), ax
    fig = _figure(figsize, dpi, feature)
    return fig, fig.add_subplot()


# ------------------------------------------------------------------------ precision-recall


def draw_pr(
    data: PrData,
    *,
    interpolated: bool = True,
    ax: Axes | None = None,
    title: str | None = None,
    figsize: tuple[float, float] | None = None,
    dpi: float | None = None,
) -> Figure:
    """Draw precision-recall curves (see :func:`plot_pr`).

    The lines, in order: for one query, each run's raw curve (label ``"<run>"``) and, with
    ``interpolated``, its interpolated curve (``"<run>, interpolated"``); for the mean, each
    run's mean interpolated curve (``"<run>"``).
    """
    fig, ax = _target(ax, figsize, dpi, "plot_pr")
    n = len(data.series)
    for i, s in enumerate(data.series):
        look = run_style(i)
        if s.recall is not None and s.precision is not None:
            ax.plot(
                s.recall,
                s.precision,
                color=look.color,
                linestyle=look.linestyle,
                marker=look.marker,
                markevery=markevery(i, n),
                markersize=4,
                linewidth=1.0,
                alpha=0.55 if interpolated else 1.0,
                label=s.run,
            )
            if not interpolated:
                continue
            label = f"{s.run}, interpolated"
        else:
            label = s.run
        ax.plot(
            s.levels,
            s.interpolated,
            color=look.color,
            linestyle=look.linestyle,
            marker=look.marker,
            markevery=None if s.levels.shape[0] <= MAX_LEVEL_MARKERS else markevery(i, n),
            markersize=6,
            linewidth=2.0,
            label=label,
        )
    ax.set_xlabel("Recall")
    ax.set_ylabel("Precision")
    ax.set_xlim(-0.02, 1.02)
    ax.set_ylim(-0.02, 1.05)
    ax.grid(True, alpha=0.3)
    if data.query is None:
        what = f"Interpolated precision-recall, mean over {data.num_queries} queries"
    else:
        what = f"Precision-recall, query {data.query}"
    ax.set_title(title if title is not None else what)
    ax.legend(loc="upper right")
    return fig


def plot_pr(
    qrels: QrelsLike,
    runs: Any,
    *,
    query: str | None = None,
    interpolated: bool = True,
    levels: Sequence[float] | None = None,
    rel: int = 1,
    judged_only: bool = False,
    ax: Axes | None = None,
    title: str | None = None,
    figsize: tuple[float, float] | None = None,
    dpi: float | None = None,
    **evaluator_options: Any,
) -> Figure:
    """Precision-recall curves of one or more runs, overlaid.

    With ``query``: that query's raw curve (the sawtooth of
    :func:`~ranklens.analysis.curves.pr_curve`, one point per rank) and, with ``interpolated``, its
    interpolated precision at the recall ``levels`` (``IPrec@x``). Without ``query``: the
    interpolated precision averaged over the queries (the mean ``IPrec@x`` at each level,
    as trec_eval's 11-point curve); the raw curves have no mean (their points lie at
    different recall values in different queries), so ``interpolated=False`` needs a
    ``query``.

    Parameters
    ----------
    qrels, runs
        Judgments and one or more runs (see :func:`ranklens.presentation.plots.data.named_runs`).
    query
        One query, or ``None`` for the mean over the queries.
    interpolated
        Draw the interpolated curve (with ``query``, over the raw one).
    levels
        Recall levels of the interpolated curve; by default the 11 standard ones (give e.g.
        ``numpy.linspace(0, 1, 101)`` for a finer curve).
    rel, judged_only
        As for :func:`~ranklens.analysis.curves.pr_curve`.
    ax
        Draw into this Axes instead of a new figure.
    title
        The title (by default one says what is shown).
    figsize, dpi
        Of a new figure: inches (default 8 x 5) and dots per inch (default 100).
    **evaluator_options
        ``ties``, ``queries``, ``depth``, ``duplicates`` as for :class:`~ranklens.Evaluator`.

    Returns
    -------
    matplotlib.figure.Figure
    """
    if query is None and not interpolated:
        raise OptionError(
            "the raw precision-recall curve exists per query only: give a query, or keep "
            "interpolated=True for the mean over the queries"
        )
    data = pr_data(
        qrels,
        runs,
        query=query,
        levels=levels,
        rel=rel,
        judged_only=judged_only,
        **evaluator_options,
    )
    return draw_pr(data, interpolated=interpolated, ax=ax, title=title, figsize=figsize, dpi=dpi)


# ------------------------------------------------------------------------------------ ROC


def draw_roc(
    data: RocData,
    *,
    ax: Axes | None = None,
    title: str | None = None,
    figsize: tuple[float, float] | None = None,
    dpi: float | None = None,
) -> Figure:
    """Draw ROC curves (see :func:`plot_roc`).

    The lines, in order: the diagonal (``"chance"``), then per run its curve (label
    ``"<run> (AUC = ...)"``) and its optimal point (one marker, ``"<run>: max J ..."``).
    """
    fig, ax = _target(ax, figsize, dpi, "plot_roc")
    ax.plot([0, 1], [0, 1], color="0.6", linestyle=":", linewidth=1.0, label="chance")
    n = len(data.series)
    mean = "mean " if data.query is None else ""
    for i, s in enumerate(data.series):
        look = run_style(i)
        ax.plot(
            s.fpr,
            s.tpr,
            color=look.color,
            linestyle=look.linestyle,
            marker=look.marker,
            markevery=markevery(i, n),
            markersize=4,
            linewidth=1.8,
            label=f"{s.run} ({mean}AUC = {s.auc:.3f})",
        )
        best = s.best
        where = f" at k = {best.cutoff}" if best.cutoff is not None else ""
        ax.plot(
            [best.fpr],
            [best.tpr],
            color=look.color,
            linestyle="none",
            marker=look.marker,
            markersize=11,
            markerfacecolor="white",
            markeredgewidth=2.0,
            label=f"{s.run}: {_CRITERION_LABEL[best.criterion]} = {best.value:.3f}{where}",
        )
    ax.set_xlabel("False positive rate (judged non-relevant documents)")
    ax.set_ylabel("True positive rate (recall)")
    ax.set_xlim(-0.02, 1.02)
    ax.set_ylim(-0.02, 1.02)
    ax.set_aspect("equal")
    ax.grid(True, alpha=0.3)
    if data.query is None:
        what = f"ROC, vertical average over {data.num_queries} queries"
    else:
        what = f"ROC, query {data.query}"
    ax.set_title(title if title is not None else what)
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), fontsize="small")  # beside the square
    return fig


def plot_roc(
    qrels: QrelsLike,
    runs: Any,
    *,
    query: str | None = None,
    cutoff: str = "youden",
    rel: int = 1,
    ax: Axes | None = None,
    title: str | None = None,
    figsize: tuple[float, float] | None = None,
    dpi: float | None = None,
    **evaluator_options: Any,
) -> Figure:
    """ROC curves of one or more runs, with the AUC in the legend and the optimal point.

    With ``query``, that query's curve (:func:`~ranklens.analysis.curves.roc_curve`) and its
    optimal cut-off (:func:`~ranklens.analysis.curves.roc_optimal_cutoffs`, the ``k`` in the
    legend).
    Without, the vertical average of the queries' curves, whose area is the mean ``AUC``
    (see :func:`ranklens.presentation.plots.data.average_roc`), and its best point by the criterion
    (no single cut-off reaches it, so no ``k``).

    Parameters
    ----------
    cutoff
        The criterion of the optimal point: ``"youden"`` (maximum ``TPR - FPR``, default),
        ``"distance"`` (minimum distance to ``(0, 1)``) or ``"product"`` (maximum
        ``TPR * (1 - FPR)``).
    qrels, runs, query, rel, ax, title, figsize, dpi, **evaluator_options
        As for :func:`plot_pr`.

    Returns
    -------
    matplotlib.figure.Figure
    """
    data = roc_data(qrels, runs, query=query, cutoff=cutoff, rel=rel, **evaluator_options)
    return draw_roc(data, ax=ax, title=title, figsize=figsize, dpi=dpi)


# ------------------------------------------------------------------------------ cut-offs


def draw_cutoff(
    data: CutoffData,
    *,
    ax: Axes | Sequence[Axes] | None = None,
    title: str | None = None,
    figsize: tuple[float, float] | None = None,
    dpi: float | None = None,
) -> Figure:
    """Draw measures against their cut-off (see :func:`plot_cutoff`): one Axes per measure,
    one line per run (label ``"<run>"``), in the order of ``data.runs``."""
    n_measures = len(data.measures)
    if ax is None:
        fig = _figure(figsize, dpi, "plot_cutoff")
        grid = fig.subplots(1, n_measures, squeeze=False, sharex=True)
        axes: list[Axes] = list(grid[0])
    else:
        axes = [ax] if not isinstance(ax, Sequence) else list(ax)
        if len(axes) != n_measures:
            raise OptionError(
                f"give one Axes per measure: {n_measures} measure(s), {len(axes)} Axes"
            )
        fig = _root(axes[0])
    from matplotlib.ticker import MaxNLocator

    n_runs = len(data.runs)
    for j, (measure, target) in enumerate(zip(data.measures, axes, strict=True)):
        for r, run in enumerate(data.runs):
            look = run_style(r)
            target.plot(
                data.ks,
                data.values[r, j],
                color=look.color,
                linestyle=look.linestyle,
                marker=look.marker,
                markevery=markevery(r, n_runs),
                markersize=5,
                linewidth=1.8,
                label=run,
            )
        target.set_xlabel("cut-off k")
        target.set_ylabel(f"{measure}@k")
        target.set_title(f"{measure}@k")
        target.set_xlim(0.5, data.ks[-1] + 0.5)
        target.xaxis.set_major_locator(MaxNLocator(integer=True, min_n_ticks=1))
        target.grid(True, alpha=0.3)
    axes[0].legend(loc="best")
    if title is not None:
        fig.suptitle(title)
    return fig


def plot_cutoff(
    qrels: QrelsLike,
    runs: Any,
    measures: Sequence[str | Measure] | str = ("P", "R", "nDCG"),
    max_k: int = 20,
    *,
    ax: Axes | Sequence[Axes] | None = None,
    title: str | None = None,
    figsize: tuple[float, float] | None = None,
    dpi: float | None = None,
    **evaluator_options: Any,
) -> Figure:
    """Measures against their cut-off ``k = 1..max_k`` (``P@k``, ``R@k``, ``nDCG@k``), one
    panel per measure, runs overlaid.

    The values are the aggregates (means over the queries) of ``measure@k``, all computed in
    one :meth:`~ranklens.Evaluator.evaluate` per run (see
    :func:`ranklens.presentation.plots.data.cutoff_data`).

    Parameters
    ----------
    measures
        Measures that take a cut-off, given without it (``"P"``, ``"P(rel=2)"``, ``"nDCG"``).
    max_k
        The largest cut-off.
    ax
        One Axes per measure to draw into (a single Axes for a single measure).
    title
        A title over the panels (none by default: each panel is titled by its measure).
    qrels, runs, figsize, dpi, **evaluator_options
        As for :func:`plot_pr`.

    Returns
    -------
    matplotlib.figure.Figure
    """
    data = cutoff_data(qrels, runs, measures, max_k, **evaluator_options)
    return draw_cutoff(data, ax=ax, title=title, figsize=figsize, dpi=dpi)


# ----------------------------------------------------------------- per-query comparisons


def draw_delta(
    data: DeltaData,
    *,
    ax: Axes | None = None,
    title: str | None = None,
    figsize: tuple[float, float] | None = None,
    dpi: float | None = None,
) -> Figure:
    """Draw per-query differences (see :func:`plot_delta`): one bar per query in
    ``ax.containers[0]``, heights ``data.delta``; lower bars hatched."""
    from matplotlib.patches import Patch

    fig, ax = _target(ax, figsize, dpi, "plot_delta")
    x = np.arange(data.delta.shape[0])
    higher, lower = PALETTE[0], PALETTE[1]
    colors = [higher if d > 0 else lower for d in data.delta.tolist()]
    bars = ax.bar(x, data.delta, width=0.8, color=colors, edgecolor="black", linewidth=0.5)
    for bar, d in zip(bars.patches, data.delta.tolist(), strict=True):
        if d < 0:
            bar.set_hatch("//")
    ax.axhline(0.0, color="black", linewidth=0.8)
    ax.set_xlim(-0.6, max(0.6, x.shape[0] - 0.4))
    if x.shape[0] <= MAX_QUERY_LABELS:
        ax.set_xticks(x, list(data.queries), rotation=90, fontsize="x-small")
    else:
        ax.set_xticks([])
    ax.set_xlabel("query (sorted by the difference)")
    ax.set_ylabel(f"{data.measure}: {data.run_b} - {data.run_a}")
    ax.grid(True, axis="y", alpha=0.3)
    handles = [
        Patch(facecolor=higher, edgecolor="black", label=f"{data.run_b} higher: {data.wins}"),
        Patch(
            facecolor=lower,
            edgecolor="black",
            hatch="//",
            label=f"{data.run_a} higher: {data.losses}",
        ),
        Patch(facecolor="white", edgecolor="white", label=f"equal: {data.ties}"),
    ]
    ax.legend(handles=handles, loc="upper right")
    what = f"{data.measure} per query: {data.run_b} - {data.run_a}"
    what += f" ({data.wins} higher, {data.losses} lower, {data.ties} equal)"
    ax.set_title(title if title is not None else what)
    return fig


def plot_delta(
    a: Results,
    b: Results,
    measure: str | Measure,
    *,
    ax: Axes | None = None,
    title: str | None = None,
    figsize: tuple[float, float] | None = None,
    dpi: float | None = None,
) -> Figure:
    """The per-query differences ``b - a`` of one measure as bars, sorted from the largest
    gain to the largest loss, with a zero line and the counts of queries where ``b`` is
    higher, lower and equal (in the title and legend).

    Parameters
    ----------
    a, b
        Results of two runs on the same queries (see
        :func:`ranklens.presentation.plots.data.delta_data`).
    measure
        A measure both were evaluated with.
    ax, title, figsize, dpi
        As for :func:`plot_pr`.

    Returns
    -------
    matplotlib.figure.Figure
    """
    return draw_delta(delta_data(a, b, measure), ax=ax, title=title, figsize=figsize, dpi=dpi)


def draw_dist(
    data: DistData,
    *,
    style: str = "box",
    ax: Axes | None = None,
    title: str | None = None,
    figsize: tuple[float, float] | None = None,
    dpi: float | None = None,
) -> Figure:
    """Draw distributions (see :func:`plot_dist`): one box or violin per run at x = 1..n,
    and the runs' means (``data.centers``) as one line of diamond markers (label
    ``data.center``). A box's median line has the gid ``"median <run>"``; the violins'
    median segments (one collection) have the gid ``"medians"``."""
    if style not in STYLES:
        raise OptionError(f"style must be one of {list(STYLES)}, not {style!r}")
    fig, ax = _target(ax, figsize, dpi, "plot_dist")
    positions = np.arange(1, len(data.runs) + 1, dtype=np.float64)
    several = len(data.runs) > 1
    values = [np.asarray(v, dtype=np.float64) for v in data.values]
    if style == "box":
        boxes = ax.boxplot(values, positions=positions, widths=0.6, patch_artist=True)
        bodies: list[Any] = list(boxes["boxes"])
        for run, median in zip(data.runs, boxes["medians"], strict=True):
            median.set_color("black")
            median.set_linewidth(1.5)
            median.set_gid(f"median {run}")
    else:
        violins: dict[str, Any] = dict(
            ax.violinplot(values, positions=positions, widths=0.8, showmedians=True)
        )
        bodies = list(violins["bodies"])
        for key in ("cmedians", "cmins", "cmaxes", "cbars"):
            violins[key].set_color("black")
        violins["cmedians"].set_gid("medians")
    for i, body in enumerate(bodies):
        look = run_style(i)
        body.set_facecolor(look.color)
        body.set_alpha(0.45)
        body.set_edgecolor("black")
        if several:
            body.set_hatch(look.hatch)
    ax.plot(
        positions,
        list(data.centers),
        linestyle="none",
        marker="D",
        markersize=7,
        markerfacecolor="white",
        markeredgecolor="black",
        label=data.center,
    )
    ax.set_xticks(positions, list(data.runs))
    ax.set_xlim(0.4, len(data.runs) + 0.6)
    ax.set_xlabel("run")
    ax.set_ylabel(data.measure)
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(loc="best")
    n = data.values[0].shape[0] if data.values else 0
    ax.set_title(title if title is not None else f"{data.measure} per query ({n} queries)")
    return fig


def plot_dist(
    results: Sequence[Results] | Results,
    measure: str | Measure,
    style: str = "box",
    *,
    ax: Axes | None = None,
    title: str | None = None,
    figsize: tuple[float, float] | None = None,
    dpi: float | None = None,
) -> Figure:
    """The distribution of one measure's per-query values, one box or violin per run.

    Boxes show the quartiles, whiskers reach the furthest value within 1.5 IQR, points
    beyond them are outliers; violins a kernel density with the median and the extremes.
    A white diamond marks each run's aggregate (the mean, or what the measure declares).

    Parameters
    ----------
    results
        Results of one or more runs, each with ``measure``.
    measure
        A measure name (either language) or :class:`~ranklens.Measure`.
    style
        ``"box"`` (default) or ``"violin"``.
    ax, title, figsize, dpi
        As for :func:`plot_pr`.

    Returns
    -------
    matplotlib.figure.Figure
    """
    data = dist_data(results, measure)
    return draw_dist(data, style=style, ax=ax, title=title, figsize=figsize, dpi=dpi)
