r"""Does a run's gain hold across collections? A random-effects meta-analysis of
:func:`ranklens.compare` over several test collections.

In each collection, each run is compared with the baseline on the queries
:func:`~ranklens.compare` pairs (the same query policy; its ``delta`` is the effect): the
effect is the mean paired difference :math:`\bar d` (``run - baseline``) and its variance
:math:`s^2 / n` (:math:`s` the standard deviation of the differences, ``ddof=1``), or, with
``effect="d_z"`` / ``"g_z"``, the standardised mean difference of the paired design
(:func:`~ranklens.analysis.stats.random_effects.paired_effect`). The effects of a run over
the collections are then pooled by DerSimonian and Laird's random-effects model, with
Cochran's Q and Higgins and Thompson's :math:`I^2` for their heterogeneity, and the
fixed-effect summary beside it
(:func:`~ranklens.analysis.stats.random_effects.random_effects`). The summary p-values of
the runs are corrected over the runs (Holm by default), as :func:`~ranklens.compare`
corrects over the runs of a measure. See ``docs/meta-analysis.md``.

Policies where the data are short:

- fewer than 2 collections, or a collection without the baseline: refused;
- a collection whose runs share fewer than 2 queries: refused, naming it (as ``compare``);
- a run present in some collections only: pooled over those that have it (its
  :attr:`MetaSummary.collections`, and a line in :attr:`MetaAnalysis.notes`); a run with
  an effect in one collection only has no summary (nothing to pool; a note says so, and
  looking it up in :attr:`MetaAnalysis.summary` raises a ``KeyError`` that says so);
- a run whose per-query differences from the baseline are all equal in a collection, up to
  the rounding of the values subtracted
  (:func:`~ranklens.analysis.stats.random_effects.constant`; a variance of 0, so no
  inverse-variance weight; a small collection where the run ties the baseline on every
  query): that collection's row is kept (variance 0, no weight) and left out of the run's
  pooling, with a note.

Examples
--------
>>> import ranklens
>>> qrels = {f"q{i}": {"a": 1, "b": i % 2} for i in range(6)}
>>> base = {q: {"x": 2.0, "a": 1.0} for q in qrels}
>>> def run(hits):  # "a" first on the queries in hits
...     return {q: ({"a": 2.0, "x": 1.0} if q in hits else {"x": 2.0, "a": 1.0}) for q in qrels}
>>> collections = {
...     "c1": (qrels, {"base": base, "new": run({"q0", "q1", "q2"})}),
...     "c2": (qrels, {"base": base, "new": run({"q0", "q3", "q4", "q5"})}),
... }
>>> meta = ranklens.meta_analysis(collections, "RR", baseline="base")
>>> [(row.collection, round(row.effect, 4), round(row.variance, 4)) for row in meta.rows]
[('c1', 0.25, 0.0125), ('c2', 0.3333, 0.0111)]
>>> s = meta.summary["new"]
>>> round(s.effect, 4), round(s.tau2, 4), round(s.ci_low, 4), round(s.p_value, 6)
(0.2941, 0.0, 0.1438, 0.000126)
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from ranklens.analysis.stats._validate import check_alpha, check_confidence
from ranklens.analysis.stats.corrections import CORRECTIONS, adjust_p_values
from ranklens.analysis.stats.random_effects import (
    EFFECTS,
    RandomEffects,
    constant,
    normal_interval,
    paired_effect,
    random_effects,
)
from ranklens.base.errors import InputError, OptionError, RanklensError
from ranklens.base.types import DuplicatePolicy, QueryPolicy, TiePolicy

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from ranklens.analysis.comparison import Comparison

__all__ = [
    "CollectionEffect",
    "MetaAnalysis",
    "MetaSummary",
    "collection_comparisons",
    "example_collections",
    "meta_analysis",
]

EFFECT_LABELS = {
    "difference": "mean difference",
    "d_z": "standardised mean difference (d_z)",
    "g_z": "standardised mean difference (Hedges' g_z)",
}
"""How each kind of effect is named in tables and plots."""


@dataclass(frozen=True)
class CollectionEffect:
    """One run against the baseline in one collection: a row of the forest plot.

    Attributes
    ----------
    collection, run : where and what.
    effect : the mean paired difference ``run - baseline`` over the ``n`` queries compared
        (:attr:`PairStats.delta` of that collection's comparison), or its standardised
        mean difference.
    variance : the effect's within-collection variance (``s^2 / n`` for the difference).
    n : the queries paired.
    ci_low, ci_high : the normal interval ``effect -+ z sqrt(variance)``.
    weight_fixed, weight_random : the collection's relative weight in the run's
        fixed-effect and random-effects summaries (each sums to 1 over the collections;
        nan for a row not pooled).
    """

    collection: str
    run: str
    effect: float
    variance: float
    n: int
    ci_low: float
    ci_high: float
    weight_fixed: float = math.nan
    weight_random: float = math.nan

    @property
    def se(self) -> float:
        """The standard error, ``sqrt(variance)``."""
        return math.sqrt(self.variance)

    def to_dict(self) -> dict[str, Any]:
        """The JSON shape: every field and ``se`` (``None`` for nan)."""
        return {k: _finite(v) for k, v in {**asdict(self), "se": self.se}.items()}


@dataclass(frozen=True)
class MetaSummary(RandomEffects):
    """A run's effects pooled over the collections that have it: the fields of
    :class:`~ranklens.analysis.stats.random_effects.RandomEffects` and the run's own.

    Attributes
    ----------
    effect, se, ci_low, ci_high, z, p_value : the DerSimonian-Laird random-effects summary
        (normal interval at the analysis' confidence, two-sided p-value of ``z``).
    tau2 : the between-collection variance (DerSimonian-Laird, >= 0).
    q, df, q_p_value : Cochran's Q, its degrees of freedom (collections - 1) and the
        p-value of the test of homogeneity (chi-squared).
    i2 : Higgins and Thompson's I^2, the share of the variation of the effects due to
        heterogeneity rather than chance (0 to 1).
    fixed : the fixed-effect (inverse-variance) summary.
    weights_fixed, weights_random : each collection's relative weight, in the order of
        ``collections``.
    run : the run.
    p_value_corrected : ``p_value`` corrected over the runs' summaries.
    significant : ``p_value_corrected <= alpha``.
    collections : the collections pooled, in the analysis' order.
    """

    run: str
    p_value_corrected: float
    significant: bool
    collections: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        """The JSON shape: ``run`` and every field (``fixed`` a dict of its own)."""
        return {"run": self.run, **{k: v for k, v in asdict(self).items() if k != "run"}}


class _Summaries(dict[str, MetaSummary]):
    """``{run: MetaSummary}``; looking up a run without a summary says why."""

    def __init__(self, summaries: Mapping[str, MetaSummary], reasons: Mapping[str, str]) -> None:
        super().__init__(summaries)
        self._reasons = dict(reasons)

    def __missing__(self, run: str) -> MetaSummary:
        if run in self._reasons:
            raise KeyError(f"{run!r} has no summary: {self._reasons[run]}")
        raise KeyError(f"no run named {run!r} was pooled (runs: {', '.join(self)})")


@dataclass(frozen=True)
class MetaAnalysis:
    """The result of :func:`meta_analysis`.

    Attributes
    ----------
    measure : the measure's canonical name.
    baseline : the baseline's name.
    effect : ``"difference"``, ``"d_z"`` or ``"g_z"``.
    confidence, alpha, correction : the options.
    higher_is_better : whether a positive difference is a gain.
    collections : the collections' names, in the order given.
    runs : the runs compared with the baseline, in the order first met.
    summary : ``{run: MetaSummary}`` for every run in 2 or more collections.
    rows : every (collection, run) effect, by collection then run.
    comparisons : ``{collection: Comparison}``, each collection's :func:`ranklens.compare`.
    notes : sentences on what was left out (runs missing from some collections).
    """

    measure: str
    baseline: str
    effect: str
    confidence: float
    alpha: float
    correction: str
    higher_is_better: bool
    collections: tuple[str, ...]
    runs: tuple[str, ...]
    summary: Mapping[str, MetaSummary]
    rows: tuple[CollectionEffect, ...]
    comparisons: Mapping[str, Comparison] = field(repr=False)
    notes: tuple[str, ...] = ()

    def rows_of(self, run: str) -> tuple[CollectionEffect, ...]:
        """The collection rows of ``run`` (a forest plot's rows)."""
        if run not in self.runs:
            raise OptionError(f"no run named {run!r} (runs: {', '.join(self.runs)})")
        return tuple(r for r in self.rows if r.run == run)

    def to_dict(self) -> dict[str, Any]:
        """The JSON shape of ``ranklens meta-analysis -f json`` (one analysis)::

        {"measure", "baseline", "effect", "confidence", "alpha", "correction",
         "higher_is_better", "collections": [...], "runs": [...],
         "summary": [{run, effect, se, ci_low, ci_high, z, p_value, tau2, q, df,
         q_p_value, i2, fixed: {effect, se, ci_low, ci_high, z, p_value},
         weights_fixed, weights_random, p_value_corrected, significant, collections}],
         "rows": [{collection, run, effect, variance, n, ci_low, ci_high, weight_fixed,
         weight_random, se}], "notes": [...]}
        """
        return {
            "measure": self.measure,
            "baseline": self.baseline,
            "effect": self.effect,
            "confidence": self.confidence,
            "alpha": self.alpha,
            "correction": self.correction,
            "higher_is_better": self.higher_is_better,
            "collections": list(self.collections),
            "runs": list(self.runs),
            "summary": [s.to_dict() for s in self.summary.values()],
            "rows": [r.to_dict() for r in self.rows],
            "notes": list(self.notes),
        }

    def to_json(self) -> str:
        """:meth:`to_dict` as one line of JSON."""
        return json.dumps(self.to_dict(), allow_nan=False)

    def to_records(self) -> list[dict[str, Any]]:
        """One row per run and collection, then one per run's summary (``collection`` is
        ``"random effects"`` or ``"fixed effect"``): ``measure, run, collection, effect,
        se, ci_low, ci_high, n, weight_fixed, weight_random, p_value, tau2, i2``."""
        records: list[dict[str, Any]] = []
        for r in self.rows:
            records.append(
                {
                    "measure": self.measure,
                    "run": r.run,
                    "collection": r.collection,
                    "effect": r.effect,
                    "se": r.se,
                    "ci_low": r.ci_low,
                    "ci_high": r.ci_high,
                    "n": r.n,
                    "weight_fixed": r.weight_fixed,
                    "weight_random": r.weight_random,
                    "p_value": None,
                    "tau2": None,
                    "i2": None,
                }
            )
        for s in self.summary.values():
            for label, pooled, tau2 in (
                ("random effects", s, s.tau2),
                ("fixed effect", s.fixed, 0.0),
            ):
                records.append(
                    {
                        "measure": self.measure,
                        "run": s.run,
                        "collection": label,
                        "effect": pooled.effect,
                        "se": pooled.se,
                        "ci_low": pooled.ci_low,
                        "ci_high": pooled.ci_high,
                        "n": None,
                        "weight_fixed": None,
                        "weight_random": None,
                        "p_value": pooled.p_value,
                        "tau2": tau2,
                        "i2": s.i2,
                    }
                )
        return records

    def to_pandas(self) -> Any:
        """:meth:`to_records` as a pandas DataFrame."""
        from ranklens.base.optional import require

        pd = require("pandas", "MetaAnalysis.to_pandas")
        return pd.DataFrame(self.to_records())

    def plot(self, run: str | None = None, *, ax: Axes | None = None) -> Figure:
        """The forest plot of ``run`` (default: the first pooled run); see
        :func:`ranklens.presentation.plots.plot_forest`."""
        from ranklens.presentation.plots.forest import plot_forest

        return plot_forest(self, run, ax=ax)

    def __repr__(self) -> str:
        return (
            f"MetaAnalysis(measure={self.measure!r}, baseline={self.baseline!r}, "
            f"effect={self.effect!r}, collections={list(self.collections)!r}, "
            f"runs={list(self.runs)!r})"
        )


def _finite(value: Any) -> Any:
    """``None`` for a non-finite float, anything else as it is."""
    return None if isinstance(value, float) and not math.isfinite(value) else value


def _in_collection(error: RanklensError, name: str) -> RanklensError:
    """``error`` with the collection named first (same type, so callers catch it alike)."""
    message = f"collection {name!r}: {error}"
    try:
        return type(error)(message)
    except TypeError:  # a subclass with another constructor
        return InputError(message) if isinstance(error, InputError) else OptionError(message)


def _runs_of(qrels: Any, runs: Any) -> Any:
    """The runs of one collection as :func:`ranklens.compare` takes them: a ResultSet, and
    without qrels a score file or a DataFrame of scores, spread into its runs."""
    from ranklens.evaluation.result_set import ResultSet
    from ranklens.evaluation.results import Results

    if isinstance(runs, os.PathLike):
        runs = os.fspath(runs)
    if isinstance(runs, ResultSet):
        return list(runs)
    if isinstance(runs, Results):
        return [runs]
    if qrels is None and (isinstance(runs, str) or not isinstance(runs, Mapping | Sequence)):
        from ranklens.evaluation.scores_files import read_score_set

        return list(read_score_set(runs))
    return runs


def _measure_in(cmp: Comparison, measure: Any) -> str | None:
    """The name under which ``cmp`` holds ``measure`` (any spelling), or ``None``."""
    from ranklens.evaluation.results import canonical_name

    for key in (getattr(measure, "name", None), str(measure), canonical_name(measure)):
        if key in cmp.measures:
            return str(key)
    return None


def _comparison(
    name: str, entry: Any, measures: Sequence[Any], options: Mapping[str, Any]
) -> Comparison:
    """The comparison of one collection: ``entry`` as it is if a Comparison, else
    ``(qrels, runs)`` compared on ``measures``."""
    from ranklens.analysis.comparison import Comparison, compare

    if isinstance(entry, Comparison):
        return entry
    if not isinstance(entry, tuple | list) or len(entry) != 2:
        raise OptionError(
            f"collection {name!r}: give (qrels, runs) (qrels None for per-topic scores) or a "
            f"Comparison, not a {type(entry).__name__}"
        )
    qrels, runs = entry
    try:
        return compare(qrels, _runs_of(qrels, runs), list(measures), **options)
    except RanklensError as error:
        raise _in_collection(error, name) from error


def collection_comparisons(
    collections: Mapping[str, Any],
    measures: Sequence[Any],
    *,
    baseline: str | None = None,
    ties: TiePolicy = "trec_eval",
    queries: QueryPolicy = "qrels",
    depth: int | None = None,
    duplicates: DuplicatePolicy = "error",
) -> dict[str, Comparison]:
    """``{name: Comparison}``: each collection of :func:`meta_analysis` compared once on
    every measure of ``measures`` (a Comparison given is kept as it is), so that several
    measures are pooled without evaluating the runs again; an error names its collection.

    Raises
    ------
    OptionError
        Fewer than 2 collections, an entry that is neither ``(qrels, runs)`` nor a
        Comparison.
    InputError
        A collection without the baseline (default: the first collection's first run).
    """
    if not isinstance(collections, Mapping):
        raise OptionError("give the collections as a mapping {name: (qrels, runs)}")
    names = [str(k) for k in collections]
    if len(names) < 2:
        raise OptionError(f"a meta-analysis needs at least 2 collections, not {len(names)}")
    if len(set(names)) != len(names):
        raise OptionError(f"two collections are named alike: {', '.join(names)}")
    options: dict[str, Any] = {
        "ties": ties,
        "queries": queries,
        "depth": depth,
        "duplicates": duplicates,
    }
    if baseline is not None:
        options["baseline"] = baseline
    comparisons: dict[str, Comparison] = {}
    for key, name in zip(collections, names, strict=True):
        cmp = _comparison(name, collections[key], measures, options)
        if "baseline" not in options:
            options["baseline"] = cmp.baseline  # the first collection's first run
        if options["baseline"] not in cmp.runs:
            raise InputError(
                f"collection {name!r} has no run named {options['baseline']!r} (its runs: "
                f"{', '.join(cmp.runs)}); the baseline must be in every collection"
            )
        comparisons[name] = cmp
    return comparisons


def meta_analysis(
    collections: Mapping[str, Any],
    measure: Any,
    *,
    baseline: str | None = None,
    effect: str = "difference",
    confidence: float = 0.95,
    alpha: float = 0.05,
    correction: str = "holm",
    ties: TiePolicy = "trec_eval",
    queries: QueryPolicy = "qrels",
    depth: int | None = None,
    duplicates: DuplicatePolicy = "error",
) -> MetaAnalysis:
    """Pool each run's effect against the baseline over several collections.

    Parameters
    ----------
    collections
        ``{name: (qrels, runs)}``, at least 2: for each collection what
        :func:`ranklens.compare` takes (qrels and run files, Run objects, dicts or
        DataFrames; ``runs`` a sequence or ``{name: run}``; per-topic scores as
        :class:`~ranklens.Results`, a :class:`~ranklens.ResultSet`, or with ``qrels=None``
        score files and DataFrames of scores), or a :class:`~ranklens.Comparison` already
        made (it must hold ``measure`` and the baseline). Runs are matched across
        collections by name.
    measure
        One measure (a name in any spelling, or a Measure) with per-query values.
    baseline
        The run every other is compared with, present in every collection (default: the
        first run of the first collection).
    effect
        ``"difference"`` (default; the mean paired difference, in the measure's units),
        ``"d_z"`` (the paired standardised mean difference) or ``"g_z"`` (with Hedges'
        small-sample correction); see
        :func:`~ranklens.analysis.stats.random_effects.paired_effect`.
    confidence
        The level of the normal intervals (per collection and pooled).
    alpha, correction
        The significance level of :attr:`MetaSummary.significant`, and the correction of
        the summary p-values over the runs (``"holm"``, ``"bonferroni"``, ``"bh"``,
        ``"none"``).
    ties, queries, depth, duplicates
        As for :func:`ranklens.compare`, in every collection.

    Returns
    -------
    MetaAnalysis

    Raises
    ------
    OptionError
        Fewer than 2 collections, an unknown effect or correction, a level outside (0, 1),
        a run-level measure.
    InputError
        A collection without the baseline or whose runs share fewer than 2 queries, no run
        beside the baseline with a usable effect in 2 collections (each message names the
        collection).
    """
    if effect not in EFFECTS:
        raise OptionError(f"effect must be one of {list(EFFECTS)}, not {effect!r}")
    if correction not in CORRECTIONS:
        raise OptionError(f"correction must be one of {list(CORRECTIONS)}, not {correction!r}")
    check_confidence(confidence)
    check_alpha(alpha)
    comparisons = collection_comparisons(
        collections,
        [measure],
        baseline=baseline,
        ties=ties,
        queries=queries,
        depth=depth,
        duplicates=duplicates,
    )
    names = list(comparisons)
    first = comparisons[names[0]]
    base_name = baseline if baseline is not None else first.baseline
    measure_names: dict[str, str] = {}
    for name, cmp in comparisons.items():
        found = _measure_in(cmp, measure)
        if found is None:
            raise OptionError(
                f"collection {name!r}: measure {measure!r} was not compared (measures: "
                f"{', '.join(cmp.measures)})"
            )
        measure_names[name] = found
    canonical = measure_names[names[0]]
    from ranklens.measures.base import is_run_level

    spec = next(m for m in first.results[0].measures if m.name == canonical)
    if is_run_level(spec):
        raise OptionError(
            f"{canonical} is computed over the whole run: a meta-analysis pools per-query "
            "differences; choose a measure with per-query values"
        )
    rows: list[CollectionEffect] = []
    for name, cmp in comparisons.items():
        # per-query values over the queries cmp compared (what its paired tests take)
        values = cmp.values(measure_names[name])
        base = values[:, cmp.runs.index(base_name)]
        for j, run in enumerate(cmp.runs):
            if run == base_name:
                continue
            d = values[:, j] - base
            if len(d) >= 2 and constant(d):  # no variance: not pooled (a note)
                value = math.fsum(d.tolist()) / len(d) if effect == "difference" else math.nan
                rows.append(CollectionEffect(name, run, value, 0.0, len(d), value, value))
                continue
            try:
                value, variance = paired_effect(d, effect)
            except InputError as error:
                raise InputError(f"collection {name!r}, run {run!r}: {error}") from error
            low, high = normal_interval(value, math.sqrt(variance), confidence)
            rows.append(CollectionEffect(name, run, value, variance, len(d), low, high))
    return _pooled(
        rows,
        names,
        base_name,
        canonical,
        effect,
        confidence,
        alpha,
        correction,
        comparisons,
        first.higher_is_better[canonical],
    )


def _pooled(
    rows: list[CollectionEffect],
    names: list[str],
    baseline: str,
    measure: str,
    effect: str,
    confidence: float,
    alpha: float,
    correction: str,
    comparisons: dict[str, Comparison],
    higher_is_better: bool,
) -> MetaAnalysis:
    """Each run's rows pooled, the p-values corrected over the runs, the notes."""
    from dataclasses import replace

    runs = list(dict.fromkeys(r.run for r in rows))
    pooled: dict[str, Any] = {}
    notes: list[str] = []
    reasons: dict[str, str] = {}
    weighted: list[CollectionEffect] = []
    for run in runs:
        present = [r for r in rows if r.run == run]
        tied = [r.collection for r in present if r.variance == 0]
        if tied:
            notes.append(
                f"{run}: left out in {', '.join(tied)}, where every per-query difference "
                "from the baseline is the same (a variance of 0 has no inverse-variance weight)"
            )
        mine = [r for r in present if r.variance > 0]
        have = [r.collection for r in mine]
        if len(mine) < 2:
            where = f"only {', '.join(have)}" if have else "none"
            reasons[run] = (
                f"it has a usable effect in {len(mine)} collection ({where}); pooling needs 2 "
                "or more"
            )
            notes.append(f"{run}: a usable effect in {len(mine)} collection ({where}), not pooled")
            continue
        absent = [n for n in names if n not in {r.collection for r in present}]
        if absent:
            notes.append(
                f"{run}: pooled over the {len(mine)} collections that have it (not in "
                f"{', '.join(absent)})"
            )
        result = random_effects([r.effect for r in mine], [r.variance for r in mine], confidence)
        pooled[run] = (result, tuple(have))
        for r, wf, wr in zip(mine, result.weights_fixed, result.weights_random, strict=True):
            weighted.append(replace(r, weight_fixed=wf, weight_random=wr))
    if not pooled:
        raise InputError(
            f"no run beside the baseline {baseline!r} has a usable effect in 2 or more "
            "collections: there is nothing to pool"
        )
    corrected = adjust_p_values([p.p_value for p, _ in pooled.values()], correction)
    summary = {
        run: MetaSummary(
            **vars(p),
            run=run,
            p_value_corrected=float(c),
            significant=bool(c <= alpha),
            collections=have,
        )
        for (run, (p, have)), c in zip(pooled.items(), corrected.tolist(), strict=True)
    }
    by_key = {(r.collection, r.run): r for r in weighted}
    ordered = tuple(by_key.get((r.collection, r.run), r) for r in rows)
    return MetaAnalysis(
        measure=measure,
        baseline=baseline,
        effect=effect,
        confidence=float(confidence),
        alpha=float(alpha),
        correction=correction,
        higher_is_better=bool(higher_is_better),
        collections=tuple(names),
        runs=tuple(runs),
        summary=_Summaries(summary, reasons),
        rows=ordered,
        comparisons=comparisons,
        notes=tuple(notes),
    )


EXAMPLE_COLLECTIONS = ("dl19-a", "dl19-b", "dl19-c")
"""The names of :func:`example_collections`' three collections."""


def example_collections() -> dict[str, tuple[dict[str, dict[str, int]], dict[str, str]]]:
    """A small multi-collection example from the bundled data: the 43 queries of the
    TREC DL 2019 qrels dealt in turn (in the qrels' order) into three collections
    (:data:`EXAMPLE_COLLECTIONS`, 15, 14 and 14 queries), each with the bundled runs
    ``bm25`` (first, the baseline), ``dense``, ``rerank`` and ``rerank-repro``:
    ``{name: (qrels, {run: path})}``, what :func:`meta_analysis` takes.

    >>> collections = example_collections()
    >>> [(name, len(qrels), list(runs)[0]) for name, (qrels, runs) in collections.items()]
    [('dl19-a', 15, 'bm25'), ('dl19-b', 14, 'bm25'), ('dl19-c', 14, 'bm25')]
    """
    from ranklens.data.examples import example_paths, example_run_paths
    from ranklens.data.qrels import Qrels

    judged = Qrels.from_file(example_paths()[0]).to_dict()
    runs = {name: str(path) for name, path in example_run_paths().items()}
    parts: list[dict[str, dict[str, int]]] = [{} for _ in EXAMPLE_COLLECTIONS]
    for i, (query, judgments) in enumerate(judged.items()):
        parts[i % len(parts)][query] = judgments
    return {name: (part, dict(runs)) for name, part in zip(EXAMPLE_COLLECTIONS, parts, strict=True)}
