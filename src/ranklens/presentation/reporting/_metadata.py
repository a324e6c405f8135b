"""The runs' ir_metadata in a report (every report shows it): escaped, as a table of its
entries, or as its text where it cannot be read as YAML."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from ranklens.base.errors import MissingDependencyError, ParseError
from ranklens.data.ir_metadata import IrMetadata
from ranklens.evaluation.results import Results
from ranklens.presentation.reporting._page import Section, table


def _metadata_html(meta: IrMetadata) -> str:
    """One document as a two-column table of its entries (``actor.team``: ``webis``), or
    as its text where it cannot be read as YAML (PyYAML missing, not YAML): escaped."""
    try:
        entries = meta.flat()
    except (MissingDependencyError, ParseError) as exc:
        note = escape(str(exc).split(": ", 1)[-1] if isinstance(exc, ParseError) else str(exc))
        return f'<p class="note">{note}</p><pre>{escape(meta.text)}</pre>'
    if not entries:
        return '<p class="note">(empty)</p>'
    rows = [[escape(k), escape(v)] for k, v in entries.items()]
    return table(["entry", "value"], rows)


def metadata_section(
    results: Sequence[Results], shared: IrMetadata | None = None
) -> Section | None:
    """The section showing the ir_metadata of the set (``shared``: a leaderboard's
    ``ir-metadata.yml``) and of each run that has its own; ``None`` when there is none."""
    parts: list[str] = []
    if shared is not None:
        parts.append("<h3>The scores</h3>" + _metadata_html(shared))
    for r in results:
        if r.metadata is not None and (shared is None or r.metadata != shared):
            parts.append(f"<h3>{escape(r.run)}</h3>" + _metadata_html(r.metadata))
    if not parts:
        return None
    return Section("Run metadata (ir_metadata)", "".join(parts), "metadata")
