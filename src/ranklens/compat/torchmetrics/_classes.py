"""The classes, built on first use: ``torchmetrics.Metric`` subclasses when torchmetrics is
installed, plain classes with the same methods otherwise."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

from ranklens.base.errors import MissingDependencyError, OptionError
from ranklens.compat.torchmetrics._core import (
    RetrievalInputError,
    aggregate,
    check_adaptive_k,
    check_inputs,
    check_max_fpr,
    check_min_precision,
    check_options,
    check_top_k,
    no_target_error,
    require_torch,
    retrieval_values,
)

MODULE = "ranklens.compat.torchmetrics"

CLASS_NAMES = (
    "RetrievalAUROC",
    "RetrievalFallOut",
    "RetrievalHitRate",
    "RetrievalMAP",
    "RetrievalMRR",
    "RetrievalNormalizedDCG",
    "RetrievalPrecision",
    "RetrievalPrecisionRecallCurve",
    "RetrievalRPrecision",
    "RetrievalRecall",
    "RetrievalRecallAtFixedPrecision",
)
"""Every retrieval class of torchmetrics 1.9."""

Aggregation = str | Callable[..., Any]


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

        def __call__(self, *args: Any, **kwargs: Any) -> Any:
            return self.forward(*args, **kwargs)

        def forward(self, *args: Any, **kwargs: Any) -> Any:
            kept = (self.indexes, self.preds, self.target)
            self.reset()
            try:
                self.update(*args, **kwargs)  # type: ignore[attr-defined]
                value = self.compute()  # type: ignore[attr-defined]
                batch = (self.indexes, self.preds, self.target)
            finally:
                self.indexes, self.preds, self.target = kept
            self.indexes.extend(batch[0])
            self.preds.extend(batch[1])
            self.target.extend(batch[2])
            return value

    return StandaloneMetric


@cache
def classes() -> dict[str, type]:
    """``{name: class}`` for every retrieval class of torchmetrics 1.9."""
    torch = require_torch()
    try:
        import torchmetrics

        base: type = torchmetrics.Metric
        stateful = True
    except ImportError:
        base = _standalone_base()
        stateful = False

    def cat(state: Any) -> Any:
        """A list state as one tensor (after a distributed sync it may be one already)."""
        return state if isinstance(state, torch.Tensor) else torch.cat(list(state))

    class RetrievalBase(base):  # type: ignore[misc]
        """State, options and ``update`` shared by every class."""

        kind = ""
        higher_is_better = True
        is_differentiable = False
        full_state_update = False
        plot_lower_bound = 0.0
        plot_upper_bound = 1.0

        def _start(
            self,
            kwargs: dict[str, Any],
            empty_target_action: Any,
            ignore_index: Any,
            aggregation: Any,
            ties: Any,
        ) -> None:
            base.__init__(self, **kwargs)  # type: ignore[misc]
            if stateful:  # torchmetrics' states: concatenated across processes
                self.add_state("indexes", default=[], dist_reduce_fx=None)
                self.add_state("preds", default=[], dist_reduce_fx=None)
                self.add_state("target", default=[], dist_reduce_fx=None)
            self.ties = check_options(
                self.kind, empty_target_action, ignore_index, aggregation, ties
            )
            self.empty_target_action = empty_target_action
            self.ignore_index = ignore_index
            self.aggregation = aggregation
            self.top_k: int | None = None
            self.adaptive_k = False
            self.positive_only = True
            self.max_fpr: float | None = None

        def update(self, preds: Any, target: Any, indexes: Any) -> None:
            """Check a batch and keep it (rows whose target is ``ignore_index`` dropped)."""
            indexes, preds, target = check_inputs(
                torch, preds, target, indexes, self.kind == "ndcg", self.ignore_index
            )
            self.indexes.append(indexes)
            self.preds.append(preds)
            self.target.append(target)

        def _kept(self) -> tuple[Any, Any, Any]:
            if not len(self.indexes):
                raise RetrievalInputError(
                    "compute() before any update(): there is nothing to evaluate"
                )
            return cat(self.indexes), cat(self.preds), cat(self.target)

        def _values(self, indexes: Any, preds: Any, target: Any, **options: Any) -> Any:
            """The value of each query kept (its curve, for the curves); the queries
            without the targets the metric needs scored 1 (``"pos"``) or 0 (``"neg"``),
            left out (``"skip"``) or refused (``"error"``), as ``empty_target_action``
            says."""
            values, defined = retrieval_values(
                self.kind,
                preds,
                target,
                indexes,
                top_k=self.top_k,
                adaptive_k=self.adaptive_k,
                positive_only=self.positive_only,
                ties=self.ties,
                max_fpr=self.max_fpr,
                checked=True,
                **options,
            )
            if bool(defined.all()):
                return values
            action = self.empty_target_action
            if action == "error":
                raise no_target_error(self.kind)
            if action == "skip":
                return values[defined]
            fill = 1.0 if action == "pos" else 0.0
            shape = (-1,) + (1,) * (values.dim() - 1)
            return torch.where(defined.view(shape), values, fill)

        def plot(self, val: Any = None, ax: Any = None) -> Any:
            """torchmetrics' plot of one or more values (needs torchmetrics and
            matplotlib)."""
            if not stateful:
                raise MissingDependencyError("plot() needs torchmetrics: pip install torchmetrics")
            return self._plot(val, ax)

    class ScalarMetric(RetrievalBase):
        """A metric with one value per query, aggregated over the queries."""

        def compute(self) -> Any:
            """The aggregated value over every query of every batch kept."""
            indexes, preds, target = self._kept()
            values = self._values(indexes, preds, target)
            if values.numel() == 0:
                return torch.tensor(0.0, dtype=torch.float32, device=preds.device)
            value = aggregate(torch, values, self.aggregation)
            return value.to(torch.float32) if isinstance(value, torch.Tensor) else value

    def set_top_k(self: Any, top_k: Any) -> None:
        self.top_k = check_top_k(top_k)

    class TopKMetric(ScalarMetric):
        def __init__(
            self,
            empty_target_action: str = "neg",
            ignore_index: int | None = None,
            top_k: int | None = None,
            aggregation: Aggregation = "mean",
            *,
            ties: str | None = None,
            **kwargs: Any,
        ) -> None:
            self._start(kwargs, empty_target_action, ignore_index, aggregation, ties)
            set_top_k(self, top_k)

    class PositiveOnlyMetric(TopKMetric):
        def __init__(
            self,
            empty_target_action: str = "neg",
            ignore_index: int | None = None,
            top_k: int | None = None,
            aggregation: Aggregation = "mean",
            *,
            positive_only: bool = True,
            ties: str | None = None,
            **kwargs: Any,
        ) -> None:
            super().__init__(
                empty_target_action, ignore_index, top_k, aggregation, ties=ties, **kwargs
            )
            self.positive_only = bool(positive_only)

    class RetrievalNormalizedDCG(TopKMetric):
        kind = "ndcg"

    class RetrievalHitRate(TopKMetric):
        kind = "hit_rate"

    class RetrievalMAP(PositiveOnlyMetric):
        kind = "map"

    class RetrievalMRR(PositiveOnlyMetric):
        kind = "mrr"

    class RetrievalRecall(PositiveOnlyMetric):
        kind = "recall"

    class RetrievalFallOut(TopKMetric):
        kind = "fall_out"
        higher_is_better = False

        def __init__(
            self,
            empty_target_action: str = "pos",
            ignore_index: int | None = None,
            top_k: int | None = None,
            aggregation: Aggregation = "mean",
            *,
            ties: str | None = None,
            **kwargs: Any,
        ) -> None:
            super().__init__(
                empty_target_action, ignore_index, top_k, aggregation, ties=ties, **kwargs
            )

    class RetrievalPrecision(ScalarMetric):
        kind = "precision"

        def __init__(
            self,
            empty_target_action: str = "neg",
            ignore_index: int | None = None,
            top_k: int | None = None,
            adaptive_k: bool = False,
            aggregation: Aggregation = "mean",
            *,
            positive_only: bool = True,
            ties: str | None = None,
            **kwargs: Any,
        ) -> None:
            self._start(kwargs, empty_target_action, ignore_index, aggregation, ties)
            set_top_k(self, top_k)
            self.adaptive_k = check_adaptive_k(adaptive_k)
            self.positive_only = bool(positive_only)

    class RetrievalRPrecision(ScalarMetric):
        kind = "r_precision"

        def __init__(
            self,
            empty_target_action: str = "neg",
            ignore_index: int | None = None,
            aggregation: Aggregation = "mean",
            *,
            ties: str | None = None,
            **kwargs: Any,
        ) -> None:
            self._start(kwargs, empty_target_action, ignore_index, aggregation, ties)

    class RetrievalAUROC(ScalarMetric):
        kind = "auroc"

        def __init__(
            self,
            empty_target_action: str = "neg",
            ignore_index: int | None = None,
            top_k: int | None = None,
            max_fpr: float | None = None,
            aggregation: Aggregation = "mean",
            *,
            ties: str | None = None,
            **kwargs: Any,
        ) -> None:
            self._start(kwargs, empty_target_action, ignore_index, aggregation, ties)
            set_top_k(self, top_k)
            self.max_fpr = check_max_fpr(max_fpr)

    class RetrievalPrecisionRecallCurve(RetrievalBase):
        kind = "pr_curve"

        def __init__(
            self,
            max_k: int | None = None,
            adaptive_k: bool = False,
            empty_target_action: str = "neg",
            ignore_index: int | None = None,
            aggregation: Aggregation = "mean",
            *,
            ties: str | None = None,
            **kwargs: Any,
        ) -> None:
            self._start(kwargs, empty_target_action, ignore_index, aggregation, ties)
            self.max_k = check_top_k(max_k, "max_k")
            self.adaptive_k = check_adaptive_k(adaptive_k)

        def compute(self) -> Any:
            """``(precision, recall, top_k)``: the aggregated precision and recall at
            each k from 1 to ``max_k`` (the longest query when None), and the k."""
            indexes, preds, target = self._kept()
            # (Q, max_k, 2); without max_k, k runs to the longest query's length
            curves = self._values(indexes, preds, target, max_k=self.max_k)
            max_k = int(curves.shape[1])
            device = preds.device
            if curves.shape[0] == 0:
                precision = torch.zeros(max_k, dtype=torch.float32, device=device)
                recall = torch.zeros(max_k, dtype=torch.float32, device=device)
            else:
                precision = self._aggregated(curves[:, :, 0])
                recall = self._aggregated(curves[:, :, 1])
            return precision, recall, torch.arange(1, max_k + 1, device=device)

        def _aggregated(self, values: Any) -> Any:
            value = aggregate(torch, values, self.aggregation, dim=0)
            return value.to(torch.float32) if isinstance(value, torch.Tensor) else value

        def plot(self, curve: Any = None, ax: Any = None) -> Any:
            """torchmetrics' plot of the curve (needs matplotlib)."""
            from torchmetrics.utilities.plot import plot_curve

            curve = curve or self.compute()
            return plot_curve(
                curve,
                ax=ax,
                label_names=("False positive rate", "True positive rate"),
                name=self.__class__.__name__,
            )

    class RetrievalRecallAtFixedPrecision(RetrievalPrecisionRecallCurve):
        higher_is_better = True

        def __init__(
            self,
            min_precision: float = 0.0,
            max_k: int | None = None,
            adaptive_k: bool = False,
            empty_target_action: str = "neg",
            ignore_index: int | None = None,
            *,
            ties: str | None = None,
            **kwargs: Any,
        ) -> None:
            aggregation = kwargs.pop("aggregation", "mean")
            super().__init__(
                max_k,
                adaptive_k,
                empty_target_action,
                ignore_index,
                aggregation,
                ties=ties,
                **kwargs,
            )
            self.min_precision = check_min_precision(min_precision)

        def compute(self) -> Any:
            """``(max_recall, best_k)``: the largest recall whose precision is at least
            ``min_precision`` (on the aggregated curve) and its k (the largest such k on
            equal recalls; ``max_k`` when the recall is 0)."""
            precision, recall, top_k = super().compute()
            return recall_at_fixed_precision(torch, precision, recall, top_k, self.min_precision)

        def plot(self, val: Any = None, ax: Any = None) -> Any:
            """torchmetrics' plot of the recall values (needs matplotlib)."""
            val = val or self.compute()[0]
            return self._plot(val, ax)

    built: dict[str, type] = {}
    for cls in (
        RetrievalAUROC,
        RetrievalFallOut,
        RetrievalHitRate,
        RetrievalMAP,
        RetrievalMRR,
        RetrievalNormalizedDCG,
        RetrievalPrecision,
        RetrievalPrecisionRecallCurve,
        RetrievalRPrecision,
        RetrievalRecall,
        RetrievalRecallAtFixedPrecision,
    ):
        cls.__module__ = MODULE  # pickled by reference, as the module's attribute
        cls.__qualname__ = cls.__name__
        cls.__doc__ = _doc(cls.__name__)
        built[cls.__name__] = cls
    return built


