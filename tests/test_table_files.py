"""The ecosystem's objects go straight in (issue #12, point 7): Qrels, Run and Results
round-trip exactly through Parquet and JSON lines; ir_datasets ids, dataset objects and
``qrels_iter()`` namedtuples are accepted (tested offline on a dataset registered from
local files under a temporary ``IR_DATASETS_HOME``)."""

from __future__ import annotations

import gzip
import math
import uuid
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ranklens
from ranklens.base.errors import InputError, ParseError
from ranklens.cli import main
from ranklens.data.examples import example_paths

pytest.importorskip("pyarrow")

MEASURES = ["AP", "nDCG@10", "P(rel=2)@10", "RR", "num_ret", "GMAP", "Rprec"]


def _same_grouped(a: Any, b: Any) -> None:
    assert a.qids == b.qids
    assert np.array_equal(a.q_offsets, b.q_offsets)
    assert a.docids() == b.docids()


def _same_qrels(a: ranklens.Qrels, b: ranklens.Qrels) -> None:
    _same_grouped(a, b)
    assert a.rels.dtype == b.rels.dtype and np.array_equal(a.rels, b.rels)


def _same_run(a: ranklens.Run, b: ranklens.Run) -> None:
    _same_grouped(a, b)
    assert a.name == b.name
    # bit for bit
    assert np.array_equal(a.scores.view(np.int64), b.scores.view(np.int64))


@pytest.mark.parametrize("suffix", [".parquet", ".jsonl", ".jsonl.gz"])
def test_example_round_trips(tmp_path: Path, suffix: str) -> None:
    qrels_path, run_paths = example_paths()
    qrels = ranklens.Qrels.from_file(qrels_path)
    run = ranklens.Run.from_file(run_paths[0])
    if suffix == ".parquet":
        qrels.to_parquet(tmp_path / f"q{suffix}")
        run.to_parquet(tmp_path / f"r{suffix}")
        back_q = ranklens.Qrels.from_parquet(tmp_path / f"q{suffix}")
        back_r = ranklens.Run.from_parquet(tmp_path / f"r{suffix}")
    else:
        qrels.to_jsonl(tmp_path / f"q{suffix}")
        run.to_jsonl(tmp_path / f"r{suffix}")
        back_q = ranklens.Qrels.from_jsonl(tmp_path / f"q{suffix}")
        back_r = ranklens.Run.from_jsonl(tmp_path / f"r{suffix}")
    _same_qrels(qrels, back_q)
    _same_run(run, back_r)
    # a path with the suffix goes straight into evaluate, with the TREC file's numbers
    res = ranklens.evaluate(str(tmp_path / f"q{suffix}"), str(tmp_path / f"r{suffix}"), MEASURES)
    ref = ranklens.evaluate(qrels_path, run_paths[0], MEASURES)
    assert res.run == ref.run == "bm25"
    assert res.queries == ref.queries and np.array_equal(res.values, ref.values)


def test_files_read_by_others(tmp_path: Path) -> None:
    pd = pytest.importorskip("pandas")
    run = ranklens.Run.from_dict({"q1": {"a": 0.1 + 0.2, "b": 1e-300}}, name="x")
    run.to_parquet(tmp_path / "r.parquet")
    frame = pd.read_parquet(tmp_path / "r.parquet")
    assert list(frame.columns) == ["query_id", "doc_id", "score"]
    assert frame.score.tolist() == [0.1 + 0.2, 1e-300]
    run.to_jsonl(tmp_path / "r.jsonl")
    first = (tmp_path / "r.jsonl").read_text().splitlines()[0]
    assert first == '{"query_id": "q1", "doc_id": "a", "score": 0.30000000000000004, "run": "x"}'


ids = st.text(
    st.characters(blacklist_categories=("Cs", "Cc", "Zs", "Zl", "Zp")), min_size=1, max_size=6
)
finite = st.floats(allow_nan=False, allow_infinity=False)


