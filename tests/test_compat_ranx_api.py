"""The rest of ranx's API in ranklens.compat.ranx, against ranx itself: arrays and typed lists,
the metric functions, ``Qrels``/``Run`` methods, files in ranx's formats, the statistical
tests, the errors ranx's users catch, and the harness that runs ranx's own suite.

Generated data (tests/ranx_support.py): graded and negative labels, unjudged retrieved
documents, queries without relevant documents, queries without any row on either side,
repeated rows as ranx counts them.
"""

from __future__ import annotations

import gzip
import re
import subprocess
import sys
import uuid
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ranklens.base.errors import DuplicateError, InputError, OptionError, RanklensError
from ranklens.compat import ranx as compat
from ranklens.compat.ranx import metrics as compat_metrics
from ranklens.compat.ranx import statistical_tests as compat_tests
from ranx_support import METRICS, make_arrays, make_data, matched

ranx = pytest.importorskip("ranx")
numba_typed = pytest.importorskip("numba.typed")
from ranx import metrics as ranx_metrics  # noqa: E402
from ranx import statistical_tests as ranx_tests  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore")  # numba's warnings inside ranx
TypedList = numba_typed.List
ROOT = Path(__file__).resolve().parents[1]


def same(a, b) -> None:
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=0, atol=1e-12)


# ----------------------------------------------------------------------------- arrays


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_evaluate_on_arrays_equals_ranx(seed):
    qrels, run = make_arrays(seed)
    theirs = ranx.evaluate(TypedList(qrels), TypedList(run), METRICS, return_mean=False)
    for form in (TypedList, list, tuple):
        mine = compat.evaluate(form(qrels), form(run), METRICS, return_mean=False)
        for m in METRICS:
            same(mine[m], theirs[m])
    assert compat.evaluate(TypedList(qrels), TypedList(run), "map") == pytest.approx(
        ranx.evaluate(TypedList(qrels), TypedList(run), "map"), abs=1e-12
    )


def test_evaluate_on_three_dimensional_arrays_equals_ranx():
    rng = np.random.default_rng(3)
    qrels = np.stack(
        [
            np.column_stack([rng.choice(30, 6, replace=False), rng.integers(0, 4, 6)])
            for _ in range(5)
        ]
    )
    qrels = np.stack([q[np.argsort(-q[:, 1], kind="stable")] for q in qrels])
    run = np.stack(
        [np.column_stack([rng.choice(30, 9, replace=False), np.arange(9, 0, -1)]) for _ in range(5)]
    )
    for m in METRICS:
        same(
            compat.evaluate(qrels, run, [m, "hits"], return_mean=False)[m],
            ranx.evaluate(qrels, run, [m, "hits"], return_mean=False)[m],
        )


ARRAY_FUNCTIONS = [
    "average_precision",
    "f1",
    "hit_rate",
    "hits",
    "precision",
    "r_precision",
    "recall",
    "reciprocal_rank",
    "dcg",
    "ndcg",
    "dcg_burges",
    "ndcg_burges",
]


@pytest.mark.parametrize("name", ARRAY_FUNCTIONS)
def test_metric_functions_equal_ranx(name):
    qrels, run = make_arrays(4, n_queries=16)
    mine_f, theirs_f = getattr(compat_metrics, name), getattr(ranx_metrics, name)
    for k in (0, 1, 3, 100):
        for rel_lvl in (1, 2, 3):
            same(
                mine_f(TypedList(qrels), TypedList(run), k, rel_lvl),
                theirs_f(TypedList(qrels), TypedList(run), k, rel_lvl),
            )
    if name != "r_precision":  # ranx's r_precision does not read k
        with pytest.raises(AssertionError):
            theirs_f(TypedList(qrels), TypedList(run), -1)
        with pytest.raises(AssertionError, match="k must be") as caught:
            mine_f(qrels, run, -1)
        assert isinstance(caught.value, OptionError)


