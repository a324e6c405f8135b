"""Recommender evaluation at scale: Coverage@10, Gini@10, ARP@10, APLT@10 and nDCG@10 of an
N-user x top-100 run over an M-item catalogue, from Parquet, by ranklens (streamed) and by
RecBole's and Microsoft recommenders' evaluators.

Usage (from the repository root; ranklens' interpreter runs this script)::

    python benchmarks/recsys_bench.py --size small,medium     # generate if missing, then run
    python benchmarks/recsys_bench.py --size large            # 1M users x 100 = 100M rows
    python benchmarks/recsys_bench.py --size large --tools ranklens
    python benchmarks/recsys_bench.py generate --size large   # only write the data

Sizes (users x top-100 lists, catalogue)::

    tiny     1,000 users      100,000 rows   1,000 items
    small    10,000 users   1,000,000 rows   10,000 items
    medium   100,000 users  10,000,000 rows  100,000 items
    big      300,000 users  30,000,000 rows  300,000 items
    large    1,000,000 users 100,000,000 rows 1,000,000 items

The data (``benchmarks/data/recsys.SIZE.{run,qrels,popularity}.parquet``, git-ignored) is
made by a seeded numpy generator a chunk of 10,000 users at a time (so its memory does not
grow with N): item popularity is Zipf-like (exponent 1.2, training interactions Poisson
around 20 per user, so part of the catalogue has count 0); each user's 100 items are drawn
without repetition with a bias towards popular items; scores have two decimals (many
ties); the rows of a user are written together, in rank order (score descending, ties by
item id descending as text: trec_eval's order, which ranklens uses by default), one row
group per chunk. The test interactions (qrels) hold 0-5 items per user with relevance 1
(about 10% of users have none), half of them from the user's list. The popularity file
lists every catalogue item with its count.

Each tool runs in a fresh process (this script's ``_one``), under its own interpreter:
ranklens under the running one, the peers under ``--peers-python`` (default
``/work/venv-peers/bin/python`` if it exists: recommenders 1.2.1 pins ``pandas<3``, so the
peers live in a separate virtual environment; see benchmarks/README.md). The parent takes
the wall time from spawn to exit and the child's peak resident memory (``ru_maxrss`` from
``os.wait4``), kills a child that runs past ``--timeout`` or whose resident memory passes
``--max-rss-gib``, and prints one Markdown row per tool and size, then the agreement of
every peer value with ranklens' where the definitions coincide. ``--tools`` defaults to
ranklens (streamed), RecBole and recommenders; ``ranklens-memory`` (the run read whole)
is on request. RecBole's TailPercentage (a Python list lookup per listed item) runs up to
100,000 users unless ``--tail yes|no`` says otherwise. Results: benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parent / "data"
SEED = 20261124
SIZES = {  # users, catalogue items
    "tiny": (1_000, 1_000),
    "small": (10_000, 10_000),
    "medium": (100_000, 100_000),
    "big": (300_000, 300_000),
    "large": (1_000_000, 1_000_000),
}
DEPTH = 100
K = 10
CHUNK_USERS = 10_000
ZIPF = 1.2
TRAIN_PER_USER = 20
MEASURES = ["Coverage@10", "Gini@10", "ARP@10", "APLT@10", "nDCG@10"]
TOOLS = ("ranklens", "ranklens-memory", "recbole", "recommenders")
DEFAULT_TOOLS = "ranklens,recbole,recommenders"
TAIL_MAX_USERS = 100_000
PEERS_VENV_PYTHON = Path("/work/venv-peers/bin/python")
PREFIX = "@@RECSYS@@"

Result = dict[str, Any]


def paths(size: str) -> dict[str, Path]:
    """The three Parquet files of ``size``."""
    return {part: DATA / f"recsys.{size}.{part}.parquet" for part in ("run", "qrels", "popularity")}


# ---------------------------------------------------------------------------------------
# The generator
# ---------------------------------------------------------------------------------------


def _text_order_keys(ids: Any) -> tuple[Any, Any]:
    """Keys that sort non-negative integers as their decimal text does (byte order): the
    digits padded on the right to 8 places, then the length ("10" < "100" < "11")."""
    import numpy as np

    length = np.ones(ids.shape, dtype=np.int64)
    length += np.floor(np.log10(np.maximum(ids, 1))).astype(np.int64)
    padded = ids * 10 ** (8 - length)
    return padded, length


def generate(size: str) -> dict[str, Any]:
    """Write the run, qrels and popularity of ``size`` (deterministic for a given size)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    users, items = SIZES[size]
    files = paths(size)
    DATA.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    rng = np.random.default_rng([SEED, users, items])
    by_rank = rng.permutation(items)  # popularity rank r -> item id
    weights = 1.0 / np.arange(1, items + 1, dtype=np.float64) ** ZIPF
    counts_by_rank = rng.poisson(TRAIN_PER_USER * users * weights / weights.sum())
    counts = np.empty(items, dtype=np.int64)
    counts[by_rank] = counts_by_rank
    pq.write_table(
        pa.table({"item_id": np.arange(items, dtype=np.int64), "count": counts}),
        files["popularity"],
    )
    run_schema = pa.schema(
        [
            ("user_id", pa.int64()),
            ("item_id", pa.int64()),
            ("score", pa.float64()),
            ("rank", pa.int32()),
        ]
    )
    qrels_schema = pa.schema(
        [("user_id", pa.int64()), ("item_id", pa.int64()), ("relevance", pa.int32())]
    )
    steps = np.arange(DEPTH, dtype=np.int64)
    run_rows = qrels_rows = 0
    with (
        pq.ParquetWriter(files["run"], run_schema) as run_writer,
        pq.ParquetWriter(files["qrels"], qrels_schema) as qrels_writer,
    ):
        for start in range(0, users, CHUNK_USERS):
            n = min(CHUNK_USERS, users - start)
            crng = np.random.default_rng([SEED, users, items, start])
            # popularity ranks drawn towards the head, made distinct within each user
            drawn = np.floor((items - DEPTH) * crng.random((n, DEPTH)) ** 3).astype(np.int64)
            drawn.sort(axis=1)
            ranks = np.maximum.accumulate(drawn - steps, axis=1) + steps
            item_ids = by_rank[ranks]
            score = np.round(0.6 * (1.0 - ranks / items) + 0.4 * crng.random((n, DEPTH)), 2)
            padded, length = _text_order_keys(item_ids)
            order = np.lexsort((-length, -padded, -score), axis=1)
            item_ids = np.take_along_axis(item_ids, order, axis=1)
            score = np.take_along_axis(score, order, axis=1)
            user_ids = np.arange(start, start + n, dtype=np.int64)
            run_writer.write_table(
                pa.table(
                    {
                        "user_id": np.repeat(user_ids, DEPTH),
                        "item_id": item_ids.ravel(),
                        "score": score.ravel(),
                        "rank": np.tile(np.arange(1, DEPTH + 1, dtype=np.int32), n),
                    },
                    schema=run_schema,
                ),
                row_group_size=n * DEPTH,
            )
            run_rows += n * DEPTH
            # test interactions: 0-5 per user, half from the user's list
            wanted = crng.choice(6, size=n, p=[0.1, 0.3, 0.25, 0.15, 0.1, 0.1])
            positions = np.argsort(crng.random((n, DEPTH)), axis=1)[:, :5]
            in_list = np.take_along_axis(item_ids, positions, axis=1)
            above = ranks[:, -1:] + 1  # popularity ranks past the user's last: not in the list
            outside = by_rank[
                np.minimum(
                    above + np.floor(crng.random((n, 5)) * (items - above)), items - 1
                ).astype(np.int64)
            ]
            chosen = np.where(crng.random((n, 5)) < 0.5, in_list, outside)
            keep = np.arange(5) < wanted[:, None]
            pairs = np.unique(np.repeat(user_ids, 5)[keep.ravel()] * items + chosen[keep])
            qrels_writer.write_table(
                pa.table(
                    {
                        "user_id": pairs // items,
                        "item_id": pairs % items,
                        "relevance": np.ones(len(pairs), dtype=np.int32),
                    },
                    schema=qrels_schema,
                )
            )
            qrels_rows += len(pairs)
    return {
        "size": size,
        "users": users,
        "items": items,
        "run_rows": run_rows,
        "qrels_rows": qrels_rows,
        "zero_count_items": int((counts == 0).sum()),
        "seconds": time.perf_counter() - t0,
        "run_bytes": files["run"].stat().st_size,
        "maxrss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
    }


