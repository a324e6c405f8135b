"""What the plots draw, computed without matplotlib: plain numpy arrays in small dataclasses.

Every function here is pure (its inputs are not modified) and every number it returns comes
from :mod:`ranklens.analysis.curves` or :class:`~ranklens.Evaluator`, so that a plot shows exactly
what ``ranklens curve`` and ``ranklens eval`` print. :mod:`ranklens.presentation.plots.figures` only
draws these objects.

Runs
    ``runs`` is one run or several, in any form :class:`~ranklens.Evaluator` accepts: a
    path, a :class:`~ranklens.Run`, a ``{qid: {docid: score}}`` dict, a DataFrame, a list
    of these, or a mapping ``name -> run`` (see :func:`named_runs`). Legends use the run
    names (the mapping's keys, else the runs' own names), made unique with ``" (2)"``, ...
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ranklens.analysis.curves import STANDARD_LEVELS, RocCurve
from ranklens.base.errors import MeasureError, OptionError
from ranklens.base.types import Float64Array, Int64Array
from ranklens.data.coerce import QrelsLike, as_qrels, as_run
from ranklens.data.frames import is_frame
from ranklens.data.qrels import Qrels
from ranklens.data.run import Run
from ranklens.evaluation.results import Results
from ranklens.measures.base import Measure
from ranklens.measures.language import parse_measure

__all__ = [
    "CRITERIA",
    "CutoffData",
    "DeltaData",
    "DistData",
    "PrData",
    "PrSeries",
    "RocData",
    "RocPoint",
    "RocSeries",
    "average_roc",
    "cutoff_data",
    "delta_data",
    "dist_data",
    "named_runs",
    "pr_data",
    "roc_data",
]

EVALUATOR_OPTIONS = frozenset({"ties", "queries", "depth", "duplicates"})
CRITERIA: dict[str, str] = {"youden": "youden", "distance": "closest", "product": "product"}
"""The optimal cut-off criteria by their plot name, and the attribute of
:class:`~ranklens.analysis.curves.RocCutoffs` that holds each."""


# ---------------------------------------------------------------------------------- runs


def _is_one_run(obj: object) -> bool:
    return isinstance(obj, Run | str | os.PathLike) or hasattr(obj, "read") or is_frame(obj)


def _is_name_to_run(runs: Mapping[Any, Any]) -> bool:
    """A mapping is ``name -> run`` when its values are runs; ``{qid: {docid: score}}``
    (values mapping documents to numbers) is one run."""
    if not runs:
        return False
    first = next(iter(runs.values()))
    if isinstance(first, Mapping):
        inner = next(iter(first.values()), None)
        return isinstance(inner, Mapping)
    return _is_one_run(first)


def named_runs(runs: Any, duplicates: str = "error") -> list[tuple[str, Run]]:
    """The runs of ``runs``, with unique names for the legends.

    Parameters
    ----------
    runs
        One run (a path, :class:`~ranklens.Run`, ``{qid: {docid: score}}``, DataFrame,
        ``(qid, docid, score)`` records), a list or tuple of runs, or a mapping
        ``name -> run``.
    duplicates
        As for :class:`~ranklens.Evaluator`.

    Returns
    -------
    ``[(name, run), ...]`` in the order given; a repeated name gets ``" (2)"``, ``" (3)"``...

    Examples
    --------
    >>> run = {"q": {"a": 1.0}}
    >>> [name for name, _ in named_runs([run, run])]
    ['run', 'run (2)']
    >>> [name for name, _ in named_runs({"bm25": run})]
    ['bm25']
    """
    policy: Any = duplicates
    pairs: list[tuple[str | None, Any]]
    if isinstance(runs, Mapping) and _is_name_to_run(runs):
        pairs = [(str(name), run) for name, run in runs.items()]
    elif (
        isinstance(runs, list | tuple)
        and runs
        and all(_is_one_run(r) or isinstance(r, Mapping) for r in runs)
    ):
        pairs = [(None, run) for run in runs]
    else:
        pairs = [(None, runs)]
    out: list[tuple[str, Run]] = []
    seen: dict[str, int] = {}
    for name, obj in pairs:
        run = as_run(obj, policy, name)
        label = run.name
        seen[label] = seen.get(label, 0) + 1
        if seen[label] > 1:
            label = f"{label} ({seen[label]})"
        out.append((label, run))
    return out


def _options(options: Mapping[str, Any]) -> dict[str, Any]:
    unknown = set(options) - EVALUATOR_OPTIONS
    if unknown:
        raise OptionError(f"unknown option(s): {', '.join(sorted(unknown))}")
    return dict(options)


def _prepare(
    qrels: QrelsLike, runs: Any, options: Mapping[str, Any]
) -> tuple[Qrels, list[tuple[str, Run]], dict[str, Any]]:
    checked = _options(options)
    duplicates: Any = checked.get("duplicates", "error")
    return as_qrels(qrels, duplicates), named_runs(runs, duplicates), checked


# ------------------------------------------------------------------------ precision-recall


@dataclass(frozen=True, eq=False)
class PrSeries:
    """One run's precision-recall curves.

    Attributes
    ----------
    run : the run's name.
    levels : float64; the recall levels of the interpolated curve.
    interpolated : float64; the interpolated precision at :attr:`levels` (``IPrec@x``), of
        one query or averaged over the queries.
    recall, precision : float64 or ``None``; the raw sawtooth curve of one query
        (:func:`ranklens.analysis.curves.pr_curve`, one point per rank); ``None`` for the mean.
    """

    run: str
    levels: Float64Array
    interpolated: Float64Array
    recall: Float64Array | None
    precision: Float64Array | None


@dataclass(frozen=True, eq=False)
class PrData:
    """Precision-recall curves of several runs, of one query or averaged."""

    query: str | None
    """The query, or ``None`` for the mean over :attr:`num_queries` queries."""
    num_queries: int
    series: tuple[PrSeries, ...]


def pr_data(
    qrels: QrelsLike,
    runs: Any,
    *,
    query: str | None = None,
    levels: Sequence[float] | None = None,
    rel: int = 1,
    judged_only: bool = False,
    **evaluator_options: Any,
) -> PrData:
    """The precision-recall curves of each run: of one query, or averaged over the queries.

    With ``query``, both the raw curve of :func:`~ranklens.analysis.curves.pr_curve` (one point
    ``(recall@i, precision@i)`` per rank ``i``, the sawtooth) and the interpolated precision
    of :func:`~ranklens.analysis.curves.interpolated_pr` at ``levels``. Without, only the
    interpolated precision averaged over the queries (the values of ``IPrec@x``): the raw curves of
    different queries have their points at different recall values, so they have no mean.

    Parameters
    ----------
    qrels, runs
        Judgments and one or more runs (see :func:`named_runs`).
    query
        One query (:class:`~ranklens.base.errors.OptionError` if it is not evaluated).
    levels
        Recall levels in [0, 1]; by default the 11 standard ones, 0, 0.1, ..., 1.
    rel, judged_only
        As for :func:`~ranklens.analysis.curves.pr_curve`.
    **evaluator_options
        ``ties``, ``queries``, ``depth``, ``duplicates`` as for :class:`~ranklens.Evaluator`.

    Examples
    --------
    >>> data = pr_data({"q": {"a": 1, "c": 1}}, {"q": {"a": 3, "b": 2, "c": 1}}, query="q")
    >>> s = data.series[0]
    >>> s.recall.tolist(), s.precision.round(2).tolist()
    ([0.5, 0.5, 1.0], [1.0, 0.5, 0.67])
    >>> s.interpolated.round(2).tolist()[-3:]
    [0.67, 0.67, 0.67]
    """
    from ranklens.analysis.curves import interpolated_pr, pr_curve

    the_qrels, the_runs, options = _prepare(qrels, runs, evaluator_options)
    grid = STANDARD_LEVELS if levels is None else levels
    series = []
    num_queries = 0
    for name, run in the_runs:
        ip = interpolated_pr(the_qrels, run, grid, rel, judged_only, **options)
        num_queries = len(ip.qids)
        if query is None:
            series.append(PrSeries(name, ip.levels, ip.mean, None, None))
            continue
        curve = pr_curve(the_qrels, run, query, rel, judged_only, **options)
        row = ip.precision[ip.qids.index(query)]
        series.append(PrSeries(name, ip.levels, row, curve.recall, curve.precision))
    return PrData(query, num_queries, tuple(series))


# ------------------------------------------------------------------------------------ ROC


@dataclass(frozen=True)
class RocPoint:
    """The best point of a ROC curve by one criterion.

    ``cutoff`` is the number of top-ranked documents that reaches it (one query), or
    ``None`` on a curve averaged over queries, whose points no single cut-off reaches.
    """

    criterion: str
    fpr: float
    tpr: float
    value: float
    cutoff: int | None


@dataclass(frozen=True, eq=False)
class RocSeries:
    """One run's ROC curve, its area and its optimal point.

    Attributes
    ----------
    run : the run's name.
    fpr, tpr : float64; the points of the curve.
    auc : the area under the curve: the ``AUC`` measure of the query, or its mean over the
        queries (which is the area under the averaged curve, see :func:`average_roc`).
    best : the optimal point by the chosen criterion.
    """

    run: str
    fpr: Float64Array
    tpr: Float64Array
    auc: float
    best: RocPoint


@dataclass(frozen=True, eq=False)
class RocData:
    """ROC curves of several runs, of one query or averaged."""

    query: str | None
    num_queries: int
    criterion: str
    series: tuple[RocSeries, ...]


def _check_criterion(criterion: str) -> str:
    if criterion not in CRITERIA:
        raise OptionError(f"cutoff must be one of {list(CRITERIA)}, not {criterion!r}")
    return CRITERIA[criterion]


def _rates_at(curve: RocCurve, grid: Float64Array) -> tuple[Float64Array, Float64Array]:
    """The TPR of ``curve`` just before and at each FPR of ``grid`` (the bottom and the top
    of a vertical segment; equal elsewhere), linear between the curve's points."""
    if curve.num_rel == 0 or curve.num_nonrel == 0:  # the AUC measure's 0: the zero curve
        zero = np.zeros(grid.shape[0], dtype=np.float64)
        return zero, zero
    f, t = curve.fpr, curve.tpr
    n = f.shape[0]

    def between(i: Int64Array) -> Float64Array:
        """Linear between point ``i`` and ``i + 1`` (``i`` clipped to the curve)."""
        i = np.clip(i, 0, n - 1)
        j = np.minimum(i + 1, n - 1)
        width = f[j] - f[i]
        frac = np.divide(grid - f[i], width, out=np.zeros_like(grid), where=width > 0)
        out: Float64Array = t[i] + np.clip(frac, 0.0, 1.0) * (t[j] - t[i])
        return out

    top = between(np.searchsorted(f, grid, side="right") - 1)  # last point with fpr <= x
    first = np.searchsorted(f, grid, side="left")  # first point with fpr >= x
    at = (first < n) & (f[np.minimum(first, n - 1)] == grid)
    bottom = np.where(at, t[np.minimum(first, n - 1)], between(first - 1))
    return bottom, top


