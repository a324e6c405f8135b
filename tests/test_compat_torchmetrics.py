"""ranklens.compat.torchmetrics against torchmetrics' own retrieval classes.

Every class and argument combination on generated data: scores of both signs (torchmetrics
counts a relevant document only where its score is positive in four of the metrics),
graded and fractional targets for nDCG, queries without relevant documents and without
non-relevant ones, queries spread over several batches and shuffled among the rows, rows
left out by ``ignore_index``. Tied scores where the semantics agree (nDCG averages them;
AUROC counts tied pairs half); elsewhere torchmetrics orders ties by an unstable sort, so
the data there have none, and the tie policies are checked against ``ranklens.evaluate``
and scikit-learn instead. torchmetrics' own docstring examples run against these classes.
"""

from __future__ import annotations

import doctest
import itertools
import pickle
import sys
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ranklens
from ranklens.base.errors import InputError, MissingDependencyError, OptionError, RanklensError

torch = pytest.importorskip("torch", reason="needs torch (the torch extra)")
tm_retrieval = pytest.importorskip("torchmetrics.retrieval")
import torchmetrics  # noqa: E402
from sklearn.metrics import roc_auc_score  # noqa: E402

from ranklens.compat import torchmetrics as compat  # noqa: E402

SCALAR = [
    "RetrievalAUROC",
    "RetrievalFallOut",
    "RetrievalHitRate",
    "RetrievalMAP",
    "RetrievalMRR",
    "RetrievalNormalizedDCG",
    "RetrievalPrecision",
    "RetrievalRPrecision",
    "RetrievalRecall",
]
CURVES = ["RetrievalPrecisionRecallCurve", "RetrievalRecallAtFixedPrecision"]
CLASSES = SCALAR + CURVES
WITH_TOP_K = [c for c in SCALAR if c != "RetrievalRPrecision"]


