"""Reciprocal rank: ``1 / k`` at the first relevant rank ``k`` (within the cut-off).

>>> from ranklens.presentation.explanation import explain
>>> ex = explain({"q": {"b": 2}}, {"q": {"a": 0.9, "b": 0.5}}, "q", "RR")
>>> ex.result, ex.value
(('RR = 1 /', 2, '=', 0.5), 0.5)
"""

from __future__ import annotations

import numpy as np

from ranklens.presentation.explanation.context import QueryData, Worked, cells, ideal_column, no_pad
from ranklens.presentation.explanation.model import Text

FAMILY = ("RR",)
"""The measures explained here."""


def explain_reciprocal_rank(q: QueryData) -> Worked:
    """The rows of RR: the reciprocal rank shows at the first relevant rank only."""
    length = q.read
    relevant = q.rel[:length] >= max(q.threshold, 0)
    found = np.flatnonzero(relevant)
    first = np.zeros(length, dtype=bool)
    label = q.measure.name
    if found.shape[0]:
        rank = int(found[0]) + 1
        first[rank - 1] = True
        value = 1.0 / float(rank)
        result: Text = (f"{label} = 1 /", rank, "=", value)
    else:
        value = 0.0
        where = "retrieved" if q.cutoff is None else f"in the top {q.cutoff}"
        result = (f"{label} = 0: no relevant document {where}",)
    reciprocal = np.zeros(length, dtype=np.float64)
    reciprocal[first] = value
    return Worked(
        columns=("relevant", "1/k", "ideal rel"),
        cells=(cells(relevant), cells(reciprocal, first), ideal_column(q, length)),
        keep=first,
        pad=no_pad(length),
        value=value,
        formula="RR@k = 1 / (rank of the first relevant document) if it is in the top k, else 0",
        result=result,
        quantities=(("first", float(found[0] + 1) if found.shape[0] else 0.0),),
    )
