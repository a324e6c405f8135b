"""Corrections for multiple comparisons against statsmodels' multipletests."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs
from statsmodels.stats.multitest import multipletests

from ranklens.analysis.stats import adjust_p_values
from ranklens.base.errors import InputError, OptionError

STATSMODELS = {"holm": "holm", "bonferroni": "bonferroni", "bh": "fdr_bh"}


def _p_vectors() -> list[np.ndarray]:
    rng = np.random.default_rng(7)
    out = [rng.uniform(0, 1, m) for m in (1, 2, 3, 5, 10, 40)]
    out += [rng.uniform(0, 0.1, m) for m in (4, 20)]
    out.append(np.array([0.01, 0.01, 0.04, 0.04, 1.0, 1.0, 0.0]))  # ties, p = 1 and p = 0
    out.append(np.array([0.02, 0.03, 0.02, 0.5, 0.03]))
    out.append(np.ones(4))
    return out


@pytest.mark.parametrize("method", sorted(STATSMODELS))
@pytest.mark.parametrize("index", range(len(_p_vectors())))
def test_equals_statsmodels(method: str, index: int) -> None:
    p = _p_vectors()[index]
    reject, expected, _, _ = multipletests(p, alpha=0.05, method=STATSMODELS[method])
    adjusted = adjust_p_values(p, method)
    np.testing.assert_allclose(adjusted, expected, rtol=1e-12, atol=0)
    np.testing.assert_array_equal(adjusted <= 0.05, reject)


def test_none_is_the_identity_and_a_copy() -> None:
    p = np.array([0.3, 0.01])
    out = adjust_p_values(p, "none")
    assert out.tolist() == [0.3, 0.01]
    out[0] = 0.9
    assert p[0] == 0.3


def test_empty_and_bad_input() -> None:
    assert adjust_p_values([], "holm").shape == (0,)
    with pytest.raises(OptionError, match="correction must be one of"):
        adjust_p_values([0.1], "hochberg")
    with pytest.raises(InputError, match="between 0 and 1"):
        adjust_p_values([0.1, 1.5], "holm")
    with pytest.raises(InputError, match="between 0 and 1"):
        adjust_p_values([np.nan], "bh")


@settings(max_examples=200, deadline=None)
@given(
    hs.lists(hs.floats(0, 1, allow_nan=False), min_size=1, max_size=30),
    hs.sampled_from(["holm", "bonferroni", "bh", "none"]),
)
def test_adjusted_p_values_are_bounded_and_monotone(p: list[float], method: str) -> None:
    raw = np.array(p)
    adjusted = adjust_p_values(raw, method)
    assert np.all(adjusted >= raw)
    assert np.all(adjusted <= 1.0)
    order = np.argsort(raw, kind="stable")
    assert np.all(np.diff(adjusted[order]) >= 0)
    # Bonferroni >= Holm >= BH
    if method == "holm":
        assert np.all(adjusted <= adjust_p_values(raw, "bonferroni"))
        assert np.all(adjust_p_values(raw, "bh") <= adjusted + 1e-15)
