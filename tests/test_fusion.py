"""Rank fusion: hand-computed cases (ranx's own test cases among them, written out here),
determinism under permuted input lines, sound defaults, errors and the CLI."""

from __future__ import annotations

import io
import math
import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ranklens
from ranklens import OptionError, Run
from ranklens.cli import main
from ranklens.fusion import METHODS, SUPERVISED, fuse, fuse_optimize, get_method, normalize, train

# The three runs of ranx's fusion tests (tests/unit/ranx/fusion/*_test.py).
R1 = {"q1": {"d1": 1, "d2": 2, "d3": 3}, "q2": {"d1": 1, "d2": 2}}
R2 = {"q1": {"d1": 3, "d2": 2}, "q2": {"d1": 1, "d3": 3}}
R3 = {"q1": {"d3": 1}, "q2": {"d2": 2, "d3": 3}}
RUNS = [R1, R2, R3]
# Ranks: R1 q1 d3 d2 d1, q2 d2 d1; R2 q1 d1 d2, q2 d3 d1; R3 q1 d3, q2 d3 d2.


def fused(method: str, runs=RUNS, **kw) -> dict[str, dict[str, float]]:
    return fuse(runs, method, **kw).to_dict()


def close(a: dict, b: dict, tol: float = 1e-12) -> None:
    assert a.keys() == b.keys()
    for q in a:
        assert a[q].keys() == b[q].keys(), q
        for d in a[q]:
            assert math.isclose(a[q][d], b[q][d], rel_tol=tol, abs_tol=tol), (
                q,
                d,
                a[q][d],
                b[q][d],
            )


# --- ranx's expected values ---------------------------------------------------------------


def test_rrf_ranx_case():
    k = 60
    close(
        fused("rrf"),
        {
            "q1": {"d1": 1 / (k + 3) + 1 / (k + 1), "d2": 2 / (k + 2), "d3": 2 / (k + 1)},
            "q2": {"d1": 2 / (k + 2), "d2": 1 / (k + 1) + 1 / (k + 2), "d3": 2 / (k + 1)},
        },
    )


def test_comb_mnz_and_friends_ranx_case_without_norm():
    close(
        fused("comb_mnz", norm="none"),
        {"q1": {"d1": 8, "d2": 8, "d3": 8}, "q2": {"d1": 4, "d2": 8, "d3": 12}},
    )
    close(
        fused("comb_sum", norm="none"),
        {"q1": {"d1": 4, "d2": 4, "d3": 4}, "q2": {"d1": 2, "d2": 4, "d3": 6}},
    )
    close(
        fused("comb_max", norm="none"),
        {"q1": {"d1": 3, "d2": 2, "d3": 3}, "q2": {"d1": 1, "d2": 2, "d3": 3}},
    )
    close(
        fused("comb_min", norm="none"),
        {"q1": {"d1": 1, "d2": 2, "d3": 1}, "q2": {"d1": 1, "d2": 2, "d3": 3}},
    )
    close(
        fused("comb_anz", norm="none"),
        {"q1": {"d1": 2, "d2": 2, "d3": 2}, "q2": {"d1": 1, "d2": 2, "d3": 3}},
    )
    close(
        fused("comb_med", norm="none"),
        {"q1": {"d1": 2, "d2": 2, "d3": 2}, "q2": {"d1": 1, "d2": 2, "d3": 3}},
    )
    # CombGMNZ: gamma 1 is CombMNZ, gamma 0 is CombSUM.
    close(fused("comb_gmnz", norm="none", gamma=1.0), fused("comb_mnz", norm="none"))
    close(fused("comb_gmnz", norm="none", gamma=0.0), fused("comb_sum", norm="none"))


def test_wmnz_and_mixed_ranx_case():
    w = [0.3, 0.2, 0.5]
    close(fused("wmnz", norm="none", weights=[1, 1, 1]), fused("comb_mnz", norm="none"))
    close(
        fused("wmnz", norm="none", weights=w),
        {
            "q1": {
                "d1": (1 + 3) * (w[0] + w[1]),
                "d2": (2 + 2) * (w[0] + w[1]),
                "d3": (3 + 1) * (w[0] + w[2]),
            },
            "q2": {
                "d1": (1 + 1) * (w[0] + w[1]),
                "d2": (2 + 2) * (w[0] + w[2]),
                "d3": (3 + 3) * (w[1] + w[2]),
            },
        },
    )
    s2 = math.sqrt(2)
    close(
        fused("mixed", norm="none", weights=w),
        {
            "q1": {
                "d1": (w[0] * 1 + w[1] * 3) * s2,
                "d2": (w[0] * 2 + w[1] * 2) * s2,
                "d3": (w[0] * 3 + w[2] * 1) * s2,
            },
            "q2": {
                "d1": (w[0] * 1 + w[1] * 1) * s2,
                "d2": (w[0] * 2 + w[2] * 2) * s2,
                "d3": (w[1] * 3 + w[2] * 3) * s2,
            },
        },
    )


