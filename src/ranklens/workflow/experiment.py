"""Running an experiment from its manifest: evaluate, compare, write the results file (and
the report, and log to MLflow, when the manifest asks).

Running the same manifest over the same files twice writes the same bytes: the numbers
are deterministic (the resampling tests are seeded) and the results file holds no time
and no absolute path (:mod:`ranklens.workflow.store`); the time, the machine and the
MLflow run go in the sidecar ``<results>.meta.json``.
"""

from __future__ import annotations

import os
import platform
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

from ranklens.base.errors import InputError, OptionError
from ranklens.workflow.manifest import Manifest, read_manifest
from ranklens.workflow.store import FORMAT, META_SUFFIX, dumps, sha256_of

COMPARE_DEFAULTS: dict[str, Any] = {
    "baseline": None,
    "test": "t",
    "correction": "holm",
    "alpha": 0.05,
    "confidence": 0.95,
    "permutations": 10_000,
    "seed": 42,
    "all_pairs": False,
}
CONVENTION_DEFAULTS: dict[str, Any] = {
    "ties": "trec_eval",
    "queries": "qrels",
    "depth": None,
    "duplicates": "error",
}


def run_experiment(manifest: Manifest | str | os.PathLike[str]) -> tuple[dict[str, Any], Any]:
    """Evaluate the runs of ``manifest`` (and compare them, if it says so).

    Returns
    -------
    tuple
        The results document (:mod:`ranklens.workflow.store`) and the
        :class:`~ranklens.Comparison` (``None`` without ``compare``).

    Raises
    ------
    InputError, OptionError, MeasureError
        A manifest, an input file or an option that is not right.
    """
    from ranklens.data.coerce import as_run
    from ranklens.evaluation.evaluator import Evaluator

    m = manifest if isinstance(manifest, Manifest) else read_manifest(manifest)
    conventions = {**CONVENTION_DEFAULTS, **m.conventions}
    with _named(m, "conventions"):
        evaluator = Evaluator(m.resolve(m.qrels), list(m.measures), **conventions)
    results = [
        evaluator.evaluate(as_run(m.resolve(path), conventions["duplicates"], name))
        for name, path in m.runs.items()
    ]
    results = [replace(r, run=name) for r, name in zip(results, m.runs, strict=True)]
    comparison = None
    options: dict[str, Any] = {"measures": list(m.measures), "conventions": conventions}
    if m.compare is not None:
        from ranklens.analysis.comparison import compare_results

        chosen = {**COMPARE_DEFAULTS, **m.compare}
        chosen["baseline"] = chosen["baseline"] or next(iter(m.runs))
        with _named(m, "compare"):
            comparison = compare_results(results, **chosen)
        options["compare"] = chosen
    if m.groups:
        options["groups"] = {g: list(q) for g, q in m.groups.items()}
    document: dict[str, Any] = {
        "format": FORMAT,
        "name": m.name,
        "ranklens": _version(),
        "manifest": {"path": _relative_to_output(m), "sha256": sha256_of(m.path)},
        "inputs": {
            role: {"path": path, "sha256": sha256_of(m.resolve(path))}
            for role, path in m.inputs().items()
        },
        "options": options,
        "runs": {r.run: _run_entry(r) for r in results},
        "comparison": None if comparison is None else comparison.to_dict(),
        "groups": {g: _group_entry(results, q) for g, q in m.groups.items()},
    }
    return document, comparison


@contextmanager
def _named(m: Manifest, key: str) -> Iterator[None]:
    """An invalid option value given under ``key`` names the manifest and the key."""
    try:
        yield
    except OptionError as exc:
        raise InputError(f"{key}: {exc}", path=m.path) from None


def _version() -> str:
    from ranklens.base.version import __version__

    return __version__


def _relative_to_output(m: Manifest) -> str:
    """The manifest's path as seen from the results file's folder (POSIX separators)."""
    output_folder = os.path.dirname(m.resolve(m.output))
    return os.path.relpath(os.path.abspath(m.path), output_folder).replace(os.sep, "/")


def _run_entry(results: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "aggregate": dict(results.aggregate),
        "per_query": {q: dict(v) for q, v in results.per_query.items()},
        "query_counts": dict(results.query_counts),
    }
    if results.metadata is not None:
        entry["metadata"] = results.metadata.text
    return entry


def _group_entry(results: list[Any], queries: tuple[str, ...]) -> dict[str, Any]:
    """The mean of each measure of each run over the group's queries it was evaluated on."""
    import numpy as np

    wanted = set(queries)
    runs: dict[str, dict[str, float | None]] = {}
    for r in results:
        rows = [i for i, q in enumerate(r.queries) if q in wanted]
        runs[r.run] = {
            name: float(np.mean(r.values[rows, j])) if rows else None
            for j, name in enumerate(r.names)
            if name in r.per_query_names
        }
    found = sorted(wanted.intersection(results[0].queries))
    return {"queries": len(found), "missing": len(wanted) - len(found), "runs": runs}


