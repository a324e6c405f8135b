"""The ``ranklens`` command line: output formats, options and one-line errors."""

from __future__ import annotations

import gzip
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

import ranklens
from ranklens.cli import main
from ranklens.cli.measures_command import describe_all

QRELS = "q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 2\nq2 0 d1 1\nq3 0 d9 1\n"
RUN = "q1 Q0 d1 1 0.5 sys\nq1 Q0 d3 2 0.5 sys\nq1 Q0 d4 3 0.1 sys\nq2 Q0 d2 1 3 sys\nq4 Q0 x 1 1 sys\n"


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


def test_json_has_the_documented_shape(files, capsys) -> None:
    code, out, err = run_cli(
        ["eval", *files, "-m", "P@1 AP", "-m", "ndcg_cut.10", "-f", "json", "-q"], capsys
    )
    assert code == 0
    payload = json.loads(out)
    assert payload["measures"] == ["P@1", "AP", "nDCG@10"]
    [run] = payload["runs"]
    assert run["name"] == "sys"
    assert set(run["per_query"]) == {"q1", "q2", "q3"}
    expected = ranklens.evaluate(files[0], files[1], ["P@1", "AP", "nDCG@10"])
    assert run["aggregate"] == expected.aggregate
    assert run["per_query"] == expected.per_query
    # one query of the qrels is missing from the run, one of the run's has no judgments
    assert "sys: 3 queries evaluated; 1 of the qrels' 3 queries missing from the run" in err
    assert "1 of its 3 queries without judgments, left out (--queries qrels)" in err


def test_json_without_per_query_has_no_per_query(files, capsys) -> None:
    _, out, _ = run_cli(["eval", *files, "-m", "AP", "-f", "json", "--quiet"], capsys)
    assert "per_query" not in json.loads(out)["runs"][0]


def test_trec_format_lines(files, capsys) -> None:
    code, out, _ = run_cli(
        ["eval", *files, "-m", "P@1", "-m", "NumRet", "-f", "trec", "-q"], capsys
    )
    assert code == 0
    lines = out.splitlines()
    assert f"{'P@1':<22}\tq1\t1.0000" in lines
    assert f"{'NumRet':<22}\tall\t4" in lines
    assert f"{'runid':<22}\tall\tsys" in lines


@pytest.mark.parametrize("fmt,sep", [("csv", ","), ("tsv", "\t")])
def test_delimited_formats(files, capsys, fmt, sep) -> None:
    _, out, _ = run_cli(["eval", *files, "-m", "RR", "-f", fmt, "--per-query"], capsys)
    rows = [line.split(sep) for line in out.splitlines()]
    assert rows[0] == ["run", "query", "measure", "value"]
    assert ["sys", "all", "RR", repr(ranklens.evaluate(files[0], files[1], "RR")["RR"])] in rows
    assert len(rows) == 1 + 3 + 1


def test_jsonl_one_record_per_query(files, capsys) -> None:
    _, out, _ = run_cli(["eval", *files, "-m", "RR", "-f", "jsonl", "-q"], capsys)
    records = [json.loads(line) for line in out.splitlines()]
    assert [r["query"] for r in records] == ["q1", "q2", "q3", "all"]
    assert all(r["run"] == "sys" for r in records)


def test_table_lists_runs_and_measures(files, capsys) -> None:
    # the same run twice needs two names (as in Python; see test_new_user.py)
    _, out, _ = run_cli(
        ["eval", *files, files[1], "-m", "AP", "--name", "sys", "--name", "sys-again"], capsys
    )
    assert out.count("sys") == 2 and "AP" in out


def test_options_reach_the_evaluation(files, capsys) -> None:
    _, out, _ = run_cli(
        ["eval", *files, "-m", "NumQ", "-f", "json", "--queries", "both", "--ties", "input"],
        capsys,
    )
    assert json.loads(out)["runs"][0]["aggregate"]["NumQ"] == 2.0
    _, out, _ = run_cli(["eval", *files, "-m", "NumRet", "-f", "json", "--depth", "1"], capsys)
    assert json.loads(out)["runs"][0]["aggregate"]["NumRet"] == 2.0


