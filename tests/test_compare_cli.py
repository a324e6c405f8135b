"""``ranklens compare``: every format, exit codes and one-line errors."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from ranklens.analysis.comparison import compare
from ranklens.cli import main
from ranklens.data.examples import example_paths
from test_compare import synthetic_runs


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """A qrels file and four run files (tags r0..r3, the last one named 'my_run')."""
    root = tmp_path_factory.mktemp("compare")
    qrels, runs = synthetic_runs()
    (root / "qrels.txt").write_text(
        "".join(f"{q} 0 {d} {r}\n" for q, docs in qrels.items() for d, r in docs.items())
    )
    paths = [str(root / "qrels.txt")]
    for i, (name, run) in enumerate(runs.items()):
        tag = "my_run" if i == 3 else name
        lines = [
            f"{q} Q0 {d} {rank} {score} {tag}\n"
            for q, docs in run.items()
            for rank, (d, score) in enumerate(sorted(docs.items(), key=lambda x: -x[1]), 1)
        ]
        path = root / f"{name}.run"
        path.write_text("".join(lines))
        paths.append(str(path))
    return paths


def test_json_equals_the_api(files: list[str], capsys) -> None:
    code, out, err = run_cli(
        ["compare", *files, "-m", "nDCG@10 AP", "--test", "randomization", "--format", "json"],
        capsys,
    )
    assert code == 0 and err == ""
    assert out.count("\n") == 1
    payload = json.loads(out)
    expected = compare(files[0], files[1:], ["nDCG@10", "AP"], test="randomization").to_dict()
    assert payload == json.loads(json.dumps(expected))
    assert [r["name"] for r in payload["runs"]] == ["r0", "r1", "r2", "my_run"]


def test_example_table(capsys) -> None:
    code, out, _ = run_cli(["compare", "--example"], capsys)
    assert code == 0
    assert "(a) bm25" in out and "(b) rerank" in out
    assert "0.6771ᵃ" in out and "0.2161ᵃ" in out
    assert "a = bm25 (baseline), b = rerank" in out
    assert "38/0/5" in out  # wins/ties/losses of nDCG@10
    assert "paired t-test" in out and "Holm" in out


def test_table_with_all_pairs_and_correlation(files: list[str], capsys) -> None:
    code, out, _ = run_cli(
        ["compare", *files, "-m", "nDCG@10", "-m", "P@5", "--all-pairs", "--correlate"], capsys
    )
    assert code == 0
    assert "Tukey's HSD (one-way)" in out
    assert "Kendall tau" in out
    assert "(d) my_run" in out


def test_markdown(capsys) -> None:
    code, out, _ = run_cli(["compare", "--example", "-f", "markdown", "-m", "nDCG@10,AP"], capsys)
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "| run | nDCG@10 | AP |"
    assert lines[1] == "|---|---:|---:|"
    assert lines[3] == "| (b) rerank | **0.6771**<sup>a</sup> | **0.2161**<sup>a</sup> |"


def test_latex_booktabs_with_bold_best(files: list[str], capsys) -> None:
    code, out, _ = run_cli(["compare", *files, "-m", "P@5", "-f", "latex"], capsys)
    assert code == 0
    assert out.startswith("\\begin{table}")
    for part in ("\\toprule", "\\midrule", "\\bottomrule", "\\end{tabular}", "\\end{table}"):
        assert part in out
    assert "my\\_run" in out  # escaped
    body = [line for line in out.splitlines() if line.strip().startswith("(")]
    assert len(body) == 4
    assert sum("\\textbf{" in line for line in body) >= 1
    means = compare(files[0], files[1:], ["P@5"]).means
    best = max(means, key=lambda r: means[r]["P@5"])
    assert any(f"\\textbf{{{means[best]['P@5']:.4f}}}" in line for line in body)


def test_csv(files: list[str], capsys) -> None:
    code, out, _ = run_cli(["compare", *files, "-m", "AP", "-f", "csv", "--baseline", "r1"], capsys)
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    assert len(rows) == 4
    baseline = next(r for r in rows if r["run"] == "r1")
    assert baseline["against"] == "" and baseline["p_value"] == ""
    others = [r for r in rows if r["run"] != "r1"]
    assert all(r["against"] == "r1" and 0 < float(r["p_value"]) <= 1 for r in others)
    assert {r["significant"] for r in others} <= {"true", "false"}


def test_names(files: list[str], capsys) -> None:
    code, out, _ = run_cli(
        [
            "compare",
            files[0],
            files[1],
            files[1],
            "-m",
            "AP",
            "--name",
            "x",
            "--name",
            "y",
            "-f",
            "json",
        ],
        capsys,
    )
    assert code == 0
    assert [r["name"] for r in json.loads(out)["runs"]] == ["x", "y"]


@pytest.mark.parametrize(
    "args,message",
    [
        (["--baseline", "nope"], "no run named 'nope' to be the baseline"),
        (["--alpha", "2"], "alpha must be a number strictly between 0 and 1"),
        (["--permutations", "0"], "--resamples must be a positive whole number"),
        (["--confidence", "0"], "confidence must be a number strictly between 0 and 1"),
        (["--correlate"], "at least 3 runs"),
        (["--name", "x"], "--name given 1 times for 2 runs"),
    ],
)
def test_one_line_errors(args: list[str], message: str, capsys) -> None:
    code, out, err = run_cli(["compare", "--example", *args], capsys)
    assert code == 2 and out == ""
    assert err.startswith("ranklens: error: ") and message in err
    assert err.count("\n") == 1


def test_usage_errors(files: list[str], capsys) -> None:
    code, _, err = run_cli(["compare", files[0], files[1]], capsys)
    assert code == 2 and "at least 2 runs" in err and err.count("\n") == 1
    code, _, err = run_cli(["compare", "--example", "--test", "anova"], capsys)
    assert code == 2 and "invalid choice: 'anova'" in err and err.count("\n") == 1
    code, _, err = run_cli(["compare", files[0], "--example"], capsys)
    assert code == 2 and "--example takes no files" in err
    code, _, err = run_cli(["compare", files[0], files[1], files[1], "-m", "AP"], capsys)
    assert code == 2 and "both named 'r0'" in err
    missing = str(Path(files[0]).with_name("missing.run"))
    code, _, err = run_cli(["compare", files[0], files[1], missing], capsys)
    assert code == 2 and err.startswith("ranklens: error: ") and "missing.run" in err


def test_help_lists_compare(capsys) -> None:
    assert main(["compare", "--help"]) == 0
    out = capsys.readouterr().out
    for option in ("--test", "--correction", "--all-pairs", "--correlate-qrels", "--seed"):
        assert option in out
    assert example_paths()[0].exists()


DOCS = Path(__file__).resolve().parents[1] / "docs" / "compare.md"


def test_the_docs_show_the_current_output(capsys) -> None:
    import doctest

    text = DOCS.read_text(encoding="utf-8")
    code, out, _ = run_cli(["compare", "--example"], capsys)
    assert code == 0
    shown = "\n".join(line.rstrip() for line in out.rstrip("\n").splitlines())
    assert shown in text  # as the doc tests compare: trailing spaces aside
    result = doctest.testfile(
        str(DOCS), module_relative=False, optionflags=doctest.NORMALIZE_WHITESPACE
    )
    assert result.attempted >= 5 and result.failed == 0
