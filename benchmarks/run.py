"""Time IR-evaluation tools end to end (file in, means out), each in a fresh subprocess.

Tools (each skipped with "not available" when it cannot be imported or found):

``pytrec_eval``          pytrec_eval's parsers + ``RelevanceEvaluator.evaluate`` + mean
``ir_measures``          ``read_trec_qrels``/``read_trec_run`` + ``calc_aggregate``
``ranx``                 ``Qrels``/``Run.from_file`` + ``evaluate`` (first call and warm call)
``ranklens``             ``ranklens.evaluate(qrels, run, measures).aggregate``
``ranklens-cli-eval``    ``ranklens eval QRELS RUN -m ... --format json``
``ranklens-cli-trec``    ``ranklens trec-eval -m map ... QRELS RUN``
``read-floor``           the read floor: a fresh process that only reads the run into columns
                         with ranklens' reader (start-up, imports, parse), and stops

Measures: AP nDCG@10 P@10 R@100 R@1000 RR@10. For every tool it reports the median over
``--repeat`` runs of the import, load and compute phases (timed inside the process) and of
the end-to-end wall time (spawn until the means are available, so interpreter start-up
and imports are included), the peak RSS of the process (``ru_maxrss`` from ``os.wait4``,
maximum over the repeats), the ratio to the ranklens Python API measured in the same
invocation, and the largest absolute difference of each measure from pytrec_eval. Below
the tables it prints the issue's targets for the ranklens API row: pytrec_eval's time over
ranklens' (the median ratio and each repeat's pair, run back to back), ranklens' time over
the read floor's, and ranklens' peak memory. ``--load N`` runs everything beside N
processes that keep a core busy each ("beside another busy process": ``--load 1``).

Only the standard library is needed to run this script; missing data files are made by
``generate.py`` run with ``--peers-python``.

Usage (from the repository root)::

    python benchmarks/run.py --scale large --shape msmarco
    python benchmarks/run.py --scale small,medium --shape msmarco,dl --repeat 5 --json out.json
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from _env import busy, default_python

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
WORKER = HERE / "_worker.py"
GENERATOR = HERE / "generate.py"
DATA_DIR = HERE / "data"
PREFIX = "@@BENCH@@"

SCALES = ("small", "medium", "large", "huge")
SHAPES = ("msmarco", "dl")
MEASURES = ("AP", "nDCG@10", "P@10", "R@100", "R@1000", "RR@10")
PYTHON_TOOLS = ("pytrec_eval", "ir_measures", "ranx", "ranklens", "read-floor")
RANKLENS_TOOLS = ("ranklens", "read-floor")  # run by --ranklens-python
CLI_TOOLS = ("ranklens-cli-eval", "ranklens-cli-trec")
ALL_TOOLS = PYTHON_TOOLS + CLI_TOOLS
FLOOR_TOOL = "read-floor"
PEERS = ("pytrec_eval", "ir_measures", "ranx")
REFERENCE_TOOL = "ranklens"
VALUES_REFERENCE = "pytrec_eval"

TREC_EVAL_ARGS = ("map", "ndcg_cut.10", "P.10", "recall.100,1000", "recip_rank")
TREC_EVAL_NAMES = {
    "map": "AP",
    "ndcg_cut_10": "nDCG@10",
    "P_10": "P@10",
    "recall_100": "R@100",
    "recall_1000": "R@1000",
    "recip_rank": "RR",
}
LEGEND = (
    "total = spawn until means available (incl. interpreter start-up and imports); "
    "exit = until the process ended; cpu = CPU seconds of all threads until the means; "
    "busy % = CPU used by other processes meanwhile, as a share of all cores; "
    "x = ratio to the ranklens API row."
)
DEFAULT_PEERS_PYTHON = default_python()  # benchmarks/.venv (setup_env.py)
DEFAULT_RANKLENS_PYTHON = default_python()  # benchmarks/.venv (setup_env.py)


@dataclass
class Sample:
    """One measured subprocess run of one tool."""

    tool: str
    total_s: float | None = None  # spawn -> means available
    exit_s: float | None = None  # spawn -> process reaped
    cpu_s: float | None = None  # CPU seconds (all threads) until the means are available
    background: float | None = None  # share of all cores used by other processes meanwhile
    peak_kb: int | None = None
    import_s: float | None = None
    load_s: float | None = None
    compute_s: float | None = None
    extra: dict[str, float] = field(default_factory=dict)
    values: dict[str, float] = field(default_factory=dict)
    error: str | None = None
    stdout: str = field(default="", repr=False)  # cleared once parsed


@dataclass
class Row:
    """One line of the results table (medians over the samples of a tool)."""

    label: str
    tool: str
    import_s: float | None = None
    load_s: float | None = None
    compute_s: float | None = None
    total_s: float | None = None
    exit_s: float | None = None
    cpu_s: float | None = None
    peak_mb: float | None = None
    background: float | None = None
    x_total: float | None = None
    x_compute: float | None = None
    note: str = ""


@dataclass
class Config:
    """Settings shared by all measurements of one invocation."""

    peers_python: str
    ranklens_python: str
    ranklens_cli: str
    timeout: float
    env: dict[str, str]
    wait_idle: float = 0.0


def data_paths(shape: str, scale: str) -> tuple[Path, Path]:
    """Paths of the qrels and run files (naming shared with generate.py)."""
    return DATA_DIR / f"qrels.{shape}.{scale}.txt", DATA_DIR / f"run.{shape}.{scale}.txt"


def ensure_data(shape: str, scale: str, python: str) -> tuple[Path, Path]:
    """Generate the data files of a shape and scale with ``python`` if they are missing."""
    qrels, run = data_paths(shape, scale)
    if not (qrels.exists() and run.exists()):
        print(f"generating {shape}.{scale} ...", file=sys.stderr, flush=True)
        subprocess.run(
            [python, str(GENERATOR), "--scale", scale, "--shape", shape], check=True, cwd=REPO
        )
    return qrels, run


def busy_cpu_seconds() -> float | None:
    """CPU seconds all cores have spent busy since boot (``/proc/stat``), or ``None``."""
    try:
        with open("/proc/stat") as f:
            fields = [int(v) for v in f.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def wait_for_idle(max_wait: float, threshold: float = 0.15, window: float = 1.0) -> bool:
    """Wait until other processes use less than ``threshold`` of all cores over ``window``.

    Gives up after ``max_wait`` seconds; returns whether the machine was found idle. Used
    on shared machines so that a measurement does not start while, say, a test suite runs.
    """
    deadline = time.monotonic() + max_wait
    cores = os.cpu_count() or 1
    while True:
        before, t0 = busy_cpu_seconds(), time.monotonic()
        time.sleep(window)
        after, t1 = busy_cpu_seconds(), time.monotonic()
        if before is None or after is None:
            return True
        if (after - before) / ((t1 - t0) * cores) < threshold:
            return True
        if t1 >= deadline:
            return False


def spawn(cmd: Sequence[str], config: Config, extra_env: dict[str, str] | None = None) -> Sample:
    """Run ``cmd`` once; return wall times, ``ru_maxrss`` (via ``os.wait4``) and output.

    ``total_s`` is taken from the worker's ``t_done`` (``time.monotonic``, system-wide on
    Linux) when it reports one, else it is the time until the process exited.
    """
    env = dict(config.env)
    if extra_env:
        env.update(extra_env)
    if config.wait_idle > 0 and not wait_for_idle(config.wait_idle):
        print(f"    machine still busy after {config.wait_idle:.0f} s; measuring", file=sys.stderr)
    sample = Sample(tool="")
    busy_before = busy_cpu_seconds()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.monotonic()
        proc = subprocess.Popen(list(cmd), stdout=out, stderr=err, env=env, cwd=REPO)
        timer = threading.Timer(config.timeout, proc.kill)
        timer.start()
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        finally:
            timer.cancel()
        end = time.monotonic()
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout = out.read().decode(errors="replace")
        stderr = err.read().decode(errors="replace")
    sample.exit_s = end - start
    sample.total_s = sample.exit_s
    sample.peak_kb = int(usage.ru_maxrss)
    sample.cpu_s = usage.ru_utime + usage.ru_stime
    busy_after = busy_cpu_seconds()
    if busy_before is not None and busy_after is not None and sample.exit_s > 0:
        other = max(0.0, busy_after - busy_before - sample.cpu_s)
        sample.background = other / (sample.exit_s * (os.cpu_count() or 1))
    if proc.returncode != 0:
        tail = (stderr.strip() or stdout.strip()).splitlines()[-3:]
        reason = "timed out" if end - start >= config.timeout else f"exit {proc.returncode}"
        sample.error = f"{reason}: {' | '.join(tail)}"
        return sample
    sample.stdout = stdout
    for line in stdout.splitlines():
        if line.startswith(PREFIX):
            payload: dict[str, Any] = json.loads(line[len(PREFIX) :])
            sample.total_s = float(payload["t_done"]) - start
            sample.cpu_s = float(payload.get("cpu_done", sample.cpu_s))
            sample.import_s = payload.get("import_s")
            sample.load_s = payload.get("load_s")
            sample.compute_s = payload.get("compute_s")
            sample.values = {k: float(v) for k, v in payload["values"].items()}
            sample.extra = {k: float(v) for k, v in payload.get("extra", {}).items()}
    return sample


def parse_cli_eval(stdout: str) -> dict[str, float]:
    """Values from ``ranklens eval --format json`` output (first run's aggregate)."""
    doc = json.loads(stdout)
    return {str(k): float(v) for k, v in doc["runs"][0]["aggregate"].items()}


def parse_trec_eval(stdout: str) -> dict[str, float]:
    """Values from trec_eval-style ``measure all value`` lines, renamed to ours."""
    values: dict[str, float] = {}
    for line in stdout.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] == "all" and parts[0] in TREC_EVAL_NAMES:
            values[TREC_EVAL_NAMES[parts[0]]] = float(parts[2])
    return values


