r"""Friedman's test over k systems on the same queries, the systems' mean ranks and the
Nemenyi critical difference (Demšar 2006).

Within each query the systems are ranked, 1 the best (the highest value, or the lowest for
a measure where lower is better), tied values sharing the average of their ranks. With
:math:`R_j` the mean rank of system :math:`j` over :math:`N` queries,

.. math::

    \chi^2_F = \frac{12 N}{k(k+1)} \left[\sum_j R_j^2 - \frac{k(k+1)^2}{4}\right] \Big/
    \left(1 - \frac{\sum t^3 - t}{N k (k^2 - 1)}\right)

(the sum in the tie correction over every group of :math:`t` tied values of a query),
referred to :math:`\chi^2` with :math:`k - 1` degrees of freedom: the same statistic and
p-value as :func:`scipy.stats.friedmanchisquare`. Two systems differ (Nemenyi's post-hoc
test) when their mean ranks differ by at least the critical difference

.. math::

    \mathrm{CD} = \frac{q_\alpha}{\sqrt 2} \sqrt{\frac{k(k+1)}{6N}}

with :math:`q_\alpha` the :math:`1 - \alpha` quantile of the studentized range of :math:`k`
means and infinite degrees of freedom (Demšar 2006, table 5: 2.569 for k = 4 at
:math:`\alpha = 0.05` after the division by :math:`\sqrt 2`). When every value of every
query ties, the statistic and the p-value are nan.

References
----------
Friedman (1937). The use of ranks to avoid the assumption of normality implicit in the
analysis of variance. JASA 32(200).

Nemenyi (1963). Distribution-free multiple comparisons. PhD thesis, Princeton.

Demšar (2006). Statistical comparisons of classifiers over multiple data sets. JMLR 7.

Examples
--------
>>> res = friedman_test([[0.5, 0.4, 0.1], [0.6, 0.6, 0.2], [0.7, 0.3, 0.3], [0.9, 0.5, 0.4]])
>>> round(res.statistic, 4), round(res.p_value, 4), res.mean_ranks
(7.0, 0.0302, {'0': 1.125, '1': 2.0, '2': 2.875})
>>> round(nemenyi_critical_difference(3, 4, 0.05), 4)
1.6572
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ranklens.analysis.stats._validate import as_columns, check_alpha
from ranklens.base.errors import InputError
from ranklens.base.types import Float64Array

__all__ = ["FriedmanResult", "friedman_test", "nemenyi_critical_difference", "within_ranks"]

_stats: Any = importlib.import_module("scipy.stats")  # untyped: scipy ships no stubs


@dataclass(frozen=True)
class FriedmanResult:
    """Friedman's test and Nemenyi's critical difference over k systems.

    Attributes
    ----------
    statistic : the tie-corrected Friedman chi-square.
    p_value : its p-value (chi-square, k - 1 degrees of freedom).
    mean_ranks : ``{system: rank averaged over the queries}`` (1 = best), in the order of
        the columns.
    critical_difference : Nemenyi's critical difference of mean ranks at ``alpha``.
    alpha : the level of the critical difference.
    queries : N, the number of queries (blocks).
    """

    statistic: float
    p_value: float
    mean_ranks: dict[str, float]
    critical_difference: float
    alpha: float
    queries: int


def within_ranks(values: npt.ArrayLike, higher_is_better: bool = True) -> Float64Array:
    """Each row of ``values`` (queries x systems) ranked, 1 the best, ties averaged."""
    x = np.asarray(values, dtype=np.float64)
    return np.asarray(_stats.rankdata(-x if higher_is_better else x, axis=1), dtype=np.float64)


def nemenyi_critical_difference(systems: int, queries: int, alpha: float = 0.05) -> float:
    r""":math:`q_\alpha/\sqrt2 \cdot \sqrt{k(k+1)/(6N)}` for ``systems`` = k >= 2 and
    ``queries`` = N >= 1 (module docstring)."""
    level = check_alpha(alpha)
    if systems < 2 or queries < 1:
        raise InputError(
            f"a critical difference needs at least 2 systems and 1 query, not {systems} "
            f"and {queries}"
        )
    q = float(_stats.studentized_range.ppf(1.0 - level, systems, np.inf)) / math.sqrt(2.0)
    return q * math.sqrt(systems * (systems + 1) / (6.0 * queries))


def friedman_test(
    values: npt.ArrayLike,
    names: Sequence[str] | None = None,
    *,
    higher_is_better: bool = True,
    alpha: float = 0.05,
) -> FriedmanResult:
    """Friedman's test, the mean ranks and the critical difference of ``values`` (queries
    x systems: at least 2 queries and 2 systems); ``names``: the systems' names, keys of
    :attr:`FriedmanResult.mean_ranks` (default ``"0"``, ``"1"``, ...)."""
    x, vector = as_columns(values)
    n, k = x.shape
    if vector or k < 2:
        raise InputError("Friedman's test needs at least 2 systems (columns)")
    labels = [str(j) for j in range(k)] if names is None else [str(v) for v in names]
    if len(labels) != k:
        raise InputError(f"{len(labels)} names for {k} systems")
    ranks = within_ranks(x, higher_is_better)
    mean_ranks = ranks.mean(axis=0)
    # sum over the groups of tied values of each query (row) of t^3 - t, t the group's size
    ordered = np.sort(x, axis=1)
    starts = np.ones(x.shape, dtype=bool)
    starts[:, 1:] = ordered[:, 1:] != ordered[:, :-1]
    sizes = np.diff(np.append(np.flatnonzero(starts), x.size)).astype(np.float64)
    ties = float(np.sum(sizes**3 - sizes))
    correction = 1.0 - ties / (n * k * (k * k - 1.0))
    raw = 12.0 * n / (k * (k + 1.0)) * (float(np.sum(mean_ranks**2)) - k * (k + 1.0) ** 2 / 4.0)
    if correction <= 0:
        statistic = p = math.nan
    else:
        statistic = max(raw / correction, 0.0)
        p = float(_stats.chi2.sf(statistic, k - 1))
    cd = nemenyi_critical_difference(k, n, alpha)
    by_name = {name: float(r) for name, r in zip(labels, mean_ranks, strict=True)}
    return FriedmanResult(statistic, p, by_name, cd, float(alpha), n)
