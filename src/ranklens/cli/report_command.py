"""``ranklens report QRELS RUN [RUN ...] -m ... -o report.html``: one self-contained HTML
page (see :func:`ranklens.presentation.reporting.build_report`)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ranklens.cli import _inputs, _options

DEFAULT_MEASURES = _options.DEFAULT_MEASURES


def register(commands: Any) -> None:
    """Add the ``report`` subcommand."""
    p = commands.add_parser(
        "report",
        help="write a self-contained HTML report (tables, significance, plots, explanations)",
        description=(
            "Write one HTML file that works offline: the means with significance against the "
            "baseline, plots (precision-recall, measures against the cut-off, per-query "
            "distributions and differences), a sortable and filterable per-query table, and "
            "the worked computation of each measure for the queries you click."
        ),
    )
    _options.add_files(p, "run file(s) (TREC format)")
    _options.add_measures(p, DEFAULT_MEASURES)
    _options.add_output(p, "the HTML report", required=True)
    _options.add_names(p)
    p.add_argument("--title", default="ranklens report", help="the page's title")
    p.add_argument(
        "--explain-limit",
        type=int,
        default=100,
        metavar="N",
        help="store worked computations for at most N queries (those where the runs differ "
        "most on the first measure; default 100)",
    )
    p.add_argument("--no-plots", action="store_true", help="leave the plots out (no matplotlib)")
    _options.add_second_qrels(
        p,
        "a second set of judgments (e.g. an LLM's): add the leaderboards under both, "
        "compared, with a slope chart per measure (three runs or more)",
    )
    _options.add_item_data(p)
    _options.add_statistics(p)
    _options.add_leaderboard_statistics(p)
    _options.add_conventions(p)
    _options.add_example(p, "report on", {"output": "example-report.html"})
    _options.add_quiet(p, "the progress bar and the name of the file written")
    # -q stays for scripts that used it; it is not shown, as -q means --per-query in eval
    p.add_argument("-q", dest="quiet", action="store_true", help=argparse.SUPPRESS)
    _inputs.add_scores(p)
    p.set_defaults(handler=run_report)


def run_report(args: argparse.Namespace) -> int:
    """Handle ``ranklens report``."""
    from ranklens.base.errors import OptionError
    from ranklens.presentation.reporting import write_report

    if args.output in ("-", None):
        raise OptionError(
            "give -o/--output FILE, a file name (the report is one HTML file; or --example)"
        )
    if args.scores:  # runs given as per-topic scores: docs/scores.md
        entries = _inputs.load_run_or_scores(args, 1)
        measures = _inputs.measures_for(args, entries, DEFAULT_MEASURES)
        _inputs.write_scores_report(args, entries, measures)
        if not args.quiet:
            sys.stderr.write(f"ranklens: wrote {args.output}\n")
        return 0
    _options.resolve_inputs(args, 1)
    runs: Any = args.runs
    if args.names:
        runs = dict(zip(_options.given_names(args, len(args.runs)), args.runs, strict=True))
    write_report(
        args.output,
        args.qrels,
        runs,
        _options.measure_names(args.measures, DEFAULT_MEASURES),
        title=args.title,
        explain_limit=args.explain_limit,
        plots=not args.no_plots,
        progress=not args.quiet,
        force=args.force,
        qrels_b=args.qrels_b,
        popularity=args.popularity,
        num_items=args.num_items,
        num_users=args.num_users,
        item_features=args.item_features,
        train=args.train,
        **_options.chosen(
            args,
            _options.STATISTICS + _options.CONVENTIONS + _options.LEADERBOARD_STATISTICS,
        ),
    )
    if not args.quiet:
        sys.stderr.write(f"ranklens: wrote {args.output}\n")
    return 0
