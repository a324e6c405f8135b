"""ranklens.tensor.evaluate equals ranklens.evaluate, per query, to 1e-12 in float64.

The bundled DL19 runs and seeded generated data (tied scores, graded and negative
judgments, unjudged documents, queries without relevant documents or without a ranking)
are converted to padded arrays with document ids, the mask, n_rel and ideal_labels; each
measure is compared for numpy and for torch on the CPU.
"""

from __future__ import annotations

import gzip
import warnings

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import ranklens
from ranklens.data.examples import example_paths
from ranklens.tensor import evaluate
from tensor_data import Padded, generated, padded

MEASURES = [
    "nDCG@10",
    "nDCG",
    "nDCG(dcg='exp-log2')@10",
    "nDCG(judged_only=True)@10",
    "DCG@10",
    "DCG(dcg='exp-log2')",
    "AP",
    "AP@10",
    "AP(norm='min')@10",
    "AP(rel=2)",
    "P@5",
    "P@10",
    "P",
    "P(rel=2)@10",
    "P(judged_only=True)@10",
    "R@10",
    "R@100",
    "R(norm='min')@10",
    "RR",
    "RR@5",
    "Rprec",
    "Success@1",
    "Success@10",
    "F1@10",
    "F(beta=2.0)@10",
    "ERR@10",
    "ERR(p=0.9)",
    "ERR(max_rel=3)@20",
    "RBP(p=0.9)",
    "RBP(gain='graded',p=0.9)",
    "CG@10",
]


def _read(path) -> dict[str, dict[str, str]]:
    out: dict[str, dict[str, str]] = {}
    with gzip.open(path, "rt") as f:
        for line in f:
            parts = line.split()
            out.setdefault(parts[0], {})[parts[2]] = parts[3] if len(parts) == 4 else parts[4]
    return out


def _example() -> list[tuple[dict, dict]]:
    qrels_path, run_paths = example_paths()
    qrels = {q: {d: int(g) for d, g in docs.items()} for q, docs in _read(qrels_path).items()}
    runs = [
        {q: {d: float(s) for d, s in docs.items()} for q, docs in _read(p).items()}
        for p in run_paths
    ]
    return [(qrels, run) for run in runs]


DATASETS = {
    "dl19-bm25": lambda: _example()[0],
    "dl19-rerank": lambda: _example()[1],
    "generated-1": lambda: generated(1),
    "generated-2": lambda: generated(2, 60),
}


@pytest.fixture(scope="module", params=list(DATASETS))
def case(request: pytest.FixtureRequest) -> tuple[Padded, dict[str, dict[str, float]]]:
    qrels, run = DATASETS[request.param]()
    expected = ranklens.evaluate(qrels, run, MEASURES).per_query
    return padded(qrels, run), expected


def _as(backend: str, x: np.ndarray):
    if backend == "numpy":
        return x
    torch = pytest.importorskip("torch", reason="needs torch")
    return torch.from_numpy(x)


@pytest.mark.parametrize("backend", ["numpy", "torch"])
@pytest.mark.parametrize("measure", MEASURES)
def test_equals_ranklens(case, measure: str, backend: str) -> None:
    data, expected = case
    out = evaluate(
        _as(backend, data.scores),
        _as(backend, data.labels),
        [measure],
        mask=_as(backend, data.mask),
        doc_ids=_as(backend, data.doc_ids),
        n_rel=_as(backend, data.n_rel),
        ideal_labels=_as(backend, data.ideal_labels),
    )
    got = np.asarray(out[measure])
    assert got.dtype == np.float64
    want = np.array([expected[q][measure] for q in data.qids])
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)


@pytest.mark.parametrize("backend", ["numpy", "torch"])
def test_stays_on_the_input_namespace(backend: str) -> None:
    data = padded(*generated(3, 5))
    out = evaluate(
        _as(backend, data.scores),
        _as(backend, data.labels),
        ["nDCG@3", "AP"],
        mask=_as(backend, data.mask),
    )
    assert all(type(v) is type(_as(backend, data.scores)) for v in out.values())
    assert all(tuple(v.shape) == (5,) for v in out.values())


def test_jax_gives_the_same_values() -> None:
    jax = pytest.importorskip("jax", reason="needs jax")
    jnp = pytest.importorskip("jax.numpy", reason="needs jax")
    qrels, run = generated(1)
    data = padded(qrels, run)
    expected = ranklens.evaluate(qrels, run, MEASURES).per_query
    previous = jax.config.read("jax_enable_x64")
    jax.config.update("jax_enable_x64", True)
    try:
        arrays = {
            k: jnp.asarray(getattr(data, k))
            for k in ("scores", "labels", "mask", "doc_ids", "n_rel", "ideal_labels")
        }
        out = evaluate(arrays.pop("scores"), arrays.pop("labels"), MEASURES, **arrays)
        for name in MEASURES:
            want = np.array([expected[q][name] for q in data.qids])
            np.testing.assert_allclose(np.asarray(out[name]), want, rtol=0, atol=1e-12)
    finally:
        jax.config.update("jax_enable_x64", previous)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 12))
def test_equals_ranklens_on_hypothesis_data(seed: int, num_queries: int) -> None:
    qrels, run = generated(seed, num_queries)
    assume(any(run.values()))
    names = ["nDCG@5", "AP", "P@3", "R@5", "RR", "Rprec", "ERR@5", "RBP(gain='graded')", "F1@3"]
    with warnings.catch_warnings():  # generated runs may miss most qrels queries: intended
        warnings.simplefilter("ignore", ranklens.InputWarning)
        expected = ranklens.evaluate(qrels, run, names).per_query
    data = padded(qrels, run)
    out = evaluate(
        data.scores,
        data.labels,
        names,
        mask=data.mask,
        doc_ids=data.doc_ids,
        ideal_labels=data.ideal_labels,
    )
    for name in names:
        want = np.array([expected[q][name] for q in data.qids])
        np.testing.assert_allclose(out[name], want, rtol=0, atol=1e-12)
