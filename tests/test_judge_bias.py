"""Bias tests of a judge (ranklens.analysis.judge_bias, issue 47), held to scipy and
statsmodels on generated judges: planted biases (a favoured run, a length effect, a
first-position effect) are found, and unbiased judges are flagged at most at the rate
alpha promises."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
import scipy.stats
import statsmodels.api as sm
from hypothesis import given, settings
from hypothesis import strategies as st
from statsmodels.stats.inter_rater import aggregate_raters
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss_kappa
from statsmodels.stats.multitest import multipletests

import ranklens
from ranklens.analysis.judge_bias import (
    judge_bias_from_results,
    judge_matrix,
    position_bias,
    rogan_gladen,
)
from ranklens.base.errors import InputError, InputWarning, OptionError
from workflow_support import run_cli

Judgments = dict[str, dict[str, int]]


def _world(
    rng: np.random.Generator,
    queries: int = 30,
    docs: int = 25,
    runs: int = 4,
    favoured: str | None = None,
    noise: float = 0.2,
) -> tuple[Judgments, Judgments, dict[str, dict[str, dict[str, float]]]]:
    """Human and LLM judgments and runs with the awkward cases: graded and negative
    (unjudged) grades, queries without relevant documents, a query judged by one side
    only, unjudged documents in the runs, tied scores. The LLM errs one grade up or down
    at random (``noise``), and with ``favoured`` also calls the non-relevant documents in
    that run's top 10 relevant most of the time."""
    human: Judgments = {}
    llm: Judgments = {}
    run_dicts: dict[str, dict[str, dict[str, float]]] = {f"r{i}": {} for i in range(runs)}
    for qi in range(queries):
        q = f"q{qi}"
        no_relevant = qi % 7 == 3
        grades = rng.choice([0, 0, 1, 2, 3], size=docs) * (0 if no_relevant else 1)
        grades = np.where(rng.random(docs) < 0.05, -1, grades)  # in the pool, not judged
        human[q] = {f"d{d}": int(g) for d, g in enumerate(grades)}
        flips = rng.random(docs)
        judged = np.where(
            flips < noise / 2, grades + 1, np.where(flips < noise, grades - 1, grades)
        )
        judged = np.where(grades < 0, grades, np.clip(judged, 0, 3))
        llm[q] = {f"d{d}": int(g) for d, g in enumerate(judged)}
        for ranking in run_dicts.values():
            scores = np.round(rng.random(docs + 5) * 20) / 2  # ties
            ranking[q] = {f"d{d}": float(s) for d, s in enumerate(scores)}  # d25+ unjudged
    for name, ranking in run_dicts.items():
        if favoured == name:
            for q, scores in ranking.items():
                top = sorted(scores.items(), key=lambda item: (-item[1], item[0]))[:10]
                for d, _ in top:
                    if llm[q].get(d, 0) == 0 and rng.random() < 0.8:
                        llm[q][d] = 1
    human["only-human"] = {"d0": 1, "d1": 0}
    llm["only-llm"] = {"d0": 1}
    return human, llm, run_dicts


def _reference(
    human: Judgments, llm: Judgments, runs: dict[str, Any], measure: str
) -> dict[str, tuple[float, float, float, float]]:
    """(shift, delta, p, p_holm) per run, from scipy and statsmodels on the per-query
    values of ranklens.evaluate (every run's queries under both judges)."""
    by_h = {
        r: ranklens.evaluate(human, run, [measure]).query_values(measure) for r, run in runs.items()
    }
    by_l = {
        r: ranklens.evaluate(llm, run, [measure]).query_values(measure) for r, run in runs.items()
    }
    queries = sorted(set.intersection(*(set(v) for v in (*by_h.values(), *by_l.values()))))
    names = list(runs)
    s = np.array([[by_l[r][q] - by_h[r][q] for q in queries] for r in names])
    out = {}
    d = np.array(
        [
            s[i] - np.mean([s[j] for j in range(len(names)) if j != i], axis=0)
            for i in range(len(names))
        ]
    )
    p = np.array([scipy.stats.ttest_1samp(d[i], 0.0).pvalue for i in range(len(names))])
    holm = multipletests(p, method="holm")[1]
    for i, r in enumerate(names):
        out[r] = (float(s[i].mean()), float(d[i].mean()), float(p[i]), float(holm[i]))
    return out


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("measure", ["nDCG@10", "AP", "P@5"])
def test_judge_bias_equals_scipy_and_statsmodels(seed: int, measure: str) -> None:
    rng = np.random.default_rng(seed)
    human, llm, runs = _world(rng, favoured="r1" if seed == 2 else None)
    res = ranklens.judge_bias(human, llm, runs, measure)
    expected = _reference(human, llm, runs, measure)
    assert res.queries_left_out == 2  # the two queries judged by one side only
    assert "only-human" not in res.queries and len(res.queries) == 30
    for r, (shift, delta, p, holm) in expected.items():
        got = res.runs[r]
        assert got.shift == pytest.approx(shift, abs=1e-12)
        assert got.delta == pytest.approx(delta, abs=1e-12)
        assert got.p_value == pytest.approx(p, rel=1e-9)
        assert got.p_value_corrected == pytest.approx(holm, rel=1e-9)
        assert got.favoured == (delta > 0 and holm < 0.05)
        assert got.score_llm - got.score_human == pytest.approx(shift, abs=1e-12)


