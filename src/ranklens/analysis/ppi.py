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
    \hat\sigma^2 = \frac{s^2_{f,U}}{N} + \frac{s^2_{y-f,L}}{n},

and the interval :math:`\hat\theta \pm z_{1-\alpha/2}\,\hat\sigma` (sample variances with
:math:`n - 1` and :math:`N - 1`). The LLM's bias cancels in the second term; the interval
is valid whatever the LLM's quality (a poor LLM only makes it wider). With
``power_tuning=True`` the LLM's term is weighted by
:math:`\hat\lambda = \widehat{\mathrm{Cov}}(y, f) / ((1 + n/N)\,\widehat{\mathrm{Var}}(f))`
clipped to [0, 1] (PPI++, Angelopoulos, Duchi and Zrnic 2023): never wider than the human
sample alone, asymptotically.

Assumptions: the human-judged queries are a uniformly random sample of the queries (not
the easy ones, not the first ones); queries are independent; the interval is a normal
approximation (the sample should not be tiny: ``n >= 2`` is required, a few dozen are
advisable). The estimand is the measure's mean under human labels over the population the
queries come from.

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

from ranklens.base.errors import InputError, OptionError
from ranklens.data.coerce import QrelsLike, RunLike, as_qrels, as_run
from ranklens.evaluation.evaluator import Evaluator
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
    """(mean, low, high) from the LLM's labels alone over every query: biased."""
    human_only: tuple[float, float, float]
    """(mean, low, high) from the human sample alone: unbiased, wider."""
    weight: float
    """The LLM term's weight: 1, or the PPI++ estimate with ``power_tuning``."""


def _interval(mean: float, variance: float, z: float) -> tuple[float, float, float]:
    half = z * math.sqrt(variance) if variance >= 0 else math.nan
    return mean, mean - half, mean + half


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
    """
    if not (isinstance(alpha, float | int) and 0.0 < float(alpha) < 1.0):
        raise OptionError(f"alpha must be between 0 and 1, not {alpha!r}")
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
    both = [q for q in by_human.queries if q in f_all]
    if len(both) < 2:
        raise InputError("ppi_mean needs at least 2 queries evaluated under both judgments")
    labeled = set(both)
    y = np.array([y_all[q] for q in both])
    f_l = np.array([f_all[q] for q in both])
    f_u = np.array([v for q, v in f_all.items() if q not in labeled])
    n, big_n = y.size, f_u.size
    z = float(_stats.norm.ppf(1.0 - float(alpha) / 2.0))
    f_every = np.array(list(f_all.values()))
    llm_only = _interval(
        float(f_every.mean()),
        float(f_every.var(ddof=1)) / f_every.size if f_every.size > 1 else math.nan,
        z,
    )
    human_only = _interval(float(y.mean()), float(y.var(ddof=1)) / n, z)
    if big_n == 0:  # every query was judged by humans: the human mean is the answer
        return PPIEstimate(*human_only, float(alpha), n, 0, llm_only, human_only, 0.0)
    var_u = float(f_u.var(ddof=1)) if big_n > 1 else 0.0
    weight = 1.0
    if power_tuning:
        var_f = float(f_l.var(ddof=1))
        cov = float(np.cov(y, f_l, ddof=1)[0, 1])
        weight = 0.0 if var_f == 0 else min(1.0, max(0.0, cov / ((1.0 + n / big_n) * var_f)))
    estimate = float(y.mean()) + weight * (float(f_u.mean()) - float(f_l.mean()))
    variance = float((y - weight * f_l).var(ddof=1)) / n + weight**2 * var_u / big_n
    mean, low, high = _interval(estimate, variance, z)
    return PPIEstimate(mean, low, high, float(alpha), n, big_n, llm_only, human_only, weight)