def test_rbp_hit_lists_and_interpolated_precision_equal_ranx():
    qrels, run = make_arrays(5, n_queries=16)
    q, r = TypedList(qrels), TypedList(run)
    for p in (0.5, 0.8, 0.95):
        for rel_lvl in (1, 2):
            same(
                compat_metrics.rank_biased_precision(qrels, run, p, rel_lvl),
                ranx_metrics.rank_biased_precision(q, r, p, rel_lvl),
            )
    for k in (0, 2, 50):
        for rel_lvl in (1, 2):
            mine = compat_metrics.get_hit_lists(qrels, run, k, rel_lvl)
            theirs = ranx_metrics.get_hit_lists(q, r, k, rel_lvl)
            assert len(mine) == len(theirs)
            for a, b in zip(mine, theirs, strict=True):
                same(a, b)
    for rel_lvl in (1, 2):
        same(
            compat_metrics.interpolated_precision_at_recall(qrels, run, rel_lvl),
            ranx_metrics.interpolated_precision_at_recall(q, r, rel_lvl),
        )
    from ranx.metrics.get_non_rel_lists import get_non_rel_lists
    from ranx.metrics.get_unjudged_lists import get_unjudged_lists

    from ranklens.compat.ranx.metrics.get_non_rel_lists import get_non_rel_lists as mine_non_rel
    from ranklens.compat.ranx.metrics.get_unjudged_lists import get_unjudged_lists as mine_unj

    for mine_list, theirs_list in (
        (mine_unj(qrels, run, 0), get_unjudged_lists(q, r, 0)),
        (mine_non_rel(qrels, run, 4), get_non_rel_lists(q, r, 4)),
    ):
        for a, b in zip(mine_list, theirs_list, strict=True):
            same(a, b)


def test_bpref_function_equals_ranx_per_query_where_ranx_follows_its_definition():
    # ranx's multi-query bpref is 0 after a query it cannot divide for: compare one query at
    # a time, on queries with judged relevant and non-relevant documents, no negative grade
    qrels, run = make_arrays(6, n_queries=30, repeats=False)
    compared = 0
    for q, r in zip(qrels, run, strict=True):
        if not (len(q) and (q[:, 1] >= 1).any() and (q[:, 1] == 0).any() and (q[:, 1] >= 0).all()):
            continue
        same(compat_metrics.bpref([q], [r]), ranx_metrics.bpref(TypedList([q]), TypedList([r])))
        compared += 1
    assert compared >= 3


def test_typed_lists_of_the_objects_give_ranx_s_numbers():
    qrels, run = matched(*make_data(7, negative=False))
    mine_q, mine_r = compat.Qrels(qrels).to_typed_list(), compat.Run(run).to_typed_list()
    theirs_q, theirs_r = ranx.Qrels(qrels).to_typed_list(), ranx.Run(run).to_typed_list()
    assert len(mine_q) == len(theirs_q) == len(qrels)
    for a, b in zip(mine_q, theirs_q, strict=True):  # the same rows (ties: any order)
        assert sorted(map(tuple, a.tolist())) == sorted(map(tuple, b.tolist()))
        assert (np.diff(a[:, 1]) <= 0).all()  # by decreasing relevance
    for a, b in zip(mine_r, theirs_r, strict=True):
        same(a, b)  # no tied scores: the same ranked rows
    for name in ARRAY_FUNCTIONS:
        same(
            getattr(compat_metrics, name)(mine_q, mine_r, 10),
            getattr(ranx_metrics, name)(theirs_q, theirs_r, 10),
        )


def test_array_input_errors_are_value_errors():
    q = [np.array([[1.0, 1.0], [2.0, 0.0]])]
    r = [np.array([[1.0, 0.9], [3.0, 0.5]])]
    cases = [
        (q, [np.array([[1.0, 0.9], [1.0, 0.5]])], "retrieved twice"),
        ([np.array([[1.0, 1.0], [1.0, 2.0]])], r, "judged twice"),
        ([np.array([[1.0, 1.5]])], r, "not an integer"),
        ([np.array([[np.nan, 1.0]])], r, "NaN"),
        (q, r + r, "as many"),
        (q, [np.zeros((2, 3))], "shape"),
        (np.array([[1.0, 1.0]]), r, "one query"),
        (q, {"q": {"a": 1.0}}, "both as arrays"),
    ]
    for qrels, run, message in cases:
        with pytest.raises(ValueError, match=message) as caught:
            compat.evaluate(qrels, run, "map")
        assert isinstance(caught.value, InputError)
    # an unjudged document retrieved twice counts at both ranks, as in ranx
    twice = [np.array([[5.0, 0.9], [5.0, 0.8], [1.0, 0.7]])]
    assert compat.evaluate(q, twice, "mrr") == ranx.evaluate(TypedList(q), TypedList(twice), "mrr")


