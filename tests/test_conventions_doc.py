"""``docs/conventions.md`` cannot go stale: every row of its tables is recomputed.

Each section has a data block (a fenced ``python`` block starting ``# data: NAME`` that
assigns ``qrels`` and ``run`` literals) followed by a table ``| ranklens | options | used by
| value |``. A row's first cell is a ranklens measure string in backticks, or ``sklearn
`ndcg_score(...)```, computed by scikit-learn on the section's (dense, one-query) data; its
options cell holds keyword arguments of :func:`ranklens.evaluate`; its value is printed to
6 decimals at most (exact, or rounded to 4).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import ranklens

PAGE = Path(__file__).resolve().parents[1] / "docs" / "conventions.md"
HEADER = "| ranklens | options | used by | value |"


@dataclass
class Section:
    name: str
    qrels: dict[str, dict[str, int]]
    run: dict[str, dict[str, float]]
    rows: list[tuple[str, str, str, str]] = field(default_factory=list)


def literal_assignments(source: str) -> dict[str, Any]:
    """``name = literal`` statements of ``source`` as a dict (nothing is executed)."""
    out = {}
    for node in ast.parse(source).body:
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1):
            raise AssertionError(f"not a plain assignment: {ast.unparse(node)}")
        target = node.targets[0]
        assert isinstance(target, ast.Name)
        out[target.id] = ast.literal_eval(node.value)
    return out


def parse_page(text: str) -> list[Section]:
    sections: list[Section] = []
    matches = list(re.finditer(r"```python\n# data: (\S+)\n(.*?)```", text, flags=re.S))
    for i, match in enumerate(matches):
        data = literal_assignments(match.group(2))
        section = Section(match.group(1), data["qrels"], data["run"])
        end = matches[i + 1].start() if i + 1 < len(matches) else len(text)
        lines = text[match.end() : end].splitlines()
        in_table = False
        for line in lines:
            if line.strip() == HEADER:
                in_table = True
                continue
            if in_table and line.startswith("|---"):
                continue
            if in_table and line.startswith("|"):
                cells = [c.strip() for c in line.strip().strip("|").split("|")]
                assert len(cells) == 4, line
                section.rows.append((cells[0], cells[1], cells[2], cells[3]))
            elif in_table:
                in_table = False
        sections.append(section)
    return sections


SECTIONS = parse_page(PAGE.read_text())
ROWS = [(s, row) for s in SECTIONS for row in s.rows]


def options_of(cell: str) -> dict[str, Any]:
    if not cell:
        return {}
    call = ast.parse(f"f({cell.strip('`')})", mode="eval").body
    assert isinstance(call, ast.Call) and not call.args
    return {k.arg: ast.literal_eval(k.value) for k in call.keywords if k.arg is not None}


def sklearn_value(section: Section, call_text: str) -> float:
    metrics = pytest.importorskip("sklearn.metrics")
    call = ast.parse(call_text, mode="eval").body
    assert isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
    assert call.func.id == "ndcg_score", "only ndcg_score is supported here"
    kwargs = {k.arg: ast.literal_eval(k.value) for k in call.keywords if k.arg is not None}
    ((qid, scores),) = section.run.items()
    grades = section.qrels[qid]
    assert set(grades) == set(scores), "a scikit-learn row needs dense data"
    docs = list(scores)  # the run's order: scikit-learn's order among ties depends on it
    y_true = np.asarray([[grades[d] for d in docs]], dtype=float)
    y_score = np.asarray([[scores[d] for d in docs]], dtype=float)
    return float(metrics.ndcg_score(y_true, y_score, **kwargs))


def test_the_page_has_every_convention() -> None:
    names = [s.name for s in SECTIONS]
    assert names == [
        "ndcg-gains",
        "ndcg-ties",
        "ap-cutoff",
        "recall-cutoff",
        "precision-short",
        "judged-only",
        "err-max-rel",
        "rr-cutoff",
        "queries",
        "ties",
    ]
    assert all(s.rows for s in SECTIONS)
    assert len(ROWS) >= 40
    text = PAGE.read_text()
    assert text.count(HEADER) == len(SECTIONS)


@pytest.mark.parametrize(("section", "row"), ROWS, ids=[f"{s.name}:{r[0]}:{r[1]}" for s, r in ROWS])
def test_row_value(section: Section, row: tuple[str, str, str, str]) -> None:
    spelling, options, _, value = row
    printed = float(value)
    if spelling.startswith("sklearn"):
        got = sklearn_value(section, spelling.removeprefix("sklearn").strip().strip("`"))
    else:
        match = re.fullmatch(r"`([^`]+)`", spelling)
        assert match, f"the ranklens cell must be one measure in backticks: {spelling!r}"
        measure = match.group(1)
        got = ranklens.evaluate(section.qrels, section.run, measure, **options_of(options))[measure]
    decimals = len(value.partition(".")[2])
    assert decimals <= 6
    assert round(got, decimals) == pytest.approx(printed, abs=1e-12), (
        f"{section.name}: {spelling} {options} is {got!r}, the page says {value}"
    )


def test_ties_rows_differ_where_the_page_says_they_do() -> None:
    """The tie conventions give different numbers on the ties sections (else the example
    would show nothing)."""
    for name in ("ndcg-ties", "ties"):
        (section,) = [s for s in SECTIONS if s.name == name]
        assert len({value for *_, value in section.rows}) >= 2
