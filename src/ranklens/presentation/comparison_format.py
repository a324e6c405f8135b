"""How a :class:`~ranklens.Comparison` is written: JSON shape, Markdown, LaTeX, CSV,
and the cells of the terminal table.

Significance is shown as in papers: runs get letters (a, b, c, ... in the order given) and
a value carries the letters of the runs it is *significantly better than* (after the
correction). Without all pairs only comparisons with the baseline exist, so a run
significantly better than the baseline carries the baseline's letter, and the baseline
carries the letters of the runs significantly worse than it; those runs also carry a
``▼`` (``$^{\\downarrow}$`` in LaTeX): "significantly worse than the baseline".

>>> letters(3)
['a', 'b', 'c']
>>> superscript("ab")
'ᵃᵇ'
>>> latex_escape("run_1 & 50%")
'run\\\\_1 \\\\& 50\\\\%'
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Callable, Sequence
from typing import IO, TYPE_CHECKING

from ranklens.analysis.comparison_data import beaten, better, tukey_pairs

if TYPE_CHECKING:
    from rich.table import Table

    from ranklens.analysis.comparison import Comparison, PairStats

WORSE = "▼"
LATEX_WORSE = r"\downarrow"

TEST_NAMES = {
    "t": "paired t-test",
    "wilcoxon": "Wilcoxon signed-rank test",
    "sign": "sign test",
    "randomization": "paired randomization test",
    "bootstrap": "paired bootstrap test",
}
CORRECTION_NAMES = {
    "holm": "Holm",
    "bonferroni": "Bonferroni",
    "bh": "Benjamini-Hochberg",
    "none": "no",
}
_SUPERSCRIPT = dict(
    zip(
        "abcdefghijklmnopqrstuvwxyz,",
        "ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖᑫʳˢᵗᵘᵛʷˣʸᶻ˒",
        strict=True,
    )
)
_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}


def letters(count: int) -> list[str]:
    """Labels of ``count`` runs: a..z, then aa, ab, ... (spreadsheet style)."""
    out = []
    for i in range(count):
        label = ""
        i += 1
        while i:
            i, r = divmod(i - 1, 26)
            label = chr(ord("a") + r) + label
        out.append(label)
    return out


def superscript(text: str) -> str:
    """``text`` in Unicode superscript letters (for the terminal)."""
    return "".join(_SUPERSCRIPT.get(ch, ch) for ch in text)


def latex_escape(text: str) -> str:
    """``text`` with LaTeX's special characters escaped."""
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in text)


def worse_than_baseline(cmp: Comparison, run: str, measure: str) -> bool:
    """Whether ``run`` is significantly worse than the baseline on ``measure``."""
    if run == cmp.baseline:
        return False
    st = cmp.vs_baseline[run][measure]
    return st.significant and not better(st, cmp.higher_is_better[measure]) and st.delta != 0


def marks(cmp: Comparison, run: str, measure: str) -> tuple[str, bool]:
    """The letters of the runs ``run`` significantly beats, and whether it is
    significantly worse than the baseline."""
    label = dict(zip(cmp.runs, letters(len(cmp.runs)), strict=True))
    beats = [label[o] for o in beaten(cmp, run, measure)]
    joined = ("," if any(len(x) > 1 for x in beats) else "").join(beats)
    return joined, worse_than_baseline(cmp, run, measure)


def best_runs(cmp: Comparison, measure: str) -> set[str]:
    """The runs with the best mean of ``measure`` (all of them on a tie)."""
    values = [cmp.means[r][measure] for r in cmp.runs]
    finite_values = [v for v in values if math.isfinite(v)]
    if not finite_values:
        return set()
    best = max(finite_values) if cmp.higher_is_better[measure] else min(finite_values)
    return {r for r, v in zip(cmp.runs, values, strict=True) if v == best}