# ----------------------------------------------------------------------------- objects


OPERATIONS = st.lists(
    st.one_of(
        st.tuples(st.just("add_score"), st.integers(0, 4), st.integers(0, 6), st.integers(0, 99)),
        st.tuples(st.just("add"), st.integers(0, 4), st.integers(1, 4), st.integers(0, 99)),
        st.tuples(st.just("sort"), st.just(0), st.just(0), st.just(0)),
        st.tuples(st.just("run"), st.integers(0, 4), st.integers(0, 6), st.integers(0, 99)),
        st.tuples(st.just("comparable"), st.integers(0, 4), st.just(0), st.just(0)),
    ),
    max_size=12,
)


def _apply(obj, op, seen):
    kind, q, d, v = op
    score = v + len(seen) / 1000  # distinct scores: ranx's order of ties is its sort's
    seen.append(score)
    if kind == "add_score":
        obj.add_score(f"q{q}", f"d{d}", score)
    elif kind == "add":
        docs = [f"d{i}" for i in range(d)]
        obj.add(f"q{q}", docs, [score + i / 10 for i in range(d)])
    elif kind == "sort":
        obj.sort()
    elif kind == "run" and f"q{q}" in obj.run:
        obj.run[f"q{q}"][f"d{d}"] = score  # ranx's users edit run.run
    elif kind == "comparable":
        qrels_type = compat.Qrels if isinstance(obj, compat.Run) else ranx.Qrels
        obj.make_comparable(qrels_type({f"q{i}": {"d0": 1} for i in range(q, q + 3)}))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(OPERATIONS)
def test_run_methods_behave_as_ranx(operations):
    mine, theirs = compat.Run(), ranx.Run()
    mine_seen: list[float] = []
    theirs_seen: list[float] = []
    for op in operations:
        _apply(mine, op, mine_seen)
        _apply(theirs, op, theirs_seen)
        assert mine.sorted == theirs.sorted
        assert len(mine) == len(theirs) == mine.size
        assert set(mine.keys()) == set(theirs.keys())
        assert mine.to_dict() == {q: dict(v) for q, v in theirs.to_dict().items()}
        if mine.sorted:  # ranx's order: queries sorted, documents by decreasing score
            assert list(mine.run) == list(theirs.run)
            for q in theirs.run:
                assert list(mine.run[q]) == list(theirs.run[q])
    qrels = {q: {d: 1 for d in list(docs)[:2]} for q, docs in mine.to_dict().items()}
    if qrels and any(qrels.values()):
        mine.sort()  # ranx ranks a run.run edited in place in the dict's order until then
        theirs.sort()
        mine_values = compat.evaluate(compat.Qrels(qrels), mine, ["map", "ndcg@3"])
        theirs_values = ranx.evaluate(ranx.Qrels(qrels), theirs, ["map", "ndcg@3"])
        assert mine_values == pytest.approx(theirs_values, abs=1e-12)


