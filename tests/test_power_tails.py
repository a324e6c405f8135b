"""Power and minimum detectable differences far in the tails: 2-3 topics, alpha down to
1e-100 (issue 35, item 7).

scipy's noncentral t is nan there (and ranklens once fell back to a normal approximation:
``paired_t_power(3, 1e6, 1.0, alpha=1e-12)`` gave 1.0 where the power is 0.950). The
oracles, independent of ranklens' own integral over the normal variable:

* with 3 topics (2 degrees of freedom) the power has a closed form: the chi-square with 2
  degrees of freedom is exponential, ``P(V/2 <= s^2) = 1 - exp(-s^2)``, and a Gaussian
  integral gives ``1 - beta = 1 - exp(-lambda^2 / (c^2 + 2)) / sqrt(1 + 2 / c^2)``;
* for any number of topics, an integral over the *other* variable, the sample standard
  deviation (scipy's ``quad`` over the chi distribution);
* the ANOVA of two systems is the two-sample t-test: its power (a Poisson mixture of
  incomplete beta functions) equals the t-test's (the integral) with ``2(n - 1)``
  degrees of freedom;
* statsmodels where scipy is accurate (tests/test_power.py), and monotonicity properties.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate, special, stats

from ranklens.analysis.stats.power import (
    _t_power,
    anova_power,
    minimum_detectable_difference,
    paired_t_power,
    topic_set_size,
)
from ranklens.base.errors import OptionError

ALPHAS = [0.05, 1e-3, 1e-6, 1e-10, 1e-12, 1e-20, 1e-50, 1e-100, 1e-300]
EFFECTS = [0.0, 1e-3, 0.1, 1.0, 10.0, 1e3, 1e6, 1e9]


def _closed_form_three_topics(effect: float, alpha: float) -> float:
    """The power of the two-sided t-test over 3 topics, exactly (see the module)."""
    c2 = 2.0 * (1.0 - alpha) ** 2 / (alpha * (2.0 - alpha))  # t_{alpha/2}(2) squared
    lam2 = 3.0 * effect * effect
    # 1 - exp(-x) / sqrt(1 + 2 / c^2), without cancellation when the power is tiny
    return -math.expm1(-lam2 / (c2 + 2.0) - 0.5 * math.log1p(2.0 / c2))


@pytest.mark.parametrize("alpha", ALPHAS)
@pytest.mark.parametrize("effect", EFFECTS)
def test_three_topics_equal_the_closed_form(alpha: float, effect: float) -> None:
    expected = _closed_form_three_topics(effect, alpha)
    got = _t_power(3, effect, alpha)
    assert got == pytest.approx(expected, rel=1e-9, abs=1e-14)


def test_the_reported_case() -> None:
    """Regression: 1.0 before, where the power is 1 - e^-3 = 0.9502."""
    got = paired_t_power(3, 1e6, 1.0, alpha=1e-12)
    assert got == pytest.approx(1.0 - math.exp(-3.0), abs=1e-9)


def _power_over_the_sd(n: int, effect: float, alpha: float) -> float:
    """The same power integrated over the sample standard deviation ``S = sqrt(V/df)``:
    ``E_S[Phi(lambda - c S) + Phi(-lambda - c S)]``, S from the chi distribution."""
    df = n - 1
    c = float(stats.t.isf(alpha / 2.0, df))
    lam = effect * math.sqrt(n)
    root = math.sqrt(df)

    def integrand(s: float) -> float:
        density = float(stats.chi.pdf(s * root, df)) * root
        return density * float(special.ndtr(lam - c * s) + special.ndtr(-lam - c * s))

    top = float(stats.chi.isf(1e-300, df)) / root
    turn = lam / c  # where c S passes lambda; below 1/c, where c S passes 0
    marks = (1.0 / c, 10.0 / c, 100.0 / c, turn * 0.5, turn, turn * 2.0, 1.0)
    points = sorted({p for p in marks if 0.0 < p < top})
    total = 0.0
    for a, b in zip([0.0, *points], [*points, top], strict=True):
        value, _ = integrate.quad(integrand, a, b, epsabs=0.0, epsrel=1e-12, limit=400)
        total += value
    return total


@pytest.mark.parametrize("n", [2, 4, 6, 11])
@pytest.mark.parametrize("alpha", [0.05, 1e-4, 1e-8, 1e-12, 1e-20])
@pytest.mark.parametrize("effect", [0.0, 0.05, 0.5, 2.0, 20.0, 1e3])
def test_the_power_equals_an_integral_over_the_standard_deviation(
    n: int, alpha: float, effect: float
) -> None:
    with warnings.catch_warnings():  # quad's warnings on the far tails: its value is checked
        warnings.simplefilter("ignore", integrate.IntegrationWarning)
        expected = _power_over_the_sd(n, effect, alpha)
    assert _t_power(n, effect, alpha) == pytest.approx(expected, rel=1e-7, abs=1e-13)


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 2000), st.floats(1e-100, 0.5))
def test_no_difference_has_power_alpha(n: int, alpha: float) -> None:
    """The integral itself (``paired_t_power`` answers alpha for a difference of 0
    without it)."""
    assert _t_power(n, 0.0, alpha) == pytest.approx(alpha, rel=1e-9)


alphas = st.floats(1e-40, 0.5)
effects = st.floats(0.0, 1e4)


@settings(max_examples=80, deadline=None)
@given(st.integers(2, 60), effects, effects, alphas)
def test_power_grows_with_the_effect(n: int, e1: float, e2: float, alpha: float) -> None:
    low, high = sorted((e1, e2))
    p_low, p_high = _t_power(n, low, alpha), _t_power(n, high, alpha)
    assert alpha * (1 - 1e-9) <= p_low <= p_high * (1 + 1e-9) + 1e-13
    assert p_high <= 1.0


@settings(max_examples=80, deadline=None)
@given(st.integers(2, 60), st.integers(2, 60), st.floats(0.0, 50.0), alphas)
def test_power_grows_with_the_topics(n1: int, n2: int, effect: float, alpha: float) -> None:
    few, many = sorted((n1, n2))
    assert _t_power(few, effect, alpha) <= _t_power(many, effect, alpha) * (1 + 1e-9) + 1e-13


@settings(max_examples=80, deadline=None)
@given(st.integers(2, 60), st.floats(0.0, 1e4), alphas, alphas)
def test_power_grows_with_alpha(n: int, effect: float, a1: float, a2: float) -> None:
    strict, loose = sorted((a1, a2))
    assert _t_power(n, effect, strict) <= _t_power(n, effect, loose) * (1 + 1e-9) + 1e-13


powers = st.floats(0.5, 0.995)


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 40), powers, powers, st.sampled_from([0.05, 1e-6, 1e-12, 1e-20]))
def test_mdd_grows_with_the_power(n: int, q1: float, q2: float, alpha: float) -> None:
    """Regression: at alpha = 1e-12 with 3 topics the MDD did not grow with the power."""
    low, high = sorted((q1, q2))
    mdd_low = minimum_detectable_difference(n, 1.0, alpha, low)
    mdd_high = minimum_detectable_difference(n, 1.0, alpha, high)
    assert mdd_low <= mdd_high * (1 + 1e-9)
    if high - low > 1e-6:
        assert mdd_low < mdd_high
    # the MDD is the difference detected with that power
    assert paired_t_power(n, mdd_high, 1.0, alpha) == pytest.approx(high, abs=1e-8)


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 40), st.integers(2, 40), powers, st.sampled_from([0.05, 1e-8, 1e-16]))
def test_mdd_shrinks_with_the_topics(n1: int, n2: int, power: float, alpha: float) -> None:
    few, many = sorted((n1, n2))
    assert minimum_detectable_difference(many, 1.0, alpha, power) <= (
        minimum_detectable_difference(few, 1.0, alpha, power) * (1 + 1e-9)
    )


@pytest.mark.parametrize("power", [0.5, 0.8, 0.9, 0.95, 0.99])
def test_mdd_of_three_topics_at_alpha_1e_12_solves_the_closed_form(power: float) -> None:
    mdd = minimum_detectable_difference(3, 1.0, alpha=1e-12, power=power)
    assert _closed_form_three_topics(mdd, 1e-12) == pytest.approx(power, abs=1e-9)


@pytest.mark.parametrize("n", [2, 3, 5, 20])
@pytest.mark.parametrize("alpha", [0.05, 1e-6, 1e-12, 1e-20, 1e-50, 1e-100])
@pytest.mark.parametrize("delta", [0.0, 0.01, 0.5, 5.0, 500.0])
def test_anova_of_two_systems_is_the_two_sample_t_test(n: int, alpha: float, delta: float) -> None:
    """Two algorithms: the ANOVA's Poisson mixture of incomplete beta functions, and the
    t-test's integral with 2(n - 1) degrees of freedom and noncentrality sqrt(n Delta)."""
    variance = 1.0
    min_difference = math.sqrt(2.0 * variance * delta)  # Delta = minD^2 / (2 sigma^2)
    if delta == 0.0:
        assert anova_power(n, 0.0, variance, systems=2, alpha=alpha) == alpha
        return
    got = anova_power(n, min_difference, variance, systems=2, alpha=alpha)
    twin = 2 * n - 1  # _t_power(n', e): df = n' - 1, noncentrality e sqrt(n')
    expected = _t_power(twin, math.sqrt(n * delta / twin), alpha)
    assert got == pytest.approx(expected, rel=1e-8, abs=1e-13)


