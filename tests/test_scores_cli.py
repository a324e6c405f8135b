"""Score files on the command line: ``--scores`` wherever runs are compared (``compare``,
``report``, ``discriminate``, ``topics``; ``leaderboard --scores-a/--scores-b``), each equal
to the Python API on the same files, errors one line with exit status 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import ranklens
from ranklens.cli import main
from ranklens.evaluation.scores_files import read_score_set, read_scores, write_scores


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def board(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Per-topic scores of four runs on 12 topics: trec_eval text (one file per run), a
    leaderboard of all four, and the same under other judgments; the qrels and runs."""
    import numpy as np

    root = tmp_path_factory.mktemp("scores-cli")
    rng = np.random.default_rng(3)
    qrels = {f"q{i:02d}": {f"d{j}": int(rng.integers(0, 3)) for j in range(10)} for i in range(12)}
    runs = {
        f"r{k}": {q: {f"d{j}": float(rng.integers(0, 6)) for j in range(10)} for q in qrels}
        for k in range(4)
    }
    measures = ["AP", "nDCG@10", "P@5"]
    rs = ranklens.evaluate(qrels, runs, measures)
    other = ranklens.evaluate(
        {q: {d: 2 - g for d, g in j.items()} for q, j in qrels.items()}, runs, measures
    )
    out = {"qrels": root / "qrels.txt"}
    out["qrels"].write_text(
        "".join(f"{q} 0 {d} {g}\n" for q, j in qrels.items() for d, g in j.items())
    )
    for name, run in runs.items():
        path = root / f"{name}.run"
        path.write_text(
            "".join(
                f"{q} Q0 {d} 0 {s} {name}\n" for q, docs in run.items() for d, s in docs.items()
            )
        )
        out[name] = path
        write_scores(rs[name], root / f"{name}.eval", "trec_eval")
        out[f"{name}.eval"] = root / f"{name}.eval"
    write_scores(rs, root / "board.tsv", "autojudge")
    write_scores(other, root / "other.csv")
    out["board"], out["other"] = root / "board.tsv", root / "other.csv"
    return out


def test_compare_scores_equals_the_api(board: dict[str, Path], capsys) -> None:
    files = [str(board[f"r{k}.eval"]) for k in range(4)]
    code, out, err = run_cli(
        ["compare", "--scores", *files, "-m", "AP nDCG@10", "-f", "json"], capsys
    )
    assert code == 0 and err == ""
    want = ranklens.compare(None, [read_scores(f) for f in files], ["AP", "nDCG@10"])
    assert json.loads(out) == json.loads(json.dumps(want.to_dict()))
    # the same runs evaluated here: the same comparison
    runs = [str(board[f"r{k}"]) for k in range(4)]
    code, direct, _ = run_cli(
        ["compare", str(board["qrels"]), *runs, "-m", "AP nDCG@10", "-f", "json"], capsys
    )
    assert json.loads(direct) == json.loads(out)
    # a mix: run files with the qrels, and a score file
    code, mixed, _ = run_cli(
        [
            "compare",
            str(board["qrels"]),
            *runs[:3],
            "--scores",
            files[3],
            "-m",
            "AP nDCG@10",
            "-f",
            "json",
        ],
        capsys,
    )
    assert code == 0 and json.loads(mixed) == json.loads(out)
    # one leaderboard holding every run
    code, lb, _ = run_cli(
        ["compare", "--scores", str(board["board"]), "-m", "AP nDCG@10", "-f", "json"], capsys
    )
    assert code == 0 and json.loads(lb) == json.loads(out)


def test_compare_refusals(board: dict[str, Path], tmp_path: Path, capsys) -> None:
    partial = tmp_path / "partial.eval"
    partial.write_text(
        "".join(
            line
            for line in board["r0.eval"].read_text().splitlines(True)
            if "q00" not in line and "\tall\t" not in line
        )
    )
    code, _, err = run_cli(
        ["compare", "--scores", str(board["r1.eval"]), str(partial), "-m", "AP"], capsys
    )
    assert (
        code == 2 and "different topics" in err and "--queries both" in err and err.count("\n") == 1
    )
    code, _, err = run_cli(
        [
            "compare",
            "--scores",
            str(board["r1.eval"]),
            str(partial),
            "-m",
            "AP",
            "--queries",
            "both",
        ],
        capsys,
    )
    assert code == 0 and "1 queries not in every run left out; 11 compared" in err
    code, _, err = run_cli(["compare", "--scores", str(board["r1.eval"]), "-m", "AP"], capsys)
    assert code == 2 and "give at least 2 runs (run files or score files), not 1" in err
    code, _, err = run_cli(
        ["compare", "--scores", str(board["r1.eval"]), str(board["r2.eval"]), "--ties", "input"],
        capsys,
    )
    assert code == 2 and "ties apply to runs that ranklens evaluates" in err
    bad = tmp_path / "bad.eval"
    bad.write_text("map q1 0.5\nmap q2 0.3\nmap all 0.9\n")
    code, _, err = run_cli(
        ["compare", "--scores", str(bad), str(board["r2.eval"]), "-m", "AP"], capsys
    )
    assert code == 2 and "the 'all' value of map (0.9)" in err and "--no-check-all" in err


