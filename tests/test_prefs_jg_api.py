"""trec_eval's preference and judgement-group measures through ``ranklens.evaluate()``,
``Evaluator`` and ``ranklens eval`` (``PrefsSimp``, ..., ``APAvgJG``, ``PAvgJG@k``,
``RprecMultAvgJG@x``): the same per-query values as ``ranklens trec-eval -R qrels_prefs`` /
``-R qrels_jg`` / ``-R prefs`` and as trec_eval's own expected outputs, the ``judgments``
file and its defaults, the query policies, and the errors."""

from __future__ import annotations

import gzip
import io
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

import ranklens
from ranklens import Evaluator, Run
from ranklens.base.errors import InputError, MeasureError
from ranklens.cli import main
from ranklens.data.judgement_groups import read_qrels_jg
from ranklens.data.prefs import read_prefs, read_qrels_prefs
from ranklens.kernels.judgement_groups import DEFAULT_P_CUTOFFS, DEFAULT_RPREC_MULTS, evaluate_jg
from ranklens.kernels.preferences import PREFS_SUMMED, evaluate_prefs
from ranklens.measures import REGISTRY, parse_measure
from ranklens.measures.trec_names import trec_value_name

PREFS = {
    "NumPrefsPoss": "prefs_num_prefs_poss",
    "NumPrefsFul": "prefs_num_prefs_ful",
    "NumPrefsFulRet": "prefs_num_prefs_ful_ret",
    "PrefsSimp": "prefs_simp",
    "PrefsPair": "prefs_pair",
    "PrefsAvgJG": "prefs_avgjg",
    "PrefsAvgJGRnonrel": "prefs_avgjg_Rnonrel",
    "PrefsSimpRet": "prefs_simp_ret",
    "PrefsPairRet": "prefs_pair_ret",
    "PrefsAvgJGRet": "prefs_avgjg_ret",
    "PrefsAvgJGRnonrelRet": "prefs_avgjg_Rnonrel_ret",
    "PrefsSimpImp": "prefs_simp_imp",
    "PrefsPairImp": "prefs_pair_imp",
    "PrefsAvgJGImp": "prefs_avgjg_imp",
}
"""ranklens name -> trec_eval value name, for the 14 preference measures."""


def jg_names(rel: str = "", judged_only: bool = False) -> dict[str, str]:
    """ranklens name -> trec_eval value name for trec_eval's default jg parameters."""
    params = [p for p in (rel, "judged_only=True" if judged_only else "") if p]
    args = f"({','.join(params)})" if params else ""
    out = {f"APAvgJG{args}": "map_avgjg"}
    out.update({f"PAvgJG{args}@{k}": f"P_avgjg_{k}" for k in DEFAULT_P_CUTOFFS})
    out.update(
        {f"RprecMultAvgJG{args}@{x}": f"Rprec_mult_avgjg_{x:.2f}" for x in DEFAULT_RPREC_MULTS}
    )
    return out


def printed(trec_name: str, value: float) -> str:
    """trec_eval's formatting: ``%ld`` for the summed counts, else ``%6.4f``."""
    return str(int(value)) if trec_name in PREFS_SUMMED else f"{value:6.4f}"


def parse_trec_output(text: str) -> dict[tuple[str, str], str]:
    out = {}
    for line in text.splitlines():
        name, qid, value = line.split("\t")
        out[(name.strip(), qid)] = value
    return out


def trec_eval(args: list[str], capsys: pytest.CaptureFixture[str]) -> dict[tuple[str, str], str]:
    capsys.readouterr()
    assert main(["trec-eval", *args]) == 0
    out, _ = capsys.readouterr()
    return parse_trec_output(out)


def as_trec_lines(res: ranklens.Results, names: dict[str, str]) -> dict[tuple[str, str], str]:
    """``res`` printed as trec_eval prints it: per query and ``all``."""
    out = {}
    for measure, trec_name in names.items():
        key = str(parse_measure(measure))
        for qid, value in res.query_values(key).items():
            out[(trec_name, qid)] = printed(trec_name, value)
        out[(trec_name, "all")] = printed(trec_name, res[key])
    return out


def only(expected: dict[tuple[str, str], str], names: dict[str, str]):
    wanted = set(names.values())
    return {k: v for k, v in expected.items() if k[0] in wanted}


# -- the registry ------------------------------------------------------------------------------


