r"""Is a judge biased? Tests that audit an LLM relevance judge against people, beyond
agreement (:mod:`ranklens.analysis.agreement`).

* :func:`judge_bias`: **does the judge favour a run?** For run :math:`r` and query
  :math:`q`, the shift :math:`s_{rq} = M_{llm}(r, q) - M_{human}(r, q)` of the measure
  computed with each judge's labels, and :math:`d_{rq} = s_{rq} - \frac{1}{R-1}\sum_{r'
  \ne r} s_{r'q}`, the run's shift beyond the other runs' on the same query (a judge that
  is lenient with every run shifts them all; only a shift that singles a run out is a
  bias for it). Per run: the mean shift, the mean :math:`\bar d_r` (``delta``), the
  one-sample t-test of :math:`d_{r\cdot}` against 0 (:func:`scipy.stats.ttest_1samp`:
  :math:`t = \bar d / (s_d / \sqrt{n})` on :math:`n - 1` degrees of freedom), and its
  p-value corrected over the runs (Holm by default). A run with :math:`\bar d > 0` and a
  corrected p-value below :math:`\alpha` is *favoured* (Balog et al., SIGIR 2025: LLM
  judges favour LLM-based rankers). The leaderboards under each judge are compared with
  :func:`ranklens.leaderboard_agreement`.
* :func:`judge_bias_regression`: **what drives the judge's error?** Over the pairs both
  judged, OLS of the grade difference (LLM - human) on an intercept (``const``) and
  covariates of the pairs (document length, lexical overlap ...), with HC3
  heteroskedasticity-robust standard errors (MacKinnon and White 1985):
  :math:`\hat\beta = (X^\top X)^{-1} X^\top y`, :math:`\widehat{V} = (X^\top X)^{-1}
  X^\top \mathrm{diag}(e_i^2 / (1 - h_{ii})^2) X (X^\top X)^{-1}`, with the residuals
  :math:`e` and the leverages :math:`h_{ii}`; z statistics, normal p-values and normal
  intervals, as ``statsmodels.OLS(y, X).fit(cov_type="HC3")`` gives them.
* :func:`fleiss_kappa` and :func:`judge_matrix`: **many judges.** Fleiss' kappa (Fleiss
  1971) over the pairs every judge labelled, :math:`\kappa = (\bar P - P_e) / (1 - P_e)`
  with :math:`P_i = (\sum_j n_{ij}^2 - m) / (m (m - 1))` for :math:`m` judges,
  :math:`\bar P` their mean and :math:`P_e = \sum_j p_j^2` from the share :math:`p_j` of
  labels in grade :math:`j`; and the pairwise matrix of an agreement statistic and of the
  mean grade shift.
* :func:`judge_prevalence`: **how many relevant documents, really?** The observed rate
  :math:`p` of LLM-relevant labels, the judge's sensitivity and specificity against
  people on the pairs both judged, and the Rogan-Gladen (1978) corrected prevalence
  :math:`\hat\pi = (p + \mathrm{sp} - 1) / (\mathrm{se} + \mathrm{sp} - 1)` clipped to
  [0, 1], with a delta-method (Wald) interval (Greenland 1996) whose variance counts
  that the pairs people judged enter both the observed rate and the error rates
  (:func:`rogan_gladen`).
* :func:`position_bias`: **does a pairwise judge prefer the first passage?** The rate at
  which the document shown first wins (ties left out) and its exact two-sided binomial
  test against 1/2 (:func:`scipy.stats.binomtest`, Clopper-Pearson interval), and the
  share of pairs judged in both orders whose winner does not change with the order.

References
----------
Balog, Metzler and Qin (2025). Rankers, judges, and assistants: towards understanding the
interplay of LLMs in information retrieval evaluation. SIGIR.
Rogan and Gladen (1978). Estimating prevalence from the results of a screening test.
American Journal of Epidemiology 107(1).
Greenland (1996). Basic methods for sensitivity analysis of biases. International
Journal of Epidemiology 25(6).
Fleiss (1971). Measuring nominal scale agreement among many raters. Psychological
Bulletin 76(5).
MacKinnon and White (1985). Some heteroskedasticity-consistent covariance matrix
estimators with improved finite sample properties. Journal of Econometrics 29(3).

Examples
--------
>>> human = {"q1": {"a": 1, "b": 0, "c": 0}, "q2": {"a": 0, "b": 1, "c": 1}}
>>> llm = {"q1": {"a": 1, "b": 1, "c": 0}, "q2": {"a": 1, "b": 1, "c": 1}}
>>> res = judge_prevalence(human, llm)
>>> res.observed, res.sensitivity, round(res.specificity, 4)
(0.8333333333333334, 1.0, 0.3333)
>>> round(res.corrected, 4)
0.5
"""

from __future__ import annotations

import importlib
import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ranklens.analysis.agreement import STATISTICS, agreement, judged_pairs
from ranklens.analysis.stats._validate import check_alpha
from ranklens.analysis.stats.corrections import CORRECTIONS, adjust_p_values
from ranklens.base.errors import InputError, InputWarning, OptionError
from ranklens.base.types import DuplicatePolicy, Float64Array, Int64Array
from ranklens.data.coerce import QrelsLike, RunLike, as_qrels, as_run
from ranklens.evaluation.evaluator import Evaluator
from ranklens.evaluation.result_set import ResultSet
from ranklens.evaluation.results import Results, aggregate
from ranklens.measures import Measure

