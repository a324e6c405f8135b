"""``ranklens explain``: formats, the query rules, one-line errors, and plain output when
piped."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

import ranklens
from ranklens.cli import main
from ranklens.cli.explain_command import write
from ranklens.data.examples import example_paths
from ranklens.presentation.explanation import explain_measures

QRELS = "q1 0 d1 3\nq1 0 d2 2\nq1 0 d3 3\nq1 0 d4 0\nq1 0 d5 1\nq2 0 d1 1\n"
RUN = (
    "q1 Q0 d1 1 5 sys\nq1 Q0 d2 2 4 sys\nq1 Q0 d3 3 3 sys\nq1 Q0 d4 4 2 sys\n"
    "q1 Q0 d5 5 1 sys\nq2 Q0 d9 1 1 sys\nq2 Q0 d1 2 0.5 sys\n"
)


@pytest.fixture
def files(tmp_path: Path) -> tuple[str, str]:
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text(QRELS)
    run.write_text(RUN)
    return str(qrels), str(run)


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def test_text_is_plain_when_not_a_terminal(files, capsys) -> None:
    code, out, err = run_cli(["explain", *files, "--query", "q1", "-m", "nDCG@5"], capsys)
    assert code == 0 and err == ""
    assert "\x1b[" not in out
    assert out.startswith("nDCG@5, query q1, run sys\n")
    assert "nDCG@5 = DCG@5 / IDCG@5 = 6.1487 / 6.3235 = 0.9724" in out
    assert "DCG@k" in out and "IDCG@k" in out


def test_markdown_and_several_measures(files, capsys) -> None:
    code, out, _ = run_cli(
        ["explain", *files, "--query", "q1", "-m", "P@2 AP", "-m", "ndcg_cut.5", "-f", "markdown"],
        capsys,
    )
    assert code == 0
    headings = [line for line in out.splitlines() if line.startswith("### ")]
    assert headings == [
        "### P@2, query `q1`, run `sys`",
        "### AP, query `q1`, run `sys`",
        "### nDCG@5, query `q1`, run `sys`",
    ]
    assert "| 2 | d2 | 2 | 1.5850 | 1.2619 | 4.2619 |" in out


def test_json_values_equal_eval(files, capsys) -> None:
    measures = ["ERR@3", "RBP(p=0.5)", "Bpref"]
    code, out, _ = run_cli(
        [
            "explain",
            *files,
            "--query",
            "q2",
            *[a for m in measures for a in ("-m", m)],
            "-f",
            "json",
        ],
        capsys,
    )
    assert code == 0
    payload = json.loads(out)
    expected = ranklens.evaluate(files[0], files[1], measures).per_query["q2"]
    assert [e["measure"] for e in payload["explanations"]] == measures
    assert {e["measure"]: e["value"] for e in payload["explanations"]} == expected
    assert payload["explanations"][0]["rows"][0]["docid"] == "d9"


def test_all_ranks_digits_and_options(files, tmp_path, capsys) -> None:
    run = tmp_path / "long.txt"
    run.write_text("".join(f"q1 Q0 x{i} {i} {100 - i} sys\n" for i in range(1, 41)))
    code, out, _ = run_cli(["explain", files[0], str(run), "-m", "P", "--max-rows", "3"], capsys)
    assert code == 0 and "ranks 4-39 not shown (36)" in out
    _, out, _ = run_cli(["explain", files[0], str(run), "-m", "P", "--all-ranks"], capsys)
    assert "not shown" not in out and "\n40  x40" in out
    _, out, _ = run_cli(
        ["explain", *files, "--query", "q1", "-m", "nDCG@5", "--digits", "2", "--ties", "input"],
        capsys,
    )
    assert "= 6.15 / 6.32 = 0.97" in out and "ties='input'" in out
    _, out, _ = run_cli(["explain", *files, "--query", "q1", "-m", "P@5", "--depth", "2"], capsys)
    assert "P@5 = 2 / 5 = 0.4" in out


def test_a_single_query_run_needs_no_query(files, tmp_path, capsys) -> None:
    run = tmp_path / "one.txt"
    run.write_text("q2 Q0 d1 1 1.0 sys\n")
    code, out, _ = run_cli(["explain", files[0], str(run), "-m", "RR"], capsys)
    assert code == 0 and "RR, query q2" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--query", "nope", "-m", "AP"], "query 'nope' is in neither"),
        (["-m", "AP"], "--query is needed: "),
        (["--query", "q1", "-m", "infAP"], "cannot explain infAP"),
        (["--query", "q1", "-m", "nDCG@x"], "nDCG"),
        (["--query", "q1", "-m", "AP", "--digits", "-1"], "--digits"),
    ],
)
def test_errors_are_one_line_with_status_2(files, capsys, args, message) -> None:
    code, out, err = run_cli(["explain", *files, *args], capsys)
    assert code == 2 and out == ""
    assert err.startswith("ranklens: error: ") and err.count("\n") == 1
    assert message in err


def test_unknown_query_names_the_files(files, capsys) -> None:
    _, _, err = run_cli(["explain", *files, "--query", "nope", "-m", "AP"], capsys)
    assert files[0] in err and files[1] in err
    _, _, err = run_cli(["explain", *files, "-m", "AP"], capsys)
    assert "2 queries (q1, q2)" in err and files[1] in err


def test_example_data(capsys) -> None:
    qrels, runs = example_paths()
    code, _, err = run_cli(["explain", str(qrels), str(runs[0]), "-m", "AP"], capsys)
    assert code == 2 and "--query is needed" in err and "43 queries" in err
    # --example alone explains nDCG@10 on the example's first query
    code, out, _ = run_cli(["explain", "--example"], capsys)
    assert code == 0 and "nDCG@10, query 1037798, run bm25" in out
    code, out, _ = run_cli(["explain", "--example", "--query", "1037798", "-m", "AP"], capsys)
    assert code == 0 and "AP, query 1037798, run bm25" in out


def test_piped_output_has_no_escape_codes(files) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "ranklens", "explain", *files, "--query", "q1", "-m", "ERR"],
        capture_output=True,
        text=True,
        check=False,
        env={"FORCE_COLOR": "", "PATH": "", "PYTHONPATH": str(Path(ranklens.__file__).parents[1])},
    )
    assert proc.returncode == 0, proc.stderr
    assert "\x1b[" not in proc.stdout and "ERR = " in proc.stdout


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_terminal_gets_the_rich_table(files) -> None:
    explanations = explain_measures(files[0], files[1], "q1", ["nDCG@5", "AP"])
    out = _Terminal()
    write(explanations, "text", 4, out)
    text = out.getvalue()
    assert "┃" in text or "│" in text  # a rich table
    assert "0.9724" in text and "formula" in text