def make_batch(
    seed: int,
    n_queries: int = 12,
    graded: bool = False,
    empty: bool = True,
    unit_scores: bool = False,
    ties: bool = False,
):
    """Flat ``(preds, target, indexes)``, queries shuffled among the rows. Without ``ties``
    the scores are distinct; ``unit_scores`` keeps them in (0, 1) (torchmetrics' AUROC
    passes other scores through a float32 sigmoid). With ``empty`` a query has no relevant
    document and another no non-relevant one."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(2, 15, n_queries)
    indexes = np.repeat(rng.permutation(np.arange(n_queries) * 3 + 2), sizes)
    n = len(indexes)
    if ties:
        preds = rng.integers(0, 4, n) / 4.0 + (0.1 if unit_scores else -0.3)
    elif unit_scores:
        preds = (rng.permutation(n) + rng.random()) / (n + 1)
    else:
        preds = rng.normal(0.3, 1.0, n) + np.arange(n) * 1e-4  # distinct, both signs
    target = rng.choice([0, 0, 1, 2, 3], n) if graded else (rng.random(n) < 0.35).astype(np.int64)
    for q in np.unique(indexes):  # every query both kinds, unless emptied below
        rows = np.flatnonzero(indexes == q)
        target[rows[0]] = max(target[rows[0]], 1)
        if len(rows) > 1:
            target[rows[-1]] = 0
    if empty:
        target[indexes == indexes[0]] = 0  # no relevant document
        others = indexes[indexes != indexes[0]]
        if len(others):
            target[indexes == others[0]] = 1  # no non-relevant document
    order = rng.permutation(n)
    return (
        torch.tensor(preds[order], dtype=torch.float32),
        torch.tensor(target[order]),
        torch.tensor(indexes[order], dtype=torch.long),
    )


def both(name: str, *args, **options):
    return getattr(compat, name)(*args, **options), getattr(tm_retrieval, name)(*args, **options)


def assert_same(mine, theirs, atol: float = 1e-6) -> None:
    if isinstance(theirs, tuple):
        assert isinstance(mine, tuple) and len(mine) == len(theirs)
        for a, b in zip(mine, theirs, strict=True):
            assert_same(a, b, atol)
        return
    assert mine.dtype == theirs.dtype and mine.shape == theirs.shape, (mine, theirs)
    assert mine.device == theirs.device
    assert torch.allclose(mine, theirs, atol=atol), (mine, theirs)


def run_both(mine, theirs, preds, target, indexes, batches: int = 2) -> None:
    """Update both over ``batches`` batches (queries cross the boundaries), then compare
    the value of the last batch (forward) and of everything (compute)."""
    bounds = np.linspace(0, len(preds), batches + 1).astype(int)
    for start, stop in itertools.pairwise(bounds):
        part = slice(int(start), int(stop))
        assert_same(
            mine(preds[part], target[part], indexes=indexes[part]),
            theirs(preds[part], target[part], indexes=indexes[part]),
        )
    assert_same(mine.compute(), theirs.compute())


def data_for(name: str, seed: int, **kwargs):
    return make_batch(
        seed,
        graded=name == "RetrievalNormalizedDCG",
        unit_scores=name == "RetrievalAUROC",
        **kwargs,
    )


@pytest.mark.parametrize(
    ("name", "top_k"),
    [(n, k) for n in SCALAR for k in ([None, 1, 3, 40] if n in WITH_TOP_K else [None])],
)
@pytest.mark.parametrize("action", ["neg", "pos", "skip"])
def test_every_class_and_option_equals_torchmetrics(name, action, top_k):
    options = {"empty_target_action": action}
    if top_k is not None:
        options["top_k"] = top_k
    preds, target, indexes = data_for(name, top_k or 0)
    run_both(*both(name, **options), preds, target, indexes)


@pytest.mark.parametrize("adaptive_k", [False, True])
@pytest.mark.parametrize("top_k", [None, 2, 10, 30])
def test_precision_adaptive_k(adaptive_k, top_k):
    preds, target, indexes = make_batch(2)
    mine, theirs = both("RetrievalPrecision", top_k=top_k, adaptive_k=adaptive_k)
    run_both(mine, theirs, preds, target, indexes, batches=3)


@pytest.mark.parametrize("max_fpr", [None, 0.1, 0.25, 0.5, 1.0])
@pytest.mark.parametrize("top_k", [None, 2, 5])
def test_auroc_max_fpr(max_fpr, top_k):
    preds, target, indexes = make_batch(3, unit_scores=True, n_queries=20)
    run_both(*both("RetrievalAUROC", top_k=top_k, max_fpr=max_fpr), preds, target, indexes)


@pytest.mark.parametrize("max_fpr", [None, 0.3])
def test_auroc_with_tied_scores_counts_tied_pairs_half(max_fpr):
    # ties inside the ranking are deterministic in AUROC (one ROC point per distinct
    # score), so torchmetrics and scikit-learn agree with the module on them
    preds, target, indexes = make_batch(4, unit_scores=True, ties=True, n_queries=15)
    mine, theirs = both("RetrievalAUROC", max_fpr=max_fpr, empty_target_action="skip")
    assert_same(mine(preds, target, indexes), theirs(preds, target, indexes))
    values = []
    for q in torch.unique(indexes):
        rows = indexes == q
        labels = target[rows].numpy()
        if labels.min() == labels.max():
            values.append(0.0) if labels.max() > 0 else None
            continue
        values.append(roc_auc_score(labels, preds[rows].numpy(), max_fpr=max_fpr))
    assert float(mine.compute()) == pytest.approx(float(np.mean(values)), abs=1e-6)


@pytest.mark.parametrize("max_k", [None, 1, 3, 40])
@pytest.mark.parametrize("adaptive_k", [False, True])
@pytest.mark.parametrize("action", ["neg", "pos", "skip"])
def test_precision_recall_curve(max_k, adaptive_k, action):
    preds, target, indexes = make_batch(5 + (max_k or 0))
    options = {"max_k": max_k, "adaptive_k": adaptive_k, "empty_target_action": action}
    run_both(*both("RetrievalPrecisionRecallCurve", **options), preds, target, indexes)


@pytest.mark.parametrize("min_precision", [0.0, 0.2, 0.5, 0.8, 1.0])
@pytest.mark.parametrize("max_k", [None, 2, 6])
@pytest.mark.parametrize("adaptive_k", [False, True])
def test_recall_at_fixed_precision(min_precision, max_k, adaptive_k):
    preds, target, indexes = make_batch(6)
    options = {"min_precision": min_precision, "max_k": max_k, "adaptive_k": adaptive_k}
    mine, theirs = both("RetrievalRecallAtFixedPrecision", **options)
    assert_same(mine(preds, target, indexes), theirs(preds, target, indexes))


@pytest.mark.parametrize("name", CLASSES)
def test_ignore_index_and_error_action(name):
    preds, target, indexes = data_for(name, 7, empty=False)
    target = target.clone()
    dropped = torch.zeros_like(target, dtype=torch.bool)
    dropped[::5] = True
    for q in torch.unique(indexes):  # keep each query's first row, a positive
        rows = torch.nonzero(indexes == q).flatten()
        keep = rows[target[rows] > 0][:1].tolist() + rows[target[rows] == 0][:1].tolist()
        dropped[keep] = False
    target[dropped] = -100
    mine, theirs = both(name, ignore_index=-100, empty_target_action="error")
    assert_same(mine(preds, target, indexes), theirs(preds, target, indexes))
    preds, target, indexes = data_for(name, 7)  # queries without the targets needed
    mine, theirs = both(name, empty_target_action="error")
    with pytest.raises(ValueError, match="`compute` method was provided with a query") as info:
        theirs(preds, target, indexes)
    with pytest.raises(ValueError, match=info.value.args[0].replace(".", r"\.")) as ours:
        mine(preds, target, indexes)
    assert isinstance(ours.value, InputError)


@pytest.mark.parametrize("name", CLASSES)
@pytest.mark.parametrize("aggregation", ["median", "min", "max", "custom"])
def test_aggregations(name, aggregation):
    def squared_mean(values, dim=None):
        return (values**2).mean() if dim is None else (values**2).mean(dim=dim)

    preds, target, indexes = data_for(name, 8)
    chosen = squared_mean if aggregation == "custom" else aggregation
    mine, theirs = both(name, aggregation=chosen)
    assert_same(mine(preds, target, indexes), theirs(preds, target, indexes))


@pytest.mark.parametrize("name", CLASSES)
def test_forward_reset_accumulation_pickle_and_clone(name):
    mine, theirs = both(name)
    for seed in (9, 10):
        preds, target, indexes = data_for(name, seed)
        assert_same(mine(preds, target, indexes), theirs(preds, target, indexes))
    assert_same(mine.compute(), theirs.compute())
    restored = pickle.loads(pickle.dumps(mine))
    assert type(restored) is type(mine)
    assert_same(restored.compute(), theirs.compute())
    assert_same(mine.clone().compute(), theirs.compute())
    mine.reset()
    theirs.reset()
    preds, target, indexes = data_for(name, 11)
    mine.update(preds, target, indexes)
    theirs.update(preds, target, indexes)
    assert_same(mine.compute(), theirs.compute())


@pytest.mark.parametrize("name", CLASSES)
def test_metric_attributes_scripting_and_state(name):
    mine, theirs = both(name, dist_sync_on_step=True)
    assert isinstance(mine, torchmetrics.Metric)
    for attribute in ("higher_is_better", "is_differentiable", "full_state_update"):
        assert getattr(mine, attribute) == getattr(theirs, attribute), attribute
        with pytest.raises(RuntimeError):
            setattr(mine, attribute, not getattr(mine, attribute))
    # TorchScript is deprecated (a DeprecationWarning in torch 2.13, a FutureWarning from
    # 2.14 on) but still what Lightning calls: scripting must work, and give no warning but
    # deprecations (torch's of TorchScript; torchmetrics' of the properties the scripting
    # reads), whatever the release.
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        torch.jit.script(mine)
    others = [w for w in caught if not _is_torchscript_deprecation(w)]
    assert not others, [f"{w.category.__name__}: {w.message}" for w in others]
    assert mine.state_dict() == {}
    assert hash(mine)


def _is_torchscript_deprecation(caught: warnings.WarningMessage) -> bool:
    """A DeprecationWarning, or torch's FutureWarning that TorchScript is deprecated."""
    text = str(caught.message)
    if issubclass(caught.category, DeprecationWarning):
        return True
    return (
        issubclass(caught.category, FutureWarning) and "torch.jit" in text and "deprecated" in text
    )


