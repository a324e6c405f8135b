"""ranklens against scikit-learn, an independent implementation, on dense queries.

scikit-learn's ranking metrics take a dense matrix: every document of a query is scored and
judged, and relevant documents that a run misses cannot be represented. On such queries
ranklens and scikit-learn must agree exactly (up to the last bits of float rounding):

* ``nDCG@k`` / ``nDCG`` and ``ndcg_score(grades, scores, k=k, ignore_ties=True)``, ``DCG@k``
  and ``dcg_score(..., ignore_ties=True)``, with linear gains, and with exponential gains
  (``dcg='exp-log2'`` against the same functions given ``2^grade - 1``). With distinct
  scores the orders are the same. With tied scores they are the same when ranklens is given
  scikit-learn's order: ``ignore_ties=True`` ranks by ``np.argsort(scores)[::-1]``, and
  ranklens with ``ties='input'`` keeps the input order among ties, so a run listed in that
  order ranks identically. ``ignore_ties=False`` (scikit-learn's default) gives each tied
  document the mean gain of its tie group; that equals every ranklens tie order exactly
  when the tied documents have equal grades.
* ``AP`` and ``average_precision_score`` with distinct scores (with ties scikit-learn makes
  one threshold of a tie group).
* :func:`ranklens.analysis.curves.pr_curve` and ``precision_recall_curve``: one point per rank
  against one point per distinct score, so with ties scikit-learn's points are ranklens's
  points at the last rank of each tie group.

Already covered elsewhere, and not repeated here: ``AUC`` against ``roc_auc_score``
(tests/test_curves.py), ``KendallTau`` against ``scipy.stats.kendalltau``
(tests/test_confusion_and_correlation.py), ``IPrec@x`` (``iprec_at_recall``) against
trec_eval's printed values (tests/test_trec_eval_golden.py) and ``11ptAvg`` against them
byte for byte, default and custom levels (tests/test_trec_eval_command.py).
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

import ranklens
from ranklens.analysis.curves import pr_curve

metrics = pytest.importorskip("sklearn.metrics")

TRIALS = 150


def dense_cases(seed: int, ties: bool) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """``(grades, scores)`` of one query, ``TRIALS`` times: 2 to 40 documents, grades 0..4,
    scores distinct (a permutation) or drawn from a few values (ties)."""
    rng = np.random.default_rng(seed)
    for _ in range(TRIALS):
        n = int(rng.integers(2, 41))
        grades = rng.integers(0, 5, size=n) * (rng.random(n) < 0.7)
        if ties:
            scores = rng.integers(0, max(2, n // 3), size=n).astype(float)
        else:
            scores = rng.permutation(n).astype(float) + rng.random()
        yield grades.astype(np.int64), scores


def as_dicts(
    grades: np.ndarray, scores: np.ndarray, order: np.ndarray | None = None
) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]]:
    """One query ``q`` with documents ``d000``...; the run lists them in ``order``."""
    docs = [f"d{i:03d}" for i in range(len(grades))]
    qrels = {"q": {d: int(g) for d, g in zip(docs, grades, strict=True)}}
    index = range(len(docs)) if order is None else order
    run = {"q": {docs[i]: float(scores[i]) for i in index}}
    return qrels, run


def sk_ndcg(grades: np.ndarray, scores: np.ndarray, k: int | None, ignore_ties: bool) -> float:
    return float(metrics.ndcg_score([grades], [scores], k=k, ignore_ties=ignore_ties))


def sk_dcg(grades: np.ndarray, scores: np.ndarray, k: int | None) -> float:
    return float(metrics.dcg_score([grades], [scores], k=k, ignore_ties=True))


def cutoff_of(measure: str) -> int | None:
    return int(measure.split("@")[1]) if "@" in measure else None


# --- nDCG and DCG ------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [1, 2])
def test_ndcg_and_dcg_with_distinct_scores(seed: int) -> None:
    for trial, (grades, scores) in enumerate(dense_cases(seed, ties=False)):
        qrels, run = as_dicts(grades, scores)
        exp_gains = 2.0**grades - 1.0
        names = ["nDCG", "nDCG@1", "nDCG@3", "nDCG@10", "DCG", "DCG@5"]
        names += ["nDCG(dcg='exp-log2')@5", "DCG(dcg='exp-log2')"]
        res = ranklens.evaluate(qrels, run, names)
        for name in names:
            k = cutoff_of(name)
            gains = exp_gains if "exp-log2" in name else grades
            if name.startswith("nDCG"):
                want = sk_ndcg(gains, scores, k, ignore_ties=True)
                assert want == pytest.approx(sk_ndcg(gains, scores, k, ignore_ties=False))
            else:
                want = sk_dcg(gains, scores, k)
            assert res[name] == pytest.approx(want, rel=1e-12, abs=1e-12), (trial, name)


@pytest.mark.parametrize("seed", [3, 4])
def test_ndcg_with_ties_in_scikit_learns_order(seed: int) -> None:
    for trial, (grades, scores) in enumerate(dense_cases(seed, ties=True)):
        order = np.argsort(scores)[::-1]  # what ignore_ties=True ranks by
        qrels, run = as_dicts(grades, scores, order)
        names = ["nDCG", "nDCG@3", "DCG@5"]
        res = ranklens.evaluate(qrels, run, names, ties="input")
        for name in names:
            k = cutoff_of(name)
            want = (
                sk_ndcg(grades, scores, k, ignore_ties=True)
                if name.startswith("nDCG")
                else sk_dcg(grades, scores, k)
            )
            assert res[name] == pytest.approx(want, rel=1e-12, abs=1e-12), (trial, name)


@pytest.mark.parametrize("seed", [5, 6])
def test_ndcg_tie_averaging_is_any_order_when_tied_grades_are_equal(seed: int) -> None:
    for trial, (grades, scores) in enumerate(dense_cases(seed, ties=True)):
        # make every tie group share one grade: the grade of its first document
        equal = grades.copy()
        for value in np.unique(scores):
            group = np.flatnonzero(scores == value)
            equal[group] = grades[group[0]]
        qrels, run = as_dicts(equal, scores)
        for ties in ("trec_eval", "input", "docid_asc"):
            res = ranklens.evaluate(qrels, run, ["nDCG", "nDCG@4"], ties=ties)
            for name, k in (("nDCG", None), ("nDCG@4", 4)):
                want = sk_ndcg(equal, scores, k, ignore_ties=False)
                assert res[name] == pytest.approx(want, rel=1e-12, abs=1e-12), (trial, ties)


def test_tie_averaging_differs_from_every_order_when_tied_grades_differ() -> None:
    """The docs/conventions.md case: a (2) and b (0) tie below c (1)."""
    grades, scores = np.array([2, 0, 1]), np.array([0.5, 0.5, 0.9])
    qrels, run = as_dicts(grades, scores)
    averaged = sk_ndcg(grades, scores, None, ignore_ties=False)
    values = {
        ties: ranklens.evaluate(qrels, run, "nDCG", ties=ties)["nDCG"]
        for ties in ("trec_eval", "input", "docid_asc")
    }
    assert min(values.values()) < averaged < max(values.values())
    assert averaged == pytest.approx((1 + 1 / np.log2(3) + 1 / 2) / (2 + 1 / np.log2(3)))


def test_multi_query_mean_equals_ndcg_score_on_a_matrix() -> None:
    rng = np.random.default_rng(11)
    grades = rng.integers(0, 4, size=(25, 12))
    scores = np.stack([rng.permutation(12) for _ in range(25)]).astype(float)
    qrels = {f"q{j}": {f"d{i}": int(g) for i, g in enumerate(row)} for j, row in enumerate(grades)}
    run = {f"q{j}": {f"d{i}": float(s) for i, s in enumerate(row)} for j, row in enumerate(scores)}
    res = ranklens.evaluate(qrels, run, ["nDCG@5", "nDCG"])
    assert res["nDCG@5"] == pytest.approx(metrics.ndcg_score(grades, scores, k=5), rel=1e-12)
    assert res["nDCG"] == pytest.approx(metrics.ndcg_score(grades, scores), rel=1e-12)


# --- AP and the precision-recall curve ---------------------------------------------------


@pytest.mark.parametrize("seed", [7, 8])
def test_ap_with_distinct_scores(seed: int) -> None:
    for trial, (grades, scores) in enumerate(dense_cases(seed, ties=False)):
        for rel in (1, 3):
            relevant = grades >= rel
            if not relevant.any():
                continue
            qrels, run = as_dicts(grades, scores)
            got = ranklens.evaluate(qrels, run, f"AP(rel={rel})")[f"AP(rel={rel})"]
            want = metrics.average_precision_score(relevant, scores)
            assert got == pytest.approx(want, rel=1e-12), (trial, rel)


@pytest.mark.parametrize(("seed", "ties"), [(9, False), (10, True)])
def test_pr_curve(seed: int, ties: bool) -> None:
    for trial, (grades, scores) in enumerate(dense_cases(seed, ties=ties)):
        relevant = grades >= 1
        if not relevant.any():
            continue
        qrels, run = as_dicts(grades, scores)
        curve = pr_curve(qrels, run, query="q")
        precision, recall, thresholds = metrics.precision_recall_curve(relevant, scores)
        # scikit-learn: increasing thresholds, then the point (recall 0, precision 1)
        sk_precision, sk_recall = precision[:-1][::-1], recall[:-1][::-1]
        ranked = np.sort(scores)[::-1]
        last_of_group = np.flatnonzero(np.append(ranked[1:] != ranked[:-1], True))
        assert len(last_of_group) == len(thresholds[::-1]), trial
        np.testing.assert_allclose(curve.precision[last_of_group], sk_precision, rtol=1e-12)
        np.testing.assert_allclose(curve.recall[last_of_group], sk_recall, rtol=1e-12)
        if not ties:
            assert len(curve.rank) == len(grades)
