"""The randomization and bootstrap tests: against exact enumerations and scipy's bootstrap,
reproducible (same seed, any thread count, any set of columns), never p = 0."""

from __future__ import annotations

import itertools
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.stats as st

from ranklens.analysis.stats import bootstrap_interval, bootstrap_test, randomization_test
from ranklens.analysis.stats._draws import fixed_point, resample_counts, rows_per_chunk, sign_flips
from ranklens.base.errors import OptionError

SRC = Path(__file__).resolve().parents[1] / "src"


def _exact_randomization_p(d: np.ndarray) -> float:
    """The p-value over all 2**n sign flips (d holds integers: exact ties)."""
    n = d.shape[0]
    signs = np.array(list(itertools.product((1, -1), repeat=n)), dtype=np.int64)
    sums = signs @ d.astype(np.int64)
    return float(np.mean(np.abs(sums) >= abs(int(d.sum()))))


RANDOMIZATION_CASES = [
    np.array([3, 1, -2, 4, 0, 2, 5, -1]),
    np.array([1, 1, 1, -1, 1, 1, 0, 0, 1, -1, 1, 1]),  # many ties, zeros
    np.array([2, -3, 1, 4, -2, 2, 1, 3, -1, 0, 2]),
    np.array([5, 4, 6, 7, 3, 5, 6]),  # tiny exact p
    np.array([1, -1, 2, -2, 3, -3, 1, -1, 0, 0]),  # observed sum 0: p = 1
]


@pytest.mark.parametrize("index", range(len(RANDOMIZATION_CASES)))
def test_randomization_matches_exact_enumeration(index: int) -> None:
    ints = RANDOMIZATION_CASES[index]
    exact = _exact_randomization_p(ints)
    b = 40_000
    for scale in (1.0, 0.1):  # integer and decimal differences (0.1 * k is not exact)
        p = float(randomization_test(ints * scale, permutations=b, seed=index).p_value)
        expected = exact + (1 - exact) / (b + 1)  # E[(count + 1) / (B + 1)]
        tolerance = 5 * math.sqrt(exact * (1 - exact) / b) + 2 / b
        assert abs(p - expected) <= tolerance, (p, exact)


def test_randomization_observed_zero_gives_p_one() -> None:
    d = np.array([0.5, -0.5, 0.25, -0.25])
    assert float(randomization_test(d, permutations=500).p_value) == 1.0
    assert float(randomization_test(np.zeros(6), permutations=500).p_value) == 1.0


def test_randomization_never_zero() -> None:
    d = np.full(200, 0.3)  # all differences agree: no flip reaches the observed sum
    res = randomization_test(d, permutations=999, seed=3)
    assert float(res.p_value) == 1 / 1000
    assert float(res.statistic) == pytest.approx(0.3)


