"""Does the leaderboard mean anything? (issue 46, items 1-5): query groups, rank intervals,
Friedman's test with Nemenyi's critical difference, the posterior probability of being
better with a region of practical equivalence, and risk-sensitive comparison (URisk,
TRisk, ZRisk, GeoRisk), each checked against scipy/statsmodels or an independent
implementation of the published formula, on generated data (graded and negative labels,
unjudged documents, queries without relevant documents, ties in the per-query values,
groups of very different sizes, a run missing queries) and on the bundled example; on
every way in: runs, per-topic score files, DataFrames."""

from __future__ import annotations

import io
import math
import warnings
from itertools import combinations

import numpy as np
import pytest
import scipy.stats as st
from hypothesis import given, settings
from hypothesis import strategies as hst
from statsmodels.stats.multitest import multipletests

import ranklens
from ranklens.analysis.comparison import compare_results
from ranklens.analysis.stats import (
    friedman_test,
    georisk,
    nemenyi_critical_difference,
    prob_better,
    rope_probabilities,
    urisk_trisk,
    zrisk,
)
from ranklens.base.errors import InputError, OptionError
from ranklens.data.examples import example_paths, example_run_paths
from ranklens.evaluation.scores_files import read_scores, write_scores

MEASURES = ["AP", "nDCG@10", "P@5"]
STATS = ("delta", "p_value", "p_value_corrected", "ci_low", "ci_high", "effect_size")


def collection(queries: int = 40, seed: int = 3) -> tuple[dict, dict]:
    """Qrels (grades -1..3, some queries without relevant documents) and five runs: r3
    copies r2 on a third of the queries (tied per-query values), r4 misses four queries,
    every run retrieves unjudged documents."""
    rng = np.random.default_rng(seed)
    qrels: dict[str, dict[str, int]] = {}
    for i in range(queries):
        grades = rng.choice([-1, 0, 0, 1, 2, 3], size=12)
        if i % 9 == 0:
            grades = np.minimum(grades, 0)  # no relevant document
        qrels[f"q{i:02d}"] = {f"d{j}": int(g) for j, g in enumerate(grades)}
    runs: dict[str, dict[str, dict[str, float]]] = {}
    for k in range(5):
        run: dict[str, dict[str, float]] = {}
        for q, judged in qrels.items():
            docs = list(judged) + [f"u{j}" for j in range(6)]  # unjudged documents
            boost = {d: 0.15 * k * max(g, 0) for d, g in judged.items()}
            run[q] = {d: float(rng.random() + boost.get(d, 0.0)) for d in docs}
        runs[f"r{k}"] = run
    for q in list(qrels)[::3]:
        runs["r3"][q] = dict(runs["r2"][q])
    for q in list(qrels)[5:9]:
        del runs["r4"][q]
    return qrels, runs


def groups_of(qrels: dict) -> dict[str, str]:
    """Groups of very different sizes: 2, 1, 6 queries and the rest."""
    out = {}
    for i, q in enumerate(sorted(qrels)):
        out[q] = "pair" if i < 2 else "single" if i == 2 else "six" if i < 9 else "rest"
    return out


def subset(qrels: dict, runs: dict, queries: set[str]) -> tuple[dict, dict]:
    sub_qrels = {q: j for q, j in qrels.items() if q in queries}
    sub_runs = {n: {q: r for q, r in run.items() if q in queries} for n, run in runs.items()}
    return sub_qrels, sub_runs


def score_files(evaluated, folder) -> list:
    """``(results, path)`` of each run's per-topic scores written as ``trec_eval -q``."""
    out = []
    for r in evaluated:
        path = folder / f"{r.run}.txt"
        with open(path, "w") as handle:
            write_scores(r, handle, "trec_eval")
        out.append((r, path))
    return out


def assert_same_pair(a: ranklens.PairStats, b: ranklens.PairStats) -> None:
    for name in STATS:
        x, y = getattr(a, name), getattr(b, name)
        assert x == pytest.approx(y, rel=1e-12, abs=1e-15, nan_ok=True), name
    assert (a.wins, a.ties, a.losses, a.significant) == (b.wins, b.ties, b.losses, b.significant)
    assert a.prob_better == pytest.approx(b.prob_better, rel=1e-12, nan_ok=True)
    assert a.urisk == pytest.approx(b.urisk, rel=1e-12, abs=1e-15, nan_ok=True)
    assert a.trisk == pytest.approx(b.trisk, rel=1e-12, abs=1e-15, nan_ok=True)


# ------------------------------------------------------------------- 1. query groups


