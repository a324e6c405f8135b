"""Power, minimum detectable difference and topic set size design
(ranklens.analysis.stats.power), against statsmodels' exact power functions and solvers,
and against direct computations with scipy's noncentral distributions."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from statsmodels.stats.power import FTestAnovaPower, TTestPower

import ranklens
from ranklens import OptionError
from ranklens.analysis.stats.power import (
    anova_power,
    ci_expected_width,
    minimum_detectable_difference,
    paired_t_power,
    topic_set_size,
)

ALPHAS = (0.01, 0.05, 0.1)
POWERS = (0.7, 0.8, 0.9)


def _t_power_scipy(n: int, effect: float, alpha: float) -> float:
    """The paired t-test's power from scipy.stats.nct (not the functions ranklens uses)."""
    crit = stats.t.ppf(1 - alpha / 2, n - 1)
    nc = effect * math.sqrt(n)
    lower = stats.nct.cdf(-crit, n - 1, nc)  # nan far in the tail, where it is ~0
    return float(stats.nct.sf(crit, n - 1, nc) + np.nan_to_num(lower, nan=0.0))


def _smallest(meets, start: int = 2) -> int:
    n = start
    while not meets(n):
        n += 1
    return n


# ---------------------------------------------------------------------- paired t-test


@pytest.mark.parametrize("alpha", ALPHAS)
@pytest.mark.parametrize("power", POWERS)
@pytest.mark.parametrize(("min_diff", "variance"), [(0.05, 0.02), (0.1, 0.05), (0.02, 0.01)])
def test_paired_t_size_equals_statsmodels_solver(alpha, power, min_diff, variance):
    effect = min_diff / math.sqrt(variance)
    solved = TTestPower().solve_power(effect_size=effect, alpha=alpha, power=power)
    n = topic_set_size(min_diff, variance, alpha=alpha, power=power)
    assert n == math.ceil(solved - 1e-9)
    assert TTestPower().power(effect, n, alpha) >= power
    assert TTestPower().power(effect, n - 1, alpha) < power


@settings(max_examples=40, deadline=None)
@given(
    min_diff=st.floats(0.01, 0.5),
    variance=st.floats(0.001, 0.2),
    alpha=st.sampled_from(ALPHAS),
    power=st.floats(0.5, 0.95),
)
def test_paired_t_size_is_the_smallest_by_linear_search(min_diff, variance, alpha, power):
    effect = min_diff / math.sqrt(variance)
    n = topic_set_size(min_diff, variance, alpha=alpha, power=power, max_topics=100_000)
    if n > 3000:
        return  # the linear search below would be slow; the bisection is checked above
    assert n == _smallest(lambda k: _t_power_scipy(k, effect, alpha) >= power)


@pytest.mark.parametrize("n", [2, 5, 43, 200, 5000])
@pytest.mark.parametrize("effect", [0.05, 0.3, 1.0, 3.0])
def test_paired_t_power_equals_statsmodels_and_scipy_nct(n, effect):
    got = paired_t_power(n, effect * 0.1, 0.01, alpha=0.05)
    oracle = TTestPower().power(effect, n, 0.05)
    if not math.isnan(oracle):  # statsmodels is nan far in the tail (see below)
        assert got == pytest.approx(oracle, abs=1e-12)
    assert got == pytest.approx(_t_power_scipy(n, effect, 0.05), abs=1e-9)


def test_power_far_in_the_tail_is_not_nan():
    """scipy's nctdtr is nan far in the lower tail (statsmodels' power then is nan); the
    tail is negligible there, so the power is the upper tail alone."""
    effect = 0.5 / math.sqrt(0.001)
    assert paired_t_power(4, 0.5, 0.001, alpha=0.1) == pytest.approx(1.0)
    assert paired_t_power(2, 0.5, 0.001, alpha=0.1) == pytest.approx(
        stats.nct.sf(stats.t.isf(0.05, 1), 1, effect * math.sqrt(2)), abs=1e-12
    )
    assert topic_set_size(0.5, 0.001, alpha=0.1, power=0.5) == 2


