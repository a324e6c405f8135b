"""ranklens.tensor.evaluate: integer scores ranked exactly, labels / n_rel / ideal_labels
validated, ERR with large grades, Python lists (issue #23 items 9, 10, 21; issue #29).

Each input that gave a wrong number now gives ``ranklens.evaluate``'s number or a clear
:class:`~ranklens.base.errors.InputError`; the differential tests compare with
``ranklens.evaluate`` on generated data (integer scores with close values and ties, graded
labels, queries without relevant documents).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ranklens
from ranklens.base.errors import InputError
from ranklens.tensor import evaluate
from tensor_data import padded

torch = pytest.importorskip("torch", reason="needs torch (the torch extra)")

BACKENDS = ["numpy", "torch"]


def _as(backend: str, x: np.ndarray):
    return x if backend == "numpy" else torch.from_numpy(np.ascontiguousarray(x))


# --- item 9: integer scores rank exactly -------------------------------------------------


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.uint32])
def test_integer_scores_above_2_to_24_rank_apart(backend: str, dtype: type) -> None:
    # 16777217 and 16777216 are one float32: a float32 key ties them and the column order
    # (the non-relevant document first) decides
    scores = np.array([[16777216, 16777217]], dtype=dtype)
    labels = np.array([[0, 1]])
    expected = ranklens.evaluate(
        {"q": {"b": 1, "a": 0}}, {"q": {"a": 16777216, "b": 16777217}}, ["RR"]
    )
    got = evaluate(_as(backend, scores), _as(backend, labels), ["RR"])["RR"]
    assert float(got[0]) == expected.per_query["q"]["RR"] == 1.0


@pytest.mark.parametrize("backend", BACKENDS)
def test_int64_scores_up_to_2_to_53_rank_exactly_with_float32_results(backend: str) -> None:
    top = 2**53
    scores = np.array([[top - 2, top - 1, top - 3, -(2**52)]], dtype=np.int64)
    labels = np.array([[1, 2, 0, 0]])  # as float32 the first three tie: column order
    out = evaluate(_as(backend, scores), _as(backend, labels), ["RR", "nDCG"])
    assert float(out["RR"][0]) == 1.0
    assert float(out["nDCG"][0]) == 1.0  # grade 2 then grade 1, the ideal order


@st.composite
def _integer_run(draw: st.DrawFn) -> tuple[dict, dict]:
    """Qrels and a run with integer scores close to 2**24 and 2**53 (float32 loses the
    first, float64 the second, in both paths alike), ties, graded and negative labels, unjudged documents and queries without
    relevant documents."""
    base = draw(st.sampled_from([0, 2**24, 2**53, -(2**40)]))
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, int]] = {}
    for q in range(draw(st.integers(1, 5))):
        docs = [f"d{i}" for i in range(draw(st.integers(1, 8)))]
        grades = draw(st.lists(st.integers(-1, 3), min_size=len(docs), max_size=len(docs)))
        if draw(st.booleans()):
            grades = [min(g, 0) for g in grades]  # no relevant document
        qrels[f"q{q}"] = dict(zip(docs, grades, strict=True))
        shown = draw(st.lists(st.sampled_from([*docs, "u1", "u2"]), unique=True, min_size=1))
        if q == 0 and "d0" not in shown:  # the run retrieves a judged document
            shown.append("d0")
        offsets = draw(st.lists(st.integers(-2, 2), min_size=len(shown), max_size=len(shown)))
        run[f"q{q}"] = {d: base + o for d, o in zip(shown, offsets, strict=True)}
    return qrels, run


MEASURES = ["RR", "AP", "nDCG@5", "P@3", "ERR@5", "R@3"]


@settings(max_examples=60, deadline=None)
@given(_integer_run(), st.sampled_from(BACKENDS), st.booleans())
def test_integer_scores_equal_ranklens_evaluate(
    case: tuple[dict, dict], backend: str, float64: bool
) -> None:
    qrels, run = case
    data = padded(qrels, {q: {d: float(s) for d, s in docs.items()} for q, docs in run.items()})
    # the integer scores themselves (the float copy in data.scores loses them above 2**53)
    scores = np.zeros(data.scores.shape, dtype=np.int64)
    for i, q in enumerate(data.qids):
        for j, s in enumerate(run.get(q, {}).values()):
            scores[i, j] = s
    expected = ranklens.evaluate(
        qrels, {q: {d: int(s) for d, s in docs.items()} for q, docs in run.items()}, MEASURES
    ).per_query
    out = evaluate(
        _as(backend, scores),
        _as(backend, data.labels),
        MEASURES,
        mask=_as(backend, data.mask),
        doc_ids=_as(backend, data.doc_ids),
        n_rel=_as(backend, data.n_rel),
        ideal_labels=_as(backend, data.ideal_labels),
        # float32 results by default: the scores must still be ranked exactly
        dtype=(np.float64 if backend == "numpy" else torch.float64) if float64 else None,
    )
    for name in MEASURES:
        want = np.array([expected[q][name] for q in data.qids])
        tol = 1e-12 if float64 else 1e-6
        np.testing.assert_allclose(np.asarray(out[name], dtype=np.float64), want, rtol=0, atol=tol)


# --- item 10: labels, n_rel, ideal_labels ------------------------------------------------


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("bad", [np.nan, 1.5, np.inf, -0.5])
def test_labels_that_are_not_whole_numbers_are_refused(backend: str, bad: float) -> None:
    scores = np.array([[0.5, 0.4], [0.3, 0.2]])
    labels = np.array([[1.0, 0.0], [bad, 1.0]])
    with pytest.raises(InputError, match=r"labels\[1, 0\].*not a whole number"):
        evaluate(_as(backend, scores), _as(backend, labels), ["ERR"])


def test_whole_float_labels_equal_integer_labels_and_masked_entries_are_not_read() -> None:
    scores = np.array([[0.5, 0.4, 0.1], [0.3, 0.2, 0.0]])
    mask = np.array([[True, True, False], [True, True, False]])
    floats = np.array([[2.0, 0.0, np.nan], [0.0, 1.0, 1.5]])  # NaN, 1.5 masked out
    ints = np.array([[2, 0, -1], [0, 1, -1]])
    names = ["ERR", "nDCG", "AP"]
    a = evaluate(scores, floats, names, mask=mask)
    b = evaluate(scores, ints, names, mask=mask)
    for name in names:
        np.testing.assert_array_equal(a[name], b[name])


def test_a_nan_label_no_longer_poisons_the_batch() -> None:
    # it was read as padding but made the batch's top grade NaN: ERR NaN for every query
    with pytest.raises(InputError):
        evaluate(np.array([[0.5, 0.4], [0.3, 0.2]]), np.array([[1.0, 0.0], [np.nan, 1.0]]), ["ERR"])


@pytest.mark.parametrize("backend", BACKENDS)
def test_negative_or_fractional_n_rel_is_refused(backend: str) -> None:
    scores, labels = np.array([[0.5, 0.4]]), np.array([[1, 0]])
    for n_rel in (np.array([-1]), np.array([1.5]), np.array([np.nan])):
        with pytest.raises(InputError, match=r"n_rel\[0\]"):
            evaluate(_as(backend, scores), _as(backend, labels), ["AP"], n_rel=_as(backend, n_rel))


@pytest.mark.parametrize("backend", BACKENDS)
def test_n_rel_below_the_batch_count_is_refused(backend: str) -> None:
    # AP was 2.0: two relevant documents found, n_rel says one
    scores, labels = np.array([[0.5, 0.4], [0.9, 0.1]]), np.array([[1, 1], [0, 0]])
    with pytest.raises(InputError, match=r"n_rel\[0\] = 1, but the batch holds 2"):
        evaluate(
            _as(backend, scores), _as(backend, labels), ["AP"], n_rel=_as(backend, np.array([1, 0]))
        )


def test_n_rel_at_or_above_the_batch_count_is_accepted_and_exact() -> None:
    qrels = {"q": {"a": 1, "b": 1, "c": 1}}  # c is not in the batch
    run = {"q": {"a": 0.5, "b": 0.4}}
    want = ranklens.evaluate(qrels, run, ["AP"]).per_query["q"]["AP"]
    got = evaluate(np.array([[0.5, 0.4]]), np.array([[1, 1]]), ["AP"], n_rel=np.array([3]))
    assert float(got["AP"][0]) == pytest.approx(want, abs=1e-12)


@pytest.mark.parametrize("backend", BACKENDS)
def test_ideal_labels_missing_batch_grades_are_refused(backend: str) -> None:
    # nDCG was 2.63: the ideal holds grades 1, 1, the batch a 2
    scores, labels = np.array([[0.5, 0.4]]), np.array([[2, 1]])
    ideal = np.array([[1, 1]])
    with pytest.raises(InputError, match="ideal_labels of query 0 lack grades"):
        evaluate(
            _as(backend, scores), _as(backend, labels), ["nDCG"], ideal_labels=_as(backend, ideal)
        )


def test_ideal_labels_shorter_than_the_batch_are_refused() -> None:
    with pytest.raises(InputError, match="lack grades"):
        evaluate(
            np.array([[0.5, 0.4, 0.3]]),
            np.array([[1, 1, 1]]),
            ["nDCG"],
            ideal_labels=np.array([[1, 1]]),
        )


def test_ideal_labels_with_nan_are_refused() -> None:
    scores, labels = np.array([[0.5, 0.4]]), np.array([[1, 0]])
    with pytest.raises(InputError, match="not a whole number"):
        evaluate(scores, labels, ["nDCG"], ideal_labels=np.array([[1.0, np.nan]]))


def test_complete_ideal_labels_keep_ndcg_at_most_one() -> None:
    got = evaluate(
        np.array([[0.5, 0.4]]), np.array([[2, 1]]), ["nDCG"], ideal_labels=np.array([[2, 1, 1, -1]])
    )
    want = ranklens.evaluate({"q": {"a": 2, "b": 1, "c": 1}}, {"q": {"a": 0.5, "b": 0.4}}, ["nDCG"])
    assert float(got["nDCG"][0]) == pytest.approx(want.per_query["q"]["nDCG"], abs=1e-12)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("float_dtype", ["float32", "float64"])
@pytest.mark.parametrize("grade", [30, 200, 1500])
def test_err_with_large_grades_equals_ranklens_evaluate(
    backend: str, float_dtype: str, grade: int
) -> None:
    qrels = {"q": {"a": grade, "b": 1, "c": 0}}
    run = {"q": {"c": 0.9, "b": 0.5, "a": 0.4}}
    want = ranklens.evaluate(qrels, run, ["ERR", "ERR@2"]).per_query["q"]
    scores = np.array([[0.9, 0.5, 0.4]], dtype=float_dtype)
    labels = np.array([[0, 1, grade]], dtype=float_dtype)
    out = evaluate(_as(backend, scores), _as(backend, labels), ["ERR", "ERR@2"])
    tol = 1e-6 if float_dtype == "float32" else 1e-12
    for name in ("ERR", "ERR@2"):
        value = float(out[name][0])
        assert np.isfinite(value)
        assert value == pytest.approx(want[name], abs=tol)


# --- item 21: Python lists ----------------------------------------------------------------


def test_python_lists_are_converted_with_numpy() -> None:
    names = ["nDCG@2", "AP", "RR"]
    from_lists = evaluate([[0.3, 0.9, 0.1]], [[1, 0, 2]], names, ideal_labels=[[2, 1, 1]])
    from_arrays = evaluate(
        np.array([[0.3, 0.9, 0.1]]),
        np.array([[1, 0, 2]]),
        names,
        ideal_labels=np.array([[2, 1, 1]]),
    )
    for name in names:
        np.testing.assert_array_equal(from_lists[name], from_arrays[name])


def test_lists_beside_torch_tensors_become_tensors() -> None:
    out = evaluate(torch.tensor([[0.3, 0.9]], dtype=torch.float64), [[1, 0]], ["RR"])
    assert isinstance(out["RR"], torch.Tensor)
    assert float(out["RR"][0]) == 0.5


def test_ragged_or_non_numeric_lists_are_a_clear_error() -> None:
    with pytest.raises(InputError, match="different lengths"):
        evaluate([[0.3, 0.9], [0.1]], [[1, 0], [1]], ["RR"])
    with pytest.raises(InputError, match="numbers"):
        evaluate([["a", "b"]], [[1, 0]], ["RR"])


def test_the_accumulator_takes_lists_too() -> None:
    from ranklens.tensor import MeasureAccumulator

    acc = MeasureAccumulator(["RR"])
    acc.update([[0.3, 0.9]], [[1, 0]])
    acc.update(np.array([[0.9, 0.3]]), np.array([[1, 0]]))
    assert float(acc.compute()["RR"]) == 0.75


@pytest.mark.parametrize("top", [3, 20])  # counted per threshold, or sorted
def test_the_ideal_check_at_few_and_many_grades(top: int) -> None:
    scores, labels = np.array([[0.5, 0.4, 0.3]]), np.array([[top, 1, 0]])
    ok = np.array([[1, top, 0, -1]])
    got = evaluate(scores, labels, ["nDCG"], ideal_labels=ok)
    assert float(got["nDCG"][0]) == pytest.approx(1.0)
    for lacking in (np.array([[top - 1, 1, 1]]), np.array([[top, 0, 0]])):
        with pytest.raises(InputError, match="lack grades"):
            evaluate(scores, labels, ["nDCG"], ideal_labels=lacking)
