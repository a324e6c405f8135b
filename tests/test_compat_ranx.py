"""ranklens.compat.ranx against ranx itself (the ``test`` extra installs it).

Generated data has graded labels, unjudged retrieved documents, queries without relevant
documents, qrels queries missing from the run and run queries missing from the qrels. Where
ranx's order of tied scores is arbitrary (its unstable sort), the exact comparison uses runs
without ties, and ties are checked against ``ranklens.evaluate`` and, on lists short
enough for ranx's sort to keep the input order, ranx with ``ties="input"``.
"""

from __future__ import annotations

import ast
import json

import numpy as np
import pytest

import ranklens
from ranklens.base.errors import InputError, OptionError
from ranklens.compat import ranx as compat

ranx = pytest.importorskip("ranx")
pytestmark = pytest.mark.filterwarnings("ignore")  # numba's warnings inside ranx

METRICS = [
    "ndcg@10",
    "ndcg",
    "map@100",
    "map",
    "mrr",
    "mrr@5",
    "precision@5",
    "recall@10",
    "hits@10",
    "hit_rate@3",
    "r-precision",
    "f1@10",
    "ndcg_burges@10",
    "dcg@5",
    "dcg_burges@5",
    "rbp.8",
    "map@10-l2",
    "precision@5-l2",
]


def make_data(seed: int, ties: bool = False, n_queries: int = 30, max_docs: int = 40):
    """Qrels and a run; scores distinct unless ``ties`` (then few distinct values)."""
    rng = np.random.default_rng(seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(n_queries):
        docs = [f"d{i}" for i in rng.choice(300, max_docs + 20, replace=False)]
        if q % 9 != 4:  # q4, q13, q22: missing from the qrels
            judged = docs[: int(rng.integers(1, 25))]
            qrels[f"q{q}"] = {d: int(rng.choice([0, 0, 1, 2, 3])) for d in judged}
            if q % 7 == 0:  # no relevant document
                qrels[f"q{q}"] = {d: 0 for d in judged}
        if q % 8 == 5:  # missing from the run
            continue
        retrieved = rng.permutation(docs)[: int(rng.integers(2, max_docs))]
        if ties:
            scores = rng.integers(0, 4, len(retrieved)).astype(float)
        else:
            scores = rng.permutation(len(retrieved)) + rng.random()
        run[f"q{q}"] = {str(d): float(s) for d, s in zip(retrieved, scores, strict=True)}
    return qrels, run


def matched(qrels, run):
    """The same data with the run's and the qrels' queries made equal (ranx's precondition
    without make_comparable)."""
    common = sorted(set(qrels) & set(run))
    return {q: qrels[q] for q in common}, {q: run[q] for q in common}


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_evaluate_equals_ranx_with_make_comparable(seed):
    qrels, run = make_data(seed)
    mine_run = compat.Run(run, name="r")
    mine = compat.evaluate(compat.Qrels(qrels), mine_run, METRICS, make_comparable=True)
    theirs_run = ranx.Run(run, name="r")
    theirs = ranx.evaluate(ranx.Qrels(qrels), theirs_run, METRICS, make_comparable=True)
    assert list(mine) == list(theirs)
    for m in METRICS:
        assert mine[m] == pytest.approx(theirs[m], abs=1e-12), m
        assert mine_run.mean_scores[m] == pytest.approx(theirs_run.mean_scores[m], abs=1e-12)
        assert mine_run.scores[m].keys() == theirs_run.scores[m].keys()
        for q, v in theirs_run.scores[m].items():
            assert mine_run.scores[m][q] == pytest.approx(v, abs=1e-12), (m, q)


def test_per_query_arrays_and_std_equal_ranx():
    qrels, run = matched(*make_data(3))
    mine = compat.evaluate(qrels, run, METRICS[:6], return_mean=False)
    theirs = ranx.evaluate(qrels, run, METRICS[:6], return_mean=False)
    for m in METRICS[:6]:
        assert isinstance(mine[m], np.ndarray)
        np.testing.assert_allclose(mine[m], theirs[m], rtol=0, atol=1e-12)
    one_mine = compat.evaluate(qrels, run, "mrr", return_mean=False)
    np.testing.assert_allclose(one_mine, ranx.evaluate(qrels, run, "mrr", return_mean=False))
    # ranx fails on one metric with a cut-off here (a KeyError); the module does not
    with pytest.raises(KeyError):
        ranx.evaluate(qrels, run, "ndcg@10", return_mean=False)
    one_cut = compat.evaluate(qrels, run, "ndcg@10", return_mean=False)
    np.testing.assert_allclose(one_cut, mine["ndcg@10"], rtol=0, atol=0)
    mine_std = compat.evaluate(qrels, run, ["map", "mrr"], return_std=True)
    theirs_std = ranx.evaluate(qrels, run, ["map", "mrr"], return_std=True)
    for m in ("map", "mrr"):
        assert set(mine_std[m]) == {"mean", "std"}
        assert mine_std[m]["std"] == pytest.approx(theirs_std[m]["std"], abs=1e-12)


def test_return_shapes():
    qrels, run = matched(*make_data(4))
    assert isinstance(compat.evaluate(qrels, run, "map"), float)
    assert isinstance(compat.evaluate(qrels, run, ["map"]), float)  # ranx: one metric, a float
    assert isinstance(compat.evaluate(qrels, run, ["map", "mrr"]), dict)
    assert isinstance(ranx.evaluate(qrels, run, ["map"]), float)


def test_different_queries_need_make_comparable():
    qrels, run = make_data(5)
    with pytest.raises(AssertionError):
        ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), "map")
    with pytest.raises(InputError, match="make_comparable=True"):
        compat.evaluate(compat.Qrels(qrels), compat.Run(run), "map")


