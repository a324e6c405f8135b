"""``RetrievalMeasures``: the tensor measures as a ``torchmetrics.Metric``.

Its state is one float64 vector (the sum of each measure's per-query values, then the
number of queries) reduced with ``"sum"``, so synchronising processes is one collective
and the result equals the single-process mean. The class is built on first use, so that
importing :mod:`ranklens.tensor` needs neither torch nor torchmetrics.

>>> from ranklens.tensor import RetrievalMeasures  # doctest: +SKIP
>>> metric = RetrievalMeasures(["nDCG@10", "AP"])  # doctest: +SKIP
>>> metric.update(scores, labels, n_rel=n_rel)  # doctest: +SKIP
>>> metric.compute()  # doctest: +SKIP
{'nDCG@10': tensor(0.7311, dtype=torch.float64), 'AP': tensor(0.5833, dtype=torch.float64)}
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from typing import Any

from ranklens.base.errors import MissingDependencyError
from ranklens.base.optional import require
from ranklens.measures import Measure
from ranklens.tensor._batch import TensorTies
from ranklens.tensor._evaluate import evaluate, tensor_measures


@cache
def _metric_class() -> type:
    try:
        torch = require("torch", "ranklens.tensor.RetrievalMeasures")
        torchmetrics = require("torchmetrics", "ranklens.tensor.RetrievalMeasures")
    except MissingDependencyError as exc:
        raise MissingDependencyError(
            f"{exc} (or: pip install 'ranklens[torch]')"
        ) from exc.__cause__

    class RetrievalMeasures(torchmetrics.Metric):  # type: ignore[misc,name-defined]
        """Mean IR measures over batches of padded ``(Q, N)`` scores and labels.

        Parameters
        ----------
        measures
            Measure names (see :func:`ranklens.tensor.evaluate`).
        ties
            The tie policy (default: ``"trec_eval"`` when ``doc_ids`` are passed, else
            ``"input"``).
        **kwargs
            Passed on to ``torchmetrics.Metric``.
        """

        full_state_update = False
        is_differentiable = False
        higher_is_better = True

        def __init__(
            self,
            measures: Iterable[str | Measure] | str,
            *,
            ties: TensorTies | None = None,
            **kwargs: Any,
        ) -> None:
            super().__init__(**kwargs)
            self.measures = tuple(m.name for m in tensor_measures(measures))
            self.ties = ties
            self.add_state(
                "totals",
                default=torch.zeros(len(self.measures) + 1, dtype=torch.float64),
                dist_reduce_fx="sum",
            )

        def update(
            self,
            scores: Any,
            labels: Any,
            mask: Any = None,
            doc_ids: Any = None,
            n_rel: Any = None,
            ideal_labels: Any = None,
        ) -> None:
            """Add a batch (arguments as :func:`ranklens.tensor.evaluate`)."""
            values = evaluate(
                scores,
                labels,
                self.measures,
                mask=mask,
                doc_ids=doc_ids,
                n_rel=n_rel,
                ideal_labels=ideal_labels,
                ties=self.ties,
                dtype=torch.float64,
            )
            sums = [values[name].sum() for name in self.measures]
            count = torch.tensor(float(scores.shape[0]), dtype=torch.float64, device=scores.device)
            self.totals += torch.stack([*sums, count]).to(self.totals.device)

        def compute(self) -> dict[str, Any]:
            """``{measure: mean over every query added}``."""
            count = self.totals[-1]
            return {name: self.totals[i] / count for i, name in enumerate(self.measures)}

    RetrievalMeasures.__module__ = __name__
    RetrievalMeasures.__qualname__ = "RetrievalMeasures"  # pickled by reference
    return RetrievalMeasures


def __getattr__(name: str) -> Any:
    if name == "RetrievalMeasures":
        return _metric_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
