"""torchmetrics' retrieval functions on ranklens: ``from ranklens.compat.torchmetrics.functional
import retrieval_normalized_dcg`` for ``from torchmetrics.functional.retrieval import
retrieval_normalized_dcg``.

Each function takes the scores (``preds``) and targets of one query, of any shape (both are
flattened), with torchmetrics' arguments, checks and messages, and returns what
torchmetrics returns: a float32 scalar tensor on the inputs' device (three tensors for
:func:`retrieval_precision_recall_curve`). A query without a relevant document scores 0 (a
query without a non-relevant one, for :func:`retrieval_fall_out`). The definitions are
those of the classes (see :mod:`ranklens.compat.torchmetrics`); ``positive_only`` (average
precision, reciprocal rank, precision, recall) and ``ties`` are ranklens' keyword-only
additions.

Importing this module needs ``array_api_compat``, calling its functions torch too (``pip
install 'ranklens[torch]'``); torchmetrics itself is not needed.

>>> import torch
>>> from ranklens.compat.torchmetrics.functional import retrieval_normalized_dcg
>>> retrieval_normalized_dcg(torch.tensor([.1, .2, .3, 4, 70]), torch.tensor([10, 0, 0, 1, 5]))
tensor(0.6957)
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from ranklens.compat.torchmetrics._core import (
    check_adaptive_k,
    check_functional_inputs,
    check_max_fpr,
    check_ties,
    check_top_k,
    host_view,
    require_array_api,
    require_torch,
    retrieval_values,
)
from ranklens.compat.torchmetrics._single import one_curve, one_query

__all__ = [
    "retrieval_auroc",
    "retrieval_average_precision",
    "retrieval_fall_out",
    "retrieval_hit_rate",
    "retrieval_normalized_dcg",
    "retrieval_precision",
    "retrieval_precision_recall_curve",
    "retrieval_r_precision",
    "retrieval_recall",
    "retrieval_reciprocal_rank",
]

# the import says what to install (torch itself is there wherever tensors are passed)
require_array_api("ranklens.compat.torchmetrics.functional")


def _one(kind: str, preds: Any, target: Any, ties: Any, **options: Any) -> Any:
    """The value of one query (0 where it lacks the targets the metric needs), float32.
    The tensors are checked first, then the options, in torchmetrics' order."""
    torch = sys.modules.get("torch") or require_torch()
    preds, target = check_functional_inputs(torch, preds, target, kind == "ndcg")
    if "adaptive_k" in options:
        check_adaptive_k(options["adaptive_k"])
    if "top_k" in options:
        options["top_k"] = check_top_k(options["top_k"])
    if "max_fpr" in options:
        options["max_fpr"] = check_max_fpr(options["max_fpr"])
    chosen = check_ties(kind, ties)
    scores, labels = host_view(torch, preds), host_view(torch, target)
    if isinstance(scores, np.ndarray) and isinstance(labels, np.ndarray):  # on the CPU
        value = one_query(kind, scores, labels, ties=chosen, **options)
        return torch.from_numpy(np.array(value, dtype=np.float32))  # (3x torch.tensor's speed)
    indexes = torch.zeros(preds.shape[0], dtype=torch.long, device=preds.device)
    values, defined = retrieval_values(
        kind, preds, target, indexes, ties=chosen, checked=True, **options
    )
    return torch.where(defined, values, 0.0)[0].to(torch.float32)


def retrieval_average_precision(
    preds: Any,
    target: Any,
    top_k: int | None = None,
    *,
    positive_only: bool = True,
    ties: str | None = None,
) -> Any:
    r"""Average precision of one query: :math:`\frac{1}{|F|}\sum_{d \in F} P@\mathrm{rank}(d)`
    over the relevant documents ``F`` found in the top ``top_k`` (all when None), counted
    only where their score is positive (``positive_only``, torchmetrics' rule).

    >>> import torch
    >>> retrieval_average_precision(torch.tensor([0.2, 0.3, 0.5]), torch.tensor([1, 0, 1]))
    tensor(0.8333)
    """
    return _one("map", preds, target, ties, top_k=top_k, positive_only=positive_only)


