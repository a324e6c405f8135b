"""Regression tests for the audited input defects: each once gave a silent wrong number, a
crash or an "internal error" (issue: hardening)."""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

import ranklens
from ranklens.base.errors import InputError, OptionError, ParseError, RanklensError
from ranklens.cli import main

QRELS = b"q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 1\nq2 0 d9 2\n"
RUN = b"q1 Q0 d1 1 3 t\nq1 Q0 d2 2 2 t\nq1 Q0 d3 3 1 t\nq2 Q0 d8 1 5 t\nq2 Q0 d9 2 4 t\n"
MEASURES = ["AP", "nDCG@10", "P@2", "NumRel", "NumRet"]


def _expected() -> dict[str, float]:
    return ranklens.evaluate(io.BytesIO(QRELS), io.BytesIO(RUN), MEASURES).aggregate


def test_cr_only_line_ends_are_an_error_that_names_the_line() -> None:
    for qrels, run in ((QRELS, RUN.replace(b"\n", b"\r")), (QRELS.replace(b"\n", b"\r"), RUN)):
        with pytest.raises(ParseError, match=r":1: has a carriage return .*tr '\\r' '\\n'"):
            ranklens.evaluate(io.BytesIO(qrels), io.BytesIO(run), MEASURES)
    late = RUN.replace(b"q2 Q0 d9", b"q2\rQ0 d9")
    with pytest.raises(ParseError, match=r":5: has a carriage return"):
        ranklens.evaluate(io.BytesIO(QRELS), io.BytesIO(late), MEASURES)


def test_crlf_line_ends_read_as_lines() -> None:
    got = ranklens.evaluate(
        io.BytesIO(QRELS.replace(b"\n", b"\r\n")), io.BytesIO(RUN.replace(b"\n", b"\r\n")), MEASURES
    )
    assert got.aggregate == _expected()


@pytest.mark.parametrize("compress", [None, gzip.compress, bz2.compress, lzma.compress])
def test_a_byte_order_mark_is_skipped_in_every_reader(tmp_path: Path, compress) -> None:
    bom = b"\xef\xbb\xbf"
    qrels, run = bom + QRELS, bom + RUN
    if compress is not None:
        qrels, run = compress(qrels), compress(run)
    (tmp_path / "q").write_bytes(qrels)
    (tmp_path / "r").write_bytes(run)
    got = ranklens.evaluate(str(tmp_path / "q"), str(tmp_path / "r"), MEASURES)
    assert got.aggregate == _expected()
    assert got.queries == ("q1", "q2")
    # the judgement-file readers (trec_eval's -R qrels_prefs and -R qrels_jg) too
    prefs = ranklens.evaluate(str(tmp_path / "q"), str(tmp_path / "r"), ["PrefsSimp", "APAvgJG"])
    plain = tmp_path / "plain"
    plain.write_bytes(QRELS)
    same = ranklens.evaluate(str(plain), io.BytesIO(RUN), ["PrefsSimp", "APAvgJG"])
    assert prefs.aggregate == same.aggregate


