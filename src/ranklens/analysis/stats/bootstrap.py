r"""The paired bootstrap over queries: a test (shift method) and a percentile interval.

Queries are resampled with replacement, ``resamples`` times (B), the same resamples for
every column (every pair of runs and measure; see :mod:`ranklens.analysis.stats._draws`).

**Test** (Efron and Tibshirani 1993, 16.4; Sakai 2006, 2014). The null distribution is
that of the *centred* differences :math:`z_i = d_i - \bar d`, resampled; the statistic is
studentized, :math:`t = \bar d / (s_d / \sqrt n)`, and

.. math:: p = \frac{\#\{b : |t(z^{*b})| \ge |t(d)|\} + 1}{B + 1}.

A resampled :math:`|t|` within a relative :math:`10^{-9}` of the observed one counts as a
tie (at least as extreme). A resample whose values are all equal has :math:`s = 0`: its t
is 0 when its mean is 0 and :math:`\pm\infty` otherwise. When every :math:`d_i` is 0,
p = 1; when they are all equal but not 0, p = 1 / (B + 1).

**Interval.** The percentile interval of the mean difference: the
:math:`(1 - c)/2` and :math:`(1 + c)/2` quantiles (linear interpolation, as
:func:`numpy.quantile` and :func:`scipy.stats.bootstrap` with ``method="percentile"``) of
the B resampled means :math:`\bar d^{*b}`.

Sums over a resample are one exact matrix product per chunk (``counts @ values`` on a
fixed-point grid), so results do not depend on the number of threads.

References
----------
Efron and Tibshirani (1993). An Introduction to the Bootstrap. Chapman & Hall, 16.4.

Sakai (2006). Evaluating evaluation metrics based on the bootstrap. SIGIR.

Sakai (2014). Statistical reform in information retrieval? SIGIR Forum 48(1).

Examples
--------
>>> res = bootstrap_test([0.1, 0.2, -0.1, 0.3, 0.15, 0.05, 0.2, 0.1], resamples=2000)
>>> float(res.p_value) < 0.05, float(res.ci_low) > 0, round(float(res.statistic), 3)
(True, True, 2.958)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ranklens.analysis.stats._draws import fixed_point, resample_counts
from ranklens.analysis.stats._validate import (
    as_columns,
    check_confidence,
    check_count,
    check_seed,
    shaped,
)
from ranklens.analysis.stats.paired_tests import _studentized
from ranklens.base.progress import Progress, report
from ranklens.base.types import Float64Array

DEFAULT_RESAMPLES = 10_000
DEFAULT_SEED = 42
_TIE = 1e-9


@dataclass(frozen=True)
class BootstrapResult:
    """The paired bootstrap's test and interval (arrays shaped as in
    :mod:`ranklens.analysis.stats.paired_tests`).

    Attributes
    ----------
    statistic : the observed t statistic.
    p_value : the shift-method p-value, ``(count + 1) / (resamples + 1)``.
    ci_low, ci_high : the percentile interval of the mean difference.
    """

    statistic: Float64Array
    p_value: Float64Array
    ci_low: Float64Array
    ci_high: Float64Array


def _t(mean: Float64Array, sd: Float64Array, n: int) -> Float64Array:
    signed_inf = np.where(mean == 0, 0.0, np.copysign(np.inf, mean))
    with np.errstate(divide="ignore", invalid="ignore"):
        t = mean / (sd / np.sqrt(n))
    return np.where(sd > 0, t, signed_inf)


def bootstrap_test(
    diffs: npt.ArrayLike,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    confidence: float = 0.95,
    *,
    progress: Progress | None = None,
) -> BootstrapResult:
    """The paired bootstrap test and percentile interval of each column of ``diffs``.

    Parameters
    ----------
    diffs
        Differences ``(n,)`` or ``(n, k)``, ``n >= 2``.
    resamples
        How many bootstrap resamples of the queries (B).
    seed
        Seed of :func:`numpy.random.default_rng` (the resampling stream of it).
    confidence
        Level of the interval.
    progress
        Called as ``progress(done, resamples)`` after each chunk of resamples
        (:mod:`ranklens.base.progress`).

    Returns
    -------
    BootstrapResult
    """
    d, vector = as_columns(diffs)
    b = check_count("resamples", resamples)
    level = check_confidence(confidence)
    rng_seed = check_seed(seed)
    n, k = d.shape
    mean, _, t_observed = _studentized(d)
    z = d - mean
    zq, z_unit = fixed_point(z, n)
    wq, w_unit = fixed_point(z * z, n)
    both = np.hstack([zq, wq])
    threshold = np.abs(t_observed) * (1.0 - _TIE)
    count = np.zeros(k, dtype=np.int64)
    means = np.empty((b, k))
    done = 0
    for counts in resample_counts(n, b, rng_seed):
        sums = counts @ both  # exact
        s1 = sums[:, :k] * z_unit
        s2 = sums[:, k:] * w_unit
        m = s1 / n
        var = np.maximum(s2 - s1 * m, 0.0) / (n - 1)
        t = _t(m, np.sqrt(var), n)
        count += np.count_nonzero(np.abs(t) >= threshold, axis=0)
        means[done : done + counts.shape[0]] = m + mean
        done += counts.shape[0]
        report(progress, done, b)
    p = np.asarray((count + 1.0) / (b + 1.0), dtype=np.float64)
    tail = (1.0 - level) / 2.0
    low, high = np.quantile(means, [tail, 1.0 - tail], axis=0)
    return BootstrapResult(
        shaped(t_observed, vector), shaped(p, vector), shaped(low, vector), shaped(high, vector)
    )


def bootstrap_interval(
    diffs: npt.ArrayLike,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    confidence: float = 0.95,
) -> tuple[Float64Array, Float64Array]:
    """The percentile bootstrap interval of the mean difference (that of
    :func:`bootstrap_test`, from the same resamples).

    Examples
    --------
    >>> low, high = bootstrap_interval([0.5, 0.5, 0.5])
    >>> float(low), float(high)
    (0.5, 0.5)
    """
    res = bootstrap_test(diffs, resamples, seed, confidence)
    return res.ci_low, res.ci_high
