"""Tiny calls and large ones, side by side in one process: pytrec_eval against
``ranklens.compat.pytrec_eval`` and ``ranklens.evaluate``.

* ``tiny``: one call on 2 queries x 3 documents (a reward loop, a per-batch validation),
  the evaluator built once: pytrec_eval's
  ``RelevanceEvaluator.evaluate``, the module's, ``ranklens.evaluate`` on the two dicts
  (looked up as ``ranklens.evaluate``, as a program calls it), ``Evaluator.evaluate``, and
  ``ranklens.evaluate`` given the run as a ``ranklens.Run`` (which the tiny path does not
  take: the general path's cost on the same call); and an episode of pytrec_eval's
  ``examples/rl.py`` (an evaluator built for one query with ``ndcg``, then 10 calls).
  Microseconds per call.
* ``sizes``: ``ranklens.evaluate`` on dicts (tiny path up to ``TINY_ENTRIES`` entries)
  against the same call with the tiny path skipped (the general path from the same dicts),
  at growing sizes: where the two meet.
* ``large``: building the evaluator and evaluating one run (what a program that switches
  its import does), pytrec_eval against the module, ``--large`` sizes (default 5,000 x 100,
  10,000 x 100, 5,000 x 1,000; 100 graded judgments per query; scores rounded to 3
  decimals: ties). Seconds.

Every timing is the best over ``--repeat`` rounds in which the contenders alternate (the
best of interleaved rounds is robust to other jobs on the machine); the values are checked
to be equal first (per query for pytrec_eval; the general path's for ranklens).

Measures: ``map``, ``ndcg_cut.10``, ``P.10``, ``recip_rank`` (for ranklens ``AP``,
``nDCG@10``, ``P@10``, ``RR``); large runs also ``recall.1000``.

Usage::

    python benchmarks/tiny_bench.py [--repeat 200] [--large 5000x100,10000x100,5000x1000]
        [--json FILE]
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import os
import platform
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from compat_bench import generated_data, same

QREL = {"q1": {"d1": 0, "d2": 1, "d3": 0}, "q2": {"d2": 1, "d3": 1}}
RUN = {"q1": {"d1": 1.0, "d2": 0.0, "d3": 1.5}, "q2": {"d1": 0.5, "d2": 0.2, "d3": 0.1}}
TREC = {"map", "ndcg_cut.10", "P.10", "recip_rank"}
NAMES = ["AP", "nDCG@10", "P@10", "RR"]
LARGE_TREC = ["map", "ndcg_cut.10", "P.10", "recall.1000", "recip_rank"]


def per_call(functions: dict[str, Callable[[], Any]], rounds: int, batch: int) -> dict[str, float]:
    """Seconds per call of each function: the best batch over ``rounds`` interleaved rounds."""
    best = dict.fromkeys(functions, math.inf)
    for function in functions.values():
        function()  # warm
    enabled = gc.isenabled()
    gc.disable()
    try:
        for _ in range(rounds):
            for name, function in functions.items():
                start = time.perf_counter()
                for _ in range(batch):
                    function()
                best[name] = min(best[name], (time.perf_counter() - start) / batch)
    finally:
        if enabled:
            gc.enable()
    return best


def tiny(rounds: int) -> dict[str, float]:
    import pytrec_eval

    import ranklens
    import ranklens.compat.pytrec_eval as compat

    theirs = pytrec_eval.RelevanceEvaluator(QREL, TREC)
    ours = compat.RelevanceEvaluator(QREL, TREC)
    assert same(theirs.evaluate(RUN), ours.evaluate(RUN))
    evaluator = ranklens.Evaluator(QREL, NAMES)
    run_object = ranklens.Run.from_dict(RUN)
    assert ranklens.evaluate(QREL, RUN, NAMES).aggregate == (
        ranklens.evaluate(QREL, run_object, NAMES).aggregate
    )
    episode_qrels = {"0": QREL["q1"]}
    episode_run = {"0": RUN["q1"]}

    def episode(module: Any) -> Any:
        """pytrec_eval's examples/rl.py: an evaluator per query ('ndcg'), 10 steps."""
        evaluator = module.RelevanceEvaluator(episode_qrels, {"ndcg"})
        return [evaluator.evaluate(episode_run) for _ in range(10)]

    assert same(episode(pytrec_eval)[0], episode(compat)[0])
    functions = {
        "pytrec_eval RelevanceEvaluator.evaluate": lambda: theirs.evaluate(RUN),
        "ranklens.compat.pytrec_eval RelevanceEvaluator.evaluate": lambda: ours.evaluate(RUN),
        "ranklens.evaluate (dicts)": lambda: ranklens.evaluate(QREL, RUN, NAMES),
        "ranklens.Evaluator.evaluate (dict run)": lambda: evaluator.evaluate(RUN),
        "ranklens.evaluate (a Run: the general path)": lambda: ranklens.evaluate(
            QREL, run_object, NAMES
        ),
        "rl.py episode, pytrec_eval (build + 10 calls)": lambda: episode(pytrec_eval),
        "rl.py episode, ranklens.compat.pytrec_eval (build + 10 calls)": lambda: episode(compat),
    }
    return per_call(functions, rounds, 50)


