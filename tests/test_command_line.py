"""A consistent command line: every subcommand takes ``--quiet``, and ``--format`` and
``--example`` wherever they apply; ``ranklens examples`` writes the files the docs name;
``pip install "ranklens[all]"`` installs every optional feature."""

from __future__ import annotations

import argparse
import gzip
import re
from pathlib import Path

import pytest

from ranklens.cli import build_parser, main
from ranklens.data.examples import EXAMPLE_FILE_NAMES, example_paths

ROOT = Path(__file__).resolve().parents[1]

# Where an option does not apply, the reason; every subcommand must be listed in each table,
# so that a new one is classified here.
NO_FORMAT = {
    "trec-eval": "prints trec_eval's own output, byte for byte (ranklens eval has the formats)",
    "report": "writes one HTML page",
    "examples": "writes the example files as they are",
    "fuse": "writes a TREC run (the fused run is a file, not a table)",
    "ndeval": "prints ndeval's own CSV, byte for byte",
    "gdeval": "prints gdeval.pl's own CSV, byte for byte",
    "sample-eval": "prints sample_eval.pl's own output, byte for byte",
    "expeval": "prints expeval's own output, line for line",
    "judge-next": "writes a pool file (qid docno), as ranklens pool -o does",
    "click-qrels": "writes TREC qrels (a file for the other commands, not a table)",
    "serve": "serves web pages over a folder of results (nothing to print)",
}
NO_EXAMPLE: dict[str, str] = {}
"""Every command takes --example (the NIST tools' reproductions the bundled data in their
tools' formats; tests/test_cli_vocabulary.py runs each)."""


def subcommands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    [action] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(action.choices)


def options_of(p: argparse.ArgumentParser) -> set[str]:
    return {s for a in p._actions for s in a.option_strings}


def test_the_tables_name_only_real_subcommands() -> None:
    names = set(subcommands())
    assert set(NO_FORMAT) <= names and set(NO_EXAMPLE) <= names
    assert {"eval", "compare", "curve", "explain", "plot", "report", "trec-eval"} <= names


@pytest.mark.parametrize("name", sorted(subcommands()))
def test_every_subcommand_takes_quiet_format_and_example_where_they_apply(name: str) -> None:
    options = options_of(subcommands()[name])
    assert "--quiet" in options
    assert ("--format" in options) is (name not in NO_FORMAT), NO_FORMAT.get(name)
    assert ("--example" in options) is (name not in NO_EXAMPLE), NO_EXAMPLE.get(name)
    if "--format" in options and name != "trec-eval":
        assert "-f" in options  # the short form, as everywhere


def test_the_short_option_q_is_never_shown_as_quiet() -> None:
    """``-q`` means --per-query in eval and trec-eval; report keeps a hidden ``-q``."""
    for name, p in subcommands().items():
        for action in p._actions:
            if "-q" in action.option_strings and action.help != argparse.SUPPRESS:
                assert action.dest != "quiet", name


def _example_files() -> tuple[str, str]:
    qrels, runs = example_paths()
    return str(qrels), str(runs[0])


