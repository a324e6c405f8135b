"""ranx's DCG family (``ranx.metrics.ndcg``): ``dcg``, ``ndcg``, ``dcg_burges``,
``ndcg_burges``. A grade below ``rel_lvl`` gains nothing (ranx's ``-lN``)."""

from __future__ import annotations

from typing import Any

from ranklens.base.types import Float64Array
from ranklens.compat.ranx.metrics._arrays import metric_name, per_query

__all__ = ["dcg", "dcg_burges", "ndcg", "ndcg_burges"]


def dcg(qrels: Any, run: Any, k: int = 0, rel_lvl: int = 1) -> Float64Array:
    """DCG (Järvelin and Kekäläinen): ``sum_{i <= k} rel_i / log2(i + 1)``.

    Parameters
    ----------
    qrels, run
        Per query, ``[doc_id, relevance]`` and ranked ``[doc_id, score]`` rows.
    k
        Only the first ``k`` ranks count (0: all).
    rel_lvl
        Grades below it gain nothing.

    Returns
    -------
    numpy.ndarray
        One value per query.
    """
    return per_query(qrels, run, metric_name("dcg", k, rel_lvl))


def ndcg(qrels: Any, run: Any, k: int = 0, rel_lvl: int = 1) -> Float64Array:
    """nDCG: DCG over the DCG of the ideal ranking (0 when that is 0). The ideal ranking
    orders the judgments by relevance (ranx reads a qrels array's rows in their order:
    the same when they are sorted, as ranx's own conversion sorts them).

    Parameters
    ----------
    qrels, run
        Per query, ``[doc_id, relevance]`` and ranked ``[doc_id, score]`` rows.
    k
        Only the first ``k`` ranks count (0: all).
    rel_lvl
        Grades below it gain nothing.

    Returns
    -------
    numpy.ndarray
        One value per query.
    """
    return per_query(qrels, run, metric_name("ndcg", k, rel_lvl))


def dcg_burges(qrels: Any, run: Any, k: int = 0, rel_lvl: int = 1) -> Float64Array:
    """DCG with Burges' gain: ``sum_{i <= k} (2^rel_i - 1) / log2(i + 1)``.

    Parameters
    ----------
    qrels, run
        Per query, ``[doc_id, relevance]`` and ranked ``[doc_id, score]`` rows.
    k
        Only the first ``k`` ranks count (0: all).
    rel_lvl
        Grades below it gain nothing.

    Returns
    -------
    numpy.ndarray
        One value per query.
    """
    return per_query(qrels, run, metric_name("dcg_burges", k, rel_lvl))


def ndcg_burges(qrels: Any, run: Any, k: int = 0, rel_lvl: int = 1) -> Float64Array:
    """nDCG with Burges' gain ``2^rel - 1``.

    Parameters
    ----------
    qrels, run
        Per query, ``[doc_id, relevance]`` and ranked ``[doc_id, score]`` rows.
    k
        Only the first ``k`` ranks count (0: all).
    rel_lvl
        Grades below it gain nothing.

    Returns
    -------
    numpy.ndarray
        One value per query.
    """
    return per_query(qrels, run, metric_name("ndcg_burges", k, rel_lvl))
