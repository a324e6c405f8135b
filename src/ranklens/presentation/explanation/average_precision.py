"""Average precision, rank by rank: ``AP`` (and ``GMAP``, whose per-query value is AP).

At each relevant rank ``k`` the row shows ``P@k = hits / k``, and the running sum of
those precisions; the value divides the sum by ``N``: ``R`` (all relevant documents,
trec_eval), ``min(R, k)`` (``norm='min'``) or the relevant documents retrieved in the top
``k`` (``norm='ret'``, founding document 001's AP@k).

>>> from ranklens.presentation.explanation import explain
>>> ex = explain({"q": {"a": 1, "c": 1, "e": 1}},
...              {"q": {"a": 5, "b": 4, "c": 3, "d": 2, "e": 1}}, "q", "AP")
>>> ex.result
('AP = sum / N =', 2.2666666666666666, '/', 3, '=', 0.7555555555555555)
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

import numpy as np

from ranklens.base.types import Float64Array
from ranklens.presentation.explanation.context import (
    QueryData,
    Worked,
    cells,
    ideal_column,
    last,
    no_pad,
    ratio,
    running,
)
from ranklens.presentation.explanation.model import Text

FAMILY = ("AP", "GMAP")
"""The measures explained here."""

NORMS: Mapping[str, str] = MappingProxyType(
    {
        "R": "N = R, all relevant documents in the qrels (trec_eval map)",
        "min": "N = min(R, k), the most relevant documents a top k can hold",
        "ret": "N = the relevant documents retrieved in the top k",
    }
)
"""What each ``norm`` divides by."""


def explain_average_precision(q: QueryData) -> Worked:
    """The rows of AP (module docs)."""
    threshold = q.threshold
    length = q.read
    relevant = q.rel[:length] >= max(threshold, 0)
    hits = np.cumsum(relevant, dtype=np.int64)
    rank = np.arange(1, length + 1, dtype=np.int64)
    precision: Float64Array = np.where(relevant, hits / rank, 0.0)
    total = running(precision)
    num_rel = q.num_rel(threshold)
    norm = str(q.param("norm", "R"))
    if norm == "min":
        denominator = min(num_rel, q.n if q.cutoff is None else q.cutoff)
    elif norm == "ret":
        denominator = int(hits[-1]) if length else 0
    else:
        denominator = num_rel
    sum_value = last(total)
    value = ratio(sum_value, float(denominator))
    label = q.measure.name
    notes: list[Text] = [(f"norm='{norm}': {NORMS.get(norm, norm)}: N = {denominator}",)]
    if q.measure.spec.name == "GMAP":
        notes.append(("GMAP's per-query value is AP; the geometric mean is taken over queries",))
    if denominator == 0:
        notes.append(("N = 0: AP is 0",))
    if q.cutoff is None:
        formula = "AP = (1/N) * sum of P@i over the relevant retrieved ranks i, P@i = hits(i) / i"
    else:
        formula = "AP@k = (1/N) * sum of P@i over the relevant ranks i <= k, P@i = hits(i) / i"
    return Worked(
        columns=("relevant", "hits", "P@k", "sum P@k", "ideal rel"),
        cells=(
            cells(relevant),
            cells(hits),
            cells(precision, relevant),
            cells(total),
            ideal_column(q, length),
        ),
        keep=relevant.copy(),
        pad=no_pad(length),
        value=value,
        formula=formula,
        result=(f"{label} = sum / N =", sum_value, "/", denominator, "=", value),
        notes=tuple(notes),
        quantities=(("sum", sum_value), ("N", float(denominator))),
    )
