"""Exact joint ranges of a per-query difference at any depth, for the measures that allow it.

:mod:`ranklens.analysis.comparison_bounds` bounds ``d_q = b_q - a_q`` over every joint
grading of the union ``U_q`` of the two runs' unjudged retrieved documents (a document
gets one grade in both runs). Trying every grading is exact but costs ``(G + 1)^|U_q|``;
for the measures below the extremes are known in closed form or found by a search, so
two to four gradings per query, evaluated by :func:`ranklens.evaluate` on both runs, give
the exact range at any depth.

``separable``
    measures that are a sum over the ranked documents of a weight that depends only on the
    document's rank in the run times a gain that depends only on its grade, with a
    normaliser that does not depend on any grade: ``P`` (``@k``: ``1/k``; without a cutoff
    ``1/n``, ``n`` retrieved), ``DCG`` (linear, custom or exponential gains: ``1 /
    log2(r + 1)`` within the cutoff), ``CG``, ``RBP`` with ``gain='binary'`` or ``'raw'``
    (``(1 - p) p^(r - 1)``), ``NumRelRet``, ``Hits``, ``NumRet(rel=...)`` and
    ``NumNonRelJudgedRet``. Then ``d_q = const + sum_{x in U_q} (w_b(x) - w_a(x))
    gain(g_x)``, with ``w = 0`` for a document a run does not retrieve (or ranks past the
    cutoff), and each document's grade can be chosen on its own: the maximum gives ``x``
    the grade of largest gain where ``w_b(x) > w_a(x)`` and the grade of smallest gain
    where ``w_b(x) < w_a(x)`` (the gain of every grade ``0..G`` is computed, so a
    threshold ``rel`` or a custom gain map that is not monotone is honoured), and the
    minimum the reverse.
``first-hit``
    ``RR`` and ``Success``: a run's value is the largest, over its relevant documents, of
    a value of the document's rank (``1/r`` or ``1``, 0 past the cutoff). For a set ``S``
    of unjudged documents made relevant, ``b``'s value is reached by one ``x`` in ``S``
    and ``a``'s value is at least its value with ``S = {x}``, so the maximum of ``d_q`` is
    reached with ``S`` empty or a single document (the minimum likewise): ``|U_q| + 1``
    candidates scored by formula, the best and the worst evaluated.
``ratio``
    ``nDCG`` (linear or ``exp-log2`` gain, no custom gains): both runs are scored with
    the same qrels, so ``d_q = (DCG_b - DCG_a) / IDCG`` and ``IDCG`` depends only on the
    multiset of grades given to ``U_q``; for a fixed multiset the numerator is additive as
    above and largest with the grades in decreasing order down the documents sorted by
    ``w_b - w_a`` (rearrangement), smallest in increasing order. The multisets are
    searched as :class:`~ranklens.analysis.bounds._NdcgSearch` searches one run's, the
    weights of the ranks replaced by the sorted excesses, over the grades
    :func:`~ranklens.analysis.bounds.ndcg_grades` keeps (0, ``G`` and the judged grades
    between, ``g`` of them, whatever the size of ``G``): with no judged grade between 0
    and ``G`` every multiset is scored at once, ``O(|U_q|)``; with some, by Dinkelbach's
    method, ``O(g |U_q|^2)`` per step, for at most :data:`RATIO_LIMIT` documents.
``top-grade``
    ``RBP(gain='graded')``: both runs divide by the same ``s(L)``, ``L`` the query's
    highest grade (judged or assigned), so ``d_q = (C + sum_{x in U_q} (w_b(x) - w_a(x))
    g_x) / s(L)``; :func:`~ranklens.analysis.bounds.top_grade_rows` gives the gradings
    among which both extremes lie (at most 24, any depth).
``constant``
    ``NumRel``, ``IDCG``, ``NumQ``, ``NumRet``, ``Judged``, ``Unjudged``: both runs see the
    same qrels and every retrieved document is judged in every grading, so ``d_q`` is the
    same for every grading (one is evaluated).

Measures with ``judged_only=True`` are not covered (dropping negatively judged documents
moves the ranks), nor are ``ERR`` (a cascade: not a sum) and the measures
whose normaliser depends on ``R`` (``AP``, ``R``, ``Rprec``, bpref, F, the set measures
...), nor nDCG with custom gains: those (and nDCG's queries beyond :data:`RATIO_LIMIT`)
keep the exhaustive joint search where it is small and the outer bound elsewhere. Every
value reported is :func:`ranklens.evaluate`'s on a grading, so a range is never wider
than the truth; the proofs above make it the exact range.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from ranklens.analysis.bounds import (
    _evaluate_grids,
    _Layout,
    _layout,
    _query_grading,
    _strings,
    ndcg_grades,
    top_grade_rows,
)
from ranklens.base.types import Float64Array, Int64Array
from ranklens.data.qrels import Qrels
from ranklens.data.run import Run
from ranklens.evaluation.evaluator import Evaluator
from ranklens.kernels.gains import gain_pairs
from ranklens.measures.base import Measure

JointMethod = Literal["separable", "first-hit", "constant", "ratio", "top-grade"]

RATIO_LIMIT = 400
"""With grades above 1, the most union documents of one query whose nDCG difference is
searched (``O(G n^2)`` per step); beyond, the query keeps the outer bound."""

_SEPARABLE = frozenset(
    {"P", "DCG", "CG", "RBP", "NumRelRet", "Hits", "NumNonRelJudgedRet", "NumRet"}
)
_FIRST_HIT = frozenset({"RR", "Success"})
_CONSTANT = frozenset({"NumRel", "IDCG", "NumQ", "Judged", "Unjudged"})


def joint_method(measure: Measure) -> JointMethod | None:
    """How the exact joint range of ``measure``'s difference is found at any depth (see the
    module's docs), or ``None`` where it is not.

    >>> from ranklens.measures import parse_measure
    >>> names = ("P@10", "RR", "nDCG@10", "NumRel", "RBP(gain='graded')", "AP")
    >>> [joint_method(parse_measure(m)) for m in names]
    ['separable', 'first-hit', 'ratio', 'constant', 'top-grade', None]
    """
    name = measure.spec.name
    params = measure.params
    if params.get("judged_only"):
        return None
    if name == "NumRet" and params.get("rel") is None:
        return "constant"
    if name in _CONSTANT:
        return "constant"
    if name == "RBP" and params.get("gain") == "graded":
        return "top-grade"
    if name in _SEPARABLE:
        return "separable"
    if name in _FIRST_HIT:
        return "first-hit"
    if name == "nDCG" and params.get("gains") is None:
        return "ratio"
    return None


def _cutoff(measure: Measure, n: int) -> int:
    """The ranks (0-based, below the returned number) a measure reads."""
    cutoff = measure.params.get("cutoff")
    return n if cutoff is None else min(int(cutoff), n)


def _weights(measure: Measure, ranks: Int64Array, n: int) -> Float64Array:
    """Each document's weight in one run (``ranks``: 0-based, ``>= n`` not retrieved)."""
    name = measure.spec.name
    inside = ranks < _cutoff(measure, n)
    position = ranks.astype(np.float64)
    if name == "P":
        cutoff = measure.params.get("cutoff")
        scale = float(cutoff) if cutoff is not None else float(n)
        return np.where(inside, 1.0 / scale, 0.0) if scale > 0 else np.zeros(ranks.shape[0])
    if name == "DCG":
        return np.where(inside, 1.0 / np.log2(position + 2.0), 0.0)
    if name == "RBP":
        p = float(measure.params["p"])
        return np.where(inside, (1.0 - p) * np.power(p, np.where(inside, position, 0.0)), 0.0)
    return inside.astype(np.float64)  # CG, NumRelRet, Hits, NumRet(rel), NumNonRelJudgedRet


