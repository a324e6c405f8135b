"""Comparisons that could flip: :func:`pair_bounds` and ``compare(..., bounds=True)``.

Two runs ``a`` and ``b`` are compared on a measure by the per-query differences
``d_q = b_q - a_q``. Their unjudged documents are graded **together**: a document both
retrieve gets one grade, and a document only ``a`` retrieves, once graded, is part of the
qrels ``b`` is scored with too (it raises ``b``'s ``R`` or ideal ranking). So each run's
range is taken over the assignments of grades ``{0..G}`` to the union ``U_q`` of the two
runs' unjudged retrieved documents (:func:`~ranklens.analysis.bounds.bounds` with
``also_grade``), and

``[min b - max a, max b - min a]``

bounds ``d_q`` over every joint assignment. It is a *sound outer bound*: every joint
assignment's difference lies in it; it is exact where one assignment reaches both
extremes, and wider otherwise. The exact range of ``d_q`` is found instead, per query and
measure:

- at any depth for the measures :func:`~ranklens.analysis.comparison_separable.joint_method`
  covers (P, DCG, CG, RBP binary or raw, NumRelRet, Hits, NumRet(rel=), NumNonRelJudgedRet
  by a per-document choice of grade; RR and Success with one document made relevant;
  nDCG by a search over the multisets of grades, up to
  :data:`~ranklens.analysis.comparison_separable.RATIO_LIMIT` union documents where a
  judged grade lies between 0 and ``G``; graded RBP by the gradings of
  :func:`~ranklens.analysis.bounds.top_grade_rows`; the qrels-only counts exactly), a few
  gradings evaluated per query
  (:mod:`ranklens.analysis.comparison_separable`);
- for the others (AP, R, Rprec, bpref, ERR, ``judged_only`` ...), by trying every joint
  grading where the union has at most :data:`JOINT_LIMIT` of them (a query without a
  document to grade in either run has one, the qrels as they stand); elsewhere the outer
  bound stays.

The aggregate difference is bounded the same way (the aggregate of the lows and of the
highs: queries are graded independently).

A pair **could flip** when that range of the aggregate difference reaches zero or the
other sign: ``delta > 0`` and ``low <= 0``, ``delta < 0`` and ``high >= 0``, or ``delta = 0``
and the range is not ``[0, 0]``.

A significant pair **could lose significance** when it could flip, or when the test run on
the least favourable differences is not significant at ``alpha`` after a Bonferroni
correction over the measure's comparisons (conservative: it flags more than Holm or BH
would). The least favourable differences are, per query, the bound of ``d_q`` nearer the
other sign. For the sign and Wilcoxon tests, whose statistics are non-decreasing in each
difference, that is the least significant assignment of the box. For the t-test the
p-value is instead bounded soundly: the mean of the least favourable differences over the
largest standard deviation the box allows (``sqrt(sum_q max((l_q - c)^2, (h_q - c)^2) /
(n - 1))``, ``c`` the mean of the midpoints), so it never calls a pair safe that is not.
For the randomization and bootstrap tests the least favourable differences are tested as
they are (not proven to be the least significant point of the box).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ranklens.analysis.bounds import Bounds, bounds
from ranklens.analysis.comparison_separable import joint_method, separable_differences
from ranklens.base.types import Float64Array
from ranklens.data.qrels import Qrels
from ranklens.data.run import Run
from ranklens.evaluation.results import aggregate
from ranklens.measures.base import Measure


@dataclass(frozen=True)
class PairBounds:
    """The range of one comparison ``run - other`` on one measure (see the module's docs).

    Attributes
    ----------
    delta : the observed difference of the aggregates, ``run - other``.
    low, high : a sound outer bound of that difference over every joint grading of the
        two runs' unjudged retrieved documents.
    could_flip : the range reaches zero or the other sign of ``delta``.
    could_lose_significance : the comparison is significant and could flip, or is not
        significant at the least favourable differences (``p_value_worst``).
    p_value_worst : the Bonferroni-corrected p-value at the least favourable differences
        (an upper bound for the t, sign and Wilcoxon tests); ``nan`` where not computed.
    exact : ``low`` and ``high`` are the exact range (every query's joint range is exact,
        by a closed form or by trying every joint grading, and the measure's aggregate is
        a mean or a sum).
    """

    delta: float
    low: float
    high: float
    could_flip: bool
    could_lose_significance: bool
    p_value_worst: float
    exact: bool = False

    def to_dict(self) -> dict[str, float | bool | None]:
        """The fields, ``None`` for ``nan``."""
        return {
            "delta": self.delta,
            "low": self.low,
            "high": self.high,
            "could_flip": self.could_flip,
            "could_lose_significance": self.could_lose_significance,
            "p_value_worst": None if math.isnan(self.p_value_worst) else self.p_value_worst,
            "exact": self.exact,
        }


def _unjudged(qrels: Qrels, run: Run) -> dict[str, list[str]]:
    """The documents ``run`` retrieves for each qrels query that the qrels do not judge."""
    judged = qrels.to_dict()
    out: dict[str, list[str]] = {}
    docs = run.docids()
    for row, qid in enumerate(run.qids):
        known = judged.get(qid)
        if known is None:
            continue
        a, b = int(run.q_offsets[row]), int(run.q_offsets[row + 1])
        out[qid] = [d for d in docs[a:b] if d not in known]
    return out


def joint_bounds(
    qrels: Qrels,
    run: Run,
    other: Run,
    measures: Sequence[Measure],
    max_grade: int | None = None,
    limit: int | None = None,
) -> Bounds:
    """``run``'s ranges over the gradings of its own and ``other``'s unjudged documents."""
    extra = _unjudged(qrels, other)
    if limit is None:
        return bounds(qrels, run, measures, max_grade, also_grade=extra)
    return bounds(qrels, run, measures, max_grade, limit=limit, also_grade=extra)


def could_flip(delta: float, low: float, high: float) -> bool:
    """Whether the range ``[low, high]`` of a difference reaches zero or the other sign
    of ``delta``."""
    if delta > 0:
        return low <= 0
    if delta < 0:
        return high >= 0
    return low < 0 or high > 0


def _t_bound(worst: Float64Array, lows: Float64Array, highs: Float64Array) -> float:
    """An upper bound of the paired t-test's two-sided p-value over the box."""
    import importlib

    stats: Any = importlib.import_module("scipy.stats")  # untyped: scipy ships no stubs
    n = worst.shape[0]
    if n < 2:
        return 1.0
    mean = abs(float(np.mean(worst)))
    centre = float(np.mean((lows + highs) / 2.0))
    spread = np.maximum((lows - centre) ** 2, (highs - centre) ** 2)
    sd = math.sqrt(float(np.sum(spread)) / (n - 1))
    if sd == 0:
        return 0.0 if mean > 0 else 1.0
    t = mean / (sd / math.sqrt(n))
    return float(2.0 * stats.t.sf(t, n - 1))


def pair_bounds(
    run_ranges: Bounds,
    other_ranges: Bounds,
    *,
    significant: Mapping[str, bool] | None = None,
    test: str = "t",
    alpha: float = 0.05,
    family: int = 1,
    queries: Iterable[str] | None = None,
    joint: Mapping[str, tuple[Float64Array, Float64Array]] | None = None,
    tester: Callable[[str, Float64Array], float] | None = None,
    separable: Mapping[str, Mapping[str, tuple[float, float]]] | None = None,
) -> dict[str, PairBounds]:
    """:class:`PairBounds` of ``run - other`` for every measure of the two ranges (each
    computed by :func:`joint_bounds`, over the same documents); ``significant`` says which
    measures' comparisons were significant, ``family`` how many comparisons the measure's
    correction covers. ``joint``: for some queries, every measure's values of ``run`` and of
    ``other`` under the same assignments ((candidates x measures) each, the measures of
    ``run_ranges``): their differences' range is exact. ``tester(test, differences)``: the
    two-sided p-value of the tests other than ``"t"`` (``compare`` passes its own).
    ``separable``: ``{measure name: {qid: (low, high)}}``, the exact range of the
    difference on those queries at any depth
    (:func:`~ranklens.analysis.comparison_separable.separable_differences`); it takes
    precedence over ``joint``."""

    chosen = list(run_ranges.queries if queries is None else queries)
    mine = {q: i for i, q in enumerate(run_ranges.queries)}
    theirs = {q: i for i, q in enumerate(other_ranges.queries)}
    rows_a = np.array([theirs[q] for q in chosen], dtype=np.int64)
    rows_b = np.array([mine[q] for q in chosen], dtype=np.int64)
    out: dict[str, PairBounds] = {}
    for j, m in enumerate(run_ranges.measures):
        k = other_ranges.measures.index(m)
        low_b, value_b, high_b = (
            x[rows_b, j] for x in (run_ranges.low, run_ranges.value, run_ranges.high)
        )
        low_a, value_a, high_a = (
            x[rows_a, k] for x in (other_ranges.low, other_ranges.value, other_ranges.high)
        )
        delta = aggregate(m, value_b) - aggregate(m, value_a)
        lows, highs = low_b - high_a, high_b - low_a
        closed = None if separable is None else separable.get(m.name)
        exact = m.spec.aggregate in ("mean", "sum") and (joint is not None or closed is not None)
        for row, q in enumerate(chosen):
            known = None if closed is None else closed.get(q)
            if known is not None:
                lows[row], highs[row] = known
                continue
            tried = None if joint is None else joint.get(q)
            if tried is None:
                exact = False
                continue
            differences = tried[0][:, j] - tried[1][:, j]
            lows[row], highs[row] = differences.min(), differences.max()
        if m.spec.aggregate in ("mean", "sum"):  # the aggregate of the differences
            scale = 1.0 if m.spec.aggregate == "sum" else 1.0 / max(len(chosen), 1)
            low, high = float(np.sum(lows)) * scale, float(np.sum(highs)) * scale
        else:  # each run's own extreme aggregate
            low = aggregate(m, low_b) - aggregate(m, high_a)
            high = aggregate(m, high_b) - aggregate(m, low_a)
        flip = could_flip(delta, low, high)
        is_significant = bool(significant.get(m.name, False)) if significant else False
        worst_p = math.nan
        if is_significant and not flip:
            worst = lows if delta > 0 else highs
            if test == "t":
                p = _t_bound(worst, lows, highs)
            elif tester is not None:
                p = tester(test, worst)
            else:
                raise ValueError(f"pair_bounds: the {test} test needs a tester")
            worst_p = min(1.0, p * family)
        lose = is_significant and (flip or worst_p > alpha)
        out[m.name] = PairBounds(delta, low, high, flip, lose, worst_p, exact)
    return out


def comparison_flips(
    comparison: Any,
    qrels: Qrels,
    runs: Sequence[Run],
    max_grade: int | None = None,
    tester: Callable[[str, Float64Array], float] | None = None,
) -> dict[tuple[str, str], dict[str, PairBounds]]:
    """:class:`PairBounds` of every comparison a :class:`~ranklens.Comparison` made, keyed
    ``(other, run)`` for ``run - other`` (the baseline against each run; every pair with
    ``all_pairs``)."""
    from ranklens.base.errors import OptionError
    from ranklens.measures.language import parse_measures

    by_name = {r.name: r for r in runs}
    measures = parse_measures(list(comparison.measures))
    if comparison.all_pairs:
        keys = [(a, b) for a, b in comparison.pairs]
    else:
        keys = [(comparison.baseline, r) for r in comparison.runs if r != comparison.baseline]
    family = len(keys)
    out: dict[tuple[str, str], dict[str, PairBounds]] = {}
    for other, run in keys:
        if other not in by_name or run not in by_name:  # pragma: no cover - names from compare
            raise OptionError(f"bounds: no run named {other!r} or {run!r}")
        mine = joint_bounds(qrels, by_name[run], by_name[other], measures, max_grade)
        theirs = joint_bounds(qrels, by_name[other], by_name[run], measures, max_grade)
        # the measures some query may leave to the joint search (nDCG: with a judged
        # grade between 0 and G, a query with more than RATIO_LIMIT documents to grade)
        searched = [
            m
            for m in measures
            if joint_method(m) is None or (joint_method(m) == "ratio" and mine.max_grade > 1)
        ]
        joint = (
            tried_jointly(qrels, by_name[run], by_name[other], measures, mine.max_grade)
            if searched
            else None
        )
        separable = separable_differences(
            qrels,
            by_name[run],
            by_name[other],
            measures,
            mine.max_grade,
            _unjudged(qrels, by_name[run]),
            _unjudged(qrels, by_name[other]),
        )
        significant = {m: comparison.stats(run, m, other).significant for m in comparison.measures}
        out[(other, run)] = pair_bounds(
            mine,
            theirs,
            significant=significant,
            test=comparison.test,
            alpha=comparison.alpha,
            family=family,
            queries=comparison.queries,
            joint=joint,
            tester=tester,
            separable=separable,
        )
    return out


JOINT_LIMIT = 4096
"""The most joint gradings of one query :func:`tried_jointly` tries."""


def tried_jointly(
    qrels: Qrels,
    run: Run,
    other: Run,
    measures: Sequence[Measure],
    max_grade: int,
    limit: int = JOINT_LIMIT,
) -> dict[str, tuple[Float64Array, Float64Array]]:
    """For each query whose union of the two runs' unjudged documents has at most
    ``limit`` gradings, every measure's values of ``run`` and ``other`` under every one
    of them (the same grade for a document in both)."""
    import itertools

    from ranklens.analysis.bounds import graded_values

    mine, theirs = _unjudged(qrels, run), _unjudged(qrels, other)
    assignments: dict[str, tuple[list[str], np.ndarray]] = {}
    for qid in qrels.qids:  # every evaluated query; one without a document to grade has
        # one assignment, the qrels as they stand (an empty row)
        union = sorted(set(mine.get(qid, [])) | set(theirs.get(qid, [])))
        if len(union) * math.log2(max_grade + 1) > math.log2(limit) + 1:
            continue  # more than limit: not tried (the exponent is checked first)
        count = (max_grade + 1) ** len(union)
        if count > limit:
            continue
        grid = np.array(
            list(itertools.product(range(max_grade + 1), repeat=len(union))), dtype=np.int64
        ).reshape(count, len(union))
        assignments[qid] = (union, grid)
    values_run = graded_values(qrels, run, measures, assignments, also_grade=theirs)
    values_other = graded_values(qrels, other, measures, assignments, also_grade=mine)
    return {q: (values_run[q], values_other[q]) for q in values_run}
