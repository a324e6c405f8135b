"""Judging the judges: agreement of judgments, of leaderboards, of a run and its
reproduction, and prediction-powered means.

Oracles: scikit-learn's ``cohen_kappa_score``, the ``krippendorff`` package, scipy's tau
and rho, brute force over every ordering of tied items (tau_ap, RBO), repro_eval itself
(its ``RpdEvaluator`` and ``RplEvaluator`` on the same files) and a coverage simulation.
"""

from __future__ import annotations

import itertools
import json
import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ranklens
from ranklens.analysis.stats.rank_similarity import rank_biased_overlap, tau_ap
from ranklens.base.errors import InputError, OptionError


def _random_qrels_pair(rng: np.random.Generator, queries: int = 6, docs: int = 15):
    """Two judgments of overlapping pools: grades 0-3, some negative (unjudged) grades,
    pairs judged by one side only."""
    a: dict[str, dict[str, int]] = {}
    b: dict[str, dict[str, int]] = {}
    for q in range(queries):
        for d in range(docs):
            grade = int(rng.integers(0, 4))
            other = (
                int(np.clip(grade + rng.integers(-1, 2), 0, 3))
                if rng.random() < 0.7
                else int(rng.integers(0, 4))
            )
            where = rng.random()
            if where < 0.8:
                a.setdefault(f"q{q}", {})[f"d{d}"] = grade if rng.random() > 0.05 else -1
            if where > 0.1:
                b.setdefault(f"q{q}", {})[f"d{d}"] = other
    return a, b


def _common_grades(a, b):
    x, y = [], []
    for q, docs in a.items():
        for d, g in docs.items():
            if g >= 0 and b.get(q, {}).get(d, -1) >= 0:
                x.append(g)
                y.append(b[q][d])
    return np.array(x), np.array(y)


def _same(x: float, y: float, tol: float = 1e-12) -> bool:
    return (math.isnan(x) and math.isnan(y)) or abs(x - y) <= tol


# ------------------------------------------------------------------------ agreement


@pytest.mark.parametrize("seed", range(8))
def test_agreement_equals_sklearn_and_krippendorff(seed):
    krippendorff = pytest.importorskip(
        "krippendorff", reason="krippendorff (test extra) is the oracle"
    )
    from sklearn.metrics import cohen_kappa_score

    rng = np.random.default_rng(seed)
    a, b = _random_qrels_pair(rng)
    res = ranklens.agreement(a, b)
    x, y = _common_grades(a, b)
    labels = np.arange(min(x.min(), y.min()), max(x.max(), y.max()) + 1)
    assert res.pairs == x.size
    for weights, name in (
        (None, "kappa"),
        ("linear", "kappa_linear"),
        ("quadratic", "kappa_quadratic"),
    ):
        assert _same(res[name], cohen_kappa_score(x, y, labels=labels, weights=weights))
    data = np.vstack([x, y]).astype(float)
    for level in ("nominal", "ordinal", "interval"):
        expected = krippendorff.alpha(reliability_data=data, level_of_measurement=level)
        assert _same(res[f"alpha_{level}"], expected, 1e-9)
    # counts of pairs judged by one side only (a negative grade is "not judged")
    only_a = sum(
        1
        for q, docs in a.items()
        for d, g in docs.items()
        if g >= 0 and b.get(q, {}).get(d, -1) < 0
    )
    only_b = sum(
        1
        for q, docs in b.items()
        for d, g in docs.items()
        if g >= 0 and a.get(q, {}).get(d, -1) < 0
    )
    assert (res.only_a, res.only_b) == (only_a, only_b)
    assert res.confusion.sum() == res.pairs
    assert np.trace(res.confusion) / res.pairs == pytest.approx(res["agreement"])


@pytest.mark.parametrize("rel", [1, 2, 3])
def test_agreement_binarised(rel):
    from sklearn.metrics import cohen_kappa_score

    rng = np.random.default_rng(rel)
    a, b = _random_qrels_pair(rng)
    res = ranklens.agreement(a, b, rel=rel)
    x, y = _common_grades(a, b)
    xb, yb = (x >= rel).astype(int), (y >= rel).astype(int)
    assert res.grades == (0, 1)
    assert _same(res["kappa"], cohen_kappa_score(xb, yb, labels=[0, 1]))
    # binary: every weighting is the same kappa
    assert _same(res["kappa_linear"], res["kappa"]) and _same(res["kappa_quadratic"], res["kappa"])
    both, either = int(np.sum(xb & yb)), int(np.sum(xb | yb))
    assert _same(res["jaccard"], both / either if either else math.nan)