def test_example_runs(capsys) -> None:
    code, out, err = run_cli(["eval", "--example", "-m", "nDCG@10", "-f", "json"], capsys)
    assert code == 0
    names = [r["name"] for r in json.loads(out)["runs"]]
    assert names == ["bm25", "rerank"]
    assert "TREC DL 2019 passage qrels (43 queries" in err
    assert "queries evaluated" not in err  # every run has every query: nothing to say


def test_stdin_and_gzip(files, tmp_path, capsys, monkeypatch) -> None:
    gz = tmp_path / "run.txt.gz"
    gz.write_bytes(gzip.compress(RUN.encode()))
    _, out_gz, _ = run_cli(["eval", files[0], str(gz), "-m", "AP", "-f", "json"], capsys)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(RUN.encode())))
    _, out_stdin, _ = run_cli(["eval", files[0], "-", "-m", "AP", "-f", "json"], capsys)
    assert (
        json.loads(out_gz)["runs"][0]["aggregate"] == json.loads(out_stdin)["runs"][0]["aggregate"]
    )


@pytest.mark.parametrize(
    "run_text,message",
    [
        (
            "q1 Q0 d1 1 0.5\n",
            "run.txt:1: expected 6 columns (qid Q0 docid rank score tag), found 5",
        ),
        ("q1 Q0 d1 1 0.5 s\n\nq1 Q0 d2 1 abc s\n", "run.txt:3: score 'abc' is not a number"),
        ("q1 Q0 d1 1 nan s\n", "run.txt:1: score 'nan' is not finite"),
        ("q1 Q0 d1 1 inf s\n", "run.txt:1: score 'inf' is not finite"),
        (
            "q1 Q0 d1 1 1 s\n#c\nq1 Q0 d1 2 2 s\n",
            "run has document 'd1' twice for query 'q1' (lines 1 and 3)",
        ),
        ("", "run.txt: holds no run lines"),
        ("# only a comment\n\n", "run.txt: holds no run lines"),
    ],
)
def test_bad_run_is_one_line_and_exit_2(files, tmp_path, capsys, run_text, message) -> None:
    bad = tmp_path / "run.txt"
    bad.write_text(run_text)
    code, out, err = run_cli(["eval", files[0], str(bad), "-m", "AP"], capsys)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("ranklens: error: ")
    assert message in err


@pytest.mark.parametrize(
    "qrels_text,message",
    [
        ("q1 0 d1\n", "qrels.txt:1: expected 4 columns (qid iter docid relevance), found 3"),
        ("q1 0 d1 1 extra\n", "expected 4 columns (qid iter docid relevance), found 5"),
        ("q1 0 d1 1.5\n", "qrels.txt:1: relevance '1.5' is not an integer"),
        ("q1 0 d1 x\n", "relevance 'x' is not an integer"),
        ("q1 0 d1 1\nq1 0 d1 2\n", "qrels has document 'd1' twice for query 'q1' (lines 1 and 2)"),
    ],
)
def test_bad_qrels_is_one_line_and_exit_2(files, tmp_path, capsys, qrels_text, message) -> None:
    bad = tmp_path / "qrels.txt"
    bad.write_text(qrels_text)
    code, _, err = run_cli(["eval", str(bad), files[1], "-m", "AP"], capsys)
    assert code == 2 and err.count("\n") == 1
    assert message in err


