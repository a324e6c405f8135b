"""Every measure ``ranklens.bounds`` supports, against every grading of the unjudged documents.

For generated collections (graded and negative labels, tied scores, unjudged documents,
queries without relevant documents or without unjudged documents, queries on one side
only, a ``max_grade`` above, at or below the qrels' highest grade), each query's unjudged
retrieved documents are given every grade vector in ``{0..G}^u``; each vector is one
pseudo-query of a single ``ranklens.evaluate`` call. A range must contain every value so
attained and both of its ends must be attained (to 1e-12). For ``compare(...,
bounds=True)`` the two runs' unjudged documents are graded together (one grade per
document) and the range of the difference of the means is checked the same way where
``exact`` is claimed, and for containment elsewhere.

Every grading of one query is evaluated beside the others as a pseudo-query; that assumes
a measure reads only its own query's judgments. The one exception, ERR's default
``max_rel`` (the qrels' highest grade), is refused by ``bounds`` exactly where grading
could change it; a spot check per query evaluates one grading on the whole qrels, with
only that query changed, and asserts that the pseudo-query scored the same.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Sequence

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ranklens
from ranklens.analysis.bounds import bounds
from ranklens.base.errors import OptionError, RanklensError
from ranklens.measures.registry import SPECS

pytestmark = pytest.mark.filterwarnings("ignore::ranklens.InputWarning")

Qrels = dict[str, dict[str, int]]
RunDict = dict[str, dict[str, float]]

MEASURES = [
    # trec_eval's and ir_measures' binary measures, with cutoffs, thresholds, judged_only
    "P@3",
    "P",
    "P(rel=2)@3",
    "P(judged_only=True)@3",
    "R@3",
    "R(norm='min')@2",
    "AP",
    "AP@3",
    "AP(norm='min')@3",
    "AP(norm='ret')",
    "AP(rel=2)",
    "AP(judged_only=True)",
    "GMAP",
    "RR",
    "RR(rel=2)@3",
    "Rprec",
    "Bpref",
    "Bpref(rel=2)",
    "GMBpref",
    "IPrec@0.5",
    "11ptAvg",
    "Success@2",
    "Judged@3",
    "Unjudged@3",
    "NumRet",
    "NumRet(rel=1)",
    "NumRelRet",
    "Hits@2",
    "NumRel",
    "NumRel(rel=2)",
    "NumQ",
    "NumNonRelJudgedRet",
    "SetRelP",
    "SetAP",
    "SetF",
    "SetF(beta=2)",
    "RelP@3",
    "RprecMult@2",
    "F1@3",
    "F(beta=0.5)",
    "Utility",
    "YAAP",
    "infAP",
    "AUC",
    "Accuracy@3",
    "LRAP",
    "ClassAccuracy(num_docs=20)",
    "ErrorRate(num_docs=20)@3",
    "Specificity(num_docs=20)",
    "Fallout(num_docs=20)",
    "MissRate(num_docs=20)",
    "TPR(num_docs=20)@3",
    # graded measures: normalisers and ideals that grading moves
    "nDCG",
    "nDCG@3",
    "nDCG(dcg='exp-log2')",
    "nDCG(judged_only=True)@4",
    "nDCG(gains={1:3,2:1})",
    "nDCG(gains={0:1,1:0,3:2},ideal='trec_eval')",
    "DCG@3",
    "DCG(dcg='exp-log2')",
    "DCG(gains={1:-1,2:3})",
    "IDCG",
    "IDCG@2",
    "CG@3",
    "G",
    "BinG",
    "nDCGRel",
    "RnDCG",
    "RBP",
    "RBP(gain='graded')",
    "RBP(p=0.5,gain='graded')",
    "RBP(gain='raw',rel=2)",
    "RBPResid",
    "RBPResid(tail='trec')",
    "ERR",
    "ERR@2",
    "ERR(max_rel=2)",
    "ERR(max_rel=1,p=0.5)@3",
    "Inversions",
    "KendallTau@4",
    "MSE",
    "RMSE@3",
    "MAE",
    "SkDCG",
    "SknDCG@3",
    "Compat",
    "Compat(normalize=False)",
    # C/W/L measures
    "INST",
    "INSQ(T=2)",
    "BPM(max_rel=2)@3",
    "CWL_RBP(max_grade=2)",
    "CWL_P@3",
    "CWL_RR",
    "CWL_AP(max_rel=3)",
    "SDCG@3",
    "NERR8@3",
    "NERR9(max_rel=2)@3",
    "NERR10",
    "NERR11",
]
"""At least one form of every measure :func:`bounds` takes (the meta-test checks that no
measure of the registry is left out), and the forms whose normaliser, ideal or gain
reads the grades in another way."""


def _answered(spec_name: str, at_required: bool) -> str | None:
    """The measure's plain form if :func:`bounds` answers it on a small input, else None."""
    name = spec_name + ("@3" if at_required else "")
    try:
        bounds({"q": {"a": 1, "b": 0}}, {"q": {"a": 2.0, "x": 1.0}}, [name])
    except RanklensError:
        return None
    return name


