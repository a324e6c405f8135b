"""ranklens: exact, fast evaluation of rankings.

>>> import ranklens
>>> res = ranklens.evaluate({"q1": {"d1": 1}}, {"q1": {"d1": 0.3, "d2": 0.7}}, ["P@2", "RR"])
>>> res.aggregate
{'P@2': 0.5, 'RR': 0.5}
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ranklens.base.version import __version__

__all__ = [
    "Comparison",
    "DuplicateError",
    "EmptyInputError",
    "Evaluator",
    "InputError",
    "InputWarning",
    "Measure",
    "MeasureError",
    "MissingDependencyError",
    "OptionError",
    "ParseError",
    "Qrels",
    "RanklensError",
    "ResourceError",
    "ResultSet",
    "Results",
    "Run",
    "UserMeasureError",
    "__version__",
    "agreement",
    "awrf",
    "bounds",
    "check",
    "compare",
    "define_measure",
    "discriminative_power",
    "evaluate",
    "expected_exposure",
    "explain",
    "fleiss_kappa",
    "fuse",
    "fuse_optimize",
    "judge_bias",
    "judge_bias_regression",
    "judge_prevalence",
    "leaderboard_agreement",
    "meta_analysis",
    "parse_measure",
    "parse_measures",
    "pool",
    "pool_statistics",
    "position_bias",
    "ppi_from_scores",
    "ppi_mean",
    "read_score_set",
    "read_scores",
    "reproduction",
    "swap_rate",
    "topic_set_size",
    "variance_from",
    "write_scores",
]

if TYPE_CHECKING:
    from ranklens.analysis.agreement import agreement
    from ranklens.analysis.bounds import bounds
    from ranklens.analysis.comparison import Comparison, compare
    from ranklens.analysis.exposure import awrf, expected_exposure
    from ranklens.analysis.judge_bias import (
        fleiss_kappa,
        judge_bias,
        judge_bias_regression,
        judge_prevalence,
        position_bias,
    )
    from ranklens.analysis.leaderboard import leaderboard_agreement
    from ranklens.analysis.meta_analysis import meta_analysis
    from ranklens.analysis.pooling import pool, pool_statistics
    from ranklens.analysis.ppi import ppi_from_scores, ppi_mean
    from ranklens.analysis.reproduction import reproduction
    from ranklens.analysis.stats.power import topic_set_size
    from ranklens.analysis.topics import discriminative_power, swap_rate, variance_from
    from ranklens.base.errors import (
        DuplicateError,
        EmptyInputError,
        InputError,
        InputWarning,
        MeasureError,
        MissingDependencyError,
        OptionError,
        ParseError,
        RanklensError,
        ResourceError,
        UserMeasureError,
    )
    from ranklens.data.qrels import Qrels
    from ranklens.data.run import Run
    from ranklens.evaluation.evaluator import Evaluator, evaluate
    from ranklens.evaluation.result_set import ResultSet
    from ranklens.evaluation.results import Results
    from ranklens.evaluation.scores_files import read_score_set, read_scores, write_scores
    from ranklens.fusion import fuse, fuse_optimize
    from ranklens.measures import Measure, parse_measure, parse_measures
    from ranklens.measures.user import define_measure
    from ranklens.presentation.explanation import explain
    from ranklens.workflow.checks import check

_HOME = {
    "agreement": "ranklens.analysis.agreement",
    "bounds": "ranklens.analysis.bounds",
    "awrf": "ranklens.analysis.exposure",
    "expected_exposure": "ranklens.analysis.exposure",
    "fleiss_kappa": "ranklens.analysis.judge_bias",
    "judge_bias": "ranklens.analysis.judge_bias",
    "judge_bias_regression": "ranklens.analysis.judge_bias",
    "judge_prevalence": "ranklens.analysis.judge_bias",
    "position_bias": "ranklens.analysis.judge_bias",
    "leaderboard_agreement": "ranklens.analysis.leaderboard",
    "meta_analysis": "ranklens.analysis.meta_analysis",
    "ppi_from_scores": "ranklens.analysis.ppi",
    "ppi_mean": "ranklens.analysis.ppi",
    "pool": "ranklens.analysis.pooling",
    "pool_statistics": "ranklens.analysis.pooling",
    "reproduction": "ranklens.analysis.reproduction",
    "read_scores": "ranklens.evaluation.scores_files",
    "read_score_set": "ranklens.evaluation.scores_files",
    "write_scores": "ranklens.evaluation.scores_files",
    "compare": "ranklens.analysis.comparison",
    "check": "ranklens.workflow.checks",
    "define_measure": "ranklens.measures.user",
    "Comparison": "ranklens.analysis.comparison",
    "discriminative_power": "ranklens.analysis.topics",
    "swap_rate": "ranklens.analysis.topics",
    "topic_set_size": "ranklens.analysis.stats.power",
    "variance_from": "ranklens.analysis.topics",
    "Evaluator": "ranklens.evaluation.evaluator",
    "evaluate": "ranklens.evaluation.evaluator",
    "explain": "ranklens.presentation.explanation",
    "fuse": "ranklens.fusion",
    "fuse_optimize": "ranklens.fusion",
    "Measure": "ranklens.measures",
    "parse_measure": "ranklens.measures",
    "parse_measures": "ranklens.measures",
    "Qrels": "ranklens.data.qrels",
    "Run": "ranklens.data.run",
    "Results": "ranklens.evaluation.results",
    "ResultSet": "ranklens.evaluation.result_set",
}


def __getattr__(name: str) -> Any:
    """Import the public API lazily, so ``import ranklens`` (and the CLI) start fast."""
    import importlib

    value: Any
    if name in _HOME:
        value = getattr(importlib.import_module(_HOME[name]), name)
    elif name == "mlflow":  # the MLflow integration: ranklens.mlflow.log_results(...)
        value = importlib.import_module("ranklens.mlflow")
    elif name == "rag":  # the room of generated answers: ranklens.rag.nugget_scores(...)
        value = importlib.import_module("ranklens.rag")
    elif name in __all__:
        value = getattr(importlib.import_module("ranklens.base.errors"), name)
    else:
        raise AttributeError(f"module 'ranklens' has no attribute {name!r}")
    # found once: later lookups read the module's attribute and skip this function (a
    # few microseconds a call, which tiny evaluations notice)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """The public API (what ``__all__`` lists), for ``dir(ranklens)`` and completion."""
    return sorted(__all__)
