"""ranx's fusion optimisers (``ranx.fusion_optimization``): one grid search or trainer per
method, as :func:`ranklens.compat.ranx.optimize_fusion` calls them.

Each grid search fuses the (normalised) runs with every configuration of ranx's grid, in
ranx's order, evaluates the fused run with :func:`~ranklens.compat.ranx.evaluate` and keeps
the last configuration of the highest score (ranx's ``score >= best_score``, from 0). The
weight grids are ranx's: the multiples of ``step`` in ``[0, 1]`` rounded to ``step``'s
digits, every tuple of them whose float sum is exactly 1.0 (so a few tuples summing to 1
only on paper, such as ``(0.1, 0.2, 0.7)``, are not tried, as in ranx). ranklens'
:func:`ranklens.fusion.fuse_optimize` searches the exact simplex and keeps the first best,
so it is not used here.

>>> from ranklens.compat.ranx.fusion_optimization import get_trial_configs, get_possible_weights
>>> [tuple(float(w) for w in c) for c in get_trial_configs(get_possible_weights(0.5), 2)]
[(0.0, 1.0), (0.5, 0.5), (1.0, 0.0)]
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from itertools import product
from typing import Any

import numpy as np

from ranklens.base.errors import OptionError
from ranklens.compat.ranx.data_structures.run import RanxTies
from ranklens.compat.ranx.fusion import (
    bayesfuse_train,
    mapfuse_train,
    posfuse_train,
    probfuse_train,
    segfuse_train,
    slidefuse_train,
)
from ranklens.compat.ranx.meta.evaluate import evaluate
from ranklens.compat.ranx.meta.fuse import fused_run

__all__ = [
    "SEARCHED",
    "get_possible_weights",
    "get_trial_configs",
    "has_hyperparams",
    "optimization_switch",
    "optimize_bayesfuse",
    "optimize_comb_gmnz",
    "optimize_logn_isr",
    "optimize_mapfuse",
    "optimize_mixed",
    "optimize_posfuse",
    "optimize_probfuse",
    "optimize_rbc",
    "optimize_rrf",
    "optimize_segfuse",
    "optimize_slidefuse",
    "optimize_weighted_bordafuse",
    "optimize_weighted_condorcet",
    "optimize_weights",
    "optimize_wmnz",
    "optimize_wsum",
]

Runs = Sequence[Any]
Found = dict[str, Any] | tuple[dict[str, Any], dict[str, float]]

SEARCHED = frozenset(
    {"logn_isr", "gmnz", "mixed", "probfuse", "rbc", "rrf", "slidefuse"}
    | {"w_bordafuse", "w_condorcet", "wmnz", "wsum"}
)
"""The methods whose parameters ranx searches (the others it optimises are trained)."""


def get_possible_weights(step: float) -> list[Any]:
    """ranx's weights of one run: ``0, step, ..., 1`` rounded to ``step``'s digits."""
    return [round(x, str(step)[::-1].find(".")) for x in np.arange(0, 1 + step, step)]


def get_trial_configs(weights: Sequence[Any], n_runs: int) -> list[tuple[Any, ...]]:
    """ranx's weight vectors: the ``n_runs``-tuples of ``weights`` whose sum is 1.0."""
    return [seq for seq in product(*[weights] * n_runs) if sum(seq) == 1.0]


def _search(
    qrels: Any,
    runs: Runs,
    method: str | Callable[..., Any],
    metric: str,
    trials: Sequence[Any],
    params: Callable[[Any], dict[str, Any]],
    ties: RanxTies,
) -> tuple[Any, dict[str, float]]:
    """The last of ``trials`` with the highest mean ``metric`` of ``runs`` fused by
    ``method`` (a ranx method name, or a fusion function of
    :mod:`ranklens.compat.ranx.fusion`) with ``params(trial)`` (ranx's ``>=`` from 0), and
    every trial's score."""
    best_score = 0.0
    best: Any = []
    scores: dict[str, float] = {}
    for trial in trials:
        if callable(method):
            fused = method(runs, **params(trial))
        else:
            fused = fused_run(runs, method, None, params(trial), method, ties)
        score = evaluate(qrels, fused, metric, save_results_in_run=False, ties=ties)
        scores[str(trial)] = score
        if score >= best_score:
            best_score, best = score, trial
    return best, scores