def test_isr_family_ranx_case():
    sq = lambda *ranks: sum(1 / r**2 for r in ranks)  # noqa: E731
    expected = {
        "q1": {"d1": sq(3, 1), "d2": sq(2, 2), "d3": sq(1, 1)},
        "q2": {"d1": sq(2, 2), "d2": sq(1, 2), "d3": sq(1, 1)},
    }
    close(fused("isr"), {q: {d: 2 * v for d, v in m.items()} for q, m in expected.items()})
    close(
        fused("log_isr"),
        {q: {d: math.log(2) * v for d, v in m.items()} for q, m in expected.items()},
    )
    close(
        fused("logn_isr", sigma=0.1),
        {q: {d: math.log(2.1) * v for d, v in m.items()} for q, m in expected.items()},
    )


def test_bordafuse_ranx_case():
    expected = {
        "q1": {"d1": 1 + 3 + 1.5, "d2": 2 + 2 + 1.5, "d3": 3 + 1 + 3},
        "q2": {"d1": 2 + 2 + 1, "d2": 3 + 1 + 2, "d3": 1 + 3 + 3},
    }
    close(fused("bordafuse"), expected)
    close(fused("w_bordafuse", weights=[1, 1, 1]), expected)
    close(
        fused("w_bordafuse", weights=[3, 2, 1]),
        {
            "q1": {"d1": 3 * 1 + 2 * 3 + 1.5, "d2": 3 * 2 + 2 * 2 + 1.5, "d3": 3 * 3 + 2 * 1 + 3},
            "q2": {"d1": 3 * 2 + 2 * 2 + 1, "d2": 3 * 3 + 2 * 1 + 2, "d3": 3 * 1 + 2 * 3 + 3},
        },
    )


CONDORCET_RUNS = [
    {"q1": {"d1": 1, "d2": 2, "d3": 3}, "q2": {"d1": 1, "d2": 2}},
    {"q1": {"d1": 2, "d2": 3}, "q2": {"d1": 1, "d3": 3}},
    {"q1": {"d3": 3}, "q2": {"d2": 2, "d3": 3}},
]


def test_condorcet_ranx_case():
    expected = {"q1": {"d1": 1, "d2": 2, "d3": 3}, "q2": {"d1": 1, "d2": 2, "d3": 3}}
    close(fused("condorcet", CONDORCET_RUNS), expected)
    close(fused("w_condorcet", CONDORCET_RUNS, weights=[1, 1, 1]), expected)
    close(
        fused("w_condorcet", CONDORCET_RUNS, weights=[1, 5, 2]),
        {"q1": {"d1": 2, "d2": 3, "d3": 1}, "q2": {"d1": 2, "d2": 1, "d3": 3}},
    )


def test_condorcet_cycle_is_a_tie_broken_by_docid():
    # a > b > c, b > c > a, c > a > b: every pair is won 2-1 in a cycle.
    runs = [
        {"q": {"a": 3, "b": 2, "c": 1}},
        {"q": {"b": 3, "c": 2, "a": 1}},
        {"q": {"c": 3, "a": 2, "b": 1}},
    ]
    out = fuse(runs, "condorcet")
    assert out.to_dict() == {"q": {"a": 2.0, "b": 2.0, "c": 2.0}}
    assert [out.docid(i) for i in out.ranking()] == ["c", "b", "a"]  # trec_eval: docid desc


RBC_RUNS = [
    {"q1": {"A": 7, "D": 6, "B": 5, "C": 4, "G": 3, "F": 2}},
    {"q1": {"B": 7, "D": 6, "E": 5, "C": 4}},
    {"q1": {"A": 7, "B": 6, "D": 5, "C": 4, "G": 3, "F": 2, "E": 1}},
    {"q1": {"G": 7, "D": 6, "E": 5, "A": 4, "F": 3, "C": 2}},
]


