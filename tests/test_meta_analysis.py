"""ranklens.meta_analysis: each run's paired effect against the baseline, pooled across
collections by DerSimonian and Laird's random-effects model.

Every number is checked against an independent computation: the per-collection effects
and variances from ``ranklens.evaluate``'s per-query values with numpy (and equal to
``compare``'s delta), the pooled summaries against
``statsmodels.stats.meta_analysis.combine_effects(..., method_re="dl")``. statsmodels
leaves DerSimonian and Laird's tau^2 negative when Q < df (the published estimator and R's
metafor truncate it at 0); there the summaries are checked against statsmodels' own
fixed-effect numbers and its Paule-Mandel fit, which truncates.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from statsmodels.stats.meta_analysis import combine_effects

import ranklens
from ranklens.analysis.meta_analysis import example_collections
from ranklens.analysis.stats.random_effects import paired_effect, random_effects
from ranklens.base.errors import InputError, OptionError
from workflow_support import run_cli

MEASURES = ("AP", "nDCG@10", "P@5", "RR")


def _combine(effects: list[float], variances: list[float], method: str, alpha: float = 0.05) -> Any:
    """statsmodels' combine_effects (its negative DerSimonian-Laird tau^2, when Q < df, takes
    square roots of negative numbers: numpy's warning is silenced, the nan kept)."""
    with np.errstate(all="ignore"):
        return combine_effects(
            np.array(effects), np.array(variances), method_re=method, alpha=alpha
        )


# ----------------------------------------------------------------------------- generated data


def _collection(
    rng: np.random.Generator, n_queries: int, runs: list[str], prefix: str, missing: str | None
) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, dict[str, float]]]]:
    """Graded qrels with negative labels and queries without relevant documents; runs whose
    scores tie (one decimal), with unjudged documents, and ``missing`` without a third of
    the queries."""
    qrels: dict[str, dict[str, int]] = {}
    for i in range(n_queries):
        q = f"{prefix}{i}"
        labels = rng.integers(-1, 4, size=8)
        if i % 5 == 0:
            labels = np.minimum(labels, 0)  # no relevant document
        qrels[q] = {f"d{j}": int(g) for j, g in enumerate(labels)}
    out: dict[str, dict[str, dict[str, float]]] = {}
    for k, name in enumerate(runs):
        run: dict[str, dict[str, float]] = {}
        for i, q in enumerate(qrels):
            if name == missing and i % 3 == 0:
                continue
            docs = rng.choice(14, size=10, replace=False)  # d8..d13 are unjudged
            scores = np.round(rng.random(10) + 0.15 * k * (docs < 8), 1)
            run[q] = {f"d{d}": float(s) for d, s in zip(docs, scores, strict=True)}
        out[name] = run
    return qrels, out


def _generated(seed: int) -> dict[str, Any]:
    """Four collections of very different sizes, five runs (one missing queries in one
    collection, one absent from a collection)."""
    rng = np.random.default_rng(seed)
    sizes = {"small": 4, "mid": 11, "large": 40, "huge": 90}
    collections = {}
    for c, (name, size) in enumerate(sizes.items()):
        runs = ["base", "a", "b", "c", "d"]
        if name == "mid":
            runs.remove("d")
        qrels, made = _collection(rng, size, runs, f"{name}-q", "c" if c == 2 else None)
        collections[name] = (qrels, made)
    return collections


def _expected_rows(
    collections: dict[str, Any], measure: str, effect: str = "difference", **options: Any
) -> dict[str, list[tuple[str, float, float, int]]]:
    """``{run: [(collection, effect, variance, n)]}`` from ranklens.evaluate's per-query
    values, paired on the queries every run of the collection has, computed with numpy."""
    out: dict[str, list[tuple[str, float, float, int]]] = {}
    for name, (qrels, runs) in collections.items():
        per_query = {
            r: ranklens.evaluate(qrels, run, [measure], **options).query_values(measure)
            for r, run in runs.items()
        }
        common = sorted(set.intersection(*(set(v) for v in per_query.values())))
        base = np.array([per_query["base"][q] for q in common])
        for r in runs:
            if r == "base":
                continue
            d = np.array([per_query[r][q] for q in common]) - base
            n = len(d)
            mean, sd = float(np.mean(d)), float(np.std(d, ddof=1))
            if effect == "difference":
                value, variance = mean, sd**2 / n
            else:
                dz = mean / sd
                variance = 1 / n + dz**2 / (2 * n)
                j = 1 - 3 / (4 * (n - 1) - 1) if effect == "g_z" else 1.0
                value, variance = j * dz, j * j * variance
            out.setdefault(r, []).append((name, value, variance, n))
    return out


