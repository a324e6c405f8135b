"""Rank-biased precision and its residual, rank by rank: ``RBP`` and ``RBPResid``
(Moffat & Zobel, 2008).

Row ``k`` shows the gain, the weight ``p^(k-1)`` (built by repeated multiplication, as
trec_eval and the kernel build it), their product and its running sum ``S_k``, then
``RBP@k = (1 - p) * S_k`` and the residual of a ranking cut at ``k``: ``p^k + (1 - p) *
sum of p^(i-1) over the unjudged ranks i <= k``, the most that the unjudged and unseen
documents could still add. ``RBP + residual`` bounds the value from above.

>>> from ranklens.presentation.explanation import explain
>>> ex = explain({"q": {"a": 1}}, {"q": {"a": 0.9, "x": 0.5}}, "q", "RBP(p=0.5)")
>>> ex.column("RBP@k"), ex.quantity("residual")
([0.5, 0.5], 0.5)
"""

from __future__ import annotations

import numpy as np

from ranklens.kernels._running import powers
from ranklens.kernels.rbp import rbp_gains
from ranklens.presentation.explanation.context import (
    QueryData,
    Worked,
    cells,
    ideal_column,
    keep_nonzero,
    last,
    no_pad,
    running,
)
from ranklens.presentation.explanation.model import Cell, Text

FAMILY = ("RBP", "RBPResid")
"""The measures explained here."""


def explain_rbp(q: QueryData) -> Worked:
    """The rows of RBP and RBPResid (module docs)."""
    name = q.measure.spec.name
    p = float(q.param("p"))
    length = q.n
    weights = powers(p, length)  # p^0 .. p^n
    if name == "RBP":
        gain = q.slice_of(rbp_gains(q.view, int(q.param("rel")), str(q.param("gain"))))
    else:  # RBPResid reads no gain
        gain = np.zeros(length, dtype=np.float64)
    term = gain * weights[:length]
    total = running(term)
    rbp = (1.0 - p) * total
    unjudged = q.rel < 0
    open_total = running(np.where(unjudged, weights[:length], 0.0))
    residual = weights[1 : length + 1] + (1.0 - p) * open_total
    rbp_value = (1.0 - p) * last(total)
    residual_value = float(weights[length]) + (1.0 - p) * last(open_total)
    notes: list[Text] = [
        (f"p = {p:g}: the user reads on with probability p; expected ranks read 1/(1-p)",),
        (
            "residual",
            residual_value,
            ": the unjudged and unretrieved documents could add at most this, so RBP lies in [",
            rbp_value,
            ",",
            rbp_value + residual_value,
            "]",
        ),
    ]
    label = q.measure.name
    if name == "RBP":
        value = rbp_value
        result: Text = (f"{label} = (1 - p) x S = {1.0 - p:g} x", last(total), "=", value)
        if q.param("gain") == "graded":
            top = int(q.view.max_grade[q.index])
            scale = f"grade / {top}" if top > 1 else "the grade"
            notes.insert(0, (f"gain='graded': gain = {scale} (L = {top}, the highest grade)",))
        else:
            notes.insert(0, (f"gain='binary': 1 for a grade >= {q.param('rel')}, else 0",))
        formula = "RBP = (1 - p) * sum over the ranks k of gain_k * p^(k-1)"
    else:
        none_open = q.param("tail") == "trec" and not unjudged.any()
        value = 0.0 if none_open else residual_value
        result = (
            f"{label} = p^n + (1 - p) x U =",
            float(weights[length]),
            f"+ {1.0 - p:g} x",
            last(open_total),
            "=",
            value,
        )
        if none_open:
            result = (f"{label} = 0: tail='trec' and no unjudged document is retrieved",)
        formula = "RBPResid = p^n + (1 - p) * U, U = sum of p^(k-1) over the unjudged ranks k"
    columns: tuple[str, ...]
    table: tuple[tuple[Cell, ...], ...]
    if name == "RBP":
        columns = ("gain", "p^(k-1)", "gain x p^(k-1)", "S", "RBP@k", "residual@k", "ideal rel")
        table = (cells(gain), cells(weights[:length]), cells(term), cells(total), cells(rbp))
    else:
        columns = ("unjudged", "p^(k-1)", "U", "residual@k", "ideal rel")
        table = (cells(unjudged), cells(weights[:length]), cells(open_total))
    return Worked(
        columns=columns,
        cells=(*table, cells(residual), ideal_column(q, length)),
        keep=keep_nonzero(term) if name == "RBP" else unjudged.copy(),
        pad=no_pad(length),
        value=value,
        formula=formula,
        result=result,
        notes=tuple(notes),
        quantities=(
            ("S", last(total)),
            ("U", last(open_total)),
            ("residual", residual_value),
            ("p", p),
        ),
    )