def test_qrels_methods_behave_as_ranx():
    for qrels_type in (compat.Qrels, ranx.Qrels):
        qrels = qrels_type()
        qrels.add_score("q1", "d1", 1)
        qrels.add_score("q1", "d2", 3)
        qrels.add_score("q2", "d1", 2)
        assert qrels.sorted is False
        qrels.add_multi(["q3"], [["d1", "d2"]], [[0, 2]])
        assert qrels.sorted is True and qrels.size == 3
        qrels.set_relevance_level(2)
        assert qrels["q1"] == {"d2": 2, "d1": 0}
        assert qrels.get_query_ids() == ["q1", "q2", "q3"]
        assert [dict(d) for d in qrels.get_doc_ids_and_scores()] == [
            {"d2": 2, "d1": 0},
            {"d1": 1},
            {"d2": 1, "d1": -1},
        ]
    # the same from a dict, in table form, and the values ranx computes on them
    data = make_data(8)[0]
    mine, theirs = compat.Qrels(data), ranx.Qrels(data)
    mine.set_relevance_level(2)
    theirs.set_relevance_level(2)
    assert mine.to_dict() == {q: dict(v) for q, v in theirs.to_dict().items()}
    run = make_data(8)[1]
    assert compat.evaluate(mine, compat.Run(run), METRICS, make_comparable=True) == pytest.approx(
        ranx.evaluate(theirs, ranx.Run(run), METRICS, make_comparable=True), abs=1e-12
    )


def test_edited_dicts_are_the_objects():
    qrels, run = matched(*make_data(9, empty=False))
    mine, theirs = compat.Run(run), ranx.Run(run)
    q = next(iter(run))
    for r in (mine, theirs):
        # ranx's users edit run.run in place (ranx ranks an edited run in the dict's order
        # until sort() is called, ranklens by score: a lowest score keeps both orders equal)
        r.run[q]["new"] = -1e9
        r.run[q].pop(next(iter(run[q])))
    mine_q, theirs_q = compat.Qrels(qrels), ranx.Qrels(qrels)
    for qr in (mine_q, theirs_q):
        # ranx reads an edited qrels dict in its order until sort(): ranklens sorts the
        # ideal ranking always; a grade 0 appended keeps both orders equal
        qr.qrels[q]["new"] = 0
        qr.qrels[q][next(iter(qrels[q]))] = 0
    assert compat.evaluate(mine_q, mine, METRICS) == pytest.approx(
        ranx.evaluate(theirs_q, theirs, METRICS), abs=1e-12
    )
    replaced = compat.Run()
    replaced.run = {"q": {"a": 1.0}}
    assert replaced["q"] == {"a": 1.0} and replaced.data.num_queries == 1
    with pytest.raises(ValueError, match=r"Run\.run must be"):
        replaced.run = [1, 2]


def test_an_edited_run_is_ranked_by_score_where_ranx_keeps_the_dict_order():
    """A documented difference: a score raised in ``run.run`` moves the document up here; ranx
    keeps ranking the dict in its order (still marked sorted) until ``sort()``."""
    qrels = {"q": {"c": 1}}
    mine, theirs = (
        compat.Run({"q": {"a": 3.0, "b": 2.0, "c": 1.0}}),
        ranx.Run({"q": {"a": 3.0, "b": 2.0, "c": 1.0}}),
    )
    for run in (mine, theirs):
        run.run["q"]["c"] = 9.0
    assert compat.evaluate(qrels, mine, "mrr") == 1.0
    assert ranx.evaluate(qrels, theirs, "mrr") == pytest.approx(1 / 3)
    theirs.sort()
    assert ranx.evaluate(qrels, theirs, "mrr") == 1.0


def test_make_comparable_as_ranx():
    qrels = {"q1": {"d1": 1}, "q2": {"d1": 1}, "q3": {"d1": 1}}
    run = {"q1": {"d1": 0.3, "d2": 0.1}, "q2": {"d1": 0.1}, "q4": {"d1": 0.1}}
    mine = compat.Run(run).make_comparable(compat.Qrels(qrels))
    theirs = ranx.Run(run).make_comparable(ranx.Qrels(qrels))
    assert mine.to_dict() == {q: dict(v) for q, v in theirs.to_dict().items()}
    assert mine.run["q3"] == {} and "q4" not in mine


# ----------------------------------------------------------------------------- files


