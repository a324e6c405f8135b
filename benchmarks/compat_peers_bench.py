"""Benchmark of the drop-in front ends: ranx vs ``ranklens.compat.ranx`` and torchmetrics vs
``ranklens.compat.torchmetrics``, on the same in-memory data, in one process.

ranx's workload is what its users run, each step timed on its own: ``build`` is
``Qrels(dict)`` and three ``Run(dict)`` from Python dicts (``--queries`` x ``--docs``
documents each, scores distinct, about a third of the documents judged on grades 0-3);
then, on the built objects, ``evaluate`` of one run with four metrics, ``compare`` of the
three runs (t-test) and ``fuse`` (min-max + wsum). torchmetrics' workload is flat ``(preds,
target, indexes)`` tensors over the same number of queries and documents, ``update`` +
``compute`` of each of the eleven retrieval classes (``top_k=10`` or ``max_k=10`` where it
applies), and each of the ten functions called once per query (as their users loop over
queries: ``--function-queries`` queries of ``--docs`` documents; the time per call), on the
CPU. Every timing is the best of ``--repeat`` after one untimed call (ranx's numba
compilation and caches are warm); the script also prints the largest difference between
the two tools' values (ranx: mean of each metric; torchmetrics: every value returned).

ranx's ``evaluate`` is also timed at every size of ``--ranx-sizes`` (queries x documents,
from 2 x 3 up), on the built ``Qrels``/``Run`` and on the plain dicts (conversion
included): per call, the best of ``--repeat`` rounds of as many calls as last about a
millisecond, after an untimed call (ranx's kernels compiled); ``cpu`` is the same in
process time (summed over threads), which other jobs on the machine disturb less.

Usage::

    python benchmarks/compat_peers_bench.py [--queries 2000] [--docs 100] [--repeat 3]
        [--function-queries 200] [--ranx-sizes 2x3,10x10,...] [--peers ranx torchmetrics]
        [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import time
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

METRICS = ["ndcg@10", "map@100", "mrr@10", "recall@100"]
TM_CLASSES = [
    ("RetrievalNormalizedDCG", {"top_k": 10}),
    ("RetrievalMAP", {"top_k": 10}),
    ("RetrievalMRR", {"top_k": 10}),
    ("RetrievalPrecision", {"top_k": 10}),
    ("RetrievalRecall", {"top_k": 10}),
    ("RetrievalHitRate", {"top_k": 10}),
    ("RetrievalRPrecision", {}),
    ("RetrievalFallOut", {"top_k": 10}),
    ("RetrievalAUROC", {"top_k": 10}),
    ("RetrievalPrecisionRecallCurve", {"max_k": 10}),
    ("RetrievalRecallAtFixedPrecision", {"max_k": 10, "min_precision": 0.2}),
]
TM_FUNCTIONS = [
    ("retrieval_normalized_dcg", {"top_k": 10}),
    ("retrieval_average_precision", {"top_k": 10}),
    ("retrieval_reciprocal_rank", {"top_k": 10}),
    ("retrieval_precision", {"top_k": 10}),
    ("retrieval_recall", {"top_k": 10}),
    ("retrieval_hit_rate", {"top_k": 10}),
    ("retrieval_r_precision", {}),
    ("retrieval_fall_out", {"top_k": 10}),
    ("retrieval_auroc", {"top_k": 10}),
    ("retrieval_precision_recall_curve", {"max_k": 10}),
]


def best_of(repeat: int, work: Callable[[], Any]) -> tuple[float, Any]:
    """``(best seconds, last result)`` of ``repeat`` timed calls after an untimed one."""
    result = work()
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        result = work()
        best = min(best, time.perf_counter() - start)
    return best, result


def make_dicts(
    queries: int, docs: int, runs: int, seed: int = 0
) -> tuple[dict[str, dict[str, int]], list[dict[str, dict[str, float]]]]:
    rng = np.random.default_rng(seed)
    qrels: dict[str, dict[str, int]] = {}
    out: list[dict[str, dict[str, float]]] = [{} for _ in range(runs)]
    for q in range(queries):
        pool = [f"d{i}" for i in rng.choice(docs * 3, docs * 2, replace=False)]
        judged = pool[: docs // 3 + 1]
        qrels[f"q{q}"] = {
            d: int(g) for d, g in zip(judged, rng.choice(4, len(judged)), strict=True)
        }
        for r in range(runs):
            picked = rng.permutation(pool)[:docs]
            scores = rng.permutation(docs) + rng.random()
            out[r][f"q{q}"] = {d: float(s) for d, s in zip(picked, scores, strict=True)}
    return qrels, out


def bench_ranx(queries: int, docs: int, repeat: int) -> dict[str, Any]:
    import ranx

    from ranklens.compat import ranx as compat

    qrels, runs = make_dicts(queries, docs, 3)
    rows: dict[str, Any] = {}
    for label, lib in (("ranx", ranx), ("ranklens.compat.ranx", compat)):

        def build(lib: Any = lib) -> Any:
            return lib.Qrels(qrels), [lib.Run(r, name=f"r{i}") for i, r in enumerate(runs)]

        t_build, (q, built) = best_of(repeat, build)

        def evaluate(lib: Any = lib, q: Any = q, built: Any = built) -> Any:
            return lib.evaluate(q, built[0], METRICS)

        def compare(lib: Any = lib, q: Any = q, built: Any = built) -> Any:
            return lib.compare(q, built, METRICS, stat_test="student")

        def fuse(lib: Any = lib, built: Any = built) -> Any:
            return lib.fuse(
                built, norm="min-max", method="wsum", params={"weights": [0.5, 0.3, 0.2]}
            )

        t_eval, means = best_of(repeat, evaluate)
        t_cmp, _ = best_of(repeat, compare)
        t_fuse, _ = best_of(repeat, fuse)
        rows[label] = {
            "build": t_build,
            "evaluate": t_eval,
            "compare": t_cmp,
            "fuse": t_fuse,
            "means": means,
        }
    diff = max(
        abs(rows["ranx"]["means"][m] - rows["ranklens.compat.ranx"]["means"][m]) for m in METRICS
    )
    return {"rows": rows, "max_abs_diff": diff}


RANX_SIZES = "2x3,10x10,100x100,1000x100,5000x100,1000x1000"


def per_call(repeat: int, work: Callable[[], Any], clock: Callable[[], float]) -> float:
    """Seconds per call of ``work`` by ``clock``: the best of ``repeat`` rounds, each of as
    many calls as last about a millisecond (one untimed call first)."""
    start = clock()
    work()
    calls = max(1, int(1e-3 / max(clock() - start, 1e-7)))
    best = float("inf")
    for _ in range(repeat):
        start = clock()
        for _ in range(calls):
            work()
        best = min(best, (clock() - start) / calls)
    return best


def bench_ranx_sizes(sizes: str, repeat: int) -> list[dict[str, Any]]:
    """ranx's ``evaluate`` against the module's at each ``queries x docs`` of ``sizes``, on
    the built objects and on the dicts; the largest difference of the means too."""
    import ranx

    from ranklens.compat import ranx as compat

    rows = []
    for size in sizes.split(","):
        queries, docs = (int(n) for n in size.lower().split("x"))
        qrels, (run,) = make_dicts(queries, docs, 1, seed=queries * 7919 + docs)
        row: dict[str, Any] = {"queries": queries, "docs": docs}
        means = []
        for label, lib in (("ranx", ranx), ("compat", compat)):
            built = lib.Qrels(qrels), lib.Run(run)

            def on_objects(lib: Any = lib, built: Any = built) -> Any:
                return lib.evaluate(built[0], built[1], METRICS)

            def on_dicts(lib: Any = lib, qrels: Any = qrels, run: Any = run) -> Any:
                return lib.evaluate(qrels, run, METRICS)

            means.append(on_objects())
            for form, work in (("objects", on_objects), ("dicts", on_dicts)):
                row[f"{label} {form}"] = per_call(repeat, work, time.perf_counter)
                row[f"{label} {form} cpu"] = per_call(repeat, work, time.process_time)
        row["max_abs_diff"] = max(abs(means[0][m] - means[1][m]) for m in METRICS)
        rows.append(row)
    return rows


def print_ranx_sizes(rows: list[dict[str, Any]]) -> None:
    print("ranx evaluate (4 metrics), seconds per call: wall (cpu); speed-up of the module")
    head = f"{'queries x docs':>16}"
    for form in ("objects", "dicts"):
        head += f"{'ranx ' + form:>22}{'compat ' + form:>22}{'x':>6}"
    print(head + f"{'max |diff|':>12}")
    for row in rows:
        line = f"{row['queries']:>9} x {row['docs']:<4}"
        for form in ("objects", "dicts"):
            for label in ("ranx", "compat"):
                wall, cpu = row[f"{label} {form}"], row[f"{label} {form} cpu"]
                line += f"{wall:>12.6f} ({cpu:.6f})"
            line += f"{row[f'ranx {form}'] / row[f'compat {form}']:>6.1f}"
        print(line + f"{row['max_abs_diff']:>12.1e}")


def _flat(value: Any) -> list[float]:
    """Every number of a metric's result (a tensor or a tuple of tensors)."""
    parts = value if isinstance(value, tuple) else (value,)
    return [float(x) for part in parts for x in part.double().flatten()]


