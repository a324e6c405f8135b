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
import functools
import platform
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from _env import busy

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


FLOOR_SIZES = "8000x40,100000x100,1000000x100,4000000x100"
FLOOR_MEASURES = ["nDCG@10", "AP", "R@100"]
FLOOR_CHECK_ROWS = 20_000  # rows compared with the CPU reference (numpy), per size
FLOOR_EVALUATE_ROWS = 300  # rows compared with ranklens.evaluate itself


def _import_ranklens() -> None:
    """ranklens from this checkout when it is not installed (a fresh GPU machine: only
    numpy and array-api-compat are needed by ranklens.tensor; without a built C core the
    numpy fallback is used, which the tensor path does not touch)."""
    import sys
    import warnings
    from pathlib import Path

    try:
        import ranklens  # noqa: F401
    except ImportError:
        sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
    warnings.filterwarnings("ignore", message="ranklens: the native core")


def _gpu_timer(device: str) -> Callable[[Callable[[], Any], int], float]:
    """The median time in seconds of ``repeat`` calls after two warm-up calls: CUDA events
    around each call on a GPU, ``perf_counter`` on the CPU."""
    import torch

    def timer(fn: Callable[[], Any], repeat: int) -> float:
        fn()
        fn()
        times: list[float] = []
        for _ in range(repeat):
            if device == "cuda":
                start = torch.cuda.Event(enable_timing=True)  # type: ignore[no-untyped-call]
                end = torch.cuda.Event(enable_timing=True)  # type: ignore[no-untyped-call]
                torch.cuda.synchronize()
                start.record()
                fn()
                end.record()
                torch.cuda.synchronize()
                times.append(start.elapsed_time(end) / 1e3)
            else:
                t0 = time.perf_counter()
                fn()
                times.append(time.perf_counter() - t0)
        return float(statistics.median(times))

    return timer


def _kernel_count(fn: Callable[[], Any]) -> int | None:
    """CUDA kernels one call launches (torch.profiler), or None where it cannot tell."""
    try:
        import torch
        from torch.profiler import ProfilerActivity, profile

        fn()
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            fn()
            torch.cuda.synchronize()
        return int(
            sum(
                e.count
                for e in prof.key_averages()
                if getattr(e, "device_type", None) is not None
                and str(e.device_type).endswith("CUDA")
            )
        )
    except Exception:  # a count is a bonus, never a failure
        return None


def _max_diff(got: dict[str, Any], want: dict[str, np.ndarray], rows: int) -> float:
    return max(
        float(np.max(np.abs(np.asarray(_to_host(got[m]))[:rows] - want[m][:rows]), initial=0.0))
        for m in want
    )


def _to_host(x: Any) -> Any:
    if hasattr(x, "detach"):
        return x.detach().cpu().numpy()
    if hasattr(x, "get") and type(x).__module__.startswith("cupy"):
        return x.get()
    return np.asarray(x)


def _evaluate_reference(scores: np.ndarray, labels: np.ndarray) -> dict[str, np.ndarray]:
    """ranklens.evaluate on the rows as qrels and a run (in-batch: every document of a row
    is in its qrels; ties in input order: ranklens' ``ties='input'``)."""
    import ranklens

    qids = [f"q{i:06d}" for i in range(scores.shape[0])]
    run = {
        q: {f"d{j:04d}": float(scores[i, j]) for j in range(scores.shape[1])}
        for i, q in enumerate(qids)
    }
    qrels = {
        q: {f"d{j:04d}": int(labels[i, j]) for j in range(scores.shape[1])}
        for i, q in enumerate(qids)
    }
    per_query = ranklens.Evaluator(qrels, FLOOR_MEASURES, ties="input").evaluate(run).per_query
    return {m: np.array([per_query[q][m] for q in qids]) for m in FLOOR_MEASURES}


