"""Measurement worker: evaluates one tool, file in and means out, in a fresh process.

Run by ``benchmarks/run.py`` as ``PYTHON _worker.py TOOL QRELS RUN``. It imports only
the standard library before timing starts, so the interpreter given on the command line
(``--peers-python`` or ``--ranklens-python``) only needs the tool itself installed.

It prints one line ``@@BENCH@@{json}`` on stdout with:

``import_s``, ``load_s``, ``compute_s``
    phase times measured inside the process with ``time.perf_counter``; ``load_s`` is
    ``null`` where loading is not a separate step (ir_measures reads lazily);
``t_done``
    ``time.monotonic()`` when the means were available (the parent subtracts its spawn
    time, which gives end-to-end wall time including interpreter start-up and imports;
    ``CLOCK_MONOTONIC`` is system-wide on Linux);
``cpu_done``
    ``time.process_time()`` at that moment: CPU seconds of all the process's threads
    since it started, a figure that other load on the machine disturbs much less;
``values``
    the six measure means keyed ``AP nDCG@10 P@10 R@100 R@1000 RR@10`` (plus ``RR``,
    uncut reciprocal rank, where the tool computed it);
``extra``
    tool-specific timings (pytrec_eval evaluate-only, ranx warm evaluate);
``maxrss_kb``
    this process's own ``ru_maxrss`` (the parent also takes it from ``os.wait4``).

``--check`` instead of QRELS RUN only tests that the tool can be imported (exit 0/1);
``_worker.py --versions`` prints the interpreter's and the tools' versions as JSON.
"""

from __future__ import annotations

import json
import resource
import sys
import time
from collections.abc import Callable
from typing import Any

PREFIX = "@@BENCH@@"
MEASURES = ("AP", "nDCG@10", "P@10", "R@100", "R@1000", "RR@10")

Result = dict[str, Any]


def _done() -> dict[str, float]:
    """Timestamps taken when the means are available: wall (monotonic) and CPU time."""
    return {"t_done": time.monotonic(), "cpu_done": time.process_time()}


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def run_pytrec_eval(qrels_path: str, run_path: str) -> Result:
    """pytrec_eval: its own parsers, one RelevanceEvaluator, Python mean over queries.

    RR@10 is derived exactly from trec_eval's ``recip_rank`` per query: the first
    relevant document is within the top 10 iff ``recip_rank >= 1/10``, so
    ``RR@10 = recip_rank if recip_rank >= 0.1 else 0`` (same ordering: score descending,
    ties by docid descending). The uncut ``recip_rank`` mean is reported as ``RR``.
    """
    t0 = time.perf_counter()
    import pytrec_eval

    t1 = time.perf_counter()
    with open(qrels_path) as f:
        qrels = pytrec_eval.parse_qrel(f)
    with open(run_path) as f:
        run = pytrec_eval.parse_run(f)
    t2 = time.perf_counter()
    evaluator = pytrec_eval.RelevanceEvaluator(
        qrels, {"map", "ndcg_cut.10", "P.10", "recall.100,1000", "recip_rank"}
    )
    t3 = time.perf_counter()
    per_query = evaluator.evaluate(run)
    t4 = time.perf_counter()
    rows = list(per_query.values())
    rr = [row["recip_rank"] for row in rows]
    values = {
        "AP": _mean([row["map"] for row in rows]),
        "nDCG@10": _mean([row["ndcg_cut_10"] for row in rows]),
        "P@10": _mean([row["P_10"] for row in rows]),
        "R@100": _mean([row["recall_100"] for row in rows]),
        "R@1000": _mean([row["recall_1000"] for row in rows]),
        "RR@10": _mean([v if v >= 0.1 else 0.0 for v in rr]),
        "RR": _mean(rr),
    }
    t5 = time.perf_counter()
    return {
        "import_s": t1 - t0,
        "load_s": t2 - t1,
        "compute_s": t5 - t2,
        **_done(),
        "values": values,
        "extra": {"evaluate_only_s": t4 - t3, "evaluator_init_s": t3 - t2},
    }


def run_ir_measures(qrels_path: str, run_path: str) -> Result:
    """ir_measures: lazy ``read_trec_*`` readers fed straight to ``calc_aggregate``.

    Reading happens inside ``calc_aggregate``, so it is counted in ``compute_s``.
    """
    t0 = time.perf_counter()
    import ir_measures
    from ir_measures import AP, RR, P, R, nDCG

    measures = [AP, nDCG @ 10, P @ 10, R @ 100, R @ 1000, RR @ 10]
    t1 = time.perf_counter()
    qrels = ir_measures.read_trec_qrels(qrels_path)  # type: ignore[no-untyped-call]
    run = ir_measures.read_trec_run(run_path)  # type: ignore[no-untyped-call]
    agg = ir_measures.calc_aggregate(measures, qrels, run)
    t2 = time.perf_counter()
    values = {str(m): float(v) for m, v in agg.items()}
    return {
        "import_s": t1 - t0,
        "load_s": None,
        "compute_s": t2 - t1,
        **_done(),
        "values": values,
        "extra": {},
    }


RANX_METRICS = {
    "map": "AP",
    "ndcg@10": "nDCG@10",
    "precision@10": "P@10",
    "recall@100": "R@100",
    "recall@1000": "R@1000",
    "mrr@10": "RR@10",
}


