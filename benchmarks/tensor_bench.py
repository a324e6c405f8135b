"""Time ranklens.tensor against torchmetrics' retrieval metrics on padded batches.

Two cases: 8,000 queries x 40 documents (nDCG@10) and 100,000 x 100 (nDCG@10, AP, R@100),
graded labels 0-3 and scores rounded to 2 decimals (ties). Timed:

* ranklens.tensor on torch (ties in input order, also with float32 scores as a model gives
  them in a training loop, and trec_eval's order with doc ids),
* ranklens.tensor on numpy (the CPU reference; with doc ids),
* on the CPU, ranklens.tensor through torch's own operations (scores that require a
  gradient take that path; CPU tensors otherwise are computed on numpy views),
* torchmetrics functional (one call per query: its 2-D form does not give per-query values),
* torchmetrics stateful (``RetrievalNormalizedDCG`` ... with ``indexes``, update + compute).

The means are printed beside the times: ranklens (in-batch, ties averaged) and torchmetrics
must agree on nDCG@10; AP and R@100 agree when no query lacks relevant documents.

    python benchmarks/tensor_bench.py [--device cpu|cuda] [--repeat 5] [--cases small,large]
        [--skip-torchmetrics-large] [--load N] [--threads T]

``--device cuda`` times torch on the GPU, and CuPy when it is installed. ``--load N`` times
every case twice: idle, then with N busy processes spinning on the CPU (a shared machine;
torch's thread pool used to make CPU tensors ten times slower there).
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import multiprocessing
import platform
import statistics
import time
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

CASES = {
    "small": (8_000, 40, ["nDCG@10"]),
    "large": (100_000, 100, ["nDCG@10", "AP", "R@100"]),
}


def cpu_name() -> str:
    """The CPU's model name from /proc/cpuinfo (or the platform's)."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def data(q: int, n: int, seed: int = 0) -> dict[str, np.ndarray]:
    """Scores with ties, graded labels (every query has a relevant document), doc ids."""
    rng = np.random.default_rng(seed)
    scores = np.round(rng.random((q, n)), 2)
    labels = rng.choice(4, size=(q, n), p=[0.7, 0.15, 0.1, 0.05])
    labels[:, 0] = np.maximum(labels[:, 0], 1)
    doc_ids = np.argsort(rng.random((q, n)), axis=1).astype(np.int64)
    return {"scores": scores, "labels": labels, "doc_ids": doc_ids}


def timed(fn: Callable[[], Any], repeat: int, sync: Callable[[], None]) -> tuple[float, float, Any]:
    """The median wall time and the median CPU time of this process (all its threads) of
    ``repeat`` calls after one warm-up call, and a result. On a shared machine the CPU time
    is the steadier figure."""
    result = fn()
    sync()
    times, cpu = [], []
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        result = fn()
        sync()
        times.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    return statistics.median(times), statistics.median(cpu), result


def _spin(stop: Any) -> None:
    """Keep one core busy until ``stop`` is set."""
    x = 0
    while not stop.is_set():
        for _ in range(100_000):
            x += 1


@contextlib.contextmanager
def busy(processes: int) -> Iterator[None]:
    """``processes`` processes spinning on the CPU while the block runs."""
    if processes <= 0:
        yield
        return
    stop = multiprocessing.Event()
    workers = [multiprocessing.Process(target=_spin, args=(stop,)) for _ in range(processes)]
    for w in workers:
        w.start()
    time.sleep(0.5)  # let them reach the CPU
    try:
        yield
    finally:
        stop.set()
        for w in workers:
            w.join()


def means(out: dict[str, Any]) -> dict[str, float]:
    return {k: float(v.mean()) if hasattr(v, "mean") else float(v) for k, v in out.items()}


def torchmetrics_runs(measures: list[str], device: str) -> dict[str, Callable[..., Any]]:
    import torch
    from torchmetrics import retrieval as tm
    from torchmetrics.functional import retrieval as tmf

    def functional(s: Any, y: Any) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for m in measures:
            if m == "nDCG@10":
                vals = [tmf.retrieval_normalized_dcg(s[i], y[i], top_k=10) for i in range(len(s))]
            elif m == "AP":
                vals = [tmf.retrieval_average_precision(s[i], y[i] > 0) for i in range(len(s))]
            else:
                vals = [tmf.retrieval_recall(s[i], y[i] > 0, top_k=100) for i in range(len(s))]
            out[m] = torch.stack(vals).mean()
        return out

    def stateful(s: Any, y: Any) -> dict[str, Any]:
        q, n = s.shape
        indexes = torch.arange(q, device=s.device).repeat_interleave(n)
        out: dict[str, Any] = {}
        for m in measures:
            metric: Any
            if m == "nDCG@10":
                metric = tm.RetrievalNormalizedDCG(top_k=10)
                target = y.reshape(-1)
            elif m == "AP":
                metric, target = tm.RetrievalMAP(), (y > 0).reshape(-1)
            else:
                metric, target = tm.RetrievalRecall(top_k=100), (y > 0).reshape(-1)
            metric = metric.to(device)
            metric.update(s.reshape(-1), target, indexes=indexes)
            out[m] = metric.compute()
        return out

    return {"torchmetrics functional": functional, "torchmetrics stateful": stateful}