def test_power_of_no_difference_is_alpha():
    assert paired_t_power(30, 0.0, 0.05, alpha=0.05) == 0.05
    assert anova_power(30, 0.0, 0.05, systems=4, alpha=0.01) == 0.01


def test_power_grows_with_topics_and_difference():
    powers = [paired_t_power(n, 0.05, 0.02) for n in (10, 20, 40, 80)]
    assert powers == sorted(powers)
    assert paired_t_power(40, 0.08, 0.02) > paired_t_power(40, 0.05, 0.02)


@pytest.mark.parametrize(("effect", "expected"), [(0.2, 199), (0.5, 34), (0.8, 15)])
def test_published_sizes_of_the_one_sample_t_test(effect, expected):
    """G*Power's one-sample (paired) t-test, two-tailed, alpha 0.05, power 0.8, for Cohen's
    small, medium and large effects: 199, 34 and 15."""
    assert topic_set_size(effect, 1.0) == expected


def test_published_size_of_the_one_way_anova():
    """G*Power's one-way ANOVA, f = 0.25, 3 groups, alpha 0.05, power 0.8: 159 in total,
    53 per group; here minD^2 = 2 m sigma^2 f^2."""
    assert topic_set_size(math.sqrt(2 * 3 * 0.25**2), 1.0, test="anova", systems=3) == 53


# --------------------------------------------------------------------------- ANOVA


def _f2(min_diff: float, variance: float, m: int) -> float:
    return min_diff**2 / (2 * m * variance)


@pytest.mark.parametrize("alpha", ALPHAS)
@pytest.mark.parametrize("power", POWERS)
@pytest.mark.parametrize("m", [2, 3, 5, 10, 30])
@pytest.mark.parametrize(("min_diff", "variance"), [(0.05, 0.02), (0.1, 0.05)])
def test_anova_size_equals_statsmodels_solver(alpha, power, m, min_diff, variance):
    f = math.sqrt(_f2(min_diff, variance, m))
    solved = FTestAnovaPower().solve_power(effect_size=f, alpha=alpha, power=power, k_groups=m)
    n = topic_set_size(min_diff, variance, alpha=alpha, power=power, test="anova", systems=m)
    assert FTestAnovaPower().power(f, n * m, alpha, m) >= power
    assert FTestAnovaPower().power(f, (n - 1) * m, alpha, m) < power
    assert n == math.ceil(solved / m - 1e-9)


@pytest.mark.parametrize("m", [2, 4, 12])
@pytest.mark.parametrize("n", [3, 20, 100])
def test_anova_power_equals_statsmodels_and_scipy_ncf(m, n):
    min_diff, variance = 0.1, 0.04
    got = anova_power(n, min_diff, variance, systems=m)
    f = math.sqrt(_f2(min_diff, variance, m))
    assert got == pytest.approx(FTestAnovaPower().power(f, n * m, 0.05, m), abs=1e-12)
    crit = stats.f.isf(0.05, m - 1, m * (n - 1))
    lam = n * min_diff**2 / (2 * variance)  # Sakai: lambda = n * Delta
    assert got == pytest.approx(stats.ncf.sf(crit, m - 1, m * (n - 1), lam), abs=1e-9)


def test_anova_with_two_systems_is_the_unpaired_t_test():
    """One-way ANOVA of 2 groups is the two-sample t-test (Sakai 2016, section 3.2)."""
    from statsmodels.stats.power import TTestIndPower

    min_diff, variance = 0.1, 0.05
    for n in (10, 50, 120):
        t_power = TTestIndPower().power(min_diff / math.sqrt(variance), n, 0.05)
        assert anova_power(n, min_diff, variance, systems=2) == pytest.approx(t_power, abs=1e-9)


# ----------------------------------------------------------------------------- CI