def _is_count(cmp: Comparison, measure: str) -> bool:
    for m in cmp.results[0].measures:
        if m.name == measure:
            return m.spec.aggregate == "sum"
    return False


def mean_text(cmp: Comparison, run: str, measure: str) -> str:
    """The mean as the tables show it (4 decimals; counts as whole numbers)."""
    value = cmp.means[run][measure]
    if math.isnan(value):
        return "nan"
    return f"{value:.0f}" if _is_count(cmp, measure) else f"{value:.4f}"


def number(value: float, signed: bool = False) -> str:
    """4 decimals (``+`` in front when ``signed``), ``inf`` as such."""
    if math.isinf(value):
        return ("+" if signed and value > 0 else "") + ("inf" if value > 0 else "-inf")
    return f"{value:+.4f}" if signed else f"{value:.4f}"


def p_text(p: float) -> str:
    """A p-value: 4 decimals, or 2 significant digits below 0.0001 (0 as ``0``)."""
    if p == 0:
        return "0"
    return f"{p:.4f}" if p >= 1e-4 else f"{p:.1e}"


def description(cmp: Comparison) -> str:
    """One sentence on how the numbers were computed."""
    test = TEST_NAMES[cmp.test]
    if cmp.test == "randomization":
        test += f" ({cmp.permutations:,} permutations)"
    elif cmp.test == "bootstrap":
        test += f" ({cmp.permutations:,} resamples)"
    family = "pair of runs" if cmp.pairs else "run against the baseline"
    correction = CORRECTION_NAMES[cmp.correction]
    corrected = (
        "no correction for multiple comparisons"
        if cmp.correction == "none"
        else f"{correction} correction over the comparisons of each measure (one per {family})"
    )
    interval = (
        "t-intervals"
        if cmp.test == "t"
        else f"percentile bootstrap intervals ({cmp.permutations:,} resamples)"
    )
    seeded = "" if cmp.test == "t" else f"; seed {cmp.seed}"
    dropped = f" ({cmp.queries_dropped} not in every run left out)" if cmp.queries_dropped else ""
    return (
        f"{len(cmp.queries)} queries{dropped}; two-sided {test}, {corrected}, "
        f"alpha = {cmp.alpha:g}; {cmp.confidence:.0%} {interval}{seeded}."
    )


def legend(cmp: Comparison) -> str:
    """What the letters and marks mean."""
    names = ", ".join(
        f"{x} = {r}" + (" (baseline)" if r == cmp.baseline else "")
        for x, r in zip(letters(len(cmp.runs)), cmp.runs, strict=True)
    )
    return (
        f"{names}. Letters after a value: the runs it is significantly better than; "
        f"{WORSE}: significantly worse than the baseline."
    )


def detail_rows(cmp: Comparison) -> tuple[list[str], list[list[str]]]:
    """Header and rows of the statistics: one row per comparison and measure."""
    level = f"{cmp.confidence:.0%} CI"
    header = ["run", "vs", "measure", "delta", "p", "p corr.", level, "d", "W/T/L", "sig."]
    rows = []
    for (a, b), measure, st in comparisons(cmp):
        rows.append(
            [
                b,
                a,
                measure,
                number(st.delta, signed=True),
                p_text(st.p_value),
                p_text(st.p_value_corrected),
                f"[{number(st.ci_low, True)}, {number(st.ci_high, True)}]",
                number(st.effect_size, signed=True),
                f"{st.wins}/{st.ties}/{st.losses}",
                "*" if st.significant else "",
            ]
        )
    return header, rows


def power_title(cmp: Comparison) -> str:
    """The title of the power table."""
    return f"power (paired t-test, alpha = {cmp.alpha:g}, {cmp.power:.0%} power)"


def power_text(power: float) -> str:
    """A power as a percentage with one decimal (``>99.9%`` just below 1)."""
    if not math.isfinite(power):
        return "nan"
    return ">99.9%" if 0.9995 <= power < 1 else f"{power:.1%}"


