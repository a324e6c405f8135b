"""Importing ``--plugin`` modules: a module name or a ``.py`` file, with the plugin's own
errors reported as the plugin's (its file and line), never as ranklens' internal error."""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
import traceback
from pathlib import Path
from types import ModuleType

from ranklens.base.errors import OptionError


def import_plugin(spec: str) -> ModuleType:
    """Import the plugin ``spec``: a ``.py`` file (absolute or relative) or a module name
    importable from ``sys.path`` or the current folder.

    Raises :class:`~ranklens.base.errors.OptionError` with one line: the module cannot be
    found, it has a syntax error (file and line), or its code raised (the exception and
    the plugin's line where it was raised).
    """
    if spec.endswith(".py") or os.sep in spec or (os.altsep and os.altsep in spec):
        return _import_file(spec)
    if os.getcwd() not in sys.path and "" not in sys.path:
        sys.path.append(os.getcwd())  # a plugin beside the data, as with ``python -m``
    try:
        found = importlib.util.find_spec(spec)
    except (ImportError, ValueError) as exc:
        found = None
        reason = str(exc)
    else:
        reason = f"no module named {spec!r}"
    if found is None:
        raise OptionError(
            f"--plugin {spec}: cannot import it ({reason}); give an importable module name "
            "(on sys.path, e.g. in the current folder or installed) or the path of a .py file"
        )
    try:
        return importlib.import_module(spec)
    except Exception as exc:
        raise OptionError(_plugin_failure(spec, exc)) from None


def _import_file(spec: str) -> ModuleType:
    path = Path(spec)
    if not path.is_file():
        raise OptionError(f"--plugin {spec}: no such file; give the path of a .py file")
    name = f"ranklens_plugin_{path.stem}"
    if name in sys.modules:
        return sys.modules[name]
    module_spec = importlib.util.spec_from_file_location(name, path)
    if module_spec is None or module_spec.loader is None:
        raise OptionError(f"--plugin {spec}: cannot load it as a Python module")
    module = importlib.util.module_from_spec(module_spec)
    sys.modules[name] = module
    try:
        module_spec.loader.exec_module(module)
    except Exception as exc:
        del sys.modules[name]
        raise OptionError(_plugin_failure(spec, exc)) from None
    return module


def _plugin_failure(spec: str, exc: Exception) -> str:
    """One line: where in the plugin it failed, and how."""
    if isinstance(exc, SyntaxError):
        where = f"{exc.filename}:{exc.lineno}" if exc.lineno else str(exc.filename or spec)
        return f"--plugin {spec}: syntax error at {where}: {exc.msg}; fix the plugin"
    frames = traceback.extract_tb(exc.__traceback__)
    own = [
        frame
        for frame in frames
        if "importlib" not in frame.filename and "/ranklens/cli/" not in frame.filename
    ]
    where = f" at {own[-1].filename}:{own[-1].lineno}" if own else ""
    detail = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    return (
        f"--plugin {spec}: the plugin raised {detail}{where} while it was imported; "
        "this is an error in the plugin, not in ranklens"
    )
