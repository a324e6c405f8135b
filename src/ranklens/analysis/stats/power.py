r"""Statistical power, minimum detectable differences and topic set size design.

Everything here is exact: powers are the noncentral t and F distributions' tails,
computed so that they stay exact far in those tails (3 topics at alpha = 1e-12, where
scipy's ``nctdtr``, which :mod:`statsmodels.stats.power` uses, is nan): the t-test's as
an integral over the normal variable of a chi-square probability, to a relative precision
of 1e-13 (:func:`_t_power`), the ANOVA's as a Poisson mixture of incomplete beta functions
(:func:`_f_power`); both equal statsmodels to 1e-12 where scipy is accurate. A power whose
precision cannot be vouched for (levels near the smallest floats) raises an
:class:`~ranklens.base.errors.OptionError` instead of returning a number. The number of
topics is the smallest whole number meeting the requirement, found by bisection over the
integers (the requirements are monotone in the number of topics).

**Paired t-test** (Sakai 2016, section 3.1; Nagata 2003). With :math:`n` topics, the
per-topic differences having variance :math:`\sigma_t^2`, and a true difference
:math:`\mathrm{minD}`, the two-sided test at level :math:`\alpha` rejects with probability

.. math:: 1 - \beta = P(T' \ge t_{\alpha/2}) + P(T' \le -t_{\alpha/2}),
   \qquad T' \sim t'(\phi = n - 1, \lambda = \sqrt n\,\mathrm{minD}/\sigma_t),

:math:`t_{\alpha/2}` the upper :math:`\alpha/2` point of Student's t with :math:`\phi`
degrees of freedom. (Sakai's Excel tool approximates the noncentral t by a normal
(his eq. 7); this module computes it exactly, so a size may be 1 smaller or larger.)

**One-way ANOVA** (Sakai 2016, section 3.2). For :math:`m` systems with :math:`n` topics
each and within-system variance :math:`\sigma^2`, the F test's power is

.. math:: 1 - \beta = P(F' \ge F_\alpha(\phi_A, \phi_E)), \qquad
   F' \sim F'(\phi_A = m - 1, \phi_E = m(n - 1), \lambda = n\Delta),

with :math:`\Delta = \sum_i a_i^2 / \sigma^2` for the systems' effects :math:`a_i`. If the
best and the worst system differ by at least :math:`\mathrm{minD}`,
:math:`\Delta \ge \mathrm{minD}^2 / (2\sigma^2)` (equality when two systems lie at
:math:`\pm\mathrm{minD}/2` and the others at the grand mean), the worst case that Sakai
designs for. In Cohen's terms :math:`f^2 = \Delta/m = \mathrm{minD}^2/(2m\sigma^2)` and
:math:`\lambda = f^2 \cdot nm`: statsmodels' ``FTestAnovaPower`` with
``effect_size=f, nobs=n*m, k_groups=m``.

**Confidence interval width** (Sakai 2016, section 3.3). The :math:`100(1-\alpha)\%`
interval of a paired mean difference is :math:`\bar d \pm t_{\alpha/2}(n-1)\sqrt{V/n}`,
:math:`V` the sample variance of the differences. Its expected width uses
:math:`E[\sqrt V] = c(n)\,\sigma_t`, with
:math:`c(n) = \sqrt{2/(n-1)}\;\Gamma(n/2)/\Gamma((n-1)/2)` (the sample standard deviation
follows a scaled chi distribution), and :math:`\sigma_t^2 = 2\sigma^2` (two systems with
within-system variance :math:`\sigma^2`, covariance ignored, as Sakai does):

.. math:: E[\text{width}] = 2\, t_{\alpha/2}(n - 1)\; c(n) \sqrt{2\sigma^2 / n}.

The size is the smallest :math:`n` with :math:`E[\text{width}] \le \delta`.

**Minimum detectable difference.** For :math:`n` topics and a standard deviation
:math:`s` of the differences, the smallest true difference the paired t-test detects with
the given power: :math:`s \cdot d^\ast`, :math:`d^\ast` the effect size (Cohen's
:math:`d_z`) solving the power equation above (the ``effect_size`` that statsmodels'
``TTestPower.solve_power`` returns).

References
----------
Sakai (2016). Topic set size design. Information Retrieval Journal 19(3), 256-283.

Nagata (2003). How to design the sample size (in Japanese). Asakura Shoten.

Cohen (1988). Statistical power analysis for the behavioral sciences. 2nd ed., ch. 8.

Examples
--------
>>> topic_set_size(0.1, 0.05)
42
>>> round(paired_t_power(42, 0.1, 0.05), 4)
0.8078
>>> round(minimum_detectable_difference(42, 0.05 ** 0.5), 4)
0.099
"""

