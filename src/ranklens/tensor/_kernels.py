"""The measures on ranked padded batches, one function each, written against the Array API.

Every kernel takes the :class:`~ranklens.tensor._batch.View` (the batch in rank order) and
the measure's parameters, and returns one value per query, shape ``(Q,)``. The
definitions are ranklens's (and trec_eval's); where a measure needs the query's relevant
documents or grades beyond the batch, they come from ``n_rel`` / ``ideal_labels``
(:class:`Context`), else from the batch ("in-batch").

Every measure on one ranking, grades 0, 2, 0, 1 at ranks 1-4 (R = 2 relevant):
P@2 = 1/2; R@2 = 1/2; F1@2 = 2 (1/2)(1/2) / 1; Success@1 = 0; Rprec = 1/2 (one relevant
in the top R = 2); RR = 1/2; AP = (1/2 + 2/4) / 2; DCG@2 = 2 / log2(3); nDCG@2 = DCG@2 /
(2 + 1 / log2(3)); CG@2 = 2; ERR@2 = (1/2) * (2^2 - 1) / 2^2 (the top grade is 2); RBP(p=0.5)
= (1 - 0.5) (0.5^1 + 0.5^3):

>>> import numpy as np
>>> from ranklens.tensor import evaluate
>>> scores, labels = np.array([[0.9, 0.8, 0.7, 0.6]]), np.array([[0, 2, 0, 1]])
>>> names = ["P@2", "R@2", "F1@2", "Success@1", "Rprec", "RR", "AP", "DCG@2", "nDCG@2",
...          "CG@2", "ERR@2", "RBP(p=0.5)"]
>>> for name, value in evaluate(scores, labels, names).items():
...     print(name, round(float(value[0]), 4))
P@2 0.5
R@2 0.5
F1@2 0.5
Success@1 0.0
Rprec 0.5
RR 0.5
AP 0.5
DCG@2 1.2619
nDCG@2 0.4796
CG@2 2.0
ERR@2 0.375
RBP(p=0.5) 0.3125
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ranklens.base.errors import MeasureError, OptionError
from ranklens.tensor._batch import Array, Batch, View
from ranklens.tensor._order import packs_rows


@dataclass(frozen=True)
class Context:
    """What a kernel reads: the ranked view and the batch behind it."""

    view: View
    batch: Batch
    ties: str

    @property
    def xp(self) -> Any:
        """The namespace."""
        return self.batch.xp

    def const(self, value: float) -> Array:
        """A 0-d array of the result dtype on the batch's device."""
        return self.xp.asarray(value, dtype=self.batch.dtype, device=self.batch.device)

    def ranks(self, width: int) -> Array:
        """``1, 2, ..., width`` as a (1, width) row."""
        xp = self.xp
        return xp.reshape(
            xp.arange(1, width + 1, dtype=self.batch.dtype, device=self.batch.device), (1, width)
        )

    def width(self, cutoff: int | None) -> int:
        """How many ranks a measure with ``cutoff`` looks at."""
        n = self.batch.shape[1]
        return n if cutoff is None else min(cutoff, n)

    def num_rel(self, rel: int) -> Array:
        """``R``: the relevant documents of each query (grade >= ``rel``), from
        ``ideal_labels``, else ``n_rel`` (for ``rel=1``), else the batch."""
        xp, b = self.xp, self.batch
        threshold = max(rel, 0)
        if b.ideal is None and b.n_rel is not None:
            if rel != 1:
                raise MeasureError(
                    f"n_rel counts the documents of grade >= 1; a measure with rel={rel} "
                    "needs ideal_labels (every judged grade of each query)"
                )
            return b.n_rel
        key = ("num_rel", threshold)
        if key not in b.memo:
            grades = b.grades if b.ideal is None else b.ideal
            b.memo[key] = xp.sum(xp.astype(grades >= threshold, b.dtype), axis=1)
        return b.memo[key]

    def judged_grades(self, as_given: bool = False) -> Array:
        """Every judged grade of each query (``ideal_labels``, else the batch's labels),
        -1 for none; for the ideal ranking and the per-query or top grade. As the result
        dtype, or with ``as_given`` integer labels as they were given."""
        b = self.batch
        if b.ideal is not None:
            return b.ideal
        if b.n_rel is not None:
            raise MeasureError(
                "this measure needs the grades of the relevant documents that are not in the "
                "batch: pass ideal_labels (n_rel gives only their number)"
            )
        return b.grades if as_given else b.labels

    def linear_only(self, name: str) -> None:
        """Refuse tie policy ``average`` for a measure that is not linear in the gains."""
        if self.ties == "average":
            raise OptionError(
                f"ties='average' is the expectation over the orders of tied documents, which "
                f"is exact only for measures linear in the gains (P, R, F, Rprec, DCG, nDCG, "
                f"CG, RBP); {name} needs another policy: 'input', 'pessimistic', "
                "'optimistic', or doc_ids"
            )


