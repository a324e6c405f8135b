"""The progress bar of long commands: a rich bar on stderr, only on a terminal.

:func:`progress_bar` is the one place the command line gets a
:data:`~ranklens.base.progress.Progress` callback from. It yields ``None`` (nothing is
shown, nothing is slowed) when disabled (``--quiet``) or when stderr is not a terminal
(piped, a file, a CI log); otherwise a callback that moves a transient bar (erased when
the block ends). The bar redraws itself at most ten times a second on rich's own thread,
so a callback costs a lock and an assignment; it may be called from any thread.

Use::

    with progress_bar("randomization test", enabled=not args.quiet) as progress:
        result = compare(..., progress=progress)
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO

from ranklens.base.progress import Progress


@contextmanager
def progress_bar(
    description: str, *, enabled: bool = True, stream: IO[str] | None = None
) -> Iterator[Progress | None]:
    """A ``progress(done, total)`` callback drawing a bar on ``stream`` (stderr), or None.

    Parameters
    ----------
    description
        What the bar is for, shown before it (``"compare: randomization test"``).
    enabled
        False gives None (the command's ``--quiet``).
    stream
        Where to draw (default: ``sys.stderr`` at the time of the call); None is yielded
        when it is not a terminal.
    """
    out = sys.stderr if stream is None else stream
    if not enabled or not _is_terminal(out):
        yield None
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=Console(file=out),
        transient=True,
        refresh_per_second=10,
    ) as bar:
        task = bar.add_task(description, total=None)

        def progress(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        yield progress


def _is_terminal(stream: IO[str]) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # no isatty, or closed
        return False
