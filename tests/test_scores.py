"""Per-topic scores from other tools read into Results (``ranklens.read_scores``): trec_eval's
own ``-q`` outputs read back as ranklens' computed per-query values for every measure, the
``all`` lines checked (and refused with the difference), every format written and read back
equal, and files of every tool's layout (AutoJudge leaderboards, nuggetizer metrics, ranklens
eval's own outputs, tables and DataFrames)."""

from __future__ import annotations

import io
import json
import math
import re
import warnings
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ranklens
from ranklens.base.errors import (
    DuplicateError,
    EmptyInputError,
    InputError,
    InputWarning,
    MeasureError,
    OptionError,
    ParseError,
)
from ranklens.evaluation.score_measures import is_external, measure_named, trec_value_measure
from ranklens.evaluation.scores_files import FORMATS, read_score_set, read_scores, write_scores
from ranklens.measures.trec_common import with_relevance_level
from strategies import cases

MEASURES = ["AP", "GMAP", "nDCG@10", "P@5", "R@10", "RR", "NumRet", "NumRelRet", "Bpref", "NumQ"]

# trec_eval's -q outputs: (file, qrels, run, evaluate's options, relevance level of -l)
GOLDEN = [
    ("out.test.aq", "qrels.test", "results.test", {}, 1),
    ("out.test.aqc", "qrels.test", "results.trunc", {}, 1),
    ("out.test.aqcM", "qrels.test", "results.trunc", {"depth": 100}, 1),
    ("out.test.aql", "qrels.rel_level", "results.test", {}, 2),
    ("out.test.meas_params", "qrels.test", "results.test", {}, 1),
    ("out.test.qrels_prefs", "qrels.test", "results.test", {}, 1),
    ("out.test.prefs", "prefs.test", "prefs.results.test", {}, 1),
    ("out.test.qrels_jg", "qrels.123", "results.test", {}, 1),
]


def printed(text: str) -> dict[tuple[str, str], str]:
    """trec_eval's -q lines as {(value name, topic): value as printed}."""
    out = {}
    for line in text.splitlines():
        name, topic, value = line.split()
        out[(name, topic)] = value
    return out


def same_results(a: ranklens.Results, b: ranklens.Results, *, run: bool = True) -> None:
    if run:
        assert a.run == b.run
    assert a.names == b.names
    assert a.queries == b.queries
    np.testing.assert_array_equal(a.values, b.values)
    for m, n in zip(a.measures, b.measures, strict=True):
        assert m == n and m.spec.aggregate == n.spec.aggregate
        assert m.spec.higher_is_better == n.spec.higher_is_better
    assert dict(a.aggregate).keys() == dict(b.aggregate).keys()
    for k, v in a.aggregate.items():
        assert v == b.aggregate[k] or (math.isnan(v) and math.isnan(b.aggregate[k]))


# ---------------------------------------------------------------- trec_eval's own outputs


@pytest.mark.parametrize(("output", "qrels", "run", "options", "level"), GOLDEN)
def test_trec_eval_outputs_read_back_as_computed(
    trec_eval_data: Path, output: str, qrels: str, run: str, options: dict, level: int
) -> None:
    """Every per-topic value trec_eval printed is ranklens' computed value printed as
    trec_eval prints it (%.4f, counts whole), for every measure of every output."""
    text = (trec_eval_data / output).read_text()
    res = read_scores(trec_eval_data / output)
    assert isinstance(res, ranklens.Results)
    shown = printed(text)
    per_topic = {n for (n, t) in shown if t != "all"} - {"relstring", "relstring_20"}
    # every per-topic value name of the file is one measure of the Results
    assert len(per_topic) <= len(res.names)
    measures = [with_relevance_level(m, level) for m in res.measures if m.name != "NumQ"]
    computed = ranklens.evaluate(
        trec_eval_data / qrels, trec_eval_data / run, measures, queries="qrels", **options
    )
    assert computed.queries == res.queries
    by_name = dict(zip(res.names, range(len(res.names)), strict=True))
    for j, m in enumerate(m for m in res.measures if m.name != "NumQ"):
        got = res.values[:, by_name[m.name]]
        want = computed.values[:, j]
        for topic, g, w in zip(res.queries, got.tolist(), want.tolist(), strict=True):
            if m.spec.aggregate == "sum":
                assert g == w, (output, m.name, topic)
            else:
                assert g == float(f"{w:.4f}"), (output, m.name, topic, g, w)
    for label in per_topic:  # the file's own names answer too
        assert res.query_values(label) or res.queries == ()
        assert label in res.per_query[res.queries[0]]