@pytest.mark.parametrize(
    ("phi", "expected"),
    [
        (0.6, {"A": 0.89, "D": 0.86, "B": 0.78, "G": 0.50, "E": 0.31, "C": 0.29, "F": 0.11}),
        (0.8, {"D": 0.61, "A": 0.50, "B": 0.49, "C": 0.37, "G": 0.36, "E": 0.31, "F": 0.21}),
        (0.9, {"D": 0.35, "C": 0.28, "A": 0.27, "B": 0.27, "G": 0.23, "E": 0.22, "F": 0.18}),
    ],
)
def test_rbc_ranx_case(phi, expected):
    out = fused("rbc", RBC_RUNS, phi=phi)["q1"]
    assert {d: round(v, 2) for d, v in out.items()} == expected


TRAIN_QRELS = {"q1": {"d1": 1}, "q2": {"d1": 1}}


def test_posfuse_and_slidefuse_ranx_case():
    probs = train("posfuse", TRAIN_QRELS, RUNS)["probs"]
    assert [p.tolist() for p in probs] == [[0, 1 / 2, 1], [1 / 2, 1 / 2], [0, 0]]
    assert [p.tolist() for p in train("slidefuse", TRAIN_QRELS, RUNS)["probs"]] == [
        p.tolist() for p in probs
    ]
    p0, p1, p2 = probs
    close(
        fused("posfuse", probs=probs),
        {
            "q1": {"d1": p0[2] + p1[0], "d2": p0[1] + p1[1], "d3": p0[0] + p2[0]},
            "q2": {"d1": p0[1] + p1[1], "d2": p0[0] + p2[1], "d3": p1[0] + p2[0]},
        },
    )
    close(
        fused("slidefuse", probs=probs, w=1),
        {
            "q1": {
                "d1": sum(p0[1:3]) / 2 + sum(p1) / 2,
                "d2": sum(p0) / 3 + sum(p1) / 2,
                "d3": sum(p0[:2]) / 2 + sum(p2) / 2,
            },
            "q2": {
                "d1": sum(p0[0:2]) / 2 + sum(p1) / 2,
                "d2": sum(p0[0:2]) / 2 + sum(p2) / 2,
                "d3": sum(p1) / 2 + sum(p2) / 2,
            },
        },
    )
    close(
        fused("slidefuse", probs=probs, w=2),
        {
            "q1": {
                "d1": sum(p0) / 3 + sum(p1) / 2,
                "d2": sum(p0) / 3 + sum(p1) / 2,
                "d3": sum(p0) / 3 + sum(p2) / 2,
            },
            "q2": {
                "d1": sum(p0[0:2]) / 2 + sum(p1) / 2,
                "d2": sum(p0[0:2]) / 2 + sum(p2) / 2,
                "d3": sum(p1) / 2 + sum(p2) / 2,
            },
        },
    )


def test_probfuse_ranx_case():
    probs = train("probfuse", TRAIN_QRELS, RUNS, n_segments=2)["probs"]
    assert [p.tolist() for p in probs] == [[0.0, 1.0], [0.5, 0.5], [0.0, 0.0]]
    p0, p1, p2 = probs
    close(
        fused("probfuse", probs=probs),
        {
            "q1": {"d1": p0[1] / 2 + p1[0], "d2": p0[0] + p1[1] / 2, "d3": p0[0] + p2[0]},
            "q2": {"d1": p0[1] / 2 + p1[1] / 2, "d2": p0[0] + p2[1] / 2, "d3": p1[0] + p2[0]},
        },
    )


def test_segfuse_ranx_case():
    probs = train("segfuse", TRAIN_QRELS, RUNS)["probs"]
    assert [p.tolist() for p in probs] == [[0.2] + [0.0] * 9, [0.2] + [0.0] * 9, [0.0] * 10]
    p0, p1, p2 = (p[0] for p in probs)
    out = fused("segfuse", probs=probs, norm="none")
    close(
        out,
        {
            "q1": {
                "d1": p0 * (1 + 1) + p1 * (1 + 3),
                "d2": p0 * (1 + 2) + p1 * (1 + 2),
                "d3": p0 * (1 + 3) + p2 * (1 + 1),
            },
            "q2": {
                "d1": p0 * (1 + 1) + p1 * (1 + 1),
                "d2": p0 * (1 + 2) + p2 * (1 + 2),
                "d3": p1 * (1 + 3) + p2 * (1 + 3),
            },
        },
    )


def test_mapfuse_ranx_case():
    scores = train("mapfuse", TRAIN_QRELS, RUNS)["map_scores"]
    # AP: run 1 finds d1 at rank 3 (q1) and 2 (q2); run 2 at 1 and 2; run 3 never.
    assert scores == pytest.approx([(1 / 3 + 1 / 2) / 2, (1 + 1 / 2) / 2, 0.0])
    m0, m1, m2 = scores
    close(
        fused("mapfuse", map_scores=scores),
        {
            "q1": {"d1": m0 / 3 + m1 / 1, "d2": m0 / 2 + m1 / 2, "d3": m0 / 1 + m2 / 1},
            "q2": {"d1": m0 / 2 + m1 / 2, "d2": m0 / 1 + m2 / 2, "d3": m1 / 1 + m2 / 1},
        },
    )