def test_the_measures_are_declared_with_their_judgments() -> None:
    prefs = {name for name, spec in REGISTRY.items() if spec.judgments == "prefs"}
    jg = {name for name, spec in REGISTRY.items() if spec.judgments == "qrels_jg"}
    assert prefs == set(PREFS)
    assert jg == {"APAvgJG", "PAvgJG", "RprecMultAvgJG"}
    assert REGISTRY["AP"].judgments == "qrels"
    for name, trec_name in PREFS.items():
        spec = REGISTRY[name]
        assert trec_value_name(parse_measure(name)) == trec_name
        assert spec.aggregate == ("sum" if trec_name in PREFS_SUMMED else "mean")
    assert trec_value_name(parse_measure("APAvgJG")) == "map_avgjg"
    assert trec_value_name(parse_measure("PAvgJG@10")) == "P_avgjg_10"
    assert trec_value_name(parse_measure("RprecMultAvgJG@0.2")) == "Rprec_mult_avgjg_0.20"
    assert trec_value_name(parse_measure("PAvgJG(rel=2)@10")) is None
    assert str(parse_measure("MAPAvgJG")) == "APAvgJG"
    assert str(parse_measure("PAvgJG(judged_only=True,rel=2)@5")) == (
        "PAvgJG(judged_only=True,rel=2)@5"
    )
    with pytest.raises(MeasureError, match="PAvgJG needs '@cutoff'"):
        parse_measure("PAvgJG")
    with pytest.raises(MeasureError, match="RprecMultAvgJG needs '@mult'"):
        parse_measure("RprecMultAvgJG")
    with pytest.raises(MeasureError, match="PrefsSimp has no parameter 'rel'"):
        parse_measure("PrefsSimp(rel=2)")


def test_the_kernel_refuses_to_run_on_aligned_arrays() -> None:
    aligned = Evaluator({"q1": {"d1": 1}}, ["AP"]).align({"q1": {"d1": 1.0}})
    for name in ("PrefsSimp", "PAvgJG@10"):
        with pytest.raises(MeasureError, match="judgments=PATH"):
            parse_measure(name).compute(aligned)


def test_measures_lists_them(capsys) -> None:
    assert main(["measures", "-f", "json"]) == 0
    entries = {e["name"]: e for e in json.loads(capsys.readouterr().out)}
    for name in [*PREFS, "APAvgJG", "PAvgJG", "RprecMultAvgJG"]:
        assert name in entries
    assert entries["PrefsSimp"]["trec_eval"] == "prefs_simp"
    assert entries["PrefsSimp"]["judgments"] == "prefs"
    assert entries["NumPrefsPoss"]["aggregate"] == "sum"
    assert entries["PAvgJG"]["trec_eval"] == "P_avgjg_k"
    assert entries["PAvgJG"]["at"] == {"name": "cutoff", "required": True}
    assert entries["PAvgJG"]["judgments"] == "qrels_jg"
    assert entries["RprecMultAvgJG"]["trec_eval"] == "Rprec_mult_avgjg_x"
    assert entries["APAvgJG"]["aliases"] == ["MAPAvgJG"]
    assert entries["AP"]["judgments"] == "qrels"
    assert main(["measures", "-f", "markdown"]) == 0
    markdown = capsys.readouterr().out
    assert "| PrefsAvgJGRnonrelRet |  | mean | prefs_avgjg_Rnonrel_ret |" in markdown
    assert "| RprecMultAvgJG(rel=1, judged_only=False)@mult |" in markdown


# -- against ranklens trec-eval and trec_eval's expected outputs -------------------------------


def test_prefs_on_a_qrels_file_equal_trec_eval_qrels_prefs(trec_eval_data: Path, capsys) -> None:
    qrels, run = trec_eval_data / "qrels.test", trec_eval_data / "results.test"
    res = ranklens.evaluate(qrels, run, list(PREFS))
    # exactly the values of trec_prefs, which the trec-eval front end prints
    direct = evaluate_prefs(read_qrels_prefs(qrels), Run.from_file(run))
    assert res.queries == tuple(direct)
    for name, trec_name in PREFS.items():
        assert res.query_values(name) == {q: v[trec_name] for q, v in direct.items()}
    printed_ = trec_eval(
        ["-q", "-m", "all_prefs", "-R", "qrels_prefs", str(qrels), str(run)], capsys
    )
    assert as_trec_lines(res, PREFS) == only(printed_, PREFS)
    golden = parse_trec_output((trec_eval_data / "out.test.qrels_prefs").read_text())
    assert as_trec_lines(res, PREFS) == only(golden, PREFS)


