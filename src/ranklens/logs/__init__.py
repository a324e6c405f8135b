"""Evaluation from user logs: click logs read and validated, click models estimated and
turned into qrels, click measures, interleaving experiments and counterfactual estimates
(see ``docs/logs.md``).

>>> from ranklens.logs import read_log, fit_click_model
>>> log = read_log({"session_id": [1, 1], "query_id": ["q", "q"], "doc_id": ["a", "b"],
...                 "position": [1, 2], "clicked": [False, True]})
>>> fit_click_model(log, "SDBN", prior=None, method="closed").attractiveness
{'q': {'a': 0.0, 'b': 1.0}}
"""

from __future__ import annotations

from ranklens.logs.click_models import (
    MODELS,
    ClickModel,
    Evaluation,
    fit_click_model,
    fit_click_models,
)
from ranklens.logs.counterfactual import ESTIMATORS, Estimate, counterfactual, position_bias
from ranklens.logs.interleaving import (
    Interleaved,
    InterleavingResult,
    NotEstimableError,
    impressions_needed,
    interleave,
    interleaving,
    interleaving_power,
    multileaving,
)
from ranklens.logs.log import ClickLog
from ranklens.logs.measures import click_measures
from ranklens.logs.read import read_log
from ranklens.logs.simulate import simulate_log

__all__ = [
    "ESTIMATORS",
    "MODELS",
    "ClickLog",
    "ClickModel",
    "Estimate",
    "Evaluation",
    "Interleaved",
    "InterleavingResult",
    "NotEstimableError",
    "click_measures",
    "counterfactual",
    "fit_click_model",
    "fit_click_models",
    "impressions_needed",
    "interleave",
    "interleaving",
    "interleaving_power",
    "multileaving",
    "position_bias",
    "read_log",
    "simulate_log",
]
