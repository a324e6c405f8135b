"""The parsing floor: how fast can a TREC run file be turned into columns at all?

Each reader runs in a fresh subprocess (``--python``, default the benchmark venv) and
turns ``run.{shape}.{scale}.txt`` into three columns: qid (string), docid (string) and
score (float64); rank, ``Q0`` and the tag are skipped where the reader allows it.

Readers (skipped when their package is missing):

``polars``         ``polars.read_csv(separator=" ")``, ids as String (multi-threaded)
``polars-int``     the same with ids parsed as Int64 (only valid for integer ids)
``pyarrow``        ``pyarrow.csv.read_csv`` with a space delimiter, ids as string
``pandas``         ``pandas.read_csv(sep=" ", engine="c")``, ids as str
``numpy``          a numpy byte tokenizer: ``np.fromfile`` + separator positions +
                   fixed-width ``S`` columns; plain decimal scores by digit arithmetic
                   (other formats via ``astype(float64)``)
``python-split``   ``for line in f: line.split()`` into three lists, on the first 1M
                   lines, extrapolated linearly to the whole file

Reported: import time, read time (median of ``--repeat``), peak RSS, rows.

Usage::

    python benchmarks/parse_floor.py --scale large --shape msmarco
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from _env import default_python

HERE = Path(__file__).resolve().parent
DATA_DIR = HERE / "data"
PREFIX = "@@FLOOR@@"
SPLIT_LINES = 1_000_000
NAMES = ["qid", "q0", "docid", "rank", "score", "tag"]
DEFAULT_PYTHON = default_python()  # benchmarks/.venv (setup_env.py)


def read_polars(path: str, int_ids: bool = False) -> int:
    """polars CSV reader with a space separator; returns the row count."""
    import polars as pl

    id_type = pl.Int64 if int_ids else pl.String
    frame = pl.read_csv(
        path,
        separator=" ",
        has_header=False,
        new_columns=NAMES,
        columns=[0, 2, 4],
        schema_overrides={"qid": id_type, "docid": id_type, "score": pl.Float64},
    )
    return frame.height


def read_pyarrow(path: str) -> int:
    """pyarrow.csv with a space delimiter; returns the row count."""
    import pyarrow as pa
    from pyarrow import csv

    table = csv.read_csv(
        path,
        read_options=csv.ReadOptions(column_names=NAMES),
        parse_options=csv.ParseOptions(delimiter=" "),
        convert_options=csv.ConvertOptions(
            column_types={"qid": pa.string(), "docid": pa.string(), "score": pa.float64()},
            include_columns=["qid", "docid", "score"],
        ),
    )
    return int(table.num_rows)


def read_pandas(path: str) -> int:
    """pandas C engine; returns the row count."""
    import pandas as pd

    frame = pd.read_csv(
        path,
        sep=" ",
        header=None,
        names=NAMES,
        usecols=["qid", "docid", "score"],
        dtype={"qid": str, "docid": str, "score": "float64"},
        engine="c",
    )
    return len(frame)


def read_numpy(path: str) -> int:
    """Tokenize with numpy alone; returns the row count."""
    return len(numpy_columns(path)[2])


NUMPY_BLOCK = 32 << 20  # bytes per block of the numpy tokenizer


def numpy_columns(path: str) -> tuple[Any, Any, Any]:
    """qid, docid (``S`` arrays) and score (float64) of a single-space six-field file.

    The file is read at once and tokenized in newline-aligned blocks of NUMPY_BLOCK
    bytes (vectorised within a block), which keeps the temporaries cache- and RAM-friendly.
    """
    import numpy as np

    data = np.fromfile(path, dtype=np.uint8)
    parts: list[tuple[Any, Any, Any]] = []
    begin = 0
    while begin < len(data):
        stop = min(begin + NUMPY_BLOCK, len(data))
        if stop < len(data):
            stop = begin + int(np.flatnonzero(data[begin:stop] == 10)[-1]) + 1
        parts.append(_numpy_block(data[begin:stop]))
        begin = stop
    if not parts:
        return np.empty(0, "S1"), np.empty(0, "S1"), np.empty(0)
    qid, docid, score = zip(*parts, strict=True)
    return np.concatenate(qid), np.concatenate(docid), np.concatenate(score)


def _numpy_block(data: Any) -> tuple[Any, Any, Any]:
    """Tokenize whole lines held in a uint8 array."""
    import numpy as np

    seps = np.flatnonzero((data == 32) | (data == 10)).reshape(-1, 6)
    line_start = np.empty(len(seps), dtype=np.int64)
    line_start[0] = 0
    line_start[1:] = seps[:-1, 5] + 1

    padded = np.concatenate([data, np.zeros(64, dtype=np.uint8)])

    def column(start: Any, end: Any) -> Any:
        length = end - start
        width = int(length.max())
        # Overlapping windows of `width` bytes starting at every byte (a view, no copy);
        # picking the rows at `start` copies each field with its right-hand neighbours,
        # which are then blanked out.
        windows = np.lib.stride_tricks.as_strided(
            padded, shape=(len(data), width), strides=(1, 1), writeable=False
        )
        matrix = windows[start]
        matrix[np.arange(width) >= length[:, None]] = 0
        return matrix.view(f"S{width}").ravel()

    def decimal(start: Any, end: Any) -> Any:
        """Plain decimals ("12.345") by digit arithmetic, else numpy's string cast."""
        raw = column(start, end)
        matrix = raw.view(np.uint8).reshape(len(raw), -1)
        is_digit = (matrix >= 48) & (matrix <= 57)
        if not np.all(is_digit | (matrix == 46) | (matrix == 0)):
            return raw.astype(np.float64)
        mantissa = np.zeros(len(raw), dtype=np.int64)
        frac_digits = np.zeros(len(raw), dtype=np.int64)
        seen_point = np.zeros(len(raw), dtype=bool)
        for j in range(matrix.shape[1]):  # a loop over columns, not lines
            digit = is_digit[:, j]
            mantissa = np.where(
                digit, mantissa * 10 + (matrix[:, j].astype(np.int64) - 48), mantissa
            )
            frac_digits += digit & seen_point
            seen_point |= matrix[:, j] == 46
        # Exact integers divided by exact powers of ten: correctly rounded, like float().
        return mantissa / 10.0**frac_digits

    qid = column(line_start, seps[:, 0])
    docid = column(seps[:, 1] + 1, seps[:, 2])
    score = decimal(seps[:, 3] + 1, seps[:, 4])
    return qid, docid, score