def test_evaluate_does_not_change_the_run_and_can_leave_it_alone():
    qrels, run = make_data(6)
    mine = compat.Run(run)
    before = mine.to_dict()
    compat.evaluate(qrels, mine, "map", make_comparable=True, save_results_in_run=False)
    assert mine.mean_scores == {} and dict(mine.scores) == {}
    compat.evaluate(qrels, mine, "map", make_comparable=True)
    assert mine.to_dict() == before and set(mine.mean_scores) == {"map"}


def test_ranklens_names_and_ranklens_values_with_ties():
    qrels, run = make_data(7, ties=True)
    names = ["ndcg@10", "map", "mrr", "precision@5"]
    for ties in ("trec_eval", "input"):
        mine = compat.evaluate(qrels, run, names, make_comparable=True, ties=ties)
        ours = ranklens.evaluate(qrels, run, ["nDCG@10", "AP", "RR", "P@5"], ties=ties)
        assert list(mine.values()) == pytest.approx(list(ours.aggregate.values()), abs=1e-15)
    assert compat.evaluate(qrels, run, "nDCG@10", make_comparable=True) == pytest.approx(
        compat.evaluate(qrels, run, "ndcg@10", make_comparable=True), abs=0
    )


@pytest.mark.parametrize("seed", [8, 9])
def test_input_ties_equal_ranx_on_short_lists(seed):
    # numba sorts 15 or fewer values by insertion: ranx.Run keeps the dict order of ties
    # there (ranx.evaluate on plain dicts sorts otherwise)
    qrels, run = matched(*make_data(seed, ties=True, max_docs=14))
    assert max(len(v) for v in run.values()) <= 15
    theirs = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), METRICS)
    mine = compat.evaluate(qrels, run, METRICS, ties="input")
    for m in METRICS:
        assert mine[m] == pytest.approx(theirs[m], abs=1e-12), m
    # the default tie order is trec_eval's, and it does change some values on this data
    default = compat.evaluate(qrels, run, METRICS)
    assert any(default[m] != pytest.approx(theirs[m], abs=1e-12) for m in METRICS)


def _runs(seed: int, n: int = 3):
    """Runs of decreasing quality: relevant documents pushed up, then more and more noise."""
    rng = np.random.default_rng(seed)
    qrels, base = matched(*make_data(seed, n_queries=40))
    good = {
        q: {d: s + 30.0 * qrels[q].get(d, 0) for d, s in docs.items()} for q, docs in base.items()
    }
    return qrels, [
        {q: {d: s + float(rng.normal(0, sd)) for d, s in docs.items()} for q, docs in good.items()}
        for sd in (1.0, 25.0, 80.0)[:n]
    ]


def _report_pair(stat_test: str, seed: int = 10, **options):
    qrels, runs = _runs(seed)
    names = ["bm25", "dense", None]  # the third is named run_3 by both
    mine = compat.compare(
        compat.Qrels(qrels),
        [compat.Run(r, name=n) for r, n in zip(runs, names, strict=True)],
        ["ndcg@10", "map@100", "mrr"],
        stat_test=stat_test,
        **options,
    )
    theirs = ranx.compare(
        ranx.Qrels(qrels),
        [ranx.Run(r, name=n) for r, n in zip(runs, names, strict=True)],
        ["ndcg@10", "map@100", "mrr"],
        stat_test=stat_test,
        **options,
    )
    return mine, theirs