def test_binary_and_badly_encoded_files(files, tmp_path, capsys) -> None:
    binary = tmp_path / "run.bin"
    binary.write_bytes(b"q1 Q0 d1 1 1 s\n\x00\x01\x02")
    code, _, err = run_cli(["eval", files[0], str(binary)], capsys)
    assert code == 2 and "run.bin:2:" in err and "binary" in err
    latin = tmp_path / "run.latin1"
    latin.write_bytes("q1 Q0 caf\xe9 1 1 s\n".encode("latin-1"))
    code, _, err = run_cli(["eval", files[0], str(latin)], capsys)
    assert code == 2 and "run.latin1:1:" in err and "UTF-8" in err


def test_missing_file_unknown_measure_and_bad_option(files, capsys) -> None:
    code, _, err = run_cli(["eval", files[0], "nope.txt"], capsys)
    assert code == 2 and "nope.txt: no such file" in err
    code, _, err = run_cli(["eval", *files, "-m", "nDGC@10"], capsys)
    assert code == 2 and "unknown measure 'nDGC'" in err and "nDCG" in err
    code, _, err = run_cli(["eval", *files, "--ties", "random"], capsys)
    assert code == 2 and err.count("\n") == 1 and "invalid choice" in err
    code, _, err = run_cli(["eval", files[0]], capsys)
    assert code == 2 and "at least one run" in err


def test_duplicates_option(files, tmp_path, capsys) -> None:
    dup = tmp_path / "dup.txt"
    dup.write_text("q1 Q0 d1 1 1 s\nq1 Q0 d1 2 5 s\n")
    _, out, _ = run_cli(
        ["eval", files[0], str(dup), "-m", "NumRet", "-f", "json", "--duplicates", "first"], capsys
    )
    assert json.loads(out)["runs"][0]["aggregate"]["NumRet"] == 1.0


def test_measures_listing_is_generated_from_the_registry(capsys) -> None:
    code, out, _ = run_cli(["measures", "-f", "json"], capsys)
    assert code == 0
    entries = json.loads(out)
    assert [e["name"] for e in entries] == [e["name"] for e in describe_all()]
    by_name = {e["name"]: e for e in entries}
    assert by_name["P"]["parameters"] == {"rel": 1, "judged_only": False}
    assert by_name["AP"]["trec_eval"] == "map / map_cut_k"
    code, out, _ = run_cli(["measures"], capsys)
    assert code == 0 and "nDCG" in out


def test_docs_measures_page_is_up_to_date(capsys) -> None:
    run_cli(["measures", "-f", "markdown"], capsys)
    main(["measures", "-f", "markdown"])
    generated, _ = capsys.readouterr()
    page = Path(__file__).resolve().parents[1] / "docs" / "measures.md"
    text = page.read_text()
    assert generated in text, "regenerate docs/measures.md with: ranklens measures -f markdown"


def test_console_script_help_and_no_traceback(files) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "ranklens", "eval", files[0], "missing.txt"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert proc.stderr.strip() == "ranklens: error: missing.txt: no such file; check the path"
    proc = subprocess.run(
        [sys.executable, "-m", "ranklens", "--help"], capture_output=True, text=True, check=True
    )
    assert "eval" in proc.stdout and "measures" in proc.stdout


def test_num_docs_fills_measures_that_need_it(files, capsys) -> None:
    _, out, _ = run_cli(
        ["eval", *files, "-m", "Utility", "-f", "json", "--num-docs", "100"], capsys
    )
    payload = json.loads(out)
    assert payload["measures"] == ["Utility(num_docs=100)"]
    direct = ranklens.evaluate(files[0], files[1], "Utility(num_docs=100)")
    assert (
        payload["runs"][0]["aggregate"]["Utility(num_docs=100)"] == direct["Utility(num_docs=100)"]
    )
    _, out, _ = run_cli(
        ["eval", *files, "-m", "Utility(num_docs=7)", "-f", "json", "--num-docs", "100"], capsys
    )
    assert json.loads(out)["measures"] == ["Utility(num_docs=7)"]
    code, _, err = run_cli(["eval", *files, "-m", "AP", "--num-docs", "0"], capsys)
    assert code == 2 and "--num-docs must be a positive number" in err
