"""Writing an output file safely: never over an input, never half-written.

:func:`write_atomically` writes to a temporary file in the destination's folder and renames
it into place (``os.replace``), so a reader never sees a partial file and a failure leaves
the old file as it was. It refuses, with :class:`~ranklens.base.errors.OptionError`:

* a destination that is one of the inputs (the same file, by device and inode, also through
  a link), whatever ``force`` says;
* an existing file or a symbolic link at the destination, unless ``force``; with ``force``
  a link is replaced by the new file (its target is left alone).

>>> import os, tempfile
>>> folder = tempfile.mkdtemp()
>>> path = os.path.join(folder, "out.html")
>>> write_atomically(path, "<p>hi</p>")
>>> with open(path) as written:
...     written.read()
'<p>hi</p>'
>>> write_atomically(path, "again")
Traceback (most recent call last):
...
ranklens.base.errors.OptionError: ... exists; give --force to overwrite it
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterable

from ranklens.base.errors import OptionError

PathLike = str | os.PathLike[str]


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def check_destination(path: PathLike, inputs: Iterable[object] = (), force: bool = False) -> None:
    """Raise :class:`OptionError` if ``path`` may not be written (see the module)."""
    target = os.fspath(path)
    for source in inputs:
        if not isinstance(source, str | os.PathLike):
            continue
        name = str(os.fspath(source))
        if name != "-" and _same_file(target, name):
            raise OptionError(f"{target} is one of the input files; choose another output file")
    if os.path.islink(target) and not force:
        raise OptionError(
            f"{target} is a symbolic link; give --force to replace the link (its target is "
            "left alone)"
        )
    if os.path.lexists(target) and not force:
        raise OptionError(f"{target} exists; give --force to overwrite it")
    if os.path.isdir(target):
        raise OptionError(f"{target} is a directory; name a file")


def write_atomically(
    path: PathLike,
    content: str | bytes,
    *,
    inputs: Iterable[object] = (),
    force: bool = False,
) -> None:
    """Write ``content`` (text as UTF-8) to ``path`` through a temporary file and a rename.

    Raises
    ------
    OptionError
        ``path`` is an input, or exists (or is a link) and ``force`` is false, or its folder
        cannot be written.
    """
    check_destination(path, inputs, force)
    target = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(target))
    data = content.encode("utf-8") if isinstance(content, str) else content
    try:
        descriptor, temporary = tempfile.mkstemp(
            dir=folder, prefix=f".{os.path.basename(target)}.", suffix=".tmp"
        )
    except OSError as exc:
        raise OptionError(f"cannot write in {folder}: {exc.strerror or exc}") from None
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, 0o644)
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
