"""Curves of a ranking: precision-recall, interpolated precision-recall and ROC.

Every function takes qrels and a run in any form :class:`~ranklens.Evaluator` accepts, and
its options (``ties``, ``queries``, ``depth``, ``duplicates``) as keyword arguments; the
rankings are those every measure sees (ties ordered by the tie policy, by default document
id descending as trec_eval). Without ``query`` a function returns a dict ``qid -> curve``
over the evaluated queries; with ``query``, that query's curve.

Precision-recall (:func:`pr_curve`)
    For each rank ``i = 1..n`` of a ranking, the point ``(recall@i, precision@i)`` with
    ``recall@i = rel(i) / R`` and ``precision@i = rel(i) / i``, ``rel(i)`` the relevant
    documents (grade >= ``rel``) in the top ``i`` and ``R`` the relevant documents of the
    query's qrels. Unjudged documents count as non-relevant (unless ``judged_only``).
    Recall is 0 when ``R = 0``. The curve has the sawtooth shape of founding document 002.

Interpolated precision-recall (:func:`interpolated_pr`)
    Founding document 002's ``p_interp(x) = max{precision@i : recall@i >= x}`` at recall
    levels ``x`` (by default the 11 standard levels 0, 0.1, ..., 1), computed exactly as the
    ``IPrec@x`` measure (trec_eval's ``iprec_at_recall``): the level stands for
    ``c = round(x * R)`` relevant documents (halves away from zero), so ``recall@i >= x``
    reads ``rel(i) >= c``; per query and averaged over the queries.

ROC (:func:`roc_curve`)
    Over the **judged** documents of a query (grade >= 0; unjudged and negatively judged
    documents are skipped): ``R`` relevant ones (grade >= ``rel``) and ``N`` judged
    non-relevant ones (grade < ``rel``). Walking down the ranking, after each judged document
    the point ``(FPR, TPR) = (fp / N, tp / R)``, ``tp`` and ``fp`` the relevant and judged
    non-relevant documents seen so far; the curve starts at ``(0, 0)`` (cut-off 0).
    Judged documents that were **not retrieved** have no place in the ranking and their
    order is unknown: they are appended after it as **one tied group**, a single last point
    ``(1, 1)`` reached by a straight segment from the last retrieved point (a segment, not a
    staircase). Documents with equal scores are **not** grouped: they keep the order of the
    tie policy (``ties``, by default document id descending, trec_eval's order) and each
    makes its own step. A rate whose denominator is 0 is 0: a query without relevant
    documents has ``TPR = 0`` everywhere, one without judged non-relevant documents
    ``FPR = 0`` everywhere.

    The trapezoidal area under this curve is the ``AUC`` measure: the fraction of
    (relevant, judged non-relevant) pairs in which the relevant document is ranked higher,
    counting 1/2 for a pair of two unretrieved documents; 0 when ``R = 0`` or ``N = 0``.

Optimal cut-offs (:func:`roc_optimal_cutoffs`)
    The three criteria of founding document 002 ("Choosing the ideal values of precision
    and recall from the ROC curve"), over the points a cut-off of the ranking reaches
    (cut-off 0 and each judged retrieved document; not the appended unretrieved group):
    Youden's ``J = TPR - FPR`` (maximum), the distance to the corner,
    ``sqrt(FPR^2 + (1 - TPR)^2)`` (minimum), and sensitivity times specificity,
    ``TPR * (1 - FPR)`` (maximum). A point is reported by the smallest cut-off ``k`` that
    reaches it (the rank of its judged document); among equally good points, the smallest
    cut-off wins.

Examples
--------
>>> qrels = {"q": {"a": 1, "b": 0, "c": 1, "d": 0}}
>>> run = {"q": {"a": 0.9, "b": 0.8, "x": 0.7, "c": 0.6}}
>>> curve = roc_curve(qrels, run, query="q")
>>> curve.cutoff.tolist(), curve.fpr.tolist(), curve.tpr.tolist()
([0, 1, 2, 4, -1], [0.0, 0.0, 0.5, 0.5, 1.0], [0.0, 0.5, 0.5, 1.0, 1.0])
>>> curve.auc
0.75
>>> roc_optimal_cutoffs(qrels, run, query="q").youden.cutoff
1
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, overload

import numpy as np

from ranklens.base.errors import OptionError
from ranklens.base.types import Float64Array, Int64Array
from ranklens.data.coerce import QrelsLike, RunLike
from ranklens.kernels._util import safe_divide
from ranklens.ranking.align import Aligned, Ranked

STANDARD_LEVELS: tuple[float, ...] = tuple(i / 10 for i in range(11))
"""The 11 standard recall levels 0.0, 0.1, ..., 1.0."""
TAIL = -1
"""The cut-off of a ROC curve's last point when it stands for the unretrieved judged
documents (no cut-off of the ranking reaches it)."""


@dataclass(frozen=True, eq=False)
class PrCurve:
    """One query's precision-recall points, one per rank.

    Attributes
    ----------
    rank : int64; the cut-off ``i`` (1-based rank).
    recall, precision : float64; ``recall@i`` and ``precision@i``.
    """

    rank: Int64Array
    recall: Float64Array
    precision: Float64Array


@dataclass(frozen=True, eq=False)
class InterpolatedPR:
    """Interpolated precision at recall levels, per query and averaged.

    Attributes
    ----------
    levels : float64 (L,); the recall levels.
    qids : the evaluated queries, in the order of the rows of :attr:`precision`.
    precision : float64 (nq, L); ``IPrec@x`` of each query at each level.
    """

    levels: Float64Array
    qids: tuple[str, ...]
    precision: Float64Array

    @property
    def mean(self) -> Float64Array:
        """The average over the queries at each level (0 without queries): the aggregate
        value of ``IPrec@x``."""
        if not self.qids:
            return np.zeros(self.levels.shape[0], dtype=np.float64)
        mean: Float64Array = self.precision.mean(axis=0)
        return mean

    def per_query(self) -> dict[str, Float64Array]:
        """``qid -> precision at each level``."""
        return dict(zip(self.qids, self.precision, strict=True))


@dataclass(frozen=True, eq=False)
class RocCurve:
    """One query's ROC points over its judged documents (see the module docs).

    Attributes
    ----------
    cutoff : int64; how many top-ranked documents the point stands for (0 for the start;
        :data:`TAIL`, -1, for the last point when it adds the unretrieved judged documents).
    fpr, tpr : float64; the false and true positive rates at each point.
    num_rel, num_nonrel : ``R`` and ``N``, the relevant and judged non-relevant documents.
    """

    cutoff: Int64Array
    fpr: Float64Array
    tpr: Float64Array
    num_rel: int
    num_nonrel: int

    @property
    def auc(self) -> float:
        """The trapezoidal area under the curve (equals the ``AUC`` measure)."""
        area = np.sum(np.diff(self.fpr) * (self.tpr[1:] + self.tpr[:-1]) / 2)
        return float(area)


@dataclass(frozen=True)
class RocCutoff:
    """The best point of a ROC curve by one criterion: its cut-off, rates and value."""

    criterion: str
    cutoff: int
    fpr: float
    tpr: float
    value: float


@dataclass(frozen=True)
class RocCutoffs:
    """The optimal cut-offs of one query's ROC curve by the three criteria."""

    youden: RocCutoff
    """Maximum ``TPR - FPR`` (Youden's J)."""
    closest: RocCutoff
    """Minimum distance to the corner ``(0, 1)``: ``sqrt(FPR^2 + (1 - TPR)^2)``."""
    product: RocCutoff
    """Maximum sensitivity times specificity: ``TPR * (1 - FPR)``."""

    def as_tuple(self) -> tuple[RocCutoff, RocCutoff, RocCutoff]:
        """The three, in the order youden, closest, product."""
        return (self.youden, self.closest, self.product)


