"""ranklens in MLflow: log results where teams keep experiments, and evaluate ranking and
retrieval models with ``mlflow.evaluate(..., evaluators="ranklens")``.

``pip install 'ranklens[mlflow]'``. See ``docs/mlflow.md``.

- :func:`log_results` logs a :class:`~ranklens.Results` or a :class:`~ranklens.ResultSet`
  to the active MLflow run (or ``run_id``): the aggregates as metrics, the measures and
  conventions as params, the runs' names and ir_metadata as tags, the per-query table and
  the HTML report as artifacts (:mod:`ranklens.presentation.mlflow_logging`);
  :func:`log_comparison` does the same for a :class:`~ranklens.Comparison`, with each
  run's statistics against the baseline;
- :class:`RanklensEvaluator` is an MLflow evaluator plugin (entry point
  ``mlflow.model_evaluator``, name ``ranklens``): ``mlflow.evaluate(model, data,
  model_type="retriever", evaluators="ranklens", targets=..., predictions=...)`` computes
  trec_eval-exact measures instead of MLflow's own retriever metrics, whose nDCG is wrong
  in two cases (mlflow#24541, mlflow#25965; docs/mlflow.md shows both). Without the
  entry point installed, :func:`register_evaluator` registers it.

>>> from ranklens.mlflow import metric_key
>>> metric_key("nDCG@10")
'nDCG_at_10'
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ranklens.base.errors import InputError, OptionError
from ranklens.presentation.mlflow_logging import (
    log_comparison,
    log_results,
    metric_key,
    mlflow_module,
)

__all__ = [
    "RanklensEvaluator",
    "log_comparison",
    "log_results",
    "metric_key",
    "register_evaluator",
    "retrieval_results",
]

EVALUATOR_NAME = "ranklens"
MODEL_TYPES = ("retriever", "ranking")
"""The ``model_type`` values :class:`RanklensEvaluator` evaluates."""
CONFIG_KEYS = (
    "measures",
    "retriever_k",
    "query_id",
    "ties",
    "queries",
    "depth",
    "duplicates",
    "report",
)
"""The ``evaluator_config`` keys :class:`RanklensEvaluator` reads."""


def _doc_id(value: Any, row: int) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bool) or value is None:
        raise InputError(f"row {row}: {value!r} is not a document id")
    if isinstance(value, int | float) and not (isinstance(value, float) and math.isnan(value)):
        return str(int(value)) if float(value).is_integer() else str(value)
    if type(value).__module__.split(".")[0] == "numpy":
        return _doc_id(value.item(), row)
    raise InputError(f"row {row}: {value!r} is not a document id")


def _items(value: Any) -> list[Any]:
    """A cell holding a list (a list, tuple, numpy array, pandas Series; a JSON text of a
    list is not unpacked)."""
    if value is None:
        return []
    if isinstance(value, float) and math.isnan(value):
        return []
    if isinstance(value, str | bytes | Mapping):
        return [value]
    if hasattr(value, "tolist"):
        return list(value.tolist())
    if isinstance(value, Iterable):
        return list(value)
    return [value]


def _ranking(value: Any, row: int) -> list[tuple[str, float]]:
    """A row's prediction as ``(doc, score)``: a list of document ids in rank order (scores
    ``n, n-1, ..., 1``: no ties), ``(doc, score)`` pairs, or ``{doc: score}``."""
    if isinstance(value, Mapping):
        return [(_doc_id(d, row), float(s)) for d, s in value.items()]
    items = _items(value)
    if items and all(isinstance(x, list | tuple) and len(x) == 2 for x in items):
        return [(_doc_id(d, row), float(s)) for d, s in items]
    n = len(items)
    return [(_doc_id(d, row), float(n - i)) for i, d in enumerate(items)]


def _judged(value: Any, row: int) -> list[tuple[str, int]]:
    """A row's targets as ``(doc, grade)``: relevant document ids (grade 1; one that is
    listed twice counts once) or ``{doc: grade}``."""
    if isinstance(value, Mapping):
        out = []
        for d, g in value.items():
            if isinstance(g, bool) or not float(g).is_integer():
                raise InputError(f"row {row}: the grade of {d!r} must be an integer, not {g!r}")
            out.append((_doc_id(d, row), int(g)))
        return out
    return [(d, 1) for d in dict.fromkeys(_doc_id(x, row) for x in _items(value))]


def retrieval_results(
    predictions: Sequence[Any],
    targets: Sequence[Any],
    measures: Iterable[str] | str,
    *,
    query_ids: Sequence[Any] | None = None,
    name: str = "model",
    **options: Any,
) -> Any:
    """ranklens' :class:`~ranklens.Results` of MLflow-style retrieval data: one row per
    query, ``predictions[i]`` the documents retrieved (ids in rank order, ``(doc, score)``
    pairs or ``{doc: score}``) and ``targets[i]`` the relevant ones (ids, or ``{doc:
    grade}``).

    Parameters
    ----------
    predictions, targets
        One entry per query.
    measures
        ranklens measures (``"nDCG@10"``, ``"P@5"``, trec_eval names).
    query_ids
        The queries' ids (default: ``"0"``, ``"1"``, ...); they must be unique.
    name
        The run's name.
    **options
        :class:`~ranklens.Evaluator`'s conventions (``ties``, ``queries``, ``depth``,
        ``duplicates``; a document retrieved twice in one row is an error unless
        ``duplicates="first"`` or ``"max"``).

    Raises
    ------
    InputError
        Rows of different lengths, ids that repeat, a prediction or target that is none of
        the forms above.
    """
    from ranklens.data.qrels import Qrels
    from ranklens.data.run import Run
    from ranklens.evaluation.evaluator import evaluate

    if len(predictions) != len(targets):
        raise InputError(f"{len(predictions)} predictions for {len(targets)} targets")
    ids = [str(i) for i in range(len(targets))] if query_ids is None else list(query_ids)
    if len(ids) != len(targets):
        raise InputError(f"{len(ids)} query ids for {len(targets)} rows")
    qids = [_doc_id(q, i) for i, q in enumerate(ids)]
    seen: dict[str, int] = {}
    for i, q in enumerate(qids):
        if q in seen:
            raise InputError(
                f"query id {q!r} is on rows {seen[q]} and {i}: each row is one query; give "
                "unique ids (evaluator_config={'query_id': column})"
            )
        seen[q] = i
    judged = [(q, d, g) for i, q in enumerate(qids) for d, g in _judged(targets[i], i)]
    ranked = [(q, d, s) for i, q in enumerate(qids) for d, s in _ranking(predictions[i], i)]
    duplicates = options.pop("duplicates", "error")
    if not judged:
        raise InputError("no row has a relevant document: nothing to evaluate against")
    qrels = Qrels.from_records(judged)
    if ranked:
        run = Run.from_records(ranked, name=name, duplicates=duplicates)
    else:
        run = Run.from_dict({}, name=name)
    if not set(run.qids) & set(qrels.qids):
        # no row with targets retrieved anything: each scores as retrieving nothing (the
        # rows are the queries, so this is no mismatch of ids to refuse)
        from ranklens.evaluation.evaluator import Evaluator

        return Evaluator(qrels, measures, **options).evaluate_part(run)
    return evaluate(qrels, run, measures, duplicates=duplicates, **options)


class RanklensEvaluator:
    """MLflow's evaluator plugin for ranking and retrieval models
    (``model_type="retriever"`` or ``"ranking"``).

    ``evaluator_config`` (all optional): ``measures`` (ranklens names; default MLflow's
    retriever metrics made exact: ``P@k``, ``R@k``, ``nDCG@k`` with ``k = retriever_k``,
    default 3), ``query_id`` (the feature column holding query ids; default the data's
    row index), ``ties``, ``queries``, ``depth``, ``duplicates`` (as for
    :class:`~ranklens.Evaluator`) and ``report`` (log the HTML report, default
    ``True``). The data: each row one query; the targets column the relevant document ids
    (or ``{doc: grade}``), the predictions (the model's output or the ``predictions``
    column) the retrieved ids in rank order (or ``(doc, score)`` pairs, ``{doc:
    score}``). Metrics are named by :func:`metric_key` (``nDCG_at_3``); the per-query
    table and the report are logged as :func:`log_results` logs them.
    """

    name = EVALUATOR_NAME

    @classmethod
    def can_evaluate(cls, *, model_type: Any, evaluator_config: Any, **kwargs: Any) -> bool:
        """Whether ``model_type`` is a ranking or retrieval model."""
        return model_type in MODEL_TYPES

    def evaluate(
        self,
        *,
        model_type: Any,
        dataset: Any,
        run_id: str,
        evaluator_config: Mapping[str, Any] | None,
        model: Any = None,
        extra_metrics: Any = None,
        custom_artifacts: Any = None,
        predictions: str | None = None,
        **kwargs: Any,
    ) -> Any:
        """Evaluate the rows of ``dataset`` with ranklens and log to ``run_id`` (MLflow
        calls this from ``mlflow.evaluate``)."""
        evaluation = importlib.import_module("mlflow.models.evaluation")
        config = dict(evaluator_config or {})
        unknown = sorted(set(config) - set(CONFIG_KEYS))
        if unknown:
            raise OptionError(
                f"evaluator_config of the ranklens evaluator: unknown {', '.join(unknown)} "
                f"(it reads {', '.join(CONFIG_KEYS)})"
            )
        if extra_metrics or custom_artifacts:
            raise OptionError(
                "the ranklens evaluator computes ranklens measures (evaluator_config="
                "{'measures': [...]}); extra_metrics and custom_artifacts are MLflow's "
                "default evaluator's"
            )
        k = int(config.get("retriever_k", 3))
        measures = config.get("measures") or [f"P@{k}", f"R@{k}", f"nDCG@{k}"]
        features = dataset.features_data
        outputs = dataset.predictions_data
        if outputs is None:
            if model is None:
                raise OptionError("give a model, or the predictions column of the data")
            outputs = model.predict(features)
            if hasattr(outputs, "columns"):
                column = predictions or outputs.columns[0]
                outputs = outputs[column]
        targets = dataset.labels_data
        if targets is None:
            raise OptionError("give the targets column: the relevant documents of each query")
        column_name = config.get("query_id")
        if column_name is not None:
            columns = [str(c) for c in getattr(features, "columns", ())]
            if column_name not in columns:
                raise OptionError(
                    f"evaluator_config={{'query_id': {column_name!r}}}: the data has no column "
                    f"{column_name!r} (its feature columns: {', '.join(columns) or 'none'}); "
                    "name the column holding the query ids, or leave query_id out"
                )
            query_ids = list(features[column_name])
        elif hasattr(features, "index"):
            query_ids = [str(i) for i in features.index]
        else:
            query_ids = None
        options = {k: config[k] for k in ("ties", "queries", "depth", "duplicates") if k in config}
        results = retrieval_results(
            _items(outputs),
            _items(targets),
            measures,
            query_ids=query_ids,
            name=str(getattr(dataset, "name", "model")),
            **options,
        )
        conventions = {
            "ties": options.get("ties", "trec_eval"),
            "queries": options.get("queries", "qrels"),
            "depth": options.get("depth"),
            "duplicates": options.get("duplicates", "error"),
        }
        log_results(
            results, run_id=run_id, conventions=conventions, report=config.get("report", True)
        )
        metrics = {metric_key(n): float(v) for n, v in results.aggregate.items()}
        return evaluation.EvaluationResult(metrics=metrics, artifacts={})


def register_evaluator() -> None:
    """Register :class:`RanklensEvaluator` with MLflow under ``"ranklens"`` (what the
    ``mlflow.model_evaluator`` entry point of an installed ranklens does by itself)."""
    mlflow_module()
    registry = importlib.import_module("mlflow.models.evaluation.evaluator_registry")
    registry._model_evaluation_registry.register(EVALUATOR_NAME, RanklensEvaluator)