_LISTED = {m.spec.name for m in ranklens.parse_measures(MEASURES)}
MEASURES += [
    name
    for spec in SPECS
    if spec.name not in _LISTED and (name := _answered(spec.name, spec.at_required)) is not None
]  # a measure registered after this list was written is checked too

ERR_DEFAULT = {"ERR", "ERR@2"}
"""The measures whose ``max_rel`` is the qrels' highest grade: refused above it."""


@st.composite
def collections(draw: st.DrawFn, max_unjudged: int = 3, shared: int = 1) -> tuple[Qrels, RunDict]:
    """A few small queries; at most ``max_unjudged`` unjudged retrieved documents each; the
    first ``shared`` in both the qrels and the run."""
    qrels: Qrels = {}
    run: RunDict = {}
    for q in range(draw(st.integers(shared, 3))):
        qid = f"q{q}"
        size = draw(st.integers(1, 5))
        grades = draw(
            st.lists(st.sampled_from([None, -1, 0, 1, 2, 3]), min_size=size, max_size=size)
        )
        scores = draw(
            st.lists(st.sampled_from([None, 1.0, 2.0, 3.0]), min_size=size, max_size=size)
        )
        if draw(st.integers(0, 3)) == 0:  # no relevant document
            grades = [None if g is None else min(g, 0) for g in grades]
        judged: dict[str, int] = {}
        ranking: dict[str, float] = {}
        unjudged = 0
        for i, (grade, score) in enumerate(zip(grades, scores, strict=True)):
            doc = f"d{i}"
            if grade is None and score is not None:
                unjudged += 1
                if unjudged > max_unjudged:
                    grade = 0
            if grade is not None:
                judged[doc] = grade
            if score is not None:
                ranking[doc] = score
        first = q < shared  # in both, so that the run and the qrels share queries
        if first or (judged and draw(st.integers(0, 5)) > 0):
            qrels[qid] = judged or {"j": 1}
        if first or (ranking and draw(st.integers(0, 5)) > 0):
            run[qid] = ranking or {"j": 1.0}
    return qrels, run


def _unjudged(qrels: Qrels, run: RunDict, qid: str) -> list[str]:
    return sorted(d for d in run.get(qid, {}) if d not in qrels[qid])