def retrieval_reciprocal_rank(
    preds: Any,
    target: Any,
    top_k: int | None = None,
    *,
    positive_only: bool = True,
    ties: str | None = None,
) -> Any:
    r"""Reciprocal rank of one query: :math:`1/\mathrm{rank}` of the first relevant document
    with a positive score (``positive_only``) in the top ``top_k``; 0 if none.

    >>> import torch
    >>> retrieval_reciprocal_rank(torch.tensor([0.2, 0.3, 0.5]), torch.tensor([0, 1, 0]))
    tensor(0.5000)
    """
    return _one("mrr", preds, target, ties, top_k=top_k, positive_only=positive_only)


def retrieval_precision(
    preds: Any,
    target: Any,
    top_k: int | None = None,
    adaptive_k: bool = False,
    *,
    positive_only: bool = True,
    ties: str | None = None,
) -> Any:
    r"""Precision at ``top_k`` of one query: the relevant documents with a positive score
    (``positive_only``) in the top k, divided by k (by the query's documents when
    ``top_k`` is None, or with ``adaptive_k`` when k exceeds them).

    >>> import torch
    >>> retrieval_precision(torch.tensor([0.2, 0.3, 0.5]), torch.tensor([1, 0, 1]), top_k=2)
    tensor(0.5000)
    """
    return _one(
        "precision",
        preds,
        target,
        ties,
        top_k=top_k,
        adaptive_k=adaptive_k,
        positive_only=positive_only,
    )


def retrieval_recall(
    preds: Any,
    target: Any,
    top_k: int | None = None,
    *,
    positive_only: bool = True,
    ties: str | None = None,
) -> Any:
    r"""Recall at ``top_k`` of one query: the relevant documents with a positive score
    (``positive_only``) in the top k, divided by all its relevant documents.

    >>> import torch
    >>> retrieval_recall(torch.tensor([0.2, 0.3, 0.5]), torch.tensor([1, 0, 1]), top_k=2)
    tensor(0.5000)
    """
    return _one("recall", preds, target, ties, top_k=top_k, positive_only=positive_only)


def retrieval_hit_rate(
    preds: Any, target: Any, top_k: int | None = None, *, ties: str | None = None
) -> Any:
    r"""Hit rate at ``top_k`` of one query: 1 if a relevant document is in the top k, else
    0 (every score counts).

    >>> import torch
    >>> retrieval_hit_rate(torch.tensor([0.2, 0.3, 0.5]), torch.tensor([1, 0, 1]), top_k=2)
    tensor(1.)
    """
    return _one("hit_rate", preds, target, ties, top_k=top_k)


def retrieval_r_precision(preds: Any, target: Any, *, ties: str | None = None) -> Any:
    r"""R-precision of one query: the relevant documents in the top R, divided by R, its
    relevant documents (every score counts).

    >>> import torch
    >>> retrieval_r_precision(torch.tensor([0.2, 0.3, 0.5]), torch.tensor([1, 0, 1]))
    tensor(0.5000)
    """
    return _one("r_precision", preds, target, ties)


def retrieval_fall_out(
    preds: Any, target: Any, top_k: int | None = None, *, ties: str | None = None
) -> Any:
    r"""Fall-out at ``top_k`` of one query: its non-relevant documents in the top k, divided
    by all its non-relevant documents (0 when it has none); lower is better.

    >>> import torch
    >>> retrieval_fall_out(torch.tensor([0.2, 0.3, 0.5]), torch.tensor([1, 0, 1]), top_k=2)
    tensor(1.)
    """
    return _one("fall_out", preds, target, ties, top_k=top_k)