def safe_divide(ctx: Context, num: Array, den: Array) -> Array:
    """``num / den``, 0 where ``den`` is 0."""
    xp = ctx.xp
    one, zero = ctx.const(1.0), ctx.const(0.0)
    nonzero = den != 0
    return xp.where(nonzero, num / xp.where(nonzero, den, one), zero)


def hits(ctx: Context, rel: int, cutoff: int | None) -> Array:
    """Relevant documents in the top ``cutoff`` (all ranked when None)."""
    return ctx.xp.sum(ctx.view.relevant(rel, ctx.width(cutoff)), axis=1)


def precision(ctx: Context, rel: int, cutoff: int | None) -> Array:
    """``P@k = hits@k / k``; without a cutoff ``hits / n`` (n ranked; 0 if n = 0)."""
    found = hits(ctx, rel, cutoff)
    if cutoff is None:
        return safe_divide(ctx, found, ctx.view.num_ret)
    return found / ctx.const(float(cutoff))


def recall(ctx: Context, rel: int, cutoff: int | None, norm: str = "R") -> Array:
    """``R@k = hits@k / R`` (``norm='min'``: ``/ min(R, k)``); 0 if the divisor is 0."""
    found = hits(ctx, rel, cutoff)
    total = ctx.num_rel(rel)
    if norm == "min":
        limit = ctx.view.num_ret if cutoff is None else ctx.const(float(cutoff))
        total = ctx.xp.minimum(total, limit)
    elif norm != "R":
        raise MeasureError(f"R norm must be 'R' or 'min', got {norm!r}")
    return safe_divide(ctx, found, total)


def f_measure(ctx: Context, rel: int, cutoff: int | None, beta: float = 1.0) -> Array:
    """``F@k = (1 + b^2) P R / (b^2 P + R)`` of ``P@k`` and ``R@k``; 0 if both are 0."""
    p, r = precision(ctx, rel, cutoff), recall(ctx, rel, cutoff)
    weight = ctx.const(beta * beta)
    return safe_divide(ctx, (1.0 + weight) * p * r, weight * p + r)


def success(ctx: Context, rel: int, cutoff: int | None) -> Array:
    """``Success@k = 1`` if a relevant document is in the top k, else 0."""
    ctx.linear_only("Success")
    return ctx.xp.astype(hits(ctx, rel, cutoff) > 0, ctx.batch.dtype)


def r_precision(ctx: Context, rel: int) -> Array:
    """``Rprec = hits@R / R``, 0 if R = 0."""
    xp = ctx.xp
    n = ctx.batch.shape[1]
    total = ctx.num_rel(rel)
    inside = ctx.ranks(n) <= xp.reshape(total, (-1, 1))
    found = xp.sum(xp.where(inside, ctx.view.relevant(rel), ctx.const(0.0)), axis=1)
    return safe_divide(ctx, found, total)


def reciprocal_rank(ctx: Context, rel: int, cutoff: int | None) -> Array:
    """``RR@k = 1 / rank of the first relevant document`` in the top k, else 0."""
    ctx.linear_only("RR")
    width = ctx.width(cutoff)
    if width == 0:
        return ctx.xp.zeros(ctx.batch.shape[0], dtype=ctx.batch.dtype, device=ctx.batch.device)
    found = ctx.view.relevant(rel, width)
    return ctx.xp.max(found / ctx.ranks(width), axis=1)


def average_precision(ctx: Context, rel: int, cutoff: int | None, norm: str = "R") -> Array:
    """``AP@k = (1/N) sum_{i <= k, d_i relevant} hits@i / i``; N = R, min(R, k) or the
    relevant documents in the top k (``norm``); 0 if N = 0."""
    ctx.linear_only("AP")
    xp = ctx.xp
    width = ctx.width(cutoff)
    found = ctx.view.relevant(rel, width)
    running = xp.cumulative_sum(found, axis=1)
    total = xp.sum(found * running / ctx.ranks(width), axis=1)
    if norm == "R":
        den = ctx.num_rel(rel)
    elif norm == "min":
        limit = ctx.view.num_ret if cutoff is None else ctx.const(float(cutoff))
        den = xp.minimum(ctx.num_rel(rel), limit)
    elif norm == "ret":
        den = xp.sum(found, axis=1)
    else:
        raise MeasureError(f"AP norm must be 'R', 'min' or 'ret', got {norm!r}")
    return safe_divide(ctx, total, den)


