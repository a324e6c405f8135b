"""Novelty-biased gains over subtopics, rank by rank: ``alpha_nDCG``, ``alpha_DCG``,
``ERR_IA`` and ``nERR_IA`` (NIST ndeval's definitions, :mod:`ranklens.kernels.diversity`).

Row ``k`` shows the subtopics the document at rank ``k`` is relevant to, each with ``c``,
the number of earlier ranks that covered it, and its novelty-discounted gain
``(1 - alpha)^c``; their sum ``g_k``; the rank discount (``1/log2(k+1)`` for alpha-DCG,
``1/k`` for ERR-IA); the term ``g_k x discount`` and the running sum. Beside it, for
``alpha_nDCG`` and ``nERR_IA``, the same for ndeval's greedy ideal ranking (at each rank
the judged document with the largest gain, ties to the larger docno), whose sum is the
normaliser; for ``alpha_DCG`` and ``ERR_IA``, the collection-independent ideal
``|S| sum_{i<k} (1 - alpha)^i discount_i``. ndeval divides both sums by the latter before
dividing one by the other, so the last bits of the value are the evaluator's.

>>> from ranklens.presentation.explanation import explain
>>> qrels = {"q": {"a": {"1": 1, "2": 1}, "b": {"2": 1}, "c": {"1": 1}}}
>>> run = {"q": {"b": 3.0, "a": 2.0, "c": 1.0}}
>>> ex = explain(qrels, run, "q", "alpha_nDCG@3")
>>> ex.column("subtopics (c)"), ex.column("gain")
(['2 (0)', '1 (0), 2 (1)', '1 (1)'], [1.0, 1.5, 0.5])
>>> ex.column("ideal doc"), round(ex.value, 4)
(['a', 'c', 'b'], 0.8561)
"""

from __future__ import annotations

import numpy as np

from ranklens.base.types import Float64Array, Int64Array
from ranklens.data.subtopics import SubtopicQrels
from ranklens.kernels import diversity as dv
from ranklens.presentation.explanation.context import (
    QueryData,
    Worked,
    cells,
    keep_nonzero,
    last,
    no_pad,
    padded,
    running,
)
from ranklens.presentation.explanation.model import Cell, Text

FAMILY = ("alpha_nDCG", "alpha_DCG", "ERR_IA", "nERR_IA")
"""The measures explained here."""


