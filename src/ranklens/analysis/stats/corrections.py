r"""Corrections of p-values for multiple comparisons.

Given the m raw p-values of one family of comparisons (in :func:`ranklens.compare`: all
comparisons of one measure), return adjusted p-values :math:`\tilde p_i` such that
rejecting where :math:`\tilde p_i \le \alpha` controls the family-wise error rate (Holm,
Bonferroni) or the false discovery rate (Benjamini-Hochberg) at level :math:`\alpha`.
With :math:`p_{(1)} \le \dots \le p_{(m)}` the sorted p-values:

* ``"bonferroni"``: :math:`\tilde p_i = \min(1, m p_i)`.
* ``"holm"`` (step-down, Holm 1979):
  :math:`\tilde p_{(i)} = \min(1, \max_{j \le i} (m - j + 1) p_{(j)})`.
* ``"bh"`` (step-up, Benjamini and Hochberg 1995):
  :math:`\tilde p_{(i)} = \min(1, \min_{j \ge i} m p_{(j)} / j)`.
* ``"none"``: :math:`\tilde p_i = p_i`.

The values equal those of ``statsmodels.stats.multitest.multipletests`` with
``method="bonferroni" | "holm" | "fdr_bh"``. Each adjusted p-value is at least its raw
p-value and at most 1, and the adjustment keeps the order of the p-values.

Examples
--------
>>> adjust_p_values([0.01, 0.04, 0.03], "holm").tolist()
[0.03, 0.06, 0.06]
>>> adjust_p_values([0.01, 0.04, 0.03], "bh").round(4).tolist()
[0.03, 0.04, 0.04]
"""

from __future__ import annotations

from typing import Literal, TypeAlias

import numpy as np
import numpy.typing as npt

from ranklens.base.errors import InputError, OptionError
from ranklens.base.types import Float64Array

Correction: TypeAlias = Literal["holm", "bonferroni", "bh", "none"]
CORRECTIONS: tuple[Correction, ...] = ("holm", "bonferroni", "bh", "none")


def adjust_p_values(p_values: npt.ArrayLike, method: str = "holm") -> Float64Array:
    """Adjusted p-values of one family of comparisons.

    Parameters
    ----------
    p_values
        The raw p-values, a vector of numbers in [0, 1] (may be empty).
    method
        ``"holm"`` (default), ``"bonferroni"``, ``"bh"`` (Benjamini-Hochberg) or ``"none"``.

    Returns
    -------
    numpy.ndarray
        The adjusted p-values, in the order given.
    """
    if method not in CORRECTIONS:
        raise OptionError(f"correction must be one of {list(CORRECTIONS)}, not {method!r}")
    p = np.asarray(p_values, dtype=np.float64)
    if p.ndim != 1:
        raise InputError(f"p-values must be a vector, not an array of {p.ndim} dimensions")
    if not np.all((p >= 0) & (p <= 1)):
        raise InputError("p-values must be numbers between 0 and 1")
    m = p.shape[0]
    if method == "none" or m == 0:
        return p.copy()
    if method == "bonferroni":
        return np.asarray(np.minimum(p * m, 1.0), dtype=np.float64)
    order = np.argsort(p, kind="stable")
    ranked = p[order]
    if method == "holm":
        adjusted = np.maximum.accumulate(ranked * np.arange(m, 0, -1))
    else:
        step_up = ranked / (np.arange(1, m + 1) / m)  # as statsmodels: p_(m) stays p_(m)
        adjusted = np.minimum.accumulate(step_up[::-1])[::-1]
    out = np.empty(m)
    out[order] = np.minimum(adjusted, 1.0)
    return out