@np.errstate(all="ignore")  # statsmodels' square roots of its negative tau^2
def _check_against_statsmodels(summary: Any, effects: list[float], variances: list[float]) -> None:
    reference = _combine(effects, variances, "dl")
    fe_low, fe_high = reference.conf_int()[0]
    assert summary.fixed.effect == pytest.approx(reference.mean_effect_fe, rel=1e-12, abs=1e-15)
    assert summary.fixed.se == pytest.approx(reference.sd_eff_w_fe, rel=1e-12)
    assert (summary.fixed.ci_low, summary.fixed.ci_high) == pytest.approx((fe_low, fe_high))
    assert summary.q == pytest.approx(reference.q, rel=1e-10, abs=1e-12)
    assert summary.df == reference.df_resid
    # chi2's tail from ranklens' Q (summed exactly: statsmodels' one-pass Q of equal effects
    # is 1e-17, not 0, which moves the tail of 1 degree of freedom by 1e-8)
    assert summary.q_p_value == pytest.approx(stats.chi2.sf(summary.q, summary.df), rel=1e-12)
    if reference.tau2 >= 0:  # statsmodels' DerSimonian-Laird, as published
        low, high = reference.conf_int()[1]
        assert summary.tau2 == pytest.approx(reference.tau2, rel=1e-9, abs=1e-15)
        assert summary.effect == pytest.approx(reference.mean_effect_re, rel=1e-12, abs=1e-15)
        assert summary.se == pytest.approx(reference.sd_eff_w_re, rel=1e-12)
        assert (summary.ci_low, summary.ci_high) == pytest.approx((low, high), rel=1e-12)
        assert summary.i2 == pytest.approx(max(0.0, reference.i2), abs=1e-12)
        z = reference.mean_effect_re / reference.sd_eff_w_re
    else:  # Q < df: truncated at 0, as DerSimonian and Laird (and Paule-Mandel) have it
        paule_mandel = _combine(effects, variances, "pm")
        assert paule_mandel.tau2 == 0
        assert summary.tau2 == 0.0 and summary.i2 == 0.0
        assert summary.effect == pytest.approx(paule_mandel.mean_effect_re, rel=1e-12, abs=1e-15)
        assert summary.se == pytest.approx(reference.sd_eff_w_fe, rel=1e-12)
        assert (summary.ci_low, summary.ci_high) == pytest.approx((fe_low, fe_high), rel=1e-12)
        z = reference.mean_effect_fe / reference.sd_eff_w_fe
    assert summary.z == pytest.approx(z, rel=1e-9)
    assert summary.p_value == pytest.approx(2 * stats.norm.sf(abs(z)), rel=1e-9, abs=1e-300)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("measure", MEASURES)
def test_generated_collections_match_numpy_and_statsmodels(seed: int, measure: str) -> None:
    collections = _generated(seed)
    meta = ranklens.meta_analysis(collections, measure, baseline="base")
    expected = _expected_rows(collections, measure)
    for run, rows in expected.items():
        mine = meta.rows_of(run)
        assert [r.collection for r in mine] == [c for c, *_ in rows]
        assert [r.n for r in mine] == [n for *_, n in rows]
        assert [r.effect for r in mine] == pytest.approx([e for _, e, _, _ in rows], abs=1e-14)
        assert [r.variance for r in mine] == pytest.approx([v for _, _, v, _ in rows], abs=1e-15)
        pooled = [r for r in mine if r.variance > 0]  # a run tying the baseline everywhere
        left_out = [r.collection for r in mine if r.variance == 0]  # in a collection: no weight
        for collection in left_out:
            assert any(n.startswith(f"{run}: left out in") and collection in n for n in meta.notes)
        summary = meta.summary[run]
        assert summary.collections == tuple(r.collection for r in pooled)
        assert sum(r.weight_random for r in pooled) == pytest.approx(1.0)
        _check_against_statsmodels(
            summary, [r.effect for r in pooled], [r.variance for r in pooled]
        )
    # "d" is not in "mid": pooled over the others, and said so
    assert "mid" not in meta.summary["d"].collections
    assert any(note.startswith("d: pooled over the") for note in meta.notes)


