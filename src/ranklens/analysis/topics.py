r"""How many topics? Variances for topic set size design, discriminative power and swap
rates of evaluated runs (see ``docs/topics.md``).

The statistics live in :mod:`ranklens.analysis.stats.power` and
:mod:`ranklens.analysis.stats.discriminative`; this module takes
:class:`~ranklens.Results` (the runs evaluated on the same topics), builds the
topics x runs matrix of each measure (the topics common to every run) and names the
numbers.

**Variance for topic set size design** (Sakai 2016, section 4.1): the residual variance of
a two-way ANOVA without replication (topics x systems),

.. math:: \hat\sigma^2 = \frac{\sum_{i,j}(x_{ij} - \bar x_{i\cdot} - \bar x_{\cdot j}
   + \bar x)^2}{(n - 1)(m - 1)},

estimates the within-system variance :math:`\sigma^2` (``test="anova"`` and ``"ci"``), and
:math:`\hat\sigma_t^2 = 2\hat\sigma^2` the variance of the per-topic differences between
two systems (``test="paired-t"``).

>>> import ranklens
>>> qrels = {"q1": {"a": 1}, "q2": {"b": 1}, "q3": {"c": 1}, "q4": {"d": 1}}
>>> good = {q: {d: 1.0, "x": 0.5} for q, j in qrels.items() for d in j}
>>> mixed = {"q1": {"a": 1.0}, "q2": {"x": 1.0, "b": 0.5}, "q3": {"c": 1.0}, "q4": {"d": 1.0}}
>>> results = [ranklens.evaluate(qrels, r, ["RR"]) for r in (good, mixed)]
>>> variance_from(results, "RR", test="anova")
0.03125
>>> variance_from(results, "RR")
0.0625
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from ranklens.analysis.comparison import (
    ByMeasure,
    _common_queries,
    _measure_columns,
    _rows,
    _unique_names,
)
from ranklens.analysis.stats._validate import check_alpha
from ranklens.analysis.stats.discriminative import (
    ASL,
    SwapRates,
    bootstrap_asl,
    randomised_tukey_asl,
    swap_rates,
)
from ranklens.analysis.stats.power import TOPIC_SET_TESTS
from ranklens.base.errors import InputError, OptionError
from ranklens.base.progress import Progress, report
from ranklens.base.types import Float64Array
from ranklens.evaluation.results import Results

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = [
    "DiscriminativePower",
    "SwapRate",
    "discriminative_power",
    "residual_variance",
    "swap_rate",
    "topic_matrix",
    "variance_from",
]

ASL_METHODS = ("bootstrap", "tukey")


def residual_variance(values: npt.ArrayLike) -> float:
    """The residual variance of a two-way ANOVA without replication of ``values``
    (topics x systems, at least 2 of each): Sakai's estimate of the within-system
    variance.

    >>> round(residual_variance([[0.25, 0.5], [0.5, 0.5], [0.25, 0.75]]), 6)
    0.03125
    """
    x = np.asarray(values, dtype=np.float64)
    if x.ndim != 2 or x.shape[0] < 2 or x.shape[1] < 2:
        raise InputError(
            "the residual variance needs a matrix (topics x systems) of at least 2 topics "
            f"and 2 systems, not shape {x.shape}"
        )
    if not np.all(np.isfinite(x)):
        raise InputError("per-topic values must be finite numbers (found nan or infinity)")
    n, m = x.shape
    residual = x - x.mean(axis=1, keepdims=True) - x.mean(axis=0) + x.mean()
    return float(np.sum(residual * residual) / ((n - 1) * (m - 1)))


def topic_matrix(
    results: Sequence[Results], measure: str | None = None
) -> tuple[Float64Array, tuple[str, ...]]:
    """The values of ``measure`` (default: the only or first measure) as a matrix
    topics x runs over the topics common to every run, and those topics."""
    matrices, _, queries = _matrices(results, None if measure is None else [measure])
    return matrices[0], queries


def _matrices(
    results: Sequence[Results], measures: Sequence[str] | None
) -> tuple[list[Float64Array], tuple[str, ...], tuple[str, ...]]:
    results = list(results)
    if len(results) < 2 or not all(isinstance(r, Results) for r in results):
        raise OptionError(
            "give at least 2 runs' Results (ranklens.evaluate), evaluated with the same measures"
        )
    chosen, columns = _measure_columns(results, measures)
    queries, _ = _common_queries(results)
    if len(queries) < 2:
        raise InputError(f"the runs have {len(queries)} topics in common; at least 2 are needed")
    rows = [_rows(r, queries) for r in results]
    out = []
    for j, m in enumerate(chosen):
        x = np.column_stack([r.values[rows[i], columns[i][j]] for i, r in enumerate(results)])
        if not np.all(np.isfinite(x)):
            raise InputError(f"{m.name} is not a finite number on some topic")
        out.append(np.asarray(x, dtype=np.float64))
    return out, tuple(m.name for m in chosen), queries


def variance_from(
    results: Sequence[Results] | npt.ArrayLike,
    measure: str | None = None,
    test: str = "paired-t",
) -> float:
    r"""The variance that :func:`ranklens.topic_set_size` needs, estimated from existing
    runs (Sakai 2016, section 4.1).

    Parameters
    ----------
    results
        The runs' :class:`~ranklens.Results` (at least 2; their common topics are used),
        or a matrix of per-topic values (topics x systems).
    measure
        The measure (default: the first one evaluated).
    test
        ``"paired-t"`` (default): :math:`\hat\sigma_t^2 = 2\hat\sigma^2`, the variance of
        the per-topic differences; ``"anova"`` or ``"ci"``: the within-system variance
        :math:`\hat\sigma^2`, the residual variance of a two-way ANOVA without replication.
    """
    if test not in TOPIC_SET_TESTS:
        raise OptionError(f"test must be one of {list(TOPIC_SET_TESTS)}, not {test!r}")
    if isinstance(results, Sequence) and results and isinstance(results[0], Results):
        matrix, _ = topic_matrix(list(results), measure)  # type: ignore[arg-type]
    else:
        if measure is not None:
            raise OptionError("measure is for Results, not for a matrix of values")
        matrix = np.asarray(results, dtype=np.float64)
    within = residual_variance(matrix)
    return 2.0 * within if test == "paired-t" else within


# ------------------------------------------------------------------ discriminative power


@dataclass(frozen=True)
class DiscriminativePower:
    """Discriminative power of measures over a set of runs (Sakai 2006); see
    :mod:`ranklens.analysis.stats.discriminative` for the definitions.

    Attributes
    ----------
    measures, runs : the measures' and runs' names.
    pairs : every pair of runs ``(a, b)`` (``a`` before ``b``); ASLs are of ``b - a``.
    topics : how many topics (common to every run) were used.
    alpha, resamples, seed : the options.
    bootstrap : ``{measure: ASL}`` of the paired bootstrap test.
    tukey : ``{measure: ASL}`` of the randomised Tukey HSD test.
    """

    measures: tuple[str, ...]
    runs: tuple[str, ...]
    pairs: tuple[tuple[str, str], ...]
    topics: int
    alpha: float
    resamples: int
    seed: int
    bootstrap: dict[str, ASL]
    tukey: dict[str, ASL]

    def power(self, measure: str, method: str = "bootstrap") -> float:
        """The share of pairs with ASL at most ``alpha``."""
        asl = self._asl(measure, method)
        return float(np.count_nonzero(asl.asl <= self.alpha) / asl.asl.shape[0])

    def required_difference(self, measure: str) -> float:
        """The estimated difference required for significance: the largest over the pairs
        of the bootstrap's per-pair requirement (Sakai 2006)."""
        return float(np.max(self._asl(measure, "bootstrap").required))

    def _asl(self, measure: str, method: str) -> ASL:
        if method not in ASL_METHODS:
            raise OptionError(f"method must be one of {list(ASL_METHODS)}, not {method!r}")
        table = ByMeasure(self.bootstrap if method == "bootstrap" else self.tukey)
        if measure not in table:  # any spelling of a measure compared ("MRR" for "RR")
            raise OptionError(f"no measure {measure!r} (measures: {', '.join(self.measures)})")
        return table[measure]

    def summary(self) -> list[dict[str, Any]]:
        """One row per measure: discriminative power by both tests, the difference required
        (bootstrap) and the range required (randomised Tukey HSD)."""
        return [
            {
                "measure": m,
                "pairs": len(self.pairs),
                "bootstrap_power": self.power(m, "bootstrap"),
                "tukey_power": self.power(m, "tukey"),
                "required_difference": self.required_difference(m),
                "tukey_required_range": self.tukey[m].critical_range,
            }
            for m in self.measures
        ]

    def to_records(self) -> list[dict[str, Any]]:
        """One row per measure and pair: the difference and both ASLs."""
        out = []
        for m in self.measures:
            boot, tukey = self.bootstrap[m], self.tukey[m]
            for k, (a, b) in enumerate(self.pairs):
                out.append(
                    {
                        "measure": m,
                        "run": b,
                        "against": a,
                        "delta": float(boot.delta[k]),
                        "bootstrap_asl": float(boot.asl[k]),
                        "tukey_asl": float(tukey.asl[k]),
                        "required_difference": float(boot.required[k]),
                    }
                )
        return out

    def to_dict(self) -> dict[str, Any]:
        """The JSON shape: options, the summary and the per-pair rows."""
        return {
            "runs": list(self.runs),
            "measures": list(self.measures),
            "topics": self.topics,
            "alpha": self.alpha,
            "resamples": self.resamples,
            "seed": self.seed,
            "summary": self.summary(),
            "pairs": self.to_records(),
        }

    def plot(self, method: str = "bootstrap", *, ax: Any = None) -> Figure:
        """The ASL curves (one per measure); see
        :func:`ranklens.presentation.plots.plot_asl_curves`."""
        from ranklens.presentation.plots.discriminative import plot_asl_curves

        return plot_asl_curves(self, method, ax=ax)


