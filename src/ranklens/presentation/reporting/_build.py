"""Building the report: evaluate, compare, plot, explain, then assemble the page."""

from __future__ import annotations

import datetime as _dt
import math
import os
import sys
import warnings
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import replace
from html import escape
from typing import TYPE_CHECKING, Any

from ranklens.base.errors import InputWarning, MissingDependencyError, OptionError
from ranklens.data.coerce import QrelsLike, RunLike, as_run
from ranklens.data.output import check_destination, write_atomically
from ranklens.data.run import Run
from ranklens.evaluation.evaluator import Evaluator
from ranklens.evaluation.results import Results
from ranklens.presentation.comparison_format import power_text
from ranklens.presentation.reporting._page import Figure, Section, page, table

if TYPE_CHECKING:
    from ranklens.analysis.comparison import Comparison

DIGITS = 4


def build_report(
    qrels: QrelsLike,
    runs: Sequence[RunLike] | Mapping[str, RunLike],
    measures: Iterable[str] | str = ("nDCG@10", "AP", "P@10", "RR"),
    *,
    baseline: str | None = None,
    test: str = "t",
    correction: str = "holm",
    alpha: float = 0.05,
    permutations: int = 10000,
    seed: int = 42,
    confidence: float = 0.95,
    all_pairs: bool = False,
    title: str = "ranklens report",
    explain_limit: int = 100,
    plots: bool = True,
    progress: bool = False,
    ties: str = "trec_eval",
    queries: str = "qrels",
    depth: int | None = None,
    duplicates: str = "error",
    qrels_b: QrelsLike | None = None,
    popularity: Any = None,
    num_items: int | None = None,
    num_users: int | None = None,
    item_features: Any = None,
    train: Any = None,
    groups: Any = None,
    rope: float | None = None,
    risk_alpha: float | None = None,
) -> str:
    """One self-contained HTML page: the summary and significance tables, plots, a
    sortable and filterable per-query table, and the worked computation of each measure
    for the queries a reader clicks.

    The page needs no network: its style sheet, script and SVG plots are inline, and its
    Content-Security-Policy forbids loading anything and lets only its own script run.
    Ids from the input files are untrusted text: they are escaped in the markup and
    inserted by the script as text, never as HTML.

    Parameters
    ----------
    qrels, runs, measures
        As for :func:`ranklens.compare`; ``runs`` may be a mapping from name to run.
    baseline, test, correction, alpha, permutations, seed, confidence, all_pairs
        The significance comparison (see :func:`ranklens.compare`).
    title
        The page's title.
    explain_limit
        Worked computations are stored for at most this many queries (all of them when
        there are no more; otherwise those where the runs differ most on the first
        measure); other queries say so when clicked.
    plots
        Draw the plots (needs matplotlib, ``pip install 'ranklens[plot]'``).
    progress
        Show a progress bar on stderr (only when stderr is a terminal).
    ties, queries, depth, duplicates
        As for :func:`ranklens.evaluate`.
    qrels_b
        A second set of judgments (say, an LLM's): the report then adds the leaderboards
        under both, compared (:func:`ranklens.leaderboard_agreement`, three runs or more),
        with a slope chart of the two orderings per measure.
    groups, rope, risk_alpha
        Query groups compared alone, a region of practical equivalence and the risk weight
        (see :func:`ranklens.compare`): their tables, and a plot of the per-group
        differences. With ``all_pairs``, the page also shows the rank intervals, Friedman's
        test and the critical-difference diagram.

    Returns
    -------
    str
        The HTML document.
    """
    if explain_limit < 0:
        raise OptionError(f"explain_limit must be >= 0, not {explain_limit}")
    names = list(runs) if isinstance(runs, Mapping) else [None] * len(runs)
    sources = list(runs.values()) if isinstance(runs, Mapping) else list(runs)
    if not sources:
        raise OptionError("a report needs at least one run")
    measure_list = [measures] if isinstance(measures, str) else list(measures)
    options: dict[str, Any] = {"ties": ties, "queries": queries, "depth": depth}
    with _progress(progress, len(sources) * 2 + 4) as step:
        evaluator = Evaluator(
            qrels,
            measure_list,
            duplicates=duplicates,  # type: ignore[arg-type]
            popularity=popularity,
            num_items=num_items,
            num_users=num_users,
            item_features=item_features,
            train=train,
            **options,
        )
        step("qrels read")
        loaded: list[Run] = []
        results: list[Results] = []
        for name, source in zip(names, sources, strict=True):
            run = as_run(source, duplicates, name)  # type: ignore[arg-type]
            step(f"read {run.name}")
            loaded.append(run)
            results.append(evaluator.evaluate(run))
            step(f"evaluated {run.name}")
        names_seen = [r.name for r in loaded]
        if len(set(names_seen)) != len(names_seen):
            raise OptionError(
                f"runs need distinct names, got {names_seen}; pass a mapping of names to runs"
            )
        sections: list[Section] = [_summary_section(results)]
        comparison: Comparison | None = None
        if len(results) > 1:
            from ranklens.analysis.comparison import compare_results

            comparison = compare_results(
                results,
                baseline=baseline,
                test=test,
                correction=correction,
                alpha=alpha,
                permutations=permutations,
                seed=seed,
                confidence=confidence,
                all_pairs=all_pairs,
                groups=groups,
                rope=rope,
                risk_alpha=risk_alpha,
            )
            html = significance_html(comparison)
            sections = [Section("Summary and significance", html, "summary")]
        from ranklens.presentation.reporting._metadata import metadata_section

        shown_metadata = metadata_section(results)  # the runs' ir_metadata headers
        if shown_metadata is not None:
            sections.append(shown_metadata)
        step("compared")
        with warnings.catch_warnings():  # the runs are evaluated again: they warned above
            warnings.simplefilter("ignore", InputWarning)
            try:
                figures = _figures(evaluator.qrels, loaded, results, comparison) if plots else []
            except MissingDependencyError as exc:
                raise MissingDependencyError(
                    f"{exc}; or leave the plots out (plots=False, ranklens report --no-plots)"
                ) from exc
            if qrels_b is not None:
                boards_html, board_figures, bias_html = _leaderboards(
                    qrels_b,
                    measure_list,
                    loaded,
                    results,
                    duplicates,
                    options,
                    plots,
                    evaluator.qrels,
                )
                sections.append(
                    Section("Leaderboards under two sets of judgments", boards_html, "leaderboards")
                )
                sections.append(Section("Is judge B biased?", bias_html, "judge-bias"))
                figures = [*figures, *board_figures]
            step("plotted")
            from ranklens.presentation.reporting._explained import chosen_queries, explanations

            shown = chosen_queries(results, explain_limit) if explain_limit else []
            worked, skipped = explanations(
                evaluator.qrels,
                loaded,
                results[0].per_query_names,  # run-level measures have no per-query form
                shown,
                options,
                DIGITS,
            )
            step("explained")
    meta = [
        f"ranklens {_version()} · {_dt.datetime.now().astimezone():%Y-%m-%d %H:%M %Z}",
        f"qrels: {_source_name(qrels)} · runs: {', '.join(names_seen)}",
        f"{len(results[0].queries)} queries · ties={ties} · queries={queries}"
        + (f" · depth={depth}" if depth is not None else ""),
    ]
    if skipped:
        meta.append(f"no worked computation for: {', '.join(skipped)}")
    columns = [
        {"label": f"{r.run} · {name}", "values": r.values[:, j].tolist()}
        for j, name in enumerate(results[0].names)
        if name in results[0].per_query_names  # run-level measures: the summary only
        for r in results
    ]
    payload = {
        "digits": DIGITS,
        "queries": list(results[0].queries),
        "columns": columns,
        "explanations": worked,
        "no_explanation": (
            f"No worked computation stored for this query: the report keeps them for "
            f"{len(shown)} of {len(results[0].queries)} queries (explain_limit / "
            "--explain-limit), or its measures have no worked form."
        ),
    }
    header = ["query"] + [str(c["label"]) for c in columns]
    return page(title, meta, sections, figures, header, payload)