@pytest.mark.parametrize("seed", range(3))
def test_the_effect_is_compares_delta_bit_for_bit(seed: int) -> None:
    collections = _generated(seed)
    meta = ranklens.meta_analysis(collections, "P@5", baseline="base", queries="both")
    for row in meta.rows:
        qrels, runs = collections[row.collection]
        cmp = ranklens.compare(qrels, runs, ["P@5"], baseline="base", queries="both")
        assert row.effect == cmp.vs_baseline[row.run]["P@5"].delta
        assert row.n == len(cmp.queries)
    # under queries="both" the run missing queries shrinks its collection's pairs
    large = {r.run: r.n for r in meta.rows if r.collection == "large"}
    assert set(large.values()) == {40 - 14}


@pytest.mark.parametrize("effect", ["d_z", "g_z"])
def test_standardised_mean_differences(effect: str) -> None:
    collections = _generated(11)
    meta = ranklens.meta_analysis(collections, "nDCG@10", baseline="base", effect=effect)
    expected = _expected_rows(collections, "nDCG@10", effect)
    for run, rows in expected.items():
        mine = meta.rows_of(run)
        assert [r.effect for r in mine] == pytest.approx([e for _, e, _, _ in rows], rel=1e-9)
        assert [r.variance for r in mine] == pytest.approx([v for _, _, v, _ in rows], rel=1e-9)
        _check_against_statsmodels(
            meta.summary[run], [r.effect for r in mine], [r.variance for r in mine]
        )
    assert meta.effect == effect and meta.to_dict()["effect"] == effect


def test_paired_effect_by_hand() -> None:
    d = [0.1, 0.4, -0.2, 0.3, 0.0]
    mean, sd, n = 0.12, float(np.std(d, ddof=1)), 5
    assert paired_effect(d, "difference") == pytest.approx((mean, sd**2 / n))
    dz = mean / sd
    assert paired_effect(d, "d_z") == pytest.approx((dz, 1 / n + dz**2 / (2 * n)))
    j = 1 - 3 / (4 * 4 - 1)
    assert paired_effect(d, "g_z") == pytest.approx((j * dz, j * j * (1 / n + dz**2 / (2 * n))))
    with pytest.raises(InputError, match="needs at least 3"):
        paired_effect([0.1, 0.2], "g_z")
    with pytest.raises(InputError, match="variance is 0"):
        paired_effect([0.1, 0.1, 0.1], "difference")
    with pytest.raises(OptionError, match="effect must be one of"):
        paired_effect(d, "cohen")


def test_statsmodels_negative_tau2_is_truncated() -> None:
    """Effects closer than their variances allow (Q < df): statsmodels' dl gives a negative
    'variance' and nonsense weights; DerSimonian and Laird's estimator is 0."""
    effects, variances = [0.20, 0.21, 0.19, 0.20], [0.01, 0.02, 0.015, 0.03]
    with np.errstate(all="ignore"):
        reference = _combine(effects, variances, "dl")
        assert np.isnan(reference.conf_int()[1]).all()  # negative total weight: no interval
    assert reference.tau2 < 0 and reference.i2 < 0
    pooled = random_effects(effects, variances)
    assert pooled.tau2 == 0.0 and pooled.i2 == 0.0
    assert pooled.effect == pytest.approx(reference.mean_effect_fe, rel=1e-12)
    assert pooled.weights_random == pytest.approx(pooled.weights_fixed)


# ---------------------------------------------------------------------- hypothesis properties

_studies = st.integers(2, 8).flatmap(
    lambda k: st.tuples(
        st.lists(
            st.floats(-1, 1, allow_nan=False).map(lambda x: round(x, 2)), min_size=k, max_size=k
        ),
        st.lists(st.floats(1e-4, 0.5, allow_nan=False), min_size=k, max_size=k),
    )
)


