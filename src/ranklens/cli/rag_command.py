"""``ranklens rag QRELS RUN [RUN ...]``: score generated answers (RAG runs) with the
measures of answers, compare the runs with a baseline with paired tests, and write the
report (a table, Markdown, LaTeX, CSV, JSON, or one HTML page); see docs/rag.md."""

from __future__ import annotations

import argparse
import sys
from typing import IO, Any

from ranklens.cli import _options

FORMATS = (*_options.TABLE_FORMATS, "markdown", "latex", "html")
KIND_DEFAULTS = {
    "assignments": (
        "NuggetVitalStrict",
        "NuggetVital",
        "NuggetWeightedStrict",
        "NuggetWeighted",
        "NuggetAllStrict",
        "NuggetAll",
    ),
    "support": ("SupportPrecision", "SupportRecall"),
    "gold": ("EM", "F1", "ROUGE-L"),
    "segments": ("NuggetCoverage@20",),
}
ALWAYS = ("CitedSentences", "AnswerWords")
"""Measured by default whatever the judgments: they need none."""


def register(commands: Any) -> None:
    """Add the ``rag`` subcommand."""
    p = commands.add_parser(
        "rag",
        help="score generated answers (nuggets, citations, gold answers), compare runs, report",
        description=(
            "Score RAG runs (TREC RAG 2024/2025 answers, or nuggetizer's assignment files and "
            "the track's support files, which carry their answers) with the measures of "
            "answers: nugget scores, support precision and recall, citation counts, exact "
            "match, F1 and ROUGE against gold answers. With two runs or more, compare them "
            "with the baseline (the first run unless --baseline names another): paired tests, "
            "corrections, intervals. QRELS is a judgments file of any kind (gold answers, "
            "nuggets, nugget assignments, support judgments), told by its first line; more "
            "kinds with --gold, --nuggets, --assignments, --support, --segments. When QRELS "
            "and every RUN are nugget assignment (or support) files, each is a run judged in "
            "its own file."
        ),
    )
    _options.add_files(
        p,
        "RAG run files (JSON lines; a file may hold several runs), or assignment/support "
        "files (then QRELS alone may hold every run)",
    )
    p.add_argument(
        "-m",
        "--measure",
        action="append",
        dest="measures",
        metavar="MEASURE",
        help="measures: repeat -m, or give several separated by commas or spaces; default: "
        "those the judgments allow (the six nugget scores, SupportPrecision,SupportRecall, "
        "EM,F1,ROUGE-L, NuggetCoverage@20) and CitedSentences (for answers with citations),"
        "AnswerWords (the measures of "
        f"rankings' default, {','.join(_options.DEFAULT_MEASURES)}, does not apply to answers)",
    )
    for kind, what in (
        ("gold", "gold answers ({qid, answers} lines)"),
        ("nuggets", "nuggets (nuggetizer's nuggets file): the topics judged"),
        ("assignments", "nugget assignments (nuggetizer's format; several runs by run_id)"),
        ("support", "support judgments (the track's support_eval output, or one per line)"),
        ("segments", "nugget assignments to segments (nuggetizer's retrieval mode)"),
    ):
        p.add_argument(
            f"--{kind}",
            action="append",
            default=[],
            metavar="FILE",
            help=f"{what}; repeatable",
        )
    p.add_argument(
        "--unknown",
        choices=("default", "ignore", "error"),
        default="default",
        help="labels outside the defined sets: scored as the reference scorers do (default: "
        "nuggetizer's rules, a support label weighs 0), left out (ignore), or refused (error)",
    )
    _options.add_names(p)
    _options.add_statistics(p)
    p.add_argument(
        "--queries",
        choices=_options.QUERY_POLICIES,
        default="qrels",
        help="which topics count: those judged (default; unanswered = an empty answer), "
        "those in both, or the run's",
    )
    p.add_argument(
        "-q",
        "--per-query",
        dest="per_query",
        action="store_true",
        help="with one run: the value of each topic too (json, csv)",
    )
    _options.add_format(p, FORMATS)
    p.add_argument("--title", default="ranklens RAG report", help="the HTML report's title")
    p.add_argument("--no-plots", action="store_true", help="the HTML report without plots")
    p.add_argument(
        "--explain-limit",
        type=int,
        default=100,
        metavar="N",
        help="the HTML report stores worked computations for at most N topics (those where "
        "the runs differ most on the first measure; default 100)",
    )
    _options.add_output(p, "the scores, the comparison or the report")
    p.add_argument(
        "--example",
        action="store_true",
        help="score the bundled example: three made-up runs of 12 topics and judgments of "
        "every kind",
    )
    _options.add_quiet(p, "the counts of topics left out")
    p.set_defaults(handler=run_rag)


