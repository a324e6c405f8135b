r"""Risk-sensitive comparison: URisk and TRisk against one baseline (Wang et al. 2012;
Dinçer, Macdonald and Ounis 2014), ZRisk and GeoRisk against all systems at once (Dinçer,
Macdonald and Ounis 2016).

**Against a baseline.** With :math:`d_i` the per-query differences (system minus baseline,
oriented so that positive is better) and a risk weight :math:`\alpha \ge 0`,

.. math::

    w_i = \begin{cases} d_i & d_i \ge 0 \\ (1 + \alpha)\, d_i & d_i < 0 \end{cases},
    \qquad \mathrm{URisk} = \frac1n \sum_i w_i, \qquad
    \mathrm{TRisk} = \frac{\mathrm{URisk}}{s_w / \sqrt n}

(:math:`s_w` the standard deviation of the :math:`w_i`, ``ddof=1``). A loss counts
:math:`1 + \alpha` times a gain of the same size; :math:`\alpha = 0` gives the mean
difference and the paired t statistic. TRisk above 2 (below -2) means a significant gain
(loss) at about the 5% level (Dinçer et al. 2014). When every :math:`w_i` is equal TRisk is
0 (all 0) or +-inf.

**Against all systems.** For a matrix :math:`x` (queries x systems, values >= 0) with row
totals :math:`T_i`, column totals :math:`S_j` and grand total :math:`N`, the expected value
of a cell is :math:`e_{ij} = S_j T_i / N` and its standardised deviation
:math:`z_{ij} = (x_{ij} - e_{ij}) / \sqrt{e_{ij}}` (0 where :math:`e_{ij} = 0`, a query on
which every system scores 0). Then

.. math::

    \mathrm{ZRisk}_j = \sum_{i: z_{ij} > 0} z_{ij} + (1 + \alpha) \sum_{i: z_{ij} < 0} z_{ij},
    \qquad
    \mathrm{GeoRisk}_j = \sqrt{\frac{S_j}{c}\; \Phi\!\left(\frac{\mathrm{ZRisk}_j}{c}\right)}

with :math:`c` the number of queries and :math:`\Phi` the standard normal CDF: GeoRisk is
the geometric mean of the system's mean score and of its normalised risk, higher is better.

References
----------
Wang, Bennett and Collins-Thompson (2012). Robust ranking models via risk-sensitive
optimization. SIGIR.

Dinçer, Macdonald and Ounis (2014). Hypothesis testing for the risk-sensitive evaluation of
retrieval systems. SIGIR.

Dinçer, Macdonald and Ounis (2016). Risk-sensitive evaluation and learning to rank using
multiple baselines. SIGIR.

Examples
--------
>>> d = [0.2, -0.1, 0.3, -0.2]
>>> res = urisk_trisk(d, 1.0)
>>> round(float(res[0]), 4), round(float(res[1]), 4)
(-0.025, -0.1513)
>>> [round(v, 4) for v in georisk([[0.5, 0.4], [0.2, 0.3], [0.0, 0.0]], 1.0)]
[0.3358, 0.3393]
"""

from __future__ import annotations

import importlib
import math
from typing import Any

import numpy as np
import numpy.typing as npt

from ranklens.analysis.stats._validate import as_columns, column_means, column_sds, shaped
from ranklens.analysis.stats.paired_tests import _constant
from ranklens.base.errors import InputError, OptionError
from ranklens.base.types import Float64Array

__all__ = ["check_risk_alpha", "georisk", "risk_weighted", "urisk_trisk", "zrisk"]

_stats: Any = importlib.import_module("scipy.stats")  # untyped: scipy ships no stubs


def check_risk_alpha(risk_alpha: Any) -> float:
    """The risk weight: a finite number >= 0."""
    if (
        isinstance(risk_alpha, bool)
        or not isinstance(risk_alpha, int | float)
        or not math.isfinite(risk_alpha)
        or risk_alpha < 0
    ):
        raise OptionError(
            f"risk_alpha must be a finite number >= 0 (a loss weighs 1 + risk_alpha times a "
            f"gain), not {risk_alpha!r}"
        )
    return float(risk_alpha)


def risk_weighted(diffs: npt.ArrayLike, risk_alpha: float) -> Float64Array:
    """The weighted differences :math:`w` (module docstring), same shape as ``diffs``."""
    weight = 1.0 + check_risk_alpha(risk_alpha)
    d = np.asarray(diffs, dtype=np.float64)
    return np.where(d < 0, weight * d, d)


def urisk_trisk(diffs: npt.ArrayLike, risk_alpha: float = 1.0) -> tuple[Float64Array, Float64Array]:
    """``(URisk, TRisk)`` of each column of ``diffs`` (``(n,)`` or ``(n, k)``, n >= 2)."""
    d, vector = as_columns(diffs)
    w = risk_weighted(d, risk_alpha)
    urisk = column_means(w)
    constant = _constant(w)
    se = np.where(constant, 1.0, column_sds(w, urisk) / math.sqrt(w.shape[0]))
    signed_inf = np.where(urisk == 0, 0.0, np.copysign(np.inf, urisk))
    trisk = np.where(constant, signed_inf, urisk / se)
    return shaped(urisk, vector), shaped(trisk, vector)


def _checked_matrix(values: npt.ArrayLike) -> Float64Array:
    x, vector = as_columns(values, minimum=1)
    if vector or x.shape[1] < 2:
        raise InputError("ZRisk and GeoRisk compare at least 2 systems (columns)")
    if np.any(x < 0):
        raise InputError(
            "ZRisk and GeoRisk need values >= 0 (scores of measures where higher is better)"
        )
    return x


def zrisk(values: npt.ArrayLike, risk_alpha: float = 1.0) -> list[float]:
    """ZRisk of each column (system) of ``values`` (queries x systems, values >= 0)."""
    x = _checked_matrix(values)
    weight = 1.0 + check_risk_alpha(risk_alpha)
    rows = x.sum(axis=1, keepdims=True)
    cols = x.sum(axis=0, keepdims=True)
    total = float(x.sum())
    if total == 0:
        return [0.0] * x.shape[1]
    expected = cols * rows / total
    filled = expected > 0
    z = np.where(filled, (x - expected) / np.sqrt(np.where(filled, expected, 1.0)), 0.0)
    z = np.where(z < 0, weight * z, z)
    return [math.fsum(column.tolist()) for column in z.T]


def georisk(values: npt.ArrayLike, risk_alpha: float = 1.0) -> list[float]:
    """GeoRisk of each column (system) of ``values`` (queries x systems, values >= 0)."""
    x = _checked_matrix(values)
    c = x.shape[0]
    z = zrisk(x, risk_alpha)
    out = []
    for j, zj in enumerate(z):
        mean = math.fsum(x[:, j].tolist()) / c
        out.append(math.sqrt(mean * float(_stats.norm.cdf(zj / c))))
    return out
