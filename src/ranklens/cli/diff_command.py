"""``ranklens diff A B``: which numbers changed between two results files and why (inputs
changed, by hash; options changed; ranklens version changed). Exit status as diff's: 0
the same, 1 different, 2 an error (see :mod:`ranklens.workflow.diff`)."""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from typing import Any

from ranklens.cli import _options

EXIT_DIFFERENT = 1


def register(commands: Any) -> None:
    """Add the ``diff`` subcommand."""
    p = commands.add_parser(
        "diff",
        help="what changed between two results files, and why (inputs, options, version)",
        description=(
            "Compare two results files of 'ranklens run': each aggregate, comparison "
            "statistic and group mean that changed (with how many queries changed), after "
            "the causes: inputs that changed (by sha256), options that changed, another "
            "ranklens version. Exit status: 0 the same, 1 different, 2 an error."
        ),
    )
    p.add_argument("a", nargs="?", metavar="A", help="the first results file")
    p.add_argument("b", nargs="?", metavar="B", help="the second results file")
    _options.add_format(p, ("table", "json"), help_text="output: table (one change a line)")
    _options.add_output(p, "the differences")
    _options.add_example(
        p,
        "diff",
        help_text="tell apart two runs of the bundled example: bm25 against rerank, then "
        "against dense",
    )
    _options.add_quiet(p, "the one-line verdict")
    p.set_defaults(handler=run_diff)


def run_diff(args: argparse.Namespace) -> int:
    """Handle ``ranklens diff``."""
    from ranklens.base.errors import OptionError
    from ranklens.workflow.diff import diff_results
    from ranklens.workflow.store import load_results

    if args.example:
        if args.a is not None:
            raise OptionError("--example takes no files: it runs the bundled example twice")
        from ranklens.workflow.examples import write_example_manifest
        from ranklens.workflow.experiment import run_experiment

        with tempfile.TemporaryDirectory() as folder:
            first = run_experiment(write_example_manifest(folder, "first"))[0]
            second = run_experiment(write_example_manifest(folder, "second", ("bm25", "dense")))[0]
    else:
        if args.a is None or args.b is None:
            raise OptionError("give two results files (or --example)")
        _options.check_output(args, [args.a, args.b])
        first, second = load_results(args.a), load_results(args.b)
    found = diff_results(first, second)
    with _options.output_stream(args, [args.a, args.b]) as out:
        if args.format == "json":
            out.write(json.dumps(found.to_dict(), ensure_ascii=False) + "\n")
        else:
            out.writelines(f"{line}\n" for line in found.lines())
    sys.stdout.flush()  # the differences before the verdict, also when both are piped
    if not args.quiet:
        verdict = "the same" if found.same else f"{len(found.numbers)} numbers differ"
        sys.stderr.write(f"ranklens: {verdict}\n")
    return 0 if found.same else EXIT_DIFFERENT