def explain_diversity(q: QueryData) -> Worked:
    """The rows of alpha-(n)DCG and (n)ERR-IA (module docs)."""
    name = q.measure.spec.name
    alpha = float(q.param("alpha", 0.5))
    k = int(q.cutoff or 1)
    kind = "dcg" if name.endswith("DCG") else "err"
    ideal_normalised = name in ("alpha_nDCG", "nERR_IA")
    sq, rows, at = dv.ranked_rows(q.view)
    judged = int(at[q.index])
    nsub = int(sq.num_subtopics[judged]) if judged >= 0 else 0
    pairs = dv.pairs_of(q.view.offsets, rows, sq)
    gains = q.slice_of(dv.rank_gains(pairs, alpha))
    mine = pairs.query == q.index
    first_sub = int(sq.sub_offsets[judged]) if judged >= 0 else 0
    covers = _covers(q.n, pairs.rank[mine], pairs.sub[mine] - first_sub, pairs.seen[mine])

    read = q.read
    ideal_docs: list[str] = []
    ideal_gain = np.zeros(0, dtype=np.float64)
    ideal_covers: list[list[tuple[int, int]]] = []
    if ideal_normalised and judged >= 0:
        ideal, all_ideal_gains = dv.IdealValues(sq, alpha).ranking()
        a, b = int(ideal.offsets[judged]), int(ideal.offsets[judged + 1])
        ideal_rows = ideal.rows[a:b][:k]
        ideal_docs = [sq.docids[int(r)] for r in ideal_rows.tolist()]
        ideal_gain = all_ideal_gains[a:b][:k]
        ideal_covers = _ideal_covers(sq, ideal_rows, first_sub)
    ideal_len = len(ideal_docs)
    length = max(read, ideal_len)
    disc = dv.discounts(kind, max(length, k))
    gain = padded(gains[:read], length)
    term = padded(gains[:read] * disc[:read], length)
    total = running(term)
    retrieved = np.arange(length) < read
    # the collection-independent ideal |S| (1 - alpha)^i d(i), summed as ndeval does
    ii_gain = np.full(k, 1.0 - alpha)
    ii_gain[0] = float(nsub)
    ii_running = np.cumsum(np.cumprod(ii_gain) * disc[:k])
    ii = float(ii_running[-1])
    label = q.measure.name
    d_title = "1/log2(k+1)" if kind == "dcg" else "1/k"
    columns: list[str] = ["subtopics (c)", "(1-alpha)^c", "gain", d_title, "gain x disc", "sum@k"]
    table: list[tuple[Cell, ...]] = [
        _cover_cells(covers, length, alpha, False),
        _cover_cells(covers, length, alpha, True),
        cells(gain, retrieved),
        cells(disc[:length]),
        cells(term, retrieved),
        cells(total),
    ]
    sum_value = last(total[:read]) if read else 0.0
    if ideal_normalised:
        ideal_term = padded(ideal_gain * disc[:ideal_len], length)
        ideal_total = running(ideal_term)
        ideal_value = last(ideal_total[:ideal_len]) if ideal_len else 0.0
        at_k = _running_ratio(total, ideal_total, ii_running, length)
        inside = np.arange(length) < ideal_len
        columns += ["ideal doc", "ideal subtopics (c)", "ideal gain", "ideal gain x disc"]
        columns += ["ideal sum@k", f"{name}@k"]
        table += [
            tuple(ideal_docs + [None] * (length - ideal_len)),
            _cover_cells(ideal_covers, length, alpha, False),
            cells(padded(ideal_gain, length), inside),
            cells(ideal_term, inside),
            cells(ideal_total),
            cells(at_k),
        ]
        value = _ratio(sum_value, ideal_value, ii, k)
        result: Text = (
            f"{label} = (sum@{k} / II@{k}) / (ideal sum@{k} / II@{k}) = (",
            sum_value,
            "/",
            ii,
            ") / (",
            ideal_value,
            "/",
            ii,
            ") =",
            value,
        )
        if k <= 1 or sum_value == 0.0 or ideal_value == 0.0:
            result = (f"{label} = sum@{k} / ideal sum@{k} =", sum_value, "/", ideal_value)
            result += ("=", value)
        keep = keep_nonzero(term) | keep_nonzero(ideal_term)
        quantities: tuple[tuple[str, float], ...] = (
            ("sum", sum_value),
            ("ideal", ideal_value),
            ("II", ii),
            ("S", float(nsub)),
        )
    else:
        ii_column = padded(ii_running, length)
        columns += ["II@k", f"{name}@k"]
        normalised = np.zeros(length, dtype=np.float64)
        if nsub > 0:
            normalised = total.copy()
            np.divide(total[1:], ii_column[1:], out=normalised[1:])
        table += [cells(ii_column), cells(normalised)]
        value = 0.0 if nsub == 0 else (sum_value if k <= 1 else sum_value / ii)
        result = (f"{label} = sum@{k} / II@{k} =", sum_value, "/", ii, "=", value)
        if k <= 1:
            result = (f"{label} = sum@1 (ndeval does not divide at k = 1) =", value)
        keep = keep_nonzero(term)
        quantities = (("sum", sum_value), ("II", ii), ("S", float(nsub)))
    if nsub == 0:
        result = (f"{label} = 0 (no subtopic of this query has a relevant document)", 0.0)
        value = 0.0
    return Worked(
        columns=tuple(columns),
        cells=tuple(table),
        keep=keep,
        pad=no_pad(length),
        value=value,
        formula=_formula(name, kind),
        result=result,
        notes=_notes(nsub, alpha, k, ideal_normalised, ideal_len, judged, sq),
        quantities=quantities,
    )


def _covers(
    n: int, rank: Int64Array, sub: Int64Array, seen: Int64Array
) -> list[list[tuple[int, int]]]:
    """For each rank, its (subtopic number from 1, c) pairs, in subtopic order."""
    out: list[list[tuple[int, int]]] = [[] for _ in range(n)]
    for r, s, c in zip(rank.tolist(), sub.tolist(), seen.tolist(), strict=True):
        out[r].append((s + 1, c))
    return out


