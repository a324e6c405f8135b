"""What the tests of the experiment workflow share (test_check, test_manifest, test_serve);
``run_cli`` also serves the command-line tests of test_judge_bias, test_meta_analysis and
test_cli_vocabulary."""

from __future__ import annotations

import contextlib
import io

from ranklens.cli import main


def run_cli(args: list[str]) -> tuple[int, str, str]:
    """``ranklens ARGS`` in this process: the exit status, stdout and stderr."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(args)
    return code, out.getvalue(), err.getvalue()
