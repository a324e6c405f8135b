"""Gains of the nDCG family, set up as trec_eval 10's ``gain_init.c`` does.

A gain map (the ``gains`` parameter, ``{1: 3, 2: 9}`` in the measure language) gives some
grades a custom gain; every other grade keeps ``gain = grade`` (trec_eval's linear gain),
and unjudged or negatively judged documents gain 0.

The ideal ranking lists, for each query, the gain of every judged document of its qrels
(retrieved or not), in decreasing gain order, and stops at the first gain that is not
positive. trec_eval orders the gain levels with ``qsort`` and the comparator
``(int)(g1 - g2)``, which calls two gains equal when they differ by less than 1; glibc's
``qsort`` is a stable top-down merge sort, so such gains keep their input order. The input
order is: the custom levels (trec_eval: as written on the command line; here: by
increasing grade, the order of the stored map), then the grades 0..L of the query without
a custom gain (L the query's highest judged grade). :func:`trec_gain_order` reproduces that
sort, so fractional gains are ordered as trec_eval orders them when the map lists the
grades in increasing order; with integer gains the order is simply by gain.

That order is trec_eval's, and only its names (``ndcg.1=0.5``, ``G``, ``ideal_dcg`` ... in the
trec-eval front end or as measure names) use it: it calls ``{1: 0.5, 2: 0.9}`` all equal and
can walk gain 0 first (an empty ideal: nDCG 0 for a perfect ranking), and a gain of 3e9
compares as "less" than any other. The measure language's ``nDCG(gains=...)`` (and ``G``,
``nDCGRel``, ``RnDCG``, ``IDCG``) order the ideal by exact decreasing gain
(``ideal="sorted"``, :data:`IDEAL_ORDERS`), so a perfect ranking scores 1 for any finite
gains; ``ideal="trec_eval"`` asks for trec_eval's order.

Differences with trec_eval, on purpose: a map entry for a negative grade (trec_eval's
``-1=g`` gives not-in-pool documents gain g) is refused; a custom map given out of grade
order on trec_eval's command line may order fractional gains that differ by less than 1
differently; gains differing by 2^31 or more compare like x86-64's out-of-range conversion
(as "less"), as in trec_eval's build.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ranklens.base.errors import MeasureError
from ranklens.base.segments import segment_ids
from ranklens.base.types import Float64Array, Int64Array
from ranklens.ranking.align import Ranked

GainPairs = tuple[tuple[int, float], ...]
"""A custom gain map: ``(grade, gain)`` pairs by increasing grade."""

DCG_FORMS = ("log2", "exp-log2")
"""``log2``: gain / log2(rank + 1) (trec_eval); ``exp-log2``: (2^gain - 1) / log2(rank + 1)."""

IDEAL_ORDERS = ("sorted", "trec_eval")
"""How the ideal ranking orders custom gains: ``sorted`` by exact decreasing gain (the
measure language), ``trec_eval`` as trec_eval's ``qsort`` with ``(int)(g1 - g2)`` does (its
names)."""

_EXP_MAX = 960
"""The largest gain whose ``2^gain`` the exp-log2 form accepts: sums of 2^960 over even
2^60 documents stay finite."""


def gain_pairs(gains: object) -> GainPairs | None:
    """The validated custom gain map of a ``gains`` parameter (``None``: linear gains).

    Accepts ``None``, a mapping, or ``(grade, gain)`` pairs; grades are integers >= 0,
    gains finite numbers. Raises :class:`MeasureError` otherwise.
    """
    if gains is None:
        return None
    items: list[object]
    if isinstance(gains, dict):
        items = list(gains.items())
    elif isinstance(gains, (tuple, list)):
        items = list(gains)
    else:
        raise MeasureError(f"gains must map grades to gains, like {{1:3,2:9}}; got {gains!r}")
    seen: dict[int, float] = {}
    for item in items:
        if not (isinstance(item, (tuple, list)) and len(item) == 2):
            raise MeasureError(f"gains must map grades to gains, like {{1:3,2:9}}; got {gains!r}")
        grade, gain = item
        if isinstance(grade, bool) or not isinstance(grade, int):
            raise MeasureError(f"gains: a grade must be an integer, got {grade!r}")
        if grade < 0:
            raise MeasureError(
                f"gains: grade {grade} is negative; unjudged and negatively judged documents "
                "always gain 0"
            )
        if isinstance(gain, bool) or not isinstance(gain, (int, float)) or not _finite(gain):
            raise MeasureError(f"gains: the gain of grade {grade} must be a finite number")
        if grade >= 2**63:
            raise MeasureError(f"gains: grade {grade} does not fit a 64-bit integer")
        if grade in seen:
            raise MeasureError(f"gains: grade {grade} is given twice")
        seen[grade] = float(gain)
    return tuple(sorted(seen.items())) or None


def _finite(value: float) -> bool:
    try:
        return math.isfinite(value)
    except OverflowError:  # an int beyond the range of a double
        return False


def check_form(dcg: str) -> None:
    """Raise :class:`MeasureError` unless ``dcg`` is one of :data:`DCG_FORMS`."""
    if dcg not in DCG_FORMS:
        raise MeasureError(f"dcg must be one of {list(DCG_FORMS)}, got {dcg!r}")


def check_ideal(ideal: str) -> None:
    """Raise :class:`MeasureError` unless ``ideal`` is one of :data:`IDEAL_ORDERS`."""
    if ideal not in IDEAL_ORDERS:
        raise MeasureError(f"ideal must be one of {list(IDEAL_ORDERS)}, got {ideal!r}")


def grade_gains(pairs: GainPairs | None, num_grades: int) -> Float64Array:
    """The gain of each grade 0..num_grades-1."""
    table = np.arange(num_grades, dtype=np.float64)
    for grade, gain in pairs or ():
        if grade < num_grades:
            table[grade] = gain
    return table


def rank_gains(r: Ranked, pairs: GainPairs | None) -> Float64Array:
    """The gain of the document at every rank (0 for unjudged and negative judgments): its
    grade, or the gain ``pairs`` maps it to (no table over the grades, so a huge grade
    costs nothing)."""
    judged = r.rel >= 0
    gains = np.where(judged, r.rel, 0).astype(np.float64)
    for grade, gain in pairs or ():
        gains[judged & (r.rel == grade)] = gain
    return gains


def trec_compare(a: float, b: float) -> int:
    """trec_eval's ``comp_rel_gain``: ``(int)(a - b)``, truncated toward zero; out of the
    ``int`` range, x86-64 gives ``INT_MIN``."""
    diff = a - b
    if math.isnan(diff):
        return -(2**31)
    whole = math.trunc(diff)
    return whole if -(2**31) <= whole < 2**31 else -(2**31)


def trec_gain_order(gains: Sequence[float]) -> list[int]:
    """The permutation glibc's ``qsort`` (stable top-down merge sort, ``n1 = n / 2``) makes
    of ``gains`` with :func:`trec_compare`: increasing gain, ties in input order."""

    def msort(items: list[int]) -> list[int]:
        if len(items) <= 1:
            return items
        half = len(items) // 2
        left, right = msort(items[:half]), msort(items[half:])
        out: list[int] = []
        i = j = 0
        while i < len(left) and j < len(right):
            if trec_compare(gains[left[i]], gains[right[j]]) <= 0:
                out.append(left[i])
                i += 1
            else:
                out.append(right[j])
                j += 1
        return out + left[i:] + right[j:]

    return msort(list(range(len(gains))))


@dataclass(frozen=True)
class IdealGains:
    """Every query's ideal gain list, positive gains only, concatenated in query order.

    Attributes
    ----------
    gains : float64; the ideal gains, in trec_eval's traversal order.
    offsets : int64 (nq + 1); query ``j``'s ideal positions are ``offsets[j]:offsets[j+1]``.
    ids, pos : the query and the 0-based ideal position of every entry.
    """

    gains: Float64Array
    offsets: Int64Array
    ids: Int64Array
    pos: Int64Array

    @property
    def length(self) -> Int64Array:
        """``P``: the number of positive ideal gains of each query."""
        lengths: Int64Array = np.diff(self.offsets)
        return lengths


def levels_in_use(levels: Int64Array) -> Int64Array:
    """trec_eval's ``num_rel_levels`` per query: highest judged grade + 1 (0 if none)."""
    nq, width = levels.shape
    if width == 0:
        return np.zeros(nq, dtype=np.int64)
    present = levels > 0
    top = width - np.argmax(present[:, ::-1], axis=1)
    used: Int64Array = np.where(present.any(axis=1), top, 0).astype(np.int64)
    return used


