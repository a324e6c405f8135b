"""Random draws shared by the resampling tests, and exact fixed-point sums.

Two ideas make the randomization and bootstrap tests reproducible to the last bit,
whatever the number of BLAS threads or the CPU:

* **The draws depend only on** ``(seed, number of queries, number of draws)``. Sign flips and
  bootstrap resamples come from two independent streams of one seed
  (``SeedSequence(seed, spawn_key=(stream,))``), drawn chunk after chunk (``rows_per_chunk``
  is a function of the number of queries only), so every pair of runs and every measure
  sees the same draws, in whatever order or number they are asked for.
* **Sums are exact.** Before a matrix product, each column of values is rounded to a grid of
  ``unit = 2**e`` (:func:`fixed_point`), ``e`` chosen so that any sum of ``n`` values times
  non-negative integer weights adding up to at most ``n`` stays below ``2**50`` units.
  Every partial sum is then an integer multiple of ``unit`` below ``2**53`` units, which
  float64 represents exactly: the product is exact in any summation order, so comparing
  sums (with the tolerance a test allows for ties) gives the same answer everywhere. The
  rounding moves a value by at most ``n * max|x| * 2**-50``, about ``6e-12 * max|x|`` for
  7,000 queries.

Memory stays bounded: a chunk holds about :data:`CHUNK_ELEMENTS` draws.

>>> q, unit = fixed_point(np.array([[0.5, 1.0], [-0.25, 0.0]]), 2)
>>> bool(np.all(q * unit == [[0.5, 1.0], [-0.25, 0.0]]))
True
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from ranklens.base.types import Float64Array

CHUNK_ELEMENTS = 1 << 21
"""About how many draws (permutations x queries) one chunk holds: 16 MiB of float64."""

SIGN_FLIPS = 1
"""The stream of the randomization test's sign flips."""
RESAMPLES = 2
"""The stream of the bootstrap's resampled query indices."""

_EXACT_BITS = 50


def rows_per_chunk(n: int) -> int:
    """How many permutations or resamples of ``n`` queries one chunk holds."""
    return max(1, CHUNK_ELEMENTS // max(n, 1))


def generator(seed: int, stream: int) -> np.random.Generator:
    """The random generator of one stream of ``seed``."""
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(stream,)))


def fixed_point(x: Float64Array, n: int) -> tuple[Float64Array, Float64Array]:
    """Round each column of ``x`` to integer multiples of a power of two.

    Returns ``(q, unit)``: ``q`` integer-valued float64 with ``x ≈ q * unit`` (``unit`` has
    one entry per column), such that ``sum(w_i * |q_i|) <= 2**50`` for any non-negative
    weights with ``sum(w) <= n``.
    """
    biggest = np.max(np.abs(x), axis=0) if x.shape[0] else np.zeros(x.shape[1:])
    with np.errstate(divide="ignore"):
        exponent = np.ceil(np.log2(biggest * max(n, 1)))
    exponent = np.where(biggest > 0, exponent - _EXACT_BITS, 0.0)
    unit = np.ldexp(1.0, exponent.astype(np.int64))
    return np.round(x / unit), unit


def sign_flips(n: int, count: int, seed: int) -> Iterator[Float64Array]:
    """Chunks of ``count`` random sign flips of ``n`` queries: float64 0/1 arrays
    ``(rows, n)``, 1 where the query's difference changes sign (probability 1/2 each)."""
    rng = generator(seed, SIGN_FLIPS)
    width = (n + 7) // 8
    rows = rows_per_chunk(n)
    done = 0
    while done < count:
        take = min(rows, count - done)
        packed = np.frombuffer(rng.bytes(take * width), dtype=np.uint8).reshape(take, width)
        yield np.unpackbits(packed, axis=1, count=n).astype(np.float64)
        done += take


def resample_counts(n: int, count: int, seed: int) -> Iterator[Float64Array]:
    """Chunks of ``count`` bootstrap resamples of ``n`` queries (drawn uniformly with
    replacement), as float64 arrays ``(rows, n)`` of how often each query was drawn."""
    rng = generator(seed, RESAMPLES)
    rows = rows_per_chunk(n)
    done = 0
    while done < count:
        take = min(rows, count - done)
        index = rng.integers(0, n, size=(take, n))
        index += (np.arange(take, dtype=np.int64) * n)[:, None]
        counts = np.bincount(index.ravel(), minlength=take * n)
        yield counts.reshape(take, n).astype(np.float64)
        done += take
