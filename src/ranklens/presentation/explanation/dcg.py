"""Cumulative gain and its discounted and normalised forms: ``CG``, ``DCG``, ``nDCG`` and
``IDCG``, as founding document 000 tabulates them.

Row ``k`` shows the gain of the document at rank ``k``, the discount ``log2(k + 1)``, their
quotient and the running ``DCG@k``; beside it the ideal ranking (every judged document of
the query, by decreasing gain, up to the first gain that is not positive: the normaliser's
list) with its own quotient and running ``IDCG@k``, and ``nDCG@k = DCG@k / IDCG@k``. When
the ideal ranking is longer than the retrieved one, the rows go on (no document retrieved)
as far as the ideal ranking counts.

>>> from ranklens.presentation.explanation import explain
>>> qrels = {"q": {"d1": 3, "d2": 2, "d3": 3, "d4": 0, "d5": 1}}
>>> run = {"q": {"d1": 5, "d2": 4, "d3": 3, "d4": 2, "d5": 1}}
>>> ex = explain(qrels, run, "q", "nDCG@5")
>>> [round(v, 4) for v in ex.column("nDCG@k")]
[1.0, 0.871, 0.9778, 0.9112, 0.9724]
"""

from __future__ import annotations

import numpy as np

from ranklens.base.types import Float64Array
from ranklens.kernels.dcg import linear_gain
from ranklens.kernels.gains import (
    GainPairs,
    check_form,
    gain_pairs,
    grade_gains,
    ideal_gains,
    rank_gains,
    shaped,
)
from ranklens.presentation.explanation.context import (
    QueryData,
    Worked,
    cells,
    ideal_column,
    keep_nonzero,
    last,
    no_pad,
    padded,
    ratio,
    running,
    sum_line,
)
from ranklens.presentation.explanation.model import Cell, Text

FAMILY = ("DCG", "nDCG", "IDCG")
"""The measures :func:`explain_dcg` explains (``CG``: :func:`explain_cg`)."""


def explain_cg(q: QueryData) -> Worked:
    """The rows of CG: the grade at each rank and the running sum."""
    length = q.read
    gain = linear_gain(q.rel[:length])
    total = running(gain)
    value = last(total)
    label = q.measure.name
    return Worked(
        columns=("gain", "CG@k", "ideal rel"),
        cells=(cells(gain), cells(total), ideal_column(q, length)),
        keep=keep_nonzero(gain),
        pad=no_pad(length),
        value=value,
        formula="CG@k = sum of gain_i over the ranks i <= k, gain_i = the grade "
        "(0 for unjudged and negatively judged documents)",
        result=sum_line(label, gain, value),
        notes=(("gains: linear, the grade itself",),),
        quantities=(("CG", value),),
    )


def explain_dcg(q: QueryData) -> Worked:
    """The rows of DCG, nDCG and IDCG (module docs)."""
    name = q.measure.spec.name
    pairs = gain_pairs(q.param("gains"))
    form = str(q.param("dcg", "log2"))
    check_form(form)
    raw = q.slice_of(rank_gains(q.view, pairs))
    ideal = ideal_gains(q.view, pairs, str(q.param("ideal", "sorted")))
    ideal_raw = ideal.gains[ideal.offsets[q.index] : ideal.offsets[q.index + 1]]
    read = q.read
    ideal_len = ideal_raw.shape[0] if q.cutoff is None else min(ideal_raw.shape[0], q.cutoff)
    length = read if name == "DCG" else max(read, ideal_len)
    discount = q.view.discounts(length)
    gain = padded(shaped(raw[:read], form), length)
    term = padded(gain[:read] / discount[:read], length)
    dcg = running(term)
    ideal_gain = padded(shaped(ideal_raw[:ideal_len], form), length)
    ideal_term = padded(ideal_gain[:ideal_len] / discount[:ideal_len], length)
    idcg = running(ideal_term)
    ndcg = np.zeros(length, dtype=np.float64)
    np.divide(dcg, idcg, out=ndcg, where=idcg != 0)
    plain = pairs is None and form == "log2"
    g = "rel" if pairs is None else "gain"
    g = f"(2^{g}-1)" if form == "exp-log2" else g
    retrieved = np.arange(length) < read
    ideal_grades = _ideal_grades(q, ideal_raw[:ideal_len], pairs, length)
    columns: list[str] = [] if plain else [g.strip("()")]
    table: list[tuple[Cell, ...]] = [] if plain else [cells(gain, retrieved)]
    columns += ["log2(k+1)", f"{g}/log2(k+1)", "DCG@k", "ideal rel"]
    table += [cells(discount), cells(term, retrieved), cells(dcg), ideal_grades]
    if name != "DCG":
        columns += ([] if plain else [f"ideal {g.strip('()')}"]) + [
            f"ideal {g}/log2(k+1)",
            "IDCG@k",
            "nDCG@k",
        ]
        table += ([] if plain else [cells(ideal_gain, np.arange(length) < ideal_len)]) + [
            cells(ideal_term),
            cells(idcg),
            cells(ndcg),
        ]
    dcg_value, idcg_value = last(dcg), last(idcg)
    label = q.measure.name
    k = "@k" if q.cutoff is None else f"@{q.cutoff}"
    if name == "nDCG":
        value = ratio(dcg_value, idcg_value)
        result: Text = (f"{label} = DCG{k} / IDCG{k} =", dcg_value, "/", idcg_value, "=", value)
    elif name == "IDCG":
        value = idcg_value
        result = sum_line(label, ideal_term, value)
    else:
        value = dcg_value
        result = sum_line(label, term, value)
    if k == "@k":
        result = (str(result[0]).replace("@k", ""), *result[1:])
    return Worked(
        columns=tuple(columns),
        cells=tuple(table),
        keep=keep_nonzero(ideal_term if name == "IDCG" else term),
        pad=no_pad(length),
        value=value,
        formula=_formula(name, g),
        result=result,
        notes=_notes(q, pairs, form, ideal_raw.shape[0], ideal_len),
        quantities=(("DCG", dcg_value), ("IDCG", idcg_value)),
    )