def test_bayesfuse_log_odds_by_hand():
    qrels = {"q1": {"a": 1}, "q2": {"b": 1}}
    run = {"q1": {"a": 2.0, "b": 1.0}, "q2": {"a": 2.0, "b": 1.0}}
    (odds,) = train("bayesfuse", qrels, [run])["log_odds"]
    # ranks 1-5: 2 hits over 2 queries x 5 ranks -> p = 0.2; later segments p = 0 -> 0.001
    assert odds.shape == (1000,)
    assert odds[:5].tolist() == pytest.approx([math.log(0.2 / 0.8)] * 5)
    assert odds[5:].tolist() == pytest.approx([math.log(0.001 / 0.999)] * 995)
    out = fused("bayesfuse", [run, {"q1": {"c": 1.0}}], log_odds=[odds, odds])
    low = math.log(0.001 / 0.999)
    assert out["q1"] == pytest.approx({"a": odds[0] + low, "b": odds[1] + low, "c": odds[0] + low})
    assert out["q2"] == pytest.approx({"a": odds[0], "b": odds[1]})  # run 2 lacks q2


def test_normalisations_ranx_cases():
    (mm,) = normalize([R1], "min-max")
    assert mm.to_dict() == {"q1": {"d1": 0.0, "d2": 0.5, "d3": 1.0}, "q2": {"d1": 0.0, "d2": 1.0}}
    b1, b2, b3 = normalize(RUNS, "borda")
    close(
        b1.to_dict(),
        {"q1": {"d1": 1 / 3, "d2": 2 / 3, "d3": 1}, "q2": {"d1": 2 / 3, "d2": 1, "d3": 1 / 3}},
    )
    close(
        b2.to_dict(),
        {"q1": {"d1": 1, "d2": 2 / 3, "d3": 1 / 3}, "q2": {"d1": 2 / 3, "d2": 1 / 3, "d3": 1}},
    )
    close({"q1": b3.to_dict()["q1"]}, {"q1": {"d1": 1.5 / 3, "d2": 1.5 / 3, "d3": 1}})


def test_normalisations_by_hand():
    run = {"q": {"a": 4.0, "b": 1.0, "c": 2.0, "d": 3.0}}
    got = {
        n: normalize([run], n)[0].to_dict()["q"]
        for n in ["max", "sum", "zmuv", "rank", "min-max@2", "none"]
    }
    assert got["max"] == {"a": 1.0, "b": 0.25, "c": 0.5, "d": 0.75}
    assert got["sum"] == pytest.approx({"a": 3 / 6, "b": 0.0, "c": 1 / 6, "d": 2 / 6})
    sd = math.sqrt(1.25)
    assert got["zmuv"] == pytest.approx(
        {"a": 1.5 / sd, "b": -1.5 / sd, "c": -0.5 / sd, "d": 0.5 / sd}
    )
    assert got["rank"] == {"a": 1.0, "d": 0.75, "c": 0.5, "b": 0.25}
    # min-max over the top 2: min is the 2nd score (3); below it -> 0
    assert got["min-max@2"] == {"a": 1.0, "d": 0.0, "c": 0.0, "b": 0.0}
    assert got["none"] == run["q"]


# --- sound defaults -----------------------------------------------------------------------


def test_min_max_of_one_value_is_one():
    (norm,) = normalize([{"q": {"only": -3.5}, "r": {"x": 2.0, "y": 2.0}}], "min-max")
    assert norm.to_dict() == {"q": {"only": 1.0}, "r": {"x": 1.0, "y": 1.0}}
    out = fused("comb_sum", [{"q": {"a": 5.0}}, {"q": {"a": 1.0, "b": 0.0}}])
    assert out == {"q": {"a": 2.0, "b": 0.0}}


def test_union_of_queries_missing_query_contributes_nothing():
    a = {"q1": {"x": 1.0, "y": 0.5}, "q2": {"z": 3.0}}
    b = {"q1": {"y": 2.0}, "q3": {"w": 1.0}}
    out = fused("rrf", [a, b])
    assert set(out) == {"q1", "q2", "q3"}
    assert out["q2"] == {"z": 1 / 61}
    assert out["q3"] == {"w": 1 / 61}
    # Borda: run b lacks q2, so it gives nothing there (not (c + 1) / 2 to every document)
    assert fused("bordafuse", [a, b])["q2"] == {"z": 1.0}