def test_a_planted_favoured_run_is_found_and_the_leaderboard_change_shown() -> None:
    rng = np.random.default_rng(11)
    human, llm, runs = _world(rng, queries=40, favoured="r2")
    res = ranklens.judge_bias(human, llm, runs, "P@10")
    assert res.favoured == ("r2",)
    assert res.runs["r2"].delta > 0 and res.runs["r2"].p_value_corrected < 0.001
    assert res.runs["r2"].rank_llm == 1
    board = res.leaderboard
    assert board is not None and board.order_b[0] == "r2"
    assert board.scores_b["r2"] == pytest.approx(res.runs["r2"].score_llm)
    # the deltas of the runs sum to 0: a bias for one run is against the others
    assert sum(b.delta for b in res.runs.values()) == pytest.approx(0.0, abs=1e-12)


def test_unbiased_judges_are_flagged_at_most_at_alpha() -> None:
    """Holm over the runs controls the chance that any run is flagged: over 150 unbiased
    worlds it stays near alpha = 0.05 (a binomial bound: 0.05 * 150 = 7.5 expected, 16
    would have probability below 0.001)."""
    rng = np.random.default_rng(2026)
    flagged = 0
    for _ in range(150):
        human, llm, runs = _world(rng, queries=20, docs=12, runs=3, noise=0.4)
        by_h = ranklens.Evaluator(human, ["P@5"]).evaluate_many(runs)
        by_l = ranklens.Evaluator(llm, ["P@5"]).evaluate_many(runs)
        res = judge_bias_from_results(by_h, by_l)
        flagged += any(b.favoured or b.disfavoured for b in res.runs.values())
    assert flagged <= 16


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.integers(2, 5))
def test_deltas_sum_to_zero_and_swapping_the_judges_flips_the_signs(seed: int, runs: int) -> None:
    rng = np.random.default_rng(seed)
    human, llm, run_dicts = _world(rng, queries=6, docs=8, runs=runs, noise=0.5)
    ab = ranklens.judge_bias(human, llm, run_dicts, "nDCG@5")
    ba = ranklens.judge_bias(llm, human, run_dicts, "nDCG@5")
    assert sum(b.delta for b in ab.runs.values()) == pytest.approx(0.0, abs=1e-12)
    for r in run_dicts:
        assert ab.runs[r].shift == pytest.approx(-ba.runs[r].shift, abs=1e-12)
        assert ab.runs[r].delta == pytest.approx(-ba.runs[r].delta, abs=1e-12)
        assert ab.runs[r].p_value == pytest.approx(ba.runs[r].p_value, abs=1e-12)
        assert 0.0 <= ab.runs[r].p_value <= ab.runs[r].p_value_corrected <= 1.0


def test_judge_bias_constant_differences_and_refusals() -> None:
    human = {"q1": {"a": 1}, "q2": {"a": 1}, "q3": {"a": 0}}
    runs = {"x": {q: {"a": 1.0} for q in human}, "y": {q: {"b": 1.0} for q in human}}
    same = ranklens.judge_bias(human, human, runs, "P@1")
    assert same.runs["x"].p_value == 1.0 and same.runs["x"].delta == 0.0
    assert same.leaderboard is None  # fewer than 3 runs
    lenient = {q: {"a": 1} for q in human}  # x gains 1 on q3 only: d = (0, 0, 1)
    res = ranklens.judge_bias(human, lenient, runs, "P@1")
    assert res.runs["x"].p_value == pytest.approx(scipy.stats.ttest_1samp([0, 0, 1], 0).pvalue)
    with pytest.raises(InputError, match="at least 2 runs"):
        ranklens.judge_bias(human, lenient, {"x": runs["x"]}, "P@1")
    with pytest.raises(InputError, match="share no query"):
        ranklens.judge_bias({"q1": {"a": 1}}, {"q9": {"a": 1}}, runs, "P@1")
    with pytest.raises(OptionError, match="correction"):
        ranklens.judge_bias(human, lenient, runs, "P@1", correction="sidak")