def _align(qrels: QrelsLike, run: RunLike, options: dict[str, Any]) -> Aligned:
    from ranklens.evaluation.evaluator import Evaluator

    unknown = set(options) - {"ties", "queries", "depth", "duplicates"}
    if unknown:
        raise OptionError(f"unknown option(s): {', '.join(sorted(unknown))}")
    return Evaluator(qrels, [], **options).align(run)


def _query_index(qids: tuple[str, ...], query: str) -> int:
    try:
        return qids.index(query)
    except ValueError:
        raise OptionError(f"query {query!r} is not among the evaluated queries") from None


def _segmented_cumsum(values: Int64Array, offsets: Int64Array) -> Int64Array:
    """Running totals of ``values`` restarting at each segment of ``offsets``."""
    total = np.concatenate(([0], np.cumsum(values, dtype=np.int64)))
    ids = np.repeat(np.arange(offsets.shape[0] - 1), np.diff(offsets))
    out: Int64Array = total[1:] - total[offsets[:-1]][ids]
    return out


def _split(offsets: Int64Array, *arrays: np.ndarray) -> list[list[np.ndarray]]:
    cuts = offsets[1:-1]
    return [np.split(a, cuts) for a in arrays]


@overload
def pr_curve(
    qrels: QrelsLike,
    run: RunLike,
    query: None = None,
    rel: int = 1,
    judged_only: bool = False,
    **evaluator_options: Any,
) -> dict[str, PrCurve]: ...
@overload
def pr_curve(
    qrels: QrelsLike,
    run: RunLike,
    query: str,
    rel: int = 1,
    judged_only: bool = False,
    **evaluator_options: Any,
) -> PrCurve: ...
def pr_curve(
    qrels: QrelsLike,
    run: RunLike,
    query: str | None = None,
    rel: int = 1,
    judged_only: bool = False,
    **evaluator_options: Any,
) -> dict[str, PrCurve] | PrCurve:
    """The precision-recall points of each ranking, one per rank.

    ``recall@i = rel(i) / R`` and ``precision@i = rel(i) / i`` for ``i = 1..n``, ``rel(i)``
    the documents of grade >= ``rel`` in the top ``i``, ``R`` those in the qrels (0 recall
    if ``R = 0``); unjudged documents count as non-relevant, or are dropped first with
    ``judged_only``. A query with an empty ranking has an empty curve.

    Parameters
    ----------
    qrels, run
        Judgments and run, in any form :class:`~ranklens.Evaluator` accepts.
    query
        Only this query's curve (:class:`OptionError` if it is not evaluated).
    rel
        The minimum grade of a relevant document.
    judged_only
        Drop unjudged documents from the ranking first (as ``P(judged_only=True)``).
    **evaluator_options
        ``ties``, ``queries``, ``depth``, ``duplicates`` as for :class:`~ranklens.Evaluator`.

    Returns
    -------
    ``{qid: PrCurve}``, or one :class:`PrCurve` with ``query``.

    Examples
    --------
    >>> c = pr_curve({"q": {"a": 1, "c": 1}}, {"q": {"a": 3, "b": 2, "c": 1}}, query="q")
    >>> c.rank.tolist(), c.recall.tolist(), c.precision.round(3).tolist()
    ([1, 2, 3], [0.5, 0.5, 1.0], [1.0, 0.5, 0.667])
    """
    r = _align(qrels, run, evaluator_options).view(judged_only)
    found = _segmented_cumsum(r.relevant(rel).astype(np.int64), r.offsets)
    rank = r.pos + 1
    precision = found / rank
    recall = safe_divide(found, r.num_rel(rel)[r.ids])
    if query is not None:
        j = _query_index(r.qids, query)
        part = slice(int(r.offsets[j]), int(r.offsets[j + 1]))
        return PrCurve(rank[part], recall[part], precision[part])
    ranks, recalls, precisions = _split(r.offsets, rank, recall, precision)
    return {
        q: PrCurve(a, b, c) for q, a, b, c in zip(r.qids, ranks, recalls, precisions, strict=True)
    }


