"""What a new user trips over (issue #29, part A): each item fails without its fix.

1. A run whose document ids match none of the qrels' is an error, not a silent zero, on
   every way in (dicts, frames, Arrow, files, streaming, Dask, compare, the CLI), and a run
   where most queries retrieve no judged document warns; ``trec-eval`` keeps trec_eval's
   behaviour.
2. Peer idioms: ``Qrels(data)`` / ``Run(data)``, short reprs, ir_measures measure objects,
   results read under the spelling asked, one name parsed as one measure, clear errors for
   no measures, bytes paths, BEIR's column names.
4. Tied scores that can decide a value are counted and reported.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ranklens
from ranklens.base.errors import InputError, InputWarning, MeasureError
from ranklens.cli import main
from ranklens.evaluation.streaming import evaluate_stream
from ranklens.ranking.align import PreparedQrels, align
from ranklens.ranking.ties import tie_affected_queries

QRELS = {
    "q1": {"doc1": 1, "doc2": 0, "doc3": 2},
    "q2": {"doc4": 1, "doc5": 0},
    "q3": {"doc6": 0, "doc7": 1},
}
JUDGED = {  # 12 queries: enough that no judged document is not chance
    **QRELS,
    **{f"t{i}": {f"doc{10 * i + j}": j % 2 for j in range(3)} for i in range(9)},
}
PREFIXED = {  # another id scheme: the qrels' ids with a prefix
    q: {f"msmarco_{d}": 1.0 / (i + 1) for i, d in enumerate(docs)} for q, docs in JUDGED.items()
}


def _frame(run: dict[str, dict[str, float]]) -> pd.DataFrame:
    rows = [(q, d, s) for q, docs in run.items() for d, s in docs.items()]
    return pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])


def _write_run(path: Path, run: dict[str, dict[str, float]]) -> Path:
    lines = [
        f"{q} Q0 {d} {i + 1} {s} tag"
        for q, docs in run.items()
        for i, (d, s) in enumerate(docs.items())
    ]
    path.write_text("\n".join(lines) + "\n")
    return path


def _write_qrels(path: Path, qrels: dict[str, dict[str, int]]) -> Path:
    path.write_text(
        "".join(f"{q} 0 {d} {r}\n" for q, docs in qrels.items() for d, r in docs.items())
    )
    return path


# --- 1. no silent zero from mismatched document ids -----------------------------------


@pytest.mark.parametrize(
    "make",
    [dict, _frame, lambda run: pa.Table.from_pandas(_frame(run))],
    ids=["dict", "pandas", "arrow"],
)
def test_a_run_retrieving_no_judged_document_is_an_error(make: Any) -> None:
    with pytest.raises(InputError, match="retrieves no judged document") as caught:
        ranklens.evaluate(JUDGED, make(PREFIXED), ["nDCG@10", "AP"])
    message = str(caught.value)
    assert "'msmarco_doc1'" in message and "'doc1'" in message  # ids of both sides
    assert "12 queries" in message


def test_the_same_error_from_files_streaming_and_the_evaluator(tmp_path: Path) -> None:
    qrels = _write_qrels(tmp_path / "qrels.txt", JUDGED)
    run = _write_run(tmp_path / "run.txt", PREFIXED)
    for stream in (False, True):
        with pytest.raises(InputError, match="retrieves no judged document"):
            ranklens.Evaluator(qrels, ["AP"]).evaluate(run, stream=stream)


def test_streaming_decides_over_the_whole_run(tmp_path: Path) -> None:
    """Chunks of one query each: the first chunks retrieve no judged document, the last
    does; the whole run is fine and its counts are those of the in-memory evaluation."""
    mixed = {**PREFIXED, "q3": {"doc7": 0.5, "x": 0.5}}  # a tie that decides q3's AP
    path = _write_run(tmp_path / "run.txt", mixed)
    evaluator = ranklens.Evaluator(JUDGED, ["AP"])
    streamed = evaluate_stream(evaluator, path, chunk_bytes=16)
    with pytest.warns(InputWarning, match="only 1 of the 12 queries"):
        in_memory = evaluator.evaluate(path, stream=False)
    assert streamed.query_counts == in_memory.query_counts
    assert streamed.query_counts["retrieving"] == 12
    assert streamed.query_counts["matched"] == 1
    assert streamed.query_counts["retrieved"] == sum(len(d) for d in mixed.values())
    assert streamed.values.tolist() == in_memory.values.tolist()
    assert streamed.tie_affected_queries == in_memory.tie_affected_queries == 1


def test_dask_decides_over_all_partitions() -> None:
    pytest.importorskip("dask.dataframe", reason="needs dask[dataframe]")
    import ranklens.dask as rdask

    qrels = _frame({q: {d: float(r) for d, r in docs.items()} for q, docs in JUDGED.items()})
    qrels = qrels.rename(columns={"score": "relevance"}).astype({"relevance": "int64"})
    with pytest.raises(InputError, match="retrieves no judged document"):
        rdask.evaluate(qrels, _frame(PREFIXED), ["AP"], npartitions=3)
    mixed = {**PREFIXED, "q3": {"doc7": 0.5, "x": 0.4}}
    with pytest.warns(InputWarning, match="only 1 of the 12 queries"):  # over all partitions
        got = rdask.evaluate(qrels, _frame(mixed), ["AP"], npartitions=3)
    with pytest.warns(InputWarning, match="only 1 of the 12 queries"):
        want = ranklens.evaluate(JUDGED, mixed, ["AP"])
    assert got.query_counts == want.query_counts
    assert got.values.tolist() == want.values.tolist()
    assert got.tie_affected_queries == want.tie_affected_queries


def test_compare_refuses_a_run_with_other_ids() -> None:
    good = {q: dict.fromkeys(docs, 1.0) for q, docs in JUDGED.items()}
    with pytest.raises(InputError, match="retrieves no judged document"):
        ranklens.compare(JUDGED, {"good": good, "prefixed": PREFIXED}, ["AP"])


def test_the_cli_exits_with_one_line_and_trec_eval_keeps_trec_eval(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    qrels = _write_qrels(tmp_path / "qrels.txt", JUDGED)
    run = _write_run(tmp_path / "run.txt", PREFIXED)
    assert main(["eval", str(qrels), str(run), "-m", "AP"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "retrieves no judged document" in err[0]
    assert main(["trec-eval", str(qrels), str(run), "-m", "map"]) == 0
    assert "0.0000" in capsys.readouterr().out


def test_queries_only_in_the_run_do_not_count() -> None:
    """Run queries without judgments retrieve no judged document by definition: they
    neither raise nor warn (only the queries in the qrels count)."""
    run = {"q1": {"doc1": 1.0}, **{f"u{i}": {"doc1": 1.0} for i in range(30)}}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = ranklens.evaluate(QRELS, run, ["AP"], queries="run")
    assert res.query_counts["retrieving"] == res.query_counts["matched"] == 1
    with pytest.raises(InputError, match="share no query"):  # no shared query: also an error
        ranklens.evaluate(QRELS, {"other": {"doc1": 1.0}}, ["AP"])


def test_few_queries_and_documents_are_not_evidence_enough() -> None:
    """A run of a few queries and documents can miss the judged ones by chance (as tests'
    generated runs do): no error below 10 queries and 100 documents; with 100 documents
    on fewer queries (a typical trial on a few queries), the error again."""
    tiny = ranklens.evaluate({"q1": {"a": 1}}, {"q1": {"b": 1.0}}, ["P@1"])
    assert tiny.aggregate == {"P@1": 0.0}
    assert tiny.query_counts["retrieved"] == 1 and tiny.query_counts["matched"] == 0
    deep = {q: {f"other{q}-{k}": 1.0 - k / 100 for k in range(34)} for q in QRELS}
    with pytest.raises(InputError, match="none of the 102 documents"):
        ranklens.evaluate(QRELS, deep, ["AP"])


def test_most_queries_without_a_judged_document_warn_with_the_counts() -> None:
    qrels = {f"q{i}": {f"d{i}": 1} for i in range(12)}
    run = {f"q{i}": {(f"d{i}" if i < 3 else f"p_d{i}"): 1.0} for i in range(12)}
    with pytest.warns(InputWarning, match="only 3 of the 12 queries"):
        ranklens.evaluate(qrels, run, ["AP"])
    run_half = {f"q{i}": {(f"d{i}" if i < 6 else f"p_d{i}"): 1.0} for i in range(12)}
    with warnings.catch_warnings():  # half is not most
        warnings.simplefilter("error")
        ranklens.evaluate(qrels, run_half, ["AP"])


@settings(max_examples=60, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(["q1", "q2", "q3", "q4"]),
        st.dictionaries(st.sampled_from(["a", "b", "c", "d", "e"]), st.integers(-2, 3), min_size=1),
        min_size=1,
    ),
    st.dictionaries(
        st.sampled_from(["q1", "q2", "q3", "q5"]),
        st.dictionaries(st.sampled_from(["a", "b", "c", "x", "y"]), st.floats(0, 1), min_size=1),
        min_size=1,
    ),
)
def test_the_counts_are_those_of_a_plain_loop(
    qrels: dict[str, dict[str, int]], run: dict[str, dict[str, float]]
) -> None:
    aligned = align(PreparedQrels.of(ranklens.Qrels(qrels)), ranklens.Run(run))
    shared = [q for q in run if q in qrels]
    assert aligned.query_counts["retrieving"] == len(shared)
    assert aligned.query_counts["matched"] == sum(1 for q in shared if set(run[q]) & set(qrels[q]))


# --- 2. peer idioms -------------------------------------------------------------------


def test_qrels_and_run_build_from_data_and_print_one_line(tmp_path: Path) -> None:
    qrels = ranklens.Qrels(QRELS)
    assert qrels.to_dict() == ranklens.Qrels.from_dict(QRELS).to_dict()
    small = {q: PREFIXED[q] for q in QRELS}
    run = ranklens.Run(_frame(small), name="bm25")
    assert run.name == "bm25" and run.to_dict() == ranklens.Run.from_dict(small).to_dict()
    path = _write_run(tmp_path / "run.txt", small)
    assert ranklens.Run(str(path)).to_dict() == run.to_dict()
    assert repr(qrels) == "Qrels(3 queries, 7 judgments, source='<dict>')"
    assert repr(run) == "Run('bm25', 3 queries, 7 entries, source='<DataFrame>')"
    with pytest.raises(InputError, match="cannot make qrels from int"):
        ranklens.Qrels(3)


def test_ir_measures_objects_are_measure_names() -> None:
    irm = pytest.importorskip("ir_measures")
    run = {"q1": {"doc1": 0.9, "doc2": 0.8, "x": 0.7}, "q2": {"doc5": 0.9, "doc4": 0.1}}
    res = ranklens.evaluate(QRELS, run, [irm.nDCG @ 10, irm.P(rel=2) @ 5, irm.AP])
    assert res.names == ["nDCG@10", "P(rel=2)@5", "AP"]
    assert res[irm.nDCG @ 10] == res["nDCG@10"]
    assert ranklens.evaluate(QRELS, run, irm.RR).names == ["RR"]


def test_ir_measures_set_measures_parse_and_agree() -> None:
    """ir_measures' SetP and SetR (not names of ranklens' own) are P and R of the whole
    retrieved set; their values equal ir_measures'."""
    irm = pytest.importorskip("ir_measures")
    run = {"q1": {"doc1": 0.9, "doc2": 0.8, "x": 0.7}, "q2": {"doc5": 0.9, "doc4": 0.1}}
    measures = [irm.SetP, irm.SetR, irm.SetP(rel=2), irm.SetP(relative=True), irm.SetF]
    ours = ranklens.evaluate(QRELS, run, measures)
    theirs = irm.calc_aggregate(measures, QRELS, run)
    assert [ours[m] for m in measures] == pytest.approx([theirs[m] for m in measures], abs=1e-12)


