"""ranx's file helpers (``ranx.io``): JSON and LZ4 (CBOR inside LZ4) files.

``download`` and ranxhub are not here: ranklens reads nothing from the network.
"""

from __future__ import annotations

import os
from typing import Any

from ranklens.compat.ranx import _convert
from ranklens.compat.ranx._errors import ranx_errors

__all__ = ["load_json", "load_lz4", "save_json", "save_lz4"]


@ranx_errors
def load_json(path: str | os.PathLike[str]) -> Any:
    """The content of a JSON file."""
    return _convert.read_json(path)


def save_json(x: Any, path: str | os.PathLike[str]) -> None:
    """Write ``x`` as JSON, indented by two spaces."""
    _convert.write_json(x, path)


@ranx_errors
def load_lz4(path: str | os.PathLike[str]) -> Any:
    """The content of one of ranx's LZ4 files (a run, or a ranxhub ``.rh`` file)."""
    return _convert.read_lz4(path)


def save_lz4(content: Any, path: str | os.PathLike[str]) -> None:
    """Write ``content`` as ranx's LZ4 file (CBOR, compressed with LZ4, in an LZ4 frame)."""
    _convert.write_lz4(content, path)