def interpolated_pr(
    qrels: QrelsLike,
    run: RunLike,
    levels: Sequence[float] = STANDARD_LEVELS,
    rel: int = 1,
    judged_only: bool = False,
    rounding: str = "round",
    **evaluator_options: Any,
) -> InterpolatedPR:
    """Interpolated precision at recall levels, per query and averaged over the queries.

    ``p_interp(x) = max{precision@i : i >= rank of the c-th relevant document}``,
    ``c = round(x * R)``: the ``IPrec@x`` measure (same kernel, same numbers, including
    ``rounding="trec9"``); 0 when fewer than ``c`` relevant documents are retrieved.

    Parameters
    ----------
    levels
        Recall levels in [0, 1]; by default the 11 standard levels 0, 0.1, ..., 1.
    rel, judged_only, rounding
        As for ``IPrec``.
    qrels, run, **evaluator_options
        As for :func:`pr_curve`.

    Examples
    --------
    >>> ip = interpolated_pr({"q": {"a": 1, "c": 1}}, {"q": {"a": 3, "b": 2, "c": 1}})
    >>> ip.mean.round(3).tolist()
    [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.667, 0.667, 0.667]
    """
    from ranklens.kernels.interpolated import interpolated_precision

    if rounding not in ("round", "trec9"):
        raise OptionError(f"rounding must be 'round' or 'trec9', not {rounding!r}")
    grid = np.asarray(levels, dtype=np.float64).reshape(-1)
    if not ((grid >= 0) & (grid <= 1)).all():
        raise OptionError("recall levels must lie in [0, 1]")
    r = _align(qrels, run, evaluator_options).view(judged_only)
    precision = np.zeros((r.num_queries, grid.shape[0]), dtype=np.float64)
    for k, x in enumerate(grid.tolist()):  # one vectorised pass over all queries per level
        precision[:, k] = interpolated_precision(r, rel, x, rounding)
    return InterpolatedPR(grid, r.qids, precision)