def test_agreement_per_query_and_degenerate_cases():
    a = {"q1": {"d1": 1, "d2": 0}, "q2": {"d3": 2}, "q3": {"d9": 1}}
    b = {"q1": {"d1": 1, "d2": 0}, "q2": {"d3": 2, "d4": 0}, "q4": {"d5": 1}}
    res = ranklens.agreement(a, b, per_query=True)
    assert set(res.per_query) == {"q1", "q2", "q3", "q4"}
    assert res.per_query["q1"]["kappa"] == 1.0
    # one pair, one grade used: kappa undefined, but the pair agrees
    assert math.isnan(res.per_query["q2"]["kappa"]) and res.per_query["q2"]["agreement"] == 1.0
    assert res.per_query["q2"].only_b == 1
    assert res.per_query["q3"].pairs == 0 and math.isnan(res.per_query["q3"]["kappa"])
    assert (res.only_a, res.only_b) == (1, 2)
    assert sum(q.pairs for q in res.per_query.values()) == res.pairs
    with pytest.raises(OptionError):
        ranklens.agreement(a, b, rel=1.5)  # type: ignore[arg-type]


def test_agreement_reads_files(tmp_path):
    qa, qb = tmp_path / "a.qrels", tmp_path / "b.qrels"
    qa.write_text("q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 2\n")
    qb.write_text("q1 0 d1 0\nq1 0 d2 0\nq2 0 d3 2\n")
    from_files = ranklens.agreement(qa, qb)
    from_dicts = ranklens.agreement(
        {"q1": {"d1": 1, "d2": 0}, "q2": {"d3": 2}}, {"q1": {"d1": 0, "d2": 0}, "q2": {"d3": 2}}
    )
    assert dict(from_files) == dict(from_dicts)


# ------------------------------------------------------------------------ tau_ap and RBO


def _orders(scores):
    """Every strict ordering (item indices, best first) consistent with the scores."""
    values = sorted(set(scores), reverse=True)
    groups = [[i for i, s in enumerate(scores) if s == v] for v in values]
    for perm in itertools.product(*(itertools.permutations(g) for g in groups)):
        yield [i for g in perm for i in g]


def _tau_ap_strict(reference, candidate_scores, order):
    """Yilmaz et al.'s formula by hand on one strict ordering of the candidate."""
    n = len(order)
    total = 0.0
    for i in range(1, n):
        item = order[i]
        correct = 0.0
        for j in order[:i]:
            if reference[j] > reference[item]:
                correct += 1
            elif reference[j] == reference[item]:
                correct += 1 if candidate_scores[j] == candidate_scores[item] else 0.5
        total += correct / i
    return 2 * total / (n - 1) - 1


def _rbo_strict(order_x, order_y, p):
    n = len(order_x)
    s = sum(len(set(order_x[:d]) & set(order_y[:d])) / d * p**d for d in range(1, n + 1))
    return (1 - p) / p * (s + p ** (n + 1) / (1 - p))


