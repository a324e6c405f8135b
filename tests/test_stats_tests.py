"""Paired t, Wilcoxon and sign tests against scipy, the effect size against its formula."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.stats as st
from hypothesis import given, settings
from hypothesis import strategies as hs

from ranklens.analysis.stats import (
    paired_cohens_d,
    sign_test,
    t_interval,
    t_test,
    wilcoxon_test,
    wins_ties_losses,
)
from ranklens.base.errors import InputError, OptionError


def _pairs(seed: int, n: int, discrete: bool) -> tuple[np.ndarray, np.ndarray]:
    """Two systems' per-query values; discrete ones have ties and zero differences."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(0, 1, n)
    y = np.clip(x + rng.normal(0.03, 0.15, n), 0, 1)
    if discrete:
        x, y = np.round(x * 5) / 5, np.round(y * 5) / 5
    return x, y


CASES = [
    (seed, n, discrete)
    for seed in range(4)
    for n in (5, 12, 30, 49, 80, 500)
    for discrete in (False, True)
]


@pytest.mark.parametrize("seed,n,discrete", CASES)
def test_t_test_equals_scipy_ttest_rel(seed: int, n: int, discrete: bool) -> None:
    x, y = _pairs(seed, n, discrete)
    if np.all(x - y == (x - y)[0]):
        pytest.skip("constant differences: scipy returns nan")
    ref = st.ttest_rel(x, y)
    res = t_test(x - y)
    assert float(res.statistic) == pytest.approx(ref.statistic, rel=1e-10, abs=1e-12)
    assert float(res.p_value) == pytest.approx(ref.pvalue, rel=1e-9, abs=1e-15)
    for level in (0.9, 0.95, 0.99):
        low, high = t_interval(x - y, level)
        ci = ref.confidence_interval(level)
        assert float(low) == pytest.approx(ci.low, rel=1e-10, abs=1e-12)
        assert float(high) == pytest.approx(ci.high, rel=1e-10, abs=1e-12)


@pytest.mark.parametrize("seed,n,discrete", CASES)
def test_wilcoxon_equals_scipy(seed: int, n: int, discrete: bool) -> None:
    x, y = _pairs(seed, n, discrete)
    if np.all(x == y):
        pytest.skip("no non-zero difference")
    ref = st.wilcoxon(x, y, zero_method="wilcox")
    res = wilcoxon_test(x - y)
    assert float(res.statistic) == pytest.approx(ref.statistic)
    assert float(res.p_value) == pytest.approx(ref.pvalue, rel=1e-12)


@pytest.mark.parametrize("seed,n,discrete", CASES)
def test_sign_test_equals_scipy_binomtest(seed: int, n: int, discrete: bool) -> None:
    x, y = _pairs(seed, n, discrete)
    wins, losses = int(np.sum(x > y)), int(np.sum(x < y))
    res = sign_test(x - y)
    expected = st.binomtest(wins, wins + losses, 0.5).pvalue if wins + losses else 1.0
    assert float(res.p_value) == pytest.approx(expected, rel=1e-12)
    assert float(res.statistic) == wins


def test_columns_are_tested_independently() -> None:
    columns = [_pairs(s, 40, s % 2 == 0) for s in range(5)]
    d = np.column_stack([x - y for x, y in columns])
    for fn in (t_test, wilcoxon_test, sign_test):
        together = fn(d)
        assert together.p_value.shape == (5,)
        for j in range(5):
            alone = fn(d[:, j])
            assert alone.p_value.shape == ()
            assert float(alone.p_value) == pytest.approx(together.p_value[j], rel=1e-12)


def test_all_zero_differences_have_p_one() -> None:
    zeros = np.zeros(10)
    assert float(t_test(zeros).p_value) == 1.0
    assert float(t_test(zeros).statistic) == 0.0
    assert float(wilcoxon_test(zeros).p_value) == 1.0
    assert float(sign_test(zeros).p_value) == 1.0
    low, high = t_interval(zeros)
    assert (float(low), float(high)) == (0.0, 0.0)


def test_constant_non_zero_differences() -> None:
    d = np.full(8, -0.25)
    res = t_test(d)
    assert float(res.statistic) == -math.inf
    assert float(res.p_value) == 0.0
    low, high = t_interval(d)
    assert float(low) == float(high) == -0.25
    assert float(paired_cohens_d(d)) == -math.inf
    assert float(paired_cohens_d(np.zeros(3))) == 0.0


@pytest.mark.parametrize("seed", range(5))
def test_effect_size_is_mean_over_sd(seed: int) -> None:
    x, y = _pairs(seed, 60, seed % 2 == 1)
    d = x - y
    expected = d.mean() / d.std(ddof=1)
    assert float(paired_cohens_d(d)) == pytest.approx(expected, rel=1e-12)
    # d_z = t / sqrt(n)
    assert float(paired_cohens_d(d)) == pytest.approx(
        st.ttest_rel(x, y).statistic / math.sqrt(60), rel=1e-10
    )


def test_wins_ties_losses_are_exact_comparisons() -> None:
    d = np.array([[0.1, 0.0], [0.0, 0.0], [-1e-17, 0.2], [0.3, -0.2]])
    wins, ties, losses = wins_ties_losses(d)
    assert wins.tolist() == [2, 1]
    assert ties.tolist() == [1, 2]
    assert losses.tolist() == [1, 1]


def test_inputs_are_checked_and_not_mutated() -> None:
    with pytest.raises(InputError, match="at least 2 queries"):
        t_test([0.5])
    with pytest.raises(InputError, match="finite"):
        t_test([0.5, math.nan, 0.1])
    with pytest.raises(InputError, match="dimensions"):
        wilcoxon_test(np.zeros((2, 2, 2)))
    with pytest.raises(OptionError, match="confidence"):
        t_interval([0.1, 0.2], confidence=95)
    d = np.array([0.3, -0.1, 0.2])
    before = d.copy()
    t_test(d)
    wilcoxon_test(d)
    sign_test(d)
    paired_cohens_d(d)
    assert np.array_equal(d, before)


@settings(max_examples=60, deadline=None)
@given(
    hs.lists(
        hs.sampled_from([-1.0, -0.5, -0.25, 0.0, 0.0, 0.25, 0.5, 1.0]), min_size=2, max_size=40
    )
)
def test_p_values_are_probabilities_and_symmetric(values: list[float]) -> None:
    d = np.array(values)
    for fn in (t_test, wilcoxon_test, sign_test):
        p = float(fn(d).p_value)
        assert 0.0 <= p <= 1.0
        assert float(fn(-d).p_value) == pytest.approx(p, rel=1e-9)
