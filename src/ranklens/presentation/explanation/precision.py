"""Precision, recall and F at every rank: ``P``, ``R``, ``F1``, ``F``, ``Success`` and
``Rprec``.

Each row ``k`` shows the relevant documents in the top ``k`` and the measure as if cut at
``k``: ``P@k = hits / k``, ``R@k = hits / N`` (``N = R``, or ``min(R, k)`` with
``norm='min'``), ``F@k``. With a cut-off past the end of the ranking the rows go on to the
cut-off, not retrieved, as the kernels pad the ranking with non-relevant documents; so the
last row holds the value.

>>> from ranklens.presentation.explanation import explain
>>> ex = explain({"q": {"a": 1, "c": 1, "e": 1}},
...              {"q": {"a": 5, "b": 4, "c": 3, "d": 2, "e": 1}}, "q", "F1@5")
>>> [round(f, 4) for f in ex.column("F1@k")]
[0.5, 0.4, 0.6667, 0.5714, 0.75]
"""

from __future__ import annotations

import numpy as np

from ranklens.base.types import Float64Array, Int64Array
from ranklens.presentation.explanation.context import QueryData, Worked, cells, ideal_column, padded
from ranklens.presentation.explanation.model import Text

Values = tuple[Float64Array, Float64Array, Float64Array, float]
"""Precision, recall and F at every row, and the measure's value."""

FAMILY = ("P", "R", "F1", "F", "Success", "Rprec")
"""The measures explained here."""


def explain_precision(q: QueryData) -> Worked:
    """The rows of the precision/recall/F family (module docs)."""
    name = q.measure.spec.name
    threshold = q.threshold
    num_rel = q.num_rel(threshold)
    cutoff = num_rel if name == "Rprec" else q.cutoff
    if q.n == 0:
        length = 0
    elif cutoff is None:
        length = q.n
    else:
        length = cutoff
    relevant = padded(q.rel[: min(q.n, length)] >= max(threshold, 0), length, False)
    hits = np.cumsum(relevant, dtype=np.int64)
    rank = np.arange(1, length + 1, dtype=np.int64)
    precision: Float64Array = hits / rank
    denominator = (
        np.minimum(num_rel, rank) if q.param("norm") == "min" else np.full(length, num_rel)
    )
    recall = _safe(hits, denominator)
    beta = float(q.param("beta", 1.0))
    weight = beta * beta
    plain_recall = _safe(hits, np.full(length, num_rel))
    fmeasure = _safe((1.0 + weight) * precision * plain_recall, weight * precision + plain_recall)
    f_title = "F1@k" if beta == 1.0 else f"F(beta={beta:g})@k"
    columns = ("relevant", "hits", "P@k", "R@k", f_title, "ideal rel")
    retrieved = rank <= q.n
    table = (
        cells(relevant, retrieved),
        cells(hits),
        cells(precision),
        cells(recall),
        cells(fmeasure),
        ideal_column(q, length),
    )
    by_name = {"P": precision, "Rprec": precision, "R": recall, "F1": fmeasure, "F": fmeasure}
    if not length:
        value = 0.0
    elif name == "Success":
        value = float(hits[-1] > 0)
    else:
        value = float(by_name[name][-1])
    shown_recall = plain_recall if name in ("F1", "F") else recall
    formula, result = _formula(
        name, q, length, num_rel, hits, (precision, shown_recall, fmeasure, value)
    )
    total = int(hits[-1]) if length else 0
    return Worked(
        columns=columns,
        cells=table,
        keep=relevant.copy(),
        pad=~retrieved,
        value=value,
        formula=formula,
        result=result,
        notes=_notes(name, q, num_rel, length),
        quantities=(("hits", float(total)), ("k", float(length)), ("R", float(num_rel))),
    )


def _safe(numerator: np.ndarray, denominator: np.ndarray) -> Float64Array:
    out = np.zeros(numerator.shape[0], dtype=np.float64)
    np.divide(
        numerator.astype(np.float64),
        denominator.astype(np.float64),
        out=out,
        where=denominator != 0,
    )
    return out


def _formula(
    name: str, q: QueryData, length: int, num_rel: int, hits: Int64Array, values: Values
) -> tuple[str, Text]:
    """The formula and the result line of measure ``name``."""
    label = q.measure.name
    precision, recall, _, value = values
    total = int(hits[-1]) if length else 0
    k = "k" if q.cutoff is not None else "n"
    if name == "Rprec":
        return (
            "Rprec = |relevant in the top R| / R, R the relevant documents in the qrels",
            (f"{label} =", total, "/", num_rel, "=", value),
        )
    if name == "P":
        if q.cutoff is None:
            formula = "P = |relevant retrieved| / n, n retrieved (set precision)"
        else:
            formula = "P@k = |relevant in the top k| / k"
        return formula, (f"{label} =", total, "/", length, "=", value)
    if name == "R":
        den = f"min(R, {k})" if q.param("norm") == "min" else "R"
        if q.cutoff is None:
            formula = f"R = |relevant retrieved| / N, N = {den} (set recall)"
        else:
            formula = f"R@k = |relevant in the top k| / N, N = {den}"
        bound = length if q.cutoff is not None else q.n
        n_value = min(num_rel, bound) if q.param("norm") == "min" else num_rel
        return formula, (f"{label} =", total, "/", n_value, "=", value)
    if name == "Success":
        return (
            "Success@k = 1 if a relevant document is in the top k, else 0",
            (f"{label} =", value, f"({total} relevant in the top {q.cutoff})"),
        )
    beta = float(q.param("beta", 1.0))
    w = beta * beta
    p_last = float(precision[-1]) if length else 0.0
    r_last = float(recall[-1]) if length else 0.0
    return (
        f"F@{k} = (1 + b^2) P@{k} R@{k} / (b^2 P@{k} + R@{k}), b = {beta:g}; "
        f"R@{k} over all R relevant documents",
        (
            f"{label} = (1 + {w:g}) x",
            p_last,
            "x",
            r_last,
            f"/ ({w:g} x",
            p_last,
            "+",
            r_last,
            ") =",
            value,
        ),
    )


def _notes(name: str, q: QueryData, num_rel: int, length: int) -> tuple[Text, ...]:
    notes: list[Text] = []
    if q.cutoff is not None and q.n and q.cutoff > q.n:
        notes.append(
            (
                f"the ranking has {q.n} documents: ranks {q.n + 1}-{q.cutoff} are padded with "
                "non-relevant documents, so P@k divides by k",
            )
        )
    if name == "Rprec":
        notes.append((f"Rprec is P at rank R = {num_rel}",))
    if name == "R" and q.param("norm") == "min":
        notes.append(("norm='min': recall divides by min(R, k), the most a top k can hold",))
    if length == 0 and q.n == 0:
        notes.append(("nothing retrieved: the value is 0",))
    return tuple(notes)