def power_rows(cmp: Comparison) -> tuple[list[str], list[list[str]]]:
    """Header and rows of the power of each comparison: the minimum detectable difference
    (MDD), the power to detect the observed difference and the queries needed to detect
    it (see :class:`~ranklens.analysis.comparison.PairStats`)."""
    header = ["run", "vs", "measure", "abs(delta)", "MDD", "power", "queries needed"]
    rows = []
    for (a, b), measure, st in comparisons(cmp):
        needed = "-" if st.topics_needed is None else f"{st.topics_needed:,}"
        if st.topics_needed is None and st.delta != 0 and not math.isnan(st.mdd):
            needed = "> 10,000,000"  # (run-level measures have no MDD: "-")
        rows.append(
            [
                b,
                a,
                measure,
                number(abs(st.delta)),
                number(st.mdd),
                power_text(st.power),
                needed,
            ]
        )
    return header, rows


def comparisons(cmp: Comparison) -> list[tuple[tuple[str, str], str, PairStats]]:
    """Every comparison shown: ``((other, run), measure, stats of run - other)``: each run
    against the baseline, then (with all pairs) the pairs without the baseline."""
    out = []
    for run in cmp.runs:
        if run != cmp.baseline:
            for m in cmp.measures:
                out.append(((cmp.baseline, run), m, cmp.vs_baseline[run][m]))
    for (a, b), per in cmp.pairs.items():
        if cmp.baseline not in (a, b):
            for m in cmp.measures:
                out.append(((a, b), m, per[m]))
    return out


def bayes_risk_title(cmp: Comparison) -> str:
    """The sentence under the table of :func:`bayes_risk_rows`."""
    rope = (
        ""
        if cmp.rope is None
        else f"; P(equiv.): of a difference within [-{cmp.rope:g}, {cmp.rope:g}], verdict at "
        f"{cmp.confidence:.0%}"
    )
    alpha = 1.0 if cmp.risk_alpha is None else cmp.risk_alpha
    return (
        "P(better): posterior probability of being better (Student t posterior, Jeffreys "
        f"prior){rope}; URisk, TRisk: losses weigh 1 + {alpha:g} times gains."
    )


def bayes_risk_rows(cmp: Comparison) -> tuple[list[str], list[list[str]]]:
    """Header and rows of the posterior probability of being better, the ROPE verdict
    (with a ROPE) and URisk/TRisk of each comparison."""
    header = ["run", "vs", "measure", "P(better)"]
    if cmp.rope is not None:
        header += ["P(equiv.)", "verdict"]
    header += ["URisk", "TRisk"]
    rows = []
    for (a, b), measure, st in comparisons(cmp):
        row = [b, a, measure, number(st.prob_better)]
        if cmp.rope is not None:
            equivalent = math.nan if st.prob_equivalent is None else st.prob_equivalent
            row += [number(equivalent), st.verdict or "-"]
        row += [number(st.urisk, signed=True), number(st.trisk, signed=True)]
        rows.append(row)
    return header, rows


RISK_ACROSS_NOTE = (
    "ZRisk, GeoRisk: each run against all the runs at once (Dincer, Macdonald and Ounis "
    "2016); higher is better."
)


def risk_across_rows(cmp: Comparison) -> tuple[list[str], list[list[str]]]:
    """Header and rows of ZRisk and GeoRisk of each run (with a risk weight given), for
    the measures where they are defined."""
    from ranklens.analysis.comparison_data import risk_across_runs

    if cmp.risk_alpha is None:
        return [], []
    per = risk_across_runs(cmp)
    header = ["run"]
    for m in per:
        header += [f"{m} ZRisk", f"{m} GeoRisk"]
    rows = []
    if per:
        for run in cmp.runs:
            row = [run]
            for values in per.values():
                row += [number(values["zrisk"][run], signed=True), number(values["georisk"][run])]
            rows.append(row)
    return header, rows


