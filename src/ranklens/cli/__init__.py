"""The ``ranklens`` command: one tool, its commands grouped by what users come to do.

Every error ranklens raises on purpose is printed as one line, ``ranklens: error: ...``,
with exit status 2; nothing heavier than argparse is imported before a subcommand runs.

A command lives in a module of this package with a ``register(commands)`` function that
adds its parser(s) and sets ``handler``; :data:`COMMAND_GROUPS` lists the modules and puts
each command in one group of ``ranklens --help`` (``tests/test_cli_vocabulary.py`` checks
that every command is in a group and takes the shared options of :mod:`._options`).
"""

from __future__ import annotations

import argparse
import importlib
import sys
import warnings
from collections.abc import Sequence
from typing import NoReturn

EXIT_ERROR = 2

COMMAND_GROUPS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "Evaluate and compare runs",
        ("eval", "compare", "report", "plot", "curve", "explain", "measures", "examples"),
    ),
    ("Reproduce a NIST tool exactly", ("trec-eval", "ndeval", "gdeval", "sample-eval", "expeval")),
    (
        "Judgments and judges",
        ("agreement", "leaderboard", "ppi", "judge-bias", "pool", "judge-next"),
    ),
    ("Experiment design", ("topics", "discriminate", "reproduction", "meta-analysis")),
    ("Generated answers (RAG)", ("rag",)),
    (
        "User logs",
        ("click-models", "click-qrels", "click-measures", "interleaving", "counterfactual"),
    ),
    ("Runs", ("fuse",)),
    ("Experiments", ("check", "run", "diff", "serve")),
)
"""The groups of ``ranklens --help``, in order: a title and its commands."""

COMMAND_MODULES: tuple[str, ...] = (
    "eval_command",
    "compare_command",
    "meta_analysis_command",
    "report_command",
    "plot_command",
    "curve_command",
    "explain_command",
    "measures_command",
    "examples_command",
    "trec_eval_command",
    "ndeval_command",
    "gdeval_command",
    "sample_eval_command",
    "expeval_command",
    "judges_command",
    "judge_bias_command",
    "pool_command",
    "judge_next_command",
    "topics_command",
    "discriminate_command",
    "fuse_command",
    "rag_command",
    "logs_command",
    "check_command",
    "run_command",
    "diff_command",
    "serve_command",
)
"""The modules of this package whose ``register(commands)`` adds commands."""


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line, like every other ranklens error, and
    that point to the help of the command they come from."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_ERROR, f"ranklens: error: {message} (see '{self.prog} --help')\n")


class _TopParser(_Parser):
    """The ``ranklens`` parser: its help lists the commands by group."""

    def format_help(self) -> str:
        import shutil
        import textwrap

        width = min(shutil.get_terminal_size((100, 24)).columns, 100) - 2
        helps = self._command_help()
        name_width = max(len(name) for name in helps) + 4
        sections = []
        for title, names in grouped_commands(helps):
            lines = [f"{title}:"]
            for name in names:
                lines.extend(
                    textwrap.wrap(
                        helps[name],
                        width=width,
                        initial_indent=f"  {name}".ljust(name_width),
                        subsequent_indent=" " * name_width,
                    )
                )
            sections.append("\n".join(lines))
        formatter = self._get_formatter()
        formatter.add_usage(self.usage, self._actions, self._mutually_exclusive_groups)
        formatter.add_text(textwrap.fill(self.description or "", width=width))
        formatter.add_text("\n\n".join(sections))
        for group in self._action_groups:
            if group.title in ("options", "optional arguments"):
                formatter.start_section(group.title)
                formatter.add_arguments([a for a in group._group_actions if a.dest != "command"])
                formatter.end_section()
        formatter.add_text(textwrap.fill(self.epilog or "", width=width))
        return formatter.format_help()

    def _command_help(self) -> dict[str, str]:
        for action in self._actions:
            if isinstance(action, argparse._SubParsersAction):
                return {c.dest: c.help or "" for c in action._choices_actions}
        return {}


def grouped_commands(helps: dict[str, str]) -> list[tuple[str, list[str]]]:
    """The commands of ``helps`` by :data:`COMMAND_GROUPS`; any command not in a group
    comes last, under "Other commands"."""
    grouped: list[tuple[str, list[str]]] = []
    placed: set[str] = set()
    for title, names in COMMAND_GROUPS:
        present = [name for name in names if name in helps]
        placed.update(present)
        if present:
            grouped.append((title, present))
    rest = [name for name in helps if name not in placed]
    if rest:
        grouped.append(("Other commands", rest))
    return grouped


