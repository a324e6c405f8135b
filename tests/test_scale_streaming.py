"""Streaming a run file in chunks cut at query boundaries gives the in-memory Results."""

from __future__ import annotations

import bz2
import gzip
import io
import itertools
import lzma
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ranklens
from ranklens.base.errors import DuplicateError, EmptyInputError, InputError, ParseError
from ranklens.scale.streaming import evaluate_stream, query_chunks, query_cut, should_stream
from scale_data import MEASURES, MEASURES_FIXED, make_case


def same(a: ranklens.Results, b: ranklens.Results) -> None:
    """Equal as the issue asks: queries in the same order, every value and aggregate ==."""
    assert a.queries == b.queries
    assert a.names == b.names
    np.testing.assert_array_equal(a.values, b.values)  # NaN == NaN here, nothing else
    for name in a.names:
        x, y = a.aggregate[name], b.aggregate[name]
        assert x == y or (math.isnan(x) and math.isnan(y)), name
    assert dict(a.query_counts) == dict(b.query_counts)
    assert a.run == b.run


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("queries", ["qrels", "both", "run"])
@pytest.mark.parametrize("ties", ["trec_eval", "input", "docid_asc"])
def test_stream_equals_in_memory(tmp_path: Path, seed: int, queries: str, ties: str) -> None:
    case = make_case(seed)
    qrels = tmp_path / "qrels.txt"
    qrels.write_text(case.qrels_text())
    run = tmp_path / "run.txt"
    run.write_text(case.run_text())
    measures = MEASURES if queries == "qrels" else MEASURES_FIXED
    for depth in (None, 7):
        ev = ranklens.Evaluator(str(qrels), measures, ties=ties, queries=queries, depth=depth)  # type: ignore[arg-type]
        expected = ev.evaluate(str(run), stream=False)
        for chunk in (1, 97, 1000, 1 << 20):
            same(evaluate_stream(ev, str(run), chunk_bytes=chunk), expected)
        same(ev.evaluate(str(run), stream=True), expected)


@pytest.mark.parametrize("opener", [gzip.open, bz2.open, lzma.open])
def test_compressed_is_decompressed_as_a_stream(tmp_path: Path, opener: object) -> None:
    case = make_case(7)
    run = tmp_path / "run.compressed"
    with opener(run, "wt") as handle:  # type: ignore[operator]
        handle.write(case.run_text())
    ev = ranklens.Evaluator(case.qrels, MEASURES)
    same(evaluate_stream(ev, run, chunk_bytes=300), ev.evaluate(run, stream=False))


def test_file_object_and_name(tmp_path: Path) -> None:
    case = make_case(4)
    ev = ranklens.Evaluator(case.qrels, ["AP", "P@5"])
    text = case.run_text("first")[:-1] + "\n"
    lines = text.splitlines(keepends=True)
    lines[-1] = lines[-1].replace("first", "last")  # the run's name is the last line's tag
    data = "".join(lines).encode()
    streamed = evaluate_stream(ev, io.BytesIO(data), chunk_bytes=50)
    assert streamed.run == "last"
    same(streamed, ev.evaluate(io.BytesIO(data), stream=False))
    assert evaluate_stream(ev, io.BytesIO(data), name="mine").run == "mine"


def test_comments_blank_lines_and_crlf(tmp_path: Path) -> None:
    case = make_case(5)
    lines = case.run_text().splitlines()
    for at in (0, 3, 40, len(lines)):  # comment and blank lines, inside queries too
        lines.insert(at, "# a comment")
        lines.insert(at, "")
    data = ("\r\n".join(lines) + "\r\n").encode()
    ev = ranklens.Evaluator(case.qrels, MEASURES)
    expected = ev.evaluate(io.BytesIO(data), stream=False)
    for chunk in (1, 33, 500):
        same(evaluate_stream(ev, io.BytesIO(data), chunk_bytes=chunk), expected)


def test_not_grouped_by_query_is_an_error_saying_how_to_sort(tmp_path: Path) -> None:
    text = "a Q0 d1 1 1 t\nb Q0 d1 1 1 t\n" + "c Q0 d1 1 1 t\n" * 0 + "a Q0 d2 2 0.5 t\n"
    ev = ranklens.Evaluator({"a": {"d1": 1}}, ["AP"])
    with pytest.raises(InputError, match=r"not grouped by query.*sort -k1,1 -s") as info:
        evaluate_stream(ev, io.BytesIO(text.encode()), chunk_bytes=1)
    assert info.value.line == 3
    # all of it in one chunk: grouped by the parser, the in-memory numbers
    same(
        evaluate_stream(ev, io.BytesIO(text.encode()), chunk_bytes=1000),
        ev.evaluate(io.BytesIO(text.encode()), stream=False),
    )


