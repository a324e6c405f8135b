"""IR measures on padded batches of tensors, for training loops (numpy, PyTorch, CuPy, JAX).

:func:`evaluate` takes scores and labels of shape ``(Q, N)`` and returns one value per
query for each measure, computed on the arrays' own namespace and device through the
Python Array API standard (``pip install 'ranklens[torch]'`` installs
``array-api-compat``, PyTorch and torchmetrics). With ``doc_ids`` and ``n_rel`` (or
``ideal_labels``) every value equals :func:`ranklens.evaluate`'s on the same data; without
them the values are *in-batch* (see docs/tensors.md).

:class:`MeasureAccumulator` keeps running sums over batches (one all-reduce in distributed
training); ``RetrievalMeasures`` is the same as a ``torchmetrics.Metric``.

>>> import numpy as np
>>> from ranklens.tensor import evaluate
>>> evaluate(np.array([[0.3, 0.9]]), np.array([[1, 0]]), ["RR", "nDCG@2"])
{'RR': array([0.5]), 'nDCG@2': array([0.63092975])}
"""

from __future__ import annotations

from typing import Any

from ranklens.tensor._batch import TENSOR_TIES, TensorTies
from ranklens.tensor._evaluate import SUPPORTED, doc_id_codes, evaluate, tensor_measures
from ranklens.tensor.accumulate import MeasureAccumulator

__all__ = [
    "SUPPORTED",
    "TENSOR_TIES",
    "MeasureAccumulator",
    "RetrievalMeasures",
    "TensorTies",
    "doc_id_codes",
    "evaluate",
    "tensor_measures",
]


def __getattr__(name: str) -> Any:
    if name == "RetrievalMeasures":  # imports torchmetrics: only on use
        from ranklens.tensor import metric

        return metric.RetrievalMeasures
    raise AttributeError(f"module 'ranklens.tensor' has no attribute {name!r}")
