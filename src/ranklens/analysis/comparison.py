"""Compare runs with sound statistics: :func:`compare` and :class:`Comparison`.

Every run is compared with a baseline (or, with ``all_pairs=True``, every run with every
other) on every measure: the difference of the means, a paired significance test, its
p-value corrected for the comparisons of each measure, a confidence interval of the
difference, an effect size, and the queries won, tied and lost. The statistics themselves
live in :mod:`ranklens.analysis.stats`; see ``docs/compare.md`` for a worked example and the
definitions.

>>> import ranklens
>>> qrels = {"q1": {"a": 1}, "q2": {"b": 1}, "q3": {"c": 1}, "q4": {"d": 1}}
>>> good = {q: {d: 1.0, "x": 0.5} for q, j in qrels.items() for d in j}
>>> bad = {q: {"x": 1.0, d: 0.5} for q, j in qrels.items() for d in j}
>>> cmp = ranklens.compare(qrels, {"bad": bad, "good": good}, ["RR"], test="sign")
>>> cmp.means["good"]["RR"], cmp.means["bad"]["RR"]
(1.0, 0.5)
>>> st = cmp.vs_baseline["good"]["RR"]
>>> st.delta, st.wins, st.ties, st.losses, round(st.p_value, 4)
(0.5, 4, 0, 0, 0.125)
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, Literal, TypeAlias, TypeVar

import numpy as np

from ranklens.analysis import comparison_data
from ranklens.analysis.stats._validate import (
    check_alpha,
    check_confidence,
    check_count,
    check_seed,
    column_means,
    column_sds,
)
from ranklens.analysis.stats.bayesian import check_rope, prob_better, rope_probabilities, verdict
from ranklens.analysis.stats.bootstrap import bootstrap_test
from ranklens.analysis.stats.corrections import CORRECTIONS, adjust_p_values
from ranklens.analysis.stats.correlation import system_correlation
from ranklens.analysis.stats.effect_size import paired_cohens_d
from ranklens.analysis.stats.friedman import FriedmanResult
from ranklens.analysis.stats.paired_tests import (
    sign_test,
    t_interval,
    t_test,
    wilcoxon_test,
    wins_ties_losses,
)
from ranklens.analysis.stats.power import (
    minimum_detectable_difference,
    paired_t_power,
    topic_set_size,
)
from ranklens.analysis.stats.randomization import randomization_test
from ranklens.analysis.stats.risk import check_risk_alpha, risk_weighted, urisk_trisk
from ranklens.analysis.stats.tukey import TukeyHSD, tukey_hsd
from ranklens.base.errors import InputError, OptionError
from ranklens.base.progress import Progress, stage
from ranklens.base.types import (
    DuplicatePolicy,
    Float64Array,
    Int64Array,
    QueryPolicy,
    TiePolicy,
)
from ranklens.evaluation.results import ByMeasure, Results, aggregate, canonical_name
from ranklens.measures.base import Measure, is_run_level

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = [
    "TESTS",
    "ByMeasure",
    "Comparison",
    "Correlation",
    "PairStats",
    "compare",
    "compare_results",
]

Test: TypeAlias = Literal["t", "wilcoxon", "sign", "randomization", "bootstrap"]
TukeyKind: TypeAlias = Literal["blocked", "oneway"]
TESTS: tuple[Test, ...] = ("t", "wilcoxon", "sign", "randomization", "bootstrap")
TUKEY_KINDS: tuple[TukeyKind, ...] = ("blocked", "oneway")


@dataclass(frozen=True)
class PairStats:
    """One run against another on one measure (``run - other``).

    Attributes
    ----------
    delta : the mean of the per-query differences ``run - other``.
    p_value : the test's two-sided p-value.
    p_value_corrected : the p-value corrected over the comparisons of the measure.
    ci_low, ci_high : the confidence interval of ``delta``.
    effect_size : paired Cohen's d (``delta / sd``; +-inf when every difference is equal
        and not 0).
    wins, ties, losses : queries where the run is better, equal, worse (exact comparison;
        "better" is "lower" for measures where lower is better).
    significant : ``p_value_corrected <= alpha``.
    mdd : the minimum detectable difference: the smallest true difference that a paired
        t-test at level ``alpha`` over these queries detects with the comparison's
        ``power`` (80% by default), given the observed standard deviation of the per-query
        differences (:func:`~ranklens.analysis.stats.power.minimum_detectable_difference`).
    power : the power of that test to detect a true difference of ``|delta|``.
    topics_needed : how many queries that test needs to detect ``|delta|`` with the
        comparison's power (``None`` when ``delta`` is 0, up to 1e-12, or more than 10
        million would be needed).
    prob_better : the posterior probability that the run is better than the other, under
        the Jeffreys prior for normal paired differences: ``t_{n-1}.cdf(mean(d) /
        (s_d / sqrt(n)))`` with ``d = run - other`` (``other - run`` for measures where lower is
        better, so that it is always the probability of being *better*;
        :mod:`ranklens.analysis.stats.bayesian`).
    prob_equivalent : with ``compare(..., rope=r)``, the posterior probability that the true
        mean difference lies in ``[-r, r]`` (``None`` without a ROPE).
    verdict : with a ROPE, ``"better"``, ``"worse"``, ``"equivalent"`` or ``"undecided"``:
        ``"equivalent"`` when ``prob_equivalent`` reaches the comparison's ``confidence``,
        ``"better"``/``"worse"`` when the probability of a difference beyond the ROPE in
        that direction does; ``None`` without a ROPE.
    urisk, trisk : risk-sensitive comparison (Wang et al. 2012; Dinçer et al. 2014): with
        ``d`` the per-query differences (oriented so that positive is better) and
        ``w = d`` where ``d >= 0``, ``(1 + risk_alpha) d`` where ``d < 0``,
        ``urisk = mean(w)`` and ``trisk = urisk / (s_w / sqrt(n))``
        (:mod:`ranklens.analysis.stats.risk`).
    """

    delta: float
    p_value: float
    p_value_corrected: float
    ci_low: float
    ci_high: float
    effect_size: float
    wins: int
    ties: int
    losses: int
    significant: bool
    mdd: float = math.nan
    power: float = math.nan
    topics_needed: int | None = None
    prob_better: float = math.nan
    prob_equivalent: float | None = None
    verdict: str | None = None
    urisk: float = math.nan
    trisk: float = math.nan
    reverse_risk: tuple[float, float] = field(default=(math.nan, math.nan), repr=False)
    """``(urisk, trisk)`` of the comparison seen from the other run (risk is not
    symmetric): what :meth:`flipped` shows."""

    def flipped(self) -> PairStats:
        """The same comparison seen from the other run (``other - run``)."""
        swap = {"better": "worse", "worse": "better"}
        verdict = None if self.verdict is None else swap.get(self.verdict, self.verdict)
        return PairStats(
            -self.delta,
            self.p_value,
            self.p_value_corrected,
            -self.ci_high,
            -self.ci_low,
            -self.effect_size,
            self.losses,
            self.ties,
            self.wins,
            self.significant,
            self.mdd,
            self.power,
            self.topics_needed,
            1.0 - self.prob_better,
            self.prob_equivalent,
            verdict,
            self.reverse_risk[0],
            self.reverse_risk[1],
            (self.urisk, self.trisk),
        )

    def to_dict(self) -> dict[str, float | int | str | None]:
        """The JSON shape: twelve keys, then ``prob_better``, ``urisk``, ``trisk`` (and,
        with a ROPE, ``prob_equivalent`` and ``verdict``); ``None`` for non-finite
        numbers."""
        return comparison_data.pair_dict(self)


@dataclass(frozen=True)
class Correlation:
    """Kendall's tau-b and Spearman's rho between two orderings of the runs (by mean, best
    first): under two measures (``measure_x != measure_y``) or one measure under two qrels
    (``qrels_x != qrels_y``). nan when every run ties under one of them."""

    measure_x: str
    measure_y: str
    qrels_x: str
    qrels_y: str
    kendall_tau: float
    kendall_p: float
    spearman_rho: float
    spearman_p: float

    def to_dict(self) -> dict[str, Any]:
        """The JSON shape (``None`` for nan)."""
        return comparison_data.correlation_dict(self)


_V = TypeVar("_V")


def _by_measure(mapping: Mapping[str, _V]) -> ByMeasure[_V]:
    return mapping if isinstance(mapping, ByMeasure) else ByMeasure(mapping)


@dataclass(frozen=True, eq=False)
class Comparison:
    """The result of :func:`compare`: means and statistics of runs against a baseline.

    Attributes
    ----------
    measures : the measures' canonical names.
    runs : the runs' names, in the order given.
    baseline : the baseline's name.
    test, correction, alpha, confidence, permutations, seed, tukey_kind, power : the
        options.
    queries : the query ids compared (those common to all runs), in byte order.
    queries_dropped : how many queries some run had and another had not (left out).
    results : the :class:`~ranklens.Results` of each run (on all of its queries).
    means : ``{run: {measure: aggregate over queries}}`` (the mean, or the measure's own
        aggregate: sum for counts, geometric mean for GMAP).
    higher_is_better : ``{measure: bool}``.
    vs_baseline : ``{run: {measure: PairStats}}`` for every run but the baseline
        (``run - baseline``).
    pairs : ``{(a, b): {measure: PairStats}}`` (``b - a``, ``a`` before ``b`` in
        :attr:`runs`), for every pair with ``all_pairs``; empty otherwise.
    tukey : ``{measure: TukeyHSD}`` (systems in the order of :attr:`runs`) with
        ``all_pairs``; ``None`` otherwise.
    correlation : the rank correlations asked for (``correlate``, ``correlate_qrels``).
    rope : the half-width of the region of practical equivalence (``compare(...,
        rope=r)``), or ``None``.
    risk_alpha : the risk weight of :attr:`PairStats.urisk` and :attr:`PairStats.trisk`
        as given (``None``: not given, the default 1 is used).
    groups : ``{group: Comparison}`` with ``compare(..., groups=G)``: each group's queries
        compared alone, with every statistic exactly as :func:`compare` on those queries
        (groups in the order they first appear in ``G``).
    notes : sentences on what could not be computed (a group with too few queries for a
        paired test: its p-values, intervals and effect sizes are nan).
    """

    measures: tuple[str, ...]
    runs: tuple[str, ...]
    baseline: str
    test: str
    correction: str
    alpha: float
    confidence: float
    permutations: int
    seed: int
    queries: tuple[str, ...]
    queries_dropped: int
    results: tuple[Results, ...]
    means: Mapping[str, Mapping[str, float]]
    higher_is_better: Mapping[str, bool]
    vs_baseline: Mapping[str, Mapping[str, PairStats]]
    pairs: Mapping[tuple[str, str], Mapping[str, PairStats]]
    tukey: Mapping[str, TukeyHSD] | None
    tukey_kind: str
    correlation: tuple[Correlation, ...] = ()
    power: float = 0.8
    flips: Mapping[tuple[str, str], Mapping[str, Any]] | None = None
    """With ``compare(..., bounds=True)``: for each comparison ``(other, run)`` (``run -
    other``; the baseline first) and measure, a
    :class:`~ranklens.analysis.comparison_bounds.PairBounds`: whether it could flip or lose
    significance over the gradings of the unjudged documents (docs/incomplete.md)."""
    rope: float | None = None
    risk_alpha: float | None = None
    groups: Mapping[str, Comparison] = field(default_factory=dict)
    notes: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        # every measure-keyed mapping answers to every spelling of its measures
        set_field = object.__setattr__
        set_field(self, "means", {r: _by_measure(m) for r, m in self.means.items()})
        set_field(self, "higher_is_better", _by_measure(self.higher_is_better))
        set_field(self, "vs_baseline", {r: _by_measure(m) for r, m in self.vs_baseline.items()})
        set_field(self, "pairs", {k: _by_measure(m) for k, m in self.pairs.items()})
        if self.tukey is not None:
            set_field(self, "tukey", _by_measure(self.tukey))
        if self.flips is not None:
            set_field(self, "flips", {k: _by_measure(m) for k, m in self.flips.items()})

    @property
    def all_pairs(self) -> bool:
        """Whether every pair of runs was compared."""
        return bool(self.pairs)

    def _measure(self, measure: Any) -> str:
        """The canonical name of ``measure`` (any spelling, or a Measure) among those
        compared."""
        if isinstance(measure, str) and measure in self.measures:
            return measure
        name = canonical_name(measure)
        if name is None or name not in self.measures:
            raise OptionError(
                f"measure {measure!r} was not compared (measures: {', '.join(self.measures)})"
            )
        return name

    def stats(self, run: str, measure: str, against: str | None = None) -> PairStats:
        """The statistics of ``run - against`` (default: the baseline) on ``measure``."""
        other = self.baseline if against is None else against
        for name in (run, other):
            if name not in self.runs:
                raise OptionError(f"no run named {name!r} (runs: {', '.join(self.runs)})")
        measure = self._measure(measure)
        if run == other:
            raise OptionError(f"a run is not compared with itself ({run!r})")
        if other == self.baseline:
            return self.vs_baseline[run][measure]
        if run == self.baseline:
            return self.vs_baseline[other][measure].flipped()
        if (other, run) in self.pairs:
            return self.pairs[(other, run)][measure]
        if (run, other) in self.pairs:
            return self.pairs[(run, other)][measure].flipped()
        raise OptionError(
            f"{run!r} was compared with the baseline only, not with {other!r} (use all_pairs=True)"
        )

    @cached_property
    def ranks(self) -> Mapping[str, Mapping[str, tuple[int, int]]]:
        """``{measure: {run: (best, worst)}}``: the rank interval of each run, from the
        comparison's own corrected all-pairs decisions (``all_pairs=True``): ``best`` is 1
        plus the number of runs significantly better than the run, ``worst`` the number of
        runs ``k`` minus the number significantly worse. A run whose best rank is 1 is tied
        with the top (:meth:`tied_with_first`).

        Raises
        ------
        OptionError
            The comparison was made against the baseline only.
        """
        if not self.pairs:
            raise OptionError(
                "rank intervals need every pair of runs compared: compare with all_pairs=True "
                "(--all-pairs)"
            )
        return _by_measure({m: comparison_data.rank_intervals(self, m) for m in self.measures})

    def tied_with_first(self, measure: str) -> tuple[str, ...]:
        """The runs that no run is significantly better than on ``measure`` (best rank 1
        in :attr:`ranks`), in the order of :attr:`runs`."""
        intervals = self.ranks[self._measure(measure)]
        return tuple(r for r in self.runs if intervals[r][0] == 1)

    def values(self, measure: str) -> Float64Array:
        """The per-query values of ``measure`` compared: a matrix (queries x runs), the
        queries of :attr:`queries`, the runs of :attr:`runs`."""
        name = self._measure(measure)
        columns = []
        for r in self.results:
            rows = _rows(r, self.queries)
            columns.append(r.values[rows, r.names.index(name)])
        return np.column_stack(columns) if columns else np.empty((0, 0))

    def _per_query(self, measure: str, what: str) -> tuple[str, Float64Array]:
        name = self._measure(measure)
        if is_run_level(self.results[0].measures[self.results[0].names.index(name)]):
            raise OptionError(f"{what} needs per-query values; {name} is computed over the run")
        return name, self.values(name)

    def friedman(self, measure: str) -> FriedmanResult:
        """Friedman's test over all the runs on ``measure``, their mean ranks (``{run:
        rank}``, 1 = the best, ties averaged) and Nemenyi's critical difference at the
        comparison's ``alpha`` (Demšar 2006; :mod:`ranklens.analysis.stats.friedman`)."""
        from ranklens.analysis.stats.friedman import friedman_test

        name, x = self._per_query(measure, "Friedman's test")
        if x.shape[0] < 2:
            raise InputError(
                f"Friedman's test needs at least 2 queries, not {x.shape[0]}"
                + (f" ({self.notes[0]})" if self.notes else "")
            )
        return friedman_test(
            x, self.runs, higher_is_better=self.higher_is_better[name], alpha=self.alpha
        )

    def zrisk(self, measure: str) -> dict[str, float]:
        """``{run: ZRisk}`` of every run against all the runs at once (Dinçer, Macdonald
        and Ounis 2016) with the comparison's risk weight (:attr:`risk_alpha`, default 1);
        :mod:`ranklens.analysis.stats.risk`."""
        from ranklens.analysis.stats.risk import zrisk

        return dict(
            zip(self.runs, zrisk(self._risk_values(measure), self._alpha_of_risk), strict=True)
        )

    def georisk(self, measure: str) -> dict[str, float]:
        """``{run: GeoRisk}``: the geometric mean of each run's mean and of its
        normalised ZRisk (Dinçer et al. 2016); higher is better."""
        from ranklens.analysis.stats.risk import georisk

        return dict(
            zip(self.runs, georisk(self._risk_values(measure), self._alpha_of_risk), strict=True)
        )

    @property
    def _alpha_of_risk(self) -> float:
        return 1.0 if self.risk_alpha is None else self.risk_alpha

    def _risk_values(self, measure: str) -> Float64Array:
        name, x = self._per_query(measure, "ZRisk and GeoRisk")
        if not self.higher_is_better[name]:
            raise OptionError(
                f"ZRisk and GeoRisk need a measure where higher is better, not {name}"
            )
        if x.shape[0] < 1:
            raise InputError("ZRisk and GeoRisk need at least 1 query")
        return x

    def power_notes(self) -> list[str]:
        """One sentence for each comparison that is not significant although the test had
        less than :attr:`power` to detect the difference observed: its absence of
        significance says little (see :attr:`PairStats.power`)."""
        from ranklens.analysis.comparison_data import power_notes

        return power_notes(self)

    def significant(self, run: str, measure: str, against: str | None = None) -> bool:
        """Whether ``run`` differs significantly from ``against`` (default: the baseline)
        on ``measure``, after the correction."""
        return self.stats(run, measure, against).significant

    def beats(self, run: str, measure: str) -> tuple[str, ...]:
        """The runs that ``run`` is significantly better than on ``measure`` (among the
        comparisons made: with the baseline only, or all pairs)."""
        return comparison_data.beaten(self, run, self._measure(measure))

    def to_dict(self) -> dict[str, Any]:
        """The shape of ``ranklens compare --format json``::

            {"measures": [...], "baseline": name, "test": name, "correction": name,
             "alpha": a, "runs": [{"name": n, "mean": {measure: v},
             "vs_baseline": {measure: {"delta", "p_value", "p_value_corrected", "ci_low",
             "ci_high", "effect_size", "wins", "ties", "losses"}}}]}

        ``vs_baseline`` is absent for the baseline itself; non-finite numbers are ``None``.
        With ``all_pairs``, also ``"pairs"`` and ``"tukey_hsd"``; with correlations,
        ``"correlation"``.
        """
        return comparison_data.to_dict(self)

    def to_json(self) -> str:
        """:meth:`to_dict` as one line of JSON."""
        return json.dumps(self.to_dict(), allow_nan=False)

    def to_pandas(self, pairs: bool = False) -> Any:
        """A pandas DataFrame of the comparison (see :meth:`to_records` for the columns)."""
        from ranklens.base.optional import require

        pd = require("pandas", "Comparison.to_pandas")
        frame = pd.DataFrame(comparison_data.columns(self, pairs))
        counts = [c for c in ("wins", "ties", "losses") if c in frame.columns]
        # counts stay integers (pandas' nullable Int64: the baseline's own rows have none)
        return frame.astype(dict.fromkeys(counts, "Int64"))

    def to_polars(self, pairs: bool = False) -> Any:
        """A polars DataFrame of the comparison (see :meth:`to_records` for the columns)."""
        from ranklens.base.optional import require

        pl = require("polars", "Comparison.to_polars")
        return pl.DataFrame(comparison_data.columns(self, pairs))

    def to_records(self, pairs: bool = False) -> list[dict[str, Any]]:
        """The comparison as rows (plain data; :meth:`to_pandas` and :meth:`to_polars`
        build their frames from the same columns).

        By default one row per run and measure: ``run, measure, mean, baseline, delta,
        p_value, p_value_corrected, ci_low, ci_high, effect_size, wins, ties, losses,
        significant, mdd, power, topics_needed, prob_better, urisk, trisk``, the
        statistics being ``run - baseline`` (``None`` on the baseline's
        own rows). With ``pairs=True``, one row per pair compared and measure (every pair
        with ``all_pairs``): ``run`` against ``against`` (``run - against``) with the same
        statistics and both means.
        """
        return comparison_data.rows(self, pairs)

    def to_markdown(self) -> str:
        """A GitHub Markdown table (significance as ``<sup>`` letters, best in bold),
        its legend and a table of the statistics."""
        from ranklens.presentation import comparison_format

        return comparison_format.to_markdown(self)

    def to_latex(self) -> str:
        """A booktabs table ready to paste: best value per column in bold, superscript
        letters naming the runs a value is significantly better than."""
        from ranklens.presentation import comparison_format

        return comparison_format.to_latex(self)

    def to_csv(self) -> str:
        """One row per (run, measure) with every statistic (and, with ``all_pairs``, one
        row per other pair)."""
        from ranklens.presentation import comparison_format

        return comparison_format.to_csv(self)

    def plot_delta(
        self, run: str, measure: str, against: str | None = None, *, ax: Axes | None = None
    ) -> Figure:
        """The per-query differences ``run - against`` (default: the baseline) of
        ``measure``, sorted, as bars; see :func:`ranklens.presentation.plots.plot_delta`."""
        from ranklens.presentation.plots import plot_delta

        other = self.baseline if against is None else against
        for name in (run, other):
            if name not in self.runs:
                raise OptionError(f"no run named {name!r} (runs: {', '.join(self.runs)})")
        by_name = dict(zip(self.runs, self.results, strict=True))
        return plot_delta(by_name[other], by_name[run], measure, ax=ax)

    def plot_dist(self, measure: str, style: str = "box", *, ax: Axes | None = None) -> Figure:
        """The distribution of ``measure``'s per-query values, one box (or violin) per run;
        see :func:`ranklens.presentation.plots.plot_dist`."""
        from ranklens.presentation.plots import plot_dist

        return plot_dist(self.results, measure, style, ax=ax)

    def _repr_html_(self) -> str:
        """HTML tables for Jupyter: the means with significance letters and the statistics
        against the baseline (the report's summary section)."""
        from ranklens.presentation.reporting._build import significance_html

        return significance_html(self)

    def __str__(self) -> str:
        """The tables ``ranklens compare`` prints (plain text): ``print(comparison)``."""
        from ranklens.presentation import comparison_format

        return comparison_format.to_text(self)

    def __repr__(self) -> str:
        return (
            f"Comparison(runs={list(self.runs)!r}, baseline={self.baseline!r}, "
            f"measures={list(self.measures)!r}, test={self.test!r}, "
            f"correction={self.correction!r}, queries={len(self.queries)})"
        )


