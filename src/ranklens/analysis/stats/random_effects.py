r"""Pooling effects of several studies: the fixed-effect and the DerSimonian-Laird
random-effects summaries, Cochran's Q and Higgins and Thompson's I², and the
standardised mean difference of paired values with its variance.

Given :math:`k` studies with effects :math:`y_i` and within-study variances :math:`v_i`:

.. math::

    w_i = 1 / v_i, \qquad
    \hat\mu_{FE} = \frac{\sum w_i y_i}{\sum w_i}, \qquad
    Q = \sum w_i (y_i - \hat\mu_{FE})^2 \quad (\mathit{df} = k - 1)

    \hat\tau^2 = \max\Bigl(0, \frac{Q - \mathit{df}}{C}\Bigr), \qquad
    C = \sum w_i - \frac{\sum w_i^2}{\sum w_i}

    w_i^* = \frac{1}{v_i + \hat\tau^2}, \qquad
    \hat\mu_{RE} = \frac{\sum w_i^* y_i}{\sum w_i^*}, \qquad
    \mathrm{se}(\hat\mu_{RE}) = \Bigl(\sum w_i^*\Bigr)^{-1/2}

with normal intervals :math:`\hat\mu \pm z_{1-(1-c)/2}\,\mathrm{se}`, the two-sided p-value
of :math:`z = \hat\mu / \mathrm{se}`, the heterogeneity test :math:`P(\chi^2_{df} > Q)` and
:math:`I^2 = \max(0, (Q - \mathit{df}) / Q)` (0 when :math:`Q = 0`).

:math:`\hat\tau^2` is truncated at 0 as DerSimonian and Laird (1986) define it (and R's
metafor and meta compute it). ``statsmodels.stats.meta_analysis.combine_effects(...,
method_re="dl")`` leaves :math:`(Q - \mathit{df}) / C` negative when :math:`Q < \mathit{df}`
(and :math:`I^2` negative with it): there the two differ, and these numbers equal its
fixed-effect ones; wherever :math:`Q \ge \mathit{df}` they equal its own to rounding.

References
----------
Cochran (1954). The combination of estimates from different experiments. Biometrics 10(1).

DerSimonian and Laird (1986). Meta-analysis in clinical trials. Controlled Clinical Trials
7(3):177-188.

Higgins and Thompson (2002). Quantifying heterogeneity in a meta-analysis. Statistics in
Medicine 21(11):1539-1558.

Examples
--------
>>> pooled = random_effects([0.10, 0.30, 0.05], [0.001, 0.002, 0.001])
>>> round(pooled.effect, 4), round(pooled.tau2, 5), round(pooled.i2, 3)
(0.1464, 0.01219, 0.907)
>>> round(pooled.fixed.effect, 4), pooled.df, [round(w, 3) for w in pooled.weights_random]
(0.12, 2, [0.341, 0.317, 0.341])
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ranklens.analysis.stats._validate import check_confidence
from ranklens.base.errors import InputError, OptionError
from ranklens.base.types import Float64Array

_stats: Any = importlib.import_module("scipy.stats")  # untyped: scipy ships no stubs

__all__ = [
    "EFFECTS",
    "ROUNDING",
    "PooledEffect",
    "RandomEffects",
    "constant",
    "normal_interval",
    "paired_effect",
    "random_effects",
]

EFFECTS = ("difference", "d_z", "g_z")
"""The effects of :func:`paired_effect`: the mean paired difference, its standardised mean
difference (Cohen's :math:`d_z`) and that with Hedges' small-sample correction
(:math:`g_z`)."""


@dataclass(frozen=True)
class PooledEffect:
    """One summary effect: the estimate, its standard error, the normal interval at the
    confidence asked for, :math:`z` and the two-sided p-value."""

    effect: float
    se: float
    ci_low: float
    ci_high: float
    z: float
    p_value: float


@dataclass(frozen=True)
class RandomEffects(PooledEffect):
    """The DerSimonian-Laird random-effects summary (the fields of :class:`PooledEffect`),
    the between-study variance ``tau2``, Cochran's ``q`` with its ``df`` and p-value,
    ``i2`` (a share, 0 to 1), the fixed-effect summary and each study's relative weight
    in each (summing to 1)."""

    tau2: float
    q: float
    df: int
    q_p_value: float
    i2: float
    fixed: PooledEffect
    weights_fixed: tuple[float, ...]
    weights_random: tuple[float, ...]


def normal_interval(effect: float, se: float, confidence: float) -> tuple[float, float]:
    """``effect -+ z se``, ``z`` the normal quantile of ``1 - (1 - confidence) / 2``."""
    z = float(_stats.norm.isf((1.0 - confidence) / 2.0))
    return effect - z * se, effect + z * se


def _pooled(effect: float, se: float, confidence: float) -> PooledEffect:
    low, high = normal_interval(effect, se, confidence)
    z = effect / se
    return PooledEffect(effect, se, low, high, z, float(2.0 * _stats.norm.sf(abs(z))))


def random_effects(
    effects: npt.ArrayLike, variances: npt.ArrayLike, confidence: float = 0.95
) -> RandomEffects:
    """Pool ``effects`` with within-study ``variances`` (module docstring for the formulas).

    Parameters
    ----------
    effects, variances
        One number per study, at least 2 studies; every variance finite and > 0.
    confidence
        The level of the normal intervals.

    Raises
    ------
    InputError
        Fewer than 2 studies, lengths that differ, a non-finite effect, a variance that is
        not a finite positive number.
    """
    check_confidence(confidence)
    y = np.asarray(effects, dtype=np.float64)
    v = np.asarray(variances, dtype=np.float64)
    if y.ndim != 1 or v.shape != y.shape:
        raise InputError(
            f"give one effect and one variance per study (shapes {y.shape} and {v.shape})"
        )
    k = int(y.shape[0])
    if k < 2:
        raise InputError(f"pooling needs at least 2 studies, not {k}")
    if not np.all(np.isfinite(y)):
        raise InputError("every effect must be a finite number")
    if not np.all(np.isfinite(v) & (v > 0)):
        raise InputError(
            "every within-study variance must be a finite number > 0 (inverse-variance "
            "weights are undefined otherwise)"
        )
    w = 1.0 / v
    total = math.fsum(w.tolist())
    fixed_effect = math.fsum((w * y).tolist()) / total
    q = math.fsum((w * (y - fixed_effect) ** 2).tolist())
    df = k - 1
    c = total - math.fsum((w * w).tolist()) / total
    tau2 = max(0.0, (q - df) / c) if c > 0 else 0.0
    w_star = 1.0 / (v + tau2)
    total_star = math.fsum(w_star.tolist())
    random_effect = math.fsum((w_star * y).tolist()) / total_star
    fixed = _pooled(fixed_effect, math.sqrt(1.0 / total), confidence)
    pooled = _pooled(random_effect, math.sqrt(1.0 / total_star), confidence)
    return RandomEffects(
        **vars(pooled),
        tau2=float(tau2),
        q=float(q),
        df=df,
        q_p_value=float(_stats.chi2.sf(q, df)),
        i2=max(0.0, (q - df) / q) if q > 0 else 0.0,
        fixed=fixed,
        weights_fixed=tuple(float(x) for x in w / total),
        weights_random=tuple(float(x) for x in w_star / total_star),
    )


ROUNDING = 1e-12
"""Differences whose spread is at most this share of their magnitude are equal up to the
rounding of the values they were subtracted from (:func:`constant`)."""


def constant(differences: Sequence[float] | Float64Array) -> bool:
    """Whether the differences are one value repeated, up to rounding: their spread is at
    most :data:`ROUNDING` times their largest magnitude (at least 1). Subtracting stored
    values leaves such noise (``0.4 - 0.3`` is not ``0.3 - 0.2`` in binary), whose variance
    would give a collection an inverse-variance weight of 1e30.

    >>> constant([0.4 - 0.3, 0.3 - 0.2]), constant([0.1, 0.2])
    (True, False)
    """
    d = np.asarray(differences, dtype=np.float64)
    spread = float(np.max(d) - np.min(d))
    return spread <= ROUNDING * max(1.0, float(np.max(np.abs(d))))


def paired_effect(differences: Sequence[float] | Float64Array, effect: str) -> tuple[float, float]:
    r"""The effect of one study of paired values and its variance, from the per-query
    differences :math:`d_1..d_n` (:math:`\bar d` their mean, :math:`s` their standard
    deviation with ``ddof=1``):

    - ``"difference"``: :math:`\bar d`, variance :math:`s^2 / n`;
    - ``"d_z"``: the standardised mean difference of a paired design
      :math:`d_z = \bar d / s`, with the large-sample variance
      :math:`1/n + d_z^2 / (2n)` (Gibbons, Hedeker and Davis 1993; Borenstein et al.
      2009, ch. 4);
    - ``"g_z"``: Hedges' :math:`g_z = J d_z` with the small-sample correction
      :math:`J = 1 - 3 / (4\,\mathit{df} - 1)`, :math:`\mathit{df} = n - 1` (Hedges 1981),
      variance :math:`J^2 (1/n + d_z^2/(2n))` (Borenstein et al. 2009, eqs. 4.22-4.24);
      needs :math:`n \ge 3` (:math:`J = 0` at :math:`n = 2`).

    References: Gibbons, Hedeker and Davis (1993), Estimation of effect size from a series of
    experiments involving paired comparisons, Journal of Educational Statistics
    18(3):271-279. Hedges (1981), Distribution theory for Glass's estimator of effect size
    and related estimators, Journal of Educational Statistics 6(2):107-128. Borenstein,
    Hedges, Higgins and Rothstein (2009), Introduction to Meta-Analysis, Wiley.

    Raises
    ------
    InputError
        Fewer than 2 differences (3 for ``"g_z"``), or differences that are all equal up to
        rounding (:func:`constant`; their variance is 0: no inverse-variance weight).

    Examples
    --------
    >>> [round(x, 6) for x in paired_effect([0.1, 0.2, 0.3], "difference")]
    [0.2, 0.003333]
    >>> [round(x, 4) for x in paired_effect([0.1, 0.2, 0.3], "d_z")]
    [2.0, 1.0]
    """
    if effect not in EFFECTS:
        raise OptionError(f"effect must be one of {list(EFFECTS)}, not {effect!r}")
    d = np.asarray(differences, dtype=np.float64)
    n = int(d.shape[0])
    least = 3 if effect == "g_z" else 2
    if n < least:
        raise InputError(f"{n} paired queries: the variance of {effect!r} needs at least {least}")
    if constant(d):
        raise InputError(
            f"every per-query difference is {float(d[0])!r} (up to rounding): their variance "
            "is 0, so the effect has no inverse-variance weight"
        )
    mean = math.fsum(d.tolist()) / n
    sd = math.sqrt(math.fsum(((d - mean) ** 2).tolist()) / (n - 1))
    if effect == "difference":
        return mean, sd * sd / n
    d_z = mean / sd
    variance = 1.0 / n + d_z * d_z / (2.0 * n)
    if effect == "d_z":
        return d_z, variance
    j = 1.0 - 3.0 / (4.0 * (n - 1) - 1.0)
    return j * d_z, j * j * variance