def _gains(measure: Measure, top: int) -> Float64Array:
    """The gain of each grade ``0..top`` under the measure (the factor of the weight)."""
    name = measure.spec.name
    grades = np.arange(top + 1)
    rel = measure.params.get("rel")
    threshold = 1 if rel is None else int(rel)
    if name == "DCG":
        custom = dict(gain_pairs(measure.params.get("gains")) or ())
        base = np.array([float(custom.get(g, g)) for g in grades.tolist()], dtype=np.float64)
        if measure.params.get("dcg", "log2") == "exp-log2":
            return np.power(2.0, base) - 1.0
        return base
    if name == "CG":
        return grades.astype(np.float64)
    if name == "RBP" and measure.params.get("gain", "binary") == "raw":
        return np.where(grades >= threshold, grades, 0).astype(np.float64)
    if name == "NumNonRelJudgedRet":
        return (grades < threshold).astype(np.float64)
    return (grades >= threshold).astype(np.float64)


@dataclass(frozen=True)
class _Side:
    """One run's view of a query's union of unjudged documents."""

    ranks: Int64Array
    """Each union document's 0-based rank in the run (``>= n``: not retrieved)."""
    n: int
    """The documents the run retrieved for the query."""
    grades: Int64Array
    """The judgments of the run's ranks (>= 0 a grade, -1 unjudged, -2 negative)."""


@dataclass(frozen=True)
class _Graded:
    """One run's layout of the evaluated queries and their union documents."""

    layout: _Layout
    strings: tuple[np.ndarray, Int64Array]
    queries: dict[str, tuple[int, list[str], _Side]]
    """Per evaluated query with qrels: its row in the layout, its union documents (by id,
    in :func:`~ranklens.analysis.bounds._query_grading`'s order) and the run's ranks."""


