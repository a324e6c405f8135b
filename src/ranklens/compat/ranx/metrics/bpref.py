"""ranx's ``bpref`` (``ranx.metrics.bpref``)."""

from __future__ import annotations

from typing import Any

from ranklens.base.types import Float64Array
from ranklens.compat.ranx.metrics._arrays import metric_name, per_query

__all__ = ["bpref"]


def bpref(
    qrels: Any,
    run: Any,
    k: int = 0,
    rel_lvl: int = 1,
) -> Float64Array:
    """Bpref (trec_eval's): how often judged relevant documents precede judged
    non-relevant ones (``k`` is not read, as in ranx).

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
    return per_query(qrels, run, metric_name("bpref", 0, rel_lvl))
