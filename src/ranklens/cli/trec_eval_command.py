"""``ranklens trec-eval``: trec_eval 10.0's command line and output, byte for byte.

Exit codes follow trec_eval: 1 for a usage error or an unknown measure, 2 for unreadable or
malformed input and bad measure parameters, 4 for duplicate documents and (without ``-c``)
a qrels query missing from the run, 7 when no query can be evaluated. Messages are one line
and name the file and line.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ranklens.cli import _options

TREC_EVAL_VERSION = "10.0"


def register(commands: Any) -> None:
    """Add the ``trec-eval`` subcommand."""
    p = commands.add_parser(
        "trec-eval",
        help="trec_eval 10.0's command line and output (a drop-in replacement)",
        description=(
            "A drop-in replacement for NIST trec_eval 10.0: the same options and the same "
            "output, byte for byte. With --v9, trec_eval 9.0.8's behaviour (the version "
            "inside pytrec_eval): float32 scores, +0.9 recall-level rounding, and queries "
            "evaluated only where run and qrels meet."
        ),
        epilog=(
            "Measures: trec_eval's names (map, P.5,10, ndcg_cut.10, utility.2,-1,0,0, "
            "rbp.p=0.8, ...) and nicknames official (default), all_trec, set, prefs, "
            "all_prefs, qrels_jg. 'ranklens measures' lists the ranklens measures behind them."
        ),
    )
    p.add_argument("qrels", nargs="?", help="relevance file ('-' for stdin)")
    p.add_argument("run", nargs="?", help="results file in trec_results format ('-' for stdin)")
    add = p.add_argument
    add("-q", "--query_eval_wanted", action="store_true", help="also print per-query values")
    add("-m", "--measure", action="append", default=[], metavar="MEASURE[.PARAMS]")
    add(
        "-c",
        "--complete_rel_info_wanted",
        action="store_true",
        help="average over every qrels query; one missing from the run scores 0",
    )
    add(
        "-l",
        "--level_for_rel",
        type=int,
        default=1,
        metavar="N",
        help="relevance level: a document is relevant if its grade >= N (default 1)",
    )
    add("-n", "--nosummary", action="store_true", help="no summary over all queries")
    add(
        "-D",
        "--Debug_level",
        default=None,
        metavar="N[.QID]",
        help="debug level (ignored); N.QID evaluates only query QID",
    )
    add(
        "-J",
        "--Judged_docs_only",
        action="store_true",
        help="drop unjudged documents from each ranking first",
    )
    add(
        "-N",
        "--Number_docs_in_coll",
        type=int,
        default=0,
        metavar="N",
        help="documents in the collection (for utility)",
    )
    add(
        "-M",
        "--Max_retrieved_per_topic",
        type=int,
        default=None,
        metavar="N",
        help="only the top N documents of each ranking",
    )
    add(
        "-R",
        "--Relevance_format",
        default="qrels",
        help="qrels (default), qrels_jg, prefs or qrels_prefs",
    )
    add("-T", "--Results_format", default="trec_results", help="trec_results (the only one)")
    add("-Z", "--Zscore", default=None, metavar="FILE", help="print z-scores using FILE")
    add("-o", "--Obsolete", action="store_true", help="ignored")
    add(
        "-v",
        "--version",
        action="store_true",
        dest="show_version",
        help="print the trec_eval version this follows and exit",
    )
    add("--v9", action="store_true", help="behave as trec_eval 9.0.8 (as pytrec_eval)")
    add(
        "--example",
        action="store_true",
        help="evaluate the bundled example (TREC DL 2019 passage qrels, the bm25 run)",
    )
    _options.add_stream(p)
    _options.add_quiet(p)
    p.set_defaults(handler=run_trec_eval)


def _one_line(message: str) -> str:
    parts = [m.removeprefix("trec_eval: ").strip() for m in message.splitlines() if m.strip()]
    return "; ".join(parts)


def run_trec_eval(args: argparse.Namespace) -> int:
    """Handle ``ranklens trec-eval``."""
    if args.show_version:
        sys.stderr.write(f"trec_eval version {TREC_EVAL_VERSION} (ranklens)\n")
        return 0
    from ranklens.base.errors import DuplicateError, InputError, MeasureError
    from ranklens.frontends.trec_eval.runner import TrecOptions, trec_eval
    from ranklens.measures.trec_table import TrecUsageError

    def fail(message: str, code: int) -> int:
        sys.stderr.write(f"ranklens trec-eval: error: {_one_line(message)}\n")
        return code

    if args.Results_format != "trec_results":
        return fail(f"Illegal retrieval results format '{args.Results_format}'", 2)
    if args.example:
        if args.qrels is not None:
            return fail("--example takes no files: it uses the bundled example data", 1)
        from ranklens.data.examples import example_paths

        qrels_path, run_paths = example_paths()
        args.qrels, args.run = str(qrels_path), str(run_paths[0])
    if args.qrels is None or args.run is None:
        return fail("give a relevance file and a results file (or --example)", 1)
    if args.qrels == "-" and args.run == "-":
        return fail("only one of the files can be '-' (stdin)", 1)
    only_query = None
    if args.Debug_level is not None and "." in args.Debug_level:
        only_query = args.Debug_level.split(".", 1)[1]
    if args.Max_retrieved_per_topic is not None and args.Max_retrieved_per_topic < 1:
        return fail("-M needs a positive number of documents", 1)
    if args.Max_retrieved_per_topic is not None:  # trec_eval's atol saturates at LONG_MAX
        args.Max_retrieved_per_topic = min(args.Max_retrieved_per_topic, 2**63 - 1)
    opts = TrecOptions(
        measures=tuple(args.measure),
        per_query=args.query_eval_wanted,
        complete=args.complete_rel_info_wanted,
        no_summary=args.nosummary,
        level=args.level_for_rel,
        depth=args.Max_retrieved_per_topic,
        judged_only=args.Judged_docs_only,
        num_docs=args.Number_docs_in_coll,
        rel_format=args.Relevance_format,
        zscores=args.Zscore,
        only_query=only_query,
        v9=args.v9,
        stream=args.stream,
    )
    try:
        text = trec_eval(args.qrels, args.run, opts)
    except TrecUsageError as exc:
        return fail(str(exc), exc.code)
    except DuplicateError as exc:
        return fail(str(exc), 4)
    except InputError as exc:
        return fail(str(exc), 2)
    except MeasureError as exc:
        return fail(str(exc), 2)
    sys.stdout.write(text)
    return 0
