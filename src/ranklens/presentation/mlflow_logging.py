r"""Logging results to MLflow, where teams keep their experiments (``pip install
'ranklens[mlflow]'``). The public face is :mod:`ranklens.mlflow`; this module does the
work, over MLflow's tracking client, for the library and the command line (``--mlflow``).

What a :class:`~ranklens.Results` (or a :class:`~ranklens.ResultSet`, or a
:class:`~ranklens.Comparison`) becomes in an MLflow run:

=========  ==============================================================================
metrics    each measure's aggregate, under :func:`metric_key` of its name (``nDCG@10`` is
           ``nDCG_at_10``); several runs: ``<run>/<measure>``; a comparison adds, per run
           and measure against the baseline, ``<run>/<measure>/delta``, ``.../p_value``,
           ``.../p_value_corrected``, ``.../ci_low``, ``.../ci_high``,
           ``.../effect_size`` and ``.../significant`` (1 or 0)
params     ``ranklens.measures`` (the canonical names, comma-separated), the conventions
           given (``ranklens.ties``, ``ranklens.queries``, ...) and, for a comparison, its
           test, correction, alpha, confidence, permutations, seed and baseline
tags       ``ranklens.run`` / ``ranklens.runs``, ``ranklens.version``, and each run's
           ir_metadata flattened (``ir_metadata.actor.team``; several runs:
           ``ir_metadata.<run>.actor.team``)
artifacts  ``ranklens/per_query.csv`` (``run, query_id`` and a column per measure),
           ``ranklens/measures.json`` (metric key to measure, with its direction and
           aggregate), ``ranklens/report.html`` (the HTML report), each run's
           ``ranklens/<run>.ir-metadata.yml`` (its ir_metadata, exactly), and for a
           comparison ``ranklens/comparison.csv`` and ``ranklens/comparison.md``
=========  ==============================================================================

MLflow's metric, param and tag names allow letters, digits, ``_ - . / :`` and spaces:
:func:`metric_key` writes ``@`` as ``_at_`` and every other character outside them as
``_`` (names that would then collide are refused). MLflow keeps one value per param:
logging results with other measures or conventions to the same MLflow run is refused by
MLflow; log them to another run.

>>> metric_key("nDCG@10"), metric_key("P(rel=2)@5"), metric_key("RBP(p=0.8)")
('nDCG_at_10', 'P_rel_2_at_5', 'RBP_p_0.8')
"""

from __future__ import annotations

import json
import math
import re
import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ranklens.base.errors import MissingDependencyError, OptionError, ParseError
from ranklens.evaluation.result_set import ResultSet
from ranklens.evaluation.results import Results

if TYPE_CHECKING:
    from ranklens.analysis.comparison import Comparison

_BAD = re.compile(r"[^A-Za-z0-9_\-./ ]+")
MAX_BATCH = 100
"""Params and tags per call of MLflow's ``log_batch`` (MLflow's own limit)."""
MAX_METRICS = 1000
"""Metrics per call of ``log_batch`` (MLflow's limit)."""


def mlflow_module() -> Any:
    """MLflow, imported (raising an install hint when it is missing)."""
    import importlib

    try:
        return importlib.import_module("mlflow")
    except ImportError as exc:
        raise MissingDependencyError(
            "logging to MLflow needs the optional package 'mlflow', which is not installed: "
            "pip install 'ranklens[mlflow]'"
        ) from exc


def metric_key(name: str) -> str:
    """The MLflow key of a measure's or run's name: ``@`` as ``_at_``, quotes and brackets
    dropped, every other character MLflow does not allow as ``_`` (module docstring).

    Raises
    ------
    OptionError
        Nothing is left of ``name``.
    """
    text = name.replace("@", "_at_")
    text = re.sub(r"['\"\[\]{})]", "", text)
    text = _BAD.sub("_", text)
    text = re.sub(r"_+", "_", text).strip("_ ")
    text = re.sub(r"/+", "/", text).strip("/")
    text = re.sub(r"(^|/)\.+(?=/|$)", r"\1_", text)  # no '.' or '..' path parts
    if not text:
        raise OptionError(f"{name!r} gives no MLflow name; rename it")
    return text


def _keys(names: Sequence[str], what: str) -> dict[str, str]:
    """``{name: key}``, refusing two names with one key."""
    out: dict[str, str] = {}
    seen: dict[str, str] = {}
    for name in names:
        key = metric_key(name)
        if key in seen and seen[key] != name:
            raise OptionError(
                f"the {what} {seen[key]!r} and {name!r} have the same MLflow name {key!r}; "
                "rename one of them"
            )
        seen[key] = name
        out[name] = key
    return out