def measure_tool(tool: str, qrels: Path, run: Path, config: Config) -> Sample:
    """Measure one tool once on one qrels/run pair."""
    if tool in PYTHON_TOOLS:
        python = config.ranklens_python if tool in RANKLENS_TOOLS else config.peers_python
        sample = spawn([python, str(WORKER), tool, str(qrels), str(run)], config)
    elif tool == "ranklens-cli-eval":
        cmd = [config.ranklens_cli, "eval", str(qrels), str(run)]
        for m in MEASURES:
            cmd += ["-m", m]
        sample = spawn([*cmd, "--format", "json"], config)
    elif tool == "ranklens-cli-trec":
        cmd = [config.ranklens_cli, "trec-eval"]
        for m in TREC_EVAL_ARGS:
            cmd += ["-m", m]
        sample = spawn([*cmd, str(qrels), str(run)], config)
    else:
        raise ValueError(tool)
    sample.tool = tool
    stdout, sample.stdout = sample.stdout, ""
    if sample.error is None and tool in CLI_TOOLS:
        try:
            parse = parse_cli_eval if tool == "ranklens-cli-eval" else parse_trec_eval
            sample.values = parse(stdout)
        except (ValueError, KeyError, IndexError, TypeError, AttributeError) as exc:
            sample.error = f"unparseable output ({exc}): {stdout[:200]!r}"
    if sample.error is None and not sample.values:
        sample.error = "no result reported"
    return sample


