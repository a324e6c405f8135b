"""Benchmark of the drop-in modules: pytrec_eval against ``ranklens.compat.pytrec_eval``, and
ir_measures' default provider against the ``ranklens`` provider.

Both sides take the same Python dicts (``{qid: {docid: value}}``) already in memory, as a
program that switches its import would; what is timed is building the evaluator and
evaluating one run (best of ``--repeat``), and the values are checked to be equal.

Data:

* ``example``: the bundled TREC DL 2019 passage qrels and BM25 run (43 queries x 1,000
  documents, ``ranklens.examples``);
* ``generated``: ``--queries`` x ``--docs`` (default 2,000 x 1,000) with 100 graded
  judgments per query, scores rounded to 3 decimals (ties), seeded numpy.

Measures: a typical set (``map``, ``ndcg_cut.10``, ``P.10``, ``recall.1000``,
``recip_rank``; for ir_measures ``AP``, ``nDCG@10``, ``P@10``, ``R@1000``, ``RR``) and
trec_eval's ``all_trec`` (pytrec_eval only).

Usage::

    python benchmarks/compat_bench.py [--queries 2000] [--docs 1000] [--repeat 3] [--json FILE]
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

EXAMPLES = Path(__file__).resolve().parents[1] / "src" / "ranklens" / "data" / "example_files"
TYPICAL = ["map", "ndcg_cut.10", "P.10", "recall.1000", "recip_rank"]
TYPICAL_IRM = ["AP", "nDCG@10", "P@10", "R@1000", "RR"]

Nested = dict[str, dict[str, Any]]


def example_data() -> tuple[Nested, Nested]:
    import ranklens.compat.pytrec_eval as compat

    with gzip.open(EXAMPLES / "dl19-passage.qrels.gz", "rt") as qrels_file:
        qrels = compat.parse_qrel(qrels_file)
    with gzip.open(EXAMPLES / "dl19-bm25.run.gz", "rt") as run_file:
        run = compat.parse_run(run_file)
    return dict(qrels), dict(run)


def generated_data(queries: int, docs: int, seed: int = 7) -> tuple[Nested, Nested]:
    rng = np.random.default_rng(seed)
    pool = 3 * docs
    qrels: Nested = {}
    run: Nested = {}
    for i in range(queries):
        qid = f"q{i}"
        judged = rng.choice(pool, 100, replace=False)
        grades = rng.choice([0, 0, 0, 1, 1, 2, 3], 100)
        qrels[qid] = {
            f"d{d}": int(g) for d, g in zip(judged.tolist(), grades.tolist(), strict=True)
        }
        ranked = rng.choice(pool, docs, replace=False)
        scores = np.round(rng.random(docs), 3)
        run[qid] = {
            f"d{d}": float(s) for d, s in zip(ranked.tolist(), scores.tolist(), strict=True)
        }
    return qrels, run


def best_time(function: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    best, result = math.inf, None
    for _ in range(repeat):
        start = time.perf_counter()
        result = function()
        best = min(best, time.perf_counter() - start)
    return best, result


def same(a: Any, b: Any) -> bool:
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return bool(a == b or (math.isnan(a) and math.isnan(b)))


def bench_pytrec(qrels: Nested, run: Nested, measures: list[str], repeat: int) -> dict[str, Any]:
    import pytrec_eval

    import ranklens.compat.pytrec_eval as compat

    def theirs() -> Any:
        return pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)

    def ours() -> Any:
        return compat.RelevanceEvaluator(qrels, measures).evaluate(run)

    t_theirs, r_theirs = best_time(theirs, repeat)
    t_ours, r_ours = best_time(ours, repeat)
    return {"pytrec_eval": t_theirs, "ranklens.compat": t_ours, "equal": same(r_theirs, r_ours)}


def bench_ir_measures(qrels: Nested, run: Nested, names: list[str], repeat: int) -> dict[str, Any]:
    import ir_measures

    import ranklens.compat.ir_measures as provider_module

    measures = [ir_measures.parse_measure(name) for name in names]
    default = ir_measures.providers.FallbackProvider(
        [p for p in ir_measures.DefaultPipeline.providers if p is not provider_module.provider]
    )
    t_theirs, r_theirs = best_time(lambda: default.calc_aggregate(measures, qrels, run), repeat)
    t_ours, r_ours = best_time(lambda: ir_measures.calc_aggregate(measures, qrels, run), repeat)
    equal = r_theirs == r_ours
    return {"ir_measures default": t_theirs, "ranklens provider": t_ours, "equal": equal}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=2000)
    parser.add_argument("--docs", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    datasets = {
        "example (DL19, 43 x 1000)": example_data(),
        f"generated ({args.queries} x {args.docs})": generated_data(args.queries, args.docs),
    }
    rows: list[dict[str, Any]] = []
    for data_name, (qrels, run) in datasets.items():
        for label, measures in (("typical", TYPICAL), ("all_trec", ["all_trec"])):
            timing = bench_pytrec(qrels, run, measures, args.repeat)
            rows.append({"data": data_name, "api": "pytrec_eval", "measures": label, **timing})
        timing = bench_ir_measures(qrels, run, TYPICAL_IRM, args.repeat)
        rows.append({"data": data_name, "api": "ir_measures", "measures": "typical", **timing})
    print("| data | API | measures | peer (s) | ranklens (s) | speed-up | values equal |")
    print("|---|---|---|---:|---:|---:|---|")
    for row in rows:
        peer, ours = [v for k, v in row.items() if isinstance(v, float)]
        print(
            f"| {row['data']} | {row['api']} | {row['measures']} | {peer:.3f} | {ours:.3f} "
            f"| {peer / ours:.1f}x | {row['equal']} |"
        )
    if args.json is not None:
        args.json.write_text(json.dumps(rows, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
