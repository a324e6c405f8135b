r"""Do two sets of judgments rank the systems alike? The leaderboard under each, compared.

:func:`leaderboard_agreement` evaluates every run under both sets of judgments (say, human
and LLM qrels; or takes two :class:`~ranklens.ResultSet`\ s) and, per measure, compares
the two orderings of the runs by their aggregate:

* ``kendall_tau`` (tau-b) and ``spearman_rho`` (:func:`scipy.stats.kendalltau`,
  :func:`scipy.stats.spearmanr`);
* ``tau_ap``: AP correlation of the ordering under B against the one under A (swaps near
  the top cost more; :func:`~ranklens.analysis.stats.rank_similarity.tau_ap`);
* ``rbo``: extrapolated rank-biased overlap of the two orderings (``p``, ties by Corsi and
  Urbano's variant ``rbo_ties``, ``"w"`` by default: systems with equal scores are equal;
  :func:`~ranklens.analysis.stats.rank_similarity.rank_biased_overlap`);
* ``top_k_overlap``: the share of the ``top_k`` best runs under A that are also among the
  ``top_k`` best under B (ties at the boundary resolved by name, the order shown);
* ``max_rank_change`` and ``max_rank_change_run``: the largest move of a run's position
  (1 = best; ties share the best position of their group) and the run that moved (``None``
  when none did);
* ``swaps``: the pairs of runs ordered one way under A and the other way under B (a pair
  tied under either is not a swap).

Examples
--------
>>> import ranklens
>>> human = {"q1": {"a": 1, "b": 0}, "q2": {"c": 1}}
>>> llm = {"q1": {"a": 0, "b": 1}, "q2": {"c": 1}}
>>> runs = {"x": {"q1": {"a": 2, "b": 1}, "q2": {"c": 1}},
...         "y": {"q1": {"b": 2, "a": 1}, "q2": {"c": 1}},
...         "z": {"q1": {"b": 2}, "q2": {"d": 1}}}
>>> res = ranklens.leaderboard_agreement(human, llm, runs, ["P@1"])
>>> res["P@1"].order_a, res["P@1"].order_b
(('x', 'y', 'z'), ('y', 'x', 'z'))
>>> res["P@1"].swaps
(('x', 'y'),)
>>> round(res["P@1"]["kendall_tau"], 4), round(res["P@1"]["tau_ap"], 4)
(0.0, 0.0)
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ranklens.analysis.named_numbers import NamedNumbers
from ranklens.analysis.stats.rank_similarity import RboTies, rank_biased_overlap, tau_ap
from ranklens.base.errors import InputError, OptionError
from ranklens.data.coerce import QrelsLike, RunLike
from ranklens.evaluation.evaluator import Evaluator
from ranklens.evaluation.result_set import ResultSet
from ranklens.measures import Measure

_stats: Any = importlib.import_module("scipy.stats")  # untyped: scipy ships no stubs

NUMBERS = (
    "kendall_tau",
    "tau_ap",
    "spearman_rho",
    "rbo",
    "top_k_overlap",
    "max_rank_change",
)
"""The numbers each :class:`LeaderboardComparison` maps."""


@dataclass(frozen=True)
class LeaderboardComparison(NamedNumbers[float]):
    """The two orderings of the runs by one measure, compared: a mapping of
    :data:`NUMBERS` to values, with the orderings and the swapped pairs beside it."""

    measure: str
    numbers: dict[str, float]
    """``{number: value}``, what the mapping holds."""
    scores_a: dict[str, float]
    """Each run's aggregate under the first judgments (A)."""
    scores_b: dict[str, float]
    """Each run's aggregate under the second judgments (B)."""
    order_a: tuple[str, ...]
    """The runs best first under A (ties by name)."""
    order_b: tuple[str, ...]
    """The runs best first under B (ties by name)."""
    max_rank_change_run: str | None
    """The run whose position changed most (the first in A's order among equals); ``None``
    when no run moved."""
    swaps: tuple[tuple[str, str], ...]
    """Pairs ``(r, s)`` with ``r`` ahead under A and ``s`` ahead under B."""
    top_k: int