def average_roc(curves: Sequence[RocCurve]) -> tuple[Float64Array, Float64Array]:
    """The vertical average of ROC curves (Fawcett 2006, section 8.1), exactly.

    At every FPR where some curve has a point, the mean of the curves' TPR, each curve
    linear between its points; where a curve rises vertically (several points at one FPR),
    the averaged curve has two points, the mean of the values just before and at that FPR.
    The averaged curve is therefore piecewise linear through all the breakpoints, and its
    trapezoidal area is the mean of the curves' areas: the mean ``AUC``. A curve of a query
    without relevant or without judged non-relevant documents counts as TPR 0 everywhere,
    as its ``AUC`` is 0.

    Parameters
    ----------
    curves
        Per-query curves from :func:`ranklens.analysis.curves.roc_curve`.

    Returns
    -------
    ``(fpr, tpr)``: float64 arrays of the averaged curve, from ``(0, ...)`` to ``(1, ...)``.

    Examples
    --------
    >>> from ranklens.analysis.curves import roc_curve
    >>> qrels = {"q1": {"a": 1, "b": 0}, "q2": {"a": 0, "b": 1}}
    >>> run = {"q1": {"a": 2, "b": 1}, "q2": {"a": 2, "b": 1}}
    >>> fpr, tpr = average_roc(list(roc_curve(qrels, run).values()))
    >>> fpr.tolist(), tpr.tolist()
    ([0.0, 0.0, 1.0, 1.0], [0.0, 0.5, 0.5, 1.0])
    """
    parts = [np.array([0.0, 1.0])]
    parts += [c.fpr for c in curves if c.num_rel > 0 and c.num_nonrel > 0]
    grid: Float64Array = np.unique(np.concatenate(parts))
    bottom = np.zeros(grid.shape[0], dtype=np.float64)
    top = np.zeros(grid.shape[0], dtype=np.float64)
    for curve in curves:
        b, t = _rates_at(curve, grid)
        bottom += b
        top += t
    if curves:
        bottom /= len(curves)
        top /= len(curves)
    fpr = np.repeat(grid, 2)
    tpr = np.column_stack((bottom, top)).reshape(-1)
    keep = np.ones(fpr.shape[0], dtype=bool)
    keep[1::2] = top != bottom  # one point where the curve does not rise vertically
    return fpr[keep], tpr[keep]