# ---------------------------------------------------------------------------------------
# regression


def _pairs_with_length(
    rng: np.random.Generator, pairs: int, effect: float
) -> tuple[Judgments, Judgments, dict[str, list[Any]]]:
    human: Judgments = {}
    llm: Judgments = {}
    table: dict[str, list[Any]] = {"query_id": [], "doc_id": [], "length": [], "overlap": []}
    for i in range(pairs):
        q, d = f"q{i % 13}", f"d{i}"
        grade = int(rng.integers(0, 4))
        length = float(rng.lognormal(5, 0.5))
        overlap = float(rng.random())
        error = effect * (length - 150) / 100 + rng.normal(0, 0.8) * (0.5 + overlap)
        human.setdefault(q, {})[d] = grade
        llm.setdefault(q, {})[d] = int(np.clip(round(grade + error), 0, 3))
        for key, value in (
            ("query_id", q),
            ("doc_id", d),
            ("length", length),
            ("overlap", overlap),
        ):
            table[key].append(value)
    return human, llm, table


def _statsmodels_fit(human: Judgments, llm: Judgments, table: dict[str, list[Any]]) -> Any:
    keys = list(zip(table["query_id"], table["doc_id"], strict=True))
    y = np.array([llm[q][d] - human[q][d] for q, d in keys], dtype=float)
    x = sm.add_constant(np.column_stack([table["length"], table["overlap"]]))
    return sm.OLS(y, x).fit(cov_type="HC3")