RANKS_NOTE = (
    "Rank intervals: best = 1 + the runs significantly better, worst = k - the runs "
    "significantly worse (the corrected pairwise tests); =1: tied with the first."
)


def rank_rows(cmp: Comparison) -> tuple[list[str], list[list[str]]]:
    """Header and rows of the rank intervals: ``best-worst`` per run and measure, ``=1``
    when the run is tied with the first (no run significantly better)."""
    header = ["run", *cmp.measures]
    rows = []
    for run in cmp.runs:
        row = [run]
        for m in cmp.measures:
            best, worst = cmp.ranks[m][run]
            span = f"{best}" if best == worst else f"{best}-{worst}"
            row.append(span + (" =1" if best == 1 else ""))
        rows.append(row)
    return header, rows


def friedman_rows(cmp: Comparison) -> tuple[list[str], list[list[str]]]:
    """Header and rows of Friedman's test and Nemenyi's critical difference per measure
    (none with fewer than 2 queries)."""
    header = ["measure", "chi2", "p", f"Nemenyi CD ({cmp.alpha:g})", "mean ranks (1 = best)"]
    rows: list[list[str]] = []
    if len(cmp.queries) < 2:
        return header, rows
    for m in cmp.measures:
        f = cmp.friedman(m)
        ranks = ", ".join(
            f"{r} {v:.2f}" for r, v in sorted(f.mean_ranks.items(), key=lambda kv: kv[1])
        )
        statistic = "nan" if math.isnan(f.statistic) else f"{f.statistic:.4f}"
        p = "nan" if math.isnan(f.p_value) else p_text(f.p_value)
        rows.append([m, statistic, p, f"{f.critical_difference:.4f}", ranks])
    return header, rows


def group_rows(cmp: Comparison) -> tuple[list[str], list[list[str]]]:
    """Header and rows of the groups of queries compared alone: each run against the
    baseline per group and measure (``-`` where a group is too small for a test)."""
    header = ["group", "queries", "run", "measure", "delta", "p corr.", "sig."]
    rows = []
    for group, part in cmp.groups.items():
        for run, per in part.vs_baseline.items():
            for m, st in per.items():
                p = "-" if math.isnan(st.p_value_corrected) else p_text(st.p_value_corrected)
                delta = "-" if math.isnan(st.delta) else number(st.delta, signed=True)
                rows.append(
                    [group, str(len(part.queries)), run, m, delta, p, "*" if st.significant else ""]
                )
    return header, rows


def tukey_rows(cmp: Comparison) -> tuple[list[str], list[list[str]]]:
    """Header and rows of Tukey's HSD."""
    header = ["run", "vs", "measure", "delta", "p (HSD)", f"{cmp.confidence:.0%} CI", "sig."]
    rows = []
    per_measure = {m: tukey_pairs(cmp, m) for m in cmp.measures}
    pairs = list(per_measure[cmp.measures[0]]) if cmp.measures else []
    for a, b in pairs:
        for m in cmp.measures:
            v = per_measure[m][(a, b)]
            low = math.nan if v["ci_low"] is None else v["ci_low"]
            high = math.nan if v["ci_high"] is None else v["ci_high"]
            rows.append(
                [
                    b,
                    a,
                    m,
                    number(v["delta"] if v["delta"] is not None else math.nan, True),
                    p_text(v["p_value"] if v["p_value"] is not None else math.nan),
                    f"[{number(low, True)}, {number(high, True)}]",
                    "*" if v["significant"] else "",
                ]
            )
    return header, rows