def test_names_of_trec_eval_answer_to_ranklens_spelling(trec_eval_data: Path) -> None:
    res = read_scores(trec_eval_data / "out.test.aq")
    assert res.run == "STANDARD"
    assert res["nDCG@10"] == res["ndcg_cut_10"] == res["ndcg_cut.10"]
    assert res["AP"] == res["map"] and res["P@10"] == res["P_10"]
    assert res.per_query["302"]["map"] == 0.4175
    assert "relstring" not in res.names  # not a number: skipped
    # gm_map: only an 'all' line; its per-topic values are map's, its aggregate checked
    assert res.query_values("GMAP") == res.query_values("AP")
    assert round(res["gm_map"], 4) == 0.1051
    assert res.query_values("num_q") == {"301": 1.0, "302": 1.0, "303": 1.0}


def test_trec_eval_value_names_resolve_as_trec_eval_computes_them() -> None:
    from ranklens.measures.trec_table import Options, request

    for slot in request(["all_trec"], Options()):
        if slot.measure is None or not slot.per_query:
            continue
        assert trec_value_measure(slot.name) == slot.measure, slot.name
        assert measure_named(slot.name) == slot.measure
    assert measure_named("gm_map").name == "GMAP"
    assert measure_named("num_q").name == "NumQ"
    assert measure_named("nDCG(judged_only=True)@5").name == "nDCG(judged_only=True)@5"
    odd = measure_named("llm_judge_score")
    assert is_external(odd) and odd.spec.aggregate == "mean" and odd.spec.higher_is_better
    assert not measure_named("latency", higher_is_better=False).spec.higher_is_better
    with pytest.raises(MeasureError, match="direction cannot be changed"):
        measure_named("map", higher_is_better=False)
    with pytest.raises(MeasureError, match="whitespace"):
        measure_named("two words")


def test_z_scores_keep_the_aggregate_of_their_measure(trec_eval_data: Path) -> None:
    with pytest.warns(InputWarning) as caught:
        res = read_scores(trec_eval_data / "out.test.aqZ")
    assert sorted(str(w.message).split(": ")[-2].split()[0] for w in caught) == [
        "Zgm_bpref",
        "Zgm_map",
        "Znum_q",
    ]
    assert res.measures[res.names.index("Znum_ret")].spec.aggregate == "sum"
    assert abs(res["Znum_ret"] + 6.3332) <= 2e-4  # the 'all' line, within the rounding


# ---------------------------------------------------------------- the 'all' lines


def _edited(src: Path, dst: Path, name: str, topic: str, value: str) -> Path:
    lines = []
    for line in src.read_text().splitlines():
        fields = line.split()
        if fields[0] == name and fields[1] == topic:
            line = f"{fields[0]:<22}\t{topic}\t{value}"
        lines.append(line)
    dst.write_text("\n".join(lines) + "\n")
    return dst


@pytest.mark.parametrize(
    ("name", "value", "accepted"),
    [
        ("map", "0.1785", True),  # as printed
        ("map", "0.1786", True),  # within what the per-topic digits allow
        ("map", "0.1787", False),
        ("map", "0.1783", False),
        ("num_ret", "1501", False),  # a sum: exact
        ("gm_map", "0.1051", True),
        ("gm_map", "0.1055", False),  # geometric mean of map's per-topic values
        ("num_q", "4", False),
        ("P_10", "0.3000", True),
        ("utility", "-412.6667", True),
        ("utility", "-412.6700", False),
    ],
)
def test_all_lines_are_checked(
    trec_eval_data: Path, tmp_path: Path, name: str, value: str, accepted: bool
) -> None:
    path = _edited(trec_eval_data / "out.test.aq", tmp_path / "x.txt", name, "all", value)
    if accepted:
        read_scores(path)
        return
    with pytest.raises(InputError) as caught:
        read_scores(path)
    message = str(caught.value)
    assert value in message or f"says {value}" in message
    assert re.search(r"x\.txt:\d+: run 'STANDARD'", message)
    if name != "num_q":
        assert "a difference of" in message and "allow" in message
    read_scores(path, check_all=False)  # read anyway when asked


