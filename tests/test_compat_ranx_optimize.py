"""``optimize_fusion`` of ``ranklens.compat.ranx`` against ranx's own, on generated runs
with tied scores (one decimal) and graded qrels with queries without relevant documents:
for every method ranx optimises, the same best parameters (the same configuration among
equally good ones: ranx keeps the last), the same score of every configuration tried and
the same printed report, character for character."""

from __future__ import annotations

import random

import numpy as np
import pytest

ranx = pytest.importorskip("ranx")

import ranklens.compat.ranx as compat  # noqa: E402
from ranklens.compat.ranx.fusion_optimization import (  # noqa: E402
    get_possible_weights,
    get_trial_configs,
)

# numba warns about casts inside ranx; pytest turns warnings into errors
pytestmark = pytest.mark.filterwarnings("ignore")


def make_data(seed: int, n_runs: int):
    """Graded qrels (every third query without a relevant document) and ``n_runs`` runs of
    5-25 documents per query with scores of one decimal (many ties)."""
    rng = random.Random(seed)
    qrels: dict[str, dict[str, int]] = {}
    runs: list[dict[str, dict[str, float]]] = [{} for _ in range(n_runs)]
    for q in range(8):
        qid = f"q{q}"
        pool = [f"d{i}" for i in range(30)]
        judged = rng.sample(pool, 10)
        qrels[qid] = {d: (rng.choice([0, 1, 2]) if q % 3 else 0) for d in judged}
        for run in runs:
            run[qid] = {d: round(rng.random(), 1) for d in rng.sample(pool, rng.randint(5, 25))}
    return qrels, runs


def both(seed, n_runs, **options):
    """ranx's ``optimize_fusion`` and ours on the same data and options."""
    qrels, runs = make_data(seed, n_runs)
    out = []
    for module in (ranx, compat):
        given = [module.Run(r, name=f"r{i}") for i, r in enumerate(runs)]
        out.append(module.optimize_fusion(module.Qrels(qrels), given, **options))
    return out


def same(ours, theirs):
    """``ours`` equal to ``theirs``: the same type and, to the bit, the same numbers."""
    if isinstance(theirs, dict):
        assert isinstance(ours, dict) and list(ours) == list(theirs)
        for key in theirs:
            same(ours[key], theirs[key])
    elif isinstance(theirs, list | tuple):
        assert type(ours) is type(theirs) and len(ours) == len(theirs)
        for a, b in zip(ours, theirs, strict=True):
            same(a, b)
    elif isinstance(theirs, np.ndarray):
        np.testing.assert_array_equal(ours, theirs, strict=True)
    else:  # a float where ranx has a numpy float (mapfuse's scores), equal to the bit
        assert type(ours) in (type(theirs), float) and ours == theirs


SEARCHED = [
    ("wsum", "min-max", "ndcg@10", {"step": 0.25}),
    ("wsum", "borda", "map", {"step": 0.5}),
    ("wmnz", "max", "mrr", {"step": 0.25}),
    ("mixed", "min-max", "precision@5", {"step": 0.25}),
    ("w_bordafuse", "min-max", "ndcg", {"step": 0.25}),
    ("w_condorcet", None, "ndcg@5", {"step": 0.25}),
    ("rbc", "min-max", "ndcg@10", {"min_phi": 0.2, "step": 0.2}),  # phi = 1.0 as ranx's grid
    ("rbc", "max", "map", {"min_phi": 0.01, "step": 0.25}),  # up to phi = 1.01, as ranx
    ("rrf", "sum", "recall@10", {}),
    ("gmnz", "zmuv", "ndcg@10", {"min_gamma": 0.25, "step": 0.25}),
    ("logn_isr", "min-max", "map@10", {"min_sigma": 0.25, "step": 0.25}),
    ("probfuse", "min-max", "ndcg@10", {"max_n_segments": 6}),
    ("slidefuse", "rank", "mrr", {"max_w": 6}),
]


