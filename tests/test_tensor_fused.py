"""The tensor path's shared work, proven against ``ranklens.evaluate`` and the numpy path.

Away from numpy's memory (a GPU, JAX, CuPy) ``ranklens.tensor.evaluate`` ranks once,
gathers the labels in rank order once for all the measures of a call, skips the padding
fill when no label is negative, and takes the ideal DCG from counts of the grades instead
of a top-k sort. JAX on the CPU runs that same code here (no GPU is needed), so these
tests hold it to ``ranklens.evaluate`` (qrels and runs built from the batch: in-batch
semantics, trec_eval's tie order through document ids) and to the numpy path, to 1e-12 in
float64, with ties, graded, unjudged and padded entries, queries without relevant
documents, grades above the counted range and both DCG forms.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ranklens
from ranklens.tensor import evaluate
from ranklens.tensor._kernels import COUNTED_GRADES

MEASURES = [
    "nDCG@10",
    "nDCG@3",
    "nDCG",
    "nDCG(dcg='exp-log2')@5",
    "DCG@4",
    "AP",
    "R@100",
    "R@2",
    "P@5",
    "RR",
    "Success@3",
]
SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def batch(seed: int, q: int, n: int, top: int, padding: bool) -> dict[str, np.ndarray]:
    """Scores with ties, grades 0..top (some queries without a relevant document),
    unjudged (-1) entries and, with ``padding``, rows of different lengths (-1 past the
    end, masked out)."""
    rng = np.random.default_rng(seed)
    scores = np.round(rng.random((q, n)) * 4) / 4  # few values: many ties
    labels = rng.choice(top + 1, size=(q, n), p=None)
    labels[rng.random((q, n)) < 0.6] = 0
    labels[rng.random((q, n)) < 0.1] = -1  # unjudged
    labels[: max(q // 4, 1)] = np.minimum(labels[: max(q // 4, 1)], 0)  # nothing relevant
    mask = np.ones((q, n), dtype=bool)
    if padding:
        lengths = rng.integers(0, n + 1, size=q)
        mask = np.arange(n)[None, :] < lengths[:, None]
    doc_ids = np.argsort(rng.random((q, n)), axis=1).astype(np.int64)
    return {"scores": scores, "labels": labels, "mask": mask, "doc_ids": doc_ids}


def reference(data: dict[str, np.ndarray], measures: list[str]) -> dict[str, np.ndarray]:
    """ranklens.evaluate on the batch as qrels and a run (in-batch: the qrels are the
    batch's judged documents; ids named so that their byte order is the ids' order)."""
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    q, n = data["scores"].shape
    qids = [f"q{i:05d}" for i in range(q)]
    for i, qid in enumerate(qids):
        qrels[qid] = {}
        run[qid] = {}
        for j in range(n):
            if not data["mask"][i, j]:
                continue
            doc = f"d{int(data['doc_ids'][i, j]):06d}"
            run[qid][doc] = float(data["scores"][i, j])
            if data["labels"][i, j] >= 0:
                qrels[qid][doc] = int(data["labels"][i, j])
        if not qrels[qid]:  # a query of the qrels needs a line: an unretrieved grade 0
            qrels[qid]["unretrieved"] = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ranklens.InputWarning)
        per_query = ranklens.Evaluator(qrels, measures).evaluate(run).per_query
    return {m: np.array([per_query[qid][m] for qid in qids]) for m in measures}


@pytest.fixture(scope="module")
def jnp():  # type: ignore[no-untyped-def]
    jax = pytest.importorskip("jax", reason="needs jax")
    previous = jax.config.read("jax_enable_x64")
    jax.config.update("jax_enable_x64", True)
    try:
        yield pytest.importorskip("jax.numpy", reason="needs jax")
    finally:
        jax.config.update("jax_enable_x64", previous)


def _call(xp_asarray, data: dict[str, np.ndarray], measures: list[str], mask: bool, **kw):  # type: ignore[no-untyped-def]
    extra = {"mask": xp_asarray(data["mask"])} if mask else {}
    return evaluate(
        xp_asarray(data["scores"]),
        xp_asarray(data["labels"]),
        measures,
        doc_ids=xp_asarray(data["doc_ids"]),
        **extra,
        **kw,
    )


@SETTINGS
@given(
    seed=st.integers(0, 2**32 - 1),
    q=st.sampled_from([1, 6, 12]),  # few shapes: JAX compiles each shape once
    n=st.sampled_from([1, 7, 14]),
    top=st.sampled_from([1, 3, COUNTED_GRADES, COUNTED_GRADES + 4]),
    padding=st.booleans(),
)
def test_shared_path_equals_ranklens_and_numpy(
    jnp: Any, seed: int, q: int, n: int, top: int, padding: bool
) -> None:
    data = batch(seed, q, n, top, padding)
    if not padding:  # without a mask a negative label is padding: keep labels >= 0
        data["labels"] = np.maximum(data["labels"], 0)
    expected = reference(data, MEASURES)
    on_jax = _call(jnp.asarray, data, MEASURES, padding)
    on_numpy = _call(np.asarray, data, MEASURES, padding)
    for name in MEASURES:
        got = np.asarray(on_jax[name])
        assert got.dtype == np.float64
        np.testing.assert_allclose(got, expected[name], rtol=0, atol=1e-12, err_msg=name)
        np.testing.assert_allclose(got, on_numpy[name], rtol=0, atol=1e-12, err_msg=name)


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), top=st.sampled_from([2, COUNTED_GRADES + 1]))
def test_one_gather_for_all_measures_changes_no_value(seed: int, top: int) -> None:
    """Each measure alone (its own gather) and all of them in one call (one gather, sliced)
    give the same values, bit for bit, on numpy."""
    data = batch(seed, 9, 12, top, True)
    together = _call(np.asarray, data, MEASURES, True)
    for name in MEASURES:
        alone = _call(np.asarray, data, [name], True)[name]
        assert together[name].tolist() == alone.tolist(), name


def test_jit_without_host_synchronisation(jnp) -> None:  # type: ignore[no-untyped-def]
    """Under jax.jit (validate=False: no host synchronisation) the ideal DCG takes the
    sorted form; the values are the eager call's."""
    import jax

    data = batch(7, 10, 12, 3, False)
    data["labels"] = np.maximum(data["labels"], 0)
    names = ["nDCG@5", "AP", "R@100"]

    @jax.jit
    def run(scores, labels, doc_ids):  # type: ignore[no-untyped-def]
        return evaluate(scores, labels, names, doc_ids=doc_ids, validate=False)

    jitted = run(
        jnp.asarray(data["scores"]), jnp.asarray(data["labels"]), jnp.asarray(data["doc_ids"])
    )
    eager = _call(jnp.asarray, data, names, False)
    for name in names:
        np.testing.assert_allclose(
            np.asarray(jitted[name]), np.asarray(eager[name]), rtol=0, atol=1e-12
        )


def test_the_counted_ideal_dcg_runs_away_from_numpy(jnp, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The counted form is the one JAX takes (and numpy does not), and it agrees with the
    sorted form."""
    from ranklens.tensor import _kernels

    taken: list[bool] = []
    original = _kernels._ideal_dcg_by_counts

    def spy(*args, **kwargs):  # type: ignore[no-untyped-def]
        found = original(*args, **kwargs)
        taken.append(found is not None)
        return found

    monkeypatch.setattr(_kernels, "_ideal_dcg_by_counts", spy)
    data = batch(11, 8, 10, 3, True)
    on_jax = _call(jnp.asarray, data, ["nDCG@4"], True)
    assert taken == [True]
    on_numpy = _call(np.asarray, data, ["nDCG@4"], True)
    assert taken == [True, False]
    np.testing.assert_allclose(np.asarray(on_jax["nDCG@4"]), on_numpy["nDCG@4"], rtol=0, atol=1e-12)