@pytest.mark.parametrize(("stat_test", "max_p"), [("student", 0.01), ("tukey", 0.2)])
def test_compare_equals_ranx_exactly(stat_test, max_p):
    mine, theirs = _report_pair(stat_test, max_p=max_p)
    a, b = mine.to_dict(), theirs.to_dict()
    assert a.keys() == b.keys() and a["model_names"] == ["bm25", "dense", "run_3"]
    for model in a["model_names"]:
        assert a[model]["scores"] == pytest.approx(b[model]["scores"], abs=1e-12)
        assert a[model]["win_tie_loss"] == b[model]["win_tie_loss"]
        for other, p_values in b[model]["comparisons"].items():
            assert a[model]["comparisons"][other] == pytest.approx(p_values, rel=1e-9), other
    significant = [v["significant"] for pair in mine.comparisons.values() for v in pair.values()]
    assert any(significant) and not all(significant)  # the data exercises both
    assert str(mine) == str(theirs)
    assert mine.to_latex() == theirs.to_latex()
    mine_df, theirs_df = mine.to_dataframe(), theirs.to_dataframe()
    assert list(mine_df.columns) == list(theirs_df.columns)
    np.testing.assert_allclose(
        mine_df.iloc[:, 1:].to_numpy(float), theirs_df.iloc[:, 1:].to_numpy(float)
    )


def test_compare_fisher_has_ranx_shape_and_close_p_values():
    mine, theirs = _report_pair("fisher", n_permutations=2000, max_p=0.05)
    a, b = mine.to_dict(), theirs.to_dict()
    assert a["stat_test"] == "fisher" and a.keys() == b.keys()
    for model in a["model_names"]:
        assert a[model]["comparisons"].keys() == b[model]["comparisons"].keys()
        for other, p_values in b[model]["comparisons"].items():
            for metric, p in p_values.items():
                # both estimate the same p-value by sampling (ours never 0: (c + 1) / (B + 1))
                assert abs(a[model]["comparisons"][other][metric] - p) < 0.05
    assert "Fisher's randomization test" in mine.to_latex()


def test_report_percentages_and_rounding_as_ranx():
    mine, theirs = _report_pair("student", show_percentages=True, rounding_digits=4)
    assert str(mine) == str(theirs)
    assert mine.to_latex() == theirs.to_latex()


def test_compare_checks_its_options():
    qrels, runs = _runs(11, 2)
    with pytest.raises(OptionError, match="stat_test"):
        compat.compare(qrels, runs, "map", stat_test="wilcoxon")
    with pytest.raises(OptionError, match="two runs"):
        compat.compare(qrels, runs[:1], "map")
    with pytest.raises(OptionError, match="named"):
        compat.compare(qrels, [compat.Run(r, name="x") for r in runs], "map")


@pytest.mark.parametrize(
    ("norm", "method", "params"),
    [
        ("min-max", "wsum", {"weights": [0.2, 0.3, 0.5]}),
        ("zmuv", "mnz", None),
        ("max", "sum", None),
        (None, "rrf", {"k": 20}),
        ("borda", "max", None),
    ],
)
def test_fuse_equals_ranx(norm, method, params):
    _, runs = _runs(12)
    mine = compat.fuse([compat.Run(r) for r in runs], norm=norm, method=method, params=params)
    theirs = ranx.fuse([ranx.Run(r) for r in runs], norm=norm, method=method, params=params)
    assert isinstance(mine, compat.Run) and mine.name == theirs.name
    a, b = mine.to_dict(), theirs.to_dict()
    assert a.keys() == b.keys()
    for q in b:
        assert a[q] == pytest.approx(b[q], rel=1e-9, abs=1e-12), q
        if len(set(b[q].values())) == len(b[q]):  # ranked the same where no fused ties
            assert list(a[q]) == list(b[q]), q


def test_fuse_needs_runs_with_the_same_queries():
    _, runs = _runs(13, 2)
    runs[1] = {q: v for q, v in list(runs[1].items())[1:]}
    with pytest.raises(InputError, match="different query ids"):
        compat.fuse(runs, params={"weights": [0.5, 0.5]})