def test_trec_eval_9_c_output_is_refused_with_the_reason(trec_eval_data: Path) -> None:
    """trec_eval 9.0.8's -c averages over 3 topics but prints lines for 2."""
    with pytest.raises(InputError, match="num_q says 3 topics but the file has per-topic"):
        read_scores(trec_eval_data / "v9.0.8" / "out.test.aqc")
    res = read_scores(trec_eval_data / "v9.0.8" / "out.test.aqc", check_all=False)
    assert res.queries == ("301", "303")


def test_output_without_q_has_no_per_topic_values(trec_eval_data: Path) -> None:
    with pytest.raises(
        EmptyInputError, match=r"no per-topic scores.*trec_eval writes them with -q"
    ):
        read_scores(trec_eval_data / "out.test")


def test_a_measure_with_only_an_all_line_is_left_out_with_a_warning() -> None:
    text = "map\tq1\t0.5\nmap\tq2\t0.25\nodd\tall\t3\n"
    with pytest.warns(InputWarning, match="odd has only an 'all' value"):
        res = read_scores(io.StringIO(text), name="r")
    assert res.names == ["AP"]


# ---------------------------------------------------------------- several runs, metadata


def test_concatenated_trec_eval_outputs_are_several_runs(trec_eval_data: Path) -> None:
    text = (trec_eval_data / "out.test.aq").read_text()
    other = text.replace("STANDARD", "OTHER")
    both = read_scores(io.StringIO(text + other))
    assert isinstance(both, ranklens.ResultSet) and both.runs == ("STANDARD", "OTHER")
    same_results(both[0], both[1], run=False)
    one = read_scores(io.StringIO(text + other), run="OTHER")
    assert isinstance(one, ranklens.Results) and one.run == "OTHER"
    with pytest.raises(OptionError, match="pick one with run="):
        read_scores(io.StringIO(text + other), name="x")
    with pytest.raises(InputError, match="runs 1 and 2 are both named 'STANDARD'"):
        read_scores(io.StringIO(text + text))


AUTOJUDGE = """\
my_best_run_01            Measure-01  101  1
my_best_run_02            Measure-01  101  2
my_best_run_02_citations  Measure-01  101  3
my_best_run_01            Measure-02  101  3
my_best_run_02            Measure-02  101  2
my_best_run_02_citations  Measure-02  101  1
my_best_run_01            IS_MATCH    101  True
my_best_run_02            IS_MATCH    101  False
my_best_run_02_citations  IS_MATCH    101  True
my_best_run_01            Measure-01  102  2
my_best_run_02            Measure-01  102  2
my_best_run_02_citations  Measure-01  102  3
my_best_run_01            Measure-02  102  1
my_best_run_02            Measure-02  102  2
my_best_run_02_citations  Measure-02  102  2
my_best_run_01            IS_MATCH    102  False
my_best_run_02            IS_MATCH    102  False
my_best_run_02_citations  IS_MATCH    102  True
my_best_run_01            Measure-01  all  1.5
my_best_run_02            Measure-01  all  2.0
my_best_run_02_citations  Measure-01  all  3
my_best_run_01            IS_MATCH    all  0.5
"""

META = """\
method:
  description: |
    An LLM judge.
    Two lines.
  name: judge-1
actor:
  team: <script>alert(1)</script>
data:
  test collection:
    name: spot-check
platform:
  software:
    libraries:
      - ranklens
      - numpy
"""


