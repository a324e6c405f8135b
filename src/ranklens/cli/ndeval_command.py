"""``ranklens ndeval``: NIST ndeval 4.5's command line and CSV output."""

from __future__ import annotations

import argparse
import math
import sys
from typing import Any

from ranklens.cli import _options

NDEVAL_VERSION = "4.5"


def register(commands: Any) -> None:
    """Add the ``ndeval`` subcommand."""
    p = commands.add_parser(
        "ndeval",
        help="NIST ndeval 4.5's command line and CSV (diversity: alpha-nDCG, ERR-IA, ...)",
        description=(
            "A drop-in replacement for NIST ndeval 4.5 (TREC Web track novelty and "
            "diversity evaluation): the same options, the same CSV digit for digit. The "
            "qrels are 'topic subtopic docno judgment'."
        ),
    )
    p.add_argument("qrels", nargs="?", help="subtopic qrels file (topic subtopic docno judgment)")
    p.add_argument("run", nargs="?", help="run file in TREC format")
    _options.add_nist_example(p, "ndeval")
    add = p.add_argument
    add("-alpha", type=float, default=0.5, help="redundancy intolerance (alpha-nDCG, NRBP)")
    add("-beta", type=float, default=0.5, help="patience (NRBP)")
    add("-traditional", action="store_true", help="order by score, then docno (trec_eval)")
    add("-c", action="store_true", dest="complete", help="average over every qrels topic")
    add("-M", type=int, default=0, dest="depth", metavar="DEPTH", help="cut runs at DEPTH")
    add("-baseline", default=None, metavar="RUN", help="baseline run (risk-sensitive)")
    add("-riskAlpha", default="0", metavar="A", help="risk sensitivity (weight 1 + A)")
    add("--quiet", action="store_true", help="accepted for symmetry: ndeval prints only its CSV")
    p.set_defaults(handler=run_ndeval_command)


def run_ndeval_command(args: argparse.Namespace) -> int:
    """Handle ``ranklens ndeval``."""
    from ranklens.base.errors import OptionError
    from ranklens.frontends.ndeval import NdevalOptions, run_ndeval

    try:
        risk = float(args.riskAlpha)
    except ValueError:
        raise OptionError(f"-riskAlpha needs a number, not {args.riskAlpha!r}") from None
    if not 0.0 <= args.alpha <= 1.0 or not 0.0 <= args.beta <= 1.0:
        raise OptionError("-alpha and -beta must be between 0 and 1")
    if not math.isfinite(risk) or risk < 0:
        raise OptionError(f"-riskAlpha must be a finite number >= 0, not {args.riskAlpha!r}")
    if args.depth < 0:
        raise OptionError("-M must be >= 0 (0: no cut)")
    opts = NdevalOptions(
        alpha=args.alpha,
        beta=args.beta,
        traditional=args.traditional,
        complete=args.complete,
        depth=args.depth,
        baseline=args.baseline,
        risk_alpha=risk,
        risk_alpha_text=args.riskAlpha,
    )
    qrels, run = _options.nist_inputs(args, "ndeval")
    sys.stdout.write(run_ndeval(qrels, run, opts))
    return 0
