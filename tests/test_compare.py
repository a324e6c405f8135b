"""ranklens.compare / compare_results: consistent with evaluate(), the JSON shape, the
baseline, corrections, all pairs, correlations, reproducibility and errors."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
import scipy.stats as st
from statsmodels.stats.multitest import multipletests

import ranklens
from ranklens.analysis.comparison import Comparison, PairStats, compare, compare_results
from ranklens.analysis.stats import system_correlation
from ranklens.base.errors import InputError, OptionError
from ranklens.data.examples import example_paths
from ranklens.evaluation.results import Results
from ranklens.measures import parse_measures

PAIR_KEYS = {
    "delta",
    "p_value",
    "p_value_corrected",
    "ci_low",
    "ci_high",
    "effect_size",
    "wins",
    "ties",
    "losses",
    "mdd",
    "power",
    "topics_needed",
    "prob_better",
    "urisk",
    "trisk",
}


def synthetic_runs(queries: int = 30, seed: int = 0) -> tuple[dict, dict]:
    """Qrels and four runs of increasing quality (``r0`` worst), as dicts."""
    rng = np.random.default_rng(seed)
    qrels = {}
    runs: dict[str, dict] = {f"r{i}": {} for i in range(4)}
    for q in range(queries):
        qid = f"q{q}"
        docs = [f"d{j}" for j in range(20)]
        qrels[qid] = {d: int(rng.integers(0, 3)) for d in docs[:10]}
        for i in range(4):
            runs[f"r{i}"][qid] = {
                d: float(rng.normal(0, 1) + (0.6 * i if qrels[qid].get(d, 0) else 0)) for d in docs
            }
    return qrels, runs


@pytest.fixture(scope="module")
def example() -> Comparison:
    qrels, runs = example_paths()
    return compare(qrels, runs, ["nDCG@10", "AP"])


@pytest.fixture(scope="module")
def four() -> tuple[dict, dict]:
    return synthetic_runs()


def test_content_is_consistent_with_evaluate(example: Comparison) -> None:
    qrels, runs = example_paths()
    ev = ranklens.Evaluator(qrels, ["nDCG@10", "AP"])
    base, other = (ev.evaluate(r) for r in runs)
    assert example.runs == ("bm25", "rerank")
    assert example.baseline == "bm25"
    assert example.queries == base.queries
    assert example.queries_dropped == 0
    assert example.means == {"bm25": base.aggregate, "rerank": other.aggregate}
    for j, m in enumerate(["nDCG@10", "AP"]):
        x, y = other.values[:, j], base.values[:, j]
        s = example.vs_baseline["rerank"][m]
        assert s.delta == pytest.approx(np.mean(x - y), rel=1e-12)
        ref = st.ttest_rel(x, y)
        assert s.p_value == pytest.approx(ref.pvalue, rel=1e-9)
        assert s.p_value_corrected == s.p_value  # one comparison per measure
        ci = ref.confidence_interval(0.95)
        assert (s.ci_low, s.ci_high) == pytest.approx((ci.low, ci.high), rel=1e-9)
        assert s.effect_size == pytest.approx(np.mean(x - y) / np.std(x - y, ddof=1))
        assert (s.wins, s.ties, s.losses) == (
            int(np.sum(x > y)),
            int(np.sum(x == y)),
            int(np.sum(x < y)),
        )
        assert s.significant == (s.p_value_corrected <= 0.05)
    assert [r.run for r in example.results] == ["bm25", "rerank"]


def test_json_has_exactly_the_specified_shape(example: Comparison) -> None:
    payload = json.loads(example.to_json())
    assert set(payload) == {
        "measures",
        "baseline",
        "test",
        "correction",
        "alpha",
        "power",
        "runs",
    }
    assert payload["measures"] == ["nDCG@10", "AP"]
    assert (payload["baseline"], payload["test"], payload["correction"]) == ("bm25", "t", "holm")
    assert payload["alpha"] == 0.05 and payload["power"] == 0.8
    base, other = payload["runs"]
    assert set(base) == {"name", "mean"}
    assert set(other) == {"name", "mean", "vs_baseline"}
    assert base["name"] == "bm25" and set(base["mean"]) == {"nDCG@10", "AP"}
    for m in ("nDCG@10", "AP"):
        assert set(other["vs_baseline"][m]) == PAIR_KEYS
        assert other["vs_baseline"][m]["delta"] == example.vs_baseline["rerank"][m].delta


def test_the_baseline_can_be_any_run(example: Comparison) -> None:
    qrels, runs = example_paths()
    flipped = compare(qrels, runs, ["nDCG@10", "AP"], baseline="rerank")
    assert flipped.baseline == "rerank" and set(flipped.vs_baseline) == {"bm25"}
    a, b = example.vs_baseline["rerank"]["AP"], flipped.vs_baseline["bm25"]["AP"]
    assert b.delta == pytest.approx(-a.delta)
    assert (b.wins, b.losses) == (a.losses, a.wins)
    assert b.p_value == pytest.approx(a.p_value)
    assert flipped.stats("rerank", "AP", "bm25").delta == pytest.approx(a.delta)
    assert flipped.significant("bm25", "AP")
    assert flipped.beats("rerank", "AP") == ("bm25",)
    assert flipped.beats("bm25", "AP") == ()


def test_holm_over_the_runs_of_each_measure(four: tuple[dict, dict]) -> None:
    qrels, runs = four
    for correction, method in (("holm", "holm"), ("bonferroni", "bonferroni"), ("bh", "fdr_bh")):
        cmp = compare(qrels, runs, ["nDCG@10", "P@5"], correction=correction, test="wilcoxon")
        for m in cmp.measures:
            raw = [cmp.vs_baseline[r][m].p_value for r in ("r1", "r2", "r3")]
            reject, expected, _, _ = multipletests(raw, alpha=0.05, method=method)
            got = [cmp.vs_baseline[r][m].p_value_corrected for r in ("r1", "r2", "r3")]
            assert got == pytest.approx(list(expected))
            assert [cmp.vs_baseline[r][m].significant for r in ("r1", "r2", "r3")] == list(reject)


def test_all_pairs_and_tukey(four: tuple[dict, dict]) -> None:
    qrels, runs = four
    cmp = compare(qrels, runs, ["nDCG@10"], all_pairs=True, baseline="r2", test="sign")
    assert set(cmp.pairs) == {(a, b) for i, a in enumerate(cmp.runs) for b in cmp.runs[i + 1 :]}
    raw = [cmp.pairs[p]["nDCG@10"].p_value for p in cmp.pairs]
    _, expected, _, _ = multipletests(raw, method="holm")
    assert [cmp.pairs[p]["nDCG@10"].p_value_corrected for p in cmp.pairs] == pytest.approx(
        list(expected)
    )
    # the baseline's comparisons are the pairs' ones, seen from the run
    for r in ("r0", "r1", "r3"):
        s = cmp.vs_baseline[r]["nDCG@10"]
        pair = cmp.pairs[("r2", r)] if ("r2", r) in cmp.pairs else cmp.pairs[(r, "r2")]
        twin = pair["nDCG@10"] if ("r2", r) in cmp.pairs else pair["nDCG@10"].flipped()
        assert s.delta == pytest.approx(twin.delta)
        assert s.p_value_corrected == twin.p_value_corrected
        assert (s.ci_low, s.ci_high) == pytest.approx((twin.ci_low, twin.ci_high))
    assert cmp.tukey is not None and not cmp.tukey["nDCG@10"].blocked  # scipy's, by default
    payload = cmp.to_dict()
    assert len(payload["pairs"]) == 6
    assert set(payload["pairs"][0]) == {"baseline", "run", "measures"}
    tukey = payload["tukey_hsd"]["measures"]["nDCG@10"]
    assert len(tukey) == 6
    means = cmp.means
    for entry in tukey:
        assert entry["delta"] == pytest.approx(
            means[entry["run"]]["nDCG@10"] - means[entry["baseline"]]["nDCG@10"]
        )
    assert cmp.beats("r3", "nDCG@10")  # the best run beats some run


def test_correlation_of_measures_and_of_qrels(four: tuple[dict, dict]) -> None:
    qrels, runs = four
    cmp = compare(qrels, runs, ["nDCG@10", "AP", "P@5"], correlate=True)
    assert [(c.measure_x, c.measure_y) for c in cmp.correlation] == [
        ("nDCG@10", "AP"),
        ("nDCG@10", "P@5"),
        ("AP", "P@5"),
    ]
    first = cmp.correlation[0]
    ref = system_correlation(
        [cmp.means[r]["nDCG@10"] for r in cmp.runs], [cmp.means[r]["AP"] for r in cmp.runs]
    )
    assert first.kendall_tau == ref.kendall_tau and first.spearman_p == ref.spearman_p
    other_qrels = {q: {d: 1 - min(r, 1) for d, r in docs.items()} for q, docs in qrels.items()}
    cmp2 = compare(qrels, runs, ["P@5"], correlate_qrels=other_qrels)
    [c] = cmp2.correlation
    assert (c.qrels_x, c.qrels_y) == ("qrels", "other qrels")
    assert c.kendall_tau < 0  # judging the opposite documents reverses the ordering
    same = compare(qrels, runs, ["P@5"], correlate_qrels=qrels).correlation[0]
    assert same.kendall_tau == pytest.approx(1.0)
    assert "correlation" in cmp2.to_dict()


def test_correlation_needs_three_runs_and_two_measures(four: tuple[dict, dict]) -> None:
    qrels, runs = example_paths()
    with pytest.raises(OptionError, match="at least 3 runs"):
        compare(qrels, runs, ["AP", "P@10"], correlate=True)
    q, r = four
    with pytest.raises(OptionError, match="at least 2 measures"):
        compare(q, r, ["AP"], correlate=True)


def test_same_seed_same_numbers_whatever_else_is_compared(four: tuple[dict, dict]) -> None:
    qrels, runs = four
    for test in ("randomization", "bootstrap"):
        a = compare(qrels, runs, ["nDCG@10", "AP"], test=test, permutations=2000, seed=3)
        b = compare(qrels, runs, ["nDCG@10", "AP"], test=test, permutations=2000, seed=3)
        assert a.to_dict() == b.to_dict()
        alone = compare(
            qrels,
            {"r0": runs["r0"], "r2": runs["r2"]},
            ["AP"],
            test=test,
            permutations=2000,
            seed=3,
            correction="none",
        )
        s, t = a.vs_baseline["r2"]["AP"], alone.vs_baseline["r2"]["AP"]
        assert (s.p_value, s.ci_low, s.ci_high) == (t.p_value, t.ci_low, t.ci_high)
        assert s.p_value >= 1 / 2001


def test_queries_common_to_all_runs(four: tuple[dict, dict]) -> None:
    qrels, runs = four
    partial = dict(runs)
    partial["r1"] = {q: docs for q, docs in runs["r1"].items() if q not in ("q3", "q7")}
    cmp = compare(qrels, partial, ["AP"], queries="both")
    assert cmp.queries_dropped == 2 and len(cmp.queries) == 28
    assert "q3" not in cmp.queries
    full = compare(qrels, partial, ["AP"])  # qrels policy: a missing query scores 0
    assert full.queries_dropped == 0 and len(full.queries) == 30


def _results(values: np.ndarray, measure: str, names: list[str]) -> list[Results]:
    measures = tuple(parse_measures([measure]))
    qids = tuple(f"q{i}" for i in range(values.shape[0]))
    return [Results(n, measures, qids, values[:, [i]].copy()) for i, n in enumerate(names)]


def test_lower_is_better_measures_count_wins_as_lower_values() -> None:
    values = np.array([[0.5, 0.2], [0.4, 0.3], [0.3, 0.3], [0.6, 0.1], [0.5, 0.4]])
    cmp = compare_results(_results(values, "RMSE@10", ["a", "b"]), test="sign")
    s = cmp.vs_baseline["b"]["RMSE@10"]
    assert s.delta < 0 and (s.wins, s.ties, s.losses) == (4, 1, 0)
    latex = cmp.to_latex()
    assert r"\textbf{0.2600}" in latex  # the lowest mean is the best


def test_constant_differences_give_infinite_effect_size_and_json_null() -> None:
    values = np.column_stack([np.arange(6) / 8, np.arange(6) / 8 + 0.25])  # exact in binary
    cmp = compare_results(_results(values, "AP", ["a", "b"]))
    s = cmp.vs_baseline["b"]["AP"]
    assert s.effect_size == math.inf and s.p_value == 0.0
    entry = json.loads(cmp.to_json())["runs"][1]["vs_baseline"]["AP"]
    assert entry["effect_size"] is None and entry["p_value"] == 0.0


def test_formats(example: Comparison) -> None:
    md = example.to_markdown()
    assert md.startswith("| run | nDCG@10 | AP |\n|---|---:|---:|\n")
    assert "| (b) rerank | **0.6771**<sup>a</sup> | **0.2161**<sup>a</sup> |" in md
    latex = example.to_latex()
    for part in (r"\toprule", r"\midrule", r"\bottomrule", r"\begin{tabular}{lrr}"):
        assert part in latex
    assert r"(b) rerank & \textbf{0.6771}$^{a}$ & \textbf{0.2161}$^{a}$ \\" in latex
    rows = example.to_csv().splitlines()
    assert rows[0].split(",")[:4] == ["run", "measure", "mean", "against"]
    assert len(rows) == 1 + 2 * 2
    assert repr(example) == (
        "Comparison(runs=['bm25', 'rerank'], baseline='bm25', measures=['nDCG@10', 'AP'], "
        "test='t', correction='holm', queries=43)"
    )


def test_latex_escapes_names_and_marks_degradation() -> None:
    values = np.array([[0.5, 0.2], [0.4, 0.3], [0.6, 0.3], [0.6, 0.1], [0.5, 0.4]] * 3)
    cmp = compare_results(_results(values, "AP", ["base_1", "50% & #2"]))
    latex = cmp.to_latex()
    assert r"base\_1" in latex and r"50\% \& \#2" in latex
    assert r"(a) base\_1 & \textbf{0.5200}$^{b}$ \\" in latex
    assert r"0.2600$^{\downarrow}$" in latex
    assert "▼" in cmp.to_markdown()


def test_errors() -> None:
    qrels, runs = example_paths()
    with pytest.raises(OptionError, match="no run named 'nope' to be the baseline"):
        compare(qrels, runs, ["AP"], baseline="nope")
    with pytest.raises(OptionError, match="at least 2 runs"):
        compare(qrels, runs[:1], ["AP"])
    with pytest.raises(OptionError, match="test must be one of"):
        compare(qrels, runs, ["AP"], test="anova")
    with pytest.raises(OptionError, match="correction must be one of"):
        compare(qrels, runs, ["AP"], correction="sidak")
    with pytest.raises(OptionError, match="alpha"):
        compare(qrels, runs, ["AP"], alpha=5)
    with pytest.raises(OptionError, match="both named 'bm25'"):
        compare(qrels, [runs[0], runs[0]], ["AP"])
    with pytest.raises(OptionError, match="2 names for 3 runs"):
        compare(qrels, [*runs, runs[0]], ["AP"], names=["a", "b"])
    renamed = compare(qrels, [runs[0], runs[0]], ["AP"], names=["x", "y"])
    assert renamed.runs == ("x", "y") and renamed.vs_baseline["y"]["AP"].delta == 0.0
    assert renamed.vs_baseline["y"]["AP"].p_value == 1.0
    with pytest.raises(OptionError, match="not compared with itself"):
        renamed.stats("x", "AP")
    with pytest.raises(OptionError, match="use all_pairs"):
        compare_results(_results(np.eye(4)[:, :3], "AP", ["a", "b", "c"]), all_pairs=False).stats(
            "b", "AP", "c"
        )
    with pytest.raises(InputError, match="in common"):
        compare_results(_results(np.array([[0.1, 0.2]]), "AP", ["a", "b"]))


def test_lazy_top_level_names() -> None:
    assert ranklens.compare is compare
    assert ranklens.Comparison is Comparison
    assert PairStats(0.1, 0.5, 0.5, 0, 0.2, 0.3, 1, 0, 1, False).flipped().delta == -0.1


def test_default_tukey_is_scipys(four: tuple[dict, dict]) -> None:
    from scipy.stats import tukey_hsd as scipy_tukey

    qrels, runs = four
    cmp = compare(qrels, runs, ["nDCG@10", "P@5"], all_pairs=True)
    for m in cmp.measures:
        columns = [r.values[:, r.names.index(m)] for r in cmp.results]
        ref = scipy_tukey(*columns)
        got = cmp.tukey[m] if cmp.tukey is not None else None
        assert got is not None and not got.blocked
        np.testing.assert_allclose(got.p_value, ref.pvalue, rtol=1e-6, atol=1e-9)
        np.testing.assert_allclose(got.statistic, ref.statistic, rtol=1e-12, atol=1e-12)