if TYPE_CHECKING:
    from ranklens.analysis.leaderboard import LeaderboardComparison
    from ranklens.data.run import Run

_stats: Any = importlib.import_module("scipy.stats")  # untyped: scipy ships no stubs

EQUAL_TOLERANCE = 1e-12
"""Differences :math:`d_{r\\cdot}` whose spread is at most this times ``max(1, |mean|)``
count as constant: their t statistic is not computed (see :func:`judge_bias`)."""


# ---------------------------------------------------------------------------------------
# 1. does the judge favour a run?


@dataclass(frozen=True)
class RunBias:
    """One run under two judges."""

    run: str
    score_human: float
    """The run's aggregate under the human judgments, over the queries used."""
    score_llm: float
    """The run's aggregate under the LLM's judgments, over the same queries."""
    rank_human: int
    """Its position under the human judgments (1 = best; ties share the best)."""
    rank_llm: int
    """Its position under the LLM's judgments."""
    shift: float
    """The mean over the queries of :math:`s_{rq} = M_{llm}(r, q) - M_{human}(r, q)`."""
    delta: float
    """The mean of :math:`d_{rq}`: the shift beyond the other runs' mean shift."""
    statistic: float
    """The t statistic of :math:`d_{r\\cdot}` (``inf``/``-inf``/0 when it is constant)."""
    p_value: float
    """Two-sided p-value of the one-sample t-test of :math:`d_{r\\cdot}` against 0."""
    p_value_corrected: float
    """:attr:`p_value` corrected over the runs."""
    favoured: bool
    """``delta > 0`` and ``p_value_corrected < alpha``."""
    disfavoured: bool
    """``delta < 0`` and ``p_value_corrected < alpha``."""


@dataclass(frozen=True)
class JudgeBias:
    """The result of :func:`judge_bias`: ``runs[name]`` is a :class:`RunBias`."""

    measure: str
    runs: dict[str, RunBias]
    queries: tuple[str, ...]
    """The queries used: evaluated for every run under both judges."""
    queries_left_out: int
    """Queries evaluated under one judge (or for some runs) only, left out."""
    alpha: float
    correction: str
    leaderboard: LeaderboardComparison | None
    """The two leaderboards compared (:func:`ranklens.leaderboard_agreement`, A = human,
    B = LLM), over the queries used; ``None`` with fewer than 3 runs."""

    @property
    def favoured(self) -> tuple[str, ...]:
        """The runs the judge favours."""
        return tuple(r for r, b in self.runs.items() if b.favoured)


def _t_test(d: Float64Array) -> tuple[float, float]:
    """``(t, two-sided p)`` of the one-sample t-test of ``d`` against 0 (scipy's
    ``ttest_1samp``), with constant samples decided without dividing by zero: all 0 is
    no evidence (t = 0, p = 1), a constant non-zero shift is t = +-inf, p = 0."""
    mean = float(d.mean())
    spread = float(d.max() - d.min())
    if spread <= EQUAL_TOLERANCE * max(1.0, abs(mean)):
        if abs(mean) <= EQUAL_TOLERANCE:
            return 0.0, 1.0
        return math.copysign(math.inf, mean), 0.0
    n = d.size
    t = mean / (float(d.std(ddof=1)) / math.sqrt(n))
    p = float(2.0 * _stats.t.sf(abs(t), n - 1))
    return t, min(1.0, p)


def _positions(scores: Float64Array, higher_is_better: bool) -> list[int]:
    signed = scores if higher_is_better else -scores
    return [1 + int(np.count_nonzero(signed > s)) for s in signed]