@pytest.mark.parametrize(
    ("test", "correction", "policy"),
    [
        ("t", "holm", "qrels"),
        ("wilcoxon", "bh", "both"),
        ("sign", "bonferroni", "qrels"),
        ("randomization", "holm", "both"),
        ("bootstrap", "none", "qrels"),
    ],
)
def test_each_group_is_compare_on_its_queries(test: str, correction: str, policy: str) -> None:
    qrels, runs = collection()
    groups = groups_of(qrels)
    options = {"test": test, "correction": correction, "permutations": 300, "queries": policy}
    cmp = ranklens.compare(qrels, runs, MEASURES, baseline="r1", groups=groups, **options)
    assert list(cmp.groups) == ["pair", "single", "six", "rest"]
    for name, part in cmp.groups.items():
        members = {q for q, g in groups.items() if g == name}
        compared = [q for q in cmp.queries if q in members]
        assert part.queries == tuple(compared)
        if len(compared) < 2:
            assert part.notes and "too few" in part.notes[0]
            st_ = part.vs_baseline["r0"]["AP"]
            assert math.isnan(st_.p_value) and math.isnan(st_.p_value_corrected)
            assert not st_.significant
            continue
        sub_qrels, sub_runs = subset(qrels, runs, members)
        with warnings.catch_warnings():  # most of r4's missing queries fall in one group
            warnings.simplefilter("ignore", ranklens.InputWarning)
            alone = ranklens.compare(sub_qrels, sub_runs, MEASURES, baseline="r1", **options)
        assert alone.queries == part.queries
        for run in alone.vs_baseline:
            for m in MEASURES:
                assert_same_pair(part.vs_baseline[run][m], alone.vs_baseline[run][m])
                assert part.means[run][m] == pytest.approx(alone.means[run][m], rel=1e-12)


def test_groups_with_all_pairs_rank_intervals_and_friedman() -> None:
    qrels, runs = collection()
    groups = groups_of(qrels)
    cmp = ranklens.compare(qrels, runs, MEASURES, all_pairs=True, groups=groups)
    members = {q for q, g in groups.items() if g == "rest"}
    alone = ranklens.compare(*subset(qrels, runs, members), MEASURES, all_pairs=True)
    part = cmp.groups["rest"]
    assert part.ranks["AP"] == alone.ranks["AP"]
    assert part.friedman("AP").statistic == pytest.approx(alone.friedman("AP").statistic)
    for pair, per in alone.pairs.items():
        assert_same_pair(part.pairs[pair]["AP"], per["AP"])
    with pytest.raises(InputError, match="at least 2 queries"):
        cmp.groups["single"].friedman("AP")


def test_group_file_is_the_mapping(tmp_path) -> None:
    qrels, runs = collection()
    groups = groups_of(qrels)
    path = tmp_path / "groups.tsv"
    path.write_text(
        "query_id\tgroup\n# a comment\n\n" + "".join(f"{q}\t{g}\n" for q, g in groups.items())
    )
    a = ranklens.compare(qrels, runs, MEASURES, groups=groups)
    b = ranklens.compare(qrels, runs, MEASURES, groups=str(path))
    for name in a.groups:
        assert a.groups[name].vs_baseline == b.groups[name].vs_baseline or name == "single"


def test_group_file_naming_an_unknown_query_says_where(tmp_path) -> None:
    qrels, runs = collection()
    path = tmp_path / "groups.txt"
    path.write_text("q00 a\nq01 a\nnope b\n")
    with pytest.raises(InputError) as caught:
        ranklens.compare(qrels, runs, MEASURES, groups=path)
    assert caught.value.path == str(path) and caught.value.line == 3
    assert "'nope'" in str(caught.value) and f"{path}:3" in str(caught.value)
    with pytest.raises(InputError, match="'nope'"):
        ranklens.compare(qrels, runs, MEASURES, groups={"nope": "b"})
    path.write_text("q00 a extra\n")
    with pytest.raises(InputError, match="two columns") as caught:
        ranklens.compare(qrels, runs, MEASURES, groups=path)
    assert caught.value.line == 1
    path.write_text("q00 a\nq00 b\n")
    with pytest.raises(InputError, match="twice"):
        ranklens.compare(qrels, runs, MEASURES, groups=path)