def _check_options(
    test: str,
    correction: str,
    alpha: float,
    confidence: float,
    permutations: int,
    seed: int,
    tukey: str,
) -> None:
    if test not in TESTS:
        raise OptionError(f"test must be one of {list(TESTS)}, not {test!r}")
    if correction not in CORRECTIONS:
        raise OptionError(f"correction must be one of {list(CORRECTIONS)}, not {correction!r}")
    if tukey not in TUKEY_KINDS:
        raise OptionError(f"tukey must be one of {list(TUKEY_KINDS)}, not {tukey!r}")
    check_alpha(alpha)
    check_confidence(confidence)
    check_count("permutations", permutations)
    check_seed(seed)


def _check_power(power: Any) -> None:
    if isinstance(power, bool) or not isinstance(power, int | float) or not 0 < power < 1:
        raise OptionError(f"power must be a number strictly between 0 and 1, not {power!r}")


def _power(
    d: Float64Array, delta: Float64Array, alpha: float, power: float
) -> tuple[Float64Array, Float64Array, list[int | None]]:
    """Per column of differences ``d``: the minimum detectable difference, the power to
    detect ``|delta|`` and the queries needed to detect it, for a paired t-test."""
    n = d.shape[0]
    sd = column_sds(d, delta)
    try:  # where a power cannot be computed precisely (alpha near 1e-300): no figure, nan
        effect = minimum_detectable_difference(n, 1.0, alpha, power)  # the MDD of sd = 1
    except OptionError:
        effect = math.nan
    mdd = sd * effect
    observed = np.empty_like(delta)
    needed: list[int | None] = []
    for c in range(delta.shape[0]):
        diff, s = abs(float(delta[c])), float(sd[c])
        if diff <= comparison_data.NEGLIGIBLE:  # a difference of 0 up to rounding of the mean
            diff = 0.0
        if s == 0:
            observed[c] = alpha if diff == 0 else 1.0
            needed.append(None if diff == 0 else 2)
            continue
        try:
            observed[c] = paired_t_power(n, diff, s * s, alpha) if diff > 0 else alpha
        except OptionError:
            observed[c] = math.nan
        try:
            needed.append(topic_set_size(diff, s * s, alpha, power) if diff > 0 else None)
        except OptionError:  # more than DEFAULT_MAX_TOPICS
            needed.append(None)
    return mdd, observed, needed