def run_ranx(qrels_path: str, run_path: str) -> Result:
    """ranx: ``Qrels.from_file``/``Run.from_file`` (kind="trec"), then ``evaluate`` twice.

    The first ``evaluate`` (the end-to-end figure) includes loading numba's compiled
    code from its cache, or compiling it when the cache is cold; the second is "warm".
    """
    t0 = time.perf_counter()
    from ranx import Qrels, Run, evaluate

    t1 = time.perf_counter()
    qrels = Qrels.from_file(qrels_path, kind="trec")
    run = Run.from_file(run_path, kind="trec")
    t2 = time.perf_counter()
    first = evaluate(qrels, run, list(RANX_METRICS))
    t3 = time.perf_counter()
    done = _done()
    evaluate(qrels, run, list(RANX_METRICS))
    t4 = time.perf_counter()
    values = {RANX_METRICS[k]: float(v) for k, v in first.items()}
    return {
        "import_s": t1 - t0,
        "load_s": t2 - t1,
        "compute_s": t3 - t2,
        **done,
        "values": values,
        "extra": {"warm_compute_s": t4 - t3},
    }


def run_ranklens(qrels_path: str, run_path: str) -> Result:
    """ranklens Python API: ``ranklens.evaluate(qrels, run, measures).aggregate``, timed in
    two parts: load (``Evaluator(qrels, measures)`` reads the qrels, ``Run.from_file``
    reads the run) and compute (``Evaluator.evaluate(run).aggregate``: rank, check for
    duplicates, join, the six measures). ``ranklens.evaluate(qrels_path, run_path,
    measures)`` does exactly these steps.
    """
    t0 = time.perf_counter()
    import ranklens

    t1 = time.perf_counter()
    evaluator = ranklens.Evaluator(qrels_path, list(MEASURES))
    run = ranklens.Run.from_file(run_path)
    t2 = time.perf_counter()
    aggregate = dict(evaluator.evaluate(run).aggregate)
    t3 = time.perf_counter()
    done = _done()
    values = {str(k): float(v) for k, v in aggregate.items()}
    return {
        "import_s": t1 - t0,
        "load_s": t2 - t1,
        "compute_s": t3 - t2,
        **done,
        "values": values,
        "extra": {},
    }


def run_read_floor(qrels_path: str, run_path: str) -> Result:
    """The read floor: a fresh process that only reads the run file into columns with
    ranklens' reader (``ranklens.data.trec_text.read_run``: the native parser, on the
    same threads as an evaluation) and stops there, what every evaluation of the file
    must spend (interpreter start-up, imports, the parse). The qrels are not read.
    ``values`` holds the number of run lines, so that the parent sees a result.
    """
    t0 = time.perf_counter()
    from ranklens.data.trec_text import read_run

    t1 = time.perf_counter()
    columns = read_run(run_path)
    t2 = time.perf_counter()
    done = _done()
    return {
        "import_s": t1 - t0,
        "load_s": t2 - t1,
        "compute_s": None,
        **done,
        "values": {"lines": float(len(columns["scores"]))},
        "extra": {},
    }


TOOLS: dict[str, Callable[[str, str], Result]] = {
    "pytrec_eval": run_pytrec_eval,
    "ir_measures": run_ir_measures,
    "ranx": run_ranx,
    "ranklens": run_ranklens,
    "read-floor": run_read_floor,
}
IMPORTS = {
    "pytrec_eval": "pytrec_eval",
    "ir_measures": "ir_measures",
    "ranx": "ranx",
    "ranklens": "ranklens",
    "read-floor": "ranklens",
}


def check(tool: str) -> int:
    """Exit status 0 if the tool's module imports (and, for ranklens, has ``evaluate``)."""
    try:
        module = __import__(IMPORTS[tool])
    except Exception as exc:  # any import failure means "not available"
        print(f"{type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    if tool == "ranklens" and not callable(getattr(module, "evaluate", None)):
        print("ranklens has no evaluate()", file=sys.stderr)
        return 1
    return 0


VERSIONED = (
    "numpy",
    "pytrec-eval-terrier",
    "ir-measures",
    "ranx",
    "numba",
    "pandas",
    "polars",
    "pyarrow",
    "ranklens",
)


def versions() -> dict[str, str | None]:
    """Python and package versions visible to this interpreter (``None``: not installed)."""
    from importlib import metadata

    found: dict[str, str | None] = {"python": sys.version.split()[0]}
    for name in VERSIONED:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            found[name] = None
    return found


def main(argv: list[str]) -> int:
    """Entry point: ``_worker.py TOOL (--check | QRELS RUN)`` or ``_worker.py --versions``."""
    if len(argv) == 2 and argv[1] == "--versions":
        print(json.dumps(versions()))
        return 0
    if len(argv) == 3 and argv[2] == "--check":
        return check(argv[1])
    if len(argv) != 4 or argv[1] not in TOOLS:
        print(f"usage: {argv[0]} {{{','.join(TOOLS)}}} (--check | QRELS RUN)", file=sys.stderr)
        return 2
    result = TOOLS[argv[1]](argv[2], argv[3])
    result["tool"] = argv[1]
    result["maxrss_kb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    sys.stdout.write(PREFIX + json.dumps(result) + "\n")
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