def test_what_cannot_be_computed_precisely_is_refused() -> None:
    """A power that underflows towards the smallest floats: no number rather than a wrong
    one (one topic of freedom at alpha = 1e-300; the smallest float as alpha)."""
    with pytest.raises(OptionError, match="cannot be computed to a precision"):
        paired_t_power(2, 1.0, 1.0, alpha=1e-300)
    with pytest.raises(OptionError, match="cannot be computed to a precision"):
        paired_t_power(5, 1.0, 1.0, alpha=5e-324)
    with pytest.raises(OptionError, match="cannot be computed to a precision"):
        anova_power(5, 1.0, 1.0, systems=3, alpha=5e-324)


@pytest.mark.parametrize("alpha", [1e-6, 1e-12])
@pytest.mark.parametrize("variance", [0.01, 0.1])
def test_topic_set_size_at_extreme_alpha_is_the_smallest(alpha: float, variance: float) -> None:
    size = topic_set_size(0.05, variance, alpha=alpha, power=0.8)
    effect = 0.05 / math.sqrt(variance)
    assert _t_power(size, effect, alpha) >= 0.8
    if size > 2:
        assert _t_power(size - 1, effect, alpha) < 0.8


def test_every_answer_is_a_number_or_a_refusal() -> None:
    """Over a grid of tiny samples and levels: never nan, never outside [alpha, 1]."""
    seen: list[Any] = []
    for n in (2, 3, 4):
        for alpha in (1e-10, 1e-30, 1e-60, 1e-120):
            for effect in (1e-6, 1.0, 1e6, 1e12):
                try:
                    got = _t_power(n, effect, alpha)
                except OptionError:
                    seen.append(None)
                    continue
                assert not math.isnan(got) and alpha * (1 - 1e-9) <= got <= 1.0
                seen.append(got)
    assert any(v is not None for v in seen)
    assert np.all([v is None or v >= 0 for v in seen])
