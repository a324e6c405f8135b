r"""A mean from cheap labels, corrected by a small human sample: prediction-powered
inference (Angelopoulos, Bates, Fannjiang, Jordan and Zrnic, Science 2023).

An LLM judged every query; humans judged a random sample of them. The mean of a measure
under the LLM's labels is biased by the LLM's errors; the mean over the human sample alone
is unbiased but wide. :func:`ppi_mean` combines both. With :math:`f_j` the measure's value
for query :math:`j` under the LLM's labels and :math:`y_j` under the human labels, over the
:math:`n` human-judged queries :math:`L` and the :math:`N` others :math:`U`:

.. math::

    \hat\theta = \frac{1}{N} \sum_{j \in U} f_j + \frac{1}{n} \sum_{j \in L} (y_j - f_j),
    \qquad
    \hat\sigma^2 = \frac{s^2_{f}}{N} + \frac{s^2_{y-f,L}}{n},

and the interval :math:`\hat\theta \pm t_{1-\alpha/2}(\nu)\,\hat\sigma`. The variance of
the LLM's values, :math:`s^2_f`, is taken over **every** query (:math:`L` and :math:`U`,
:math:`n + N - 1` degrees of freedom): under the assumption below the human-judged
queries are a random sample of the same queries, so their :math:`f_j` come from the same
distribution, and the estimate stays sound where :math:`N` is small (from the :math:`N`
LLM-only values alone, two of them gave a "95%" interval that covered 65% of the time).
The two terms are means of independent samples, so the quantile is Student's t with Welch
and Satterthwaite's degrees of freedom, :math:`\nu = (a + b)^2 / (a^2/(n-1) +
b^2/(n+N-1))` for :math:`a = s^2_{y-f,L}/n` and :math:`b = s^2_f/N`: as the samples grow
it is the normal quantile :math:`z_{1-\alpha/2}` of the PPI papers, and with a small human
sample it widens the interval to its nominal coverage (``tests/test_judges_hardening.py``
checks the coverage by simulation). The LLM's bias cancels in the second term; the
interval is valid whatever the LLM's quality (a poor LLM only makes it wider). With
``power_tuning=True`` the LLM's term is weighted by
:math:`\hat\lambda = \widehat{\mathrm{Cov}}(y, f) / ((1 + n/N)\,\widehat{\mathrm{Var}}(f))`
clipped to [0, 1] (PPI++, Angelopoulos, Duchi and Zrnic 2023): never wider than the human
sample alone, asymptotically.

Assumptions: the human-judged queries are a uniformly random sample of the queries (not
the easy ones, not the first ones); queries are independent; the interval is a t
approximation (the sample should not be tiny: ``n >= 2`` is required, a few dozen are
advisable). The estimand is the measure's mean under human labels over the population the
queries come from.

Refusals. An interval is only given where its variance can be estimated; otherwise
:func:`ppi_mean` raises an :class:`~ranklens.base.errors.InputError` saying why, rather
than print a "95%" interval of zero width:

* exactly one query is judged by the LLM alone (:math:`N = 1`): the LLM's term is then
  one value, whose distribution is that of a single query's measure, not close to a
  normal one (have humans judge that query too, then the human mean is the estimate, or
  have the LLM judge more queries);
* the interval's variance is 0: the human sample's terms :math:`y_j - \hat\lambda f_j`
  are all equal and the LLM's term has no variance either (its values :math:`f_j` all
  equal, or its weight :math:`\hat\lambda = 0`); or, with every query judged by humans,
  the human values :math:`y_j` are all equal. Values that differ by rounding only
  (:data:`EQUAL_TOLERANCE`) count as equal.

The two naive intervals beside the estimate (:attr:`PPIEstimate.llm_only`,
:attr:`PPIEstimate.human_only`, Student's t intervals of one sample) are
``(mean, nan, nan)`` where theirs cannot be estimated (fewer than two values, or all
equal).

Examples
--------
>>> human = {"q1": {"a": 1}, "q2": {"b": 0, "c": 1}, "q3": {"a": 1}}
>>> llm = {"q1": {"a": 1, "b": 1}, "q2": {"b": 1, "c": 1}, "q3": {"a": 1},
...        "q4": {"a": 1}, "q5": {"a": 0, "b": 1}}
>>> run = {q: {"a": 2, "b": 1} for q in ("q1", "q2", "q3", "q4", "q5")}
>>> est = ppi_mean(human, llm, run, "P@2")
>>> est.n_labeled, est.n_unlabeled, round(est.estimate, 4)
(3, 2, 0.1667)
"""