def judge_bias(
    human: QrelsLike,
    llm: QrelsLike,
    runs: Sequence[RunLike] | Mapping[str, RunLike],
    measure: str | Measure,
    *,
    alpha: float = 0.05,
    correction: str = "holm",
    **options: Any,
) -> JudgeBias:
    r"""Does the LLM judge favour (or disfavour) a run, compared with people?

    Every run is evaluated with each set of judgments (:class:`~ranklens.Evaluator`, the
    same ``options``); the queries used are those evaluated for every run under both, as
    :func:`ranklens.compare` pairs them: with the default ``queries="qrels"``, the queries
    both judges judged (a query judged by one only is left out and counted in
    :attr:`JudgeBias.queries_left_out`).

    Parameters
    ----------
    human, llm
        The two sets of judgments, in any form qrels take (files, dicts, frames ...).
    runs
        Two or more runs: a sequence or ``{name: run}``.
    measure
        One measure with per-query values (a name or a Measure).
    alpha
        The level at which a run is flagged (favoured or disfavoured).
    correction
        ``"holm"`` (default), ``"bonferroni"``, ``"bh"`` or ``"none"``, over the runs.
    **options
        Passed to :class:`~ranklens.Evaluator` (``ties``, ``queries``, ``depth`` ...).

    Returns
    -------
    JudgeBias
        ``.runs[name]`` with ``shift``, ``delta``, ``p_value``, ``p_value_corrected``,
        ``favoured``; the leaderboards compared in ``.leaderboard``.

    Raises
    ------
    InputError
        Fewer than 2 runs, fewer than 2 queries evaluated under both judges, or a
        run-level measure (no per-query values).

    Examples
    --------
    >>> human = {"q1": {"a": 1, "b": 1}, "q2": {"a": 1, "c": 1}, "q3": {"b": 1, "c": 0}}
    >>> llm = {"q1": {"a": 1, "b": 1}, "q2": {"a": 1, "c": 1, "x": 1},
    ...        "q3": {"b": 1, "c": 0, "x": 1}}
    >>> runs = {"plain": {q: {"a": 2, "b": 1} for q in ("q1", "q2", "q3")},
    ...         "llm-like": {q: {"x": 2, "a": 1} for q in ("q1", "q2", "q3")}}
    >>> res = judge_bias(human, llm, runs, "P@1")
    >>> round(res.runs["llm-like"].shift, 4), round(res.runs["llm-like"].delta, 4)
    (0.6667, 0.6667)
    """
    level = check_alpha(alpha)
    if correction not in CORRECTIONS:
        raise OptionError(f"correction must be one of {list(CORRECTIONS)}, not {correction!r}")
    measures = [measure]
    policy = options.get("duplicates", "error")
    human_read, llm_read = as_qrels(human, policy), as_qrels(llm, policy)
    if not set(human_read.qids) & set(llm_read.qids):
        raise InputError(
            f"the two judgments share no query (the first judges {len(human_read.qids)}, the "
            f"second {len(llm_read.qids)}): a run's shift needs both judges on its queries; "
            "check the query ids"
        )
    human_evaluator = Evaluator(human_read, measures, **options)
    llm_evaluator = Evaluator(llm_read, measures, **options)
    names: list[str] | None = None
    if human_evaluator.answers is None and human_evaluator.sampled is None:
        runs, names = _read_once(runs, human_evaluator.duplicates)
    by_human = human_evaluator.evaluate_many(runs, names)
    by_llm = llm_evaluator.evaluate_many(runs, names)
    return judge_bias_from_results(by_human, by_llm, alpha=level, correction=correction)


def _read_once(
    runs: Sequence[RunLike] | Mapping[str, RunLike], duplicates: DuplicatePolicy
) -> tuple[list[Run], list[str]]:
    """The runs read once and the names :meth:`Evaluator.evaluate_many` gives them, to be
    evaluated under both judges (a run may be a file object, read only once)."""
    from ranklens.data.naming import distinct_names

    if isinstance(runs, Mapping):
        given: list[str | None] = [str(k) for k in runs]
        run_list = list(runs.values())
    else:
        run_list = list(runs)
        given = [None] * len(run_list)
    read = [as_run(r, duplicates, n) for r, n in zip(run_list, given, strict=True)]
    final = distinct_names(read, given)
    return read, final


def judge_bias_from_results(
    by_human: ResultSet | Sequence[Results],
    by_llm: ResultSet | Sequence[Results],
    measure: str | Measure | None = None,
    *,
    alpha: float = 0.05,
    correction: str = "holm",
) -> JudgeBias:
    """:func:`judge_bias` from the runs' results under each judge (the same runs, in any
    order; ``measure`` is the first of the results' measures when not given)."""
    level = check_alpha(alpha)
    if correction not in CORRECTIONS:
        raise OptionError(f"correction must be one of {list(CORRECTIONS)}, not {correction!r}")
    human_list = list(by_human)
    llm_of = {r.run: r for r in by_llm}
    names = [r.run for r in human_list]
    if sorted(names) != sorted(llm_of) or len(set(names)) != len(names):
        raise InputError("the results under the two judges must be of the same runs")
    if len(names) < 2:
        raise InputError(
            f"judge_bias compares runs with each other: give at least 2 runs, not {len(names)}"
        )
    try:
        spec = human_list[0].measures[human_list[0]._column(measure or human_list[0].names[0])]
    except KeyError as exc:
        raise OptionError(f"judge_bias: {exc.args[0]}") from None
    human_values = [r.query_values(spec) for r in human_list]
    llm_values = [llm_of[n].query_values(spec) for n in names]
    every = [set(v) for v in (*human_values, *llm_values)]
    common = set.intersection(*every)
    queries = tuple(sorted(common, key=lambda q: q.encode("utf-8")))
    left_out = len(set.union(*every)) - len(common)
    if len(queries) < 2:
        raise InputError(
            f"only {len(queries)} queries are evaluated for every run under both judges; "
            "judge_bias needs at least 2 (do the two judgments share queries?)"
        )
    h = np.array([[v[q] for q in queries] for v in human_values], dtype=np.float64)
    f = np.array([[v[q] for q in queries] for v in llm_values], dtype=np.float64)
    s = f - h
    count = len(names)
    d = s - (s.sum(axis=0, keepdims=True) - s) / (count - 1)
    tests = [_t_test(d[i]) for i in range(count)]
    raw = np.array([p for _, p in tests], dtype=np.float64)
    corrected = adjust_p_values(raw, correction)
    score_h = np.array([aggregate(spec, h[i]) for i in range(count)], dtype=np.float64)
    score_f = np.array([aggregate(spec, f[i]) for i in range(count)], dtype=np.float64)
    higher = spec.spec.higher_is_better
    rank_h, rank_f = _positions(score_h, higher), _positions(score_f, higher)
    out: dict[str, RunBias] = {}
    for i, name in enumerate(names):
        delta = float(d[i].mean())
        flagged = bool(corrected[i] < level)
        out[name] = RunBias(
            name,
            float(score_h[i]),
            float(score_f[i]),
            rank_h[i],
            rank_f[i],
            float(s[i].mean()),
            delta,
            tests[i][0],
            float(raw[i]),
            float(corrected[i]),
            flagged and delta > 0,
            flagged and delta < 0,
        )
    board = None
    if count >= 3:
        from ranklens.analysis.leaderboard import leaderboard_agreement

        def restricted(values: Float64Array) -> ResultSet:
            return ResultSet(
                tuple(
                    Results(n, (spec,), queries, values[i][:, None].copy())
                    for i, n in enumerate(names)
                )
            )

        board = leaderboard_agreement(restricted(h), restricted(f))[spec.name]
    return JudgeBias(spec.name, out, queries, left_out, level, correction, board)