def available(tool: str, config: Config) -> str | None:
    """``None`` if the tool can run, else a short reason."""
    if tool in PYTHON_TOOLS:
        python = config.ranklens_python if tool in RANKLENS_TOOLS else config.peers_python
        if shutil.which(python) is None:
            return f"no interpreter {python}"
        check = subprocess.run(
            [python, str(WORKER), tool, "--check"], capture_output=True, text=True, cwd=REPO
        )
        if check.returncode != 0:
            return (check.stderr.strip().splitlines() or ["import failed"])[-1]
        return None
    if shutil.which(config.ranklens_cli) is None:
        return f"no command {config.ranklens_cli}"
    sub = "eval" if tool == "ranklens-cli-eval" else "trec-eval"
    check = subprocess.run(
        [config.ranklens_cli, sub, "--help"], capture_output=True, text=True, cwd=REPO
    )
    if check.returncode != 0:
        return f"`{Path(config.ranklens_cli).name} {sub} --help` failed"
    return None


def compile_ranklens(config: Config) -> None:
    """Write the bytecode of ranklens' modules before timing, as ``pip install`` does for an
    installed package: an editable install (or a checkout on ``PYTHONPATH``) under
    ``PYTHONDONTWRITEBYTECODE=1`` otherwise compiles every module it imports in every run
    (about 70 ms here, 2026-11-27), which no installed ranklens pays."""
    ask = "import os, ranklens; print(os.path.dirname(ranklens.__file__))"
    where = subprocess.run(
        [config.ranklens_python, "-c", ask],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=config.env,
    )
    if where.returncode == 0 and where.stdout.strip():
        package = where.stdout.strip()
        subprocess.run(
            [config.ranklens_python, "-m", "compileall", "-q", package],
            capture_output=True,
            cwd=REPO,
            env=config.env,
        )


