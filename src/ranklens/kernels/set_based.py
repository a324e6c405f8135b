"""Measures of the retrieved set as a whole (rank order plays no part): relative set
precision, set AP, F, utility and the count of judged non-relevant documents retrieved.

Each is computed with trec_eval's arithmetic (``m_set_*.c``, ``m_utility.c``), from the
integer counts A = relevant retrieved, n = retrieved, R = relevant in the qrels.
"""

from __future__ import annotations

import math

import numpy as np

from ranklens.base.types import Float64Array
from ranklens.ranking.align import Ranked


def _counts(r: Ranked, rel: int) -> tuple[Float64Array, Float64Array, Float64Array]:
    """A, n and R per query as doubles."""
    return (
        r.hit_counts(rel).astype(np.float64),
        r.num_ret.astype(np.float64),
        r.num_rel(rel).astype(np.float64),
    )


def set_relative_precision(r: Ranked, rel: int) -> Float64Array:
    """``A / min(n, R)``; 0 when n = 0 or R = 0 (trec_eval ``set_relative_P``)."""
    hits, ret, num_rel = _counts(r, rel)
    den = np.minimum(ret, num_rel)
    out = np.zeros(r.num_queries, dtype=np.float64)
    np.divide(hits, den, out=out, where=(ret > 0) & (num_rel > 0))
    return out


def set_average_precision(r: Ranked, rel: int) -> Float64Array:
    """``(A * A) / (n * R)``; 0 when n = 0 or R = 0 (trec_eval ``set_map``)."""
    hits, ret, num_rel = _counts(r, rel)
    out = np.zeros(r.num_queries, dtype=np.float64)
    np.divide(hits * hits, ret * num_rel, out=out, where=(ret > 0) & (num_rel > 0))
    return out


def f_weight(beta: float) -> float:
    """trec_eval's ``x`` for ranklens's ``beta``: ``beta**2``, except that when ``beta`` is
    the rounded square root of a number with at most 15 significant digits, that number
    (so ``SetF(beta=sqrt(x))`` uses trec_eval's ``set_F.x`` exactly, not ``sqrt(x)**2``,
    which may be an ulp away: ``sqrt(0.5)**2 == 0.5000000000000001``)."""
    square = beta * beta
    short = float(f"{square:.15g}")
    return short if math.sqrt(short) == beta else square


def set_f(r: Ranked, rel: int, beta: float) -> Float64Array:
    """F-beta of the retrieved set: with ``P = A / n``, ``Rc = A / R``, ``x = beta^2``:
    ``(x + 1) * P * Rc / (x * P + Rc)``; 0 when A = 0 (trec_eval ``set_F.x``)."""
    hits, ret, num_rel = _counts(r, rel)
    found = hits > 0
    x = f_weight(beta)
    out = np.zeros(r.num_queries, dtype=np.float64)
    precision = np.divide(hits, ret, out=np.zeros_like(out), where=found)
    recall = np.divide(hits, num_rel, out=np.zeros_like(out), where=found)
    np.divide((x + 1.0) * precision * recall, x * precision + recall, out=out, where=found)
    return out


def utility(
    r: Ranked, rel: int, a: float, b: float, c: float, d: float, num_docs: int
) -> Float64Array:
    """``a*A + b*B + c*C + d*D`` over the contingency table of the retrieved set: A relevant
    retrieved, B non-relevant retrieved, C relevant not retrieved, D = num_docs - A - B - C
    (trec_eval ``utility`` with ``-N num_docs``); added left to right as trec_eval does."""
    hits = r.hit_counts(rel)
    ret = r.num_ret
    num_rel = r.num_rel(rel)
    rest = num_docs + hits - ret - num_rel
    return (
        a * hits.astype(np.float64)
        + b * (ret - hits).astype(np.float64)
        + c * (num_rel - hits).astype(np.float64)
        + d * rest.astype(np.float64)
    )


def judged_nonrelevant_retrieved(r: Ranked, rel: int) -> Float64Array:
    """Retrieved documents judged with ``0 <= grade < rel`` (trec_eval
    ``num_nonrel_judged_ret``)."""
    mask = r.judged & ~r.relevant(rel)
    return np.bincount(r.ids[mask], minlength=r.num_queries).astype(np.float64)