def test_tau_ap_hand_computed():
    # Yilmaz et al.'s example shape: one swap at the top costs more than one at the bottom
    ref = [5, 4, 3, 2, 1]
    assert tau_ap(ref, ref) == 1.0
    assert tau_ap(ref, ref[::-1]) == pytest.approx(-1.0)
    top = tau_ap(ref, [4, 5, 3, 2, 1])
    bottom = tau_ap(ref, [5, 4, 3, 1, 2])
    # by hand: top swap C = [0, 2, 3, 4] -> 2/4 * (0 + 1 + 1 + 1) - 1 = 0.5
    assert top == pytest.approx(0.5)
    # bottom swap C = [1, 2, 3, 3] -> 2/4 * (1 + 1 + 1 + 0.75) - 1 = 0.875
    assert bottom == pytest.approx(0.875)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.integers(0, 3), min_size=2, max_size=6).flatmap(
        lambda x: st.tuples(
            st.just(x), st.lists(st.integers(0, 3), min_size=len(x), max_size=len(x))
        )
    )
)
def test_tau_ap_and_rbo_equal_brute_force_over_ties(pair):
    x, y = pair
    expected_tau = np.mean([_tau_ap_strict(x, y, order) for order in _orders(y)])
    assert tau_ap(x, y) == pytest.approx(expected_tau, abs=1e-12)
    expected_rbo = np.mean([_rbo_strict(ox, oy, 0.8) for ox in _orders(x) for oy in _orders(y)])
    assert rank_biased_overlap(x, y, 0.8, "a") == pytest.approx(expected_rbo, abs=1e-12)
    if len(set(x)) == len(x) and len(set(y)) == len(y):  # no ties: the variants agree
        for variant in ("w", "b"):
            assert rank_biased_overlap(x, y, 0.8, variant) == pytest.approx(expected_rbo, abs=1e-12)
    assert rank_biased_overlap(x, x, 0.8, "w") == pytest.approx(1.0)


def test_rank_similarity_rejects_bad_input():
    with pytest.raises(OptionError):
        rank_biased_overlap([1, 2], [1, 2], p=1.0)
    with pytest.raises(OptionError):
        rank_biased_overlap([1, 2], [1, 2], ties="z")  # type: ignore[arg-type]
    with pytest.raises(InputError):
        tau_ap([1, 2, 3], [1, 2])
    with pytest.raises(InputError):
        tau_ap([1, float("nan")], [1, 2])


# ------------------------------------------------------------------------ leaderboards


def _leaderboard_data(seed: int, runs: int = 5):
    rng = np.random.default_rng(seed)
    human, llm = {}, {}
    for q in range(12):
        for d in range(25):
            g = int(rng.integers(0, 3))
            human.setdefault(f"q{q}", {})[f"d{d}"] = g
            llm.setdefault(f"q{q}", {})[f"d{d}"] = (
                g if rng.random() < 0.6 else int(rng.integers(0, 3))
            )
    run_set = {
        f"r{i}": {
            f"q{q}": {f"d{d}": float(rng.integers(0, 6)) for d in rng.choice(30, 15, replace=False)}
            for q in range(12)
        }
        for i in range(runs)
    }
    return human, llm, run_set


@pytest.mark.parametrize("seed", range(4))
def test_leaderboard_against_direct_computation(seed):
    from scipy.stats import kendalltau, spearmanr

    human, llm, runs = _leaderboard_data(seed)
    measures = ["nDCG@10", "AP", "P@5"]
    res = ranklens.leaderboard_agreement(human, llm, runs, measures, top_k=2)
    rs_a = ranklens.evaluate(human, runs, measures)
    rs_b = ranklens.evaluate(llm, runs, measures)
    assert set(res) == set(rs_a.names)
    for m, c in res.items():
        a = np.array([rs_a[r][m] for r in runs])
        b = np.array([rs_b[r][m] for r in runs])
        names = list(runs)
        assert c.scores_a == {r: rs_a[r][m] for r in runs}
        assert list(c.order_a) == sorted(names, key=lambda r: (-c.scores_a[r], r))
        assert _same(c["kendall_tau"], float(kendalltau(a, b).statistic))
        assert _same(c["spearman_rho"], float(spearmanr(a, b).statistic))
        assert c["tau_ap"] == pytest.approx(tau_ap(a, b))
        swaps = {
            (r, s)
            for r in names
            for s in names
            if c.scores_a[r] > c.scores_a[s] and c.scores_b[r] < c.scores_b[s]
        }
        assert set(c.swaps) == swaps
        assert c["top_k_overlap"] == len(set(c.order_a[:2]) & set(c.order_b[:2])) / 2
    # the same from two ResultSets
    again = ranklens.leaderboard_agreement(rs_a, rs_b, top_k=2)
    assert {m: dict(c) for m, c in again.items()} == {m: dict(c) for m, c in res.items()}


def test_leaderboard_errors():
    human, llm, runs = _leaderboard_data(0, runs=2)
    with pytest.raises(InputError, match="at least 3 runs"):
        ranklens.leaderboard_agreement(human, llm, runs, ["AP"])
    human, llm, runs = _leaderboard_data(0)
    with pytest.raises(OptionError):
        ranklens.leaderboard_agreement(human, llm, runs, ["AP"], top_k=0)
    with pytest.raises(OptionError):
        ranklens.leaderboard_agreement(human, llm)