def _walk_tables(
    pairs: GainPairs, used: Int64Array, num_grades: int, exact: bool = False
) -> tuple[Float64Array, Int64Array, Float64Array]:
    """The gain levels in trec_eval's walking order (from the top of its sorted list), or
    (``exact``) by exact decreasing gain.

    Returns, per query, the gain and the grade (whose judged documents the level repeats;
    -1 for none) of every level, and the gain of the top entry of the sorted list.
    """
    nq = used.shape[0]
    custom = dict(pairs)
    whole = all(float(g).is_integer() and abs(g) < 2**30 for g in custom.values())
    if exact or (whole and num_grades < 2**30):
        # exact order, or (int)(g1 - g2) is exact: trec_eval's merge sort is a plain stable
        # sort by gain, levels missing for a query (grades above its highest) only add
        # empty levels, and equal gains are walked in an order that changes no value.
        grades = sorted(set(range(num_grades)) | set(custom))
        gains = [custom.get(g, float(g)) for g in grades]
        walk = sorted(range(len(grades)), key=lambda i: -gains[i])
        seg_gain = np.tile(np.array([gains[i] for i in walk], dtype=np.float64), (nq, 1))
        seg_grade = np.tile(np.array([grades[i] for i in walk], dtype=np.int64), (nq, 1))
        top = np.full(nq, -np.inf)
        for m in np.unique(used).tolist():
            default = m - 1
            while default in custom:
                default -= 1
            candidates = [*custom.values(), *([float(default)] if default >= 0 else [])]
            top[used == m] = max(candidates, default=0.0)
        return seg_gain, seg_grade, top
    tables: list[tuple[int, list[float], list[int]]] = []
    width = 0
    for m in np.unique(used).tolist():
        entries = [*pairs, *((grade, float(grade)) for grade in range(m) if grade not in custom)]
        order = trec_gain_order([gain for _, gain in entries])[::-1]
        tables.append(
            (
                m,
                [entries[k][1] for k in order],
                [entries[k][0] if entries[k][0] < m else -1 for k in order],
            )
        )
        width = max(width, len(order))
    seg_gain = np.zeros((nq, width), dtype=np.float64)
    seg_grade = np.full((nq, width), -1, dtype=np.int64)
    top = np.zeros(nq, dtype=np.float64)
    for m, gains_m, grades_m in tables:
        rows = np.flatnonzero(used == m)
        k = len(gains_m)
        if k:
            seg_gain[rows, :k] = gains_m
            seg_grade[rows, :k] = grades_m
            top[rows] = gains_m[0]
    return seg_gain, seg_grade, top