def test_autojudge_leaderboard_and_its_metadata(tmp_path: Path) -> None:
    folder = tmp_path / "upload"
    folder.mkdir()
    (folder / "trec-leaderboard.txt").write_text(AUTOJUDGE)
    (folder / "ir-metadata.yml").write_text(META)
    board = read_scores(folder / "trec-leaderboard.txt")
    assert isinstance(board, ranklens.ResultSet)
    assert board.runs == ("my_best_run_01", "my_best_run_02", "my_best_run_02_citations")
    assert board.names == ["Measure-01", "Measure-02", "IS_MATCH"]
    assert board["my_best_run_02_citations"].per_query["101"]["IS_MATCH"] == 1.0
    assert board["my_best_run_01"]["Measure-01"] == 1.5
    assert all(is_external(m) for m in board[0].measures)
    assert board.metadata is not None and board.metadata.text == META
    assert board[0].metadata == board.metadata
    pytest.importorskip("yaml")
    assert board.metadata.data["method"]["name"] == "judge-1"
    assert board.metadata.flat()["platform.software.libraries"] == "ranklens, numpy"
    # written back: the leaderboard, and the metadata beside it, exactly
    out = tmp_path / "out"
    out.mkdir()
    write_scores(board, out / "lb.txt", "autojudge")
    assert (out / "ir-metadata.yml").read_text() == META
    back = read_scores(out / "lb.txt")
    for a, b in zip(board, back, strict=True):
        same_results(a, b)
    (out / "ir-metadata.yml").write_text("tag: other\n")
    with pytest.raises(InputError, match="other metadata is already beside"):
        write_scores(board, out / "lb.txt", "autojudge")
    none = read_scores(folder / "trec-leaderboard.txt", metadata=None)
    assert none.metadata is None and none[0].metadata is None  # type: ignore[union-attr]


def test_autojudge_all_row_that_is_not_the_mean_is_refused(tmp_path: Path) -> None:
    bad = AUTOJUDGE.replace("IS_MATCH    all  0.5", "IS_MATCH    all  0.4")
    (tmp_path / "lb.txt").write_text(bad)
    with pytest.raises(InputError, match=r"run 'my_best_run_01': the 'all' value of IS_MATCH"):
        read_scores(tmp_path / "lb.txt")


NUGGETIZER = [
    {"qid": "2024-105741", "strict_vital_score": 0.5, "strict_all_score": 0.4,
     "vital_score": 0.75, "all_score": 0.55},
    {"qid": "2024-127266", "strict_vital_score": 0.0, "strict_all_score": 0.2,
     "vital_score": 0.25, "all_score": 0.3},
    {"qid": "all", "strict_vital_score": 0.25, "strict_all_score": 0.30000000000000004,
     "vital_score": 0.5, "all_score": 0.42500000000000004},
]  # fmt: skip


def test_nuggetizer_metrics(tmp_path: Path) -> None:
    path = tmp_path / "ragnarok-run.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in NUGGETIZER))
    res = read_scores(path)
    assert res.run == "ragnarok-run"
    # nuggetizer's names are ranklens' nugget measures
    assert res.names == ["NuggetVitalStrict", "NuggetAllStrict", "NuggetVital", "NuggetAll"]
    assert res.per_query["2024-127266"]["vital_score"] == 0.25
    broken = [*NUGGETIZER[:2], {**NUGGETIZER[2], "vital_score": 0.6}]
    path.write_text("".join(json.dumps(r) + "\n" for r in broken))
    with pytest.raises(InputError, match=r"'all' value of vital_score \(0\.6\)"):
        read_scores(path)


def test_ranklens_eval_outputs_read_back(trec_eval_data: Path, tmp_path: Path, capsys) -> None:
    from ranklens.cli import main

    qrels, run = trec_eval_data / "qrels.test", trec_eval_data / "results.test"
    want = ranklens.evaluate(qrels, run, ["AP", "nDCG@10", "RR"])
    for fmt in ("tsv", "csv", "jsonl"):
        out = tmp_path / f"e.{fmt}"
        args = ["eval", str(qrels), str(run), "-m", "AP nDCG@10 RR", "-q", "-f", fmt]
        assert main([*args, "--precision", "full", "-o", str(out)]) == 0
        got = read_scores(out)
        same_results(want, got)


# ---------------------------------------------------------------- round trips


def second_run(case_a, case_b) -> dict[str, dict[str, float]]:
    """Another run on ``case_a``'s queries: ``case_b``'s rankings under ``case_a``'s run's
    query ids (as many as both have: a query of one run may be missing from the other)."""
    return {q: docs for q, docs in zip(case_a.run, case_b.run.values(), strict=False)}


