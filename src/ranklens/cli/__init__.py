"""The ``ranklens`` command: ``eval`` and ``measures``.

Every error ranklens raises on purpose is printed as one line, ``ranklens: error: ...``,
with exit status 2; nothing heavier than argparse is imported before a subcommand runs.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Sequence
from typing import NoReturn

EXIT_ERROR = 2


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line, like every other ranklens error."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_ERROR, f"ranklens: error: {message} (see '{self.prog} --help')\n")


def build_parser() -> argparse.ArgumentParser:
    """The parser of the ``ranklens`` command and its subcommands."""
    from ranklens.cli import curve_command, eval_command, measures_command, trec_eval_command
    from ranklens.cli.compare_command import register as register_compare
    from ranklens.cli.discriminate_command import register as register_discriminate
    from ranklens.cli.examples_command import register as register_examples
    from ranklens.cli.expeval_command import register as register_expeval
    from ranklens.cli.explain_command import register as register_explain
    from ranklens.cli.fuse_command import register as register_fuse
    from ranklens.cli.gdeval_command import register as register_gdeval
    from ranklens.cli.judge_next_command import register as register_judge_next
    from ranklens.cli.judges_command import register as register_judges
    from ranklens.cli.ndeval_command import register as register_ndeval
    from ranklens.cli.plot_command import register as register_plot
    from ranklens.cli.pool_command import register as register_pool
    from ranklens.cli.report_command import register as register_report
    from ranklens.cli.sample_eval_command import register as register_sample_eval
    from ranklens.cli.topics_command import register as register_topics

    parser = _Parser(
        prog="ranklens",
        description="Evaluate rankings: trec_eval-exact IR measures, fast.",
        epilog="Run 'ranklens COMMAND --help' for a command's options.",
    )
    parser.add_argument("--version", action="version", version=_version())
    parser.add_argument(
        "--plugin",
        action="append",
        default=[],
        metavar="MODULE",
        help="import MODULE first (a module that defines measures with "
        "ranklens.define_measure); may be repeated",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    eval_command.register(commands)
    measures_command.register(commands)
    trec_eval_command.register(commands)
    register_ndeval(commands)
    register_gdeval(commands)
    register_sample_eval(commands)
    register_expeval(commands)
    curve_command.register(commands)
    register_compare(commands)
    register_topics(commands)
    register_discriminate(commands)
    register_explain(commands)
    register_plot(commands)
    register_report(commands)
    register_examples(commands)
    register_fuse(commands)
    register_judges(commands)
    register_pool(commands)
    register_judge_next(commands)
    return parser


def _version() -> str:
    from ranklens.base.version import __version__

    return f"ranklens {__version__}"


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    _tune_numpy()
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version and usage errors
        return exc.code if isinstance(exc.code, int) else EXIT_ERROR
    if args.command is None:
        parser.print_help()
        return EXIT_ERROR
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("default")  # print, never raise
            warnings.showwarning = _one_line_warning
            _import_plugins(args.plugin)
            status: int = args.handler(args)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:
        from ranklens.base.errors import RanklensError

        if isinstance(exc, RanklensError):
            message = str(exc)
        elif isinstance(exc, MemoryError):
            message = (
                "out of memory: the input does not fit this machine's memory; evaluate fewer "
                "runs at once, or split the run by query"
            )
        elif isinstance(exc, OSError):
            message = f"{exc.filename or ''}: {exc.strerror or exc}".lstrip(": ")
        else:
            message = (
                f"internal error ({type(exc).__name__}: {exc}); please report it with the "
                "command you ran"
            )
        sys.stderr.write(f"ranklens: error: {message}\n")
        return EXIT_ERROR
    return status


def _import_plugins(modules: Sequence[str]) -> None:
    """Import the ``--plugin`` modules (their measures are then known by name)."""
    import importlib
    import os

    from ranklens.base.errors import OptionError

    if modules and os.getcwd() not in sys.path and "" not in sys.path:
        sys.path.append(os.getcwd())  # a plugin beside the data, as with ``python -m``
    for module in modules:
        try:
            importlib.import_module(module)
        except ImportError as exc:
            raise OptionError(
                f"--plugin {module}: cannot import it ({exc}); give an importable module name "
                "(on sys.path, e.g. in the current folder or installed)"
            ) from None


def _one_line_warning(message: Warning | str, *args: object, **kwargs: object) -> None:
    """Warnings as one line on stderr (no source line, no file name of ranklens' own)."""
    sys.stderr.write(f"ranklens: warning: {message}\n")


def _tune_numpy() -> None:
    """Ask numpy not to madvise huge pages for the arrays of this process.

    On kernels whose transparent-huge-page ``defrag`` is ``madvise`` (a common default),
    the first touch of each large numpy array may stall on memory compaction: about 30% of
    the time on a 7-million-line run. The command owns its process, so it can choose; the
    library never changes this setting (see benchmarks/README.md for Python users).
    """
    if "numpy" not in sys.modules:
        import os

        os.environ.setdefault("NUMPY_MADVISE_HUGEPAGE", "0")


def entry() -> NoReturn:
    """Console-script entry point."""
    sys.exit(main())