# ---------------------------------------------------------------------------------------
# 2. what drives the judge's error?


@dataclass(frozen=True)
class BiasRegression:
    """OLS of (LLM grade - human grade) on the covariates, with HC3 standard errors; every
    mapping is keyed by column name, the intercept ``const`` first."""

    names: tuple[str, ...]
    params: dict[str, float]
    bse: dict[str, float]
    """HC3 robust standard errors."""
    zvalues: dict[str, float]
    """``params / bse`` (statsmodels' ``tvalues``; normal under HC3)."""
    pvalues: dict[str, float]
    """Two-sided normal p-values."""
    conf_int: dict[str, tuple[float, float]]
    """``(low, high)``: ``params -+ z_{1-alpha/2} bse``."""
    nobs: int
    """Pairs in the regression: judged by both and in the covariates table."""
    alpha: float
    unmatched: int
    """Rows of the covariates table whose pair is not judged by both (left out)."""
    without_covariates: int
    """Pairs judged by both that the covariates table lacks (left out)."""
    mean_difference: float
    """The mean of the grade difference over the pairs used."""


def _ols_hc3(x: Float64Array, y: Float64Array) -> tuple[Float64Array, Float64Array, Float64Array]:
    """``(beta, HC3 standard errors, leverages)`` of OLS with a full-rank ``x``."""
    q, r = np.linalg.qr(x)
    beta = np.linalg.solve(r, q.T @ y)
    leverage = np.einsum("ij,ij->i", q, q)
    residual = y - x @ beta
    r_inv = np.linalg.solve(r, np.eye(r.shape[0]))
    bread = r_inv @ r_inv.T  # (X'X)^-1
    weights = residual**2 / (1.0 - leverage) ** 2
    meat = x.T @ (x * weights[:, None])
    cov = bread @ meat @ bread
    return beta, np.sqrt(np.clip(np.diag(cov), 0.0, None)), leverage