def bench_torchmetrics(
    queries: int, docs: int, repeat: int, function_queries: int
) -> dict[str, Any]:
    import torch
    import torchmetrics.functional.retrieval as tm_functional
    import torchmetrics.retrieval as tm

    from ranklens.compat import torchmetrics as compat
    from ranklens.compat.torchmetrics import functional

    rng = np.random.default_rng(1)
    n = queries * docs
    indexes = torch.tensor(np.repeat(np.arange(queries), docs), dtype=torch.long)
    # scores in (0, 1): torchmetrics' AUROC passes other scores through a sigmoid
    preds = torch.tensor((rng.permutation(n) + 0.5) / n, dtype=torch.float32)
    binary = torch.tensor((rng.random(n) < 0.1).astype(np.int64))
    graded = torch.tensor(rng.choice([0, 0, 0, 1, 2, 3], n))
    labels = ("torchmetrics", "ranklens.compat.torchmetrics")
    rows: dict[str, dict[str, float]] = {label: {} for label in labels}
    diff = 0.0
    for name, options in TM_CLASSES:
        target = graded if name == "RetrievalNormalizedDCG" else binary
        values = []
        for label, lib in zip(labels, (tm, compat), strict=True):

            def work(
                lib: Any = lib, name: str = name, options: Any = options, target: Any = target
            ) -> Any:
                metric = getattr(lib, name)(**options)
                metric.update(preds, target, indexes)
                return metric.compute()

            seconds, value = best_of(repeat, work)
            rows[label][name] = seconds
            values.append(_flat(value))
        diff = max(diff, max(abs(a - b) for a, b in zip(*values, strict=True)))
    calls: dict[str, dict[str, float]] = {label: {} for label in labels}
    per_query = [
        (preds[i * docs : (i + 1) * docs], binary[i * docs : (i + 1) * docs])
        for i in range(min(function_queries, queries))
    ]
    graded_targets = [graded[i * docs : (i + 1) * docs] for i in range(len(per_query))]
    for name, options in TM_FUNCTIONS:
        values = []
        for label, lib in zip(labels, (tm_functional, functional), strict=True):
            function = getattr(lib, name)
            targets = graded_targets if name == "retrieval_normalized_dcg" else None

            def loop(
                function: Any = function, options: Any = options, targets: Any = targets
            ) -> Any:
                return [
                    function(p, t if targets is None else targets[i], **options)
                    for i, (p, t) in enumerate(per_query)
                ]

            seconds, out = best_of(repeat, loop)
            calls[label][name] = seconds / len(per_query)
            values.append([x for value in out for x in _flat(value)])
        diff = max(diff, max(abs(a - b) for a, b in zip(*values, strict=True)))
    return {"rows": rows, "calls": calls, "max_abs_diff": diff}


