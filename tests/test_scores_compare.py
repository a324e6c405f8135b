"""Scores compared as runs are compared: ``ranklens.compare(None, {name: Results})`` and
``compare(qrels, {name: Results or run})`` give the statistics computed from the runs
themselves, under every ``queries=`` policy and with the same warnings; trec_eval's own
``-q`` outputs compare as their printed values do; topic-set analyses, discriminative
power and leaderboard agreement read the scores as computed results; reports of scores."""

from __future__ import annotations

import io
import warnings
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ranklens
from ranklens.analysis.comparison import compare_results
from ranklens.base.errors import InputError, InputWarning, OptionError
from ranklens.evaluation.scores_files import read_scores, write_scores
from strategies import cases
from test_scores import second_run

MEASURES = ["AP", "nDCG@10", "P@5", "RR", "GMAP", "NumRelRet"]


def same_comparison(a: ranklens.Comparison, b: ranklens.Comparison) -> None:
    assert a.runs == b.runs and a.measures == b.measures and a.baseline == b.baseline
    assert a.queries == b.queries and a.queries_dropped == b.queries_dropped
    assert a.means == b.means
    assert a.vs_baseline == b.vs_baseline  # every statistic, exactly
    assert a.pairs == b.pairs


def recorded(call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = call()
    return out, sorted(str(w.message) for w in caught if issubclass(w.category, InputWarning))


def through_file(results: ranklens.Results, fmt: str = "trec_eval") -> ranklens.Results:
    buffer = io.StringIO()
    write_scores(results, buffer, fmt)
    back = read_scores(io.StringIO(buffer.getvalue()), format=fmt, name=results.run)
    assert isinstance(back, ranklens.Results)
    return back


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases(), cases(), cases(), st.sampled_from(["qrels", "both", "run"]))
def test_scores_compare_as_the_runs_they_came_from(case_a, case_b, case_c, policy) -> None:
    qrels = case_a.qrels
    runs = {"a": case_a.run, "b": second_run(case_a, case_b), "c": second_run(case_a, case_c)}
    options = {"baseline": "b", "queries": policy}
    from_runs, warned = recorded(lambda: ranklens.compare(qrels, runs, MEASURES, **options))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InputWarning)
        evaluated = ranklens.evaluate(qrels, runs, MEASURES, queries=policy)
        as_run = ranklens.evaluate(qrels, runs, MEASURES, queries="both")  # trec_eval -q
    # the Results themselves, with the qrels (the policy applied to them again)
    given_results = {r.run: r for r in evaluated}
    with_qrels = ranklens.compare(qrels, given_results, MEASURES, **options)
    same_comparison(from_runs, with_qrels)
    # read back from files, without qrels: the topics every run has
    files = {r.run: through_file(r) for r in evaluated}
    if policy != "qrels":
        same_comparison(from_runs, ranklens.compare(None, files, MEASURES, **options))
    else:  # every run was scored on the qrels' topics
        without = ranklens.compare(None, files, MEASURES, **{**options, "queries": "both"})
        same_comparison(from_runs, without)
    # scores of only the topics in both (trec_eval -q without -c), given the qrels:
    # a qrels topic missing from them scores as retrieving nothing, with the same warning
    # (under "run" the runs' topics without judgments count too: these scores lack them)
    partial = {r.run: through_file(r, "csv") for r in as_run}
    if policy != "run":
        from_scores, warned_too = recorded(
            lambda: ranklens.compare(qrels, partial, MEASURES, **options)
        )
        same_comparison(from_runs, from_scores)
        assert warned_too == warned
    # a mix of a run and scores
    mixed = {"a": runs["a"], "b": files["b"], "c": runs["c"]}
    same_comparison(
        from_runs, recorded(lambda: ranklens.compare(qrels, mixed, MEASURES, **options))[0]
    )


def test_trec_eval_outputs_compare_as_their_printed_values(trec_eval_data: Path) -> None:
    """The statistics of two trec_eval -q outputs (results.test; results.trunc with -c)
    are those of ranklens' own values printed as trec_eval prints them (4 decimals)."""
    qrels = trec_eval_data / "qrels.test"
    names = ["AP", "nDCG@10", "P@10", "RR", "Bpref"]
    scores = {
        "full": read_scores(trec_eval_data / "out.test.aq"),
        "trunc": read_scores(trec_eval_data / "out.test.aqc"),
    }
    got = ranklens.compare(None, scores, names, baseline="full", queries="both")
    computed = ranklens.evaluate(
        qrels,
        {"full": trec_eval_data / "results.test", "trunc": trec_eval_data / "results.trunc"},
        names,
    )
    rounded = []
    for r in computed:
        printed = np.array([[float(f"{v:.4f}") for v in row] for row in r.values.tolist()])
        rounded.append(replace(r, values=printed))
    want = compare_results(rounded, baseline="full")
    same_comparison(want, got)
    runs = {"full": trec_eval_data / "results.test", "trunc": trec_eval_data / "results.trunc"}
    exact = ranklens.compare(qrels, runs, names, baseline="full")
    for m in names:
        a, b = got.vs_baseline["trunc"][m], exact.vs_baseline["trunc"][m]
        assert abs(a.delta - b.delta) <= 1e-4  # the printing precision
        assert (a.wins, a.ties, a.losses) == (b.wins, b.ties, b.losses)