@dataclass(frozen=True, eq=False)
class _RocPoints:
    """Every query's ROC points, flat (``offsets`` of length nq + 1)."""

    qids: tuple[str, ...]
    offsets: Int64Array
    cutoff: Int64Array
    fpr: Float64Array
    tpr: Float64Array
    num_rel: Int64Array
    num_nonrel: Int64Array

    def curve(self, j: int) -> RocCurve:
        part = slice(int(self.offsets[j]), int(self.offsets[j + 1]))
        return RocCurve(
            self.cutoff[part],
            self.fpr[part],
            self.tpr[part],
            int(self.num_rel[j]),
            int(self.num_nonrel[j]),
        )


def _roc_points(r: Ranked, rel: int) -> _RocPoints:
    nq = r.num_queries
    judged = np.flatnonzero(r.judged)
    q, pos = r.locate(judged)
    is_rel = (r.rel[judged] >= rel).astype(np.int64)
    m = np.bincount(q, minlength=nq).astype(np.int64)
    judged_offsets = np.zeros(nq + 1, dtype=np.int64)
    np.cumsum(m, out=judged_offsets[1:])
    tp = _segmented_cumsum(is_rel, judged_offsets)
    fp = _segmented_cumsum(1 - is_rel, judged_offsets)
    num_rel, num_nonrel = r.num_rel(rel), r.num_nonrel(rel)
    tp_ret = np.bincount(q, weights=is_rel, minlength=nq).astype(np.int64)
    tail = (tp_ret < num_rel) | (m - tp_ret < num_nonrel)
    sizes = 1 + m + tail
    offsets = np.zeros(nq + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    total = int(offsets[-1])
    cutoff = np.zeros(total, dtype=np.int64)
    tp_all = np.zeros(total, dtype=np.int64)
    fp_all = np.zeros(total, dtype=np.int64)
    at = offsets[:-1][q] + 1 + (np.arange(judged.shape[0]) - judged_offsets[:-1][q])
    cutoff[at], tp_all[at], fp_all[at] = pos + 1, tp, fp
    last = (offsets[1:] - 1)[tail]
    cutoff[last], tp_all[last], fp_all[last] = TAIL, num_rel[tail], num_nonrel[tail]
    ids = np.repeat(np.arange(nq), sizes)
    return _RocPoints(
        r.qids,
        offsets,
        cutoff,
        safe_divide(fp_all, num_nonrel[ids]),
        safe_divide(tp_all, num_rel[ids]),
        num_rel,
        num_nonrel,
    )


@overload
def roc_curve(
    qrels: QrelsLike, run: RunLike, query: None = None, rel: int = 1, **evaluator_options: Any
) -> dict[str, RocCurve]: ...
@overload
def roc_curve(
    qrels: QrelsLike, run: RunLike, query: str, rel: int = 1, **evaluator_options: Any
) -> RocCurve: ...
def roc_curve(
    qrels: QrelsLike,
    run: RunLike,
    query: str | None = None,
    rel: int = 1,
    **evaluator_options: Any,
) -> dict[str, RocCurve] | RocCurve:
    """The ROC curve of each query's judged documents (see the module docs).

    ``(FPR, TPR) = (fp / N, tp / R)`` after each judged retrieved document, from ``(0, 0)``;
    the judged documents that were not retrieved are appended as one tied group, a last
    point ``(1, 1)`` with cut-off :data:`TAIL` (present only if there are such documents).
    Equal scores are not grouped: they keep the tie policy's order. Unjudged and
    negatively judged documents are skipped.

    Parameters
    ----------
    qrels, run, query, rel, **evaluator_options
        As for :func:`pr_curve`.

    Returns
    -------
    ``{qid: RocCurve}``, or one :class:`RocCurve` with ``query``.

    Examples
    --------
    >>> c = roc_curve({"q": {"a": 0, "b": 1, "c": 0}}, {"q": {"a": 2, "b": 1}}, query="q")
    >>> c.cutoff.tolist(), c.fpr.tolist(), c.tpr.tolist(), c.auc
    ([0, 1, 2, -1], [0.0, 0.5, 0.5, 1.0], [0.0, 0.0, 1.0, 1.0], 0.5)
    """
    points = _roc_points(_align(qrels, run, evaluator_options).base, rel)
    if query is not None:
        return points.curve(_query_index(points.qids, query))
    return {q: points.curve(j) for j, q in enumerate(points.qids)}


def _best_per_segment(values: Float64Array, ids: Int64Array, offsets: Int64Array) -> Int64Array:
    """The flat index of each segment's largest value (the first of equal ones); every
    segment is nonempty and ``ids`` is sorted."""
    order = np.lexsort((np.arange(values.shape[0]), -values, ids))
    best: Int64Array = order[offsets[:-1]]
    return best


@overload
def roc_optimal_cutoffs(
    qrels: QrelsLike, run: RunLike, query: None = None, rel: int = 1, **evaluator_options: Any
) -> dict[str, RocCutoffs]: ...
@overload
def roc_optimal_cutoffs(
    qrels: QrelsLike, run: RunLike, query: str, rel: int = 1, **evaluator_options: Any
) -> RocCutoffs: ...
def roc_optimal_cutoffs(
    qrels: QrelsLike,
    run: RunLike,
    query: str | None = None,
    rel: int = 1,
    **evaluator_options: Any,
) -> dict[str, RocCutoffs] | RocCutoffs:
    """The optimal cut-offs of each query's ROC curve (founding document 002).

    Over the points a cut-off of the ranking reaches (all but the appended unretrieved
    group): the maximum of Youden's ``J = TPR - FPR``, the minimum of the distance
    ``sqrt(FPR^2 + (1 - TPR)^2)`` to the corner ``(0, 1)``, and the maximum of
    ``TPR * (1 - FPR)`` (sensitivity times specificity). Each is reported with the smallest
    cut-off reaching the best value. Degenerate queries (``R = 0`` or ``N = 0``) follow the
    curve's conventions (a rate with denominator 0 is 0).

    Parameters
    ----------
    qrels, run, query, rel, **evaluator_options
        As for :func:`pr_curve`.

    Returns
    -------
    ``{qid: RocCutoffs}``, or one :class:`RocCutoffs` with ``query``.

    Examples
    --------
    >>> qrels = {"q": {"a": 1, "b": 0, "c": 1, "d": 0, "e": 0}}
    >>> best = roc_optimal_cutoffs(qrels, {"q": {"a": 5, "b": 4, "c": 3, "d": 2, "e": 1}}, "q")
    >>> [(b.criterion, b.cutoff, round(b.value, 3)) for b in best.as_tuple()]
    [('youden', 3, 0.667), ('closest', 3, 0.333), ('product', 3, 0.667)]
    """
    points = _roc_points(_align(qrels, run, evaluator_options).base, rel)
    reachable = points.cutoff != TAIL
    fpr, tpr, cutoff = points.fpr[reachable], points.tpr[reachable], points.cutoff[reachable]
    nq = len(points.qids)
    ids = np.repeat(np.arange(nq), np.diff(points.offsets))[reachable]
    offsets = np.zeros(nq + 1, dtype=np.int64)
    np.cumsum(np.bincount(ids, minlength=nq), out=offsets[1:])
    distance = np.sqrt(fpr**2 + (1 - tpr) ** 2)
    criteria = (
        ("youden", tpr - fpr, 1.0),
        ("closest", distance, -1.0),
        ("product", tpr * (1 - fpr), 1.0),
    )
    chosen = [
        (name, value, _best_per_segment(sign * value, ids, offsets))
        for name, value, sign in criteria
    ]

    def pick(j: int) -> RocCutoffs:
        found = [
            RocCutoff(
                name,
                int(cutoff[best[j]]),
                float(fpr[best[j]]),
                float(tpr[best[j]]),
                float(value[best[j]]),
            )
            for name, value, best in chosen
        ]
        return RocCutoffs(*found)

    if query is not None:
        return pick(_query_index(points.qids, query))
    return {q: pick(j) for j, q in enumerate(points.qids)}
