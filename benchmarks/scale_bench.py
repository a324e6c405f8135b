"""Scale-out figures: streaming vs in memory on one machine, and one machine vs Dask
LocalCluster vs Spark local on Parquet.

Usage (from the repository root, in an environment with ``ranklens[dask,spark]``)::

    python benchmarks/generate.py --scale large,huge --shape msmarco   # 7M and 70M lines
    python benchmarks/scale_bench.py stream --scale large,huge
    python benchmarks/scale_bench.py parquet --scale large,huge  # Parquet: in memory vs streamed
    python benchmarks/scale_bench.py replicate --scale huge --times 10  # 700M lines, piped
    python benchmarks/scale_bench.py engines --scale large [--engines single,dask,dask4,spark]
    python benchmarks/scale_bench.py engines --scale large --engines single,spark,spark-cluster
    python benchmarks/scale_bench.py engines --scale large --engines single,spark,spark-frame
    python benchmarks/scale_bench.py engines --scale large --engines single,dask,dask-frame

``spark`` gives ``ranklens.spark.evaluate`` the Parquet paths, as ``dask`` gets them (the
Spark tasks read the row groups themselves); ``spark-frame`` gives it
``spark.read.parquet`` DataFrames (a bare scan of local files, which the tasks read as
they read a path); ``spark-rows`` the run as a projection of that scan (Spark reads the
rows and hands them over as Arrow batches; evaluated where they lie, no exchange).

Every measurement runs in a fresh process (``_one``), which prints one JSON line: wall
time from before reading the inputs to the means, the means, and the peak resident memory
(``ru_maxrss``) of the process; a sampler thread also reads the resident memory of every
descendant process (Dask workers, Spark's JVM and Python workers) every 0.2 s and reports
the largest one seen ("peak per worker"; sampled, so a short spike can be missed). Each
engine's means are checked ``==`` against the single-machine evaluation. Dask's and
Spark's start-up (``startup_s``: the cluster, or Spark's JVM and session and a first small
Python job that starts its Python workers) is timed apart from the evaluation (``time_s``).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parent / "data"
MEASURES = ["AP", "nDCG@10", "P@10", "R@100", "R@1000", "RR@10"]


def _paths(scale: str, shape: str = "msmarco") -> tuple[Path, Path]:
    return DATA / f"qrels.{shape}.{scale}.txt", DATA / f"run.{shape}.{scale}.txt"


def _parquet(scale: str) -> tuple[Path, Path]:
    """The qrels and run as Parquet (made once from the TREC files)."""
    qrels_txt, run_txt = _paths(scale)
    qrels_pq, run_pq = qrels_txt.with_suffix(".parquet"), run_txt.with_suffix(".parquet")
    if not run_pq.exists():
        import ranklens

        ranklens.Qrels.from_file(qrels_txt).to_pandas().to_parquet(qrels_pq, index=False)
        _run_to_parquet(run_txt, run_pq)
    return qrels_pq, run_pq


def _run_to_parquet(run_txt: Path, run_pq: Path) -> None:
    """The run's query id, document id and score as Parquet, 1M rows a row group, read and
    written a block at a time (pyarrow's streaming CSV reader), so 70M lines fit too."""
    import pyarrow as pa
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    names = ["query_id", "q0", "doc_id", "rank", "score", "tag"]
    types = {"query_id": pa.large_string(), "doc_id": pa.large_string(), "score": pa.float64()}
    reader = pacsv.open_csv(
        run_txt,
        read_options=pacsv.ReadOptions(column_names=names, block_size=64 << 20),
        parse_options=pacsv.ParseOptions(delimiter=" "),
        convert_options=pacsv.ConvertOptions(
            column_types=types, include_columns=["query_id", "doc_id", "score"]
        ),
    )
    with pq.ParquetWriter(run_pq, reader.schema) as writer:
        for batch in reader:
            writer.write_table(pa.Table.from_batches([batch]), row_group_size=1_000_000)


class _Sampler:
    """The largest resident memory of any descendant process, sampled."""

    def __init__(self) -> None:
        self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        import psutil

        me = psutil.Process()
        while not self._stop.is_set():
            try:
                for child in me.children(recursive=True):
                    with contextlib.suppress(psutil.Error):
                        self.peak = max(self.peak, child.memory_info().rss)
            except psutil.Error:
                pass
            time.sleep(0.2)

    def stop(self) -> int:
        self._stop.set()
        self._thread.join()
        return self.peak


def _one(mode: str, scale: str) -> dict[str, Any]:
    import ranklens

    out: dict[str, Any] = {"mode": mode, "scale": scale}
    sampler = _Sampler()
    if mode in ("memory", "stream"):
        qrels, run = _paths(scale)
        t0 = time.perf_counter()
        res = ranklens.Evaluator(qrels, MEASURES).evaluate(run, stream=mode == "stream")
    elif mode == "single":  # Arrow tables: their buffers go to the native core as they are
        import pyarrow.parquet as pq

        qrels, run = _parquet(scale)
        t0 = time.perf_counter()
        res = ranklens.evaluate(pq.read_table(qrels), pq.read_table(run), MEASURES)
    elif mode in ("parquet-memory", "parquet-stream"):  # a Parquet file, by the file readers
        qrels, run = _parquet(scale)
        t0 = time.perf_counter()
        stream = mode == "parquet-stream"
        res = ranklens.Evaluator(qrels, MEASURES).evaluate(run, stream=stream)
    elif mode in ("dask", "dask4", "dask-frame"):
        # dask4: four 1-thread workers, 3 GiB each ("nodes"); dask-frame: the run as
        # dd.read_parquet's DataFrame (evaluated where its partitions lie), not a path
        import distributed

        import ranklens.dask

        qrels, run = _parquet(scale)
        s0 = time.perf_counter()
        cluster = distributed.LocalCluster(  # type: ignore[no-untyped-call]
            n_workers=4 if mode == "dask4" else 2,
            threads_per_worker=1,
            processes=True,
            memory_limit="3GiB" if mode == "dask4" else "auto",
            dashboard_address="127.0.0.1:0",
        )
        client = distributed.Client(cluster)  # type: ignore[no-untyped-call]
        out["startup_s"] = time.perf_counter() - s0
        t0 = time.perf_counter()
        with distributed.get_task_stream(client) as stream:  # type: ignore[no-untyped-call]
            if mode == "dask-frame":
                import dask.dataframe as dd

                frame = dd.read_parquet(str(run), dtype_backend="pyarrow", split_row_groups=True)
                res = ranklens.dask.evaluate(str(qrels), frame, MEASURES)
            else:
                res = ranklens.dask.evaluate(str(qrels), str(run), MEASURES)
        out["task_s"] = _task_seconds(stream.data)
        rss = client.run(lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024)
        out["worker_maxrss"] = max(rss.values())
        client.close()  # type: ignore[no-untyped-call]
        cluster.close()
    elif mode.startswith("spark"):
        # spark / spark-cluster: the Parquet paths, as Dask gets them (the tasks read the
        # row groups); -frame: spark.read.parquet DataFrames (a bare scan of local files:
        # read by the tasks too); -rows: the run projected (renamed columns), so Spark
        # reads the rows and hands them over as Arrow, evaluated where they lie, no
        # exchange. -cluster: two 1-core executors ("nodes").
        from pyspark.sql import SparkSession

        import ranklens.spark

        qrels, run = _parquet(scale)
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
        s0 = time.perf_counter()
        on_cluster = mode.startswith("spark-cluster")
        builder = SparkSession.builder.master(
            "local-cluster[2,1,4096]" if on_cluster else "local[2]"
        )
        if on_cluster:
            builder = builder.config("spark.executor.memory", "3g")
        spark = (
            builder.config("spark.driver.memory", "2g" if on_cluster else "8g")
            .config("spark.sql.shuffle.partitions", "8")
            .config("spark.ui.enabled", "false")
            .config("spark.ui.showConsoleProgress", "false")
            .getOrCreate()
        )
        spark.sparkContext.setLogLevel("ERROR")
        _spark_warm_up(spark, qrels)
        out["startup_s"] = time.perf_counter() - s0
        t0 = time.perf_counter()
        if mode.endswith("-frame"):
            res = ranklens.spark.evaluate(
                spark.read.parquet(str(qrels)), spark.read.parquet(str(run)), MEASURES
            )
        elif mode.endswith("-rows"):
            from pyspark.sql import functions as fn

            rows = spark.read.parquet(str(run)).select(
                fn.col("query_id").alias("qid"),
                fn.col("doc_id").alias("docno"),
                fn.col("score").alias("sim"),
            )
            res = ranklens.spark.evaluate(spark.read.parquet(str(qrels)), rows, MEASURES)
        else:
            res = ranklens.spark.evaluate(str(qrels), str(run), MEASURES, spark=spark)
        out["time_s"] = time.perf_counter() - t0
        spark.stop()
    else:
        raise SystemExit(f"unknown mode {mode}")
    out.setdefault("time_s", time.perf_counter() - t0)  # Spark's: before spark.stop()
    out["means"] = res.aggregate
    out["queries"] = len(res.queries)
    out["maxrss"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    out["descendant_peak_rss"] = sampler.stop()
    return out


def _spark_warm_up(spark: Any, qrels: Path) -> None:
    """Start-up, timed apart from the evaluation: the JVM and the session (above), then one
    small ``mapInArrow`` job per core that starts the Python workers and imports ranklens
    in them (as the evaluation's first tasks would), and the qrels file read by Spark and
    handed to a Python worker as Arrow (the JVM's Parquet reader and Arrow writer loaded,
    as in any session that has read a table before)."""
    import pyarrow as pa

    def imported(batches: Any) -> Any:
        import ranklens.scale.spark_backend  # noqa: F401

        for batch in batches:
            yield pa.RecordBatch.from_pydict({"n": [batch.num_rows]})

    cores = spark.sparkContext.defaultParallelism
    spark.range(0, cores, numPartitions=cores).mapInArrow(imported, "n long").collect()
    spark.read.parquet(str(qrels)).mapInArrow(imported, "n long").collect()


def _task_seconds(tasks: list[dict[str, Any]]) -> dict[str, float]:
    """Seconds of worker time per kind of Dask task (the key's name up to its token:
    ``read_parquet``, ``ranklens-split``, ``ranklens-evaluate`` ...), summed over the
    workers: where the time goes."""
    import re

    total: dict[str, float] = {}
    for task in tasks:
        name = str(task["key"][0] if isinstance(task["key"], tuple) else task["key"])
        kind = re.sub(r"-[0-9a-f]{8,}.*$", "", name.strip("('"))
        spent = sum(s["stop"] - s["start"] for s in task.get("startstops", ()))
        total[kind] = round(total.get(kind, 0.0) + spent, 2)
    return total


GENERATOR = r"""
import sys
path, letters = sys.argv[1], sys.argv[2].encode()
out = sys.stdout.buffer
for letter in letters:
    prefix = bytes([letter])
    with open(path, "rb") as handle:
        tail = b""
        while True:
            block = handle.read(64 << 20)
            if not block:
                break
            block = tail + block
            end = block.rfind(b"\n") + 1
            body, tail = block[:end], block[end:]
            if body:
                out.write(prefix + body[:-1].replace(b"\n", b"\n" + prefix) + b"\n")
"""
"""Writes the run ``len(letters)`` times to stdout, each line's query id prefixed with one
letter per copy (one ``bytes.replace`` per 64 MiB block: about 1 s of CPU per GB)."""


def _replicated(scale: str, times: int) -> dict[str, Any]:
    """Stream ``times`` copies of a run (query ids prefixed ``a``, ``b``, ... so that every
    copy adds new queries) from a pipe, generated on the fly by a child process: nothing
    is written to disk. ``x1`` is the same pipeline with one copy (the linear baseline)."""
    import tempfile

    import ranklens
    from ranklens.scale.streaming import evaluate_stream

    qrels_txt, run_txt = _paths(scale)
    letters = "abcdefghijklmnopqrstuvwxyz"[:times]
    text = qrels_txt.read_text()
    with tempfile.NamedTemporaryFile("w", suffix=".qrels", delete=False) as handle:
        for letter in letters:
            handle.write("".join(letter + line + "\n" for line in text.splitlines()))
    ev = ranklens.Evaluator(handle.name, MEASURES)
    os.unlink(handle.name)
    command = [sys.executable, "-c", GENERATOR, str(run_txt), letters]
    t0 = time.perf_counter()
    with subprocess.Popen(command, stdout=subprocess.PIPE) as proc:
        assert proc.stdout is not None
        res = evaluate_stream(ev, proc.stdout)
    elapsed = time.perf_counter() - t0
    own = resource.getrusage(resource.RUSAGE_SELF)
    child = resource.getrusage(resource.RUSAGE_CHILDREN)
    return {
        "mode": f"stream x{times} (pipe)",
        "scale": scale,
        "time_s": elapsed,
        "cpu_s": own.ru_utime + own.ru_stime,
        "generator_cpu_s": child.ru_utime + child.ru_stime,
        "lines": _count_lines(run_txt) * times,
        "means": res.aggregate,
        "queries": len(res.queries),
        "maxrss": own.ru_maxrss * 1024,
    }


def _count_lines(path: Path) -> int:
    count = 0
    with open(path, "rb") as handle:
        while block := handle.read(64 << 20):
            count += block.count(b"\n")
    return count


def _measure(mode: str, scale: str) -> dict[str, Any]:
    proc = subprocess.run(
        [sys.executable, __file__, "_one", mode, scale], capture_output=True, text=True
    )
    for line in proc.stdout.splitlines():
        if line.startswith("@@"):
            return dict(json.loads(line[2:]))
    raise SystemExit(f"{mode} {scale} failed:\n{proc.stderr[-3000:]}")


def _gib(n: float) -> str:
    return f"{n / 2**30:.2f} GiB"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("what", choices=("stream", "parquet", "replicate", "engines", "_one"))
    parser.add_argument("rest", nargs="*")
    parser.add_argument("--scale", default="large")
    parser.add_argument("--engines", default="single,dask,spark")
    parser.add_argument("--times", type=int, default=3, help="copies for 'replicate'")
    args = parser.parse_args()
    if args.what == "_one":
        if args.rest[0].startswith("x"):
            result = _replicated(args.rest[1], int(args.rest[0][1:]))
        else:
            result = _one(args.rest[0], args.rest[1])
        print("@@" + json.dumps(result), flush=True)
        return
    modes = {
        "stream": ["memory", "stream"],
        "parquet": ["single", "parquet-memory", "parquet-stream"],
        "replicate": ["x1", f"x{args.times}"],
        "engines": args.engines.split(","),
    }[args.what]
    if args.what == "replicate":
        _print_replicated(args.scale, args.times)
        return
    header = "| lines | mode | time (s) | start-up (s) | peak RSS (driver) | peak RSS per worker |"
    print(header + " means == |")
    print("|---|---|---|---|---|---|---|")
    for scale in args.scale.split(","):
        reference = None
        for mode in modes:
            r = _measure(mode, scale)
            if reference is None:
                reference = r["means"]
            worker = r.get("worker_maxrss") or r.get("descendant_peak_rss") or 0
            if r.get("task_s"):
                print(f"<!-- {mode} worker seconds by task: {r['task_s']} -->", flush=True)
            print(
                f"| {scale} | {mode} | {r['time_s']:.1f} | {r.get('startup_s', 0):.1f} | "
                f"{_gib(r['maxrss'])} | {_gib(worker) if worker else '-'} | "
                f"{'yes' if r['means'] == reference else 'NO'} |",
                flush=True,
            )


def _print_replicated(scale: str, times: int) -> None:
    """One copy, then ``times`` copies, through the same generator pipe: the ratio of the
    times to ``times`` x the one-copy time is the linearity figure."""
    print(
        "| lines | copies | time (s) | ranklens CPU (s) | generator CPU (s) | peak RSS | "
        "x (one copy x copies) | means as one copy |"
    )
    print("|---|---|---|---|---|---|---|---|")
    base = _measure("x1", scale)
    for r in (base, _measure(f"x{times}", scale)):
        copies = r["lines"] // base["lines"]
        same = all(
            abs(r["means"][k] - v) <= 1e-12 * max(1.0, abs(v)) for k, v in base["means"].items()
        )
        print(
            f"| {r['lines']:,} | {copies} | {r['time_s']:.1f} | {r['cpu_s']:.1f} | "
            f"{r['generator_cpu_s']:.1f} | {_gib(r['maxrss'])} | "
            f"{r['time_s'] / (copies * base['time_s']):.2f} | {'yes' if same else 'NO'} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