def _sides(
    qrels: Qrels, run: Run, also_grade: Mapping[str, list[str]], measures: Sequence[Measure]
) -> _Graded:
    """For every evaluated query with qrels: its union documents (by id) and the run's
    ranks of them, with the layout to evaluate gradings on."""
    layout, extra_docs = _layout(Evaluator(qrels, list(measures)), run, qrels, also_grade)
    judged = len(qrels)
    retrieved_ids = judged + len(run)
    run_docs = run.docids()
    out: dict[str, tuple[int, list[str], _Side]] = {}
    for i, qid in enumerate(layout.qids):
        if layout.qrels_row[i] < 0:
            continue
        ranks, graded = _query_grading(layout, i, judged)
        names = [
            run_docs[g - judged] if g < retrieved_ids else extra_docs[g - retrieved_ids]
            for g in graded.tolist()
        ]
        start, stop = int(layout.offsets[i]), int(layout.offsets[i + 1])
        out[qid] = (i, names, _Side(ranks, stop - start, layout.grades[start:stop]))
    return _Graded(layout, _strings(qrels, run, extra_docs), out)


def _first_hit_values(measure: Measure, ranks: Int64Array, n: int) -> Float64Array:
    """A first-hit measure's value when the document at each rank is the first relevant."""
    inside = ranks < _cutoff(measure, n)
    if measure.spec.name == "RR":
        return np.where(inside, 1.0 / (ranks.astype(np.float64) + 1.0), 0.0)
    return inside.astype(np.float64)


def _first_hit_rows(measure: Measure, mine: _Side, theirs: _Side, top: int) -> np.ndarray:
    """Three gradings (in ``mine``'s document order): none of the union relevant, the one
    document made relevant that gives the largest ``mine - theirs``, and the smallest."""
    u = mine.ranks.shape[0]
    rel = measure.params.get("rel")
    threshold = 1 if rel is None else int(rel)
    rows = np.zeros((3, u), dtype=np.int64)
    if u == 0 or threshold <= 0 or top < threshold:  # the relevance of the union is fixed
        return rows

    def judged_value(side: _Side) -> float:
        hits = np.flatnonzero(side.grades >= threshold)
        if hits.shape[0] == 0:
            return 0.0
        return float(_first_hit_values(measure, hits[:1].astype(np.int64), side.n)[0])

    mine_value = np.maximum(judged_value(mine), _first_hit_values(measure, mine.ranks, mine.n))
    their_value = np.maximum(
        judged_value(theirs), _first_hit_values(measure, theirs.ranks, theirs.n)
    )
    difference = mine_value - their_value
    rows[1, int(np.argmax(difference))] = top
    rows[2, int(np.argmin(difference))] = top
    return rows


def _separable_rows(measure: Measure, mine: _Side, theirs: _Side, top: int) -> np.ndarray:
    """The gradings (in ``mine``'s document order) of the largest and the smallest
    ``mine - theirs``."""
    gains = _gains(measure, top)
    highest, lowest = int(np.argmax(gains)), int(np.argmin(gains))
    excess = _weights(measure, mine.ranks, mine.n) - _weights(measure, theirs.ranks, theirs.n)
    largest = np.where(excess > 0, highest, lowest)
    smallest = np.where(excess < 0, highest, lowest)
    return np.stack([largest, smallest]).astype(np.int64).reshape(2, -1)


def _dcg_weights(measure: Measure, ranks: Int64Array, n: int) -> Float64Array:
    """``1 / log2(r + 1)`` (1-based ``r``) within the cutoff and the retrieved, else 0."""
    inside = ranks < _cutoff(measure, n)
    return np.where(inside, 1.0 / np.log2(ranks.astype(np.float64) + 2.0), 0.0)