def test_errors_name_the_file_and_the_line(tmp_path: Path) -> None:
    run = tmp_path / "bad.txt"
    good = "".join(f"q{i} Q0 d 1 1 t\n" for i in range(50))
    run.write_text(good + "q99 Q0 d 1 nope t\n")
    ev = ranklens.Evaluator({"q1": {"d": 1}}, ["AP"])
    with pytest.raises(ParseError) as info:
        evaluate_stream(ev, run, chunk_bytes=64)
    assert info.value.path == str(run) and info.value.line == 51
    run.write_text(good + "q99 Q0 x 1 1 t\nq99 Q0 x 2 1 t\n")
    with pytest.raises(DuplicateError) as dup:
        evaluate_stream(ev, run, chunk_bytes=64)
    assert dup.value.lines == (51, 52)
    run.write_text("# nothing\n\n")
    with pytest.raises(EmptyInputError):
        evaluate_stream(ev, run, chunk_bytes=4)


def test_chunks_hold_whole_queries() -> None:
    case = make_case(9)
    data = case.run_text().encode()
    chunks = list(query_chunks(io.BytesIO(data), 120))
    assert b"".join(c for c, _ in chunks) == data
    seen: set[bytes] = set()
    for chunk, first in chunks:
        qids = {line.split()[0] for line in chunk.splitlines()}
        assert not qids & seen
        seen |= qids
        assert first == data[: data.index(chunk)].count(b"\n") + 1


def test_query_cut_is_the_start_of_the_last_query() -> None:
    block = b"a x\n" * 5000 + b"bb y\n" * 3 + b"# c\n" + b"bb y\n" * 9000
    assert query_cut(block, len(block)) == 4 * 5000
    assert query_cut(b"a x\na x\n", 8) == 0  # one query: read more


def test_should_stream_by_size(tmp_path: Path) -> None:
    run = tmp_path / "run.txt"
    run.write_text("q Q0 d 1 1 t\n" * 100)
    assert not should_stream(run)
    assert should_stream(run, threshold=100)
    assert not should_stream("-") and not should_stream({"q": {"d": 1.0}})


def test_err_default_max_rel_needs_the_whole_run_under_other_policies(tmp_path: Path) -> None:
    case = make_case(3)
    ev = ranklens.Evaluator(case.qrels, ["ERR@10"], queries="both")
    with pytest.raises(ranklens.OptionError, match="max_rel"):
        evaluate_stream(ev, io.BytesIO(case.run_text().encode()))


def test_cli_stream_flags(tmp_path: Path) -> None:
    import subprocess
    import sys

    case = make_case(2)
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text(case.qrels_text())
    run.write_text(case.run_text())
    outs = [
        subprocess.run(
            [
                sys.executable,
                "-m",
                "ranklens",
                "eval",
                str(qrels),
                str(run),
                "-m",
                "AP",
                "-m",
                "ERR@10",
                "-q",
                "-f",
                "json",
                "--precision",
                "full",
                flag,
            ],
            capture_output=True,
            text=True,
            check=True,
        )
        for flag in ("--stream", "--no-stream")
    ]
    assert outs[0].stdout == outs[1].stdout
    assert outs[0].stderr == outs[1].stderr  # the same query counts


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(["a", "b", "cc", "d\u00e9", "10", "9"]), st.integers(1, 6)),
        min_size=1,
        max_size=12,
    ),
    st.integers(1, 80),
    st.booleans(),
)
def test_chunks_never_split_a_query(groups: list[tuple[str, int]], size: int, gaps: bool) -> None:
    """Whatever the chunk size: the chunks put together are the text, and every run of
    lines of one query stays in one chunk (a query id may come back later, as its own run
    of lines, which the evaluation then reports)."""
    lines: list[str] = []
    for qid, count in groups:
        for k in range(count):
            lines.append(f"{qid} Q0 d{k} {k + 1} 1.0 t\n")
            if gaps and k == 0:
                lines.append("# comment\n")
    data = "".join(lines).encode()
    chunks = [c for c, _ in query_chunks(io.BytesIO(data), size)]
    assert b"".join(chunks) == data
    where = []  # chunk index of each data line
    for i, chunk in enumerate(chunks):
        where += [(line.split()[0], i) for line in chunk.splitlines() if not line.startswith(b"#")]
    for (q1, c1), (q2, c2) in itertools.pairwise(where):
        if q1 == q2:
            assert c1 == c2