def _best_point(fpr: Float64Array, tpr: Float64Array, criterion: str) -> RocPoint:
    """The first best point of a curve by ``criterion`` (as :func:`roc_optimal_cutoffs`)."""
    if criterion == "youden":
        value, sign = tpr - fpr, 1.0
    elif criterion == "distance":
        value, sign = np.sqrt(fpr**2 + (1 - tpr) ** 2), -1.0
    else:
        value, sign = tpr * (1 - fpr), 1.0
    i = int(np.argmax(sign * value))
    return RocPoint(criterion, float(fpr[i]), float(tpr[i]), float(value[i]), None)


def roc_data(
    qrels: QrelsLike,
    runs: Any,
    *,
    query: str | None = None,
    cutoff: str = "youden",
    rel: int = 1,
    **evaluator_options: Any,
) -> RocData:
    """The ROC curve of each run, its AUC and its optimal point.

    With ``query``, the curve of :func:`~ranklens.analysis.curves.roc_curve`, its AUC, and the
    optimal cut-off of :func:`~ranklens.analysis.curves.roc_optimal_cutoffs` by ``cutoff``. Without,
    the vertical average of the queries' curves (:func:`average_roc`), the mean AUC (the
    ``AUC`` measure, also the area under the averaged curve), and the best point of the
    averaged curve by ``cutoff`` (it has no cut-off: different queries reach it at
    different ranks).

    Parameters
    ----------
    qrels, runs, query, rel, **evaluator_options
        As for :func:`pr_data`.
    cutoff
        The criterion of the optimal point: ``"youden"`` (maximum ``TPR - FPR``, default),
        ``"distance"`` (minimum distance to the corner ``(0, 1)``) or ``"product"``
        (maximum ``TPR * (1 - FPR)``).

    Examples
    --------
    >>> qrels = {"q": {"a": 1, "b": 0, "c": 1, "d": 0}}
    >>> s = roc_data(qrels, {"q": {"a": 0.9, "b": 0.8, "x": 0.7, "c": 0.6}}, query="q").series[0]
    >>> s.fpr.tolist(), s.tpr.tolist(), s.auc, s.best.cutoff
    ([0.0, 0.0, 0.5, 0.5, 1.0], [0.0, 0.5, 0.5, 1.0, 1.0], 0.75, 1)
    """
    from ranklens.analysis.curves import roc_curve, roc_optimal_cutoffs

    attribute = _check_criterion(cutoff)
    the_qrels, the_runs, options = _prepare(qrels, runs, evaluator_options)
    series = []
    num_queries = 0
    for name, run in the_runs:
        curves = roc_curve(the_qrels, run, rel=rel, **options)
        num_queries = len(curves)
        if query is None:
            fpr, tpr = average_roc(list(curves.values()))
            auc = float(np.mean([c.auc for c in curves.values()])) if curves else 0.0
            series.append(RocSeries(name, fpr, tpr, auc, _best_point(fpr, tpr, cutoff)))
            continue
        if query not in curves:
            raise OptionError(f"query {query!r} is not among the evaluated queries")
        curve = curves[query]
        found = getattr(roc_optimal_cutoffs(the_qrels, run, query, rel, **options), attribute)
        best = RocPoint(cutoff, found.fpr, found.tpr, found.value, found.cutoff)
        series.append(RocSeries(name, curve.fpr, curve.tpr, curve.auc, best))
    return RocData(query, num_queries, cutoff, tuple(series))


