"""Differential test of rank fusion against ranx (the ``test`` extra installs it).

On generated runs without tied scores, where every run covers every query and lists at
least two documents per query (ranx's preconditions; see docs/fusion.md for where
ranklens deliberately differs), every method and normalisation with ranx's parameters
must give ranx's fused scores to 1e-9, and the trainers of the supervised methods ranx's
estimates.
"""

from __future__ import annotations

import numpy as np
import pytest

ranx = pytest.importorskip("ranx")
from ranx import Qrels as RanxQrels  # noqa: E402
from ranx import Run as RanxRun  # noqa: E402
from ranx import fusion as ranx_fusion  # noqa: E402

from ranklens.fusion import METHODS, fuse, normalize, train  # noqa: E402

# numba warns about casts inside ranx; pytest turns warnings into errors
pytestmark = pytest.mark.filterwarnings("ignore")

NORMS = [None, "min-max", "max", "sum", "zmuv", "rank", "borda"]
RANX_NAME = {
    "comb_sum": "sum",
    "comb_mnz": "mnz",
    "comb_max": "max",
    "comb_min": "min",
    "comb_med": "med",
    "comb_anz": "anz",
    "comb_gmnz": "gmnz",
}


def make_runs(seed: int, n_runs: int = 3, n_queries: int = 8, pool: int = 14, full: bool = False):
    """Runs without ties over the same queries, 2+ documents per query and run."""
    rng = np.random.default_rng(seed)
    runs = []
    for _ in range(n_runs):
        run = {}
        for q in range(n_queries):
            n = pool if full else int(rng.integers(2, pool + 1))
            docs = rng.choice(pool, size=n, replace=False)
            scores = rng.normal(5.0, 3.0, size=n)  # continuous: no ties
            run[f"q{q}"] = {f"d{d}": float(s) for d, s in zip(docs, scores, strict=True)}
        runs.append(run)
    return runs


def correlated_runs(seed: int, n_runs: int = 3, n_queries: int = 12, pool: int = 7):
    """Full-coverage runs that mostly agree, so most queries have no Condorcet cycle."""
    rng = np.random.default_rng(seed)
    base = {f"q{q}": rng.normal(0, 1, size=pool) for q in range(n_queries)}
    return [
        {
            q: {f"d{i}": float(v + rng.normal(0, 0.6)) for i, v in enumerate(b)}
            for q, b in base.items()
        }
        for _ in range(n_runs)
    ]


def assert_same(mine: dict, theirs: dict) -> None:
    assert set(mine) == set(theirs)
    for q in theirs:
        assert set(mine[q]) == set(theirs[q]), q
        for d, v in theirs[q].items():
            assert abs(mine[q][d] - v) <= 1e-9 * max(1.0, abs(v)), (q, d, mine[q][d], v)


def ranx_fuse(runs, method, norm, params):
    return ranx.fuse([RanxRun(r) for r in runs], norm=norm, method=method, params=params).to_dict()


def cases(n_runs: int, max_len: int):
    rng = np.random.default_rng(99)
    weights = [0.5, 0.3, 0.2][:n_runs]
    supervised = {
        "posfuse": {"probs": [rng.random(max_len - 3) for _ in range(n_runs)]},
        "probfuse": {"probs": [rng.random(3) for _ in range(n_runs)]},
        "segfuse": {"probs": [rng.random(10) for _ in range(n_runs)]},
        "slidefuse": {"probs": [rng.random(max_len - 2) for _ in range(n_runs)], "w": 2},
        "bayesfuse": {"log_odds": [rng.normal(0, 1, size=1000) for _ in range(n_runs)]},
        "mapfuse": {"map_scores": list(rng.random(n_runs))},
    }
    out = []
    for name, spec in METHODS.items():
        if name in ("condorcet", "w_condorcet"):
            continue  # below, on runs without cycles
        params: dict = dict(supervised.get(name, {}))
        if name == "rrf":
            params["k"] = 10
        if name == "comb_gmnz":
            params["gamma"] = 0.5
        if name == "logn_isr":
            params["sigma"] = 0.05
        if name == "rbc":
            params["phi"] = 0.7
        if spec.weights and name not in ("rrf", "rbc"):  # ranx has no weights for these
            params["weights"] = weights
        norms = NORMS if spec.scores else [None]
        if name == "segfuse":  # ranx ranks the borda-normalised run in candidate-set order
            norms = [n for n in norms if n != "borda"]
        out += [(name, norm, params) for norm in norms]
    return out


@pytest.mark.parametrize(("method", "norm", "params"), cases(3, 14))
def test_every_method_equals_ranx(method, norm, params):
    runs = make_runs(1)
    theirs = ranx_fuse(runs, RANX_NAME.get(method, method), norm, params)
    mine_params = {k: v for k, v in params.items() if k != "weights"}
    mine = fuse(
        runs, method, norm=norm or "none", weights=params.get("weights"), params=mine_params
    )
    assert_same(mine.to_dict(), theirs)