def ideal_gains(r: Ranked, pairs: GainPairs | None, ideal: str = "sorted") -> IdealGains:
    """The ideal gain list of every query, as trec_eval's ndcg, ndcg_rel, Rndcg and G walk it
    (``ideal="trec_eval"``), or every positive gain by exact decreasing gain (``"sorted"``,
    the same list whenever trec_eval's comparison is exact).

    trec_eval visits the gain levels from the top of its sorted list, each repeated as many
    times as the query has judged documents of that grade, and stops at the first visited
    gain that is not positive; if the top entry of the list itself (even a level without
    documents) is not positive, the list is empty.
    """
    levels = r.levels
    nq, num_grades = levels.shape
    used = levels_in_use(levels)
    check_ideal(ideal)
    seg_gain, seg_grade, top = _walk_tables(pairs or (), used, num_grades, ideal == "sorted")
    width = seg_gain.shape[1]
    valid = (seg_grade >= 0) & (seg_grade < num_grades)
    seg_count = np.zeros((nq, width), dtype=np.int64)
    if num_grades:
        rows = np.broadcast_to(np.arange(nq)[:, None], (nq, width))
        seg_count[valid] = levels[rows[valid], seg_grade[valid]]
    stop = (seg_count > 0) & (seg_gain <= 0.0)
    first_stop = np.where(stop.any(axis=1), np.argmax(stop, axis=1), width)
    first_stop = np.where(top > 0.0, first_stop, 0)
    keep = (np.arange(width) < first_stop[:, None]) & (seg_count > 0)
    lengths = np.where(keep, seg_count, 0).sum(axis=1).astype(np.int64)
    gains_flat = np.repeat(seg_gain[keep], seg_count[keep]).astype(np.float64)
    offsets = np.zeros(nq + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    ids = segment_ids(offsets)
    pos = np.arange(gains_flat.shape[0], dtype=np.int64) - offsets[:-1][ids]
    return IdealGains(gains_flat, offsets, ids, pos)


def shaped(gains: Float64Array, dcg: str) -> Float64Array:
    """The gains as DCG form ``dcg`` uses them: as they are, or ``2^g - 1``."""
    if dcg == "exp-log2":
        if gains.shape[0] and float(gains.max()) > _EXP_MAX:
            raise MeasureError(
                f"dcg='exp-log2': a gain of {float(gains.max()):g} makes 2^gain - 1 overflow a "
                f"double (gains above {_EXP_MAX} cannot be summed); use linear gains "
                "(dcg='log2') or map the grades to smaller gains"
            )
        out: Float64Array = np.exp2(gains) - 1.0
        return out
    return gains