# ------------------------------------------------------------------------------ cut-offs


@dataclass(frozen=True, eq=False)
class CutoffData:
    """Measures against their cut-off ``k``, for several runs.

    Attributes
    ----------
    ks : int64 (K,); the cut-offs 1..K.
    measures : the measures without cut-off (``"P"``, ``"nDCG"``), canonical names.
    runs : the runs' names.
    values : float64 (runs, measures, K); the aggregate (mean over the queries) of
        ``measure@k``: ``values[r, m, k - 1]`` is ``evaluate(qrels, run_r, measure_m@k)``.
    """

    ks: Int64Array
    measures: tuple[str, ...]
    runs: tuple[str, ...]
    values: Float64Array


def _at_cutoffs(measure: str | Measure, max_k: int) -> list[Measure]:
    m = measure if isinstance(measure, Measure) else parse_measure(measure)
    at = m.spec.at
    if at is None or at.name != "cutoff":
        raise MeasureError(f"{m.name} has no cut-off, so it cannot be plotted against k")
    if m["cutoff"] is not None:
        base = m.spec.make(**{**m.params, "cutoff": None}).name
        raise MeasureError(f"give {base}, not {m.name}: the cut-off k is the x axis")
    return [m.spec.make(**{**m.params, "cutoff": k}) for k in range(1, max_k + 1)]


