"""ranx's ``evaluate``, ``compare``, ``fuse``, ``normalize`` and ``optimize_fusion``
(``ranx.meta``), computed by ranklens."""

from ranklens.compat.ranx.meta.compare import compare
from ranklens.compat.ranx.meta.evaluate import evaluate
from ranklens.compat.ranx.meta.fuse import fuse
from ranklens.compat.ranx.meta.normalize import normalize
from ranklens.compat.ranx.meta.optimize_fusion import optimize_fusion

__all__ = ["compare", "evaluate", "fuse", "normalize", "optimize_fusion"]