def _every_grading(
    qrels: Qrels,
    runs: Sequence[RunDict],
    measures: Sequence[str],
    top: int,
) -> dict[str, list[dict[str, list[float]]]]:
    """``{qid: [per run: {measure: values under every grading}]}`` of the union of the
    runs' unjudged documents of each query (grading ``k`` of every run the same)."""
    pseudo_qrels: Qrels = {}
    pseudo_runs: list[RunDict] = [{} for _ in runs]
    owner: list[tuple[str, str, dict[str, int]]] = []
    for qid, judged in qrels.items():
        union = sorted({d for run in runs for d in _unjudged(qrels, run, qid)})
        for k, grades in enumerate(itertools.product(range(top + 1), repeat=len(union))):
            name = f"{qid}#{k:06d}"
            assigned = dict(zip(union, grades, strict=True))
            pseudo_qrels[name] = {**judged, **assigned}
            for run, pseudo in zip(runs, pseudo_runs, strict=True):
                if qid in run:
                    pseudo[name] = run[qid]
            owner.append((name, qid, assigned))
    out: dict[str, list[dict[str, list[float]]]] = {
        q: [{m.name: [] for m in ranklens.parse_measures(measures)} for _ in runs] for q in qrels
    }
    batches = []
    for side, pseudo in enumerate(pseudo_runs):
        values = ranklens.evaluate(pseudo_qrels, pseudo or {"none": {"x": 1.0}}, measures)
        batches.append(values.per_query)
        for name, qid, _assigned in owner:
            for m, v in batches[side][name].items():
                out[qid][side][m].append(v)
    # the spot check: a grading evaluated on the whole qrels, only its query changed
    checked: set[str] = set()
    for name, qid, assigned in reversed(owner):
        if qid in checked:
            continue
        checked.add(qid)
        whole = {**qrels, qid: {**qrels[qid], **assigned}}
        for side, run in enumerate(runs):
            own = ranklens.evaluate(whole, run, measures).per_query[qid]
            for m, v in own.items():
                assert _same(v, batches[side][name][m]), (m, qid)
    return out


def _same(a: float, b: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return abs(a - b) <= 1e-12 * max(1.0, abs(a), abs(b))


def _extremes(values: list[float]) -> tuple[float, float]:
    finite = [v for v in values if not math.isnan(v)]
    if len(finite) < len(values):  # a NaN among the values: the range is NaN
        return math.nan, math.nan
    return min(finite), max(finite)


def _split(qrels: Qrels, top: int) -> tuple[list[str], list[str]]:
    """The measures ``bounds`` answers at ``top``, and those it must refuse."""
    highest = max(max(0, *g.values()) for g in qrels.values())
    if top > highest:
        return [m for m in MEASURES if m not in ERR_DEFAULT], sorted(ERR_DEFAULT)
    return list(MEASURES), []


def _grade(qrels: Qrels, max_grade: int | None) -> int:
    highest = max(max(0, *g.values()) for g in qrels.values())
    return highest if max_grade is None else max_grade


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=collections(), max_grade=st.sampled_from([None, None, 0, 1, 2, 3, 4]))
def test_every_range_is_the_exact_range_of_every_grading(
    data: tuple[Qrels, RunDict], max_grade: int | None
) -> None:
    qrels, run = data
    top = _grade(qrels, max_grade)
    answered, refused = _split(qrels, top)
    for name in refused:
        with pytest.raises(OptionError, match="max_rel"):
            bounds(qrels, run, [name], max_grade)
    result = bounds(qrels, run, answered, max_grade)
    assert result.max_grade == top
    reference = _every_grading(qrels, [run], answered, top)
    evaluated = ranklens.evaluate(qrels, run, answered)
    assert set(result.queries) == set(qrels)
    for measure, name in zip(result.measures, answered, strict=True):
        per_query = result.query_values(measure)
        for qid, (low, value, high) in per_query.items():
            expected_low, expected_high = _extremes(reference[qid][0][measure.name])
            assert _same(low, expected_low), (name, qid, low, expected_low)
            assert _same(high, expected_high), (name, qid, high, expected_high)
            assert _same(value, evaluated.query_values(measure.name)[qid]), (name, qid)
        assert result.unjudged == {q: len(_unjudged(qrels, run, q)) for q in qrels}