def test_groups_on_scores_and_dataframes_are_groups_on_runs(tmp_path) -> None:
    pd = pytest.importorskip("pandas")
    qrels, runs = collection()
    groups = groups_of(qrels)
    from_runs = ranklens.compare(qrels, runs, MEASURES, groups=groups, rope=0.02, risk_alpha=2)
    evaluated = ranklens.evaluate(qrels, runs, MEASURES)
    # per-topic score files, without qrels
    files = [read_scores(path, name=r.run) for r, path in score_files(evaluated, tmp_path)]
    from_files = ranklens.compare(None, files, MEASURES, groups=groups, rope=0.02, risk_alpha=2)
    # DataFrames (long: run, query, measure columns), through compare_results
    frame = pd.concat([r.to_pandas().assign(run=r.run) for r in evaluated])
    scores = read_scores(frame)
    from_frame = compare_results(list(scores), MEASURES, groups=groups, rope=0.02, risk_alpha=2)
    for other in (from_files, from_frame):
        assert other.runs == from_runs.runs
        for g, part in from_runs.groups.items():
            for run, per in part.vs_baseline.items():
                for m, st_ in per.items():
                    got = other.groups[g].vs_baseline[run][m]
                    assert_same_pair(got, st_)
                    assert got.verdict == st_.verdict


# ----------------------------------------------------------------- 2. rank intervals


def expected_intervals(x: np.ndarray, names: tuple[str, ...], alpha: float) -> dict:
    """Rank intervals from scipy's paired t-tests and statsmodels' Holm correction."""
    k = len(names)
    pairs = list(combinations(range(k), 2))
    p = []
    for a, b in pairs:
        d = x[:, b] - x[:, a]
        p.append(1.0 if np.all(d == 0) else float(st.ttest_rel(x[:, b], x[:, a]).pvalue))
    reject = multipletests(p, alpha=alpha, method="holm")[0]
    better = dict.fromkeys(range(k), 0)
    worse = dict.fromkeys(range(k), 0)
    for (a, b), sig in zip(pairs, reject, strict=True):
        if not sig:
            continue
        winner, loser = (b, a) if x[:, b].mean() > x[:, a].mean() else (a, b)
        better[loser] += 1
        worse[winner] += 1
    return {names[i]: (1 + better[i], k - worse[i]) for i in range(k)}


@pytest.mark.parametrize("alpha", [0.05, 0.2])
def test_rank_intervals_from_scipy_and_statsmodels(alpha: float) -> None:
    qrels, runs = collection(queries=60, seed=11)
    cmp = ranklens.compare(qrels, runs, MEASURES, all_pairs=True, alpha=alpha, risk_alpha=1)
    for m in MEASURES:
        assert cmp.ranks[m] == expected_intervals(cmp.values(m), cmp.runs, alpha)
        assert all(isinstance(v, tuple) and len(v) == 2 for v in cmp.ranks[m].values())
        assert cmp.tied_with_first(m) == tuple(r for r in cmp.runs if cmp.ranks[m][r][0] == 1)
    assert cmp.ranks["ndcg_cut_10"] == cmp.ranks["nDCG@10"]  # any spelling


def test_rank_intervals_need_all_pairs() -> None:
    qrels, runs = collection()
    with pytest.raises(OptionError, match="all_pairs"):
        ranklens.compare(qrels, runs, MEASURES).ranks  # noqa: B018


def test_real_data_rank_intervals_friedman_risk() -> None:
    qrels, _ = example_paths()
    paths = example_run_paths()
    cmp = ranklens.compare(qrels, paths, ["nDCG@10", "AP"], all_pairs=True, risk_alpha=1)
    assert len(cmp.runs) >= 3
    for m in ("nDCG@10", "AP"):
        x = cmp.values(m)
        assert cmp.ranks[m] == expected_intervals(x, cmp.runs, cmp.alpha)
        f = cmp.friedman(m)
        ref = st.friedmanchisquare(*x.T)
        assert f.statistic == pytest.approx(ref.statistic, rel=1e-12)
        assert f.p_value == pytest.approx(ref.pvalue, rel=1e-10)
        for j, run in enumerate(cmp.runs):
            d = x[:, j] - x[:, cmp.runs.index(cmp.baseline)]
            if run == cmp.baseline:
                continue
            s = cmp.vs_baseline[run][m]
            assert s.prob_better == pytest.approx(
                1 - st.ttest_1samp(d, 0, alternative="greater").pvalue
            )
            w = np.where(d < 0, 2 * d, d)
            assert s.urisk == pytest.approx(w.mean(), rel=1e-12)
            assert s.trisk == pytest.approx(
                w.mean() / (w.std(ddof=1) / math.sqrt(len(w))), rel=1e-10
            )


# ----------------------------------------------------------- 3. Friedman and Nemenyi