def _run_id(run_id: str | None) -> str:
    """``run_id``, else the active MLflow run's, else that of a run started now (left
    active, as MLflow's own ``log_metric`` does)."""
    if run_id is not None:
        return run_id
    mlflow = mlflow_module()
    active = mlflow.active_run()
    if active is None:
        active = mlflow.start_run()
    return str(active.info.run_id)


def _finite_or_nan(value: float) -> float:
    return float(value) if value is not None else math.nan


class _Batch:
    """Metrics, params and tags gathered, then sent in batches within MLflow's limits."""

    def __init__(self) -> None:
        self.metrics: dict[str, float] = {}
        self.params: dict[str, str] = {}
        self.tags: dict[str, str] = {}
        self.texts: dict[str, str] = {}

    def send(self, run_id: str) -> None:
        import importlib

        mlflow_module()  # the install hint, if it is missing
        entities = importlib.import_module("mlflow.entities")
        Metric, Param, RunTag = entities.Metric, entities.Param, entities.RunTag  # noqa: N806
        client = importlib.import_module("mlflow.tracking").MlflowClient()
        now = int(time.time() * 1000)
        metrics = [Metric(k, v, now, 0) for k, v in self.metrics.items()]
        params = [Param(k, v) for k, v in self.params.items()]
        tags = [RunTag(k, v) for k, v in self.tags.items()]
        for start in range(0, len(metrics), MAX_METRICS):
            client.log_batch(run_id, metrics=metrics[start : start + MAX_METRICS])
        for start in range(0, len(params), MAX_BATCH):
            client.log_batch(run_id, params=params[start : start + MAX_BATCH])
        for start in range(0, len(tags), MAX_BATCH):
            client.log_batch(run_id, tags=tags[start : start + MAX_BATCH])
        for path, text in self.texts.items():
            client.log_text(run_id, text, path)


def _as_list(results: Results | ResultSet | Sequence[Results]) -> list[Results]:
    if isinstance(results, Results):
        return [results]
    out = list(results)
    if not out or not all(isinstance(r, Results) for r in out):
        raise OptionError("give Results, a ResultSet or a list of Results to log")
    return out


def _measure_info(runs: Sequence[Results], keys: Mapping[str, str]) -> str:
    info: dict[str, Any] = {}
    for r in runs:
        for m in r.measures:
            info[keys[m.name]] = {
                "measure": m.name,
                "higher_is_better": m.spec.higher_is_better,
                "aggregate": m.spec.aggregate,
            }
    return json.dumps(info, indent=2, ensure_ascii=False) + "\n"


def _metadata_tags(batch: _Batch, runs: Sequence[Results], several: bool) -> None:
    for r in runs:
        if r.metadata is None:
            continue
        folder = f"{metric_key(r.run)}." if several else ""
        batch.texts[f"ranklens/{metric_key(r.run)}.ir-metadata.yml"] = r.metadata.text
        prefix = f"ir_metadata.{folder}"
        try:
            entries = r.metadata.flat()
        except (MissingDependencyError, ParseError):
            batch.tags[f"{prefix}text"] = r.metadata.text  # unreadable YAML: the text
            continue
        for key, value in entries.items():
            batch.tags[prefix + metric_key(key)] = value


def _per_query_csv(runs: Sequence[Results]) -> str:
    import io

    from ranklens.evaluation.scores_files import write_scores

    buffer = io.StringIO()
    same = all(r.names == runs[0].names for r in runs)
    write_scores(list(runs), buffer, "csv", layout="wide" if same else "long")
    return buffer.getvalue()


def _gather_results(
    runs: Sequence[Results],
    several: bool,
    conventions: Mapping[str, Any] | None,
    report: bool,
) -> _Batch:
    from ranklens.base.version import __version__

    batch = _Batch()
    names = list(dict.fromkeys(n for r in runs for n in r.names))
    keys = _keys(names, "measures")
    run_keys = _keys([r.run for r in runs], "runs")
    for r in runs:
        prefix = f"{run_keys[r.run]}/" if several else ""
        for name, value in r.aggregate.items():
            batch.metrics[prefix + keys[name]] = _finite_or_nan(value)
    batch.params["ranklens.measures"] = ", ".join(names)
    for key, value in (conventions or {}).items():
        batch.params[f"ranklens.{metric_key(str(key))}"] = str(value)
    batch.tags["ranklens.version"] = __version__
    if several:
        batch.tags["ranklens.runs"] = ", ".join(r.run for r in runs)
    else:
        batch.tags["ranklens.run"] = runs[0].run
    _metadata_tags(batch, runs, several)
    batch.texts["ranklens/per_query.csv"] = _per_query_csv(runs)
    batch.texts["ranklens/measures.json"] = _measure_info(runs, keys)
    if report:
        from ranklens.presentation.reporting._scores import build_scores_report

        batch.texts["ranklens/report.html"] = build_scores_report(list(runs))
    return batch


