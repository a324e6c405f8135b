"""ranx's fusion functions (``ranx.fusion``): one per method, with ranx's signatures.

Each takes a list of runs (already normalised: :func:`ranklens.compat.ranx.fuse`
normalises and then calls the method) and the method's parameters, and returns the fused
:class:`~ranklens.compat.ranx.Run`, named as ranx names it. The fused scores are
:func:`ranklens.fuse`'s (see :data:`ranklens.fusion.METHODS` for each formula); the
trainers (``*_train``) are :func:`ranklens.fusion.train`'s, returning ranx's shapes.

>>> from ranklens.compat.ranx import Run
>>> from ranklens.compat.ranx.fusion import comb_sum, rrf
>>> a, b = Run({"q": {"d1": 1.0, "d2": 0.5}}), Run({"q": {"d2": 2.0}})
>>> comb_sum([a, b]).run, rrf([a, b], k=1).name
({'q': {'d2': 2.5, 'd1': 1.0}}, 'rrf')
"""

from __future__ import annotations

from collections.abc import Callable

from ranklens.base.errors import OptionError
from ranklens.compat.ranx.data_structures.run import Run
from ranklens.compat.ranx.fusion.bayesfuse import bayesfuse, bayesfuse_train
from ranklens.compat.ranx.fusion.bordafuse import bordafuse
from ranklens.compat.ranx.fusion.comb_anz import comb_anz
from ranklens.compat.ranx.fusion.comb_gmnz import comb_gmnz
from ranklens.compat.ranx.fusion.comb_max import comb_max
from ranklens.compat.ranx.fusion.comb_med import comb_med
from ranklens.compat.ranx.fusion.comb_min import comb_min
from ranklens.compat.ranx.fusion.comb_mnz import comb_mnz
from ranklens.compat.ranx.fusion.comb_sum import comb_sum
from ranklens.compat.ranx.fusion.condorcet import condorcet
from ranklens.compat.ranx.fusion.isr import isr
from ranklens.compat.ranx.fusion.log_isr import log_isr
from ranklens.compat.ranx.fusion.logn_isr import logn_isr
from ranklens.compat.ranx.fusion.mapfuse import mapfuse, mapfuse_train
from ranklens.compat.ranx.fusion.mixed import mixed
from ranklens.compat.ranx.fusion.posfuse import posfuse, posfuse_train
from ranklens.compat.ranx.fusion.probfuse import probfuse, probfuse_train
from ranklens.compat.ranx.fusion.rbc import rbc
from ranklens.compat.ranx.fusion.rrf import rrf
from ranklens.compat.ranx.fusion.segfuse import segfuse, segfuse_train
from ranklens.compat.ranx.fusion.slidefuse import slidefuse, slidefuse_train
from ranklens.compat.ranx.fusion.weighted_bordafuse import weighted_bordafuse
from ranklens.compat.ranx.fusion.weighted_condorcet import weighted_condorcet
from ranklens.compat.ranx.fusion.wmnz import wmnz
from ranklens.compat.ranx.fusion.wsum import wsum

__all__ = [
    "bayesfuse",
    "bayesfuse_train",
    "bordafuse",
    "comb_anz",
    "comb_gmnz",
    "comb_max",
    "comb_med",
    "comb_min",
    "comb_mnz",
    "comb_sum",
    "condorcet",
    "fusion_switch",
    "isr",
    "log_isr",
    "logn_isr",
    "mapfuse",
    "mapfuse_train",
    "mixed",
    "posfuse",
    "posfuse_train",
    "probfuse",
    "probfuse_train",
    "rbc",
    "rrf",
    "segfuse",
    "segfuse_train",
    "slidefuse",
    "slidefuse_train",
    "weighted_bordafuse",
    "weighted_condorcet",
    "wmnz",
    "wsum",
]

_SWITCH: dict[str, Callable[..., Run]] = {
    "bayesfuse": bayesfuse,
    "bordafuse": bordafuse,
    "anz": comb_anz,
    "gmnz": comb_gmnz,
    "max": comb_max,
    "med": comb_med,
    "min": comb_min,
    "mnz": comb_mnz,
    "sum": comb_sum,
    "condorcet": condorcet,
    "isr": isr,
    "log_isr": log_isr,
    "logn_isr": logn_isr,
    "mapfuse": mapfuse,
    "mixed": mixed,
    "posfuse": posfuse,
    "probfuse": probfuse,
    "rbc": rbc,
    "rrf": rrf,
    "segfuse": segfuse,
    "slidefuse": slidefuse,
    "w_bordafuse": weighted_bordafuse,
    "w_condorcet": weighted_condorcet,
    "wmnz": wmnz,
    "wsum": wsum,
}


def fusion_switch(method: str) -> Callable[..., Run]:
    """The function of ranx's method name ``method``.

    Raises
    ------
    OptionError
        A name ranx does not have (a ``ValueError``, as ranx's).
    """
    if method not in _SWITCH:
        raise OptionError(f"Fusion method {method} not supported: use one of {sorted(_SWITCH)}")
    return _SWITCH[method]
