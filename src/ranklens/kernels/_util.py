"""Small helpers shared by the kernels."""

from __future__ import annotations

import numpy as np

from ranklens.base.types import Float64Array, Int64Array


def safe_divide(numerator: np.ndarray, denominator: np.ndarray) -> Float64Array:
    """``numerator / denominator`` as float64, and 0 where the denominator is 0."""
    num = np.asarray(numerator, dtype=np.float64)
    den = np.asarray(denominator, dtype=np.float64)
    out = np.zeros(np.broadcast(num, den).shape, dtype=np.float64)
    np.divide(num, den, out=out, where=den != 0)
    return out


def depth_limit(num_ret: Int64Array, cutoff: int | None) -> Int64Array:
    """Per query, how many ranks a measure with ``cutoff`` looks at."""
    return num_ret if cutoff is None else np.minimum(num_ret, cutoff)
