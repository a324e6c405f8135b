"""Meta-analyses across collections (:func:`ranklens.meta_analysis`) as the command line
and the report show them: the pooled effects of the runs, then every collection's row.

>>> from ranklens.presentation.meta_analysis_format import summary_rows
>>> summary_rows([])[0][:4]
['measure', 'run', 'k', 'effect']
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ranklens.presentation.comparison_format import CORRECTION_NAMES, number, p_text
from ranklens.presentation.tables import render_plain

if TYPE_CHECKING:
    from ranklens.analysis.meta_analysis import MetaAnalysis

__all__ = ["collection_rows", "description", "summary_rows", "to_csv", "to_text"]

_WIDE = 240


def _interval(low: float, high: float) -> str:
    return f"[{number(low, True)}, {number(high, True)}]"


def summary_rows(metas: Sequence[MetaAnalysis]) -> tuple[list[str], list[list[str]]]:
    """One row per measure and pooled run: the random-effects summary, its heterogeneity
    and the fixed-effect summary."""
    level = f"{metas[0].confidence:.0%} CI" if metas else "CI"
    header = [
        "measure",
        "run",
        "k",
        "effect",
        level,
        "p",
        "p corr.",
        "sig.",
        "tau²",
        "Q (df)",
        "p(Q)",
        "I²",
        "fixed effect",
    ]
    rows = [
        [
            m.measure,
            s.run,
            str(len(s.collections)),
            number(s.effect, True),
            _interval(s.ci_low, s.ci_high),
            p_text(s.p_value),
            p_text(s.p_value_corrected),
            "*" if s.significant else "",
            f"{s.tau2:.2e}" if s.tau2 else "0",
            f"{s.q:.2f} ({s.df})",
            p_text(s.q_p_value),
            f"{s.i2:.0%}",
            number(s.fixed.effect, True),
        ]
        for m in metas
        for s in m.summary.values()
    ]
    return header, rows


def collection_rows(metas: Sequence[MetaAnalysis]) -> tuple[list[str], list[list[str]]]:
    """One row per measure, run and collection (by run, then collection): the effect, its
    interval, the queries and the collection's weights in the run's two summaries."""
    level = f"{metas[0].confidence:.0%} CI" if metas else "CI"
    header = ["measure", "run", "collection", "n", "effect", level, "weight RE", "weight FE"]
    rows = [
        [
            m.measure,
            r.run,
            r.collection,
            str(r.n),
            number(r.effect, True),
            _interval(r.ci_low, r.ci_high),
            f"{r.weight_random:.1%}" if r.weight_random == r.weight_random else "-",
            f"{r.weight_fixed:.1%}" if r.weight_fixed == r.weight_fixed else "-",
        ]
        for m in metas
        for r in sorted(
            m.rows, key=lambda r: (m.runs.index(r.run), m.collections.index(r.collection))
        )
    ]
    return header, rows


def description(meta: MetaAnalysis) -> str:
    """What the numbers are, in one paragraph."""
    from ranklens.analysis.meta_analysis import EFFECT_LABELS

    corrected = (
        "no correction for multiple comparisons"
        if meta.correction == "none"
        else f"{CORRECTION_NAMES[meta.correction]} correction over the runs"
    )
    return (
        f"{len(meta.collections)} collections ({', '.join(meta.collections)}); effect: "
        f"{EFFECT_LABELS[meta.effect]} run - {meta.baseline} (baseline) over the queries "
        f"compare pairs in each; DerSimonian-Laird random effects, normal "
        f"{meta.confidence:.0%} intervals, two-sided z-test ({corrected}, alpha = "
        f"{meta.alpha:g}); Q and I² measure the heterogeneity across collections."
    )


def to_text(metas: Sequence[MetaAnalysis]) -> str:
    """The summaries, the description, the notes and the collections' rows as aligned
    plain text."""
    if not metas:
        return ""
    parts = ["random-effects summaries (run - baseline)"]
    header, rows = summary_rows(metas)
    parts.append(render_plain(header, rows, _WIDE))
    parts.append(description(metas[0]))
    parts += [f"note: {m.measure}: {note}" for m in metas for note in m.notes]
    parts.append("per collection")
    header, rows = collection_rows(metas)
    parts.append(render_plain(header, rows, _WIDE))
    return "\n".join(parts) + "\n"


def to_csv(metas: Sequence[MetaAnalysis], delimiter: str = ",") -> str:
    """Every analysis' :meth:`~ranklens.analysis.meta_analysis.MetaAnalysis.to_records`, one
    CSV (full precision; empty cells where a number does not apply; ``delimiter="\\t"``
    for TSV)."""
    out = io.StringIO()
    writer = csv.writer(out, delimiter=delimiter, lineterminator="\n")
    records = [row for m in metas for row in m.to_records()]
    if records:
        writer.writerow(list(records[0]))
    for row in records:
        writer.writerow(
            ["" if v is None else repr(v) if isinstance(v, float) else v for v in row.values()]
        )
    return out.getvalue()