def write_report(
    path: str | os.PathLike[str], *args: Any, force: bool = False, **kwargs: Any
) -> None:
    """Write :func:`build_report`'s page to ``path`` (UTF-8), through a temporary file and
    a rename; an input file is never overwritten, another existing file only with
    ``force`` (see :func:`ranklens.data.output.write_atomically`)."""
    inputs = [a for a in args if isinstance(a, str | os.PathLike)]
    for a in args:
        if isinstance(a, list | tuple):
            inputs.extend(x for x in a if isinstance(x, str | os.PathLike))
    for key in ("qrels_b", "groups"):
        if isinstance(kwargs.get(key), str | os.PathLike):
            inputs.append(kwargs[key])
    check_destination(path, inputs, force)
    html = build_report(*args, **kwargs)
    write_atomically(path, html, inputs=inputs, force=force)


def _leaderboards(
    qrels_b: QrelsLike,
    measures: list[str],
    runs: list[Run],
    results: list[Results],
    duplicates: str,
    options: dict[str, Any],
    plots: bool,
    qrels_a: Any = None,
) -> tuple[str, list[Figure], str]:
    """The section comparing the leaderboards under the report's qrels (A) and ``qrels_b``
    (B), and a slope chart per measure; and the section on B's bias against A
    (:func:`_judge_bias_html`)."""
    from ranklens.analysis.leaderboard import leaderboard_agreement
    from ranklens.evaluation.result_set import ResultSet
    from ranklens.presentation.reporting.leaderboard import (
        SLOPE_CAPTION,
        agreement_table,
        measure_details,
        slope_svg,
    )

    second = Evaluator(qrels_b, measures, duplicates=duplicates, **options)  # type: ignore[arg-type]
    results_b = [second.evaluate(run) for run in runs]
    boards = leaderboard_agreement(ResultSet(tuple(results)), ResultSet(tuple(results_b)))
    other = os.path.basename(os.fspath(qrels_b)) if isinstance(qrels_b, str | os.PathLike) else "B"
    html = f'<p class="note">A: the report\'s qrels; B: {escape(other)}</p>'
    html += agreement_table(boards)
    html += "".join(f"<h3>{escape(m)}</h3>{measure_details(c)}" for m, c in boards.items())
    figures = (
        [
            Figure(slope_svg(c, ("A", "B"), f"lb{i}"), f"{m}: {SLOPE_CAPTION}")
            for i, (m, c) in enumerate(boards.items())
        ]
        if plots
        else []
    )
    return html, figures, _judge_bias_html(qrels_a, qrels_b, results, results_b)