def test_default_method_is_rrf_k60_and_wsum_defaults_to_equal_weights():
    assert fuse(RUNS).name == "rrf"
    close(fused("rrf"), fused("rrf", k=60))
    close(fused("wsum"), fused("comb_sum"))


def test_names_and_spellings():
    for alias, name in [
        ("CombSUM", "comb_sum"),
        ("combmnz", "comb_mnz"),
        ("mnz", "comb_mnz"),
        ("comb-max", "comb_max"),
        ("weighted_bordafuse", "w_bordafuse"),
        ("RRF", "rrf"),
        ("w_condorcet", "w_condorcet"),
        ("gmnz", "comb_gmnz"),
    ]:
        assert get_method(alias).name == name
    assert len(METHODS) == 25


def test_inputs_not_mutated_and_name():
    run = Run.from_dict(R1, name="a")
    before = run.scores.copy()
    out = fuse([run, R2], "comb_mnz", name="hybrid")
    assert out.name == "hybrid"
    assert np.array_equal(run.scores, before)


# --- errors -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"method": "nope"}, "unknown fusion method 'nope'"),
        ({"method": "wsum", "weights": [1, 2]}, "2 weights given for 3 runs"),
        ({"method": "comb_sum", "weights": [1, 2, 3]}, "takes no weights"),
        ({"method": "rrf", "weights": [1, "x", 2]}, "weights must be numbers"),
        ({"method": "rrf", "kk": 3}, "has no parameter 'kk'"),
        ({"method": "rrf", "k": -1}, "k must be >= 0"),
        ({"method": "rbc", "phi": 1.5}, "phi must be in (0, 1)"),
        ({"method": "posfuse"}, "needs parameter 'probs'"),
        ({"method": "posfuse", "probs": [[0.5]]}, "one entry per run (3)"),
        ({"method": "comb_sum", "norm": "minmax@0"}, "k after '@'"),
        ({"method": "comb_sum", "norm": "softmax"}, "unknown norm 'softmax'"),
        ({"method": "rrf", "ties": "random"}, "ties must be one of"),
    ],
)
def test_errors(kwargs, message):
    with pytest.raises(OptionError) as info:
        fuse(RUNS, **kwargs)
    assert message in str(info.value)


def test_no_runs():
    with pytest.raises(OptionError, match="at least one run"):
        fuse([])


# --- determinism: the fused run does not depend on the order of input lines ---------------

DOCS = ["d1", "d10", "D1", "d2", "x"]
PARAMS = {
    "comb_gmnz": {"gamma": 0.5},
    "posfuse": {"probs": [[0.5, 0.4, 0.3, 0.2, 0.1]] * 3},
    "probfuse": {"probs": [[0.5, 0.25]] * 3},
    "segfuse": {"probs": [[0.5, 0.25]] * 3},
    "slidefuse": {"probs": [[0.5, 0.4, 0.3]] * 3, "w": 1},
    "bayesfuse": {"log_odds": [[0.5, -0.2, -1.0]] * 3},
    "mapfuse": {"map_scores": [0.3, 0.2, 0.1]},
}


@st.composite
def run_records(draw):
    runs = []
    for _ in range(3):
        records = []
        for q in draw(
            st.lists(st.sampled_from(["1", "10", "9"]), min_size=1, max_size=3, unique=True)
        ):
            docs = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=5, unique=True))
            for d in docs:  # few distinct scores: many ties
                records.append((q, d, draw(st.sampled_from([0.0, 0.5, 1.0, 2.5]))))
        runs.append(records)
    return runs, draw(st.randoms(use_true_random=False))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(run_records())
def test_permuting_input_lines_changes_nothing(case):
    runs, rnd = case
    shuffled = []
    for records in runs:
        copy = list(records)
        rnd.shuffle(copy)
        shuffled.append(copy)
    for name, spec in METHODS.items():
        norms = ["min-max", "zmuv", "sum", "borda"] if spec.scores else [None]
        for norm in norms:
            kwargs = {"norm": norm, "params": PARAMS.get(name, {})}
            a = fuse([Run.from_records(r) for r in runs], name, **kwargs)
            b = fuse([Run.from_records(r) for r in shuffled], name, **kwargs)
            assert a.to_dict() == b.to_dict(), (name, norm)
            ta, tb = io.StringIO(), io.StringIO()
            a.write(ta)
            b.write(tb)
            assert ta.getvalue() == tb.getvalue(), (name, norm)