def small_data(queries: int, docs: int, seed: int = 3) -> tuple[Any, Any]:
    """``queries`` x ``docs`` with half of each query's documents judged on grades 0-3 and
    scores rounded to 2 decimals (ties)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for i in range(queries):
        names = [f"d{j}" for j in range(2 * docs)]
        judged = rng.choice(len(names), max(1, docs // 2), replace=False).tolist()
        qrels[f"q{i}"] = {names[j]: int(rng.integers(0, 4)) for j in judged}
        ranked = rng.choice(len(names), docs, replace=False).tolist()
        run[f"q{i}"] = {names[j]: round(float(rng.random()), 2) for j in ranked}
    return qrels, run


def sizes(rounds: int) -> list[dict[str, Any]]:
    from unittest import mock

    import numpy as np

    import ranklens
    from ranklens.evaluation import evaluator as evaluator_module

    def general_path(qrels: Any, run: Any, names: list[str]) -> Any:
        """``ranklens.evaluate`` with the tiny path switched off (as the tests force it)."""
        with mock.patch.object(evaluator_module, "_tiny_evaluate", return_value=None):
            return ranklens.evaluate(qrels, run, names)

    rows = []
    for queries, docs in ((2, 3), (10, 10), (10, 50), (20, 50), (30, 50), (40, 50), (80, 50)):
        qrels, run = small_data(queries, docs)
        fast = ranklens.evaluate(qrels, run, NAMES)
        general = general_path(qrels, run, NAMES)
        assert np.array_equal(fast.values, general.values)
        best = per_call(
            {
                "dicts": lambda q=qrels, r=run: ranklens.evaluate(q, r, NAMES),
                "general": lambda q=qrels, r=run: general_path(q, r, NAMES),
            },
            max(3, rounds // 20),
            5,
        )
        entries = queries * docs + sum(map(len, qrels.values()))
        rows.append({"queries": queries, "docs": docs, "entries": entries, **best})
    return rows


def large(shapes: list[tuple[int, int]], rounds: int) -> list[dict[str, Any]]:
    import pytrec_eval

    import ranklens.compat.pytrec_eval as compat

    rows = []
    for queries, docs in shapes:
        qrels, run = generated_data(queries, docs)
        theirs = pytrec_eval.RelevanceEvaluator(qrels, LARGE_TREC).evaluate(run)
        assert same(theirs, compat.RelevanceEvaluator(qrels, LARGE_TREC).evaluate(run))
        best = per_call(
            {
                "pytrec_eval": lambda q=qrels, r=run: pytrec_eval.RelevanceEvaluator(
                    q, LARGE_TREC
                ).evaluate(r),
                "ranklens.compat.pytrec_eval": lambda q=qrels, r=run: compat.RelevanceEvaluator(
                    q, LARGE_TREC
                ).evaluate(r),
            },
            rounds,
            1,
        )
        rows.append({"queries": queries, "docs": docs, **best})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=200, help="interleaved rounds (tiny)")
    parser.add_argument("--large-repeat", type=int, default=5)
    parser.add_argument("--large", default="5000x100,10000x100,5000x1000")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    shapes = [tuple(int(x) for x in s.split("x")) for s in args.large.split(",") if s]
    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    print(f"# {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, "
          f"Python {platform.python_version()}, load average {load}")  # fmt: skip
    report: dict[str, Any] = {"load_before": load}
    report["tiny"] = tiny(args.repeat)
    print("\n| tiny call (2 queries x 3 documents) | µs per call | vs pytrec_eval |")
    print("|---|---:|---:|")
    for name, seconds in report["tiny"].items():
        episode = name.startswith("rl.py")
        base = report["tiny"][
            "rl.py episode, pytrec_eval (build + 10 calls)"
            if episode
            else "pytrec_eval RelevanceEvaluator.evaluate"
        ]
        print(f"| {name} | {seconds * 1e6:.1f} | {seconds / base:.1f}x |")
    report["sizes"] = sizes(args.repeat)
    print("\n| ranklens.evaluate on dicts | entries | as it is (µs) | general path (µs) |")
    print("|---|---:|---:|---:|")
    for row in report["sizes"]:
        print(
            f"| {row['queries']} x {row['docs']} | {row['entries']} | {row['dicts'] * 1e6:.0f} "
            f"| {row['general'] * 1e6:.0f} |"
        )
    report["large"] = large(shapes, args.large_repeat)
    print("\n| build + evaluate | pytrec_eval (s) | ranklens.compat.pytrec_eval (s) | speed-up |")
    print("|---|---:|---:|---:|")
    for row in report["large"]:
        theirs, ours = row["pytrec_eval"], row["ranklens.compat.pytrec_eval"]
        print(
            f"| {row['queries']:,} x {row['docs']:,} | {theirs:.3f} | {ours:.3f} "
            f"| {theirs / ours:.2f}x |"
        )
    report["load_after"] = os.getloadavg() if hasattr(os, "getloadavg") else None
    print(f"\nload average after: {report['load_after']}")
    if args.json is not None:
        args.json.write_text(json.dumps(report, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