@settings(max_examples=40, deadline=None)
@given(
    entries=st.dictionaries(
        ids, st.dictionaries(ids, finite, min_size=1, max_size=5), min_size=1, max_size=5
    ),
    grades=st.integers(-(2**62), 2**62),
)
def test_any_run_and_qrels_round_trip_exactly(
    tmp_path_factory: pytest.TempPathFactory, entries: dict[str, dict[str, float]], grades: int
) -> None:
    root = tmp_path_factory.mktemp("rt")
    run = ranklens.Run.from_dict(entries, name="ünï")
    qrels = ranklens.Qrels.from_dict({q: {d: grades for d in docs} for q, docs in entries.items()})
    run.to_parquet(root / "r.parquet")
    run.to_jsonl(root / "r.jsonl")
    qrels.to_parquet(root / "q.parquet")
    qrels.to_jsonl(root / "q.jsonl")
    _same_run(run, ranklens.Run.from_parquet(root / "r.parquet"))
    _same_run(run, ranklens.Run.from_jsonl(root / "r.jsonl"))
    _same_qrels(qrels, ranklens.Qrels.from_parquet(root / "q.parquet"))
    _same_qrels(qrels, ranklens.Qrels.from_jsonl(root / "q.jsonl"))


def _same_results(a: ranklens.Results, b: ranklens.Results, counts: bool) -> None:
    assert (a.run, a.queries, a.measures) == (b.run, b.queries, b.measures)
    assert np.array_equal(a.values.view(np.int64), b.values.view(np.int64))  # nan too
    if counts:
        assert dict(a.query_counts) == dict(b.query_counts)


def test_results_round_trip(tmp_path: Path) -> None:
    qrels_path, run_paths = example_paths()
    res = ranklens.evaluate(qrels_path, run_paths[1], MEASURES)
    res.to_parquet(tmp_path / "res.parquet")
    _same_results(res, ranklens.Results.from_parquet(tmp_path / "res.parquet"), True)
    res.to_jsonl(tmp_path / "res.jsonl")
    back = ranklens.Results.from_jsonl(tmp_path / "res.jsonl")
    _same_results(res, back, False)
    assert back.aggregate == res.aggregate
    # nan (a measure undefined on a query) survives both
    nan = ranklens.Results(
        "r", res.measures[:2], ("q1", "q2"), np.array([[math.nan, 0.1 + 0.2], [1 / 3, math.nan]])
    )
    nan.to_parquet(tmp_path / "nan.parquet")
    nan.to_jsonl(tmp_path / "nan.jsonl")
    _same_results(nan, ranklens.Results.from_parquet(tmp_path / "nan.parquet"), True)
    _same_results(nan, ranklens.Results.from_jsonl(tmp_path / "nan.jsonl"), False)
    (tmp_path / "two.jsonl").write_text(
        (tmp_path / "nan.jsonl").read_text() + '{"run": "other", "query_id": "q3", "AP": 1}\n'
    )
    with pytest.raises(ParseError, match="second run 'other'"):
        ranklens.Results.from_jsonl(tmp_path / "two.jsonl")
    with pytest.raises(InputError, match="not a ranklens Results file"):
        ranklens.Results.from_parquet(_plain_parquet(tmp_path))


def _plain_parquet(tmp_path: Path) -> Path:
    ranklens.Qrels.from_dict({"q": {"d": 1}}).to_parquet(tmp_path / "plain.parquet")
    return tmp_path / "plain.parquet"


def test_bad_jsonl_names_the_line(tmp_path: Path) -> None:
    (tmp_path / "bad.jsonl").write_text('{"query_id": "q", "doc_id": "d", "score": 1}\n{oops\n')
    with pytest.raises(ParseError, match=r"bad.jsonl:2: not JSON"):
        ranklens.Run.from_jsonl(tmp_path / "bad.jsonl")
    (tmp_path / "bad2.jsonl").write_text('{"query_id": "q", "document": "d", "score": 1}\n')
    with pytest.raises(ParseError, match=r"bad2.jsonl:1: .*'doc_id'"):
        ranklens.evaluate({"q": {"d": 1}}, str(tmp_path / "bad2.jsonl"), "AP")


# ------------------------------------------------------------------------ ir_datasets


