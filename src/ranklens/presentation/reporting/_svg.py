"""matplotlib figures as SVG markup that is safe to inline in the report.

Figures draw run names and query ids (untrusted text from the input files). matplotlib
draws text as glyph paths, but it also writes each string into an XML comment; the
comments are dropped here, the ids are made unique per figure (several figures share one
HTML document), and the markup is checked to hold nothing that could run or load.
"""

from __future__ import annotations

import io
import re
import xml.etree.ElementTree as ET
from typing import Any

from ranklens.base.errors import RanklensError

_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_ID = re.compile(r'\bid="([^"]+)"')
_REF = re.compile(r'(url\(#|href="#)([^)"]+)')
_FORBIDDEN = {"script", "foreignObject", "iframe", "object", "embed", "image", "a"}


def figure_svg(figure: Any, prefix: str) -> str:
    """The ``<svg>`` element of ``figure``, its ids prefixed with ``prefix``.

    Parameters
    ----------
    figure : a matplotlib Figure.
    prefix : a short identifier unique in the document (``"f3"``).

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> fig = Figure(figsize=(2, 1))
    >>> _ = fig.add_subplot().plot([0, 1], [1, 0], label="<b>run</b>")
    >>> svg = figure_svg(fig, "f1")
    >>> svg.startswith("<svg") and "<b>" not in svg
    True
    """
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg", metadata={"Date": None}, bbox_inches="tight")
    text = buffer.getvalue()
    text = _COMMENT.sub("", text[text.index("<svg") :])
    text = _ID.sub(lambda m: f'id="{prefix}-{m.group(1)}"', text)
    text = _REF.sub(lambda m: f"{m.group(1)}{prefix}-{m.group(2)}", text)
    _check(text)
    return text


def _check(svg: str) -> None:
    """Raise if the SVG holds an element or attribute that could run code or load a
    resource (matplotlib writes none; this guards the report against a change there)."""
    root = ET.fromstring(svg)
    for node in root.iter():
        tag = node.tag.rsplit("}", 1)[-1]
        if tag in _FORBIDDEN:
            raise RanklensError(f"refusing to inline an SVG with a <{tag}> element")
        for name, value in node.attrib.items():
            local = name.rsplit("}", 1)[-1].lower()
            if local.startswith("on") or (local == "href" and not value.startswith("#")):
                raise RanklensError(f"refusing to inline an SVG with attribute {local}")