def _inputs(args: argparse.Namespace) -> tuple[Any, list[Any], list[str | None]]:
    """The judgments, the runs and their given names (``--example``: the bundled ones)."""
    from ranklens.base.errors import OptionError
    from ranklens.data.rag._records import read_records
    from ranklens.data.rag.judgments import rag_judgments, read_rag_judgments, sniff

    extra: dict[str, Any] = {}
    for kind in ("gold", "nuggets", "assignments", "support", "segments"):
        files: list[str] = getattr(args, kind)
        if len(files) > 1 and kind in ("gold", "nuggets", "segments"):
            raise OptionError(f"--{kind} takes one file")
        if files:
            extra[kind] = files if kind in ("assignments", "support") else files[0]
    if args.example:
        from ranklens.data.rag.example import example_records

        if args.qrels is not None:
            raise OptionError("--example takes no files: it uses the bundled example data")
        records = example_records()
        bundled = rag_judgments(
            gold=records["gold"],
            nuggets=records["nuggets"],
            assignments=records["assignments"],
            support=records["support"],
        )
        example_runs: list[Any] = list(records["runs"].values())
        return bundled, example_runs, _options.given_names(args, len(example_runs))
    if args.qrels is None:
        raise OptionError("give a judgments file and at least one run (or --example)")
    if sum(1 for p in [args.qrels, *args.runs] if p == "-") > 1:
        raise OptionError("only one of the files can be '-' (stdin)")
    first = read_records(args.qrels, "judgments")
    kind = sniff(first)
    runs: list[Any] = list(args.runs)
    given = rag_judgments(**extra)
    if kind in ("assignments", "support") and all(_kind_of(r) == kind for r in runs):
        # every file is a run (or several, by run id) judged in its own file
        runs = _expanded([first, *runs])
        return given, runs, _options.given_names(args, len(runs))
    if not runs:
        raise OptionError("give a judgments file and at least one run (or --example)")
    judged = read_rag_judgments(first).merged(given)
    runs = _expanded(runs)
    return judged, runs, _options.given_names(args, len(runs))


def _expanded(sources: list[Any]) -> list[Any]:
    """Each file's runs (a file of answers, assignments or support judgments may hold
    several, by run id), in order."""
    from ranklens.evaluation.answers import read_answer_runs

    return [run for source in sources for run in read_answer_runs(source)]


def _kind_of(path: Any) -> str:
    from ranklens.data.rag._records import read_records
    from ranklens.data.rag.judgments import sniff

    if path == "-":
        return "run"
    return sniff(read_records(path, "RAG run"))


def _defaults(judged: Any, runs: list[Any]) -> list[str]:
    from ranklens.evaluation.answers import read_answer_runs

    kinds = set(judged.kinds())
    cites = True
    for run in runs:
        for read in read_answer_runs(run):
            if read.embedded is not None:
                kinds.update(read.embedded.kinds())
            cites = cites and read.cites
    if not cites:  # answers without citations (assignment files): no citation measure
        kinds.discard("support")
    names = [m for kind in KIND_DEFAULTS if kind in kinds for m in KIND_DEFAULTS[kind]]
    return [*names, *(m for m in ALWAYS if cites or m != "CitedSentences")]


def _with_policy(measures: list[str], unknown: str) -> list[str]:
    """``measures`` with ``unknown=`` set where a measure takes it (``--unknown``)."""
    if unknown == "default":
        return measures
    from ranklens.measures.language import parse_measure

    out = []
    for name in measures:
        m = parse_measure(name)
        if m.spec.param("unknown") is not None and "unknown" not in name:
            out.append(m.spec.make(**{**m.params, "unknown": unknown}).name)
        else:
            out.append(name)
    return out


def run_rag(args: argparse.Namespace) -> int:
    """Handle ``ranklens rag``."""
    from ranklens.base.errors import OptionError
    from ranklens.evaluation.answers import named_runs
    from ranklens.evaluation.evaluator import Evaluator

    files = [args.qrels, *args.runs]
    _options.check_output(args, files)
    if args.format == "html" and args.output in (None, "-"):
        raise OptionError("-f html writes one HTML file: give -o FILE")
    judged, runs, names = _inputs(args)
    measures = _options.measure_names(args.measures, ())
    if not measures:
        measures = _defaults(judged, runs)
    measures = _with_policy(measures, args.unknown)
    from ranklens.measures.catalog_rag import is_answer_measure
    from ranklens.measures.language import parse_measures

    others = [m.name for m in parse_measures(measures) if not is_answer_measure(m)]
    if [n for n in others if n != "F1"]:
        raise OptionError(
            f"{', '.join(others)}: not measures of generated answers; evaluate the answers' "
            "references with ranklens eval for the measures of rankings "
            "(ranklens.rag.references)"
        )
    evaluator = Evaluator(judged, measures, queries=args.queries)
    read = named_runs(runs, names)
    results = [evaluator.evaluate(r) for r in read]
    if not args.quiet:
        answer_notices(results)
    with _options.output_stream(args, files) as out:
        if len(results) == 1:
            _write_one(results[0], args, out)
            return 0
        from ranklens.analysis.comparison import compare_results

        cmp = compare_results(results, **_options.chosen(args, _options.STATISTICS))
        if args.format == "html":
            out.write(_report(cmp, results, args, judged, read))
        else:
            from ranklens.cli.compare_command import write

            write(cmp, args.format, out)
    return 0