def test_rrf_default_k_equals_ranx():
    runs = make_runs(2, n_runs=4)
    assert_same(fuse(runs).to_dict(), ranx_fuse(runs, "rrf", None, {}))


@pytest.mark.parametrize("norm", ["min-max", "max", "sum", "zmuv", "rank"])
def test_normalisations_equal_ranx(norm):
    from ranx import normalize as ranx_normalize

    runs = make_runs(3)
    for run, mine in zip(runs, normalize(runs, norm), strict=True):
        assert_same(mine.to_dict(), ranx_normalize(RanxRun(run), norm).to_dict())


def test_borda_normalisation_equals_ranx():
    from ranx.normalization import borda_norm

    runs = make_runs(4)
    theirs = borda_norm([RanxRun(r) for r in runs])
    for mine, other in zip(normalize(runs, "borda"), theirs, strict=True):
        assert_same(mine.to_dict(), other.to_dict())


@pytest.mark.parametrize("weights", [None, [1.0, 1.0, 1.0], [1.0, 5.0, 2.0], [0.2, 0.5, 0.4]])
def test_condorcet_equals_ranx_without_cycles(weights):
    runs = correlated_runs(5)
    if weights is None:
        theirs = ranx_fuse(runs, "condorcet", None, {})
        mine = fuse(runs, "condorcet").to_dict()
    else:
        theirs = ranx_fuse(runs, "w_condorcet", None, {"weights": weights})
        mine = fuse(runs, "w_condorcet", weights=weights).to_dict()
    compared = 0
    for q, scores in mine.items():
        n = len(scores)
        if sorted(scores.values()) != list(range(1, n + 1)):
            continue  # a cycle: ranx's order depends on its sort; ranklens ties them
        assert_same({q: scores}, {q: theirs[q]})
        compared += 1
    assert compared >= 6


def make_qrels(seed: int, n_queries: int = 8, pool: int = 14):
    rng = np.random.default_rng(seed)
    return {
        f"q{q}": {
            f"d{d}": int(rng.integers(1, 3))
            for d in rng.choice(pool, size=int(rng.integers(1, 5)), replace=False)
        }
        for q in range(n_queries)
    }


@pytest.mark.parametrize(
    "method", ["posfuse", "slidefuse", "probfuse", "segfuse", "bayesfuse", "mapfuse"]
)
def test_trainers_equal_ranx(method):
    runs = make_runs(6)
    qrels = make_qrels(7)
    rq, rr = RanxQrels(qrels), [RanxRun(r) for r in runs]
    if method == "probfuse":
        theirs = ranx_fusion.probfuse_train(rq, rr, 3)
        mine = train(method, qrels, runs, n_segments=3)["probs"]
    else:
        theirs = getattr(ranx_fusion, f"{method}_train")(rq, rr)
        mine = next(iter(train(method, qrels, runs).values()))
    assert len(mine) == len(theirs) == len(runs)
    for a, b in zip(mine, theirs, strict=True):
        np.testing.assert_allclose(
            np.asarray(a, dtype=float), np.asarray(b, dtype=float), rtol=1e-9, atol=1e-12
        )


# ranklens.compat.ranx's fusion and normalisation functions (ranx's signatures) against ranx's

FUNCTION_ARGS = {
    "comb_sum": (),
    "comb_mnz": (),
    "comb_max": (),
    "comb_min": (),
    "comb_med": (),
    "comb_anz": (),
    "comb_gmnz": (0.7,),
    "wsum": ([0.5, 0.3, 0.2],),
    "wmnz": ([0.5, 0.3, 0.2],),
    "mixed": ([0.5, 0.3, 0.2],),
    "rrf": (7,),
    "isr": (),
    "log_isr": (),
    "logn_isr": (0.05,),
    "rbc": (0.7,),
    "bordafuse": (),
    "weighted_bordafuse": ([0.5, 0.3, 0.2],),
}
TRAINED = ["posfuse", "probfuse", "segfuse", "slidefuse", "bayesfuse", "mapfuse"]


@pytest.mark.parametrize("name", sorted(FUNCTION_ARGS))
def test_compat_fusion_functions_equal_ranx(name):
    from ranklens.compat import ranx as compat
    from ranklens.compat.ranx import fusion as compat_fusion

    runs = make_runs(21)
    args = FUNCTION_ARGS[name]
    mine = getattr(compat_fusion, name)([compat.Run(r) for r in runs], *args)
    theirs = getattr(ranx_fusion, name)([RanxRun(r) for r in runs], *args)
    assert isinstance(mine, compat.Run) and mine.name == theirs.name
    assert_same(mine.to_dict(), theirs.to_dict())
    named = getattr(compat_fusion, name)(runs, *args, name="mine")
    assert named.name == "mine" and named.to_dict() == mine.to_dict()