@settings(max_examples=150, deadline=None)
@given(_studies, st.sampled_from([0.9, 0.95, 0.99]))
def test_pooling_equals_statsmodels_and_keeps_its_invariants(
    studies: tuple[list[float], list[float]], confidence: float
) -> None:
    effects, variances = studies
    pooled = random_effects(effects, variances, confidence)
    _check_against_statsmodels_pooled(pooled, effects, variances, confidence)
    assert pooled.tau2 >= 0 and 0 <= pooled.i2 < 1
    for summary in (pooled, pooled.fixed):  # a weighted mean, positive weights
        assert min(effects) - 1e-12 <= summary.effect <= max(effects) + 1e-12
        assert summary.ci_low <= summary.effect <= summary.ci_high
    assert sum(pooled.weights_random) == pytest.approx(1.0)
    assert pooled.se >= pooled.fixed.se - 1e-15  # tau2 >= 0 only widens
    if pooled.tau2 == 0:
        assert pooled.effect == pytest.approx(pooled.fixed.effect, abs=1e-12)
    # the studies' order does not matter; shifting every effect shifts the summaries only
    flipped = random_effects(effects[::-1], variances[::-1], confidence)
    assert flipped.effect == pytest.approx(pooled.effect, abs=1e-12)
    shifted = random_effects([e + 0.5 for e in effects], variances, confidence)
    assert shifted.effect == pytest.approx(pooled.effect + 0.5, abs=1e-9)
    assert shifted.tau2 == pytest.approx(pooled.tau2, abs=1e-9)


@np.errstate(all="ignore")
def _check_against_statsmodels_pooled(
    pooled: Any, effects: list[float], variances: list[float], confidence: float
) -> None:
    alpha = 1 - confidence
    reference = _combine(effects, variances, "dl", alpha)
    fixed = reference.conf_int(alpha=alpha)[0]
    assert (pooled.fixed.ci_low, pooled.fixed.ci_high) == pytest.approx(tuple(fixed), abs=1e-12)
    assert pooled.q == pytest.approx(reference.q, rel=1e-9, abs=1e-9)
    if reference.tau2 >= 0:
        low, high = reference.conf_int(alpha=alpha)[1]
        assert pooled.tau2 == pytest.approx(reference.tau2, rel=1e-9, abs=1e-12)
        # a tau² equal to rel 1e-9 (another order of the sums) moves the interval as much
        assert (pooled.ci_low, pooled.ci_high) == pytest.approx((low, high), rel=1e-9, abs=1e-12)
        assert pooled.i2 == pytest.approx(reference.i2, abs=1e-9)
    else:
        assert (pooled.ci_low, pooled.ci_high) == pytest.approx(tuple(fixed), abs=1e-12)


_per_query = st.lists(  # per collection: queries x (baseline, run), values on a grid (ties)
    st.integers(2, 12).flatmap(
        lambda n: st.lists(
            st.tuples(st.integers(0, 10), st.integers(0, 10)), min_size=n, max_size=n
        )
    ),
    min_size=2,
    max_size=5,
)


@settings(max_examples=60, deadline=None)
@given(_per_query, st.sampled_from(["difference", "d_z"]))
def test_scores_given_as_results_pool_as_numpy_and_statsmodels_do(
    per_collection: list[list[tuple[int, int]]], effect: str
) -> None:
    from ranklens.evaluation.results import Results
    from ranklens.measures import parse_measure

    ap = parse_measure("AP")
    collections = {}
    for c, pairs in enumerate(per_collection):
        queries = tuple(f"q{i:02d}" for i in range(len(pairs)))
        values = np.array(pairs, dtype=np.float64) / 10
        collections[f"c{c}"] = (
            None,
            [Results(name, (ap,), queries, values[:, [j]]) for j, name in enumerate(("b", "r"))],
        )
    usable = []
    for pairs in per_collection:
        d = np.array([r / 10 - b / 10 for b, r in pairs])  # as the values are stored
        if np.ptp(d) <= 1e-12 * max(1.0, np.max(np.abs(d))):
            continue  # equal up to rounding (0.4 - 0.3 and 0.3 - 0.2): left out, with a note
        mean, sd, n = float(np.mean(d)), float(np.std(d, ddof=1)), len(d)
        if effect == "difference":
            usable.append((mean, sd**2 / n))
        else:
            usable.append((mean / sd, 1 / n + (mean / sd) ** 2 / (2 * n)))
    if len(usable) < 2:
        with pytest.raises(InputError, match="nothing to pool"):
            ranklens.meta_analysis(collections, "AP", effect=effect)
        return
    meta = ranklens.meta_analysis(collections, "AP", effect=effect)
    summary = meta.summary["r"]
    assert len(summary.collections) == len(usable)
    mine = [r for r in meta.rows if r.variance > 0]
    assert [r.effect for r in mine] == pytest.approx([e for e, _ in usable], abs=1e-12)
    assert [r.variance for r in mine] == pytest.approx([v for _, v in usable], rel=1e-9)
    _check_against_statsmodels(summary, [e for e, _ in usable], [v for _, v in usable])