def test_ties_in_an_input_follow_the_tie_policy():
    # d1 and d2 tie in run a: trec_eval ranks d2 (docid descending) first.
    a = [("q", "d1", 1.0), ("q", "d2", 1.0)]
    for records in (a, a[::-1]):
        out = fuse([Run.from_records(records)], "rrf").to_dict()["q"]
        assert out == {"d2": 1 / 61, "d1": 1 / 62}
    out = fuse([Run.from_records(a)], "rrf", ties="docid_asc").to_dict()["q"]
    assert out == {"d1": 1 / 61, "d2": 1 / 62}


# --- optimisation -------------------------------------------------------------------------


def test_fuse_optimize_grid_and_best():
    qrels = {"q1": {"d1": 1}, "q2": {"d1": 1}}
    grid, best = fuse_optimize(qrels, [R1, R2], "wsum", "RR", step=0.5)
    assert list(grid.columns) == ["weights", "RR"]
    assert grid["weights"].tolist() == [(0.0, 1.0), (0.5, 0.5), (1.0, 0.0)]
    # weights (0, 1): q1: d1 first (RR 1); q2: d3 1, then d1 and d2 (R1 only) tie at 0 and
    # trec_eval's docid-descending order puts d2 first: d1 at rank 3 (RR 1/3)
    assert best.weights == (0.0, 1.0) and best.value == pytest.approx((1 + 1 / 3) / 2)
    assert best.fuse([R1, R2]).to_dict() == fuse([R1, R2], "wsum", weights=[0, 1]).to_dict()
    grid, best = fuse_optimize(
        qrels, [R1, R2], "rrf", "RR", grid={"k": [0, 60]}, train_queries=["q1"]
    )
    assert grid["k"].tolist() == [0, 60]
    assert dict(best.params) == {"k": 0}
    with pytest.raises(OptionError, match="has no parameter 'phi'"):
        fuse_optimize(qrels, [R1, R2], "rrf", grid={"phi": [0.5]})
    with pytest.raises(OptionError, match="not in the qrels"):
        fuse_optimize(qrels, [R1, R2], "rrf", train_queries=["zz"])


def test_fuse_optimize_supervised_trains_first():
    grid, best = fuse_optimize(TRAIN_QRELS, RUNS, "probfuse", "RR")
    assert len(grid) == 1 and "probs" in best.trained


def test_top_level_exports():
    assert ranklens.fuse is fuse and ranklens.fuse_optimize is fuse_optimize
    assert set(SUPERVISED) <= set(METHODS)


# --- CLI ----------------------------------------------------------------------------------


def write_run(path, run: dict, tag: str = "t") -> str:
    lines = []
    for q, docs in run.items():
        for i, (d, s) in enumerate(sorted(docs.items(), key=lambda x: -x[1]), start=1):
            lines.append(f"{q} Q0 {d} {i} {s} {tag}\n")
    random.Random(0).shuffle(lines)
    path.write_text("".join(lines))
    return str(path)


def test_cli_fuse_writes_trec_run(tmp_path, capsys):
    a, b = write_run(tmp_path / "a", R1), write_run(tmp_path / "b", R2)
    out = tmp_path / "fused.run"
    assert (
        main(["fuse", a, b, "--method", "rrf", "--param", "k=10", "-o", str(out), "--tag", "hyb"])
        == 0
    )
    lines = out.read_text().splitlines()
    expected = fuse([R1, R2], "rrf", k=10)
    assert len(lines) == len(expected)
    parsed = Run.from_file(str(out))
    assert parsed.name == "hyb"
    close(parsed.to_dict(), expected.to_dict(), tol=0)
    assert lines[0].split()[:4] == ["q1", "Q0", "d1", "1"]
    assert "fused 2 runs with rrf" in capsys.readouterr().err


