"""Inversions@k and KendallTau@k, the confusion-matrix rates (Accuracy, ErrorRate,
Specificity, Fallout, MissRate, TPR) and the score errors MSE/RMSE/MAE (issue #4).

Founding document 001 gives only the counts of its examples (its rankings are pictures),
so its two points are rebuilt here with rankings that have those counts: 9 inversions
against 8 for a ranking a user likes less, and a lower MSE for a worse ranking.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

import ranklens
from ranklens.base.errors import MeasureError
from ranklens.measures import parse_measure

Labels = list[int | None]


def ranking(labels: Labels, scores: list[float] | None = None, extra: int = 0) -> tuple[dict, dict]:
    """One query ranking documents with ``labels`` in order (``None``: unjudged, negative:
    a negative judgment), with ``scores`` (default: decreasing integers); ``extra``
    relevant documents are judged but not retrieved."""
    docs = [f"d{i}" for i in range(len(labels))]
    if scores is None:
        scores = [float(len(docs) - i) for i in range(len(docs))]
    qrels = {"q": {d: g for d, g in zip(docs, labels, strict=True) if g is not None}}
    qrels["q"].update({f"missing{i}": 1 for i in range(extra)})
    run = {"q": dict(zip(docs, scores, strict=True))}
    return qrels, run


def one(labels: Labels, measures: list[str], **kw: object) -> dict[str, float]:
    qrels, run = ranking(labels, **kw)  # type: ignore[arg-type]
    return ranklens.evaluate(qrels, run, measures).aggregate


def random_case(seed: int, num_queries: int = 60) -> tuple[dict, dict]:
    """Random graded qrels (with negative judgments) and a run with distinct scores that
    retrieves judged, unjudged and negatively judged documents; some queries have no
    relevant document, one has an empty ranking."""
    rng = np.random.default_rng(seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(num_queries):
        qid = f"q{q}"
        top = int(rng.integers(0, 4))  # highest grade: 0 means no relevant document
        qrels[qid] = {
            f"d{j}": int(rng.integers(-1, top + 1)) for j in range(int(rng.integers(1, 15)))
        }
        size = int(rng.integers(0, 20))
        if size:
            scores = rng.permutation(size * 3)[:size] / 7.0
            run[qid] = {f"d{j}": float(s) for j, s in enumerate(scores)}
    qrels["empty"] = {"x": 2, "y": 0}  # never retrieved: an empty ranking
    return qrels, run


def judged_tops(
    qrels: dict, run: dict, cutoff: int | None, judged_only: bool
) -> dict[str, list[tuple[float, int]]]:
    """Per query of the qrels, (score, grade) of the judged retrieved documents of the top
    ``cutoff``, in rank order (scores are distinct)."""
    out = {}
    for qid, judged in qrels.items():
        docs = sorted(run.get(qid, {}).items(), key=lambda item: -item[1])
        if judged_only:
            docs = [d for d in docs if judged.get(d[0], -1) >= 0]
        docs = docs[:cutoff] if cutoff is not None else docs
        out[qid] = [(s, judged[d]) for d, s in docs if d in judged and judged[d] >= 0]
    return out


# ---------------------------------------------------------------- Inversions and KendallTau


class TestRankCorrelation:
    def test_seed001_fewer_inversions_but_a_worse_ranking(self) -> None:
        # 001 "Kendall Tau distance": 9 inversions for the first ranking, 8 for a second
        # one that users like less (its first relevant document is lower).
        first = one([1, 0, 0, 0, 1, 0, 0, 0, 1], ["Inversions", "RR", "Inversions@5"])
        second = one([0, 0, 1, 1, 0, 0, 1, 0, 0], ["Inversions", "RR"])
        assert first["Inversions"] == 9.0 and second["Inversions"] == 8.0
        assert first["RR"] == 1.0 and second["RR"] == pytest.approx(1 / 3)
        assert first["Inversions@5"] == 3.0

    def test_graded_ties_unjudged_and_negative(self) -> None:
        # judged grades in rank order: 2, 1, 1, 0, 2 (the unjudged and the negatively
        # judged documents are skipped). Inversions: the last 2 under 1, 1, 0 = 3. Pairs
        # n0 = 10, tied T = 2 (the two 2s, the two 1s), C = 10 - 2 - 3 = 5.
        labels: Labels = [2, 1, None, 1, -1, 0, 2]
        got = one(labels, ["Inversions", "KendallTau", "Inversions(rel=2)", "KendallTau@3"])
        assert got["Inversions"] == 3.0
        assert got["KendallTau"] == pytest.approx(2 / math.sqrt(80))
        expected = stats.kendalltau([0, -1, -2, -3, -4], [2, 1, 1, 0, 2]).statistic
        assert got["KendallTau"] == pytest.approx(expected)
        assert got["Inversions(rel=2)"] == 3.0  # binary: the last 2 under the 1, 1, 0
        # top 3 ranks: 2, 1, unjudged -> grades 2, 1: concordant, tau = 1
        assert got["KendallTau@3"] == 1.0

    def test_judged_only_changes_the_top_k(self) -> None:
        labels: Labels = [0, None, None, 1]
        got = one(labels, ["Inversions@3", "Inversions(judged_only=True)@3"])
        assert got["Inversions@3"] == 0.0
        assert got["Inversions(judged_only=True)@3"] == 1.0

    def test_undefined_and_empty_are_zero(self) -> None:
        qrels = {"one": {"a": 2}, "tied": {"a": 1, "b": 1, "c": 1}, "unjudged": {"z": 1}}
        qrels |= {"negative": {"a": -1, "b": 3}, "empty": {"a": 1, "b": 0}}
        run = {
            "one": {"a": 1.0},
            "tied": {"a": 3.0, "b": 2.0, "c": 1.0},
            "unjudged": {"x": 2.0, "y": 1.0},
            "negative": {"a": 2.0, "b": 1.0},
        }
        res = ranklens.evaluate(qrels, run, ["Inversions", "KendallTau"])
        assert res.values.tolist() == [[0.0, 0.0]] * 5
        assert one([0, 1], ["KendallTau"])["KendallTau"] == -1.0
        assert one([3, 1, 0], ["KendallTau"])["KendallTau"] == 1.0

    @pytest.mark.parametrize("seed", [1, 2, 3])
    def test_against_scipy_and_a_pair_loop(self, seed: int) -> None:
        qrels, run = random_case(seed)
        for cutoff in (None, 1, 3, 10):
            for judged_only in (False, True):
                for rel in (None, 2):
                    at = "" if cutoff is None else f"@{cutoff}"
                    shown = [f"rel={rel}"] * (rel is not None) + ["judged_only=True"] * judged_only
                    params = f"({','.join(shown)})" if shown else ""
                    inv, tau = f"Inversions{params}{at}", f"KendallTau{params}{at}"
                    res = ranklens.evaluate(qrels, run, [inv, tau])
                    got_inv, got_tau = res.query_values(inv), res.query_values(tau)
                    tops = judged_tops(qrels, run, cutoff, judged_only)
                    assert set(got_inv) == set(tops)
                    for qid, docs in tops.items():
                        g = [x[1] if rel is None else int(x[1] >= rel) for x in docs]
                        pairs = sum(
                            g[i] < g[j] for i in range(len(g)) for j in range(i + 1, len(g))
                        )
                        assert got_inv[qid] == pairs, (qid, inv)
                        ref = 0.0
                        if len(g) > 1 and len(set(g)) > 1:
                            ref = stats.kendalltau(-np.arange(len(g)), g, variant="b").statistic
                        assert got_tau[qid] == pytest.approx(ref, abs=1e-12), (qid, tau)


# ---------------------------------------------------------------- confusion matrix

RATES = ("ClassAccuracy", "ErrorRate", "Specificity", "Fallout", "MissRate", "TPR")


class TestConfusion:
    def test_hand_computed(self) -> None:
        # 5 retrieved: relevant, non-relevant, unjudged, relevant (2), negative; 1 relevant
        # not retrieved; N = 20. TP = 2, FP = 3, FN = 1, TN = 14.
        got = one([1, 0, None, 2, -1], [f"{m}(num_docs=20)" for m in RATES], extra=1)
        assert got["ClassAccuracy(num_docs=20)"] == pytest.approx(16 / 20)
        assert got["ErrorRate(num_docs=20)"] == pytest.approx(4 / 20)
        assert got["Specificity(num_docs=20)"] == pytest.approx(14 / 17)
        assert got["Fallout(num_docs=20)"] == pytest.approx(3 / 17)
        assert got["MissRate(num_docs=20)"] == pytest.approx(1 / 3)
        assert got["TPR(num_docs=20)"] == pytest.approx(2 / 3)
        # top 2, rel=2: TP = 0, FP = 2, FN = 1 (the grade-2 document), TN = 17
        at2 = one([1, 0, None, 2, -1], ["TPR(num_docs=20,rel=2)@2", "Fallout(num_docs=20,rel=2)@2"])
        assert at2["TPR(num_docs=20,rel=2)@2"] == 0.0
        assert at2["Fallout(num_docs=20,rel=2)@2"] == pytest.approx(2 / 19)

    def test_no_relevant_and_empty_ranking(self) -> None:
        qrels = {"norel": {"a": 0, "b": 0}, "empty": {"x": 1, "y": 1, "z": 0}}
        run = {"norel": {"a": 2.0, "c": 1.0}}
        names = [f"{m}(num_docs=10)" for m in RATES]
        res = ranklens.evaluate(qrels, run, names).per_query
        norel = [res["norel"][n] for n in names]  # TP 0, FP 2, FN 0, TN 8
        assert norel == pytest.approx([0.8, 0.2, 0.8, 0.2, 0.0, 0.0])
        empty = [res["empty"][n] for n in names]  # TP 0, FP 0, FN 2, TN 8
        assert empty == pytest.approx([0.8, 0.2, 1.0, 0.0, 1.0, 0.0])

    @pytest.mark.parametrize("seed", [4, 5])
    def test_against_the_counts(self, seed: int) -> None:
        qrels, run = random_case(seed)
        n_docs = 1000
        for suffix in ("", "@1", "@5"):
            for options in ("rel=1", "rel=2", "rel=2,judged_only=True"):
                counts = [
                    f"NumRet({options}){suffix}".replace("rel=1", "rel=None").replace(
                        "rel=2", "rel=None"
                    ),
                    f"NumRelRet({options}){suffix}",
                    f"NumRel({options.split(',')[0]})",
                ]
                names = [f"{m}(num_docs={n_docs},{options}){suffix}" for m in RATES]
                res = ranklens.evaluate(qrels, run, counts + names)
                ret = np.array(list(res.query_values(counts[0]).values()))
                tp = np.array(list(res.query_values(counts[1]).values()))
                big_r = np.array(list(res.query_values(counts[2]).values()))
                fp, fn = ret - tp, big_r - tp
                tn = n_docs - tp - fp - fn

                def div(a: np.ndarray, b: np.ndarray) -> np.ndarray:
                    return np.where(b > 0, a / np.where(b > 0, b, 1), 0.0)

                expected = [
                    (tp + tn) / n_docs,
                    (fp + fn) / n_docs,
                    div(tn, tn + fp),
                    div(fp, fp + tn),
                    div(fn, fn + tp),
                    div(tp, tp + fn),
                ]
                for name, want in zip(names, expected, strict=True):
                    got = np.array(list(res.query_values(name).values()))
                    np.testing.assert_allclose(got, want, rtol=0, atol=1e-15, err_msg=name)
                tpr = np.array(list(res.query_values(names[-1]).values()))
                recall = f"R({options}){suffix}".replace(",judged_only=True", "")
                if "judged_only" not in options:
                    again = ranklens.evaluate(qrels, run, [recall]).query_values(recall)
                    np.testing.assert_allclose(tpr, list(again.values()))

    def test_num_docs_is_required(self) -> None:
        qrels, run = ranking([1, 0])
        for name in RATES:
            with pytest.raises(MeasureError, match=r"needs num_docs=N \(--num-docs\)"):
                ranklens.evaluate(qrels, run, [name])
            with pytest.raises(MeasureError, match="num_docs=N"):
                ranklens.evaluate(qrels, run, [f"{name}(num_docs=0)@5"])

    def test_num_docs_too_small(self) -> None:
        qrels, run = ranking([1, 0, 0], extra=2)
        with pytest.raises(MeasureError, match="smaller than"):
            ranklens.evaluate(qrels, run, ["ClassAccuracy(num_docs=4)"])
        assert (
            ranklens.evaluate(qrels, run, ["ClassAccuracy(num_docs=5)"])["ClassAccuracy(num_docs=5)"] == 0.2
        )

    def test_eval_command_fills_num_docs(self) -> None:
        from ranklens.cli.eval_command import with_num_docs

        filled = with_num_docs(["Fallout@10", "TPR(num_docs=7)", "P@5"], 100)
        assert [str(m) for m in filled] == ["Fallout(num_docs=100)@10", "TPR(num_docs=7)", "P@5"]


# ---------------------------------------------------------------- MSE, RMSE, MAE


class TestScoreErrors:
    def test_seed001_lower_mse_for_a_worse_ranking(self) -> None:
        # 001 "Unranked metrics": the second result has the lower MSE, yet its only
        # relevant document is last (RR 1/6 against 1).
        first = one([1, 0, 0, 0, 0, 0], ["MSE", "RR"], scores=[0.6, 0.55, 0.5, 0.45, 0.4, 0.35])
        second = one([0, 0, 0, 0, 0, 1], ["MSE", "RR"], scores=[0.1, 0.08, 0.06, 0.04, 0.02, 0.01])
        assert first["MSE"] == pytest.approx(1.1975 / 6)
        assert second["MSE"] == pytest.approx(1.0021 / 6)
        assert second["MSE"] < first["MSE"] and second["RR"] < first["RR"]

    def test_hand_computed(self) -> None:
        # judged: (3.0, 2), (1.0, 0), (0.5, 1); the unjudged and the negative are skipped
        labels: Labels = [2, None, 0, -1, 1]
        got = one(
            labels,
            ["MSE", "RMSE", "MAE", "MSE@2", "MAE(judged_only=True)@2"],
            scores=[3.0, 2.0, 1.0, 0.75, 0.5],
        )
        assert got["MSE"] == pytest.approx((1 + 1 + 0.25) / 3)
        assert got["RMSE"] == pytest.approx(math.sqrt(2.25 / 3))
        assert got["MAE"] == pytest.approx(2.5 / 3)
        assert got["MSE@2"] == pytest.approx(1.0)
        assert got["MAE(judged_only=True)@2"] == pytest.approx(1.0)

    def test_no_judged_document_is_zero(self) -> None:
        qrels = {"q": {"a": 1}, "empty": {"x": 1}}
        run = {"q": {"b": 5.0, "c": 4.0}}
        res = ranklens.evaluate(qrels, run, ["MSE", "RMSE", "MAE"])
        assert res.values.tolist() == [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]

    @pytest.mark.parametrize("seed", [6, 7])
    def test_against_numpy(self, seed: int) -> None:
        qrels, run = random_case(seed)
        for cutoff in (None, 2, 7):
            for judged_only in (False, True):
                at = "" if cutoff is None else f"@{cutoff}"
                params = "(judged_only=True)" if judged_only else ""
                names = [f"{m}{params}{at}" for m in ("MSE", "RMSE", "MAE")]
                res = ranklens.evaluate(qrels, run, names)
                tops = judged_tops(qrels, run, cutoff, judged_only)
                rmse = []
                for qid in res.queries:
                    pairs = np.array(tops[qid], dtype=np.float64).reshape(-1, 2)
                    diff = pairs[:, 0] - pairs[:, 1]
                    mse = float(np.mean(diff**2)) if diff.size else 0.0
                    mae = float(np.mean(np.abs(diff))) if diff.size else 0.0
                    row = res.per_query[qid]
                    assert row[names[0]] == pytest.approx(mse, rel=1e-12, abs=1e-15)
                    assert row[names[1]] == pytest.approx(math.sqrt(mse), rel=1e-12, abs=1e-15)
                    assert row[names[2]] == pytest.approx(mae, rel=1e-12, abs=1e-15)
                    rmse.append(math.sqrt(mse))
                # the aggregate is the mean of the per-query values
                assert res.aggregate[names[1]] == pytest.approx(float(np.mean(rmse)))

    def test_needs_scores(self) -> None:
        from ranklens.kernels.regression import score_error
        from ranklens.ranking.align import Ranked

        qrels, run = ranking([1, 0])
        base = ranklens.evaluate  # the public path always carries scores
        assert base(qrels, run, ["MSE"])["MSE"] == 1.0  # scores 2, 1 against grades 1, 0
        from ranklens.data.qrels import Qrels
        from ranklens.data.run import Run
        from ranklens.ranking.align import PreparedQrels, align

        aligned = align(PreparedQrels.of(Qrels.from_dict(qrels)), Run.from_dict(run))
        bare = Ranked(
            aligned.base.qids, aligned.base.offsets, aligned.base.rel, aligned.base.grades
        )
        with pytest.raises(MeasureError, match="needs the run's scores"):
            score_error(bare, None, "mse")


# ---------------------------------------------------------------- declarations


def test_names_round_trip_and_declarations() -> None:
    names = [
        "Inversions",
        "Inversions(rel=1,judged_only=True)@10",
        "KendallTau@5",
        "KendallTau(rel=2)",
        "ClassAccuracy(num_docs=100)",
        "ErrorRate(num_docs=100,rel=2)@10",
        "Specificity(judged_only=True,num_docs=5)",
        "Fallout(num_docs=1000)@20",
        "MissRate(num_docs=3)",
        "TPR(num_docs=9)@1",
        "MSE",
        "RMSE@10",
        "MAE(judged_only=True)@3",
    ]
    for name in names:
        m = parse_measure(name)
        assert parse_measure(m.name) == m and parse_measure(m.name).name == m.name
        assert m.spec.trec_name is None
    assert (
        parse_measure("ErrorRate(rel=2,num_docs=100)@10").name == "ErrorRate(num_docs=100,rel=2)@10"
    )
    lower = {"Inversions", "ErrorRate", "Fallout", "MissRate", "MSE", "RMSE", "MAE"}
    for name in ("Inversions", "KendallTau", *RATES, "MSE", "RMSE", "MAE"):
        spec = parse_measure(name + ("(num_docs=1)" if name in RATES else "")).spec
        assert spec.higher_is_better == (name not in lower)
        assert spec.aggregate == "mean"
    assert parse_measure("KendallTau").spec.bounds == (-1.0, 1.0)
    for name in ("MSE", "RMSE", "MAE"):
        assert "not a ranking measure" in parse_measure(name).spec.summary