Row = tuple[str, str, float, float, str, str]


def bench_case(name: str, args: argparse.Namespace, rows: list[Row], load: str = "") -> None:
    import torch

    from ranklens.tensor import evaluate

    q, n, measures = CASES[name]
    d = data(q, n)
    device = args.device
    sync = torch.cuda.synchronize if device == "cuda" else (lambda: None)
    tt = {k: torch.from_numpy(v).to(device) for k, v in d.items()}
    label = f"{q:,} x {n} {', '.join(measures)}{load}"
    results: list[tuple[str, float, float, dict[str, float]]] = []

    def add(impl: str, fn: Callable[[], Any], repeat: int) -> None:
        seconds, cpu, out = timed(fn, repeat, sync)
        results.append((impl, seconds, cpu, means(out)))
        print(f"  {impl:<34} {seconds * 1e3:>10.2f} ms  (cpu {cpu * 1e3:.2f} ms)", flush=True)

    print(f"{label} on {device}:", flush=True)
    add(
        f"ranklens torch ({device}, input ties)",
        lambda: evaluate(tt["scores"], tt["labels"], measures, ties="input"),
        args.repeat,
    )
    scores32 = tt["scores"].float()  # a model's scores in a training loop are float32
    add(
        f"ranklens torch ({device}, float32 scores)",
        lambda: evaluate(scores32, tt["labels"], measures, ties="input"),
        args.repeat,
    )
    if device == "cpu":  # what CPU tensors cost before they were read through numpy
        graded = tt["scores"].clone().requires_grad_()
        add(
            "ranklens torch (cpu, torch ops: grad)",
            lambda: evaluate(graded, tt["labels"], measures, ties="input"),
            args.repeat,
        )
    add(
        f"ranklens torch ({device}, doc ids)",
        lambda: evaluate(tt["scores"], tt["labels"], measures, doc_ids=tt["doc_ids"]),
        args.repeat,
    )
    add(
        f"ranklens torch ({device}, average)",
        lambda: evaluate(tt["scores"], tt["labels"], measures[:1], ties="average"),
        args.repeat,
    )
    if device == "cpu":
        add(
            "ranklens numpy (doc ids)",
            lambda: evaluate(d["scores"], d["labels"], measures, doc_ids=d["doc_ids"]),
            args.repeat,
        )
    else:
        try:
            import cupy as cp

            cd = {k: cp.asarray(v) for k, v in d.items()}
            add(
                "ranklens cupy (cuda, doc ids)",
                lambda: evaluate(cd["scores"], cd["labels"], measures, doc_ids=cd["doc_ids"]),
                args.repeat,
            )
        except ImportError:
            print("  (cupy not installed: skipped)")
    if not (name == "large" and args.skip_torchmetrics_large):
        for impl, run in torchmetrics_runs(measures, device).items():
            add(impl, functools.partial(run, tt["scores"], tt["labels"]), 1)
    reference = next(r for r in results if r[0] == f"ranklens torch ({device}, input ties)")
    for impl, seconds, cpu, out in results:
        shown = ", ".join(f"{k} {v:.4f}" for k, v in out.items())
        ratio = f"{seconds / reference[1]:.1f} / {cpu / reference[2]:.1f}"
        rows.append((label, impl, seconds, cpu, ratio, shown))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--cases", default="small,large")
    parser.add_argument("--skip-torchmetrics-large", action="store_true")
    parser.add_argument("--threads", type=int, default=None, help="torch.set_num_threads")
    parser.add_argument(
        "--load", type=int, default=0, help="also time each case beside N busy processes"
    )
    args = parser.parse_args()
    import torch
    import torchmetrics

    if args.threads:
        torch.set_num_threads(args.threads)  # the benchmark's own process only
    where = cpu_name() if args.device == "cpu" else torch.cuda.get_device_name()
    print(
        f"device: {where}; torch {torch.__version__}, torchmetrics {torchmetrics.__version__}, "
        f"numpy {np.__version__}, {torch.get_num_threads()} torch threads\n"
    )
    rows: list[Row] = []
    for name in args.cases.split(","):
        bench_case(name, args, rows, ", idle" if args.load else "")
        if args.load:
            with busy(args.load):
                bench_case(name, args, rows, f", load {args.load}")
    print("\n| case | implementation | wall ms | cpu ms | x ranklens torch (wall / cpu) | means |")
    print("|---|---|---:|---:|---:|---|")
    for label, impl, seconds, cpu, ratio, shown in rows:
        print(f"| {label} | {impl} | {seconds * 1e3:,.1f} | {cpu * 1e3:,.1f} | {ratio} | {shown} |")


if __name__ == "__main__":
    main()
