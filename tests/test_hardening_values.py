"""Regression tests for user-causable overflows and untyped errors found after the first
hardening pass (issue 17): values beyond 64 bits in every way in, grades that overflow
2^g, measure parameters beyond a C long, lone surrogates in text streams, and memory
failures of the parser. Each once gave "internal error", a raw Python exception, a silent
NaN or a silently wrapped number."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest

import ranklens
from ranklens.base.errors import InputError, MeasureError, ParseError, ResourceError
from ranklens.cli import main

RUN = {"q1": {"a": 0.9, "b": 0.8}, "q2": {"a": 0.5}}


@pytest.mark.parametrize(
    "grade", [2**63, 2**64, -(2**63) - 1, 1e300, -1e300, np.uint64(2**64 - 1)]
)
def test_grades_beyond_64_bits_in_a_dict_are_an_input_error(grade: object) -> None:
    with pytest.raises(InputError, match="does not fit a 64-bit integer"):
        ranklens.evaluate({"q1": {"a": grade, "b": 0}}, RUN, ["AP"])
    with pytest.raises(InputError, match="does not fit a 64-bit integer"):
        ranklens.Qrels.from_records([("q1", "a", grade)])


def test_grades_at_the_64_bit_limits_are_read() -> None:
    for grade in (2**63 - 1, -(2**63)):
        qrels = ranklens.Qrels.from_dict({"q1": {"a": grade, "b": 1}})
        assert sorted(qrels.rels.tolist()) == sorted([grade, 1])


def test_dataframe_grades_beyond_64_bits_never_wrap() -> None:
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    unsigned = pd.DataFrame(
        {
            "query_id": ["q1", "q1"],
            "doc_id": ["a", "b"],
            "relevance": np.array([2**64 - 1, 0], dtype=np.uint64),
        }
    )
    with pytest.raises(InputError, match="18446744073709551615 does not fit a 64-bit integer"):
        ranklens.evaluate(unsigned, RUN, ["AP"])
    fine = unsigned.assign(relevance=np.array([2**63 - 1, 0], dtype=np.uint64))
    assert ranklens.Qrels.from_frame(fine).rels.max() == 2**63 - 1
    floats = unsigned.assign(relevance=[1e300, 0.0])
    with pytest.raises(InputError, match="not an integer that fits 64 bits") as info:
        ranklens.evaluate(floats, RUN, ["AP"])
    assert info.value.line == 0


def test_err_with_grades_whose_power_of_two_overflows() -> None:
    # R(g) = (2^g - 1) / 2^gmax. gmax = 2000: R(2000) = 1 - 2^-2000 = 1.0 and
    # R(1999) = 1/2 - 2^-2000 = 0.5 in doubles. b (1999) at rank 1, a (2000) at rank 2:
    # ERR = 1/1 * 0.5 + 1/2 * 1.0 * (1 - 0.5) = 0.75; ERR@1 = 0.5.
    qrels = {"q1": {"a": 2000, "b": 1999}}
    run = {"q1": {"b": 2.0, "a": 1.0}}
    got = ranklens.evaluate(qrels, run, ["ERR", "ERR@1"]).aggregate
    assert got == {"ERR": 0.75, "ERR@1": 0.5}
    huge = ranklens.evaluate({"q1": {"a": 2**63 - 1, "b": 1}}, run, ["ERR"]).aggregate
    # R(b) = 2^(1 - gmax) ~ 0 and R(a) = 1: ERR = 1/2 * 1 * (1 - 0) = 0.5
    assert huge == {"ERR": 0.5}
    # a g_max beyond every grade: every R is 2^(g - g_max) - 2^-g_max = 0 in doubles
    beyond = ranklens.evaluate(qrels, run, [f"ERR(max_rel={10**30})", "ERR(max_rel=5000)"])
    assert list(beyond.aggregate.values()) == [0.0, 0.0]


def test_err_small_grades_are_unchanged() -> None:
    # gmax = 2: R = (0, 1/4, 3/4); ranking (1, 2): 1/4 + 1/2 * 3/4 * 3/4 = 0.53125
    got = ranklens.evaluate({"q1": {"a": 1, "b": 2}}, {"q1": {"a": 2.0, "b": 1.0}}, ["ERR"])
    assert got.aggregate == {"ERR": 0.53125}


def test_exponential_gains_that_overflow_are_refused() -> None:
    qrels = {"q1": {"a": 5000, "b": 1}}
    with pytest.raises(MeasureError, match="overflow"):
        ranklens.evaluate(qrels, RUN, ["nDCG(dcg='exp-log2')"])


@pytest.mark.parametrize(
    "measure",
    [
        "nDCG(gains={99999999999999999999:1})",
        "nDCG(gains={1:99999999999999999999999999999999999999999999999999" + "9" * 400 + "})",
    ],
)
def test_gain_maps_beyond_64_bits_are_a_measure_error(measure: str) -> None:
    with pytest.raises(MeasureError):
        ranklens.evaluate({"q1": {"a": 1}}, RUN, [measure])


def test_command_line_parameters_beyond_a_long(tmp_path: Path, capsys) -> None:
    (tmp_path / "q").write_bytes(b"q1 0 a 1\nq1 0 b 0\n")
    (tmp_path / "r").write_bytes(b"q1 Q0 a 1 2 t\nq1 Q0 b 2 1 t\n")
    q, r = str(tmp_path / "q"), str(tmp_path / "r")
    assert main(["trec-eval", "-m", "ndcg.99999999999999999999999=1", q, r]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ranklens trec-eval: error: ") and err.count("\n") == 1
    assert "internal error" not in err
    # -M beyond a C long: trec_eval's atol saturates, so it is no limit at all
    assert main(["trec-eval", "-m", "map", "-M", "9" * 30, q, r]) == 0
    limited = capsys.readouterr().out
    assert main(["trec-eval", "-m", "map", q, r]) == 0
    assert capsys.readouterr().out == limited
    assert main(["eval", q, r, "-m", "nDCG(gains={99999999999999999999:1})", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ranklens: error: gains: grade") and err.count("\n") == 1


def test_lone_surrogates_in_a_text_stream_are_a_parse_error() -> None:
    text = "q1 0 a 1\nq\udc80 0 b 1\n"
    with pytest.raises(ParseError, match=r"<stream>:2: is not valid UTF-8") as info:
        ranklens.Qrels.from_file(io.StringIO(text))
    assert info.value.line == 2
    with pytest.raises(ParseError, match="not valid UTF-8"):
        ranklens.Run.from_file(io.StringIO("q Q0 d\udcff 1 1 t\n"))


@pytest.mark.parametrize("rel", ["99999999999999999999", "1e300", "\u0661", "1_0", "nan", "1.5"])
def test_judgement_group_relevance_is_read_like_qrels(rel: str) -> None:
    from ranklens.data.judgement_groups import read_qrels_jg

    with pytest.raises(ParseError, match="is not an integer"):
        read_qrels_jg(io.BytesIO(f"q1 g1 d1 {rel}\n".encode()))
    # the qrels reader agrees
    with pytest.raises(ParseError, match="is not an integer"):
        ranklens.Qrels.from_file(io.BytesIO(f"q1 0 d1 {rel}\n".encode()))


def test_judgement_group_relevance_accepts_what_qrels_accept() -> None:
    from ranklens.data.judgement_groups import QrelsJG, read_qrels_jg

    for rel, value in [("2.0", 2), ("+3", 3), ("-1", -1), (str(2**63 - 1), 2**63 - 1)]:
        assert read_qrels_jg(io.BytesIO(f"q1 g1 d1 {rel}\n".encode())).rels.tolist() == [value]
    with pytest.raises(InputError, match="not an integer"):
        QrelsJG.from_records([("q1", "g", "d", 2**64)])
    with pytest.raises(InputError, match="not an integer"):
        QrelsJG.from_records([("q1", "g", "d", float("inf"))])


def test_zscore_file_not_utf8_is_one_line(tmp_path: Path, capsys) -> None:
    (tmp_path / "q").write_bytes(b"q1 0 a 1\n")
    (tmp_path / "r").write_bytes(b"q1 Q0 a 1 2 t\n")
    (tmp_path / "z").write_bytes(b"q1 map 0.5 0.1\nq\xff map 0.5 0.1\n")
    code = main(["trec-eval", "-Z", str(tmp_path / "z"), str(tmp_path / "q"), str(tmp_path / "r")])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    assert f"{tmp_path / 'z'}:2: is not valid UTF-8" in err


def test_parser_out_of_memory_is_a_resource_error_naming_the_file(monkeypatch) -> None:
    from ranklens.data import trec_text

    def exhausted(*args: object, **kwargs: object) -> None:
        raise MemoryError

    monkeypatch.setattr(trec_text._core, "parse_trec", exhausted)
    with pytest.raises(ResourceError, match=r"run\.txt: out of memory") as info:
        ranklens.Run.from_file(_named(b"q Q0 d 1 1 t\n", "run.txt"))
    assert isinstance(info.value, MemoryError)


def _named(data: bytes, name: str) -> io.BytesIO:
    stream = io.BytesIO(data)
    stream.name = name  # type: ignore[attr-defined]
    return stream


def test_evaluation_out_of_memory_is_a_resource_error_naming_the_run(
    monkeypatch, tmp_path: Path
) -> None:
    from ranklens.evaluation.evaluator import Evaluator

    run = tmp_path / "run.txt"
    run.write_bytes(b"q1 Q0 a 1 2 t\n")
    # ERR takes the general path for a small dict too (the tiny path aligns nothing)
    evaluator = Evaluator({"q1": {"a": 1}}, ["AP", "ERR@5"])

    def exhausted(*args: object, **kwargs: object) -> None:
        raise MemoryError

    monkeypatch.setattr(Evaluator, "align", exhausted)
    with pytest.raises(ResourceError, match=r"run\.txt: out of memory while evaluating"):
        evaluator.evaluate(str(run))
    with pytest.raises(ResourceError, match=r"<dict>: out of memory"):
        evaluator.evaluate({"q1": {"a": 1.0}})