def test_friedman_is_scipys_with_ties_and_averaged_mean_ranks() -> None:
    qrels, runs = collection(queries=50, seed=5)
    cmp = ranklens.compare(qrels, runs, MEASURES, all_pairs=True, alpha=0.1)
    for m in MEASURES:
        x = cmp.values(m)
        assert any(len(set(row)) < len(row) for row in x)  # ties within queries
        f = cmp.friedman(m)
        ref = st.friedmanchisquare(*x.T)
        assert f.statistic == pytest.approx(ref.statistic, rel=1e-12)
        assert f.p_value == pytest.approx(ref.pvalue, rel=1e-10)
        ranks = st.rankdata(-x, axis=1).mean(axis=0)  # 1 = best, ties averaged
        assert f.mean_ranks == pytest.approx(dict(zip(cmp.runs, ranks, strict=True)))
        k, n = x.shape[1], x.shape[0]
        q = st.studentized_range.ppf(0.9, k, 1e6) / math.sqrt(2)  # a large df approaches inf
        assert f.critical_difference == pytest.approx(
            q * math.sqrt(k * (k + 1) / (6 * n)), rel=1e-5
        )


# Demšar (2006), table 5: critical values q_alpha of the two-tailed Nemenyi test
DEMSAR = {
    0.05: [1.960, 2.343, 2.569, 2.728, 2.850, 2.949, 3.031, 3.102, 3.164],
    0.10: [1.645, 2.052, 2.291, 2.459, 2.589, 2.693, 2.780, 2.855, 2.920],
}


@pytest.mark.parametrize("alpha", [0.05, 0.10])
def test_critical_difference_matches_demsar_table(alpha: float) -> None:
    for k, q in enumerate(DEMSAR[alpha], start=2):
        cd = nemenyi_critical_difference(k, 30, alpha)
        assert cd == pytest.approx(q * math.sqrt(k * (k + 1) / 180), abs=6e-4)


def test_friedman_lower_is_better_ranks_the_lowest_first(tmp_path) -> None:
    rng = np.random.default_rng(2)
    lines = []
    for run, shift in (("a", 0.0), ("b", 0.3), ("c", 0.6)):
        for q in range(12):
            lines.append(f"err\t{q}\t{round(float(rng.random() + shift), 1)}\n")
        (tmp_path / f"{run}.txt").write_text("".join(lines))
        lines = []
    files = [read_scores(tmp_path / f"{r}.txt", lower_is_better="err") for r in "abc"]
    cmp = ranklens.compare(None, files, ["err"], all_pairs=True)
    x = cmp.values("err")
    f = cmp.friedman("err")
    assert f.mean_ranks == pytest.approx(
        dict(zip(cmp.runs, st.rankdata(x, axis=1).mean(0), strict=True))
    )
    assert f.mean_ranks["a"] < f.mean_ranks["c"]
    assert f.statistic == pytest.approx(st.friedmanchisquare(*x.T).statistic)
    d = x[:, 2] - x[:, 0]  # c - a: positive is worse here
    s = cmp.vs_baseline["c"]["err"]
    assert s.delta == pytest.approx(d.mean())
    assert s.prob_better == pytest.approx(st.t.cdf(-d.mean() / (d.std(ddof=1) / math.sqrt(12)), 11))
    w = np.where(-d < 0, -2 * d, -d)
    assert s.urisk == pytest.approx(w.mean())
    assert cmp.ranks["err"]["a"][0] == 1
    with pytest.raises(OptionError, match="higher is better"):
        cmp.georisk("err")


# ------------------------------------------------------ 4. probability of being better


@settings(max_examples=60, deadline=None)
@given(
    hst.lists(hst.sampled_from([-0.5, -0.2, 0.0, 0.0, 0.1, 0.3, 1.0]), min_size=2, max_size=30),
    hst.sampled_from([0.0, 0.05, 0.2]),
)
def test_prob_better_and_rope_are_the_t_posterior(diffs: list[float], rope: float) -> None:
    d = np.array(diffs)
    n = len(d)
    mean, s = d.mean(), d.std(ddof=1)
    pb = float(prob_better(d))
    below, inside, above = (float(v) for v in rope_probabilities(d, rope))
    assert below + inside + above == pytest.approx(1.0)
    assert float(prob_better(-d)) == pytest.approx(1 - pb)
    if s > 1e-12 and not np.all(d == d[0]):
        posterior = st.t(n - 1, loc=mean, scale=s / math.sqrt(n))
        assert pb == pytest.approx(posterior.sf(0.0), abs=1e-9)
        assert pb == pytest.approx(1 - st.ttest_1samp(d, 0, alternative="greater").pvalue, abs=1e-9)
        assert inside == pytest.approx(posterior.cdf(rope) - posterior.cdf(-rope), abs=1e-9)
        assert above == pytest.approx(posterior.sf(rope), abs=1e-9)
    else:
        assert pb == (0.5 if d[0] == 0 else float(d[0] > 0))


