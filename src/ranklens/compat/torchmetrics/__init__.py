"""torchmetrics' retrieval metrics on ranklens: ``from ranklens.compat.torchmetrics import
RetrievalNormalizedDCG, RetrievalMAP, RetrievalMRR, RetrievalPrecision, RetrievalRecall,
RetrievalHitRate, RetrievalRPrecision``.

The classes take torchmetrics' constructor arguments (``top_k``, ``empty_target_action``,
``ignore_index``, ``adaptive_k`` for precision, ``aggregation``) and have its interface:
``update(preds, target, indexes)``, ``compute()``, ``reset()``, and ``metric(preds,
target, indexes)`` for the value of one batch. When torchmetrics is installed they *are*
``torchmetrics.Metric`` subclasses, so Lightning's ``self.log("val/ndcg", metric)``,
``.to(device)``, state synchronisation in distributed training and ``MetricCollection``
work as with torchmetrics' own classes; without it they are plain classes with the same
methods (only torch is needed). The values come from :func:`ranklens.tensor.evaluate`, in
float64, on the tensors' device (one padded batch of every query, no Python loop over
queries), returned as torchmetrics returns them (a float32 scalar tensor).

The definitions are torchmetrics' (1.9): the documents of a query are the rows sharing an
``indexes`` value; relevant documents outside them do not exist; precision, recall, MAP and
MRR count a relevant document only where its score is positive (torchmetrics 1.9's rule;
``positive_only=False`` counts every relevant document); MAP at ``top_k`` divides by
the relevant documents found in the top k (``AP(norm='ret')``); nDCG has linear gains and
averages tied scores (as torchmetrics and scikit-learn). Where torchmetrics' result depends
on an unstable sort, i.e. tied scores in every other metric, ranklens orders tied documents
by their order of arrival (``ties="input"``, the default; ``"pessimistic"``,
``"optimistic"`` and ``"average"`` are the other choices of :func:`ranklens.tensor.evaluate`).

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

from collections.abc import Callable
from functools import cache
from typing import Any

from ranklens.base.errors import InputError, OptionError
from ranklens.base.optional import require
from ranklens.tensor import TENSOR_TIES, TensorTies

__all__ = [
    "RetrievalHitRate",
    "RetrievalMAP",
    "RetrievalMRR",
    "RetrievalNormalizedDCG",
    "RetrievalPrecision",
    "RetrievalRPrecision",
    "RetrievalRecall",
]

# built on first use (see _classes): torchmetrics.Metric subclasses when it is installed
RetrievalHitRate: type
RetrievalMAP: type
RetrievalMRR: type
RetrievalNormalizedDCG: type
RetrievalPrecision: type
RetrievalRPrecision: type
RetrievalRecall: type

_ACTIONS = ("error", "skip", "neg", "pos")
_AGGREGATIONS = ("mean", "median", "min", "max")
_KINDS = {
    "RetrievalNormalizedDCG": "ndcg",
    "RetrievalMAP": "map",
    "RetrievalMRR": "mrr",
    "RetrievalPrecision": "precision",
    "RetrievalRecall": "recall",
    "RetrievalHitRate": "hit_rate",
    "RetrievalRPrecision": "r_precision",
}
_POSITIVE_ONLY = {"map", "mrr", "precision", "recall"}  # torchmetrics' preds > 0 rule
_WITH_TOP_K = {"ndcg", "map", "mrr", "precision", "recall", "hit_rate"}


def _check_top_k(top_k: Any) -> int | None:
    if top_k is None:
        return None
    if isinstance(top_k, bool) or not isinstance(top_k, int) or top_k <= 0:
        raise OptionError(f"`top_k` has to be a positive integer or None, not {top_k!r}")
    return top_k


def _check_inputs(
    torch: Any, preds: Any, target: Any, indexes: Any, graded: bool, ignore_index: int | None
) -> tuple[Any, Any, Any]:
    """torchmetrics' checks, with ranklens' messages: flattened ``(indexes, preds, target)``,
    the rows whose target is ``ignore_index`` left out."""
    if indexes is None:
        raise InputError("`indexes` cannot be None: give the query of each row")
    for name, value in (("preds", preds), ("target", target), ("indexes", indexes)):
        if not isinstance(value, torch.Tensor):
            raise InputError(f"`{name}` must be a torch tensor, not {type(value).__name__}")
    if not indexes.shape == preds.shape == target.shape:
        raise InputError(
            f"`indexes`, `preds` and `target` must have the same shape, not "
            f"{tuple(indexes.shape)}, {tuple(preds.shape)} and {tuple(target.shape)}"
        )
    if indexes.dtype is not torch.long:
        raise InputError(f"`indexes` must be a tensor of long integers, not {indexes.dtype}")
    if ignore_index is not None:
        keep = target != ignore_index
        indexes, preds, target = indexes[keep], preds[keep], target[keep]
    if indexes.numel() == 0 or indexes.dim() == 0:
        raise InputError("`indexes`, `preds` and `target` must be non-empty, non-scalar tensors")
    if not preds.is_floating_point():
        raise InputError(f"`preds` must be a tensor of floats, not {preds.dtype}")
    if target.dtype not in (torch.bool, torch.long, torch.int) and not target.is_floating_point():
        raise InputError(f"`target` must hold booleans, integers or floats, not {target.dtype}")
    if graded:
        if bool((target < 0).any()):
            raise InputError(
                "`target` holds negative grades; nDCG here takes grades >= 0 (mark rows to "
                "leave out with ignore_index)"
            )
        if target.is_floating_point() and not bool((target == torch.round(target)).all()):
            raise InputError(
                "`target` holds fractional grades; ranklens' grades are whole numbers (as in "
                "qrels): multiply them all by one number that makes them whole (nDCG does not "
                "change)"
            )
    elif bool((target > 1).any()) or bool((target < 0).any()):
        raise InputError("`target` must hold binary values (0/1 or booleans)")
    target = target.float() if target.is_floating_point() else target.long()
    return indexes.flatten(), preds.float().flatten(), target.flatten()


def _padded(torch: Any, indexes: Any, preds: Any, target: Any) -> tuple[Any, Any, Any, Any]:
    """One row per query (in increasing ``indexes`` order, the documents of a query in their
    order of arrival): ``(scores, labels, mask, counts)``, padded to the longest query."""
    n = indexes.shape[0]
    if n > 1 and bool((indexes[1:] >= indexes[:-1]).all()):  # grouped already: no sort
        grouped, scores_flat, labels_flat = indexes, preds, target
    else:
        order = torch.argsort(indexes, stable=True)
        grouped, scores_flat, labels_flat = indexes[order], preds[order], target[order]
    starts_new = torch.ones(n, dtype=torch.bool, device=indexes.device)
    starts_new[1:] = grouped[1:] != grouped[:-1]
    rows = torch.cumsum(starts_new, 0) - 1
    first = torch.nonzero(starts_new).flatten()
    counts = torch.diff(first, append=torch.tensor([n], device=indexes.device))
    n_queries, width = first.shape[0], int(counts.max())
    scores_flat = scores_flat.double()
    if n == n_queries * width:  # every query the same length: a reshape
        mask = torch.ones((n_queries, width), dtype=torch.bool, device=preds.device)
        return scores_flat.view(n_queries, width), labels_flat.view(n_queries, width), mask, counts
    flat = rows * width + (torch.arange(n, device=indexes.device) - first[rows])
    scores = torch.zeros(n_queries * width, dtype=torch.float64, device=preds.device)
    labels = torch.zeros(n_queries * width, dtype=target.dtype, device=target.device)
    mask = torch.zeros(n_queries * width, dtype=torch.bool, device=preds.device)
    scores[flat] = scores_flat
    labels[flat] = labels_flat
    mask[flat] = True
    shape = (n_queries, width)
    return scores.view(shape), labels.view(shape), mask.view(shape), counts


def retrieval_values(
    kind: str,
    preds: Any,
    target: Any,
    indexes: Any,
    *,
    top_k: int | None = None,
    adaptive_k: bool = False,
    ignore_index: int | None = None,
    positive_only: bool = True,
    ties: TensorTies | None = None,
    checked: bool = False,
) -> tuple[Any, Any]:
    """The value of each query and whether it has a positive target, as torchmetrics'
    ``kind`` metric defines them (``"ndcg"``, ``"map"``, ``"mrr"``, ``"precision"``,
    ``"recall"``, ``"hit_rate"``, ``"r_precision"``), in float64.

    Returns
    -------
    tuple
        ``(values, has_positive)``: two ``(Q,)`` tensors, queries in increasing ``indexes``.
    """
    from ranklens.tensor import evaluate

    torch = require("torch", "ranklens.compat.torchmetrics")
    if not checked:
        indexes, preds, target = _check_inputs(
            torch, preds, target, indexes, kind == "ndcg", ignore_index
        )
    scores, labels, mask, counts = _padded(torch, indexes, preds, target)
    has_positive = labels.sum(dim=1) != 0
    if kind == "ndcg":
        measure = "nDCG" if top_k is None else f"nDCG@{top_k}"
        return evaluate(
            scores, labels, measure, mask=mask, ties=ties or "average", dtype=torch.float64
        )[measure], has_positive
    relevant = labels > 0
    counted = relevant & (scores > 0) if positive_only and kind in _POSITIVE_ONLY else relevant
    grades = counted.long()
    chosen: TensorTies = ties or "input"
    width = scores.shape[1]

    def one(measure: str, n_rel: Any = None) -> Any:
        return evaluate(
            scores, grades, measure, mask=mask, n_rel=n_rel, ties=chosen, dtype=torch.float64
        )[measure]

    k = width if top_k is None else top_k
    if kind == "precision":
        hits = torch.round(one(f"P@{k}") * k)
        den = counts.double() if top_k is None else torch.full_like(hits, float(top_k))
        if adaptive_k and top_k is not None:
            den = torch.minimum(den, counts.double())
        return hits / den, has_positive
    if kind == "recall":
        return one(f"R@{k}", relevant.sum(dim=1)), has_positive
    if kind == "mrr":
        return one(f"RR@{k}"), has_positive
    if kind == "map":
        return one(f"AP(norm='ret')@{k}"), has_positive
    if kind == "hit_rate":
        return one(f"Success@{k}"), has_positive
    if kind == "r_precision":
        return one("Rprec"), has_positive
    raise OptionError(f"unknown retrieval metric {kind!r}; one of {sorted(_KINDS.values())}")


def _aggregate(torch: Any, values: Any, aggregation: str | Callable[..., Any]) -> Any:
    if aggregation == "mean":
        return values.mean()
    if aggregation == "median":
        return values.median()
    if aggregation == "min":
        return values.min()
    if aggregation == "max":
        return values.max()
    return aggregation(values, dim=None)  # type: ignore[operator]


class _Retrieval:
    """What every class shares: the options, checked once, and the value of the data."""

    kind = ""
    higher_is_better = True
    is_differentiable = False
    full_state_update = False

    def _setup(
        self,
        empty_target_action: str,
        ignore_index: int | None,
        top_k: int | None,
        adaptive_k: bool,
        aggregation: str | Callable[..., Any],
        positive_only: bool,
        ties: str | None,
    ) -> None:
        if empty_target_action not in _ACTIONS:
            raise OptionError(
                f"`empty_target_action` must be one of {list(_ACTIONS)}, "
                f"not {empty_target_action!r}"
            )
        if ignore_index is not None and (
            isinstance(ignore_index, bool) or not isinstance(ignore_index, int)
        ):
            raise OptionError(f"`ignore_index` must be an integer or None, not {ignore_index!r}")
        if not isinstance(adaptive_k, bool):
            raise OptionError(f"`adaptive_k` has to be a boolean, not {adaptive_k!r}")
        if not (aggregation in _AGGREGATIONS or callable(aggregation)):
            raise OptionError(
                f"`aggregation` must be one of {list(_AGGREGATIONS)} or a callable, "
                f"not {aggregation!r}"
            )
        if ties is not None and ties not in TENSOR_TIES:
            raise OptionError(f"ties must be one of {list(TENSOR_TIES)}, not {ties!r}")
        self.ties: TensorTies | None = ties
        if ties == "average" and self.kind not in ("ndcg", "precision", "recall"):
            raise OptionError(
                "ties='average' is defined for the measures linear in the gains only "
                "(nDCG, precision, recall)"
            )
        self.empty_target_action = empty_target_action
        self.ignore_index = ignore_index
        self.top_k = _check_top_k(top_k)
        self.adaptive_k = adaptive_k
        self.aggregation = aggregation
        self.positive_only = bool(positive_only)

    def _value(self, indexes: Any, preds: Any, target: Any) -> Any:
        """torchmetrics' ``compute`` on data already checked by ``update``."""
        torch = require("torch", "ranklens.compat.torchmetrics")
        values, has_positive = retrieval_values(
            self.kind,
            preds,
            target,
            indexes,
            top_k=self.top_k,
            adaptive_k=self.adaptive_k,
            positive_only=self.positive_only,
            ties=self.ties,
            checked=True,
        )
        if not bool(has_positive.all()):
            action = self.empty_target_action
            if action == "error":
                raise InputError(
                    "a query has no positive target (empty_target_action='error'); pass "
                    "'skip', 'neg' or 'pos' to score such queries"
                )
            if action == "skip":
                values = values[has_positive]
            else:
                values = torch.where(has_positive, values, 1.0 if action == "pos" else 0.0)
        if values.numel() == 0:
            return torch.tensor(0.0, dtype=torch.float32, device=preds.device)
        return _aggregate(torch, values, self.aggregation).to(torch.float32)


