"""``ranklens sample-eval``: NIST sample_eval.pl's command line and output."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ranklens.cli import _options


def register(commands: Any) -> None:
    """Add the ``sample-eval`` subcommand."""
    p = commands.add_parser(
        "sample-eval",
        help="NIST sample_eval.pl's output (infAP, infNDCG, iP@k from sampled judgments)",
        description=(
            "A drop-in replacement for NIST sample_eval.pl (inferred measures from "
            "stratified sampled judgments, Yilmaz, Kanoulas and Aslam 2008): xinfAP (printed "
            "infAP), infNDCG, iP10/50/1000, interpolated precision at 11 recall levels and "
            "the estimated relevant counts, byte for byte. The qrels are 'topic 0 docno "
            "stratum judgment', judgment -1 for a pooled document that was not sampled."
        ),
    )
    p.add_argument("qrels", nargs="?", help="stratified qrels (topic 0 docno stratum judgment)")
    p.add_argument("run", nargs="?", help="run file in TREC format")
    _options.add_nist_example(p, "sample-eval")
    p.add_argument("-q", action="store_true", dest="per_topic", help="also every topic")
    p.add_argument("--quiet", action="store_true", help="accepted for symmetry")
    p.set_defaults(handler=run_sample_eval_command)


def run_sample_eval_command(args: argparse.Namespace) -> int:
    """Handle ``ranklens sample-eval``."""
    from ranklens.frontends.sample_eval import run_sample_eval

    qrels, run = _options.nist_inputs(args, "sample-eval")
    sys.stdout.write(run_sample_eval(qrels, run, per_topic=args.per_topic))
    return 0
