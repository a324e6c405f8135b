r"""Discriminative power and swap rates of an evaluation measure, on a matrix of
per-topic values (topics x systems).

**Achieved significance levels** (Sakai 2006). For every pair of systems :math:`(i, j)`,
:math:`i < j`, the ASL of the difference :math:`x_{\cdot j} - x_{\cdot i}`:

* ``bootstrap``: the paired bootstrap test of :func:`~ranklens.analysis.stats.bootstrap_test`
  (studentized, shift method, :math:`(\#\{b: |t^{*b}| \ge |t|\} + 1)/(B + 1)`), the same
  ``B`` resamples of the topics for every pair.
* ``tukey``: the randomised Tukey HSD test (Carterette 2012; Sakai 2014, 2018): in each of
  ``B`` trials the values of every topic are permuted across the systems, and the ASL of a
  pair is :math:`(\#\{b: \max_k \bar x^{*b}_k - \min_k \bar x^{*b}_k \ge
  |\bar x_j - \bar x_i|\} + 1)/(B + 1)`. It controls the family-wise error over all pairs.

The **discriminative power** of the measure is the share of pairs with ASL at most
:math:`\alpha`. The **difference required** for significance (Sakai 2006, fig. 4): for each
pair, the resamples are ordered by :math:`|t^{*b}|`, largest first; the resample at position
:math:`\lfloor B\alpha \rfloor + 1` (the critical one) has mean :math:`\bar z^{*b}`; the pair's
required difference is :math:`|\bar z^{*b}|`, and the measure's is the largest over the pairs
(a conservative estimate).

**Swap rate** (Voorhees and Buckley 2002). For a topic set size :math:`c \le n/2`, each
trial draws two disjoint random sets of :math:`c` topics; for every pair of systems, the
difference of the means on the first set, :math:`d_1`, is binned by :math:`|d_1|`, and the
pair *swaps* when :math:`d_1 d_2 < 0` (the second set orders the pair the other way; a tie
on the second set is no swap, and a pair tied on the first set, :math:`d_1 = 0`, is left
out). The swap rate of a bin is its swaps over its pairs.

Reproducibility: the draws depend only on the seed and the sizes (not on the number of
threads); bootstrap sums are exact (see :mod:`ranklens.analysis.stats._draws`) and the
other sums are taken along one axis by numpy, never by BLAS.

References
----------
Sakai (2006). Evaluating evaluation metrics based on the bootstrap. SIGIR, 525-532.

Carterette (2012). Multiple testing in statistical analysis of systems-based information
retrieval experiments. ACM TOIS 30(1).

Sakai (2014). Statistical reform in information retrieval? SIGIR Forum 48(1).

Voorhees and Buckley (2002). The effect of topic set size on retrieval experiment error.
SIGIR, 316-323.

Examples
--------
>>> x = [[0.2, 0.5, 0.3], [0.4, 0.6, 0.4], [0.1, 0.5, 0.2], [0.3, 0.7, 0.3],
...      [0.2, 0.6, 0.1], [0.3, 0.4, 0.3]]
>>> asl = bootstrap_asl(x, resamples=500)
>>> [round(float(p), 3) for p in asl.asl]
[0.022, 0.597, 0.012]
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ranklens.analysis.stats._draws import (
    CHUNK_ELEMENTS,
    fixed_point,
    generator,
    resample_counts,
)
from ranklens.analysis.stats._validate import check_alpha, check_count, check_seed
from ranklens.analysis.stats.bootstrap import _TIE, _t
from ranklens.analysis.stats.paired_tests import _studentized
from ranklens.base.errors import InputError, OptionError
from ranklens.base.types import Float64Array, Int64Array

PERMUTATIONS = 3
"""The stream of the randomised Tukey HSD's permutations (see ``_draws``)."""
SPLITS = 4
"""The stream of the swap rate's random splits of the topics."""

__all__ = [
    "ASL",
    "SwapRates",
    "bootstrap_asl",
    "pair_indices",
    "randomised_tukey_asl",
    "swap_rates",
]


@dataclass(frozen=True)
class ASL:
    """Achieved significance levels of every pair of systems.

    Attributes
    ----------
    first, second : (pairs,) the systems of each pair (columns, ``first < second``).
    delta : (pairs,) ``mean[second] - mean[first]``.
    asl : (pairs,) the achieved significance levels.
    required : (pairs,) the difference required for significance (bootstrap only; nan for
        the randomised Tukey HSD, where it is one number: ``critical_range``).
    critical_range : the range of means that the randomised Tukey HSD requires
        (nan for the bootstrap).
    """

    first: Int64Array
    second: Int64Array
    delta: Float64Array
    asl: Float64Array
    required: Float64Array
    critical_range: float


def pair_indices(systems: int) -> tuple[Int64Array, Int64Array]:
    """Every pair ``(i, j)``, ``i < j``, of ``systems`` systems, in row order."""
    first, second = np.triu_indices(systems, k=1)
    return first.astype(np.int64), second.astype(np.int64)