def test_a_byte_order_mark_on_stdin(monkeypatch, capsys, tmp_path: Path) -> None:
    (tmp_path / "q").write_bytes(QRELS)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"\xef\xbb\xbf" + RUN)))
    assert main(["eval", str(tmp_path / "q"), "-", "-m", "AP", "--format", "json", "--quiet"]) == 0
    assert '"AP": 0.' in capsys.readouterr().out


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes on this system")
def test_pipes_and_process_substitution_are_read_as_streams(tmp_path: Path) -> None:
    (tmp_path / "q").write_bytes(QRELS)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    writer = subprocess.Popen([sys.executable, "-c", f"open({str(fifo)!r}, 'wb').write({RUN!r})"])
    try:
        got = ranklens.evaluate(str(tmp_path / "q"), str(fifo), MEASURES)
    finally:
        writer.wait(timeout=30)
    assert got.aggregate == _expected()
    done = subprocess.run(
        [
            "bash",
            "-c",
            f"{shlex.quote(sys.executable)} -m ranklens eval {tmp_path / 'q'} <(cat) -m AP "
            "--format json --quiet",
        ],
        input=RUN,
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize(
    "damage",
    [
        lambda b: b[:-12],  # truncated
        lambda b: b[:12] + bytes(x ^ 0x55 for x in b[12:30]) + b[30:],  # corrupt body
    ],
)
@pytest.mark.parametrize("compress", [gzip.compress, bz2.compress, lzma.compress])
def test_a_damaged_compressed_file_is_a_typed_error(tmp_path: Path, compress, damage) -> None:
    path = tmp_path / "run.gz"
    path.write_bytes(damage(compress(RUN * 50)))
    with pytest.raises(InputError, match="corrupt or truncated") as info:
        ranklens.evaluate(io.BytesIO(QRELS), str(path), MEASURES)
    assert info.value.path == str(path)
    (tmp_path / "q").write_bytes(QRELS)
    done = subprocess.run(
        [sys.executable, "-m", "ranklens", "eval", str(tmp_path / "q"), str(path), "-m", "AP"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "corrupt or truncated" in done.stderr
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr


@pytest.mark.parametrize("grade", [2**62, 2**63 - 1, 2**61 + 7])
def test_huge_relevance_values_evaluate_or_fail_clearly(grade: int) -> None:
    qrels = {"q1": {"a": grade, "b": 0, "c": 1}, "q2": {"a": grade - 1}}
    run = {"q1": {"a": 0.9, "b": 0.8, "c": 0.7}, "q2": {"a": 0.5, "x": 0.6}}
    got = ranklens.evaluate(qrels, run, ["AP", "P@2", "Rprec", "NumRel", "RR", "Bpref"])
    small = {"q1": {"a": 5, "b": 0, "c": 1}, "q2": {"a": 4}}
    assert got.aggregate == ranklens.evaluate(small, run, got.names).aggregate
    text = f"q1 0 a {grade}\nq1 0 b 0\n".encode()
    from_file = ranklens.evaluate(io.BytesIO(text), io.BytesIO(b"q1 Q0 a 1 1 t\n"), ["AP"])
    assert from_file.aggregate == {"AP": 1.0}
    with pytest.raises(RanklensError, match="too large"):  # walks every grade
        ranklens.evaluate(qrels, run, ["nDCG(gains={1:1,2:3})"])


def test_long_numbers_are_numbers() -> None:
    score = "0." + "0" * 70 + "25"
    rel = "0" * 80 + "1"
    got = ranklens.evaluate(
        io.BytesIO(f"q 0 a {rel}\nq 0 b 0\n".encode()),
        io.BytesIO(f"q Q0 a 1 {score} t\nq Q0 b 2 1e-300 t\n".encode()),
        ["AP", "NumRel"],
    )
    assert got.aggregate == {"AP": 1.0, "NumRel": 1.0}
    run = ranklens.Run.from_file(io.BytesIO(f"q Q0 a 1 {score} t\n".encode()))
    assert run.scores.tolist() == [float(score)]
    with pytest.raises(ParseError, match="not a number"):
        ranklens.Run.from_file(io.BytesIO(("q Q0 a 1 " + "1" * 70 + "x t\n").encode()))


def test_trec_eval_duplicate_qrels_speak_trec_eval(tmp_path: Path, capsys) -> None:
    (tmp_path / "q").write_bytes(b"q1 0 d1 1\nq1 0 d1 0\n")
    (tmp_path / "r").write_bytes(b"q1 Q0 d1 1 1 t\n")
    code = main(["trec-eval", str(tmp_path / "q"), str(tmp_path / "r")])
    err = capsys.readouterr().err
    assert code == 4  # trec_eval's exit code for duplicate docs
    assert err.startswith("ranklens trec-eval: error: trec_eval.form_res_rels: duplicate docs d1")
    assert "lines 1 and 2" in err
    assert "--duplicates" not in err and "ranklens: " not in err


def test_trec_eval_missing_query_says_how_to_go_on(tmp_path: Path, capsys) -> None:
    (tmp_path / "q").write_bytes(b"q1 0 d1 1\nq2 0 d2 1\n")
    (tmp_path / "r").write_bytes(b"q1 Q0 d1 1 1 t\n")
    assert main(["trec-eval", str(tmp_path / "q"), str(tmp_path / "r")]) == 4
    err = capsys.readouterr().err
    assert "-c" in err and "--v9" in err


def test_output_files_never_overwrite_inputs_and_need_force(tmp_path: Path, capsys) -> None:
    from ranklens.data.output import write_atomically

    qrels, run = tmp_path / "q", tmp_path / "r"
    qrels.write_bytes(QRELS)
    run.write_bytes(RUN)
    with pytest.raises(OptionError, match="one of the input files"):
        write_atomically(qrels, "x", inputs=[qrels, run], force=True)
    assert qrels.read_bytes() == QRELS
    link = tmp_path / "link"
    link.symlink_to(run)
    with pytest.raises(OptionError, match="one of the input files"):
        write_atomically(link, "x", inputs=[run], force=True)
    other = tmp_path / "other.txt"
    other.write_text("keep")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.symlink_to(other)
    with pytest.raises(OptionError, match="symbolic link"):
        write_atomically(elsewhere, "x")
    write_atomically(elsewhere, "new", force=True)
    assert other.read_text() == "keep" and elsewhere.read_text() == "new"
    assert not elsewhere.is_symlink()
    with pytest.raises(OptionError, match="exists; give --force"):
        write_atomically(other, "x")
    write_atomically(other, "x", force=True)
    assert other.read_text() == "x"
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")) == []
    # the command line: report -o its own qrels is refused, one line, exit 2
    code = main(["report", str(qrels), str(run), "-o", str(qrels), "--no-plots", "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and "one of the input files" in err and err.count("\n") == 1
    assert qrels.read_bytes() == QRELS


def test_out_of_memory_is_one_clear_line(tmp_path: Path, monkeypatch, capsys) -> None:
    from ranklens.evaluation.evaluator import Evaluator

    (tmp_path / "q").write_bytes(QRELS)
    (tmp_path / "r").write_bytes(RUN)

    def exhausted(self: object, *args: object, **kwargs: object) -> None:
        raise MemoryError

    monkeypatch.setattr(Evaluator, "evaluate", exhausted)
    code = main(["eval", str(tmp_path / "q"), str(tmp_path / "r"), "-m", "AP", "--quiet"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("ranklens: error: out of memory") and err.count("\n") == 1


def test_reading_out_of_memory_is_a_typed_error(monkeypatch) -> None:
    from ranklens.base.errors import ResourceError

    def exhausted(data: bytes) -> bytes:
        raise MemoryError

    # the reader imports gzip when it meets a gzip file, so the module's function is patched
    monkeypatch.setattr(gzip, "decompress", exhausted)
    with pytest.raises(ResourceError, match="out of memory"):
        ranklens.evaluate(io.BytesIO(QRELS), io.BytesIO(gzip.compress(RUN)), ["AP"])


@pytest.mark.parametrize(
    "qrels,run,cause",
    [
        (QRELS, QRELS, "a qrels file .* given as the run"),
        (RUN, RUN, "a run file given as the qrels"),
        (QRELS, b"q1,d1,0.5\nq1,d2,0.4\n", "looks like CSV"),
        (QRELS, b"q1 d1 0.5\n", "3-column run"),
        (b"q1 d1 1\n", RUN, "3-column qrels"),
        (QRELS, b"\xef\xbb\xbfq1 d1 0.5\n", "3-column run"),  # found after a byte-order mark
    ],
)
def test_column_errors_name_the_likely_cause(qrels: bytes, run: bytes, cause: str) -> None:
    with pytest.raises(ParseError, match=cause):
        ranklens.evaluate(io.BytesIO(qrels), io.BytesIO(run), ["AP"])
