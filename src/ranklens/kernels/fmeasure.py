"""The F-measure of precision and recall at a cutoff (van Rijsbergen's F-beta)."""

from __future__ import annotations

from ranklens.base.types import Float64Array
from ranklens.kernels._util import safe_divide
from ranklens.kernels.precision import precision, recall
from ranklens.ranking.align import Ranked


def f_measure(r: Ranked, rel: int, cutoff: int | None, beta: float = 1.0) -> Float64Array:
    """``F@k = (1 + beta^2) * P@k * R@k / (beta^2 * P@k + R@k)``; 0 when both are 0.

    ``P@k`` and ``R@k`` are :func:`~ranklens.kernels.precision.precision` and
    :func:`~ranklens.kernels.precision.recall` (padded ``P@k``, ``R@k`` over all relevant
    documents); without a cutoff, the set precision and recall of the whole ranking.
    """
    p = precision(r, rel, cutoff)
    rc = recall(r, rel, cutoff)
    weight = beta * beta
    return safe_divide((1.0 + weight) * p * rc, weight * p + rc)