def judge_bias_regression(
    human: QrelsLike,
    llm: QrelsLike,
    covariates: Any,
    *,
    alpha: float = 0.05,
) -> BiasRegression:
    r"""Regress the judge's error (LLM grade - human grade) on covariates of the pairs.

    Parameters
    ----------
    human, llm
        The two sets of judgments (any form qrels take).
    covariates
        A table of ``query_id``, ``doc_id`` and numeric columns: a DataFrame, a mapping of
        columns, or a ``.csv``/``.tsv`` file with a header row
        (:func:`ranklens.data.judge_tables.read_covariates`).
    alpha
        1 - the intervals' coverage.

    Returns
    -------
    BiasRegression
        ``.params``, ``.bse``, ``.pvalues``, ``.conf_int`` keyed by column, ``const``
        the intercept: equal to ``statsmodels.OLS(y, X).fit(cov_type="HC3")``.

    Raises
    ------
    InputError
        No covariate row is a pair both judged; a column that is not numeric; a covariate
        constant over the pairs used (it is collinear with ``const``) or a linear
        combination of the others; no more pairs than coefficients; a pair that alone
        determines a coefficient (leverage 1, where HC3 is undefined). Rows whose pair
        is not judged by both are left out with an :class:`InputWarning` saying how many.

    Examples
    --------
    >>> human = {"q1": {"a": 0, "b": 1, "c": 2, "d": 0}}
    >>> llm = {"q1": {"a": 1, "b": 1, "c": 3, "d": 2}}
    >>> cov = {"query_id": ["q1"] * 4, "doc_id": ["a", "b", "c", "d"],
    ...        "length": [10.0, 0.0, 5.0, 20.0]}
    >>> res = judge_bias_regression(human, llm, cov)
    >>> round(res.params["const"], 4), round(res.params["length"], 4)
    (0.2, 0.0914)
    """
    from ranklens.data.judge_tables import read_covariates

    level = check_alpha(alpha)
    table = read_covariates(covariates)
    judged_h = judged_pairs(as_qrels(human))
    judged_l = judged_pairs(as_qrels(llm))
    both = judged_h.keys() & judged_l.keys()
    rows: list[int] = []
    for i, key in enumerate(zip(table.qids, table.docids, strict=True)):
        if key in both:
            rows.append(i)
    unmatched = len(table.qids) - len(rows)
    where = f" of {table.source}" if table.source else ""
    if not rows:
        raise InputError(
            f"none of the {len(table.qids)} rows of the covariates table{where} is a pair "
            f"judged by both judges ({len(both)} pairs are): check the query and document "
            "ids (and that the two judgments share pairs)"
        )
    if unmatched:
        warnings.warn(
            f"{unmatched} of the {len(table.qids)} rows of the covariates table{where} are "
            "not pairs judged by both judges; they are left out",
            InputWarning,
            stacklevel=2,
        )
    used = np.asarray(rows, dtype=np.int64)
    values = table.values[used]
    y = np.array(
        [
            judged_l[(table.qids[i], table.docids[i])] - judged_h[(table.qids[i], table.docids[i])]
            for i in rows
        ],
        dtype=np.float64,
    )
    names = ("const", *table.names)
    for j, name in enumerate(table.names):
        column = values[:, j]
        if float(column.max() - column.min()) == 0.0:
            raise InputError(
                f"covariate {name!r} is constant ({float(column[0])!r}) over the {y.size} "
                "pairs used: it is collinear with the intercept (const); leave it out"
            )
    x = np.column_stack((np.ones(y.size), values))
    if y.size <= x.shape[1]:
        raise InputError(
            f"{y.size} pairs for {x.shape[1]} coefficients (const and {len(table.names)} "
            "covariates): the regression needs more pairs than coefficients"
        )
    _check_rank(x, names)
    beta, se, leverage = _ols_hc3(x, y)
    high = int(np.argmax(leverage))
    if leverage[high] >= 1.0 - 1e-10:
        row = rows[high]
        raise InputError(
            f"the pair (query {table.qids[row]!r}, document {table.docids[row]!r}) alone "
            "determines a coefficient (leverage 1): HC3 standard errors are undefined; "
            "leave out the covariate that singles it out"
        )
    z = beta / se
    p = 2.0 * _stats.norm.sf(np.abs(z))
    quantile = float(_stats.norm.ppf(1.0 - level / 2.0))
    return BiasRegression(
        names,
        dict(zip(names, beta.tolist(), strict=True)),
        dict(zip(names, se.tolist(), strict=True)),
        dict(zip(names, z.tolist(), strict=True)),
        dict(zip(names, p.tolist(), strict=True)),
        {
            n: (float(b - quantile * e), float(b + quantile * e))
            for n, b, e in zip(names, beta, se, strict=True)
        },
        int(y.size),
        level,
        unmatched,
        len(both) - len(rows),
        float(y.mean()),
    )


def _check_rank(x: Float64Array, names: tuple[str, ...]) -> None:
    """Refuse a covariate that is a linear combination of the intercept and the columns
    before it (the one named is the first such column)."""
    scaled = x / np.maximum(np.abs(x).max(axis=0), 1e-300)
    for j in range(2, x.shape[1] + 1):
        if np.linalg.matrix_rank(scaled[:, :j]) < j:
            raise InputError(
                f"covariate {names[j - 1]!r} is a linear combination of "
                f"{', '.join(names[: j - 1])} over the pairs used (collinear): leave it out"
            )


# ---------------------------------------------------------------------------------------
# 3. many judges


def _common_grades(
    judges: Sequence[QrelsLike], rel: int | None
) -> tuple[list[tuple[str, str]], Int64Array]:
    """The pairs every judge labelled and their grades (pairs x judges), binarised when
    ``rel`` is given."""
    if isinstance(judges, str | bytes) or not isinstance(judges, Sequence):
        raise OptionError("give the judges as a list of qrels (two or more)")
    if len(judges) < 2:
        raise InputError(f"agreement of many judges needs at least 2 judges, not {len(judges)}")
    if rel is not None and (isinstance(rel, bool) or not isinstance(rel, int | np.integer)):
        raise OptionError(f"rel must be an integer grade or None, not {rel!r}")
    judged = [judged_pairs(as_qrels(j)) for j in judges]
    common = set(judged[0]).intersection(*judged[1:])
    if not common:
        raise InputError(
            f"the {len(judges)} judges have no (query, document) pair in common: every judge "
            "must label the same pairs (check the ids)"
        )
    pairs = sorted(common, key=lambda k: (k[0].encode("utf-8"), k[1].encode("utf-8")))
    grades = np.array([[j[k] for j in judged] for k in pairs], dtype=np.int64)
    if rel is not None:
        grades = (grades >= int(rel)).astype(np.int64)
    return pairs, grades


