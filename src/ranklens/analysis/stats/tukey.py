r"""Tukey's honestly significant difference (HSD) test over all pairs of systems.

``values`` is a matrix (queries x systems). For systems :math:`i, j` with means
:math:`\bar x_i, \bar x_j` over the same :math:`n` queries, the statistic is the studentized
range :math:`q_{ij} = |\bar x_i - \bar x_j| / \sqrt{\mathrm{MSE} / n}`, its p-value
:math:`P(Q_{k,\nu} \ge q_{ij})` from the studentized range distribution of :math:`k`
systems and :math:`\nu` degrees of freedom, and the simultaneous interval
:math:`\bar x_i - \bar x_j \pm Q_{k,\nu}^{(c)} \sqrt{\mathrm{MSE}/n}`. The tests control the
family-wise error rate over all :math:`k(k-1)/2` pairs.

* ``blocked=False`` (default): one-way ANOVA, systems as independent groups;
  :math:`\mathrm{MSE}` is the pooled within-system variance, :math:`\nu = k(n - 1)`. The
  same numbers as :func:`scipy.stats.tukey_hsd` (``*values.T``).
* ``blocked=True``: two-way ANOVA without interaction, queries as blocks (Carterette
  2012): :math:`\mathrm{MSE} = \sum_{qi} (x_{qi} - \bar x_{q\cdot} - \bar x_{\cdot i} +
  \bar x)^2 / \nu`, :math:`\nu = (n-1)(k-1)`. Query difficulty, usually the largest source
  of variance in IR, is removed from the error term, so this is the variant for systems
  evaluated on the same queries.

When MSE is 0, pairs with equal means have p = 1 and the others p = 0.

References
----------
Tukey (1949). Comparing individual means in the analysis of variance. Biometrics 5(2).

Carterette (2012). Multiple testing in statistical analysis of systems-based information
retrieval experiments. ACM TOIS 30(1).

Examples
--------
>>> x = [[0.2, 0.5, 0.3], [0.4, 0.6, 0.4], [0.1, 0.5, 0.2], [0.3, 0.7, 0.3]]
>>> res = tukey_hsd(x, blocked=True)
>>> round(float(res.statistic[1, 0]), 4), bool(res.p_value[1, 0] < 0.01), res.df
(0.325, True, 6.0)
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ranklens.analysis.stats._validate import as_columns, check_confidence
from ranklens.base.errors import InputError
from ranklens.base.types import Float64Array

_stats: Any = importlib.import_module("scipy.stats")  # untyped: scipy ships no stubs


@dataclass(frozen=True)
class TukeyHSD:
    """Tukey's HSD for k systems.

    Attributes
    ----------
    means : (k,) each system's mean.
    statistic : (k, k) ``means[i] - means[j]``.
    p_value : (k, k) adjusted p-values (1 on the diagonal).
    ci_low, ci_high : (k, k) simultaneous intervals of ``means[i] - means[j]``.
    df : degrees of freedom of the error term.
    mse : the mean squared error.
    blocked : whether queries were blocks (two-way ANOVA).
    confidence : the level of the intervals.
    """

    means: Float64Array
    statistic: Float64Array
    p_value: Float64Array
    ci_low: Float64Array
    ci_high: Float64Array
    df: float
    mse: float
    blocked: bool
    confidence: float


def tukey_hsd(
    values: npt.ArrayLike, *, blocked: bool = False, confidence: float = 0.95
) -> TukeyHSD:
    """Tukey's HSD over the columns (systems) of ``values`` (queries x systems).

    Parameters
    ----------
    values
        Per-query values, at least 2 queries and 2 systems.
    blocked
        Queries as blocks (two-way ANOVA, Carterette 2012) rather than independent groups.
    confidence
        Level of the simultaneous intervals.
    """
    level = check_confidence(confidence)
    x, vector = as_columns(values)
    n, k = x.shape
    if vector or k < 2:
        raise InputError("Tukey's HSD needs at least 2 systems (columns)")
    means = x.mean(axis=0)
    if blocked:
        residual = x - x.mean(axis=1, keepdims=True) - means + x.mean()
        df = float((n - 1) * (k - 1))
        mse = float(np.sum(residual * residual) / df)
    else:
        df = float(k * (n - 1))
        mse = float(np.sum(x.var(axis=0, ddof=1) * (n - 1)) / df)
    stand_err = np.sqrt(mse / n)
    diff = means[:, None] - means[None, :]
    if stand_err > 0:
        q = np.abs(diff) / stand_err
        p = np.asarray(_stats.studentized_range.sf(q, k, df), dtype=np.float64)
    else:
        p = np.where(diff == 0, 1.0, 0.0)
    p = np.clip(p, 0.0, 1.0)
    critical = float(_stats.studentized_range.ppf(level, k, df))
    half = critical * stand_err
    return TukeyHSD(means, diff, p, diff - half, diff + half, df, mse, blocked, level)
