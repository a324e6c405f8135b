"""ranklens.tensor's row orders by packed keys (numpy, and torch on the CPU) against Python's
own stable ``sorted`` on each row: ties, signed zeros, -inf padding, negative scores,
float64 scores closer than the bits the column takes (the fallback), float32, integers
out of the packable range, and rows too wide for a small payload."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from ranklens.tensor._order import sort_rows, stable_argsort, two_key_order


def _expected(x: np.ndarray, descending: bool) -> np.ndarray:
    sign = -1 if descending else 1
    return np.array(
        [sorted(range(len(row)), key=lambda j: (sign * row[j], j)) for row in x.tolist()],
        dtype=np.int64,
    ).reshape(x.shape)


def _expected_two_keys(scores: np.ndarray, key: np.ndarray, key_descending: bool) -> np.ndarray:
    sign = -1 if key_descending else 1
    rows = [
        sorted(range(len(s)), key=lambda j: (-s[j], sign * k[j], j))
        for s, k in zip(scores.tolist(), key.tolist(), strict=True)
    ]
    return np.array(rows, dtype=np.int64).reshape(scores.shape)


def _namespaces() -> list[tuple[str, object]]:
    import array_api_compat.numpy as xnp

    out: list[tuple[str, object]] = [("numpy", xnp)]
    try:
        import array_api_compat.torch as xtorch
    except ImportError:
        return out
    return [*out, ("torch", xtorch)]


def _as(name: str, x: np.ndarray):
    if name == "numpy":
        return x
    import torch

    return torch.from_numpy(x.copy())


NAMESPACES = _namespaces()


def _check(x: np.ndarray, descending: bool) -> None:
    want = _expected(x, descending)
    for name, xp in NAMESPACES:
        before = x.copy()
        arr = _as(name, x)
        got = np.asarray(stable_argsort(xp, arr, descending))
        np.testing.assert_array_equal(got, want, err_msg=f"{name} {x.dtype} {descending}")
        np.testing.assert_array_equal(np.asarray(arr), before)  # the input is not changed


def _close_values(rng: np.random.Generator, q: int, n: int) -> np.ndarray:
    """float64 rows whose values differ only in their last bits (and some equal)."""
    base = rng.choice([0.25, 0.3, -0.7, 1e-300, 123.456], size=(q, 1))
    steps = rng.integers(-3, 4, size=(q, n))
    out = base + np.zeros((q, n))
    for _ in range(3):
        out = np.where(steps > 0, np.nextafter(out, np.inf), out)
        out = np.where(steps < 0, np.nextafter(out, -np.inf), out)
        steps = steps - np.sign(steps)
    return out


@pytest.mark.parametrize("descending", [True, False])
def test_float64_with_ties_signs_and_padding(descending: bool) -> None:
    rng = np.random.default_rng(1)
    x = np.round(rng.normal(size=(60, 37)), 1)
    x[rng.random(x.shape) < 0.1] = -np.inf
    x[rng.random(x.shape) < 0.05] = 0.0
    x[rng.random(x.shape) < 0.05] = -0.0
    _check(x, descending)
    _check(np.abs(x), descending)  # no negative value but -0.0 and -inf


@pytest.mark.parametrize("descending", [True, False])
def test_float64_values_closer_than_the_dropped_bits(descending: bool) -> None:
    rng = np.random.default_rng(2)
    _check(_close_values(rng, 40, 33), descending)


@pytest.mark.parametrize("descending", [True, False])
def test_float32_and_integers(descending: bool) -> None:
    rng = np.random.default_rng(3)
    _check(np.round(rng.normal(size=(30, 20)), 1).astype(np.float32), descending)
    _check(rng.integers(-5, 5, size=(30, 20)), descending)
    _check(rng.integers(-(2**62), 2**62, size=(30, 20)), descending)  # not packable
    _check(rng.integers(0, 3, size=(30, 20)).astype(np.int8), descending)


def test_float64_without_lost_bits() -> None:
    rng = np.random.default_rng(4)
    x = rng.normal(size=(30, 20)).astype(np.float32).astype(np.float64)
    _check(x, True)


@pytest.mark.parametrize("shape", [(5, 1), (3, 2), (4, 300), (0, 4), (3, 0)])
def test_shapes(shape: tuple[int, int]) -> None:
    rng = np.random.default_rng(5)
    _check(np.round(rng.random(shape), 1), True)


@settings(max_examples=60, deadline=None)
@given(
    hnp.arrays(
        np.float64,
        hnp.array_shapes(min_dims=2, max_dims=2, min_side=1, max_side=9),
        elements=st.one_of(
            st.sampled_from([0.0, -0.0, 1.0, -1.0, 0.5, -np.inf, 5e-324, -5e-324]),
            st.floats(allow_nan=False, allow_infinity=False, width=64),
        ),
    ),
    st.booleans(),
)
def test_any_float64_rows(x: np.ndarray, descending: bool) -> None:
    _check(x, descending)


@pytest.mark.parametrize("key_descending", [True, False])
def test_two_keys(key_descending: bool) -> None:
    rng = np.random.default_rng(6)
    scores = np.round(rng.random((50, 30)), 1)
    scores[rng.random(scores.shape) < 0.1] = -np.inf
    key = rng.integers(0, 8, size=scores.shape)
    close = _close_values(rng, 50, 30)
    for s in (scores, close, scores.astype(np.float32)):
        want = _expected_two_keys(s, key, key_descending)
        for name, xp in NAMESPACES:
            got = two_key_order(xp, _as(name, s), _as(name, key), key_descending)
            np.testing.assert_array_equal(np.asarray(got), want, err_msg=f"{name} {s.dtype}")


def test_sort_rows() -> None:
    rng = np.random.default_rng(7)
    for x in (
        rng.integers(-1, 4, size=(20, 15)),
        rng.integers(-(2**40), 2**40, size=(20, 15)),
        np.round(rng.normal(size=(20, 15)), 1),
    ):
        for name, xp in NAMESPACES:
            got = np.asarray(sort_rows(xp, _as(name, x)))
            np.testing.assert_array_equal(got, np.sort(x, axis=1))


def test_gradients_are_left_alone() -> None:
    torch = pytest.importorskip("torch", reason="needs torch")
    import array_api_compat.torch as xp

    scores = torch.tensor([[0.3, 0.9, 0.3]], dtype=torch.float64, requires_grad=True)
    assert stable_argsort(xp, scores, True).tolist() == [[1, 0, 2]]
    assert scores.grad is None


@pytest.mark.parametrize("ties", ["input", "trec_eval", "pessimistic", "optimistic", "average"])
def test_evaluate_equals_the_standard_only_path(ties: str) -> None:
    """The packed path (numpy, torch) gives the values of the Array API path
    (array_api_strict: stable argsort, no packing), bit for bit on numpy, with and without
    padding and with scores the packed keys confuse."""
    xps = pytest.importorskip("array_api_strict")
    from ranklens.tensor import evaluate

    rng = np.random.default_rng(8)
    names = ["nDCG@5", "P", "P@3", "R@4", "RBP(p=0.5)", "nDCG(judged_only=True)@5"]
    if ties != "average":
        names += ["AP", "RR"]
    close = _close_values(rng, 30, 12)
    rounded = np.round(rng.random((30, 12)), 1)
    labels = rng.integers(0, 3, size=(30, 12))
    ids = np.argsort(rng.random((30, 12)), axis=1)
    padded = labels.copy()
    padded[:, 9:] = -1
    for scores in (close, rounded):
        for lab in (labels, padded):
            kw = {"doc_ids": ids} if ties == "trec_eval" else {}
            want = evaluate(
                xps.asarray(scores),
                xps.asarray(lab),
                names,
                ties=ties,
                **{k: xps.asarray(v) for k, v in kw.items()},
            )
            for name, _ in NAMESPACES:
                got = evaluate(
                    _as(name, scores),
                    _as(name, lab),
                    names,
                    ties=ties,
                    **{k: _as(name, v) for k, v in kw.items()},
                )
                for m in names:  # torch sums in another order than numpy: 1e-16 apart
                    np.testing.assert_allclose(
                        np.asarray(got[m]),
                        np.asarray(want[m]),
                        rtol=0,
                        atol=0 if name == "numpy" else 1e-15,
                        err_msg=f"{name} {m}",
                    )


def test_strided_inputs() -> None:
    rng = np.random.default_rng(9)
    x = np.round(rng.normal(size=(20, 30)), 1)
    for name, xp in NAMESPACES:
        view = _as(name, x)[:, ::3]
        got = np.asarray(stable_argsort(xp, view, True))
        np.testing.assert_array_equal(got, _expected(x[:, ::3], True), err_msg=name)
        got = np.asarray(sort_rows(xp, _as(name, x.T)))
        np.testing.assert_array_equal(got, np.sort(x.T, axis=1), err_msg=name)


@pytest.mark.parametrize("ties", ["input", "trec_eval", "pessimistic", "average"])
def test_float32_scores_with_float64_results_rank_as_their_float64_values(ties: str) -> None:
    """float32 scores asked for float64 results are ranked in float32 (exact packed keys);
    the values equal those of the same scores given as float64, bit for bit, with ties,
    values one float32 ulp apart, padding and judged_only."""
    from ranklens.tensor import evaluate

    rng = np.random.default_rng(11)
    base = np.round(rng.random((40, 16)), 1).astype(np.float32)
    nudged = np.nextafter(base, np.float32(2.0))  # one ulp above: distinct, very close
    scores = np.where(rng.random((40, 16)) < 0.3, nudged, base).astype(np.float32)
    labels = rng.integers(-1, 3, size=(40, 16))
    ids = np.argsort(rng.random((40, 16)), axis=1)
    names = ["nDCG@5", "P@3", "R@4", "nDCG(judged_only=True)@5", "DCG"]
    if ties != "average":
        names += ["AP", "RR"]
    for name, _ in NAMESPACES:
        kw = {"doc_ids": _as(name, ids)} if ties == "trec_eval" else {}
        float64 = np.float64 if name == "numpy" else __import__("torch").float64
        got = evaluate(_as(name, scores), _as(name, labels), names, ties=ties, dtype=float64, **kw)
        wide = _as(name, scores.astype(np.float64))
        want = evaluate(wide, _as(name, labels), names, ties=ties, **kw)
        for m in names:
            np.testing.assert_array_equal(np.asarray(got[m]), np.asarray(want[m]), err_msg=m)