from __future__ import annotations

import importlib
import itertools
import math
from typing import Any, Literal, TypeAlias

import numpy as np

from ranklens.analysis.stats._validate import check_alpha
from ranklens.base.errors import OptionError
from ranklens.base.types import Float64Array

_special: Any = importlib.import_module("scipy.special")  # untyped: scipy ships no stubs
_stats: Any = importlib.import_module("scipy.stats")
_optimize: Any = importlib.import_module("scipy.optimize")

TopicSetTest: TypeAlias = Literal["paired-t", "anova", "ci"]
TOPIC_SET_TESTS: tuple[TopicSetTest, ...] = ("paired-t", "anova", "ci")
DEFAULT_MAX_TOPICS = 10_000_000
"""The largest number of topics :func:`topic_set_size` looks at before giving up."""

__all__ = [
    "DEFAULT_MAX_TOPICS",
    "TOPIC_SET_TESTS",
    "anova_power",
    "ci_expected_width",
    "minimum_detectable_difference",
    "paired_t_power",
    "topic_set_size",
]


# ------------------------------------------------------------------------ validation


def _positive(name: str, value: Any, *, zero: bool = False) -> float:
    ok = (
        not isinstance(value, bool)
        and isinstance(value, int | float | np.integer | np.floating)
        and math.isfinite(value)
        and (value >= 0 if zero else value > 0)
    )
    if not ok:
        kind = "a finite number >= 0" if zero else "a finite number > 0"
        raise OptionError(f"{name} must be {kind}, not {value!r}")
    return float(value)


def _check_power(power: Any) -> float:
    number = isinstance(power, int | float | np.integer | np.floating)
    if isinstance(power, bool) or not number or not 0 < power < 1:
        raise OptionError(f"power must be a number strictly between 0 and 1, not {power!r}")
    return float(power)


def _topics(name: str, value: Any, minimum: int = 2) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < minimum:
        raise OptionError(f"{name} must be a whole number >= {minimum}, not {value!r}")
    return int(value)


def _systems(systems: Any) -> int:
    if isinstance(systems, bool) or not isinstance(systems, int | np.integer) or systems < 2:
        raise OptionError(
            f"systems must be the number of systems compared, a whole number >= 2, not {systems!r}"
        )
    return int(systems)


# ----------------------------------------------------------------------------- powers


_TAIL = 40.0
"""Beyond ``|z| = 40`` the standard normal density is below 1e-347: nothing to integrate."""
_RTOL = 1e-13
"""The relative precision asked of a power (the integral's error estimate is checked)."""
_GL_LOW = np.polynomial.legendre.leggauss(32)
_GL_HIGH = np.polynomial.legendre.leggauss(64)


def _integrate(function: Any, points: list[float]) -> tuple[float, float]:
    """``(integral, error estimate)`` of the vectorised ``function`` over
    ``[points[0], points[-1]]``: Gauss-Legendre rules of 32 and 64 nodes on each piece
    between consecutive ``points``, a piece halved until the two agree to :data:`_RTOL`
    of the whole integral."""
    pieces = np.array([(a, b) for a, b in itertools.pairwise(points) if b > a], dtype=np.float64)
    accepted, error = 0.0, 0.0
    for _ in range(60):
        if pieces.size == 0:
            return accepted, error
        middle = (pieces[:, 0] + pieces[:, 1]) / 2.0
        half = (pieces[:, 1] - pieces[:, 0]) / 2.0
        rough, fine = (
            (function(middle[:, None] + half[:, None] * nodes[None, :]) @ weights) * half
            for nodes, weights in (_GL_LOW, _GL_HIGH)
        )
        gap = np.abs(fine - rough)
        total = accepted + float(fine.sum())
        done = gap <= _RTOL * abs(total)
        accepted += float(fine[done].sum())
        error += float(gap[done].sum())
        left = pieces[~done]
        middle = middle[~done]
        pieces = np.concatenate(
            (np.column_stack((left[:, 0], middle)), np.column_stack((middle, left[:, 1])))
        )
    return accepted + float("nan"), math.inf  # not converged: refused by the caller


