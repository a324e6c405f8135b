"""Time the statistics of ``ranklens compare`` on synthetic per-query values.

7,000 queries x 5 runs x 2 measures, 10,000 permutations / bootstrap resamples: the
randomization test and the bootstrap (test + interval) on the 8 comparisons with the
baseline (4 runs x 2 measures) at once, then the whole ``compare_results`` for each test.
Then discriminative power (issue #26): 30 runs x 5 measures x 200 topics, B = 1,000
(paired bootstrap ASLs and randomised Tukey HSD of all 435 pairs per measure).

    python benchmarks/stats_bench.py [--queries 7000] [--runs 5] [--permutations 10000]
    python benchmarks/stats_bench.py --only-discriminative
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from ranklens.analysis.comparison import compare_results
from ranklens.analysis.stats import bootstrap_test, randomization_test
from ranklens.analysis.topics import discriminative_power, swap_rate
from ranklens.evaluation.results import Results
from ranklens.measures import parse_measures


def synthetic(
    queries: int,
    runs: int,
    seed: int = 0,
    measure_names: tuple[str, ...] = ("nDCG@10", "AP"),
) -> list[Results]:
    """Per-query values in [0, 1] with a query effect and a run effect (like nDCG and AP)."""
    rng = np.random.default_rng(seed)
    measures = tuple(parse_measures(list(measure_names)))
    qids = tuple(f"q{i:05d}" for i in range(queries))
    difficulty = rng.beta(2, 3, size=(queries, 1))
    out = []
    for r in range(runs):
        noise = rng.normal(0, 0.15, size=(queries, len(measures)))
        values = np.clip(difficulty + 0.01 * r + noise, 0, 1)
        values[:, 1] = np.round(values[:, 1] * 10) / 10  # a discrete measure: many ties
        out.append(Results(f"run{r}", measures, qids, values))
    return out


def timed(label: str, fn: object, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()  # type: ignore[operator]
        best = min(best, time.perf_counter() - start)
    print(f"{label:<44} {best:7.2f} s")
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=7000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--permutations", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3, help="best of N")
    parser.add_argument(
        "--only-discriminative", action="store_true", help="only the discriminative power case"
    )
    args = parser.parse_args()
    if not args.only_discriminative:
        compare_cases(args)
    discriminative_case(args.repeat)


def discriminative_case(repeat: int) -> None:
    """30 runs x 5 measures x 200 topics, B = 1,000: ASLs of all 435 pairs per measure by
    the paired bootstrap and the randomised Tukey HSD; then swap rates of one measure."""
    five = ("nDCG@10", "AP", "P@10", "RR", "R@100")
    results = synthetic(200, 30, measure_names=five)
    print("200 topics x 30 runs x 5 measures, B = 1000, 435 pairs per measure")
    timed(
        "discriminative_power (bootstrap + Tukey)",
        lambda: discriminative_power(results, resamples=1000),
        repeat,
    )
    timed(
        "swap_rate (1 measure, sizes 5..100, 100 trials)",
        lambda: swap_rate(results, "AP"),
        repeat,
    )


def compare_cases(args: argparse.Namespace) -> None:
    """The statistics of ``compare``."""
    results = synthetic(args.queries, args.runs)
    base = results[0].values
    diffs = np.column_stack(
        [r.values[:, j] - base[:, j] for r in results[1:] for j in range(base.shape[1])]
    )
    b = args.permutations
    print(
        f"{args.queries} queries x {args.runs} runs x 2 measures, {b} permutations/resamples, "
        f"{diffs.shape[1]} comparisons"
    )
    timed("randomization_test (all comparisons)", lambda: randomization_test(diffs, b), args.repeat)
    timed("bootstrap_test (all comparisons)", lambda: bootstrap_test(diffs, b), args.repeat)
    for test in ("t", "wilcoxon", "sign", "randomization", "bootstrap"):
        timed(
            f"compare_results(test={test!r})",
            lambda test=test: compare_results(results, test=test, permutations=b),
            args.repeat,
        )
    timed(
        "compare_results(randomization, all_pairs)",
        lambda: compare_results(results, test="randomization", permutations=b, all_pairs=True),
        args.repeat,
    )


if __name__ == "__main__":
    main()