def _unique_names(names: Sequence[str]) -> tuple[str, ...]:
    seen: dict[str, int] = {}
    for i, name in enumerate(names):
        if name in seen:
            raise OptionError(
                f"runs {seen[name] + 1} and {i + 1} are both named {name!r}; give each run "
                "its own name (names=[...] or a mapping; --name on the command line)"
            )
        seen[name] = i
    return tuple(names)


def _common_queries(results: Sequence[Results]) -> tuple[tuple[str, ...], int]:
    first = results[0].queries
    if all(r.queries == first for r in results):
        return first, 0
    common = set(first).intersection(*(r.queries for r in results[1:]))
    union = set(first).union(*(r.queries for r in results[1:]))
    return tuple(q for q in first if q in common), len(union) - len(common)


def _rows(result: Results, queries: tuple[str, ...]) -> Int64Array:
    if result.queries == queries:
        return np.arange(len(queries), dtype=np.int64)
    index = {q: i for i, q in enumerate(result.queries)}
    return np.fromiter((index[q] for q in queries), dtype=np.int64, count=len(queries))


def _measure_columns(
    results: Sequence[Results], measures: Sequence[str] | None
) -> tuple[list[Measure], list[list[int]]]:
    """The measures compared and, per run, the column of each in its values."""
    first = results[0]
    for r in results[1:]:
        if sorted(r.names) != sorted(first.names):
            raise OptionError(
                f"the runs were not evaluated with the same measures ({r.run!r}: "
                f"{', '.join(r.names)}; {first.run!r}: {', '.join(first.names)})"
            )
    if measures is None:
        chosen = list(first.measures)
    else:
        from ranklens.evaluation.score_measures import measure_named

        chosen = []
        for m in [measures] if isinstance(measures, str) else measures:
            # also the names of scores read from files that ranklens does not know
            name = m.name if isinstance(m, Measure) else measure_named(str(m)).name
            if name not in first.names:
                raise OptionError(
                    f"measure {name!r} was not computed (measures: {', '.join(first.names)})"
                )
            chosen.append(first.measures[first.names.index(name)])
    if not chosen:
        raise OptionError("give at least one measure to compare")
    names = [m.name for m in chosen]
    if len(set(names)) != len(names):
        raise OptionError(f"a measure is named twice: {', '.join(names)}")
    return chosen, [[r.names.index(name) for name in names] for r in results]