def _judge_bias_html(
    qrels_a: Any, qrels_b: QrelsLike, results: list[Results], results_b: list[Results]
) -> str:
    """B's bias against A (:mod:`ranklens.analysis.judge_bias`): the runs it favours, per
    measure with per-query values, and the prevalence of relevant pairs corrected for its
    error rates (left out, saying why, where it cannot be corrected)."""
    from ranklens.analysis.judge_bias import judge_bias_from_results, judge_prevalence
    from ranklens.base.errors import InputError
    from ranklens.presentation.reporting.judge_bias import judge_bias_html

    notes: list[str] = []
    biases = []
    for m in results[0].per_query_names:
        try:
            biases.append(judge_bias_from_results(results, results_b, m))
        except InputError as exc:
            notes.append(f"{m}: {exc}")
    prevalence = None
    try:
        prevalence = judge_prevalence(qrels_a, qrels_b) if qrels_a is not None else None
    except InputError as exc:
        notes.append(f"prevalence: {exc}")
    shown = "".join(f'<p class="note">{escape(n)}</p>' for n in notes)
    return judge_bias_html(biases, prevalence) + shown


def _version() -> str:
    from ranklens.base.version import __version__

    return __version__


def _source_name(obj: object) -> str:
    if isinstance(obj, str | os.PathLike):
        return os.fspath(obj)
    return type(obj).__name__


def _fmt(value: float | None) -> str:
    if value is None or not math.isfinite(value):
        return "-" if value is None else str(value)
    return f"{value:.{DIGITS}f}"


def _summary_section(results: Sequence[Results]) -> Section:
    names = results[0].names
    best = {n: max(r.aggregate[n] for r in results) for n in names}
    rows = []
    for r in results:
        cells = [escape(r.run)]
        for n in names:
            v = r.aggregate[n]
            shown = f"<strong>{_fmt(v)}</strong>" if len(results) > 1 and v == best[n] else _fmt(v)
            cells.append(f"<td>{shown}</td>")
        rows.append(cells)
    return Section("Summary", table(["run", *map(escape, names)], rows), "summary")


def _letters(n: int) -> list[str]:
    return [chr(ord("a") + i) if i < 26 else f"r{i + 1}" for i in range(n)]


