"""Benchmark of rank fusion: ranklens against ranx, three runs fused end to end from files.

The first run is ``benchmarks/generate.py``'s ``msmarco`` run (``large``: 7,000 queries x
1,000 documents = 7M lines; ``medium``: 1M lines). Two more systems over the same queries
are derived from it, deterministically and vectorised: 30% of each query's documents
are replaced by documents only that system retrieves, scores get Gaussian noise (sd 2)
and are rounded to 3 decimals again (so ties remain), and each query is re-ranked. Files
go to ``benchmarks/data/`` (git-ignored).

Timed, each in a fresh process, best of ``--repeat``:

* ``ranklens read+fuse``: ``Run.from_file`` x 3 and :func:`ranklens.fuse` (a Run in memory);
* ``ranklens cli``: ``ranklens fuse A B C --method M -o out`` (reading, fusing, writing);
* ``ranx``: ``Run.from_file`` x 3 and ``ranx.fuse`` (numba caches warmed by a first run).

Usage::

    python benchmarks/fusion_bench.py [--scale large] [--repeat 3] [--ranx-scale medium]
        [--ranx-python PY] [--no-cli] [--wait-idle S] [--json FILE]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import generate
from run import wait_for_idle

DATA = generate.DATA_DIR
METHODS = (("rrf", None), ("mnz", "min-max"))
NOISE_SD = 2.0
REPLACED = 0.3


def run_paths(scale: str) -> list[Path]:
    """The three run files of a scale (generated when missing)."""
    _, first = generate.ensure("msmarco", scale)
    paths = [first] + [DATA / f"fusion.sys{s}.{scale}.txt" for s in (2, 3)]
    for system, path in zip((2, 3), paths[1:], strict=True):
        if not path.exists():
            _derive(scale, system, path)
    return paths


def _derive(scale: str, system: int, path: Path) -> None:
    start = time.perf_counter()
    decimals = generate.score_decimals(generate.SCALES[scale][1])
    tmp = path.with_suffix(".tmp")
    with tmp.open("wb") as out:
        for index, chunk in enumerate(generate.iter_chunks("msmarco", scale)):
            rng = np.random.default_rng([generate.SEED, 7, system, index])
            depth = generate.SCALES[scale][1]
            docid = chunk.run_docid.reshape(-1, depth).copy()
            score = chunk.run_score.reshape(-1, depth).astype(np.float64)
            swap = rng.random(docid.shape) < REPLACED
            docid[swap] += system * generate.DOC_SPACE  # documents only this system has
            perturbed = score + rng.normal(0.0, NOISE_SD * 10**decimals, size=score.shape)
            noisy = np.maximum(np.rint(perturbed), 0).astype(np.int64)
            order = np.argsort(-noisy, axis=1, kind="stable")
            derived = dataclasses.replace(
                chunk,
                run_docid=np.take_along_axis(docid, order, axis=1).ravel(),
                run_score=np.take_along_axis(noisy, order, axis=1).ravel(),
            )
            out.write(generate.format_run(derived, decimals))
    os.replace(tmp, path)
    print(f"derived {path.name} in {time.perf_counter() - start:.1f} s", file=sys.stderr)


RANKLENS = """
import sys, time
t0 = time.perf_counter()
import ranklens
from ranklens.fusion import fuse
runs = [ranklens.Run.from_file(p) for p in sys.argv[3:]]
t1 = time.perf_counter()
fused = fuse(runs, sys.argv[1], norm=None if sys.argv[2] == '-' else sys.argv[2])
t2 = time.perf_counter()
import resource
u = resource.getrusage(resource.RUSAGE_SELF)
print(t2 - t0, t1 - t0, t2 - t1, len(fused), u.ru_maxrss, u.ru_utime + u.ru_stime)
"""

RANX = """
import sys, time
from ranx import Run, fuse
t0 = time.perf_counter()
runs = [Run.from_file(p, kind="trec") for p in sys.argv[3:]]
t1 = time.perf_counter()
fused = fuse(runs, norm=None if sys.argv[2] == '-' else sys.argv[2], method=sys.argv[1])
t2 = time.perf_counter()
import resource
u = resource.getrusage(resource.RUSAGE_SELF)
print(t2 - t0, t1 - t0, t2 - t1, sum(len(v) for v in fused.run.values()), u.ru_maxrss,
      u.ru_utime + u.ru_stime)
"""


def _python(
    code: str, python: str, method: str, norm: str | None, paths: list[Path]
) -> list[float]:
    args = [python, "-c", code, method, norm or "-", *map(str, paths)]
    done = subprocess.run(args, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(done.stderr[-2000:])
    return [float(x) for x in done.stdout.split()]


def _cli(ranklens: str, method: str, norm: str | None, paths: list[Path]) -> float:
    out = DATA / "fusion.out.txt"
    args = [ranklens, "fuse", *map(str, paths), "--method", method, "-o", str(out), "--force"]
    if norm:
        args += ["--norm", norm]
    start = time.perf_counter()
    subprocess.run(args, check=True)
    return time.perf_counter() - start


def main() -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", default="large")
    parser.add_argument("--ranx-scale", default="medium", help="scale for ranx ('none': skip)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--ranx-python", default=sys.executable)
    parser.add_argument("--ranklens", default=str(Path(sys.executable).with_name("ranklens")))
    parser.add_argument("--json", type=Path)
    parser.add_argument("--no-cli", action="store_true", help="skip the 'ranklens fuse' timings")
    parser.add_argument(
        "--wait-idle",
        type=float,
        default=0.0,
        metavar="S",
        help="before each sample wait up to S s until other processes use < 15%% of the cores",
    )
    args = parser.parse_args()
    results = []
    jobs = [("ranklens", args.scale)]
    if args.ranx_scale != "none":
        jobs += [("ranklens", args.ranx_scale), ("ranx", args.ranx_scale)]
    for tool, scale in jobs:
        paths = run_paths(scale)
        with open(paths[0], "rb") as handle:
            lines = sum(1 for _ in handle) * 3
        for method, norm in METHODS:
            ranklens_method = {"mnz": "comb_mnz"}.get(method, method)
            if tool == "ranx":
                _python(RANX, args.ranx_python, method, norm, paths)  # warm numba
            samples = []
            cli = []
            for _ in range(args.repeat):
                if args.wait_idle > 0:
                    wait_for_idle(args.wait_idle)
                if tool == "ranx":
                    samples.append(_python(RANX, args.ranx_python, method, norm, paths))
                else:
                    samples.append(_python(RANKLENS, sys.executable, ranklens_method, norm, paths))
                    if not args.no_cli:
                        if args.wait_idle > 0:
                            wait_for_idle(args.wait_idle)
                        cli.append(_cli(args.ranklens, ranklens_method, norm, paths))
            best = min(samples, key=lambda s: s[0])
            row = {
                "tool": tool,
                "scale": scale,
                "input_lines": lines,
                "method": method,
                "norm": norm,
                "total_s": best[0],
                "read_s": best[1],
                "fuse_s": best[2],
                "fused_docs": int(best[3]),
                "peak_rss_mb": round(best[4] / 1024),
                "cpu_s": round(best[5], 2),
                "cli_s": min(cli) if cli else None,
            }
            results.append(row)
            print(json.dumps(row), flush=True)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