@pytest.mark.parametrize("kind", ["json", "trec", "lz4", "gz"])
def test_run_files_read_and_written_as_ranx(tmp_path, kind):
    if kind == "lz4":
        pytest.importorskip("lz4")
        pytest.importorskip("cbor2")
    _, run = make_data(10, empty=False)
    path = tmp_path / f"run.{kind}"
    compat.Run(run, name="bm25").save(path)
    if kind != "gz":  # ranx writes plain text into a .gz file; reads gzipped ones
        ranx_path = tmp_path / f"ranx.{kind}"
        ranx.Run(run, name="bm25").save(str(ranx_path))
        back = compat.Run.from_file(ranx_path)
        assert back.to_dict() == {q: dict(v) for q, v in ranx.Run(run).to_dict().items()}
    theirs = ranx.Run.from_file(str(path))
    mine = compat.Run.from_file(path)
    assert mine.to_dict() == {q: dict(v) for q, v in theirs.to_dict().items()}
    assert mine.to_dict() == compat.Run(run).to_dict()
    if kind in ("trec", "gz"):
        assert mine.name == theirs.name == "bm25"  # the file's tag


@pytest.mark.parametrize("kind", ["json", "trec", "gz"])
def test_qrels_files_read_and_written_as_ranx(tmp_path, kind):
    qrels, _ = make_data(11, empty=False)
    path = tmp_path / f"qrels.{kind}"
    compat.Qrels(qrels).save(path)
    theirs = ranx.Qrels.from_file(str(path))
    mine = compat.Qrels.from_file(path)
    assert mine.to_dict() == {q: dict(v) for q, v in theirs.to_dict().items()} == qrels
    if kind != "gz":
        ranx.Qrels(qrels).save(str(tmp_path / f"ranx.{kind}"))
        assert compat.Qrels.from_file(tmp_path / f"ranx.{kind}").to_dict() == qrels


def test_parquet_and_frames_as_ranx_writes_them(tmp_path):
    pandas = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    qrels, run = make_data(12, empty=False)
    ranx.Run(run).to_dataframe().to_parquet(tmp_path / "run.parquet", index=False)
    ranx.Qrels(qrels).to_dataframe().to_parquet(tmp_path / "qrels.parq", index=False)
    assert compat.Run.from_file(tmp_path / "run.parquet").to_dict() == compat.Run(run).to_dict()
    assert compat.Qrels.from_file(tmp_path / "qrels.parq").to_dict() == qrels
    pandas.testing.assert_frame_equal(
        compat.Run(run).to_dataframe().sort_values(["q_id", "doc_id"], ignore_index=True),
        ranx.Run(run).to_dataframe().sort_values(["q_id", "doc_id"], ignore_index=True),
    )
    compat.Run(run).save(tmp_path / "mine.parquet")
    frame = pandas.read_parquet(tmp_path / "mine.parquet", **{"columns": ["q_id", "doc_id"]})
    assert len(frame) == sum(len(v) for v in run.values())
    again = compat.Run.from_parquet(tmp_path / "mine.parquet", pd_kwargs={"engine": "pyarrow"})
    assert again.to_dict() == compat.Run(run).to_dict()


def test_file_kinds_and_file_errors(tmp_path):
    from ranx.data_structures.qrels import get_file_kind as ranx_qrels_kind
    from ranx.data_structures.run import get_file_kind as ranx_run_kind

    from ranklens.compat.ranx.data_structures.qrels import get_file_kind as qrels_kind
    from ranklens.compat.ranx.data_structures.run import get_file_kind as run_kind

    for name in ("a.json", "a.trec", "a.txt", "a.gz", "a.lz4", "a.parquet", "a.parq", "a.res"):
        for mine, theirs in ((run_kind, ranx_run_kind), (qrels_kind, ranx_qrels_kind)):
            try:
                expected = theirs(name)
            except AssertionError:
                with pytest.raises(AssertionError) as caught:
                    mine(name)
                assert isinstance(caught.value, OptionError)
            else:
                assert mine(name) == expected
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(ValueError, match=r"bad\.json:1") as caught:
        compat.Run.from_file(tmp_path / "bad.json")
    assert isinstance(caught.value, InputError)
    (tmp_path / "bad.lz4").write_bytes(b"not lz4")
    with pytest.raises(ValueError, match="LZ4"):
        compat.Run.from_file(tmp_path / "bad.lz4")
    (tmp_path / "bad.trec").write_text("q1 Q0 d1 1 high run\n")
    with pytest.raises(ValueError, match=r"bad\.trec:1") as caught:
        compat.Run.from_file(tmp_path / "bad.trec")
    assert isinstance(caught.value, RanklensError)
    with gzip.open(tmp_path / "r.gz", "wt") as handle:
        handle.write("q1 Q0 d1 1 0.5 x\nq1 Q0 d1 2 0.4 x\n")
    with pytest.raises(ValueError, match="twice"):
        compat.Run.from_file(tmp_path / "r.gz")
    with pytest.raises(OptionError, match="ranxhub"):
        compat.Run.from_ranxhub("msmarco-passage/bm25")


