"""The look of every ranklens plot: a fixed cycle that survives greyscale printing.

Run ``i`` gets the ``i``-th colour of the Okabe-Ito colour-blind-safe palette (yellow left
out, it is unreadable on white), **and** the ``i``-th line style, marker and hatch, so that
curves and bars stay apart when printed in grey or seen without colour. The seven colours
and markers and the four line styles make the (line style, marker) pair unique for the
first 28 runs, the whole (colour, line style, marker) triple for the first 7.
"""

from __future__ import annotations

from dataclasses import dataclass

PALETTE: tuple[str, ...] = (
    "#0072B2",  # blue
    "#D55E00",  # vermillion
    "#009E73",  # bluish green
    "#CC79A7",  # reddish purple
    "#E69F00",  # orange
    "#56B4E9",  # sky blue
    "#000000",  # black
)
"""The Okabe-Ito palette without its yellow."""
LINESTYLES: tuple[str, ...] = ("-", "--", "-.", ":")
MARKERS: tuple[str, ...] = ("o", "s", "^", "D", "v", "P", "X")
HATCHES: tuple[str, ...] = ("", "//", "\\\\", "xx", "..", "++", "oo")

DEFAULT_SIZE: tuple[float, float] = (8.0, 5.0)
"""Width and height of a new figure, in inches (800 x 500 pixels at the default dpi)."""
DEFAULT_DPI = 100.0
MARKER_SPACING = 0.1
"""The distance between the markers of a line, as a fraction of the axes' diagonal."""


@dataclass(frozen=True)
class Style:
    """How one run is drawn."""

    color: str
    linestyle: str
    marker: str
    hatch: str


def style(i: int) -> Style:
    """The style of the ``i``-th run (0-based)."""
    return Style(
        PALETTE[i % len(PALETTE)],
        LINESTYLES[i % len(LINESTYLES)],
        MARKERS[i % len(MARKERS)],
        HATCHES[i % len(HATCHES)],
    )


def markevery(i: int, n_runs: int) -> tuple[float, float]:
    """``(start, step)`` for ``markevery``: markers evenly spaced along the drawn line
    (:data:`MARKER_SPACING` apart, however dense its points), staggered between the
    ``n_runs`` runs so that their markers do not sit on top of one another."""
    return MARKER_SPACING * i / max(1, n_runs), MARKER_SPACING