def significance_html(cmp: Comparison) -> str:
    """The means with significance letters, a legend, and the statistics against the
    baseline, as HTML tables (every name escaped)."""
    letters = dict(zip(cmp.runs, _letters(len(cmp.runs)), strict=True))
    best = {
        m: (max if cmp.higher_is_better[m] else min)(cmp.means[r][m] for r in cmp.runs)
        for m in cmp.measures
    }
    rows = []
    for run in cmp.runs:
        cells = [f"{escape(letters[run])}. {escape(run)}"]
        for m in cmp.measures:
            beaten = "".join(letters[b] for b in cmp.beats(run, m))
            mark = f"<sup>{escape(beaten)}</sup>" if beaten else ""
            if not cmp.all_pairs and run != cmp.baseline and run in cmp.beats(cmp.baseline, m):
                mark = "<sup>▼</sup>"
            value = cmp.means[run][m]
            shown = f"<strong>{_fmt(value)}</strong>" if value == best[m] else _fmt(value)
            cells.append(f"<td>{shown}{mark}</td>")
        rows.append(cells)
    summary = table(["run", *map(escape, cmp.measures)], rows)
    against = "every other run" if cmp.all_pairs else f"the baseline ({cmp.baseline})"
    legend = (
        f'<p class="note">Means over {len(cmp.queries)} queries; bold: the best per measure. '
        f"A superscript names the runs a value is significantly better than (compared with "
        f"{escape(against)}); ▼ marks a run significantly worse than the baseline. "
        f"{escape(cmp.test)} test, {escape(cmp.correction)} correction, alpha "
        f"{cmp.alpha:g}.</p>"
    )
    detail_rows = []
    for run in cmp.runs:
        if run == cmp.baseline:
            continue
        for m in cmp.measures:
            s = cmp.vs_baseline[run][m]
            detail_rows.append(
                [
                    escape(run),
                    escape(m),
                    _fmt(s.delta),
                    _p(s.p_value),
                    _p(s.p_value_corrected),
                    f"[{_fmt(s.ci_low)}, {_fmt(s.ci_high)}]",
                    _fmt(s.effect_size),
                    f"{s.wins} / {s.ties} / {s.losses}",
                    _fmt(s.mdd),
                    power_text(s.power),
                    "-" if s.topics_needed is None else f"{s.topics_needed:,}",
                ]
            )
    detail = table(
        [
            "run",
            "measure",
            "Δ mean",
            "p",
            "p corrected",
            f"{cmp.confidence:.0%} CI of Δ",
            "Cohen's d",
            "W / T / L",
            f"MDD ({cmp.power:.0%} power)",
            "power for Δ",
            "queries for Δ",
        ],
        detail_rows,
    )
    power_note = (
        f'<p class="note">MDD: the smallest difference a paired t-test at alpha '
        f"{cmp.alpha:g} over these {len(cmp.queries)} queries detects with "
        f"{cmp.power:.0%} power, given the spread of the per-query differences; power for "
        f"Δ: that test's power to detect the observed difference; queries for Δ: the queries "
        f"it would need to detect it with {cmp.power:.0%} power.</p>"
    )
    notes = "".join(f'<p class="note">{escape(note)}</p>' for note in cmp.power_notes())
    return (
        summary
        + legend
        + f"<h3>Against the baseline ({escape(cmp.baseline)})</h3>"
        + detail
        + power_note
        + notes
        + _many_runs_html(cmp)
    )


def _escaped_table(header: list[str], rows: list[list[str]]) -> str:
    return table([escape(h) for h in header], [[escape(c) for c in row] for row in rows])