def test_frames_with_pandas_string_ids_are_read():
    pandas = pytest.importorskip("pandas")
    frame = pandas.DataFrame(
        {"q_id": ["q1", "q1", "q2"], "doc_id": ["d1", "d2", "d1"], "score": [1.5, 2.5, 1.0]}
    )
    run = compat.Run.from_df(frame, name="x")
    assert run.run == {"q1": {"d2": 2.5, "d1": 1.5}, "q2": {"d1": 1.0}} and run.name == "x"
    grades = frame.assign(score=[1, 2, 0])
    assert compat.Qrels.from_df(grades).qrels == {"q1": {"d2": 2, "d1": 1}, "q2": {"d1": 0}}


def test_from_ir_datasets_equals_ranx(tmp_path, monkeypatch):
    monkeypatch.setenv("IR_DATASETS_HOME", str(tmp_path / "irds_home"))
    irds = pytest.importorskip("ir_datasets")
    from ir_datasets.formats import TrecQrels
    from ir_datasets.util import LocalDownload

    qrels, _ = make_data(13, empty=False)
    lines = [f"{q} 0 {d} {g}" for q, docs in qrels.items() for d, g in docs.items()]
    lines.append(lines[0].rsplit(" ", 1)[0] + " 3")  # judged again: the last one counts
    (tmp_path / "qrels.txt").write_text("\n".join(lines) + "\n")
    name = f"ranklens-test/{uuid.uuid4().hex}"
    dataset = irds.datasets.base.Dataset(TrecQrels(LocalDownload(str(tmp_path / "qrels.txt")), {}))
    irds.registry.register(name, dataset)
    mine, theirs = compat.Qrels.from_ir_datasets(name), ranx.Qrels.from_ir_datasets(name)
    assert mine.name == theirs.name == name
    assert mine.to_dict() == {q: dict(v) for q, v in theirs.to_dict().items()}
    with pytest.raises(InputError, match="no dataset"):
        compat.Qrels.from_ir_datasets("no/such/dataset/here")


# ----------------------------------------------------------------------------- report, tests


def test_frozenset_dict_and_report_pairs():
    from ranx.data_structures import FrozensetDict as RanxFrozensetDict

    for cls in (compat.FrozensetDict, RanxFrozensetDict):
        d = cls({("a", "b"): 1})
        d["c", "a"] = 2
        assert d["b", "a"] == 1 and d[frozenset({"a", "c"})] == 2 and len(d) == 2
        del d["a", "b"]
        assert list(d) == [frozenset({"a", "c"})]


def test_statistical_tests_equal_ranx():
    rng = np.random.default_rng(14)
    a, b, c = rng.random(40), rng.random(40) * 0.9, rng.random(40) * 0.7
    mine = compat_tests.paired_student_t_test(a, b, 0.05)
    theirs = ranx_tests.paired_student_t_test(a, b, 0.05)
    assert mine[0] == pytest.approx(theirs[0], rel=1e-12) and mine[1] == theirs[1]
    p, significant = compat_tests.fisher_randomization_test(a, c, 4000, 0.05, 7)
    assert abs(p - ranx_tests.fisher_randomization_test(a, c, 4000, 0.05, 7)[0]) < 0.03
    assert significant == (p <= 0.05)
    names = ["x", "y", "z"]
    mine_t = compat_tests.tukey_hsd_test(names, [a, b, c], 0.05)
    theirs_t = ranx_tests.tukey_hsd_test(names, [a, b, c], 0.05)
    assert [(e["control"], e["treatment"]) for e in mine_t] == [
        (e["control"], e["treatment"]) for e in theirs_t
    ]
    for x, y in zip(mine_t, theirs_t, strict=True):
        assert x["p-value"] == pytest.approx(y["p-value"], rel=1e-9, abs=1e-15)
        assert x["significant"] == y["significant"]
    scores = {n: {"m1": s, "m2": s**2} for n, s in zip(names, (a, b, c), strict=True)}
    mine_c = compat_tests.compute_statistical_significance(names, scores, "student")
    theirs_c = ranx_tests.compute_statistical_significance(names, scores, "student")
    assert set(mine_c) == set(theirs_c)
    for pair in theirs_c:
        for m in ("m1", "m2"):
            assert mine_c[pair][m]["p_value"] == pytest.approx(theirs_c[pair][m]["p_value"])
    with pytest.raises(NotImplementedError):
        compat_tests.compute_statistical_significance(names, scores, "wilcoxon")


