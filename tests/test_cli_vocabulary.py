"""One tool, one vocabulary: every command's ``--help`` follows the shared options.

The test walks every command of ``ranklens`` (the parsers ``ranklens COMMAND --help``
prints) and checks what ``ranklens.cli._options`` documents: judgments first, then runs;
the same spelling and choices for the same option everywhere; ``--example``, ``--quiet``
and ``--plugin`` on every command; a group in ``ranklens --help`` for each. A command added
later that spells an option its own way fails here. The NIST tools' reproductions keep
their tools' own flags (that is their point) and are held to the rest.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ranklens.cli import COMMAND_GROUPS, _options, build_parser, main

NIST = {"trec-eval", "ndeval", "gdeval", "sample-eval", "expeval"}
"""Reproductions of NIST tools: their own flags, as the tools spell them."""

NO_DATA = {"measures", "examples"}
"""Commands that read no judgments or runs."""

EXPERIMENT_FILES = {"check": ["RUN"], "run": ["MANIFEST"], "diff": ["A", "B"], "serve": ["DIR"]}
"""The files the commands of the experiment workflow take (docs/workflow.md)."""

NAMED_OUTPUT = {"eval", "compare", "report", "plot", "discriminate", "leaderboard"}
"""Commands whose output names the runs: ``--name`` names them."""


def _commands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


COMMANDS = _commands()
COMMAND_GROUPS_BY_TITLE = dict(COMMAND_GROUPS)


def _visible(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    return [a for a in parser._actions if a.help != argparse.SUPPRESS]


def _option(parser: argparse.ArgumentParser, name: str) -> argparse.Action | None:
    return next((a for a in _visible(parser) if name in a.option_strings), None)


def _positionals(parser: argparse.ArgumentParser) -> list[str]:
    return [str(a.metavar or a.dest) for a in parser._actions if not a.option_strings]


def test_every_command_is_in_one_group_of_the_help() -> None:
    grouped = [name for _, names in COMMAND_GROUPS for name in names]
    assert len(grouped) == len(set(grouped)), "a command is in two groups"
    assert sorted(grouped) == sorted(COMMANDS), "a command is missing from COMMAND_GROUPS"
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["--help"]) == 0
    text = out.getvalue()
    for title, names in COMMAND_GROUPS:
        assert f"{title}:" in text
        for name in names:
            assert f"\n  {name} " in text, f"{name} has no line of its own in 'ranklens --help'"


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_command_takes_quiet_plugin_and_has_a_purpose(name: str) -> None:
    parser = COMMANDS[name]
    assert _option(parser, "--quiet") is not None
    assert _option(parser, "--plugin") is not None
    assert parser.description or parser.format_help()


@pytest.mark.parametrize("name", sorted(set(COMMANDS) - NIST - NO_DATA))
def test_judgments_come_first_and_example_stands_for_them(name: str) -> None:
    parser = COMMANDS[name]
    assert _option(parser, "--example") is not None, f"{name} has no --example"
    positionals = [p for p in _positionals(parser) if p not in ("KIND", "command")]
    assert positionals, f"{name} takes no files"
    if name in ("fuse", "pool"):  # the runs alone, or QRELS first (see their --help)
        assert positionals == ["RUN"]
        return
    if name in COMMAND_GROUPS_BY_TITLE["User logs"]:  # a click log, not judgments and runs
        assert positionals == ["LOG"]
        return
    if name in COMMAND_GROUPS_BY_TITLE["Experiments"]:  # a run, a manifest, results files
        assert positionals == EXPERIMENT_FILES[name]
        return
    assert positionals[0] == "QRELS", f"{name}: {positionals} (judgments first: QRELS RUN ...)"
    assert all(p.isupper() for p in positionals), positionals
    if len(positionals) > 1 and name != "agreement":
        assert positionals[-1] in ("RUN", "REPRODUCED"), positionals


@pytest.mark.parametrize("name", sorted(set(COMMANDS) - NIST))
def test_the_same_option_is_spelled_and_offered_the_same_way(name: str) -> None:
    parser = COMMANDS[name]
    measure = _option(parser, "--measure")
    if measure is not None:
        assert "-m" in measure.option_strings
    for long, short in (("--format", "-f"), ("--output", "-o"), ("--measure", "-m")):
        action = _option(parser, long)
        if action is not None:
            assert short in action.option_strings, f"{name}: {long} without {short}"
    ties = _option(parser, "--ties")
    if ties is not None:
        assert tuple(ties.choices or ()) == _options.TIES
    queries = _option(parser, "--queries")
    if queries is not None:
        assert tuple(queries.choices or ()) == _options.QUERY_POLICIES
    output = _option(parser, "--output")
    if output is not None:
        assert _option(parser, "--force") is not None, f"{name}: -o without --force"
    if name in NAMED_OUTPUT:
        assert _option(parser, "--name") is not None, f"{name} has no --name"
    for action in _visible(parser):
        assert "-q" not in action.option_strings or action.dest == "per_query", (
            f"{name}: -q means --per-query everywhere"
        )


def test_short_options_mean_one_thing_across_commands() -> None:
    meaning: dict[str, set[str]] = {}
    for name, parser in COMMANDS.items():
        if name in NIST:
            continue
        for action in _visible(parser):
            for flag in action.option_strings:
                if not flag.startswith("--"):
                    meaning.setdefault(flag, set()).add(action.dest)
    for flag, dests in meaning.items():
        assert len(dests) == 1, f"{flag} means {sorted(dests)} in different commands"


def test_measures_default_to_one_set() -> None:
    for name, parser in COMMANDS.items():
        measure = _option(parser, "--measure")
        if measure is None or name in NIST or name in ("explain", "plot", "fuse"):
            continue
        assert ",".join(_options.DEFAULT_MEASURES) in (measure.help or ""), name


def test_measures_split_on_commas_and_spaces() -> None:
    assert _options.measure_names(["nDCG@10,AP", "P@10 RR"], ()) == ["nDCG@10", "AP", "P@10", "RR"]
    # a comma before a digit continues trec_eval's parameter list
    assert _options.measure_names(["P.5,10,map"], ()) == ["P.5,10", "map"]
    # and one inside parentheses belongs to the measure's parameters
    assert _options.measure_names(["RBP(p=0.8,gain='graded'),AP"], ()) == [
        "RBP(p=0.8,gain='graded')",
        "AP",
    ]


def _run(args: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(args)
    return code, out.getvalue(), err.getvalue()


def test_comma_lists_give_the_same_numbers_as_repeated_m() -> None:
    code, commas, _ = _run(["eval", "--example", "-m", "nDCG@10,AP", "--quiet", "-f", "csv"])
    assert code == 0
    code, repeated, _ = _run(
        ["eval", "--example", "-m", "nDCG@10", "-m", "AP", "--quiet", "-f", "csv"]
    )
    assert code == 0 and commas == repeated and "nDCG@10" in commas


def test_an_unknown_option_points_to_the_commands_help() -> None:
    code, _, err = _run(["eval", "--example", "--no-such-option"])
    assert code == 2
    assert err.strip().endswith("(see 'ranklens eval --help')"), err
    assert len(err.strip().splitlines()) == 1


def test_plugin_before_or_after_the_command(tmp_path: Path) -> None:
    plugin = tmp_path / "vocab_plugin_measure.py"
    plugin.write_text(
        "import ranklens\n"
        "ranklens.define_measure('VocabFirstRel', lambda rel, scores: float(len(rel) > 0 "
        "and rel[0] > 0), bounds=(0.0, 1.0))\n"
    )
    before = _run(["--plugin", str(plugin), "eval", "--example", "-m", "VocabFirstRel", "--quiet"])
    after = _run(["eval", "--example", "-m", "VocabFirstRel", "--quiet", "--plugin", str(plugin)])
    assert before[0] == 0, before
    assert before == after


@pytest.mark.parametrize(
    "content, expected",
    [
        ("x = 1 / 0\n", "ZeroDivisionError: division by zero at "),
        ("def broken(:\n", "syntax error at "),
    ],
)
def test_a_plugins_own_error_is_named_as_the_plugins(
    tmp_path: Path, content: str, expected: str
) -> None:
    plugin = tmp_path / "vocab_bad_plugin.py"
    plugin.write_text(content)
    code, _, err = _run(["eval", "--example", "--plugin", str(plugin)])
    assert code == 2
    assert expected in err and "vocab_bad_plugin.py:1" in err
    assert "internal error" not in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    "args",
    [
        ["fuse", "--example"],
        ["agreement", "--example"],
        ["leaderboard", "--example", "-m", "AP"],
        ["ppi", "--example", "-m", "AP"],
        ["reproduction", "--example", "-m", "AP"],
        ["pool", "--example", "--depth", "5"],
        ["curve", "ipr", "--example"],
        ["topics", "--example", "--min-diff", "0.05", "-m", "AP"],
    ],
)
def test_every_command_runs_on_the_example(args: list[str]) -> None:
    code, out, err = _run([*args, "--quiet"])
    assert code == 0, err
    assert out.strip()


def test_the_example_says_what_it_is_and_names_the_runs() -> None:
    code, out, err = _run(["eval", "--example"])
    assert code == 0
    assert "TREC DL 2019 passage" in err and "43 queries" in err
    assert "site-packages" not in err and "example_files" not in err
    assert "mean over 43 queries" in out
    assert [line.split()[0] for line in out.splitlines()[2:]] == ["bm25", "rerank"]
    # ties are named, and said to be on purpose in the example
    assert "tie on purpose" in err
    quiet = _run(["eval", "--example", "--quiet"])
    assert quiet[2] == "" and quiet[1] == out


def test_old_spellings_still_work(tmp_path: Path) -> None:
    from ranklens.data.examples import example_paths

    qrels, runs = (str(example_paths()[0]), [str(p) for p in example_paths()[1]])
    new = _run(["topics", qrels, *runs, "--min-diff", "0.05", "-m", "AP", "--quiet"])
    old = _run(["topics", "--min-diff", "0.05", "-m", "AP", "--quiet", "--from", *runs, qrels])
    assert new[0] == 0 and new == old
    new = _run(["curve", "ipr", qrels, runs[0], "--quiet"])
    old = _run(["curve", qrels, runs[0], "--kind", "ipr", "--quiet"])
    assert new[0] == 0 and new == old
    new = _run(["pool", qrels, *runs, "--depth", "5", "-m", "AP", "--quiet"])
    old = _run(["pool", *runs, "--qrels", qrels, "--depth", "5", "-m", "AP", "--quiet"])
    assert new[0] == 0 and new == old
    args = ["--method", "wsum", "--step", "0.5", "-m", "AP", "--quiet"]
    new = _run(["fuse", qrels, *runs, "--optimize", *args])
    old = _run(["fuse", "--optimize", qrels, *runs, *args])
    assert new[0] == 0 and new == old


def test_output_goes_to_a_file_only_when_asked(tmp_path: Path) -> None:
    target = tmp_path / "out.txt"
    code, out, _ = _run(["eval", "--example", "-m", "AP", "--quiet", "-o", str(target)])
    assert code == 0 and out == ""
    shown = _run(["eval", "--example", "-m", "AP", "--quiet"])[1]
    assert target.read_text() == shown
    code, _, err = _run(["eval", "--example", "-m", "AP", "--quiet", "-o", str(target)])
    assert code == 2 and "--force" in err


def test_a_csv_run_with_a_header_is_read_by_its_suffix(tmp_path: Path) -> None:
    from ranklens.data.examples import example_paths

    qrels, (bm25, _) = str(example_paths()[0]), [str(p) for p in example_paths()[1]]
    lines = [line.split() for line in run_lines(bm25)]
    csv_file = tmp_path / "bm25.csv"
    csv_file.write_text(
        "qid,docno,score\n" + "".join(f"{q},{d},{s}\n" for q, _, d, _, s, _ in lines)
    )
    tsv_file = tmp_path / "bm25.tsv"
    tsv_file.write_text(
        "query_id\tdoc_id\tscore\n" + "".join(f"{q}\t{d}\t{s}\n" for q, _, d, _, s, _ in lines)
    )
    trec = _run(["eval", qrels, bm25, "--quiet", "-f", "csv", "--name", "x"])
    assert trec[0] == 0
    for path in (csv_file, tsv_file):
        assert _run(["eval", qrels, str(path), "--quiet", "-f", "csv", "--name", "x"]) == trec
    headless = tmp_path / "plain.csv"
    headless.write_text("".join(f"{q},{d},{s}\n" for q, _, d, _, s, _ in lines[:3]))
    code, _, err = _run(["eval", qrels, str(headless)])
    assert code == 2 and "plain.csv:1" in err and "header row" in err


def run_lines(path: str) -> list[str]:
    import gzip

    return gzip.decompress(Path(path).read_bytes()).decode().splitlines()


def test_piped_measures_listing_is_not_padded() -> None:
    env = {**os.environ, "COLUMNS": ""}
    env.pop("COLUMNS")
    text = subprocess.run(
        [sys.executable, "-m", "ranklens", "measures"],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    ).stdout
    lines = text.splitlines()
    assert lines[0].split("\t")[0] == "measure (defaults)"
    assert all(line == line.rstrip() for line in lines)
    assert all(len(line.split("\t")) == 5 for line in lines)


def test_a_reader_that_stops_early_is_not_a_failure() -> None:
    """``ranklens compare ... | head -1`` exits 0 (rich ends the process on a closed pipe)."""
    command = f'"{sys.executable}" -m ranklens compare --example -m AP --quiet | head -1'
    done = subprocess.run(
        ["bash", "-o", "pipefail", "-c", command], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("means")