def _generated_set(case_a, case_b) -> ranklens.ResultSet:
    runs = {"a": case_a.run, "b": second_run(case_a, case_b)}
    with warnings.catch_warnings():  # runs missing most qrels queries: not what is tested
        warnings.simplefilter("ignore", InputWarning)
        return ranklens.evaluate(case_a.qrels, runs, [*MEASURES, "RBP(p=0.8)"])


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases(), cases(), st.sampled_from(["long", "wide"]))
def test_every_format_reads_back_equal(tmp_path_factory, case_a, case_b, layout) -> None:
    folder = tmp_path_factory.mktemp("formats")
    rs = _generated_set(case_a, case_b)
    for fmt in FORMATS:
        if fmt == "nuggetizer":
            for r in rs:
                path = folder / f"{r.run}.nugget.jsonl"
                write_scores(r, path, fmt)
                same_results(r, read_scores(path, format="nuggetizer", name=r.run))
            continue
        path = folder / f"scores.{fmt}"
        write_scores(rs, path, fmt, layout=layout)
        back = read_scores(path, format=fmt)
        assert isinstance(back, ranklens.ResultSet)
        for a, b in zip(rs, back, strict=True):
            same_results(a, b)
    for frame in (rs.to_pandas("long"), rs.to_pandas("wide"), rs.to_polars(layout)):
        for a, b in zip(rs, read_scores(frame), strict=True):  # type: ignore[arg-type]
            same_results(a, b)
    same_results(rs["a"], read_scores(rs["a"].to_pandas(), name="a"))  # type: ignore[arg-type]
    pa = pytest.importorskip("pyarrow")
    table = pa.Table.from_pandas(rs.to_pandas("long"))
    for a, b in zip(rs, read_scores(table), strict=True):  # type: ignore[arg-type]
        same_results(a, b)


def test_run_level_measures_keep_their_value(tmp_path: Path) -> None:
    qrels = {"q1": {"a": 1}, "q2": {"b": 1}}
    run = {"q1": {"a": 1.0, "c": 0.5}, "q2": {"b": 1.0, "d": 0.2}}
    res = ranklens.evaluate(qrels, run, ["AP", "Coverage@10"], num_items=10)
    for fmt in FORMATS:
        path = tmp_path / f"r.{fmt}"
        write_scores(res, path, fmt)
        back = read_scores(path, format=fmt, name=res.run)
        assert back.names == res.names and back["Coverage@10"] == res["Coverage@10"] == 0.4
        assert np.isnan(back.values[:, 1]).all()
        with pytest.raises(ranklens.MeasureError, match="read from a file"):
            back.run_statistics["Coverage@10"].value(np.ones(2))
    bad = "run,query_id,measure,value\nr,q1,Coverage@10,0.4\nr,q2,Coverage@10,0.5\n"
    with pytest.raises(InputError, match="has one value, but the file gives 2"):
        read_scores(io.StringIO(bad), format="csv")


def test_trec_eval_digits_read_back_within_the_precision(trec_eval_data: Path) -> None:
    res = ranklens.evaluate(
        trec_eval_data / "qrels.test", trec_eval_data / "results.test", MEASURES
    )
    buffer = io.StringIO()
    write_scores(res, buffer, "trec_eval", digits=4)
    text = buffer.getvalue()
    ours = printed(text)
    golden = printed((trec_eval_data / "out.test.aq").read_text())
    for key, value in ours.items():  # byte for byte what trec_eval printed
        assert golden[key].strip() == value, key
    back = read_scores(io.StringIO(text))
    np.testing.assert_allclose(back.values, res.values, atol=5e-5)