def answer_notices(results: list[Any]) -> None:
    """One line on stderr for each run of answers whose topics and the judgments' differ
    (``rag``, and ``eval`` on answers)."""
    for r in results:
        counts = r.query_counts
        if counts.get("missing"):
            sys.stderr.write(
                f"ranklens: run '{r.run}' answers {counts['shared']} of the "
                f"{counts['qrels']} judged topics; the other {counts['missing']} score as "
                "empty answers\n"
            )
        if counts.get("unjudged"):
            sys.stderr.write(
                f"ranklens: {counts['unjudged']} topics of run '{r.run}' have no judgments "
                "and are left out\n"
            )


def _write_one(result: Any, args: argparse.Namespace, out: IO[str]) -> None:
    from ranklens.cli.output import write_results

    fmt = {"table": "table", "json": "json", "csv": "csv", "tsv": "tsv"}.get(args.format)
    if args.format == "html":
        from ranklens.base.errors import OptionError

        raise OptionError("the HTML report compares runs: give two runs or more")
    if fmt is None:
        fmt = "table"
    write_results([result], fmt, args.per_query, out)


def _explanations(
    cmp: Any, results: list[Any], judged: Any, runs: list[Any], args: argparse.Namespace
) -> dict[str, list[dict[str, Any]]]:
    """The worked computations of the measures, for the topics where the runs differ most
    on the first measure (at most ``--explain-limit``), in the report's shape."""
    from ranklens.presentation.explanation.answers import explain_topics
    from ranklens.presentation.reporting._explained import _as_payload, chosen_queries

    if args.explain_limit <= 0:
        return {}
    topics = chosen_queries(results, args.explain_limit)
    out: dict[str, list[dict[str, Any]]] = {t: [] for t in topics}
    for run in runs:
        worked = explain_topics(judged, run, topics, cmp.measures, queries=args.queries)
        for topic, explanations in worked.items():
            out[topic] += [_as_payload(ex.to_dict(4)) for ex in explanations]
    return out


def _report(
    cmp: Any, results: list[Any], args: argparse.Namespace, judged: Any, runs: list[Any]
) -> str:
    """One self-contained HTML page: means with significance, the statistics against the
    baseline, per-topic distributions and differences, and the per-topic table."""
    import datetime as dt
    from html import escape

    from ranklens.base.version import __version__
    from ranklens.presentation.reporting._build import significance_html
    from ranklens.presentation.reporting._page import Section, page

    sections = [Section("Summary and significance", significance_html(cmp), "summary")]
    counts = results[0].query_counts
    sections.append(
        Section(
            "Inputs",
            '<p class="note">'
            + escape(
                f"judgments: {', '.join(judged.kinds()) or 'those the runs carry'}; "
                f"{counts.get('evaluated', 0)} topics per run; unknown labels: "
                + ", ".join(f"{r.run} {r.query_counts.get('unknown_labels', 0)}" for r in results)
            )
            + "</p>",
            "inputs",
        )
    )
    figures = [] if args.no_plots else _figures(cmp, results)
    columns = [
        {"label": f"{r.run} · {name}", "values": r.values[:, j].tolist()}
        for j, name in enumerate(results[0].names)
        for r in results
    ]
    payload = {
        "digits": 4,
        "queries": list(results[0].queries),
        "columns": columns,
        "explanations": _explanations(cmp, results, judged, runs, args),
        "no_explanation": f"No worked computation stored for this topic: the report keeps "
        f"them for at most {args.explain_limit} topics (--explain-limit).",
    }
    meta = [
        f"ranklens {__version__} · {dt.datetime.now().astimezone():%Y-%m-%d %H:%M %Z}",
        f"runs: {', '.join(cmp.runs)} · baseline: {cmp.baseline}",
    ]
    header = ["query"] + [str(c["label"]) for c in columns]
    return page(args.title, meta, sections, figures, header, payload)


def _figures(cmp: Any, results: list[Any]) -> list[Any]:
    from ranklens.presentation.plots import plot_delta, plot_dist
    from ranklens.presentation.reporting._page import Figure
    from ranklens.presentation.reporting._svg import figure_svg

    out: list[Any] = []
    names = results[0].names
    for name in names[:4]:
        out.append(
            Figure(
                figure_svg(plot_dist(results, name, figsize=(6.4, 4.0)), f"f{len(out) + 1}"),
                f"Per-topic distribution of {name}",
            )
        )
    base = results[cmp.runs.index(cmp.baseline)]
    for other in [r for r in results if r is not base][:4]:
        out.append(
            Figure(
                figure_svg(
                    plot_delta(base, other, names[0], figsize=(6.4, 4.0)), f"f{len(out) + 1}"
                ),
                f"{other.run} - {base.run}, {names[0]}, per topic",
            )
        )
    return out
