"""compare --bounds: the exact joint range of a difference at any depth, for the measures
whose extremes have a closed form (ranklens.analysis.comparison_separable).

The differential tests score every joint assignment of grades to the union of two runs'
unjudged retrieved documents with ranklens.evaluate on both runs (one pseudo-query per
assignment), on generated queries with graded and negative labels, tied scores, documents
shared and not shared between the runs, queries without relevant documents and queries one
run does not retrieve for. The deep test builds a pair whose extreme gradings are known by
construction (far beyond the exhaustive search's limit) and evaluates them.
"""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ranklens
from ranklens.analysis.comparison_bounds import JOINT_LIMIT, _unjudged, comparison_flips
from ranklens.analysis.comparison_separable import joint_method, separable_differences
from ranklens.measures import parse_measure

pytestmark = pytest.mark.filterwarnings("ignore::ranklens.InputWarning")

COVERED = [
    "P@3",
    "P",
    "P(rel=2)@2",
    "P(rel=0)@2",
    "DCG@3",
    "DCG",
    "DCG(gains={1:-1,2:3})@4",
    "DCG(gains={0:2,1:0.5})",
    "DCG(dcg='exp-log2')@3",
    "CG@3",
    "RBP",
    "RBP(p=0.5,gain='raw',rel=2)",
    "RBP(gain='graded')",
    "RBP(p=0.5,gain='graded')",
    "NumRelRet",
    "Hits@2",
    "NumRet(rel=2)",
    "NumNonRelJudgedRet",
    "RR",
    "RR@2",
    "RR(rel=2)",
    "Success@2",
    "Success(rel=2)@3",
    "NumRel",
    "IDCG@3",
    "Judged@3",
    "NumRet",
    "nDCG",
    "nDCG@3",
    "nDCG(dcg='exp-log2')@4",
]


def _pair(
    seed: int,
) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, float]], dict[str, dict[str, float]]]:
    """Small awkward queries: the union of the two runs' unjudged documents is small."""
    rng = random.Random(seed)
    qrels: dict[str, dict[str, int]] = {}
    run_a: dict[str, dict[str, float]] = {}
    run_b: dict[str, dict[str, float]] = {}
    for q in range(rng.randint(2, 4)):
        qid = f"q{q}"
        docs = [f"d{i}" for i in range(rng.randint(2, 8))]
        unjudged = set(rng.sample(docs, min(len(docs), rng.randint(0, 4))))
        judged = {d: rng.choice([-1, 0, 0, 1, 1, 2]) for d in docs if d not in unjudged}
        if rng.random() < 0.25:  # a query without relevant documents
            judged = {d: min(g, 0) for d, g in judged.items()}
        qrels[qid] = judged or {"j": 0}
        for run in (run_a, run_b):
            if rng.random() < 0.15:  # a query this run does not retrieve for
                continue
            chosen = rng.sample(docs, rng.randint(0, len(docs)))
            if chosen:
                run[qid] = {d: float(rng.choice([1, 2, 2, 3])) for d in chosen}  # ties
    run_a["only-run"] = {"z1": 1.0, "z2": 0.5}  # a query the qrels do not have
    return qrels, run_a, run_b


def _joint_exhaustive(
    qrels: dict[str, dict[str, int]],
    run_a: dict[str, dict[str, float]],
    run_b: dict[str, dict[str, float]],
    measures: list[str],
    top: int,
) -> dict[str, dict[str, tuple[float, float]]]:
    """Per query and measure, (min, max) of b - a over every joint assignment of the union
    of the two runs' unjudged retrieved documents: each assignment is a pseudo-query
    evaluated by ranklens.evaluate."""
    pseudo_qrels: dict[str, dict[str, int]] = {}
    pseudo_a: dict[str, dict[str, float]] = {}
    pseudo_b: dict[str, dict[str, float]] = {}
    owner: dict[str, str] = {}
    for qid, judged in qrels.items():
        union = sorted({d for r in (run_a, run_b) for d in r.get(qid, {}) if d not in judged})
        for k, grades in enumerate(itertools.product(range(top + 1), repeat=len(union))):
            name = f"{qid}#{k}"
            owner[name] = qid
            pseudo_qrels[name] = {**judged, **dict(zip(union, grades, strict=True))}
            for run, pseudo in ((run_a, pseudo_a), (run_b, pseudo_b)):
                if qid in run:
                    pseudo[name] = run[qid]
    pseudo_a.setdefault("unused", {"x": 1.0})
    pseudo_b.setdefault("unused", {"x": 1.0})
    res_a = ranklens.evaluate(pseudo_qrels, pseudo_a, measures)
    res_b = ranklens.evaluate(pseudo_qrels, pseudo_b, measures)
    out: dict[str, dict[str, tuple[float, float]]] = {q: {} for q in qrels}
    for m in measures:
        values_a, values_b = res_a.query_values(m), res_b.query_values(m)
        seen: dict[str, list[float]] = {q: [] for q in qrels}
        for name, qid in owner.items():
            seen[qid].append(values_b[name] - values_a[name])
        for qid, found in seen.items():
            out[qid][m] = (min(found), max(found))
    return out