# ----------------------------------------------------------------------------- errors


def _catches(call, builtin):
    """``call`` raises ``builtin`` (as ranx does there), and a ranklens error."""
    with pytest.raises(builtin) as caught:
        call()
    assert isinstance(caught.value, RanklensError), type(caught.value)
    return caught.value


def test_errors_are_caught_as_ranx_users_catch_them():
    """Issue 35, item 13: each error raised through the module is a ranklens error and the
    builtin class ranx raises in the same place."""
    qrels, run = make_data(15, empty=False)
    for call, builtin in [
        (lambda: ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), "map"), AssertionError),
        (lambda: ranx.evaluate(qrels, run, "map", make_comparable=True), AssertionError),
        (lambda: ranx.Run({"q": {"a": "high"}}), ValueError),
        (lambda: ranx.fuse([ranx.Run(run)]), AssertionError),
    ]:
        with pytest.raises(builtin):
            call()
    _catches(lambda: compat.evaluate(compat.Qrels(qrels), compat.Run(run), "map"), AssertionError)
    _catches(lambda: compat.Run({"q": {"a": "high"}}), ValueError)
    _catches(lambda: compat.Qrels({"q": {"a": 1.5}}), ValueError)
    _catches(
        lambda: compat.Run({"q": {"a": 1.0}}).add_multi(["q"], [["a", "b"]], [[1.0]]), ValueError
    )
    _catches(lambda: compat.fuse([compat.Run(run)]), AssertionError)
    _catches(lambda: compat.evaluate(qrels, run, "nope", make_comparable=True), ValueError)
    _catches(lambda: compat.Run.from_file("run.xyz"), AssertionError)
    _catches(
        lambda: compat_metrics.hits([np.zeros((0, 2))], [np.zeros((0, 2))], -2), AssertionError
    )
    _catches(lambda: compat.compare(qrels, [run, run], "map", stat_test="x"), NotImplementedError)
    _catches(lambda: compat.fuse([run, run], method="nope"), ValueError)
    _catches(lambda: compat.normalize(run, "l2"), ValueError)
    _catches(lambda: compat.evaluate(compat.Qrels(), compat.Run(), "map"), ValueError)
    _catches(lambda: compat.compare({}, [run, run], "map"), ValueError)
    with pytest.raises(FileNotFoundError):
        ranx.Run.from_file(str(ROOT / "no" / "such.trec"))
    for read in (compat.Run.from_file, compat.Qrels.from_file, compat.Run.from_parquet):
        error = _catches(lambda read=read: read(ROOT / "no" / "such.trec"), FileNotFoundError)
        assert isinstance(error, InputError) and "no such file" in str(error)


def test_repeated_rows_keep_their_class():
    pandas = pytest.importorskip("pandas")
    frame = pandas.DataFrame({"q_id": ["q", "q"], "doc_id": ["a", "a"], "score": [1, 2]})
    error = _catches(lambda: compat.Qrels.from_df(frame), ValueError)
    assert isinstance(error, compat.RanxInputError) and isinstance(error, DuplicateError)
    assert error.document == "a" and "twice" in str(error)


# ----------------------------------------------------------------------------- harness