from __future__ import annotations

import importlib
import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ranklens.base.errors import InputError, OptionError
from ranklens.base.types import Float64Array
from ranklens.data.coerce import QrelsLike, RunLike, as_qrels, as_run
from ranklens.evaluation.evaluator import Evaluator
from ranklens.evaluation.results import Results
from ranklens.measures import Measure

_stats: Any = importlib.import_module("scipy.stats")  # untyped: scipy ships no stubs


@dataclass(frozen=True)
class PPIEstimate:
    """A prediction-powered mean with its interval, and the two naive ones beside it."""

    estimate: float
    low: float
    high: float
    alpha: float
    n_labeled: int
    """Queries judged by humans (and the LLM)."""
    n_unlabeled: int
    """Queries judged by the LLM only."""
    llm_only: tuple[float, float, float]
    """(mean, low, high) from the LLM's labels alone over every query: biased. The ends are
    nan where the variance cannot be estimated (the values all equal)."""
    human_only: tuple[float, float, float]
    """(mean, low, high) from the human sample alone: unbiased, wider. The ends are nan
    where the variance cannot be estimated (the values all equal)."""
    weight: float
    """The LLM term's weight: 1, or the PPI++ estimate with ``power_tuning``."""


EQUAL_TOLERANCE = 1e-12
"""Values whose spread is at most this times ``max(1, |value|)`` count as all equal (their
variance is floating-point rounding)."""


def _constant(values: Float64Array) -> bool:
    """Whether ``values`` are all equal (up to rounding): their variance is 0."""
    if values.size < 2:
        return True
    spread = float(values.max() - values.min())
    return spread <= EQUAL_TOLERANCE * max(1.0, float(np.abs(values).max()))


def _naive(values: Float64Array, alpha: float) -> tuple[float, float, float]:
    """``(mean, low, high)`` of a sample's t interval; nan ends where its variance cannot
    be estimated (fewer than two values, or all equal)."""
    mean = float(values.mean())
    if _constant(values):
        return mean, math.nan, math.nan
    quantile = float(_stats.t.ppf(1.0 - alpha / 2.0, values.size - 1))
    half = quantile * math.sqrt(float(values.var(ddof=1)) / values.size)
    return mean, mean - half, mean + half