def longest_ranking(runs: Sequence[Run], depth: int | None = None) -> int:
    """The most documents any query of ``runs`` ranks (at most ``depth``; at least 1): past
    it no cut-off curve has anything new to show."""
    longest = max((int(np.diff(run.q_offsets).max(initial=0)) for run in runs), default=1)
    if depth is not None:
        longest = min(longest, int(depth))
    return max(longest, 1)


def cutoff_data(
    qrels: QrelsLike,
    runs: Any,
    measures: Sequence[str | Measure] | str = ("P", "R", "nDCG"),
    max_k: int = 20,
    **evaluator_options: Any,
) -> CutoffData:
    """The aggregate of each ``measure@k`` for ``k = 1..max_k``, for each run.

    All ``len(measures) * max_k`` measures are evaluated in one
    :meth:`~ranklens.Evaluator.evaluate` per run: each is one vectorised pass over every
    query (about 15 ms for 300 measures on the bundled 43-query example).

    Parameters
    ----------
    qrels, runs, **evaluator_options
        As for :func:`pr_data`.
    measures
        Measures that take a cut-off, without it: ``"P"``, ``"R"``, ``"nDCG"``,
        ``"P(rel=2)"``... (:class:`~ranklens.base.errors.MeasureError` otherwise).
    max_k
        The largest cut-off K (at least 1); capped at the longest ranking of the runs
        (:func:`longest_ranking`), so ``ks`` may stop before ``max_k``.

    Examples
    --------
    >>> data = cutoff_data({"q": {"a": 1}}, {"q": {"a": 2.0, "b": 1.0}}, ["P"], max_k=2)
    >>> data.ks.tolist(), data.values.tolist()
    ([1, 2], [[[1.0, 0.5]]])
    """
    from ranklens.evaluation.evaluator import Evaluator

    if isinstance(max_k, bool) or not isinstance(max_k, int) or max_k < 1:
        raise OptionError(f"max_k must be a positive number of documents, not {max_k!r}")
    names = [measures] if isinstance(measures, str) else list(measures)
    if not names:
        raise OptionError("give at least one measure")
    for m in names:  # refuse a measure without cut-off before reading anything
        _at_cutoffs(m, 1)
    the_qrels, the_runs, options = _prepare(qrels, runs, evaluator_options)
    max_k = min(max_k, longest_ranking([run for _, run in the_runs], options.get("depth")))
    families = [_at_cutoffs(m, max_k) for m in names]
    bases = tuple(f[0].spec.make(**{**f[0].params, "cutoff": None}).name for f in families)
    evaluator = Evaluator(the_qrels, [m for f in families for m in f], **options)
    values = np.empty((len(the_runs), len(families), max_k), dtype=np.float64)
    for r, (_, run) in enumerate(the_runs):
        aggregate = evaluator.evaluate(run).aggregate
        for j, family in enumerate(families):
            values[r, j] = [aggregate[m.name] for m in family]
    return CutoffData(
        np.arange(1, max_k + 1, dtype=np.int64),
        bases,
        tuple(name for name, _ in the_runs),
        values,
    )


# ----------------------------------------------------------------- per-query comparisons


def _column(results: Results, measure: str | Measure) -> tuple[str, Float64Array]:
    """The canonical name of ``measure`` and its per-query values in ``results`` (in query
    order; ``KeyError`` if it was not computed)."""
    values = np.array(list(results.query_values(measure).values()), dtype=np.float64)
    name = measure.name if isinstance(measure, Measure) else parse_measure(measure).name
    return name, values


@dataclass(frozen=True, eq=False)
class DeltaData:
    """Per-query differences ``b - a`` of one measure, sorted from largest to smallest.

    Attributes
    ----------
    measure : the measure's name.
    run_a, run_b : the runs' names.
    queries : the queries, in the order of :attr:`delta`.
    delta : float64; ``b - a`` per query, descending (equal ones by query id).
    """

    measure: str
    run_a: str
    run_b: str
    queries: tuple[str, ...]
    delta: Float64Array

    @property
    def wins(self) -> int:
        """Queries where ``b`` is higher."""
        return int(np.count_nonzero(self.delta > 0))

    @property
    def losses(self) -> int:
        """Queries where ``b`` is lower."""
        return int(np.count_nonzero(self.delta < 0))

    @property
    def ties(self) -> int:
        """Queries where both are equal."""
        return int(np.count_nonzero(self.delta == 0))