def _found(best: dict[str, Any], scores: dict[str, float], report: bool) -> Found:
    return (best, scores) if report else best


def optimize_weights(
    fusion_method: str | Callable[..., Any],
    qrels: Any,
    runs: Runs,
    metric: str,
    step: float = 0.1,
    show_progress: bool = True,
    description: str = "Optimizing weights",
    return_optimization_report: bool = False,
    *,
    ties: RanxTies = "ranx",
) -> Found:
    """ranx's weight search of ``fusion_method`` (a ranx method name, or as in ranx a
    fusion function such as :func:`ranklens.compat.ranx.fusion.wsum`) over
    :func:`get_trial_configs`: ``{"weights": best}`` (and ``{str(weights): score}``).
    ``show_progress`` and ``description`` are accepted and not shown."""
    trials = get_trial_configs(get_possible_weights(step), len(runs))
    best, scores = _search(
        qrels, runs, fusion_method, metric, trials, lambda w: {"weights": w}, ties
    )
    return _found({"weights": best}, scores, return_optimization_report)


def _weights_of(method: str) -> Callable[..., Found]:
    def optimize(
        qrels: Any,
        runs: Runs,
        metric: str,
        step: float = 0.1,
        show_progress: bool = True,
        return_optimization_report: bool = False,
        *,
        ties: RanxTies = "ranx",
    ) -> Found:
        return optimize_weights(
            method,
            qrels,
            runs,
            metric,
            step,
            show_progress,
            "",
            return_optimization_report,
            ties=ties,
        )

    optimize.__doc__ = f"ranx's weight search of ``{method}`` (:func:`optimize_weights`)."
    return optimize


optimize_wsum = _weights_of("wsum")
optimize_wmnz = _weights_of("wmnz")
optimize_mixed = _weights_of("mixed")
optimize_weighted_bordafuse = _weights_of("w_bordafuse")
optimize_weighted_condorcet = _weights_of("w_condorcet")


def _float_grid(low: float, high: float, step: float) -> list[Any]:
    digits = str(step)[::-1].find(".")
    return [round(x, digits) for x in np.arange(low, high + step, step)]


def _scalar_of(
    method: str, name: str, low: float, high: float, step: float
) -> Callable[..., Found]:
    def optimize(
        qrels: Any,
        runs: Runs,
        metric: str,
        show_progress: bool = True,
        return_optimization_report: bool = False,
        *,
        ties: RanxTies = "ranx",
        **grid: float,
    ) -> Found:
        bounds = {f"min_{name}": low, f"max_{name}": high, "step": step}
        unknown = sorted(set(grid) - set(bounds))
        if unknown:
            raise OptionError(f"optimize_fusion({method!r}) takes no option {unknown[0]!r}")
        bounds.update(grid)
        lo, hi, by = bounds[f"min_{name}"], bounds[f"max_{name}"], bounds["step"]
        trials = (
            list(range(int(lo), int(hi) + 1, int(by)))
            if method == "rrf"
            else (_float_grid(lo, hi, by))
        )
        best, scores = _search(qrels, runs, method, metric, trials, lambda v: {name: v}, ties)
        return _found({name: best}, scores, return_optimization_report)

    optimize.__doc__ = (
        f"ranx's search of ``{method}``'s ``{name}`` from ``min_{name}={low}`` to "
        f"``max_{name}={high}`` by ``step={step}``: ``{{{name!r}: best}}``."
    )
    return optimize


optimize_comb_gmnz = _scalar_of("gmnz", "gamma", 0.01, 1.0, 0.01)
optimize_logn_isr = _scalar_of("logn_isr", "sigma", 0.01, 1.0, 0.01)
optimize_rbc = _scalar_of("rbc", "phi", 0.01, 1.0, 0.01)
optimize_rrf = _scalar_of("rrf", "k", 10, 100, 10)


