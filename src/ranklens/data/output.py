"""Writing an output file safely: never over an input, never half-written.

:func:`write_atomically` writes to a temporary file in the destination's folder and renames
it into place (``os.replace``), so a reader never sees a partial file and a failure leaves
the old file as it was. It refuses, with :class:`~ranklens.base.errors.OptionError`:

* a destination that is one of the inputs (the same file, by device and inode, also through
  a link), whatever ``force`` says;
* an existing file or a symbolic link at the destination, unless ``force``; with ``force``
  a link is replaced by the new file (its target is left alone).

A new file gets the permissions ``open`` gives (``0o666`` less the umask); a file replaced
with ``force`` keeps its mode (a private ``0600`` file stays private).

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
import stat
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


def _umask() -> int:
    """The process's umask, read without changing it where the system tells it (Linux)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)  # elsewhere: read it by setting it, and put it back at once
    os.umask(mask)
    return mask


def _mode_for(target: str) -> int:
    """The permissions of the new file: those of the regular file it replaces, else what
    ``open`` would give a new file (``0o666`` less the umask)."""
    try:
        info = os.lstat(target)
    except OSError:
        info = None
    if info is not None and stat.S_ISREG(info.st_mode):
        return stat.S_IMODE(info.st_mode)
    return 0o666 & ~_umask()


def write_atomically(
    path: PathLike,
    content: str | bytes | Iterable[bytes],
    *,
    inputs: Iterable[object] = (),
    force: bool = False,
) -> None:
    """Write ``content`` (text as UTF-8, or an iterable of byte chunks, written as they
    come) to ``path`` through a temporary file and a rename.

    A new file gets the permissions ``open`` would give it (``0o666`` less the umask); a
    file replaced with ``force`` keeps its own. If anything fails or interrupts the write
    (an exception from ``content``, a full disk, ``KeyboardInterrupt``), the temporary file
    is removed and ``path`` is left as it was.

    Raises
    ------
    OptionError
        ``path`` is an input, or exists (or is a link) and ``force`` is false, or its folder
        cannot be written.
    """
    check_destination(path, inputs, force)
    target = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(target))
    if isinstance(content, str):
        chunks: Iterable[bytes] = (content.encode("utf-8"),)
    elif isinstance(content, bytes | bytearray | memoryview):
        chunks = (bytes(content),)
    else:
        chunks = content
    mode = _mode_for(target)
    temporary: str | None = None
    try:
        try:
            descriptor, temporary = tempfile.mkstemp(
                dir=folder, prefix=f".{os.path.basename(target)}.", suffix=".tmp"
            )
        except OSError as exc:
            raise OptionError(f"cannot write in {folder}: {exc.strerror or exc}") from None
        with os.fdopen(descriptor, "wb") as handle:
            for chunk in chunks:
                handle.write(chunk)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, target)
    except BaseException:
        if temporary is not None:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
        raise