@pytest.mark.parametrize("effect", [0.0, 0.6])
def test_regression_equals_statsmodels_hc3_and_finds_a_length_effect(effect: float) -> None:
    rng = np.random.default_rng(5)
    human, llm, table = _pairs_with_length(rng, 400, effect)
    res = ranklens.judge_bias_regression(human, llm, table)
    fit = _statsmodels_fit(human, llm, table)
    names = ["const", "length", "overlap"]
    assert list(res.params) == names and res.nobs == 400
    np.testing.assert_allclose([res.params[n] for n in names], fit.params, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose([res.bse[n] for n in names], fit.bse, rtol=1e-9)
    np.testing.assert_allclose([res.pvalues[n] for n in names], fit.pvalues, rtol=1e-7, atol=1e-300)
    np.testing.assert_allclose([res.conf_int[n] for n in names], fit.conf_int(), rtol=1e-9)
    if effect:
        assert res.params["length"] > 0 and res.pvalues["length"] < 1e-6
    assert res.pvalues["overlap"] > 0.001  # overlap widens the error, shifts nothing


def test_regression_reads_csv_and_frames(tmp_path: Any) -> None:
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(8)
    human, llm, table = _pairs_with_length(rng, 60, 0.5)
    frame = pd.DataFrame(table)
    path = tmp_path / "cov.csv"
    frame.to_csv(path, index=False)
    from_dict = ranklens.judge_bias_regression(human, llm, table)
    from_frame = ranklens.judge_bias_regression(human, llm, frame)
    from_file = ranklens.judge_bias_regression(human, llm, str(path))
    for other in (from_frame, from_file):
        for n in from_dict.names:
            assert other.params[n] == pytest.approx(from_dict.params[n], rel=1e-9)
            assert other.bse[n] == pytest.approx(from_dict.bse[n], rel=1e-9)


def test_regression_refusals(tmp_path: Any) -> None:
    rng = np.random.default_rng(9)
    human, llm, table = _pairs_with_length(rng, 50, 0.5)
    unknown = {k: [*v, v[0]] for k, v in table.items()}
    unknown["doc_id"][-1] = "nowhere"
    with pytest.warns(InputWarning, match="1 of the 51 rows"):
        res = ranklens.judge_bias_regression(human, llm, unknown)
    assert res.unmatched == 1 and res.nobs == 50
    alien = dict(table, query_id=["zz"] * 50)
    with pytest.raises(InputError, match="none of the 50 rows"):
        ranklens.judge_bias_regression(human, llm, alien)
    with pytest.raises(InputError, match=r"constant .* collinear with the intercept"):
        ranklens.judge_bias_regression(human, llm, dict(table, overlap=[2.0] * 50))
    doubled = dict(table, overlap=[2 * x for x in table["length"]])
    with pytest.raises(InputError, match="'overlap' is a linear combination"):
        ranklens.judge_bias_regression(human, llm, doubled)
    path = tmp_path / "cov.csv"
    path.write_text("query_id,doc_id,length,kind\nq0,d0,12,long\n")
    with pytest.raises(InputError, match=r"cov.csv:2: column 'kind' holds 'long', not a number"):
        ranklens.judge_bias_regression(human, llm, str(path))
    path.write_text("qid,docno,length\nq0,d0,12\nq0,d0,13\n")
    with pytest.raises(InputError, match=r"cov.csv:3: .*given twice"):
        ranklens.judge_bias_regression(human, llm, str(path))
    path.write_text("query_id,doc_id\nq0,d0\n")
    with pytest.raises(InputError, match="only the query and document columns"):
        ranklens.judge_bias_regression(human, llm, str(path))


# ---------------------------------------------------------------------------------------
# many judges


def _judges(rng: np.random.Generator, count: int, pairs: int) -> list[Judgments]:
    truth = rng.integers(0, 4, size=pairs)
    judges = []
    for _ in range(count):
        grades = np.clip(truth + rng.integers(-1, 2, size=pairs), 0, 3)
        grades = np.where(rng.random(pairs) < 0.05, -1, grades)
        judge: Judgments = {}
        for i, g in enumerate(grades):
            if rng.random() < 0.9:  # each judge leaves some pairs out
                judge.setdefault(f"q{i % 5}", {})[f"d{i}"] = int(g)
        judges.append(judge)
    return judges


def _statsmodels_fleiss(judges: list[Judgments], rel: int | None = None) -> float:
    keys = set.intersection(
        *({(q, d) for q, docs in j.items() for d, g in docs.items() if g >= 0} for j in judges)
    )
    grades = np.array([[j[q][d] for j in judges] for q, d in sorted(keys)])
    if rel is not None:
        grades = (grades >= rel).astype(int)
    table, _ = aggregate_raters(grades)
    return float(sm_fleiss_kappa(table, method="fleiss"))


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.integers(2, 6), st.sampled_from([None, 1, 2]))
def test_fleiss_kappa_equals_statsmodels(seed: int, count: int, rel: int | None) -> None:
    rng = np.random.default_rng(seed)
    judges = _judges(rng, count, 80)
    got = ranklens.fleiss_kappa(judges, rel=rel)
    assert isinstance(got, float)
    assert got == pytest.approx(_statsmodels_fleiss(judges, rel), abs=1e-12)


def test_judge_matrix_is_agreement_and_mean_shift_pairwise() -> None:
    rng = np.random.default_rng(4)
    judges = _judges(rng, 3, 120)
    m = judge_matrix({"a": judges[0], "b": judges[1], "c": judges[2]}, statistic="kappa_linear")
    assert m.names == ("a", "b", "c")
    assert m.fleiss_kappa == pytest.approx(ranklens.fleiss_kappa(judges))
    for i in range(3):
        for j in range(3):
            res = ranklens.agreement(judges[i], judges[j])
            assert m.agreement[i, j] == pytest.approx(res["kappa_linear"], nan_ok=True)
            common = [
                (q, d)
                for q, docs in judges[i].items()
                for d, g in docs.items()
                if g >= 0 and judges[j].get(q, {}).get(d, -1) >= 0
            ]
            shift = np.mean([judges[j][q][d] - judges[i][q][d] for q, d in common])
            assert m.shift[i, j] == pytest.approx(shift, abs=1e-12)
            assert m.pairs[i, j] == len(common)


def test_many_judges_refusals() -> None:
    with pytest.raises(InputError, match="no \\(query, document\\) pair in common"):
        ranklens.fleiss_kappa([{"q1": {"a": 1}}, {"q1": {"b": 1}}])
    with pytest.raises(InputError, match="at least 2 judges"):
        ranklens.fleiss_kappa([{"q1": {"a": 1}}])
    assert math.isnan(ranklens.fleiss_kappa([{"q1": {"a": 1, "b": 1}}, {"q1": {"a": 1, "b": 1}}]))


# ---------------------------------------------------------------------------------------
# prevalence