def discriminative_power(
    results: Sequence[Results],
    measures: Sequence[str] | str | None = None,
    *,
    alpha: float = 0.05,
    resamples: int = 1000,
    seed: int = 42,
    names: Sequence[str] | None = None,
    progress: Progress | None = None,
) -> DiscriminativePower:
    """The discriminative power of measures over a set of runs (Sakai 2006): the ASL of
    every pair of runs by the paired bootstrap test and by the randomised Tukey HSD test,
    with ``resamples`` draws each.

    Parameters
    ----------
    results
        One :class:`~ranklens.Results` per run (at least 2), with the same measures.
    measures
        The measures (default: all of them).
    alpha
        The significance level.
    resamples
        Bootstrap resamples and Tukey permutations (B).
    seed
        Seed of the draws: the same seed gives the same numbers, whatever the number of
        threads; every measure sees the same draws.
    names
        The runs' names (default: each Results' ``run``).
    progress
        Called as ``progress(done, total)`` after each test of each measure
        (:mod:`ranklens.base.progress`).

    Examples
    --------
    >>> import ranklens
    >>> qrels = {f"q{i}": {"a": 1, "b": i % 2} for i in range(6)}
    >>> runs = [{q: {"a": 2.0, "b": 1.0} for q in qrels}, {q: {"b": 2.0, "a": 1.0} for q in qrels}]
    >>> res = [ranklens.evaluate(qrels, r, ["P@1"]) for r in runs]
    >>> dp = discriminative_power(res, names=["good", "bad"], resamples=200)
    >>> dp.power("P@1"), dp.pairs
    (1.0, (('good', 'bad'),))
    """
    level = check_alpha(alpha)
    results = list(results)
    if isinstance(measures, str):
        measures = [measures]
    matrices, measure_names, queries = _matrices(results, measures)
    run_names = _unique_names(list(names) if names is not None else [r.run for r in results])
    if len(run_names) != len(results):
        raise OptionError(f"{len(run_names)} names for {len(results)} runs")
    boot: dict[str, ASL] = {}
    tukey: dict[str, ASL] = {}
    total = 2 * len(matrices)
    for k, (m, x) in enumerate(zip(measure_names, matrices, strict=True)):
        boot[m] = bootstrap_asl(x, resamples, seed, level)
        report(progress, 2 * k + 1, total)
        tukey[m] = randomised_tukey_asl(x, resamples, seed, level)
        report(progress, 2 * k + 2, total)
    first = boot[measure_names[0]]
    pairs = tuple(
        (run_names[int(a)], run_names[int(b)])
        for a, b in zip(first.first, first.second, strict=True)
    )
    return DiscriminativePower(
        measures=measure_names,
        runs=run_names,
        pairs=pairs,
        topics=len(queries),
        alpha=level,
        resamples=int(resamples),
        seed=int(seed),
        bootstrap=boot,
        tukey=tukey,
    )


