"""ranklens.compat.torchmetrics against torchmetrics' own retrieval classes.

Every class and argument combination on random data without tied scores (torchmetrics
orders tied scores with an unstable sort), scores of both signs (torchmetrics counts a
relevant document only where its score is positive in four of the metrics), queries
without relevant documents, queries spread over several batches; torchmetrics' own
docstring examples; nDCG with ties (torchmetrics averages them, deterministically); the
other metrics with ties against ``ranklens.evaluate``.
"""

from __future__ import annotations

import doctest
import sys

import numpy as np
import pytest

import ranklens
from ranklens.base.errors import InputError, OptionError

torch = pytest.importorskip("torch", reason="needs torch (the torch extra)")
tm_retrieval = pytest.importorskip("torchmetrics.retrieval")
import torchmetrics  # noqa: E402

from ranklens.compat import torchmetrics as compat  # noqa: E402

CLASSES = list(compat.__all__)
WITH_TOP_K = [c for c in CLASSES if c != "RetrievalRPrecision"]


def make_batch(seed: int, n_queries: int = 12, graded: bool = False, empty: bool = True):
    """Flat ``(preds, target, indexes)``, queries shuffled among the rows, no tied scores."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 15, n_queries)
    indexes = np.repeat(rng.permutation(np.arange(n_queries) * 3 + 2), sizes)
    n = len(indexes)
    preds = rng.normal(0.3, 1.0, n) + np.arange(n) * 1e-7  # distinct, both signs
    target = rng.choice([0, 0, 1, 2, 3], n) if graded else (rng.random(n) < 0.3).astype(np.int64)
    if not empty:  # every query with a relevant document
        for q in np.unique(indexes):
            target[np.flatnonzero(indexes == q)[0]] = 1
    else:  # and at least one query without
        target[indexes == indexes[0]] = 0
    order = rng.permutation(n)
    return (
        torch.tensor(preds[order], dtype=torch.float32),
        torch.tensor(target[order]),
        torch.tensor(indexes[order], dtype=torch.long),
    )


def both(name: str, **options):
    return getattr(compat, name)(**options), getattr(tm_retrieval, name)(**options)


def assert_same(mine, theirs) -> None:
    assert mine.dtype == theirs.dtype and mine.shape == theirs.shape
    assert torch.allclose(mine, theirs, atol=1e-6), (mine, theirs)


@pytest.mark.parametrize(
    ("name", "top_k"),
    [(n, k) for n in CLASSES for k in ([None, 1, 3, 40] if n in WITH_TOP_K else [None])],
)
@pytest.mark.parametrize("action", ["neg", "pos", "skip"])
def test_every_class_and_option_equals_torchmetrics(name, action, top_k):
    options = {"empty_target_action": action}
    if top_k is not None:
        options["top_k"] = top_k
    preds, target, indexes = make_batch(top_k or 0, graded=name == "RetrievalNormalizedDCG")
    mine, theirs = both(name, **options)
    half = len(preds) // 2  # two batches; queries cross the boundary
    for part in (slice(0, half), slice(half, None)):
        mine.update(preds[part], target[part], indexes[part])
        theirs.update(preds[part], target[part], indexes[part])
    assert_same(mine.compute(), theirs.compute())


@pytest.mark.parametrize("adaptive_k", [False, True])
@pytest.mark.parametrize("top_k", [None, 2, 10, 30])
def test_precision_adaptive_k(adaptive_k, top_k):
    preds, target, indexes = make_batch(2)
    mine, theirs = both("RetrievalPrecision", top_k=top_k, adaptive_k=adaptive_k)
    assert_same(mine(preds, target, indexes), theirs(preds, target, indexes))


@pytest.mark.parametrize("name", CLASSES)
def test_ignore_index_and_error_action(name):
    preds, target, indexes = make_batch(3, graded=name == "RetrievalNormalizedDCG", empty=False)
    target = target.clone()
    target[::5] = torch.where(target[::5] == 0, -100, target[::5])  # keep every query's positives
    mine, theirs = both(name, ignore_index=-100, empty_target_action="error")
    assert_same(mine(preds, target, indexes), theirs(preds, target, indexes))
    preds, target, indexes = make_batch(3)  # a query without relevant documents
    mine, theirs = both(name, empty_target_action="error")
    with pytest.raises(ValueError):
        theirs(preds, target, indexes)
    with pytest.raises(InputError, match="no positive target"):
        mine(preds, target, indexes)


@pytest.mark.parametrize("name", CLASSES)
@pytest.mark.parametrize("aggregation", ["median", "min", "max"])
def test_aggregations(name, aggregation):
    preds, target, indexes = make_batch(4, graded=name == "RetrievalNormalizedDCG")
    mine, theirs = both(name, aggregation=aggregation)
    assert_same(mine(preds, target, indexes), theirs(preds, target, indexes))


@pytest.mark.parametrize("name", CLASSES)
def test_forward_reset_and_accumulation(name):
    mine, theirs = both(name)
    graded = name == "RetrievalNormalizedDCG"
    for seed in (5, 6):
        preds, target, indexes = make_batch(seed, graded=graded)
        assert_same(mine(preds, target, indexes), theirs(preds, target, indexes))
    assert_same(mine.compute(), theirs.compute())
    mine.reset()
    theirs.reset()
    preds, target, indexes = make_batch(7, graded=graded)
    mine.update(preds, target, indexes)
    theirs.update(preds, target, indexes)
    assert_same(mine.compute(), theirs.compute())


@pytest.mark.parametrize("name", CLASSES)
def test_torchmetrics_docstring_examples(name):
    text = getattr(tm_retrieval, name).__doc__
    text = text.replace(
        "from torchmetrics.retrieval import", "from ranklens.compat.torchmetrics import"
    )
    test = doctest.DocTestParser().get_doctest(text, {}, name, None, 0)
    assert test.examples, name
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    assert runner.failures == 0, name


def test_ndcg_with_tied_scores_and_float_grades_equals_torchmetrics():
    rng = np.random.default_rng(8)
    indexes = torch.tensor(np.repeat(np.arange(10), 8), dtype=torch.long)
    preds = torch.tensor(rng.integers(0, 3, 80) / 2.0, dtype=torch.float32)  # many ties
    grades = rng.integers(0, 4, 80)
    for target in (torch.tensor(grades), torch.tensor(grades, dtype=torch.float32)):
        for top_k in (None, 3):
            mine, theirs = both("RetrievalNormalizedDCG", top_k=top_k)
            assert_same(mine(preds, target, indexes), theirs(preds, target, indexes))
    # fractional grades: torchmetrics takes them as gains, ranklens' grades are whole
    with pytest.raises(InputError, match="whole"):
        compat.RetrievalNormalizedDCG()(preds, torch.tensor(rng.random(80) * 3), indexes)


@pytest.mark.parametrize(
    ("name", "measure"),
    [
        ("RetrievalMRR", "RR"),
        ("RetrievalMAP", "AP"),
        ("RetrievalRPrecision", "Rprec"),
        ("RetrievalHitRate", "Success@3"),
        ("RetrievalRecall", "R@3"),
    ],
)
def test_ties_are_ordered_by_arrival_as_ranklens_input_policy(name, measure):
    # torchmetrics orders ties arbitrarily; here the order of arrival decides, which is
    # ranklens.evaluate's ties="input" on the same data (every relevant document listed)
    rng = np.random.default_rng(9)
    indexes = np.repeat(np.arange(15), 6)
    preds = rng.integers(1, 4, 90).astype(np.float32)  # positive, many ties
    target = (rng.random(90) < 0.35).astype(np.int64)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for i, (q, s, t) in enumerate(zip(indexes, preds, target, strict=True)):
        qrels.setdefault(f"q{q}", {})[f"d{i}"] = int(t)
        run.setdefault(f"q{q}", {})[f"d{i}"] = float(s)
    options = {"top_k": 3} if measure.endswith("@3") else {}
    metric = getattr(compat, name)(**options)
    mine = metric(torch.tensor(preds), torch.tensor(target), torch.tensor(indexes))
    ours = ranklens.evaluate(qrels, run, measure if name != "RetrievalMAP" else "AP", ties="input")
    values = ours.values[:, 0]
    assert float(mine) == pytest.approx(float(np.mean(values)), abs=1e-6)
    pessimistic = getattr(compat, name)(ties="pessimistic", **options)
    value = pessimistic(torch.tensor(preds), torch.tensor(target), torch.tensor(indexes))
    assert float(value) <= float(mine) + 1e-7


def test_positive_only_false_counts_relevant_documents_with_negative_scores():
    preds = torch.tensor([-0.5, -0.9, -0.1])
    target = torch.tensor([1, 0, 0])
    indexes = torch.tensor([0, 0, 0])
    theirs = tm_retrieval.RetrievalMRR()(preds, target, indexes)
    assert float(compat.RetrievalMRR()(preds, target, indexes)) == float(theirs) == 0.0
    assert float(compat.RetrievalMRR(positive_only=False)(preds, target, indexes)) == 0.5


def test_metric_machinery_of_torchmetrics_works():
    assert issubclass(compat.RetrievalMAP, torchmetrics.Metric)
    collection = torchmetrics.MetricCollection(
        {"map": compat.RetrievalMAP(), "ndcg": compat.RetrievalNormalizedDCG(top_k=5)}
    ).to("cpu")
    preds, target, indexes = make_batch(10)
    out = collection(preds, target, indexes=indexes)
    assert set(out) == {"map", "ndcg"}
    theirs = tm_retrieval.RetrievalMAP()(preds, target, indexes=indexes)
    assert_same(out["map"], theirs)


def test_without_torchmetrics_the_classes_stand_alone(monkeypatch):
    preds, target, indexes = make_batch(11)
    target = torch.where((target == 0) & (preds < 0), -100, target)  # rows to ignore
    expected = tm_retrieval.RetrievalMAP(top_k=4, ignore_index=-100)(preds, target, indexes)
    monkeypatch.setitem(sys.modules, "torchmetrics", None)  # import torchmetrics fails
    compat._classes.cache_clear()
    try:
        metric = compat.RetrievalMAP(top_k=4, ignore_index=-100)
        assert not isinstance(metric, torchmetrics.Metric)
        assert_same(metric(preds, target, indexes), expected)
        assert_same(metric.compute(), expected)  # forward kept the batch
        metric.reset()
        metric.update(preds, target, indexes)
        assert_same(metric.compute(), expected)
        metric.reset()
        with pytest.raises(InputError, match="before any update"):
            metric.compute()
    finally:
        compat._classes.cache_clear()


def test_bad_arguments_and_inputs():
    with pytest.raises(OptionError, match="empty_target_action"):
        compat.RetrievalMAP(empty_target_action="zero")
    with pytest.raises(OptionError, match="top_k"):
        compat.RetrievalPrecision(top_k=0)
    with pytest.raises(OptionError, match="adaptive_k"):
        compat.RetrievalPrecision(adaptive_k="yes")
    with pytest.raises(OptionError, match="ignore_index"):
        compat.RetrievalMRR(ignore_index=1.5)
    with pytest.raises(OptionError, match="ties"):
        compat.RetrievalMRR(ties="average")
    with pytest.raises(TypeError):
        compat.RetrievalMRR(adaptive_k=True)  # as torchmetrics: precision only
    metric = compat.RetrievalMAP()
    with pytest.raises(InputError, match="long integers"):
        metric.update(torch.tensor([0.1]), torch.tensor([1]), torch.tensor([0], dtype=torch.int32))
    with pytest.raises(InputError, match="binary"):
        metric.update(torch.tensor([0.1]), torch.tensor([2]), torch.tensor([0]))
    with pytest.raises(InputError, match="same shape"):
        metric.update(torch.tensor([0.1, 0.2]), torch.tensor([1]), torch.tensor([0]))
    with pytest.raises(InputError, match="floats"):
        metric.update(torch.tensor([1]), torch.tensor([1]), torch.tensor([0]))
    with pytest.raises(InputError, match="negative grades"):
        compat.RetrievalNormalizedDCG().update(
            torch.tensor([0.1]), torch.tensor([-1]), torch.tensor([0])
        )
