"""F1@k / F@k, CG@k, ERR@k and the AP@k / R@k denominators (``norm``) of issue #4.

Worked examples come from the founding documents (tests/data/seeds, copied from the project's shared folder), asserted at their
mathematically correct values (tests/data/seeds/ERRATA.md); the rest are hand-computed
cases and plain-Python references on random rankings.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import ranklens
from ranklens.base.errors import MeasureError
from ranklens.kernels.err import segment_cumprod
from ranklens.measures import parse_measure


def ranking(labels: list[int | None], extra_relevant: int = 0) -> tuple[dict, dict]:
    """One query ranking documents with ``labels`` in order (``None``: unjudged);
    ``extra_relevant`` relevant documents are in the qrels but not retrieved."""
    docs = [f"d{i}" for i in range(len(labels))]
    qrels = {"q": {d: g for d, g in zip(docs, labels, strict=True) if g is not None}}
    qrels["q"].update({f"missing{i}": 1 for i in range(extra_relevant)})
    run = {"q": {d: float(len(docs) - i) for i, d in enumerate(docs)}}
    if not docs:  # an empty ranking: an empty run (every qrels query retrieves nothing)
        run = {}
    return qrels, run


def values(
    labels: list[int | None], measures: list[str], extra_relevant: int = 0
) -> dict[str, float]:
    qrels, run = ranking(labels, extra_relevant)
    return ranklens.evaluate(qrels, run, measures).aggregate


# ---------------------------------------------------------------- F-measure


class TestF:
    def test_seed000_binary_example_f1_table(self) -> None:
        # 000 "F1@k": relevant at ranks 1, 3, 5 of 5 (3 relevant); printed F1@5 = 0.749,
        # ERRATA: 0.75.
        got = values([1, 0, 1, 0, 1], [f"F1@{k}" for k in range(1, 6)])
        expected = [0.5, 0.4, 2 / 3, 4 / 7, 0.75]
        assert [got[f"F1@{k}"] for k in range(1, 6)] == pytest.approx(expected, abs=1e-12)
        assert [round(got[f"F1@{k}"], 3) for k in range(1, 6)] == [0.5, 0.4, 0.667, 0.571, 0.75]

    def test_f1_is_f_beta_1_and_matches_p_and_r(self) -> None:
        rng = np.random.default_rng(7)
        qrels = {f"q{i}": {f"d{j}": int(rng.integers(0, 3)) for j in range(12)} for i in range(20)}
        qrels["empty"] = {"x": 1}  # not retrieved: empty ranking
        qrels["norel"] = {"d0": 0}
        run = {
            q: {f"d{j}": float(s) for j, s in enumerate(rng.permutation(15))}
            for q in qrels
            if q != "empty"
        }
        for k in (1, 3, 10, 20):
            for beta in (0.5, 1.0, 2.0):
                f_name = str(parse_measure(f"F(beta={beta})@{k}"))
                res = ranklens.evaluate(qrels, run, [f"P@{k}", f"R@{k}", f"F1@{k}", f_name])
                for row in res.per_query.values():
                    p, r = row[f"P@{k}"], row[f"R@{k}"]
                    b2 = beta * beta
                    want = 0.0 if p + r == 0 else (1 + b2) * p * r / (b2 * p + r)
                    assert row[f_name] == pytest.approx(want, abs=1e-15)
                    if beta == 1.0:
                        assert row[f"F1@{k}"] == row[f_name]
                        assert row[f"F1@{k}"] == pytest.approx(
                            0.0 if p + r == 0 else 2 * p * r / (p + r), abs=1e-15
                        )

    def test_without_cutoff_uses_set_precision_and_recall(self) -> None:
        # 2 of 4 retrieved relevant, 3 relevant in all: P = 1/2, R = 2/3
        got = values([1, 0, 1, 0], ["F1", "F(beta=2)"], extra_relevant=1)
        assert got["F1"] == pytest.approx(2 * 0.5 * (2 / 3) / (0.5 + 2 / 3))
        assert got["F(beta=2.0)"] == pytest.approx(5 * 0.5 * (2 / 3) / (4 * 0.5 + 2 / 3))

    def test_zero_cases(self) -> None:
        assert values([0, 0, None], ["F1@2", "F1"]) == {"F1@2": 0.0, "F1": 0.0}
        assert values([], ["F1@5"], extra_relevant=2) == {"F1@5": 0.0}

    def test_unjudged_and_judged_only(self) -> None:
        # [unjudged, 1, 0]: F1@1 = 0; judged only: [1, 0] -> P@1 = 1, R@1 = 1 -> 1
        got = values([None, 1, 0], ["F1@1", "F1(judged_only=True)@1"])
        assert got == {"F1@1": 0.0, "F1(judged_only=True)@1": 1.0}

    def test_graded_with_rel(self) -> None:
        # grades [2, 1, 0]: rel=2 -> one relevant, at rank 1: F1@2 = 2*(1/2)*1/(1/2+1)
        got = values([2, 1, 0], ["F1(rel=2)@2"])
        assert got["F1(rel=2)@2"] == pytest.approx(2 / 3)


# ---------------------------------------------------------------- cumulative gain


class TestCG:
    def test_seed000_graded_example_cg_table(self) -> None:
        # 000 "Cumulative Gain (CG@k)": labels [3, 2, 3, 0, 1] -> 3, 5, 8, 8, 9
        got = values([3, 2, 3, 0, 1], [f"CG@{k}" for k in range(1, 6)] + ["CG"])
        assert [got[f"CG@{k}"] for k in range(1, 6)] == [3, 5, 8, 8, 9]
        assert got["CG"] == 9

    def test_unjudged_negative_and_judged_only(self) -> None:
        # [unjudged, -1 (negative), 2, 1]: CG@2 = 0; judged only (trec_eval -J) drops both
        # the unjudged and the negatively judged document: [2, 1] -> CG@2 = 3
        got = values([None, -1, 2, 1], ["CG@2", "CG(judged_only=True)@2", "CG"])
        assert got == {"CG@2": 0.0, "CG(judged_only=True)@2": 3.0, "CG": 3.0}

    def test_empty_and_short_rankings(self) -> None:
        assert values([], ["CG@3"], extra_relevant=1) == {"CG@3": 0.0}
        assert values([2], ["CG@10"]) == {"CG@10": 2.0}

    def test_ties_follow_the_tie_policy(self) -> None:
        # equal scores: trec_eval orders by docno descending, so "b" (grade 1) before "a"
        qrels = {"q": {"a": 3, "b": 1}}
        run = {"q": {"a": 1.0, "b": 1.0}}
        assert ranklens.evaluate(qrels, run, ["CG@1"]).aggregate["CG@1"] == 1.0


# ---------------------------------------------------------------- AP and R denominators


def ap_reference(labels: list[int], num_rel: int, k: int | None, norm: str) -> float:
    """Plain-Python AP@k over binary labels (1 relevant), ``num_rel`` relevant in all."""
    top = labels if k is None else labels[:k]
    found, total = 0, 0.0
    for i, label in enumerate(top, start=1):
        if label:
            found += 1
            total += found / i
    den = {"R": num_rel, "min": min(num_rel, len(labels) if k is None else k), "ret": found}
    return total / den[norm] if den[norm] else 0.0


class TestNorm:
    def test_seed001_ap_at_5_divides_by_relevant_retrieved(self) -> None:
        # 001 "AP@k": Q1 relevant at 1, 3, 4 -> 0.81 (0.8056); Q2 at 2, 4, 5 -> 0.53 (0.5333).
        # ERRATA: the document divides by the relevant documents retrieved in the top k,
        # which norm='ret' names; that holds whatever else is relevant in the qrels.
        for extra in (0, 4):
            q1 = values([1, 0, 1, 1, 0], ["AP(norm='ret')@5"], extra_relevant=extra)
            q2 = values([0, 1, 0, 1, 1], ["AP(norm='ret')@5"], extra_relevant=extra)
            assert q1["AP(norm='ret')@5"] == pytest.approx((1 + 2 / 3 + 3 / 4) / 3)
            assert q2["AP(norm='ret')@5"] == pytest.approx((1 / 2 + 2 / 4 + 3 / 5) / 3)
            assert round(q1["AP(norm='ret')@5"], 4) == 0.8056
            assert round(q2["AP(norm='ret')@5"], 4) == 0.5333
        # the trec_eval default divides by all 3 + 4 relevant documents
        got = values([1, 0, 1, 1, 0], ["AP@5"], extra_relevant=4)
        assert got["AP@5"] == pytest.approx((1 + 2 / 3 + 3 / 4) / 7)

    def test_default_is_unchanged(self) -> None:
        assert str(parse_measure("AP(norm='R')@10")) == "AP@10"
        assert str(parse_measure("R(norm='R')")) == "R"

    @pytest.mark.parametrize("norm", ["R", "min", "ret"])
    def test_ap_against_reference(self, norm: str) -> None:
        rng = np.random.default_rng(11)
        qrels: dict[str, dict[str, int]] = {}
        run: dict[str, dict[str, float]] = {}
        cases: dict[str, tuple[list[int], int]] = {}
        for i in range(40):
            n = int(rng.integers(0, 15))
            labels = [int(x) for x in rng.integers(0, 2, n)]
            extra = int(rng.integers(0, 4))
            q = f"q{i}"
            qrels[q] = {f"d{j}": g for j, g in enumerate(labels)}
            qrels[q].update({f"m{j}": 1 for j in range(extra)})
            qrels[q]["judged_nonrel"] = 0
            if n:
                run[q] = {f"d{j}": float(n - j) for j in range(n)}
            cases[q] = (labels, sum(labels) + extra)
        for k in (None, 1, 5, 10, 30):
            name = str(parse_measure(f"AP(norm={norm!r})" + ("" if k is None else f"@{k}")))
            got = ranklens.evaluate(qrels, run, [name]).query_values(name)
            for q, (labels, num_rel) in cases.items():
                assert got[q] == pytest.approx(ap_reference(labels, num_rel, k, norm), abs=1e-15)

    def test_recall_min(self) -> None:
        # 1 relevant in the top 2, 5 relevant in all: R@2 = 1/5, R(norm='min')@2 = 1/2
        got = values([1, 0, 1], ["R@2", "R(norm='min')@2", "R(norm='min')"], extra_relevant=3)
        assert got["R@2"] == pytest.approx(1 / 5)
        assert got["R(norm='min')@2"] == pytest.approx(1 / 2)
        # without @k: 2 relevant of 3 retrieved / min(5, 3)
        assert got["R(norm='min')"] == pytest.approx(2 / 3)
        # fewer relevant than k: min(R, k) = R, the default value
        got = values([1, 0, 0, 0], ["R@4", "R(norm='min')@4"])
        assert got["R@4"] == got["R(norm='min')@4"] == 1.0

    def test_ap_min_and_empty(self) -> None:
        # relevant at 1 and 3 of 3, 4 relevant in all, k = 2: sum = 1; min(4, 2) = 2
        got = values([1, 0, 1], ["AP(norm='min')@2", "AP(norm='min')"], extra_relevant=2)
        assert got["AP(norm='min')@2"] == pytest.approx(0.5)
        assert got["AP(norm='min')"] == pytest.approx((1 + 2 / 3) / 3)
        assert values([], ["AP(norm='min')@5", "AP(norm='ret')@5"], extra_relevant=1) == {
            "AP(norm='min')@5": 0.0,
            "AP(norm='ret')@5": 0.0,
        }

    def test_bad_norm(self) -> None:
        with pytest.raises(MeasureError):
            parse_measure("AP(norm='max')")
        with pytest.raises(MeasureError):
            parse_measure("R(norm='ret')@5")


# ---------------------------------------------------------------- ERR


def err_reference(grades: list[int], k: int | None, p: float, g_max: int) -> float:
    """Chapelle's ERR with patience ``p`` as a plain loop over the ranks."""
    total, still = 0.0, 1.0
    for r, g in enumerate(grades if k is None else grades[:k], start=1):
        stop = (2.0 ** min(max(g, 0), g_max) - 1.0) / 2.0**g_max
        total += still * stop / r
        still *= p * (1.0 - stop)
    return total