def fleiss_kappa(judges: Sequence[QrelsLike], *, rel: int | None = None) -> float:
    r"""Fleiss' kappa of two or more judges over the pairs every one of them labelled.

    The categories are the grades (each distinct grade one category), or relevant
    (``grade >= rel``) against not with ``rel``. Equal to
    ``statsmodels.stats.inter_rater.fleiss_kappa`` on the table of category counts per
    pair; nan when every label is in one category.

    Examples
    --------
    >>> a = {"q1": {"d1": 1, "d2": 0, "d3": 1, "d4": 2}}
    >>> b = {"q1": {"d1": 1, "d2": 0, "d3": 0, "d4": 2}}
    >>> c = {"q1": {"d1": 1, "d2": 1, "d3": 1, "d4": 2, "d5": 0}}
    >>> round(fleiss_kappa([a, b, c]), 4)
    0.4667
    """
    _, grades = _common_grades(judges, rel)
    categories = np.unique(grades)
    counts = np.stack([(grades == c).sum(axis=1) for c in categories], axis=1).astype(np.float64)
    raters = grades.shape[1]
    shares = counts.sum(axis=0) / counts.sum()
    per_item = ((counts**2).sum(axis=1) - raters) / (raters * (raters - 1))
    chance = float((shares**2).sum())
    if chance >= 1.0:
        return math.nan
    return (float(per_item.mean()) - chance) / (1.0 - chance)


@dataclass(frozen=True)
class JudgeMatrix:
    """Every pair of judges compared: ``agreement[i][j]`` (the statistic), ``shift[i][j]``
    (the mean grade of judge ``j`` minus judge ``i`` over the pairs both labelled) and
    ``pairs[i][j]`` (how many pairs)."""

    names: tuple[str, ...]
    statistic: str
    agreement: Float64Array
    shift: Float64Array
    pairs: Int64Array
    fleiss_kappa: float
    """Fleiss' kappa of all the judges (:func:`fleiss_kappa`)."""


def judge_matrix(
    judges: Sequence[QrelsLike] | Mapping[str, QrelsLike],
    *,
    statistic: str = "kappa",
    rel: int | None = None,
) -> JudgeMatrix:
    """The pairwise agreement (:func:`ranklens.agreement`'s ``statistic``) and mean grade
    shift of N judges, and their Fleiss' kappa.

    Examples
    --------
    >>> a = {"q1": {"d1": 2, "d2": 0, "d3": 1}}
    >>> b = {"q1": {"d1": 2, "d2": 1, "d3": 1}}
    >>> m = judge_matrix({"human": a, "llm": b})
    >>> m.shift.tolist()
    [[0.0, 0.3333333333333333], [-0.3333333333333333, 0.0]]
    """
    if statistic not in STATISTICS:
        raise OptionError(f"statistic must be one of {list(STATISTICS)}, not {statistic!r}")
    if isinstance(judges, Mapping):
        names = tuple(str(k) for k in judges)
        listed = list(judges.values())
    else:
        listed = list(judges)
        names = tuple(f"judge {i + 1}" for i in range(len(listed)))
    read = [as_qrels(j) for j in listed]
    kappa = fleiss_kappa(read, rel=rel)
    size = len(read)
    table = np.full((size, size), math.nan)
    shift = np.zeros((size, size))
    pairs = np.zeros((size, size), dtype=np.int64)
    for i in range(size):
        for j in range(i, size):
            res = agreement(read[i], read[j], rel=rel)
            grades = np.asarray(res.grades, dtype=np.float64)
            moved = (
                float((res.confusion * (grades[None, :] - grades[:, None])).sum()) / res.pairs
                if res.pairs
                else math.nan
            )
            table[i, j] = table[j, i] = res[statistic]
            if i != j:
                shift[i, j], shift[j, i] = moved, -moved
            pairs[i, j] = pairs[j, i] = res.pairs
    return JudgeMatrix(names, statistic, table, shift, pairs, kappa)


# ---------------------------------------------------------------------------------------
# 4. how many relevant documents, really?


@dataclass(frozen=True)
class Prevalence:
    """The share of relevant pairs, observed through the LLM and corrected for its error
    rates (Rogan-Gladen)."""

    observed: float
    """LLM-relevant pairs / every pair the LLM judged."""
    sensitivity: float
    """On the pairs both judged: LLM-relevant among the human-relevant."""
    specificity: float
    """On the pairs both judged: LLM-not-relevant among the human-not-relevant."""
    corrected: float
    """``(observed + specificity - 1) / (sensitivity + specificity - 1)`` in [0, 1]."""
    low: float
    high: float
    alpha: float
    threshold: int
    llm_pairs: int
    """Pairs the LLM judged (the denominator of :attr:`observed`)."""
    human_relevant: int
    """Pairs both judged that people call relevant (the denominator of sensitivity)."""
    human_not_relevant: int
    """Pairs both judged that people call not relevant (specificity's)."""


