"""ranx's ``recall`` (``ranx.metrics.recall``)."""

from __future__ import annotations

from typing import Any

from ranklens.base.types import Float64Array
from ranklens.compat.ranx.metrics._arrays import metric_name, per_query

__all__ = ["recall"]


def recall(
    qrels: Any,
    run: Any,
    k: int = 0,
    rel_lvl: int = 1,
) -> Float64Array:
    """Recall (at k): relevant retrieved documents over the relevant ones.

    Parameters
    ----------
    qrels
        Per query, ``[doc_id, relevance]`` rows (ranx's typed list, a list or a 3-d array).
    run
        Per query, ``[doc_id, score]`` rows in ranked order, paired with ``qrels`` by
        position.
    k
        Only the first ``k`` ranks count (0: all).
    rel_lvl
        The lowest relevant grade.

    Returns
    -------
    numpy.ndarray
        One value per query.
    """
    return per_query(qrels, run, metric_name("recall", k, rel_lvl))