def correlation_rows(cmp: Comparison) -> tuple[list[str], list[list[str]]]:
    """Header and rows of the rank correlations."""
    header = ["x", "y", "Kendall tau", "p", "Spearman rho", "p"]
    rows = []
    for c in cmp.correlation:
        same_qrels = c.qrels_x == c.qrels_y
        x = c.measure_x if same_qrels else f"{c.measure_x} [{c.qrels_x}]"
        y = c.measure_y if same_qrels else f"{c.measure_y} [{c.qrels_y}]"
        rows.append(
            [
                x,
                y,
                f"{c.kendall_tau:.4f}",
                p_text(c.kendall_p) if math.isfinite(c.kendall_p) else "nan",
                f"{c.spearman_rho:.4f}",
                p_text(c.spearman_p) if math.isfinite(c.spearman_p) else "nan",
            ]
        )
    return header, rows


def summary_cells(
    cmp: Comparison, cell: Callable[[str, str, bool], str]
) -> tuple[list[str], list[list[str]]]:
    """Header and rows of the table of means; ``cell(value, marks, best)`` formats a cell
    (``marks`` = letters, then ``WORSE`` when worse than the baseline)."""
    header = ["run", *cmp.measures]
    rows = []
    best = {m: best_runs(cmp, m) for m in cmp.measures}
    for x, run in zip(letters(len(cmp.runs)), cmp.runs, strict=True):
        row = [f"({x}) {run}"]
        for m in cmp.measures:
            beats, worse = marks(cmp, run, m)
            row.append(
                cell(mean_text(cmp, run, m), beats + (WORSE if worse else ""), run in best[m])
            )
        rows.append(row)
    return header, rows


# ------------------------------------------------------------------------- formats


def _markdown_table(header: list[str], rows: list[list[str]], right_from: int) -> list[str]:
    def esc(text: str) -> str:
        return text.replace("|", "\\|")

    lines = ["| " + " | ".join(esc(h) for h in header) + " |"]
    lines.append(
        "|" + "|".join("---:" if i >= right_from else "---" for i in range(len(header))) + "|"
    )
    lines += ["| " + " | ".join(esc(c) for c in row) + " |" for row in rows]
    return lines


def to_markdown(cmp: Comparison) -> str:
    """GitHub Markdown: the means (best in bold, letters as ``<sup>``), the legend, the
    statistics (and Tukey's HSD, correlations when present)."""

    def cell(value: str, mark: str, best: bool) -> str:
        text = f"**{value}**" if best else value
        return text + (f"<sup>{mark}</sup>" if mark else "")

    header, rows = summary_cells(cmp, cell)
    lines = _markdown_table(header, rows, 1)
    lines += ["", legend(cmp) + " Best value per measure in bold. " + description(cmp), ""]
    header, rows = detail_rows(cmp)
    lines += _markdown_table(header, rows, 3)
    lines += ["", power_title(cmp)[0].upper() + power_title(cmp)[1:] + ":", ""]
    header, rows = power_rows(cmp)
    lines += _markdown_table(header, rows, 3)
    notes = cmp.power_notes()
    if notes:
        lines += ["", *(f"- {note}" for note in notes)]
    if cmp.tukey is not None:
        kind = "queries as blocks" if cmp.tukey_kind == "blocked" else "one-way"
        lines += ["", f"Tukey's HSD ({kind}):", ""]
        header, rows = tukey_rows(cmp)
        lines += _markdown_table(header, rows, 3)
    if cmp.correlation:
        lines += ["", "Rank correlation of the orderings of the runs:", ""]
        header, rows = correlation_rows(cmp)
        lines += _markdown_table(header, rows, 2)
    for title, (header, rows), right_from, note in _many_runs_tables(cmp):
        lines += ["", f"{title[0].upper()}{title[1:]}:", ""]
        lines += _markdown_table(header, rows, right_from)
        if note:
            lines += ["", note]
    return "\n".join(lines) + "\n"


