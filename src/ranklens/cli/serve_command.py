"""``ranklens serve DIR --port N``: a local web page over every results file under DIR
(see :mod:`ranklens.workflow.server`)."""

from __future__ import annotations

import argparse
import sys
import tempfile
from typing import Any

from ranklens.cli import _options


def register(commands: Any) -> None:
    """Add the ``serve`` subcommand."""
    p = commands.add_parser(
        "serve",
        help="browse the results files under a folder in a local web page",
        description=(
            "Serve a local web page (no network access; bound to 127.0.0.1 unless --host "
            "says otherwise) over every results file of 'ranklens run' under DIR: the "
            "experiments, their runs and measures, the comparisons with significance, what "
            "changed between two of them, and each experiment's HTML report (per-query "
            "drill-down and plots), rendered on request. Ctrl-C stops it."
        ),
    )
    p.add_argument("folder", nargs="?", metavar="DIR", help="the folder of the results files")
    p.add_argument(
        "--port", type=int, default=8765, metavar="N", help="the port (8765; 0: any free one)"
    )
    p.add_argument(
        "--host",
        default="127.0.0.1",
        help="the address to bind (127.0.0.1: this machine only; 0.0.0.0 opens it to the network)",
    )
    _options.add_example(p, "serve", help_text="serve an experiment over the bundled example")
    _options.add_quiet(p, "the address served and the requests")
    p.set_defaults(handler=run_serve)


def run_serve(args: argparse.Namespace) -> int:
    """Handle ``ranklens serve``."""
    from ranklens.base.errors import OptionError

    if args.example:
        if args.folder is not None:
            raise OptionError("--example takes no folder: it serves the bundled example")
        from ranklens.workflow.examples import write_example_manifest
        from ranklens.workflow.experiment import write_experiment

        with tempfile.TemporaryDirectory() as folder:
            write_experiment(write_example_manifest(folder))
            return _serve(folder, args)
    if args.folder is None:
        raise OptionError("give the folder of the results files (or --example)")
    return _serve(args.folder, args)


def _serve(folder: str, args: argparse.Namespace) -> int:
    from ranklens.workflow.server import address_of, make_server

    def log(line: str) -> None:
        sys.stderr.write(f"ranklens: {line}\n")

    server = make_server(folder, host=args.host, port=args.port, log=None if args.quiet else log)
    host, port = address_of(server)
    if not args.quiet:
        count = len(server.RequestHandlerClass.store.paths())  # type: ignore[attr-defined]
        sys.stderr.write(
            f"ranklens: serving {count} results file{'s' * (count != 1)} of {folder} at "
            f"http://{host}:{port}/ (Ctrl-C stops)\n"
        )
        sys.stderr.flush()
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0
