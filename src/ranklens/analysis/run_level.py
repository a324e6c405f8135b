r"""Statistics for run-level measures (aggregate ``"run"``: ``Coverage@10``, ``Gini@10``,
...): a paired bootstrap over users.

A run-level measure has no per-query values to pair, so :func:`ranklens.compare` resamples
the *users*: B times, the shared users are drawn with replacement (the same draws for every
run and measure, from the bootstrap stream of the comparison's ``seed``, as
:mod:`ranklens.analysis.stats._draws`), and each run's value is recomputed with every user
counted as often as it was drawn. For the difference :math:`\Delta = v_b - v_a` and its
resampled values :math:`\Delta^{*1..B}`:

* the interval is the percentile interval: the :math:`(1 - c)/2` and :math:`(1 + c)/2`
  quantiles of the :math:`\Delta^{*b}` (linear interpolation, as :func:`numpy.quantile`);
* the p-value is the shift method's (the resampled differences centred on
  :math:`\Delta` stand for the null distribution):
  :math:`p = (\#\{b : |\Delta^{*b} - \Delta| \ge |\Delta|\} + 1) / (B + 1)`,
  a difference within a relative :math:`10^{-9}` counting as a tie; :math:`p = 1` when
  :math:`\Delta = 0`.

The effect size, wins/ties/losses and the power figures need per-query values: they are
NaN (0 for the counts). Values are computed on the users that all the runs share.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ranklens.analysis.stats._draws import resample_counts
from ranklens.base.errors import MeasureError
from ranklens.base.types import Float64Array, Int64Array
from ranklens.evaluation.results import Results
from ranklens.measures.base import Measure, RunStatistic

_TIE = 1e-9


def _statistic(result: Results, measure: Measure) -> RunStatistic:
    stat = result.run_statistics.get(measure.name)
    if stat is None:
        raise MeasureError(
            f"{result.run}: {measure.name} is computed over the whole run and its statistic "
            "was not kept with these results (read from a file?): evaluate the run again to "
            "compare it"
        )
    return stat


def _weights(stat: RunStatistic, rows: Int64Array, counts: Float64Array) -> Float64Array:
    """Per-user weights (draws x the statistic's users) from counts over the shared users."""
    out = np.zeros((counts.shape[0], stat.num_queries), dtype=np.float64)
    out[:, rows] = counts
    return out


def shared_value(result: Results, measure: Measure, rows: Int64Array) -> float:
    """The run-level ``measure`` of ``result`` over its users ``rows`` (the shared ones)."""
    stat = _statistic(result, measure)
    if rows.shape[0] == stat.num_queries:
        return stat.value(None)
    return stat.value(_weights(stat, rows, np.ones((1, rows.shape[0])))[0])


def resampled_values(
    results: Sequence[Results],
    measure: Measure,
    rows: Sequence[Int64Array],
    resamples: int,
    seed: int,
) -> Float64Array:
    """``(B, runs)``: each run's value of ``measure`` on each bootstrap resample of the
    shared users (``rows[i]``: where the shared users are in run ``i``'s results)."""
    n = rows[0].shape[0]
    stats = [_statistic(r, measure) for r in results]
    out = np.empty((resamples, len(results)), dtype=np.float64)
    done = 0
    for counts in resample_counts(n, resamples, seed):
        size = counts.shape[0]
        for i, stat in enumerate(stats):
            out[done : done + size, i] = stat.values(_weights(stat, rows[i], counts))
        done += size
    return out


def paired_bootstrap(
    observed: float, resampled: Float64Array, confidence: float
) -> tuple[float, float, float]:
    """``(p, low, high)`` for an observed difference and its resampled values."""
    b = resampled.shape[0]
    tail = (1.0 - confidence) / 2.0
    low, high = np.quantile(resampled, [tail, 1.0 - tail])
    if observed == 0.0:
        return 1.0, float(low), float(high)
    threshold = abs(observed) * (1.0 - _TIE)
    extreme = int(np.count_nonzero(np.abs(resampled - observed) >= threshold))
    return (extreme + 1.0) / (b + 1.0), float(low), float(high)