def test_prevalence_counts_and_rogan_gladen() -> None:
    rng = np.random.default_rng(12)
    human, llm, _ = _world(rng, queries=20, docs=30, runs=1, noise=0.5)
    res = ranklens.judge_prevalence(human, llm, threshold=2)
    pairs_l = {(q, d): g for q, docs in llm.items() for d, g in docs.items() if g >= 0}
    pairs_h = {(q, d): g for q, docs in human.items() for d, g in docs.items() if g >= 0}
    common = pairs_l.keys() & pairs_h.keys()
    observed = np.mean([g >= 2 for g in pairs_l.values()])
    relevant = [k for k in common if pairs_h[k] >= 2]
    other = [k for k in common if pairs_h[k] < 2]
    se = np.mean([pairs_l[k] >= 2 for k in relevant])
    sp = np.mean([pairs_l[k] < 2 for k in other])
    assert res.observed == pytest.approx(observed)
    assert res.sensitivity == pytest.approx(se) and res.specificity == pytest.approx(sp)
    expected = min(1.0, max(0.0, (observed + sp - 1) / (se + sp - 1)))
    assert res.corrected == pytest.approx(expected)
    assert res.low <= res.corrected <= res.high
    assert res.llm_pairs == len(pairs_l)


def test_prevalence_interval_covers_at_its_level() -> None:
    """Coverage by simulation: a judge of known sensitivity and specificity labels N
    pairs, people judge a random n of them; the truth is the prevalence pi."""
    rng = np.random.default_rng(47)
    for pi, se, sp, total, sample in ((0.3, 0.9, 0.8, 3000, 400), (0.1, 0.95, 0.85, 2000, 250)):
        covered = 0
        for _ in range(800):
            truth = rng.random(total) < pi
            label = np.where(truth, rng.random(total) < se, rng.random(total) >= sp)
            seen = np.zeros(total, dtype=bool)
            seen[rng.choice(total, sample, replace=False)] = True
            t, lab = truth[seen], label[seen]
            _, low, high = rogan_gladen(
                int((t & lab).sum()),
                int((t & ~lab).sum()),
                int((~t & lab).sum()),
                int((~t & ~lab).sum()),
                int(label[~seen].sum()),
                int((~seen).sum()),
            )
            covered += low <= pi <= high
        assert 0.925 <= covered / 800 <= 0.975, (pi, covered / 800)


def test_prevalence_through_the_api_matches_the_counts() -> None:
    rng = np.random.default_rng(3)
    truth = rng.random(600) < 0.3
    label = np.where(truth, rng.random(600) < 0.9, rng.random(600) >= 0.8)
    llm = {"q": {f"d{i}": int(x) for i, x in enumerate(label)}}
    human = {"q": {f"d{i}": int(truth[i]) for i in range(150)}}
    res = ranklens.judge_prevalence(human, llm)
    t, lab = truth[:150], label[:150]
    expected = rogan_gladen(
        int((t & lab).sum()),
        int((t & ~lab).sum()),
        int((~t & lab).sum()),
        int((~t & ~lab).sum()),
        int(label[150:].sum()),
        450,
    )
    assert (res.corrected, res.low, res.high) == pytest.approx(expected)
    every = {"q": {f"d{i}": int(truth[i]) for i in range(600)}}  # people judged every pair
    full = ranklens.judge_prevalence(every, llm)
    assert full.corrected == pytest.approx(truth.mean())
    half = 1.959963984540054 * math.sqrt(truth.mean() * (1 - truth.mean()) / 600)
    assert full.high - full.low == pytest.approx(2 * half)


def test_prevalence_refusals() -> None:
    with pytest.raises(InputError, match="no better than chance"):
        ranklens.judge_prevalence({"q": {"a": 1, "b": 0}}, {"q": {"a": 0, "b": 1}})
    with pytest.raises(InputError, match="no \\(query, document\\) pair in common"):
        ranklens.judge_prevalence({"q": {"a": 1}}, {"q": {"b": 1}})
    with pytest.raises(InputError, match="call no pair both judged relevant"):
        ranklens.judge_prevalence({"q": {"a": 0}}, {"q": {"a": 1}})
    human = {"q": {"a": 1, "b": 1, "c": 0, "d": 0}}
    llm = {"q": {"a": 1, "b": 0, "c": 0, "d": 0, **{f"x{i}": 1 for i in range(6)}}}
    clipped = ranklens.judge_prevalence(human, llm)  # (0.7 + 1 - 1) / 0.5 = 1.4
    assert (clipped.observed, clipped.sensitivity, clipped.specificity) == (0.7, 0.5, 1.0)
    assert clipped.corrected == 1.0 and clipped.high == 1.0