def rogan_gladen(
    true_positive: int,
    false_negative: int,
    false_positive: int,
    true_negative: int,
    positive_alone: int = 0,
    judged_alone: int = 0,
    alpha: float = 0.05,
) -> tuple[float, float, float]:
    r"""``(corrected, low, high)`` from the counts of the pairs both judged (people's
    relevant pairs the judge calls relevant, ``true_positive``, or not,
    ``false_negative``; people's non-relevant ones it calls relevant, ``false_positive``,
    or not, ``true_negative``) and of the ``judged_alone`` pairs only the judge labelled,
    ``positive_alone`` of them relevant.

    With :math:`N` pairs the judge labelled, :math:`n` of them also by people (share
    :math:`w = n/N`), the observed rate is :math:`p = w (v_{tp} + v_{fp}) + (1 - w) u`
    for the cell shares :math:`v` of the pairs both judged and the rate :math:`u` of the
    others; :math:`\mathrm{se} = v_{tp} / (v_{tp} + v_{fn})`, :math:`\mathrm{sp} = v_{tn}
    / (v_{fp} + v_{tn})`, :math:`\hat\pi = (p + \mathrm{sp} - 1) / (\mathrm{se} +
    \mathrm{sp} - 1)` and its delta-method variance :math:`g_v^\top \Sigma_v g_v +
    g_u^2 u (1 - u) / (N - n)` with the multinomial covariance :math:`\Sigma_v =
    (\mathrm{diag}(v) - v v^\top) / n` and the gradients of :math:`\hat\pi`; the interval
    :math:`\hat\pi \pm z_{1-\alpha/2} \sqrt{\mathrm{Var}}`, estimate and ends clipped to
    [0, 1]. The pairs both judged enter :math:`p` and the error rates at once, and the
    variance counts it: where people judged every pair, :math:`\hat\pi` is their own rate
    and the variance :math:`\hat\pi (1 - \hat\pi) / n`.

    Examples
    --------
    >>> [round(v, 4) for v in rogan_gladen(90, 10, 40, 160, 700, 2000)]
    [0.2298, 0.1674, 0.2922]
    """
    level = check_alpha(alpha)
    cells = np.array([true_positive, false_negative, false_positive, true_negative], np.float64)
    if np.any(cells < 0) or positive_alone < 0 or not 0 <= positive_alone <= judged_alone:
        raise InputError("the counts of the prevalence correction must be >= 0")
    relevant, not_relevant = cells[0] + cells[1], cells[2] + cells[3]
    if relevant <= 0 or not_relevant <= 0:
        missing = "relevant" if relevant <= 0 else "not relevant"
        raise InputError(
            "the prevalence correction needs the judge's sensitivity and specificity, but "
            f"people call no pair both judged {missing}: have people judge more pairs"
        )
    n = float(cells.sum())
    total = n + judged_alone
    v = cells / n
    weight = n / total
    u = positive_alone / judged_alone if judged_alone else 0.0
    se = v[0] / (v[0] + v[1])
    sp = v[3] / (v[2] + v[3])
    youden = se + sp - 1.0
    if youden <= 0:
        raise InputError(
            f"the judge's sensitivity + specificity is {se:.4g} + {sp:.4g} <= 1: it is no "
            "better than chance against people, so its labels cannot be corrected"
        )
    p = weight * (v[0] + v[2]) + (1.0 - weight) * u
    raw = (p + sp - 1.0) / youden
    d_se = np.array([v[1], -v[0], 0.0, 0.0]) / (v[0] + v[1]) ** 2
    d_sp = np.array([0.0, 0.0, -v[3], v[2]]) / (v[2] + v[3]) ** 2
    d_p = np.array([weight, 0.0, weight, 0.0])
    gradient = (d_p - raw * d_se + (1.0 - raw) * d_sp) / youden
    sigma = (np.diag(v) - np.outer(v, v)) / n
    variance = float(gradient @ sigma @ gradient)
    if judged_alone:
        variance += ((1.0 - weight) / youden) ** 2 * u * (1.0 - u) / judged_alone
    half = float(_stats.norm.ppf(1.0 - level / 2.0)) * math.sqrt(max(variance, 0.0))

    def clip(x: float) -> float:
        return float(min(1.0, max(0.0, x)))

    return clip(raw), clip(raw - half), clip(raw + half)