def _ratio_rows(
    measure: Measure, mine: _Side, theirs: _Side, top: int, judged: Mapping[int, int]
) -> np.ndarray | None:
    """nDCG: the gradings (in ``mine``'s document order) of the largest and the smallest
    ``mine - theirs``, with the two corners; ``None`` where the search is too large.

    Both runs are scored with the same qrels, so ``d = (DCG_mine - DCG_theirs) / IDCG``:
    for a fixed multiset of grades ``IDCG`` is fixed and the numerator is a sum of
    ``(w_mine(x) - w_theirs(x)) gain(g_x)`` over the union, largest with the grades in
    decreasing order down the documents sorted by that excess and smallest in increasing
    order (rearrangement). The multisets are searched as :class:`_NdcgSearch` searches a
    single run's, the DCG weights of the ranks replaced by the sorted excesses; with one
    grade every multiset is scored at once."""
    from ranklens.analysis.bounds import _binary_extreme, _gain, _NdcgQuery, _NdcgSearch

    u = mine.ranks.shape[0]
    corners = np.array([[0] * u, [top] * u], dtype=np.int64).reshape(2, u)
    if u == 0 or top == 0:
        return corners
    several = len(ndcg_grades(judged, top)) > 2  # a judged grade between 0 and top
    if several and u > RATIO_LIMIT:
        return None
    form = str(measure.params.get("dcg", "log2"))
    cutoff = measure.params.get("cutoff")
    excess = _dcg_weights(measure, mine.ranks, mine.n) - _dcg_weights(
        measure, theirs.ranks, theirs.n
    )

    def judged_dcg(side: _Side) -> float:
        ranks = np.flatnonzero(side.grades > 0)
        gains = np.array([_gain(int(g), form) for g in side.grades[ranks].tolist()])
        return float(np.sum(gains * _dcg_weights(measure, ranks.astype(np.int64), side.n)))

    info = _NdcgQuery(judged_dcg(mine) - judged_dcg(theirs), judged)
    order = np.argsort(-excess, kind="stable")
    dummy = np.arange(u, dtype=np.int64)
    search = _NdcgSearch(dummy, top, info, cutoff, form, 0, weights=excess[order])
    if not several:
        largest, smallest = _binary_extreme(search, True), _binary_extreme(search, False)
    else:
        largest = search.assignment(search.extreme(True), True)
        smallest = search.assignment(search.extreme(False), False)
    rows = np.zeros((2, u), dtype=np.int64)
    rows[0, order] = largest
    rows[1, order] = smallest
    return np.concatenate([rows, corners])


def separable_differences(
    qrels: Qrels,
    run: Run,
    other: Run,
    measures: Sequence[Measure],
    max_grade: int,
    unjudged_run: Mapping[str, list[str]],
    unjudged_other: Mapping[str, list[str]],
) -> dict[str, dict[str, tuple[float, float]]]:
    """``{measure name: {qid: (low, high)}}``: the exact range of ``run - other`` per
    evaluated query, over every joint grading of the two runs' unjudged documents
    (``unjudged_run``, ``unjudged_other``: each run's per query), for the measures
    :func:`joint_method` covers (the others, and the nDCG queries too large to search,
    are left out)."""
    chosen = [m for m in measures if joint_method(m) is not None]
    if not chosen:
        return {}
    mine = _sides(qrels, run, unjudged_other, chosen)
    theirs = _sides(qrels, other, unjudged_run, chosen)
    judged = qrels.to_dict()
    # per measure: each query's gradings, in mine's order and in theirs'
    grids: list[tuple[dict[int, np.ndarray], dict[int, np.ndarray], list[str]]] = [
        ({}, {}, []) for _ in chosen
    ]
    for qid, (i, names, side) in mine.queries.items():
        k, other_names, other_side = theirs.queries[qid]
        where = {d: n for n, d in enumerate(names)}
        to_theirs = np.array([where[d] for d in other_names], dtype=np.int64)
        order = np.empty_like(to_theirs)
        order[to_theirs] = np.arange(to_theirs.shape[0])
        aligned = _Side(other_side.ranks[order], other_side.n, other_side.grades)
        counts: dict[int, int] = {}
        for g in judged.get(qid, {}).values():
            if g > 0:
                counts[g] = counts.get(g, 0) + 1
        judged_top = max(judged.get(qid, {}).values(), default=-1)
        for m, (for_mine, for_theirs, done) in zip(chosen, grids, strict=True):
            method = joint_method(m)
            found: np.ndarray | None
            if method == "separable":
                found = _separable_rows(m, side, aligned, max_grade)
            elif method == "first-hit":
                found = _first_hit_rows(m, side, aligned, max_grade)
            elif method == "ratio":
                found = _ratio_rows(m, side, aligned, max_grade, counts)
            elif method == "top-grade":
                excess = _weights(m, side.ranks, side.n) - _weights(m, aligned.ranks, aligned.n)
                found = top_grade_rows(excess, judged_top, max_grade)
            else:
                found = np.zeros((1, len(names)), dtype=np.int64)
            if found is None:  # left to the search or the outer bound
                continue
            for_mine[i] = found
            for_theirs[k] = found[:, to_theirs]
            done.append(qid)
    out: dict[str, dict[str, tuple[float, float]]] = {}
    for m, (for_mine, for_theirs, done) in zip(chosen, grids, strict=True):
        values_run = _evaluate_grids([m], qrels, run, mine.layout, for_mine, mine.strings)
        values_other = _evaluate_grids([m], qrels, other, theirs.layout, for_theirs, theirs.strings)
        ranges: dict[str, tuple[float, float]] = {}
        for qid in done:
            i, k = mine.queries[qid][0], theirs.queries[qid][0]
            differences = values_run[i][:, 0] - values_other[k][:, 0]
            ranges[qid] = (float(differences.min()), float(differences.max()))
        out[m.name] = ranges
    return out