def retrieval_normalized_dcg(
    preds: Any, target: Any, top_k: int | None = None, *, ties: str | None = None
) -> Any:
    r"""nDCG at ``top_k`` of one query with linear gains:
    :math:`\mathrm{DCG}@k / \mathrm{IDCG}@k`, :math:`\mathrm{DCG}@k = \sum_{i \le k}
    g_i / \log_2(i + 1)`, the targets as gains (any numbers >= 0, fractions included); tied
    scores share the mean of their gains (``ties="average"``, as torchmetrics and
    scikit-learn); 0 when every gain is 0.

    >>> import torch
    >>> retrieval_normalized_dcg(torch.tensor([0.1, 0.1, 0.3]), torch.tensor([1, 0, 2]))
    tensor(0.9751)
    """
    return _one("ndcg", preds, target, ties, top_k=top_k)


def retrieval_auroc(
    preds: Any,
    target: Any,
    top_k: int | None = None,
    max_fpr: float | None = None,
    *,
    ties: str | None = None,
) -> Any:
    r"""The area under the ROC curve of one query's top ``top_k`` documents: the share of
    (relevant, non-relevant) pairs among them ordered right, a tied pair counting half;
    with ``max_fpr``, the partial area over false-positive rates up to ``max_fpr``,
    standardised (McClish): :math:`\frac{1}{2}(1 + \frac{A - m^2/2}{m - m^2/2})`. 0 when
    the top k lack a relevant or a non-relevant document.

    >>> import torch
    >>> retrieval_auroc(torch.tensor([0.2, 0.3, 0.5]), torch.tensor([1, 0, 1]))
    tensor(0.5000)
    """
    return _one("auroc", preds, target, ties, top_k=top_k, max_fpr=max_fpr)


def retrieval_precision_recall_curve(
    preds: Any,
    target: Any,
    max_k: int | None = None,
    adaptive_k: bool = False,
    *,
    ties: str | None = None,
) -> tuple[Any, Any, Any]:
    r"""Precision and recall of one query at each k from 1 to ``max_k`` (its documents when
    None), and the k: precision divides by k, or with ``adaptive_k`` by
    :math:`\min(k, n)` for a query of n documents (the k returned are then those
    denominators). Every score counts; all zeros when the query has no relevant document.

    >>> import torch
    >>> p, r, k = retrieval_precision_recall_curve(
    ...     torch.tensor([0.2, 0.3, 0.5]), torch.tensor([1, 0, 1]), max_k=2)
    >>> p, r, k
    (tensor([1.0000, 0.5000]), tensor([0.5000, 0.5000]), tensor([1, 2]))
    """
    torch = sys.modules.get("torch") or require_torch()
    preds, target = check_functional_inputs(torch, preds, target, False)
    check_adaptive_k(adaptive_k)
    chosen = check_ties("pr_curve", ties)
    n = int(preds.shape[0])
    checked_k = check_top_k(max_k, "max_k")
    k = n if checked_k is None else checked_k
    scores, labels = host_view(torch, preds), host_view(torch, target)
    if isinstance(scores, np.ndarray) and isinstance(labels, np.ndarray):  # on the CPU
        precision, recall = one_curve(scores, labels, k, adaptive_k, chosen)
        ks_host = np.arange(1, k + 1)
        if adaptive_k:
            np.minimum(ks_host, n, out=ks_host)
        return (
            torch.from_numpy(precision.astype(np.float32)),
            torch.from_numpy(recall.astype(np.float32)),
            torch.from_numpy(ks_host),
        )
    ks = torch.arange(1, k + 1, device=preds.device)
    if adaptive_k:
        ks = torch.clamp(ks, max=n)
    indexes = torch.zeros(n, dtype=torch.long, device=preds.device)
    curves, defined = retrieval_values(
        "pr_curve",
        preds,
        target,
        indexes,
        max_k=k,
        adaptive_k=adaptive_k,
        ties=chosen,
        checked=True,
    )
    if not bool(defined[0]):
        zeros = torch.zeros(k, dtype=torch.float32, device=preds.device)
        return zeros, zeros.clone(), ks
    curve = curves[0].to(torch.float32)
    return curve[:, 0], curve[:, 1], ks
