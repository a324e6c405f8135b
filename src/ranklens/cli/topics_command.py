"""``ranklens topics --min-diff D (QRELS RUN ... | --variance V)``: how many topics
an experiment needs (topic set size design, Sakai 2016; see
:func:`ranklens.topic_set_size` and ``docs/topics.md``)."""

from __future__ import annotations

import argparse
import json
from typing import IO, Any

from ranklens.cli import _inputs as score_inputs
from ranklens.cli import _options

DEFAULT_MEASURES = _options.DEFAULT_MEASURES
TESTS = ("paired-t", "anova", "ci")
_WIDE = 240


def register(commands: Any) -> None:
    """Add the ``topics`` subcommand."""
    p = commands.add_parser(
        "topics",
        help="how many topics? topic set size design from a variance or existing runs",
        description=(
            "How many topics an experiment needs (Sakai 2016, topic set size design): the "
            "smallest number of topics for which a paired t-test (or a one-way ANOVA of "
            "--systems systems) detects a difference of --min-diff with --power at --alpha, "
            "or for which the expected width of the confidence interval of a difference is "
            "at most --min-diff ('ci'). The variance comes from --variance, or is estimated "
            "from existing runs (QRELS RUN ..., or --example): the residual variance "
            "of a two-way ANOVA (topics x runs) without replication, doubled for the paired "
            "t-test."
        ),
    )
    _options.add_files(p, "existing runs (TREC format) to estimate the variance from")
    p.add_argument(
        "--min-diff",
        type=float,
        metavar="D",
        help="the smallest difference to detect (t: between two systems; anova: "
        "between the best and the worst system); for ci, the largest expected width of "
        "the confidence interval",
    )
    p.add_argument(
        "--from",
        dest="from_runs",
        nargs="+",
        metavar="RUN",
        default=[],
        help="the runs, as earlier versions took them (--from RUN ... QRELS); the same as "
        "QRELS RUN ...",
    )
    p.add_argument(
        "--variance",
        type=float,
        metavar="V",
        help="the variance instead of runs: of the per-topic differences (t), or "
        "within systems (anova, ci)",
    )
    p.add_argument(
        "--test",
        type=_options.test_name,
        choices=("t", "anova", "ci"),
        help="t (the paired t-test; also spelled paired-t), anova or ci (default: all three "
        "with runs, t with --variance)",
    )
    p.add_argument(
        "--systems",
        type=int,
        metavar="M",
        help="systems compared by the ANOVA (default: the number of runs given)",
    )
    p.add_argument("--alpha", type=float, default=0.05, help="significance level (0.05)")
    p.add_argument("--power", type=float, default=0.8, help="the power wanted (0.8)")
    _options.add_measures(p, DEFAULT_MEASURES)
    _options.add_format(p, ("table", "json"))
    _options.add_output(p, "the table")
    _options.add_conventions(p)
    _options.add_example(p, "estimate the variance from", {"min_diff": 0.05}, needed=("min_diff",))
    _options.add_quiet(p)
    score_inputs.add_scores(p, "existing runs to estimate the variance from")
    p.set_defaults(handler=run_topics)


def _inputs(args: argparse.Namespace) -> tuple[str | None, list[str]]:
    """The qrels and runs: ``QRELS RUN ...``, or as earlier versions took them,
    ``--from RUN ... QRELS`` (QRELS as the last value when not given apart) and
    ``QRELS --from RUN ...``; or ``--example``."""
    from ranklens.base.errors import OptionError

    if args.runs and args.from_runs:
        raise OptionError("give the runs once: QRELS RUN ... (or the older --from RUN ... QRELS)")
    runs = list(args.runs or args.from_runs)
    qrels = args.qrels
    if args.example:
        if runs or qrels:
            raise OptionError("--example takes no files: it uses the bundled example data")
        from ranklens.data.examples import example_paths

        qrels_path, run_paths = example_paths()
        return str(qrels_path), [str(r) for r in run_paths]
    if not runs and qrels is None:
        return None, []
    if qrels is None:
        if len(runs) < 3:
            raise OptionError(
                "--from needs at least 2 runs and then the qrels: --from RUN RUN QRELS"
            )
        qrels, runs = runs[-1], runs[:-1]
    if len(runs) < 2:
        raise OptionError("give at least 2 runs with --from to estimate the variance")
    return qrels, runs