def _many_runs_tables(
    cmp: Comparison,
) -> list[tuple[str, tuple[list[str], list[list[str]]], int, str]]:
    """``(title, (header, rows), first right-aligned column, note)`` of the tables of a
    comparison of many runs that apply: the probability of being better and the risk
    (with a ROPE or a risk weight given), the rank intervals and Friedman's test (all
    pairs), the query groups."""
    out = []
    if cmp.rope is not None or cmp.risk_alpha is not None:
        out.append(
            ("probability of being better, risk", bayes_risk_rows(cmp), 3, bayes_risk_title(cmp))
        )
    across = risk_across_rows(cmp)
    if across[1]:
        out.append(("risk against all runs", across, 1, RISK_ACROSS_NOTE))
    if cmp.pairs:
        out.append(("rank intervals", rank_rows(cmp), 1, RANKS_NOTE))
        friedman = friedman_rows(cmp)
        if friedman[1]:
            out.append(("Friedman's test", friedman, 1, ""))
    if cmp.groups:
        notes = " ".join(note for part in cmp.groups.values() for note in part.notes)
        out.append((f"groups (run - {cmp.baseline})", group_rows(cmp), 1, notes))
    return out


def to_latex(cmp: Comparison) -> str:
    """A booktabs ``table`` (needs ``\\usepackage{booktabs}``)."""

    def cell(value: str, mark: str, best: bool) -> str:
        text = rf"\textbf{{{value}}}" if best else value
        if mark:
            mark = mark.replace(WORSE, LATEX_WORSE)
            text += f"$^{{{mark}}}$"
        return text

    _, rows = summary_cells(cmp, cell)
    baseline_letter = letters(len(cmp.runs))[cmp.runs.index(cmp.baseline)]
    caption = (
        f"Means over {len(cmp.queries)} queries; best per measure in bold. A superscript "
        "letter names a run the value is significantly better than, "
        rf"${LATEX_WORSE}$ marks a run significantly worse than the baseline "
        f"({baseline_letter}) ({latex_escape(TEST_NAMES[cmp.test])}, "
        + (
            "no correction"
            if cmp.correction == "none"
            else f"{latex_escape(CORRECTION_NAMES[cmp.correction])} correction"
        )
        + rf", $\alpha = {cmp.alpha:g}$)."
    )
    lines = [
        r"\begin{table}",
        r"  \centering",
        f"  \\caption{{{caption}}}",
        "  \\begin{tabular}{l" + "r" * len(cmp.measures) + "}",
        r"    \toprule",
        "    Run & " + " & ".join(latex_escape(m) for m in cmp.measures) + r" \\",
        r"    \midrule",
    ]
    for row in rows:
        label, *cells = row
        x, _, run = label.partition(" ")
        lines.append(f"    {x} {latex_escape(run)} & " + " & ".join(cells) + r" \\")
    lines += [r"    \bottomrule", r"  \end{tabular}", r"\end{table}"]
    return "\n".join(lines) + "\n"


def _csv_number(value: float) -> str:
    return repr(float(value))


