"""ranklens.compat.ranx's evaluate, compare and fuse against ranx itself (the ``test`` extra
installs ranx).

Generated data (tests/ranx_support.py) has graded and negative labels, unjudged retrieved
documents, queries without relevant documents, queries on one side only and queries
without any document. Where ranx's order of tied scores is arbitrary (its unstable sort),
the exact comparison uses runs without ties; ties are checked against ``ranklens.evaluate``
and, on lists short enough for ranx's sort to keep the input order, ranx with
``ties="input"``.
"""

from __future__ import annotations

import ast
import pathlib

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ranklens
from ranklens.base.errors import InputError, MeasureError, OptionError, RanklensError
from ranklens.compat import ranx as compat
from ranx_support import METRICS, make_data, matched

ranx = pytest.importorskip("ranx")
pytestmark = pytest.mark.filterwarnings("ignore")  # numba's warnings inside ranx


def close(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-12


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_evaluate_equals_ranx_with_make_comparable(seed):
    qrels, run = make_data(seed)
    mine_run = compat.Run(run, name="r")
    mine = compat.evaluate(compat.Qrels(qrels), mine_run, METRICS, make_comparable=True)
    theirs_run = ranx.Run(run, name="r")
    theirs = ranx.evaluate(ranx.Qrels(qrels), theirs_run, METRICS, make_comparable=True)
    assert list(mine) == list(theirs)
    for m in METRICS:
        assert close(mine[m], theirs[m]), m
        assert close(mine_run.mean_scores[m], theirs_run.mean_scores[m])
        assert mine_run.scores[m].keys() == theirs_run.scores[m].keys()
        for q, v in theirs_run.scores[m].items():
            assert close(mine_run.scores[m][q], v), (m, q)


def test_queries_without_documents_count_as_ranx_counts_them():
    # qrels {} -> the query is evaluated and scores 0; run {} -> retrieves nothing
    qrels, run = matched(*make_data(3))
    assert {} in qrels.values() and {} in run.values()
    mine = compat.evaluate(compat.Qrels(qrels), compat.Run(run), METRICS, return_mean=False)
    theirs = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), METRICS, return_mean=False)
    for m in METRICS:
        np.testing.assert_allclose(mine[m], theirs[m], rtol=0, atol=1e-12, err_msg=m)
    assert len(mine["map"]) == len(qrels)


def test_per_query_arrays_follow_the_dict_order_and_std_equals_ranx():
    # plain dicts (ranx: without {} queries) in their own, unsorted order
    qrels, run = matched(*make_data(4, empty=False), sort=False)
    assert list(qrels) != sorted(qrels)
    mine = compat.evaluate(qrels, run, METRICS, return_mean=False)
    theirs = ranx.evaluate(qrels, run, METRICS, return_mean=False)
    for m in METRICS:
        assert isinstance(mine[m], np.ndarray)
        np.testing.assert_allclose(mine[m], theirs[m], rtol=0, atol=1e-12, err_msg=m)
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
        assert close(mine_std[m]["std"], theirs_std[m]["std"])
        assert close(mine_std[m]["mean"], theirs_std[m]["mean"])


def test_return_shapes_and_repeated_names():
    qrels, run = matched(*make_data(5, empty=False))
    assert isinstance(compat.evaluate(qrels, run, "map"), float)
    assert isinstance(compat.evaluate(qrels, run, ["map"]), float)  # ranx: one metric, a float
    assert isinstance(ranx.evaluate(qrels, run, ["map"]), float)
    assert isinstance(compat.evaluate(qrels, run, ["map", "mrr"]), dict)
    twice = compat.evaluate(qrels, run, ["map", "map"])  # ranx: a dict of one entry
    assert twice == pytest.approx(ranx.evaluate(qrels, run, ["map", "map"]), abs=1e-12)
    assert list(twice) == ["map"]
    # the same metric twice, and two names of one measure: ranx's dict, keyed by name
    mine = compat.evaluate(qrels, run, ["map", "map", "ndcg@10", "nDCG@10"])
    assert list(mine) == ["map", "ndcg@10", "nDCG@10"]
    assert mine["ndcg@10"] == mine["nDCG@10"]
    assert mine == pytest.approx(
        {**ranx.evaluate(qrels, run, ["map", "map", "ndcg@10"]), "nDCG@10": mine["ndcg@10"]}
    )


