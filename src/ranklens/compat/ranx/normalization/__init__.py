"""ranx's normalisations (``ranx.normalization``): a run's scores rescaled per query.

Each function takes a :class:`~ranklens.compat.ranx.Run` (``borda_norm`` a list of them)
and returns new runs; the input is not changed. The values are
:func:`ranklens.fusion.normalize`'s (see :mod:`ranklens.fusion.normalise` for the formulas
and docs/fusion.md for where they differ from ranx's: one document, or all scores equal).

>>> from ranklens.compat.ranx import Run
>>> from ranklens.compat.ranx.normalization import max_norm, min_max_norm
>>> run = Run({"q": {"a": 4.0, "b": 2.0, "c": 3.0}})
>>> min_max_norm(run).run, max_norm(run)["q"]["b"]
({'q': {'a': 1.0, 'c': 0.5, 'b': 0.0}}, 0.5)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ranklens.base.errors import OptionError
from ranklens.compat.ranx.normalization.borda_norm import borda_norm
from ranklens.compat.ranx.normalization.max_norm import max_norm
from ranklens.compat.ranx.normalization.min_max_norm import min_max_norm
from ranklens.compat.ranx.normalization.rank_norm import rank_norm
from ranklens.compat.ranx.normalization.sum_norm import sum_norm
from ranklens.compat.ranx.normalization.zmuv_norm import zmuv_norm

__all__ = [
    "borda_norm",
    "max_norm",
    "min_max_norm",
    "norm_switch",
    "rank_norm",
    "sum_norm",
    "zmuv_norm",
]


_SWITCH: dict[str, Callable[..., Any]] = {
    "borda": borda_norm,
    "max": max_norm,
    "min-max": min_max_norm,
    "min_max": min_max_norm,
    "min-max-inverted": lambda run: min_max_norm(run, invert=True),
    "min_max_inverted": lambda run: min_max_norm(run, invert=True),
    "rank": rank_norm,
    "sum": sum_norm,
    "zmuv": zmuv_norm,
}


def norm_switch(method: str = "min-max") -> Callable[..., Any]:
    """The function of ranx's normalisation name ``method``.

    Raises
    ------
    OptionError
        A name ranx does not have (a ``ValueError``, as ranx's).
    """
    if method not in _SWITCH:
        raise OptionError(
            f"Normalization method {method} not supported: use one of {sorted(_SWITCH)}"
        )
    return _SWITCH[method]