def _chi2_cdf_scaled(df: int, ratio: Float64Array) -> Float64Array:
    """``P(chi2_df / df <= ratio**2)``, exact for tiny ``ratio`` too (where the square
    underflows: the series' first term, ``x^a e^-x / Gamma(a + 1)`` with
    ``x = df ratio^2 / 2``, ``a = df / 2``, relative error below ``x``)."""
    a = df / 2.0
    with np.errstate(divide="ignore", under="ignore"):
        x = a * ratio * ratio
        direct = _special.gammainc(a, x)
        logx = math.log(a) + 2.0 * np.log(np.abs(ratio))
        series = np.exp(a * logx - x - math.lgamma(a + 1.0))
    out: Float64Array = np.where(x < 1e-30, series, direct)
    return out


def _checked_critical(tail: Any, wanted: float) -> bool:
    """Whether a critical value is one: its upper tail is the level asked for (scipy's
    quantiles are infinite, or off, for levels far below 1e-50 with few degrees of
    freedom)."""
    found = float(tail)
    return math.isfinite(found) and found > 0 and abs(found - wanted) <= 1e-6 * wanted


def _t_power(n: int, effect: float, alpha: float) -> float:
    r"""Power of the two-sided one-sample t-test: ``n`` observations, effect ``mean / sd``.

    With :math:`\nu = n - 1`, :math:`c = t_{\alpha/2}(\nu)` and :math:`\lambda =
    \sqrt n\,` effect, :math:`T' = (Z + \lambda)/\sqrt{V/\nu}` (:math:`V \sim
    \chi^2_\nu`) and :math:`|T'| \ge c \iff V/\nu \le ((Z + \lambda)/c)^2`, so

    .. math:: 1 - \beta = \int \varphi(z)\, P\big(\chi^2_\nu/\nu \le ((z + \lambda)
       / c)^2\big)\, dz,

    both tails at once, every term positive: integrated numerically (:func:`_integrate`,
    breaking at :math:`z = -\lambda` and where :math:`|z + \lambda| = c`). scipy's
    noncentral t (``nctdtr``) is nan or wrong far in its tails (3 topics, alpha = 1e-12:
    nan, and the normal approximation gave 1 where the power is 0.950); this is exact
    there. A power whose error estimate exceeds :data:`_RTOL` of it is refused.
    """
    df = n - 1
    if math.isinf(effect):
        return 1.0
    critical = float(_stats.t.isf(alpha / 2.0, df))
    nc = effect * math.sqrt(n)
    if not (_checked_critical(_stats.t.sf(critical, df), alpha / 2.0) and math.isfinite(nc)):
        raise _imprecise(n, effect, alpha)

    def integrand(z: Float64Array) -> Float64Array:
        density: Float64Array = np.exp(-0.5 * z * z) / math.sqrt(2.0 * math.pi)
        return density * _chi2_cdf_scaled(df, (z + nc) / critical)

    width = critical / math.sqrt(2.0 * df)  # the spread of c * sqrt(V / df) around c
    points = {-_TAIL, _TAIL, -nc}
    for centre in (critical - nc, -critical - nc):
        points.update(centre + k * width for k in (-4.0, -1.0, 0.0, 1.0, 4.0))
    inside = sorted(p for p in points if -_TAIL <= p <= _TAIL)
    power, error = _integrate(integrand, inside)
    if not (math.isfinite(power) and power > 0 and error <= 1e3 * _RTOL * power):
        raise _imprecise(n, effect, alpha)
    return min(1.0, power)