@dataclass(frozen=True)
class _Columns:
    """The ordered comparisons computed: ``(measure, a, b)`` means ``run b - run a``."""

    keys: list[tuple[int, int, int]]
    family: dict[tuple[int, int, int], int]  # canonical (measure, a, b) -> column
    canonical: list[int]  # column of each key whose p-value is the family's


def _plan(num_measures: int, runs: int, base: int, all_pairs: bool) -> _Columns:
    if all_pairs:
        pairs = [(a, b) for a in range(runs) for b in range(a + 1, runs)]
    else:
        pairs = [(base, r) for r in range(runs) if r != base]
    keys: list[tuple[int, int, int]] = []
    family: dict[tuple[int, int, int], int] = {}
    for m in range(num_measures):
        for a, b in pairs:
            family[(m, a, b)] = len(keys)
            keys.append((m, a, b))
    for m in range(num_measures):
        for r in range(runs):
            if r != base and (m, base, r) not in family:
                keys.append((m, base, r))  # baseline after r: its mirror is in the family
    canonical = []
    for m, a, b in keys:
        canonical.append(family.get((m, a, b), family.get((m, b, a), -1)))
    return _Columns(keys, family, canonical)


def _test(
    test: str,
    d: Float64Array,
    permutations: int,
    seed: int,
    confidence: float,
    progress: Progress | None = None,
) -> tuple[Float64Array, Float64Array, Float64Array]:
    """p-values and confidence intervals of every column of ``d`` (``progress``: over the
    resamples, then the permutations)."""
    if test == "t":
        low, high = t_interval(d, confidence)
        return t_test(d).p_value, low, high
    total = permutations * (2 if test == "randomization" else 1)
    resampled = stage(progress, 0, permutations, total)
    boot = bootstrap_test(d, permutations, seed, confidence, progress=resampled)
    if test == "bootstrap":
        return boot.p_value, boot.ci_low, boot.ci_high
    if test == "randomization":
        flipped = stage(progress, permutations, permutations, total)
        p = randomization_test(d, permutations, seed, progress=flipped).p_value
    elif test == "wilcoxon":
        p = wilcoxon_test(d).p_value
    else:
        p = sign_test(d).p_value
    return p, boot.ci_low, boot.ci_high


