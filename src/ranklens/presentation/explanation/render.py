"""Printing an :class:`~ranklens.presentation.explanation.model.Explanation`: plain text, Markdown, and
a rich renderable for terminals.

>>> from ranklens.presentation.explanation import explain
>>> ex = explain({"q": {"a": 1}}, {"q": {"a": 0.2, "b": 0.9}}, "q", "RR")
>>> print(to_markdown(ex).split("\\n\\n")[2])
| k | doc | rel | relevant | 1/k | ideal rel |
|--:|:--|--:|--:|--:|--:|
| 1 | b | unjudged | no |  | 1 |
| 2 | a | 1 | yes | 0.5 |  |
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ranklens.presentation.explanation.model import (
    Explanation,
    Gap,
    Row,
    format_number,
    format_text,
)

if TYPE_CHECKING:
    from rich.console import Group

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