def test_results_parquet_files_are_scores_too(tmp_path: Path, trec_eval_data: Path) -> None:
    res = ranklens.evaluate(
        trec_eval_data / "qrels.test", trec_eval_data / "results.test", MEASURES
    )
    res.to_parquet(tmp_path / "r.parquet")
    same_results(res, read_scores(tmp_path / "r.parquet"))  # type: ignore[arg-type]
    external = read_scores(io.StringIO("judge_score q1 0.5\njudge_score q2 1\n"), name="j")
    external.to_parquet(tmp_path / "e.parquet")  # type: ignore[union-attr]
    same_results(external, ranklens.Results.from_parquet(tmp_path / "e.parquet"))  # type: ignore[arg-type]
    external.to_jsonl(tmp_path / "e.jsonl")  # type: ignore[union-attr]
    same_results(external, ranklens.Results.from_jsonl(tmp_path / "e.jsonl"))  # type: ignore[arg-type]


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("text", "error", "match"),
    [
        ("map q1 0.5 extra\n", ParseError, "not a number: 'extra'"),
        ("map q1\n", ParseError, "cannot tell the format"),
        (
            "map q1 0.5\nmap q1 0.6\n",
            DuplicateError,
            r"map of topic 'q1' is given twice \(lines 1 and 2\)",
        ),
        ("map q1 0.5\nP_5 q2 0.2\nmap q2 0.1\n", InputError, "P_5 has no value for topic 'q1'"),
        (
            "map q1 abc\nmap all 0.5\n",
            ParseError,
            r"value of map for topic 'q1' is not a number: 'abc'",
        ),
        ("map all 0.5\n", EmptyInputError, "no per-topic scores"),
        ("# only a comment\n\n", EmptyInputError, "holds no scores"),
        ("map q1 0.5\nAP q2 0.5\n", InputError, "'map' and 'AP' are both AP"),
        ("run,qid,measure,value\nr,q1,map,\n", ParseError, "map of topic 'q1' has no value"),
        ("run,qid,measure,value\nr,q1,map,x\n", ParseError, r"not a number: 'x'"),
        ("run,measure,value\nr,map,0.5\n", ParseError, "cannot tell the format.*query column"),
        ("run,qid,measure,value,extra\nr,q1,map,0.5,1\n", InputError, "other columns too"),
        ("qid,run\nq1,r\n", InputError, "no measure columns"),
        ('{"qid": "q1", "x": 1}\n{"qid": \n', ParseError, "not a JSON object"),
        ("r m q1 v1\n", ParseError, "not a number: 'v1'"),
    ],
)
def test_bad_input_is_one_clear_error(text: str, error: type, match: str) -> None:
    with pytest.raises(error, match=match) as caught:
        read_scores(io.StringIO(text), name="r")
    assert "Traceback" not in str(caught.value)
    assert "\n" not in str(caught.value)


def test_bad_options_are_refused(tmp_path: Path) -> None:
    res = read_scores(io.StringIO("map q1 0.5\n"), name="r")
    with pytest.raises(OptionError, match="format must be one of"):
        read_scores(io.StringIO("map q1 0.5\n"), format="xml")
    with pytest.raises(OptionError, match="give format="):
        write_scores(res, tmp_path / "x.txt")
    with pytest.raises(OptionError, match="layout must be"):
        write_scores(res, tmp_path / "x.csv", layout="tall")  # type: ignore[arg-type]
    with pytest.raises(OptionError, match="digits must be"):
        write_scores(res, tmp_path / "x.txt", "trec_eval", digits=-1)
    two = read_score_set(
        [io.StringIO("map q1 0.5\n"), io.StringIO("map q1 0.2\n")], names=["a", "b"]
    )
    with pytest.raises(OptionError, match="holds one run, not 2"):
        write_scores(two, tmp_path / "n.jsonl", "nuggetizer")
    spaced = read_scores(io.StringIO("qid,map\nq 1,0.5\n"), format="csv", name="r")
    with pytest.raises(InputError, match="topic 'q 1' of run 'r' cannot be written"):
        write_scores(spaced, tmp_path / "t.txt", "trec_eval")
    with pytest.raises(OptionError, match="2 names for 1 runs"):
        read_score_set(io.StringIO("map q1 0.5\n"), names=["a", "b"])


def test_lower_is_better_and_rename() -> None:
    text = "qid,latency,Measure-01\nq1,10,0.5\nq2,20,0.25\n"
    res = read_scores(
        io.StringIO(text),
        format="csv",
        name="r",
        lower_is_better=["latency"],
        rename={"Measure-01": "nDCG@10"},
    )
    assert res.names == ["latency", "nDCG@10"]
    assert not res.measures[0].spec.higher_is_better
    assert not is_external(res.measures[1])


# ------------------------------------------------- issue 45: the all check, blocks, values

