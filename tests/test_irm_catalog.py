"""ir_measures' ordered-pair ``Accuracy`` against ir_measures itself, and the renamed
classification accuracy ``ClassAccuracy``."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ranklens

ir_measures = pytest.importorskip("ir_measures")

docs = st.sampled_from([f"d{i}" for i in range(10)])


@settings(max_examples=60, deadline=None)
@given(
    grades=st.dictionaries(docs, st.integers(0, 2), min_size=1),
    scores=st.dictionaries(docs, st.integers(0, 5).map(float), min_size=1),
    cutoff=st.sampled_from([None, 1, 3, 5]),
    rel=st.integers(1, 2),
)
def test_accuracy_equals_ir_measures(
    grades: dict[str, int], scores: dict[str, float], cutoff: int | None, rel: int
) -> None:
    qrels, run = {"q": grades}, {"q": scores}
    ranked = sorted(scores, key=lambda d: -scores[d])  # stable: ties in input order
    top = ranked[:cutoff] if cutoff else ranked
    relevant = [d for d in top if grades.get(d, 0) >= rel]
    if not relevant or len(relevant) == len(top):
        return  # ir_measures leaves the query out, or divides by zero
    theirs = ir_measures.Accuracy(rel=rel)
    ours = f"Accuracy(rel={rel})" if rel != 1 else "Accuracy"
    if cutoff:
        theirs, ours = theirs @ cutoff, f"{ours}@{cutoff}"
    # ir_measures' accuracy provider keeps tied documents in input order
    expected = ir_measures.calc_aggregate([theirs], qrels, run)[theirs]
    got = ranklens.evaluate(qrels, run, ours, ties="input")[ours]
    assert got == pytest.approx(expected, abs=1e-12)


def test_accuracy_hand_computed_and_edges() -> None:
    qrels = {"q": {"a": 1, "b": 0, "c": 1}}
    # N R N R: non-relevant above a: 1, above c: 2 -> 1 - 3 / (2 * 2) = 0.25
    run = {"q": {"b": 4.0, "a": 3.0, "x": 2.0, "c": 1.0}}
    assert ranklens.evaluate(qrels, run, "Accuracy")["Accuracy"] == pytest.approx(0.25)
    only_rel = {"q": {"a": 2.0, "c": 1.0}}
    assert ranklens.evaluate(qrels, only_rel, "Accuracy")["Accuracy"] == 1.0
    no_rel = {"q": {"b": 2.0, "x": 1.0}}
    assert ranklens.evaluate(qrels, no_rel, "Accuracy")["Accuracy"] == 0.0


def test_class_accuracy_is_the_classification_one() -> None:
    qrels = {"q": {"a": 1, "b": 0, "c": 1}}
    run = {"q": {"a": 0.9, "b": 0.8}}
    # N = 10: TP = 1 (a), FP = 1 (b), FN = 1 (c), TN = 7
    got = ranklens.evaluate(qrels, run, "ClassAccuracy(num_docs=10)")
    assert got["ClassAccuracy(num_docs=10)"] == pytest.approx(8 / 10)


@settings(max_examples=60, deadline=None)
@given(
    grades=st.dictionaries(docs, st.integers(0, 3), min_size=1),
    scores=st.dictionaries(docs, st.integers(0, 3).map(float), min_size=2),
    k=st.sampled_from([None, 1, 2, 4]),
    log_base=st.sampled_from([2.0, 10.0]),
)
def test_sklearn_dcg_and_ndcg(
    grades: dict[str, int], scores: dict[str, float], k: int | None, log_base: float
) -> None:
    metrics = pytest.importorskip("sklearn.metrics")
    ranked = list(scores)
    y_true = np.array([[grades.get(d, 0) for d in ranked]], dtype=float)
    y_score = np.array([[scores[d] for d in ranked]])
    at = f"@{k}" if k else ""
    base = "" if log_base == 2.0 else f"(log_base={log_base})"
    names = [f"SkDCG{base}{at}", f"SknDCG{at}"]
    res = ranklens.evaluate({"q": grades}, {"q": scores}, names, queries="run")
    dcg = metrics.dcg_score(y_true, y_score, k=k, log_base=log_base)
    assert res[names[0]] == pytest.approx(dcg, abs=1e-12)
    if y_true.sum() > 0:
        ndcg = metrics.ndcg_score(y_true, y_score, k=k)
        assert res[names[1]] == pytest.approx(ndcg, abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(
    grades=st.dictionaries(docs, st.integers(0, 2), min_size=1),
    scores=st.dictionaries(docs, st.integers(0, 3).map(float), min_size=2),
)
def test_label_ranking_average_precision(grades: dict[str, int], scores: dict[str, float]) -> None:
    metrics = pytest.importorskip("sklearn.metrics")
    ranked = list(scores)
    y_true = np.array([[int(grades.get(d, 0) >= 1) for d in ranked]])
    y_score = np.array([[scores[d] for d in ranked]])
    expected = metrics.label_ranking_average_precision_score(y_true, y_score)
    got = ranklens.evaluate({"q": grades}, {"q": scores}, "LRAP", queries="run")["LRAP"]
    assert got == pytest.approx(expected, abs=1e-12)