# ---------------------------------------------------------------------------------------
# position bias


def _shown(
    rng: np.random.Generator, pairs: int, first_bias: float
) -> list[tuple[str, str, str, str]]:
    rows = []
    for i in range(pairs):
        a, b = f"a{i}", f"b{i}"
        better = a if rng.random() < 0.5 else b
        for first, second in ((a, b), (b, a)):
            if rng.random() < first_bias:
                winner = first
            elif rng.random() < 0.1:
                winner = "-"
            else:
                winner = better if rng.random() < 0.8 else (a if better == b else b)
            rows.append((f"q{i % 7}", first, second, winner))
    return rows


def test_position_bias_equals_binomtest_and_finds_a_planted_effect() -> None:
    rng = np.random.default_rng(21)
    rows = _shown(rng, 300, first_bias=0.2)
    res = position_bias(rows)
    decided = [(f, w) for _, f, _, w in rows if w != "-"]
    wins = sum(1 for f, w in decided if f == w)
    test = scipy.stats.binomtest(wins, len(decided), 0.5)
    assert (res.judgments, res.first_wins, res.ties) == (
        len(decided),
        wins,
        len(rows) - len(decided),
    )
    assert res.p_value == pytest.approx(test.pvalue, rel=1e-12)
    ci = test.proportion_ci(0.95, method="exact")
    assert (res.low, res.high) == pytest.approx((ci.low, ci.high))
    assert res.first_rate > 0.55 and res.p_value < 0.001
    winners = {(q, f, s): w for q, f, s, w in rows}
    consistent = sum(winners[(q, f, s)] == winners[(q, s, f)] for q, f, s, _ in rows if f < s)
    assert res.pairs_both_orders == 300 and res.consistent == consistent
    assert res.consistency == pytest.approx(consistent / 300)


def test_an_unbiased_pairwise_judge_is_flagged_at_most_at_alpha() -> None:
    rng = np.random.default_rng(5)
    flagged = sum(position_bias(_shown(rng, 60, 0.0)).p_value < 0.05 for _ in range(300))
    assert flagged <= 27  # 15 expected; the binomial exact test is conservative


def test_position_bias_reads_files_and_refuses_bad_rows(tmp_path: Any) -> None:
    path = tmp_path / "shown.txt"
    path.write_text("# query first second winner\nq1 a b a\nq1 b a b\nq1 c d -\n")
    res = ranklens.position_bias(str(path))
    assert (res.judgments, res.first_wins, res.ties, res.first_both) == (2, 2, 1, 1)
    csv_path = tmp_path / "shown.csv"
    csv_path.write_text("qid,first,second,winner\nq1,a,b,a\nq1,b,a,b\n")
    assert ranklens.position_bias(str(csv_path)).first_wins == 2
    path.write_text("q1 a b a\nq1 a b c\n")
    with pytest.raises(InputError, match=r"shown.txt:2: .*winner 'c' is neither"):
        position_bias(str(path))
    path.write_text("q1 a b a\nq1 a b b\n")
    with pytest.raises(InputError, match=r"shown.txt:2: .*judged twice"):
        position_bias(str(path))
    path.write_text("q1 a b\n")
    with pytest.raises(InputError, match=r"shown.txt:1: expected 4 fields"):
        position_bias(str(path))
    with pytest.raises(InputError, match="every preference is a tie"):
        position_bias([("q1", "a", "b", "-")])


# ---------------------------------------------------------------------------------------
# the command


def test_the_command_finds_the_examples_planted_biases() -> None:
    import json

    code, out, err = run_cli(["judge-bias", "--example", "-m", "nDCG@10", "-f", "json", "--quiet"])
    assert code == 0, err
    data = json.loads(out)
    assert data["runs"]["nDCG@10"]["favoured"] == ["dense"]
    assert data["regression"]["params"]["length"] > 0
    assert data["regression"]["pvalues"]["length"] < 1e-6
    assert data["position"]["first_rate"] > 0.55 and data["position"]["p_value"] < 0.001
    code, table, _ = run_cli(["judge-bias", "--example", "-m", "nDCG@10"])
    assert code == 0 and "favoured" in table and "position bias" in table
    code, text, _ = run_cli(["judge-bias", "--example", "-m", "AP", "-f", "csv"])
    assert code == 0 and text.startswith("section,item,number,value\n")


