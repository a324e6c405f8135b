"""``ranklens plot KIND QRELS RUN [RUN ...] -o FILE``: draw a plot of
:mod:`ranklens.presentation.plots` into a PNG, SVG or PDF file (matplotlib, without a
display)."""

from __future__ import annotations

import argparse
import io
import sys
from pathlib import Path
from typing import Any

from ranklens.cli import _options

KINDS = ("pr", "roc", "cutoff", "delta", "dist", "cd", "ranks", "groups")
COMPARISON_KINDS = ("cd", "ranks", "groups")
"""The kinds drawn from a comparison of the runs (:func:`ranklens.compare`)."""
FORMATS = ("png", "svg", "pdf")
DEFAULT_CUTOFF_MEASURES = ("P", "R", "nDCG")
DEFAULT_MEASURE = "nDCG@10"
"""The measure of ``delta`` and ``dist`` when none is given."""


def register(commands: Any) -> None:
    """Add the ``plot`` subcommand."""
    p = commands.add_parser(
        "plot",
        help="draw precision-recall, ROC, cut-off, per-query difference or distribution plots",
        description=(
            "Draw a plot into a PNG, SVG or PDF file (needs matplotlib: pip install "
            "'ranklens[plot]'). Kinds: pr (precision-recall: one query's raw and interpolated "
            "curves, or the interpolated curve averaged over the queries), roc (ROC curves "
            "with the AUC and the optimal cut-off; without --query the vertical average), "
            "cutoff (measures against their cut-off k = 1..--max-k), delta (per-query "
            "differences of one measure between two runs, sorted), dist (the distribution "
            "of one measure's per-query values, per run), cd (the critical-difference diagram "
            "of Friedman's test, Demsar 2006), ranks (each run's rank interval from the "
            "corrected all-pairs tests: tied with #1 or not) and groups (each run's mean "
            "difference from the first run per query group of --groups). Several runs are "
            "overlaid."
        ),
    )
    p.add_argument(
        "kind", nargs="?", choices=KINDS, metavar="KIND", help=f"which plot: {', '.join(KINDS)}"
    )
    _options.add_files(p, "run file(s) (TREC format)")
    p.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help="the file to write; its extension (.png, .svg or .pdf) chooses the format "
        "unless --format does (with --example, default: example-KIND.png)",
    )
    _options.add_format(
        p, FORMATS, default=None, help_text="the file's format (default: from the extension)"
    )
    p.add_argument(
        "--force", action="store_true", help="overwrite FILE if it exists (never an input file)"
    )
    _options.add_names(p)
    p.add_argument(
        "-m",
        "--measure",
        action="append",
        dest="measures",
        metavar="MEASURE",
        help=f"cutoff: measures without their cut-off (repeatable; default: "
        f"{' '.join(DEFAULT_CUTOFF_MEASURES)}); delta, dist: one measure (default: "
        f"{DEFAULT_MEASURE})",
    )
    p.add_argument("--query", metavar="Q", help="pr, roc: only this query (default: the mean)")
    p.add_argument(
        "--max-k",
        type=int,
        default=20,
        metavar="K",
        help="cutoff: the largest k (default: 20; capped at the longest ranking)",
    )
    p.add_argument(
        "--levels",
        type=int,
        default=11,
        metavar="N",
        help="pr: N evenly spaced recall levels for the interpolated curve (default: 11)",
    )
    p.add_argument(
        "--cutoff",
        choices=("youden", "distance", "product"),
        default="youden",
        help="roc: the optimal cut-off's criterion: max TPR - FPR (Youden's J, default), min "
        "distance to (0, 1), or max TPR * (1 - FPR)",
    )
    p.add_argument(
        "--style", choices=("box", "violin"), default="box", help="dist: box or violin plots"
    )
    p.add_argument("--rel", type=int, default=1, metavar="N", help="pr, roc: minimum grade")
    _options.add_groups(p)
    p.add_argument("--alpha", type=float, default=0.05, help="cd, ranks: significance level (0.05)")
    p.add_argument("--title", help="the plot's title (default: one saying what is shown)")
    p.add_argument("--width", type=float, default=8.0, metavar="IN", help="inches (default: 8)")
    p.add_argument("--height", type=float, default=5.0, metavar="IN", help="inches (default: 5)")
    p.add_argument("--dpi", type=float, default=100.0, help="dots per inch of a PNG (default: 100)")
    _options.add_conventions(p, duplicates=False)
    from ranklens.cli import _inputs

    _inputs.add_scores(p, "delta, dist: runs")
    _options.add_example(p, "plot", {"kind": "pr"}, needed=("kind",))
    _options.add_quiet(p, "the name of the file written")
    p.set_defaults(handler=run_plot)


def _output_format(path: str, chosen: str | None = None) -> str:
    from ranklens.base.errors import OptionError

    suffix = Path(path).suffix.lower().lstrip(".")
    if chosen is not None:
        if suffix in FORMATS and suffix != chosen:
            raise OptionError(f"--format {chosen} contradicts the extension of {path!r}")
        return chosen
    if suffix not in FORMATS:
        raise OptionError(
            f"--output must end in .png, .svg or .pdf, not {path!r} (or give --format)"
        )
    return suffix