def test_leaderboard_report_is_self_contained(tmp_path):
    pytest.importorskip("matplotlib", reason="the slope chart needs matplotlib")
    from ranklens.presentation.reporting.leaderboard import leaderboard_html

    human, llm, runs = _leaderboard_data(1)
    res = ranklens.leaderboard_agreement(human, llm, runs, ["AP", "nDCG@10"])
    html = leaderboard_html(res, ("human", "llm"))
    assert html.count("<svg") == 2 and "<script" not in html
    for run in runs:
        assert run in html


# ------------------------------------------------------------------------ reproduction


def _write_run(path, run, tag="tag"):
    with open(path, "w") as f:
        for q in sorted(run):
            items = sorted(run[q].items(), key=lambda kv: (kv[1], kv[0]), reverse=True)
            for r, (d, s) in enumerate(items):
                f.write(f"{q} Q0 {d} {r + 1} {s} {tag}\n")


@pytest.mark.parametrize("seed", range(3))
def test_reproduction_equals_repro_eval(tmp_path, seed):
    with warnings.catch_warnings():  # repro_eval imports scipy.stats.stats (deprecated)
        warnings.simplefilter("ignore")
        pytest.importorskip("repro_eval", reason="repro_eval (test extra) is the oracle")
        from repro_eval.Evaluator import RpdEvaluator, RplEvaluator

    rng = np.random.default_rng(seed)
    qrels = {
        f"q{q}": {f"d{i}": int(rng.integers(0, 3)) for i in rng.choice(30, 20, replace=False)}
        for q in range(8)
    }
    rel_path = tmp_path / "qrels"
    rel_path.write_text(
        "".join(f"{q} 0 {d} {g}\n" for q in sorted(qrels) for d, g in qrels[q].items())
    )
    paths = {}
    for name in ("bo", "ao", "br", "ar"):
        run = {
            f"q{q}": {f"d{i}": float(rng.integers(0, 8)) for i in rng.choice(30, 15, replace=False)}
            for q in range(8)
        }
        paths[name] = tmp_path / name
        _write_run(paths[name], run)
    measures = ["P@10", "nDCG@10", "AP", "RR"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rpd = RpdEvaluator(
            qrels_orig_path=str(rel_path),
            run_b_orig_path=str(paths["bo"]),
            run_a_orig_path=str(paths["ao"]),
            run_b_rep_path=str(paths["br"]),
            run_a_rep_path=str(paths["ar"]),
        )
        rpd.trim()
        rpd.evaluate()
        ktu, rbo, rmse, nrmse = rpd.ktu(), rpd.rbo(), rpd.rmse(), rpd.nrmse()
        er, dri, ttest = rpd.er(), rpd.dri(), rpd.ttest()
    res = ranklens.reproduction(
        rel_path, paths["ao"], paths["ar"], measures, baseline=(paths["bo"], paths["br"])
    )
    for m in measures:
        assert res[m]["ktu"] == ktu["advanced"]
        assert res[m]["rbo"] == rbo["advanced"]
        assert res[m]["rmse"] == rmse["advanced"][m]
        assert res[m]["nrmse"] == nrmse["advanced"][m]
        assert res[m]["er"] == pytest.approx(er[m], rel=1e-12)
        assert res[m]["dri"] == pytest.approx(dri[m], rel=1e-12, abs=1e-15)
        assert res[m]["p_value"] == pytest.approx(ttest["advanced"][m], rel=1e-12)
        assert res.baseline is not None and res.baseline[m]["ktu"] == ktu["baseline"]
        assert res.baseline[m]["p_value"] == pytest.approx(ttest["baseline"][m], rel=1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rpl = RplEvaluator(
            qrels_orig_path=str(rel_path),
            run_b_orig_path=str(paths["bo"]),
            run_a_orig_path=str(paths["ao"]),
            run_b_rep_path=str(paths["br"]),
            run_a_rep_path=str(paths["ar"]),
            qrels_rpl_path=str(rel_path),
        )
        rpl.trim()
        rpl.evaluate()
        unpaired = rpl.ttest()
    rep = ranklens.reproduction(
        rel_path,
        paths["ao"],
        paths["ar"],
        measures,
        baseline=(paths["bo"], paths["br"]),
        qrels_reproduced=rel_path,
    )
    for m in measures:
        assert rep[m]["p_value"] == pytest.approx(unpaired["advanced"][m], rel=1e-12)
        assert math.isnan(rep[m]["ktu"]) and math.isnan(rep[m]["rmse"])


def test_reproduction_of_itself_is_perfect():
    qrels = {"q1": {"a": 1, "b": 0}, "q2": {"c": 2}}
    run = {"q1": {"a": 2.0, "b": 1.0, "x": 0.5}, "q2": {"c": 1.0, "y": 0.5}}
    res = ranklens.reproduction(qrels, run, run, ["AP", "nDCG@10"])
    for m in res:
        assert res[m]["ktu"] == 1.0 and res[m]["rmse"] == 0.0 and res[m]["p_value"] == 1.0
    with pytest.raises(OptionError):
        ranklens.reproduction(qrels, run, run, ["AP"], baseline=(run,))  # type: ignore[arg-type]


# ------------------------------------------------------------------------ PPI


def _ppi_population(rng, queries: int, docs: int = 10):
    """Human grades ~ Bernoulli(pi_q), pi_q ~ U(0, 1): E[P@10] = 0.5. The LLM marks 30% of
    the non-relevant documents relevant and misses 10% of the relevant ones (E = 0.6)."""
    human, llm, run = {}, {}, {}
    for q in range(queries):
        pi = rng.random()
        rel = rng.random(docs) < pi
        noise = rng.random(docs)
        llm_rel = np.where(rel, noise >= 0.1, noise < 0.3)
        human[f"q{q}"] = {f"d{d}": int(rel[d]) for d in range(docs)}
        llm[f"q{q}"] = {f"d{d}": int(llm_rel[d]) for d in range(docs)}
        run[f"q{q}"] = {f"d{d}": float(docs - d) for d in range(docs)}
    return human, llm, run


def test_ppi_matches_its_formula():
    rng = np.random.default_rng(3)
    human, llm, run = _ppi_population(rng, 60)
    sample = {q: human[q] for q in list(human)[:20]}
    est = ranklens.ppi_mean(sample, llm, run, "P@10", alpha=0.1)
    y = np.array([np.mean(list(sample[q].values())) for q in sample])
    f_l = np.array([np.mean(list(llm[q].values())) for q in sample])
    f_u = np.array([np.mean(list(llm[q].values())) for q in llm if q not in sample])
    from scipy.stats import t

    theta = f_u.mean() + (y - f_l).mean()
    f_every = np.concatenate((f_l, f_u))  # the LLM's variance over every query
    a, b = (y - f_l).var(ddof=1) / y.size, f_every.var(ddof=1) / f_u.size
    welch = (a + b) ** 2 / (a**2 / (y.size - 1) + b**2 / (f_every.size - 1))
    half = t.ppf(0.95, welch) * math.sqrt(a + b)
    assert est.estimate == pytest.approx(theta, abs=1e-12)
    assert (est.low, est.high) == (pytest.approx(theta - half), pytest.approx(theta + half))
    assert (est.n_labeled, est.n_unlabeled) == (20, 40)
    tuned = ranklens.ppi_mean(sample, llm, run, "P@10", alpha=0.1, power_tuning=True)
    assert 0.0 <= tuned.weight <= 1.0


def test_ppi_coverage_by_simulation():
    """The corrected interval covers the human mean at about its nominal rate where the
    LLM-only interval almost never does (the LLM is biased upwards)."""
    rng = np.random.default_rng(11)
    reps, covered, covered_llm, covered_tuned = 300, 0, 0, 0
    for _ in range(reps):
        human, llm, run = _ppi_population(rng, 150)
        picked = rng.choice(150, 30, replace=False)
        sample = {f"q{i}": human[f"q{i}"] for i in picked}
        est = ranklens.ppi_mean(sample, llm, run, "P@10")
        covered += est.low <= 0.5 <= est.high
        covered_llm += est.llm_only[1] <= 0.5 <= est.llm_only[2]
        tuned = ranklens.ppi_mean(sample, llm, run, "P@10", power_tuning=True)
        covered_tuned += tuned.low <= 0.5 <= tuned.high
    # 95% nominal: a binomial(300, 0.95) lies in [0.91, 0.99] with probability > 0.999
    assert 0.91 <= covered / reps <= 0.99
    assert 0.90 <= covered_tuned / reps <= 0.99
    assert covered_llm / reps < 0.2


def test_ppi_errors():
    human = {"q1": {"a": 1}, "q9": {"a": 1}}
    llm = {"q1": {"a": 1}, "q2": {"a": 0}}
    run = {"q1": {"a": 1.0}, "q2": {"a": 1.0}}
    with pytest.raises(InputError, match="no LLM judgments"):
        ranklens.ppi_mean(human, llm, run, "P@1")
    with pytest.raises(OptionError):
        ranklens.ppi_mean({"q1": {"a": 1}}, llm, run, "P@1", alpha=1.5)
    with pytest.raises(InputError, match="at least 2"):
        ranklens.ppi_mean({"q1": {"a": 1}}, llm, run, "P@1")


# ------------------------------------------------------------------------ command line


class _Ran:
    def __init__(self, returncode: int, stdout: str, stderr: str) -> None:
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr


def _ranklens(capsys, *args):
    """The command line in this process (its parser, handlers and error printing)."""
    from ranklens.cli import main

    capsys.readouterr()
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return _Ran(code, out, err)


def test_cli_commands(tmp_path, capsys):
    human, llm, runs = _leaderboard_data(2, runs=3)
    qa, qb = tmp_path / "human.qrels", tmp_path / "llm.qrels"
    qa.write_text("".join(f"{q} 0 {d} {g}\n" for q in human for d, g in human[q].items()))
    qb.write_text("".join(f"{q} 0 {d} {g}\n" for q in llm for d, g in llm[q].items()))
    paths = []
    for name, run in runs.items():
        paths.append(tmp_path / f"{name}.run")
        _write_run(paths[-1], run)
    out = _ranklens(capsys, "agreement", qa, qb, "-f", "json")
    assert out.returncode == 0, out.stderr
    payload = json.loads(out.stdout)
    assert payload["all"]["kappa"] == pytest.approx(ranklens.agreement(qa, qb)["kappa"])
    out = _ranklens(capsys, "agreement", qa, qb)
    assert out.returncode == 0 and "kappa" in out.stdout and "confusion" in out.stdout
    report = tmp_path / "lb.html"
    out = _ranklens(
        capsys, "leaderboard", qa, qb, *paths, "-m", "AP nDCG@10", "-f", "json", "--report", report
    )
    assert out.returncode == 0, out.stderr
    lb = json.loads(out.stdout)
    direct = ranklens.leaderboard_agreement(qa, qb, paths, ["AP", "nDCG@10"])
    assert lb["AP"]["order_a"] == list(direct["AP"].order_a)
    assert report.read_text().startswith("<!DOCTYPE html>")
    out = _ranklens(
        capsys,
        "reproduction",
        qa,
        paths[0],
        paths[1],
        "-m",
        "AP",
        "--baseline",
        paths[2],
        paths[2],
        "-f",
        "json",
    )
    assert out.returncode == 0, out.stderr
    rep = json.loads(out.stdout)
    assert (
        rep["advanced"]["AP"]["rmse"]
        == ranklens.reproduction(qa, paths[0], paths[1], ["AP"])["AP"]["rmse"]
    )
    out = _ranklens(capsys, "ppi", qa, qb, paths[0], "-m", "P@10", "-f", "json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["P@10"]["n_unlabeled"] == 0
    # errors: one line, exit 2
    out = _ranklens(capsys, "leaderboard", qa, qb, paths[0], paths[1])
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and "at least 3 runs" in out.stderr
    out = _ranklens(capsys, "agreement", qa, tmp_path / "missing.qrels")
    assert out.returncode == 2 and "Traceback" not in out.stderr


def _webber_ext(short, long_, p):
    """Webber, Moffat and Zobel's RBO_EXT for uneven untied lists (their equation 32)."""
    s, n = len(short), len(long_)
    x = [len(set(short[:d]) & set(long_[:d])) for d in range(1, n + 1)]
    first = sum(x[d - 1] / d * p**d for d in range(1, n + 1))
    second = sum(x[s - 1] * (d - s) / (s * d) * p**d for d in range(s + 1, n + 1))
    return (1 - p) / p * (first + second) + ((x[n - 1] - x[s - 1]) / n + x[s - 1] / s) * p**n


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.integers(0, 12), min_size=1, max_size=9, unique=True),
    st.lists(st.integers(0, 12), min_size=1, max_size=9, unique=True),
    st.sampled_from([0.5, 0.8, 0.95]),
)
def test_rbo_rankings_without_ties_is_webbers_ext(x, y, p):
    from ranklens.analysis.stats.rank_similarity import rbo_rankings

    groups_x = [[str(i)] for i in x]
    groups_y = [[str(i)] for i in y]
    short, long_ = (x, y) if len(x) <= len(y) else (y, x)
    expected = _webber_ext([str(i) for i in short], [str(i) for i in long_], p)
    for ties in ("a", "b", "w"):
        assert rbo_rankings(groups_x, groups_y, p, ties) == pytest.approx(expected, abs=1e-12)


@settings(max_examples=80, deadline=None)
@given(
    st.lists(st.integers(0, 3), min_size=2, max_size=6).flatmap(
        lambda x: st.tuples(st.just(x), st.lists(st.integers(0, 3), min_size=len(x), max_size=len(x)))
    )
)
def test_rbo_rankings_of_the_same_items_is_the_ordering_rbo(pair):
    """Two tied rankings of the same items: the same numbers as rank_biased_overlap."""
    from ranklens.analysis.stats.rank_similarity import rbo_rankings

    def groups(scores):
        return [[str(i) for i, s in enumerate(scores) if s == v] for v in sorted(set(scores), reverse=True)]

    x, y = pair
    for ties in ("a", "b", "w"):
        assert rbo_rankings(groups(x), groups(y), 0.8, ties) == pytest.approx(
            rank_biased_overlap(x, y, 0.8, ties), abs=1e-12
        )


def test_reproduction_rbo_ext_sees_ties_and_lengths():
    from ranklens.analysis.stats.rank_similarity import rbo_rankings

    qrels = {"q1": {"a": 1}}
    original = {"q1": {"a": 3.0, "b": 2.0, "c": 2.0, "d": 1.0}}
    reproduced = {"q1": {"a": 3.0, "c": 2.0, "e": 1.0}}
    res = ranklens.reproduction(qrels, original, reproduced, ["AP"], p=0.9)
    expected = rbo_rankings([["a"], ["c", "b"], ["d"]], [["a"], ["c"], ["e"]], 0.9, "a")
    assert res["AP"]["rbo_ext"] == pytest.approx(expected)
    assert res.rbo_ext_per_query["q1"] == res["AP"]["rbo_ext"]
    assert 0 < res["AP"]["rbo_ext"] < 1


def test_report_with_a_second_set_of_judgments(tmp_path, capsys):
    pytest.importorskip("matplotlib", reason="the slope charts need matplotlib")
    from ranklens.cli import main

    human, llm, runs = _leaderboard_data(3, runs=3)
    qa, qb = tmp_path / "human.qrels", tmp_path / "llm.qrels"
    qa.write_text("".join(f"{q} 0 {d} {g}\n" for q in human for d, g in human[q].items()))
    qb.write_text("".join(f"{q} 0 {d} {g}\n" for q in llm for d, g in llm[q].items()))
    paths = []
    for name, run in runs.items():
        paths.append(tmp_path / f"{name}.run")
        _write_run(paths[-1], run, name)
    out = tmp_path / "report.html"
    assert main(["report", str(qa), *map(str, paths), "-m", "AP", "-o", str(out), "--qrels-b", str(qb), "--quiet"]) == 0
    html = out.read_text()
    board = ranklens.leaderboard_agreement(qa, qb, paths, ["AP"])["AP"]
    assert "Leaderboards under two sets of judgments" in html and "llm.qrels" in html
    assert f"{board['tau_ap']:.4f}" in html
    # the report may not overwrite the second qrels
    assert main(["report", str(qa), *map(str, paths), "-m", "AP", "-o", str(qb), "--qrels-b", str(qb), "--force"]) == 2
    assert "input files" in capsys.readouterr().err