def test_results_answer_to_the_spelling_asked() -> None:
    run = {"q1": {"doc1": 0.9, "doc2": 0.8}, "q2": {"doc4": 0.5}}
    res = ranklens.evaluate(QRELS, run, ["map", "ndcg_cut.10"])
    assert res.aggregate["map"] == res.aggregate["AP"]
    assert res.per_query["q1"]["map"] == res.per_query["q1"]["AP"]
    assert res.aggregate["ndcg_cut_10"] == res.aggregate["nDCG@10"]
    assert "map" in res.aggregate and res.aggregate.get("P@5") is None
    assert res.aggregate == {"AP": res["AP"], "nDCG@10": res["nDCG@10"]}  # still a dict
    with pytest.raises(KeyError):
        res.aggregate["P@5"]
    many = ranklens.evaluate(QRELS, {"a": run, "b": run}, ["map"])
    assert many.aggregate["a"]["map"] == res["AP"]


def test_one_name_is_one_measure_and_no_measures_is_an_error(tmp_path: Path) -> None:
    from ranklens.measures.language import parse_measures

    assert [m.name for m in parse_measures("nDCG@10")] == ["nDCG@10"]
    run = {"q1": {"doc1": 0.9}}
    for nothing in (None, []):
        with pytest.raises(MeasureError, match=r"name at least one|list of names"):
            ranklens.evaluate(QRELS, run, nothing)  # type: ignore[arg-type]
    with pytest.raises(MeasureError, match="not 3"):
        parse_measures([3])  # type: ignore[list-item]