def compare_results(
    results: Sequence[Results],
    measures: Sequence[str] | str | None = None,
    *,
    baseline: str | None = None,
    test: Test | str = "t",
    correction: str = "holm",
    alpha: float = 0.05,
    permutations: int = 10_000,
    seed: int = 42,
    confidence: float = 0.95,
    all_pairs: bool = False,
    tukey: TukeyKind | str = "oneway",
    names: Sequence[str] | None = None,
    correlate: bool = False,
    correlate_with: Sequence[Results] | None = None,
    qrels_labels: tuple[str, str] = ("qrels", "other qrels"),
    power: float = 0.8,
    progress: Progress | None = None,
    groups: Any = None,
    rope: float | None = None,
    risk_alpha: float | None = None,
) -> Comparison:
    """Compare already evaluated runs (the statistics part of :func:`compare`).

    Parameters
    ----------
    results
        One :class:`~ranklens.Results` per run, computed with the same measures.
    measures
        The measures to compare (default: all of them).
    names
        The runs' names (default: each Results' ``run``); they must be unique.
    correlate_with
        The same runs' Results under other qrels, in the same order: adds the correlation
        of the orderings of the runs under the two qrels, per measure, labelled with
        ``qrels_labels``.
    progress
        Called as ``progress(done, total)`` through the resampling tests' draws
        (:mod:`ranklens.base.progress`); the t-test is not long enough to report.

    See :func:`compare` for the other parameters.
    """
    _check_options(test, correction, alpha, confidence, permutations, seed, tukey)
    _check_power(power)
    check_rope(rope)
    if risk_alpha is not None:
        check_risk_alpha(risk_alpha)
    options: dict[str, Any] = {
        "baseline": baseline,
        "test": test,
        "correction": correction,
        "alpha": alpha,
        "permutations": permutations,
        "seed": seed,
        "confidence": confidence,
        "all_pairs": all_pairs,
        "tukey": tukey,
        "power": power,
        "rope": rope,
        "risk_alpha": risk_alpha,
    }
    whole = _compare_values(
        list(results),
        measures,
        names,
        correlate,
        correlate_with,
        qrels_labels,
        progress,
        options,
    )
    if groups is None:
        return whole
    from dataclasses import replace

    from ranklens.analysis.comparison_groups import group_comparisons

    def compare_group(part: Sequence[Results], group: str) -> Comparison:
        return _compare_values(
            part, whole.measures, whole.runs, False, None, qrels_labels, None, options, group
        )

    return replace(whole, groups=group_comparisons(whole, groups, compare_group))