def _imprecise(n: int, effect: float, alpha: float) -> OptionError:
    return OptionError(
        f"the power of a t-test over {n} topics at alpha={alpha!r} (effect {effect!r} "
        "standard deviations) cannot be computed to a precision ranklens stands behind; "
        "ask for a larger alpha"
    )


_POISSON_TERMS = 2_000_000
"""The most terms of the Poisson mixture :func:`_f_power` sums."""


def _f_power(n: int, systems: int, delta: float, alpha: float) -> float:
    r"""Power of the one-way ANOVA F test: ``systems`` groups of ``n``, ``lambda = n*delta``.

    The noncentral chi-square is a Poisson mixture of central ones, so with
    :math:`k = F_\alpha \phi_A / \phi_E` and :math:`J \sim \mathrm{Poisson}(\lambda/2)`,

    .. math:: 1 - \beta = \sum_j P(J = j)\; I_{1/(1+k)}\big(\phi_E/2,\ \phi_A/2 + j\big),

    every term positive (the regularised incomplete beta is exact in its tails, where
    ``1 - ncfdtr`` loses every digit of a power near a tiny alpha), summed over the
    :math:`j` within 40 standard deviations of :math:`\lambda/2`. Where that would be more
    than :data:`_POISSON_TERMS` terms, ``1 - ncfdtr`` is used if the power is not below
    1e-6 (its absolute error is about 1e-15); anything else is refused.
    """
    df1 = systems - 1
    df2 = systems * (n - 1)
    if math.isinf(delta):
        return 1.0
    # F_alpha = (df2/df1)(1 - y)/y with I_y(df2/2, df1/2) = alpha: exact where scipy's
    # f.isf is off by 2e-5 (alpha = 1e-12, 1 and 2 degrees of freedom) or infinite
    tail = float(_special.betaincinv(df2 / 2.0, df1 / 2.0, alpha))
    critical = df2 * (1.0 - tail) / (df1 * tail) if tail > 0 else math.inf
    lam = n * delta
    if not (_checked_critical(_stats.f.sf(critical, df1, df2), alpha) and math.isfinite(lam)):
        raise _imprecise_f(n, systems, alpha)
    mean = lam / 2.0
    spread = 40.0 * math.sqrt(mean) + 40.0
    first, last = max(0, math.floor(mean - spread)), math.ceil(mean + spread)
    if last - first + 1 <= _POISSON_TERMS:
        j = np.arange(first, last + 1, dtype=np.float64)
        weights = _stats.poisson.pmf(j, mean)
        weights = weights / math.fsum(weights)  # the tails left out are below 1e-300
        x = df2 / (df2 + critical * df1)  # 1 / (1 + k)
        tails = _special.betainc(df2 / 2.0, df1 / 2.0 + j, x)
        power = float(np.sum(weights * tails))
        if math.isfinite(power) and power > 0:
            return min(1.0, power)
        raise _imprecise_f(n, systems, alpha)
    power = 1.0 - float(_special.ncfdtr(df1, df2, lam, critical))
    if not (math.isfinite(power) and power >= 1e-6):
        raise _imprecise_f(n, systems, alpha)
    return min(1.0, power)


def _imprecise_f(n: int, systems: int, alpha: float) -> OptionError:
    return OptionError(
        f"the power of an ANOVA of {systems} systems over {n} topics at alpha={alpha!r} "
        "cannot be computed to a precision ranklens stands behind; ask for a larger alpha"
    )


def paired_t_power(
    topics: int, min_difference: float, variance: float, alpha: float = 0.05
) -> float:
    r"""The power of the two-sided paired t-test (Sakai 2016, section 3.1).

    Parameters
    ----------
    topics
        The number of topics :math:`n` (at least 2).
    min_difference
        The true difference of the means, :math:`\mathrm{minD}` (its sign does not matter).
    variance
        The variance of the per-topic differences, :math:`\sigma_t^2` (> 0).
    alpha
        The significance level.

    Returns
    -------
    float
        :math:`P(|T'| \ge t_{\alpha/2})`, :math:`T' \sim t'(n - 1, \sqrt n\,
        \mathrm{minD}/\sigma_t)`: the value of statsmodels'
        ``TTestPower().power(minD / sigma_t, n, alpha)``.

    Examples
    --------
    >>> round(paired_t_power(50, 0.05, 0.02), 4)
    0.6882
    >>> paired_t_power(50, 0.0, 0.02) == 0.05
    True
    """
    n = _topics("topics", topics)
    diff = abs(_positive("min_difference", min_difference, zero=True))
    var = _positive("variance", variance)
    level = check_alpha(alpha)
    if diff == 0:
        return level
    return _t_power(n, diff / math.sqrt(var), level)


