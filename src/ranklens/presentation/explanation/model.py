"""The data model of a worked computation: :class:`Explanation`, its :class:`Row` and
:class:`Gap` entries, and how a number is printed.

An explanation is plain data (strings, ints, floats, ``None``); the renderers at the end
of this module turn it into text, Markdown or a rich renderable.

>>> from ranklens.presentation.explanation.model import format_number
>>> format_number(3.0), format_number(1.2618595071429148), format_number(None)
('3', '1.2619', '')
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Group

Cell = float | int | str | bool | None
"""One table cell: a number, a short text, a yes/no, or ``None`` (left blank)."""
Text = tuple[Cell, ...]
"""A line made of words and numbers, joined with spaces; numbers are formatted when the
line is printed (see :func:`format_number`)."""

FIXED_COLUMNS = ("k", "doc", "rel")
"""The columns every table starts with: the rank, the document id and its judgment."""


def format_number(value: Cell, digits: int = 4) -> str:
    """Print a cell: whole numbers plainly (``3``, ``0``), a float that ``digits`` decimals
    hold exactly with no trailing zeros (``0.5``, ``1.25``), any other float rounded to
    ``digits`` decimals, zeros kept (``0.8710``: the trailing zero says it was rounded),
    one too small for them in scientific notation; ``None`` as an empty string, booleans
    as ``yes``/``no``.

    >>> format_number(0.8710023), format_number(0.8710523, 2), format_number(1.5)
    ('0.8710', '0.87', '1.5')
    >>> format_number(True), format_number(None), format_number(-0.0), format_number(2e-13)
    ('yes', '', '0', '2.000e-13')
    """
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            return str(value)
        if value == math.trunc(value) and abs(value) < 1e15:
            return str(int(value))
        text = f"{value:.{digits}f}"
        if float(text) == 0.0:  # too small for the decimals: say how small
            return f"{value:.{max(digits - 1, 0)}e}"
        if float(text) == value:  # nothing was rounded away: no trailing zeros
            text = text.rstrip("0")
        return text
    return str(value)


def format_text(text: Text, digits: int = 4) -> str:
    """Join a :data:`Text` line, formatting its numbers.

    >>> format_text(("AP =", 2.2666666666666666, "/", 3, "=", 0.7555555555555555))
    'AP = 2.2667 / 3 = 0.7556'
    >>> format_text(("RBP lies in [", 0.25, ",", 0.5180799999999999, "]"))
    'RBP lies in [0.25, 0.5181]'
    """
    out = ""
    for part in text:
        piece = format_number(part, digits)
        if out and not (out.endswith(("(", "[")) or piece.startswith((",", ":", ";", ")", "]"))):
            out += " "
        out += piece
    return out


@dataclass(frozen=True)
class Row:
    """One rank of the table.

    Attributes
    ----------
    rank : the 1-based rank (after the tie policy, the depth limit and, for
        ``judged_only`` measures, the removal of unjudged documents).
    docid : the document at that rank; ``None`` where the ranking is shorter than the
        rows the measure needs (a ranking padded to its cut-off, or the ideal ranking
        going on past the retrieved documents).
    judgment : the document's label in the qrels, ``None`` if the qrels do not judge it
        (a negative label, "pooled, not judged", is kept as it is and counts as unjudged).
    score : the run's score for the document (``None`` where ``docid`` is).
    cells : the family's columns (:attr:`Explanation.columns`), in order.
    """

    rank: int
    docid: str | None
    judgment: int | None
    score: float | None
    cells: tuple[Cell, ...]


@dataclass(frozen=True)
class Gap:
    """Ranks ``first`` to ``last`` (inclusive) that are not shown: none of them adds to the
    measure (see ``max_rows`` in :func:`~ranklens.presentation.explanation.explain`)."""

    first: int
    last: int

    @property
    def count(self) -> int:
        """How many ranks the gap stands for."""
        return self.last - self.first + 1

    def describe(self) -> str:
        """``"ranks 21-57 not shown (37)"``."""
        if self.first == self.last:
            return f"rank {self.first} not shown"
        return f"ranks {self.first}-{self.last} not shown ({self.count})"


@dataclass(frozen=True)
class Explanation:
    """The worked computation of one measure on one query.

    Attributes
    ----------
    measure : the measure's canonical name (``"nDCG@5"``, ``"AP(norm='ret')@5"``).
    family : the explainer that built it (``"dcg"``, ``"average_precision"``, ...).
    query : the query id.
    run : the run's name.
    formula : the measure's formula, in general terms.
    columns : the titles of the family's columns; every table starts with
        :data:`FIXED_COLUMNS` (rank, document, judgment) before them.
    rows : one :class:`Row` per rank shown, with :class:`Gap` entries for ranks left out.
    result : the last step, with the numbers: ``("AP@5 = 2.2667 / 3 =", 0.7556)``.
    summary : notes on the query and the conventions in effect (R, the ideal ordering,
        relevant documents not retrieved, ties, parameters), one line each.
    quantities : the named numbers of the last step (``("sum", 2.27), ("N", 3.0)``).
    value : the measure's value for the query; it equals ``ranklens.evaluate``'s.

    Examples
    --------
    >>> from ranklens.presentation.explanation import explain
    >>> ex = explain({"q": {"a": 1}}, {"q": {"a": 0.2, "b": 0.9}}, "q", "RR")
    >>> ex.value, ex.header, ex.rows[1].cells
    (0.5, ('k', 'doc', 'rel', 'relevant', '1/k', 'ideal rel'), (True, 0.5, None))
    """

    measure: str
    family: str
    query: str
    run: str
    formula: str
    columns: tuple[str, ...]
    rows: tuple[Row | Gap, ...]
    result: Text
    summary: tuple[Text, ...]
    quantities: tuple[tuple[str, float], ...]
    value: float

    @property
    def header(self) -> tuple[str, ...]:
        """Every column title: :data:`FIXED_COLUMNS`, then :attr:`columns`."""
        return FIXED_COLUMNS + self.columns

    @property
    def ranks(self) -> tuple[Row, ...]:
        """The rows shown, without the gaps."""
        return tuple(r for r in self.rows if isinstance(r, Row))

    def column(self, title: str) -> list[Cell]:
        """The cells of column ``title`` over the rows shown (raises ``KeyError``)."""
        if title not in self.columns:
            raise KeyError(f"{title!r} is not a column of {self.measure}: {list(self.columns)}")
        index = self.columns.index(title)
        return [row.cells[index] for row in self.ranks]

    def quantity(self, name: str) -> float:
        """The number called ``name`` in :attr:`quantities` (raises ``KeyError``)."""
        for key, number in self.quantities:
            if key == name:
                return number
        raise KeyError(name)

    def to_text(self, digits: int = 4) -> str:
        """Plain text: a table with aligned columns, the result and the notes."""
        return to_text(self, digits)

    def to_markdown(self, digits: int = 4) -> str:
        """GitHub-flavoured Markdown: a heading, the formula, the table, the result, notes."""
        return to_markdown(self, digits)

    def to_rich(self, digits: int = 4) -> Group:
        """A rich renderable: the table, then a panel with the formula and the result."""
        return to_rich(self, digits)

    def to_dict(self, digits: int = 4) -> dict[str, Any]:
        """A JSON-able dict: raw numbers in the rows (non-finite ones as ``None``), the
        result and notes as text with ``digits`` decimals."""
        rows: list[dict[str, Any]] = []
        for row in self.rows:
            if isinstance(row, Gap):
                rows.append({"gap": [row.first, row.last]})
            else:
                rows.append(
                    {
                        "rank": row.rank,
                        "docid": row.docid,
                        "judgment": row.judgment,
                        "score": _json_number(row.score),
                        "cells": [_json_number(c) for c in row.cells],
                    }
                )
        return {
            "measure": self.measure,
            "family": self.family,
            "query": self.query,
            "run": self.run,
            "formula": self.formula,
            "columns": list(self.header),
            "rows": rows,
            "result": format_text(self.result, digits),
            "summary": [format_text(line, digits) for line in self.summary],
            "quantities": {k: _json_number(v) for k, v in self.quantities},
            "value": _json_number(self.value),
        }

    def __str__(self) -> str:
        return self.to_text()


def _json_number(value: Cell) -> Cell:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


# -- rendering ---------------------------------------------------------------------------------

ELLIPSIS = "…"
NOT_RETRIEVED = "—"
LEFT = frozenset({"doc"})
"""Columns aligned left (the others hold numbers and are aligned right)."""


def title(ex: Explanation) -> str:
    """``"nDCG@5, query `q1`, run `bm25`"`` (without the backquotes outside Markdown)."""
    return f"{ex.measure}, query `{ex.query}`, run `{ex.run}`"


def table_rows(ex: Explanation, digits: int) -> list[list[str]]:
    """Every row as strings, one per column of :attr:`Explanation.header`."""
    width = len(ex.header)
    out: list[list[str]] = []
    for row in ex.rows:
        if isinstance(row, Gap):
            out.append([ELLIPSIS, row.describe(), *[""] * (width - 2)])
        else:
            out.append(_row_strings(row, digits))
    return out


def _row_strings(row: Row, digits: int) -> list[str]:
    if row.docid is None:
        doc, judgment = NOT_RETRIEVED, ""
    else:
        doc = row.docid
        judgment = "unjudged" if row.judgment is None else str(row.judgment)
    return [str(row.rank), doc, judgment, *(format_number(c, digits) for c in row.cells)]


def to_text(ex: Explanation, digits: int = 4) -> str:
    """Plain text: aligned columns, no colour, no width limit (for pipes and files)."""
    header = list(ex.header)
    body = table_rows(ex, digits)
    ranks = [r for r, row in zip(body, ex.rows, strict=True) if not isinstance(row, Gap)]
    widths = [max(len(r[i]) for r in [header, *ranks]) for i in range(len(header))]

    def line(cells: list[str]) -> str:
        parts = [
            c.ljust(w) if h in LEFT else c.rjust(w)
            for c, w, h in zip(cells, widths, header, strict=True)
        ]
        return "  ".join(parts).rstrip()

    lines = [title(ex).replace("`", ""), f"formula: {ex.formula}", ""]
    lines += [line(header), line(["-" * w for w in widths])]
    for strings, row in zip(body, ex.rows, strict=True):
        if isinstance(row, Gap):  # one line across the table, not a column's width
            lines.append(f"{strings[0].rjust(widths[0])}  {strings[1]}")
        else:
            lines.append(line(strings))
    lines += ["", format_text(ex.result, digits), ""]
    lines += [f"- {format_text(note, digits)}" for note in ex.summary]
    return "\n".join(lines) + "\n"


def _md_cell(text: str) -> str:
    return text.replace("\\", "\\\\").replace("|", "\\|")


def to_markdown(ex: Explanation, digits: int = 4) -> str:
    """GitHub-flavoured Markdown: heading, formula, table, result in bold, notes."""
    header = list(ex.header)
    align = ["--:" if h not in LEFT else ":--" for h in header]
    lines = [f"### {title(ex)}", "", f"Formula: `{ex.formula}`", ""]
    lines.append("| " + " | ".join(_md_cell(h) for h in header) + " |")
    lines.append("|" + "|".join(align) + "|")
    for row in table_rows(ex, digits):
        lines.append("| " + " | ".join(_md_cell(c) for c in row) + " |")
    lines += ["", f"**{_md_cell(format_text(ex.result, digits))}**", ""]
    lines += [f"- {format_text(note, digits)}" for note in ex.summary]
    return "\n".join(lines) + "\n"


def to_rich(ex: Explanation, digits: int = 4) -> Group:
    """A rich ``Group``: the table (gaps dimmed), a panel with the formula and the result,
    and the notes."""
    from rich.console import Group
    from rich.panel import Panel
    from rich.table import Table
    from rich.text import Text

    # Text objects throughout: a document id like "d[1]" is not rich markup.
    table = Table(title=Text(title(ex).replace("`", "")), title_justify="left")
    for h in ex.header:
        table.add_column(Text(h), justify="left" if h in LEFT else "right")
    for row, strings in zip(ex.rows, table_rows(ex, digits), strict=True):
        table.add_row(*(Text(c) for c in strings), style="dim" if isinstance(row, Gap) else None)
    formula = Text()
    formula.append(ex.formula + "\n")
    formula.append(format_text(ex.result, digits), style="bold")
    notes = Text("\n".join(f"- {format_text(n, digits)}" for n in ex.summary))
    return Group(table, Panel(formula, title="formula", title_align="left"), notes)
