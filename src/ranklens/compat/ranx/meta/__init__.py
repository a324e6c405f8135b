"""ranx's ``evaluate``, ``compare``, ``fuse`` and ``normalize`` (``ranx.meta``), computed by
ranklens."""

from ranklens.compat.ranx.meta.compare import compare
from ranklens.compat.ranx.meta.evaluate import evaluate
from ranklens.compat.ranx.meta.fuse import fuse
from ranklens.compat.ranx.meta.normalize import normalize

__all__ = ["compare", "evaluate", "fuse", "normalize"]