def _shaped(ctx: Context, gains: Array, form: str) -> Array:
    if form == "exp-log2":
        return ctx.xp.pow(ctx.const(2.0), gains) - 1.0
    if form != "log2":
        raise MeasureError(f"dcg must be 'log2' or 'exp-log2', got {form!r}")
    return gains


def _no_gain_map(gains: object, name: str) -> None:
    if gains is not None:
        raise MeasureError(
            f"{name}(gains=...) (a custom gain per grade) is not supported on tensors; map the "
            "labels to gains first, or use dcg='exp-log2' for 2^grade - 1"
        )


def _dcg(ctx: Context, cutoff: int | None, form: str) -> Array:
    xp = ctx.xp
    width = ctx.width(cutoff)
    if ctx.view.bounds is None:
        gained = _shaped(ctx, ctx.view.grades(width), form)
    else:  # the mean must cover the whole tie group, also past the cutoff
        gained = ctx.view.averaged(_shaped(ctx, ctx.view.grades(), form))[:, :width]
    return xp.sum(gained / xp.log2(ctx.ranks(width) + 1.0), axis=1)


def dcg(ctx: Context, cutoff: int | None, gains: object = None, dcg: str = "log2") -> Array:
    """``DCG@k = sum_{i <= k} gain_i / log2(i + 1)``, gain the grade (``2^grade - 1`` with
    ``dcg='exp-log2'``)."""
    _no_gain_map(gains, "DCG")
    return _dcg(ctx, cutoff, dcg)


COUNTED_GRADES = 16
"""The highest grade up to which, away from the host's memory, the ideal DCG comes from
counts of the grades (:func:`_ideal_dcg_by_counts`) rather than a top-k sort."""


def ideal_dcg(ctx: Context, cutoff: int | None, form: str) -> Array:
    """DCG of the ideal ranking: every judged grade of the query, highest first."""
    xp = ctx.xp
    grades = ctx.judged_grades(as_given=True)
    width = int(grades.shape[1]) if cutoff is None else min(cutoff, int(grades.shape[1]))
    counted = _ideal_dcg_by_counts(ctx, grades, width, form)
    if counted is not None:
        return counted
    top = ctx.batch.as_float(ctx.batch.top_values(grades, width))
    top = xp.maximum(top, ctx.const(0.0))  # negative: padding or unjudged, gain 0
    return xp.sum(_shaped(ctx, top, form) / xp.log2(ctx.ranks(width) + 1.0), axis=1)


def _ideal_dcg_by_counts(ctx: Context, grades: Array, width: int, form: str) -> Array | None:
    """The ideal DCG@``width`` from how many documents of each query reach each grade, or
    ``None`` where the top-k sort is the better way (numpy's memory, where a row sort is
    cheap; grades that are not integers, or above :data:`COUNTED_GRADES`; no host
    synchronisation allowed, as under ``jax.jit``).

    In the ideal ranking the documents of grade >= g hold the first ``c_g`` ranks, so
    a linear gain ``grade = sum_{g=1}^{grade} 1`` gives ``IDCG@k = sum_{g >= 1}
    D(min(c_g, k))``, and ``2^grade - 1 = sum_{g=1}^{grade} 2^(g-1)`` gives ``sum_{g >= 1}
    2^(g-1) D(min(c_g, k))``, with ``D(m) = sum_{i <= m} 1 / log2(i + 1)``: a compare and
    a row sum per grade level instead of a sort of every row. The sum is regrouped, so the
    value may differ from the sorted form's in the last bits (1e-15 here)."""
    xp, b = ctx.xp, ctx.batch
    if form not in ("log2", "exp-log2"):  # the sorted form says what is wrong
        return None
    if packs_rows(xp, grades) or not b.eager or not xp.isdtype(grades.dtype, "integral"):
        return None
    q = int(grades.shape[0])
    if q * int(grades.shape[1]) == 0 or width == 0:
        return None
    top = int(xp.max(grades))
    if top > COUNTED_GRADES:
        return None
    steps = ctx.const(1.0) / xp.log2(ctx.ranks(width)[0, :] + 1.0)
    cumulative = xp.concat([xp.reshape(ctx.const(0.0), (1,)), xp.cumulative_sum(steps)])
    total = xp.zeros(q, dtype=b.dtype, device=b.device)
    limit = xp.asarray(width, dtype=xp.int64, device=b.device)
    for level in range(1, top + 1):
        reach = xp.sum(xp.astype(grades >= level, xp.int64), axis=1)
        covered = xp.take(cumulative, xp.minimum(reach, limit), axis=0)
        weight = 1.0 if form == "log2" else float(2 ** (level - 1))
        total = total + weight * covered
    return total


