"""``ranklens plot``: every kind writes a valid file with the numbers of the Python API;
errors are one line with exit status 2."""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

pytest.importorskip("matplotlib")

import ranklens
from ranklens.cli import main, plot_command

QRELS = "q1 0 a 1\nq1 0 b 0\nq1 0 c 2\nq2 0 a 0\nq2 0 b 1\n"
RUN_A = "q1 Q0 a 1 3 A\nq1 Q0 b 2 2 A\nq1 Q0 c 3 1 A\nq2 Q0 a 1 2 A\nq2 Q0 b 2 1 A\n"
RUN_B = "q1 Q0 c 1 3 B\nq1 Q0 a 2 2 B\nq2 Q0 b 1 2 B\nq2 Q0 a 2 1 B\n"
RUN_C = "q1 Q0 b 1 3 C\nq2 Q0 a 1 1 C\n"


@pytest.fixture
def files(tmp_path: Path) -> list[str]:
    paths = []
    for name, text in (("qrels", QRELS), ("a", RUN_A), ("b", RUN_B), ("c", RUN_C)):
        path = tmp_path / f"{name}.txt"
        path.write_text(text)
        paths.append(str(path))
    return paths


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def check_file(path: Path) -> None:
    data = path.read_bytes()
    assert len(data) > 1000
    if path.suffix == ".png":
        assert data[:8] == b"\x89PNG\r\n\x1a\n"
    elif path.suffix == ".svg":
        assert ET.fromstring(data).tag.endswith("svg")
    else:
        assert data.startswith(b"%PDF")


@pytest.mark.parametrize(
    ("kind", "extra", "suffix"),
    [
        ("pr", ["--query", "q1"], "png"),
        ("pr", ["--levels", "21"], "svg"),
        ("roc", ["--cutoff", "distance"], "pdf"),
        ("cutoff", ["-m", "P nDCG", "--max-k", "5"], "png"),
        ("delta", ["-m", "AP"], "svg"),
        ("dist", ["-m", "AP", "--style", "violin"], "png"),
    ],
)
def test_every_kind_writes_a_valid_file(files, tmp_path, capsys, kind, extra, suffix) -> None:
    qrels, a, b, _ = files
    out = tmp_path / f"plot.{suffix}"
    code, stdout, err = run_cli(["plot", kind, qrels, a, b, "-o", str(out), *extra], capsys)
    assert (code, stdout) == (0, "")
    assert err == f"ranklens: wrote {out}\n"
    check_file(out)