def run_topics(args: argparse.Namespace) -> int:
    """Handle ``ranklens topics``."""
    from ranklens.analysis.stats.power import topic_set_size
    from ranklens.base.errors import OptionError

    if args.test == "t":  # the command line's name of the paired t-test; Python's "paired-t"
        args.test = "paired-t"
    scored = score_inputs.read_score_files(args)  # runs given as per-topic scores
    qrels, runs = (args.qrels, list(args.runs)) if scored else _inputs(args)
    _options.check_output(args, [qrels, *runs, *args.scores])
    if args.variance is not None:
        if runs or scored:
            raise OptionError("give either --variance or runs (QRELS RUN ..., --example), not both")
        test = args.test or "paired-t"
        systems = args.systems if test == "anova" else None
        n = topic_set_size(args.min_diff, args.variance, args.alpha, args.power, test, systems)
        with _options.output_stream(args) as out:
            if args.format == "json":
                out.write(json.dumps({"test": test, "variance": args.variance, "topics": n}))
                out.write("\n")
            else:
                out.write(f"{n}\n")
        return 0
    if not runs and not scored:
        raise OptionError("give --variance, or runs to estimate it from (QRELS RUN ...)")
    from ranklens.analysis.topics import residual_variance, topic_matrix
    from ranklens.evaluation.evaluator import Evaluator

    measures = _options.measure_names(args.measures, DEFAULT_MEASURES)
    if scored:
        results = score_inputs.results_for(args, [*runs, *scored], measures)
    else:
        evaluator = Evaluator(qrels, measures, **_options.chosen(args, _options.CONVENTIONS))
        results = [evaluator.evaluate(r) for r in runs]
    systems = args.systems if args.systems is not None else len(results)
    tests = [args.test] if args.test else list(TESTS)
    rows: list[dict[str, Any]] = []
    for m in [r.name for r in results[0].measures]:
        matrix, queries = topic_matrix(results, m)
        within = residual_variance(matrix)
        if within == 0:
            raise OptionError(f"{m}: the runs' values have no residual variance to design from")
        row: dict[str, Any] = {
            "measure": m,
            "topics": len(queries),
            "sigma2": within,
            "sigma_t2": 2 * within,
        }
        for test in tests:
            variance = 2 * within if test == "paired-t" else within
            row[test] = topic_set_size(
                args.min_diff,
                variance,
                args.alpha,
                args.power,
                test,
                systems if test == "anova" else None,
            )
        rows.append(row)
    with _options.output_stream(args, [qrels, *runs, *args.scores]) as out:
        _write(args, rows, tests, systems, len(results), out)
    return 0


def _write(
    args: argparse.Namespace,
    rows: list[dict[str, Any]],
    tests: list[str],
    systems: int,
    runs: int,
    out: IO[str],
) -> None:
    if args.format == "json":
        payload = {
            "min_diff": args.min_diff,
            "alpha": args.alpha,
            "power": args.power,
            "systems": systems,
            "runs": runs,
            "measures": rows,
        }
        out.write(json.dumps(payload) + "\n")
        return
    from rich.console import Console
    from rich.table import Table

    console = Console(file=out, highlight=False, soft_wrap=False)
    if not console.is_terminal:
        console = Console(file=out, highlight=False, soft_wrap=False, width=_WIDE)
    labels = {
        "paired-t": "paired t",
        "anova": f"ANOVA ({systems} systems)",
        "ci": "CI width",
    }
    table = Table(title="topics needed", title_justify="left")
    if not console.is_terminal:  # plain text into a pipe or a file
        table.box = None
    for h in ["measure", "topics now", "sigma^2", "sigma_t^2", *(labels[t] for t in tests)]:
        table.add_column(h, justify="left" if h == "measure" else "right", no_wrap=True)
    for row in rows:
        table.add_row(
            row["measure"],
            str(row["topics"]),
            f"{row['sigma2']:.4f}",
            f"{row['sigma_t2']:.4f}",
            *(f"{row[t]:,}" for t in tests),
        )
    console.print(table)
    console.print(
        f"Variances from {runs} runs (residual of a two-way ANOVA, topics x runs). "
        f"paired t / ANOVA: detect a difference of {args.min_diff:g} with "
        f"{args.power:.0%} power at alpha = {args.alpha:g}; CI width: the expected width "
        f"of the {1 - args.alpha:.0%} confidence interval of a difference at most "
        f"{args.min_diff:g}.",
        markup=False,
    )