def test_the_harness_resolves_every_ranx_import_to_ranklens():
    code = """
import sys
sys.path.insert(0, "tools")
import run_peer_suite
mapping = run_peer_suite.redirect_ranx()
import ranx, ranx.metrics.ndcg, ranx.fusion.condorcet
from ranx.data_structures.run import get_file_kind
from ranx.metrics.recall import recall
import ranx.metrics as rm
try:
    import ranx.ranxhub
except ModuleNotFoundError as error:
    refused = str(error)
ndcg_module = sys.modules["ranx.metrics.ndcg"].__name__
print(ranx.__name__, ndcg_module, get_file_kind.__module__, rm.recall is recall)
print(refused)
print(mapping["ranx.fusion.wsum"], repr(mapping["ranx.utils"]), "numba" in sys.modules)
"""
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    lines = done.stdout.splitlines()
    assert lines[0] == (
        "ranklens.compat.ranx ranklens.compat.ranx.metrics.ndcg "
        "ranklens.compat.ranx.data_structures.run True"
    )
    assert "ranx.ranxhub has no counterpart" in lines[1]
    assert lines[2] == "ranklens.compat.ranx.fusion.wsum '' False"


def test_the_harness_lists_each_documented_difference_in_the_docs():
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import run_peer_suite
    finally:
        sys.path.remove(str(ROOT / "tools"))
    docs = (ROOT / "docs" / "coming-from.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"tests/unit/ranx/[\w/]+\.py::test_\w+", docs))
    patterns = list(run_peer_suite.PEERS["ranx"].differences)
    assert listed and patterns
    for pattern in patterns:
        assert any(re.search(pattern, test) for test in listed), pattern
    for test in listed:
        assert any(re.search(pattern, test) for pattern in patterns), test


# ----------------------------------------------------------------------------- dicts read


@settings(max_examples=60, deadline=None)
@given(
    st.dictionaries(
        st.text(min_size=1, max_size=3),
        st.dictionaries(
            st.text(min_size=1, max_size=3),
            st.one_of(
                st.floats(-1e6, 1e6, allow_nan=False),
                st.integers(-5, 5),
                st.sampled_from([np.float64(0.25), np.float32(0.5), np.int64(3)]),
            ),
            max_size=6,
        ),
        max_size=5,
    )
)
def test_dicts_read_directly_equal_ranklens_from_dict(content):
    """A plain dict is read without ranklens' per-entry validation; anything else goes
    through it. Both give the same table (and ranklens' errors for what is not valid)."""
    import ranklens
    from ranklens.compat.ranx import _convert

    filled = {q: docs for q, docs in content.items() if docs}
    try:
        reference = ranklens.Run.from_dict(filled)
    except InputError as error:
        with pytest.raises(ValueError) as caught:
            compat.Run(content)
        assert str(caught.value) == str(error)
        return
    table, order = _convert.run_from_dict(content, "run")
    assert order == list(content) and table.qids == reference.qids
    for ties in ("trec_eval", "input"):
        assert [table.docid(i) for i in table.ranking(ties)] == [
            reference.docid(i) for i in reference.ranking(ties)
        ]
    np.testing.assert_array_equal(table.scores, reference.scores)
    grades = {q: {d: int(v) for d, v in docs.items()} for q, docs in filled.items()}
    if grades:
        qrels, _ = _convert.qrels_from_dict(grades)
        assert qrels.to_dict() == ranklens.Qrels.from_dict(grades).to_dict()


def test_what_a_dict_may_not_hold_is_refused_as_ranklens_refuses_it():
    for bad in (
        {"q\udc80": {"a": 1.0}},
        {"q": {"a\udc80": 1.0}},
        {"q": {"a": float("nan")}},
        {"q": {"a": True}},
        {"q": {"a": 10**400}},
        {"q": ["a"]},
        {("q",): {"a": 1.0}},
    ):
        error = _catches(lambda bad=bad: compat.Run(bad), ValueError)
        assert isinstance(error, InputError)
    for bad in ({"q": {"a": 1.5}}, {"q": {"a": 2**70}}, {"q": {"a": np.uint64(2**63)}}):
        _catches(lambda bad=bad: compat.Qrels(bad), ValueError)
