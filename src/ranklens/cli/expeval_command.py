"""``ranklens expeval``: github.com/diazf/expeval's command line and output."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ranklens.cli import _options


def register(commands: Any) -> None:
    """Add the ``expeval`` subcommand."""
    p = commands.add_parser(
        "expeval",
        help="expected exposure EE-D/EE-R/EE-L of stochastic runs (diazf/expeval's output)",
        description=(
            "A drop-in replacement for github.com/diazf/expeval (Diaz et al., CIKM 2020; "
            "TREC Fair Ranking): the same options and output, its quirks included unless "
            "--fixed. QRELS are 'qid groups docno rel' (or 'qid docno rel'; groups are "
            "integers joined by '|'); RUN lines are 'qid sample docno rank score [tag]', "
            "several sampled rankings per query. Prints disparity (EE-D), relevance (EE-R) "
            "and difference (EE-L) per query."
        ),
    )
    p.add_argument("qrels", nargs="?", help="relevance judgments: qid groups docno rel")
    p.add_argument("run", nargs="?", help="sampled rankings: qid sample docno rank score [tag]")
    _options.add_nist_example(p, "expeval")
    add = p.add_argument
    add(
        "-u",
        default="gerr",
        dest="model",
        metavar="UMTYPE",
        help="user model: gerr or rbp (default gerr)",
    )
    add(
        "-p",
        default="0.5",
        dest="patience",
        metavar="UMPATIENCE",
        help="patience in [0, 1) (default 0.5)",
    )
    add(
        "-r",
        default="0.5",
        dest="utility",
        metavar="UMUTILITY",
        help="utility in [0, 1] (default 0.5)",
    )
    add("-B", action="store_true", dest="binary", help="convert graded to binary relevance")
    add("-G", action="store_true", dest="groups", help="use group labels (group exposure)")
    add("-C", action="store_true", dest="complete", help="complete judgments (reranking tasks)")
    add("-U", action="store_true", dest="unnormalised", help="print unnormalised values")
    add(
        "--fixed",
        action="store_true",
        help="ranklens' corrections of expeval's bounds and of a query missing from the run "
        "(docs/expeval.md lists them)",
    )
    add("--mean", action="store_true", help="ranklens: add the mean over queries ('all' lines)")
    add(
        "--quiet", action="store_true", help="accepted for symmetry: expeval prints only its values"
    )
    p.set_defaults(handler=run_expeval_command)


def run_expeval_command(args: argparse.Namespace) -> int:
    """Handle ``ranklens expeval``."""
    from ranklens.frontends.expeval import parse_options, run_expeval

    opts = parse_options(
        args.model,
        args.patience,
        args.utility,
        binary=args.binary,
        groups=args.groups,
        complete=args.complete,
        normalise=not args.unnormalised,
        fixed=args.fixed,
        mean=args.mean,
    )
    qrels, run = _options.nist_inputs(args, "expeval")
    sys.stdout.write(run_expeval(qrels, run, opts))
    return 0