def test_only_torchscript_deprecation_is_tolerated():
    # the filter of the scripting test lets that one deprecation through and nothing else
    def caught(category, text):
        return warnings.WarningMessage(text, category, "f.py", 1)

    assert _is_torchscript_deprecation(
        caught(FutureWarning, "`torch.jit.script` is deprecated. Please switch to torch.compile")
    )
    assert _is_torchscript_deprecation(caught(DeprecationWarning, "torch.jit.script is deprecated"))
    assert _is_torchscript_deprecation(caught(DeprecationWarning, "Use `Metric.updated_called`"))
    assert not _is_torchscript_deprecation(caught(UserWarning, "torch.jit.script is deprecated"))
    assert not _is_torchscript_deprecation(caught(FutureWarning, "torch.load default changes"))


def test_every_torchmetrics_retrieval_class_is_here():
    assert sorted(tm_retrieval.__all__) == sorted(CLASSES)
    assert set(CLASSES) < set(compat.__all__)


@pytest.mark.parametrize("name", CLASSES)
def test_torchmetrics_docstring_examples(name):
    text = getattr(tm_retrieval, name).__doc__
    text = text.replace(
        "from torchmetrics.retrieval import", "from ranklens.compat.torchmetrics import"
    )
    # some examples rely on their module's imports
    test = doctest.DocTestParser().get_doctest(text, {"tensor": torch.tensor}, name, None, 0)
    assert test.examples, name
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    assert runner.failures == 0, name


