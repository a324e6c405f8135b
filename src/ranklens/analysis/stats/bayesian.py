r"""The posterior probability that one system is better than another, and a region of
practical equivalence (ROPE).

For paired differences :math:`d_1, \dots, d_n` modelled as normal with unknown mean
:math:`\mu` and variance, under the Jeffreys prior :math:`p(\mu, \sigma) \propto 1/\sigma`
the posterior of :math:`\mu` is Student's t with :math:`n - 1` degrees of freedom, centred
on :math:`\bar d` with scale :math:`s / \sqrt n` (:math:`s` the standard deviation,
``ddof=1``; Gelman et al. 2013, sec. 3.2):

.. math::

    P(\mu > 0 \mid d) = T_{n-1}\!\left(\frac{\bar d}{s / \sqrt n}\right), \qquad
    P(|\mu| < r \mid d) = T_{n-1}\!\left(\frac{r - \bar d}{s/\sqrt n}\right)
                        - T_{n-1}\!\left(\frac{-r - \bar d}{s/\sqrt n}\right)

with :math:`T_{n-1}` the t distribution's CDF. Numerically :math:`P(\mu > 0)` is one minus
the one-sided p-value of the paired t-test. When every difference is equal (:math:`s = 0`)
the posterior is a point mass at :math:`\bar d`: the probabilities are 0 or 1 (and
:math:`P(\mu > 0) = 1/2` when every difference is 0).

**Verdict against a ROPE** ``r`` (Kruschke 2018; Benavoli et al. 2017), at a level
:math:`c` (0.95 by default, the comparison's ``confidence``): ``"equivalent"`` when
:math:`P(|\mu| < r) \ge c`, ``"better"`` when :math:`P(\mu > r) \ge c`, ``"worse"`` when
:math:`P(\mu < -r) \ge c`, and ``"undecided"`` otherwise.

References
----------
Gelman, Carlin, Stern, Dunson, Vehtari and Rubin (2013). Bayesian Data Analysis, 3rd ed.

Kruschke (2018). Rejecting or accepting parameter values in Bayesian estimation. Advances
in Methods and Practices in Psychological Science 1(2).

Benavoli, Corani, Demšar and Zaffalon (2017). Time for a change: a tutorial for comparing
multiple classifiers through Bayesian analysis. JMLR 18(77).

Examples
--------
>>> d = [0.10, 0.25, -0.05, 0.30, 0.00, 0.15]
>>> round(float(prob_better(d)), 4)
0.9622
>>> below, inside, above = rope_probabilities(d, 0.01)
>>> round(float(above), 4), verdict(float(below), float(inside), float(above), 0.95)
(0.9526, 'better')
"""

from __future__ import annotations

import importlib
import math
from typing import Any

import numpy as np
import numpy.typing as npt

from ranklens.analysis.stats._validate import as_columns, shaped
from ranklens.analysis.stats.paired_tests import _studentized
from ranklens.base.errors import OptionError
from ranklens.base.types import Float64Array

__all__ = ["VERDICTS", "check_rope", "prob_better", "rope_probabilities", "verdict"]

_stats: Any = importlib.import_module("scipy.stats")  # untyped: scipy ships no stubs

VERDICTS = ("better", "worse", "equivalent", "undecided")


def check_rope(rope: Any) -> float | None:
    """The half-width of the region of practical equivalence: ``None``, or a number >= 0."""
    if rope is None:
        return None
    if isinstance(rope, bool) or not isinstance(rope, int | float) or not rope >= 0:
        raise OptionError(f"rope must be a number >= 0 (a half-width), not {rope!r}")
    if not math.isfinite(rope):
        raise OptionError(f"rope must be a finite number, not {rope!r}")
    return float(rope)


def prob_better(diffs: npt.ArrayLike) -> Float64Array:
    r""":math:`P(\mu > 0 \mid d) = T_{n-1}(\bar d / (s/\sqrt n))` for each column of
    ``diffs`` (``(n,)`` or ``(n, k)``, n >= 2); 1/2 for a column of zeros."""
    d, vector = as_columns(diffs)
    n = d.shape[0]
    mean, se, _ = _studentized(d)
    point = se == 0
    smooth = _stats.t.cdf(mean / np.where(point, 1.0, se), n - 1)
    exact = np.where(mean > 0, 1.0, np.where(mean < 0, 0.0, 0.5))
    return shaped(np.where(point, exact, smooth).astype(np.float64), vector)


def rope_probabilities(
    diffs: npt.ArrayLike, rope: float
) -> tuple[Float64Array, Float64Array, Float64Array]:
    r"""``(P(mu < -rope), P(-rope <= mu <= rope), P(mu > rope))`` for each column of
    ``diffs``, under the posterior of the module docstring (``rope`` >= 0; a point
    posterior, every difference equal, puts all on the part holding :math:`\bar d`)."""
    half = check_rope(rope)
    if half is None:
        raise OptionError("rope must be a number >= 0, not None")
    d, vector = as_columns(diffs)
    n = d.shape[0]
    mean, se, _ = _studentized(d)
    point = se == 0
    safe = np.where(point, 1.0, se)
    below = np.where(point, (mean < -half) * 1.0, _stats.t.cdf((-half - mean) / safe, n - 1))
    above = np.where(point, (mean > half) * 1.0, _stats.t.sf((half - mean) / safe, n - 1))
    inside = np.clip(1.0 - below - above, 0.0, 1.0)
    return (
        shaped(below.astype(np.float64), vector),
        shaped(inside.astype(np.float64), vector),
        shaped(above.astype(np.float64), vector),
    )


def verdict(below: float, inside: float, above: float, level: float = 0.95) -> str:
    """``"better"``, ``"worse"``, ``"equivalent"`` or ``"undecided"`` from the three
    posterior probabilities of :func:`rope_probabilities` at ``level`` (module docstring)."""
    if inside >= level:
        return "equivalent"
    if above >= level:
        return "better"
    if below >= level:
        return "worse"
    return "undecided"
