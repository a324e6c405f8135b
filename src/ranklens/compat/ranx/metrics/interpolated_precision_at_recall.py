"""ranx's ``interpolated_precision_at_recall``, as in ranx's module of that name."""

from __future__ import annotations

from typing import Any

import numpy as np

from ranklens.base.types import Float64Array
from ranklens.compat.ranx import _convert
from ranklens.compat.ranx.meta._common import Scorer, measures_of

__all__ = ["interpolated_precision_at_recall"]

LEVELS = tuple(i / 10 for i in range(11))


def interpolated_precision_at_recall(qrels: Any, run: Any, rel_lvl: int = 1) -> Float64Array:
    """Interpolated precision at the 11 recall levels 0, 0.1, ..., 1: at level ``x``, the
    highest precision at or below the rank of the ``c``-th relevant document, ``c =
    floor(x * R + 0.9)`` (trec_eval 9's ``iprec_at_recall``, as ranx counts; trec_eval 10
    rounds ``x * R``); 0 when fewer than ``c`` are retrieved.

    Parameters
    ----------
    qrels, run
        Per query, ``[doc_id, relevance]`` and ranked ``[doc_id, score]`` rows.
    rel_lvl
        The lowest relevant grade.

    Returns
    -------
    numpy.ndarray
        Shape ``(queries, 11)``.
    """
    tables = _convert.tables_from_arrays(qrels, run)
    names = [f"IPrec(rel={int(rel_lvl)},rounding='trec9')@{level}" for level in LEVELS]
    measures, column = measures_of(names)
    values = Scorer(tables.qrels, tables.queries, measures, "input").values(tables.run)
    out: Float64Array = np.ascontiguousarray(values[:, column])
    return out