def read_python_split(path: str) -> int:
    """Plain ``split()`` loop on the first SPLIT_LINES lines; returns lines read."""
    qids: list[str] = []
    docids: list[str] = []
    scores: list[float] = []
    with open(path) as f:
        for n, line in enumerate(f):
            if n == SPLIT_LINES:
                break
            q, _, d, _, s, _ = line.split()
            qids.append(q)
            docids.append(d)
            scores.append(float(s))
    return len(scores)


READERS: dict[str, tuple[str, Callable[[str], int]]] = {
    "polars": ("polars", read_polars),
    "polars-int": ("polars", lambda p: read_polars(p, int_ids=True)),
    "pyarrow": ("pyarrow", read_pyarrow),
    "pandas": ("pandas", read_pandas),
    "numpy": ("numpy", read_numpy),
    "python-split": ("json", read_python_split),
}


def child(reader: str, path: str) -> int:
    """Run one reader in this process and print its timings as JSON."""
    module, func = READERS[reader]
    t0 = time.perf_counter()
    try:
        __import__(module)
    except ImportError as exc:
        print(PREFIX + json.dumps({"missing": str(exc)}))
        return 0
    t1 = time.perf_counter()
    rows = func(path)
    t2 = time.perf_counter()
    result = {
        "import_s": t1 - t0,
        "read_s": t2 - t1,
        "rows": rows,
        "maxrss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
    }
    print(PREFIX + json.dumps(result))
    return 0


def count_lines(path: Path) -> int:
    """Number of newline characters in a file (read in 16 MiB blocks)."""
    total = 0
    with path.open("rb") as f:
        while block := f.read(1 << 24):
            total += block.count(b"\n")
    return total


