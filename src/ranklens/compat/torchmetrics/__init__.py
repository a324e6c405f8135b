"""torchmetrics' retrieval metrics on ranklens: ``from ranklens.compat.torchmetrics import
RetrievalNormalizedDCG`` for ``from torchmetrics.retrieval import RetrievalNormalizedDCG``,
and :mod:`ranklens.compat.torchmetrics.functional` for ``torchmetrics.functional.retrieval``.

Every retrieval class of torchmetrics 1.9: ``RetrievalAUROC``, ``RetrievalFallOut``,
``RetrievalHitRate``, ``RetrievalMAP``, ``RetrievalMRR``, ``RetrievalNormalizedDCG``,
``RetrievalPrecision``, ``RetrievalPrecisionRecallCurve``, ``RetrievalRPrecision``,
``RetrievalRecall`` and ``RetrievalRecallAtFixedPrecision``, with torchmetrics' constructor
arguments in its order (``empty_target_action``, ``ignore_index``, ``top_k``,
``adaptive_k``, ``max_fpr``, ``max_k``, ``min_precision``, ``aggregation`` and the
``Metric`` keywords) and its interface: ``update(preds, target, indexes)``, ``compute()``,
``reset()``, and ``metric(preds, target, indexes)`` for the value of one batch. When
torchmetrics is installed they *are* ``torchmetrics.Metric`` subclasses, so Lightning's
``self.log("val/ndcg", metric)``, ``.to(device)``, state synchronisation in distributed
training, ``MetricCollection``, pickling and ``torch.jit.script`` work as with
torchmetrics' own classes; without it they are plain classes with the same methods (torch
and ``array_api_compat`` are needed: ``pip install 'ranklens[torch]'``; the first access
to a class says so when one is missing). The values come from
:func:`ranklens.tensor.evaluate` (AUROC and the precision-recall curve from the same
ranking, computed here), in float64, on the tensors' device, one padded batch of every
query (no Python loop over queries), returned as torchmetrics returns them (float32).

The definitions are torchmetrics' (1.9): the documents of a query are the rows sharing an
``indexes`` value; relevant documents outside them do not exist; precision, recall, MAP and
MRR count a relevant document only where its score is positive (torchmetrics 1.9's rule;
``positive_only=False`` counts every relevant document); MAP at ``top_k`` divides by the
relevant documents found in the top k (``AP(norm='ret')``); nDCG takes the targets as
linear gains (fractions too) and averages tied scores (as torchmetrics and scikit-learn);
fall-out is the share of a query's non-relevant documents in its top k, and its "empty"
queries are those without a non-relevant document; AUROC is computed over the top k with
tied scores counting half. Where torchmetrics' result depends on an unstable sort (tied
scores in every other metric), ranklens orders tied documents by their order of arrival
(``ties="input"``, the default); ``"pessimistic"`` (the worst value: non-relevant first,
relevant first for fall-out) and ``"optimistic"`` are the other orders, and
``"average"`` (the expected value over the orders of the tied documents) is defined for
the measures linear in the gains (nDCG, precision, recall, fall-out, the curve).

Errors: a bad argument raises :class:`~ranklens.base.errors.OptionError`, bad tensors and
``empty_target_action="error"`` on a query without the targets it needs raise
:class:`RetrievalInputError`; both are ``ValueError`` s, as torchmetrics', with its
messages (and what to do).

>>> import torch
>>> from ranklens.compat.torchmetrics import RetrievalMAP
>>> indexes = torch.tensor([0, 0, 0, 1, 1, 1, 1])
>>> preds = torch.tensor([0.2, 0.3, 0.5, 0.1, 0.3, 0.5, 0.2])
>>> target = torch.tensor([False, False, True, False, True, False, True])
>>> rmap = RetrievalMAP()
>>> rmap(preds, target, indexes=indexes)
tensor(0.7917)
"""

from __future__ import annotations

from typing import Any

from ranklens.compat.torchmetrics._classes import CLASS_NAMES, classes
from ranklens.compat.torchmetrics._core import RetrievalInputError, retrieval_values

__all__ = [
    "RetrievalAUROC",
    "RetrievalFallOut",
    "RetrievalHitRate",
    "RetrievalInputError",
    "RetrievalMAP",
    "RetrievalMRR",
    "RetrievalNormalizedDCG",
    "RetrievalPrecision",
    "RetrievalPrecisionRecallCurve",
    "RetrievalRPrecision",
    "RetrievalRecall",
    "RetrievalRecallAtFixedPrecision",
    "retrieval_values",
]

# built on first use (see _classes.classes): torchmetrics.Metric subclasses when it is
# installed
RetrievalAUROC: type
RetrievalFallOut: type
RetrievalHitRate: type
RetrievalMAP: type
RetrievalMRR: type
RetrievalNormalizedDCG: type
RetrievalPrecision: type
RetrievalPrecisionRecallCurve: type
RetrievalRPrecision: type
RetrievalRecall: type
RetrievalRecallAtFixedPrecision: type


def __getattr__(name: str) -> Any:
    if name in CLASS_NAMES:
        return classes()[name]
    if name == "functional":  # the submodule (it imports torch)
        import importlib

        return importlib.import_module(f"{__name__}.functional")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*__all__, "functional"])
