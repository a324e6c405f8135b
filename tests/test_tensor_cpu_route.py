"""CPU tensors are evaluated on numpy views of their memory (ranklens.tensor._evaluate).

torch runs every small operation on its intra-op thread pool, whose threads wait on one
another: on a loaded machine that made a batch ten times slower. So a CPU tensor that needs
no gradient is computed by the numpy path on its memory, and the results come back as
tensors. These tests check that the route gives the numpy path's numbers bit for bit (and
the torch path's within the last bit), keeps dtypes, runs no torch operation, leaves
torch's settings and the inputs alone, and that tensors requiring a gradient, or on
dtypes numpy lacks, still take the torch path.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="the CPU-tensor route needs torch")
pytest.importorskip("array_api_compat", reason="ranklens.tensor needs array_api_compat")

from torch.overrides import TorchFunctionMode  # noqa: E402

from ranklens.tensor import evaluate  # noqa: E402

MEASURES = [
    "P@5",
    "R@10",
    "F1@10",
    "Success@3",
    "Rprec",
    "RR",
    "AP",
    "AP@10",
    "DCG@10",
    "nDCG@10",
    "nDCG(dcg='exp-log2')@5",
    "CG@5",
    "ERR@10",
    "RBP(p=0.8)",
    "P(rel=2)@5",
]
TIES = ["input", "trec_eval", "pessimistic", "optimistic", "average"]
LINEAR = ["P@5", "R@10", "Rprec", "DCG@10", "nDCG@10", "CG@5", "RBP(p=0.8)"]  # for "average"


def awkward_batch(seed: int, float32: bool) -> dict[str, Any]:
    """Tied scores, graded and negative labels, padding, a query with nothing relevant."""
    rng = np.random.default_rng(seed)
    q, n = 30, 17
    scores = np.round(rng.normal(size=(q, n)), 1)
    labels = rng.choice([-1, 0, 0, 1, 2, 3], size=(q, n))
    mask = rng.random((q, n)) > 0.15
    labels[0] = np.where(labels[0] > 0, 0, labels[0])  # no relevant document
    ids = np.argsort(rng.random((q, n)), axis=1).astype(np.int64)
    extra = rng.integers(0, 3, size=q)
    n_rel = (labels >= 1).sum(axis=1) + extra
    ideal = np.full((q, n + 3), -1, dtype=np.int64)
    ideal[:, :n] = np.where(mask, labels, -1)
    ideal[:, n] = np.where(extra > 0, 1, -1)
    ideal[:, n + 1] = np.where(extra > 1, 1, -1)
    return {
        "scores": scores.astype(np.float32 if float32 else np.float64),
        "labels": labels,
        "mask": mask,
        "doc_ids": ids,
        "n_rel": n_rel,
        "ideal_labels": ideal,
    }


def tensors(batch: dict[str, Any]) -> dict[str, Any]:
    return {k: torch.from_numpy(v) for k, v in batch.items()}


def _measures(ties: str) -> list[str]:
    return LINEAR if ties == "average" else MEASURES


@pytest.mark.parametrize("ties", TIES)
@pytest.mark.parametrize("float32", [False, True])
@pytest.mark.parametrize("inputs", ["plain", "mask", "full"])
def test_cpu_tensors_give_the_numpy_values_bit_for_bit(
    ties: str, float32: bool, inputs: str
) -> None:
    for seed in range(3):
        batch = awkward_batch(seed, float32)
        keys = {"plain": ["doc_ids"], "mask": ["mask", "doc_ids"]}.get(inputs, list(batch)[2:])
        kwargs = {k: batch[k] for k in keys}
        on_numpy = evaluate(batch["scores"], batch["labels"], _measures(ties), ties=ties, **kwargs)
        t = tensors(batch)
        on_torch = evaluate(
            t["scores"], t["labels"], _measures(ties), ties=ties, **{k: t[k] for k in keys}
        )
        assert list(on_torch) == list(on_numpy)
        for name, want in on_numpy.items():
            got = on_torch[name]
            assert isinstance(got, torch.Tensor) and got.device.type == "cpu", name
            assert got.numpy().dtype == want.dtype, name
            np.testing.assert_array_equal(got.numpy(), want, err_msg=f"{name} {ties}")


@pytest.mark.parametrize("ties", TIES)
def test_the_route_agrees_with_the_torch_path(ties: str) -> None:
    """Scores that require a gradient take the torch path: the same values, within the
    last bit (torch and numpy add their sums in different orders)."""
    batch = tensors(awkward_batch(7, False))
    kwargs = {k: batch[k] for k in ("mask", "doc_ids", "n_rel", "ideal_labels")}
    routed = evaluate(batch["scores"], batch["labels"], _measures(ties), ties=ties, **kwargs)
    graded = batch["scores"].clone().requires_grad_()
    direct = evaluate(graded, batch["labels"], _measures(ties), ties=ties, **kwargs)
    assert graded.grad is None
    for name, want in direct.items():
        assert routed[name].dtype == want.dtype, name
        torch.testing.assert_close(routed[name], want, rtol=0, atol=1e-12)


class _TorchCalls(TorchFunctionMode):
    """The torch functions called inside the block."""

    def __init__(self) -> None:
        super().__init__()
        self.names: list[str] = []

    def __torch_function__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        self.names.append(getattr(func, "__name__", str(func)))
        return func(*args, **(kwargs or {}))


def test_no_torch_operation_runs_and_no_setting_changes() -> None:
    batch = tensors(awkward_batch(3, True))
    before = {k: v.clone() for k, v in batch.items()}
    threads = torch.get_num_threads()
    with _TorchCalls() as calls:
        out = evaluate(batch["scores"], batch["labels"], ["nDCG@10", "AP"], mask=batch["mask"])
    computing = {n for n in calls.names if n not in ("numpy", "__get__")}
    assert not computing, f"torch ran {sorted(computing)}"
    assert torch.get_num_threads() == threads
    assert all(torch.equal(batch[k], before[k]) for k in batch), "an input changed"
    assert all(v.dtype == torch.float32 for v in out.values())  # float32 scores


def test_a_torch_dtype_is_honoured() -> None:
    batch = tensors(awkward_batch(4, True))
    out = evaluate(batch["scores"], batch["labels"], ["AP", "RR"], dtype=torch.float64)
    want = evaluate(
        batch["scores"].numpy(), batch["labels"].numpy(), ["AP", "RR"], dtype=np.float64
    )
    for name in out:
        assert out[name].dtype == torch.float64
        np.testing.assert_array_equal(out[name].numpy(), want[name])


def test_what_numpy_cannot_view_takes_the_torch_path() -> None:
    """bfloat16 scores (no numpy dtype), non-contiguous and transposed views."""
    batch = tensors(awkward_batch(5, False))
    labels = batch["labels"]
    with _TorchCalls() as calls:
        out = evaluate(batch["scores"].to(torch.bfloat16), labels, ["P@5", "RR"])
    assert {"gather", "cumsum"} & set(calls.names), "torch did not compute"
    want = evaluate(batch["scores"].to(torch.bfloat16).float(), labels, ["P@5", "RR"])
    for name in out:
        torch.testing.assert_close(out[name].float(), want[name], rtol=0, atol=0)
    wide = torch.from_numpy(np.ascontiguousarray(awkward_batch(6, False)["scores"].T)).T
    got = evaluate(wide, labels, ["AP"])["AP"]
    np.testing.assert_array_equal(got.numpy(), evaluate(wide.numpy(), labels.numpy(), ["AP"])["AP"])


def test_threads_share_nothing() -> None:
    """Evaluations in several Python threads at once give each its own values."""
    from concurrent.futures import ThreadPoolExecutor

    batches = [tensors(awkward_batch(seed, seed % 2 == 0)) for seed in range(8)]

    def run(b: dict[str, Any]) -> dict[str, Any]:
        return evaluate(b["scores"], b["labels"], MEASURES, doc_ids=b["doc_ids"])

    with ThreadPoolExecutor(4) as pool:
        together = list(pool.map(run, batches * 3))
    for i, out in enumerate(together):
        alone = run(batches[i % len(batches)])
        assert all(torch.equal(out[k], alone[k]) for k in alone)
