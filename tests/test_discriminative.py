"""Discriminative power (ASLs by paired bootstrap and randomised Tukey HSD), swap rates
and the variance estimate for topic set size design: against direct loop implementations
on the same draws, statsmodels' ANOVA, simulation under the null, seeds and threads."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from threadpoolctl import threadpool_limits

import ranklens
from ranklens.analysis.stats._draws import generator, resample_counts
from ranklens.analysis.stats.discriminative import (
    SPLITS,
    _permutation_chunks,
    bootstrap_asl,
    randomised_tukey_asl,
    swap_rates,
)
from ranklens.analysis.topics import (
    discriminative_power,
    residual_variance,
    swap_rate,
    variance_from,
)
from ranklens.base.errors import InputError, OptionError
from ranklens.data.examples import example_paths
from ranklens.evaluation.results import Results
from ranklens.measures import parse_measures


def _matrix(n: int = 15, m: int = 4, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    topic = rng.uniform(0.1, 0.7, (n, 1))
    system = np.linspace(0, 0.15, m)[None, :]
    return np.clip(topic + system + rng.normal(0, 0.1, (n, m)), 0, 1)


def _loop_bootstrap(x: np.ndarray, b: int, seed: int, alpha: float):
    """ASL and required difference of every pair, one resample and one pair at a time."""
    n, m = x.shape
    counts = np.vstack(list(resample_counts(n, b, seed)))
    asl, required = [], []
    for i in range(m):
        for j in range(i + 1, m):
            d = x[:, j] - x[:, i]
            t_obs = d.mean() / (d.std(ddof=1) / math.sqrt(n))
            z = d - d.mean()
            hits, ts = 0, []
            for r in range(b):
                sample = np.repeat(z, counts[r].astype(int))
                sd = sample.std(ddof=1)
                mean = sample.mean()
                flat = math.inf if mean != 0 else 0.0  # all values equal
                t = abs(mean / (sd / math.sqrt(n))) if sd > 0 else flat
                hits += t >= abs(t_obs) * (1 - 1e-9)
                ts.append((-t, r, abs(mean)))
            asl.append((hits + 1) / (b + 1))
            ts.sort()
            required.append(ts[math.floor(b * alpha)][2])
    return np.array(asl), np.array(required)


def _loop_tukey(x: np.ndarray, b: int, seed: int):
    n, m = x.shape
    perms = np.vstack(_permutation_chunks(n, m, b, seed))
    means = x.mean(axis=0)
    ranges = []
    for r in range(b):
        permuted = np.array([[x[q, perms[r, q, s]] for s in range(m)] for q in range(n)])
        pm = permuted.mean(axis=0)
        ranges.append(pm.max() - pm.min())
    asl = []
    for i in range(m):
        for j in range(i + 1, m):
            diff = abs(means[j] - means[i])
            asl.append((sum(rg >= diff * (1 - 1e-9) for rg in ranges) + 1) / (b + 1))
    return np.array(asl), sorted(ranges, reverse=True)


@pytest.mark.parametrize(("n", "m", "seed"), [(8, 3, 0), (15, 4, 1), (31, 3, 2)])
def test_bootstrap_asl_equals_a_direct_loop(n, m, seed) -> None:
    x = _matrix(n, m, seed)
    res = bootstrap_asl(x, resamples=300, seed=seed + 10, alpha=0.05)
    asl, required = _loop_bootstrap(x, 300, seed + 10, 0.05)
    np.testing.assert_array_equal(res.asl, asl)
    np.testing.assert_allclose(res.required, required, rtol=1e-9, atol=1e-12)
    means = x.mean(axis=0)
    np.testing.assert_allclose(res.delta, means[res.second] - means[res.first], atol=1e-15)


def test_bootstrap_asl_equals_bootstrap_test() -> None:
    x = _matrix(20, 5, 3)
    res = bootstrap_asl(x, resamples=500, seed=4)
    d = x[:, res.second] - x[:, res.first]
    np.testing.assert_array_equal(res.asl, ranklens_bootstrap_p(d, 500, 4))


def ranklens_bootstrap_p(d: np.ndarray, b: int, seed: int) -> np.ndarray:
    from ranklens.analysis.stats import bootstrap_test

    return bootstrap_test(d, b, seed).p_value


@pytest.mark.parametrize(("n", "m", "seed"), [(6, 3, 0), (12, 5, 1)])
def test_tukey_asl_equals_a_direct_loop(n, m, seed) -> None:
    x = _matrix(n, m, seed)
    res = randomised_tukey_asl(x, resamples=200, seed=seed, alpha=0.05)
    asl, ranges = _loop_tukey(x, 200, seed)
    np.testing.assert_array_equal(res.asl, asl)
    assert res.critical_range == pytest.approx(ranges[math.floor(200 * 0.05)], abs=1e-12)


def test_type_one_errors_under_the_null() -> None:
    """Under the null (systems exchangeable within each topic), the bootstrap's per-pair
    rejection rate and the randomised HSD's family-wise rate stay near alpha."""
    rng = np.random.default_rng(11)
    boot_rejections = tukey_any = 0
    datasets = 150
    for k in range(datasets):
        x = rng.uniform(0, 0.5, (30, 1)) + rng.normal(0, 0.1, (30, 4))
        boot_rejections += int(bootstrap_asl(x, 200, seed=k).asl[0] <= 0.05)
        tukey_any += int(np.any(randomised_tukey_asl(x, 200, seed=k).asl <= 0.05))
    assert 0.01 <= boot_rejections / datasets <= 0.12
    assert 0.01 <= tukey_any / datasets <= 0.12