def _many_runs_html(cmp: Comparison) -> str:
    """The probability of being better and the risk of each comparison; with all pairs,
    the rank intervals (tied with #1) and Friedman's test; with groups, the per-group
    differences (every name escaped)."""
    from ranklens.presentation import comparison_format as cf

    parts = ["<h3>Probability of being better, risk</h3>"]
    parts.append(_escaped_table(*cf.bayes_risk_rows(cmp)))
    parts.append(f'<p class="note">{escape(cf.bayes_risk_title(cmp))}</p>')
    header, rows = cf.risk_across_rows(cmp)
    if rows:
        parts.append("<h3>Risk against all runs</h3>")
        parts.append(_escaped_table(header, rows))
        parts.append(f'<p class="note">{escape(cf.RISK_ACROSS_NOTE)}</p>')
    if cmp.pairs:
        header, rows = cf.rank_rows(cmp)
        tied = {m: cmp.tied_with_first(m) for m in cmp.measures}
        parts.append("<h3>Rank intervals</h3>")
        parts.append(_escaped_table(header, rows))
        parts.append(f'<p class="note">{escape(cf.RANKS_NOTE)} Tied with #1: ')
        parts.append(
            escape("; ".join(f"{m}: {', '.join(runs)}" for m, runs in tied.items())) + "</p>"
        )
        header, rows = cf.friedman_rows(cmp)
        if rows:
            parts.append("<h3>Friedman's test and Nemenyi's critical difference</h3>")
            parts.append(_escaped_table(header, rows))
    if cmp.groups:
        parts.append(f"<h3>Query groups (run - {escape(cmp.baseline)})</h3>")
        parts.append(_escaped_table(*cf.group_rows(cmp)))
        for part in cmp.groups.values():
            parts.extend(f'<p class="note">{escape(note)}</p>' for note in part.notes)
    return "".join(parts)


def _p(value: float | None) -> str:
    if value is None:
        return "-"
    return "< 0.0001" if value < 1e-4 else f"{value:.4f}"


def _figures(
    qrels: Any,
    runs: Sequence[Run],
    results: Sequence[Results],
    cmp: Comparison | None,
) -> list[Figure]:
    from ranklens.presentation.plots import plot_cutoff, plot_delta, plot_dist, plot_pr
    from ranklens.presentation.reporting._svg import figure_svg

    size = (6.4, 4.0)
    named = {r.name: r for r in runs}
    out: list[Figure] = []

    def add(fig: Any, caption: str, wide: bool = False) -> None:
        out.append(Figure(figure_svg(fig, f"f{len(out) + 1}"), caption, wide))

    add(plot_pr(qrels, named, figsize=size), "Interpolated precision-recall, mean over queries")
    add(
        plot_cutoff(qrels, named, ("P", "R", "nDCG"), max_k=20, figsize=(12.8, 4.0)),
        "P@k, R@k and nDCG@k for k = 1..20",
        wide=True,
    )
    names = results[0].per_query_names  # run-level measures have no per-query values
    for name in names[:4]:
        add(plot_dist(results, name, figsize=size), f"Per-query distribution of {name}")
    if cmp is not None and names:
        _comparison_figures(cmp, names[0], add)
        base = results[cmp.runs.index(cmp.baseline)]
        for other in [r for r in results if r is not base][:4]:
            pair = _common(base, other)  # queries="both": each run has its own queries
            add(
                plot_delta(*pair, names[0], figsize=size),
                f"{other.run} - {base.run}, {names[0]}, per query",
            )
    return out


def _comparison_figures(cmp: Comparison, measure: str, add: Any) -> None:
    """The critical-difference diagram and the rank intervals (all pairs), the per-group
    differences (groups) of ``measure``."""
    from ranklens.presentation.plots import comparison_plots as cp

    if cmp.pairs and len(cmp.queries) >= 2:
        add(cp.plot_cd(cmp.friedman(measure), measure=measure), f"{measure}: critical difference")
        add(cp.plot_rank_intervals(cmp, measure), f"{measure}: rank intervals")
    if cmp.groups:
        add(cp.plot_group_deltas(cmp, measure), f"{measure}: differences per query group")


def _common(a: Results, b: Results) -> tuple[Results, Results]:
    """``a`` and ``b`` restricted to the queries both were evaluated on (as the comparison
    is), for the per-query difference plot."""
    if a.queries == b.queries:
        return a, b
    shared = set(a.queries).intersection(b.queries)

    def keep(r: Results) -> Results:
        rows = [i for i, q in enumerate(r.queries) if q in shared]
        return replace(r, queries=tuple(r.queries[i] for i in rows), values=r.values[rows])

    return keep(a), keep(b)


@contextmanager
def _progress(enabled: bool, total: int) -> Iterator[Any]:
    """A ``step(description)`` callable that advances a rich progress bar on stderr, or
    does nothing when disabled or stderr is not a terminal."""
    if not enabled or not sys.stderr.isatty():
        yield lambda _description: None
        return
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        transient=True,
    ) as bar:
        task = bar.add_task("report", total=total)

        def step(description: str) -> None:
            bar.update(task, advance=1, description=description)

        yield step