@pytest.mark.parametrize("top_k", [None, 3])
def test_ndcg_with_tied_scores_and_fractional_grades_equals_torchmetrics(top_k):
    rng = np.random.default_rng(12)
    indexes = torch.tensor(np.repeat(np.arange(10), 8), dtype=torch.long)
    preds = torch.tensor(rng.integers(0, 3, 80) / 2.0, dtype=torch.float32)  # many ties
    grades = rng.integers(0, 4, 80)
    for target in (
        torch.tensor(grades),
        torch.tensor(grades, dtype=torch.float32),
        torch.tensor(rng.random(80) * 3, dtype=torch.float32),  # fractional gains
    ):
        mine, theirs = both("RetrievalNormalizedDCG", top_k=top_k)
        assert_same(mine(preds, target, indexes), theirs(preds, target, indexes))


@pytest.mark.parametrize(
    ("name", "measure"),
    [
        ("RetrievalMRR", "RR"),
        ("RetrievalMAP", "AP"),
        ("RetrievalRPrecision", "Rprec"),
        ("RetrievalHitRate", "Success@3"),
        ("RetrievalRecall", "R@3"),
        ("RetrievalPrecision", "P@3"),
    ],
)
def test_ties_are_ordered_by_arrival_as_ranklens_input_policy(name, measure):
    # torchmetrics orders ties arbitrarily; here the order of arrival decides, which is
    # ranklens.evaluate's ties="input" on the same data (every relevant document listed);
    # "pessimistic" ("optimistic") is the input order with the non-relevant (relevant)
    # documents of each query listed first
    rng = np.random.default_rng(13)
    indexes = np.repeat(np.arange(15), 6)
    preds = rng.integers(1, 4, 90).astype(np.float32)  # positive, many ties
    target = (rng.random(90) < 0.35).astype(np.int64)
    listings = {
        "input": np.arange(90),
        "pessimistic": np.lexsort((target, indexes)),
        "optimistic": np.lexsort((-target, indexes)),
    }
    options = {"top_k": 3} if measure.endswith("@3") else {}
    values = {}
    for ties, listing in listings.items():
        qrels: dict[str, dict[str, int]] = {}
        run: dict[str, dict[str, float]] = {}
        for i in listing:
            qrels.setdefault(f"q{indexes[i]}", {})[f"d{i}"] = int(target[i])
            run.setdefault(f"q{indexes[i]}", {})[f"d{i}"] = float(preds[i])
        metric = getattr(compat, name)(ties=ties, **options)
        data = (torch.tensor(preds), torch.tensor(target), torch.tensor(indexes))
        values[ties] = float(metric(*data))
        ours = ranklens.evaluate(qrels, run, measure, ties="input").values[:, 0]
        assert values[ties] == pytest.approx(float(np.mean(ours)), abs=1e-6), ties
    default = getattr(compat, name)(**options)
    assert float(default(*data)) == values["input"]
    assert values["pessimistic"] <= values["input"] <= values["optimistic"]