RAG = Path(__file__).resolve().parent / "data" / "rag"


def _metrics_lines() -> list[str]:
    return (RAG / "baseline_rag24.metrics.jsonl").read_text().splitlines()


def test_shortest_repr_values_are_exact_in_the_all_check() -> None:
    """nuggetizer writes each float's shortest text (0.5, 0.6875 beside 17-digit values):
    exact values, not values rounded to their own digits."""
    lines = _metrics_lines()
    assert len(lines) == 302
    full = read_scores(io.StringIO("\n".join(lines)), format="nuggetizer")
    assert len(full.queries) == 301
    cut = lines[:150] + lines[-1:]  # 150 of the 301 topics, the 301-topic 'all' line kept
    with pytest.raises(InputError, match=r"<stream>:151: .*'all' value of strict_vital_score"):
        read_scores(io.StringIO("\n".join(cut)), format="nuggetizer")
    last = json.loads(lines[-1])
    last["vital_score"] += 0.018
    off = [*lines[:-1], json.dumps(last)]
    with pytest.raises(InputError, match=r"'all' value of vital_score .* a difference of 0\.018"):
        read_scores(io.StringIO("\n".join(off)), format="nuggetizer")


def _decimals_of(text: str) -> int:
    exponent = Decimal(text).as_tuple().exponent
    assert isinstance(exponent, int)
    return max(0, -exponent)


def _accepts(texts: list[str], printed: str) -> bool:
    """The rule of docs/scores.md ("The all lines are checked"), written out. Texts that
    are each their float's shortest text (Python's repr) are all read to the most decimals
    any of them, the all value included, has; otherwise (a fixed number of decimals) each
    per-topic value to the most decimals a per-topic value has, d, and the all value to
    the most of d and its own. A value read to D decimals is within half a unit of the
    D-th (a whole number: exact); the printed mean must lie within the means at the two
    ends, widened by its own half unit (plus 1e-9 relative for float summation)."""
    d = max(_decimals_of(t) for t in texts)
    own = max(d, _decimals_of(printed))
    if all(repr(float(t)) == t for t in [*texts, printed]):
        d = own
    half = [0.0 if _decimals_of(t) == 0 else 0.5 * 10.0**-d for t in texts]
    mean = sum(Fraction(t) for t in texts) / len(texts)
    low = float(mean - sum(Fraction(h) for h in half) / len(texts))
    high = float(mean + sum(Fraction(h) for h in half) / len(texts))
    own_half = 0.0 if _decimals_of(printed) == 0 else 0.5 * 10.0**-own
    slack = own_half + 1e-9 * max(1.0, abs(float(printed)))
    return low - slack <= float(printed) <= high + slack


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.sampled_from([0.0, 0.25, 0.5, 0.6875, 1.0]),
            st.floats(0, 1, allow_nan=False, allow_infinity=False),
        ),
        min_size=1,
        max_size=30,
    ),
    st.sampled_from(["repr", "round4", 4, 6]),
    st.one_of(st.just(0.0), st.floats(-0.05, 0.05, allow_nan=False)),
)
def test_the_all_check_allows_exactly_the_printed_rounding(
    values: list[float], printing: str | int, shift: float
) -> None:
    """Files printed with repr (exact), with repr after rounding to 4 decimals (a
    DataFrame's round(4)), or with a fixed number of decimals (%.4f, %.6f), their all
    line off by ``shift``: read exactly when the documented rule accepts them."""

    def text(v: float) -> str:
        if printing == "repr":
            return repr(v)
        if printing == "round4":
            return repr(round(v, 4))
        return f"{v:.{printing}f}"

    mean = math.fsum(values) / len(values)
    texts = [text(v) for v in values]
    printed = text(mean + shift)
    body = "".join(f"map\tq{i}\t{t}\n" for i, t in enumerate(texts))
    source = io.StringIO(body + f"map\tall\t{printed}\n")
    if shift == 0.0:  # an honest file is always read
        assert _accepts(texts, printed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InputWarning)
        if _accepts(texts, printed):
            read_scores(source, name="r")
        elif _accepts(texts, repr(float(printed) * (1 + 1e-12))) or _accepts(
            texts, repr(float(printed) * (1 - 1e-12))
        ):
            return  # on the edge: float rounding decides, either way is right
        else:
            with pytest.raises(InputError, match="is not the mean"):
                read_scores(source, name="r")