def test_different_queries_are_ranx_assertion_errors():
    qrels, run = make_data(6)
    with pytest.raises(AssertionError):
        ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), "map")
    with pytest.raises(AssertionError, match="make_comparable=True") as caught:
        compat.evaluate(compat.Qrels(qrels), compat.Run(run), "map")
    assert isinstance(caught.value, InputError)
    with pytest.raises(compat.QueryMismatchError):
        compat.evaluate(qrels, run, "map")  # dicts too, as ranx's check_keys


def test_evaluate_does_not_change_the_run_and_can_leave_it_alone():
    qrels, run = make_data(7)
    mine = compat.Run(run)
    before = mine.to_dict()
    compat.evaluate(qrels, mine, "map", make_comparable=True, save_results_in_run=False)
    assert mine.mean_scores == {} and dict(mine.scores) == {}
    compat.evaluate(qrels, mine, "map", make_comparable=True, return_std=True)
    assert mine.to_dict() == before and set(mine.mean_scores) == set(mine.std_scores) == {"map"}


def test_ranklens_names_and_ranklens_values_with_ties():
    qrels, run = make_data(8, ties=True, empty=False)
    names = ["ndcg@10", "map", "mrr", "precision@5"]
    for ties in ("trec_eval", "input"):
        mine = compat.evaluate(qrels, run, names, make_comparable=True, ties=ties)
        ours = ranklens.evaluate(qrels, run, ["nDCG@10", "AP", "RR", "P@5"], ties=ties)
        assert list(mine.values()) == pytest.approx(list(ours.aggregate.values()), abs=1e-15)


@pytest.mark.parametrize("seed", [9, 10])
def test_input_ties_equal_ranx_on_short_lists(seed):
    # numba sorts 15 or fewer values by insertion: ranx.Run keeps the dict order of ties
    qrels, run = matched(*make_data(seed, ties=True, max_docs=14, empty=False))
    assert max(len(v) for v in run.values()) <= 15
    theirs = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), METRICS)
    mine = compat.evaluate(qrels, run, METRICS, ties="input")
    for m in METRICS:
        assert close(mine[m], theirs[m]), m
    # the default tie order is trec_eval's, and it does change some values on this data
    default = compat.evaluate(qrels, run, METRICS)
    assert any(not close(default[m], theirs[m]) for m in METRICS)


def test_bpref_is_trec_evals_and_ranx_s_where_ranx_is_itself():
    """ranx's bpref, query by query (ranx's multi-query bpref drops to 0 after a query it
    cannot divide for), on queries with judged non-relevant and relevant documents and no
    negative grade: there ranx's and trec_eval's definitions agree."""
    qrels, run = matched(*make_data(11, negative=False, empty=False))
    compared = 0
    for q in qrels:
        grades = list(qrels[q].values())
        if not (any(g > 0 for g in grades) and any(g == 0 for g in grades)):
            continue
        for name in ("bpref", "bpref-l2"):
            theirs = ranx.evaluate({q: qrels[q]}, {q: run[q]}, name)
            if np.isnan(theirs):  # -l2 without a grade >= 2
                continue
            assert close(compat.evaluate({q: qrels[q]}, {q: run[q]}, name), theirs), (q, name)
            compared += 1
    assert compared >= 20
    mine = compat.evaluate(qrels, run, "bpref")
    assert close(mine, ranklens.evaluate(qrels, run, ["Bpref"]).aggregate["Bpref"])


