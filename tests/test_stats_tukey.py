"""Tukey's HSD against scipy and statsmodels; rank correlation of orderings against scipy
and a count of concordant pairs."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
import scipy.stats as st
import statsmodels.formula.api as smf

from ranklens.analysis.stats import system_correlation, t_test, tukey_hsd
from ranklens.base.errors import InputError, OptionError


def _values(seed: int, n: int, k: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    topic = rng.uniform(0, 1, size=(n, 1))
    return np.clip(topic + 0.04 * np.arange(k) + rng.normal(0, 0.1, size=(n, k)), 0, 1)


@pytest.mark.parametrize("seed,n,k", [(0, 10, 3), (1, 43, 2), (2, 50, 5), (3, 200, 4)])
@pytest.mark.parametrize("level", [0.95, 0.9])
def test_one_way_equals_scipy_tukey_hsd(seed: int, n: int, k: int, level: float) -> None:
    x = _values(seed, n, k)
    ref = st.tukey_hsd(*x.T)
    res = tukey_hsd(x, confidence=level)
    np.testing.assert_allclose(res.statistic, ref.statistic, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(res.p_value, ref.pvalue, rtol=1e-9, atol=1e-15)
    ci = ref.confidence_interval(level)
    np.testing.assert_allclose(res.ci_low, ci.low, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(res.ci_high, ci.high, rtol=1e-9, atol=1e-12)
    assert res.df == k * (n - 1) and not res.blocked


@pytest.mark.parametrize("seed,n,k", [(0, 10, 3), (2, 30, 5)])
def test_blocked_uses_the_two_way_anova_error_term(seed: int, n: int, k: int) -> None:
    x = _values(seed, n, k)
    data = pd.DataFrame(
        {
            "y": x.ravel(),
            "run": np.tile(np.arange(k), n).astype(str),
            "query": np.repeat(np.arange(n), k).astype(str),
        }
    )
    fit = smf.ols("y ~ C(run) + C(query)", data=data).fit()
    res = tukey_hsd(x, blocked=True)
    assert res.blocked
    assert res.df == pytest.approx(fit.df_resid)
    assert res.mse == pytest.approx(fit.mse_resid, rel=1e-9)
    se = math.sqrt(fit.mse_resid / n)
    means = x.mean(axis=0)
    for i, j in itertools.combinations(range(k), 2):
        q = abs(means[i] - means[j]) / se
        expected = st.studentized_range.sf(q, k, fit.df_resid)
        assert res.p_value[i, j] == pytest.approx(expected, rel=1e-8, abs=1e-14)
        assert res.p_value[j, i] == res.p_value[i, j]
        crit = st.studentized_range.ppf(0.95, k, fit.df_resid)
        assert res.ci_high[i, j] - res.ci_low[i, j] == pytest.approx(2 * crit * se, rel=1e-9)
    # the residual error of the blocked design is much smaller than the one-way one
    assert res.mse < tukey_hsd(x).mse


def test_blocked_with_two_systems_is_the_paired_t_test() -> None:
    x = _values(4, 40, 2)
    res = tukey_hsd(x, blocked=True)
    assert res.p_value[0, 1] == pytest.approx(float(t_test(x[:, 1] - x[:, 0]).p_value), rel=1e-6)


def test_tukey_degenerate_and_bad_input() -> None:
    x = np.tile([0.1, 0.3, 0.3], (5, 1))  # no variance at all
    res = tukey_hsd(x, blocked=True)
    assert res.p_value[0, 1] == 0.0 and res.p_value[1, 2] == 1.0
    with pytest.raises(InputError, match="2 systems"):
        tukey_hsd([0.1, 0.2, 0.3])
    with pytest.raises(OptionError, match="confidence"):
        tukey_hsd(x, confidence=0)


def _concordance(a: list[float], b: list[float]) -> float:
    """Kendall's tau-a by counting pairs (no ties in the inputs used)."""
    pairs = list(itertools.combinations(range(len(a)), 2))
    score = sum(np.sign(a[i] - a[j]) * np.sign(b[i] - b[j]) for i, j in pairs)
    return float(score / len(pairs))


@pytest.mark.parametrize("seed", range(6))
def test_correlation_equals_scipy_and_pair_counting(seed: int) -> None:
    rng = np.random.default_rng(seed)
    k = int(rng.integers(3, 15))
    a = rng.uniform(0, 1, k)
    b = a + rng.normal(0, 0.2, k)
    res = system_correlation(a, b)
    assert res.kendall_tau == pytest.approx(_concordance(a.tolist(), b.tolist()), abs=1e-12)
    tau = st.kendalltau(a, b)
    rho = st.spearmanr(a, b)
    assert (res.kendall_tau, res.kendall_p) == pytest.approx((tau.statistic, tau.pvalue))
    assert (res.spearman_rho, res.spearman_p) == pytest.approx((rho.statistic, rho.pvalue))
    assert res.systems == k


def test_correlation_with_ties_is_tau_b() -> None:
    a, b = [0.1, 0.2, 0.2, 0.4], [0.3, 0.1, 0.5, 0.6]
    assert system_correlation(a, b).kendall_tau == pytest.approx(
        st.kendalltau(a, b, variant="b").statistic
    )


def test_correlation_edge_cases() -> None:
    res = system_correlation([0.2, 0.2, 0.2], [0.1, 0.2, 0.3])
    assert math.isnan(res.kendall_tau) and math.isnan(res.spearman_p)
    assert system_correlation([1, 2, 3], [3, 2, 1]).kendall_tau == pytest.approx(-1.0)
    with pytest.raises(InputError, match="at least 3 systems"):
        system_correlation([0.1, 0.2], [0.2, 0.1])
    with pytest.raises(InputError, match="same length"):
        system_correlation([0.1, 0.2, 0.3], [0.2, 0.1])