# ---------------------------------------------------------------------------- swap rate


@dataclass(frozen=True)
class SwapRate:
    """Swap rates of one measure over a set of runs (Voorhees and Buckley 2002).

    Attributes
    ----------
    measure, runs : names.
    topics : how many topics the splits were drawn from.
    rates : the :class:`~ranklens.analysis.stats.discriminative.SwapRates` (sizes, bins,
        swaps, counts).
    """

    measure: str
    runs: tuple[str, ...]
    topics: int
    rates: SwapRates

    def to_records(self) -> list[dict[str, Any]]:
        """One row per topic set size and non-empty bin of ``|d1|``."""
        out = []
        r = self.rates
        rate = r.rates
        for i, size in enumerate(r.sizes.tolist()):
            for k in range(r.counts.shape[1]):
                if r.counts[i, k] == 0:
                    continue
                high = float(r.bin_edges[k + 1]) if k + 1 < r.counts.shape[1] else None
                out.append(
                    {
                        "measure": self.measure,
                        "topics": size,
                        "diff_low": float(r.bin_edges[k]),
                        "diff_high": high,
                        "pairs": int(r.counts[i, k]),
                        "swaps": int(r.swaps[i, k]),
                        "swap_rate": float(rate[i, k]),
                    }
                )
        return out

    def plot(self, *, ax: Any = None) -> Figure:
        """Swap rate against the difference, one line per topic set size; see
        :func:`ranklens.presentation.plots.plot_swap_rates`."""
        from ranklens.presentation.plots.discriminative import plot_swap_rates

        return plot_swap_rates(self, ax=ax)


def swap_rate(
    results: Sequence[Results],
    measure: str | None = None,
    sizes: Sequence[int] | None = None,
    *,
    trials: int = 100,
    bin_width: float = 0.01,
    bins: int = 20,
    seed: int = 42,
    names: Sequence[str] | None = None,
) -> SwapRate:
    """Swap rates of ``measure`` over the runs' common topics (Voorhees and Buckley 2002):
    for each topic set size, how often two disjoint random topic sets of that size order a
    pair of runs differently, binned by the difference on the first set. See
    :func:`ranklens.analysis.stats.discriminative.swap_rates` for the parameters.
    """
    results = list(results)
    matrices, measure_names, queries = _matrices(results, None if measure is None else [measure])
    run_names = _unique_names(list(names) if names is not None else [r.run for r in results])
    rates = swap_rates(matrices[0], sizes, trials=trials, bin_width=bin_width, bins=bins, seed=seed)
    return SwapRate(measure_names[0], run_names, len(queries), rates)