# ----------------------------------------------------------------------------- real data


def test_real_data_three_collections_of_dl19() -> None:
    collections = example_collections()
    meta = ranklens.meta_analysis(collections, "AP")
    assert meta.baseline == "bm25" and meta.runs == ("dense", "rerank", "rerank-repro")
    assert meta.collections == ("dl19-a", "dl19-b", "dl19-c")
    for run in meta.runs:
        rows = meta.rows_of(run)
        for row in rows:
            qrels, runs = collections[row.collection]
            values = {
                name: ranklens.evaluate(qrels, path, ["AP"]).query_values("AP")
                for name, path in runs.items()
            }
            d = np.array([values[run][q] - values["bm25"][q] for q in sorted(qrels)])
            assert row.effect == pytest.approx(float(np.mean(d)), abs=1e-15)
            assert row.variance == pytest.approx(float(np.var(d, ddof=1)) / len(d), rel=1e-12)
        _check_against_statsmodels(
            meta.summary[run], [r.effect for r in rows], [r.variance for r in rows]
        )
    # rerank's AP gain varies across the three collections more than chance (tau2 > 0)
    assert meta.summary["rerank"].tau2 > 0
    from statsmodels.stats.multitest import multipletests

    p = [meta.summary[r].p_value for r in meta.runs]
    holm = multipletests(p, method="holm")[1]
    assert [meta.summary[r].p_value_corrected for r in meta.runs] == pytest.approx(holm)


# ------------------------------------------------------------------------------ the inputs


def _reference(collections: dict[str, Any], **options: Any) -> Any:
    return ranklens.meta_analysis(collections, "nDCG@10", baseline="base", **options)


def _same(a: Any, b: Any) -> None:
    assert [(r.collection, r.run, r.n) for r in a.rows] == [
        (r.collection, r.run, r.n) for r in b.rows
    ]
    assert [r.effect for r in a.rows] == pytest.approx([r.effect for r in b.rows], abs=1e-12)
    for run, s in a.summary.items():
        assert s.effect == pytest.approx(b.summary[run].effect, abs=1e-12)
        assert s.tau2 == pytest.approx(b.summary[run].tau2, abs=1e-12)


def _write_trec(collections: dict[str, Any], root: Path) -> dict[str, Any]:
    out = {}
    for name, (qrels, runs) in collections.items():
        folder = root / name
        folder.mkdir()
        (folder / "qrels.txt").write_text(
            "".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items())
        )
        paths = []
        for run_name, run in runs.items():
            lines = [
                f"{q} Q0 {d} {i + 1} {s} {run_name}\n"
                for q, docs in run.items()
                for i, (d, s) in enumerate(docs.items())
            ]
            path = folder / f"{run_name}.run"
            path.write_text("".join(lines))
            paths.append(str(path))
        out[name] = (str(folder / "qrels.txt"), paths)
    return out