def test_example_png_has_the_asked_size(tmp_path, capsys) -> None:
    out = tmp_path / "delta.PNG"
    code, _, _ = run_cli(
        [
            "plot",
            "delta",
            "--example",
            "-o",
            str(out),
            "--width",
            "6",
            "--height",
            "4",
            "--dpi",
            "50",
        ],
        capsys,
    )
    assert code == 0
    data = out.read_bytes()
    assert (int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")) == (300, 200)


def test_cli_plots_the_python_api_numbers(files, tmp_path, capsys, monkeypatch) -> None:
    qrels, a, b, _ = files
    drawn = {}
    original = plot_command.run_plot

    def spy(args):
        from matplotlib.figure import Figure

        save = Figure.savefig

        def keep(fig, *rest, **kw):
            drawn["fig"] = fig
            return save(fig, *rest, **kw)

        monkeypatch.setattr(Figure, "savefig", keep)
        return original(args)

    monkeypatch.setattr(plot_command, "run_plot", spy)
    out = tmp_path / "x.png"
    assert main(["plot", "cutoff", qrels, a, b, "-m", "P", "--max-k", "3", "-o", str(out)]) == 0
    lines = drawn["fig"].axes[0].lines
    for line, run in zip(lines, (a, b), strict=True):
        res = ranklens.evaluate(qrels, run, ["P@1", "P@2", "P@3"])
        assert line.get_ydata().tolist() == [res["P@1"], res["P@2"], res["P@3"]]
    assert [line.get_label() for line in lines] == ["A", "B"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["pr", "{q}", "{a}", "-o", "x.jpg"], "--output must end in .png, .svg or .pdf"),
        (["pr", "{q}", "{a}", "-o", "{out}", "--query", "nope"], "'nope' is not among"),
        (["delta", "{q}", "{a}", "{b}", "{c}", "-o", "{out}"], "exactly two runs, got 3"),
        (["delta", "{q}", "{a}", "-o", "{out}"], "exactly two runs, got 1"),
        (["dist", "{q}", "{a}", "-m", "Nope", "-o", "{out}"], "unknown measure 'Nope'"),
        (["cutoff", "{q}", "{a}", "-m", "P@10", "-o", "{out}"], "give P, not P@10"),
        (["dist", "{q}", "{a}", "-m", "AP P@1", "-o", "{out}"], "one measure, got 2"),
        (["roc", "{q}", "{a}", "-m", "AP", "-o", "{out}"], "--measure does not apply"),
        (["dist", "{q}", "{a}", "--query", "q1", "-o", "{out}"], "--query applies to pr"),
        (
            ["cutoff", "{q}", "{a}", "--max-k", "0", "-o", "{out}"],
            "--max-k must be a positive number",
        ),
        (["pr", "{q}", "-o", "{out}"], "at least one run"),
        (["pr", "{q}", "{a}", "--example", "-o", "{out}"], "--example takes no files"),
    ],
)
def test_errors_are_one_line(files, tmp_path, capsys, args, message) -> None:
    q, a, b, c = files
    out = str(tmp_path / "x.png")
    filled = [x.format(q=q, a=a, b=b, c=c, out=out) for x in args]
    code, stdout, err = run_cli(["plot", *filled], capsys)
    assert code == 2 and stdout == ""
    assert err.startswith("ranklens: error: ") and err.count("\n") == 1
    assert message in err
    assert not Path(out).exists()


def test_missing_matplotlib_is_one_line_with_the_install_hint(files, capsys, monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    code, _, err = run_cli(["plot", "pr", files[0], files[1], "-o", "x.png"], capsys)
    assert code == 2
    assert err.startswith("ranklens: error: ") and err.count("\n") == 1
    assert "matplotlib" in err and "pip install" in err


def test_delta_and_dist_plots_take_score_files_as_runs(tmp_path: Path) -> None:
    """A run given as its per-topic scores draws the same figure as the run itself."""
    pytest.importorskip("matplotlib")
    import ranklens
    from ranklens.data.examples import example_paths

    qrels, runs = example_paths()
    scores = []
    for run in runs:
        path = tmp_path / f"{Path(str(run)).name}.csv"
        ranklens.write_scores(ranklens.evaluate(str(qrels), str(run), ["AP"]), str(path))
        scores.append(str(path))
    for kind in ("delta", "dist"):
        from_runs = tmp_path / f"{kind}-runs.svg"
        from_scores = tmp_path / f"{kind}-scores.svg"
        common = ["-m", "AP", "--quiet", "--name", "bm25", "--name", "rerank"]
        assert main(["plot", kind, str(qrels), *map(str, runs), "-o", str(from_runs), *common]) == 0
        assert main(["plot", kind, "--scores", *scores, "-o", str(from_scores), *common]) == 0
        assert _svg_body(from_runs) == _svg_body(from_scores)
    assert main(["plot", "pr", "--scores", scores[0], "-o", str(tmp_path / "pr.svg")]) == 2


def _svg_body(path: Path) -> str:
    """The drawing of an SVG file without its generated ids and date."""
    import re

    text = path.read_text(encoding="utf-8")
    text = re.sub(r"<dc:date>.*?</dc:date>", "", text, flags=re.S)
    return re.sub(r'id="[^"]*"|xlink:href="#[^"]*"|url\(#[^)]*\)', "", text)