def _check(qrels, run_a, run_b, measures, max_grade=None) -> None:  # type: ignore[no-untyped-def]
    the_qrels = ranklens.Qrels(qrels)
    a = ranklens.Run(run_a or {"unused": {"x": 1.0}}, name="a")
    b = ranklens.Run(run_b or {"unused": {"x": 1.0}}, name="b")
    parsed = ranklens.parse_measures(measures)
    top = max(max(g for docs in qrels.values() for g in docs.values()), 0)
    top = top if max_grade is None else max_grade
    found = separable_differences(
        the_qrels, b, a, parsed, top, _unjudged(the_qrels, b), _unjudged(the_qrels, a)
    )
    reference = _joint_exhaustive(qrels, run_a, run_b, [m.name for m in parsed], top)
    for m in parsed:
        for qid in qrels:
            assert found[m.name][qid] == pytest.approx(reference[qid][m.name], abs=1e-12), (
                m.name,
                qid,
            )


@pytest.mark.parametrize("seed", range(6))
def test_the_closed_form_equals_the_joint_exhaustive_search(seed: int) -> None:
    qrels, run_a, run_b = _pair(seed)
    _check(qrels, run_a, run_b, COVERED)


@pytest.mark.parametrize("seed", range(3))
def test_a_larger_max_grade_is_searched_too(seed: int) -> None:
    qrels, run_a, run_b = _pair(50 + seed)
    _check(
        qrels,
        run_a,
        run_b,
        ["P@3", "DCG(gains={1:5,2:-1,3:0.5})", "RR", "CG", "nDCG@3", "nDCG", "RBP(gain='graded')"],
        max_grade=3,
    )


@settings(max_examples=25, deadline=None)
@given(
    grades=st.lists(st.sampled_from([-1, 0, 1, 2, None]), min_size=1, max_size=7),
    scores_a=st.lists(st.sampled_from([None, 1.0, 2.0, 3.0]), min_size=7, max_size=7),
    scores_b=st.lists(st.sampled_from([None, 1.0, 2.0, 3.0]), min_size=7, max_size=7),
)
def test_one_generated_query(grades, scores_a, scores_b) -> None:  # type: ignore[no-untyped-def]
    docs = [f"d{i}" for i in range(len(grades))]
    judged = {d: g for d, g in zip(docs, grades, strict=True) if g is not None} or {"j": 1}
    run_a = {"q": {d: s for d, s in zip(docs, scores_a, strict=False) if s is not None}}
    run_b = {"q": {d: s for d, s in zip(docs, scores_b, strict=False) if s is not None}}
    union = {d for r in (run_a, run_b) for d in r["q"] if d not in judged}
    if len(union) > 5:  # keep the exhaustive search small
        return
    # a second query both runs retrieve for, so that either may leave "q" out
    _check(
        {"q": judged, "z": {"o": 1}},
        {**{q: r for q, r in run_a.items() if r}, "z": {"o": 1.0}},
        {**{q: r for q, r in run_b.items() if r}, "z": {"o": 1.0}},
        ["P@2", "DCG(gains={1:-1,2:3})", "RBP(p=0.5)", "RR", "Success@1", "nDCG", "nDCG@2"],
    )


