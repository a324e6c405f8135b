"""``ranklens trec-eval`` reproduces trec_eval's output byte for byte (10.0, and 9.0.8 with
--v9) on trec_eval's own test files, and trec_eval's exit codes on its error situations."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest

from conftest import TREC_EVAL_DATA
from ranklens.cli import main

# expected output -> command-line arguments (as in tests/data/trec_eval/README.md)
COMMANDS: dict[str, list[str]] = {
    "out.test": ["qrels.test", "results.test"],
    "out.comment.test": ["qrels.comment.test", "results.comment.test"],
    "out.test.a": ["-m", "all_trec", "qrels.test", "results.test"],
    "out.test.aq": ["-m", "all_trec", "-q", "qrels.test", "results.test"],
    "out.test.aqc": ["-m", "all_trec", "-q", "-c", "qrels.test", "results.trunc"],
    "out.test.aqcM": ["-m", "all_trec", "-q", "-c", "-M100", "qrels.test", "results.trunc"],
    "out.test.aql": [
        "-m",
        "all_trec",
        "-mrelstring.20",
        "-q",
        "-l2",
        "qrels.rel_level",
        "results.test",
    ],
    "out.test.meas_params": [
        "-q",
        "-miprec_at_recall..10,.20,.25,.75,.50",
        "-m",
        "P.5,7,3",
        "-m",
        "recall.20,2000",
        "-m",
        "Rprec_mult.5.0,0.2,0.35",
        "-mutility.2,-1,0,0",
        "-m",
        "11pt_avg..25,.5,.75",
        "-mndcg.1=3,2=9,4=4.5",
        "-mndcg_cut.10,20,23.4",
        "-msuccess.2,5,20",
        "qrels.test",
        "results.test",
    ],
    "out.test.aqZ": ["-q", "-m", "all_trec", "-Z", "zscores_file", "qrels.test", "results.test"],
    "out.test.qrels_jg": ["-m", "qrels_jg", "-q", "-R", "qrels_jg", "qrels.123", "results.test"],
    "out.test.prefs": ["-m", "all_prefs", "-q", "-R", "prefs", "prefs.test", "prefs.results.test"],
    "out.test.qrels_prefs": [
        "-m",
        "all_prefs",
        "-q",
        "-R",
        "qrels_prefs",
        "qrels.test",
        "results.test",
    ],
}
# the same expected output from other inputs (the README's "also with ...")
VARIANTS = [
    ("out.test", ["qrels.test.with-comments", "results.test"]),
    (
        "out.test.qrels_jg",
        ["-m", "qrels_jg", "-q", "-R", "qrels_jg", "qrels.comments.123", "results.test"],
    ),
    (
        "out.test.prefs",
        ["-m", "all_prefs", "-q", "-R", "prefs", "prefs.comment.test", "prefs.results.test"],
    ),
]
FILES = {
    "qrels.test",
    "results.test",
    "qrels.comment.test",
    "results.comment.test",
    "results.trunc",
    "qrels.rel_level",
    "zscores_file",
    "qrels.123",
    "qrels.comments.123",
    "prefs.test",
    "prefs.comment.test",
    "prefs.results.test",
    "qrels.test.with-comments",
}


def run_command(args: list[str], data: Path, version_dir: Path, capsys) -> tuple[int, str, str]:
    resolved = []
    for arg in args:
        if arg in FILES:
            local = version_dir / arg
            resolved.append(str(local if local.exists() else data / arg))
        else:
            resolved.append(arg)
    code = main(["trec-eval", *resolved])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("expected", sorted(COMMANDS))
def test_trec_eval_10_output_is_identical(trec_eval_data: Path, expected: str, capsys) -> None:
    code, out, err = run_command(COMMANDS[expected], trec_eval_data, trec_eval_data, capsys)
    assert code == 0, err
    assert out == (trec_eval_data / expected).read_text()


@pytest.mark.parametrize("expected,args", VARIANTS, ids=[f"{e}-{a[-2]}" for e, a in VARIANTS])
def test_same_output_from_other_inputs(trec_eval_data: Path, expected: str, args, capsys) -> None:
    code, out, err = run_command(args, trec_eval_data, trec_eval_data, capsys)
    assert code == 0, err
    assert out == (trec_eval_data / expected).read_text()


def test_run_from_stdin(trec_eval_data: Path, capsys, monkeypatch) -> None:
    data = (trec_eval_data / "results.test").read_bytes()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    code = main(["trec-eval", str(trec_eval_data / "qrels.test"), "-"])
    out, _ = capsys.readouterr()
    assert code == 0 and out == (trec_eval_data / "out.test").read_text()


# 9.0.8 has no output for out.comment.test (it has no comment support)
V9_OUTPUTS = sorted(e for e in COMMANDS if (TREC_EVAL_DATA / "v9.0.8" / e).exists())


def test_every_9_output_is_checked() -> None:
    assert set(COMMANDS) - set(V9_OUTPUTS) == {"out.comment.test"}


@pytest.mark.parametrize("expected", V9_OUTPUTS)
def test_trec_eval_9_output_is_identical(trec_eval_data: Path, expected: str, capsys) -> None:
    v9 = trec_eval_data / "v9.0.8"
    code, out, err = run_command(["--v9", *COMMANDS[expected]], trec_eval_data, v9, capsys)
    assert code == 0, err
    assert out == (v9 / expected).read_text()


@pytest.fixture
def small(tmp_path: Path) -> tuple[str, str]:
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("1 0 a 1\n1 0 b 0\n2 0 c 1\n")
    run.write_text("1 Q0 a 1 0.5 r\n1 Q0 b 2 0.4 r\n2 Q0 c 1 0.3 r\n")
    return str(qrels), str(run)


@pytest.mark.parametrize(
    "extra,code,fragment",
    [
        (["-m", "foo"], 1, "illegal measure 'foo'"),
        (["-m", "P."], 1, "improper measure in parameter 'P'"),
        (["-m", "P.0"], 2, "Negative cutoff detected"),
        (["-m", "P.5,5"], 2, "duplicate cutoffs detected"),
        (["-m", "ndcg.1"], 2, "malformed pair parameters in '1'"),
        (["-R", "nope"], 2, "Illegal rel_format 'nope'"),
        (["-T", "nope"], 2, "Illegal retrieval results format 'nope'"),
        (["-D", "0.99"], 7, "No queries with both results and relevance info"),
    ],
)
def test_trec_eval_error_exit_codes(small, capsys, extra, code, fragment) -> None:
    got = main(["trec-eval", *extra, *small])
    _, err = capsys.readouterr()
    assert got == code
    assert fragment in err and err.count("\n") == 1


def test_unknown_option_is_usage_error(small, capsys) -> None:
    assert main(["trec-eval", "-z", *small]) != 0


def test_file_errors_exit_2_with_file_and_line(small, tmp_path, capsys) -> None:
    bad = tmp_path / "bad"
    bad.write_text("1 Q0 a 1 0.5 r\n1 Q0 b 2\n")
    assert main(["trec-eval", small[0], str(bad)]) == 2
    assert f"{bad}:2: expected 6 columns" in capsys.readouterr()[1]
    assert main(["trec-eval", small[0], str(tmp_path / "missing")]) == 2
    assert "no such file" in capsys.readouterr()[1]
    empty = tmp_path / "empty"
    empty.write_text("")
    assert main(["trec-eval", str(empty), small[1]]) == 2


def test_duplicates_exit_4_only_within_the_depth_window(small, tmp_path, capsys) -> None:
    dup = tmp_path / "dup"
    dup.write_text("1 Q0 a 1 0.5 r\n1 Q0 b 2 0.4 r\n1 Q0 a 3 0.1 r\n2 Q0 c 1 0.3 r\n")
    assert main(["trec-eval", small[0], str(dup)]) == 4
    assert "lines 1 and 3" in capsys.readouterr()[1]
    assert main(["trec-eval", "-M2", small[0], str(dup)]) == 0
    dupq = tmp_path / "dupq"
    dupq.write_text("1 0 a 1\n1 0 a 0\n")
    assert main(["trec-eval", str(dupq), small[1]]) == 4


def test_missing_query_needs_c_in_v10_but_not_v9(small, tmp_path, capsys) -> None:
    partial = tmp_path / "partial"
    partial.write_text("1 Q0 a 1 0.5 r\n")
    assert main(["trec-eval", small[0], str(partial)]) == 4
    assert "give -c" in capsys.readouterr()[1]
    assert main(["trec-eval", "-c", "-m", "num_q", small[0], str(partial)]) == 0
    assert capsys.readouterr()[0].splitlines()[-1].split("\t") == [
        "num_q                 ",
        "all",
        "2",
    ]
    assert main(["trec-eval", "--v9", "-m", "num_q", small[0], str(partial)]) == 0
    assert capsys.readouterr()[0].splitlines()[-1].endswith("\t1")


def test_options_after_file_names_and_version(small, capsys) -> None:
    assert main(["trec-eval", *small, "-m", "map", "-q"]) == 0
    out = capsys.readouterr()[0]
    assert out.startswith("map                   \t1\t1.0000\n")
    assert main(["trec-eval", "-v", *small]) == 0
    assert "10.0" in capsys.readouterr()[1]


def test_v9_ties_at_float32(tmp_path, capsys) -> None:
    # TREC_EVAL.md 2.1: v10 ranks d, a, b; v9.0.8 ranks d, b, a (float32 scores tie)
    qrels, run = tmp_path / "q", tmp_path / "r"
    qrels.write_text("1 0 a 1\n1 0 b 0\n1 0 d 0\n")
    run.write_text("1 Q0 a 1 0.30000000001 r\n1 Q0 d 2 0.30000000002 r\n1 Q0 b 3 0.3 r\n")
    main(["trec-eval", "-m", "relstring", "-q", str(qrels), str(run)])
    assert "'010'" in capsys.readouterr()[0]
    main(["trec-eval", "--v9", "-m", "relstring", "-q", str(qrels), str(run)])
    assert "'001'" in capsys.readouterr()[0]