def test_report_of_scores(board: dict[str, Path], tmp_path: Path, capsys) -> None:
    out = tmp_path / "r.html"
    code, _, err = run_cli(
        ["report", "--scores", str(board["board"]), "-m", "AP", "-o", str(out), "--no-plots"],
        capsys,
    )
    assert code == 0 and err == f"ranklens: wrote {out}\n"
    html = out.read_text()
    assert html.startswith("<!DOCTYPE html>") and "Summary and significance" in html
    for k in range(4):
        assert f"r{k}" in html
    code, _, err = run_cli(
        [
            "report",
            "--scores",
            str(board["board"]),
            "-o",
            str(out),
            "--force",
            "--qrels-b",
            str(board["qrels"]),
        ],
        capsys,
    )
    assert code == 2 and "--qrels-b needs runs evaluated here" in err


def test_discriminate_and_topics_of_scores(board: dict[str, Path], capsys) -> None:
    files = [str(board[f"r{k}.eval"]) for k in range(4)]
    runs = [str(board[f"r{k}"]) for k in range(4)]
    args = ["-m", "AP", "--resamples", "200", "-f", "json"]
    code, from_scores, _ = run_cli(["discriminate", "--scores", *files, *args], capsys)
    assert code == 0
    code, from_runs, _ = run_cli(["discriminate", str(board["qrels"]), *runs, *args], capsys)
    assert code == 0
    a, b = json.loads(from_scores), json.loads(from_runs)
    assert a["runs"] == ["r0", "r1", "r2", "r3"] and a["measures"] == b["measures"]
    assert a == b  # every number, from the scores as from the runs
    code, t_scores, _ = run_cli(
        ["topics", "--scores", *files, "-m", "AP", "--min-diff", "0.05", "-f", "json"], capsys
    )
    code2, t_runs, _ = run_cli(
        ["topics", str(board["qrels"]), *runs, "-m", "AP", "--min-diff", "0.05", "-f", "json"],
        capsys,
    )
    assert code == code2 == 0 and json.loads(t_scores) == json.loads(t_runs)


def test_leaderboard_of_two_score_sets(board: dict[str, Path], capsys) -> None:
    code, out, err = run_cli(
        [
            "leaderboard",
            "--scores-a",
            str(board["board"]),
            "--scores-b",
            str(board["other"]),
            "-m",
            "AP",
            "-f",
            "json",
        ],
        capsys,
    )
    assert code == 0, err
    want = ranklens.leaderboard_agreement(*(read_score_set(board[k]) for k in ("board", "other")))
    got = json.loads(out)
    assert got["AP"]["kendall_tau"] == want["AP"]["kendall_tau"]
    assert got["AP"]["order_a"] == list(want["AP"].order_a)
    code, _, err = run_cli(["leaderboard", "--scores-a", str(board["board"])], capsys)
    assert code == 2 and "give both --scores-a and --scores-b" in err


def test_without_m_the_measures_of_the_files_are_compared(
    board: dict[str, Path], tmp_path: Path, capsys
) -> None:
    """Default ``trec_eval -q`` files hold map, P_10, ... but no nDCG: without -m,
    compare and report take the measures in the files (docs/mlflow.md's example)."""
    files = []
    for name in ("r0", "r1"):
        code, out, _ = run_cli(["trec-eval", "-q", str(board["qrels"]), str(board[name])], capsys)
        assert code == 0
        path = tmp_path / f"{name}.eval"
        path.write_text(out)
        files.append(str(path))
    code, out, err = run_cli(["compare", "--scores", *files, "-f", "json"], capsys)
    assert code == 0, err
    measures = json.loads(out)["measures"]
    expected = [m for m in read_scores(files[0]).names if m != "NumQ"]  # type: ignore[union-attr]
    assert measures == expected and "AP" in measures and "nDCG@10" not in measures
    report = tmp_path / "r.html"
    code, _, err = run_cli(
        ["report", "--scores", *files, "-o", str(report), "--no-plots", "--quiet"], capsys
    )
    assert code == 0, err
    assert "P@1000" in report.read_text()
    # with run files too: the measures of the files that ranklens computes
    code, out, err = run_cli(
        ["compare", str(board["qrels"]), str(board["r2"]), "--scores", *files, "-f", "json"],
        capsys,
    )
    assert code == 0, err
    assert json.loads(out)["measures"] == expected


def test_without_m_files_that_share_no_measure_are_one_line(
    board: dict[str, Path], tmp_path: Path, capsys
) -> None:
    a, b = tmp_path / "a.eval", tmp_path / "b.eval"
    a.write_text("map\tq1\t0.5000\nmap\tq2\t0.2500\n")
    b.write_text("P_10\tq1\t0.5000\nP_10\tq2\t0.2000\n")
    code, _, err = run_cli(["compare", "--scores", str(a), str(b)], capsys)
    assert code == 2 and "share no measure to compare" in err and "-m" in err
    assert len(err.strip().splitlines()) == 1