def test_seeds_and_threads() -> None:
    x = _matrix(40, 6, 5)
    a = bootstrap_asl(x, 400, seed=1)
    with threadpool_limits(limits=1):
        b = bootstrap_asl(x, 400, seed=1)
        t1 = randomised_tukey_asl(x, 300, seed=1)
        s1 = swap_rates(x, [5, 10], trials=30, seed=1)
    np.testing.assert_array_equal(a.asl, b.asl)
    np.testing.assert_array_equal(a.required, b.required)
    t2 = randomised_tukey_asl(x, 300, seed=1)
    np.testing.assert_array_equal(t1.asl, t2.asl)
    s2 = swap_rates(x, [5, 10], trials=30, seed=1)
    np.testing.assert_array_equal(s1.swaps, s2.swaps)
    assert not np.array_equal(bootstrap_asl(x, 400, seed=2).asl, a.asl)


def test_swap_rates_equal_a_direct_loop() -> None:
    x = _matrix(24, 4, 6)
    res = swap_rates(x, [3, 6, 12], trials=25, bin_width=0.02, bins=6, seed=9)
    rng = generator(9, SPLITS)
    n, m = x.shape
    for row, c in enumerate([3, 6, 12]):
        order = np.argsort(rng.random((25, n)), axis=1, kind="stable")
        swaps, counts = np.zeros(6, int), np.zeros(6, int)
        for t in range(25):
            one, two = order[t, :c], order[t, c : 2 * c]
            for i in range(m):
                for j in range(i + 1, m):
                    d1 = x[one, j].sum() / c - x[one, i].sum() / c
                    d2 = x[two, j].sum() / c - x[two, i].sum() / c
                    if d1 == 0:
                        continue
                    k = min(int(abs(d1) / 0.02), 5)
                    counts[k] += 1
                    swaps[k] += d1 * d2 < 0
        np.testing.assert_array_equal(res.counts[row], counts)
        np.testing.assert_array_equal(res.swaps[row], swaps)
    assert res.counts.sum() == 3 * 25 * 6  # no tie on the first set in this data


def test_swap_rates_fall_with_more_topics() -> None:
    x = _matrix(200, 6, 7)
    res = swap_rates(x, [5, 50], trials=200, bin_width=1.0, bins=1)
    low, high = res.rates[:, 0]
    assert high < low


def test_residual_variance_equals_statsmodels_two_way_anova() -> None:
    import pandas as pd
    import statsmodels.formula.api as smf
    from statsmodels.stats.anova import anova_lm

    x = _matrix(12, 5, 8)
    frame = pd.DataFrame(
        [(f"t{i}", f"s{j}", x[i, j]) for i in range(12) for j in range(5)],
        columns=["topic", "system", "value"],
    )
    table = anova_lm(smf.ols("value ~ C(topic) + C(system)", frame).fit())
    expected = float(table.loc["Residual", "mean_sq"])
    assert residual_variance(x) == pytest.approx(expected, rel=1e-10)
    assert variance_from(x, test="anova") == variance_from(x, test="ci") == residual_variance(x)
    assert variance_from(x) == 2 * residual_variance(x)


