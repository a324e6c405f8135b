r"""Paired tests on per-query differences: Student's t, Wilcoxon signed-rank and sign tests.

Every function takes the differences :math:`d_i = x_i - y_i` of two systems' values on the
same queries: a vector ``(n,)``, or a matrix ``(n, k)`` holding one comparison per column
(all tested at once). Results have shape ``()`` for a vector and ``(k,)`` for a matrix.
Every test is two-sided, and every p-value is defined, also in the degenerate cases
(documented with each function): no nan comes out.

>>> d = [0.10, 0.25, -0.05, 0.30, 0.00, 0.15]
>>> round(float(t_test(d).p_value), 4)
0.0756
>>> round(float(sign_test(d).p_value), 4)
0.375
>>> [int(c) for c in wins_ties_losses(d)]
[4, 1, 1]
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ranklens.analysis.stats._validate import (
    as_columns,
    check_confidence,
    column_means,
    column_sds,
    shaped,
)
from ranklens.base.types import Float64Array, Int64Array

_stats: Any = importlib.import_module("scipy.stats")  # untyped: scipy ships no stubs


@dataclass(frozen=True)
class PairedResult:
    """The outcome of a paired test: its statistic and two-sided p-value (arrays of the
    shape described in :mod:`ranklens.analysis.stats.paired_tests`)."""

    statistic: Float64Array
    p_value: Float64Array


def _constant(d: Float64Array) -> npt.NDArray[np.bool_]:
    """Which columns hold one value repeated (exactly, not up to rounding)."""
    return np.all(d == d[:1], axis=0)  # type: ignore[no-any-return]


def _studentized(d: Float64Array) -> tuple[Float64Array, Float64Array, Float64Array]:
    """``(mean, standard error, t)`` of each column; constant columns have standard error 0
    and t = 0 (all differences 0) or +-inf."""
    n = d.shape[0]
    mean = column_means(d)
    constant = _constant(d)
    se = np.where(constant, 0.0, column_sds(d, mean) / np.sqrt(n))
    safe = np.where(constant, 1.0, se)
    signed_inf = np.where(mean == 0, 0.0, np.copysign(np.inf, mean))
    t = np.where(constant, signed_inf, mean / safe)
    return mean, se, t


def t_test(diffs: npt.ArrayLike) -> PairedResult:
    r"""Student's paired t-test: :math:`t = \bar d / (s_d / \sqrt n)` with :math:`n - 1`
    degrees of freedom, :math:`s_d` the standard deviation (``ddof=1``).

    The same as :func:`scipy.stats.ttest_rel` (two-sided), vectorised over columns. When all
    differences are equal (:math:`s_d = 0`), scipy returns nan; here t = 0 and p = 1 when
    they are all 0, and t = +-inf, p = 0 otherwise.

    Parameters
    ----------
    diffs
        Differences ``(n,)`` or ``(n, k)``, with ``n >= 2``.

    Returns
    -------
    PairedResult
        ``statistic`` is t.

    Examples
    --------
    >>> res = t_test([[0.1, 0.0], [0.2, 0.0], [0.3, 0.0]])
    >>> res.statistic.round(4).tolist(), res.p_value.round(4).tolist()
    ([3.4641, 0.0], [0.0742, 1.0])
    """
    d, vector = as_columns(diffs)
    _, _, t = _studentized(d)
    p = np.minimum(2.0 * _stats.t.sf(np.abs(t), d.shape[0] - 1), 1.0)
    return PairedResult(shaped(t, vector), shaped(np.asarray(p, dtype=np.float64), vector))


def t_interval(diffs: npt.ArrayLike, confidence: float = 0.95) -> tuple[Float64Array, Float64Array]:
    r"""The t confidence interval of the mean difference:
    :math:`\bar d \pm t_{(1 + c)/2,\, n - 1}\, s_d / \sqrt n`.

    The interval of :meth:`scipy.stats.ttest_rel`'s ``confidence_interval``; it has width 0
    when all differences are equal.

    Examples
    --------
    >>> low, high = t_interval([0.1, 0.2, 0.3], confidence=0.9)
    >>> round(float(low), 4), round(float(high), 4)
    (0.0314, 0.3686)
    """
    level = check_confidence(confidence)
    d, vector = as_columns(diffs)
    mean, se, _ = _studentized(d)
    half = _stats.t.ppf((1.0 + level) / 2.0, d.shape[0] - 1) * se
    return shaped(mean - half, vector), shaped(mean + half, vector)


def wilcoxon_test(diffs: npt.ArrayLike) -> PairedResult:
    r"""Wilcoxon's signed-rank test, by :func:`scipy.stats.wilcoxon` with its defaults.

    That is ``zero_method="wilcox"`` (zero differences are dropped before ranking, as
    Wilcoxon did), no continuity correction, and ``method="auto"``: the exact distribution
    for at most 50 differences without ties or zeros, an exact enumeration of the sign
    flips for at most 13 with them, the normal approximation (with the tie correction of
    the variance) otherwise. The statistic is scipy's two-sided one,
    :math:`\min(W^+, W^-)`, :math:`W^\pm` the sums of the ranks of :math:`|d_i|` over the
    positive and the negative differences. When every difference is 0, scipy has nothing
    to rank; here the statistic is 0 and p = 1.

    Examples
    --------
    >>> res = wilcoxon_test([0.1, 0.25, -0.05, 0.3, 0.0, 0.15])
    >>> float(res.statistic), round(float(res.p_value), 4)
    (1.0, 0.125)
    """
    d, vector = as_columns(diffs)
    statistic = np.zeros(d.shape[1])
    p = np.ones(d.shape[1])
    for j in range(d.shape[1]):
        column = d[:, j]
        if np.any(column != 0):
            res = _stats.wilcoxon(column, zero_method="wilcox")
            statistic[j] = float(res.statistic)
            p[j] = float(res.pvalue)
    return PairedResult(shaped(statistic, vector), shaped(p, vector))


def sign_test(diffs: npt.ArrayLike) -> PairedResult:
    r"""The sign test: the number of positive differences among the non-zero ones, against
    Binomial(wins + losses, 1/2), by :func:`scipy.stats.binomtest` (two-sided).

    Ties (zero differences) are dropped. When every difference is 0, p = 1. The statistic
    is the number of wins (positive differences).

    Examples
    --------
    >>> res = sign_test([0.1, 0.2, 0.3, 0.4, 0.5, 0.0])
    >>> float(res.statistic), round(float(res.p_value), 4)
    (5.0, 0.0625)
    """
    d, vector = as_columns(diffs, minimum=1)
    wins, _, losses = _counts(d)
    p = np.ones(d.shape[1])
    for j in range(d.shape[1]):
        trials = int(wins[j] + losses[j])
        if trials:
            p[j] = float(_stats.binomtest(int(wins[j]), trials, 0.5).pvalue)
    return PairedResult(shaped(wins.astype(np.float64), vector), shaped(p, vector))


def _counts(d: Float64Array) -> tuple[Int64Array, Int64Array, Int64Array]:
    wins = np.count_nonzero(d > 0, axis=0).astype(np.int64)
    losses = np.count_nonzero(d < 0, axis=0).astype(np.int64)
    return wins, d.shape[0] - wins - losses, losses


def wins_ties_losses(diffs: npt.ArrayLike) -> tuple[Int64Array, Int64Array, Int64Array]:
    """How many differences are ``> 0``, ``== 0`` and ``< 0`` (exact comparisons).

    Examples
    --------
    >>> [int(c) for c in wins_ties_losses([0.5, 0.0, -0.5, 0.25])]
    [2, 1, 1]
    """
    d, vector = as_columns(diffs, minimum=1)
    wins, ties, losses = _counts(d)
    if vector:
        return wins.reshape(()), ties.reshape(()), losses.reshape(())
    return wins, ties, losses