def ndcg(
    ctx: Context,
    cutoff: int | None,
    gains: object = None,
    dcg: str = "log2",
    ideal: str = "sorted",
) -> Array:
    """``nDCG@k = DCG@k / IDCG@k``, 0 if IDCG = 0 (``ideal`` orders custom gains, which
    tensors do not take: grades order the same either way)."""
    _no_gain_map(gains, "nDCG")
    return safe_divide(ctx, _dcg(ctx, cutoff, dcg), ideal_dcg(ctx, cutoff, dcg))


def cumulative_gain(ctx: Context, cutoff: int | None) -> Array:
    """``CG@k = sum_{i <= k} grade_i``."""
    return ctx.xp.sum(ctx.view.averaged(ctx.view.grades())[:, : ctx.width(cutoff)], axis=1)


def err(ctx: Context, cutoff: int | None, p: float = 1.0, max_rel: int | None = None) -> Array:
    """``ERR@k = sum_{r <= k} (1/r) R_r prod_{i < r} p (1 - R_i)``,
    ``R_i = (2^g_i - 1) / 2^max_rel``; ``max_rel`` defaults to the highest judged grade of
    all the queries (``ideal_labels``, else the batch)."""
    ctx.linear_only("ERR")
    xp = ctx.xp
    q = ctx.batch.shape[0]
    width = ctx.width(cutoff)
    if max_rel is None:
        judged = ctx.judged_grades()
        empty = int(judged.shape[0]) * int(judged.shape[1]) == 0
        top = ctx.const(0.0) if empty else xp.maximum(xp.max(judged), ctx.const(0.0))
    else:
        top = ctx.const(float(max_rel))
    grades = xp.minimum(ctx.view.grades(width), top)
    stop = stop_probability(ctx, grades, top)
    carry = xp.cumulative_prod(p * (1.0 - stop), axis=1)
    ones = xp.ones((q, 1), dtype=ctx.batch.dtype, device=ctx.batch.device)
    before = xp.concat([ones, carry[:, :-1]], axis=1)
    return xp.sum(before * stop / ctx.ranks(width), axis=1)


def stop_probability(ctx: Context, grades: Array, top: Array) -> Array:
    """ERR's ``R = (2^g - 1) / 2^top`` for grades ``g <= top``, as ``ranklens.evaluate``
    computes it: as written while ``2^top`` is finite in the result dtype, else as
    ``2^(g - top) - 2^-top`` (a grade of 200 in float32 is 1, not inf / inf)."""
    xp = ctx.xp
    two = ctx.const(2.0)
    direct_max = ctx.const(1000.0 if ctx.batch.dtype == xp.float64 else 100.0)
    small_top = xp.minimum(top, direct_max)
    direct = (xp.pow(two, xp.minimum(grades, small_top)) - 1.0) / xp.pow(two, small_top)
    scaled = xp.pow(two, grades - top) - xp.pow(two, -top)
    return xp.where(top <= direct_max, direct, scaled)


def rbp(ctx: Context, p: float = 0.8, rel: int = 1, gain: str = "binary") -> Array:
    """``RBP = (1 - p) sum_i g_i p^i`` over 0-based ranks; binary gain ``[grade >= rel]``,
    graded ``grade / L`` (L the query's highest judged grade, when L > 1)."""
    xp = ctx.xp
    n = ctx.batch.shape[1]
    if gain == "binary":
        values = ctx.view.relevant(rel)
    elif gain == "graded":
        grades = ctx.judged_grades()
        if grades.shape[1]:
            top = xp.max(grades, axis=1, keepdims=True)
        else:
            top = xp.zeros((ctx.batch.shape[0], 1), dtype=ctx.batch.dtype, device=ctx.batch.device)
        scale = xp.where(top > 1.0, top, ctx.const(1.0))
        values = ctx.view.averaged(ctx.view.grades() / scale)
    else:
        raise MeasureError(f"RBP gain must be 'binary' or 'graded', got {gain!r}")
    weights = xp.pow(ctx.const(p), ctx.ranks(n) - 1.0)
    return (1.0 - p) * xp.sum(values * weights, axis=1)


Kernel = Callable[..., Array]

KERNELS: dict[str, Kernel] = {
    "P": precision,
    "R": recall,
    "F1": lambda ctx, rel, cutoff: f_measure(ctx, rel, cutoff, 1.0),
    "F": f_measure,
    "Success": success,
    "Rprec": r_precision,
    "RR": reciprocal_rank,
    "AP": average_precision,
    "DCG": dcg,
    "nDCG": ndcg,
    "CG": cumulative_gain,
    "ERR": err,
    "RBP": rbp,
}
"""The measures the tensor path computes, by the name of their declaration."""