def test_tie_policies_of_fall_out_and_the_curve():
    preds, target, indexes = make_batch(14, ties=True, empty=False)
    fall = {
        t: float(compat.RetrievalFallOut(top_k=3, ties=t)(preds, target, indexes))
        for t in ("pessimistic", "input", "average", "optimistic")
    }
    # fall-out is lower-is-better: the pessimistic order puts the non-relevant first
    assert fall["pessimistic"] >= fall["average"] >= fall["optimistic"]
    assert fall["pessimistic"] >= fall["input"] >= fall["optimistic"]
    # the curve at each k is precision@k and recall@k of the same ranking, every score
    # counted (ranklens.tensor.evaluate on the padded batch, ties in order of arrival)
    curve = compat.RetrievalPrecisionRecallCurve(max_k=5, ties="input", empty_target_action="skip")
    precision, recall, ks = curve(preds, target, indexes)
    assert ks.tolist() == [1, 2, 3, 4, 5]
    recalls = compat.RetrievalRecall
    for k in range(1, 6):
        expected = recalls(top_k=k, positive_only=False, empty_target_action="skip")
        assert float(recall[k - 1]) == pytest.approx(float(expected(preds, target, indexes)))
        p_k = compat.RetrievalPrecision(top_k=k, positive_only=False, empty_target_action="skip")
        assert float(precision[k - 1]) == pytest.approx(float(p_k(preds, target, indexes)))
    average = compat.RetrievalPrecisionRecallCurve(max_k=5, ties="average")
    low = compat.RetrievalPrecisionRecallCurve(max_k=5, ties="pessimistic")
    high = compat.RetrievalPrecisionRecallCurve(max_k=5, ties="optimistic")
    p_avg = average(preds, target, indexes)[0]
    assert bool((low(preds, target, indexes)[0] <= p_avg + 1e-6).all())
    assert bool((p_avg <= high(preds, target, indexes)[0] + 1e-6).all())


def test_positive_only_false_counts_relevant_documents_with_negative_scores():
    preds = torch.tensor([-0.5, -0.9, -0.1])
    target = torch.tensor([1, 0, 0])
    indexes = torch.tensor([0, 0, 0])
    theirs = tm_retrieval.RetrievalMRR()(preds, target, indexes)
    assert float(compat.RetrievalMRR()(preds, target, indexes)) == float(theirs) == 0.0
    assert float(compat.RetrievalMRR(positive_only=False)(preds, target, indexes)) == 0.5


def test_metric_machinery_of_torchmetrics_works():
    collection = torchmetrics.MetricCollection(
        {
            "map": compat.RetrievalMAP(),
            "ndcg": compat.RetrievalNormalizedDCG(top_k=5),
            "auroc": compat.RetrievalAUROC(),
        }
    ).to("cpu")
    preds, target, indexes = make_batch(15, unit_scores=True)
    out = collection(preds, target, indexes=indexes)
    assert set(out) == {"map", "ndcg", "auroc"}
    assert_same(out["map"], tm_retrieval.RetrievalMAP()(preds, target, indexes=indexes))
    assert_same(out["auroc"], tm_retrieval.RetrievalAUROC()(preds, target, indexes=indexes))