def test_rope_verdicts_and_flipped_comparisons() -> None:
    qrels, runs = collection()
    cmp = ranklens.compare(qrels, runs, MEASURES, all_pairs=True, rope=0.01, confidence=0.9)
    seen = set()
    for (a, b), per in cmp.pairs.items():
        for m, s in per.items():
            x = cmp.values(m)
            d = x[:, cmp.runs.index(b)] - x[:, cmp.runs.index(a)]
            post = st.t(len(d) - 1, loc=d.mean(), scale=d.std(ddof=1) / math.sqrt(len(d)))
            inside = post.cdf(0.01) - post.cdf(-0.01)
            assert s.prob_equivalent == pytest.approx(inside, abs=1e-9)
            expected = (
                "equivalent"
                if inside >= 0.9
                else "better"
                if post.sf(0.01) >= 0.9
                else "worse"
                if post.cdf(-0.01) >= 0.9
                else "undecided"
            )
            assert s.verdict == expected
            seen.add(expected)
            back = cmp.stats(a, m, b)
            assert back.prob_better == pytest.approx(1 - s.prob_better)
            assert back.verdict == {"better": "worse", "worse": "better"}.get(expected, expected)
            w = np.where(-d < 0, -2 * d, -d)  # the risk of a against b, computed directly
            assert back.urisk == pytest.approx(w.mean(), abs=1e-15)
    assert "better" in seen and "undecided" in seen
    plain = ranklens.compare(qrels, runs, MEASURES)
    assert plain.vs_baseline["r1"]["AP"].verdict is None
    assert plain.vs_baseline["r1"]["AP"].prob_equivalent is None
    with pytest.raises(OptionError, match="rope"):
        ranklens.compare(qrels, runs, MEASURES, rope=-0.1)


# --------------------------------------------------------------------------- 5. risk


@pytest.mark.parametrize("risk_alpha", [0.0, 1.0, 5.0])
def test_urisk_trisk_on_every_comparison(risk_alpha: float) -> None:
    qrels, runs = collection()
    cmp = ranklens.compare(qrels, runs, MEASURES, risk_alpha=risk_alpha, queries="both")
    base = cmp.runs.index(cmp.baseline)
    for run, per in cmp.vs_baseline.items():
        for m, s in per.items():
            x = cmp.values(m)
            d = x[:, cmp.runs.index(run)] - x[:, base]
            w = np.where(d >= 0, d, (1 + risk_alpha) * d)
            assert s.urisk == pytest.approx(w.mean(), rel=1e-12, abs=1e-15)
            assert s.trisk == pytest.approx(
                w.mean() / (w.std(ddof=1) / math.sqrt(len(w))), rel=1e-10
            )
            if risk_alpha == 0:  # TRisk is then the paired t statistic
                assert s.trisk == pytest.approx(
                    st.ttest_rel(x[:, cmp.runs.index(run)], x[:, base]).statistic
                )
    assert cmp.risk_alpha == risk_alpha and cmp.to_dict()["risk_alpha"] == risk_alpha


def reference_zrisk(x: np.ndarray, a: float) -> list[float]:
    """ZRisk written out from Dinçer, Macdonald and Ounis (2016), eq. 3-5, cell by cell."""
    n, r = x.shape
    total = x.sum()
    out = []
    for j in range(r):
        z_sum = 0.0
        for i in range(n):
            e = x[:, j].sum() * x[i].sum() / total
            if e == 0:
                continue
            z = (x[i, j] - e) / math.sqrt(e)
            z_sum += z if z >= 0 else (1 + a) * z
        out.append(z_sum)
    return out


@pytest.mark.parametrize("risk_alpha", [0.0, 2.0])
def test_zrisk_georisk_across_all_runs(risk_alpha: float) -> None:
    qrels, runs = collection()
    cmp = ranklens.compare(qrels, runs, MEASURES, risk_alpha=risk_alpha)
    for m in MEASURES:
        x = cmp.values(m)
        z = cmp.zrisk(m)
        assert list(z.values()) == pytest.approx(
            reference_zrisk(x, risk_alpha), rel=1e-10, abs=1e-12
        )
        g = cmp.georisk(m)
        n = x.shape[0]
        expected = [
            math.sqrt(x[:, j].mean() * st.norm.cdf(reference_zrisk(x, risk_alpha)[j] / n))
            for j in range(x.shape[1])
        ]
        assert list(g.values()) == pytest.approx(expected, rel=1e-10)
        # the z of ZRisk are the cells of Pearson's chi-square of the table (no empty query)
        kept = x[x.sum(axis=1) > 0]
        rows, cols = kept.sum(axis=1, keepdims=True), kept.sum(axis=0, keepdims=True)
        expected_cells = rows * cols / kept.sum()
        z2 = float((((kept - expected_cells) ** 2) / expected_cells).sum())
        chi2 = st.chi2_contingency(kept, correction=False).statistic
        assert z2 == pytest.approx(chi2, rel=1e-10)
    assert zrisk([[0.0, 0.0], [0.0, 0.0]], 1.0) == [0.0, 0.0]
    assert georisk([[0.5, 0.5], [0.2, 0.2]], 1.0)[0] == pytest.approx(math.sqrt(0.35 * 0.5))