def _matrix(values: npt.ArrayLike) -> Float64Array:
    x = np.asarray(values, dtype=np.float64)
    if x.ndim != 2 or x.shape[0] < 2 or x.shape[1] < 2:
        raise InputError(
            "expected per-topic values as a matrix (topics x systems) of at least 2 topics "
            f"and 2 systems, not shape {x.shape}"
        )
    if not np.all(np.isfinite(x)):
        raise InputError("per-topic values must be finite numbers (found nan or infinity)")
    return x


def bootstrap_asl(
    values: npt.ArrayLike, resamples: int = 1000, seed: int = 42, alpha: float = 0.05
) -> ASL:
    """ASLs of every pair of systems by the paired bootstrap test, and the difference each
    pair requires for significance at ``alpha`` (Sakai 2006).

    Parameters
    ----------
    values
        Per-topic values, topics x systems.
    resamples
        How many bootstrap resamples of the topics (B).
    seed
        Seed of the resampling (the same resamples as
        :func:`~ranklens.analysis.stats.bootstrap_test` with this seed).
    alpha
        The significance level of the required difference.
    """
    x = _matrix(values)
    b = check_count("resamples", resamples)
    rng_seed = check_seed(seed)
    level = check_alpha(alpha)
    first, second = pair_indices(x.shape[1])
    d = x[:, second] - x[:, first]
    n, k = d.shape
    mean, _, t_observed = _studentized(d)
    z = d - mean
    zq, z_unit = fixed_point(z, n)
    wq, w_unit = fixed_point(z * z, n)
    both = np.hstack([zq, wq])
    threshold = np.abs(t_observed) * (1.0 - _TIE)
    count = np.zeros(k, dtype=np.int64)
    keep = min(b, math.floor(b * level) + 1)  # the critical resample's rank (1-based)
    top_t = np.empty((0, k))
    top_mean = np.empty((0, k))
    top_index = np.empty((0, k), dtype=np.int64)
    done = 0
    for counts in resample_counts(n, b, rng_seed):
        rows = counts.shape[0]
        sums = counts @ both  # exact
        s1 = sums[:, :k] * z_unit
        s2 = sums[:, k:] * w_unit
        m = s1 / n
        var = np.maximum(s2 - s1 * m, 0.0) / (n - 1)
        t = np.abs(_t(m, np.sqrt(var), n))
        count += np.count_nonzero(t >= threshold, axis=0)
        index = np.broadcast_to(np.arange(done, done + rows, dtype=np.int64)[:, None], (rows, k))
        all_t = np.vstack([top_t, t])
        all_mean = np.vstack([top_mean, np.abs(m)])
        all_index = np.vstack([top_index, index])
        # largest |t| first, earlier resample first among equal |t|: a total order
        order = np.lexsort((all_index, -all_t), axis=0)[:keep]
        top_t = np.take_along_axis(all_t, order, axis=0)
        top_mean = np.take_along_axis(all_mean, order, axis=0)
        top_index = np.take_along_axis(all_index, order, axis=0)
        done += rows
    asl = np.asarray((count + 1.0) / (b + 1.0), dtype=np.float64)
    required = np.asarray(top_mean[keep - 1], dtype=np.float64)
    return ASL(first, second, mean, asl, required, math.nan)


