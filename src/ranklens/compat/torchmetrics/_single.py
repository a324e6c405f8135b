"""One query on the CPU, in numpy: the functions' path for the call torchmetrics' users make
once per query.

:func:`ranklens.tensor.evaluate` costs about a millisecond of set-up a call (parsing the
measure, the namespace, the padded batch), which a batch of thousands of queries does not
notice and a query of a hundred documents does. Here the same definitions as the batch path
(:func:`ranklens.compat.torchmetrics._core.retrieval_values`) are computed on numpy views
of the tensors' memory from the query's ranking, in a few microseconds an operation.
``tests/test_compat_torchmetrics_functional.py`` checks that both paths give the same value
on generated queries, tied scores under every tie policy included.
"""

from __future__ import annotations

import numpy as np

from ranklens.compat.torchmetrics._core import POSITIVE_ONLY
from ranklens.tensor import TensorTies

_SWAPPED: dict[str, TensorTies] = {"pessimistic": "optimistic", "optimistic": "pessimistic"}


def _order(scores: np.ndarray, key: np.ndarray, ties: TensorTies) -> np.ndarray:
    """The ranks' positions: decreasing score, equal scores by ``ties`` (``key`` the
    relevance that ``"pessimistic"`` puts last and ``"optimistic"`` first), else by
    position (a stable sort)."""
    if ties == "pessimistic":
        return np.lexsort((key, -scores))
    if ties == "optimistic":
        return np.lexsort((-key, -scores))
    return np.argsort(-scores, kind="stable")


def _group_starts(ranked_scores: np.ndarray) -> np.ndarray:
    """The first rank of each group of equal scores (ranks in decreasing score)."""
    change = np.empty(len(ranked_scores), dtype=bool)
    change[0] = True
    np.not_equal(ranked_scores[1:], ranked_scores[:-1], out=change[1:])
    return np.flatnonzero(change)


def _ranked(
    scores: np.ndarray, values: np.ndarray, ties: TensorTies
) -> tuple[np.ndarray, np.ndarray]:
    """``(ranked scores, ranked values)`` as float64, ``values`` replaced by their mean over
    each group of equal scores under ``ties="average"``."""
    as_float = values.astype(np.float64)
    order = _order(scores, as_float, ties)
    ranked_scores = scores[order]
    ranked = as_float[order]
    if ties == "average":
        starts = _group_starts(ranked_scores)
        sizes = np.diff(np.append(starts, len(ranked)))
        ranked = np.repeat(np.add.reduceat(ranked, starts) / sizes, sizes)
    return ranked_scores, ranked


def _discounts(n: int, k: int) -> np.ndarray:
    discount = 1.0 / np.log2(np.arange(n, dtype=np.float64) + 2.0)
    discount[k:] = 0.0
    return discount


def _ndcg(scores: np.ndarray, gains: np.ndarray, k: int, ties: TensorTies) -> float:
    n = len(scores)
    discount = _discounts(n, k)
    ideal = float(np.sort(gains.astype(np.float64))[::-1] @ discount)
    if ideal == 0.0:
        return 0.0
    _, ranked = _ranked(scores, gains, ties)
    return float(ranked @ discount) / ideal


def _auroc(
    scores: np.ndarray, rel: np.ndarray, k: int, max_fpr: float | None, ties: TensorTies
) -> float:
    ranked_scores, ranked = _ranked(scores, rel, ties)
    ranked_scores, ranked = ranked_scores[:k], ranked[:k]
    n_pos = float(ranked.sum())
    n_neg = len(ranked) - n_pos
    if n_pos == 0 or n_neg == 0:
        return 0.0
    ends = np.append(_group_starts(ranked_scores)[1:], len(ranked)) - 1
    x = np.concatenate([[0.0], np.cumsum(1.0 - ranked)[ends] / n_neg])
    y = np.concatenate([[0.0], np.cumsum(ranked)[ends] / n_pos])
    limit = 1.0 if max_fpr is None else max_fpr
    x0, y0, x1_full, y1_full = x[:-1], y[:-1], x[1:], y[1:]
    x1 = np.minimum(x1_full, limit)
    width = x1_full - x0
    share = np.divide(x1 - x0, width, out=np.zeros_like(width), where=width > 0)
    y1 = y0 + (y1_full - y0) * share
    area = float(np.where(x0 < limit, (x1 - x0) * (y0 + y1) / 2.0, 0.0).sum())
    if max_fpr is not None and max_fpr != 1.0:
        smallest = 0.5 * max_fpr**2
        area = 0.5 * (1.0 + (area - smallest) / (max_fpr - smallest))
    return area


def one_query(
    kind: str,
    scores: np.ndarray,
    target: np.ndarray,
    *,
    top_k: int | None = None,
    adaptive_k: bool = False,
    positive_only: bool = True,
    ties: TensorTies | None = None,
    max_fpr: float | None = None,
) -> float:
    """The value of one query (float32 ``scores``, checked ``target``), 0 where it lacks
    the targets the metric needs; the definitions of ``retrieval_values``."""
    n = len(scores)
    rel = target > 0
    k = n if top_k is None else min(top_k, n)
    if kind == "ndcg":
        return _ndcg(scores, target, k, ties or "average")
    chosen: TensorTies = ties or "input"
    if not rel.any() and kind != "fall_out":
        return 0.0
    if kind == "auroc":
        return _auroc(scores, rel, k, max_fpr, chosen)
    if kind == "fall_out":
        negative = ~rel
        n_negative = int(negative.sum())
        if n_negative == 0:
            return 0.0
        _, ranked = _ranked(scores, negative, _SWAPPED.get(chosen, chosen))
        return float(ranked[:k].sum()) / n_negative
    counted = rel & (scores > 0) if positive_only and kind in POSITIVE_ONLY else rel
    _, ranked = _ranked(scores, counted, chosen)
    top = ranked[:k]
    if kind == "precision":
        den = n if top_k is None else (min(top_k, n) if adaptive_k else top_k)
        return float(top.sum()) / den
    if kind == "recall":
        return float(top.sum()) / int(rel.sum())
    if kind == "hit_rate":
        return float(top.any())
    if kind == "r_precision":
        n_rel = int(rel.sum())
        return float(ranked[:n_rel].sum()) / n_rel
    found = np.flatnonzero(top) + 1
    if len(found) == 0:
        return 0.0
    if kind == "mrr":
        return 1.0 / float(found[0])
    return float(np.mean(np.arange(1, len(found) + 1) / found))  # map


def one_curve(
    scores: np.ndarray, target: np.ndarray, max_k: int, adaptive_k: bool, ties: TensorTies | None
) -> tuple[np.ndarray, np.ndarray]:
    """``(precision, recall)`` at k = 1 .. ``max_k`` of one query (zeros without a
    relevant document)."""
    n = len(scores)
    rel = target > 0
    n_rel = int(rel.sum())
    if n_rel == 0:
        return np.zeros(max_k), np.zeros(max_k)
    _, ranked = _ranked(scores, rel, ties or "input")
    found = np.cumsum(ranked)
    if max_k > n:  # past the query nothing more is found
        found = np.concatenate([found, np.full(max_k - n, found[-1])])
    found = found[:max_k]
    ks = np.arange(1, max_k + 1, dtype=np.float64)
    if adaptive_k:
        ks = np.minimum(ks, n)
    return found / ks, found / n_rel