def test_bytes_paths_are_paths(tmp_path: Path) -> None:
    qrels = _write_qrels(tmp_path / "qrels.txt", QRELS)
    run = _write_run(tmp_path / "run.txt", {q: {"doc1": 1.0} for q in QRELS})
    by_bytes = ranklens.evaluate(bytes(qrels), bytes(run), ["AP"])
    assert by_bytes.aggregate == ranklens.evaluate(str(qrels), str(run), ["AP"]).aggregate


def test_beir_columns_say_how_to_name_them() -> None:
    beir = pd.DataFrame({"query-id": ["q1"], "corpus-id": ["doc1"], "score": [1]})
    with pytest.raises(InputError, match=r"BEIR's qrels columns.*query_id.*qid_col="):
        ranklens.evaluate(beir, {"q1": {"doc1": 1.0}}, ["AP"])
    named = ranklens.Qrels.from_frame(
        beir, qid_col="query-id", doc_col="corpus-id", rel_col="score"
    )
    assert named.to_dict() == {"q1": {"doc1": 1}}


# --- 4. ties --------------------------------------------------------------------------


def _tie_affected_by_loop(
    qrels: dict[str, dict[str, int]], run: dict[str, dict[str, float]], cutoff: int | None
) -> int:
    """Per query: rank by score desc, docid desc; a group of equal scores that starts at a
    rank <= cutoff and holds two different gains."""
    count = 0
    for q in sorted(qrels):
        ranked = sorted(run.get(q, {}).items(), key=lambda kv: (-kv[1], _desc(kv[0])))
        for i, (_, score) in enumerate(ranked):
            if cutoff is not None and i >= cutoff:
                break
            if i > 0 and ranked[i - 1][1] == score:
                continue  # not the start of a group
            group = [d for d, s in ranked if s == score]
            if len({max(qrels[q].get(d, 0), 0) for d in group}) > 1:
                count += 1
                break
    return count


