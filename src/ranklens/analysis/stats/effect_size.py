r"""Effect size of a paired difference: Cohen's d for paired samples.

.. math::

    d_z = \frac{\bar d}{s_d}, \qquad
    s_d = \sqrt{\tfrac{1}{n-1} \textstyle\sum_i (d_i - \bar d)^2}

the mean per-query difference in units of the standard deviation of the differences
(Cohen 1988, eq. 2.3.5; called :math:`d_z` by Lakens 2013). It is :math:`t / \sqrt n` of the
paired t-test. When every difference is equal (:math:`s_d = 0`) it is 0 if they are all
0, and :math:`\pm\infty` otherwise (never nan; JSON output writes ``null`` for infinities).

References
----------
Cohen (1988). Statistical Power Analysis for the Behavioral Sciences, 2nd ed.

Lakens (2013). Calculating and reporting effect sizes to facilitate cumulative science.
Frontiers in Psychology 4:863.

Examples
--------
>>> round(float(paired_cohens_d([0.1, 0.2, 0.3])), 4)
2.0
>>> paired_cohens_d([[0.0, 0.2], [0.0, 0.2]]).tolist()
[0.0, inf]
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ranklens.analysis.stats._validate import as_columns, column_means, column_sds, shaped
from ranklens.analysis.stats.paired_tests import _constant
from ranklens.base.types import Float64Array


def paired_cohens_d(diffs: npt.ArrayLike) -> Float64Array:
    """Cohen's :math:`d_z` of each column of ``diffs`` (``(n,)`` or ``(n, k)``, n >= 2)."""
    d, vector = as_columns(diffs)
    mean = column_means(d)
    constant = _constant(d)
    sd = np.where(constant, 1.0, column_sds(d, mean))
    signed_inf = np.where(mean == 0, 0.0, np.copysign(np.inf, mean))
    return shaped(np.where(constant, signed_inf, mean / sd), vector)