@pytest.mark.parametrize("method", TRAINED)
def test_compat_trainers_and_supervised_functions_equal_ranx(method):
    from ranklens.compat import ranx as compat
    from ranklens.compat.ranx import fusion as compat_fusion

    runs, qrels = make_runs(22), make_qrels(23)
    rq, rr = RanxQrels(qrels), [RanxRun(r) for r in runs]
    mq, mr = compat.Qrels(qrels), [compat.Run(r) for r in runs]
    extra = (3,) if method == "probfuse" else ()
    theirs = getattr(ranx_fusion, f"{method}_train")(rq, rr, *extra)
    mine = getattr(compat_fusion, f"{method}_train")(mq, mr, *extra)
    assert isinstance(mine, list) and len(mine) == len(theirs) == len(runs)
    for a, b in zip(mine, theirs, strict=True):
        np.testing.assert_allclose(np.asarray(a, float), np.asarray(b, float), rtol=1e-9)
    more = (2,) if method == "slidefuse" else ()
    fused_mine = getattr(compat_fusion, method)(mr, theirs, *more)
    fused_theirs = getattr(ranx_fusion, method)(rr, theirs, *more)
    assert fused_mine.name == fused_theirs.name
    assert_same(fused_mine.to_dict(), fused_theirs.to_dict())


@pytest.mark.parametrize("weights", [None, [1.0, 5.0, 2.0]])
def test_compat_condorcet_functions_equal_ranx_without_cycles(weights):
    from ranklens.compat import ranx as compat
    from ranklens.compat.ranx import fusion as compat_fusion

    runs = correlated_runs(24)
    if weights is None:
        mine = compat_fusion.condorcet([compat.Run(r) for r in runs]).to_dict()
        theirs = ranx_fusion.condorcet([RanxRun(r) for r in runs]).to_dict()
    else:
        mine = compat_fusion.weighted_condorcet([compat.Run(r) for r in runs], weights).to_dict()
        theirs = ranx_fusion.weighted_condorcet([RanxRun(r) for r in runs], weights).to_dict()
    compared = 0
    for q, scores in mine.items():
        if sorted(scores.values()) == list(range(1, len(scores) + 1)):  # no cycle
            assert_same({q: scores}, {q: theirs[q]})
            compared += 1
    assert compared >= 6


def test_compat_condorcet_helpers_on_plain_runs():
    from ranklens.compat import ranx as compat
    from ranklens.compat.ranx.fusion.condorcet import get_candidates, get_results

    runs = [
        compat.Run({"q1": {"d1": 1, "d2": 2, "d3": 3}, "q2": {"d1": 1, "d2": 2}}),
        {"q1": {"d1": 2, "d2": 3}, "q2": {"d1": 1, "d3": 3}},
    ]
    assert [set(c) for c in get_candidates(runs)] == [{"d1", "d2", "d3"}] * 2
    assert get_results(runs) == [[["d3", "d2", "d1"], ["d2", "d1"]], [["d2", "d1"], ["d3", "d1"]]]


def test_compat_estimate_log_odds_equals_ranx():
    from numba.typed import List as TypedList
    from ranx.fusion.bayesfuse import _estimate_log_odds as theirs

    from ranklens.compat.ranx.fusion.bayesfuse import _estimate_log_odds as mine

    rng = np.random.default_rng(25)
    hits = [(rng.random(int(rng.integers(1, 40))) < 0.3).astype(float) for _ in range(9)]
    cuts = [0, 5, 10, 15, 20, 30, 100, 200, 500, 1000]
    np.testing.assert_allclose(
        mine(hits, cuts), theirs(TypedList(hits), TypedList(cuts)), rtol=1e-12
    )


@pytest.mark.parametrize("norm", ["max_norm", "min_max_norm", "rank_norm", "sum_norm", "zmuv_norm"])
def test_compat_normalisation_functions_equal_ranx(norm):
    from ranx import normalization as ranx_normalization

    from ranklens.compat import ranx as compat
    from ranklens.compat.ranx import normalization as compat_normalization

    run = make_runs(26, n_runs=1)[0]
    mine = getattr(compat_normalization, norm)(compat.Run(run, name="r"))
    theirs = getattr(ranx_normalization, norm)(RanxRun(run, name="r"))
    assert mine.name == "r"
    assert_same(mine.to_dict(), theirs.to_dict())
    if norm == "min_max_norm":
        inverted = compat_normalization.norm_switch("min-max-inverted")(compat.Run(run))
        assert_same(
            inverted.to_dict(), ranx_normalization.min_max_norm(RanxRun(run), True).to_dict()
        )
    runs = make_runs(27)
    for a, b in zip(
        compat_normalization.borda_norm([compat.Run(r) for r in runs]),
        ranx_normalization.borda_norm([RanxRun(r) for r in runs]),
        strict=True,
    ):
        assert_same(a.to_dict(), b.to_dict())
    with pytest.raises(ValueError):
        compat_normalization.norm_switch("l2")
