"""``ranklens judge-next QRELS RUN [RUN ...] --budget N``: the unjudged documents whose
judgments narrow the score ranges the most (:mod:`ranklens.analysis.judge_next`), as a pool
file for assessors."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ranklens.cli import _options

DEFAULT_MEASURES = _options.DEFAULT_MEASURES


def register(commands: Any) -> None:
    """Add the ``judge-next`` subcommand."""
    p = commands.add_parser(
        "judge-next",
        help="the unjudged documents whose judgments narrow the score ranges the most",
        description=(
            "List the N unjudged documents (qid docno, one per line, by query then document, "
            "as ranklens pool writes) whose judgments narrow the ranges of the measures over "
            "the runs the most: for each document retrieved and not judged, the narrowing "
            "of the summed widths of every run's ranges that judging it guarantees whatever "
            "its grade (see docs/incomplete.md). The work grows with the unjudged documents "
            "retrieved times the grades: --depth K (each run's top K only) makes it much "
            "shorter; a progress bar shows on a terminal."
        ),
    )
    _options.add_files(p, "one or more run files (TREC format)")
    _options.add_measures(p, DEFAULT_MEASURES)
    p.add_argument("--budget", type=int, metavar="N", help="how many documents to list")
    p.add_argument(
        "--depth",
        type=int,
        metavar="K",
        help="consider each run's top K only (much faster: the work grows with the documents "
        "considered)",
    )
    _options.add_max_grade(
        p, "the highest grade a document may get (default: the qrels' highest grade)"
    )
    _options.add_output(p, "the list")
    _options.add_example(p, "choose documents to judge for", {"budget": 10, "depth": 10})
    _options.add_quiet(p, "the progress bar and the summary line")
    p.set_defaults(handler=run_judge_next)


def run_judge_next(args: argparse.Namespace) -> int:
    """Handle ``ranklens judge-next``."""
    from ranklens.base.errors import OptionError

    for option, value in (("--budget", args.budget), ("--depth", args.depth)):
        if value is not None and value < 1:
            raise OptionError(f"{option} must be a positive number of documents, not {value}")
    if args.budget is None:
        raise OptionError("give --budget N, the number of documents to list")
    _options.resolve_inputs(args, 1)
    from ranklens.analysis.judge_next import judge_next
    from ranklens.data.output import check_destination, write_atomically

    inputs = [args.qrels, *args.runs]
    if args.output != "-":
        check_destination(args.output, inputs, args.force)
    measures = _options.measure_names(args.measures, DEFAULT_MEASURES)
    from ranklens.presentation.progress import progress_bar

    with progress_bar("judge-next: scoring the candidates", enabled=not args.quiet) as progress:
        chosen = judge_next(
            args.qrels,
            args.runs,
            measures,
            args.budget,
            args.max_grade,
            depth=args.depth,
            progress=progress,
        )
    lines = "".join(
        f"{c.qid} {c.docid}\n"
        for c in sorted(chosen, key=lambda c: (c.qid.encode(), c.docid.encode()))
    )
    if args.output == "-":
        sys.stdout.write(lines)
    else:
        write_atomically(args.output, lines, inputs=inputs, force=args.force)
    if not args.quiet:
        where = f" to {args.output}" if args.output != "-" else ""
        spread = ""
        if chosen:
            low, high = min(c.narrowing for c in chosen), max(c.narrowing for c in chosen)
            spread = f"; judged alone, each narrows its query's ranges by {low:.4f} to {high:.4f}"
        sys.stderr.write(f"ranklens: {len(chosen)} documents to judge{where}{spread}\n")
    return 0