def _compare_values(
    results: Sequence[Results],
    measures: Sequence[str] | str | None,
    names: Sequence[str] | None,
    correlate: bool,
    correlate_with: Sequence[Results] | None,
    qrels_labels: tuple[str, str],
    progress: Progress | None,
    options: dict[str, Any],
    group: str | None = None,
) -> Comparison:
    """The comparison of :func:`compare_results` (``group``: the name of a group of
    queries compared alone, which may have fewer than 2 queries: no tests then)."""
    baseline = options["baseline"]
    test, correction, alpha = options["test"], options["correction"], options["alpha"]
    permutations, seed = options["permutations"], options["seed"]
    confidence, all_pairs, tukey = options["confidence"], options["all_pairs"], options["tukey"]
    power, rope, risk_alpha = options["power"], options["rope"], options["risk_alpha"]
    results = list(results)
    if len(results) < 2:
        raise OptionError(f"comparing needs at least 2 runs, not {len(results)}")
    if names is not None and len(names) != len(results):
        raise OptionError(f"{len(names)} names for {len(results)} runs")
    run_names = _unique_names(list(names) if names is not None else [r.run for r in results])
    base_name = run_names[0] if baseline is None else baseline
    if base_name not in run_names:
        raise OptionError(
            f"no run named {base_name!r} to be the baseline (runs: {', '.join(run_names)})"
        )
    base = run_names.index(base_name)
    chosen, columns = _measure_columns(results, measures)
    measure_names = tuple(m.name for m in chosen)
    queries, dropped = _common_queries(results)
    notes: tuple[str, ...] = ()
    if len(queries) < 2:
        if group is None:
            raise InputError(
                f"the runs have {len(queries)} queries in common; paired tests need at least 2"
            )
        notes = (
            f"group {group!r}: {len(queries)} "
            f"{'query' if len(queries) == 1 else 'queries'} compared, too few for a paired "
            "test (at least 2): no p-values, intervals, effect sizes or rank statistics",
        )
    rows = [_rows(r, queries) for r in results]
    # values[m]: queries x runs
    values = [
        np.column_stack([r.values[rows[i], columns[i][j]] for i, r in enumerate(results)])
        for j in range(len(chosen))
    ]
    # run-level measures (Coverage@k, ...) have no per-query values: a bootstrap over users
    run_level = [j for j, m in enumerate(chosen) if is_run_level(m)]
    if run_level and all_pairs:
        raise OptionError(
            f"{', '.join(measure_names[j] for j in run_level)}: computed over the whole run, "
            "compared by a bootstrap over users; Tukey's HSD (all_pairs) needs per-query "
            "values: compare these measures without all_pairs"
        )
    for j in run_level:
        values[j] = np.zeros_like(values[j])  # placeholders, replaced below
    for j, x in enumerate(values):
        bad = ~np.all(np.isfinite(x), axis=0)
        if np.any(bad):
            culprit = run_names[int(np.argmax(bad))]
            raise InputError(f"{culprit}: {measure_names[j]} is not a finite number on some query")

    plan = _plan(len(chosen), len(results), base, all_pairs)
    d = np.column_stack([values[m][:, b] - values[m][:, a] for m, a, b in plan.keys])
    goodness = np.array([1.0 if chosen[m].spec.higher_is_better else -1.0 for m, _, _ in plan.keys])
    weight = 1.0 if risk_alpha is None else float(risk_alpha)
    run_level_means: dict[int, list[float]] = {}
    if notes:  # a group of fewer than 2 queries: differences and counts only
        nan = np.full(d.shape[1], math.nan)
        n = d.shape[0]
        delta = column_means(d) if n else nan.copy()
        wins, ties, losses = (np.sum(d > 0, axis=0), np.sum(d == 0, axis=0), np.sum(d < 0, axis=0))
        p, corrected, low, high, effect, mdd, power_observed = (nan.copy() for _ in range(7))
        needed: list[int | None] = [None] * d.shape[1]
        bayes: tuple[Float64Array, Float64Array, list[str | None]] = (
            nan.copy(),
            nan.copy(),
            [None] * d.shape[1],
        )
        forward, backward = (
            column_means(risk_weighted(sign * d * goodness, weight)) if n else nan.copy()
            for sign in (1.0, -1.0)
        )
        risk = (forward, nan.copy(), backward, nan.copy())
    else:
        delta = column_means(d)
        effect = paired_cohens_d(d)
        wins, ties, losses = wins_ties_losses(d)
        p, low, high = _test(test, d, permutations, seed, confidence, progress)
        bayes = _bayes(d * goodness, rope, confidence)
        risk = (*urisk_trisk(d * goodness, weight), *urisk_trisk(-d * goodness, weight))
        run_level_means = _run_level(
            results,
            chosen,
            run_level,
            rows,
            plan.keys,
            permutations,
            seed,
            confidence,
            (delta, p, low, high, effect, wins, ties, losses),
        )
        p = p[plan.canonical]  # a mirrored comparison has its canonical twin's p-value
        corrected = np.empty_like(p)
        for m in range(len(chosen)):
            members = [c for (mm, _, _), c in plan.family.items() if mm == m]
            adjusted = adjust_p_values(p[members], correction)
            corrected[members] = adjusted
        corrected = corrected[plan.canonical]
        mdd, power_observed, needed = _power(d, delta, alpha, power)
    for c, (m, _, _) in enumerate(plan.keys):
        if m in run_level:  # the power figures need per-query values
            mdd[c], power_observed[c], needed[c] = math.nan, math.nan, None
            for column in (*bayes[:2], *risk):
                column[c] = math.nan
            bayes[2][c] = None

    def stats(c: int) -> PairStats:
        m = plan.keys[c][0]
        w, lo = int(wins[c]), int(losses[c])
        if not chosen[m].spec.higher_is_better:
            w, lo = lo, w
        return PairStats(
            float(delta[c]),
            float(p[c]),
            float(corrected[c]),
            float(low[c]),
            float(high[c]),
            float(effect[c]),
            w,
            int(ties[c]),
            lo,
            bool(corrected[c] <= alpha),
            float(mdd[c]),
            float(power_observed[c]),
            needed[c],
            float(bayes[0][c]),
            None if bayes[2][c] is None else float(bayes[1][c]),
            bayes[2][c],
            float(risk[0][c]),
            float(risk[1][c]),
            (float(risk[2][c]), float(risk[3][c])),
        )

    vs_baseline: dict[str, dict[str, PairStats]] = {
        name: {} for i, name in enumerate(run_names) if i != base
    }
    pairs: dict[tuple[str, str], dict[str, PairStats]] = {}
    for c, (m, a, b) in enumerate(plan.keys):
        st = stats(c)
        if a == base:
            vs_baseline[run_names[b]][measure_names[m]] = st
        if all_pairs and (m, a, b) in plan.family:
            pairs.setdefault((run_names[a], run_names[b]), {})[measure_names[m]] = st

    means = {
        name: {
            m.name: run_level_means[j][i]
            if j in run_level
            else (aggregate(m, values[j][:, i]) if len(queries) else math.nan)
            for j, m in enumerate(chosen)
        }
        for i, name in enumerate(run_names)
    }
    hib = {m.name: m.spec.higher_is_better for m in chosen}
    tukey_results = None
    if all_pairs and not notes:
        tukey_results = {
            m.name: tukey_hsd(values[j], blocked=tukey == "blocked", confidence=confidence)
            for j, m in enumerate(chosen)
        }
    correlations = _correlations(run_names, chosen, means, correlate, correlate_with, qrels_labels)
    return Comparison(
        measures=measure_names,
        runs=run_names,
        baseline=base_name,
        test=test,
        correction=correction,
        alpha=float(alpha),
        confidence=float(confidence),
        permutations=int(permutations),
        seed=int(seed),
        queries=queries,
        queries_dropped=dropped,
        results=tuple(results),
        means=means,
        higher_is_better=hib,
        vs_baseline=vs_baseline,
        pairs=pairs,
        tukey=tukey_results,
        tukey_kind=tukey,
        correlation=correlations,
        power=float(power),
        rope=None if rope is None else float(rope),
        risk_alpha=None if risk_alpha is None else float(risk_alpha),
        notes=notes,
    )


def _bayes(
    good: Float64Array, rope: float | None, level: float
) -> tuple[Float64Array, Float64Array, list[str | None]]:
    """Per column of differences oriented so that positive is better: the probability of
    being better, of being practically equivalent (nan without a ROPE) and the verdict."""
    better = np.asarray(prob_better(good), dtype=np.float64).reshape(-1)
    if rope is None:
        return better, np.full(better.shape, math.nan), [None] * better.shape[0]
    below, inside, above = (np.asarray(v).reshape(-1) for v in rope_probabilities(good, rope))
    verdicts: list[str | None] = [
        verdict(float(lo), float(mid), float(hi), level)
        for lo, mid, hi in zip(below, inside, above, strict=True)
    ]
    return better, inside.astype(np.float64), verdicts


