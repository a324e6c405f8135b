"""``ranklens discriminate QRELS RUN RUN [RUN ...] -m MEASURE ...``: the discriminative
power of measures (Sakai 2006) and, with ``--swap-rate``, their swap rates (Voorhees and
Buckley 2002); see :func:`ranklens.discriminative_power` and ``docs/topics.md``."""

from __future__ import annotations

import argparse
import json
from typing import IO, Any

from ranklens.cli import _inputs, _options

DEFAULT_MEASURES = _options.DEFAULT_MEASURES
_WIDE = 240


def register(commands: Any) -> None:
    """Add the ``discriminate`` subcommand."""
    p = commands.add_parser(
        "discriminate",
        help="discriminative power of measures (ASLs of every pair of runs) and swap rates",
        description=(
            "Which measure separates the runs best? For every pair of runs and measure, the "
            "achieved significance level (ASL) by the paired bootstrap test and by the "
            "randomised Tukey HSD test (B draws, seeded: the same numbers under any number "
            "of threads); per measure, the share of pairs significant at --alpha "
            "(discriminative power, Sakai 2006) and the difference required for "
            "significance. --swap-rate adds how often two disjoint random topic sets order "
            "a pair of runs differently (Voorhees and Buckley 2002)."
        ),
    )
    _options.add_files(p, "two or more run files (TREC format)")
    _options.add_measures(p, DEFAULT_MEASURES)
    _options.add_resamples(p, 1000, "bootstrap resamples and Tukey permutations")
    p.add_argument("--seed", type=int, default=42, help="seed of the random draws (42)")
    p.add_argument("--alpha", type=float, default=0.05, help="significance level (0.05)")
    p.add_argument(
        "--plot",
        metavar="FILE",
        help="write the ASL curves (bootstrap) to FILE (.png, .svg, .pdf; needs matplotlib)",
    )
    p.add_argument(
        "--swap-rate",
        action="store_true",
        help="add swap rates by topic set size and difference",
    )
    p.add_argument(
        "--trials", type=int, default=100, help="random topic splits per size for --swap-rate"
    )
    p.add_argument(
        "--bin-width",
        type=float,
        default=0.01,
        help="width of the bins of the difference for --swap-rate (0.01)",
    )
    p.add_argument(
        "--swap-plot",
        metavar="FILE",
        help="write the swap rates of the first measure to FILE (needs matplotlib)",
    )
    _options.add_format(p)
    _options.add_output(p, "the table")
    _options.add_names(p)
    _options.add_conventions(p)
    _options.add_example(p, "compare the measures on")
    _options.add_quiet(p, "the progress bar")
    _inputs.add_scores(p)
    p.set_defaults(handler=run_discriminate)


def run_discriminate(args: argparse.Namespace) -> int:
    """Handle ``ranklens discriminate``."""
    entries = _inputs.load_run_or_scores(args, 2)  # run files, then score files' runs
    _options.check_output(args, [args.qrels, *args.runs, *args.scores])
    from ranklens.analysis.topics import discriminative_power, swap_rate
    from ranklens.data.coerce import as_run
    from ranklens.data.naming import distinct_names
    from ranklens.evaluation.evaluator import Evaluator

    measures = _options.measure_names(args.measures, DEFAULT_MEASURES)
    if args.scores:
        results = _inputs.results_for(args, entries, measures)
        names = [r.run for r in results]
    else:
        evaluator = Evaluator(args.qrels, measures, **_options.chosen(args, _options.CONVENTIONS))
        runs = [as_run(path, args.duplicates) for path in args.runs]
        names = distinct_names(runs, _options.given_names(args, len(runs)))
        results = [evaluator.evaluate(r.renamed(n)) for r, n in zip(runs, names, strict=True)]
    from ranklens.presentation.progress import progress_bar

    with progress_bar("discriminative power", enabled=not args.quiet) as progress:
        dp = discriminative_power(
            results,
            alpha=args.alpha,
            resamples=args.resamples,
            seed=args.seed,
            names=names,
            progress=progress,
        )
    swaps = []
    if args.swap_rate or args.swap_plot:
        swaps = [
            swap_rate(
                results,
                m,
                trials=args.trials,
                bin_width=args.bin_width,
                seed=args.seed,
                names=names,
            )
            for m in dp.measures
        ]
    if args.plot:
        dp.plot().savefig(args.plot)
    if args.swap_plot:
        swaps[0].plot().savefig(args.swap_plot)
    with _options.output_stream(args, [args.qrels, *args.runs, *args.scores]) as out:
        _write(args, dp, swaps if args.swap_rate else [], out)
    return 0


def _write(args: argparse.Namespace, dp: Any, swaps: list[Any], out: IO[str]) -> None:
    if args.format == "json":
        payload = dp.to_dict()
        if swaps:
            payload["swap_rates"] = [row for s in swaps for row in s.to_records()]
        out.write(json.dumps(payload, allow_nan=False) + "\n")
        return
    if args.format in ("csv", "tsv"):
        writer = _options.csv_writer(out, args.format)
        rows = dp.to_records()
        writer.writerow(list(rows[0]))
        for row in rows:
            writer.writerow([repr(v) if isinstance(v, float) else v for v in row.values()])
        return
    from rich.console import Console
    from rich.table import Table

    console = Console(file=out, highlight=False, soft_wrap=False)
    if not console.is_terminal:
        console = Console(file=out, highlight=False, soft_wrap=False, width=_WIDE)
    table = Table(title="discriminative power", title_justify="left")
    if not console.is_terminal:  # plain text into a pipe or a file
        table.box = None
    header = [
        "measure",
        "pairs",
        "bootstrap",
        "Tukey HSD",
        "difference required",
        "range required (HSD)",
    ]
    for h in header:
        table.add_column(h, justify="left" if h == "measure" else "right", no_wrap=True)
    for row in dp.summary():
        table.add_row(
            row["measure"],
            str(row["pairs"]),
            f"{row['bootstrap_power']:.1%}",
            f"{row['tukey_power']:.1%}",
            f"{row['required_difference']:.4f}",
            f"{row['tukey_required_range']:.4f}",
        )
    console.print(table)
    console.print(
        f"{len(dp.runs)} runs, {dp.topics} topics; share of pairs of runs significant at "
        f"alpha = {dp.alpha:g} (paired bootstrap test and randomised Tukey HSD, "
        f"B = {dp.resamples:,}, seed {dp.seed}).",
        markup=False,
    )
    for s in swaps:
        t = Table(title=f"swap rates: {s.measure}", title_justify="left")
        if not console.is_terminal:  # plain text into a pipe or a file
            t.box = None
        for h in ("topics", "difference", "pairs", "swaps", "swap rate"):
            t.add_column(h, justify="right", no_wrap=True)
        for row in s.to_records():
            high = row["diff_high"]
            span = (
                f"[{row['diff_low']:.3f}, {high:.3f})"
                if high is not None
                else f">= {row['diff_low']:.3f}"
            )
            t.add_row(
                str(row["topics"]),
                span,
                str(row["pairs"]),
                str(row["swaps"]),
                f"{row['swap_rate']:.1%}",
            )
        console.print(t)