def test_files_dataframes_results_scores_and_comparisons_give_the_same_numbers(
    tmp_path: Path,
) -> None:
    import pandas as pd

    collections = _generated(3)
    reference = _reference(collections)
    # TREC files
    _same(_reference(_write_trec(collections, tmp_path)), reference)
    # DataFrames (qrels and runs)
    frames = {
        name: (
            pd.DataFrame(
                [(q, d, g) for q, docs in qrels.items() for d, g in docs.items()],
                columns=["query_id", "doc_id", "relevance"],
            ),
            {
                r: pd.DataFrame(
                    [(q, d, s) for q, docs in run.items() for d, s in docs.items()],
                    columns=["query_id", "doc_id", "score"],
                )
                for r, run in runs.items()
            },
        )
        for name, (qrels, runs) in collections.items()
    }
    _same(_reference(frames), reference)
    # Results and ResultSets (per-topic scores computed earlier), with and without qrels
    evaluated = {
        name: {r: ranklens.evaluate(qrels, run, ["nDCG@10"], name=r) for r, run in runs.items()}
        for name, (qrels, runs) in collections.items()
    }
    results = {name: (None, res) for name, res in evaluated.items()}
    _same(_reference(results), reference)
    with_qrels = {name: (collections[name][0], res) for name, res in evaluated.items()}
    _same(_reference(with_qrels), reference)
    sets = {
        name: (None, ranklens.ResultSet(tuple(res[r] for r in res)))
        for name, res in evaluated.items()
    }
    for name, (_, result_set) in sets.items():
        assert [r.run for r in result_set] == list(evaluated[name])
    _same(_reference(sets), reference)
    # score files (full precision) and a DataFrame of scores, without qrels
    files = {}
    for name, res in evaluated.items():
        path = tmp_path / f"{name}.tsv"
        ranklens.write_scores(list(res.values()), path)
        files[name] = (None, str(path))
    _same(_reference(files), reference)
    scores_frames = {
        name: (None, ranklens.ResultSet(tuple(res.values())).to_pandas())
        for name, res in evaluated.items()
    }
    _same(_reference(scores_frames), reference)
    # Comparisons already made (on several measures)
    comparisons = {
        name: ranklens.compare(qrels, runs, ["AP", "nDCG@10"], baseline="base")
        for name, (qrels, runs) in collections.items()
    }
    _same(_reference(comparisons), reference)


# ---------------------------------------------------------------------------- bad input


def _two(runs_a: dict[str, Any], runs_b: dict[str, Any], qrels: Any = None) -> dict[str, Any]:
    q = qrels or {"q1": {"a": 1}, "q2": {"b": 1}, "q3": {"c": 1}, "q4": {"a": 1, "b": 1}}
    return {"one": (q, runs_a), "two": (q, runs_b)}


def _run(first: str, queries: tuple[str, ...] = ("q1", "q2", "q3", "q4")) -> dict[str, Any]:
    return {q: {first: 2.0, "a": 1.0, "b": 0.5, "c": 0.2} for q in queries}


def test_fewer_than_two_collections() -> None:
    collections = _two({"base": _run("x"), "new": _run("a")}, {})
    del collections["two"]
    with pytest.raises(OptionError, match="at least 2 collections, not 1"):
        ranklens.meta_analysis(collections, "RR")


def test_a_collection_whose_runs_share_no_query() -> None:
    collections = _two(
        {"base": _run("x"), "new": _run("a")},
        {"base": _run("x", ("q1", "q2")), "new": _run("a", ("q3", "q4"))},
    )
    with pytest.raises(InputError, match=r"^collection 'two': the runs have 0 queries in common"):
        ranklens.meta_analysis(collections, "RR", queries="both")


def test_the_baseline_missing_from_a_collection() -> None:
    collections = _two(
        {"base": _run("x"), "new": _run("a")}, {"other": _run("x"), "new": _run("a")}
    )
    for baseline in ("base", None):  # None: the first collection's first run
        with pytest.raises(OptionError, match=r"^collection 'two': no run named 'base'"):
            ranklens.meta_analysis(collections, "RR", baseline=baseline)
    made = {n: ranklens.compare(q, r, ["RR"]) for n, (q, r) in collections.items()}
    with pytest.raises(InputError, match=r"^collection 'two' has no run named 'base'"):
        ranklens.meta_analysis(made, "RR")