@pytest.mark.parametrize("prefs_file", ["prefs.test", "prefs.comment.test"])
def test_prefs_file_equals_out_test_prefs(trec_eval_data: Path, prefs_file: str) -> None:
    judgments, run = trec_eval_data / prefs_file, trec_eval_data / "prefs.results.test"
    golden = only(parse_trec_output((trec_eval_data / "out.test.prefs").read_text()), PREFS)
    direct = evaluate_prefs(read_prefs(judgments), Run.from_file(run))
    # the judgement file alone stands for the qrels: its queries are the evaluated ones
    with judgments.open("rb") as stream, judgments.open() as text:
        variants = [
            ranklens.evaluate(judgments, run, list(PREFS)),
            ranklens.evaluate({"q": {"d": 1}}, run, list(PREFS), judgments=judgments),
            ranklens.evaluate(str(judgments), str(run), list(PREFS), judgments=stream),
            ranklens.evaluate(text, run, list(PREFS)),
        ]
    for res in variants:
        assert len(res.queries) == 24
        assert as_trec_lines(res, PREFS) == golden
        for name, trec_name in PREFS.items():
            assert res.query_values(name) == {q: v[trec_name] for q, v in direct.items()}
    assert variants[0].query_counts["evaluated"] == 24


@pytest.mark.parametrize(
    ("options", "kwargs", "rel", "judged_only"),
    [
        ([], {}, "", False),
        (["-l2"], {}, "rel=2", False),
        (["-J", "-M100"], {"depth": 100}, "", True),
        (["-l0", "-M7"], {"depth": 7}, "rel=0", False),
    ],
)
def test_jg_equal_trec_eval_qrels_jg(
    trec_eval_data: Path, capsys, options: list[str], kwargs: dict, rel: str, judged_only: bool
) -> None:
    qrels, run = trec_eval_data / "qrels.123", trec_eval_data / "results.test"
    names = jg_names(rel, judged_only)
    # qrels.123 judges a document in several groups: fine, as no measure needs plain qrels
    res = ranklens.evaluate(qrels, run, list(names), **kwargs)
    level = int(rel.partition("=")[2] or 1)
    direct = evaluate_jg(
        read_qrels_jg(qrels),
        Run.from_file(run),
        rel_level=level,
        judged_only=judged_only,
        depth=kwargs.get("depth"),
    )
    assert res.queries == tuple(direct) == ("301", "302", "303")
    for name, trec_name in names.items():
        measure = str(parse_measure(name))
        assert res.query_values(measure) == {q: v[trec_name] for q, v in direct.items()}
    cli = trec_eval(
        ["-q", "-m", "qrels_jg", "-R", "qrels_jg", *options, str(qrels), str(run)], capsys
    )
    assert as_trec_lines(res, names) == only(cli, names)
    if not options:
        golden = parse_trec_output((trec_eval_data / "out.test.qrels_jg").read_text())
        assert as_trec_lines(res, names) == only(golden, names)


def test_jg_on_an_ordinary_qrels_file(trec_eval_data: Path, capsys) -> None:
    """An ordinary qrels file is one judgement group: the jg measures are AP, P@k and
    RprecMult@x, and they mix with the ordinary measures."""
    qrels, run = trec_eval_data / "qrels.test", trec_eval_data / "results.test"
    names = ["AP", "APAvgJG", "P@10", "PAvgJG@10", "RprecMult@0.4", "RprecMultAvgJG@0.4"]
    res = ranklens.evaluate(qrels, run, names)
    for plain, jg in (("AP", "APAvgJG"), ("P@10", "PAvgJG@10")):
        got, want = res.query_values(jg), res.query_values(plain)
        assert got == pytest.approx(want, rel=1e-12, abs=1e-15)
    cli = trec_eval(["-q", "-m", "qrels_jg", "-R", "qrels_jg", str(qrels), str(run)], capsys)
    assert as_trec_lines(res, {"APAvgJG": "map_avgjg"}) == only(cli, {"_": "map_avgjg"})


