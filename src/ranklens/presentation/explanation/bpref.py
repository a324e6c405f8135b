"""Binary preference, document by document: ``Bpref`` (and ``GMBpref``, whose per-query
value is bpref).

For each relevant retrieved document ``d`` the row shows ``n_d``, the judged non-relevant
documents ranked above it, and its term ``1 - min(n_d, R) / min(N, R)`` (1 when
``n_d = 0``); unjudged documents are skipped. The value divides the sum by ``R``.

>>> from ranklens.presentation.explanation import explain
>>> ex = explain({"q": {"a": 1, "b": 0, "c": 1}},
...              {"q": {"a": 0.9, "b": 0.5, "x": 0.4, "c": 0.1}}, "q", "Bpref")
>>> ex.column("term"), ex.value
([1.0, None, None, 0.0], 0.5)
"""

from __future__ import annotations

import numpy as np

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

FAMILY = ("Bpref", "GMBpref")
"""The measures explained here."""


def explain_bpref(q: QueryData) -> Worked:
    """The rows of bpref (module docs)."""
    threshold = q.threshold
    length = q.n
    rel = q.rel
    relevant = rel >= max(threshold, 0)
    nonrel = (rel >= 0) & (rel < threshold)
    above = np.cumsum(nonrel, dtype=np.int64) - nonrel
    num_rel = q.num_rel(threshold)
    num_nonrel = int(q.view.num_nonrel(threshold)[q.index])
    cap = float(min(num_nonrel, num_rel))
    seen = relevant & (above > 0)
    penalty = np.zeros(length, dtype=np.float64)
    np.divide(np.minimum(above, num_rel), cap, out=penalty, where=seen)
    term = np.where(relevant, np.where(seen, 1.0 - penalty, 1.0), 0.0)
    total = running(term)
    sum_value = last(total)
    value = ratio(sum_value, float(num_rel))
    notes: list[Text] = [
        (
            f"N = {num_nonrel} judged non-relevant documents (grade < {threshold}) in the qrels; "
            f"min(N, R) = {min(num_nonrel, num_rel)}; unjudged documents are skipped",
        ),
    ]
    if q.measure.spec.name == "GMBpref":
        notes.append(("GMBpref's per-query value is bpref; the geometric mean is over queries",))
    label = q.measure.name
    return Worked(
        columns=("relevant", "judged non-rel above", "term", "sum", "ideal rel"),
        cells=(
            cells(relevant),
            cells(above, relevant),
            cells(term, relevant),
            cells(total),
            ideal_column(q, length),
        ),
        keep=relevant.copy(),
        pad=no_pad(length),
        value=value,
        formula="bpref = (1/R) * sum over the relevant retrieved d of "
        "(1 - min(n_d, R) / min(N, R)), n_d the judged non-relevant documents above d",
        result=(f"{label} = sum / R =", sum_value, "/", num_rel, "=", value),
        notes=tuple(notes),
        quantities=(("sum", sum_value), ("R", float(num_rel)), ("N", float(num_nonrel))),
    )