def anova_power(
    topics: int, min_difference: float, variance: float, systems: int, alpha: float = 0.05
) -> float:
    r"""The power of the one-way ANOVA F test of ``systems`` systems over ``topics`` topics,
    when the best and the worst system differ by ``min_difference`` (Sakai 2016,
    section 3.2; the worst case :math:`\Delta = \mathrm{minD}^2/(2\sigma^2)`).

    Parameters
    ----------
    topics
        The number of topics per system, :math:`n` (at least 2).
    min_difference
        The minimum detectable range :math:`\mathrm{minD}`.
    variance
        The within-system variance :math:`\sigma^2`.
    systems
        The number of systems :math:`m` (at least 2).
    alpha
        The significance level.

    Returns
    -------
    float
        :math:`P(F' \ge F_\alpha)`, :math:`F' \sim F'(m - 1, m(n - 1), n\Delta)`: the value of
        statsmodels' ``FTestAnovaPower().power(f, n * m, alpha, m)`` with
        :math:`f^2 = \mathrm{minD}^2 / (2 m \sigma^2)`.

    Examples
    --------
    >>> round(anova_power(50, 0.1, 0.05, systems=3), 4)
    0.4951
    """
    n = _topics("topics", topics)
    diff = abs(_positive("min_difference", min_difference, zero=True))
    var = _positive("variance", variance)
    m = _systems(systems)
    level = check_alpha(alpha)
    if diff == 0:
        return level
    return _f_power(n, m, diff * diff / (2.0 * var), level)


def _chi_mean_factor(n: int) -> float:
    """:math:`c(n) = E[s]/\\sigma` for a sample of ``n`` normal values."""
    return math.sqrt(2.0 / (n - 1)) * math.exp(math.lgamma(n / 2.0) - math.lgamma((n - 1) / 2.0))


def _ci_width(n: int, variance: float, alpha: float) -> float:
    critical = float(_stats.t.isf(alpha / 2.0, n - 1))
    return 2.0 * critical * _chi_mean_factor(n) * math.sqrt(2.0 * variance / n)


def ci_expected_width(topics: int, variance: float, alpha: float = 0.05) -> float:
    r"""The expected width of the :math:`100(1-\alpha)\%` confidence interval of a paired
    difference of means over ``topics`` topics (Sakai 2016, section 3.3):
    :math:`2\,t_{\alpha/2}(n-1)\,c(n)\sqrt{2\sigma^2/n}`.

    Parameters
    ----------
    topics
        The number of topics :math:`n` (at least 2).
    variance
        The within-system variance :math:`\sigma^2` (the differences then have variance
        :math:`\sigma_t^2 = 2\sigma^2`).
    alpha
        One minus the confidence level.

    Examples
    --------
    >>> round(ci_expected_width(100, 0.05), 4)
    0.1252
    """
    n = _topics("topics", topics)
    var = _positive("variance", variance)
    return _ci_width(n, var, check_alpha(alpha))


def minimum_detectable_difference(
    topics: int, sd: float, alpha: float = 0.05, power: float = 0.8
) -> float:
    r"""The smallest true difference that a two-sided paired t-test over ``topics``
    topics detects with probability ``power``, when the per-topic differences have
    standard deviation ``sd``.

    ``sd`` times the effect size :math:`d^\ast` with
    ``paired_t_power(topics, d*, 1) == power`` (statsmodels:
    ``TTestPower().solve_power(nobs=topics, alpha=alpha, power=power)``). 0 when ``sd``
    is 0 (every difference is detected), and when ``power <= alpha`` (a difference of 0
    already has power ``alpha``).

    Examples
    --------
    >>> round(minimum_detectable_difference(25, 0.2), 4)
    0.1168
    """
    n = _topics("topics", topics)
    s = _positive("sd", sd, zero=True)
    level = check_alpha(alpha)
    target = _check_power(power)
    if s == 0 or target <= level:
        return 0.0

    def gap(effect: float) -> float:
        return _t_power(n, effect, level) - target

    high = 1.0
    while gap(high) < 0:
        high *= 2.0
    effect = float(_optimize.brentq(gap, 0.0, high, xtol=1e-14, rtol=1e-13, maxiter=500))
    return s * effect