def _second_run(run: RunDict, draw: st.DrawFn, shared: set[str]) -> RunDict:
    """Another run: some documents dropped, scores moved, a document of its own; the
    queries of ``shared`` kept."""
    other: RunDict = {}
    for qid, ranking in run.items():
        moved = {
            d: s + draw(st.sampled_from([-1.0, 0.0, 1.0]))
            for d, s in ranking.items()
            if draw(st.integers(0, 3)) > 0
        }
        if draw(st.booleans()) or (qid in shared and not moved):
            moved[f"n{qid}"] = 2.0  # a document only this run retrieves (unjudged)
        if moved:
            other[qid] = moved
    return other


@st.composite
def pairs(draw: st.DrawFn) -> tuple[Qrels, RunDict, RunDict]:
    """Two runs sharing at least two queries with the qrels (a paired test needs two)."""
    qrels, run = draw(collections(max_unjudged=2, shared=2))
    return qrels, run, _second_run(run, draw, {"q0", "q1"})


PAIR_MEASURES = [m for m in MEASURES if m not in ERR_DEFAULT]


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=pairs(), max_grade=st.sampled_from([None, 1, 2]))
def test_compare_bounds_ranges_contain_every_joint_grading(
    data: tuple[Qrels, RunDict, RunDict], max_grade: int | None
) -> None:
    """The joint range of every comparison: exact where ``exact`` says so (every query's
    union is small here, so every mean or sum measure claims it), sound elsewhere."""
    qrels, run_a, run_b = data
    top = _grade(qrels, max_grade)
    cmp = ranklens.compare(
        qrels, {"a": run_a, "b": run_b}, PAIR_MEASURES, bounds=True, max_grade=max_grade
    )
    assert cmp.flips is not None
    flips = cmp.flips[("a", "b")]
    reference = _every_grading(qrels, [run_a, run_b], PAIR_MEASURES, top)
    queries = list(cmp.queries)
    for measure in ranklens.parse_measures(PAIR_MEASURES):
        pb = flips[measure.name]
        differences = {
            q: [
                vb - va
                for va, vb in zip(
                    reference[q][0][measure.name], reference[q][1][measure.name], strict=True
                )
            ]
            for q in queries
        }
        if measure.spec.aggregate in ("mean", "sum"):
            scale = 1.0 if measure.spec.aggregate == "sum" else 1.0 / len(queries)
            lows = [_extremes(differences[q])[0] for q in queries]
            highs = [_extremes(differences[q])[1] for q in queries]
            lowest, highest = sum(lows) * scale, sum(highs) * scale
            assert pb.exact, measure.name
            assert _same(pb.low, lowest), (measure.name, pb.low, lowest)
            assert _same(pb.high, highest), (measure.name, pb.high, highest)
        else:  # a geometric mean: a sound range, checked on sampled joint gradings
            assert not pb.exact, measure.name
            rng = random.Random(0)
            for _ in range(20):
                chosen = {q: rng.randrange(len(differences[q])) for q in queries}
                a = [reference[q][0][measure.name][k] for q, k in chosen.items()]
                b = [reference[q][1][measure.name][k] for q, k in chosen.items()]
                gap = _gmean(b) - _gmean(a)
                assert pb.low - 1e-12 <= gap <= pb.high + 1e-12, measure.name


def _gmean(values: list[float]) -> float:
    return math.exp(sum(math.log(max(v, 1e-5)) for v in values) / len(values))


def test_no_measure_escapes() -> None:
    """Every measure of the registry is either in :data:`MEASURES` or refused by
    ``bounds`` with a one-line ranklens error (run-level measures, other judgments, the
    measures that need popularity, features or sampled rankings)."""
    covered = {m.spec.name for m in ranklens.parse_measures(MEASURES)}
    assert covered >= _LISTED and len(covered) > 60
    qrels = {"q": {"a": 1, "b": 0}}
    run = {"q": {"a": 2.0, "x": 1.0}}
    for spec in SPECS:
        if spec.name in covered:
            continue
        name = spec.name + ("@3" if spec.at_required else "")
        with pytest.raises(RanklensError) as caught:
            bounds(qrels, run, [name])
        assert "\n" not in str(caught.value), spec.name
