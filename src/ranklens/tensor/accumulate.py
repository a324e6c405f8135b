"""Running means of tensor measures over many batches, in one vector of sums.

The state of a :class:`MeasureAccumulator` is one array on the batches' device: the sum of
each measure's per-query values and the number of queries. Merging two accumulators, or
the accumulators of several processes, is adding these vectors; in distributed training
:meth:`MeasureAccumulator.all_reduce` does it with one ``torch.distributed.all_reduce``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ranklens.base.errors import InputError
from ranklens.measures import Measure
from ranklens.tensor._batch import Array, TensorTies, device_of, namespace
from ranklens.tensor._evaluate import evaluate, tensor_measures
from ranklens.tensor._validate import as_arrays


class MeasureAccumulator:
    """Mean per-query measures over the batches given to :meth:`update`.

    Parameters
    ----------
    measures
        Measure names (see :func:`ranklens.tensor.evaluate`).
    ties
        The tie policy for every batch.

    Examples
    --------
    The mean over queries equals the mean of the per-query values of all batches together:

    >>> import numpy as np
    >>> acc = MeasureAccumulator(["RR", "P@1"])
    >>> acc.update(np.array([[0.2, 0.8]]), np.array([[1, 0]]))
    >>> acc.update(np.array([[0.9, 0.1], [0.5, 0.4]]), np.array([[1, 0], [0, 0]]))
    >>> {k: float(v) for k, v in acc.compute().items()}
    {'RR': 0.5, 'P@1': 0.3333333333333333}
    >>> float(acc.count)
    3.0
    """

    def __init__(
        self, measures: Iterable[str | Measure] | str, *, ties: TensorTies | None = None
    ) -> None:
        self.measures: tuple[str, ...] = tuple(m.name for m in tensor_measures(measures))
        self.ties = ties
        self.totals: Array | None = None
        """Per measure the sum of its per-query values, then the number of queries."""

    def update(
        self,
        scores: Array,
        labels: Array,
        *,
        mask: Array | None = None,
        doc_ids: Array | None = None,
        n_rel: Array | None = None,
        ideal_labels: Array | None = None,
    ) -> None:
        """Add a batch (arguments as :func:`ranklens.tensor.evaluate`), in float64."""
        scores, labels, mask, doc_ids, n_rel, ideal_labels = as_arrays(
            scores, labels, mask, doc_ids, n_rel, ideal_labels
        )
        xp = namespace(scores, labels)
        values = evaluate(
            scores,
            labels,
            self.measures,
            mask=mask,
            doc_ids=doc_ids,
            n_rel=n_rel,
            ideal_labels=ideal_labels,
            ties=self.ties,
            dtype=xp.float64,
        )
        sums = [xp.sum(values[name]) for name in self.measures]
        # the values' device (numpy 1.x's scalars have no .device attribute)
        device = device_of(values[self.measures[0]])
        count = xp.asarray(float(scores.shape[0]), dtype=xp.float64, device=device)
        batch = xp.stack([*sums, count])
        self.totals = batch if self.totals is None else self.totals + batch

    @property
    def count(self) -> Array:
        """The number of queries added."""
        if self.totals is None:
            raise InputError("no batch has been added")
        return self.totals[-1]

    def compute(self) -> dict[str, Array]:
        """``{measure: mean over every query added}`` (0-d arrays on the batches' device)."""
        if self.totals is None:
            raise InputError("no batch has been added: the means are undefined")
        count = self.totals[-1]
        return {name: self.totals[i] / count for i, name in enumerate(self.measures)}

    def merge(self, other: MeasureAccumulator) -> None:
        """Add the state of ``other`` (the same measures) to this one."""
        if other.measures != self.measures:
            raise InputError("accumulators of different measures cannot be merged")
        if other.totals is not None:
            self.totals = other.totals if self.totals is None else self.totals + other.totals

    def all_reduce(self, group: Any = None) -> None:
        """Sum the states of all processes of ``group`` (torch.distributed), in place, with
        one ``all_reduce``; every process must have added at least one batch."""
        if self.totals is None:
            raise InputError("no batch has been added: nothing to reduce")
        import torch.distributed as dist

        reduced = self.totals.clone()
        dist.all_reduce(reduced, op=dist.ReduceOp.SUM, group=group)
        self.totals = reduced

    def reset(self) -> None:
        """Forget every batch."""
        self.totals = None