# ---------------------------------------------------------------------- topic set size


def topic_set_size(
    min_difference: float,
    variance: float,
    alpha: float = 0.05,
    power: float = 0.8,
    test: TopicSetTest | str = "paired-t",
    systems: int | None = None,
    *,
    max_topics: int = DEFAULT_MAX_TOPICS,
) -> int:
    r"""How many topics an experiment needs (Sakai 2016, "Topic set size design").

    Parameters
    ----------
    min_difference
        ``"paired-t"``: the smallest difference between two systems the t-test must detect
        (:math:`\mathrm{minD}`); ``"anova"``: the smallest difference between the best and
        the worst of ``systems`` systems the ANOVA must detect (minimum detectable range);
        ``"ci"``: the largest acceptable expected width :math:`\delta` of the confidence
        interval of a difference.
    variance
        ``"paired-t"``: the variance of the per-topic differences :math:`\sigma_t^2`;
        ``"anova"`` and ``"ci"``: the within-system variance :math:`\sigma^2`. Estimate
        them from existing runs with :func:`ranklens.variance_from`.
    alpha
        The significance level (``"ci"``: one minus the confidence level).
    power
        The power wanted, :math:`1 - \beta` (not used by ``"ci"``).
    test
        ``"paired-t"``, ``"anova"`` or ``"ci"``.
    systems
        The number of systems :math:`m` (``"anova"`` only; at least 2).
    max_topics
        Give up (:class:`OptionError`) when more topics than this would be needed.

    Returns
    -------
    int
        The smallest :math:`n \ge 2` meeting the requirement: power at least ``power``
        (``"paired-t"``, ``"anova"``) or expected width at most ``min_difference``
        (``"ci"``). The formulas are in :mod:`ranklens.analysis.stats.power`.

    Raises
    ------
    OptionError
        For an invalid value, or when no number of topics up to ``max_topics`` suffices.

    Examples
    --------
    >>> topic_set_size(0.05, 0.02)
    65
    >>> topic_set_size(0.1, 0.05, test="anova", systems=3)
    98
    >>> topic_set_size(0.1, 0.05, test="ci")
    156
    """
    if test not in TOPIC_SET_TESTS:
        raise OptionError(f"test must be one of {list(TOPIC_SET_TESTS)}, not {test!r}")
    diff = abs(_positive("min_difference", min_difference))
    var = _positive("variance", variance)
    level = check_alpha(alpha)
    target = _check_power(power)
    limit = _topics("max_topics", max_topics)
    if test == "anova":
        if systems is None:
            raise OptionError('test="anova" needs systems, the number of systems compared')
        m = _systems(systems)
    elif systems is not None:
        raise OptionError(f'systems is for test="anova" only, not for test={test!r}')

    def meets(n: int) -> bool:
        if test == "paired-t":
            return _t_power(n, diff / math.sqrt(var), level) >= target
        if test == "anova":
            return _f_power(n, m, diff * diff / (2.0 * var), level) >= target
        return _ci_width(n, var, level) <= diff

    return _smallest(meets, limit, test)


def _smallest(meets: Any, limit: int, test: str) -> int:
    """The smallest ``n`` in ``[2, limit]`` with ``meets(n)`` (monotone in ``n``)."""
    if meets(2):
        return 2
    low = 2  # fails
    high = 4
    while not meets(high):
        low = high
        if high >= limit:
            raise OptionError(
                f"more than {limit} topics would be needed ({test}); ask for a larger "
                "difference, a lower power or a larger max_topics"
            )
        high = min(2 * high, limit)
    while high - low > 1:
        middle = (low + high) // 2
        if meets(middle):
            high = middle
        else:
            low = middle
    return high