@st.composite
def small_data(draw):
    n_queries = draw(st.integers(1, 6))
    qrels, run = {}, {}
    for q in range(n_queries):
        docs = [f"d{i}" for i in range(draw(st.integers(1, 8)))]
        judged = draw(st.lists(st.sampled_from(docs), unique=True, min_size=1))
        qrels[f"q{q}"] = {d: draw(st.integers(-1, 3)) for d in judged}
        retrieved = draw(st.permutations([*docs, "u1", "u2"]))[: draw(st.integers(1, 10))]
        run[f"q{q}"] = {d: float(len(retrieved) - i) for i, d in enumerate(retrieved)}
    return qrels, run


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_data(), st.sampled_from(METRICS))
def test_any_small_data_gives_ranx_s_values(data, metric):
    qrels, run = data
    mine = compat.evaluate(qrels, run, [metric, "hits"], return_mean=False)[metric]
    theirs = ranx.evaluate(qrels, run, [metric, "hits"], return_mean=False)[metric]
    np.testing.assert_allclose(mine, theirs, rtol=0, atol=1e-12)


def _runs(seed: int, n: int = 3):
    """Runs of decreasing quality: relevant documents pushed up, then more and more noise."""
    rng = np.random.default_rng(seed)
    qrels, base = matched(*make_data(seed, n_queries=40, empty=False))
    good = {
        q: {d: s + 30.0 * qrels[q].get(d, 0) for d, s in docs.items()} for q, docs in base.items()
    }
    return qrels, [
        {q: {d: s + float(rng.normal(0, sd)) for d, s in docs.items()} for q, docs in good.items()}
        for sd in (1.0, 25.0, 80.0)[:n]
    ]