def test_separate_judgments_with_ordinary_measures(trec_eval_data: Path) -> None:
    qrels, run = trec_eval_data / "qrels.test", trec_eval_data / "results.test"
    jg_file = trec_eval_data / "qrels.123"
    names = ["AP", "nDCG@10", "APAvgJG", "PAvgJG@5", "RprecMultAvgJG@1.2", "PrefsSimp"]
    res = ranklens.evaluate(qrels, run, names, judgments=jg_file)
    plain = ranklens.evaluate(qrels, run, ["AP", "nDCG@10"])
    np.testing.assert_array_equal(res.values[:, :2], plain.values)
    the_run = Run.from_file(run)
    jg = evaluate_jg(read_qrels_jg(jg_file), the_run, p_cutoffs=[5], rprec_mults=[1.2])
    prefs = evaluate_prefs(read_qrels_prefs(jg_file), the_run)
    assert res.query_values("APAvgJG") == {q: v["map_avgjg"] for q, v in jg.items()}
    assert res.query_values("PAvgJG@5") == {q: v["P_avgjg_5"] for q, v in jg.items()}
    assert res.query_values("RprecMultAvgJG@1.2") == {
        q: v["Rprec_mult_avgjg_1.20"] for q, v in jg.items()
    }
    assert res.query_values("PrefsSimp") == {q: v["prefs_simp"] for q, v in prefs.items()}


def test_rprec_mults_whose_value_names_collide(trec_eval_data: Path) -> None:
    qrels, run = trec_eval_data / "qrels.123", trec_eval_data / "results.test"
    res = ranklens.evaluate(qrels, run, ["RprecMultAvgJG@0.125", "RprecMultAvgJG@0.12"])
    the_run, jg = Run.from_file(run), read_qrels_jg(qrels)
    for x in (0.125, 0.12):
        direct = evaluate_jg(jg, the_run, p_cutoffs=[5], rprec_mults=[x])
        assert res.query_values(f"RprecMultAvgJG@{x}") == {
            q: v["Rprec_mult_avgjg_0.12"] for q, v in direct.items()
        }


# -- queries, depth, reading once -------------------------------------------------------------

PREFS_LINES = """\
q1 u1 s d1 2
q1 u1 s d2 1
q1 u1 s d3 0
q1 u2 s d3 1
q1 u2 s d1 0
q3 u1 s d5 1
q3 u1 s d6 0
q4 u1 s d7 1
q4 u1 s d8 0
"""
RUN = {"q1": {"d2": 0.9, "d1": 0.5, "d9": 0.4, "d3": 0.1}, "q2": {"x": 1.0}, "q3": {"d6": 2.0}}


@pytest.mark.parametrize("queries", ["qrels", "both", "run"])
def test_query_policies_and_missing_queries(tmp_path: Path, queries: str) -> None:
    prefs_file = tmp_path / "prefs.txt"
    prefs_file.write_text(PREFS_LINES)
    qrels = {"q1": {"d1": 1}, "q2": {"x": 1}, "q4": {"d7": 1}}
    names = ["AP", "NumPrefsPoss", "NumPrefsFul", "PrefsSimp", "PrefsPairImp"]
    res = ranklens.evaluate(qrels, RUN, names, judgments=prefs_file, queries=queries)
    plain = ranklens.evaluate(qrels, RUN, ["AP"], queries=queries)
    assert res.queries == plain.queries  # the qrels' queries, under the policy
    direct = evaluate_prefs(read_prefs(prefs_file), RUN, queries=queries)
    for name in names[1:]:
        trec_name = PREFS[name]
        want = {q: direct[q][trec_name] if q in direct else 0.0 for q in res.queries}
        assert res.query_values(name) == want
    if queries == "qrels":
        # q4 is judged but not retrieved: its preferences are possible, none fulfilled
        assert res.per_query["q4"]["NumPrefsPoss"] == 1.0
        assert res.per_query["q4"]["NumPrefsFul"] == 0.0
        assert res.per_query["q2"]["NumPrefsPoss"] == 0.0  # no preferences
    if queries == "run":
        assert res.per_query["q3"]["NumPrefsFul"] == 0.0
        assert res.per_query["q3"]["NumPrefsPoss"] == 1.0
    assert res["NumPrefsPoss"] == sum(res.query_values("NumPrefsPoss").values())


