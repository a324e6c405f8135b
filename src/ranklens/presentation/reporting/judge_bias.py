"""The report's section on the second judge's bias (:mod:`ranklens.analysis.judge_bias`):
per measure, each run's shift under the second judgments, its shift beyond the other runs'
and the runs the judge favours; and the prevalence of relevant pairs corrected for the
judge's error rates. Escaped markup only (ids are untrusted text)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from html import escape
from typing import TYPE_CHECKING

from ranklens.presentation.reporting._page import table

if TYPE_CHECKING:
    from ranklens.analysis.judge_bias import JudgeBias, Prevalence

NOTE = (
    "shift: mean over the queries of the run's value under B minus under A; delta: the "
    "shift beyond the other runs' mean shift on the same queries; p: one-sample t-test of "
    "that per-query difference, corrected over the runs. A run with delta &gt; 0 and a "
    "corrected p below alpha is favoured by B (docs/judges.md)."
)


def _cell(value: float) -> str:
    return "nan" if math.isnan(value) else f"{value:.4f}"


def judge_bias_html(biases: Sequence[JudgeBias], prevalence: Prevalence | None) -> str:
    """The tables of the section (escaped markup)."""
    parts = [f'<p class="note">{NOTE}</p>']
    for b in biases:
        rows = [
            [
                escape(r.run),
                _cell(r.score_human),
                _cell(r.score_llm),
                str(r.rank_human),
                str(r.rank_llm),
                _cell(r.shift),
                _cell(r.delta),
                _cell(r.p_value),
                _cell(r.p_value_corrected),
                "favoured" if r.favoured else ("disfavoured" if r.disfavoured else "-"),
            ]
            for r in b.runs.values()
        ]
        parts.append(
            f"<h3>{escape(b.measure)}</h3>"
            f'<p class="note">{len(b.queries)} queries judged by both · correction '
            f"{escape(b.correction)} · alpha {b.alpha:g}</p>"
        )
        parts.append(
            table(
                [
                    "run",
                    "A",
                    "B",
                    "position A",
                    "position B",
                    "shift",
                    "delta",
                    "p",
                    "p corrected",
                    "bias",
                ],
                rows,
            )
        )
    if prevalence is not None:
        p = prevalence
        parts.append(f"<h3>Relevant pairs (grade &ge; {p.threshold}), corrected</h3>")
        parts.append(
            table(
                ["observed (B)", "sensitivity", "specificity", "corrected", "low", "high"],
                [
                    [
                        _cell(p.observed),
                        _cell(p.sensitivity),
                        _cell(p.specificity),
                        _cell(p.corrected),
                        _cell(p.low),
                        _cell(p.high),
                    ]
                ],
                first_is_id=False,
            )
        )
    return "".join(parts)