def _standalone_base() -> type:
    """The base class without torchmetrics: list states, ``update``/``compute``/``reset``
    and a call that returns the batch's value and keeps its data."""

    class StandaloneMetric:
        def __init__(self, **kwargs: Any) -> None:
            if kwargs:
                raise OptionError(
                    f"{sorted(kwargs)}: torchmetrics' Metric options need torchmetrics "
                    "(pip install torchmetrics)"
                )
            self.reset()

        def reset(self) -> None:
            self.indexes: list[Any] = []
            self.preds: list[Any] = []
            self.target: list[Any] = []

        def __call__(self, preds: Any, target: Any, indexes: Any) -> Any:
            return self.forward(preds, target, indexes)

        def forward(self, preds: Any, target: Any, indexes: Any) -> Any:
            kept = len(self.indexes)
            self.update(preds, target, indexes)  # type: ignore[attr-defined]
            batch = (self.indexes[kept], self.preds[kept], self.target[kept])
            return self._value(*batch)  # type: ignore[attr-defined]

    return StandaloneMetric


@cache
def _classes() -> dict[str, type]:
    torch = require("torch", "ranklens.compat.torchmetrics")
    try:
        import torchmetrics

        base: type = torchmetrics.Metric
        stateful = True
    except ImportError:
        base = _standalone_base()
        stateful = False

    class RetrievalMetric(_Retrieval, base):  # type: ignore[misc]
        """A torchmetrics retrieval metric computed by ranklens (see the module's doc)."""

        def __init__(
            self,
            empty_target_action: str = "neg",
            ignore_index: int | None = None,
            top_k: int | None = None,
            adaptive_k: bool = False,
            aggregation: str | Callable[..., Any] = "mean",
            *,
            positive_only: bool = True,
            ties: str | None = None,
            **kwargs: Any,
        ) -> None:
            base.__init__(self, **kwargs)  # type: ignore[misc]
            if stateful:  # torchmetrics' states: concatenated across processes
                self.add_state("indexes", default=[], dist_reduce_fx=None)
                self.add_state("preds", default=[], dist_reduce_fx=None)
                self.add_state("target", default=[], dist_reduce_fx=None)
            self._setup(
                empty_target_action,
                ignore_index,
                top_k,
                adaptive_k,
                aggregation,
                positive_only,
                ties,
            )

        def update(self, preds: Any, target: Any, indexes: Any) -> None:
            """Check a batch and keep it (rows whose target is ``ignore_index`` dropped)."""
            indexes, preds, target = _check_inputs(
                torch, preds, target, indexes, self.kind == "ndcg", self.ignore_index
            )
            self.indexes.append(indexes)
            self.preds.append(preds)
            self.target.append(target)

        def compute(self) -> Any:
            """The aggregated value over every query of every batch kept."""
            if not self.indexes:
                raise InputError("compute() before any update(): there is nothing to evaluate")
            return self._value(_cat(self.indexes), _cat(self.preds), _cat(self.target))

    def _cat(state: Any) -> Any:
        """A list state as one tensor (after a distributed sync it may be one already)."""
        return state if isinstance(state, torch.Tensor) else torch.cat(list(state))

    classes: dict[str, type] = {}
    for name, kind in _KINDS.items():
        top_k_doc = "" if kind == "r_precision" else "top_k: consider only the top k documents.\n"
        namespace: dict[str, Any] = {
            "kind": kind,
            "__doc__": f"torchmetrics' ``{name}`` computed by ranklens.\n\n{top_k_doc}"
            "See :mod:`ranklens.compat.torchmetrics` for the arguments and definitions.",
            "__module__": __name__,
            "__qualname__": name,
        }
        if kind == "r_precision":
            namespace["__init__"] = _no_top_k(RetrievalMetric)
        elif kind != "precision":
            namespace["__init__"] = _no_adaptive_k(RetrievalMetric)
        classes[name] = type(name, (RetrievalMetric,), namespace)
    return classes