def ppi_interval(
    human: npt.ArrayLike,
    llm_labeled: npt.ArrayLike,
    llm_unlabeled: npt.ArrayLike,
    alpha: float = 0.05,
    *,
    power_tuning: bool = False,
) -> tuple[float, float, float, float]:
    r"""The prediction-powered mean and interval from the per-query values themselves.

    Parameters
    ----------
    human
        :math:`y_j`, the measure under human labels on the :math:`n` human-judged queries.
    llm_labeled
        :math:`f_j`, the measure under the LLM's labels on the same queries (same order).
    llm_unlabeled
        :math:`f_j` on the :math:`N` queries judged by the LLM only (may be empty: the
        human mean is then the estimate).
    alpha
        1 - the interval's coverage.
    power_tuning
        Weight the LLM's term (PPI++) instead of 1.

    Returns
    -------
    tuple
        ``(estimate, low, high, weight)`` (the formulas in :mod:`ranklens.analysis.ppi`).

    Raises
    ------
    InputError
        Fewer than 2 human-judged queries, exactly one LLM-only query, values that are
        not finite, or an interval whose variance is 0 (see the module's refusals).

    Examples
    --------
    >>> est, low, high, weight = ppi_interval([1.0, 0.0, 1.0], [1.0, 1.0, 1.0], [0.5, 1.0])
    >>> round(est, 4), weight
    (0.4167, 1.0)
    """
    level = _check_alpha(alpha)
    y = np.asarray(human, dtype=np.float64).reshape(-1)
    f_l = np.asarray(llm_labeled, dtype=np.float64).reshape(-1)
    f_u = np.asarray(llm_unlabeled, dtype=np.float64).reshape(-1)
    if y.shape != f_l.shape:
        raise InputError(
            f"{y.size} human values but {f_l.size} LLM values for the same queries: "
            "give one of each per human-judged query"
        )
    if not (np.isfinite(y).all() and np.isfinite(f_l).all() and np.isfinite(f_u).all()):
        raise InputError("ppi_mean needs finite per-query values (found nan or infinity)")
    n, big_n = y.size, f_u.size
    if n < 2:
        raise InputError("ppi_mean needs at least 2 queries evaluated under both judgments")
    if big_n == 1:
        raise InputError(
            "exactly one query is judged by the LLM alone: the variance of the LLM's values "
            "over such queries cannot be estimated from one, so there is no interval; have "
            "humans judge it too (the human mean is then the estimate) or the LLM judge more"
        )
    if big_n == 0:  # every query was judged by humans: the human mean is the answer
        if _constant(y):
            raise InputError(
                f"the {n} human-judged queries all have the value {float(y[0])!r}, and every "
                "query is judged by humans: the variance of their mean cannot be estimated "
                "(a zero-width interval would claim certainty); judge more queries"
            )
        mean, low, high = _naive(y, level)
        return mean, low, high, 0.0
    weight = 1.0
    if power_tuning:
        var_f = float(f_l.var(ddof=1))
        cov = float(np.cov(y, f_l, ddof=1)[0, 1])
        weight = 0.0 if var_f == 0 else min(1.0, max(0.0, cov / ((1.0 + n / big_n) * var_f)))
    rectifier = y - weight * f_l
    f_every = np.concatenate((f_l, f_u))
    if _constant(rectifier) and (weight == 0 or _constant(f_every)):
        what = "y" if weight == 0 else ("y - f" if weight == 1 else f"y - {weight:.4g} f")
        llm = "is weighted 0" if weight == 0 else f"values are all {float(f_every[0])!r}"
        raise InputError(
            f"the {n} human-judged queries all have the same {what} "
            f"({float(rectifier[0])!r}) and the LLM's term {llm}: the interval's variance "
            "cannot be estimated (a zero-width interval would claim certainty); judge more "
            "queries"
        )
    estimate = float(y.mean()) + weight * (float(f_u.mean()) - float(f_l.mean()))
    human_part = float(rectifier.var(ddof=1)) / n
    llm_part = weight**2 * float(f_every.var(ddof=1)) / big_n
    variance = human_part + llm_part
    freedom = variance**2 / (human_part**2 / (n - 1) + llm_part**2 / (n + big_n - 1))
    half = float(_stats.t.ppf(1.0 - level / 2.0, freedom)) * math.sqrt(variance)
    return estimate, estimate - half, estimate + half, weight


def _check_alpha(alpha: Any) -> float:
    if isinstance(alpha, bool) or not (isinstance(alpha, float | int) and 0.0 < float(alpha) < 1.0):
        raise OptionError(f"alpha must be between 0 and 1, not {alpha!r}")
    return float(alpha)


def ppi_mean(
    human_qrels: QrelsLike,
    llm_qrels: QrelsLike,
    run: RunLike,
    measure: str | Measure,
    alpha: float = 0.05,
    *,
    power_tuning: bool = False,
    **options: Any,
) -> PPIEstimate:
    """The prediction-powered mean of ``measure`` over the LLM-judged queries.

    Parameters
    ----------
    human_qrels
        Human judgments of a random sample of the queries.
    llm_qrels
        The LLM's judgments of every query (the population averaged over).
    run
        The run evaluated.
    measure
        One measure (a name or a Measure).
    alpha
        1 - the interval's coverage.
    power_tuning
        Weight the LLM's term (PPI++) instead of 1.
    **options
        Passed to :class:`~ranklens.Evaluator` (``ties``, ``depth`` ...; not ``queries``).

    Raises
    ------
    InputError
        Human-judged queries without LLM judgments, fewer than 2 queries judged by both,
        exactly one query judged by the LLM alone, or an interval whose variance is 0
        (the module's refusals): no interval of zero width is ever returned.
    """
    level = _check_alpha(alpha)
    if "queries" in options:
        raise OptionError("ppi_mean averages over the LLM qrels' queries; leave out queries=")
    from ranklens.evaluation.answers import ppi_inputs

    answers = ppi_inputs(human_qrels, llm_qrels, run, measure)  # nugget assignments, ...
    human, llm, run_read = answers or (as_qrels(human_qrels), as_qrels(llm_qrels), as_run(run))
    extra = sorted(set(human.qids) - set(llm.qids))
    if extra:
        raise InputError(
            f"{len(extra)} human-judged queries have no LLM judgments (e.g. {extra[0]!r}); "
            "the LLM qrels must cover every query"
        )
    measures = [measure]
    by_llm = Evaluator(llm, measures, **options).evaluate(run_read)
    by_human = Evaluator(human, measures, **options).evaluate(run_read)
    f_all = dict(zip(by_llm.queries, by_llm.values[:, 0].tolist(), strict=True))
    y_all = dict(zip(by_human.queries, by_human.values[:, 0].tolist(), strict=True))
    return _estimate(y_all, f_all, level, power_tuning)


