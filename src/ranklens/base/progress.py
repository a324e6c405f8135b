"""Progress callbacks: how long-running library functions say how far they are.

Library code never prints. A function whose work can take long (a streamed run, many
permutations or resamples, a grid search, a cluster evaluation) takes a keyword
``progress: Progress | None = None`` and, when it is given, calls ``progress(done, total)``
now and then: ``done`` units of work of ``total`` finished (``0 <= done <= total``; the
units are the function's own: permutations, bytes, grid points, partitions). The front end
decides what to show: the command line passes a rich bar on stderr when stderr is a
terminal (:func:`ranklens.presentation.progress.progress_bar`), and nothing when piped or
``--quiet``.

Call it once per chunk of work, not per item: the callback costs a lock and a few
attribute updates. A function made of several stages gives each its share of one total
with :func:`stage`.

>>> seen = []
>>> def progress(done, total):
...     seen.append((done, total))
>>> first, second = stage(progress, 0, 10, 30), stage(progress, 10, 20, 30)
>>> first(5, 5); second(1, 4); second(4, 4)
>>> seen
[(10, 30), (15, 30), (30, 30)]
>>> stage(None, 0, 1, 1) is None
True
"""

from __future__ import annotations

from collections.abc import Callable

Progress = Callable[[int, int], None]
"""``progress(done, total)``: ``done`` of ``total`` units of work finished."""


def stage(progress: Progress | None, start: int, size: int, total: int) -> Progress | None:
    """The callback of one stage of a longer task: the stage's ``(done, of)`` becomes
    ``(start + size * done / of, total)`` on ``progress`` (None stays None)."""
    if progress is None:
        return None
    outer = progress

    def report(done: int, of: int) -> None:
        share = size * done // of if of > 0 else size
        outer(min(start + share, total), total)

    return report


def report(progress: Progress | None, done: int, total: int) -> None:
    """Call ``progress(done, total)`` when there is a callback."""
    if progress is not None:
        progress(done, total)