def _desc(docid: str) -> tuple[int, ...]:
    return (*(-b for b in docid.encode()), 1)


@settings(max_examples=80, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(["q1", "q2", "q3"]),
        st.dictionaries(st.sampled_from(["a", "b", "c", "d"]), st.integers(-2, 3), min_size=1),
        min_size=1,
    ),
    st.dictionaries(
        st.sampled_from(["q1", "q2", "q3"]),
        st.dictionaries(
            st.sampled_from(["a", "b", "c", "d", "e", "f"]), st.sampled_from([0.1, 0.5, 0.9])
        ),
    ),
    st.one_of(st.none(), st.integers(1, 4)),
)
def test_tie_affected_queries_equal_a_plain_loop(
    qrels: dict[str, dict[str, int]], run: dict[str, dict[str, float]], cutoff: int | None
) -> None:
    aligned = align(PreparedQrels.of(ranklens.Qrels(qrels)), ranklens.Run(run))
    assert tie_affected_queries(aligned.base, cutoff) == _tie_affected_by_loop(qrels, run, cutoff)


def test_results_carry_the_tie_count_and_eval_reports_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    qrels = {"q1": {"a": 1, "b": 0}, "q2": {"c": 1}}
    run = {"q1": {"a": 0.5, "b": 0.5}, "q2": {"c": 0.9, "d": 0.9}}
    assert ranklens.evaluate(qrels, run, ["RR"]).tie_affected_queries == 2
    untied = {"q1": {"a": 0.5, "b": 0.4}, "q2": {"c": 0.9, "d": 0.8}}
    assert ranklens.evaluate(qrels, untied, ["RR"]).tie_affected_queries == 0
    qrels_path = _write_qrels(tmp_path / "qrels.txt", qrels)
    run_path = _write_run(tmp_path / "run.txt", run)
    by_rank = ranklens.evaluate(qrels_path, run_path, ["RR"], ties="rank")
    assert by_rank.tie_affected_queries is None  # the rank column orders: no ties to count
    assert main(["eval", str(qrels_path), str(run_path), "-m", "RR"]) == 0
    err = capsys.readouterr().err
    assert "tied scores can change the values of some queries (tag 2 of 2)" in err
    assert "--ties input keeps the run's order" in err
    assert main(["eval", str(qrels_path), str(_write_run(tmp_path / "u.txt", untied))]) == 0
    assert "tied" not in capsys.readouterr().err
    assert main(["trec-eval", str(qrels_path), str(run_path)]) == 0
    assert "tied" not in capsys.readouterr().err


# --- 2. (cont.) subtopic qrels, options no measure reads ----------------------------------