def _no_top_k(parent: type) -> Callable[..., None]:
    def __init__(  # noqa: N807
        self: Any,
        empty_target_action: str = "neg",
        ignore_index: int | None = None,
        aggregation: str | Callable[..., Any] = "mean",
        *,
        positive_only: bool = True,
        ties: str | None = None,
        **kwargs: Any,
    ) -> None:
        parent.__init__(  # type: ignore[misc]
            self,
            empty_target_action,
            ignore_index,
            None,
            False,
            aggregation,
            positive_only=positive_only,
            ties=ties,
            **kwargs,
        )

    return __init__


def _no_adaptive_k(parent: type) -> Callable[..., None]:
    def __init__(  # noqa: N807
        self: Any,
        empty_target_action: str = "neg",
        ignore_index: int | None = None,
        top_k: int | None = None,
        aggregation: str | Callable[..., Any] = "mean",
        *,
        positive_only: bool = True,
        ties: str | None = None,
        **kwargs: Any,
    ) -> None:
        parent.__init__(  # type: ignore[misc]
            self,
            empty_target_action,
            ignore_index,
            top_k,
            False,
            aggregation,
            positive_only=positive_only,
            ties=ties,
            **kwargs,
        )

    return __init__


def __getattr__(name: str) -> Any:
    if name in _KINDS:
        return _classes()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*__all__, "retrieval_values"])