def _check(args: argparse.Namespace) -> None:
    """One-line errors for options that are invalid or do not apply to the kind."""
    from ranklens.base.errors import OptionError

    if args.scores and args.kind in ("pr", "roc", "cutoff"):
        raise OptionError(
            f"{args.kind} plots need the rankings, and score files hold per-topic values only: "
            "--scores takes delta and dist plots"
        )
    from ranklens.cli import _inputs

    args.entries = _inputs.load_run_or_scores(args, 1)
    if args.max_k < 1:
        raise OptionError(f"--max-k must be a positive number, not {args.max_k}")
    if args.levels < 2:
        raise OptionError(f"--levels must be at least 2, not {args.levels}")
    for option, value in (("--width", args.width), ("--height", args.height), ("--dpi", args.dpi)):
        if not value > 0:
            raise OptionError(f"{option} must be positive, not {value}")
    if args.query is not None and args.kind not in ("pr", "roc"):
        raise OptionError(f"--query applies to pr and roc plots, not to {args.kind}")
    if args.measures and args.kind in ("pr", "roc"):
        raise OptionError(f"--measure does not apply to {args.kind} plots")
    if args.kind in COMPARISON_KINDS and len(args.entries) < 2:
        raise OptionError(f"{args.kind} compares at least two runs, got {len(args.entries)}")
    if (args.kind == "groups") != (args.groups is not None):
        raise OptionError("--groups FILE goes with the groups plot, and the groups plot needs it")
    if args.kind == "delta" and len(args.entries) != 2:
        raise OptionError(f"delta compares exactly two runs, got {len(args.entries)}")


def _measures(args: argparse.Namespace) -> list[str]:
    from ranklens.base.errors import OptionError

    names = _options.measure_names(args.measures, ())
    if args.kind == "cutoff":
        return names or list(DEFAULT_CUTOFF_MEASURES)
    if len(names) > 1:
        raise OptionError(f"{args.kind} plots one measure, got {len(names)}: {' '.join(names)}")
    return names or [DEFAULT_MEASURE]


def run_plot(args: argparse.Namespace) -> int:
    """Handle ``ranklens plot``."""
    if args.output is None:
        if not args.example:
            from ranklens.base.errors import OptionError

            raise OptionError("give -o/--output FILE, a .png, .svg or .pdf file (or --example)")
        args.output = f"example-{args.kind}.png"
    fmt = _output_format(args.output, args.format)
    _check(args)
    from ranklens.data.output import check_destination, write_atomically

    inputs = [args.qrels, *args.runs, *args.scores, args.groups]
    check_destination(args.output, inputs, args.force)
    from ranklens.base.optional import require

    require("matplotlib", "ranklens plot")  # fail before reading any file
    from ranklens.presentation import plots

    options: dict[str, Any] = {"ties": args.ties, "queries": args.queries, "depth": args.depth}
    names = _options.given_names(args, len(args.entries))
    if args.names:
        import dataclasses

        from ranklens.data.coerce import as_run
        from ranklens.evaluation.results import Results

        args.entries = [
            dataclasses.replace(entry, run=str(name))  # a score file's run, renamed
            if isinstance(entry, Results)
            else as_run(entry, "error", name)
            for entry, name in zip(args.entries, names, strict=True)
        ]
        args.runs = [entry for entry in args.entries if not isinstance(entry, Results)]
    common: dict[str, Any] = {
        "title": args.title,
        "figsize": (args.width, args.height),
        "dpi": args.dpi,
    }
    if args.kind == "pr":
        levels = [i / (args.levels - 1) for i in range(args.levels)]  # 11: exactly 0.0, 0.1...
        fig = plots.plot_pr(
            args.qrels,
            args.runs,
            query=args.query,
            levels=levels,
            rel=args.rel,
            **common,
            **options,
        )
    elif args.kind == "roc":
        fig = plots.plot_roc(
            args.qrels,
            args.runs,
            query=args.query,
            cutoff=args.cutoff,
            rel=args.rel,
            **common,
            **options,
        )
    elif args.kind in COMPARISON_KINDS:
        fig = _comparison_plot(args, options, common)
    elif args.kind == "cutoff":
        fig = plots.plot_cutoff(
            args.qrels, args.runs, _measures(args), args.max_k, **common, **options
        )
    else:
        from ranklens.evaluation.evaluator import Evaluator
        from ranklens.evaluation.results import Results

        [measure] = _measures(args)
        results = []
        evaluator = Evaluator(args.qrels, [measure], **options) if args.qrels else None
        for entry in args.entries:  # run files (evaluated), then the score files' runs
            if evaluator is not None and not isinstance(entry, Results):  # a run
                results.append(evaluator.evaluate(entry))
            else:
                results.append(entry)
        if args.kind == "delta":
            fig = plots.plot_delta(results[0], results[1], measure, **common)
        else:
            fig = plots.plot_dist(results, measure, args.style, **common)
    buffer = io.BytesIO()
    fig.savefig(buffer, format=fmt)
    write_atomically(args.output, buffer.getvalue(), inputs=inputs, force=args.force)
    if not args.quiet:
        sys.stderr.write(f"ranklens: wrote {args.output}\n")
    return 0


def _comparison_plot(
    args: argparse.Namespace, options: dict[str, Any], common: dict[str, Any]
) -> Any:
    """The cd, ranks or groups plot of the runs compared on one measure."""
    from ranklens.analysis.comparison import compare
    from ranklens.presentation.plots import comparison_plots

    [measure] = _measures(args)
    if args.qrels is None:
        options = {}  # scores computed elsewhere: nothing to evaluate
    cmp = compare(
        args.qrels,
        args.entries,
        [measure],
        alpha=args.alpha,
        all_pairs=args.kind == "ranks",
        groups=args.groups,
        **options,
    )
    if args.kind == "cd":
        return comparison_plots.plot_cd(cmp.friedman(measure), measure=cmp.measures[0], **common)
    if args.kind == "ranks":
        return comparison_plots.plot_rank_intervals(cmp, cmp.measures[0], **common)
    return comparison_plots.plot_group_deltas(cmp, cmp.measures[0], **common)
