"""Checks shared by the statistics functions: one message per kind of mistake.

>>> as_columns([0.5, -0.25])[0].shape
(2, 1)
>>> check_confidence(1.5)
Traceback (most recent call last):
...
ranklens.base.errors.OptionError: confidence must be a number strictly between 0 and 1, not 1.5
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt

from ranklens.base.errors import InputError, OptionError
from ranklens.base.types import Float64Array


def as_columns(values: npt.ArrayLike, minimum: int = 2) -> tuple[Float64Array, bool]:
    """``values`` as a float64 matrix ``(n, k)`` (one column per comparison) and whether
    the input was one vector; raise :class:`InputError` for fewer than ``minimum`` rows,
    more than two dimensions or non-finite values."""
    array = np.asarray(values, dtype=np.float64)
    vector = array.ndim == 1
    if vector:
        array = array[:, None]
    if array.ndim != 2:
        raise InputError(
            f"expected paired values as a vector or a matrix (queries x comparisons), "
            f"not an array of {array.ndim} dimensions"
        )
    if array.shape[0] < minimum:
        raise InputError(f"a paired test needs at least {minimum} queries, not {array.shape[0]}")
    if not np.all(np.isfinite(array)):
        raise InputError("per-query values must be finite numbers (found nan or infinity)")
    return array, vector


def shaped(values: Float64Array, vector: bool) -> Float64Array:
    """``values`` (one per column) as a 0-d array when the input was one vector."""
    return values.reshape(()) if vector else values


def check_confidence(confidence: Any) -> float:
    """The confidence level, checked to lie strictly between 0 and 1."""
    if (
        isinstance(confidence, bool)
        or not isinstance(confidence, int | float)
        or not 0 < confidence < 1
    ):
        raise OptionError(
            f"confidence must be a number strictly between 0 and 1, not {confidence!r}"
        )
    return float(confidence)


def check_alpha(alpha: Any) -> float:
    """The significance level, checked to lie strictly between 0 and 1."""
    if isinstance(alpha, bool) or not isinstance(alpha, int | float) or not 0 < alpha < 1:
        raise OptionError(f"alpha must be a number strictly between 0 and 1, not {alpha!r}")
    return float(alpha)


def check_count(name: str, value: Any) -> int:
    """A positive whole number of permutations or resamples."""
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 1:
        raise OptionError(f"{name} must be a positive whole number, not {value!r}")
    return int(value)


def check_seed(seed: Any) -> int:
    """A seed for :func:`numpy.random.default_rng`: a whole number >= 0."""
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise OptionError(f"seed must be a whole number >= 0, not {seed!r}")
    return int(seed)


def column_means(d: Float64Array) -> Float64Array:
    """The mean of each column, correctly rounded (:func:`math.fsum`): the same for a
    column alone or among others, in any memory layout."""
    n = d.shape[0]
    return np.array([math.fsum(column.tolist()) / n for column in d.T], dtype=np.float64)


def column_sds(d: Float64Array, means: Float64Array) -> Float64Array:
    """The standard deviation (``ddof=1``) of each column, summed as :func:`column_means`."""
    n = d.shape[0]
    squares = (d - means) ** 2
    return np.array(
        [math.sqrt(math.fsum(column.tolist()) / (n - 1)) for column in squares.T],
        dtype=np.float64,
    )