def test_policies_without_qrels() -> None:
    a = read_scores(io.StringIO("map q1 0.5\nmap q2 0.25\nmap q3 0.1\n"), name="a")
    b = read_scores(io.StringIO("map q1 0.4\nmap q2 0.35\nmap q4 0.9\n"), name="b")
    with pytest.raises(
        InputError, match=r"different topics \(1 only in 'a' \(e.g. 'q3'\); 1 only in 'b'"
    ):
        ranklens.compare(None, [a, b], ["AP"])
    for policy in ("both", "run"):
        cmp = ranklens.compare(None, [a, b], ["map"], queries=policy)
        assert cmp.queries == ("q1", "q2") and cmp.queries_dropped == 2
        assert cmp.means["b"]["AP"] == pytest.approx(0.375)
    with pytest.raises(OptionError, match="ties apply to runs that ranklens evaluates"):
        ranklens.compare(None, [a, b], ["AP"], queries="both", ties="input")
    with pytest.raises(OptionError, match="bounds and correlate_qrels"):
        ranklens.compare(None, [a, b], ["AP"], queries="both", bounds=True)
    with pytest.raises(InputError, match=r"run 'a' has no scores of nDCG@10 \(it has AP\)"):
        ranklens.compare(None, [a, b], ["nDCG@10"], queries="both")


def test_score_files_and_result_sets_as_runs(tmp_path: Path, trec_eval_data: Path) -> None:
    (tmp_path / "x").mkdir()
    (tmp_path / "y").mkdir()
    text = (trec_eval_data / "out.test.aq").read_text()
    (tmp_path / "x" / "bm25.eval").write_text(text)
    (tmp_path / "y" / "bm25.eval").write_text(text.replace("STANDARD", "OTHER"))
    cmp = ranklens.compare(None, [tmp_path / "x" / "bm25.eval", tmp_path / "y" / "bm25.eval"], "AP")
    assert cmp.runs == ("STANDARD", "OTHER")
    same = [tmp_path / "x" / "bm25.eval", tmp_path / "x" / "bm25.eval"]
    with pytest.raises(OptionError, match="both named"):
        ranklens.compare(None, same, "AP")
    (tmp_path / "x" / "dense.eval").write_text(text)
    cmp = ranklens.compare(
        None, [tmp_path / "x" / "bm25.eval", tmp_path / "x" / "dense.eval"], "AP"
    )
    assert cmp.runs == ("bm25", "dense")  # the same runid: the files' stems
    board = read_scores(
        io.StringIO("r1 S q1 1\nr2 S q1 0\nr1 S q2 1\nr2 S q2 1\nr3 S q1 0\nr3 S q2 0\n")
    )
    cmp = ranklens.compare(None, board, "S")
    assert cmp.runs == ("r1", "r2", "r3") and cmp.means["r1"]["S"] == 1.0


def test_topic_analyses_read_scores_as_computed_results(
    tmp_path: Path, trec_eval_data: Path
) -> None:
    rng = np.random.default_rng(7)
    qrels = {f"q{i}": {f"d{j}": int(rng.integers(0, 3)) for j in range(8)} for i in range(12)}
    runs = {
        f"r{k}": {q: {f"d{j}": float(rng.integers(0, 5)) for j in range(8)} for q in qrels}
        for k in range(4)
    }
    computed = ranklens.evaluate(qrels, runs, ["AP", "nDCG@5"])
    write_scores(computed, tmp_path / "s.parquet")
    read = read_scores(tmp_path / "s.parquet")
    assert isinstance(read, ranklens.ResultSet)
    assert ranklens.variance_from(list(read), "AP") == ranklens.variance_from(list(computed), "AP")
    d1 = ranklens.discriminative_power(list(read), ["nDCG@5"], resamples=200)
    d2 = ranklens.discriminative_power(list(computed), ["nDCG@5"], resamples=200)
    assert d1.power("nDCG@5") == d2.power("nDCG@5")
    np.testing.assert_array_equal(d1.bootstrap["nDCG@5"].asl, d2.bootstrap["nDCG@5"].asl)
    other = ranklens.evaluate(
        {q: {d: 2 - g for d, g in j.items()} for q, j in qrels.items()}, runs, ["AP", "nDCG@5"]
    )
    write_scores(other, tmp_path / "o.csv", layout="wide")
    agree_read = ranklens.leaderboard_agreement(read, read_scores(tmp_path / "o.csv"))
    agree = ranklens.leaderboard_agreement(computed, other)
    assert agree_read == agree
    # every pair, with Tukey's HSD
    pairs_read = ranklens.compare(None, read, ["AP"], all_pairs=True)
    same = ranklens.compare(qrels, runs, ["AP"], all_pairs=True)
    same_comparison(same, pairs_read)
    assert pairs_read.tukey is not None and same.tukey is not None
    np.testing.assert_array_equal(pairs_read.tukey["AP"].p_value, same.tukey["AP"].p_value)


def test_report_of_scores(tmp_path: Path) -> None:
    from ranklens.data.ir_metadata import IrMetadata
    from ranklens.presentation.reporting import build_scores_report

    a = read_scores(io.StringIO("map q1 0.5\nmap q2 0.25\nmap q3 0.1\n"), name="<b>a</b>")
    b = read_scores(io.StringIO("map q1 0.4\nmap q2 0.35\nmap q4 0.9\n"), name="b")
    a = replace(a, metadata=IrMetadata("actor:\n  team: <i>x</i>\n"))
    cmp = ranklens.compare(None, [a, b], ["AP"], queries="both")
    html = build_scores_report([a, b], cmp)
    assert "<b>a</b>" not in html and "&lt;b&gt;a&lt;/b&gt;" in html
    assert "Run metadata (ir_metadata)" in html
    pytest.importorskip("yaml")
    assert "actor.team" in html and "&lt;i&gt;x&lt;/i&gt;" in html
    assert '"queries": ["q1", "q2", "q3", "q4"]' in html
    assert "null" in html  # a topic a run has no value for
