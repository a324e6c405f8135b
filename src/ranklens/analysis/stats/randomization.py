r"""Fisher's paired randomization (permutation) test, as used in IR by Smucker et al. (2007).

Under the null hypothesis that the two systems are interchangeable on every query, the sign
of each per-query difference :math:`d_i` is equally likely to be + or -. The test draws
``permutations`` random sign vectors :math:`s` and counts how often
:math:`|\sum_i s_i d_i| \ge |\sum_i d_i|` (the statistic is the absolute mean difference;
the test is two-sided). The p-value is the unbiased-in-the-limit, never-zero estimate

.. math:: p = \frac{\#\{b : |\bar d^{(b)}| \ge |\bar d|\} + 1}{B + 1}

(Phipson and Smyth, 2010), with :math:`B` = ``permutations``.

All columns (all pairs of runs and all measures) are tested with the **same** sign flips,
drawn once from ``seed`` in chunks (see :mod:`ranklens.analysis.stats._draws`): for a given seed
the result depends only on the column's values, the number of queries and ``permutations``,
not on which other columns are tested, nor on the number of threads. The flipped sums are
one matrix product per chunk (``flips @ diffs``), computed exactly on a fixed-point grid.
Permutations that tie with the observed sum count as at least as extreme; sums that differ
by less than ``2 n`` grid units (about ``1e-7`` times the largest difference for 7,000
queries, far above the representation error of decimal values: ``0.1 + 0.2`` ties with
``0.3``) are ties.

References
----------
Smucker, Allan and Carterette (2007). A comparison of statistical significance tests for
information retrieval evaluation. CIKM.

Phipson and Smyth (2010). Permutation p-values should never be zero. Stat. Appl. Genet.
Mol. Biol. 9(1).

Examples
--------
>>> res = randomization_test([0.1, 0.2, 0.3, 0.4, 0.5, 0.6], permutations=2000, seed=1)
>>> round(float(res.statistic), 2), 0.02 < float(res.p_value) < 0.05
(0.35, True)
>>> float(randomization_test([0.0, 0.0, 0.0], permutations=99).p_value)
1.0
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ranklens.analysis.stats._draws import fixed_point, sign_flips
from ranklens.analysis.stats._validate import (
    as_columns,
    check_count,
    check_seed,
    column_means,
    shaped,
)
from ranklens.analysis.stats.paired_tests import PairedResult
from ranklens.base.progress import Progress, report

DEFAULT_PERMUTATIONS = 10_000
DEFAULT_SEED = 42


def randomization_test(
    diffs: npt.ArrayLike,
    permutations: int = DEFAULT_PERMUTATIONS,
    seed: int = DEFAULT_SEED,
    *,
    progress: Progress | None = None,
) -> PairedResult:
    """Paired sign-flip randomization test of each column of ``diffs``.

    Parameters
    ----------
    diffs
        Differences ``(n,)`` or ``(n, k)``, ``n >= 2``.
    permutations
        How many random sign flips (B).
    seed
        Seed of :func:`numpy.random.default_rng` (the sign-flip stream of it).
    progress
        Called as ``progress(done, permutations)`` after each chunk of sign flips
        (:mod:`ranklens.base.progress`).

    Returns
    -------
    PairedResult
        ``statistic`` is the absolute mean difference; ``p_value`` is
        ``(count + 1) / (permutations + 1)``, so never 0, and exactly 1 when every difference
        is 0.
    """
    d, vector = as_columns(diffs)
    b = check_count("permutations", permutations)
    rng_seed = check_seed(seed)
    n = d.shape[0]
    q, _ = fixed_point(d, n)
    total = q.sum(axis=0)  # exact: integers below 2**50
    # sums closer than 2n units are ties (decimal ties such as 0.1 + 0.2 == 0.3 included)
    observed = np.abs(total) - 2.0 * n
    count = np.zeros(d.shape[1], dtype=np.int64)
    done = 0
    for flips in sign_flips(n, b, rng_seed):
        flipped = np.abs(total - 2.0 * (flips @ q))
        count += np.count_nonzero(flipped >= observed, axis=0)
        done += flips.shape[0]
        report(progress, done, b)
    p = np.asarray((count + 1.0) / (b + 1.0), dtype=np.float64)
    return PairedResult(shaped(np.abs(column_means(d)), vector), shaped(p, vector))