def test_negative_risk_alpha_is_one_clear_error() -> None:
    qrels, runs = collection()
    with pytest.raises(OptionError, match="risk_alpha must be a finite number >= 0"):
        ranklens.compare(qrels, runs, MEASURES, risk_alpha=-1)
    with pytest.raises(OptionError, match="risk_alpha"):
        urisk_trisk([0.1, 0.2], -0.5)


@settings(max_examples=40, deadline=None)
@given(
    hst.lists(
        hst.floats(-1, 1, allow_nan=False).map(lambda v: round(v, 2)), min_size=2, max_size=25
    ),
    hst.floats(0, 4),
)
def test_risk_properties(diffs: list[float], a: float) -> None:
    d = np.array(diffs)
    u0, _ = urisk_trisk(d, 0.0)
    u, t = urisk_trisk(d, a)
    assert float(u0) == pytest.approx(d.mean(), abs=1e-12)
    assert float(u) <= float(u0) + 1e-12  # losses only weigh more
    assert float(u) == pytest.approx(np.where(d < 0, (1 + a) * d, d).mean(), abs=1e-12)
    assert math.isnan(float(t)) is False


# ------------------------------------------------------------------ the command line


def test_cli_groups_rope_risk_in_table_and_json(tmp_path, capsys) -> None:
    import json

    from ranklens.cli import main

    qrels, paths = example_paths()
    evaluated = ranklens.evaluate(qrels, paths, ["nDCG@10"])
    queries = list(evaluated[0].queries)
    groups = tmp_path / "groups.tsv"
    groups.write_text(
        "".join(f"{q}\t{'odd' if i % 2 else 'even'}\n" for i, q in enumerate(queries))
    )
    args = [str(qrels), *map(str, paths), "-m", "nDCG@10,AP", "--all-pairs"]
    code = main(
        [
            "compare",
            *args,
            "--groups",
            str(groups),
            "--rope",
            "0.01",
            "--risk-alpha",
            "2",
            "-f",
            "json",
        ]
    )
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    cmp = ranklens.compare(
        qrels, paths, ["nDCG@10", "AP"], all_pairs=True, groups=str(groups), rope=0.01, risk_alpha=2
    )
    first = cmp.runs[1]
    got = out["groups"]["odd"]["vs_baseline"][first]["AP"]
    assert got["p_value"] == cmp.groups["odd"].vs_baseline[first]["AP"].p_value
    assert out["ranks"]["AP"][cmp.runs[0]] == list(cmp.ranks["AP"][cmp.runs[0]])
    assert out["friedman"]["AP"]["statistic"] == pytest.approx(cmp.friedman("AP").statistic)
    assert out["runs"][1]["vs_baseline"]["AP"]["urisk"] == cmp.vs_baseline[first]["AP"].urisk
    assert out["risk_across_runs"]["AP"]["georisk"] == pytest.approx(cmp.georisk("AP"))
    assert out["risk_across_runs"]["nDCG@10"]["zrisk"] == pytest.approx(cmp.zrisk("nDCG@10"))
    assert (
        main(["compare", *args, "--groups", str(groups), "--rope", "0.01", "--risk-alpha", "2"])
        == 0
    )
    text = capsys.readouterr().out
    for title in ("rank intervals", "Friedman", "groups", "P(better)", "URisk", "GeoRisk"):
        assert title in text, title


def test_cli_bad_groups_and_risk_alpha_are_one_line(tmp_path, capsys) -> None:
    from ranklens.cli import main

    qrels, paths = example_paths()
    groups = tmp_path / "groups.tsv"
    groups.write_text("nope\tx\n")
    args = [str(qrels), *map(str, paths), "-m", "AP"]
    assert main(["compare", *args, "--groups", str(groups)]) != 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"{groups}:1" in err[0] and "'nope'" in err[0]
    assert main(["compare", *args, "--risk-alpha", "-1"]) != 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "risk" in err[0]