def test_only_judgement_measures_take_the_judgement_files_queries(tmp_path: Path) -> None:
    prefs_file = tmp_path / "prefs.txt"
    prefs_file.write_text(PREFS_LINES)
    res = ranklens.evaluate({"q1": {"d1": 1}}, RUN, ["PrefsSimp"], judgments=prefs_file)
    assert res.queries == ("q1", "q3", "q4")
    assert res.query_counts["missing"] == 1  # q4
    both = ranklens.evaluate(prefs_file, RUN, ["PrefsSimp"], queries="both")
    assert both.queries == ("q1", "q3")


def test_depth_ties_and_duplicates(tmp_path: Path, trec_eval_data: Path) -> None:
    qrels, run = trec_eval_data / "qrels.test", trec_eval_data / "results.test"
    res = ranklens.evaluate(qrels, run, ["PrefsSimp", "PAvgJG@20"], depth=10, ties="input")
    the_run = Run.from_file(run)
    prefs = evaluate_prefs(read_qrels_prefs(qrels), the_run, depth=10)
    jg = evaluate_jg(read_qrels_jg(qrels), the_run, depth=10, p_cutoffs=[20])
    assert res.query_values("PrefsSimp") == {q: v["prefs_simp"] for q, v in prefs.items()}
    assert res.query_values("PAvgJG@20") == {q: v["P_avgjg_20"] for q, v in jg.items()}
    # a repeated document, kept once as the evaluator's duplicates policy says
    prefs_file = tmp_path / "prefs.txt"
    prefs_file.write_text(PREFS_LINES)
    dup = [("q1", "d1", 0.1), ("q1", "d1", 3.0), ("q1", "d3", 2.0)]
    with pytest.warns(ranklens.InputWarning, match="2 of the 3"):  # the run answers q1 only
        got = ranklens.evaluate(prefs_file, dup, ["NumPrefsFul"], duplicates="max")
    want = evaluate_prefs(read_prefs(prefs_file), {"q1": {"d1": 3.0, "d3": 2.0}})
    assert got.per_query["q1"]["NumPrefsFul"] == want["q1"]["prefs_num_prefs_ful"]


def test_the_judgement_file_is_read_once_and_only_when_needed(tmp_path: Path) -> None:
    prefs_file = tmp_path / "prefs.txt"
    prefs_file.write_text(PREFS_LINES)
    ev = Evaluator({"q1": {"d1": 1}}, ["AP", "PrefsSimp"], judgments=prefs_file)
    prefs_file.unlink()
    first = ev.evaluate(RUN)
    second = ev.evaluate({"q1": {"d1": 3.0, "d2": 2.0}})
    assert (first.per_query["q1"]["PrefsSimp"], second.per_query["q1"]["PrefsSimp"]) == (0.5, 0.75)
    # no such measure: the file is not even opened
    res = ranklens.evaluate({"q1": {"d1": 1}}, RUN, ["AP"], judgments=tmp_path / "missing")
    assert res["AP"] == 0.5


def test_a_compressed_judgement_file(tmp_path: Path, trec_eval_data: Path) -> None:
    packed = tmp_path / "qrels.123.gz"
    packed.write_bytes(gzip.compress((trec_eval_data / "qrels.123").read_bytes()))
    run = trec_eval_data / "results.test"
    got = ranklens.evaluate(packed, run, ["APAvgJG"])
    want = ranklens.evaluate(trec_eval_data / "qrels.123", run, ["APAvgJG"])
    np.testing.assert_array_equal(got.values, want.values)


# -- errors --------------------------------------------------------------------------------------


def test_no_judgement_file_is_an_error_naming_the_measure(trec_eval_data: Path) -> None:
    qrels = {"q1": {"d1": 1}}
    for name, what in (("PrefsSimp", "preference judgments"), ("PAvgJG@5", "judgement-group")):
        with pytest.raises(MeasureError, match=rf"{name}.*{what}.*judgments=PATH"):
            ranklens.evaluate(qrels, RUN, ["AP", name])
    with pytest.raises(MeasureError, match=r"APAvgJG.*judgments=PATH"):
        Evaluator(ranklens.Qrels.from_dict(qrels), ["APAvgJG"])
    with pytest.raises(MeasureError, match="judgments=PATH"):
        ranklens.evaluate([("q1", "d1", 1)], RUN, ["NumPrefsPoss"])
    # a file object read as ordinary qrels is not read again
    with (
        (trec_eval_data / "qrels.test").open("rb") as stream,
        pytest.raises(MeasureError, match=r"PrefsSimp.*judgments=PATH"),
    ):
        ranklens.evaluate(stream, RUN, ["AP", "PrefsSimp"])