def warm_ranx_cache(config: Config) -> None:
    """Run ranx once on a tiny dataset so numba's on-disk cache exists before timing."""
    with tempfile.TemporaryDirectory() as tmp:
        qrels, run = Path(tmp) / "q.txt", Path(tmp) / "r.txt"
        qrels.write_text("".join(f"{q} 0 d{q}_{d} {d % 3}\n" for q in range(12) for d in range(5)))
        run.write_text(
            "".join(
                f"{q} Q0 d{q}_{d} {d + 1} {20 - d}.5 warm\n" for q in range(12) for d in range(20)
            )
        )
        sample = measure_tool("ranx", qrels, run, config)
        if sample.error:
            print(f"ranx warm-up failed: {sample.error}", file=sys.stderr)


def median(values: Sequence[float | None]) -> float | None:
    """Median of the non-missing values, or ``None``."""
    present = [v for v in values if v is not None]
    return statistics.median(present) if present else None


def build_rows(samples: dict[str, list[Sample]], skipped: dict[str, str]) -> list[Row]:
    """Aggregate samples into table rows, with ratios to the ranklens API row."""
    labels = {
        "pytrec_eval": "pytrec_eval",
        "ir_measures": "ir_measures",
        "ranx": "ranx (first call)",
        "ranx-cold": "ranx (cold numba cache)",
        "ranklens": "ranklens API",
        "ranklens-cli-eval": "ranklens eval (CLI)",
        "ranklens-cli-trec": "ranklens trec-eval (CLI)",
        FLOOR_TOOL: "read floor (ranklens' reader only)",
    }
    rows: list[Row] = []
    for tool in (*PEERS, "ranx-cold", REFERENCE_TOOL, *CLI_TOOLS, FLOOR_TOOL):
        if tool in skipped:
            rows.append(Row(labels[tool], tool, note=f"not available: {skipped[tool][:60]}"))
            continue
        got = samples.get(tool)
        if not got:
            continue
        ok = [s for s in got if s.error is None]
        if not ok:
            rows.append(Row(labels[tool], tool, note=f"failed: {got[0].error}"))
            continue
        peaks = [s.peak_kb for s in ok if s.peak_kb is not None]
        rows.append(
            Row(
                label=labels[tool],
                tool=tool,
                import_s=median([s.import_s for s in ok]),
                load_s=median([s.load_s for s in ok]),
                compute_s=median([s.compute_s for s in ok]),
                total_s=median([s.total_s for s in ok]),
                exit_s=median([s.exit_s for s in ok]),
                cpu_s=median([s.cpu_s for s in ok]),
                background=median([s.background for s in ok]),
                peak_mb=max(peaks) / 1024 if peaks else None,
                note="" if len(ok) == len(got) else f"{len(got) - len(ok)} failed run(s)",
            )
        )
        extra_rows = {
            "pytrec_eval": ("evaluate_only_s", "  pytrec_eval evaluate() only"),
            "ranx": ("warm_compute_s", "  ranx evaluate() warm"),
        }
        if tool in extra_rows:
            key, label = extra_rows[tool]
            rows.append(Row(label, tool, compute_s=median([s.extra.get(key) for s in ok])))
    reference = next((r for r in rows if r.tool == REFERENCE_TOOL and r.total_s), None)
    if reference is not None:
        for row in rows:
            if row.total_s is not None and reference.total_s:
                row.x_total = row.total_s / reference.total_s
            if row.compute_s is not None and reference.compute_s:
                row.x_compute = row.compute_s / reference.compute_s
    return rows