def test_trec_eval_blocks_that_begin_with_their_runid_line() -> None:
    a = "runid\tall\tA\nmap\tq1\t0.5000\nmap\tq2\t0.2500\nmap\tall\t0.3750\n"
    b = "runid\tall\tB\nmap\tq1\t0.1000\nmap\tq2\t0.3000\nmap\tall\t0.2000\n"
    rs = read_score_set(io.StringIO(a + b))
    assert rs.runs == ("A", "B") and [r["AP"] for r in rs] == [0.375, 0.2]
    trailing = a.replace("runid\tall\tA\n", "").replace("map\tall", "runid\tall\tA\nmap\tall")
    assert read_score_set(io.StringIO(trailing)).runs == ("A",)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases(), cases(), st.booleans())
def test_runid_lines_first_or_last_name_every_block(case_a, case_b, leading: bool) -> None:
    results = [
        ranklens.evaluate(case_a.qrels, case_a.run, ["AP", "P@5"], name="first"),
        ranklens.evaluate(case_b.qrels, case_b.run, ["AP", "P@5"], name="second"),
    ]
    out = io.StringIO()
    write_scores(results, out, "trec_eval")
    blocks, current = [], []
    for line in out.getvalue().splitlines():
        if line.startswith("runid") and leading:
            current.insert(0, line)
        else:
            current.append(line)
        if line.split()[0] == "P_5" and line.split()[1] == "all":
            blocks.append(current)
            current = []
    text = "".join(line + "\n" for block in blocks for line in block)
    read = read_score_set(io.StringIO(text))
    assert read.runs == ("first", "second")
    for a, b in zip(results, read, strict=True):
        same_results(a, b)


@pytest.mark.parametrize("value", ["7.5000", "-0.5000", "1.0002"])
def test_values_outside_the_range_of_the_measure_are_warned_about(value: str) -> None:
    text = f"map\tq1\t0.5000\nmap\tq2\t{value}\n"
    with pytest.warns(
        InputWarning,
        match=rf"<stream>: .*map lie outside the range of AP, \[0, 1\] "
        rf"\(the first, {value} for topic 'q2' \(line 2\)\)",
    ):
        res = read_scores(io.StringIO(text), name="r")
    assert res.per_query["q2"]["AP"] == float(value)  # read as given
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        read_scores(io.StringIO("map\tq1\t1.0000\nmap\tq2\t0.0\n"))  # the bounds themselves
        read_scores(io.StringIO(text), name="r", rename={"map": "my_score"})  # its own measure


@pytest.mark.parametrize(
    ("text", "fmt", "line"),
    [
        ("map\tq1\t0.5\nmap\tq2\tnan\n", None, 2),
        ("map\tq1\tinf\nmap\tq2\t0.5\n", None, 1),
        ("map\tq1\t0.5\nmap\tq2\t-Infinity\n", None, 2),
        (
            '{"qid": "q1", "vital_score": 0.5}\n{"qid": "q2", "vital_score": null}\n',
            "nuggetizer",
            2,
        ),
        ('{"qid": "q1", "vital_score": NaN}\n', "nuggetizer", 1),
        ("run,query_id,measure,value\nr,q1,AP,0.5\nr,q2,AP,nan\n", "csv", 3),
        ("run\tmeasure\ttopic\tvalue\n", None, None),
    ],
)
def test_nan_and_infinite_values_are_refused_at_their_line(
    text: str, fmt: str | None, line: int | None
) -> None:
    if line is None:  # an AutoJudge leaderboard
        text = "r\tAP\tq1\t0.5\nr\tAP\tq2\tNaN\n"
        line = 2
    with pytest.raises(ParseError, match=rf"<stream>:{line}: .* not a number: each per-topic"):
        read_scores(io.StringIO(text), format=fmt)


def test_nan_in_a_dataframe_is_refused_at_its_row() -> None:
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"query_id": ["q1", "q2"], "AP": [0.5, float("nan")]})
    with pytest.raises(ParseError, match=r"<DataFrame>:2: AP of topic 'q2' is nan"):
        read_scores(frame)