def test_the_command_says_what_is_wrong_in_one_line(tmp_path: Any) -> None:
    human = tmp_path / "h.qrels"
    human.write_text("q1 0 a 1\nq1 0 b 0\n")
    llm = tmp_path / "l.qrels"
    llm.write_text("q2 0 a 1\n")
    run = tmp_path / "r.run"
    run.write_text("q1 Q0 a 1 2.0 r\nq2 Q0 a 1 2.0 r\n")
    code, _, err = run_cli(["judge-bias", str(human), str(llm), str(run), str(run), "-m", "P@1"])
    assert code == 2 and len(err.strip().splitlines()) == 1 and "error:" in err
    code, _, err = run_cli(["judge-bias", str(human)])
    assert code == 2 and "two or more runs" in err


def test_the_report_shows_the_second_judges_bias() -> None:
    from ranklens.presentation.reporting import build_report

    rng = np.random.default_rng(11)
    human, llm, runs = _world(rng, queries=40, favoured="r2")
    html = build_report(human, runs, ["P@10", "AP"], qrels_b=llm, plots=False, explain_limit=0)
    res = ranklens.judge_bias(human, llm, runs, "P@10")
    prevalence = ranklens.judge_prevalence(human, llm)
    section = html[html.index("Is judge B biased?") :]
    assert "favoured" in section and f"{res.runs['r2'].delta:.4f}" in section
    assert f"{prevalence.corrected:.4f}" in section


def test_tables_from_frames_and_their_refusals() -> None:
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(
        {"qid": ["q1", "q1", "q2"], "first": ["a", "b", "c"], "second": ["b", "a", "d"]}
    )
    frame["winner"] = ["a", "b", "-"]
    res = position_bias(frame)
    assert (res.judgments, res.first_wins, res.ties, res.consistency) == (2, 2, 1, 0.0)
    from ranklens.data.judge_tables import read_covariates

    with pytest.raises(InputError, match="no document id column"):
        read_covariates(pd.DataFrame({"query_id": ["q1"], "length": [3.0]}))
    with pytest.raises(InputError, match="different lengths"):
        read_covariates({"query_id": ["q1"], "doc_id": ["a", "b"], "length": [1.0]})
    with pytest.raises(InputError, match=r"line 1: column 'length' holds nan"):
        read_covariates({"query_id": ["q1"], "doc_id": ["a"], "length": [float("nan")]})


def test_the_command_reads_covariates_and_preferences_files(tmp_path: Any) -> None:
    import json

    rng = np.random.default_rng(31)
    human, llm, runs = _world(rng, queries=12, docs=10, runs=3)
    files = {}
    for name, judgments in (("human", human), ("llm", llm)):
        files[name] = tmp_path / f"{name}.qrels"
        files[name].write_text(
            "".join(f"{q} 0 {d} {g}\n" for q in judgments for d, g in judgments[q].items())
        )
    run_paths = []
    for name, run in runs.items():
        run_paths.append(tmp_path / f"{name}.run")
        run_paths[-1].write_text(
            "".join(f"{q} Q0 {d} 0 {s} {name}\n" for q in run for d, s in run[q].items())
        )
    cov = tmp_path / "cov.tsv"
    rows = [
        f"{q}\t{d}\t{len(d) + i % 3}"
        for i, (q, d) in enumerate(
            (q, d)
            for q in human
            for d, g in human[q].items()
            if g >= 0 and llm.get(q, {}).get(d, -1) >= 0
        )
    ]
    cov.write_text("query_id\tdoc_id\tlength\n" + "\n".join(rows) + "\n")
    shown = tmp_path / "shown.txt"
    shown.write_text("q0 d1 d2 d1\nq0 d2 d1 d1\nq1 d3 d4 d3\n")
    out = tmp_path / "bias.json"
    args = [
        "judge-bias", str(files["human"]), str(files["llm"]), *map(str, run_paths),
        "-m", "P@5", "--covariates", str(cov), "--preferences", str(shown),
        "-f", "json", "-o", str(out), "--quiet",
    ]  # fmt: skip
    code, _, err = run_cli(args)
    assert code == 0, err
    data = json.loads(out.read_text())
    expected = ranklens.judge_bias_regression(files["human"], files["llm"], str(cov))
    assert data["regression"]["params"] == pytest.approx(expected.params)
    assert data["position"]["first_wins"] == 2 and data["position"]["consistent"] == 1
    bias = ranklens.judge_bias(files["human"], files["llm"], run_paths, "P@5")
    assert data["runs"]["P@5"]["runs"]["r0"]["delta"] == pytest.approx(bias.runs["r0"].delta)
    code, _, err = run_cli([*args[:-3], "-o", str(files["human"]), "--force"])
    assert code == 2 and "input" in err


