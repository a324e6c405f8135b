"""``ranklens gdeval``: NIST gdeval.pl 1.3's command line and CSV output."""

from __future__ import annotations

import argparse
import math
import sys
from typing import Any

from ranklens.cli import _options

GDEVAL_VERSION = "1.3"


def register(commands: Any) -> None:
    """Add the ``gdeval`` subcommand."""
    p = commands.add_parser(
        "gdeval",
        help="NIST gdeval.pl 1.3's command line and CSV (TREC Web track nDCG@k, ERR@k)",
        description=(
            "A drop-in replacement for NIST gdeval.pl 1.3 (TREC Web track 2010-2014): the "
            "same options, the same CSV byte for byte: nDCG@k (gain 2^g - 1) and ERR@k "
            "(grades 0-4) per topic, then amean. The qrels are 'topic 0 docno judgment'."
        ),
    )
    p.add_argument(
        "qrels", nargs="?", help="qrels file (topic 0 docno judgment; judgments at most 4)"
    )
    p.add_argument("run", nargs="?", help="run file in TREC format")
    _options.add_nist_example(p, "gdeval")
    add = p.add_argument
    add("-c", action="store_true", dest="complete", help="average over every qrels topic")
    add("-k", default="20", dest="depth", metavar="K", help="evaluation depth (default 20)")
    add("-baseline", default=None, metavar="RUN", help="baseline run (risk-sensitive)")
    add("-riskAlpha", default="0", metavar="A", help="risk sensitivity (weight 1 + A)")
    add("-version", "-v", action="version", version=f"gdeval.pl: version {GDEVAL_VERSION}")
    add("--quiet", action="store_true", help="accepted for symmetry: gdeval prints only its CSV")
    p.set_defaults(handler=run_gdeval_command)


def run_gdeval_command(args: argparse.Namespace) -> int:
    """Handle ``ranklens gdeval``."""
    from ranklens.base.errors import OptionError
    from ranklens.frontends.gdeval import GdevalOptions, run_gdeval

    try:
        depth = int(args.depth)
    except ValueError:
        raise OptionError(f"-k needs a whole number, not {args.depth!r}") from None
    try:
        risk = float(args.riskAlpha)
    except ValueError:
        raise OptionError(f"-riskAlpha needs a number, not {args.riskAlpha!r}") from None
    if not math.isfinite(risk) or risk < 0:
        raise OptionError(f"-riskAlpha must be a finite number >= 0, not {args.riskAlpha!r}")
    opts = GdevalOptions(
        complete=args.complete,
        depth=depth,
        baseline=args.baseline,
        risk_alpha=risk,
        risk_alpha_text=args.riskAlpha,
    )
    qrels, run = _options.nist_inputs(args, "gdeval")
    sys.stdout.write(run_gdeval(qrels, run, opts))
    return 0