def _floor_size(
    q: int, n: int, device: str, timer: Callable[[Callable[[], Any], int], float], repeat: int
) -> tuple[list[str], bool]:
    """The rows of one batch size (see :func:`gpu_floor`) and whether every check held."""
    import torch

    from ranklens.tensor import evaluate

    gen = torch.Generator(device=device).manual_seed(q * 1000 + n)
    raw = torch.rand((q, n), generator=gen, device=device, dtype=torch.float64)
    scores = torch.round(raw * 100) / 100  # two decimals: many ties
    u = torch.rand((q, n), generator=gen, device=device, dtype=torch.float64)
    labels = (u > 0.7).long() + (u > 0.85).long() + (u > 0.95).long()  # grades 0-3
    del raw, u
    check = min(q, FLOOR_CHECK_ROWS)
    host_s, host_y = _to_host(scores[:check]), _to_host(labels[:check])
    reference = evaluate(host_s, host_y, FLOOR_MEASURES, ties="input")
    direct = _evaluate_reference(host_s[:FLOOR_EVALUATE_ROWS], host_y[:FLOOR_EVALUATE_ROWS])
    gap = _max_diff(reference, direct, FLOOR_EVALUATE_ROWS)
    floor = timer(lambda: torch.sort(scores, dim=1, descending=True, stable=True), repeat)
    impls: list[tuple[str, Callable[[], Any]]] = [
        ("torch", lambda: evaluate(scores, labels, FLOOR_MEASURES, ties="input"))
    ]
    try:
        import cupy as cp

        cs, cy = cp.asarray(scores), cp.asarray(labels)
        impls.append(("cupy", lambda: evaluate(cs, cy, FLOOR_MEASURES, ties="input")))
    except Exception as exc:  # not installed, or no GPU for it
        print(f"  cupy skipped: {type(exc).__name__}: {exc}")
    try:
        import jax
        import jax.dlpack

        jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]
        js, jy = jax.dlpack.from_dlpack(scores), jax.dlpack.from_dlpack(labels)

        def on_jax() -> Any:
            out = evaluate(js, jy, FLOOR_MEASURES, ties="input")
            jax.block_until_ready(out)  # type: ignore[no-untyped-call]
            return out

        impls.append(("jax", on_jax))
    except Exception as exc:  # not installed, or no GPU for it
        print(f"  jax skipped: {type(exc).__name__}: {exc}")
    rows, good = [], True
    for library, fn in impls:
        seconds = timer(fn, repeat)
        diff = _max_diff(fn(), reference, check)
        ok = diff <= 1e-12 and gap <= 1e-12
        good &= ok
        kernels = _kernel_count(fn) if device == "cuda" and library == "torch" else None
        rows.append(
            f"| {q:,} x {n} | {library} | {seconds * 1e3:,.2f} | {floor * 1e3:,.2f} | "
            f"{seconds / floor:.2f}x | {'-' if kernels is None else kernels} | "
            f"{diff:.1e} ({check:,} rows); numpy vs evaluate {gap:.1e} | "
            f"{'ok' if ok else 'FAIL'} |"
        )
        print(rows[-1], flush=True)
    return rows, good


def gpu_floor(args: argparse.Namespace) -> int:
    """``--gpu-floor``: ranklens.tensor.evaluate (nDCG@10, AP, R@100, float64, ties in input
    order, in-batch) against one stable ``torch.sort`` of the same scores, per size, on
    torch (and CuPy and JAX when installed, on the same GPU); each result checked against
    the CPU reference (the numpy path, ``FLOOR_CHECK_ROWS`` rows) and ``ranklens.evaluate``
    (``FLOOR_EVALUATE_ROWS`` rows) to 1e-12. Prints one Markdown row per size and library
    and exits 1 if any check fails."""
    _import_ranklens()
    try:
        import array_api_compat  # noqa: F401
        import torch
    except ImportError as exc:
        print(f"needs torch and array-api-compat (pip install 'ranklens[torch]'): {exc}")
        return 2
    device = args.device
    if device == "cuda" and not torch.cuda.is_available():
        print("no CUDA device: timing on the CPU instead (not the GPU target's figures)")
        device = "cpu"
    where = torch.cuda.get_device_name() if device == "cuda" else cpu_name()
    print(f"device: {where}; torch {torch.__version__}, numpy {np.__version__}")
    timer = _gpu_timer(device)
    rows: list[str] = []
    failed = False
    for size in args.sizes.split(","):
        q, n = (int(v) for v in size.lower().split("x"))
        found, ok = _floor_size(q, n, device, timer, args.repeat)
        rows += found
        failed |= not ok
        if device == "cuda":
            torch.cuda.empty_cache()
    print(
        f"\n{', '.join(FLOOR_MEASURES)}, float64, ties in input order, in-batch; floor = one "
        "stable torch.sort(scores, dim=1, descending=True, stable=True); target: <= 3x from "
        "100,000 x 100 up, every value within 1e-12 of the CPU reference"
    )
    print(
        "| batch | library | ranklens ms | floor ms | ranklens / floor | CUDA kernels "
        "| max abs diff | check |"
    )
    print("|---|---|---:|---:|---:|---:|---|---|")
    for row in rows:
        print(row)
    return 1 if failed else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default=None, choices=["cpu", "cuda"])
    parser.add_argument(
        "--gpu-floor",
        action="store_true",
        help="ranklens.tensor against one stable torch.sort (device cuda by default)",
    )
    parser.add_argument("--sizes", default=FLOOR_SIZES, help="--gpu-floor: QxN,QxN,...")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--cases", default="small,large")
    parser.add_argument("--skip-torchmetrics-large", action="store_true")
    parser.add_argument("--threads", type=int, default=None, help="torch.set_num_threads")
    parser.add_argument(
        "--load", type=int, default=0, help="also time each case beside N busy processes"
    )
    args = parser.parse_args()
    if args.gpu_floor:
        args.device = args.device or "cuda"
        raise SystemExit(gpu_floor(args))
    args.device = args.device or "cpu"
    _import_ranklens()
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
