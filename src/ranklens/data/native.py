"""The native core, or its numpy fallback: ``from ranklens.data.native import core``.

``core`` is the C module ``ranklens.data._core`` when it was built and imports; otherwise
:mod:`ranklens.data.native_fallback`, the same functions in numpy with identical results
and error messages, only slower (parsing TREC text most of all). The fallback is chosen

* when the environment variable ``RANKLENS_NATIVE`` is ``0`` (to test it, or to rule the C
  code out), silently;
* when the C module cannot be imported (an install without a C compiler, or a broken
  build), with one ``RuntimeWarning`` saying so and how to get the fast build.

Every module of ranklens reaches the core through this one, so the choice is made once,
when it is first imported.
"""

from __future__ import annotations

import os
import warnings
from types import ModuleType
from typing import TYPE_CHECKING

__all__ = ["FALLBACK_WARNING", "core", "is_native"]

FALLBACK_WARNING = (
    "ranklens: the native core (ranklens.data._core) could not be imported ({error}); "
    "using the numpy fallback, which gives the same results but is slower (parsing "
    "several times). For the fast build install a binary wheel "
    "(pip install --only-binary ranklens ranklens) or install a C compiler and "
    "reinstall (pip install --force-reinstall --no-binary ranklens ranklens). "
    "Set RANKLENS_NATIVE=0 to choose the fallback without this warning."
)


def _load() -> ModuleType:
    # The fallback is imported only when it is chosen: importing it took about 10 ms, a
    # sixth of all of ranklens' imports on the evaluation path (measured 2026-11-27).
    if os.environ.get("RANKLENS_NATIVE", "").strip() == "0":
        from ranklens.data import native_fallback

        return native_fallback
    try:
        from ranklens.data import _core
    except ImportError as exc:
        warnings.warn(FALLBACK_WARNING.format(error=exc), RuntimeWarning, stacklevel=2)
        from ranklens.data import native_fallback

        return native_fallback
    return _core


if TYPE_CHECKING:
    from ranklens.data import _core as core
else:
    core = _load()


def is_native() -> bool:
    """Whether ``core`` is the C module (``False``: the numpy fallback)."""
    return not core.__name__.endswith("native_fallback")
