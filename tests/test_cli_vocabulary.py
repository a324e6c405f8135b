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
from hypothesis import given, settings
from hypothesis import strategies as st

from ranklens.cli import COMMAND_GROUPS, _options, build_parser, main
from workflow_support import run_cli

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


SERVERS = {"serve": ["--port", "0"]}
"""Commands that run until stopped (their --example must start and keep running), with
the options that keep them off a fixed port."""


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_command_runs_its_example(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``ranklens COMMAND --example`` alone, as the README promises for every command: the
    options the example needs take its values (a file written lands in the current
    folder); a server is still serving after a few seconds."""
    monkeypatch.chdir(tmp_path)
    assert _option(COMMANDS[name], "--example") is not None, f"{name} has no --example"
    if name in SERVERS:
        command = [sys.executable, "-m", "ranklens", name, "--example", *SERVERS[name]]
        with subprocess.Popen(command, stderr=subprocess.PIPE, text=True) as server:
            try:
                server.wait(timeout=15)
            except subprocess.TimeoutExpired:
                return  # serving
            finally:
                server.kill()
            pytest.fail(
                f"{name} --example stopped: {server.stderr.read() if server.stderr else ''}"
            )
    if name == "serve":  # a server runs until stopped: tests/test_serve.py runs its example
        return
    code, out, err = run_cli([name, "--example", "--quiet"])
    assert code == (1 if name == "diff" else 0), err  # diff's 1: the two results differ
    assert out.strip() or list(tmp_path.iterdir()), f"{name} --example wrote nothing"
    assert "internal error" not in err


def test_an_example_default_never_overrides_what_is_given(tmp_path: Path) -> None:
    code, out, _ = run_cli(["pool", "--example", "--depth", "2", "--quiet"])
    assert code == 0 and max(_per_query_counts(out).values()) <= 4  # 2 runs x top 2
    code, out, _ = run_cli(["pool", "--example", "--quiet"])
    assert code == 0 and max(_per_query_counts(out).values()) > 4  # --example's depth 10
    target = tmp_path / "mine.png"
    code, _, err = run_cli(["plot", "roc", "--example", "-o", str(target), "--quiet"])
    assert code == 0 and target.exists(), err
    # an option that stands for the example's value keeps it out (--scale for --thresholds)
    code, out, err = run_cli(["click-qrels", "--example", "--scale", "100", "--quiet"])
    assert code == 0 and max(int(line.split()[3]) for line in out.splitlines()) > 3, err
    # without --example, what the example filled in is required again, named as an option
    code, _, err = run_cli(["topics", "-m", "AP", "--variance", "0.01"])
    assert code == 2 and "--min-diff" in err and len(err.strip().splitlines()) == 1
    code, _, err = run_cli(["explain", *_example_files()])
    assert code == 2 and "--measure" in err


def _per_query_counts(pool: str) -> dict[str, int]:
    counts: dict[str, int] = {}
    for line in pool.splitlines():
        counts[line.split()[0]] = counts.get(line.split()[0], 0) + 1
    return counts


def _example_files() -> list[str]:
    from ranklens.data.examples import example_paths

    return [str(example_paths()[0]), str(example_paths()[1][0])]


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_one_format_vocabulary(name: str) -> None:
    """``-f`` names come from one vocabulary (one meaning each); a command that writes a
    table of results offers all of ``table``, ``csv``, ``tsv`` and ``json``."""
    action = _option(COMMANDS[name], "--format")
    if action is None or name in NIST:
        return
    choices = tuple(action.choices or ())
    assert set(choices) <= set(_options.FORMATS), (name, choices)
    if name == "plot":
        assert set(choices) == {"png", "svg", "pdf"}
        return
    assert action.default == "table" and {"table", "json"} <= set(choices), (name, choices)
    if {"csv", "tsv"} & set(choices):
        assert set(_options.TABLE_FORMATS) <= set(choices), (name, choices)


def test_tsv_is_csv_with_tabs() -> None:
    import csv

    for args in (["compare", "--example", "-m", "AP,P@10"], ["curve", "ipr", "--example"]):
        code, as_csv, _ = run_cli([*args, "-f", "csv", "--quiet"])
        assert code == 0
        code, as_tsv, _ = run_cli([*args, "-f", "tsv", "--quiet"])
        assert code == 0
        rows = list(csv.reader(io.StringIO(as_csv)))
        assert rows == [line.split("\t") if line else [] for line in as_tsv.split("\n")[:-1]]


def test_one_spelling_per_option_with_the_old_ones_as_aliases() -> None:
    for name, parser in COMMANDS.items():
        for action in _visible(parser):
            longs = [o for o in action.option_strings if o.startswith("--")]
            if set(longs) & {"--resamples", "--permutations", "--bootstrap"}:
                assert longs[0] == "--resamples", (name, longs)
            # pool's and check's --qrels are the judgments of their runs (RUN --qrels QRELS)
            if any("qrels" in o for o in longs) and not (
                name in ("pool", "check") and longs == ["--qrels"]
            ):
                assert longs[0] == _options.SECOND_QRELS, (name, longs)
            if "--test" in longs:
                assert "paired-t" not in (action.choices or ()), name
        positionals = _positionals(parser)
        first = positionals.index("QRELS") + 1 if "QRELS" in positionals else 0
        second = [p for p in positionals[first:] if "QRELS" in p]
        assert all(p == "QRELS_B" for p in second), (name, second)


@pytest.mark.parametrize(
    "args",
    [
        ["compare", "--example", "-m", "AP", "--test", "randomization"],
        ["topics", "--example", "-m", "AP", "--test"],
    ],
)
def test_aliases_give_the_same_output(args: list[str]) -> None:
    if args[0] == "compare":
        new = run_cli([*args, "--resamples", "500", "--quiet"])
        old = run_cli([*args, "--permutations", "500", "--quiet"])
    else:
        new = run_cli([*args, "t", "--quiet"])
        old = run_cli([*args, "paired-t", "--quiet"])
    assert new[0] == 0 and new == old


def test_explain_table_format_keeps_its_old_name() -> None:
    args = ["explain", "--example", "-m", "AP", "--quiet"]
    assert run_cli([*args, "-f", "text"]) == run_cli([*args, "-f", "table"]) == run_cli(args)


@pytest.mark.parametrize("name", ["", *sorted(COMMANDS)])
def test_help_shows_no_doubled_percent(name: str) -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
        build_parser().parse_args([name, "--help"] if name else ["--help"])
    assert "%%" not in out.getvalue()


def test_an_error_of_the_python_layer_names_the_option() -> None:
    code, _, err = run_cli(["compare", "--example", "--permutations", "0"])
    assert code == 2 and err.startswith("ranklens: error: --resamples must be"), err
    code, _, err = run_cli(["pool", "--example", "--strategy", "rrf"])
    assert code == 2 and "--budget N" in err and "budget=" not in err, err


def test_measures_default_to_one_set() -> None:
    for name, parser in COMMANDS.items():
        measure = _option(parser, "--measure")
        if measure is None or name in NIST or name in ("explain", "plot", "fuse"):
            continue
        assert ",".join(_options.DEFAULT_MEASURES) in (measure.help or ""), name


@pytest.mark.parametrize(
    "text", ["nDCG@10,AP", "NDCG@ 10", "P.5,10 map", "RBP(p=0.8, gain='graded'),AP", "AP ,  RR"]
)
def test_measures_parse_alike_in_python_and_on_the_command_line(text: str) -> None:
    from ranklens.measures.language import parse_measures

    python = [m.name for m in parse_measures(text)]
    cli = [m.name for m in parse_measures(_options.measure_names([text], ()))]
    assert python == cli and python
    code, out, err = run_cli(["eval", "--example", "-m", text, "--quiet", "-f", "csv"])
    assert code == 0, err
    assert list(dict.fromkeys(line.split(",")[2] for line in out.splitlines()[1:3])) == python[:2]


def test_measures_split_on_commas_and_spaces() -> None:
    assert _options.measure_names(["nDCG@10,AP", "P@10 RR"], ()) == ["nDCG@10", "AP", "P@10", "RR"]
    # a comma before a digit continues trec_eval's parameter list
    assert _options.measure_names(["P.5,10,map"], ()) == ["P.5,10", "map"]
    # and one inside parentheses belongs to the measure's parameters
    assert _options.measure_names(["RBP(p=0.8,gain='graded'),AP"], ()) == [
        "RBP(p=0.8,gain='graded')",
        "AP",
    ]


def test_comma_lists_give_the_same_numbers_as_repeated_m() -> None:
    code, commas, _ = run_cli(["eval", "--example", "-m", "nDCG@10,AP", "--quiet", "-f", "csv"])
    assert code == 0
    code, repeated, _ = run_cli(
        ["eval", "--example", "-m", "nDCG@10", "-m", "AP", "--quiet", "-f", "csv"]
    )
    assert code == 0 and commas == repeated and "nDCG@10" in commas


def test_an_unknown_option_points_to_the_commands_help() -> None:
    code, _, err = run_cli(["eval", "--example", "--no-such-option"])
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
    before = run_cli(
        ["--plugin", str(plugin), "eval", "--example", "-m", "VocabFirstRel", "--quiet"]
    )
    after = run_cli(
        ["eval", "--example", "-m", "VocabFirstRel", "--quiet", "--plugin", str(plugin)]
    )
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
    code, _, err = run_cli(["eval", "--example", "--plugin", str(plugin)])
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
    code, out, err = run_cli([*args, "--quiet"])
    assert code == 0, err
    assert out.strip()


def test_the_example_says_what_it_is_and_names_the_runs() -> None:
    code, out, err = run_cli(["eval", "--example"])
    assert code == 0
    assert "TREC DL 2019 passage" in err and "43 queries" in err
    assert "site-packages" not in err and "example_files" not in err
    assert "mean over 43 queries" in out
    assert [line.split()[0] for line in out.splitlines()[2:]] == ["bm25", "rerank"]
    # ties are named, and said to be on purpose in the example
    assert "tie on purpose" in err
    quiet = run_cli(["eval", "--example", "--quiet"])
    assert quiet[2] == "" and quiet[1] == out


def test_old_spellings_still_work(tmp_path: Path) -> None:
    from ranklens.data.examples import example_paths

    qrels, runs = (str(example_paths()[0]), [str(p) for p in example_paths()[1]])
    new = run_cli(["topics", qrels, *runs, "--min-diff", "0.05", "-m", "AP", "--quiet"])
    old = run_cli(["topics", "--min-diff", "0.05", "-m", "AP", "--quiet", "--from", *runs, qrels])
    assert new[0] == 0 and new == old
    new = run_cli(["curve", "ipr", qrels, runs[0], "--quiet"])
    old = run_cli(["curve", qrels, runs[0], "--kind", "ipr", "--quiet"])
    assert new[0] == 0 and new == old
    new = run_cli(["pool", qrels, *runs, "--depth", "5", "-m", "AP", "--quiet"])
    old = run_cli(["pool", *runs, "--qrels", qrels, "--depth", "5", "-m", "AP", "--quiet"])
    assert new[0] == 0 and new == old
    args = ["--method", "wsum", "--step", "0.5", "-m", "AP", "--quiet"]
    new = run_cli(["fuse", qrels, *runs, "--optimize", *args])
    old = run_cli(["fuse", "--optimize", qrels, *runs, *args])
    assert new[0] == 0 and new == old


def test_output_goes_to_a_file_only_when_asked(tmp_path: Path) -> None:
    target = tmp_path / "out.txt"
    code, out, _ = run_cli(["eval", "--example", "-m", "AP", "--quiet", "-o", str(target)])
    assert code == 0 and out == ""
    shown = run_cli(["eval", "--example", "-m", "AP", "--quiet"])[1]
    assert target.read_text() == shown
    code, _, err = run_cli(["eval", "--example", "-m", "AP", "--quiet", "-o", str(target)])
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
    trec = run_cli(["eval", qrels, bm25, "--quiet", "-f", "csv", "--name", "x"])
    assert trec[0] == 0
    for path in (csv_file, tsv_file):
        assert run_cli(["eval", qrels, str(path), "--quiet", "-f", "csv", "--name", "x"]) == trec
    headless = tmp_path / "plain.csv"
    headless.write_text("".join(f"{q},{d},{s}\n" for q, _, d, _, s, _ in lines[:3]))
    code, _, err = run_cli(["eval", qrels, str(headless)])
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


# ---------------------------------------------------- what a new user meets in messages


def _example_run_lines() -> list[list[str]]:
    return [line.split() for line in run_lines(_example_files()[1])]


def test_a_zip_archive_is_named_as_one(tmp_path: Path) -> None:
    import zipfile

    archive = tmp_path / "run.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("run.txt", "1 Q0 d1 1 0.5 r\n")
    qrels = _example_files()[0]
    for args in (["eval", qrels, str(archive)], ["trec-eval", qrels, str(archive)]):
        code, _, err = run_cli(args)
        assert code != 0 and "run.zip: is a zip archive" in err and "unzip it" in err, err
        assert "line ends" not in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    "header", ["qid Q0 docno rank score runid", "query_id iteration doc_id relevance"]
)
def test_a_header_line_is_called_a_header(tmp_path: Path, header: str) -> None:
    qrels, run = _example_files()
    target = Path(run if "rank" in header else qrels)
    path = tmp_path / ("with-header.run" if "rank" in header else "with-header.qrels")
    import gzip

    path.write_bytes(header.encode() + b"\n" + gzip.decompress(target.read_bytes()))
    args = [qrels, str(path)] if "rank" in header else [str(path), run]
    code, _, err = run_cli(["eval", *args])
    assert code == 2 and f"{path.name}:1:" in err and "line 1 looks like a header" in err, err
    # a bad value that is not a header is not called one
    path.write_text("1 Q0 d1 1 x r\n")
    code, _, err = run_cli(
        ["eval", qrels, str(path)] if "rank" in header else ["eval", str(path), run]
    )
    assert code == 2 and "looks like a header" not in err


def _write_run(path: Path, rows: list[list[str]]) -> str:
    path.write_text("".join(" ".join(row) + "\n" for row in rows))
    return str(path)


def test_a_run_with_rank_and_score_swapped_is_said_to_look_so(tmp_path: Path) -> None:
    rows = _example_run_lines()
    swapped = _write_run(
        tmp_path / "swapped.run", [[q, z, d, s, r, t] for q, z, d, r, s, t in rows]
    )
    qrels = _example_files()[0]
    code, _, err = run_cli(["eval", qrels, swapped, "-m", "AP", "--quiet"])
    assert code == 0 and "rank and score columns look swapped" in err and "swapped.run" in err
    assert len([line for line in err.splitlines() if "swapped" in line]) == 1
    code, _, err = run_cli(["trec-eval", "-m", "map", qrels, swapped])
    assert code == 0 and "look swapped" in err


@pytest.mark.parametrize(
    "make",
    [
        "as bundled",  # real scores
        "ranks as scores",  # score = rank: 1..n with the rank column the same
        "descending integers",  # n..1, as scores written from ranks are
        "ascending with gaps",  # 1, 3, 5 ...: not exactly 1..n
        "one query counts up",  # the others do not
    ],
)
def test_a_normal_run_never_looks_swapped(tmp_path: Path, make: str) -> None:
    rows = _example_run_lines()
    by_query: dict[str, list[list[str]]] = {}
    for row in rows:
        by_query.setdefault(row[0], []).append(row)
    out_rows: list[list[str]] = []
    for i, (_, group) in enumerate(by_query.items()):
        n = len(group)
        for j, (q, z, d, r, s, t) in enumerate(group):
            score = {
                "as bundled": s,
                "ranks as scores": str(j + 1),
                "descending integers": str(n - j),
                "ascending with gaps": str(2 * j + 1),
                "one query counts up": str(j + 1) if i == 0 else s,
            }[make]
            rank = str(j + 1) if make == "ranks as scores" else r
            out_rows.append([q, z, d, rank, score, t])
    path = _write_run(tmp_path / "normal.run", out_rows)
    code, _, err = run_cli(["eval", _example_files()[0], path, "-m", "AP", "--quiet"])
    assert code == 0 and "swapped" not in err, err


def test_trec_eval_offers_its_name_for_a_language_name() -> None:
    qrels, run = _example_files()
    for name, offered in (("ndcg@10", "ndcg_cut.10"), ("P@5", "P.5"), ("AP", "map")):
        code, _, err = run_cli(["trec-eval", "-m", name, qrels, run])
        assert code != 0 and f"did you mean '{offered}'" in err, err


def test_warnings_of_other_packages_are_not_shown_as_ranklens(tmp_path: Path) -> None:
    import sqlalchemy  # noqa: F401  (a package whose deprecations reached users)

    plugin = tmp_path / "vocab_noisy_plugin.py"
    plugin.write_text(
        "import warnings, sqlalchemy\n"
        "where = sqlalchemy.__file__\n"
        "warnings.warn_explicit('an old API', DeprecationWarning, where, 1)\n"
        "warnings.warn_explicit('something else', UserWarning, where, 2)\n"
        "warnings.warn('the plugin speaks', UserWarning)\n"
    )
    code, _, err = run_cli(["eval", "--example", "-m", "AP", "--quiet", "--plugin", str(plugin)])
    assert code == 0
    assert "an old API" not in err
    assert "ranklens: warning from sqlalchemy: something else" in err
    assert "ranklens: warning: the plugin speaks" in err


MEASURE_NAMES = [
    "nDCG@10",
    "AP",
    "P.5,10",
    "ndcg_cut.10,20",
    "NDCG@ 10",
    "RBP(p=0.8, gain='graded')",
    "AP(norm = 'ret')@5",
    "map",
    "ERR@20",
    "R@100",
]


@given(
    names=st.lists(st.sampled_from(MEASURE_NAMES), min_size=1, max_size=6),
    separators=st.lists(st.sampled_from([",", " ", ", ", " ,  ", "\t", " , "]), min_size=6),
)
@settings(max_examples=200, deadline=None)
def test_a_string_of_measures_splits_back_into_its_names(
    names: list[str], separators: list[str]
) -> None:
    from ranklens.measures.language import parse_measures, split_measure_names

    text = "".join(n + sep for n, sep in zip(names, separators, strict=False)).rstrip(", \t")
    assert split_measure_names(text) == names
    assert _options.measure_names([text], ()) == names
    assert [m.name for m in parse_measures(text)] == [m.name for m in parse_measures(names)]