def _totals(samples: dict[str, list[Sample]], tool: str) -> list[float | None]:
    """Each repeat's total time of ``tool`` (``None`` where the run failed)."""
    return [s.total_s if s.error is None else None for s in samples.get(tool, [])]


def _ratios(num: list[float | None], den: list[float | None]) -> list[float]:
    """``num[i] / den[i]`` for the repeats where both ran."""
    return [a / b for a, b in zip(num, den, strict=False) if a is not None and b]


def targets(samples: dict[str, list[Sample]]) -> dict[str, Any]:
    """The issue's targets for the ranklens API row, from the same invocation: how many
    times faster than pytrec_eval (median of the per-repeat ratios and each pair: the
    tools run back to back within a repeat), the ratio to the read floor, the peak RSS."""
    ranklens = _totals(samples, REFERENCE_TOOL)
    found: dict[str, Any] = {}
    if "pytrec_eval" in samples and ranklens:
        pairs = _ratios(_totals(samples, "pytrec_eval"), ranklens)
        if pairs:
            found["x_pytrec_eval"] = statistics.median(pairs)
            found["x_pytrec_eval_pairs"] = pairs
    if FLOOR_TOOL in samples and ranklens:
        pairs = _ratios(ranklens, _totals(samples, FLOOR_TOOL))
        if pairs:
            found["over_read_floor"] = statistics.median(pairs)
            found["over_read_floor_pairs"] = pairs
    peaks = [s.peak_kb for s in samples.get(REFERENCE_TOOL, []) if s.peak_kb and not s.error]
    if peaks:
        found["peak_mb"] = max(peaks) / 1024
    return found


def format_targets(found: dict[str, Any]) -> str:
    """One line per target (see :func:`targets`)."""
    lines = []
    if "x_pytrec_eval" in found:
        pairs = ", ".join(f"{x:.1f}" for x in found["x_pytrec_eval_pairs"])
        lines.append(
            f"ranklens vs pytrec_eval: {found['x_pytrec_eval']:.1f}x faster (median; pairs "
            f"{pairs}); target >= 12x on a quiet machine, >= 10x beside a busy process"
        )
    if "over_read_floor" in found:
        pairs = ", ".join(f"{x:.2f}" for x in found["over_read_floor_pairs"])
        lines.append(
            f"ranklens vs the read floor: {found['over_read_floor']:.2f}x its time (median; "
            f"pairs {pairs}); target <= 2x"
        )
    if "peak_mb" in found:
        lines.append(f"ranklens peak memory: {found['peak_mb']:.0f} MB; target <= 600 MB")
    return "\n".join(lines)


def value_diffs(
    samples: dict[str, list[Sample]],
) -> tuple[dict[str, float], dict[str, dict[str, float | None]]]:
    """Reference values (pytrec_eval) and each tool's max |difference| per measure."""
    reference: dict[str, float] = {}
    for sample in samples.get(VALUES_REFERENCE, []):
        if sample.error is None:
            reference = sample.values
            break
    diffs: dict[str, dict[str, float | None]] = {}
    for tool, got in samples.items():
        if tool == FLOOR_TOOL:  # reads, computes no measure
            continue
        ok = [s for s in got if s.error is None]
        if not ok or not reference:
            continue
        per: dict[str, float | None] = {}
        for m in (*MEASURES, "RR"):
            observed = [s.values[m] for s in ok if m in s.values]
            per[m] = (
                max(abs(v - reference[m]) for v in observed)
                if observed and m in reference
                else None
            )
        diffs[tool] = per
    return reference, diffs


def _fmt(value: float | None, spec: str) -> str:
    return "-" if value is None else format(value, spec)


def format_table(rows: Sequence[Row], markdown: bool) -> str:
    """Render the timing rows as aligned text or as a Markdown table."""
    header = [
        "tool",
        "import s",
        "load s",
        "compute s",
        "total s",
        "exit s",
        "cpu s",
        "peak MB",
        "busy %",
        "x total",
        "x compute",
        "note",
    ]
    lines = [
        [
            r.label,
            _fmt(r.import_s, ".3f"),
            _fmt(r.load_s, ".3f"),
            _fmt(r.compute_s, ".3f"),
            _fmt(r.total_s, ".3f"),
            _fmt(r.exit_s, ".3f"),
            _fmt(r.cpu_s, ".3f"),
            _fmt(r.peak_mb, ".0f"),
            _fmt(None if r.background is None else 100 * r.background, ".0f"),
            _fmt(r.x_total, ".2f"),
            _fmt(r.x_compute, ".2f"),
            r.note,
        ]
        for r in rows
    ]
    return _render(header, lines, markdown)


