"""Tables never hide numbers: at any width, on a terminal or not; numbers in the text formats
without binary noise unless asked."""

from __future__ import annotations

import io
import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ranklens
from ranklens.cli import main
from ranklens.cli.output import shortest
from ranklens.presentation.tables import layout, render_plain, render_rich

MEASURES = [
    "nDCG@10", "AP", "P@10", "R@100", "RR", "Bpref", "Rprec", "nDCG@5", "P@5", "R@1000",
    "GMAP", "Success@10",
]  # fmt: skip


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


cells = st.text("abc0123456789.@()=", min_size=1, max_size=14)


@settings(max_examples=80, deadline=None)
@given(
    st.integers(2, 14).flatmap(
        lambda ncol: st.tuples(
            st.lists(cells, min_size=ncol, max_size=ncol),
            st.lists(st.lists(cells, min_size=ncol, max_size=ncol), min_size=1, max_size=6),
        )
    ),
    st.integers(10, 200),
)
def test_layout_keeps_every_cell_and_fits_when_it_can(table, width: int) -> None:
    header, rows = table
    text = render_plain(header, rows, width)
    for row in (header[1:], *rows):  # header[0] names the first column; transposed, "measure"
        for cell in row:
            assert cell in text  # never cut
    first = max([len("measure")] + [len(r[0]) for r in (header, *rows)])
    widest_pair = first + 2 + max(
        len(c) for r in (header, *rows) for c in r[1:]
    )
    for line in text.splitlines():
        assert len(line) <= max(width, widest_pair)
    blocks = layout(header, rows, width)
    shown = {c for b in blocks for r in (b.header, *b.rows) for c in r}
    assert {c for r in (header[1:], *rows) for c in r} <= shown


def test_the_eval_table_at_80_columns_and_in_a_pipe(capsys, monkeypatch) -> None:
    expected = ranklens.evaluate(*_example(), MEASURES)
    args = ["eval", "--example", "--quiet", *(f"-m{m}" for m in MEASURES)]
    monkeypatch.setenv("COLUMNS", "80")
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "…" not in out and "┃" not in out  # plain text when stdout is not a terminal
    assert max(len(line) for line in out.splitlines()) <= 80
    for name in MEASURES:
        assert name in out
    for value in _numbers(expected):
        assert value in out
    monkeypatch.delenv("COLUMNS")
    assert main(args) == 0
    wide = capsys.readouterr().out
    assert len(wide.splitlines()) == 4  # a pipe: one wide plain table, nothing split


def test_the_rich_table_on_an_80_column_terminal(monkeypatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    header = ["run", *MEASURES]
    rows = [["bm25", *(f"0.{i:04d}" for i in range(12))], ["rerank", *("1.0000",) * 12]]
    out = Terminal()
    render_rich(header, rows, out, title="all queries")
    text = re.sub(r"\x1b\[[0-9;]*m", "", out.getvalue())  # colours
    assert "…" not in text and "┃" in text
    assert all(len(line) <= 80 for line in text.splitlines())
    for cell in header[1:] + rows[0] + rows[1]:
        assert cell in text


def test_numbers_without_binary_noise_unless_asked() -> None:
    assert shortest(0.7999999999999998) == 0.8
    assert shortest(0.1 + 0.2) == 0.3
    assert shortest(1 / 3) == 1 / 3  # a real repeating decimal keeps its digits
    assert shortest(float("nan")) != shortest(float("nan"))


@pytest.mark.parametrize("precision", ["short", "full"])
def test_json_precision(capsys, precision: str) -> None:
    qrels = {"q1": {"a": 1}, "q2": {"a": 1}, "q3": {"a": 1}, "q4": {"a": 1}, "q5": {"a": 1}}
    run = {f"q{i}": {"a": 1.0, "b": 2.0, "c": 3.0, "d": 4.0} for i in range(1, 6)}
    for i in range(1, 5):
        run[f"q{i}"]["a"] = 9.0  # four queries with RR 1, one with RR 1/4: mean 0.85
    value = ranklens.evaluate(qrels, run, ["RR"]).aggregate["RR"]
    import tempfile
    from pathlib import Path

    folder = Path(tempfile.mkdtemp())
    (folder / "q").write_text("".join(f"{q} 0 a 1\n" for q in qrels))
    (folder / "r").write_text(
        "".join(f"{q} Q0 {d} 0 {s} t\n" for q, docs in run.items() for d, s in docs.items())
    )
    argv = ["eval", str(folder / "q"), str(folder / "r"), "-m", "RR", "-f", "json", "--quiet"]
    assert main([*argv, "--precision", precision]) == 0
    got = json.loads(capsys.readouterr().out)["runs"][0]["aggregate"]["RR"]
    assert got == (value if precision == "full" else shortest(value))


def _example():  # the bundled qrels and first run
    from ranklens.examples import example_paths

    qrels, runs = example_paths()
    return str(qrels), str(runs[0])


def _numbers(res: ranklens.Results) -> list[str]:
    return [f"{v:.4f}" for v in res.aggregate.values()]


def test_numbers_helper_sees_four_decimals() -> None:
    assert all(re.fullmatch(r"\d\.\d{4}", n) for n in _numbers(ranklens.evaluate(*_example(), ["AP"])))
