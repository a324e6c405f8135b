"""The common measures for one query at a time, in plain Python, for tiny inputs.

The vectorised kernels of this package pay a fixed cost of some microseconds per numpy
call, a few dozen calls per measure: nothing against a million ranks, everything against
the three documents of one query that a reinforcement-learning loop or a per-batch
validation scores at each call. These functions compute the same values for one query
with a loop over its ranks, in the same floating-point operations in the same order as the
vectorised kernels (which add in rank order, as trec_eval's C loops do), so that each
value is bit-identical to theirs; ``ranklens.evaluation.tiny`` uses them on small inputs
only, and ``tests/test_tiny_path.py`` proves the equality on generated data for every
measure and parameter they accept.

A query is given as ``rel``, the judgment at each rank of its ranking (after the tie
policy and the depth limit): the grade (>= 0) of a judged document, ``-1`` for a document
the qrels do not list, ``-2`` for a negative judgment; and as :class:`Grades`, its judged
documents per grade, retrieved or not (what ``R`` and the ideal ranking are made of).
``threshold`` is a measure's ``rel``: a document is relevant when judged with a grade of
at least ``max(threshold, 0)``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Grades:
    """A query's judged documents per grade, highest grade first: ``pairs`` of
    ``(grade, count)``, grades >= 0, counts >= 1 (negative judgments are not counted).

    >>> Grades.of([1, 0, 2, 1, -1]).pairs
    ((2, 1), (1, 2), (0, 1))
    """

    pairs: tuple[tuple[int, int], ...]

    @classmethod
    def of(cls, grades: Sequence[int]) -> Grades:
        """The counts of the judgments ``grades`` (the negative ones are skipped)."""
        counts: dict[int, int] = {}
        for grade in grades:
            if grade >= 0:
                counts[grade] = counts.get(grade, 0) + 1
        return cls(tuple(sorted(counts.items(), reverse=True)))

    def num_rel(self, threshold: int) -> int:
        """``R``: the judged documents of grade ``>= max(threshold, 0)``."""
        lowest = max(threshold, 0)
        return sum(count for grade, count in self.pairs if grade >= lowest)

    def num_nonrel(self, threshold: int) -> int:
        """The judged documents of grade ``< threshold`` (grades 0 to ``threshold - 1``)."""
        return sum(count for grade, count in self.pairs if grade < threshold)


def _hits(rel: Sequence[int], threshold: int, cutoff: int | None) -> int:
    """Relevant documents among the top ``cutoff`` ranks (all when ``None``)."""
    lowest = max(threshold, 0)
    ranks = rel if cutoff is None else rel[:cutoff]
    return sum(1 for judgment in ranks if judgment >= lowest)


def _ratio(numerator: float, denominator: float) -> float:
    """``numerator / denominator``, 0 where the denominator is 0 (``safe_divide``)."""
    return numerator / denominator if denominator != 0 else 0.0


def precision(rel: Sequence[int], grades: Grades, threshold: int, cutoff: int | None) -> float:
    """``P@k``: relevant in the top k over k; without k, relevant retrieved over retrieved."""
    if cutoff is None:
        return _ratio(float(_hits(rel, threshold, None)), float(len(rel)))
    return float(_hits(rel, threshold, cutoff)) / float(cutoff)


def recall(
    rel: Sequence[int], grades: Grades, threshold: int, cutoff: int | None, norm: str
) -> float:
    """``R@k``: relevant in the top k over ``R`` (``norm="R"``) or ``min(R, k)``
    (``"min"``; ``min(R, n)`` without k)."""
    hits = float(_hits(rel, threshold, cutoff))
    num_rel = grades.num_rel(threshold)
    if norm == "R":
        return _ratio(hits, float(num_rel))
    return _ratio(hits, float(min(num_rel, len(rel) if cutoff is None else cutoff)))


def average_precision(
    rel: Sequence[int], grades: Grades, threshold: int, cutoff: int | None, norm: str
) -> float:
    """``AP@k``: the sum over relevant ranks i <= k of P@i, in rank order, over ``R``
    (``norm="R"``), ``min(R, k)`` (``"min"``) or the relevant retrieved in the top k
    (``"ret"``)."""
    lowest = max(threshold, 0)
    ranks = rel if cutoff is None else rel[:cutoff]
    total = 0.0
    found = 0
    for index, judgment in enumerate(ranks):
        if judgment >= lowest:
            found += 1
            total += found / (index + 1)
    if norm == "R":
        return _ratio(total, float(grades.num_rel(threshold)))
    if norm == "min":
        limit = len(rel) if cutoff is None else cutoff
        return _ratio(total, float(min(grades.num_rel(threshold), limit)))
    return _ratio(total, float(found))


def reciprocal_rank(
    rel: Sequence[int], grades: Grades, threshold: int, cutoff: int | None
) -> float:
    """``1 / rank`` of the first relevant document within the top k, else 0."""
    lowest = max(threshold, 0)
    ranks = rel if cutoff is None else rel[:cutoff]
    for index, judgment in enumerate(ranks):
        if judgment >= lowest:
            return 1.0 / (index + 1)
    return 0.0


def ndcg(rel: Sequence[int], grades: Grades, cutoff: int | None) -> float:
    """``nDCG@k`` with linear gain (the grade) and ``log2(i + 1)`` discounts (trec_eval
    ``ndcg`` / ``ndcg_cut``): DCG over the ideal DCG of every judged document by
    decreasing grade; 0 when the ideal is 0."""
    ranks = rel if cutoff is None else rel[:cutoff]
    gained = 0.0
    for index, judgment in enumerate(ranks):
        if judgment > 0:
            gained += float(judgment) / math.log2(index + 2)
    ideal = 0.0
    position = 0
    for grade, count in grades.pairs:
        if grade <= 0:
            break
        gain = float(grade)
        stop = count if cutoff is None else min(count, cutoff - position)
        for _ in range(stop):
            ideal += gain / math.log2(position + 2)
            position += 1
        if cutoff is not None and position >= cutoff:
            break
    return _ratio(gained, ideal)


def r_precision(rel: Sequence[int], grades: Grades, threshold: int) -> float:
    """Precision at rank ``R``: relevant in the top ``R`` over ``R`` (0 when R = 0)."""
    num_rel = grades.num_rel(threshold)
    return _ratio(float(_hits(rel, threshold, num_rel)), float(num_rel))


def bpref(rel: Sequence[int], grades: Grades, threshold: int) -> float:
    """``(1/R) * sum over relevant retrieved d of (1 - min(n_d, R) / min(N, R))``, ``n_d``
    the judged non-relevant ranked above d, ``N`` those of the qrels; unjudged skipped."""
    lowest = max(threshold, 0)
    num_rel = grades.num_rel(threshold)
    cap = float(min(grades.num_nonrel(threshold), num_rel))
    total = 0.0
    above = 0
    for judgment in rel:
        if judgment >= lowest:
            total += 1.0 - min(above, num_rel) / cap if above > 0 else 1.0
        elif 0 <= judgment < threshold:
            above += 1
    return _ratio(total, float(num_rel))


def interpolated_precision(
    rel: Sequence[int], grades: Grades, threshold: int, recall: float, rounding: str
) -> float:
    """``IPrec@x``: the highest precision at or below the rank of the c-th relevant
    document, ``c = floor(x * R + 0.5)`` (``0.9`` for ``rounding="trec9"``), at least 1;
    0 when fewer than c relevant documents are retrieved."""
    lowest = max(threshold, 0)
    bump = 0.9 if rounding == "trec9" else 0.5
    target = max(math.floor(recall * grades.num_rel(threshold) + bump), 1)
    best = -math.inf
    found = 0
    for index, judgment in enumerate(rel):
        if judgment >= lowest:
            found += 1
            if found >= target:
                best = max(best, found / (index + 1))
    return best if found >= target else 0.0


def success(rel: Sequence[int], grades: Grades, threshold: int, cutoff: int | None) -> float:
    """1 if a relevant document is in the top k, else 0."""
    return 1.0 if _hits(rel, threshold, cutoff) > 0 else 0.0


def judged_fraction(rel: Sequence[int], grades: Grades, cutoff: int | None) -> float:
    """The judged share of the top ``min(k, n)`` documents (0 when nothing is retrieved)."""
    limit = len(rel) if cutoff is None else min(len(rel), cutoff)
    judged = sum(1 for judgment in rel[:limit] if judgment >= 0)
    return _ratio(float(judged), float(limit))


def num_ret(rel: Sequence[int], grades: Grades, threshold: int | None, cutoff: int | None) -> float:
    """Retrieved documents in the top k (with ``threshold``: those that are relevant)."""
    if threshold is None:
        return float(len(rel) if cutoff is None else min(len(rel), cutoff))
    return float(_hits(rel, threshold, cutoff))


def relevant_retrieved(
    rel: Sequence[int], grades: Grades, threshold: int, cutoff: int | None
) -> float:
    """Relevant documents in the top k (all retrieved when ``cutoff`` is ``None``)."""
    return float(_hits(rel, threshold, cutoff))


def num_rel(rel: Sequence[int], grades: Grades, threshold: int) -> float:
    """``R``, retrieved or not."""
    return float(grades.num_rel(threshold))


def num_q(rel: Sequence[int], grades: Grades) -> float:
    """1 for every evaluated query."""
    return 1.0