def test_the_command_compares_more_judges(tmp_path: Any) -> None:
    import json

    rng = np.random.default_rng(6)
    judges = _judges(rng, 3, 60)
    paths = []
    for i, judge in enumerate(judges):
        paths.append(tmp_path / f"j{i}.qrels")
        paths[-1].write_text(
            "".join(f"{q} 0 {d} {g}\n" for q in judge for d, g in judge[q].items())
        )
    run = tmp_path / "a.run"
    run.write_text("".join(f"q{i} Q0 d{j} 0 {j} a\n" for i in range(5) for j in range(60)))
    other = tmp_path / "b.run"
    other.write_text("".join(f"q{i} Q0 d{j} 0 {-j} b\n" for i in range(5) for j in range(60)))
    args = ["judge-bias", *map(str, paths[:2]), str(run), str(other), "-m", "P@5"]
    code, out, err = run_cli([*args, "--judges", str(paths[2]), "-f", "json"])
    assert code == 0, err
    data = json.loads(out)["judges"]
    assert data["names"] == ["j0.qrels", "j1.qrels", "j2.qrels"]
    assert data["fleiss_kappa"] == pytest.approx(_statsmodels_fleiss(judges))
    expected = judge_matrix(judges)
    np.testing.assert_allclose(data["kappa"], expected.agreement)
    np.testing.assert_allclose(data["shift"], expected.shift)
    code, table, _ = run_cli([*args, "--judges", str(paths[2])])
    assert code == 0 and "Fleiss' kappa" in table and "j2.qrels" in table


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.floats(-50, 50), st.floats(0.1, 10))
def test_regression_is_equivariant_to_shifting_and_scaling_a_covariate(
    seed: int, offset: float, scale: float
) -> None:
    rng = np.random.default_rng(seed)
    human, llm, table = _pairs_with_length(rng, 40, 0.5)
    base = ranklens.judge_bias_regression(human, llm, table)
    moved = dict(table, length=[x * scale + offset for x in table["length"]])
    res = ranklens.judge_bias_regression(human, llm, moved)
    assert res.params["length"] == pytest.approx(base.params["length"] / scale, rel=1e-6)
    assert res.bse["length"] == pytest.approx(base.bse["length"] / scale, rel=1e-6)
    assert res.pvalues["overlap"] == pytest.approx(base.pvalues["overlap"], rel=1e-6)
    assert res.pvalues["length"] == pytest.approx(base.pvalues["length"], rel=1e-6, abs=1e-300)


def test_a_covariate_without_effect_is_flagged_at_most_at_alpha() -> None:
    """HC3's normal tests on 200 pairs: an unrelated covariate is significant at 0.05 in
    about 5% of 300 simulations (30 would have probability below 0.001)."""
    rng = np.random.default_rng(77)
    flagged = 0
    for _ in range(300):
        human, llm, table = _pairs_with_length(rng, 200, 0.0)
        res = ranklens.judge_bias_regression(human, llm, table)
        flagged += res.pvalues["length"] < 0.05
    assert flagged <= 30


def test_judgments_as_dicts_files_and_frames_give_the_same_numbers(tmp_path: Any) -> None:
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(17)
    human, llm, runs = _world(rng, queries=10, docs=10, runs=3)
    forms: list[tuple[Any, Any]] = [(human, llm)]
    frames = []
    for judgments in (human, llm):
        rows = [(q, d, g) for q in judgments for d, g in judgments[q].items()]
        frames.append(pd.DataFrame(rows, columns=["query_id", "doc_id", "relevance"]))
    forms.append((frames[0], frames[1]))
    paths = []
    for i, judgments in enumerate((human, llm)):
        paths.append(tmp_path / f"{i}.qrels")
        paths[-1].write_text(
            "".join(f"{q} 0 {d} {g}\n" for q in judgments for d, g in judgments[q].items())
        )
    forms.append((str(paths[0]), paths[1]))
    results = []
    for h, f in forms:
        bias = ranklens.judge_bias(h, f, runs, "nDCG@5")
        prev = ranklens.judge_prevalence(h, f)
        results.append(
            (
                [(b.shift, b.delta, b.p_value, b.p_value_corrected) for b in bias.runs.values()],
                (prev.observed, prev.sensitivity, prev.specificity, prev.corrected),
                ranklens.fleiss_kappa([h, f]),
            )
        )
    assert results[0] == results[1] == results[2]