def test_without_torchmetrics_the_classes_stand_alone(monkeypatch):
    preds, target, indexes = make_batch(16)
    target = torch.where((target == 0) & (preds < 0), -100, target)  # rows to ignore
    expected = tm_retrieval.RetrievalMAP(top_k=4, ignore_index=-100)(preds, target, indexes)
    curve = tm_retrieval.RetrievalPrecisionRecallCurve(max_k=3, ignore_index=-100)(
        preds, target, indexes
    )
    monkeypatch.setitem(sys.modules, "torchmetrics", None)  # import torchmetrics fails
    compat._classes.classes.cache_clear()
    try:
        metric = compat.RetrievalMAP(top_k=4, ignore_index=-100)
        assert not isinstance(metric, torchmetrics.Metric)
        assert_same(metric(preds, target, indexes), expected)
        assert_same(metric.compute(), expected)  # forward kept the batch
        metric.reset()
        metric.update(preds, target, indexes)
        assert_same(metric.compute(), expected)
        metric.reset()
        with pytest.raises(ValueError, match="before any update"):
            metric.compute()
        mine = compat.RetrievalPrecisionRecallCurve(max_k=3, ignore_index=-100)
        assert_same(mine(preds, target, indexes), curve)
        with pytest.raises(MissingDependencyError, match="torchmetrics"):
            metric.plot()
        with pytest.raises(ValueError, match="need torchmetrics"):
            compat.RetrievalMAP(dist_sync_on_step=True)
    finally:
        compat._classes.classes.cache_clear()


def test_without_array_api_compat_the_import_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "array_api_compat", None)  # its import fails
    compat._classes.classes.cache_clear()
    try:
        with pytest.raises(MissingDependencyError, match=r"ranklens\[torch\].*array-api-compat"):
            from ranklens.compat.torchmetrics import RetrievalMAP  # noqa: F401
        with pytest.raises(ImportError, match=r"ranklens\[torch\]"):
            compat.RetrievalNormalizedDCG  # noqa: B018
        monkeypatch.delitem(sys.modules, "ranklens.compat.torchmetrics.functional", raising=False)
        with pytest.raises(ImportError, match=r"ranklens\[torch\].*array-api-compat"):
            import ranklens.compat.torchmetrics.functional  # noqa: F401
    finally:
        compat._classes.classes.cache_clear()


BAD_ARGUMENTS = [
    ("RetrievalMAP", {"empty_target_action": "zero"}, "`empty_target_action` received a wrong"),
    ("RetrievalMRR", {"ignore_index": 1.5}, "`ignore_index` must be an integer or None"),
    ("RetrievalPrecision", {"top_k": 0}, "`top_k` has to be a positive integer or None"),
    ("RetrievalRecall", {"top_k": 4.0}, "`top_k` has to be a positive integer or None"),
    ("RetrievalFallOut", {"top_k": -1}, "`top_k` has to be a positive integer or None"),
    ("RetrievalPrecision", {"adaptive_k": "yes"}, "`adaptive_k` has to be a boolean"),
    ("RetrievalHitRate", {"aggregation": "sum"}, "`aggregation` must be one of"),
    ("RetrievalAUROC", {"max_fpr": 1.5}, "`max_fpr` should be a float in range"),
    ("RetrievalAUROC", {"max_fpr": 0.0}, "`max_fpr` should be a float in range"),
    ("RetrievalPrecisionRecallCurve", {"max_k": 0}, "`max_k` has to be a positive integer"),
    ("RetrievalRecallAtFixedPrecision", {"min_precision": 1.5}, "`min_precision` has to be"),
    ("RetrievalMRR", {"ties": "average"}, "ties='average' is defined"),
    ("RetrievalMAP", {"ties": "random"}, "ties must be one of"),
]


@pytest.mark.parametrize(("name", "options", "message"), BAD_ARGUMENTS)
def test_bad_arguments_are_value_errors_with_torchmetrics_messages(name, options, message):
    with pytest.raises(ValueError, match=message) as info:
        getattr(compat, name)(**options)
    assert isinstance(info.value, OptionError)


@pytest.mark.parametrize(
    ("name", "option"),
    [
        ("RetrievalMRR", "adaptive_k"),  # precision's only
        ("RetrievalRPrecision", "top_k"),
        ("RetrievalAUROC", "adaptive_k"),
        ("RetrievalPrecisionRecallCurve", "top_k"),
    ],
)
def test_arguments_only_some_classes_take_are_refused_as_torchmetrics_refuses_them(name, option):
    with pytest.raises(ValueError, match="Unexpected keyword") as theirs:
        getattr(tm_retrieval, name)(**{option: 3})
    with pytest.raises(ValueError, match=str(theirs.value)):
        getattr(compat, name)(**{option: 3})
    # ranklens' positive_only only where torchmetrics' rule of positive scores applies
    with pytest.raises(ValueError, match="Unexpected keyword"):
        compat.RetrievalNormalizedDCG(positive_only=False)