def delta_data(a: Results, b: Results, measure: str | Measure) -> DeltaData:
    """The per-query differences ``b - a`` of ``measure``, sorted descending.

    Parameters
    ----------
    a, b
        Results of two runs on the same queries, both with ``measure``
        (:class:`~ranklens.base.errors.OptionError` if their queries differ; ``KeyError`` if
        ``measure`` was not computed).
    measure
        A measure name (either language) or :class:`~ranklens.Measure`.

    Examples
    --------
    >>> import ranklens
    >>> qrels = {"q1": {"d": 1}, "q2": {"d": 1}, "q3": {"d": 1}}
    >>> a = ranklens.evaluate(qrels, {"q1": {"d": 1, "x": 2}, "q2": {"d": 1}}, "RR")
    >>> b = ranklens.evaluate(qrels, {"q1": {"d": 1}, "q2": {"d": 1, "x": 2}}, "RR")
    >>> d = delta_data(a, b, "RR")
    >>> d.queries, d.delta.tolist(), (d.wins, d.losses, d.ties)
    (('q1', 'q3', 'q2'), [0.5, 0.0, -0.5], (1, 1, 1))
    """
    if a.queries != b.queries:
        only_a = len(set(a.queries) - set(b.queries))
        only_b = len(set(b.queries) - set(a.queries))
        raise OptionError(
            f"the runs were evaluated on different queries ({only_a} only in {a.run!r}, "
            f"{only_b} only in {b.run!r}); evaluate both with the same qrels and options"
        )
    name, values_a = _column(a, measure)
    diff = _column(b, measure)[1] - values_a
    order = np.argsort(-diff, kind="stable")  # queries are in byte order: ties by query id
    sorted_diff: Float64Array = diff[order]
    return DeltaData(name, a.run, b.run, tuple(a.queries[i] for i in order), sorted_diff)


@dataclass(frozen=True, eq=False)
class DistData:
    """The per-query values of one measure for several runs.

    Attributes
    ----------
    measure : the measure's name.
    runs : the runs' names (unique).
    values : one float64 array per run, in query order.
    centers : each run's aggregate of the measure (its mean, or its geometric mean for a
        measure aggregated so, as ``GMAP``); for a count (a summed measure, as ``NumRel``),
        the mean of the per-query counts, which lies on the same scale as the values.
    center : what :attr:`centers` are: ``"mean"`` or ``"geometric mean"``.
    """

    measure: str
    runs: tuple[str, ...]
    values: tuple[Float64Array, ...]
    centers: tuple[float, ...]
    center: str


def dist_data(results: Sequence[Results] | Results, measure: str | Measure) -> DistData:
    """The per-query values of ``measure`` in each of ``results``.

    Parameters
    ----------
    results
        Results of one or more runs, each with ``measure`` (``KeyError`` otherwise).
    measure
        A measure name (either language) or :class:`~ranklens.Measure`.

    Examples
    --------
    >>> import ranklens
    >>> res = ranklens.evaluate({"q1": {"d": 1}, "q2": {"d": 1}}, {"q1": {"d": 1}}, "RR")
    >>> d = dist_data([res], "RR")
    >>> d.values[0].tolist(), d.centers, d.center
    ([1.0, 0.0], (0.5,), 'mean')
    """
    if isinstance(results, Results):
        results = [results]
    if not results:
        raise OptionError("give the results of at least one run")
    columns = [_column(r, measure) for r in results]
    runs: list[str] = []
    seen: dict[str, int] = {}
    for r in results:
        seen[r.run] = seen.get(r.run, 0) + 1
        runs.append(r.run if seen[r.run] == 1 else f"{r.run} ({seen[r.run]})")
    name = columns[0][0]
    values = tuple(values for _, values in columns)
    kinds = [next(m.spec.aggregate for m in r.measures if m.name == name) for r in results]
    centers = tuple(
        float(np.mean(v)) if kind == "sum" else r[name]
        for r, (_, v), kind in zip(results, columns, kinds, strict=True)
    )
    center = "geometric mean" if kinds[0] == "gmean" else "mean"
    return DistData(name, tuple(runs), values, centers, center)
