"""Assembling the report's HTML: every piece of text from the inputs goes through
:func:`html.escape` (in markup) or :func:`script_json` (in the data block), and a
Content-Security-Policy lets only the report's own script run and nothing load.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from html import escape
from typing import Any

from ranklens.presentation.reporting._assets import SCRIPT, STYLE
from ranklens.presentation.tables import json_ready


def script_json(payload: Any) -> str:
    """``payload`` as JSON that is inert inside a ``<script>`` element: non-finite floats
    become ``null`` and ``<``, ``>`` and ``&`` are written as ``\\u`` escapes, so no string
    can close the element or open a comment.

    >>> script_json({"q": "</script>", "v": float("nan")})
    '{"q": "\\\\u003c/script\\\\u003e", "v": null}'
    """
    text = json.dumps(json_ready(payload), allow_nan=False, ensure_ascii=False)
    return (
        text.replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("&", "\\u0026")
        .replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029")
    )


def content_security_policy(script: str) -> str:
    """Only the script whose text is ``script`` may run; styles inline, images from
    ``data:`` URIs, and nothing else (no network, no frames, no forms)."""
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    return (
        "default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
        f"script-src 'sha256-{digest}'; base-uri 'none'; form-action 'none'"
    )


@dataclass(frozen=True)
class Figure:
    """A plot of the report: inline SVG markup and its caption."""

    svg: str
    caption: str
    wide: bool = False
    """Span the whole width of the page (a figure of several panels)."""


@dataclass(frozen=True)
class Section:
    """A block of ready-made (already escaped) HTML under a heading."""

    title: str
    html: str
    anchor: str


def table(
    header: Sequence[str],
    rows: Iterable[Sequence[str]],
    *,
    first_is_id: bool = True,
    attrs: str = "",
) -> str:
    """An HTML table of already-escaped cell markup."""
    out = [f"<table{attrs}><thead><tr>"]
    out += [f'<th class="id">{header[0]}</th>' if first_is_id else f"<th>{header[0]}</th>"]
    out += [f"<th>{h}</th>" for h in header[1:]]
    out.append("</tr></thead><tbody>")
    for row in rows:
        cells = [f'<td class="id">{row[0]}</td>' if first_is_id else f"<td>{row[0]}</td>"]
        cells += [c if c.startswith("<td") else f"<td>{c}</td>" for c in row[1:]]
        out.append("<tr>" + "".join(cells) + "</tr>")
    out.append("</tbody></table>")
    return "".join(out)


STATIC_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'"
"""The Content-Security-Policy of a page without a script (inline styles, ``data:`` images)."""


def static_head(title: str) -> list[str]:
    """The opening lines of a page without a script, up to its ``<h1>`` title (escaped)."""
    return [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{STATIC_CSP}">',
        f"<title>{escape(title)}</title><style>{STYLE}</style></head><body>",
        f"<h1>{escape(title)}</h1>",
    ]


def page(
    title: str,
    meta: Sequence[str],
    sections: Sequence[Section],
    figures: Sequence[Figure],
    query_header: Sequence[str],
    payload: Mapping[str, Any],
) -> str:
    """The whole document."""
    nav = " · ".join(
        f'<a href="#{s.anchor}">{escape(s.title)}</a>'
        for s in [*sections, Section("Plots", "", "plots"), Section("Per query", "", "queries")]
    )
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{content_security_policy(SCRIPT)}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{escape(title)}</title>",
        f"<style>{STYLE}</style>",
        "</head><body>",
        f"<h1>{escape(title)}</h1>",
        *(f'<p class="meta">{escape(line)}</p>' for line in meta),
        f"<nav>{nav}</nav>",
    ]
    for s in sections:
        parts.append(f'<h2 id="{s.anchor}">{escape(s.title)}</h2>{s.html}')
    parts.append('<h2 id="plots">Plots</h2><div class="plots">')
    for f in figures:
        cls = ' class="wide"' if f.wide else ""
        parts.append(f"<figure{cls}>{f.svg}<figcaption>{escape(f.caption)}</figcaption></figure>")
    parts.append("</div>")
    head = "".join(f"<th>{escape(h)}</th>" for h in query_header)
    parts += [
        '<h2 id="queries">Per query</h2>',
        '<p class="note">Click a column to sort; click a query for the worked computation of '
        "its measures.</p>",
        '<div class="controls"><input type="search" id="rl-filter" '
        'placeholder="filter query ids" aria-label="filter query ids">'
        '<span id="rl-count"></span></div>',
        '<noscript><p class="note">The per-query table needs JavaScript.</p></noscript>',
        f'<div class="scroll"><table id="rl-queries"><thead><tr>{head}</tr></thead>'
        "<tbody></tbody></table></div>",
        '<div id="rl-explain"></div>',
        f'<script type="application/json" id="rl-data">{script_json(payload)}</script>',
        f"<script>{SCRIPT}</script>",
        "</body></html>",
    ]
    return "\n".join(parts) + "\n"
