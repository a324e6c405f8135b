"""In-memory inputs side by side: dict-of-dicts, pandas, polars and pyarrow against the file
path, and the peers that take the same objects (pytrec_eval and ranx take dicts,
ir_measures takes DataFrames).

Every figure is end to end from the object to the means (conversion included), the best of
``--repeat`` calls after one warm-up call (what a validation loop or a sweep pays per
call), each input in a process of its own that holds only it, as a user's would (the
peers in one process holding the dict and a DataFrame). ``--memory`` adds the one-shot
figures: per input (and for pytrec_eval and ranx on the dict), in a fresh process, the
first call's time (qrels read too) and the memory it takes on top of the input itself
(peak RSS during the call minus RSS before it), the median of ``--repeat`` processes.
Values are checked against the file path.

Usage::

    python benchmarks/inmemory_bench.py [--scale medium|large] [--shape msmarco|dl]
        [--repeat 3] [--memory] [--markdown]

The data comes from benchmarks/generate.py (generated when missing). Peers that are not
installed are reported as such (``benchmarks/setup_env.py`` or ``pip install
pytrec-eval-terrier ranx ir-measures`` installs them).
"""

from __future__ import annotations

import argparse
import functools
import gc
import json
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
MEASURES = ["nDCG@10", "AP", "P@10", "RR@10"]
PYTREC = {"ndcg_cut.10", "map", "P.10", "recip_rank"}


def _data(scale: str, shape: str) -> tuple[Path, Path]:
    qrels = HERE / "data" / f"qrels.{shape}.{scale}.txt"
    run = HERE / "data" / f"run.{shape}.{scale}.txt"
    if not (qrels.exists() and run.exists()):
        subprocess.run(
            [sys.executable, str(HERE / "generate.py"), "--scale", scale, "--shape", shape],
            check=True,
        )
    return qrels, run