def test_a_run_in_one_collection_only_has_no_summary_and_says_why() -> None:
    runs = {"base": _run("x"), "new": _run("a"), "extra": _run("b")}
    collections = _two(runs, {"base": _run("x"), "new": _run("c")})
    meta = ranklens.meta_analysis(collections, "RR")
    assert list(meta.summary) == ["new"]
    assert meta.notes == ("extra: a usable effect in 1 collection (only one), not pooled",)
    with pytest.raises(KeyError, match=r"a usable effect in 1 collection \(only one\)"):
        meta.summary["extra"]
    assert [r.run for r in meta.rows] == ["new", "extra", "new"]
    assert math.isnan(meta.rows_of("extra")[0].weight_random)


def test_nothing_to_pool() -> None:
    collections = _two({"base": _run("x"), "a": _run("a")}, {"base": _run("x"), "b": _run("b")})
    with pytest.raises(InputError, match="no run beside the baseline 'base' has a usable effect"):
        ranklens.meta_analysis(collections, "RR")


def test_one_query_and_zero_variance() -> None:
    qrels = {"q1": {"a": 1}}
    collections = _two({"base": _run("x", ("q1",)), "new": _run("a", ("q1",))}, {}, qrels)
    collections["two"] = collections["one"]
    with pytest.raises(InputError, match=r"collection 'one': .*at least 2"):
        ranklens.meta_analysis(collections, "RR")
    # "new" ties the baseline on every query of "one": left out there, nothing left to pool
    same = _two({"base": _run("x"), "new": _run("x")}, {"base": _run("x"), "new": _run("a")})
    with pytest.raises(InputError, match="no run beside the baseline 'base' has a usable effect"):
        ranklens.meta_analysis(same, "RR")
    three = {**same, "three": same["two"]}
    meta = ranklens.meta_analysis(three, "RR")
    assert meta.summary["new"].collections == ("two", "three")
    assert meta.rows_of("new")[0].variance == 0 and meta.rows_of("new")[0].effect == 0
    assert meta.notes[0].startswith("new: left out in one, where every per-query difference")


def test_forest_plot_draws_every_collection_when_the_first_is_left_out() -> None:
    pytest.importorskip("matplotlib")
    same = _two({"base": _run("x"), "new": _run("x")}, {"base": _run("x"), "new": _run("a")})
    meta = ranklens.meta_analysis({**same, "three": same["two"]}, "RR")
    assert math.isnan(meta.rows_of("new")[0].weight_random)  # "one" is left out, and first
    fig = meta.plot("new")
    sizes = {
        artist.get_gid(): artist.get_sizes()
        for ax in fig.axes
        for artist in ax.get_children()
        if str(artist.get_gid()).startswith("collection ")
    }
    assert set(sizes) == {"collection one", "collection two", "collection three"}
    assert all(len(s) == 1 and np.isfinite(s).all() and s[0] > 0 for s in sizes.values())


def test_options_are_checked() -> None:
    collections = _two({"base": _run("x"), "new": _run("a")}, {"base": _run("b"), "new": _run("a")})
    with pytest.raises(OptionError, match="effect must be one of"):
        ranklens.meta_analysis(collections, "RR", effect="cohen")
    with pytest.raises(OptionError, match="confidence must be"):
        ranklens.meta_analysis(collections, "RR", confidence=95)
    with pytest.raises(OptionError, match="correction must be one of"):
        ranklens.meta_analysis(collections, "RR", correction="sidak")
    with pytest.raises(OptionError, match=r"collection 'one': give \(qrels, runs\)"):
        ranklens.meta_analysis({"one": 1, "two": 2}, "RR")


# ------------------------------------------------------------------------- output and plots


def test_dict_records_and_plot() -> None:
    meta = ranklens.meta_analysis(example_collections(), "nDCG@10")
    payload = json.loads(meta.to_json())
    assert [s["run"] for s in payload["summary"]] == list(meta.runs)
    assert payload["summary"][0]["tau2"] == meta.summary["dense"].tau2
    assert len(payload["rows"]) == 9
    records = meta.to_records()
    assert {r["collection"] for r in records} >= {"random effects", "fixed effect", "dl19-b"}
    fig = meta.plot("rerank")
    gids = {artist.get_gid() for ax in fig.axes for artist in ax.get_children()}
    assert {"collection dl19-a", "fixed effect", "random effects"} <= gids
    with pytest.raises(OptionError, match="no summary of a run named 'bm25'"):
        meta.plot("bm25")