def recall_at_fixed_precision(
    torch: Any, precision: Any, recall: Any, top_k: Any, min_precision: float
) -> tuple[Any, Any]:
    """The largest recall whose precision is at least ``min_precision``, and its k (the
    largest on equal recalls); ``(0, len(top_k))`` when there is none or it is 0."""
    reached = precision >= min_precision
    fallback = torch.tensor(len(top_k), dtype=top_k.dtype, device=top_k.device)
    if not bool(reached.any()):
        return torch.tensor(0.0, dtype=recall.dtype, device=recall.device), fallback
    candidates = torch.where(reached, recall, -1.0)
    best = candidates.max()
    index = int(torch.nonzero(candidates == best).flatten()[-1])
    if float(best) == 0.0:
        return recall[index], fallback
    return recall[index], top_k[index]


_DOCS = {
    "RetrievalAUROC": "the area under the ROC curve of each query's top ``top_k`` documents "
    "(standardised over ``[0, max_fpr]`` with ``max_fpr``)",
    "RetrievalFallOut": "fall-out: the share of a query's non-relevant documents found in "
    "its top ``top_k`` (lower is better; queries without a non-relevant document are the "
    "empty ones, counted as 1 by default)",
    "RetrievalHitRate": "hit rate: 1 if a relevant document is in the top ``top_k``",
    "RetrievalMAP": "mean average precision (at ``top_k``: over the relevant documents "
    "found in the top k)",
    "RetrievalMRR": "mean reciprocal rank (0 past ``top_k``)",
    "RetrievalNormalizedDCG": "nDCG with linear gains (the targets), tied scores averaged",
    "RetrievalPrecision": "precision at ``top_k`` (divided by k, or by the query's "
    "documents with ``adaptive_k`` where it has fewer)",
    "RetrievalPrecisionRecallCurve": "precision and recall at each k from 1 to ``max_k``",
    "RetrievalRPrecision": "R-precision: precision at R, the query's relevant documents",
    "RetrievalRecall": "recall at ``top_k``",
    "RetrievalRecallAtFixedPrecision": "the largest recall at a k whose precision reaches "
    "``min_precision``, and that k",
}


def _doc(name: str) -> str:
    return (
        f"torchmetrics' ``{name}`` computed by ranklens: {_DOCS[name]}.\n\n"
        "See :mod:`ranklens.compat.torchmetrics` for the arguments and definitions."
    )