def _permutation_chunks(n: int, systems: int, count: int, seed: int) -> list[Int64Array]:
    """``count`` random within-topic permutations of ``systems`` columns, as chunks of
    index arrays ``(rows, n, systems)``; they depend only on the seed and the sizes."""
    rng = generator(seed, PERMUTATIONS)
    rows = max(1, CHUNK_ELEMENTS // max(n * systems, 1))
    out = []
    done = 0
    base = np.arange(systems, dtype=np.int64)
    while done < count:
        take = min(rows, count - done)
        out.append(rng.permuted(np.broadcast_to(base, (take, n, systems)), axis=2))
        done += take
    return out


def randomised_tukey_asl(
    values: npt.ArrayLike, resamples: int = 1000, seed: int = 42, alpha: float = 0.05
) -> ASL:
    """ASLs of every pair of systems by the randomised Tukey HSD test (see the module).

    ``critical_range`` is the range of the means that a pair must exceed to be significant
    at ``alpha``: the :math:`\\lfloor B\\alpha \\rfloor + 1`-th largest permuted range.
    """
    x = _matrix(values)
    b = check_count("resamples", resamples)
    rng_seed = check_seed(seed)
    level = check_alpha(alpha)
    n, m = x.shape
    first, second = pair_indices(m)
    means = x.mean(axis=0)
    delta = means[second] - means[first]
    threshold = np.abs(delta) * (1.0 - _TIE)
    count = np.zeros(delta.shape[0], dtype=np.int64)
    ranges = np.empty(b)
    done = 0
    topic = np.arange(n)[None, :, None]
    for perm in _permutation_chunks(n, m, b, rng_seed):
        permuted = x[topic, perm].mean(axis=1)  # (rows, systems), summed along topics
        spread = permuted.max(axis=1) - permuted.min(axis=1)
        ranges[done : done + spread.shape[0]] = spread
        count += np.count_nonzero(spread[:, None] >= threshold[None, :], axis=0)
        done += spread.shape[0]
    asl = np.asarray((count + 1.0) / (b + 1.0), dtype=np.float64)
    keep = min(b, math.floor(b * level) + 1)
    critical = float(np.sort(ranges)[::-1][keep - 1])
    return ASL(first, second, delta, asl, np.full(delta.shape, math.nan), critical)


@dataclass(frozen=True)
class SwapRates:
    """Swap rates by topic set size and difference bin (Voorhees and Buckley 2002).

    Attributes
    ----------
    sizes : (s,) the topic set sizes c.
    bin_edges : (bins + 1,) edges of the bins of ``|d1|``; the last bin is open above.
    swaps : (s, bins) how many (trial, pair) fell in the bin and swapped.
    counts : (s, bins) how many (trial, pair) fell in the bin.
    trials : random splits per size.
    """

    sizes: Int64Array
    bin_edges: Float64Array
    swaps: Int64Array
    counts: Int64Array
    trials: int

    @property
    def rates(self) -> Float64Array:
        """``swaps / counts`` (nan for empty bins)."""
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(self.counts > 0, self.swaps / np.maximum(self.counts, 1), np.nan)


def swap_rates(
    values: npt.ArrayLike,
    sizes: npt.ArrayLike | None = None,
    *,
    trials: int = 100,
    bin_width: float = 0.01,
    bins: int = 20,
    seed: int = 42,
) -> SwapRates:
    """Swap rates of the orderings of pairs of systems between two disjoint random topic
    sets of each size (see the module).

    Parameters
    ----------
    values
        Per-topic values, topics x systems.
    sizes
        Topic set sizes, each between 1 and half the number of topics (default: 5, 10, ...
        up to half the topics; every size from 1 when there are fewer than 10).
    trials
        Random splits per size.
    bin_width, bins
        The bins of ``|d1|``: ``[0, w), [w, 2w), ...``, the last one open above.
    seed
        Seed of the splits.

    Examples
    --------
    >>> x = [[0.1 * ((q * 7 + s * 3) % 5) + 0.05 * s for s in range(3)] for q in range(8)]
    >>> res = swap_rates(x, [2, 4], trials=20, bin_width=0.05, bins=4)
    >>> res.counts.sum(axis=1).tolist()
    [60, 60]
    """
    x = _matrix(values)
    n, m = x.shape
    if n < 2:
        raise InputError("swap rates need at least 2 topics")
    half = n // 2
    if sizes is None:
        chosen = list(range(5, half + 1, 5)) if half >= 10 else list(range(1, half + 1))
    else:
        chosen = [int(s) for s in np.atleast_1d(np.asarray(sizes))]
    for s in chosen:
        if not 1 <= s <= half:
            raise OptionError(
                f"a topic set size must be between 1 and half the topics ({half}), not {s}"
            )
    count = check_count("trials", trials)
    nbins = check_count("bins", bins)
    if (
        isinstance(bin_width, bool)
        or not isinstance(bin_width, int | float)
        or not (math.isfinite(bin_width) and bin_width > 0)
    ):
        raise OptionError(f"bin_width must be a finite number > 0, not {bin_width!r}")
    rng = generator(check_seed(seed), SPLITS)
    first, second = pair_indices(m)
    edges = np.arange(nbins + 1, dtype=np.float64) * float(bin_width)
    swaps = np.zeros((len(chosen), nbins), dtype=np.int64)
    counts = np.zeros((len(chosen), nbins), dtype=np.int64)
    for row, c in enumerate(chosen):
        order = np.argsort(rng.random((count, n)), axis=1, kind="stable")
        set1 = x[order[:, :c]].sum(axis=1) / c  # (trials, systems)
        set2 = x[order[:, c : 2 * c]].sum(axis=1) / c
        d1 = set1[:, second] - set1[:, first]
        d2 = set2[:, second] - set2[:, first]
        ordered = (d1 != 0).ravel()  # a pair tied on the first set has no order to swap
        where = np.minimum((np.abs(d1) / bin_width).astype(np.int64), nbins - 1).ravel()[ordered]
        swapped = ((d1 * d2) < 0).ravel()[ordered]
        counts[row] = np.bincount(where, minlength=nbins)
        swaps[row] = np.bincount(where, weights=swapped, minlength=nbins).astype(np.int64)
    return SwapRates(np.asarray(chosen, dtype=np.int64), edges, swaps, counts, count)