def log_results(
    results: Results | ResultSet | Sequence[Results],
    *,
    run_id: str | None = None,
    conventions: Mapping[str, Any] | None = None,
    report: bool = True,
) -> str:
    """Log ``results`` to an MLflow run (module docstring: what goes where).

    Parameters
    ----------
    results
        One run's :class:`~ranklens.Results`, or several (a :class:`~ranklens.ResultSet`
        or a list): then every metric is ``<run>/<measure>``.
    run_id
        The MLflow run to log to (default: the active run; one is started if none is, as
        ``mlflow.log_metric`` does).
    conventions
        How the values were computed, logged as params ``ranklens.<name>``: e.g.
        ``{"ties": "trec_eval", "queries": "qrels", "depth": None}`` (results do not carry
        them: say them here).
    report
        Also log the HTML report (``ranklens/report.html``).

    Returns
    -------
    str
        The MLflow run id.
    """
    runs = _as_list(results)
    several = not isinstance(results, Results)
    batch = _gather_results(runs, several, conventions, report)
    target = _run_id(run_id)
    batch.send(target)
    return target


def log_comparison(
    comparison: Comparison,
    *,
    run_id: str | None = None,
    conventions: Mapping[str, Any] | None = None,
    report: bool = True,
) -> str:
    """Log a :class:`~ranklens.Comparison` to an MLflow run: every run's means
    (``<run>/<measure>``), each run's statistics against the baseline
    (``<run>/<measure>/delta`` ...), the comparison's options as params, its tables and the
    HTML report as artifacts (module docstring).

    Parameters
    ----------
    comparison
        What :func:`ranklens.compare` returned.
    run_id, conventions, report
        As for :func:`log_results`.

    Returns
    -------
    str
        The MLflow run id.
    """
    runs = list(comparison.results)
    batch = _gather_results(runs, True, conventions, False)
    keys = _keys(list(comparison.measures), "measures")
    run_keys = _keys(list(comparison.runs), "runs")
    batch.metrics = {}  # the means over the compared topics, not each run's own
    for run in comparison.runs:
        for m in comparison.measures:
            base = f"{run_keys[run]}/{keys[m]}"
            batch.metrics[base] = _finite_or_nan(comparison.means[run][m])
            if run == comparison.baseline:
                continue
            st = comparison.vs_baseline[run][m]
            batch.metrics[f"{base}/delta"] = st.delta
            batch.metrics[f"{base}/p_value"] = st.p_value
            batch.metrics[f"{base}/p_value_corrected"] = st.p_value_corrected
            batch.metrics[f"{base}/ci_low"] = st.ci_low
            batch.metrics[f"{base}/ci_high"] = st.ci_high
            batch.metrics[f"{base}/effect_size"] = st.effect_size
            batch.metrics[f"{base}/significant"] = 1.0 if st.significant else 0.0
    batch.metrics["ranklens.queries_compared"] = float(len(comparison.queries))
    batch.params["ranklens.measures"] = ", ".join(comparison.measures)
    for option in ("test", "correction", "alpha", "confidence", "permutations", "seed"):
        batch.params[f"ranklens.{option}"] = str(getattr(comparison, option))
    batch.params["ranklens.baseline"] = comparison.baseline
    batch.params["ranklens.all_pairs"] = str(comparison.all_pairs)
    batch.texts["ranklens/comparison.csv"] = comparison.to_csv()
    batch.texts["ranklens/comparison.md"] = comparison.to_markdown()
    if report:
        from ranklens.presentation.reporting._scores import build_scores_report

        batch.texts["ranklens/report.html"] = build_scores_report(runs, comparison)
    target = _run_id(run_id)
    batch.send(target)
    return target


__all__ = ["log_comparison", "log_results", "metric_key", "mlflow_module"]