def _run_level(
    results: Sequence[Results],
    chosen: Sequence[Measure],
    run_level: Sequence[int],
    rows: Sequence[Int64Array],
    keys: Sequence[tuple[int, int, int]],
    resamples: int,
    seed: int,
    confidence: float,
    columns: tuple[np.ndarray, ...],
) -> dict[int, list[float]]:
    """Overwrite the comparisons of the run-level measures with the paired bootstrap over
    users (:mod:`ranklens.analysis.run_level`); their values over the shared users, per
    measure and run."""
    from ranklens.analysis import run_level as rl

    delta, p, low, high, effect, wins, ties, losses = columns
    means: dict[int, list[float]] = {}
    for j in run_level:
        means[j] = [rl.shared_value(r, chosen[j], rows[i]) for i, r in enumerate(results)]
        draws = rl.resampled_values(results, chosen[j], rows, resamples, seed)
        for c, (m, a, b) in enumerate(keys):
            if m != j:
                continue
            observed = means[j][b] - means[j][a]
            p[c], low[c], high[c] = rl.paired_bootstrap(
                observed, draws[:, b] - draws[:, a], confidence
            )
            delta[c], effect[c] = observed, math.nan
            wins[c] = ties[c] = losses[c] = 0
    return means


def _goodness(values: Iterable[float], higher_is_better: bool) -> list[float]:
    return [v if higher_is_better else -v for v in values]


def _correlations(
    names: tuple[str, ...],
    chosen: list[Measure],
    means: Mapping[str, Mapping[str, float]],
    correlate: bool,
    others: Sequence[Results] | None,
    labels: tuple[str, str],
) -> tuple[Correlation, ...]:
    if not correlate and others is None:
        return ()
    if len(names) < 3:
        raise OptionError(f"correlating orderings of runs needs at least 3 runs, not {len(names)}")
    out: list[Correlation] = []

    def scores(m: Measure) -> list[float]:
        return _goodness((means[n][m.name] for n in names), m.spec.higher_is_better)

    if correlate:
        if len(chosen) < 2:
            raise OptionError("correlating measures needs at least 2 measures")
        for i, mx in enumerate(chosen):
            for my in chosen[i + 1 :]:
                rc = system_correlation(scores(mx), scores(my))
                out.append(
                    Correlation(
                        mx.name,
                        my.name,
                        labels[0],
                        labels[0],
                        rc.kendall_tau,
                        rc.kendall_p,
                        rc.spearman_rho,
                        rc.spearman_p,
                    )
                )
    if others is not None:
        if len(others) != len(names):
            raise OptionError(f"{len(others)} results under the other qrels for {len(names)} runs")
        for m in chosen:
            other = _goodness((r[m.name] for r in others), m.spec.higher_is_better)
            rc = system_correlation(scores(m), other)
            out.append(
                Correlation(
                    m.name,
                    m.name,
                    labels[0],
                    labels[1],
                    rc.kendall_tau,
                    rc.kendall_p,
                    rc.spearman_rho,
                    rc.spearman_p,
                )
            )
    return tuple(out)


def _label(qrels: Any, default: str) -> str:
    if isinstance(qrels, str | os.PathLike) and str(qrels) != "-":
        return os.path.basename(os.fspath(qrels)) or str(qrels)
    return default