def format_diffs(
    reference: dict[str, float], diffs: dict[str, dict[str, float | None]], markdown: bool
) -> str:
    """Render the value-agreement table (pytrec_eval values and max |diff| per tool)."""
    tools = [t for t in diffs if t != VALUES_REFERENCE]
    header = ["measure", f"{VALUES_REFERENCE} value", *[f"max abs diff {t}" for t in tools]]
    lines = []
    for m in (*MEASURES, "RR"):
        if m not in reference:
            continue
        cells = [_fmt(diffs[t].get(m), ".2e") for t in tools]
        lines.append([m, f"{reference[m]:.6f}", *cells])
    return _render(header, lines, markdown)


def _render(header: list[str], lines: list[list[str]], markdown: bool) -> str:
    if markdown:
        out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        out += ["| " + " | ".join(cells) + " |" for cells in lines]
        return "\n".join(out)
    widths = [max(len(c) for c in col) for col in zip(header, *lines, strict=True)]
    fmt_row = "  ".join(f"{{:<{w}}}" for w in widths)
    out = [fmt_row.format(*header).rstrip(), "  ".join("-" * w for w in widths)]
    out += [fmt_row.format(*cells).rstrip() for cells in lines]
    return "\n".join(out)


def machine_info(config: Config) -> dict[str, Any]:
    """CPU model, core count, memory, and interpreter/package versions."""
    info: dict[str, Any] = {"platform": platform.platform(), "cores": os.cpu_count()}
    try:
        for line in subprocess.run(["lscpu"], capture_output=True, text=True).stdout.splitlines():
            if line.startswith("Model name:"):
                info["cpu"] = line.split(":", 1)[1].strip()
    except OSError:
        pass
    try:
        with open("/proc/meminfo") as f:
            kb = int(f.readline().split()[1])
        info["memory_gib"] = round(kb / 2**20, 1)
    except (OSError, ValueError, IndexError):
        pass
    for key, python in (("peers", config.peers_python), ("ranklens", config.ranklens_python)):
        try:
            out = subprocess.run(
                [python, str(WORKER), "--versions"], capture_output=True, text=True, cwd=REPO
            )
            info[f"{key}_versions"] = json.loads(out.stdout) if out.returncode == 0 else None
        except (OSError, json.JSONDecodeError):
            info[f"{key}_versions"] = None
    return info


def _split(value: str, allowed: Sequence[str], what: str) -> list[str]:
    items = [v.strip() for v in value.split(",") if v.strip()]
    bad = [v for v in items if v not in allowed]
    if bad:
        raise SystemExit(f"unknown {what}: {', '.join(bad)} (choose from {', '.join(allowed)})")
    return items


