"""ranx's ``r_precision`` (``ranx.metrics.r_precision``)."""

from __future__ import annotations

from typing import Any

from ranklens.base.types import Float64Array
from ranklens.compat.ranx.metrics._arrays import metric_name, per_query

__all__ = ["r_precision"]


def r_precision(
    qrels: Any,
    run: Any,
    k: int = 0,
    rel_lvl: int = 1,
) -> Float64Array:
    """R-precision: precision at rank R, R the number of relevant documents
    (``k`` is not read, as in ranx).

    Parameters
    ----------
    qrels
        Per query, ``[doc_id, relevance]`` rows (ranx's typed list, a list or a 3-d array).
    run
        Per query, ``[doc_id, score]`` rows in ranked order, paired with ``qrels`` by
        position.
    k
        Not read (as in ranx).
    rel_lvl
        The lowest relevant grade.

    Returns
    -------
    numpy.ndarray
        One value per query.
    """
    return per_query(qrels, run, metric_name("r-precision", 0, rel_lvl))