def measure(python: str, reader: str, path: Path, wait_idle: float) -> dict[str, Any]:
    """Run one reader in a fresh subprocess; add the peak RSS from ``os.wait4``.

    Also records ``busy``: the share of all cores used by other processes meanwhile.
    """
    from run import busy_cpu_seconds, wait_for_idle

    if wait_idle > 0:
        wait_for_idle(wait_idle)
    busy_before, start = busy_cpu_seconds(), time.monotonic()
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(
            [python, str(Path(__file__).resolve()), "--child", reader, str(path)],
            stdout=subprocess.PIPE,
            stderr=err,
        )
        stdout = proc.stdout.read()  # type: ignore[union-attr]
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        proc.stdout.close()  # type: ignore[union-attr]
        err.seek(0)
        stderr = err.read()
    wall = time.monotonic() - start
    busy_after = busy_cpu_seconds()
    busy = None
    if busy_before is not None and busy_after is not None and wall > 0:
        own = usage.ru_utime + usage.ru_stime
        busy = max(0.0, busy_after - busy_before - own) / (wall * (os.cpu_count() or 1))
    if proc.returncode != 0:
        tail = stderr.decode(errors="replace").strip().splitlines()[-1:]
        return {"error": f"exit {proc.returncode}: {' '.join(tail)}"}
    for line in stdout.decode().splitlines():
        if line.startswith(PREFIX):
            result: dict[str, Any] = json.loads(line[len(PREFIX) :])
            result["peak_mb"] = usage.ru_maxrss / 1024
            result["busy"] = busy
            return result
    return {"error": "no result"}


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description="Time the fastest readers of a TREC run file.")
    parser.add_argument("--scale", default="large")
    parser.add_argument("--shape", default="msmarco")
    parser.add_argument("--run", type=Path, default=None, help="run file (overrides scale/shape)")
    parser.add_argument("--python", default=DEFAULT_PYTHON, help="interpreter for the readers")
    parser.add_argument("--readers", default=",".join(READERS))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--wait-idle", type=float, default=0.0, help="see run.py --wait-idle")
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--child", nargs=2, metavar=("READER", "PATH"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        return child(*args.child)

    path = args.run or DATA_DIR / f"run.{args.shape}.{args.scale}.txt"
    if not path.exists():
        subprocess.run(
            [args.python, str(HERE / "generate.py"), "--scale", args.scale, "--shape", args.shape],
            check=True,
        )
    lines = count_lines(path)
    size_mb = path.stat().st_size / 1e6
    print(f"{path.name}: {lines:,} lines, {size_mb:.1f} MB")
    results: dict[str, dict[str, Any]] = {}
    for reader in [r.strip() for r in args.readers.split(",") if r.strip()]:
        if reader not in READERS:
            raise SystemExit(f"unknown reader {reader}")
        samples = [measure(args.python, reader, path, args.wait_idle) for _ in range(args.repeat)]
        ok = [s for s in samples if "read_s" in s]
        if not ok:
            results[reader] = samples[0]
            continue
        read_s = statistics.median(s["read_s"] for s in ok)
        factor = lines / ok[0]["rows"] if reader == "python-split" and ok[0]["rows"] else 1.0
        results[reader] = {
            "import_s": statistics.median(s["import_s"] for s in ok),
            "read_s": read_s * factor,
            "measured_s": read_s,
            "rows": ok[0]["rows"],
            "peak_mb": max(s["peak_mb"] for s in ok),
            "busy": statistics.median(s["busy"] or 0.0 for s in ok),
            "extrapolated": factor != 1.0,
            "mlines_per_s": lines / (read_s * factor) / 1e6,
        }

    header = ["reader", "import s", "read s", "M lines/s", "peak MB", "busy %", "note"]
    rows = []
    for reader, r in results.items():
        if "read_s" not in r:
            rows.append([reader, "-", "-", "-", "-", "-", r.get("missing") or r.get("error", "")])
            continue
        note = (
            f"extrapolated from {r['rows']:,} lines ({r['measured_s']:.2f} s)"
            if r["extrapolated"]
            else ""
        )
        rows.append(
            [
                reader,
                f"{r['import_s']:.3f}",
                f"{r['read_s']:.2f}",
                f"{r['mlines_per_s']:.1f}",
                f"{r['peak_mb']:.0f}",
                f"{100 * r['busy']:.0f}",
                note,
            ]
        )
    if args.markdown:
        print("| " + " | ".join(header) + " |\n|" + "---|" * len(header))
        for row in rows:
            print("| " + " | ".join(row) + " |")
    else:
        widths = [max(len(c) for c in col) for col in zip(header, *rows, strict=True)]
        for row in [header, ["-" * w for w in widths], *rows]:
            print("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip())
    if args.json:
        args.json.write_text(
            json.dumps({"file": str(path), "lines": lines, "readers": results}, indent=1)
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
