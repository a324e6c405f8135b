"""Compat (Clarke, Vtyurina and Smucker 2020) against ir_measures' compat provider: its own
test expectations (from the authors' reference implementation), a differential test on
generated rankings with ties, grades, unjudged documents and queries without relevant
documents, and hand-computed values."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ranklens
from ranklens.measures import parse_measure

ir_measures = pytest.importorskip("ir_measures")

DATA = Path(__file__).parent / "data" / "ir_measures"


def test_ir_measures_expectations() -> None:
    """ir_measures' tests/test_compat.py: values from a run of github.com/claclark/Compatibility
    on its compat.qrels / compat.run (two TREC CAsT-style queries with grades 0-4)."""
    expected = {
        "Compat": {"31_1": 0.51779512165509, "31_2": 0.018400100569017922},
        "Compat(p=0.9)": {"31_1": 0.3761334522946854, "31_2": 0.004344079941789211},
        "Compat(p=0.8)": {"31_1": 0.16723008845234535, "31_2": 0.00022806427320561776},
    }
    res = ranklens.evaluate(
        str(DATA / "compat.qrels"), str(DATA / "compat.run"), list(expected), ties="docid_asc"
    )
    for name, by_query in expected.items():
        for qid, value in by_query.items():
            assert res.per_query[qid][name] == pytest.approx(value, abs=1e-9), (name, qid)
    assert res["Compat"] == pytest.approx(0.268097611, abs=1e-9)


docs = [f"d{i:02d}" for i in range(14)]
NAMES = {
    "Compat": "Compat()",
    "Compat(p=0.8)": "Compat(p=0.8)",
    "Compat(p=0.5,normalize=False)": "Compat(p=0.5,normalize=False)",
    "Compat(p=1.0)": "Compat(p=1.0)",
    "Compat(p=0.0)": "Compat(p=0.0)",
}


@st.composite
def query(draw: st.DrawFn) -> tuple[dict[str, int], dict[str, float]]:
    judged = draw(st.lists(st.sampled_from(docs), unique=True, max_size=12))
    grades = {d: draw(st.integers(-1, 3)) for d in sorted(judged)}  # qrels in docid order
    ranked = draw(st.lists(st.sampled_from(docs), unique=True, min_size=1, max_size=12))
    # positive scores from a few values: ties are common
    run = {d: float(draw(st.integers(1, 4))) for d in ranked}
    return grades, run


@settings(max_examples=60, deadline=None)
@given(queries=st.lists(query(), min_size=1, max_size=4))
def test_equals_ir_measures(queries: list[tuple[dict[str, int], dict[str, float]]]) -> None:
    """Per query, to 1e-12. ir_measures breaks score ties by document id ascending
    (ties='docid_asc') and equal grades in the ideal by score, then qrels order: with the
    qrels in document id order that is the run's order, as ranklens' ideal has it."""
    qrels = {f"q{i}": grades for i, (grades, _) in enumerate(queries) if grades}
    run = {f"q{i}": ranking for i, (_, ranking) in enumerate(queries)}
    if not qrels:
        return
    peer = {name: ir_measures.parse_measure(text) for name, text in NAMES.items()}
    got = ranklens.evaluate(qrels, run, list(NAMES), ties="docid_asc")
    found = 0
    for metric in ir_measures.compat.iter_calc(list(peer.values()), qrels, run):
        name = next(n for n, m in peer.items() if m == metric.measure)
        assert got.per_query[metric.query_id][str(parse_measure(name))] == pytest.approx(
            metric.value, abs=1e-12, rel=1e-12
        ), (name, metric.query_id)
        found += 1
    assert found == len(NAMES) * len(set(qrels) & set(run))


def test_hand_computed() -> None:
    # ranking b (0), a (2), x (unjudged), c (1); ideal a, c, d (d grade 1, not retrieved)
    qrels = {"q": {"a": 2, "b": 0, "c": 1, "d": 1}}
    run = {"q": {"b": 4.0, "a": 3.0, "x": 2.0, "c": 1.0}}
    p = 0.5
    # D = 4: X = |{b}&{a}|, |{b,a}&{a,c}|, |{b,a,x}&{a,c,d}|, |{b,a,x,c}&{a,c,d}| = 0, 1, 1, 2
    weights = [1, p, p * p, p**3]
    rbo = (weights[1] * 1 / 2 + weights[2] * 1 / 3 + weights[3] * 2 / 4) / sum(weights)
    best = (1 + p + p * p + p**3 * 3 / 4) / sum(weights)  # X = 1, 2, 3, 3
    res = ranklens.evaluate(
        qrels, run, ["Compat(p=0.5)", "Compat(p=0.5,normalize=False)"]
    ).per_query["q"]
    assert res["Compat(normalize=False,p=0.5)"] == pytest.approx(rbo, abs=1e-15)
    assert res["Compat(p=0.5)"] == pytest.approx(rbo / best, abs=1e-15)


def test_ideal_order_follows_the_run_for_equal_grades() -> None:
    """Equally graded documents: the ideal takes them in the run's order, so a run that
    ranks every relevant document by grade scores 1, whatever its order within a grade."""
    qrels = {"q": {"a": 1, "b": 1, "c": 2, "n": 0}}
    for run in ({"c": 3.0, "a": 2.0, "b": 1.0}, {"c": 3.0, "b": 2.0, "a": 1.0}):
        assert ranklens.evaluate(qrels, {"q": run}, "Compat")["Compat"] == pytest.approx(1.0)


def test_no_relevant_and_no_ranking_score_zero() -> None:
    qrels = {"q1": {"a": 0}, "q2": {"a": 1}, "q3": {"a": 2}}
    run = {"q1": {"a": 1.0}, "q2": {"b": 1.0}}
    res = ranklens.evaluate(qrels, run, ["Compat", "Compat(normalize=False)"]).per_query
    for qid in qrels:
        assert res[qid]["Compat"] == 0.0
        assert res[qid]["Compat(normalize=False)"] == 0.0


def test_negative_scores_differ_from_ir_measures_deliberately() -> None:
    """ir_measures orders equal grades in its ideal by run score with 0 for an unretrieved
    document, so a retrieved document with a negative score goes after the unretrieved ones;
    ranklens keeps every retrieved one first (docs/conventions.md, Compat)."""
    qrels = {"q": {"a": 1, "b": 1}}
    run = {"q": {"a": -1.0, "x": -2.0}}  # b (relevant) is not retrieved
    name = "Compat(normalize=False,p=0.5)"
    ours = ranklens.evaluate(qrels, run, name)[name]
    theirs = ir_measures.calc_aggregate([ir_measures.parse_measure(name)], qrels, run)
    # ranklens: I = (a, b), X = 1, 1; ir_measures: I = (b, a), X = 0, 1
    assert ours == pytest.approx((1 + 0.5 * 1 / 2) / 1.5)
    assert next(iter(theirs.values())) == pytest.approx((0 + 0.5 * 1 / 2) / 1.5)