def _best(fn: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    out = fn()  # warm-up (imports, caches)
    times = []
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return min(times), out


def _inputs(
    qrels_path: Path, run_path: Path, only: str | tuple[str, ...] | None = None
) -> dict[str, Any]:
    """Every in-memory form of the run (and the qrels as a dict), built once; with
    ``only``, just that one or those (what one measurement needs)."""
    import pandas as pd
    import polars as pl
    import pyarrow as pa
    import pyarrow.csv as pcsv

    names = ["query_id", "q0", "doc_id", "rank", "score", "tag"]
    types = {"query_id": pa.string(), "doc_id": pa.string()}
    table = pcsv.read_csv(
        run_path,
        read_options=pcsv.ReadOptions(column_names=names),
        parse_options=pcsv.ParseOptions(delimiter=" "),
        convert_options=pcsv.ConvertOptions(column_types=types),
    ).select(["query_id", "doc_id", "score"])

    @functools.cache
    def dicts() -> tuple[dict[str, Any], dict[str, Any]]:  # built only when asked for
        return _dict_inputs(table, qrels_path)

    @functools.cache
    def frame() -> Any:  # a str object per row, as a frame built from Python lists has
        return pd.DataFrame({c: table.column(c).to_pylist() for c in table.column_names})

    builders: dict[str, Callable[[], Any]] = {
        "qrels_dict": lambda: dicts()[1],
        "dict": lambda: dicts()[0],
        "pandas (object str)": lambda: frame().astype({"query_id": object, "doc_id": object}),
        "pandas (string[pyarrow])": lambda: frame().astype(
            {"query_id": "string[pyarrow]", "doc_id": "string[pyarrow]"}
        ),
        "pandas (categorical qid)": lambda: frame().astype(
            {"query_id": "category", "doc_id": "string[pyarrow]"}
        ),
        "pandas (int ids)": lambda: frame().astype({"query_id": "int64", "doc_id": "int64"}),
        "polars (str)": lambda: pl.from_arrow(table),
        "polars (categorical qid)": lambda: pl.from_arrow(table).with_columns(
            pl.col("query_id").cast(pl.Categorical)
        ),
        "pyarrow Table": lambda: table,
        "pyarrow (dictionary qid)": lambda: pa.table(
            {
                "query_id": table.column("query_id").dictionary_encode(),
                "doc_id": table.column("doc_id"),
                "score": table.column("score"),
            }
        ),
    }
    if only is not None:
        wanted = (only,) if isinstance(only, str) else only
        return {name: builders[name]() for name in wanted}
    return {name: build() for name, build in builders.items()}


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _status_mb(field: str) -> float | None:
    """``VmRSS`` or ``VmHWM`` (peak) of this process from /proc (Linux), in MB."""
    try:
        with open("/proc/self/status") as handle:
            for line in handle:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def _reset_peak() -> bool:
    """Reset this process's peak RSS to its current RSS (Linux 4.0+: clear_refs 5)."""
    try:
        with open("/proc/self/clear_refs", "w") as handle:
            handle.write("5")
        return True
    except OSError:
        return False


def _parquet(run_path: Path) -> Path:
    """The run as a Parquet file (query_id, doc_id as strings; score), written once."""
    import pyarrow.parquet as pq

    target = run_path.with_suffix(".parquet")
    if not target.exists():
        qrels_path = run_path.with_name(run_path.name.replace("run.", "qrels."))
        pq.write_table(_inputs(qrels_path, run_path, "pyarrow Table")["pyarrow Table"], target)
    return target


def _dict_inputs(table: Any, qrels_path: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """The run (an Arrow table) and the qrels file as dicts of dicts."""
    run: dict[str, dict[str, float]] = {}
    columns = (table.column(c).to_pylist() for c in ("query_id", "doc_id", "score"))
    for q, d, s in zip(*columns, strict=True):
        run.setdefault(q, {})[d] = s
    qrels: dict[str, dict[str, int]] = {}
    for line in qrels_path.read_text().splitlines():
        q, _, d, r = line.split()
        qrels.setdefault(q, {})[d] = int(r)
    return run, qrels


def memory_child(scale: str, shape: str, kind: str) -> None:
    """In a fresh process: load one input (from Parquet, so that building it leaves no
    garbage behind), then time the first evaluation (one-shot: qrels read too, as a path,
    or as a dict for the dict inputs) and report the peak RSS before and after it, in MB."""
    import pandas as pd
    import polars as pl
    import pyarrow as pa
    import pyarrow.parquet as pq

    import ranklens

    qrels_path, run_path = _data(scale, shape)
    obj: Any = str(run_path)
    qrels: Any = str(qrels_path)
    if kind != "file (TREC text)":
        table = pq.read_table(_parquet(run_path))
        arrow_strings = {pa.string(): pd.StringDtype("pyarrow")}.get
        if kind.startswith("dict"):
            obj, qrels = _dict_inputs(table, qrels_path)
        else:
            obj = {
                "pyarrow Table": lambda: table,
                "polars (str)": lambda: pl.from_arrow(table),
                "pandas (string[pyarrow])": lambda: table.to_pandas(types_mapper=arrow_strings),
                "pandas (object str)": lambda: table.to_pandas().astype(
                    {"query_id": object, "doc_id": object}
                ),
                "pandas (int ids)": lambda: table.to_pandas().astype(
                    {"query_id": "int64", "doc_id": "int64"}
                ),
            }[kind]()
        del table
    call: Callable[[], Any] = lambda: ranklens.evaluate(qrels, obj, MEASURES)  # noqa: E731
    if kind == "dict: pytrec_eval":
        import pytrec_eval

        call = lambda: pytrec_eval.RelevanceEvaluator(qrels, PYTREC).evaluate(obj)  # noqa: E731
    elif kind == "dict: ranx":
        import ranx

        names = ["ndcg@10", "map", "precision@10", "mrr@10"]
        call = lambda: ranx.evaluate(ranx.Qrels(qrels), ranx.Run(obj), names)  # noqa: E731
    gc.collect()
    # the peak of loading the input is not the evaluation's: start the peak afresh where
    # Linux allows it (else the process's peak so far stands in, and can hide the call's)
    reset = _reset_peak()
    before = (_status_mb("VmRSS") or 0.0) if reset else _peak_mb()
    usage = resource.getrusage(resource.RUSAGE_SELF)
    start = time.perf_counter()
    call()
    seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_SELF)
    peak = (_status_mb("VmHWM") or 0.0) if reset else _peak_mb()
    sample = {"before": before, "peak": peak, "seconds": seconds}
    sample["user"] = after.ru_utime - usage.ru_utime
    sample["sys"] = after.ru_stime - usage.ru_stime
    sample["faults"] = after.ru_minflt - usage.ru_minflt
    print(json.dumps(sample))


def measure_memory(
    scale: str, shape: str, kinds: list[str], repeat: int
) -> dict[str, dict[str, float]]:
    """Per input kind, the median over ``repeat`` fresh processes (the kinds interleaved
    round by round) of the first call's seconds and of its peak RSS over the RSS before
    the call (MB). A kind whose tool is not installed is left out."""
    samples: dict[str, list[dict[str, float]]] = {kind: [] for kind in kinds}
    for _ in range(repeat):
        for kind in kinds:
            command = [sys.executable, __file__, "--memory-child", kind]
            command += ["--scale", scale, "--shape", shape]
            done = subprocess.run(command, capture_output=True, text=True, check=False)
            if done.returncode != 0:
                reason = done.stderr.strip().splitlines()[-1:]
                print(f"{kind}: skipped ({reason})", file=sys.stderr)
                continue
            sample = json.loads(done.stdout.strip().splitlines()[-1])
            sample["mb"] = sample["peak"] - sample["before"]
            samples[kind].append(sample)
    fields = ("seconds", "mb", "user", "sys", "faults")
    return {
        kind: {field: statistics.median(s[field] for s in got) for field in fields}
        for kind, got in samples.items()
        if got
    }


RANKLENS_KINDS = [
    "file (TREC text)",
    "dict",
    "pandas (object str)",
    "pandas (string[pyarrow])",
    "pandas (categorical qid)",
    "pandas (int ids)",
    "polars (str)",
    "polars (categorical qid)",
    "pyarrow Table",
    "pyarrow (dictionary qid)",
    "dict, qrels dict too (evaluate)",
]


def repeated_child(scale: str, shape: str, kind: str, repeat: int) -> None:
    """In a process holding only this input (as a user's process would): the best of
    ``repeat`` calls after a warm-up, and whether the means equal the file path's."""
    import ranklens

    qrels_path, run_path = _data(scale, shape)
    ev = ranklens.Evaluator(str(qrels_path), MEASURES)
    reference = ev.evaluate(str(run_path)).aggregate
    if kind == "file (TREC text)":
        seconds, res = _best(lambda: ev.evaluate(str(run_path)), repeat)
    elif kind == "dict, qrels dict too (evaluate)":
        inputs = _inputs(qrels_path, run_path, only=("dict", "qrels_dict"))
        run, qrels_dict = inputs["dict"], inputs["qrels_dict"]
        seconds, res = _best(lambda: ranklens.evaluate(qrels_dict, run, MEASURES), repeat)
    else:
        obj = _inputs(qrels_path, run_path, only=kind)[kind]
        seconds, res = _best(lambda: ev.evaluate(obj), repeat)
    print(json.dumps({"seconds": seconds, "agree": res.aggregate == reference}))


def measure(scale: str, shape: str, repeat: int) -> dict[str, Any]:
    rows: dict[str, dict[str, Any]] = {}
    for kind in RANKLENS_KINDS:
        command = [sys.executable, __file__, "--repeated-child", kind, "--scale", scale]
        command += ["--shape", shape, "--repeat", str(repeat)]
        done = subprocess.run(command, capture_output=True, text=True, check=True)
        sample = json.loads(done.stdout.strip().splitlines()[-1])
        rows[kind] = {"tool": "ranklens", **sample}
    file_time = rows["file (TREC text)"]["seconds"]
    rows["file (TREC text)"].pop("agree")
    import ranklens

    qrels_path, run_path = _data(scale, shape)
    inputs = _inputs(qrels_path, run_path, only=("qrels_dict", "dict", "pandas (object str)"))
    qrels_dict = inputs.pop("qrels_dict")
    start = time.perf_counter()
    for docs in inputs["dict"].values():
        for _ in docs.items():
            pass
    rows["(Python iterating the dict's items)"] = {
        "tool": "python",
        "seconds": time.perf_counter() - start,
    }
    try:
        import pytrec_eval

        def pytrec() -> Any:
            return pytrec_eval.RelevanceEvaluator(qrels_dict, PYTREC).evaluate(inputs["dict"])

        rows["dict: pytrec_eval"] = {"tool": "pytrec_eval", "seconds": _best(pytrec, repeat)[0]}
    except ImportError:
        rows["dict: pytrec_eval"] = {"tool": "pytrec_eval", "seconds": None}
    try:
        import ranx

        def with_ranx() -> Any:
            return ranx.evaluate(
                ranx.Qrels(qrels_dict),
                ranx.Run(inputs["dict"]),
                ["ndcg@10", "map", "precision@10", "mrr@10"],
            )

        rows["dict: ranx"] = {"tool": "ranx", "seconds": _best(with_ranx, repeat)[0]}
    except ImportError:
        rows["dict: ranx"] = {"tool": "ranx", "seconds": None}
    try:
        import ir_measures
        import pandas as pd

        qrels_frame = pd.DataFrame(
            [(q, d, r) for q, docs in qrels_dict.items() for d, r in docs.items()],
            columns=["query_id", "doc_id", "relevance"],
        )
        measures = [ir_measures.parse_measure(m) for m in ("nDCG@10", "AP", "P@10", "RR@10")]

        def with_irm() -> Any:
            return ir_measures.calc_aggregate(measures, qrels_frame, inputs["pandas (object str)"])

        rows["pandas: ir_measures"] = {"tool": "ir_measures", "seconds": _best(with_irm, 1)[0]}
    except ImportError:
        rows["pandas: ir_measures"] = {"tool": "ir_measures", "seconds": None}
    small = {q: dict(list(d.items())[:100]) for q, d in list(inputs["dict"].items())[:1000]}
    small_ev = ranklens.Evaluator({q: qrels_dict.get(q, {}) for q in small}, MEASURES)
    per_run, _ = _best(lambda: small_ev.evaluate(small), max(repeat, 10))
    rows["repeated: Evaluator.evaluate, 1,000 x 100 dict"] = {
        "tool": "ranklens",
        "seconds": per_run,
    }
    return {"scale": scale, "shape": shape, "file_seconds": file_time, "rows": rows}


def report(result: dict[str, Any], markdown: bool) -> str:
    base = result["file_seconds"]
    lines = [
        f"{result['shape']}.{result['scale']}: file path {base:.3f} s (best of runs)",
        "| input | tool | seconds | x file path | values agree |",
        "|---|---|---|---|---|",
    ]
    for name, row in result["rows"].items():
        seconds = row["seconds"]
        text = "not installed" if seconds is None else f"{seconds:.3f}"
        ratio = "" if seconds is None else f"{seconds / base:.2f}"
        agree = {True: "yes", False: "NO"}.get(row.get("agree"), "")
        lines.append(f"| {name} | {row['tool']} | {text} | {ratio} | {agree} |")
    text = "\n".join(lines)
    return text if markdown else text.replace("|", " ")


def report_fresh(fresh: dict[str, dict[str, float]]) -> str:
    """The one-shot table: the first call in a fresh process, and its memory."""
    base = fresh.get("file (TREC text)", {"seconds": float("nan"), "mb": float("nan")})
    lines = [
        "\nfirst call in a fresh process (one-shot, qrels read too; median of processes):",
        "| input | seconds | x file path | user CPU s | system CPU s | page faults "
        "| memory of the call (MB) | x file path |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for kind, row in fresh.items():
        lines.append(
            f"| {kind} | {row['seconds']:.3f} | {row['seconds'] / base['seconds']:.2f} "
            f"| {row['user']:.3f} | {row['sys']:.3f} | {row['faults']:,.0f} "
            f"| {row['mb']:.0f} | {row['mb'] / base['mb']:.2f} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", default="large")
    parser.add_argument("--shape", default="msmarco")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--memory", action="store_true")
    parser.add_argument("--memory-child", help=argparse.SUPPRESS)
    parser.add_argument("--repeated-child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.memory_child:
        memory_child(args.scale, args.shape, args.memory_child)
        return
    if args.repeated_child:
        repeated_child(args.scale, args.shape, args.repeated_child, args.repeat)
        return
    result = measure(args.scale, args.shape, args.repeat)
    if args.memory:
        kinds = [
            "file (TREC text)",
            "dict",
            "pandas (string[pyarrow])",
            "pandas (object str)",
            "pandas (int ids)",
            "polars (str)",
            "pyarrow Table",
            "dict: pytrec_eval",
            "dict: ranx",
        ]
        result["fresh"] = measure_memory(args.scale, args.shape, kinds, args.repeat)
    result["peak_mb"] = _peak_mb()
    print(report(result, args.markdown))
    if "fresh" in result:
        print(report_fresh(result["fresh"]))
    print(f"peak RSS of this process: {result['peak_mb']:.0f} MB", file=sys.stderr)
    if args.json:
        args.json.write_text(json.dumps(result, indent=1, default=str))


if __name__ == "__main__":
    main()
