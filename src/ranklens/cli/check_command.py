"""``ranklens check RUN [--qrels QRELS] [--depth N]`` and ``ranklens check ANSWERS --rag``:
every defect of a run file or a TREC RAG answer file, one line each (``FILE:LINE: what is
wrong``); exit 0 without defects (warnings allowed), 1 with any, 2 when the file cannot be
read (see :func:`ranklens.workflow.checks.check`)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ranklens.cli import _options

EXIT_DEFECTS = 1


def register(commands: Any) -> None:
    """Add the ``check`` subcommand."""
    p = commands.add_parser(
        "check",
        help="validate a run file (or a RAG answer file): every defect, one line each",
        description=(
            "Check a TREC run file and report every defect at its line, as FILE:LINE: what is "
            "wrong: a line without 6 columns, a score that is not a finite number, a rank "
            "that is not an integer, a repeated (query, document), a second run tag, more "
            "than --depth documents for a query, an empty file. Warnings (legal but "
            "suspicious): tied scores, ranks that disagree with the scores, and with --qrels "
            "queries the qrels lack and documents never judged. With --rag the file is a TREC "
            "RAG answer file (JSON lines): malformed JSON, missing fields, citations outside "
            "the references, answers over --max-words, a topic answered twice. Exit status: "
            "0 no defect, 1 defects, 2 the file cannot be read."
        ),
    )
    p.add_argument("path", nargs="?", metavar="RUN", help="the run file (or answers, with --rag)")
    p.add_argument("--qrels", metavar="QRELS", help="judgments to hold the run against")
    p.add_argument(
        "--depth", type=int, metavar="N", help="the most documents a query may have (default: any)"
    )
    p.add_argument("--rag", action="store_true", help="the file is a TREC RAG answer file")
    p.add_argument(
        "--max-words",
        type=int,
        default=400,
        metavar="N",
        help="with --rag: the answer length limit in words (400, TREC RAG's)",
    )
    _options.add_format(p, ("table", "json"), help_text="output: table (one finding a line)")
    _options.add_output(p, "the findings")
    _options.add_example(
        p, "check", help_text="check the bundled bm25 run against the bundled qrels, depth 1000"
    )
    _options.add_quiet(p, "the count of defects and warnings")
    p.set_defaults(handler=run_check)


def run_check(args: argparse.Namespace) -> int:
    """Handle ``ranklens check``."""
    from ranklens.base.errors import OptionError
    from ranklens.workflow.checks import check

    if args.example:
        from ranklens.data.examples import example_paths

        if args.path is not None or args.rag:
            raise OptionError("--example takes no file: it checks the bundled bm25 run")
        qrels, runs = example_paths()
        args.path, args.qrels = str(runs[0]), args.qrels or str(qrels)
        args.depth = args.depth or 1000
    if args.path is None:
        raise OptionError("give the file to check (or --example)")
    if args.rag and (args.qrels is not None or args.depth is not None):
        raise OptionError("--qrels and --depth check runs, not RAG answers (--rag)")
    inputs = [args.path, args.qrels]
    _options.check_output(args, inputs)
    if args.rag:
        found = check(args.path, rag=True, max_words=args.max_words)
    else:
        found = check(args.path, qrels=args.qrels, depth=args.depth)
    with _options.output_stream(args, inputs) as out:
        if args.format == "json":
            out.write(json.dumps(found.to_dict(), ensure_ascii=False) + "\n")
        else:
            out.writelines(f"{finding}\n" for finding in found)
    sys.stdout.flush()  # the findings before the summary, also when both are piped
    if not args.quiet:
        defects, warnings = len(found.defects), len(found.warnings)
        sys.stderr.write(
            f"ranklens: {found.file}: {defects} defect{'s' * (defects != 1)}, "
            f"{warnings} warning{'s' * (warnings != 1)}\n"
        )
    return 0 if found.ok else EXIT_DEFECTS