def optimize_probfuse(
    qrels: Any,
    runs: Runs,
    metric: str,
    min_n_segments: int = 1,
    max_n_segments: int = 100,
    show_progress: bool = True,
    return_optimization_report: bool = False,
    *,
    ties: RanxTies = "ranx",
) -> Found:
    """ranx's search of ProbFuse's number of segments: ``{"probs": best}``, the
    probabilities trained with the best number."""
    n_segments, scores = _search(
        qrels,
        runs,
        "probfuse",
        metric,
        list(range(min_n_segments, max_n_segments + 1)),
        lambda n: {"probs": probfuse_train(qrels, runs, n)},
        ties,
    )
    # the best number's probabilities, trained again (the training is deterministic)
    best = None if n_segments == [] else probfuse_train(qrels, runs, n_segments)
    return _found({"probs": best}, scores, return_optimization_report)


def optimize_slidefuse(
    qrels: Any,
    runs: Runs,
    metric: str,
    min_w: int = 1,
    max_w: int = 100,
    show_progress: bool = True,
    return_optimization_report: bool = False,
    *,
    ties: RanxTies = "ranx",
) -> Found:
    """ranx's search of SlideFuse's window ``w``: ``{"probs": trained, "w": best}``."""
    probs = slidefuse_train(qrels, runs)
    best, scores = _search(
        qrels,
        runs,
        "slidefuse",
        metric,
        list(range(min_w, max_w + 1)),
        lambda w: {"probs": probs, "w": w},
        ties,
    )
    return _found({"probs": probs, "w": best}, scores, return_optimization_report)


def optimize_bayesfuse(qrels: Any, runs: Runs) -> dict[str, Any]:
    """``{"log_odds": bayesfuse_train(qrels, runs)}``."""
    return {"log_odds": bayesfuse_train(qrels, runs)}


def optimize_mapfuse(qrels: Any, runs: Runs) -> dict[str, Any]:
    """``{"map_scores": mapfuse_train(qrels, runs)}``."""
    return {"map_scores": mapfuse_train(qrels, runs)}


def optimize_posfuse(qrels: Any, runs: Runs) -> dict[str, Any]:
    """``{"probs": posfuse_train(qrels, runs)}``."""
    return {"probs": posfuse_train(qrels, runs)}


def optimize_segfuse(qrels: Any, runs: Runs) -> dict[str, Any]:
    """``{"probs": segfuse_train(qrels, runs)}``."""
    return {"probs": segfuse_train(qrels, runs)}


_SWITCH: Mapping[str, Callable[..., Any]] = {
    "logn_isr": optimize_logn_isr,
    "gmnz": optimize_comb_gmnz,
    "mixed": optimize_mixed,
    "probfuse": optimize_probfuse,
    "rbc": optimize_rbc,
    "rrf": optimize_rrf,
    "slidefuse": optimize_slidefuse,
    "w_bordafuse": optimize_weighted_bordafuse,
    "w_condorcet": optimize_weighted_condorcet,
    "wmnz": optimize_wmnz,
    "wsum": optimize_wsum,
    # trained, not searched
    "bayesfuse": optimize_bayesfuse,
    "mapfuse": optimize_mapfuse,
    "posfuse": optimize_posfuse,
    "segfuse": optimize_segfuse,
}


def has_hyperparams(method: str) -> bool:
    """Whether ranx searches ``method``'s parameters (and so has an optimisation report).

    Raises
    ------
    OptionError
        A method without one (a ``ValueError``, as ranx's).
    """
    if method in SEARCHED:
        return True
    raise OptionError(
        f"{method} does not support optimization report: use one of {sorted(SEARCHED)}"
    )


def optimization_switch(method: str) -> Callable[..., Any]:
    """The optimiser of ranx's method name ``method``.

    Raises
    ------
    OptionError
        A method ranx does not optimise (a ``ValueError``, as ranx's).
    """
    if method not in _SWITCH:
        raise OptionError(f"{method} does not support optimization: use one of {sorted(_SWITCH)}")
    return _SWITCH[method]