def write_experiment(
    manifest: Manifest | str | os.PathLike[str],
    *,
    output: str | None = None,
    force: bool = False,
    on_written: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Run ``manifest`` and write what it names: the results file (``output`` instead of
    the manifest's, if given; ``-`` for none), its ``.meta.json`` sidecar, the HTML report,
    the MLflow run.

    The files the manifest names are its own, rewritten on every run; an ``output``
    given here is written over an existing file only with ``force``; no input is ever
    written over.

    Returns
    -------
    dict
        The results document.
    """
    from ranklens.data.output import check_destination, write_atomically

    started = time.time()
    m = manifest if isinstance(manifest, Manifest) else read_manifest(manifest)
    inputs = [m.path, *(m.resolve(p) for p in m.inputs().values())]
    target = m.resolve(m.output) if output is None else output
    if target != "-":
        check_destination(target, inputs, force or output is None)
        if output is not None:
            m = replace(m, output=os.path.relpath(os.path.abspath(output), m.folder))
    if m.report is not None:  # the report is never written over an input either
        with _named(m, "report"):
            check_destination(m.resolve(m.report["path"]), inputs, True)
    document, comparison = run_experiment(m)
    said = on_written or (lambda _path: None)
    meta: dict[str, Any] = {
        "started": time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(started)),
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "argv": sys.argv,
    }
    if m.report is not None:
        meta["report"] = _write_report(m, m.report, document)
        said(_shown(meta["report"]))
    if m.mlflow is not None:
        meta["mlflow_run"] = _log_mlflow(m, m.mlflow, document, comparison)
    meta["seconds"] = round(time.time() - started, 3)
    if target != "-":
        os.makedirs(os.path.dirname(os.path.abspath(target)), exist_ok=True)
        write_atomically(target, dumps(document), inputs=inputs, force=True)
        said(_shown(target))
        write_atomically(target + META_SUFFIX, dumps(meta), inputs=inputs, force=True)
    return document


def _shown(path: str) -> str:
    """``path`` from the current folder when it is below it, else as it is."""
    relative = os.path.relpath(path)
    return path if relative.startswith("..") else relative


def _write_report(m: Manifest, report: dict[str, Any], document: dict[str, Any]) -> str:
    """Write the HTML report the manifest asks for; its path."""
    from ranklens.presentation.reporting import write_report

    path = m.resolve(report["path"])
    os.makedirs(os.path.dirname(path), exist_ok=True)
    write_report(
        path,
        m.resolve(m.qrels),
        {name: m.resolve(p) for name, p in m.runs.items()},
        list(m.measures),
        force=True,
        title=report.get("title", m.name),
        plots=report.get("plots", True),
        explain_limit=report.get("explain_limit", 100),
        **report_options(document),
    )
    return path


def report_options(document: dict[str, Any]) -> dict[str, Any]:
    """The options of a results document that :func:`~ranklens.presentation.reporting
    .build_report` takes (the conventions and the comparison's, those the report shows)."""
    import inspect

    from ranklens.presentation.reporting import build_report

    accepted = inspect.signature(build_report).parameters
    options = document["options"]
    given = {**(options.get("compare") or {}), **options["conventions"]}
    return {k: v for k, v in given.items() if k in accepted}


def _log_mlflow(
    m: Manifest, target: dict[str, Any], document: dict[str, Any], comparison: Any
) -> str:
    """Log the experiment to MLflow (a new run of ``target``'s experiment, at its tracking
    URI) with its inputs' hashes as tags; the MLflow run id."""
    from ranklens.presentation import mlflow_logging
    from ranklens.workflow.store import stored_results

    mlflow = mlflow_logging.mlflow_module()
    previous = mlflow.get_tracking_uri()
    if target.get("tracking_uri"):
        mlflow.set_tracking_uri(target["tracking_uri"])
    try:
        if target.get("experiment"):
            mlflow.set_experiment(target["experiment"])
        with mlflow.start_run(run_name=target.get("run_name", m.name)) as active:
            run_id: str = active.info.run_id
            conventions = document["options"]["conventions"]
            if comparison is not None:
                mlflow_logging.log_comparison(comparison, run_id=run_id, conventions=conventions)
            else:
                mlflow_logging.log_results(
                    stored_results(document), run_id=run_id, conventions=conventions
                )
            mlflow.set_tags(
                {
                    f"ranklens.input.{role}.sha256": entry["sha256"]
                    for role, entry in document["inputs"].items()
                }
                | {"ranklens.experiment": m.name}
            )
    finally:
        mlflow.set_tracking_uri(previous)
    return run_id
