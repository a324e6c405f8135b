"""ranklens.tensor: tie policies, in-batch semantics and errors, against hand computation,
brute force over the orders of tied documents, and scikit-learn's ndcg_score."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ranklens.base.errors import InputError, MeasureError, OptionError
from ranklens.tensor import MeasureAccumulator, evaluate
from tensor_data import generated, padded

# One query, four documents, three tied at the top; relevant: columns 1 and 3.
SCORES = np.array([[1.0, 1.0, 1.0, 0.0]])
LABELS = np.array([[0, 1, 0, 1]])


def _one(measure: str, **kw) -> float:
    return float(evaluate(SCORES, LABELS, measure, **kw)[measure][0])


def test_input_policy_keeps_column_order() -> None:
    # ranks: col0 (0), col1 (1), col2 (0), col3 (1)
    assert _one("RR") == 0.5
    assert _one("AP") == pytest.approx((1 / 2 + 2 / 4) / 2, abs=1e-15)


def test_pessimistic_and_optimistic() -> None:
    # pessimistic: 0, 0, 1 | 1 -> relevant at ranks 3 and 4
    assert _one("RR", ties="pessimistic") == pytest.approx(1 / 3)
    assert _one("AP", ties="pessimistic") == pytest.approx((1 / 3 + 2 / 4) / 2)
    # optimistic: 1, 0, 0 | 1 -> relevant at ranks 1 and 4
    assert _one("RR", ties="optimistic") == 1.0
    assert _one("AP", ties="optimistic") == pytest.approx((1 + 2 / 4) / 2)


def test_doc_ids_order_ties_by_decreasing_id() -> None:
    ids = np.array([[5, 2, 9, 0]])  # tie order: col2 (9), col0 (5), col1 (2)
    assert _one("RR", doc_ids=ids) == pytest.approx(1 / 3)
    ids = np.array([[5, 7, 1, 0]])  # col1 (7) first
    assert _one("RR", doc_ids=ids) == 1.0


def test_average_policy_by_hand() -> None:
    # the tie group of ranks 1-3 holds one relevant document in three: 1/3 at each rank
    assert _one("P@1", ties="average") == pytest.approx(1 / 3)
    assert _one("P@2", ties="average") == pytest.approx(1 / 3)
    assert _one("P@4", ties="average") == pytest.approx(1 / 2)
    dcg = (1 / 3) * (1 + 1 / math.log2(3) + 1 / math.log2(4)) + 1 / math.log2(5)
    assert _one("DCG", ties="average") == pytest.approx(dcg, abs=1e-14)


def _brute_average(scores: np.ndarray, labels: np.ndarray, measure: str) -> np.ndarray:
    """The mean of the 'input' policy's values over every order of the columns: the
    expectation over the orders of tied documents."""
    n = scores.shape[1]
    values = [
        evaluate(scores[:, perm], labels[:, perm], measure, ties="input")[measure]
        for perm in itertools.permutations(range(n))
    ]
    return np.mean(values, axis=0)


@pytest.mark.parametrize(
    "measure",
    [
        "P@2",
        "R@3",
        "nDCG@3",
        "nDCG(dcg='exp-log2')",
        "DCG@2",
        "RBP(p=0.5)",
        "CG@2",
        "F1@2",
        "Rprec",
        "RBP(gain='graded')",
    ],
)
def test_average_is_the_expectation_over_tie_orders(measure: str) -> None:
    rng = np.random.default_rng(7)
    scores = rng.integers(0, 3, (6, 5)).astype(float)
    labels = rng.integers(0, 4, (6, 5))
    labels[0] = 0  # a query without relevant documents
    got = evaluate(scores, labels, measure, ties="average")[measure]
    np.testing.assert_allclose(got, _brute_average(scores, labels, measure), atol=1e-12)


@pytest.mark.parametrize("k", [None, 1, 3, 10])
def test_average_equals_sklearn_ndcg_score(k: int | None) -> None:
    from sklearn.metrics import dcg_score, ndcg_score

    rng = np.random.default_rng(11)
    scores = rng.integers(0, 4, (50, 12)).astype(float)  # many ties
    labels = rng.integers(0, 4, (50, 12))
    labels[:3] = 0
    name = "nDCG" if k is None else f"nDCG@{k}"
    got = evaluate(scores, labels, [name, name.replace("nDCG", "DCG")], ties="average")
    ndcg = [ndcg_score(labels[i : i + 1], scores[i : i + 1], k=k) for i in range(50)]
    dcg = [dcg_score(labels[i : i + 1], scores[i : i + 1], k=k) for i in range(50)]
    np.testing.assert_allclose(got[name], ndcg, atol=1e-12)
    np.testing.assert_allclose(got[name.replace("nDCG", "DCG")], dcg, atol=1e-12)


def test_in_batch_versus_full_qrels() -> None:
    # The query has three relevant documents (grades 2, 1, 1); the batch scores two
    # documents: one relevant (grade 1) ranked first and one non-relevant.
    scores, labels = np.array([[0.9, 0.1]]), np.array([[1, 0]])
    names = ["R@10", "AP", "nDCG@10", "P@1"]
    in_batch = evaluate(scores, labels, names)
    full = evaluate(
        scores, labels, names, n_rel=np.array([3]), ideal_labels=np.array([[2, 1, 1, 0]])
    )
    assert float(in_batch["R@10"][0]) == 1.0 and float(full["R@10"][0]) == pytest.approx(1 / 3)
    assert float(in_batch["AP"][0]) == 1.0 and float(full["AP"][0]) == pytest.approx(1 / 3)
    assert float(in_batch["nDCG@10"][0]) == 1.0
    idcg = 2 + 1 / math.log2(3) + 1 / math.log2(4)
    assert float(full["nDCG@10"][0]) == pytest.approx(1 / idcg)
    assert float(in_batch["P@1"][0]) == float(full["P@1"][0]) == 1.0


def test_negative_labels_are_padding_without_mask() -> None:
    data = padded(*generated(4, 20))
    labels = np.where(data.mask, np.maximum(data.labels, 0), -1)  # unjudged as 0
    names = ["nDCG@5", "AP", "P", "RR@3", "ERR@5"]
    a = evaluate(data.scores, labels, names, doc_ids=data.doc_ids)
    b = evaluate(
        data.scores, np.maximum(data.labels, 0), names, mask=data.mask, doc_ids=data.doc_ids
    )
    for name in names:
        np.testing.assert_array_equal(a[name], b[name])


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_doc_ids_make_the_result_independent_of_column_order(seed: int) -> None:
    rng = np.random.default_rng(seed)
    data = padded(*generated(seed % 1000, 8))
    perm = rng.permutation(data.scores.shape[1])
    names = ["nDCG@5", "AP", "RR", "ERR@3", "P@3"]
    kw = {"n_rel": data.n_rel, "ideal_labels": data.ideal_labels}
    a = evaluate(data.scores, data.labels, names, mask=data.mask, doc_ids=data.doc_ids, **kw)
    b = evaluate(
        data.scores[:, perm],
        data.labels[:, perm],
        names,
        mask=data.mask[:, perm],
        doc_ids=data.doc_ids[:, perm],
        **kw,
    )
    for name in names:
        np.testing.assert_allclose(a[name], b[name], atol=1e-12)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_pessimistic_average_optimistic_are_ordered(seed: int) -> None:
    rng = np.random.default_rng(seed)
    scores = rng.integers(0, 3, (10, 8)).astype(float)
    labels = rng.integers(0, 3, (10, 8))
    for name in ["nDCG@4", "P@3", "DCG"]:
        low, mid, high = (
            evaluate(scores, labels, name, ties=t)[name]
            for t in ("pessimistic", "average", "optimistic")
        )
        assert np.all(low <= mid + 1e-12) and np.all(mid <= high + 1e-12)


def test_errors() -> None:
    with pytest.raises(MeasureError, match="not computed on tensors"):
        evaluate(SCORES, LABELS, "Bpref")
    with pytest.raises(MeasureError, match="unknown measure"):
        evaluate(SCORES, LABELS, "nDGC@10")
    with pytest.raises(OptionError, match="average"):
        evaluate(SCORES, LABELS, "AP", ties="average")
    with pytest.raises(OptionError, match="doc_ids"):
        evaluate(SCORES, LABELS, "AP", ties="trec_eval")
    with pytest.raises(OptionError, match="ties must be"):
        evaluate(SCORES, LABELS, "AP", ties="random")  # type: ignore[arg-type]
    with pytest.raises(InputError, match="finite"):
        evaluate(np.array([[np.nan, 1.0]]), np.array([[1, 0]]), "AP")
    with pytest.raises(InputError, match="shape"):
        evaluate(SCORES, LABELS[:, :2], "AP")
    with pytest.raises(MeasureError, match="ideal_labels"):
        evaluate(SCORES, LABELS, "R(rel=2)@2", n_rel=np.array([2]))
    with pytest.raises(MeasureError, match="gains"):
        evaluate(SCORES, LABELS, "nDCG(gains={1:3})@2")
    with pytest.raises(InputError):
        MeasureAccumulator("AP").compute()


def test_a_masked_infinite_score_is_fine() -> None:
    scores = np.array([[0.2, -np.inf, 0.9]])
    labels = np.array([[1, 1, 0]])
    mask = np.array([[True, False, True]])
    assert float(evaluate(scores, labels, "RR", mask=mask)["RR"][0]) == 0.5


def test_the_array_api_standard_alone_suffices() -> None:
    xp = pytest.importorskip("array_api_strict")
    data = padded(*generated(5, 15))
    names = ["nDCG@5", "AP", "RR", "ERR@3", "P@3", "Rprec", "RBP(gain='graded')"]
    kw = {
        "doc_ids": data.doc_ids,
        "n_rel": data.n_rel,
        "ideal_labels": data.ideal_labels,
        "mask": data.mask,
    }
    ref = evaluate(data.scores, data.labels, names, **kw)
    got = evaluate(
        xp.asarray(data.scores),
        xp.asarray(data.labels),
        names,
        **{k: xp.asarray(v) for k, v in kw.items()},
    )
    for name in names:
        np.testing.assert_array_equal(np.asarray(got[name]), ref[name])
    avg = evaluate(
        xp.asarray(data.scores),
        xp.asarray(data.labels),
        ["nDCG@5"],
        mask=xp.asarray(data.mask),
        ties="average",
    )
    np.testing.assert_allclose(
        np.asarray(avg["nDCG@5"]),
        evaluate(data.scores, data.labels, "nDCG@5", mask=data.mask, ties="average")["nDCG@5"],
        atol=1e-15,
    )


def test_float32_inputs_give_float32() -> None:
    torch = pytest.importorskip("torch", reason="needs torch")
    out = evaluate(torch.rand(4, 6), torch.randint(0, 3, (4, 6)), "nDCG@3")
    assert out["nDCG@3"].dtype == torch.float32


def test_the_worked_example_of_the_docs_runs() -> None:
    import doctest
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "docs" / "tensors.md"
    result = doctest.testfile(
        str(path), module_relative=False, optionflags=doctest.NORMALIZE_WHITESPACE
    )
    assert result.failed == 0 and result.attempted >= 5


def test_average_equals_torchmetrics_per_query_ndcg() -> None:
    torch = pytest.importorskip("torch", reason="needs torch")
    tmf = pytest.importorskip("torchmetrics.functional.retrieval", reason="needs torchmetrics")
    gen = torch.Generator().manual_seed(3)
    scores = torch.randint(0, 4, (30, 9), generator=gen).double()
    labels = torch.randint(0, 4, (30, 9), generator=gen)
    got = evaluate(scores, labels, "nDCG@5", ties="average")["nDCG@5"]
    want = torch.stack(
        [tmf.retrieval_normalized_dcg(scores[i], labels[i], top_k=5) for i in range(30)]
    )
    np.testing.assert_allclose(
        got.numpy(), want.double().numpy(), atol=1e-6
    )  # torchmetrics: float32


@pytest.mark.parametrize("shape", [(0, 3), (2, 0), (0, 0)])
def test_empty_batches(shape: tuple[int, int]) -> None:
    names = [
        "P@2",
        "P",
        "R@2",
        "F1@2",
        "Success@1",
        "Rprec",
        "RR",
        "AP",
        "nDCG@2",
        "nDCG",
        "CG@2",
        "ERR@2",
        "ERR",
        "RBP",
        "RBP(gain='graded')",
    ]
    out = evaluate(np.zeros(shape), np.zeros(shape, dtype=int), names)
    for name in names:
        assert out[name].shape == (shape[0],)
        assert np.all(out[name] == 0)


def test_missing_array_api_compat_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    from ranklens.base.errors import MissingDependencyError

    monkeypatch.setitem(sys.modules, "array_api_compat", None)
    with pytest.raises(MissingDependencyError, match=r"ranklens\[torch\]"):
        evaluate(SCORES, LABELS, "AP")
