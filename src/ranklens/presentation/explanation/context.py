"""What every explainer reads (:class:`QueryData`: one query's slice of the arrays the
kernels read), what it returns (:class:`Worked`), and how that becomes an
:class:`~ranklens.presentation.explanation.model.Explanation` (:func:`assemble`: rows, gaps
and the notes common to all families).

>>> import numpy as np
>>> from ranklens.presentation.explanation.context import shown_ranks
>>> shown_ranks(np.array([False, True, False, False, False, True]), np.zeros(6, bool), 1).tolist()
[True, True, False, False, False, True]
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from types import MappingProxyType
from typing import Any

import numpy as np

from ranklens.base.types import BoolArray, Float64Array, Int64Array
from ranklens.measures.base import Measure
from ranklens.presentation.explanation.model import Cell, Explanation, Gap, Row, Text
from ranklens.ranking.align import Ranked

TIE_ORDER: Mapping[str, str] = MappingProxyType(
    {
        "trec_eval": "by document id, descending",
        "input": "in input order",
        "docid_asc": "by document id, ascending",
        "rank": "(any scores) by the run's rank column, ascending",
    }
)
"""How each tie policy orders equal scores, in words."""
TERMS_WRITTEN = 10
"""Up to this many non-zero terms, a result line writes the sum out (``3 + 1.2619 + ...``)."""
LISTED = 8
"""How many relevant-but-not-retrieved documents (or tied groups) a note names."""


@dataclass(frozen=True)
class Options:
    """The evaluation options in effect (see :func:`ranklens.evaluate`)."""

    ties: str
    queries: str
    depth: int | None


@dataclass(frozen=True, eq=False)
class QueryData:
    """One query of the aligned arrays, as a measure's kernel sees it.

    Attributes
    ----------
    measure : the measure being explained.
    query, run : the query id and the run's name.
    view : the arrays of every evaluated query (``judged_only`` applied), for what a
        kernel reads across queries (ERR's highest grade, the discount table, gains).
    index : the query's index in ``view``.
    docids, scores : the document and score at each rank of the query.
    judged : the query's qrels, ``{docid: label}`` (negative labels included).
    options : the evaluation options.
    removed : unjudged documents removed from the ranking by ``judged_only``.
    """

    measure: Measure
    query: str
    run: str
    view: Ranked
    index: int
    docids: tuple[str, ...]
    scores: tuple[float, ...]
    judged: Mapping[str, int]
    options: Options
    removed: int

    @property
    def start(self) -> int:
        """Where the query's ranks begin in the flat arrays of :attr:`view`."""
        return int(self.view.offsets[self.index])

    @property
    def n(self) -> int:
        """The number of ranked documents."""
        return len(self.docids)

    @cached_property
    def rel(self) -> Int64Array:
        """The judgment code at each rank (grade, -1 unjudged, -2 negative; see
        :mod:`ranklens.ranking.align`)."""
        codes: Int64Array = self.view.rel[self.start : self.start + self.n]
        return codes

    def param(self, name: str, default: Any = None) -> Any:
        """The measure's parameter ``name`` (``default`` if it has none)."""
        return self.measure.params.get(name, default)

    @property
    def cutoff(self) -> int | None:
        """The measure's cut-off ``k``, if any."""
        value: int | None = self.param("cutoff")
        return value

    @property
    def read(self) -> int:
        """How many ranks the measure reads: ``min(n, k)``."""
        return self.n if self.cutoff is None else min(self.n, self.cutoff)

    @property
    def threshold(self) -> int:
        """The lowest relevant grade: the measure's ``rel``, else 1."""
        value = self.param("rel", 1)
        return 1 if value is None else int(value)

    @cached_property
    def ideal_grades(self) -> Int64Array:
        """The grades of every judged document of the query, highest first (the ideal
        ranking of the normalisers, before gains)."""
        table = self.view.grades
        mine = table.query == self.index
        grade, count = table.grade[mine][::-1], table.count[mine][::-1]
        out: Int64Array = np.repeat(grade, count)
        return out

    def slice_of(self, flat: np.ndarray) -> np.ndarray:
        """The query's part of a flat per-rank array of :attr:`view`."""
        return flat[self.start : self.start + self.n]

    def num_rel(self, threshold: int) -> int:
        """Relevant documents (grade >= ``threshold``) in the query's qrels."""
        return int(self.view.num_rel(threshold)[self.index])

    def label(self, rank: int) -> int | None:
        """The qrels label of the document at 0-based ``rank`` (``None``: not judged)."""
        return self.judged.get(self.docids[rank])


@dataclass(frozen=True)
class Worked:
    """What a family's explainer computes.

    Attributes
    ----------
    columns : the family's column titles.
    cells : for each column, one cell per row (the rows are ranks ``1..L``).
    keep : rows that must be shown, because they add to the measure.
    pad : rows past the end of the ranking that only carry a running value to the
        cut-off (shown only when they are the last row).
    value : the measure's value.
    formula, result, notes : see :class:`~ranklens.presentation.explanation.model.Explanation`
        (``notes`` come first in its summary).
    quantities : the named numbers of the result.
    """

    columns: tuple[str, ...]
    cells: tuple[tuple[Cell, ...], ...]
    keep: BoolArray
    pad: BoolArray
    value: float
    formula: str
    result: Text
    notes: tuple[Text, ...] = ()
    quantities: tuple[tuple[str, float], ...] = ()

    @property
    def length(self) -> int:
        """The number of rows, ``L``."""
        return int(self.keep.shape[0])


Explainer = Callable[[QueryData], Worked]
"""A family's explainer."""


def cells(values: np.ndarray, where: BoolArray | None = None) -> tuple[Cell, ...]:
    """One column as cells: numbers as Python numbers, ``None`` where ``where`` is False."""
    items: list[Any] = values.tolist()
    if where is None:
        return tuple(items)
    mask: list[bool] = where.tolist()
    return tuple(v if m else None for v, m in zip(items, mask, strict=True))


def padded(values: np.ndarray, length: int, fill: float = 0.0) -> np.ndarray:
    """``values`` extended to ``length`` with ``fill``."""
    extra = length - values.shape[0]
    if extra <= 0:
        return values[:length]
    return np.concatenate((values, np.full(extra, fill, dtype=values.dtype)))


def running(terms: Float64Array) -> Float64Array:
    """Running sums added left to right from 0.0: the doubles a kernel's ordered sum
    (``np.bincount`` with weights, a C loop) holds after each rank."""
    out: Float64Array = np.cumsum(terms, dtype=np.float64)
    return out


def last(values: Float64Array) -> float:
    """The last element, or 0.0 for an empty array (an empty sum)."""
    return float(values[-1]) if values.shape[0] else 0.0


def ratio(numerator: float, denominator: float) -> float:
    """``numerator / denominator``, 0.0 when the denominator is 0 (the kernels'
    ``safe_divide``, on Python floats, which divide as numpy's float64 do)."""
    return numerator / denominator if denominator != 0 else 0.0


def ideal_column(q: QueryData, length: int) -> tuple[Cell, ...]:
    """The grade of the ideal ranking's document at each row (blank past the judged)."""
    grades: list[Cell] = list(q.ideal_grades[:length].tolist())
    return tuple(grades + [None] * (length - len(grades)))


def shown_ranks(keep: BoolArray, pad: BoolArray, max_rows: int | None) -> BoolArray:
    """Which rows to print: the first ``max_rows`` ranks (padding excepted), every row in
    ``keep``, and the last row; all of them when ``max_rows`` is ``None``."""
    length = keep.shape[0]
    if max_rows is None:
        return np.ones(length, dtype=bool)
    show: BoolArray = keep.copy()
    show[: min(max_rows, length)] |= ~pad[: min(max_rows, length)]
    if length:
        show[-1] = True
    return show


def assemble(q: QueryData, family: str, worked: Worked, max_rows: int | None) -> Explanation:
    """The :class:`Explanation` of ``worked``: rows with gaps, and the summary notes."""
    show = shown_ranks(worked.keep, worked.pad, max_rows)
    rows: list[Row | Gap] = []
    gap_start: int | None = None
    for i, visible in enumerate(show.tolist()):
        if not visible:
            if gap_start is None:
                gap_start = i + 1
            continue
        if gap_start is not None:
            rows.append(Gap(gap_start, i))
            gap_start = None
        inside = i < q.n
        rows.append(
            Row(
                rank=i + 1,
                docid=q.docids[i] if inside else None,
                judgment=q.label(i) if inside else None,
                score=q.scores[i] if inside else None,
                cells=tuple(column[i] for column in worked.cells),
            )
        )
    return Explanation(
        measure=q.measure.name,
        family=family,
        query=q.query,
        run=q.run,
        formula=worked.formula,
        columns=worked.columns,
        rows=tuple(rows),
        result=worked.result,
        summary=worked.notes + common_notes(q),
        quantities=worked.quantities,
        value=worked.value,
    )


def common_notes(q: QueryData) -> tuple[Text, ...]:
    """The notes every explanation ends with: relevant documents, the ideal ordering, the
    ranking, ties and the conventions in effect."""
    return (
        _relevant_note(q),
        _missed_note(q),
        _ideal_note(q),
        _ranking_note(q),
        _ties_note(q),
        _conventions_note(q),
    )


def _relevant_note(q: QueryData) -> Text:
    threshold = q.threshold
    total = q.num_rel(threshold)
    found = int(np.count_nonzero(q.rel[: q.read] >= max(threshold, 0)))
    where = "retrieved" if q.cutoff is None else f"in the top {q.cutoff}"
    return (f"R = {total} relevant documents (grade >= {threshold}) in the qrels; {found} {where}",)


def _missed_note(q: QueryData) -> Text:
    threshold = max(q.threshold, 0)
    read = q.read
    position = {doc: i for i, doc in enumerate(q.docids)}
    missed = sorted(
        (
            (-label, doc)
            for doc, label in q.judged.items()
            if label >= threshold and position.get(doc, read) >= read
        ),
    )
    if not missed:
        return ("every relevant document is in the ranks read",)
    shown: list[str] = []
    for negative, doc in missed[:LISTED]:
        rank = position.get(doc)
        where = "not retrieved" if rank is None else f"rank {rank + 1}"
        shown.append(f"{doc} (grade {-negative}, {where})")
    more = f", and {len(missed) - LISTED} more" if len(missed) > LISTED else ""
    return ("relevant but not in the ranks read: " + ", ".join(shown) + more,)


def _ideal_note(q: QueryData) -> Text:
    grades = q.ideal_grades.tolist()
    if not grades:
        return ("ideal ordering: the qrels judge no document of this query",)
    return (f"ideal ordering (the {len(grades)} judged documents by grade): {_grade_list(grades)}",)


def _grade_list(grades: Sequence[int]) -> str:
    if len(grades) <= 20:
        return ", ".join(str(g) for g in grades)
    runs: list[list[int]] = []
    for g in grades:
        if runs and runs[-1][0] == g:
            runs[-1][1] += 1
        else:
            runs.append([g, 1])
    return ", ".join(f"{g} x{c}" if c > 1 else str(g) for g, c in runs)


def _ranking_note(q: QueryData) -> Text:
    if q.n == 0 and q.removed == 0:
        return ("the run retrieved no document for this query",)
    parts = [f"ranking: {q.n + q.removed} documents retrieved"]
    if q.options.depth is not None:
        parts.append(f"(depth: the top {q.options.depth} kept)")
    if q.removed:
        parts.append(
            f"; judged_only: {q.removed} unjudged documents removed first, the ranks renumbered"
        )
    if q.cutoff is not None:
        parts.append(f"; the measure reads the top {q.cutoff}")
    return (" ".join(parts).replace(" ;", ";"),)


def _ties_note(q: QueryData) -> Text:
    scores = np.asarray(q.scores, dtype=np.float64)
    if q.options.ties == "rank":
        return ("ties='rank': documents are ranked by the run's rank column, not by score",)
    policy = f"ties='{q.options.ties}': equal scores {TIE_ORDER.get(q.options.ties, '')}"
    groups: list[tuple[int, int]] = []
    if scores.shape[0] > 1:
        starts = np.flatnonzero(np.r_[True, scores[1:] != scores[:-1]])
        ends = np.r_[starts[1:], scores.shape[0]]
        groups = [
            (int(a), int(b)) for a, b in zip(starts, ends, strict=True) if b - a > 1 and a < q.read
        ]
    if not groups:
        return (f"no tied scores in the ranks read ({policy})",)
    named = ", ".join(
        f"ranks {a + 1}-{b} (score {float(scores[a])!r}"
        + (", across the cut-off: the tie order decides what is read)" if b > q.read else ")")
        for a, b in groups[:LISTED]
    )
    more = f", and {len(groups) - LISTED} more groups" if len(groups) > LISTED else ""
    return (f"tied scores at {named}{more}; {policy}",)


def _conventions_note(q: QueryData) -> Text:
    params = ", ".join(f"{k}={_param_text(v)}" for k, v in q.measure.items)
    o = q.options
    return (
        f"conventions: ties='{o.ties}', queries='{o.queries}', depth={o.depth}; "
        f"{q.measure.spec.name} parameters: {params or 'none'}",
    )


def _param_text(value: Any) -> str:
    """A parameter as the measure language writes it (``{1:3,2:9}`` for a gain map)."""
    if isinstance(value, tuple) and value and all(isinstance(v, tuple) for v in value):
        return "{" + ",".join(f"{k!r}:{v!r}" for k, v in value) + "}"
    return repr(value)


def sum_line(label: str, terms: Float64Array, value: float) -> Text:
    """``"DCG@5 = 3 + 1.2619 + 1.5 + 0.3869 = 6.1487"`` (the sum written out when short)."""
    nonzero = terms[terms != 0.0].tolist()
    if not nonzero or len(nonzero) > TERMS_WRITTEN:
        return (f"{label} =", value)
    parts: list[Cell] = [f"{label} =", nonzero[0]]
    for t in nonzero[1:]:
        parts += ["+", t] if t >= 0 else ["-", -t]
    return (*parts, "=", value)


def keep_nonzero(values: Float64Array) -> BoolArray:
    """Rows whose term is not zero."""
    out: BoolArray = values != 0.0
    return out


def no_pad(length: int) -> BoolArray:
    """No padding rows."""
    return np.zeros(length, dtype=bool)