def test_the_methods_are_named() -> None:
    assert joint_method(parse_measure("P@10")) == "separable"
    assert joint_method(parse_measure("RR@10")) == "first-hit"
    assert joint_method(parse_measure("NumRel")) == "constant"
    assert joint_method(parse_measure("nDCG@10")) == "ratio"
    assert joint_method(parse_measure("RBP(gain='graded')")) == "top-grade"
    for name in ("nDCG(judged_only=True)", "AP", "ERR@10", "P(judged_only=True)@5"):
        assert joint_method(parse_measure(name)) is None, name


def _deep(
    depth: int, queries: int
) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, float]], dict[str, dict[str, float]]]:
    """Each query: ``depth`` unjudged documents x1..xN that b ranks in order and a in
    reverse, below them a judged relevant and a judged non-relevant document in both."""
    qrels: dict[str, dict[str, int]] = {}
    run_a: dict[str, dict[str, float]] = {}
    run_b: dict[str, dict[str, float]] = {}
    for q in range(queries):
        qid = f"q{q}"
        xs = [f"x{i:04d}" for i in range(depth)]
        qrels[qid] = {"rel": 2, "non": 0}
        run_b[qid] = {x: float(2 * depth - i) for i, x in enumerate(xs)}
        run_a[qid] = {x: float(depth + i + 1) for i, x in enumerate(xs)}
        for run in (run_a, run_b):
            run[qid]["rel"] = 0.5
            run[qid]["non"] = 0.25
    return qrels, run_a, run_b


DEEP = ["P@10", "DCG@20", "DCG", "RBP", "CG@30", "NumRelRet", "RR", "Success@5", "NumRel"]