def _t(z: np.ndarray) -> np.ndarray:
    """t of each row, with the documented convention for constant rows."""
    n = z.shape[1]
    mean = z.mean(axis=1)
    sd = z.std(axis=1, ddof=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = mean / (sd / math.sqrt(n))
    return np.where(sd > 0, t, np.where(mean == 0, 0.0, np.copysign(np.inf, mean)))


@pytest.mark.parametrize(
    "d",
    [
        np.array([0.31, -0.12, 0.05, 0.22, 0.4, -0.07]),
        np.array([0.1, 0.1, -0.2, 0.3, 0.05, 0.0]),
        np.array([0.5, -0.45, 0.2, -0.1, 0.0, 0.05]),
    ],
)
def test_bootstrap_test_matches_exact_enumeration(d: np.ndarray) -> None:
    """The shift-method p-value over all n**n resamples of the centred differences."""
    n = d.shape[0]
    z = d - d.mean()
    index = np.array(list(itertools.product(range(n), repeat=n)))
    t_star = _t(z[index])
    t_obs = abs(float(_t(d[None, :])[0]))
    exact = float(np.mean(np.abs(t_star) >= t_obs * (1 - 1e-9)))
    b = 40_000
    res = bootstrap_test(d, resamples=b, seed=11)
    expected = exact + (1 - exact) / (b + 1)
    tolerance = 5 * math.sqrt(exact * (1 - exact) / b) + 2 / b
    assert abs(float(res.p_value) - expected) <= tolerance, (float(res.p_value), exact)
    assert float(res.statistic) == pytest.approx(st.ttest_1samp(d, 0).statistic, rel=1e-10)
    # the interval: quantiles of the exact bootstrap distribution of the mean
    means = np.sort(d[index].mean(axis=1))
    lo, hi = np.quantile(means, [0.025, 0.975])
    spread = d.std(ddof=1) / math.sqrt(n)
    assert abs(float(res.ci_low) - lo) < 0.1 * spread
    assert abs(float(res.ci_high) - hi) < 0.1 * spread


@pytest.mark.parametrize("seed,n,level", [(0, 25, 0.95), (1, 60, 0.9), (2, 200, 0.99)])
def test_bootstrap_interval_matches_scipy_bootstrap(seed: int, n: int, level: float) -> None:
    rng = np.random.default_rng(seed)
    a = rng.uniform(0, 1, n)
    b = np.clip(a + rng.normal(0.05, 0.2, n), 0, 1)
    resamples = 20_000
    ref = st.bootstrap(
        (b, a),
        lambda x, y, axis: np.mean(x - y, axis=axis),
        paired=True,
        method="percentile",
        confidence_level=level,
        n_resamples=resamples,
        rng=np.random.default_rng(seed + 100),
    ).confidence_interval
    low, high = bootstrap_interval(b - a, resamples=resamples, seed=seed, confidence=level)
    # Monte-Carlo error of a percentile: about 3 * se / sqrt(B) per estimate; allow ~6 sd
    se = (b - a).std(ddof=1) / math.sqrt(n)
    tolerance = 0.15 * se
    assert abs(float(low) - ref.low) < tolerance
    assert abs(float(high) - ref.high) < tolerance


def test_bootstrap_degenerate_cases() -> None:
    zero = bootstrap_test(np.zeros(5), resamples=99)
    assert float(zero.p_value) == 1.0
    assert (float(zero.ci_low), float(zero.ci_high)) == (0.0, 0.0)
    same = bootstrap_test(np.full(5, 0.2), resamples=99)
    assert float(same.p_value) == 1 / 100
    assert float(same.ci_low) == float(same.ci_high) == pytest.approx(0.2)


def _data(seed: int = 5, n: int = 300, k: int = 6) -> np.ndarray:
    rng = np.random.default_rng(seed)
    d = rng.normal(0.02, 0.2, size=(n, k))
    d[:, ::2] = np.round(d[:, ::2] * 10) / 10  # discrete columns: ties everywhere
    return d


def test_same_seed_same_results_and_seed_matters() -> None:
    d = _data()
    for fn in (randomization_test, bootstrap_test):
        first, again = fn(d, 2000, 9), fn(d, 2000, 9)
        assert np.array_equal(first.p_value, again.p_value)
        other = fn(d, 2000, 10)
        assert not np.array_equal(first.p_value, other.p_value)
    a, b = bootstrap_test(d, 2000, 9), bootstrap_test(d, 2000, 9)
    assert np.array_equal(a.ci_low, b.ci_low) and np.array_equal(a.ci_high, b.ci_high)


def test_results_do_not_depend_on_the_other_columns() -> None:
    """The draws are shared: a column gives the same numbers alone, with others, reordered."""
    d = _data()
    together_r = randomization_test(d, 3000, 4)
    together_b = bootstrap_test(d, 3000, 4)
    order = [3, 0, 5, 1, 4, 2]
    shuffled_r = randomization_test(d[:, order], 3000, 4)
    shuffled_b = bootstrap_test(d[:, order], 3000, 4)
    assert np.array_equal(shuffled_r.p_value, together_r.p_value[order])
    assert np.array_equal(shuffled_b.ci_low, together_b.ci_low[order])
    for j in (0, 3):
        alone = bootstrap_test(d[:, j], 3000, 4)
        assert float(alone.p_value) == together_b.p_value[j]
        assert float(alone.ci_high) == together_b.ci_high[j]
        assert float(randomization_test(d[:, j], 3000, 4).p_value) == together_r.p_value[j]


def test_chunks_cover_the_draws_and_stay_small() -> None:
    n = 7000
    rows = rows_per_chunk(n)
    assert rows * n * 8 <= 32 * 2**20  # a float64 chunk is at most 32 MiB
    chunks = list(sign_flips(n, 2 * rows + 3, seed=1))
    assert [c.shape[0] for c in chunks] == [rows, rows, 3]
    assert set(np.unique(np.vstack(chunks))) <= {0.0, 1.0}
    counts = next(resample_counts(50, 7, seed=1))
    assert counts.shape == (7, 50) and np.all(counts.sum(axis=1) == 50)


def test_fixed_point_products_are_exact() -> None:
    rng = np.random.default_rng(0)
    x = rng.normal(0, 1, size=(1000, 3)) * np.array([1e-6, 1.0, 1e6])
    q, unit = fixed_point(x, 1000)
    assert np.all(q == np.round(q)) and np.all(np.abs(q * unit - x) <= unit / 2)
    weights = rng.integers(0, 3, size=(20, 1000))
    weights[:, -1] += 1000 - weights.sum(axis=1)  # at most n draws per resample
    weights = np.abs(weights)
    blas = weights.astype(np.float64) @ q
    exact = [
        [sum(int(w) * int(v) for w, v in zip(row, q[:, j], strict=True)) for j in range(3)]
        for row in weights[:3]
    ]
    assert blas[:3].astype(object).tolist() == exact


_THREADS_SCRIPT = """
import json, numpy as np
from ranklens.analysis.stats import randomization_test, bootstrap_test
rng = np.random.default_rng(5)
d = rng.normal(0.01, 0.2, size=(3000, 8))
d[:, ::2] = np.round(d[:, ::2] * 10) / 10
r = randomization_test(d, 3000, 7)
b = bootstrap_test(d, 3000, 7)
print(json.dumps([r.p_value.tolist(), b.p_value.tolist(), b.ci_low.tolist(), b.ci_high.tolist()]))
"""


def test_results_do_not_depend_on_the_number_of_threads() -> None:
    outputs = []
    for threads in ("1", "2"):
        env = dict(os.environ)
        env.update(
            PYTHONPATH=str(SRC),
            OMP_NUM_THREADS=threads,
            OPENBLAS_NUM_THREADS=threads,
            MKL_NUM_THREADS=threads,
        )
        done = subprocess.run(
            [sys.executable, "-c", _THREADS_SCRIPT],
            env=env,
            capture_output=True,
            text=True,
            check=True,
            timeout=300,
        )
        outputs.append(json.loads(done.stdout))
    assert outputs[0] == outputs[1]


def test_options_are_checked() -> None:
    with pytest.raises(OptionError, match="permutations"):
        randomization_test([0.1, 0.2], permutations=0)
    with pytest.raises(OptionError, match="seed"):
        randomization_test([0.1, 0.2], seed=-1)
    with pytest.raises(OptionError, match="resamples"):
        bootstrap_test([0.1, 0.2], resamples=2.5)  # type: ignore[arg-type]
    with pytest.raises(OptionError, match="confidence"):
        bootstrap_test([0.1, 0.2], confidence=1.0)