def test_cli_fuse_weights_norm_and_errors(tmp_path, capsys):
    a, b = write_run(tmp_path / "a", R1), write_run(tmp_path / "b", R2)
    out = tmp_path / "f"
    assert (
        main(
            [
                "fuse",
                a,
                b,
                "--method",
                "wsum",
                "--norm",
                "max",
                "--weights",
                "0.3,0.7",
                "-o",
                str(out),
            ]
        )
        == 0
    )
    close(
        Run.from_file(str(out)).to_dict(),
        fuse([R1, R2], "wsum", norm="max", weights=[0.3, 0.7]).to_dict(),
        tol=0,
    )
    capsys.readouterr()
    assert main(["fuse", a, b, "--method", "wsum", "--weights", "1", "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "1 weights given for 2 runs" in err
    assert main(["fuse", a, b, "--method", "probfuse", "-o", str(out)]) == 2
    assert "--train QRELS" in capsys.readouterr().err
    assert main(["fuse", a, b, "--param", "k", "-o", str(out)]) == 2


def test_cli_fuse_optimize(tmp_path, capsys):
    a, b = write_run(tmp_path / "a", R1), write_run(tmp_path / "b", R2)
    qrels = tmp_path / "qrels"
    qrels.write_text("q1 0 d1 1\nq2 0 d1 1\n")
    out, grid = tmp_path / "f", tmp_path / "grid.csv"
    code = main(
        [
            "fuse",
            a,
            b,
            "--method",
            "wsum",
            "--optimize",
            str(qrels),
            "--measure",
            "RR",
            "--step",
            "0.5",
            "-o",
            str(out),
            "--grid-out",
            str(grid),
        ]
    )
    assert code == 0
    assert "best of 3 settings" in capsys.readouterr().err
    assert grid.read_text().splitlines()[0] == "weights,RR"
    close(
        Run.from_file(str(out)).to_dict(), fuse([R1, R2], "wsum", weights=[0, 1]).to_dict(), tol=0
    )
    again = ["fuse", a, b, "--method", "probfuse", "--train", str(qrels), "-o", str(out)]
    assert main(again) == 2  # the output exists: refused without --force
    assert main([*again, "--force"]) == 0
    assert main(["fuse", a, b, "-o", a, "--force"]) == 2  # never over an input run


def test_depth_keeps_the_top_of_each_query():
    full = fuse(RUNS, "rrf")
    top = fuse(RUNS, "rrf", depth=2)
    assert top.to_dict() == {
        "q1": {"d1": full.to_dict()["q1"]["d1"], "d3": full.to_dict()["q1"]["d3"]},
        "q2": {"d2": full.to_dict()["q2"]["d2"], "d3": full.to_dict()["q2"]["d3"]},
    }
    # q1: d3 2/61 > d1 1/63 + 1/61 > d2 2/62; q2: d3 2/61 > d2 1/61 + 1/62 > d1 2/62
    with pytest.raises(OptionError, match="depth"):
        fuse(RUNS, depth=0)


def test_cli_depth(tmp_path):
    a, b = write_run(tmp_path / "a", R1), write_run(tmp_path / "b", R2)
    out = tmp_path / "f"
    assert main(["fuse", a, b, "--depth", "1", "-o", str(out), "--quiet"]) == 0
    assert [line.split()[2] for line in out.read_text().splitlines()] == ["d1", "d1"]


# --- the native join ----------------------------------------------------------------------


def test_pool_runs_native_join_and_its_checks():
    import ranklens.data._core as core

    a = Run.from_dict({"q1": {"x": 1.0, "y": 2.0}, "q3": {"z": 1.0}})
    b = Run.from_dict({"q1": {"y": 5.0, "w": 1.0}})

    def item(run, qmap):
        return (
            run.q_offsets,
            np.asarray(qmap, dtype=np.int64),
            run.doc_data,
            run.doc_offsets,
            run.ranking(),
        )

    q_offsets, data, offsets, counts, per_run = core.pool_runs([item(a, [0, 2]), item(b, [0])], 3)
    assert q_offsets.tolist() == [0, 3, 3, 4]  # q1: y x w (run a by rank, then b's new w); q2 none
    docs = [bytes(data[offsets[i] : offsets[i + 1]]).decode() for i in range(4)]
    assert docs == ["y", "x", "w", "z"]
    assert counts.tolist() == [2, 1, 1, 1]
    (fid_a, rank_a), (fid_b, rank_b) = per_run
    assert fid_a.tolist() == [0, 1, 3] and rank_a.tolist() == [1, 2, 1]
    assert fid_b.tolist() == [0, 2] and rank_b.tolist() == [1, 2]
    with pytest.raises(ValueError, match="increasing"):
        core.pool_runs([item(a, [2, 0])], 3)
    with pytest.raises(ValueError, match="increasing"):
        core.pool_runs([item(a, [0, 5])], 3)
    with pytest.raises(TypeError, match="tuple of 5"):
        core.pool_runs([item(a, [0, 2])[:4]], 3)
    bad = list(item(a, [0, 2]))
    bad[4] = np.array([0, 1, 7], dtype=np.int64)
    with pytest.raises(IndexError, match="perm"):
        core.pool_runs([tuple(bad)], 3)
    q_offsets, data, offsets, counts, per_run = core.pool_runs([], 2)
    assert q_offsets.tolist() == [0, 0, 0] and per_run == ()


def test_pool_runs_same_with_any_thread_count():
    import ranklens.data._core as core

    rng = np.random.default_rng(3)
    runs = []
    for r in range(3):
        records = [
            (f"q{q}", f"d{d}", float(rng.integers(0, 5)))
            for q in range(40)
            if (q + r) % 7  # some queries missing from some runs
            for d in rng.choice(60, size=int(rng.integers(1, 30)), replace=False)
        ]
        runs.append(Run.from_records(records))
    union = sorted(set().union(*(run.qids for run in runs)))
    items = [
        (
            run.q_offsets,
            np.searchsorted(
                np.asarray(union, dtype=object), np.asarray(run.qids, dtype=object)
            ).astype(np.int64),
            run.doc_data,
            run.doc_offsets,
            run.ranking(),
        )
        for run in runs
    ]
    one = core.pool_runs(items, len(union), 1)
    for threads in (2, 3, 8):
        other = core.pool_runs(items, len(union), threads)
        for a, b in zip(one[:4], other[:4], strict=True):
            assert np.array_equal(a, b)
        for (fa, ra), (fb, rb) in zip(one[4], other[4], strict=True):
            assert np.array_equal(fa, fb) and np.array_equal(ra, rb)


@st.composite
def scored_runs(draw):
    """Runs with varied scores (ties, zeros of both signs, huge and tiny values)."""
    values = st.sampled_from([0.0, -0.0, 1.0, 0.1, 0.7, -3.5, 1e300, -1e300, 5e-324, 12.0])
    runs = []
    for _ in range(draw(st.integers(1, 3))):
        records = []
        for q in draw(st.lists(st.sampled_from(["1", "10", "9"]), min_size=1, unique=True)):
            docs = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=6, unique=True))
            records += [(q, d, draw(values | st.floats(-50, 50))) for d in docs]
        runs.append(Run.from_records(records))
    return runs


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scored_runs(), st.sampled_from(["min-max", "min-max@2", "max", "sum", "zmuv", "none"]))
def test_native_normalised_sums_equal_the_numpy_values_summed(runs, norm):
    """The one-pass native sums of the affine normalisations (``normalised_total``) are,
    to the last bit, the sums of :func:`normalise`'s per-entry values run by run."""
    from ranklens.fusion._pool import pool
    from ranklens.fusion.normalise import affine, normalise, normalised_total, parse_norm

    pooled = pool(runs)
    weights = np.array([0.5, 1.0, 3.0])[: len(runs)]
    name, k = parse_norm(norm)
    # where a query would overflow (±1e300), normalise's overflow-safe values are summed;
    # a weighted sum of values held at the largest float may itself round to -inf (the
    # float nearest the true sum), never to NaN: max saturates on the negative side only
    native = all(affine(pooled, name, k, i).native for i in range(len(runs)))
    with np.errstate(all="ignore"):
        values = [normalise(pooled, norm, i)[0] for i in range(len(runs))]
        for w in (None, weights):
            want = pooled.total(values, w)
            got = normalised_total(pooled, norm, w)
            if not native:
                assert got is None and not np.isnan(want).any()
                continue
            assert got is not None
            np.testing.assert_array_equal(got, want)
            numbers = ~np.isnan(want)
            assert np.signbit(got[numbers]).tolist() == np.signbit(want[numbers]).tolist()