def ppi_from_scores(
    human: Results,
    llm: Results,
    measure: str | Measure,
    alpha: float = 0.05,
    *,
    power_tuning: bool = False,
) -> PPIEstimate:
    """:func:`ppi_mean` from per-topic values computed elsewhere: ``human`` holds a
    measure's values under human labels on a random sample of the topics, ``llm`` its
    values under the LLM's labels on every topic (both read with
    :func:`ranklens.read_scores`, or computed by :func:`ranklens.evaluate`). The estimate,
    the interval and the refusals are :func:`ppi_mean`'s; given the same per-topic values
    it gives the same numbers.

    Examples
    --------
    >>> import ranklens
    >>> human = {"q1": {"a": 1}, "q2": {"b": 0, "c": 1}, "q3": {"a": 1}}
    >>> llm = {"q1": {"a": 1, "b": 1}, "q2": {"b": 1, "c": 1}, "q3": {"a": 1},
    ...        "q4": {"a": 1}, "q5": {"a": 0, "b": 1}}
    >>> run = {q: {"a": 2, "b": 1} for q in ("q1", "q2", "q3", "q4", "q5")}
    >>> by_human = ranklens.evaluate(human, run, ["P@2"], queries="both")
    >>> by_llm = ranklens.evaluate(llm, run, ["P@2"])
    >>> ppi_from_scores(by_human, by_llm, "P@2") == ppi_mean(human, llm, run, "P@2")
    True
    """
    level = _check_alpha(alpha)
    for role, given in (("human", human), ("llm", llm)):
        if not isinstance(given, Results):
            raise OptionError(
                f"ppi_from_scores: {role} must be Results (ranklens.read_scores or "
                f"ranklens.evaluate), not {type(given).__name__}"
            )
    y_all = human.query_values(measure)
    f_all = llm.query_values(measure)
    extra = sorted(set(y_all) - set(f_all))
    if extra:
        raise InputError(
            f"{len(extra)} human-judged topics have no LLM value (e.g. {extra[0]!r}); the "
            "LLM's scores must cover every topic"
        )
    return _estimate(y_all, f_all, level, power_tuning)


def _estimate(
    y_all: dict[str, float], f_all: dict[str, float], level: float, power_tuning: bool
) -> PPIEstimate:
    """The estimate from the human values ``y_all`` and the LLM's ``f_all`` by query."""
    both = [q for q in y_all if q in f_all]
    if len(both) < 2:
        raise InputError("ppi_mean needs at least 2 queries evaluated under both judgments")
    labeled = set(both)
    y = np.array([y_all[q] for q in both], dtype=np.float64)
    f_l = np.array([f_all[q] for q in both], dtype=np.float64)
    alone = [q for q in f_all if q not in labeled]
    f_u = np.array([f_all[q] for q in alone], dtype=np.float64)
    if len(alone) == 1:
        raise InputError(
            f"exactly one query ({alone[0]!r}) is judged by the LLM alone: the variance of "
            "the LLM's values over such queries cannot be estimated from one, so there is no "
            "interval; have humans judge it too (the human mean is then the estimate) or the "
            "LLM judge more"
        )
    estimate, low, high, weight = ppi_interval(y, f_l, f_u, level, power_tuning=power_tuning)
    llm_only = _naive(np.array(list(f_all.values()), dtype=np.float64), level)
    human_only = _naive(y, level)
    return PPIEstimate(
        estimate, low, high, level, len(both), f_u.size, llm_only, human_only, weight
    )