def _bad_inputs():
    good_p, good_t, good_i = torch.tensor([0.1, 0.2]), torch.tensor([1, 0]), torch.tensor([0, 0])
    return [
        ("RetrievalMAP", (good_p, good_t, None), "`indexes` cannot be None"),
        ("RetrievalMAP", (good_p[:1], good_t, good_i), "must be of the same shape"),
        ("RetrievalMAP", (good_p, good_t, good_i.int()), "`indexes` must be a tensor of long"),
        ("RetrievalMAP", (good_p[:0], good_t[:0], good_i[:0]), "must be non-empty"),
        ("RetrievalMAP", (good_p, good_t.short(), good_i), "`target` must be a tensor of"),
        ("RetrievalMAP", (good_t, good_t, good_i), "`preds` must be a tensor of floats"),
        ("RetrievalMAP", (good_p, good_t * 2, good_i), "`target` must contain `binary` values"),
        ("RetrievalFallOut", (good_p, -good_t, good_i), "`target` must contain `binary` values"),
    ]


@pytest.mark.parametrize(("name", "args", "message"), _bad_inputs())
def test_bad_tensors_are_value_errors_with_torchmetrics_messages(name, args, message):
    preds, target, indexes = args
    with pytest.raises(ValueError, match=message):
        getattr(tm_retrieval, name)()(preds, target, indexes=indexes)
    with pytest.raises(ValueError, match=message) as info:
        getattr(compat, name)()(preds, target, indexes=indexes)
    assert isinstance(info.value, InputError) and isinstance(info.value, RanklensError)


def test_refusals_where_torchmetrics_gives_a_number():
    indexes = torch.tensor([0, 0])
    with pytest.raises(ValueError, match="NaN or infinite") as info:
        compat.RetrievalMAP()(torch.tensor([0.1, float("nan")]), torch.tensor([1, 0]), indexes)
    assert isinstance(info.value, InputError)
    with pytest.raises(ValueError, match="fractions"):
        compat.RetrievalRecall()(torch.tensor([0.1, 0.2]), torch.tensor([0.5, 1.0]), indexes)
    with pytest.raises(ValueError, match="negative grades"):
        compat.RetrievalNormalizedDCG()(torch.tensor([0.1, 0.2]), torch.tensor([-1, 2]), indexes)


def test_auroc_of_logits_ranks_the_scores_torchmetrics_passes_through_a_sigmoid():
    # torchmetrics' AUROC turns scores outside [0, 1] into float32 sigmoids, which ties 30
    # and 40 (both 1.0); the module ranks the scores as given
    preds = torch.tensor([40.0, 30.0, 1.0])
    target = torch.tensor([1, 0, 0])
    indexes = torch.tensor([0, 0, 0])
    assert float(tm_retrieval.RetrievalAUROC()(preds, target, indexes)) == 0.75
    assert float(compat.RetrievalAUROC()(preds, target, indexes)) == 1.0
    assert float(roc_auc_score(target.numpy(), preds.numpy())) == 1.0


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    name=st.sampled_from(SCALAR),
    top_k=st.one_of(st.none(), st.integers(1, 6)),
    action=st.sampled_from(["neg", "pos", "skip"]),
)
def test_property_every_scalar_class_equals_torchmetrics(seed, name, top_k, action):
    preds, target, indexes = data_for(name, seed, n_queries=int(seed % 7) + 1)
    options = {"empty_target_action": action}
    if name in WITH_TOP_K:
        options["top_k"] = top_k
    mine, theirs = both(name, **options)
    assert_same(mine(preds, target, indexes), theirs(preds, target, indexes))


@pytest.mark.parametrize("name", CLASSES)
def test_plot_is_torchmetrics_plot(name):
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    preds, target, indexes = data_for(name, 17)
    try:
        for lib in (compat, tm_retrieval):
            metric = getattr(lib, name)()
            metric.update(preds, target, indexes)
            figure, axes = metric.plot()
            assert axes.get_ylabel() in (name, "True positive rate")
            plt.close(figure)
    finally:
        plt.close("all")