def print_torchmetrics(result: dict[str, Any]) -> None:
    t = result["rows"]
    print(f"{'class (s)':34}{'torchmetrics':>14}{'compat':>10}{'speed-up':>10}")
    for name in t["torchmetrics"]:
        theirs, mine = t["torchmetrics"][name], t["ranklens.compat.torchmetrics"][name]
        print(f"{name:34}{theirs:>14.3f}{mine:>10.3f}{theirs / mine:>9.1f}x")
    f = result["calls"]
    print(
        f"{'function, one query (us a call)':34}{'torchmetrics':>14}{'compat':>10}{'speed-up':>10}"
    )
    for name in f["torchmetrics"]:
        theirs, mine = f["torchmetrics"][name], f["ranklens.compat.torchmetrics"][name]
        print(f"{name:34}{theirs * 1e6:>14.1f}{mine * 1e6:>10.1f}{theirs / mine:>9.1f}x")
    print(f"max |difference| of the values: {result['max_abs_diff']:.2e}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--queries", type=int, default=2000)
    parser.add_argument("--docs", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--function-queries", type=int, default=200)
    parser.add_argument(
        "--peers", nargs="+", choices=["ranx", "torchmetrics"], default=["ranx", "torchmetrics"]
    )
    parser.add_argument("--ranx-sizes", default=RANX_SIZES, help="queries x docs, comma-separated")
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    warnings.filterwarnings("ignore")  # numba's, inside ranx
    out: dict[str, Any] = {"queries": args.queries, "docs": args.docs}
    if "ranx" in args.peers:
        out["ranx"] = bench_ranx(args.queries, args.docs, args.repeat)
        out["ranx_sizes"] = bench_ranx_sizes(args.ranx_sizes, args.repeat)
    if "torchmetrics" in args.peers:
        out["torchmetrics"] = bench_torchmetrics(
            args.queries, args.docs, args.repeat, args.function_queries
        )
    print(f"{args.queries} queries x {args.docs} documents, best of {args.repeat} (seconds)")
    if "ranx" in out:
        r = out["ranx"]["rows"]
        steps = ("build", "evaluate", "compare", "fuse")
        print(f"{'':28}" + "".join(f"{step:>10}" for step in steps))
        for label, row in r.items():
            print(f"{label:28}" + "".join(f"{row[step]:>10.3f}" for step in steps))
        print(f"max |difference| of the means: {out['ranx']['max_abs_diff']:.2e}")
        for row in r.values():
            row["means"] = {m: float(v) for m, v in row["means"].items()}
        print_ranx_sizes(out["ranx_sizes"])
    if "torchmetrics" in out:
        print_torchmetrics(out["torchmetrics"])
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(out, handle, indent=2)


if __name__ == "__main__":
    main()
