"""Rank fusion: combining runs into one run.

:func:`fuse` implements every method of ranx (CombSUM ... RBC, see :data:`METHODS`) with
its normalisations, deterministically: each run is ranked by the evaluator's tie policy
first, so the fused run never depends on the order of the input lines.
:func:`fuse_optimize` grid-searches weights and parameters against qrels, and
:func:`train` estimates the parameters of the supervised methods (ProbFuse, ...).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ranklens.fusion.combine import fuse, normalize
from ranklens.fusion.methods import METHODS, SUPERVISED, get_method
from ranklens.fusion.normalise import NORMS

if TYPE_CHECKING:
    from ranklens.fusion.optimize import FusionSetting, fuse_optimize
    from ranklens.fusion.supervised import train

__all__ = [
    "METHODS",
    "NORMS",
    "SUPERVISED",
    "FusionSetting",
    "fuse",
    "fuse_optimize",
    "get_method",
    "normalize",
    "train",
]

_LAZY = {
    "fuse_optimize": "ranklens.fusion.optimize",
    "FusionSetting": "ranklens.fusion.optimize",
    "train": "ranklens.fusion.supervised",
}


def __getattr__(name: str) -> Any:
    """The optimiser (which imports the evaluator) and the trainers load on first use."""
    import importlib

    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'ranklens.fusion' has no attribute {name!r}")