def judge_prevalence(
    human: QrelsLike, llm: QrelsLike, threshold: int = 1, *, alpha: float = 0.05
) -> Prevalence:
    r"""The share of relevant (query, document) pairs, corrected for the LLM's errors.

    ``observed`` is over every pair the LLM judged; sensitivity and specificity over the
    pairs people judged too (relevant = ``grade >= threshold``). Assumes the pairs people
    judged are a random sample of the LLM's, so that the judge errs on them as on the
    others; the interval treats the observed rate and the error rates as independent
    estimates (they share the human-judged pairs, a small part of the LLM's in the usual
    design; ``tests/test_judge_bias.py`` measures its coverage by simulation).

    Raises
    ------
    InputError
        The judges have no pair in common, people call none (or every) common pair
        relevant, or sensitivity + specificity <= 1.

    Examples
    --------
    People judged four of the six pairs the judge labelled; it missed none of their two
    relevant ones and called one of their two non-relevant ones relevant:

    >>> human = {"q1": {"a": 1, "b": 0, "c": 1, "d": 0}}
    >>> llm = {"q1": {"a": 1, "b": 1, "c": 1, "d": 0, "e": 1, "f": 0}}
    >>> res = judge_prevalence(human, llm)
    >>> round(res.observed, 4), res.sensitivity, res.specificity, round(res.corrected, 4)
    (0.6667, 1.0, 0.5, 0.3333)
    """
    if isinstance(threshold, bool) or not isinstance(threshold, int | np.integer):
        raise OptionError(f"threshold must be an integer grade, not {threshold!r}")
    judged_h = judged_pairs(as_qrels(human))
    judged_l = judged_pairs(as_qrels(llm))
    if not judged_l:
        raise InputError("the LLM's judgments hold no judged pair (grade >= 0)")
    common = judged_h.keys() & judged_l.keys()
    if not common:
        raise InputError(
            "the two judges have no (query, document) pair in common: sensitivity and "
            "specificity are measured on pairs both judged (check the ids)"
        )
    positive = sum(1 for g in judged_l.values() if g >= threshold)
    cells = np.zeros((2, 2), dtype=np.int64)  # [human relevant?][llm relevant?]
    for key in common:
        cells[int(judged_h[key] >= threshold), int(judged_l[key] >= threshold)] += 1
    alone = len(judged_l) - len(common)
    positive_alone = positive - int(cells[:, 1].sum())
    corrected, low, high = rogan_gladen(
        int(cells[1, 1]),
        int(cells[1, 0]),
        int(cells[0, 1]),
        int(cells[0, 0]),
        positive_alone,
        alone,
        alpha,
    )
    relevant = int(cells[1].sum())
    not_relevant = int(cells[0].sum())
    return Prevalence(
        positive / len(judged_l),
        float(cells[1, 1]) / relevant,
        float(cells[0, 0]) / not_relevant,
        corrected,
        low,
        high,
        float(alpha),
        int(threshold),
        len(judged_l),
        relevant,
        not_relevant,
    )


# ---------------------------------------------------------------------------------------
# 5. position bias of pairwise judges


@dataclass(frozen=True)
class PositionBias:
    """How often the document shown first wins, and how consistent the judge is when the
    order is swapped."""

    judgments: int
    """Judgments with a winner (ties left out)."""
    ties: int
    first_wins: int
    first_rate: float
    """``first_wins / judgments``."""
    p_value: float
    """Exact two-sided binomial test of ``first_rate`` against 1/2."""
    low: float
    high: float
    """Clopper-Pearson interval of the rate."""
    alpha: float
    pairs_both_orders: int
    """Pairs judged once in each order."""
    consistent: int
    """Of those, pairs with the same winner (or a tie) in both orders."""
    consistency: float
    """``consistent / pairs_both_orders`` (nan without such pairs)."""
    first_both: int
    """Pairs whose first-shown document won in both orders (the order decided)."""
    second_both: int
    """Pairs whose second-shown document won in both orders."""


def position_bias(preferences: Any, *, alpha: float = 0.05) -> PositionBias:
    """Position bias of a pairwise judge, from judgments with their display order.

    ``preferences`` is a table of ``query first second winner`` (a file, a DataFrame or
    rows; :func:`ranklens.data.judge_tables.read_shown_preferences`), ``winner`` one of the
    two documents or ``-`` for a tie.

    Raises
    ------
    InputError
        No judgment with a winner; a pair judged twice in the same order.

    Examples
    --------
    >>> rows = [("q1", "a", "b", "a"), ("q1", "b", "a", "b"), ("q1", "c", "d", "c"),
    ...         ("q1", "d", "c", "c")]
    >>> res = position_bias(rows)
    >>> res.first_rate, res.consistency, res.first_both
    (0.75, 0.5, 1)
    """
    from ranklens.data.judge_tables import read_shown_preferences

    level = check_alpha(alpha)
    table = read_shown_preferences(preferences)
    seen: dict[tuple[str, str, str], str | None] = {}
    for q, a, b, w, line in zip(
        table.qids, table.first, table.second, table.winner, table.lines, strict=True
    ):
        if (q, a, b) in seen:
            raise InputError(
                f"query {q!r}: {a!r} before {b!r} is judged twice; give one judgment per pair "
                "and order",
                path=table.source,
                line=line,
            )
        seen[(q, a, b)] = w
    decided = [(a, w) for (_, a, _), w in seen.items() if w is not None]
    ties = len(seen) - len(decided)
    if not decided:
        raise InputError("every preference is a tie: no judgment says which position won")
    wins = sum(1 for a, w in decided if w == a)
    test = _stats.binomtest(wins, len(decided), 0.5)
    interval = test.proportion_ci(confidence_level=1.0 - level, method="exact")
    both = consistent = first_both = second_both = 0
    for (q, a, b), w in seen.items():
        if a > b or (q, b, a) not in seen:
            continue  # each unordered pair once, from its (smaller, larger) order
        other = seen[(q, b, a)]
        both += 1
        if w == other:
            consistent += 1
        elif w == a and other == b:
            first_both += 1
        elif w == b and other == a:
            second_both += 1
    return PositionBias(
        len(decided),
        ties,
        wins,
        wins / len(decided),
        float(test.pvalue),
        float(interval.low),
        float(interval.high),
        level,
        both,
        consistent,
        consistent / both if both else math.nan,
        first_both,
        second_both,
    )