def _expected_width_by_simulation(n: int, variance: float, alpha: float) -> float:
    rng = np.random.default_rng(7)
    d = rng.normal(0.0, math.sqrt(2 * variance), size=(100_000, n))
    sd = d.std(axis=1, ddof=1)
    return float(np.mean(2 * stats.t.isf(alpha / 2, n - 1) * sd / math.sqrt(n)))


@pytest.mark.parametrize("n", [3, 10, 40])
def test_ci_expected_width_matches_simulation(n):
    """E[width] by simulation of normal differences with variance 2 sigma^2."""
    got = ci_expected_width(n, 0.03, alpha=0.05)
    assert got == pytest.approx(_expected_width_by_simulation(n, 0.03, 0.05), rel=5e-3)


@pytest.mark.parametrize("alpha", ALPHAS)
@pytest.mark.parametrize(("width", "variance"), [(0.05, 0.02), (0.1, 0.05), (0.2, 0.01)])
def test_ci_size_is_the_smallest_meeting_the_width(alpha, width, variance):
    def expected(n: int) -> float:  # written out with scipy.special.gamma
        from scipy.special import gamma

        c = math.sqrt(2 / (n - 1)) * gamma(n / 2) / gamma((n - 1) / 2) if n < 300 else None
        if c is None:  # gamma overflows: use the log-gamma form
            from scipy.special import gammaln

            c = math.sqrt(2 / (n - 1)) * math.exp(gammaln(n / 2) - gammaln((n - 1) / 2))
        return 2 * stats.t.isf(alpha / 2, n - 1) * c * math.sqrt(2 * variance / n)

    n = topic_set_size(width, variance, alpha=alpha, test="ci")
    assert n == _smallest(lambda k: expected(k) <= width)


# -------------------------------------------------------- minimum detectable difference


@pytest.mark.parametrize("n", [5, 25, 43, 300])
@pytest.mark.parametrize("power", POWERS)
def test_mdd_equals_statsmodels_effect_size(n, power):
    sd = 0.17
    mdd = minimum_detectable_difference(n, sd, alpha=0.05, power=power)
    solved = TTestPower().solve_power(nobs=n, alpha=0.05, power=power)
    assert mdd == pytest.approx(sd * solved, rel=2e-5)  # statsmodels solves to ~1e-6
    assert paired_t_power(n, mdd, sd**2) == pytest.approx(power, abs=1e-10)


def test_mdd_edges():
    assert minimum_detectable_difference(10, 0.0) == 0.0
    assert minimum_detectable_difference(10, 0.2, alpha=0.1, power=0.05) == 0.0


def test_mdd_and_size_agree():
    """The size needed for the MDD of n topics is n."""
    for n in (12, 50, 137):
        mdd = minimum_detectable_difference(n, 0.2) * (1 + 1e-9)
        assert topic_set_size(mdd, 0.04) == n


# ------------------------------------------------------------------------- errors


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"min_difference": 0.0, "variance": 0.1}, "min_difference must be"),
        ({"min_difference": 0.1, "variance": -1.0}, "variance must be"),
        ({"min_difference": 0.1, "variance": 0.1, "power": 1.0}, "power must be"),
        ({"min_difference": 0.1, "variance": 0.1, "alpha": 0.0}, "alpha must be"),
        ({"min_difference": 0.1, "variance": 0.1, "test": "z"}, "test must be one of"),
        ({"min_difference": 0.1, "variance": 0.1, "test": "anova"}, "needs systems"),
        (
            {"min_difference": 0.1, "variance": 0.1, "test": "anova", "systems": 1},
            "systems must be",
        ),
        ({"min_difference": 0.1, "variance": 0.1, "systems": 3}, 'for test="anova" only'),
        (
            {"min_difference": 1e-6, "variance": 0.1, "max_topics": 1000},
            "more than 1000 topics",
        ),
    ],
)
def test_errors(kwargs, message):
    with pytest.raises(OptionError, match=message):
        topic_set_size(**kwargs)


def test_top_level_export():
    assert ranklens.topic_set_size is topic_set_size
    assert topic_set_size(10.0, 0.01) == 2
