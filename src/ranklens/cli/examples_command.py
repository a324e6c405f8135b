"""``ranklens examples [DIR]``: write the bundled example as the files the documentation
names (``qrels.txt``, ``run.txt``, ``bm25.run``, ``rerank.run``, ``prefs.txt``)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ranklens.cli import _options


def register(commands: Any) -> None:
    """Add the ``examples`` subcommand."""
    p = commands.add_parser(
        "examples",
        help="write the bundled example files (qrels.txt, run.txt, ...) that the docs use",
        description=(
            "Write the bundled example (TREC DL 2019 passage qrels, runs bm25 and rerank) as "
            "plain TREC files under the names the README and the docs use: qrels.txt, "
            "run.txt (the rerank run), bm25.run, rerank.run and prefs.txt (the qrels as "
            "trec_eval's preference file). Every example of the documentation then runs as "
            "written in that folder."
        ),
    )
    p.add_argument("directory", nargs="?", default=".", help="where to write (default: here)")
    p.add_argument("--force", action="store_true", help="replace files already there")
    _options.add_quiet(p, "the names of the files written")
    p.add_argument(
        "--example",
        action="store_true",
        help="accepted as by every command: the bundled example is what this command writes",
    )
    p.set_defaults(handler=run_examples)


def run_examples(args: argparse.Namespace) -> int:
    """Handle ``ranklens examples``."""
    from ranklens.data.examples import write_example_files

    written = write_example_files(args.directory, force=args.force)
    if not args.quiet:
        if written:
            sys.stderr.write(f"ranklens: wrote {', '.join(str(p) for p in written)}\n")
        else:
            sys.stderr.write("ranklens: the example files are already there, unchanged\n")
    return 0