def run_benchmark(
    shape: str, scale: str, tools: Sequence[str], repeat: int, ranx_cold: bool, config: Config
) -> dict[str, Any]:
    """Measure all tools on one dataset; return rows, diffs and raw samples."""
    qrels, run = ensure_data(shape, scale, config.peers_python)
    skipped: dict[str, str] = {}
    active: list[str] = []
    for tool in tools:
        reason = available(tool, config)
        if reason is None:
            active.append(tool)
        else:
            skipped[tool] = reason
    if "ranx" in active:
        warm_ranx_cache(config)
    samples: dict[str, list[Sample]] = {t: [] for t in active}
    # Interleave the tools across repeats so slow drifts affect them alike.
    for i in range(repeat):
        for tool in active:
            print(
                f"[{shape}.{scale}] run {i + 1}/{repeat}: {tool} ...", file=sys.stderr, flush=True
            )
            sample = measure_tool(tool, qrels, run, config)
            if sample.error:
                print(f"    {tool}: {sample.error}", file=sys.stderr)
            samples[tool].append(sample)
    if ranx_cold and "ranx" in active:
        with tempfile.TemporaryDirectory() as cache:
            print(f"[{shape}.{scale}] ranx with an empty numba cache ...", file=sys.stderr)
            cold = spawn(
                [config.peers_python, str(WORKER), "ranx", str(qrels), str(run)],
                config,
                {"NUMBA_CACHE_DIR": cache},
            )
            cold.stdout = ""
            cold.tool = "ranx-cold"
            samples["ranx-cold"] = [cold]
    rows = build_rows(samples, skipped)
    reference, diffs = value_diffs(samples)
    return {
        "targets": targets(samples),
        "shape": shape,
        "scale": scale,
        "repeat": repeat,
        "qrels": str(qrels),
        "run": str(run),
        "rows": [asdict(r) for r in rows],
        "reference_values": reference,
        "max_abs_diff": diffs,
        "samples": {t: [asdict(s) for s in got] for t, got in samples.items()},
        "_rows": rows,
    }


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(
        description="Time IR-evaluation tools end to end in fresh subprocesses.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    parser.add_argument("--scale", default="medium", help="comma-separated: " + ",".join(SCALES))
    parser.add_argument("--shape", default="msmarco", help="comma-separated: " + ",".join(SHAPES))
    parser.add_argument("--tools", default=",".join(ALL_TOOLS), help="comma-separated tools")
    parser.add_argument("--repeat", type=int, default=3, help="runs per tool (median reported)")
    parser.add_argument(
        "--peers-python",
        default=DEFAULT_PEERS_PYTHON,
        help="interpreter with pytrec_eval, ir_measures, ranx (and numpy)",
    )
    parser.add_argument(
        "--ranklens-python",
        default=DEFAULT_RANKLENS_PYTHON,
        help="interpreter with ranklens installed",
    )
    parser.add_argument(
        "--ranklens-cli",
        default=None,
        help="ranklens command (default: `ranklens` next to --ranklens-python)",
    )
    parser.add_argument("--timeout", type=float, default=1800.0, help="seconds per tool run")
    parser.add_argument(
        "--ranx-cold",
        action="store_true",
        help="also time ranx once with an empty numba cache (compile time)",
    )
    parser.add_argument(
        "--wait-idle",
        type=float,
        default=0.0,
        help="before each run, wait up to this many seconds for other processes to use "
        "< 15%% of the cores (for shared machines; 0 = do not wait)",
    )
    parser.add_argument(
        "--load",
        type=int,
        default=0,
        help="run everything beside this many processes that keep a core busy each",
    )
    parser.add_argument("--markdown", action="store_true", help="print Markdown tables")
    parser.add_argument("--json", type=Path, default=None, help="also save results as JSON")
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be >= 1")

    cli = args.ranklens_cli or str(Path(args.ranklens_python).parent / "ranklens")
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)  # each interpreter uses its own installed packages
    config = Config(args.peers_python, args.ranklens_python, cli, args.timeout, env, args.wait_idle)
    tools = _split(args.tools, ALL_TOOLS, "tool")
    if any(tool in RANKLENS_TOOLS for tool in tools):
        compile_ranklens(config)
    info = machine_info(config)
    print(
        f"machine: {info.get('cpu', '?')}, {info.get('cores')} cores, "
        f"{info.get('memory_gib', '?')} GiB; peers: {json.dumps(info.get('peers_versions'))}; "
        f"ranklens: {json.dumps(info.get('ranklens_versions'))}"
    )
    results = []
    for scale in _split(args.scale, SCALES, "scale"):
        for shape in _split(args.shape, SHAPES, "shape"):
            with busy(args.load):
                result = run_benchmark(shape, scale, tools, args.repeat, args.ranx_cold, config)
            result["load_processes"] = args.load
            rows = result.pop("_rows")
            beside = f"; beside {args.load} busy process(es)" if args.load else ""
            print(f"\n== {shape}.{scale} (median of {args.repeat}; peak = max{beside}) ==")
            print(format_table(rows, args.markdown))
            print(LEGEND)
            if result["targets"]:
                print(format_targets(result["targets"]))
            print(f"\nvalues: {VALUES_REFERENCE} and max |difference| from it")
            print(format_diffs(result["reference_values"], result["max_abs_diff"], args.markdown))
            results.append(result)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"machine": info, "benchmarks": results}, indent=1))
        print(f"\nsaved {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