# ------------------------------------------------------------------------- command line


def test_cli_example_json_equals_the_python_api() -> None:
    code, out, err = run_cli(["meta-analysis", "--example", "-m", "AP,nDCG@10", "-f", "json"])
    assert code == 0, err
    payload = json.loads(out)["meta_analyses"]
    for entry, measure in zip(payload, ["AP", "nDCG@10"], strict=True):
        meta = ranklens.meta_analysis(example_collections(), measure)
        assert entry == json.loads(meta.to_json())


def test_cli_table_csv_html_and_plot(tmp_path: Path) -> None:
    code, out, _ = run_cli(["meta-analysis", "--example", "-m", "RR"])
    assert code == 0 and "random-effects summaries" in out and "dl19-c" in out
    code, out, _ = run_cli(["meta-analysis", "--example", "-m", "RR", "-f", "csv"])
    assert code == 0 and out.splitlines()[0].startswith("measure,run,collection,effect")
    assert len(out.splitlines()) == 1 + 9 + 6
    html = tmp_path / "meta.html"
    plot = tmp_path / "forest.png"
    code, _, err = run_cli(
        [
            "meta-analysis",
            "--example",
            "-m",
            "RR",
            "-f",
            "html",
            "-o",
            str(html),
            "--plot",
            str(plot),
        ]
    )
    assert code == 0, err
    text = html.read_text()
    assert text.startswith("<!DOCTYPE html>") and text.count("<svg") == 3
    assert plot.read_bytes().startswith(b"\x89PNG")


def test_cli_files_scores_and_names(tmp_path: Path) -> None:
    collections = _generated(2)
    written = _write_trec(collections, tmp_path)
    files = [f for qrels, runs in written.values() for f in (qrels, *runs)]
    code, out, err = run_cli(
        ["meta-analysis", *files, "-m", "P@5", "--baseline", "base", "-f", "json"]
    )
    assert code == 0, err
    [entry] = json.loads(out)["meta_analyses"]
    assert entry["collections"] == list(collections)  # the folders: the qrels share a name
    expected = ranklens.meta_analysis(collections, "P@5", baseline="base")
    assert entry == json.loads(expected.to_json())
    # the same collections as score files, one --scores per collection, named
    score_args = []
    for name, (qrels, runs) in collections.items():
        paths = []
        for r, run in runs.items():
            path = tmp_path / f"{name}-{r}.tsv"
            ranklens.write_scores(ranklens.evaluate(qrels, run, ["P@5"], name=r), path)
            paths.append(str(path))
        score_args += ["--scores", *paths]
    names = [arg for name in collections for arg in ("--collection", name)]
    code, out, err = run_cli(
        ["meta-analysis", *score_args, *names, "-m", "P@5", "--baseline", "base", "-f", "json"]
    )
    assert code == 0, err
    assert json.loads(out)["meta_analyses"][0] == json.loads(expected.to_json())


@pytest.mark.parametrize(
    "args, message",
    [
        ([], "at least 2 collections, not 0"),
        (["RUN_FIRST"], "the first file must be a qrels file"),
        (["QRELS", "RUN"], "at least 2 collections, not 1"),
        (["QRELS", "RUN", "QRELS", "RUN", "--collection", "x"], "--collection given 1 times"),
        (["--example", "--effect", "g_z", "--alpha", "2"], "alpha must be"),
        (["--example", "--collection", "x"], "--example takes no files or --collection"),
        (["QRELS", "RUN", "--scores", "RUN"], "cannot tell the format"),
    ],
)
def test_cli_bad_input_is_one_line(tmp_path: Path, args: list[str], message: str) -> None:
    qrels = tmp_path / "q.txt"
    qrels.write_text("q1 0 a 1\nq2 0 b 1\n")
    run = tmp_path / "r.run"
    run.write_text("q1 Q0 a 1 1.0 r\nq2 Q0 b 1 1.0 r\n")
    paths = {"QRELS": str(qrels), "RUN": str(run), "RUN_FIRST": str(run)}
    code, _, err = run_cli(["meta-analysis", *(paths.get(a, a) for a in args), "-m", "RR"])
    assert code == 2
    assert len(err.strip().splitlines()) == 1 and message in err, err