def test_cli_fuse_output_is_the_run_text_with_repr_scores(tmp_path, capsys):
    """``-o FILE`` holds, byte for byte, one line per fused document with ``repr`` scores
    (the layout of the writer before it was made native), also to stdout."""
    a, b = write_run(tmp_path / "a", R1), write_run(tmp_path / "b", R2)
    out = tmp_path / "fused.run"
    assert main(["fuse", a, b, "--method", "comb_mnz", "--norm", "zmuv", "-o", str(out)]) == 0
    fused_run = fuse([R1, R2], "comb_mnz", norm="zmuv")
    order = fused_run.ranking()
    starts = fused_run.q_offsets[:-1][fused_run.query_of_entries()[order]]
    ranks = np.arange(len(fused_run)) - starts + 1
    qidx, docs = fused_run.query_of_entries(), fused_run.docids()
    expected = "".join(
        f"{fused_run.qids[qidx[i]]} Q0 {docs[i]} {rank} {float(fused_run.scores[i])!r} comb_mnz\n"
        for i, rank in zip(order.tolist(), ranks.tolist(), strict=True)
    )
    assert out.read_bytes() == expected.encode()
    capsys.readouterr()
    assert main(["fuse", a, b, "--method", "comb_mnz", "--norm", "zmuv", "--quiet"]) == 0
    assert capsys.readouterr().out == expected