def test_subtopic_qrels_given_to_an_ordinary_measure_say_so(tmp_path: Path) -> None:
    qrels = tmp_path / "qrels.web.txt"
    qrels.write_text("q1 1 d1 1\nq1 2 d1 0\nq1 2 d2 1\n")
    run = _write_run(tmp_path / "run.txt", {"q1": {"d1": 0.5, "d2": 0.4}})
    with pytest.raises(InputError, match=r"subtopic \(diversity\) qrels.*subtopics 1 and 2"):
        ranklens.evaluate(qrels, run, ["AP"])
    plain = _write_qrels(tmp_path / "dup.txt", QRELS)
    with plain.open("a") as handle:
        handle.write("q1 0 doc1 1\n")  # a true duplicate: the ordinary message only
    with pytest.raises(InputError) as caught:
        ranklens.evaluate(plain, run, ["AP"])
    assert "diversity" not in str(caught.value)


def test_num_docs_that_no_measure_reads_warns(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    qrels = _write_qrels(tmp_path / "qrels.txt", QRELS)
    run = _write_run(tmp_path / "run.txt", {q: dict.fromkeys(d, 0.5) for q, d in QRELS.items()})
    assert main(["eval", str(qrels), str(run), "-m", "Accuracy@10", "--num-docs", "50"]) == 0
    err = capsys.readouterr().err
    assert "--num-docs is read by none of the measures" in err and "ClassAccuracy" in err
    assert main(["eval", str(qrels), str(run), "-m", "ClassAccuracy", "--num-docs", "50"]) == 0
    assert "--num-docs" not in capsys.readouterr().err


# --- 8. the small things -------------------------------------------------------------


def test_examples_twice_in_one_folder_is_fine(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["examples", str(tmp_path)]) == 0
    capsys.readouterr()
    assert main(["examples", str(tmp_path)]) == 0
    assert "unchanged" in capsys.readouterr().err
    (tmp_path / "bm25.run").write_text("mine\n")
    assert main(["examples", str(tmp_path)]) == 2  # other content: still refused
    assert (tmp_path / "bm25.run").read_text() == "mine\n"


def test_eval_refuses_the_same_run_twice_as_python_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    qrels = _write_qrels(tmp_path / "qrels.txt", QRELS)
    run = _write_run(tmp_path / "run.txt", {q: dict.fromkeys(d, 0.5) for q, d in QRELS.items()})
    with pytest.raises(ranklens.base.errors.OptionError, match="both named"):
        ranklens.evaluate(qrels, [run, run], ["AP"])
    assert main(["eval", str(qrels), str(run), str(run), "-m", "AP"]) == 2
    assert "both named" in capsys.readouterr().err
    assert main(["eval", str(qrels), str(run), str(run), "--name", "a", "--name", "b"]) == 0


@pytest.mark.parametrize(
    "command",
    [["measures"], ["compare", "--example", "-m", "AP"], ["curve", "--example", "--kind", "pr"]],
    ids=["measures", "compare", "curve"],
)
def test_tables_into_a_pipe_are_plain_text(
    command: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.delenv("COLUMNS", raising=False)
    assert main(command) == 0
    out = capsys.readouterr().out
    assert out.strip()
    assert not set(out) & set("┏┃━┡│└╇┳┩─\x1b")


@pytest.mark.filterwarnings("ignore:The inplace keyword:DeprecationWarning")  # dask on pandas 3
def test_dask_names_the_run_as_the_cli_does(tmp_path: Path) -> None:
    pytest.importorskip("dask.dataframe", reason="needs dask[dataframe]")
    import ranklens.dask as rdask

    qrels = tmp_path / "qrels.parquet"
    run = tmp_path / "bm25.parquet"
    ranklens.Qrels(QRELS).to_parquet(qrels)
    ranklens.Run({q: dict.fromkeys(d, 0.5) for q, d in QRELS.items()}).to_parquet(run)
    assert rdask.evaluate(str(qrels), str(run), ["AP"]).run == "bm25"
    assert rdask.evaluate(str(qrels), str(run), ["AP"], name="x").run == "x"


def test_win_tie_loss_counts_are_integers_in_frames() -> None:
    a = {q: {d: 1.0 / (i + 1) for i, d in enumerate(docs)} for q, docs in QRELS.items()}
    b = {q: {d: float(i) for i, d in enumerate(docs)} for q, docs in QRELS.items()}
    cmp = ranklens.compare(QRELS, {"a": a, "b": b}, ["AP"])
    frame = cmp.to_pandas()
    for column in ("wins", "ties", "losses"):
        assert str(frame[column].dtype) == "Int64"
    row = frame[frame.run == "b"].iloc[0]
    assert int(row.wins) + int(row.ties) + int(row.losses) == len(QRELS)
