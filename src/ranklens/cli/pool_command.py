"""``ranklens pool RUN ... --depth K``: the documents to judge, and pool statistics (see
:mod:`ranklens.analysis.pooling`)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import IO, Any

from ranklens.cli import _options

FORMATS = _options.TABLE_FORMATS
STRATEGIES = ("depth", "rbp", "rrf")
DEFAULT_MEASURES = _options.DEFAULT_MEASURES


def register(commands: Any) -> None:
    """Add the ``pool`` subcommand."""
    p = commands.add_parser(
        "pool",
        help="pool runs for judging (depth-K, RBP or RRF with a budget) and pool statistics",
        description=(
            "Select the documents to judge from several runs: the union of each run's top K "
            "(--strategy depth --depth K, optionally capped by --budget), or the --budget "
            "documents per query with the largest summed RBP weight (rbp, --p) or "
            "reciprocal-rank-fusion score (rrf, --k). Writes 'qid docno' lines to -o FILE or "
            "stdout. --stats prints the pool statistics on stdout instead (the pool then goes "
            "only to -o FILE): size per query, each run's share and unique documents and, "
            "with qrels given first (QRELS RUN ..., or --qrels QRELS), the leave-one-run-out "
            "change of each measure (see docs/incomplete.md)."
        ),
    )
    p.add_argument(
        "runs",
        nargs="*",
        metavar="RUN",
        help="run files (TREC format); qrels first (QRELS RUN ...) for the statistics",
    )
    p.add_argument("--strategy", choices=STRATEGIES, default="depth", help="default: depth")
    p.add_argument("--depth", type=int, metavar="K", help="read each run's top K documents")
    p.add_argument("--budget", type=int, metavar="N", help="at most N documents per query")
    p.add_argument("--p", type=float, default=0.8, metavar="P", help="RBP's p (default 0.8)")
    p.add_argument("--k", type=float, default=60, metavar="K", help="RRF's k (default 60)")
    _options.add_output(p, "the pool")
    _options.add_ties(p)
    p.add_argument("--stats", action="store_true", help="print the pool statistics (on stdout)")
    p.add_argument(
        "--qrels",
        metavar="QRELS",
        help="judgments for the statistics (implies --stats); the same as giving them first",
    )
    _options.add_measures(p, DEFAULT_MEASURES)
    _options.add_format(p, FORMATS, help_text="statistics format")
    _options.add_example(p, "pool", {"depth": 10})
    _options.add_quiet(p, "the summary line")
    p.set_defaults(handler=run_pool)


def run_pool(args: argparse.Namespace) -> int:
    """Handle ``ranklens pool``."""
    from ranklens.analysis.pooling import check_options, pool, pool_statistics
    from ranklens.base.errors import OptionError
    from ranklens.data.output import check_destination

    if args.example:
        from ranklens.data.examples import example_paths

        if args.runs:
            raise OptionError("--example takes no files: it uses the bundled example runs")
        qrels_path, run_paths = example_paths()
        args.runs = [str(path) for path in run_paths]
        if args.stats and args.qrels is None:
            args.qrels = str(qrels_path)
    if args.runs and args.qrels is None and _options.looks_like_qrels(args.runs[0]):
        args.qrels, args.runs = args.runs[0], args.runs[1:]  # QRELS RUN ...
    if not args.runs:
        raise OptionError("give the run files to pool (or --example)")
    if args.runs.count("-") > 1:
        raise OptionError("only one run can be '-' (stdin)")
    check_options(args.strategy, args.depth, args.budget, args.p, args.k)  # before any reading
    inputs = [*args.runs, *([args.qrels] if args.qrels else [])]
    if args.output != "-":
        check_destination(args.output, inputs, args.force)
    from ranklens.data.coerce import as_run

    runs = [as_run(path) for path in args.runs]  # read once: a run may be '-' (stdin)
    made = pool(runs, args.strategy, args.depth, args.budget, args.p, args.k, ties=args.ties)
    stats = args.stats or args.qrels is not None
    if args.output != "-":
        made.write(args.output, inputs=inputs, force=args.force)
    elif not stats:
        made.write(sys.stdout)
    if stats:
        measures = _options.measure_names(args.measures, DEFAULT_MEASURES)
        result = pool_statistics(made, runs, args.qrels, measures)
        _write_statistics(result, args.format, sys.stdout)
    if not args.quiet:
        sizes = list(made.sizes().values())
        where = f" to {args.output}" if args.output != "-" else ""
        mean = sum(sizes) / len(sizes) if sizes else 0.0
        sys.stderr.write(
            f"ranklens: pooled {len(made.runs)} runs ({args.strategy}){where}: "
            f"{len(sizes)} queries, {len(made)} documents ({mean:.1f} per query)\n"
        )
    return 0


def _write_statistics(stats: Any, fmt: str, out: IO[str]) -> None:
    from ranklens.cli.output import write_plain_table
    from ranklens.presentation.tables import json_ready

    judged = bool(stats.runs) and stats.runs[0].scores is not None
    header = ["run", "contributed", "share", "unique"]
    if judged:
        header += ["unique_judged", "unique_relevant"]
        for m in stats.measures:
            header += [m, f"{m}_change"]
    rows: list[list[Any]] = []
    for r in stats.runs:
        row: list[Any] = [r.name, sum(r.contributed.values()), r.share, sum(r.unique.values())]
        if judged:
            row += [r.unique_judged, r.unique_relevant]
            for m in stats.measures:
                row += [r.scores[m], r.change[m]]
        rows.append(row)
    if fmt == "json":
        payload = {
            "sizes": dict(stats.sizes),
            "total": stats.total,
            "runs": [
                {
                    "run": r.name,
                    "share": r.share,
                    "contributed": dict(r.contributed),
                    "unique": dict(r.unique),
                    "unique_judged": r.unique_judged,
                    "unique_relevant": r.unique_relevant,
                    "scores": None if r.scores is None else dict(r.scores),
                    "scores_without": None if r.scores_without is None else dict(r.scores_without),
                    "change": None if r.change is None else dict(r.change),
                }
                for r in stats.runs
            ],
        }
        out.write(json.dumps(json_ready(payload), allow_nan=False) + "\n")
        return
    if fmt in ("csv", "tsv"):
        writer = _options.csv_writer(out, fmt)
        writer.writerow(header)
        writer.writerows([[repr(v) if isinstance(v, float) else v for v in row] for row in rows])
        return
    sizes = list(stats.sizes.values())
    if sizes:
        out.write(
            f"pool: {len(sizes)} queries, {stats.total} documents, per query "
            f"{min(sizes)} to {max(sizes)} (mean {stats.total / len(sizes):.1f})\n"
        )
    write_plain_table(header, rows, out)