def _formula(name: str, g: str) -> str:
    dcg = f"DCG@k = sum over the ranks i <= k of {g}_i / log2(i + 1)"
    ideal = (
        "IDCG@k: the same sum over the ideal ranking (every judged document of the query, "
        "by decreasing gain, up to the first gain <= 0)"
    )
    if name == "DCG":
        return dcg
    if name == "IDCG":
        return (
            f"IDCG@k = sum over the ideal positions i <= k of {g}_i / log2(i + 1), the ideal "
            "ranking: every judged document of the query, by decreasing gain, up to the first "
            "gain <= 0"
        )
    return f"nDCG@k = DCG@k / IDCG@k (0 if IDCG@k = 0); {dcg}; {ideal}"


def _ideal_grades(
    q: QueryData, ideal_raw: Float64Array, pairs: GainPairs | None, length: int
) -> tuple[Cell, ...]:
    """The grade at each position of the normaliser's ideal ranking (whose gains are
    ``ideal_raw``), then the other judged documents by decreasing gain, to ``length``."""
    if pairs is None:
        return ideal_column(q, length)
    table = q.view.grades
    mine = table.query == q.index
    counts = dict(zip(table.grade[mine].tolist(), table.count[mine].tolist(), strict=True))
    gain_of = grade_gains(pairs, max(counts, default=-1) + 1)
    queues: dict[float, list[int]] = {}
    for grade in sorted(counts, reverse=True):
        queues.setdefault(float(gain_of[grade]), []).append(grade)
    out: list[Cell] = []
    for gain in ideal_raw.tolist():
        queue = queues.get(gain)
        if not queue:  # pragma: no cover - the ideal gains come from these grades
            out.append(None)
            continue
        grade = queue[0]
        out.append(grade)
        counts[grade] -= 1
        if counts[grade] == 0:
            queue.pop(0)
    rest = sorted(((float(gain_of[g]), g) for g, c in counts.items() if c > 0), reverse=True)
    for _, grade in rest:
        if len(out) >= length:
            break
        out += [grade] * min(counts[grade], length - len(out))
    return tuple(out[:length] + [None] * (length - len(out)))


def _notes(
    q: QueryData, pairs: GainPairs | None, form: str, ideal_total: int, ideal_len: int
) -> tuple[Text, ...]:
    if pairs is None:
        gains = "gains: linear, the grade itself (unjudged and negative judgments gain 0)"
    else:
        custom = ", ".join(f"{g}: {v:g}" for g, v in pairs)
        gains = f"gains: {{{custom}}}; other grades gain their grade, unjudged documents 0"
    if form == "exp-log2":
        gains += "; dcg='exp-log2': each term uses 2^gain - 1"
    ideal = (
        f"ideal ranking: {ideal_total} judged documents with a positive gain (the normaliser "
        "counts the qrels, retrieved or not)"
    )
    if q.cutoff is not None and ideal_total > ideal_len:
        ideal += f", cut to the top {q.cutoff}"
    return ((gains,), (ideal,))
