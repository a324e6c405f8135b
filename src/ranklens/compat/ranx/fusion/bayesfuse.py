"""ranx's ``bayesfuse`` and ``bayesfuse_train`` (``ranx.fusion.bayesfuse``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ranklens.base.types import Float64Array
from ranklens.compat.ranx._errors import ranx_errors
from ranklens.compat.ranx.data_structures.run import Run
from ranklens.compat.ranx.fusion._common import combine, trained

__all__ = ["bayesfuse", "bayesfuse_train", "estimate_bayesfuse_log_odds"]


@ranx_errors
def bayesfuse(runs: Sequence[Any], log_odds: Sequence[Any], name: str = "bayesfuse") -> Run:
    """BayesFuse (Aslam and Montague): the sum over runs of the log-odds of relevance at
    each document's rank (``log_odds[i][r - 1]`` for run ``i``), as
    :func:`bayesfuse_train` estimates them."""
    return combine(runs, "bayesfuse", name, log_odds=list(log_odds))


@ranx_errors
def bayesfuse_train(qrels: Any, runs: Sequence[Any]) -> list[Float64Array]:
    """Each run's log-odds of relevance per rank (1000 ranks), estimated on ``qrels``: the
    mean precision of the queries in the rank segments 1-5, 6-10, 11-15, 16-20, 21-30,
    31-100, 101-200, 201-500, 501-1000 (0 and 1 replaced by 0.001 and 0.999)."""
    return list(trained("bayesfuse", qrels, runs))


estimate_bayesfuse_log_odds = bayesfuse_train


def _estimate_log_odds(hit_lists: Sequence[Any], cut_offs: Sequence[int]) -> Float64Array:
    """The log-odds of relevance per rank from per-query hit lists (1.0 at a relevant rank),
    by segments cut at ``cut_offs`` (ranx's helper of :func:`bayesfuse_train`)."""
    from ranklens.fusion.supervised import _log_odds

    rows = [np.asarray(h, dtype=np.float64).reshape(-1) for h in hit_lists]
    offsets = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum([len(r) for r in rows], out=offsets[1:])
    hits = np.concatenate([np.zeros(0), *rows])
    return _log_odds(offsets, hits, [int(c) for c in cut_offs])
