"""Benchmark of click models from a Parquet click log: ranklens against PyClick.

A click log of ``--impressions`` impressions with 10 positions each (one row per
impression and position) is simulated in chunks, vectorised, and written to
``benchmarks/data/logs.<N>.parquet`` (git-ignored): 10,000 queries of 30 documents, each
impression showing the top 10 of one of three rankers' orderings, users browsing as a DBN
(attractiveness and satisfaction per document, continuation 0.85). Session rows are
consecutive, as a streamed log requires.

Timed, each in a fresh process (wall, CPU, peak RSS of that process):

* ``ranklens``: :func:`ranklens.logs.fit_click_models` with PBM and DBN from the Parquet
  path (streamed by record batches) and qrels from each model (``to_qrels``);
* ``pyclick``: PyClick's PBM and DBN (its default 50 EM iterations) on the first
  sessions of the same log, on growing sizes until one does not finish within
  ``--pyclick-timeout`` seconds (PyClick's source given by ``--pyclick``; it is an oracle
  run from its own folder, never a dependency). ranklens is timed on the same sizes.

Usage::

    python benchmarks/logs_bench.py [--impressions 10000000] [--pyclick /tmp/pyclick]
        [--pyclick-timeout 600] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

DATA = Path(__file__).resolve().parent / "data"
QUERIES = 10_000
DOCS = 30
RANKS = 10
RANKERS = 3
CHUNK = 200_000  # impressions per written row group
SEED = 7


def generate(impressions: int, path: Path) -> None:
    """Write the simulated log (see the module's documentation)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(SEED)
    attractiveness = rng.beta(1.2, 3.0, size=(QUERIES, DOCS))
    satisfaction = rng.uniform(0.1, 0.8, size=(QUERIES, DOCS))
    orders = np.stack(
        [
            np.argsort(-(attractiveness + rng.normal(0, 0.15, size=attractiveness.shape)), axis=1)
            for _ in range(RANKERS)
        ],
        axis=1,
    )[:, :, :RANKS]  # (queries, rankers, ranks)
    doc_names = np.asarray([f"d{d}" for d in range(DOCS)], dtype=object)
    query_names = np.asarray([f"q{q}" for q in range(QUERIES)], dtype=object)
    writer = None
    done = 0
    try:
        while done < impressions:
            n = min(CHUNK, impressions - done)
            q = rng.integers(0, QUERIES, size=n)
            r = rng.integers(0, RANKERS, size=n)
            docs = orders[q, r]  # (n, ranks)
            a = attractiveness[q[:, None], docs]
            s = satisfaction[q[:, None], docs]
            clicks = np.zeros((n, RANKS), dtype=bool)
            examining = np.ones(n, dtype=bool)
            for k in range(RANKS):
                clicks[:, k] = examining & (rng.random(n) < a[:, k])
                satisfied = clicks[:, k] & (rng.random(n) < s[:, k])
                examining = examining & ~satisfied & (rng.random(n) < 0.85)
            table = pa.table(
                {
                    "session_id": np.repeat(np.arange(done, done + n, dtype=np.int64), RANKS),
                    "query_id": pa.array(np.repeat(query_names[q], RANKS)).dictionary_encode(),
                    "doc_id": pa.array(doc_names[docs.reshape(-1)]).dictionary_encode(),
                    "position": np.tile(np.arange(1, RANKS + 1, dtype=np.int8), n),
                    "clicked": clicks.reshape(-1),
                }
            )
            if writer is None:
                writer = pq.ParquetWriter(path, table.schema)
            writer.write_table(table)
            done += n
    finally:
        if writer is not None:
            writer.close()


RANKLENS = """
import sys, time
from ranklens.logs import fit_click_models
start = time.perf_counter()
fits = fit_click_models(sys.argv[1], ["PBM", "DBN"])
qrels = {name: fit.to_qrels([0.1, 0.3, 0.5]) for name, fit in fits.items()}
wall = time.perf_counter() - start
import resource
print({"wall": wall, "iterations": {n: f.iterations for n, f in fits.items()},
       "pairs": int(fits["PBM"].alpha.shape[0]), "judgments": len(qrels["DBN"]),
       "peak_rss_gib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20})
"""

PYCLICK = """
import sys, time
sys.path.insert(0, sys.argv[1])
import pyarrow.parquet as pq
from pyclick.click_models.PBM import PBM
from pyclick.click_models.DBN import DBN
from pyclick.search_session.SearchSession import SearchSession
from pyclick.search_session.SearchResult import SearchResult
sessions_wanted = int(sys.argv[3])
table = pq.read_table(sys.argv[2]).slice(0, sessions_wanted * 10).to_pydict()
start = time.perf_counter()
sessions, current = [], None
for s, q, d, c in zip(table["session_id"], table["query_id"], table["doc_id"], table["clicked"]):
    if current is None or current.id != s:
        current = SearchSession(q); current.id = s; sessions.append(current)
    current.web_results.append(SearchResult(d, int(c)))
model = PBM() if sys.argv[4] == "PBM" else DBN()
model.train(sessions)
import resource
print({"wall": time.perf_counter() - start,
       "peak_rss_gib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20})
"""


def measure(code: str, args: list[str], timeout: float | None = None) -> dict[str, object]:
    """Run ``code`` in a fresh Python; its wall time, CPU time and the peak RSS the code
    reports of its own process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    try:
        done = subprocess.run(
            [sys.executable, "-c", code, *args],
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return {"status": f"did not finish in {timeout:.0f} s"}
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        return {"status": "failed", "stderr": done.stderr[-2000:]}
    result: dict[str, object] = eval(done.stdout.strip().splitlines()[-1])  # our own print
    result.update(
        {
            "status": "ok",
            "process_wall": time.perf_counter() - start,
            "cpu": (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime),
        }
    )
    return result


def subset(source: Path, sessions: int) -> Path:
    """The first ``sessions`` sessions of the log, as a Parquet file of their own."""
    import pyarrow.parquet as pq

    path = DATA / f"logs.first{sessions}.parquet"
    if not path.exists():
        table = pq.ParquetFile(source).read_row_group(0).slice(0, sessions * RANKS)
        pq.write_table(table, path)
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--impressions", type=int, default=10_000_000)
    parser.add_argument("--pyclick", default="/tmp/pyclick")
    parser.add_argument("--pyclick-timeout", type=float, default=600.0)
    parser.add_argument("--pyclick-sizes", default="1000,10000,100000")
    parser.add_argument("--json")
    args = parser.parse_args()
    DATA.mkdir(exist_ok=True)
    path = DATA / f"logs.{args.impressions}.parquet"
    if not path.exists():
        start = time.perf_counter()
        generate(args.impressions, path)
        print(f"generated {path} in {time.perf_counter() - start:.1f} s", file=sys.stderr)
    report: dict[str, object] = {
        "machine": f"{platform.machine()}, {platform.processor() or 'cpu'}, Python "
        f"{platform.python_version()}",
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "impressions": args.impressions,
        "file_bytes": path.stat().st_size,
    }
    report["ranklens"] = measure(RANKLENS, [str(path)])
    print(json.dumps(report, indent=1), file=sys.stderr)
    comparisons = []
    for model in ("PBM", "DBN"):
        for size in [int(s) for s in args.pyclick_sizes.split(",")]:
            small = subset(path, size)
            theirs = measure(
                PYCLICK, [args.pyclick, str(small), str(size), model], args.pyclick_timeout
            )
            ours = measure(
                RANKLENS.replace('["PBM", "DBN"]', f'["{model}"]')
                .replace('qrels["DBN"]', f'qrels["{model}"]')
                .replace('fits["PBM"]', f'fits["{model}"]'),
                [str(small)],
            )
            comparisons.append(
                {"model": model, "sessions": size, "pyclick": theirs, "ranklens": ours}
            )
            print(json.dumps(comparisons[-1]), file=sys.stderr)
            if theirs["status"] != "ok":
                break
    report["pyclick"] = comparisons
    text = json.dumps(report, indent=1)
    if args.json:
        Path(args.json).write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
