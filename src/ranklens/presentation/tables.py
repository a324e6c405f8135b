"""Tables that never hide a number, at any width.

A table (a header and rows of text cells, the first column naming the row) is laid out for
a given width: as it is when it fits; transposed (its columns become rows) when that fits
and the original does not; otherwise split into several tables of consecutive columns, each
repeating the first column. A cell is never cut: a column wider than the width alone still
prints whole. :func:`render_plain` writes aligned text (for pipes, files and CI logs);
:func:`render_rich` draws the same blocks with rich, for a terminal.

>>> header = ["run", "nDCG@10", "AP", "P@10", "RR"]
>>> rows = [["bm25", "0.4193", "0.1446", "0.5023", "0.8241"],
...         ["rerank", "0.6771", "0.2161", "0.7442", "0.9474"]]
>>> print(render_plain(header, rows, width=80))
run     nDCG@10      AP    P@10      RR
bm25     0.4193  0.1446  0.5023  0.8241
rerank   0.6771  0.2161  0.7442  0.9474
>>> print(render_plain(header, rows, width=30))
measure    bm25  rerank
nDCG@10  0.4193  0.6771
AP       0.1446  0.2161
P@10     0.5023  0.7442
RR       0.8241  0.9474
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import IO, Any

GAP = 2
"""Spaces between the columns of a plain table."""

RICH_OVERHEAD = 3
"""What a rich box adds per column (two padding spaces and a rule), besides one rule."""


@dataclass(frozen=True)
class Block:
    """One table to print: a header and rows of cells; column 0 is left-aligned."""

    header: list[str]
    rows: list[list[str]]

    def widths(self) -> list[int]:
        """The width of each column: its longest cell."""
        return [max(len(r[j]) for r in (self.header, *self.rows)) for j in range(len(self.header))]


def _plain_width(widths: Sequence[int]) -> int:
    return sum(widths) + GAP * max(len(widths) - 1, 0)


def _rich_width(widths: Sequence[int]) -> int:
    return sum(widths) + RICH_OVERHEAD * len(widths) + 1


def _transposed(header: list[str], rows: list[list[str]], corner: str) -> Block:
    columns = [[corner] + [r[0] for r in rows]]
    body = [[header[j]] + [r[j] for r in rows] for j in range(1, len(header))]
    return Block(columns[0], body)


def layout(
    header: list[str],
    rows: list[list[str]],
    width: int,
    *,
    corner: str = "measure",
    rich: bool = False,
) -> list[Block]:
    """The blocks that show ``rows`` within ``width`` columns (see the module).

    ``corner`` heads the first column of the transposed table (what the old header names).
    """
    measure = _rich_width if rich else _plain_width
    whole = Block(header, rows)
    if measure(whole.widths()) <= width or len(header) <= 2:
        return [whole]
    flipped = _transposed(header, rows, corner)
    if measure(flipped.widths()) <= width:
        return [flipped]

    # split the columns into groups that fit, in whichever shape fits (fewer blocks first)
    def split(base: Block) -> list[Block]:
        widths = base.widths()
        blocks: list[Block] = []
        start = 1
        while start < len(base.header):
            stop = start + 1
            while stop < len(base.header):
                if measure([widths[0], *widths[start : stop + 1]]) > width:
                    break
                stop += 1
            keep = [0, *range(start, stop)]
            blocks.append(
                Block([base.header[j] for j in keep], [[r[j] for j in keep] for r in base.rows])
            )
            start = stop
        return blocks

    options = [split(whole), split(flipped)]
    fitting = [b for b in options if all(measure(x.widths()) <= width for x in b)]
    return min(fitting or options[:1], key=len)


def _plain_block(block: Block) -> str:
    widths = block.widths()
    lines = []
    for row in (block.header, *block.rows):
        cells = [
            row[j].ljust(widths[j]) if j == 0 else row[j].rjust(widths[j]) for j in range(len(row))
        ]
        lines.append((" " * GAP).join(cells).rstrip())
    return "\n".join(lines)


def render_plain(
    header: list[str], rows: list[list[str]], width: int, *, corner: str = "measure"
) -> str:
    """Aligned plain text within ``width`` columns (blocks separated by a blank line)."""
    return "\n\n".join(_plain_block(b) for b in layout(header, rows, width, corner=corner))


def render_rich(
    header: list[str],
    rows: list[list[str]],
    out: IO[str],
    *,
    title: str | None = None,
    corner: str = "measure",
    bold_last: bool = False,
) -> None:
    """Draw the table with rich on ``out`` (a terminal), within the console's width, each
    block a box; no cell is ever cut."""
    from rich.console import Console
    from rich.table import Table

    console = Console(file=out, highlight=False, soft_wrap=False)
    for i, block in enumerate(layout(header, rows, console.width, corner=corner, rich=True)):
        if _rich_width(block.widths()) > console.width:  # a box would have to cut a cell
            out.write(_plain_block(block) + "\n")
            continue
        table = Table(title=title if i == 0 else None)
        for j, name in enumerate(block.header):
            table.add_column(name, justify="left" if j == 0 else "right", no_wrap=True)
        same_shape = block.header[0] == header[0]
        for k, row in enumerate(block.rows):
            last = bold_last and same_shape and k == len(block.rows) - 1
            table.add_row(*row, style="bold" if last else None)
        console.print(table)


def json_ready(value: Any) -> Any:
    """``value`` with every non-finite float as ``None`` (JSON's null), mapping keys as
    strings and tuples as lists, for ``json.dumps(..., allow_nan=False)``.

    >>> json_ready({"a": float("nan"), 1: (0.5, float("inf"))})
    {'a': None, '1': [0.5, None]}
    """
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, Mapping):
        return {str(k): json_ready(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_ready(v) for v in value]
    return value