def test_files_and_frames_read_as_ranx_reads_them(tmp_path):
    qrels, run = matched(*make_data(14))
    mine_q, mine_r = compat.Qrels(qrels, name="q"), compat.Run(run, name="bm25")
    for suffix in ("trec", "json"):
        mine_q.save(tmp_path / f"qrels.{suffix}")
        mine_r.save(tmp_path / f"run.{suffix}")
        theirs_q = ranx.Qrels.from_file(str(tmp_path / f"qrels.{suffix}"))
        theirs_r = ranx.Run.from_file(str(tmp_path / f"run.{suffix}"))
        assert {q: dict(v) for q, v in theirs_q.to_dict().items()} == qrels
        assert _same_runs(theirs_r.to_dict(), run)
        back_q = compat.Qrels.from_file(tmp_path / f"qrels.{suffix}")
        back_r = compat.Run.from_file(tmp_path / f"run.{suffix}")
        assert back_q.to_dict() == qrels
        assert _same_runs(back_r.to_dict(), run)
    assert compat.Run.from_file(tmp_path / "run.trec").name == "bm25"  # the file's tag
    frame = mine_r.to_dataframe()
    assert list(frame.columns) == ["q_id", "doc_id", "score"]
    assert _same_runs(compat.Run.from_df(frame).to_dict(), ranx.Run.from_df(frame).to_dict())
    qframe = mine_q.to_dataframe()
    assert compat.Qrels.from_df(qframe).to_dict() == qrels


def _same_runs(a, b) -> bool:
    return a.keys() == b.keys() and all(
        a[q].keys() == b[q].keys() and all(abs(a[q][d] - b[q][d]) < 1e-9 for d in b[q]) for q in b
    )


def test_run_dict_is_ranked_and_adding_queries_works():
    run = compat.Run({"q1": {"a": 0.5, "b": 0.5, "c": 0.9}})
    assert list(run.to_dict()["q1"]) == ["c", "b", "a"]  # ties: docid descending
    assert list(run.to_dict(ties="input")["q1"]) == ["c", "a", "b"]
    run.add("q0", ["x", "y"], [1.0, 2.0])
    assert run.keys() == ["q0", "q1"] and run["q0"] == {"y": 2.0, "x": 1.0} and len(run) == 2
    qrels = compat.Qrels()
    qrels.add_multi(["q1"], [["a"]], [[1]])
    assert qrels.to_dict() == {"q1": {"a": 1}} and qrels.size == 1


def test_bad_input_is_a_clear_error(tmp_path):
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(InputError, match=r"bad\.json:1"):
        compat.Run.from_file(tmp_path / "bad.json")
    with pytest.raises(OptionError, match="kind"):
        compat.Run.from_file(tmp_path / "bad.json", kind="xml")
    with pytest.raises(OptionError, match="ties"):
        compat.evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, "map", ties="random")
    with pytest.raises(OptionError, match="metrics"):
        compat.evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, [])


def test_the_module_does_not_import_ranx():
    import ranklens.compat.ranx as module

    with open(module.__file__, encoding="utf-8") as handle:
        tree = ast.parse(handle.read())
    imported = {
        alias.name.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
    } | {
        (node.module or "").split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
    }
    assert "ranx" not in imported
    assert json.loads(json.dumps(compat.Qrels({"q": {"a": 1}}).to_dict())) == {"q": {"a": 1}}


def test_dicts_read_through_arrow_equal_ranklens_from_dict():
    from ranklens.data.qrels import Qrels as RLQrels
    from ranklens.data.run import Run as RLRun

    qrels, run = make_data(15, ties=True)
    fast_run, slow_run = compat.Run(run).data, RLRun.from_dict(run)
    assert fast_run.qids == slow_run.qids
    for ties in ("input", "trec_eval"):
        assert [fast_run.docid(i) for i in fast_run.ranking(ties)] == [
            slow_run.docid(i) for i in slow_run.ranking(ties)
        ]
    np.testing.assert_array_equal(fast_run.scores, slow_run.scores)
    assert compat.Qrels(qrels).to_dict() == RLQrels.from_dict(qrels).to_dict()
    # what is not plain goes the validating way, with its errors
    assert compat.Run({"q": {"a": 1, "b": np.float32(0.5)}}).to_dict() == {
        "q": {"a": 1.0, "b": 0.5}
    }
    with pytest.raises(InputError):
        compat.Run({"q": {"a": "high"}})