def leaderboard_agreement(
    qrels_a: QrelsLike | ResultSet,
    qrels_b: QrelsLike | ResultSet,
    runs: Sequence[RunLike] | Mapping[str, RunLike] | None = None,
    measures: Iterable[str | Measure] | str | None = None,
    *,
    top_k: int = 5,
    p: float = 0.9,
    rbo_ties: RboTies = "w",
    **options: Any,
) -> dict[str, LeaderboardComparison]:
    """Compare the orderings of ``runs`` under two sets of judgments, per measure.

    Parameters
    ----------
    qrels_a, qrels_b
        The two sets of judgments (A is the reference for ``tau_ap``), or two
        :class:`~ranklens.ResultSet` of the same runs and measures (then leave out
        ``runs`` and ``measures``).
    runs
        At least three runs: a sequence or ``{name: run}``.
    measures
        The measures to order the runs by.
    top_k
        The depth of ``top_k_overlap``.
    p, rbo_ties
        RBO's persistence and its treatment of tied systems.
    **options
        Passed to :class:`~ranklens.Evaluator` (``ties``, ``queries``, ``depth`` ...).

    Returns
    -------
    dict
        ``{measure: LeaderboardComparison}``.
    """
    if isinstance(qrels_a, ResultSet) != isinstance(qrels_b, ResultSet):
        raise InputError("give two sets of judgments, or two ResultSets, not one of each")
    if isinstance(qrels_a, ResultSet) and isinstance(qrels_b, ResultSet):
        if runs is not None or measures is not None:
            raise OptionError("with two ResultSets, leave out runs and measures")
        set_a, set_b = qrels_a, qrels_b
    else:
        if runs is None or measures is None:
            raise OptionError("leaderboard_agreement needs runs and measures")
        set_a = Evaluator(qrels_a, measures, **options).evaluate_many(runs)
        set_b = Evaluator(qrels_b, measures, **options).evaluate_many(runs)
    if set(set_a.runs) != set(set_b.runs):
        raise InputError("the two ResultSets must hold the same runs")
    if set_a.names != set_b.names:
        raise InputError("the two ResultSets must hold the same measures")
    if len(set_a.runs) < 3:
        raise InputError(f"comparing leaderboards needs at least 3 runs, not {len(set_a.runs)}")
    if isinstance(top_k, bool) or not isinstance(top_k, int) or top_k < 1:
        raise OptionError(f"top_k must be a positive integer, not {top_k!r}")
    higher = {m.name: m.spec.higher_is_better for m in set_a.results[0].measures}
    names = list(set_a.runs)
    out: dict[str, LeaderboardComparison] = {}
    for measure in set_a.names:
        sign = 1.0 if higher[measure] else -1.0
        a = np.array([set_a[r][measure] for r in names], dtype=np.float64) * sign
        b = np.array([set_b[r][measure] for r in names], dtype=np.float64) * sign
        out[measure] = _compare(measure, names, a, b, top_k, p, rbo_ties, sign)
    return out


def _positions(scores: np.ndarray) -> np.ndarray:
    """1-based position of each item, best first; tied items share their best position."""
    return np.array([1 + int(np.count_nonzero(scores > s)) for s in scores], dtype=np.int64)


def _compare(
    measure: str,
    names: list[str],
    a: np.ndarray,
    b: np.ndarray,
    top_k: int,
    p: float,
    rbo_ties: RboTies,
    sign: float,
) -> LeaderboardComparison:
    if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
        raise InputError(f"{measure}: a run's aggregate is not a finite number")
    order_a = tuple(sorted(names, key=lambda r: (-a[names.index(r)], r)))
    order_b = tuple(sorted(names, key=lambda r: (-b[names.index(r)], r)))
    k = min(top_k, len(names))
    overlap = len(set(order_a[:k]) & set(order_b[:k])) / k
    if np.all(a == a[0]) or np.all(b == b[0]):
        tau = rho = math.nan
    else:
        tau = float(_stats.kendalltau(a, b).statistic)
        rho = float(_stats.spearmanr(a, b).statistic)
    pos_a, pos_b = _positions(a), _positions(b)
    change = np.abs(pos_a - pos_b)
    moved: str | None = max(order_a, key=lambda r: (int(change[names.index(r)]), -order_a.index(r)))
    if int(change.max()) == 0:
        moved = None
    swaps = tuple(
        (r, s)
        for i, r in enumerate(order_a)
        for s in order_a[i + 1 :]
        if a[names.index(r)] > a[names.index(s)] and b[names.index(r)] < b[names.index(s)]
    )
    numbers = {
        "kendall_tau": tau,
        "tau_ap": tau_ap(a, b),
        "spearman_rho": rho,
        "rbo": rank_biased_overlap(a, b, p, rbo_ties),
        "top_k_overlap": overlap,
        "max_rank_change": float(change.max()),
    }
    return LeaderboardComparison(
        measure,
        numbers,
        {r: float(a[i] * sign) for i, r in enumerate(names)},
        {r: float(b[i] * sign) for i, r in enumerate(names)},
        order_a,
        order_b,
        moved,
        swaps,
        k,
    )
