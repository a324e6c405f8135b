"""ranklens.compat.torchmetrics.functional against torchmetrics.functional.retrieval.

Every function on generated single queries (flat and 2-D tensors, which both flatten):
scores of both signs, graded and fractional nDCG gains with tied scores, queries without a
relevant or a non-relevant document, every ``top_k``/``max_k`` below, at and above the
query's length, ``adaptive_k``, ``max_fpr``; half-precision inputs; the errors, as
torchmetrics' ``ValueError`` s with its messages; and each function equal to its class on a
single query.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ranklens.base.errors import InputError, OptionError

torch = pytest.importorskip("torch", reason="needs torch (the torch extra)")
tm_functional = pytest.importorskip("torchmetrics.functional.retrieval")
from sklearn.metrics import ndcg_score, roc_auc_score  # noqa: E402

from ranklens.compat import torchmetrics as compat  # noqa: E402
from ranklens.compat.torchmetrics import _core, _single, functional  # noqa: E402

WITH_TOP_K = [
    "retrieval_auroc",
    "retrieval_average_precision",
    "retrieval_fall_out",
    "retrieval_hit_rate",
    "retrieval_normalized_dcg",
    "retrieval_precision",
    "retrieval_recall",
    "retrieval_reciprocal_rank",
]
FUNCTIONS = [*WITH_TOP_K, "retrieval_precision_recall_curve", "retrieval_r_precision"]
CLASS_OF = {
    "retrieval_auroc": "RetrievalAUROC",
    "retrieval_average_precision": "RetrievalMAP",
    "retrieval_fall_out": "RetrievalFallOut",
    "retrieval_hit_rate": "RetrievalHitRate",
    "retrieval_normalized_dcg": "RetrievalNormalizedDCG",
    "retrieval_precision": "RetrievalPrecision",
    "retrieval_r_precision": "RetrievalRPrecision",
    "retrieval_recall": "RetrievalRecall",
    "retrieval_reciprocal_rank": "RetrievalMRR",
}


def make_query(seed: int, n: int, kind: str = "binary", shape2d: bool = False):
    """``(preds, target)`` of one query: distinct scores of both signs (in (0, 1) for
    ``kind="auroc"``), binary targets, or graded ones, or fractional gains with tied
    scores (``kind="fractional"``); ``"none"``: no relevant document, ``"all"``: no
    non-relevant one."""
    rng = np.random.default_rng(seed)
    preds = rng.normal(0.2, 1.0, n) + np.arange(n) * 1e-4
    target = (rng.random(n) < 0.4).astype(np.int64)
    if n > 1:
        target[0], target[-1] = 1, 0
    if kind == "auroc":
        preds = (rng.permutation(n) + 0.5) / n
    elif kind == "graded":
        target = rng.choice([0, 0, 1, 2, 3], n)
    elif kind == "fractional":
        preds = rng.integers(0, 3, n) / 2.0
        target = rng.random(n) * 3
    elif kind == "none":
        target[:] = 0
    elif kind == "all":
        target[:] = 1
    dtype = torch.float32 if kind == "fractional" else None
    p = torch.tensor(preds, dtype=torch.float32)
    t = torch.tensor(target, dtype=dtype)
    if shape2d and n % 2 == 0:
        p, t = p.view(2, -1), t.view(2, -1)
    return p, t


def assert_same(mine, theirs, atol: float = 1e-6) -> None:
    if isinstance(theirs, tuple):
        assert isinstance(mine, tuple) and len(mine) == len(theirs)
        for a, b in zip(mine, theirs, strict=True):
            assert_same(a, b, atol)
        return
    assert mine.dtype == theirs.dtype and mine.shape == theirs.shape, (mine, theirs)
    assert torch.allclose(mine, theirs, atol=atol), (mine, theirs)


def call_both(name, *args, **kwargs):
    return getattr(functional, name)(*args, **kwargs), getattr(tm_functional, name)(*args, **kwargs)


def kind_for(name: str) -> str:
    return {"retrieval_auroc": "auroc", "retrieval_normalized_dcg": "graded"}.get(name, "binary")


@pytest.mark.parametrize("name", WITH_TOP_K)
@pytest.mark.parametrize("top_k", [None, 1, 3, 7, 30])
@pytest.mark.parametrize("n", [1, 7, 12])
def test_every_function_and_top_k_equals_torchmetrics(name, top_k, n):
    preds, target = make_query(n * 31 + (top_k or 0), n, kind_for(name), shape2d=True)
    assert_same(*call_both(name, preds, target, top_k=top_k))


@pytest.mark.parametrize("name", FUNCTIONS)
@pytest.mark.parametrize("kind", ["none", "all"])
def test_queries_without_relevant_or_without_non_relevant_documents(name, kind):
    preds, target = make_query(5, 9, kind)
    if name == "retrieval_auroc":
        preds = torch.rand(9, generator=torch.Generator().manual_seed(5))
    assert_same(*call_both(name, preds, target))


@pytest.mark.parametrize("top_k", [None, 2, 5])
def test_ndcg_with_ties_graded_and_fractional_gains(top_k):
    for seed in range(6):
        for kind in ("graded", "fractional"):
            preds, target = make_query(seed, 11, kind)
            if kind == "graded":
                preds = torch.round(preds)  # ties
            mine, theirs = call_both("retrieval_normalized_dcg", preds, target, top_k=top_k)
            assert_same(mine, theirs)
            expected = ndcg_score(target[None].numpy(), preds[None].numpy(), k=top_k)
            assert float(mine) == pytest.approx(expected, abs=1e-6)


@pytest.mark.parametrize("max_fpr", [None, 0.1, 0.3, 0.5, 1.0])
@pytest.mark.parametrize("top_k", [None, 4, 9])
def test_auroc_with_max_fpr_and_tied_scores_equals_scikit_learn(max_fpr, top_k):
    for seed in range(5):
        rng = np.random.default_rng(seed)
        preds = torch.tensor(rng.integers(1, 6, 14) / 6.0, dtype=torch.float32)  # ties
        target = torch.tensor((rng.random(14) < 0.45).astype(np.int64))
        target[0], target[1] = 1, 0
        mine = functional.retrieval_auroc(preds, target, max_fpr=max_fpr)
        assert_same(mine, tm_functional.retrieval_auroc(preds, target, max_fpr=max_fpr))
        expected = roc_auc_score(target.numpy(), preds.numpy(), max_fpr=max_fpr)
        assert float(mine) == pytest.approx(expected, abs=1e-6)
        # the top k without ties at the cut: torchmetrics' selection is the module's
        distinct = torch.tensor((rng.permutation(14) + 0.5) / 14, dtype=torch.float32)
        assert_same(*call_both("retrieval_auroc", distinct, target, top_k=top_k, max_fpr=max_fpr))


@pytest.mark.parametrize("max_k", [None, 1, 4, 10, 25])
@pytest.mark.parametrize("adaptive_k", [False, True])
@pytest.mark.parametrize("kind", ["binary", "none"])
def test_precision_recall_curve(max_k, adaptive_k, kind):
    preds, target = make_query(max_k or 3, 10, kind, shape2d=True)
    mine = functional.retrieval_precision_recall_curve(preds, target, max_k, adaptive_k)
    assert_same(
        mine, tm_functional.retrieval_precision_recall_curve(preds, target, max_k, adaptive_k)
    )


@pytest.mark.parametrize("adaptive_k", [False, True])
@pytest.mark.parametrize("top_k", [None, 2, 10, 30])
def test_precision_adaptive_k(adaptive_k, top_k):
    preds, target = make_query(8, 12)
    assert_same(
        *call_both("retrieval_precision", preds, target, top_k=top_k, adaptive_k=adaptive_k)
    )


@pytest.mark.parametrize("name", FUNCTIONS)
def test_half_precision_and_two_dimensional_inputs(name):
    preds, target = make_query(9, 10, kind_for(name), shape2d=True)
    assert preds.dim() == 2
    mine, theirs = call_both(name, preds.half(), target)
    assert_same(mine, theirs, atol=1e-3)


@pytest.mark.parametrize("name", sorted(CLASS_OF))
@pytest.mark.parametrize("top_k", [None, 3])
def test_each_function_is_its_class_on_one_query(name, top_k):
    preds, target = make_query(10, 9, kind_for(name))
    options = {} if name == "retrieval_r_precision" else {"top_k": top_k}
    metric = getattr(compat, CLASS_OF[name])(**options)
    value = metric(preds, target, indexes=torch.zeros(9, dtype=torch.long))
    assert_same(getattr(functional, name)(preds, target, **options), value)


def test_every_torchmetrics_retrieval_function_is_here():
    assert sorted(tm_functional.__all__) == sorted(FUNCTIONS) == sorted(functional.__all__)


def _bad_calls():
    p, t = torch.tensor([0.1, 0.2, 0.3]), torch.tensor([1, 0, 1])
    return [
        ("retrieval_precision", (p[:2], t), {}, "`preds` and `target` must be of the same shape"),
        ("retrieval_recall", (p[:0], t[:0]), {}, "must be non-empty and non-scalar tensors"),
        ("retrieval_hit_rate", (p[0], t[0]), {}, "must be non-empty and non-scalar tensors"),
        ("retrieval_fall_out", (p.bool(), t), {}, "`preds` must be a tensor of floats"),
        ("retrieval_r_precision", (p, t * 3), {}, "`target` must contain `binary` values"),
        ("retrieval_auroc", (p, t.short()), {}, "`target` must be a tensor of booleans"),
        ("retrieval_precision", (p, t), {"top_k": -10}, "`top_k` has to be a positive integer"),
        ("retrieval_recall", (p, t), {"top_k": 4.0}, "`top_k` has to be a positive integer"),
        ("retrieval_precision", (p, t), {"adaptive_k": None}, "`adaptive_k` has to be a boolean"),
        ("retrieval_precision_recall_curve", (p, t), {"max_k": 0}, "`max_k` has to be a positive"),
    ]


@pytest.mark.parametrize(("name", "args", "kwargs", "message"), _bad_calls())
def test_errors_are_value_errors_with_torchmetrics_messages(name, args, kwargs, message):
    with pytest.raises(ValueError, match=message):
        getattr(tm_functional, name)(*args, **kwargs)
    with pytest.raises(ValueError, match=message) as info:
        getattr(functional, name)(*args, **kwargs)
    assert isinstance(info.value, InputError | OptionError)


@pytest.mark.parametrize(
    ("name", "kwargs"),
    [
        ("retrieval_average_precision", {"top_k": 0}),  # torchmetrics: top_k=0 means all
        ("retrieval_reciprocal_rank", {"top_k": -1}),  # torchmetrics: a RuntimeError of topk
        ("retrieval_auroc", {"max_fpr": 2.0}),  # torchmetrics: a value outside [0, 1]
        ("retrieval_auroc", {"max_fpr": 0.0}),
    ],
)
def test_arguments_torchmetrics_lets_through_are_refused(name, kwargs):
    p, t = torch.tensor([0.1, 0.2, 0.3]), torch.tensor([1, 0, 1])
    with pytest.raises(ValueError) as info:
        getattr(functional, name)(p, t, **kwargs)
    assert isinstance(info.value, OptionError)


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(1, 20),
    name=st.sampled_from(WITH_TOP_K),
    top_k=st.one_of(st.none(), st.integers(1, 25)),
)
def test_property_every_function_equals_torchmetrics(seed, n, name, top_k):
    preds, target = make_query(seed, n, kind_for(name))
    assert_same(*call_both(name, preds, target, top_k=top_k))


TIES_OF = {
    "ndcg": [None, "input", "pessimistic", "optimistic", "average"],
    "precision": [None, "input", "pessimistic", "optimistic", "average"],
    "recall": [None, "input", "pessimistic", "optimistic", "average"],
    "fall_out": [None, "input", "pessimistic", "optimistic", "average"],
    "map": [None, "input", "pessimistic", "optimistic"],
    "mrr": [None, "input", "pessimistic", "optimistic"],
    "hit_rate": [None, "input", "pessimistic", "optimistic"],
    "r_precision": [None, "input", "pessimistic", "optimistic"],
    "auroc": [None, "input", "pessimistic", "optimistic"],
}


@settings(max_examples=200, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(1, 15),
    kind=st.sampled_from(sorted(TIES_OF)),
    data=st.data(),
)
def test_property_the_one_query_path_is_the_batch_path(seed, n, kind, data):
    # the functions compute a CPU query in numpy (_single); the classes and other devices
    # go through ranklens.tensor.evaluate (_core.retrieval_values): the same numbers, on
    # tied scores (of both signs and zero) under every tie policy
    rng = np.random.default_rng(seed)
    preds = torch.tensor(rng.integers(-2, 3, n) / 2.0, dtype=torch.float32)
    if kind == "ndcg":
        target = torch.tensor(rng.choice([0.0, 0.5, 1.0, 2.0, 3.0], n), dtype=torch.float32)
    else:
        target = torch.tensor((rng.random(n) < 0.5).astype(np.int64))
    ties = data.draw(st.sampled_from(TIES_OF[kind]))
    top_k = data.draw(st.one_of(st.none(), st.integers(1, 17)))
    options = {"top_k": top_k, "ties": ties}
    if kind in ("precision",):
        options["adaptive_k"] = data.draw(st.booleans())
    if kind in ("map", "mrr", "precision", "recall"):
        options["positive_only"] = data.draw(st.booleans())
    if kind == "auroc":
        options["max_fpr"] = data.draw(st.sampled_from([None, 0.2, 0.5, 1.0]))
    if kind == "r_precision":
        del options["top_k"]
    single = _single.one_query(kind, preds.numpy(), target.numpy(), **options)
    values, defined = _core.retrieval_values(
        kind, preds, target, torch.zeros(n, dtype=torch.long), **options
    )
    batch = float(values[0]) if bool(defined[0]) else 0.0
    assert single == pytest.approx(batch, abs=1e-12)


@settings(max_examples=80, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(1, 15),
    max_k=st.integers(1, 20),
    adaptive_k=st.booleans(),
    ties=st.sampled_from([None, "input", "pessimistic", "optimistic", "average"]),
)
def test_property_the_one_query_curve_is_the_batch_curve(seed, n, max_k, adaptive_k, ties):
    rng = np.random.default_rng(seed)
    preds = torch.tensor(rng.integers(-2, 3, n) / 2.0, dtype=torch.float32)
    target = torch.tensor((rng.random(n) < 0.5).astype(np.int64))
    precision, recall = _single.one_curve(preds.numpy(), target.numpy(), max_k, adaptive_k, ties)
    curves, defined = _core.retrieval_values(
        "pr_curve",
        preds,
        target,
        torch.zeros(n, dtype=torch.long),
        max_k=max_k,
        adaptive_k=adaptive_k,
        ties=ties,
    )
    expected = curves[0].numpy() if bool(defined[0]) else np.zeros((max_k, 2))
    np.testing.assert_allclose(precision, expected[:, 0], atol=1e-12)
    np.testing.assert_allclose(recall, expected[:, 1], atol=1e-12)


@pytest.mark.parametrize("name", FUNCTIONS)
def test_tensors_that_need_a_gradient_take_the_batch_path_with_the_same_values(name):
    preds, target = make_query(11, 10, kind_for(name))
    plain = getattr(functional, name)(preds, target)
    graded = getattr(functional, name)(preds.clone().requires_grad_(True), target)
    assert_same(graded, plain)