def test_group_reader_reads_file_objects() -> None:
    from ranklens.data.query_groups import read_query_groups

    groups, lines = read_query_groups(io.StringIO("q1,long question\nq2, short\n"))
    assert groups == {"q1": "long question", "q2": "short"} and lines == {"q1": 1, "q2": 2}


def test_friedman_of_plain_arrays_matches_scipy() -> None:
    rng = np.random.default_rng(0)
    x = np.round(rng.random((25, 6)), 1)  # many ties
    f = friedman_test(x, list("abcdef"))
    ref = st.friedmanchisquare(*x.T)
    assert f.statistic == pytest.approx(ref.statistic) and f.p_value == pytest.approx(ref.pvalue)
    with pytest.raises(InputError):
        friedman_test(x[:, :1])


# ------------------------------------------------------------- plots and the report


def test_cd_cliques_join_runs_within_the_critical_difference() -> None:
    from ranklens.presentation.plots.comparison_plots import cd_cliques

    ranks = {"a": 1.0, "b": 1.5, "c": 2.2, "d": 3.9}
    assert cd_cliques(ranks, 1.3) == [("a", "b", "c")]
    assert cd_cliques(ranks, 0.8) == [("a", "b"), ("b", "c")]
    assert cd_cliques(ranks, 0.1) == []
    # every pair inside a clique is within CD, and no clique is inside another
    for cd in (0.3, 0.75, 1.8, 5.0):
        cliques = cd_cliques(ranks, cd)
        for clique in cliques:
            values = [ranks[r] for r in clique]
            assert max(values) - min(values) < cd
        for x in cliques:
            assert not any(set(x) < set(y) for y in cliques)


def test_plots_of_a_comparison_draw_what_it_holds(tmp_path) -> None:
    pytest.importorskip("matplotlib")
    from ranklens.presentation.plots.comparison_plots import (
        group_delta_data,
        plot_cd,
        plot_group_deltas,
        plot_rank_intervals,
    )

    qrels, runs = collection()
    cmp = ranklens.compare(qrels, runs, MEASURES, all_pairs=True, groups=groups_of(qrels))
    fig = plot_cd(cmp.friedman("AP"), measure="AP")
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert any(t.startswith("CD = ") for t in texts)
    assert all(any(run in t for t in texts) for run in cmp.runs)
    fig = plot_rank_intervals(cmp, "AP")
    assert [t.get_text() for t in fig.axes[0].get_yticklabels()] != []
    data = group_delta_data(cmp, "AP")
    assert data["sizes"] == [len(cmp.groups[g].queries) for g in data["groups"]]
    j = data["runs"].index("r3")
    assert (
        data["delta"][data["groups"].index("rest"), j]
        == cmp.groups["rest"].vs_baseline["r3"]["AP"].delta
    )
    assert math.isnan(data["ci_low"][data["groups"].index("single"), j])
    fig = plot_group_deltas(cmp, "AP")
    fig.savefig(tmp_path / "groups.svg")
    with pytest.raises(OptionError, match="groups"):
        group_delta_data(ranklens.compare(qrels, runs, MEASURES), "AP")


def test_plot_command_draws_cd_ranks_and_groups(tmp_path) -> None:
    pytest.importorskip("matplotlib")
    from ranklens.cli import main

    qrels, _ = example_paths()
    paths = [str(p) for p in example_run_paths().values()]
    groups = tmp_path / "groups.tsv"
    queries = ranklens.evaluate(qrels, paths[0], ["AP"]).queries
    groups.write_text("".join(f"{q} {'a' if i % 3 else 'b'}\n" for i, q in enumerate(queries)))
    for kind, extra in (
        ("cd", []),
        ("ranks", ["--alpha", "0.1"]),
        ("groups", ["--groups", str(groups)]),
    ):
        out = tmp_path / f"{kind}.svg"
        assert main(["plot", kind, str(qrels), *paths, "-m", "AP", "-o", str(out), *extra]) == 0
        assert out.read_text().startswith("<?xml")
    assert (
        main(["plot", "groups", str(qrels), *paths, "-m", "AP", "-o", str(tmp_path / "x.svg")]) == 2
    )