@pytest.mark.parametrize(("method", "norm", "metric", "grid"), SEARCHED)
@pytest.mark.parametrize("seed", [1, 2])
def test_searched_methods_find_ranx_parameters_and_report(seed, method, norm, metric, grid):
    options = {"norm": norm, "method": method, "metric": metric, "show_progress": False, **grid}
    theirs, ours = both(seed, 3, return_optimization_report=True, **options)
    same(ours[0], theirs[0])
    assert ours[1].configs == theirs[1].configs
    assert ours[1].results == [float(x) for x in theirs[1].results]  # to the bit
    assert str(ours[1]) == str(theirs[1])
    plain_theirs, plain_ours = both(seed, 3, **options)
    same(plain_ours, plain_theirs)


def test_report_formats_as_ranx():
    options = {"method": "rrf", "metric": "ndcg@10", "show_progress": False}
    theirs, ours = both(
        3,
        2,
        return_optimization_report=True,
        rounding_digits=4,
        show_percentages=True,
        **options,
    )
    assert str(ours[1]) == str(theirs[1]) and repr(ours[1]) == repr(theirs[1])


@pytest.mark.parametrize("method", ["posfuse", "segfuse", "bayesfuse", "mapfuse"])
def test_trained_methods_give_ranx_parameters(method):
    theirs, ours = both(4, 2, method=method, norm="min-max")
    same(ours, theirs)


def test_fusion_optimization_functions_are_ranx():
    """ranx's ``fusion_optimization`` functions called directly, ``optimize_weights`` with
    a fusion function as ranx takes it."""
    from ranx import fusion as rx_fusion
    from ranx import fusion_optimization as rx_opt
    from ranx.fusion_optimization.optimize_weights import optimize_weights

    import ranklens.compat.ranx.fusion as cp_fusion
    import ranklens.compat.ranx.fusion_optimization as cp_opt

    qrels, runs = make_data(7, 3)
    out = []
    rx_weights, cp_weights = optimize_weights, cp_opt.optimize_weights
    for module, fusion, opt, weights in (
        (ranx, rx_fusion, rx_opt, rx_weights),
        (compat, cp_fusion, cp_opt, cp_weights),
    ):
        given = [module.normalize(module.Run(r)) for r in runs]
        graded = module.Qrels(qrels)
        out.append(
            [
                weights(
                    fusion.wmnz,
                    graded,
                    given,
                    "ndcg@10",
                    0.25,
                    show_progress=False,
                    return_optimization_report=True,
                ),
                opt.optimize_rbc(graded, given, "mrr", step=0.25, show_progress=False),
                opt.optimization_switch("probfuse")(
                    graded, given, "map", max_n_segments=4, show_progress=False
                ),
            ]
        )
    theirs, ours = out
    same(ours[0][0], theirs[0][0])
    assert ours[0][1] == {key: float(value) for key, value in theirs[0][1].items()}
    same(ours[1:], theirs[1:])


def test_weight_grid_is_ranx_float_sums():
    weights = get_possible_weights(0.1)
    configs = get_trial_configs(weights, 3)
    assert (0.2, 0.7, 0.1) not in configs  # 0.2 + 0.7 + 0.1 != 1.0 in floating point
    assert (0.1, 0.2, 0.7) in configs
    assert len(configs) == 62  # of the 66 compositions of 10 tenths into 3 parts


@pytest.mark.parametrize(
    ("options", "error"),
    [
        ({"method": "mnz"}, ValueError),
        ({"method": "posfuse", "return_optimization_report": True}, ValueError),
        ({"method": "wsum", "runs": 1}, AssertionError),
    ],
)
def test_refusals_are_ranx_errors(options, error):
    qrels, runs = make_data(5, 2)
    count = options.pop("runs", 2)
    for module in (ranx, compat):
        given = [module.Run(r) for r in runs[:count]]
        with pytest.raises(error):
            module.optimize_fusion(module.Qrels(qrels), given, show_progress=False, **options)


def test_queries_must_match_the_qrels():
    qrels, runs = make_data(6, 2)
    del qrels["q0"]
    with pytest.raises(compat.QueryMismatchError, match="qrels"):
        compat.optimize_fusion(compat.Qrels(qrels), [compat.Run(r) for r in runs])