def compare(
    qrels: Any,
    runs: Sequence[Any] | Mapping[str, Any],
    measures: Iterable[str | Measure] | str,
    *,
    baseline: str | None = None,
    test: Test | str = "t",
    correction: str = "holm",
    alpha: float = 0.05,
    permutations: int = 10_000,
    seed: int = 42,
    confidence: float = 0.95,
    all_pairs: bool = False,
    tukey: TukeyKind | str = "oneway",
    names: Sequence[str] | None = None,
    correlate: bool = False,
    correlate_qrels: Any = None,
    power: float = 0.8,
    ties: TiePolicy = "trec_eval",
    queries: QueryPolicy = "qrels",
    depth: int | None = None,
    duplicates: DuplicatePolicy = "error",
    progress: Progress | None = None,
    popularity: Any = None,
    num_items: int | None = None,
    num_users: int | None = None,
    item_features: Any = None,
    train: Any = None,
    bounds: bool = False,
    max_grade: int | None = None,
    groups: Any = None,
    rope: float | None = None,
    risk_alpha: float | None = None,
) -> Comparison:
    """Evaluate runs and compare them with a baseline, with paired tests.

    Run-level measures (``Coverage@10``, ``Gini@10``, ``Entropy@10``) are compared by a
    paired bootstrap over users (:mod:`ranklens.analysis.run_level`); ``popularity``,
    ``num_items``, ``num_users``, ``item_features`` and ``train`` are the item data of the
    recommender measures (see
    :class:`~ranklens.Evaluator`).

    Parameters
    ----------
    qrels
        Relevance judgments (whatever :class:`~ranklens.Evaluator` accepts), or ``None``
        when every run is given as scores.
    runs
        Two or more runs (paths, :class:`~ranklens.Run` objects, dicts, ...), or a mapping
        ``{name: run}``. A run may also be its per-topic scores, computed earlier or
        elsewhere: a :class:`~ranklens.Results` or a :class:`~ranklens.ResultSet` (one
        run each of its), e.g. read by :func:`ranklens.read_scores` from ``trec_eval -q``
        output; without qrels, paths are score files. Scores are compared on the topics
        the ``queries`` policy keeps, as if ranklens had evaluated the runs
        (:mod:`ranklens.analysis.comparison_scores`, docs/scores.md).
    measures
        Measure names (``"nDCG@10"``, ``"AP"``, trec_eval names) or Measure objects.
    baseline
        The name of the run the others are compared with (default: the first).
    test
        ``"t"`` (paired t-test, default), ``"wilcoxon"`` (signed-rank), ``"sign"``,
        ``"randomization"`` (paired sign-flip, Smucker et al. 2007) or ``"bootstrap"``
        (paired, studentized shift method, Sakai 2006).
    correction
        Correction for multiple comparisons over the comparisons of each measure:
        ``"holm"`` (default), ``"bonferroni"``, ``"bh"`` (Benjamini-Hochberg) or ``"none"``.
    alpha
        Significance level of the corrected p-values.
    permutations
        Random sign flips of the randomization test, and resamples of the bootstrap
        (test and intervals).
    seed
        Seed of the random draws (default 42): the same seed gives the same p-values and
        intervals, whatever the number of threads. The draws depend only on the seed, the
        number of queries and ``permutations``, so each comparison's numbers do not depend
        on which other runs or measures are compared.
    confidence
        Level of the confidence intervals of the differences: a t-interval for ``"t"``,
        the percentile bootstrap interval (``permutations`` resamples) for the other tests.
    all_pairs
        Compare every pair of runs (the correction then covers all pairs of a measure),
        and add Tukey's HSD.
    tukey
        ``"oneway"`` (default; runs as independent groups, exactly
        :func:`scipy.stats.tukey_hsd`) or ``"blocked"`` (queries as blocks, two-way ANOVA,
        Carterette 2012: query difficulty leaves the error term, so it finds more
        differences; recommended for IR when the runs share their queries).
    names
        The runs' names (default: each run's tag; the file name's stem for runs that
        share a tag or have none, so ``bm25.run`` is ``bm25``).
    correlate
        Add Kendall's tau and Spearman's rho between the orderings of the runs under each
        pair of measures (at least 3 runs).
    correlate_qrels
        Other qrels: add the correlation of the orderings under ``qrels`` and under these,
        per measure.
    power
        The power of the minimum detectable difference and of the queries needed
        (:attr:`PairStats.mdd`, :attr:`PairStats.topics_needed`), computed for a paired
        t-test at level ``alpha`` (uncorrected) whatever ``test`` is.
    ties, queries, depth, duplicates
        As for :class:`~ranklens.Evaluator`. With ``queries="both"`` or ``"run"``, runs may
        have different queries: only those common to all runs are compared.
    progress
        Called as ``progress(done, total)`` while the randomization or bootstrap draws run
        (:mod:`ranklens.base.progress`; the command line draws a bar from it).
    bounds, max_grade
        Mark every comparison that could flip, or lose significance, over the gradings
        ``{0..max_grade}`` of the two runs' unjudged documents (:attr:`Comparison.flips`,
        :mod:`ranklens.analysis.comparison_bounds`); trec_eval's conventions only.
    groups
        Groups of queries (slices) to compare alone as well: a ``{query_id: group}``
        mapping or a two-column file (query id, group). :attr:`Comparison.groups` then
        holds, per group, the comparison of its queries alone, every statistic as
        ``compare`` gives on those queries (:mod:`ranklens.analysis.comparison_groups`).
    rope
        The half-width ``r`` of a region of practical equivalence: each comparison then
        gets :attr:`PairStats.prob_equivalent` (the posterior probability that the mean
        difference lies in ``[-r, r]``) and a :attr:`PairStats.verdict` (``"equivalent"``,
        ``"better"``, ``"worse"`` or ``"undecided"``, at the level ``confidence``).
    risk_alpha
        The risk weight ``a >= 0`` of :attr:`PairStats.urisk` and :attr:`PairStats.trisk`
        (a loss on a query weighs ``1 + a`` times a gain; default 1), and of
        :meth:`Comparison.zrisk` and :meth:`Comparison.georisk`.

    Returns
    -------
    Comparison
    """
    from ranklens.data.coerce import as_run
    from ranklens.data.naming import distinct_names
    from ranklens.evaluation.evaluator import Evaluator

    _check_options(test, correction, alpha, confidence, permutations, seed, tukey)
    _check_power(power)
    check_rope(rope)
    if risk_alpha is not None:
        check_risk_alpha(risk_alpha)
    if isinstance(runs, Mapping):
        if names is not None:
            raise OptionError("give the runs' names either as the mapping's keys or as names")
        names = [str(k) for k in runs]
        run_list = list(runs.values())
    elif isinstance(runs, str | os.PathLike):
        raise OptionError("runs must be a sequence (or mapping) of at least 2 runs")
    else:
        run_list = list(runs)
    if len(run_list) < 2:
        raise OptionError(f"comparing needs at least 2 runs, not {len(run_list)}")
    if names is not None:
        if len(names) != len(run_list):
            raise OptionError(f"{len(names)} names for {len(run_list)} runs")
        _unique_names(list(names))
    options: dict[str, Any] = {
        "ties": ties,
        "queries": queries,
        "depth": depth,
        "duplicates": duplicates,
        "popularity": popularity,
        "num_items": num_items,
        "num_users": num_users,
        "item_features": item_features,
        "train": train,
    }
    measure_list = [measures] if isinstance(measures, str) else list(measures)
    from ranklens.analysis import comparison_scores

    def statistics(
        results: Sequence[Results],
        run_names: Sequence[str] | None,
        others: Sequence[Results] | None = None,
        labels: tuple[str, str] = ("qrels", "other qrels"),
    ) -> Comparison:
        """The comparison of evaluated runs under this call's options."""
        return compare_results(
            results,
            baseline=baseline,
            test=test,
            correction=correction,
            alpha=alpha,
            permutations=permutations,
            seed=seed,
            confidence=confidence,
            all_pairs=all_pairs,
            tukey=tukey,
            names=run_names,
            correlate=correlate,
            correlate_with=others,
            qrels_labels=labels,
            power=power,
            progress=progress,
            groups=groups,
            rope=rope,
            risk_alpha=risk_alpha,
        )

    if qrels is None or any(comparison_scores.is_scores(r) for r in run_list):
        # scores computed elsewhere (Results, read_scores): docs/scores.md
        if bounds or correlate_qrels is not None:
            raise OptionError(
                "bounds and correlate_qrels evaluate the runs themselves: give runs, not scores"
            )
        del options["queries"]
        scored, scored_names, _ = comparison_scores.prepare(
            qrels, run_list, names, measure_list, queries, options
        )
        return statistics(scored, scored_names)
    evaluator = Evaluator(qrels, measure_list, **options)
    if evaluator.sampled is not None:
        raise OptionError(
            "compare does not read stochastic runs (expected exposure, EE-*): evaluate each "
            "run with ranklens.evaluate and compare the per-query values"
        )
    given = list(names) if names is not None else [None] * len(run_list)
    # read each run once (it may be a file object), evaluate it once or twice
    if evaluator.answers is not None:  # generated answers (RAG runs): their own readers
        from ranklens.evaluation.answers import named_runs

        if bounds:
            raise OptionError("bounds=True grades unjudged documents of rankings, not answers")
        run_objects: list[Any] = list(named_runs(run_list, given))
    else:
        run_objects = [as_run(r, duplicates, n) for r, n in zip(run_list, given, strict=True)]
        final = distinct_names(run_objects, given)
        run_objects = [r.renamed(n) for r, n in zip(run_objects, final, strict=True)]
    results = [evaluator.evaluate(run) for run in run_objects]
    if bounds and (ties, queries, depth) != ("trec_eval", "qrels", None):
        raise OptionError("bounds=True computes ranges under trec_eval's conventions only")
    others = None
    labels = ("qrels", "other qrels")
    if correlate_qrels is not None:
        if len(run_list) < 3:
            raise OptionError(
                f"correlating orderings of runs needs at least 3 runs, not {len(run_list)}"
            )
        other_evaluator = Evaluator(correlate_qrels, measure_list, **options)
        others = [other_evaluator.evaluate(run) for run in run_objects]
        labels = (_label(qrels, "qrels"), _label(correlate_qrels, "other qrels"))
        if labels[0] == labels[1]:
            labels = (str(qrels), str(correlate_qrels))
    compared = statistics(results, names, others, labels)
    if not bounds:
        return compared
    from dataclasses import replace

    from ranklens.analysis.comparison_bounds import comparison_flips

    def tester(kind: str, differences: Float64Array) -> float:
        return float(_test(kind, differences[:, None], permutations, seed, confidence)[0][0])

    flips = comparison_flips(compared, evaluator.qrels, run_objects, max_grade, tester)
    return replace(compared, flips=flips)