def _ideal_covers(
    sq: SubtopicQrels, ideal_rows: Int64Array, first_sub: int
) -> list[list[tuple[int, int]]]:
    """The (subtopic number, c) pairs of each rank of the ideal ranking."""
    counts: dict[int, int] = {}
    out: list[list[tuple[int, int]]] = []
    for row in ideal_rows.tolist():
        subs = sq.pair_sub[int(sq.pair_offsets[row]) : int(sq.pair_offsets[row + 1])].tolist()
        here = []
        for s in subs:
            here.append((s - first_sub + 1, counts.get(s, 0)))
            counts[s] = counts.get(s, 0) + 1
        out.append(here)
    return out


def _cover_cells(
    covers: list[list[tuple[int, int]]], length: int, alpha: float, gains: bool
) -> tuple[Cell, ...]:
    """``"1 (0), 3 (1)"`` (subtopic and c) or ``"1, 0.5"`` (each ``(1 - alpha)^c``), per
    row; blank where no subtopic is covered or past the list."""
    out: list[Cell] = []
    for i in range(length):
        here = covers[i] if i < len(covers) else []
        if not here:
            out.append(None)
        elif gains:
            out.append(", ".join(f"{(1.0 - alpha) ** c:g}" for _, c in here))
        else:
            out.append(", ".join(f"{s} ({c})" for s, c in here))
    return tuple(out)


def _ratio(run: float, ideal: float, ii: float, k: int) -> float:
    """ndeval's normalisation (:func:`ranklens.kernels.diversity.ratio`): both sums divided
    by the ideal-ideal first (not at ``k = 1``); 0 when either sum is 0."""
    if run == 0.0 or ideal == 0.0:
        return 0.0
    if k > 1:
        return (run / ii) / (ideal / ii)
    return run / ideal


def _running_ratio(
    total: Float64Array, ideal_total: Float64Array, ii_running: Float64Array, length: int
) -> Float64Array:
    """The normalised value at every cut-off ``j <= length`` (row ``j``)."""
    out = np.zeros(length, dtype=np.float64)
    for j in range(length):
        ii_j = float(ii_running[j]) if j < ii_running.shape[0] else float(ii_running[-1])
        out[j] = _ratio(float(total[j]), float(ideal_total[j]), ii_j, j + 1)
    return out


def _formula(name: str, kind: str) -> str:
    d = "log2(i + 1)" if kind == "dcg" else "i"
    gain = (
        "g_i = sum over the subtopics s of the document at rank i of (1 - alpha)^c_s, c_s the "
        "earlier ranks covering s"
    )
    sum_k = f"sum@k = sum over the ranks i <= k of g_i / {d}"
    ii = f"II@k = |S| sum over i <= k of (1 - alpha)^(i-1) / {d}"
    if name in ("alpha_DCG", "ERR_IA"):
        return f"{name}@k = sum@k / II@k (k >= 2); {sum_k}; {gain}; {ii}"
    return (
        f"{name}@k = sum@k / ideal sum@k (0 if either is 0); {sum_k}; {gain}; ideal sum@k: "
        "the same over ndeval's greedy ideal ranking"
    )


def _notes(
    nsub: int,
    alpha: float,
    k: int,
    ideal_normalised: bool,
    ideal_len: int,
    judged: int,
    sq: SubtopicQrels,
) -> tuple[Text, ...]:
    notes: list[Text] = [
        (
            f"|S| = {nsub} subtopics with a relevant document, numbered 1..{nsub} in subtopic "
            f"order; alpha = {alpha:g}: a subtopic covered c times before gains (1 - alpha)^c; "
            "judgments above 1 count as 1",
        )
    ]
    if ideal_normalised:
        total = 0
        if judged >= 0:
            a, b = int(sq.doc_offsets[judged]), int(sq.doc_offsets[judged + 1])
            total = int(np.count_nonzero(np.diff(sq.pair_offsets[a : b + 1]) > 0))
        notes.append(
            (
                f"ideal ranking: ndeval's greedy one over the {total} documents relevant to a "
                "subtopic (at each rank the largest gain, ties to the larger docno)"
                + (f", its top {ideal_len} read" if total > ideal_len else ""),
            )
        )
        if k > 1:
            notes.append(
                (
                    "ndeval divides both sums by II@k = |S| sum_{i<k} (1-alpha)^i d(i) before "
                    "dividing one by the other, which the value does too",
                )
            )
    elif k <= 1:
        notes.append(("k = 1: ndeval does not divide by II@1, so the value can exceed 1",))
    return tuple(notes)
