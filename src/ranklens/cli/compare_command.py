"""``ranklens compare QRELS RUN_A RUN_B [RUN ...] -m MEASURE ...``: runs against a baseline,
with paired significance tests (see :func:`ranklens.compare`)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import IO, Any

from ranklens.cli import _inputs, _options

DEFAULT_MEASURES = _options.DEFAULT_MEASURES
FORMATS = (*_options.TABLE_FORMATS, "markdown", "latex")


def register(commands: Any) -> None:
    """Add the ``compare`` subcommand."""
    p = commands.add_parser(
        "compare",
        help="compare runs with a baseline: paired tests, corrections, intervals",
        description=(
            "Compare runs with a baseline (the first run unless --baseline names another) on "
            "each measure: means, the mean difference, a paired two-sided test, its p-value "
            "corrected over the comparisons of the measure, a confidence interval of the "
            "difference, paired Cohen's d and the queries won/tied/lost. In the table a "
            "value carries the letters of the runs it is significantly better than."
        ),
    )
    _options.add_files(p, "two or more run files (TREC format)")
    _options.add_measures(p, DEFAULT_MEASURES)
    _options.add_names(p)
    _options.add_statistics(p)
    _options.add_leaderboard_statistics(p)
    p.add_argument(
        "--tukey",
        choices=("oneway", "blocked"),
        default="oneway",
        help="Tukey's HSD one-way, as scipy.stats.tukey_hsd (default), or with queries as "
        "blocks (two-way ANOVA, Carterette 2012; more powerful on shared queries)",
    )
    p.add_argument(
        "--correlate",
        action="store_true",
        help="Kendall's tau and Spearman's rho between the orderings of the runs under each "
        "pair of measures (at least 3 runs)",
    )
    _options.add_second_qrels(
        p,
        "other qrels: tau and rho between the orderings of the runs under both, per measure",
        "--correlate-qrels",
    )
    p.add_argument(
        "--power",
        type=float,
        default=0.8,
        metavar="P",
        help="the power of the minimum detectable difference and of the queries needed to "
        "detect the observed difference (paired t-test at --alpha; default 0.8)",
    )
    _options.add_format(p, FORMATS)
    _options.add_output(p, "the comparison")
    p.add_argument(
        "--bounds",
        action="store_true",
        help="mark the comparisons that could flip, or lose significance, over every grading "
        "of the runs' unjudged documents (table and json; see docs/incomplete.md)",
    )
    _options.add_max_grade(p)
    _options.add_item_data(p)
    _options.add_conventions(p)
    _options.add_example(p, "compare the runs of")
    _options.add_quiet(p, "the count of queries left out")
    _inputs.add_scores(p)
    _options.add_mlflow(p)
    p.set_defaults(handler=run_compare)


def run_compare(args: argparse.Namespace) -> int:
    """Handle ``ranklens compare``."""
    from ranklens.base.errors import OptionError

    runs = _inputs.load_run_or_scores(args, 2, args.qrels_b)  # run files, scores
    inputs = [
        args.qrels,
        *args.runs,
        *args.scores,
        args.qrels_b,
        args.popularity,
        args.train,
        args.groups,
    ]
    _options.check_output(args, inputs)
    if args.names is not None and len(args.names) != len(runs):
        raise OptionError(
            f"--name given {len(args.names)} times for {len(runs)} runs (once per run)"
        )

    from ranklens.analysis.comparison import compare
    from ranklens.presentation.progress import progress_bar

    if args.max_grade is not None and not args.bounds:
        raise OptionError("--max-grade sets the grades of --bounds: give --bounds too")
    if args.bounds and args.format not in ("table", "json"):
        raise OptionError(f"--bounds writes the table or json formats, not {args.format}")
    extra: dict[str, Any] = {"bounds": True, "max_grade": args.max_grade} if args.bounds else {}

    resampled = args.test != "t"  # the t-test draws nothing: no bar
    with progress_bar(f"{args.test} test", enabled=resampled and not args.quiet) as progress:
        cmp = compare(
            args.qrels,
            runs,
            _inputs.measures_for(args, runs, DEFAULT_MEASURES),
            tukey=args.tukey,
            names=args.names,
            correlate=args.correlate,
            correlate_qrels=args.qrels_b,
            power=args.power,
            progress=progress,
            popularity=args.popularity,
            num_items=args.num_items,
            num_users=args.num_users,
            item_features=args.item_features,
            train=args.train,
            **_options.chosen(
                args,
                _options.STATISTICS + _options.CONVENTIONS + _options.LEADERBOARD_STATISTICS,
            ),
            **extra,
        )
    if cmp.queries_dropped and not args.quiet:
        sys.stderr.write(
            f"ranklens: {cmp.queries_dropped} queries not in every run left out; "
            f"{len(cmp.queries)} compared\n"
        )
    with _options.output_stream(args, inputs) as out:
        write(cmp, args.format, out)
    _inputs.log_to_mlflow(args, cmp)
    return 0


def write(cmp: Any, fmt: str, out: IO[str]) -> None:
    """Write the comparison ``cmp`` in format ``fmt``."""
    if fmt == "json":
        payload = cmp.to_dict()
        if getattr(cmp, "flips", None) is not None:
            from ranklens.cli.bounds_output import flips_json

            payload["flips"] = flips_json(cmp.flips)
        out.write(json.dumps(payload, allow_nan=False) + "\n")
    elif fmt == "markdown":
        out.write(cmp.to_markdown())
    elif fmt == "latex":
        out.write(cmp.to_latex())
    elif fmt in ("csv", "tsv"):
        out.write(_options.as_delimited(cmp.to_csv(), fmt))
    else:
        _write_table(cmp, out)


def _write_table(cmp: Any, out: IO[str]) -> None:
    from ranklens.presentation.comparison_format import write_table

    extra = []
    if getattr(cmp, "flips", None) is not None:
        from ranklens.cli.bounds_output import flips_rows

        header, rows, title = flips_rows(cmp.flips)
        extra.append((header, rows, 3, title))
    write_table(cmp, out, extra)