def _results(x: np.ndarray, measure: str = "AP") -> list[Results]:
    measures = tuple(parse_measures([measure]))
    qids = tuple(f"q{i:03d}" for i in range(x.shape[0]))
    return [Results(f"r{j}", measures, qids, x[:, [j]].copy()) for j in range(x.shape[1])]


def test_with_two_systems_sigma_t_is_the_variance_of_the_differences() -> None:
    """Two systems: the doubled residual variance is exactly the sample variance of the
    per-topic differences (the sigma_t^2 of the paired t-test)."""
    x = _matrix(17, 2, 13)
    assert variance_from(x) == pytest.approx(np.var(x[:, 1] - x[:, 0], ddof=1), rel=1e-12)


def test_variance_from_results_uses_the_common_topics() -> None:
    x = _matrix(10, 3, 9)
    res = _results(x)
    assert variance_from(res, "AP") == pytest.approx(2 * residual_variance(x))
    # a run with one topic fewer: only the 9 common topics count
    short = Results("r3", res[0].measures, res[0].queries[:9], x[:9, [0]].copy())
    got = variance_from([*res, short], "AP", test="anova")
    assert got == pytest.approx(residual_variance(np.column_stack([x[:9], x[:9, 0]])))
    with pytest.raises(OptionError, match="test must be one of"):
        variance_from(res, test="z")


def test_discriminative_power_api() -> None:
    x = _matrix(25, 4, 10)
    dp = discriminative_power(_results(x), resamples=300, seed=3)
    assert dp.pairs == (
        ("r0", "r1"),
        ("r0", "r2"),
        ("r0", "r3"),
        ("r1", "r2"),
        ("r1", "r3"),
        ("r2", "r3"),
    )
    boot = bootstrap_asl(x, 300, 3)
    np.testing.assert_array_equal(dp.bootstrap["AP"].asl, boot.asl)
    assert dp.power("AP") == np.mean(boot.asl <= 0.05)
    assert dp.power("AP", "tukey") == np.mean(randomised_tukey_asl(x, 300, 3).asl <= 0.05)
    assert dp.required_difference("AP") == boot.required.max()
    payload = json.loads(json.dumps(dp.to_dict(), allow_nan=False))
    assert len(payload["pairs"]) == 6 and payload["summary"][0]["measure"] == "AP"
    with pytest.raises(OptionError, match="method must be"):
        dp.power("AP", "nope")
    seen: list[tuple[int, int]] = []
    again = discriminative_power(
        _results(x), resamples=300, seed=3, progress=lambda d, t: seen.append((d, t))
    )
    assert seen == [(1, 2), (2, 2)]
    np.testing.assert_array_equal(again.tukey["AP"].asl, dp.tukey["AP"].asl)


def test_discriminative_power_on_the_example() -> None:
    qrels, runs = example_paths()
    res = [ranklens.evaluate(qrels, r, ["nDCG@10", "AP"]) for r in runs]
    dp = ranklens.discriminative_power(res, resamples=500)
    assert dp.measures == ("nDCG@10", "AP") and dp.topics == 43
    assert dp.power("AP") == 1.0  # rerank is clearly better (p ~ 1e-7 by the t-test)


def test_plots() -> None:
    pytest.importorskip("matplotlib")
    x = _matrix(30, 4, 12)
    dp = discriminative_power(_results(x), resamples=200)
    fig = dp.plot()
    assert len(fig.axes[0].lines) == 2  # one curve + the alpha line
    sr = swap_rate(_results(x), "AP", [5, 10], trials=20)
    fig = sr.plot()
    assert len(fig.axes[0].lines) == 2
    assert sr.to_records()[0]["topics"] == 5


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: bootstrap_asl([[0.1, 0.2]]), InputError, "at least 2 topics"),
        (lambda: bootstrap_asl([[0.1, np.nan], [0.1, 0.2]]), InputError, "finite"),
        (lambda: bootstrap_asl(_matrix(), resamples=0), OptionError, "resamples"),
        (lambda: randomised_tukey_asl(_matrix(), seed=-1), OptionError, "seed"),
        (lambda: swap_rates(_matrix(10, 3), [6]), OptionError, "between 1 and half"),
        (lambda: swap_rates(_matrix(10, 3), bin_width=0), OptionError, "bin_width"),
        (lambda: discriminative_power([]), OptionError, "at least 2 runs"),
    ],
)
def test_errors(call, error, message) -> None:
    with pytest.raises(error, match=message):
        call()