# ---------------------------------------------------------------------------------------
# The tools (each in a fresh process)
# ---------------------------------------------------------------------------------------


def _done(out: Result) -> Result:
    out["cpu_s"] = time.process_time()
    out["maxrss"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    return out


def run_ranklens(size: str, stream: bool) -> Result:
    """``Evaluator(qrels, measures, popularity=, num_items=).evaluate(run, stream=...)``:
    the Parquet run streamed in chunks of whole users (``stream=True``) or read whole."""
    t0 = time.perf_counter()
    import ranklens
    from ranklens.base.errors import MeasureError

    t1 = time.perf_counter()
    files = paths(size)
    evaluator = ranklens.Evaluator(
        files["qrels"], MEASURES, popularity=files["popularity"], num_items=SIZES[size][1]
    )
    try:
        res = evaluator.evaluate(files["run"], stream=stream)
    except MeasureError as exc:  # run-level measures not (yet) combinable over parts
        return _done({"import_s": t1 - t0, "refused": str(exc)})
    t2 = time.perf_counter()
    values = {str(k): float(v) for k, v in res.aggregate.items()}
    return _done(
        {"import_s": t1 - t0, "compute_s": t2 - t1, "values": values, "users": len(res.queries)}
    )


def _read_lists(size: str) -> tuple[Any, Any, Any, Any]:
    """The top-k item matrix of the users with test interactions (rank order, from the
    file's order: each user's 100 rows are together and ranked), their hit matrix and
    test-item counts, and the popularity counts. Read with pyarrow/numpy, as a RecBole user
    would get them from its own collector; timed as the peers' preparation."""
    import numpy as np
    import pyarrow.parquet as pq

    users, items = SIZES[size]
    files = paths(size)
    top = np.empty((users, K), dtype=np.int64)
    source = pq.ParquetFile(files["run"])
    for index in range(source.num_row_groups):  # one row group: whole users, rank order
        group = source.read_row_group(index, columns=["user_id", "item_id"])
        user_ids = group.column("user_id").to_numpy().reshape(-1, DEPTH)[:, 0]
        top[user_ids] = group.column("item_id").to_numpy().reshape(-1, DEPTH)[:, :K]
    qrels = pq.read_table(files["qrels"])
    q_users = qrels.column("user_id").to_numpy()
    q_items = qrels.column("item_id").to_numpy()
    evaluated, pos_len = np.unique(q_users, return_counts=True)
    top = top[evaluated]
    keys = np.repeat(evaluated, K) * items + top.ravel()
    hits = np.isin(keys, q_users * items + q_items).reshape(-1, K)
    counts = pq.read_table(files["popularity"]).column("count").to_numpy()
    return top, hits, pos_len, counts


def run_recbole(size: str) -> Result:
    """RecBole 1.2.1's metric classes (``recbole.evaluator.metrics``) called directly on
    the top-10 item matrix, as its ``Evaluator`` does with what its ``Collector`` gathers:
    ``rec.items``, ``rec.topk`` (hits and test-item counts), ``data.num_items``,
    ``data.count_items`` (a ``Counter`` of the training items, those with count > 0)."""
    t0 = time.perf_counter()
    from collections import Counter

    import numpy as np
    import torch

    if not hasattr(np, "float"):  # RecBole 1.2.1's NDCG uses np.float, gone in numpy 1.24
        np.float = float  # type: ignore[attr-defined]
    from recbole.evaluator.collector import DataStruct
    from recbole.evaluator.metrics import (
        NDCG,
        AveragePopularity,
        GiniIndex,
        ItemCoverage,
        TailPercentage,
    )

    t1 = time.perf_counter()
    top, hits, pos_len, counts = _read_lists(size)
    data = DataStruct()
    data.set("rec.items", torch.from_numpy(top))
    data.set(
        "rec.topk",
        torch.cat([torch.from_numpy(hits.astype(np.int64)), torch.from_numpy(pos_len)[:, None]], 1),
    )
    data.set("data.num_items", SIZES[size][1])
    nonzero = np.flatnonzero(counts)
    data.set(
        "data.count_items",
        Counter(dict(zip(nonzero.tolist(), counts[nonzero].tolist(), strict=True))),
    )
    config = {"topk": [K], "metric_decimal_place": 17, "tail_ratio": 0.1}
    t2 = time.perf_counter()
    values: dict[str, float] = {}
    seconds: dict[str, float] = {}
    deadline = float(os.environ.get("RECSYS_BENCH_METRIC_BUDGET", "inf"))
    metrics = [
        ("Coverage@10", ItemCoverage),
        ("Gini@10", GiniIndex),
        ("ARP@10", AveragePopularity),
        ("nDCG@10", NDCG),
    ]
    if os.environ.get("RECSYS_BENCH_RECBOLE_TAIL", "1") == "1":  # O(users x k x tail items)
        metrics.append(("TailPercentage@10", TailPercentage))
    for name, metric in metrics:
        if time.perf_counter() - t0 > deadline:
            break
        s0 = time.perf_counter()
        (value,) = metric(config).calculate_metric(data).values()
        seconds[name] = time.perf_counter() - s0
        values[name] = float(value)
        _progress({"values": values, "metric_s": seconds})
    t3 = time.perf_counter()
    return _done(
        {
            "import_s": t1 - t0,
            "prepare_s": t2 - t1,
            "compute_s": t3 - t1,
            "metric_s": seconds,
            "values": values,
            "users": len(top),
        }
    )


def run_recommenders(size: str) -> Result:
    """Microsoft recommenders 1.2.1, ``recommenders.evaluation.python_evaluation``:
    ``ndcg_at_k`` on the whole top-100 frame (it takes the top 10 by score itself) and
    ``catalog_coverage`` of the users' top-10 lists against a training frame (one row per
    interaction, rebuilt from the counts). It has no Gini, ARP or APLT."""
    t0 = time.perf_counter()
    import numpy as np
    import pandas as pd
    from recommenders.evaluation import python_evaluation as pe

    t1 = time.perf_counter()
    files = paths(size)
    run = pd.read_parquet(files["run"], columns=["user_id", "item_id", "score"])
    qrels = pd.read_parquet(files["qrels"])
    counts = pd.read_parquet(files["popularity"])
    train = pd.DataFrame(
        {
            "user_id": np.full(int(counts["count"].sum()), -1, dtype=np.int64),
            "item_id": np.repeat(counts["item_id"].to_numpy(), counts["count"].to_numpy()),
        }
    )
    t2 = time.perf_counter()
    values: dict[str, float] = {}
    seconds: dict[str, float] = {}
    s0 = time.perf_counter()
    values["nDCG@10"] = float(
        pe.ndcg_at_k(
            qrels,
            run,
            col_user="user_id",
            col_item="item_id",
            col_rating="relevance",
            col_prediction="score",
            k=K,
        )
    )
    seconds["nDCG@10"] = time.perf_counter() - s0
    _progress({"values": values, "metric_s": seconds})
    s0 = time.perf_counter()
    evaluated = run[run["user_id"].isin(qrels["user_id"].unique())]
    reco = evaluated.groupby("user_id", sort=False).head(K)[["user_id", "item_id"]]
    values["catalog_coverage"] = float(pe.catalog_coverage(train, reco, "user_id", "item_id"))
    seconds["catalog_coverage"] = time.perf_counter() - s0
    t3 = time.perf_counter()
    return _done(
        {
            "import_s": t1 - t0,
            "prepare_s": t2 - t1,
            "compute_s": t3 - t1,
            "metric_s": seconds,
            "values": values,
            "train_items": int((counts["count"] > 0).sum()),
        }
    )


def _progress(partial: Result) -> None:
    """What a peer has computed so far (kept by the parent if the peer is killed later)."""
    sys.stdout.write("@@PARTIAL@@" + json.dumps(partial) + "\n")
    sys.stdout.flush()


def one(tool: str, size: str) -> Result:
    """Run ``tool`` on ``size`` in this process."""
    if tool in ("ranklens", "ranklens-memory"):
        return run_ranklens(size, stream=tool == "ranklens")
    if tool == "recbole":
        return run_recbole(size)
    if tool == "recommenders":
        return run_recommenders(size)
    raise SystemExit(f"unknown tool {tool}")


# ---------------------------------------------------------------------------------------
# The parent: spawn, watch, measure, print
# ---------------------------------------------------------------------------------------


def _rss_bytes(pid: int) -> int:
    """The resident memory of ``pid`` now (``VmRSS`` of /proc), 0 if unreadable."""
    try:
        with open(f"/proc/{pid}/status") as handle:
            for line in handle:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def measure(
    tool: str, size: str, python: str, timeout: float, max_rss: float, tail: bool = True
) -> Result:
    """Run ``tool`` on ``size`` in a fresh ``python`` process: wall time from spawn to
    exit, the child's ``ru_maxrss``; killed past ``timeout`` seconds or ``max_rss`` bytes.
    ``tail=False`` leaves RecBole's TailPercentage out (quadratic: a list lookup per item)."""
    env = dict(
        os.environ,
        RECSYS_BENCH_METRIC_BUDGET=str(timeout),
        RECSYS_BENCH_RECBOLE_TAIL="1" if tail else "0",
    )
    out_path = DATA / f".recsys.{tool}.{size}.out"
    start = time.monotonic()
    with open(out_path, "w") as out, open(out_path.with_suffix(".err"), "w") as err:
        proc = subprocess.Popen(
            [python, __file__, "_one", tool, size], stdout=out, stderr=err, env=env
        )
        killed = ""
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            elapsed = time.monotonic() - start
            if elapsed > timeout:
                killed = f"killed after {timeout:.0f} s (time limit)"
            elif _rss_bytes(proc.pid) > max_rss:
                killed = f"killed at {max_rss / 2**30:.0f} GiB resident (memory limit)"
            if killed:
                os.kill(proc.pid, signal.SIGKILL)
                pid, status, usage = os.wait4(proc.pid, 0)
                break
            time.sleep(0.25)
    wall = time.monotonic() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    result: Result = {"tool": tool, "size": size}
    text = out_path.read_text()
    for line in text.splitlines():
        if line.startswith(PREFIX):
            result.update(json.loads(line[len(PREFIX) :]))
        elif line.startswith("@@PARTIAL@@") and "values" not in result:
            result["partial"] = json.loads(line[len("@@PARTIAL@@") :])
    if killed:
        result["failed"] = killed
    elif PREFIX not in text:
        last_lines = out_path.with_suffix(".err").read_text().strip().splitlines()[-3:]
        result["failed"] = f"exit {proc.returncode}: " + " | ".join(last_lines)
    result["wall_s"], result["peak"] = wall, usage.ru_maxrss * 1024
    result["cpu_total_s"] = usage.ru_utime + usage.ru_stime
    return result


def _gib(n: float) -> str:
    return f"{n / 2**30:.2f}"


def _values(r: Result) -> dict[str, float]:
    if "values" in r:
        return dict(r["values"])
    return dict(r.get("partial", {}).get("values", {}))


def agreement(reference: Result, peer: Result, items: int) -> list[str]:
    """Lines comparing ``peer``'s values with ranklens' where the definitions coincide."""
    mine = _values(reference)
    theirs = _values(peer)
    lines = []
    same = {"Coverage@10", "Gini@10", "ARP@10", "nDCG@10"}
    for name, value in theirs.items():
        if name in same and name in mine:
            lines.append(
                f"{name}: {value!r} vs ranklens {mine[name]!r}, "
                f"|diff| {abs(value - mine[name]):.2e}"
            )
        elif name == "catalog_coverage" and "Coverage@10" in mine:
            rescaled = value * peer["train_items"] / items
            lines.append(
                f"catalog_coverage: {value!r} (over the {peer['train_items']:,} items with "
                f"training interactions); x {peer['train_items']:,}/{items:,} = {rescaled!r} "
                f"vs ranklens Coverage@10 {mine['Coverage@10']!r}, "
                f"|diff| {abs(rescaled - mine['Coverage@10']):.2e}"
            )
        elif name == "TailPercentage@10" and "APLT@10" in mine:
            lines.append(
                f"TailPercentage@10 (tail: the 10% least popular training items): {value!r}; "
                f"ranklens APLT@10 (tail: all but the head holding 20% of the interactions, "
                f"zero-count items included) {mine['APLT@10']!r}: different definitions"
            )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("what", nargs="*", help="'generate', or empty to generate and run")
    parser.add_argument("--size", default="small", help=f"comma list of {', '.join(SIZES)}")
    parser.add_argument(
        "--tools",
        default=DEFAULT_TOOLS,
        help=f"comma list of {', '.join(TOOLS)} (default {DEFAULT_TOOLS}; ranklens-memory "
        "reads the run whole: 1.65 GiB at 10M rows, growing with the run)",
    )
    parser.add_argument(
        "--peers-python",
        default=str(PEERS_VENV_PYTHON) if PEERS_VENV_PYTHON.exists() else sys.executable,
        help="interpreter with recbole and recommenders (default /work/venv-peers' if any)",
    )
    parser.add_argument("--timeout", type=float, default=1200.0, help="seconds per tool run")
    parser.add_argument("--max-rss-gib", type=float, default=16.0, help="memory limit per run")
    parser.add_argument(
        "--tail",
        choices=("auto", "yes", "no"),
        default="auto",
        help="RecBole's TailPercentage (a list lookup per listed item: 15 min at 100k users, "
        "hours at 1M); auto: up to 100,000 users",
    )
    args = parser.parse_args()
    if args.what[:1] == ["_one"]:
        result = one(args.what[1], args.what[2])
        sys.stdout.write(PREFIX + json.dumps(result) + "\n")
        return
    sizes = args.size.split(",")
    for size in sizes:
        if size not in SIZES:
            raise SystemExit(f"unknown size {size!r}: one of {', '.join(SIZES)}")
        if args.what == ["generate"] or not paths(size)["run"].exists():
            g = generate(size)
            print(
                f"<!-- generated {size}: {g['run_rows']:,} run rows "
                f"({g['run_bytes'] / 2**20:.0f} MiB), {g['qrels_rows']:,} test interactions, "
                f"{g['zero_count_items']:,} of {g['items']:,} items with count 0; "
                f"{g['seconds']:.1f} s, peak RSS {_gib(g['maxrss'])} GiB -->",
                flush=True,
            )
    if args.what == ["generate"]:
        return
    tools = args.tools.split(",")
    print(
        "| size | rows | tool | measures | wall (s) | CPU (s) | compute (s) | peak RSS (GiB) | "
        "x ranklens (wall) | status |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    notes: list[str] = []
    for size in sizes:
        users, items = SIZES[size]
        reference: Result | None = None
        for tool in tools:
            python = sys.executable if tool.startswith("ranklens") else args.peers_python
            limit = args.max_rss_gib * 2**30
            tail = args.tail == "yes" or (args.tail == "auto" and users <= TAIL_MAX_USERS)
            r = measure(tool, size, python, args.timeout, limit, tail)
            if tool.startswith("ranklens") and reference is None and "values" in r:
                reference = r
            status = r.get("failed") or r.get("refused") or "ok"
            done = ", ".join(_values(r)) or "-"
            ratio = (
                f"{r['wall_s'] / reference['wall_s']:.1f}"
                if reference is not None and "failed" not in r and "values" in r
                else "-"
            )
            compute = f"{r['compute_s']:.1f}" if "compute_s" in r else "-"
            print(
                f"| {size} | {users * DEPTH:,} | {tool} | {done} | {r['wall_s']:.1f} | "
                f"{r['cpu_total_s']:.1f} | "
                f"{compute} | {_gib(r['peak'])} | {ratio} | {status[:160]} |",
                flush=True,
            )
            if r.get("metric_s") or r.get("partial", {}).get("metric_s"):
                seconds = r.get("metric_s") or r["partial"]["metric_s"]
                per = ", ".join(f"{k} {v:.1f} s" for k, v in seconds.items())
                notes.append(f"{size} {tool}: per measure {per}")
            if reference is not None and not tool.startswith("ranklens"):
                notes.extend(f"{size} {tool}: {line}" for line in agreement(reference, r, items))
            elif tool.startswith("ranklens") and "values" in r:
                notes.append(f"{size} {tool}: {json.dumps(r['values'])}")
    print()
    for line in notes:
        print(f"- {line}")


if __name__ == "__main__":
    main()