class TestERR:
    def test_seed001_best_and_worst_orders(self) -> None:
        # 001 "ERR": with p = 1, the documents in descending order of relevance give the
        # best ERR, in ascending order the worst (the figure's numbers are not in the text;
        # hand-computed here for grades 3, 2, 1, 0 with g_max = 3: R = 7/8, 3/8, 1/8, 0).
        best = values([3, 2, 1, 0], ["ERR"])["ERR"]
        worst = values([0, 1, 2, 3], ["ERR"])["ERR"]
        assert best == pytest.approx(
            7 / 8 + (1 / 8) * (3 / 8) / 2 + (1 / 8) * (5 / 8) * (1 / 8) / 3
        )
        assert worst == pytest.approx(
            (1 / 8) / 2 + (7 / 8) * (3 / 8) / 3 + (7 / 8) * (5 / 8) * (7 / 8) / 4
        )
        assert best > worst
        # p = 0.5: each step down also needs the user's patience
        half = values([3, 2, 1, 0], ["ERR(p=0.5)"])["ERR(p=0.5)"]
        assert half == pytest.approx(
            7 / 8 + 0.5 * (1 / 8) * (3 / 8) / 2 + 0.25 * (1 / 8) * (5 / 8) * (1 / 8) / 3
        )

    def test_binary_err_is_reciprocal_rank(self) -> None:
        # binary grades, g_max = 1: R_i = 1/2 for a relevant document
        got = values([0, 1, 0, 1], ["ERR", "ERR@1", "ERR(max_rel=1)@2"])
        assert got["ERR"] == pytest.approx(0.5 / 2 + 0.5 * 0.5 / 4)
        assert got["ERR@1"] == 0.0
        assert got["ERR(max_rel=1)@2"] == 0.25

    def test_max_rel_default_is_the_qrels_top_grade(self) -> None:
        # query a's ranking only has grade 1, but the qrels' top grade is 4 (query b)
        qrels = {"a": {"x": 1}, "b": {"y": 4}}
        run = {"a": {"x": 1.0}}
        got = ranklens.evaluate(qrels, run, ["ERR", "ERR(max_rel=1)"]).per_query
        assert got["a"]["ERR"] == pytest.approx(1 / 16)
        assert got["a"]["ERR(max_rel=1)"] == pytest.approx(1 / 2)
        assert got["b"]["ERR"] == 0.0  # empty ranking
        # a grade above max_rel is clipped to it
        assert values([4], ["ERR(max_rel=2)"])["ERR(max_rel=2)"] == pytest.approx(3 / 4)

    def test_unjudged_no_relevant_and_empty(self) -> None:
        assert values([None, 0, -1], ["ERR"])["ERR"] == 0.0
        assert values([0, 0], ["ERR@5"]) == {"ERR@5": 0.0}
        assert values([], ["ERR"], extra_relevant=1) == {"ERR": 0.0}
        assert values([None, 2], ["ERR"])["ERR"] == pytest.approx(0.75 / 2)

    @pytest.mark.parametrize("seed", [0, 1, 2])
    def test_against_loop_reference(self, seed: int) -> None:
        rng = np.random.default_rng(seed)
        qrels: dict[str, dict[str, int]] = {}
        run: dict[str, dict[str, float]] = {}
        grades: dict[str, list[int]] = {}
        for i in range(60):
            n = int(rng.integers(0, 40 if i % 10 else 300))
            q = f"q{i}"
            labels = [int(x) for x in rng.integers(-2, 5, n)]  # -2: unjudged, -1: negative
            qrels[q] = {f"d{j}": g for j, g in enumerate(labels) if g != -2}
            qrels[q]["unretrieved"] = int(rng.integers(0, 5))
            if n:
                run[q] = {f"d{j}": float(n - j) for j in range(n)}
            grades[q] = labels
        top = max(g for docs in qrels.values() for g in docs.values())
        for p in (1.0, 0.8):
            for k in (None, 1, 5, 20):
                name = str(parse_measure(f"ERR(p={p})" + ("" if k is None else f"@{k}")))
                got = ranklens.evaluate(qrels, run, [name]).query_values(name)
                for q, labels in grades.items():
                    assert got[q] == pytest.approx(err_reference(labels, k, p, top), abs=1e-12)

    def test_segment_cumprod_is_a_running_loop(self) -> None:
        rng = np.random.default_rng(3)
        counts = rng.integers(0, 50, 100)
        offsets = np.concatenate(([0], np.cumsum(counts)))
        values = rng.random(int(offsets[-1]))
        got = segment_cumprod(values, offsets)
        for a, b in itertools.pairwise(offsets.tolist()):
            running = 1.0
            for i in range(a, b):
                running *= values[i]
                assert got[i] == running  # bit for bit

    def test_bad_parameters(self) -> None:
        with pytest.raises(MeasureError):
            parse_measure("ERR(p=1.5)")
        with pytest.raises(MeasureError):
            parse_measure("ERR(max_rel=-1)")
        # max_rel = 0: every grade is clipped to 0, so nothing satisfies the user
        assert values([3, 1], ["ERR(max_rel=0)"]) == {"ERR(max_rel=0)": 0.0}


@pytest.mark.parametrize(
    "name",
    [
        "F1@5",
        "F1(judged_only=True,rel=2)@10",
        "F(beta=0.5)@10",
        "F",
        "CG@10",
        "CG(judged_only=True)",
        "ERR@20",
        "ERR(max_rel=4,p=0.9)@10",
        "AP(norm='min')@10",
        "AP(norm='ret')",
        "R(norm='min')@5",
    ],
)
def test_canonical_names_round_trip(name: str) -> None:
    measure = parse_measure(name)
    assert str(measure) == name
    assert parse_measure(str(measure)) == measure