def _report_pair(stat_test: str, seed: int = 12, metrics=("ndcg@10", "map@100", "mrr"), **kw):
    qrels, runs = _runs(seed)
    names = ["bm25", "dense", None]  # the third is named run_3 by both
    mine = compat.compare(
        compat.Qrels(qrels),
        [compat.Run(r, name=n) for r, n in zip(runs, names, strict=True)],
        list(metrics),
        stat_test=stat_test,
        **kw,
    )
    theirs = ranx.compare(
        ranx.Qrels(qrels),
        [ranx.Run(r, name=n) for r, n in zip(runs, names, strict=True)],
        list(metrics),
        stat_test=stat_test,
        **kw,
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
    for x, y in (("bm25", "dense"), ("dense", "bm25")):  # ranx's pair keys, either order
        for metric, entry in theirs.comparisons[x, y].items():
            assert mine.comparisons[x, y][metric]["p_value"] == pytest.approx(entry["p_value"])
            assert mine.comparisons[x, y][metric]["significant"] == entry["significant"]
    pandas_testing = pytest.importorskip("pandas.testing")
    pandas_testing.assert_frame_equal(mine.to_dataframe(), theirs.to_dataframe(), rtol=1e-12)


def test_report_labels_percentages_and_rounding_as_ranx():
    metrics = ("ndcg@10", "map@100-l2", "rbp.8", "hit_rate@5", "r-precision")
    mine, theirs = _report_pair(
        "student", metrics=metrics, show_percentages=True, rounding_digits=4
    )
    assert str(mine) == str(theirs)
    assert mine.to_latex() == theirs.to_latex()
    for m in metrics:
        assert mine.get_metric_label(m) == theirs.get_metric_label(m)
    for test in ("fisher", "student", "tukey"):
        assert mine.get_stat_test_label(test) == theirs.get_stat_test_label(test)
    with pytest.raises(KeyError):
        mine.get_stat_test_label("wilcoxon")


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


def test_compare_one_run_as_ranx_and_its_errors():
    qrels, runs = _runs(13, 2)
    mine = compat.compare(qrels, [compat.Run(runs[0], name="x")], ["map", "mrr"])
    theirs = ranx.compare(qrels, [ranx.Run(runs[0], name="x")], ["map", "mrr"])
    assert str(mine) == str(theirs) and mine.to_dict().keys() == theirs.to_dict().keys()
    with pytest.raises(NotImplementedError):
        ranx.compare(qrels, [ranx.Run(r, name=str(i)) for i, r in enumerate(runs)], "map", "w")
    with pytest.raises(NotImplementedError, match="stat_test") as caught:
        compat.compare(qrels, runs, "map", stat_test="wilcoxon")
    assert isinstance(caught.value, OptionError)
    with pytest.raises(AssertionError, match="list of runs"):
        compat.compare(qrels, [], "map")
    with pytest.raises(OptionError, match="named"):
        compat.compare(qrels, [compat.Run(r, name="x") for r in runs], "map")
    with pytest.raises(AssertionError):
        compat.compare(qrels, [{**runs[0], "extra": {"d": 1.0}}, runs[1]], "map")


def test_compare_on_one_query_as_ranx():
    qrels = {"q": {"a": 1, "c": 2}}
    runs = [{"q": {"a": 1.0, "b": 0.5, "c": 0.2}}, {"q": {"b": 1.0, "c": 0.7, "a": 0.5}}]
    mine_runs = [compat.Run(runs[0], name="x"), compat.Run(runs[1], name="y")]
    theirs_runs = [ranx.Run(runs[0], name="x"), ranx.Run(runs[1], name="y")]
    for stat_test in ("student", "fisher"):
        mine = compat.compare(qrels, mine_runs, ["map", "ndcg@2"], stat_test=stat_test)
        theirs = ranx.compare(
            ranx.Qrels(qrels), theirs_runs, ["map", "ndcg@2"], stat_test=stat_test
        )
        a, b = mine.to_dict()["x"], theirs.to_dict()["x"]
        assert a["scores"] == pytest.approx(b["scores"])
        np.testing.assert_array_equal(
            list(a["comparisons"]["y"].values()), list(b["comparisons"]["y"].values())
        )
        assert str(mine) == str(theirs)
    with pytest.raises(ValueError):
        ranx.compare(ranx.Qrels(qrels), theirs_runs, "map", stat_test="tukey")
    with pytest.raises(ValueError, match="two queries") as caught:
        compat.compare(qrels, mine_runs, "map", stat_test="tukey")
    assert isinstance(caught.value, InputError)


@pytest.mark.parametrize(
    ("norm", "method", "params"),
    [
        ("min-max", "wsum", {"weights": [0.2, 0.3, 0.5]}),
        ("zmuv", "mnz", None),
        ("max", "sum", None),
        (None, "rrf", {"k": 20}),
        ("borda", "max", None),
        ("min-max-inverted", "sum", None),
        ("min_max", "gmnz", {"gamma": 0.5}),
        ("sum", "wmnz", {"weights": [1.0, 2.0, 0.5], "name": "mine"}),
    ],
)
def test_fuse_equals_ranx(norm, method, params):
    _, runs = _runs(14)
    mine = compat.fuse([compat.Run(r) for r in runs], norm=norm, method=method, params=params)
    theirs = ranx.fuse([ranx.Run(r) for r in runs], norm=norm, method=method, params=params)
    assert isinstance(mine, compat.Run) and mine.name == theirs.name
    a, b = mine.to_dict(), theirs.to_dict()
    assert a.keys() == b.keys()
    for q in b:
        assert a[q] == pytest.approx(b[q], rel=1e-9, abs=1e-12), q
        if len(set(b[q].values())) == len(b[q]):  # ranked the same where no fused ties
            assert list(a[q]) == list(b[q]), q


def test_fuse_keeps_queries_without_documents_and_checks_its_runs():
    runs = [{"q1": {"a": 1.0, "b": 0.5}, "q2": {}}, {"q1": {"b": 2.0}, "q2": {}}]
    mine = compat.fuse([compat.Run(r) for r in runs], norm=None, method="sum")
    theirs = ranx.fuse([ranx.Run(r) for r in runs], norm=None, method="sum")
    assert mine.to_dict() == dict(theirs.to_dict())
    assert len(mine) == len(theirs) == 2 and mine["q2"] == {}
    with pytest.raises(AssertionError):
        ranx.fuse([ranx.Run(runs[0])], method="sum")
    with pytest.raises(AssertionError, match="two runs"):
        compat.fuse([runs[0]], method="sum")
    with pytest.raises(AssertionError, match="different query ids") as caught:
        compat.fuse([runs[0], {"q1": {"a": 1.0}}], method="sum")
    assert isinstance(caught.value, InputError)
    for bad in ({"norm": "l2"}, {"method": "nope"}):
        with pytest.raises(ValueError):
            ranx.fuse([ranx.Run(r) for r in runs], **bad)
        with pytest.raises(ValueError) as raised:
            compat.fuse(runs, **bad)
        assert isinstance(raised.value, RanklensError)


def test_normalize_equals_ranx():
    _, runs = _runs(15, 1)
    for norm in ("min-max", "min-max-inverted", "max", "sum", "zmuv", "rank"):
        mine = compat.normalize(compat.Run(runs[0], name="r"), norm)
        theirs = ranx.normalize(ranx.Run(runs[0], name="r"), norm)
        assert mine.name == theirs.name == "r"
        a, b = mine.to_dict(), theirs.to_dict()
        for q in b:
            assert a[q] == pytest.approx(b[q], rel=1e-12, abs=1e-12), (norm, q)


def test_unknown_metrics_are_value_errors_as_in_ranx():
    qrels, run = {"q": {"a": 1}}, {"q": {"a": 1.0}}
    for name in ("nope@10", "rbp"):
        with pytest.raises(ValueError):
            ranx.evaluate(qrels, run, name)
        with pytest.raises(ValueError) as caught:
            compat.evaluate(qrels, run, name)
        assert isinstance(caught.value, MeasureError)
    with pytest.raises(AssertionError):
        ranx.evaluate(qrels, run, [1])
    with pytest.raises(AssertionError, match="metrics"):
        compat.evaluate(qrels, run, [1])
    with pytest.raises(MeasureError, match="below 1"):
        compat.evaluate(qrels, run, "ndcg-l0")
    with pytest.raises(OptionError, match="ties"):
        compat.evaluate(qrels, run, "map", ties="random")
    with pytest.raises(OptionError, match="threads"):
        compat.evaluate(qrels, run, "map", threads=-1)


def test_evaluate_takes_frames_paths_and_ranklens_objects(tmp_path):
    pandas = pytest.importorskip("pandas")
    qrels, run = matched(*make_data(16, empty=False))
    expected = compat.evaluate(qrels, run, METRICS)
    frame_q = pandas.DataFrame(
        [(q, d, g) for q, docs in qrels.items() for d, g in docs.items()],
        columns=["q_id", "doc_id", "score"],
    )
    frame_r = compat.Run(run).to_dataframe()
    compat.Qrels(qrels).save(tmp_path / "qrels.trec")
    compat.Run(run, name="r").save(tmp_path / "run.json")
    for q, r in [
        (frame_q, frame_r),
        (str(tmp_path / "qrels.trec"), tmp_path / "run.json"),
        (ranklens.Qrels.from_dict(qrels), ranklens.Run.from_dict(run)),
    ]:
        got = compat.evaluate(q, r, METRICS)
        assert got == pytest.approx(expected, abs=1e-12)
    with pytest.raises(ValueError, match="arrays") as caught:
        compat.evaluate(qrels, [np.zeros((1, 2))], "map")
    assert isinstance(caught.value, InputError)
    with pytest.raises(ValueError, match="qrels must be"):
        compat.evaluate(3, run, "map")


def test_the_package_does_not_import_ranx():
    import ranklens.compat.ranx as module

    root = pathlib.Path(module.__file__).parent
    files = sorted(root.rglob("*.py"))
    assert len(files) > 20
    for path in files:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        imported = {
            alias.name.split(".")[0]
            for node in ast.walk(tree)
            if isinstance(node, ast.Import)
            for alias in node.names
        } | {
            (node.module or "").split(".")[0]
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.level == 0
        }
        assert "ranx" not in imported, path
        assert "numba" not in imported, path
