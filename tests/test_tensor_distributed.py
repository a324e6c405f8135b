"""The stateful metrics across two processes (torch.distributed, gloo, CPU) equal one
process's means, and the single-process means equal the mean of ranklens.evaluate."""

from __future__ import annotations

import multiprocessing
import queue
import socket

import numpy as np
import pytest

import ranklens
from tensor_data import generated, padded

torch = pytest.importorskip("torch", reason="torch.distributed tests need torch")
pytest.importorskip("torchmetrics", reason="the Metric tests need torchmetrics")
from ranklens.tensor import MeasureAccumulator, RetrievalMeasures  # noqa: E402
from tensor_dist_worker import MEASURES, batches, run  # noqa: E402


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _single_process() -> tuple[dict[str, float], dict[str, float]]:
    metric, acc = RetrievalMeasures(MEASURES), MeasureAccumulator(MEASURES)
    for rank in range(2):
        for batch in batches(rank, 2):
            metric.update(**batch)
            acc.update(**batch)
    return (
        {k: float(v) for k, v in metric.compute().items()},
        {k: float(v) for k, v in acc.compute().items()},
    )


def test_single_process_means_equal_ranklens() -> None:
    qrels, run_ = generated(21, 50)
    expected = ranklens.evaluate(qrels, run_, MEASURES).aggregate
    synced, reduced = _single_process()
    for name in MEASURES:
        assert synced[name] == pytest.approx(expected[name], abs=1e-12)
        assert reduced[name] == pytest.approx(expected[name], abs=1e-12)


def test_two_processes_equal_one() -> None:
    ctx = multiprocessing.get_context("spawn")
    results = ctx.Queue()
    port = _free_port()
    procs = [ctx.Process(target=run, args=(rank, 2, port, results)) for rank in range(2)]
    for p in procs:
        p.start()
    got = []
    try:
        for _ in procs:
            got.append(results.get(timeout=120))
    except queue.Empty:
        pytest.fail("the two-process group did not answer within 120 s")
    finally:
        for p in procs:
            p.join(timeout=30)
            if p.is_alive():
                p.kill()
    assert all(p.exitcode == 0 for p in procs)
    synced_one, reduced_one = _single_process()
    total = len(padded(*generated(21, 50)).qids)
    for _rank, synced, reduced, count in got:
        assert count == total
        for name in MEASURES:
            assert synced[name] == pytest.approx(synced_one[name], abs=1e-12)
            assert reduced[name] == pytest.approx(reduced_one[name], abs=1e-12)
    assert np.isfinite(list(synced_one.values())).all()


def test_the_metric_pickles_and_forward_gives_the_batch_value() -> None:
    import pickle

    metric = RetrievalMeasures(["RR", "P@1"])
    batch_value = metric(torch.tensor([[0.2, 0.8]]), torch.tensor([[1, 0]]))
    assert float(batch_value["RR"]) == 0.5 and float(batch_value["P@1"]) == 0.0
    metric.update(torch.tensor([[0.9, 0.1]]), torch.tensor([[1, 0]]))
    copy = pickle.loads(pickle.dumps(metric))
    assert {k: float(v) for k, v in copy.compute().items()} == {"RR": 0.75, "P@1": 0.5}
