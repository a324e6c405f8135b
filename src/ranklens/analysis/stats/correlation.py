r"""How alike two orderings of systems are: Kendall's tau-b and Spearman's rho.

Given one score per system under two conditions (two measures, or one measure under two
qrels files), the correlation of the two orderings says whether, for instance, a cheaper
measure ranks systems like an expensive one (Voorhees 2000; Buckley and Voorhees 2004 use
Kendall's tau, with 0.9 as the customary threshold of "equivalent" rankings).

* Kendall's :math:`\tau_b = (n_c - n_d) / \sqrt{(n_0 - n_1)(n_0 - n_2)}` over pairs of
  systems (concordant, discordant, ties in either ordering), with its p-value,
  by :func:`scipy.stats.kendalltau` (exact for small numbers of systems without ties).
* Spearman's :math:`\rho`: Pearson's correlation of the ranks (ties get mean ranks),
  with its p-value, by :func:`scipy.stats.spearmanr`.

At least 3 systems are needed (two always correlate perfectly). When all systems tie
under one of the conditions, the correlation is undefined: every value is nan.

References
----------
Voorhees (2000). Variations in relevance judgments and the measurement of retrieval
effectiveness. Information Processing & Management 36(5).

Examples
--------
>>> res = system_correlation([0.30, 0.25, 0.41, 0.38], [0.52, 0.50, 0.61, 0.63])
>>> round(res.kendall_tau, 4), round(res.spearman_rho, 4)
(0.6667, 0.8)
"""

from __future__ import annotations

import importlib
import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ranklens.base.errors import InputError

_stats: Any = importlib.import_module("scipy.stats")  # untyped: scipy ships no stubs


@dataclass(frozen=True)
class RankCorrelation:
    """Kendall's tau-b and Spearman's rho of two orderings of ``systems`` systems, with
    their two-sided p-values (nan when an ordering is all ties)."""

    kendall_tau: float
    kendall_p: float
    spearman_rho: float
    spearman_p: float
    systems: int


def system_correlation(x: npt.ArrayLike, y: npt.ArrayLike) -> RankCorrelation:
    """The rank correlations of the systems' scores ``x`` and ``y`` (one per system, in the
    same order; higher is better or lower is better in both, as long as it is the same)."""
    a = np.asarray(x, dtype=np.float64)
    b = np.asarray(y, dtype=np.float64)
    if a.ndim != 1 or a.shape != b.shape:
        raise InputError("the two sets of scores must be vectors of the same length")
    if a.shape[0] < 3:
        raise InputError(
            f"correlating orderings of systems needs at least 3 systems, not {a.shape[0]}"
        )
    if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
        raise InputError("system scores must be finite numbers")
    if np.all(a == a[0]) or np.all(b == b[0]):
        return RankCorrelation(math.nan, math.nan, math.nan, math.nan, a.shape[0])
    tau = _stats.kendalltau(a, b)
    rho = _stats.spearmanr(a, b)
    return RankCorrelation(
        float(tau.statistic),
        float(tau.pvalue),
        float(rho.statistic),
        float(rho.pvalue),
        a.shape[0],
    )