def test_a_prefs_file_for_judgement_group_measures_is_an_error(trec_eval_data: Path) -> None:
    prefs_file, run = trec_eval_data / "prefs.test", trec_eval_data / "prefs.results.test"
    with pytest.raises(MeasureError, match=r"APAvgJG needs judgement-group qrels.*5 columns"):
        ranklens.evaluate(prefs_file, run, ["PrefsSimp", "APAvgJG"])


def test_bad_judgement_files(tmp_path: Path) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_text("q1 u1 d1 1\nq1 u1 d2\n")
    with pytest.raises(InputError, match=r"bad\.txt:2: expected 4 fields"):
        ranklens.evaluate({"q1": {"d1": 1}}, RUN, ["PrefsSimp"], judgments=bad)
    with pytest.raises(InputError, match="no such file"):
        ranklens.evaluate({"q1": {"d1": 1}}, RUN, ["PrefsSimp"], judgments=tmp_path / "none")


# -- ranklens eval --------------------------------------------------------------------------------


def test_eval_command_with_judgments(trec_eval_data: Path, capsys) -> None:
    qrels, run = trec_eval_data / "qrels.test", trec_eval_data / "results.test"
    jg_file = trec_eval_data / "qrels.123"
    capsys.readouterr()
    argv = ["eval", str(qrels), str(run), "-m", "AP PrefsSimp APAvgJG PAvgJG@10"]
    code = main([*argv, "--judgments", str(jg_file), "-f", "json", "-q", "--quiet"])
    out, err = capsys.readouterr()
    assert code == 0 and err == ""
    payload = json.loads(out)
    names = ["AP", "PrefsSimp", "APAvgJG", "PAvgJG@10"]
    assert payload["measures"] == names
    want = ranklens.evaluate(qrels, run, names, judgments=jg_file)
    got = payload["runs"][0]
    assert got["aggregate"] == want.aggregate
    assert got["per_query"] == want.per_query
    # without --judgments the qrels file is the judgement file
    assert main(["eval", str(jg_file), str(run), "-m", "APAvgJG", "-f", "json"]) == 0
    out, _ = capsys.readouterr()
    direct = ranklens.evaluate(jg_file, run, ["APAvgJG"])
    assert json.loads(out)["runs"][0]["aggregate"] == direct.aggregate


def test_eval_command_errors(trec_eval_data: Path, tmp_path: Path, capsys, monkeypatch) -> None:
    run = trec_eval_data / "results.test"
    qrels_copy = tmp_path / "qrels"
    shutil.copy(trec_eval_data / "qrels.test", qrels_copy)
    capsys.readouterr()
    code = main(["eval", str(qrels_copy), str(run), "-m", "PrefsSimp", "--judgments", "nope"])
    _, err = capsys.readouterr()
    assert code == 2 and "nope" in err and "no such file" in err
    code = main(["eval", "-", str(run), "-m", "PrefsSimp", "--judgments", "-"])
    _, err = capsys.readouterr()
    assert code == 2 and "only one of the files can be '-'" in err
    # stdin, once read as qrels, cannot be read again as the judgement file
    stdin = io.TextIOWrapper(io.BytesIO(qrels_copy.read_bytes()))
    monkeypatch.setattr("sys.stdin", stdin)
    code = main(["eval", "-", str(run), "-m", "AP PrefsSimp"])
    _, err = capsys.readouterr()
    assert code == 2 and "PrefsSimp" in err and "--judgments" in err
    # ... but with only judgement measures it is read once, as the judgement file
    stdin = io.TextIOWrapper(io.BytesIO(qrels_copy.read_bytes()))
    monkeypatch.setattr("sys.stdin", stdin)
    code = main(["eval", "-", str(run), "-m", "PrefsSimp", "-f", "json", "--quiet"])
    out, _ = capsys.readouterr()
    want = ranklens.evaluate(qrels_copy, run, ["PrefsSimp"]).aggregate
    assert code == 0 and json.loads(out)["runs"][0]["aggregate"] == want
