"""What every fusion function of ranx's shares: runs in, a :class:`Run` out, by ranklens."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ranklens.compat.ranx._errors import RanxAssertionError
from ranklens.compat.ranx.data_structures.qrels import Qrels
from ranklens.compat.ranx.data_structures.run import Run
from ranklens.compat.ranx.meta._common import qrels_side, run_side
from ranklens.compat.ranx.meta.fuse import fused_run


def combine(runs: Sequence[Any], method: str, name: str, **params: Any) -> Run:
    """``runs`` (already normalised, as ranx's fusion functions take them) fused by
    ``method`` with ``params``, named ``name``."""
    if isinstance(runs, Run) or not isinstance(runs, Sequence) or len(runs) == 0:
        raise RanxAssertionError("a fusion method takes a list of runs")
    chosen = {key: value for key, value in params.items() if value is not None}
    return fused_run(runs, method, None, chosen, name, "ranx")


def trained(method: str, qrels: Qrels | Any, runs: Sequence[Any], **options: Any) -> Any:
    """The parameters ranklens' trainer estimates for ``method`` (the only entry of its
    ``params`` dict)."""
    from ranklens.fusion import train

    tables = [run_side(run)[0] for run in runs]
    found = train(method, qrels_side(qrels)[0], tables, ties="input", **options)
    return next(iter(found.values()))