@pytest.fixture()
def dataset(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[str, Any, str]:
    """A dataset registered from the example qrels (and the bm25 run as its scoreddocs)
    under a temporary IR_DATASETS_HOME: nothing is downloaded."""
    monkeypatch.setenv("IR_DATASETS_HOME", str(tmp_path / "irds_home"))
    irds = pytest.importorskip("ir_datasets", reason="needs ir_datasets")
    from ir_datasets.formats import TrecQrels, TrecScoredDocs
    from ir_datasets.util import LocalDownload

    qrels_path, run_paths = example_paths()
    qrels_txt = tmp_path / "qrels.txt"
    with gzip.open(qrels_path, "rt") as f:
        qrels_txt.write_text(f.read())
    run_txt = tmp_path / "run.txt"
    with gzip.open(run_paths[0], "rt") as f:
        run_txt.write_text(f.read())
    name = f"ranklens-test/{uuid.uuid4().hex}"
    ds = irds.datasets.base.Dataset(
        TrecQrels(LocalDownload(str(qrels_txt)), {}),
        TrecScoredDocs(LocalDownload(str(run_txt))),
    )
    irds.registry.register(name, ds)
    return name, irds.load(name), str(run_txt)


def test_irds_inputs(dataset: tuple[str, Any, str]) -> None:
    name, ds, _run_txt = dataset
    qrels_path, run_paths = example_paths()
    ref = ranklens.evaluate(qrels_path, run_paths[0], MEASURES)
    for qrels in (f"irds:{name}", ds, ds.qrels_iter(), list(ds.qrels_iter())):
        res = ranklens.evaluate(qrels, run_paths[0], MEASURES)
        assert res.queries == ref.queries and np.array_equal(res.values, ref.values)
    # the same qrels whatever the way in
    _same_qrels(
        ranklens.Qrels.from_file(qrels_path), ranklens.Evaluator(f"irds:{name}", ["AP"]).qrels
    )
    # the dataset's scoreddocs as a run (scoreddocs namedtuples too)
    for run in (f"irds:{name}", ds.scoreddocs_iter()):
        res = ranklens.evaluate(qrels_path, run, MEASURES)
        assert np.array_equal(res.values, ref.values)
    cmp = ranklens.compare(f"irds:{name}", [run_paths[0], run_paths[1]], ["AP"])
    assert cmp.runs == ("bm25", "rerank")


def test_irds_on_the_command_line(
    dataset: tuple[str, Any, str], capsys: pytest.CaptureFixture[str]
) -> None:
    name, _, run_txt = dataset
    qrels_path, _run_paths = example_paths()
    assert main(["eval", f"irds:{name}", run_txt, "-m", "AP", "-f", "tsv", "--quiet"]) == 0
    via_irds = capsys.readouterr().out
    assert main(["eval", str(qrels_path), run_txt, "-m", "AP", "-f", "tsv", "--quiet"]) == 0
    assert via_irds == capsys.readouterr().out


def test_irds_unknown_id(dataset: tuple[str, Any, str]) -> None:
    with pytest.raises(InputError, match="ir_datasets has no dataset 'no/such-dataset'"):
        ranklens.evaluate("irds:no/such-dataset", {"q": {"d": 1.0}}, "AP")


def test_file_kinds_on_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    qrels_path, run_paths = example_paths()
    ranklens.Qrels.from_file(qrels_path).to_parquet(tmp_path / "q.parquet")
    ranklens.Run.from_file(run_paths[0]).to_jsonl(tmp_path / "r.jsonl")
    args = ["-m", "AP", "-m", "nDCG@10", "-f", "tsv", "--quiet", "--precision", "full"]
    assert main(["eval", str(tmp_path / "q.parquet"), str(tmp_path / "r.jsonl"), *args]) == 0
    mine = capsys.readouterr().out
    assert main(["eval", str(qrels_path), str(run_paths[0]), *args]) == 0
    assert mine == capsys.readouterr().out and "bm25\tall\tAP" in mine


@pytest.mark.parametrize("suffix", [".parquet", ".jsonl", ".csv"])
def test_a_repeated_pair_in_a_table_file_is_named_without_reading_it_as_trec_text(
    tmp_path: Path, suffix: str
) -> None:
    """The subtopic hint reads the second column of TREC text; a table file has none (its
    bytes were read as text, and the message showed Parquet's binary)."""
    pytest.importorskip("pyarrow")
    from ranklens.base.errors import DuplicateError

    path = tmp_path / f"qrels{suffix}"
    if suffix == ".parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq

        pq.write_table(
            pa.table({"query_id": ["q1", "q1"], "doc_id": ["a", "a"], "relevance": [1, 2]}),
            path,
        )
    elif suffix == ".jsonl":
        path.write_text(
            '{"query_id": "q1", "doc_id": "a", "relevance": 1}\n'
            '{"query_id": "q1", "doc_id": "a", "relevance": 2}\n'
        )
    else:
        path.write_text("query_id,doc_id,relevance\nq1,a,1\nq1,a,2\n")
    with pytest.raises(DuplicateError) as caught:
        ranklens.evaluate(str(path), {"q1": {"a": 1.0}}, ["AP"])
    message = str(caught.value)
    assert "twice for query 'q1'" in message and "subtopic" not in message
    assert message.isprintable()
