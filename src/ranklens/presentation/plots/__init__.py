"""Plots of rankings and results: precision-recall, ROC, measures against the cut-off,
per-query differences and distributions.

matplotlib is optional (``pip install 'ranklens[plot]'``) and imported only when a plot is
drawn; without it the ``plot_*`` functions raise
:class:`~ranklens.base.errors.MissingDependencyError`. Each returns a
:class:`matplotlib.figure.Figure` made without pyplot (no global state): save it with
``fig.savefig("plot.png")`` (or ``.svg``, ``.pdf``).

==================  =================================================================
:func:`plot_pr`     precision-recall curves of one query (raw and interpolated) or the
                    mean interpolated curve over the queries
:func:`plot_roc`    ROC curves with the AUC and the optimal cut-off
:func:`plot_cutoff` measures against their cut-off k (``P@k``, ``R@k``, ``nDCG@k``)
:func:`plot_delta`  per-query differences between two runs, sorted
:func:`plot_dist`   the distribution of per-query values per run (box or violin)
==================  =================================================================

:func:`plot_cd` draws the critical-difference diagram of Friedman's test (Demšar 2006),
:func:`plot_rank_intervals` the rank intervals of a comparison of all pairs of runs and
:func:`plot_group_deltas` the per-group differences of a comparison with query groups
(:mod:`ranklens.presentation.plots.comparison_plots`).

:func:`plot_forest` draws the forest plot of a meta-analysis across collections
(:func:`ranklens.meta_analysis`).

:func:`plot_asl_curves` draws the ASL curves of measures (discriminative power, Sakai
2006) and :func:`plot_swap_rates` swap rates by topic set size (Voorhees and Buckley 2002).

What is drawn is computed by :mod:`ranklens.presentation.plots.data` (plain numpy arrays, no
matplotlib), so the numbers can be checked or drawn in another way.

Examples
--------
>>> import ranklens
>>> from ranklens.presentation.plots import plot_cutoff
>>> from ranklens.data.examples import example_paths
>>> qrels, runs = example_paths()
>>> fig = plot_cutoff(qrels, runs, ["P", "nDCG"], max_k=10)  # doctest: +SKIP
>>> fig.savefig("cutoff.png")  # doctest: +SKIP
"""

from __future__ import annotations

from ranklens.presentation.plots.comparison_plots import (
    plot_cd,
    plot_group_deltas,
    plot_rank_intervals,
)
from ranklens.presentation.plots.discriminative import plot_asl_curves, plot_swap_rates
from ranklens.presentation.plots.figures import (
    plot_cutoff,
    plot_delta,
    plot_dist,
    plot_pr,
    plot_roc,
)
from ranklens.presentation.plots.forest import plot_forest

__all__ = [
    "plot_asl_curves",
    "plot_cd",
    "plot_cutoff",
    "plot_delta",
    "plot_dist",
    "plot_forest",
    "plot_group_deltas",
    "plot_pr",
    "plot_rank_intervals",
    "plot_roc",
    "plot_swap_rates",
]
