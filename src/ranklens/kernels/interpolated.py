"""Interpolated precision at recall levels."""

from __future__ import annotations

import numpy as np

from ranklens.base.segments import range_max
from ranklens.base.types import Float64Array, Int64Array
from ranklens.ranking.align import Ranked


def recall_cutoff(recall: float, num_rel: Int64Array, rounding: str) -> Int64Array:
    """How many relevant documents recall level ``recall`` stands for: ``round(x * R)``,
    halves away from zero (trec_eval 10 ``lround``), or ``floor(x * R + 0.9)`` (9.0.8)."""
    product = np.float64(recall) * num_rel
    bump = 0.9 if rounding == "trec9" else 0.5
    return np.floor(product + bump).astype(np.int64)


def interpolated_precision(
    r: Ranked, rel: int, recall: float, rounding: str = "round"
) -> Float64Array:
    """Interpolated precision at recall level ``recall`` (trec_eval 10 ``iprec_at_recall``).

    ``IPrec@x = max{P@i : i >= rank of the c-th relevant document}`` with
    ``c = round(x * R)`` (halves away from zero), over the retrieved ranks only; 0 when
    fewer than c relevant documents are retrieved (and for an empty ranking). For ``c = 0``
    the maximum starts at the first relevant document. Precision only rises at relevant
    ranks, so the maximum is taken over those. ``rounding="trec9"`` uses trec_eval 9.0.8's
    ``c = floor(x * R + 0.9)``.
    """
    found = r.hit_counts(rel)
    c = recall_cutoff(recall, r.num_rel(rel), rounding)
    target = np.maximum(c, 1)
    ok = target <= found
    _, pos = r.hit_places(rel)
    precision = r.hit_number(rel) / (pos + 1)
    first = np.concatenate(([0], np.cumsum(found)))
    starts = np.where(ok, first[:-1] + target - 1, 0)
    stops = np.where(ok, first[1:], 0)
    best = range_max(precision, starts, stops)
    return np.where(ok, best, 0.0)