def to_csv(cmp: Comparison) -> str:
    """One row per (run, measure) against the baseline (empty statistics for the
    baseline), then one per (pair, measure) for the other pairs with all pairs."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    stat_keys = ["delta", "p_value", "p_value_corrected", "ci_low", "ci_high", "effect_size"]
    writer.writerow(
        [
            "run",
            "measure",
            "mean",
            "against",
            *stat_keys,
            "wins",
            "ties",
            "losses",
            "significant",
            "mdd",
            "power",
            "topics_needed",
            "prob_better",
            "urisk",
            "trisk",
        ]
    )

    def row(run: str, m: str, against: str, st: PairStats | None) -> list[str]:
        head = [run, m, _csv_number(cmp.means[run][m]), against]
        if st is None:
            return head + [""] * (len(stat_keys) + 10)
        numbers = [
            st.delta,
            st.p_value,
            st.p_value_corrected,
            st.ci_low,
            st.ci_high,
            st.effect_size,
        ]
        return [
            *head,
            *(_csv_number(v) for v in numbers),
            str(st.wins),
            str(st.ties),
            str(st.losses),
            "true" if st.significant else "false",
            _csv_number(st.mdd),
            _csv_number(st.power),
            "" if st.topics_needed is None else str(st.topics_needed),
            _csv_number(st.prob_better),
            _csv_number(st.urisk),
            _csv_number(st.trisk),
        ]

    for run in cmp.runs:
        for m in cmp.measures:
            if run == cmp.baseline:
                writer.writerow(row(run, m, "", None))
            else:
                writer.writerow(row(run, m, cmp.baseline, cmp.vs_baseline[run][m]))
    for (a, b), per in cmp.pairs.items():
        if cmp.baseline not in (a, b):
            for m in cmp.measures:
                writer.writerow(row(b, m, a, per[m]))
    return out.getvalue()


_WIDE = 240
"""The width of the text table written to a file or a pipe (never cropped)."""

ExtraTable = tuple[list[str], list[list[str]], int, str]


def write_table(cmp: Comparison, out: IO[str], extra: Sequence[ExtraTable] = ()) -> None:
    """The comparison as the command line shows it: boxes and bold on a terminal, aligned
    plain text in a file or a pipe (and in ``str(comparison)``); ``extra`` tables
    (header, rows, first right-aligned column, title) come last."""
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    console = Console(file=out, highlight=False, soft_wrap=False)
    terminal = console.is_terminal
    if not terminal:  # a file or a pipe: never crop
        console = Console(file=out, highlight=False, soft_wrap=False, width=_WIDE)

    def cell(value: str, mark: str, best: bool) -> str:
        text = f"[bold]{value}[/bold]" if best and terminal else value
        letters_ = mark.replace(WORSE, "")
        text += superscript(letters_)
        return text + (f" [red]{WORSE}[/red]" if WORSE in mark else "")

    def table(
        header: list[str], rows: list[list[str]], right_from: int, title: str, plain: int = 99
    ) -> Table:
        """A rich table; cells from column ``plain`` on are markup, the others text."""
        t = Table(title=title, title_justify="left")
        if not terminal:  # plain text into a pipe or a file, as eval writes
            t.box = None
        for i, h in enumerate(header):
            t.add_column(escape(h), justify="right" if i >= right_from else "left", no_wrap=True)
        for row in rows:
            t.add_row(*(c if i >= plain else escape(c) for i, c in enumerate(row)))
        return t

    header, rows = summary_cells(cmp, cell)
    console.print(table(header, rows, 1, "means", plain=1))
    bold = " Best value per measure in bold." if terminal else ""
    console.print(legend(cmp) + bold, markup=False)
    console.print(description(cmp), markup=False)
    header, rows = detail_rows(cmp)
    console.print(table(header, rows, 3, "differences (run - vs)"))
    header, rows = power_rows(cmp)
    console.print(table(header, rows, 3, power_title(cmp)))
    for note in cmp.power_notes():
        console.print(note, markup=False, soft_wrap=True)
    if cmp.tukey is not None:
        kind = "queries as blocks" if cmp.tukey_kind == "blocked" else "one-way"
        header, rows = tukey_rows(cmp)
        console.print(table(header, rows, 3, f"Tukey's HSD ({kind})"))
    if cmp.correlation:
        header, rows = correlation_rows(cmp)
        console.print(table(header, rows, 2, "rank correlation of the orderings of the runs"))
    for title, (header, rows), right_from, note in _many_runs_tables(cmp):
        console.print(table(header, rows, right_from, title))
        if note:
            console.print(note, markup=False, soft_wrap=True)
    for header, rows, right_from, title in extra:
        console.print(table(header, rows, right_from, title))


def to_text(cmp: Comparison) -> str:
    """:func:`write_table` into a string: the plain-text tables of ``str(comparison)``."""
    out = io.StringIO()
    write_table(cmp, out)
    return "".join(line.rstrip() + "\n" for line in out.getvalue().splitlines())