def test_a_deep_pair_is_exact_beyond_the_search(tmp_path) -> None:  # type: ignore[no-untyped-def]
    depth = 60
    qrels, run_a, run_b = _deep(depth, 3)
    assert 3**depth > JOINT_LIMIT  # far beyond the exhaustive joint search
    the_qrels = ranklens.Qrels(qrels)
    a, b = ranklens.Run(run_a, name="a"), ranklens.Run(run_b, name="b")
    parsed = ranklens.parse_measures(DEEP)
    found = separable_differences(
        the_qrels, b, a, parsed, 2, _unjudged(the_qrels, b), _unjudged(the_qrels, a)
    )
    xs = [f"x{i:04d}" for i in range(depth)]

    def difference(assigned: dict[str, int], measure: str) -> float:
        graded = {q: {**j, **assigned} for q, j in qrels.items()}
        high_b = ranklens.evaluate(graded, run_b, [measure]).query_values(measure)["q0"]
        high_a = ranklens.evaluate(graded, run_a, [measure]).query_values(measure)["q0"]
        return high_b - high_a

    # the documents b ranks above a (the first half) at 2, the rest at 0: every weight
    # of the additive measures is larger in b exactly on the first half
    first_half = {x: 2 if i < depth // 2 else 0 for i, x in enumerate(xs)}
    second_half = {x: 0 if i < depth // 2 else 2 for i, x in enumerate(xs)}
    for m in ["P@10", "DCG@20", "DCG", "RBP", "CG@30", "NumRelRet"]:
        low, high = found[m]["q0"]
        assert high == pytest.approx(difference(first_half, m), abs=1e-12), m
        assert low == pytest.approx(difference(second_half, m), abs=1e-12), m
        assert low < 0 < high or m == "NumRelRet", m
    # RR and Success: one document relevant, b's first (or a's first)
    for m in ["RR", "Success@5"]:
        low, high = found[m]["q0"]
        assert high == pytest.approx(difference({xs[0]: 2}, m), abs=1e-12)
        assert low == pytest.approx(difference({xs[-1]: 2}, m), abs=1e-12)
    assert found["RR"]["q0"][1] == pytest.approx(1.0 - 1.0 / depth)
    assert found["NumRel"]["q0"] == (0.0, 0.0)
    # no random grading goes outside the ranges
    rng = random.Random(3)
    for _ in range(15):
        assigned = {x: rng.choice([0, 0, 1, 2]) for x in xs}
        for m in DEEP:
            low, high = found[m]["q0"]
            assert low - 1e-12 <= difference(assigned, m) <= high + 1e-12, m
    # compare --bounds marks these measures exact, with the mean of the per-query ranges
    cmp = ranklens.compare(qrels, {"a": run_a, "b": run_b}, DEEP, bounds=True)
    assert cmp.flips is not None
    for m in DEEP:
        pb = cmp.flips[("a", "b")][m]
        assert pb.exact, m
        low, high = found[m]["q0"]  # every query is the same
        scale = 3.0 if m in ("NumRelRet", "NumRel") else 1.0  # sums over the 3 queries
        assert (pb.low, pb.high) == pytest.approx((low * scale, high * scale), abs=1e-12), m
    # a measure without a closed form stays a sound outer bound, not exact
    flips = comparison_flips(cmp, the_qrels, [a, b])
    assert not (
        ranklens.compare(qrels, {"a": run_a, "b": run_b}, ["AP"], bounds=True)
        .flips[("a", "b")]["AP"]
        .exact
    )
    assert flips[("a", "b")]["P@10"].exact
    assert np.isfinite(flips[("a", "b")]["DCG"].low)


@pytest.mark.parametrize(("size", "top"), [(13, 1), (8, 2)])
def test_above_the_joint_limit_every_grading_agrees(size: int, top: int) -> None:
    # 2^14 or 3^9 gradings of the union, more than the joint search tries, still few
    # enough to evaluate every one here
    rng = random.Random(11 + size)
    union = [f"u{i:02d}" for i in range(size)]
    judged = {"r1": top, "r2": 1, "n1": 0, "neg": -1}
    docs = union + list(judged)
    assert (top + 1) ** len(union) > JOINT_LIMIT
    run_a = {"q": {d: float(rng.choice([1, 2, 3, 4, 5])) for d in rng.sample(docs, size - 1)}}
    run_b = {"q": {d: float(rng.choice([1, 2, 3, 4, 5])) for d in rng.sample(docs, size - 1)}}
    extra = [d for d in union if d not in run_a["q"] and d not in run_b["q"]]
    for d in extra:  # every union document retrieved by one run at least
        run_a["q"][d] = 0.5
    _check({"q": judged}, run_a, run_b, [m for m in COVERED if "rel=2" not in m])


def test_ndcg_beyond_the_search_limit_falls_back_to_the_joint_search(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import ranklens.analysis.comparison_separable as separable

    qrels, run_a, run_b = _pair(7)
    qrels["q0"] = {"g": 2, "h": 1, "n": 0}  # a grade between 0 and 2: searched
    run_a["q0"] = {"g": 1.0, "u1": 3.0, "u2": 2.0}
    run_b["q0"] = {"u2": 3.0, "g": 2.0, "u3": 1.0}
    the_qrels = ranklens.Qrels(qrels)
    a, b = ranklens.Run(run_a, name="a"), ranklens.Run(run_b, name="b")
    parsed = ranklens.parse_measures(["nDCG"])
    monkeypatch.setattr(separable, "RATIO_LIMIT", 1)
    found = separable_differences(
        the_qrels, b, a, parsed, 2, _unjudged(the_qrels, b), _unjudged(the_qrels, a)
    )
    assert "q0" not in found["nDCG"]  # three documents to grade, more than the limit
    del qrels["q0"]["h"]  # no grade between 0 and 2: every multiset scored at once
    found = separable_differences(
        ranklens.Qrels(qrels), b, a, parsed, 2, _unjudged(the_qrels, b), _unjudged(the_qrels, a)
    )
    assert "q0" in found["nDCG"]
    qrels["q0"]["h"] = 1
    reference = _joint_exhaustive(qrels, run_a, run_b, ["nDCG"], 2)
    cmp = ranklens.compare(qrels, {"a": run_a, "b": run_b}, ["nDCG"], bounds=True)
    assert cmp.flips is not None
    pb = cmp.flips[("a", "b")]["nDCG"]
    n = len(qrels)
    assert pb.exact  # the small queries are tried jointly
    assert (pb.low, pb.high) == pytest.approx(
        (
            sum(reference[q]["nDCG"][0] for q in qrels) / n,
            sum(reference[q]["nDCG"][1] for q in qrels) / n,
        ),
        abs=1e-12,
    )