def test_report_shows_ranks_friedman_risk_and_groups(tmp_path) -> None:
    pytest.importorskip("matplotlib")
    from ranklens.presentation.reporting import build_report

    qrels, _ = example_paths()
    runs = example_run_paths()
    queries = ranklens.evaluate(qrels, runs["bm25"], ["AP"]).queries
    groups = {q: "odd" if i % 2 else "even" for i, q in enumerate(queries)}
    html = build_report(
        qrels, runs, ["AP"], all_pairs=True, groups=groups, rope=0.02, risk_alpha=2, explain_limit=0
    )
    for heading in (
        "Probability of being better, risk",
        "Rank intervals",
        "Friedman",
        "Query groups",
        "Risk against all runs",
    ):
        assert heading in html, heading
    assert "critical difference" in html and "differences per query group" in html
    cmp = ranklens.compare(qrels, runs, ["AP"], all_pairs=True, rope=0.02, risk_alpha=2)
    assert "Tied with #1: AP: " + ", ".join(cmp.tied_with_first("AP")) in html
    assert f"{cmp.friedman('AP').critical_difference:.4f}" in html


def test_scores_report_shows_them_too(tmp_path) -> None:
    from ranklens.presentation.reporting import build_scores_report

    qrels, runs = collection()
    evaluated = ranklens.evaluate(qrels, runs, ["AP"])
    cmp = ranklens.compare(None, list(evaluated), ["AP"], all_pairs=True, groups=groups_of(qrels))
    html = build_scores_report(list(cmp.results), cmp, plots=False)
    assert "Rank intervals" in html and "Query groups" in html and "too few" in html


def test_compare_scores_command_with_groups_rope_and_risk(tmp_path, capsys) -> None:
    import json

    from ranklens.cli import main

    qrels, runs = collection()
    paths = [str(p) for _, p in score_files(ranklens.evaluate(qrels, runs, MEASURES), tmp_path)]
    groups = tmp_path / "groups.tsv"
    groups.write_text("".join(f"{q}\t{g}\n" for q, g in groups_of(qrels).items()))
    args = ["--scores", *paths, "-m", "AP", "--groups", str(groups), "--rope", "0.02"]
    assert main(["compare", *args, "--risk-alpha", "3", "--all-pairs", "-f", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    cmp = ranklens.compare(
        qrels, runs, ["AP"], groups=groups_of(qrels), rope=0.02, risk_alpha=3, all_pairs=True
    )
    for g, part in cmp.groups.items():
        for run, per in part.vs_baseline.items():
            got = out["groups"][g]["vs_baseline"][run]["AP"]
            want = per["AP"].to_dict()
            assert got.keys() == want.keys()
            for key, value in want.items():
                if isinstance(value, float):
                    assert got[key] == pytest.approx(value, rel=1e-9, abs=1e-12), key
                else:
                    assert got[key] == value, key
    assert out["groups"]["single"]["notes"]
    assert out["ranks"]["AP"] == {r: list(v) for r, v in cmp.ranks["AP"].items()}


@settings(max_examples=25, deadline=None)
@given(
    hst.integers(2, 6),
    hst.integers(3, 25),
    hst.integers(0, 2**32 - 1),
    hst.sampled_from(["holm", "bh", "none"]),
)
def test_rank_interval_invariants(k: int, n: int, seed: int, correction: str) -> None:
    """best <= worst within 1..k; some run is tied with #1; a run with a significant win
    over another is ranked apart from it; intervals follow the significant decisions."""
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(seed)
    values = np.round(rng.random((n, k)) + np.linspace(0, 0.6, k), 1)  # ties
    frame = pd.DataFrame(
        [(f"s{j}", f"q{i}", values[i, j]) for i in range(n) for j in range(k)],
        columns=["run", "query", "gain"],
    )
    cmp = compare_results(list(read_scores(frame)), all_pairs=True, correction=correction)
    ranks = cmp.ranks["gain"]
    assert any(best == 1 for best, _ in ranks.values())
    for run, (best, worst) in ranks.items():
        assert 1 <= best <= worst <= k
        assert worst == k - len(cmp.beats(run, "gain"))
    for a in cmp.runs:
        for b in cmp.beats(a, "gain"):
            assert ranks[a][0] < ranks[b][0] or ranks[a][1] < ranks[b][1]
    f = cmp.friedman("gain")
    assert sum(f.mean_ranks.values()) == pytest.approx(k * (k + 1) / 2)


def test_groups_refuse_run_level_measures() -> None:
    qrels, runs = collection()
    with pytest.raises(OptionError, match="Coverage@10: computed over the whole run"):
        ranklens.compare(qrels, runs, ["Coverage@10", "AP"], groups=groups_of(qrels), num_items=500)
    cmp = ranklens.compare(qrels, runs, ["Coverage@10", "AP"], num_items=500, risk_alpha=1)
    st_ = cmp.vs_baseline["r1"]["Coverage@10"]  # a bootstrap over users: no per-query values
    assert math.isnan(st_.prob_better) and math.isnan(st_.urisk) and st_.verdict is None
    assert "Coverage@10" not in cmp.to_dict()["risk_across_runs"]
