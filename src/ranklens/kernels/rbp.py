"""Rank-biased precision and its residual (Moffat & Zobel, TOIS 2008; trec_eval 10 ``rbp``,
``rbp_resid``).

The weights ``p^i`` are built as trec_eval builds them, by repeated multiplication
(``cur_p = cur_p * p``), not with ``pow``, so the sums have the same bits.
"""

from __future__ import annotations

import numpy as np

from ranklens.base.errors import MeasureError
from ranklens.base.segments import segment_count, segment_sum
from ranklens.base.types import Float64Array
from ranklens.kernels._running import powers
from ranklens.kernels.options import RBP_GAINS, RESIDUAL_TAILS
from ranklens.ranking.align import Ranked


def rbp_gains(r: Ranked, rel: int, gain: str) -> Float64Array:
    """The RBP gain of the document at every rank.

    ``binary``: 1 for a relevant document (grade >= ``rel``), else 0. ``graded``: the grade
    divided by L, the highest grade judged for the query, when L > 1 (else the grade
    itself): trec_eval 10's ``rbp`` as it runs alone or in ``all_trec`` (its normalisation
    reads uninitialised variables, which behave as 0 there). ``rel`` plays no part in the
    graded gain. ``raw``: the grade itself for a relevant document (grade >= ``rel``), else 0
    (ranx's ``rbp``). Unjudged and negatively judged documents gain 0.
    """
    if gain == "binary":
        return r.relevant(rel).astype(np.float64)
    if gain == "raw":
        return np.where(r.relevant(rel), r.rel, 0).astype(np.float64)
    if gain != "graded":
        raise MeasureError(f"RBP gain must be one of {list(RBP_GAINS)}, got {gain!r}")
    top = r.max_grade.astype(np.float64)  # L per query, -1 if none
    scale = np.where(top > 1.0, top, 1.0)[r.ids]
    grades = np.where(r.rel > 0, r.rel, 0).astype(np.float64)
    return np.where(scale > 1.0, grades / scale, grades)


def rbp(r: Ranked, p: float, rel: int, gain: str) -> Float64Array:
    """``RBP = (1 - p) * sum_i g_i * p^i`` over the ranks i = 0, 1, ... of the ranking."""
    weights = powers(p, int(r.num_ret.max(initial=0)))
    gains = rbp_gains(r, rel, gain)
    gained = np.flatnonzero(gains != 0.0)
    total = segment_sum(gains[gained] * weights[r.pos[gained]], r.ids[gained], r.num_queries)
    return (1.0 - p) * total


def rbp_residual(r: Ranked, p: float, tail: str) -> Float64Array:
    """The most RBP could still gain: ``p^n + (1 - p) * sum over unjudged ranks i of p^i``
    (n retrieved; unjudged: not in the qrels, or judged negative). ``tail="trec"``: 0 for a
    query without unjudged retrieved documents, as trec_eval 10 reports it."""
    if tail not in RESIDUAL_TAILS:
        raise MeasureError(f"RBPResid tail must be one of {list(RESIDUAL_TAILS)}, got {tail!r}")
    weights = powers(p, int(r.num_ret.max(initial=0)))
    unjudged = np.flatnonzero(r.rel < 0)
    total = segment_sum(weights[r.pos[unjudged]], r.ids[unjudged], r.num_queries)
    residual = weights[r.num_ret] + (1.0 - p) * total
    if tail == "trec":
        residual = np.where(segment_count(r.ids[unjudged], r.num_queries) > 0, residual, 0.0)
    return residual