def build_parser() -> argparse.ArgumentParser:
    """The parser of the ``ranklens`` command and its subcommands."""
    from ranklens.cli import _options

    parser = _TopParser(
        prog="ranklens",
        description=(
            "Evaluate rankings: trec_eval-exact IR, recommender and diversity measures, "
            "significance tests, judge agreement, plots and reports."
        ),
        epilog=(
            "Run 'ranklens COMMAND --help' for a command's options; 'ranklens eval --example' "
            "evaluates the bundled example."
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=_version())
    _options.add_plugin(parser, dest="plugin")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for module_name in COMMAND_MODULES:
        module = importlib.import_module(f"ranklens.cli.{module_name}")
        module.register(commands)
    for subparser in dict.fromkeys(commands.choices.values()):
        _options.add_plugin(subparser, dest="plugin_after")
    return parser


def _version() -> str:
    from ranklens.base.version import __version__

    return f"ranklens {__version__}"


def _subcommand_parser(
    parser: argparse.ArgumentParser, argv: Sequence[str]
) -> argparse.ArgumentParser:
    """The parser of the command named in ``argv`` (the top one if none is)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for arg in argv:
                if arg in action.choices:
                    chosen: argparse.ArgumentParser = action.choices[arg]
                    return chosen
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    _tune_numpy()
    arguments = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    try:
        args, unknown = parser.parse_known_args(arguments)
        if unknown:
            _subcommand_parser(parser, arguments).error(
                f"unrecognized arguments: {' '.join(unknown)}"
            )
    except SystemExit as exc:  # --help, --version and usage errors
        return exc.code if isinstance(exc.code, int) else EXIT_ERROR
    if args.command is None:
        parser.print_help()
        return EXIT_ERROR
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("default")  # print, never raise
            warnings.showwarning = _one_line_warning
            _import_plugins([*args.plugin, *(getattr(args, "plugin_after", None) or [])])
            _prepare(args)
            status: int = args.handler(args)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except SystemExit as exc:
        if isinstance(exc.__context__, BrokenPipeError):
            return 0  # rich ends the process so when the reader goes (| head): not a failure
        raise
    except Exception as exc:
        from ranklens.cli._options import in_cli_words

        line = in_cli_words(_error_line(exc), _subcommand_parser(parser, arguments))
        sys.stderr.write(f"ranklens: error: {line}\n")
        return EXIT_ERROR
    return status


def _prepare(args: argparse.Namespace) -> None:
    """What every command checks before its work: ``--example``'s values for the options
    left unset, and the MLflow options (:func:`ranklens.cli._inputs.check_mlflow_options`)."""
    from ranklens.cli import _inputs, _options

    _options.apply_example_defaults(args)
    _inputs.check_mlflow_options(args)


def _error_line(exc: Exception) -> str:
    """The one line printed for an exception that ended a command."""
    from ranklens.base.errors import RanklensError

    if isinstance(exc, RanklensError):
        return str(exc)
    if isinstance(exc, MemoryError):
        return (
            "out of memory: the input does not fit this machine's memory; evaluate fewer "
            "runs at once, or split the run by query"
        )
    if isinstance(exc, OSError):
        return f"{exc.filename or ''}: {exc.strerror or exc}".lstrip(": ")
    return (
        f"internal error ({type(exc).__name__}: {exc}); please report it with the command you ran"
    )


def _import_plugins(modules: Sequence[str]) -> None:
    """Import the ``--plugin`` modules (their measures are then known by name): a module
    name, or the path of a ``.py`` file. An error inside the plugin is the plugin's, named
    as such with its file and line."""
    from ranklens.cli._plugins import import_plugin

    for module in dict.fromkeys(modules):
        import_plugin(module)


def _one_line_warning(
    message: Warning | str,
    category: type[Warning] = UserWarning,
    filename: str = "",
    *args: object,
    **kwargs: object,
) -> None:
    """Warnings as one line on stderr (no source line, no file name of ranklens' own).

    A warning of another package is not shown as ranklens': its deprecations (MLflow's,
    SQLAlchemy's, ...: addressed to developers, not to the user of a command) are left
    out, and any other warning it gives names it (``ranklens: warning from sqlalchemy:
    ...``)."""
    origin = _warning_origin(category, filename)
    if origin is None:
        sys.stderr.write(f"ranklens: warning: {message}\n")
    elif not issubclass(category, DeprecationWarning | PendingDeprecationWarning | FutureWarning):
        sys.stderr.write(f"ranklens: warning from {origin}: {message}\n")


def _warning_origin(category: type[Warning], filename: str) -> str | None:
    """``None`` for a warning of ranklens (its class, or raised in its code or in a
    ``--plugin``'s), else the package that gave it (its top module, by file)."""
    import os

    if category.__module__.split(".")[0] == "ranklens":
        return None
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    path = os.path.abspath(filename) if filename else ""
    if not path or path.startswith(here + os.sep):
        return None
    parts = path.split(os.sep)
    for marker in ("site-packages", "dist-packages"):
        if marker in parts[:-1]:
            found = parts[parts.index(marker) + 1]
            return found.removesuffix(".py")
    return None  # a plugin's file, or code run from elsewhere: the user's own


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
