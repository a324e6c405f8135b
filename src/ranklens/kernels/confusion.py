"""Rates from the confusion matrix of the retrieved set (or of the top k) against the
collection: the classification view of retrieval, in which every document of the
collection is either retrieved or not and either relevant or not.

Per query, with ``N`` documents in the collection (``num_docs``), ``R`` relevant documents
in the qrels and ``n`` documents retrieved (within the top k):

* TP = relevant retrieved, FP = n - TP (unjudged retrieved documents count as
  non-relevant), FN = R - TP, TN = N - TP - FP - FN.

Every rate is 0 where its denominator is 0.
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from ranklens.base.errors import MeasureError
from ranklens.base.types import Float64Array
from ranklens.kernels._util import depth_limit, safe_divide
from ranklens.kernels.precision import relevant_retrieved
from ranklens.ranking.align import Ranked

Rate = Literal["accuracy", "error", "specificity", "fallout", "miss", "tpr"]
RATES: tuple[Rate, ...] = ("accuracy", "error", "specificity", "fallout", "miss", "tpr")


def confusion(
    r: Ranked, rel: int, cutoff: int | None, num_docs: int | None, name: str = "Accuracy"
) -> tuple[Float64Array, Float64Array, Float64Array, Float64Array]:
    """Per query ``(TP, FP, FN, TN)`` as doubles (``name``: the measure, for messages).

    Raises
    ------
    MeasureError
        If ``num_docs`` is missing (``None`` or 0), or smaller than a query's
        ``TP + FP + FN`` (the documents retrieved plus the relevant ones not retrieved).
    """
    if not num_docs:
        raise MeasureError(
            f"{name} needs num_docs=N (--num-docs), the number of documents in the "
            f"collection, e.g. {name}(num_docs=100000)"
        )
    tp = relevant_retrieved(r, rel, cutoff)
    fp = depth_limit(r.num_ret, cutoff).astype(np.float64) - tp
    fn = r.num_rel(rel).astype(np.float64) - tp
    tn = float(num_docs) - tp - fp - fn
    if (tn < 0).any():
        worst = int(np.argmin(tn))
        raise MeasureError(
            f"num_docs={num_docs} is smaller than the documents retrieved plus the relevant "
            f"documents not retrieved ({int(tp[worst] + fp[worst] + fn[worst])}) of query "
            f"{r.qids[worst]!r}"
        )
    return tp, fp, fn, tn


def rate(
    r: Ranked,
    rel: int,
    cutoff: int | None,
    num_docs: int | None,
    which: Rate,
    name: str = "Accuracy",
) -> Float64Array:
    """Per query, the rate ``which`` of the confusion matrix (see the module docs):
    ``accuracy`` (TP + TN) / N, ``error`` (FP + FN) / N, ``specificity`` TN / (TN + FP),
    ``fallout`` FP / (FP + TN), ``miss`` FN / (FN + TP), ``tpr`` TP / (TP + FN)."""
    tp, fp, fn, tn = confusion(r, rel, cutoff, num_docs, name)
    total = tp + fp + fn + tn
    if which == "accuracy":
        return safe_divide(tp + tn, total)
    if which == "error":
        return safe_divide(fp + fn, total)
    if which == "specificity":
        return safe_divide(tn, tn + fp)
    if which == "fallout":
        return safe_divide(fp, fp + tn)
    if which == "miss":
        return safe_divide(fn, fn + tp)
    if which == "tpr":
        return safe_divide(tp, tp + fn)
    raise ValueError(f"unknown rate {which!r}")  # pragma: no cover
