"""Expected reciprocal rank, rank by rank: ``ERR`` (Chapelle et al., 2009, with founding
document 001's patience ``p``).

Row ``k`` shows the stop probability ``R_k = (2^g - 1) / 2^g_max``, the probability of
reaching rank ``k`` (``prod over i < k of p * (1 - R_i)``), the contribution
``reach_k * R_k / k`` and the running ``ERR@k``.

>>> from ranklens.presentation.explanation import explain
>>> ex = explain({"q": {"a": 1, "b": 1}}, {"q": {"a": 0.9, "b": 0.5}}, "q", "ERR")
>>> ex.column("reach"), ex.value
([1.0, 0.5], 0.625)
"""

from __future__ import annotations

import numpy as np

from ranklens.kernels.err import stop_probability, top_grade
from ranklens.presentation.explanation.context import (
    QueryData,
    Worked,
    cells,
    ideal_column,
    keep_nonzero,
    last,
    no_pad,
    running,
    sum_line,
)
from ranklens.presentation.explanation.model import Text

FAMILY = ("ERR",)
"""The measures explained here."""


def explain_err(q: QueryData) -> Worked:
    """The rows of ERR (module docs)."""
    p = float(q.param("p"))
    chosen = q.param("max_rel")
    g_max = top_grade(q.view) if chosen is None else int(chosen)
    length = q.read
    if g_max > 0:
        stop = stop_probability(q.rel[:length], g_max)
    else:
        stop = np.zeros(length, dtype=np.float64)
    carry = np.multiply.accumulate(p * (1.0 - stop)) if length else stop
    reach = np.ones(length, dtype=np.float64)
    reach[1:] = carry[:-1]
    rank = np.arange(1, length + 1, dtype=np.int64).astype(np.float64)
    term = reach * stop / rank
    total = running(term)
    value = last(total) if g_max > 0 else 0.0
    where = "the highest grade in the qrels" if chosen is None else "max_rel"
    notes: list[Text] = [
        (f"g_max = {g_max} ({where}); grades are clipped to 0..g_max, unjudged documents 0",),
        (
            f"p = {p:g}: "
            + (
                "Chapelle et al.'s ERR"
                if p == 1.0
                else "after an unsatisfying document the user goes on with probability p"
            ),
        ),
    ]
    if g_max <= 0:
        notes.append(("g_max = 0: every stop probability is 0, ERR is 0",))
    label = q.measure.name
    return Worked(
        columns=("R_k", "reach", "reach x R_k / k", "ERR@k", "ideal rel"),
        cells=(cells(stop), cells(reach), cells(term), cells(total), ideal_column(q, length)),
        keep=keep_nonzero(term),
        pad=no_pad(length),
        value=value,
        formula="ERR@k = sum over the ranks r <= k of R_r / r * prod over i < r of p * (1 - R_i), "
        "R_i = (2^g_i - 1) / 2^g_max",
        result=sum_line(label, term, value),
        notes=tuple(notes),
        quantities=(("g_max", float(g_max)), ("p", p)),
    )