@pytest.mark.parametrize(
    "args",
    [
        ["curve", "--kind", "pr"],
        ["curve", "--kind", "roc", "-f", "json"],
        ["trec-eval", "-q", "-m", "all_trec"],
        ["trec-eval", "--v9", "-c", "-m", "official"],
        ["explain", "--query", "1037798", "-m", "nDCG@10"],
    ],
)
def test_example_stands_for_the_bundled_qrels_and_bm25_run(
    args: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    qrels, run = _example_files()
    assert main([*args, qrels, run]) == 0
    with_files = capsys.readouterr()
    assert main([*args, "--example"]) == 0
    with_example = capsys.readouterr()
    assert with_example.out == with_files.out and with_example.out
    assert with_example.err == with_files.err


@pytest.mark.parametrize("command", ["curve", "trec-eval"])
def test_example_takes_no_files_and_files_are_needed_without_it(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    qrels, run = _example_files()
    extra = ["--kind", "pr"] if command == "curve" else []
    assert main([command, *extra, "--example", qrels, run]) != 0
    assert "--example takes no files" in capsys.readouterr().err
    assert main([command, *extra]) != 0
    assert "(or --example)" in capsys.readouterr().err


@pytest.mark.parametrize(
    "args",
    [
        ["eval", "--example"],
        ["compare", "--example", "--permutations", "100"],
        ["curve", "--example", "--kind", "ipr"],
        ["explain", "--example", "--query", "1037798", "-m", "AP"],
        ["trec-eval", "--example"],
        ["measures", "AP"],
    ],
)
def test_quiet_leaves_stderr_empty(args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*args, "--quiet"]) == 0
    captured = capsys.readouterr()
    assert captured.out and captured.err == ""


def test_compare_quiet_silences_the_count_of_queries_left_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    qrels = tmp_path / "qrels"
    qrels.write_text("q1 0 a 1\nq2 0 b 1\nq3 0 c 1\n")
    a, b = tmp_path / "a", tmp_path / "b"
    a.write_text("q1 Q0 a 1 2 a\nq2 Q0 x 2 1 a\nq3 Q0 c 1 1 a\n")
    b.write_text("q1 Q0 x 1 2 b\nq2 Q0 b 1 1 b\n")  # no q3
    args = ["compare", str(qrels), str(a), str(b), "--queries", "both", "-m", "P@1"]
    assert main(args) == 0
    assert "left out" in capsys.readouterr().err
    assert main([*args, "--quiet"]) == 0
    assert capsys.readouterr().err == ""


def test_plot_format_and_quiet(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("matplotlib")
    out = tmp_path / "figure.img"
    args = ["plot", "dist", "--example", "-m", "AP", "-o", str(out)]
    assert main(args) != 0  # no format: the extension is not one
    assert "--format" in capsys.readouterr().err
    assert main([*args, "--format", "svg", "--quiet"]) == 0
    assert capsys.readouterr().err == ""
    assert out.read_bytes().lstrip().startswith(b"<?xml") and b"<svg" in out.read_bytes()
    assert main(["plot", "dist", "--example", "-o", str(tmp_path / "f.png"), "-f", "pdf"]) != 0
    assert "contradicts" in capsys.readouterr().err
    assert main(["plot", "dist", "--example", "-o", str(tmp_path / "f.pdf")]) == 0
    assert capsys.readouterr().err == f"ranklens: wrote {tmp_path / 'f.pdf'}\n"
    assert (tmp_path / "f.pdf").read_bytes().startswith(b"%PDF")


# --- ranklens examples ----------------------------------------------------------------------


def test_examples_writes_the_bundled_data_under_the_documented_names(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["examples", str(tmp_path)]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(EXAMPLE_FILE_NAMES)
    assert "wrote" in capsys.readouterr().err
    qrels, (bm25, rerank) = example_paths()
    plain = {p: gzip.decompress(p.read_bytes()) for p in (qrels, bm25, rerank)}
    assert (tmp_path / "qrels.txt").read_bytes() == plain[qrels]
    assert (tmp_path / "bm25.run").read_bytes() == plain[bm25]
    assert (tmp_path / "rerank.run").read_bytes() == plain[rerank]
    assert (tmp_path / "run.txt").read_bytes() == plain[rerank]
    # prefs.txt: the qrels as trec_eval's 5-column preference file, one group per query
    prefs = (tmp_path / "prefs.txt").read_text().splitlines()
    lines = plain[qrels].decode().splitlines()
    assert len(prefs) == len(lines)
    for pref, line in zip(prefs, lines, strict=True):
        qid, _, doc, grade = line.split()
        assert pref.split() == [qid, "0", "0", doc, grade]


def test_examples_never_overwrites_without_force(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "run.txt").write_text("mine\n")
    assert main(["examples", str(tmp_path)]) == 2
    assert "run.txt" in capsys.readouterr().err
    assert (tmp_path / "run.txt").read_text() == "mine\n"
    assert not (tmp_path / "qrels.txt").exists()  # nothing written
    assert main(["examples", str(tmp_path), "--force", "--quiet"]) == 0
    assert capsys.readouterr().err == ""
    assert (tmp_path / "run.txt").read_text() != "mine\n"


def test_the_example_files_give_the_numbers_of_example(tmp_path: Path) -> None:
    import ranklens

    assert main(["examples", str(tmp_path), "--quiet"]) == 0
    qrels, runs = example_paths()
    for name, bundled in (("bm25.run", runs[0]), ("run.txt", runs[1])):
        written = ranklens.evaluate(tmp_path / "qrels.txt", tmp_path / name, ["AP", "nDCG@10"])
        assert written.aggregate == ranklens.evaluate(qrels, bundled, ["AP", "nDCG@10"]).aggregate
    # prefs.txt read as a preference file equals the qrels read as qrels_prefs
    with_prefs = ranklens.evaluate(
        tmp_path / "qrels.txt",
        tmp_path / "run.txt",
        ["PrefsSimp"],
        judgments=tmp_path / "prefs.txt",
    )
    default = ranklens.evaluate(tmp_path / "qrels.txt", tmp_path / "run.txt", ["PrefsSimp"])
    assert with_prefs.aggregate == default.aggregate


# --- ranklens[all] --------------------------------------------------------------------------


def _extras() -> dict[str, list[str]]:
    try:
        import tomllib
    except ImportError:  # Python 3.10
        tomllib = pytest.importorskip("tomli", reason="reading pyproject.toml needs tomli")
    with open(ROOT / "pyproject.toml", "rb") as f:
        return dict(tomllib.load(f)["project"]["optional-dependencies"])


def test_the_all_extra_installs_every_optional_feature() -> None:
    extras = _extras()
    features = {k: v for k, v in extras.items() if k not in ("all", "test", "test-light")}
    assert features, "no optional features?"
    from packaging.requirements import Requirement

    in_all = {Requirement(r).name: Requirement(r) for r in extras["all"]}

    def covered(requirement: str) -> bool:
        """``all`` names the package with a range inside this one (the strictest of the
        extras' lower bounds, e.g. pandas>=2.2 for spark covers pandas>=2 for frames)."""
        want = Requirement(requirement)
        have = in_all.get(want.name)
        if have is None or not want.extras <= have.extras:
            return False
        floor = [s.version for s in have.specifier if s.operator == ">="]
        return bool(floor) and all(want.specifier.contains(v) for v in floor)

    missing = {k: [r for r in v if not covered(r)] for k, v in features.items()}
    assert not {k: v for k, v in missing.items() if v}, "add these to the all extra"
    every = {r for v in features.values() for r in v}
    assert set(extras["all"]) <= every, "all lists something no feature needs"


def test_every_extra_the_code_and_docs_name_exists() -> None:
    from ranklens.base import optional

    named = set(optional._EXTRA_OF.values())
    texts = [ROOT / "README.md", *(ROOT / "docs").glob("*.md")]
    texts += (ROOT / "src" / "ranklens").rglob("*.py")
    for path in texts:
        named |= set(re.findall(r"ranklens\[([a-z0-9_-]+)\]", path.read_text(encoding="utf-8")))
    assert "all" in named
    assert named <= set(_extras()), f"named but not in pyproject.toml: {named - set(_extras())}"
