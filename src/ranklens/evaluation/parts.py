"""Evaluating part of the queries, and combining the parts into one :class:`Results`.

Every backend of :mod:`ranklens.scale` splits the data *by query*: each query's whole
ranking and all its judgments land in one part. A part is evaluated by the ordinary
evaluation (:class:`~ranklens.Evaluator`), which computes each query's value from that
query's data alone, so a query's value does not depend on which part it was in. Only the
per-query values come back; :func:`combine` puts the queries in byte order (the order of
the in-memory evaluation) and :class:`~ranklens.Results` sums each column in that order,
so the aggregates are the same floating-point sums as on one machine.

The run-level measures (``Coverage@10``, ``PSP@5``, ...) have no per-query values: each
part gives a small mergeable state instead (:mod:`ranklens.kernels.run_parts`: exposure
counts by item id, or a few numbers per user), merged into the statistic of the whole run
with the in-memory value (:class:`RunLevelStates`).

Queries present on one side only follow the ``queries=`` policy exactly as the in-memory
evaluation does: with ``"qrels"`` a qrels query missing from the run is scored on an empty
ranking, with ``"run"`` a run query without judgments is scored with no relevant document,
and the query counts (``qrels``, ``run``, ``evaluated``, ``missing``, ``unjudged``) are
the sums of the parts'.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from ranklens.base.types import Float64Array, QueryPolicy
from ranklens.data.run import Run
from ranklens.evaluation.results import Results
from ranklens.measures.base import Measure

if TYPE_CHECKING:
    from ranklens.evaluation.evaluator import Evaluator


@dataclass(frozen=True)
class Part:
    """The per-query values of some queries, and how many queries each side had.

    Attributes
    ----------
    queries : the evaluated queries of this part (any order).
    values : float64 (len(queries) x measures).
    qrels_queries, run_queries : the queries of the qrels and of the run in this part.
    both : the queries in both.
    retrieving, matched, retrieved : the queries in both that retrieve any document, and a
        document the qrels list; the documents they retrieve (see
        :func:`ranklens.ranking.align.judged_counts`).
    """

    queries: tuple[str, ...]
    values: Float64Array
    qrels_queries: int
    run_queries: int
    both: int
    retrieving: int = 0
    matched: int = 0
    retrieved: int = 0
    tied: int | None = 0
    """Queries whose tied scores can decide a value (``None``: not counted)."""
    statistics: Mapping[str, Any] = field(default_factory=dict)
    """The run-level measures' mergeable states, by measure name
    (:func:`ranklens.kernels.run_parts.state_of`; per-user ones in :attr:`queries`' order)."""


def absent_id(taken: Iterable[str]) -> str:
    """A query id that is not in ``taken`` (to build a run or qrels that adds no query)."""
    known = set(taken)
    candidate = "\x00ranklens:none"
    while candidate in known:
        candidate += "\x00"
    return candidate


def with_policy(
    evaluator: Evaluator, queries: QueryPolicy, measures: Sequence[Measure] | None = None
) -> Evaluator:
    """The same prepared evaluator (qrels shared, not copied) with another query policy
    (and other measures)."""
    if evaluator.queries == queries and measures is None:
        return evaluator
    other = copy.copy(evaluator)
    other.queries = queries
    if measures is not None:
        other.measures = tuple(measures)
    return other


def set_dependent(measures: Sequence[Measure]) -> list[Measure]:
    """The measures whose per-query value depends on the set of evaluated queries: ERR
    without ``max_rel`` (its ``g_max`` is the highest grade of the evaluated queries)."""
    return [m for m in measures if m.spec.param("max_rel") is not None and m["max_rel"] is None]


def top_grade(rels: Iterable[int]) -> int:
    """The highest grade >= 0 among ``rels`` (0 if none): ERR's default ``g_max``."""
    return max([0, *[int(r) for r in rels]])


def pinned(measures: Sequence[Measure], g_max: int) -> list[Measure]:
    """``measures`` with ERR's ``max_rel`` set to ``g_max`` where it was left to default, so
    that a part computes the values the whole evaluation would (the results keep the
    measures as asked)."""
    dependent = {id(m) for m in set_dependent(measures)}
    return [
        m.spec.make(**{**m.params, "max_rel": g_max}) if id(m) in dependent else m for m in measures
    ]


def evaluate_run_part(
    evaluator: Evaluator, run: Run, measures: Sequence[Measure] | None = None
) -> Part:
    """Evaluate the run queries of ``run`` (whole queries) against the evaluator's qrels
    (with ``measures`` in place of the evaluator's, see :func:`pinned`).

    The qrels queries missing from every part are added by :func:`missing_part`.
    """
    policy: QueryPolicy = "run" if evaluator.queries == "run" else "both"
    res = with_policy(evaluator, policy, measures).evaluate_part(run)
    counts = res.query_counts
    if policy == "both":
        both = counts["evaluated"]
    else:
        index = evaluator.qrels.query_index()
        both = sum(1 for q in run.qids if q in index)
    return Part(
        res.queries,
        np.asarray(res.values),
        0,
        counts["run"],
        both,
        counts["retrieving"],
        counts["matched"],
        counts["retrieved"],
        res.tie_affected_queries,
        states_of(res),
    )


def states_of(res: Results, rows: Sequence[int] | None = None) -> dict[str, Any]:
    """The mergeable states of the run-level statistics of a part's results (of its
    queries ``rows`` only, when given)."""
    from ranklens.kernels.run_parts import state_of

    picked = None if rows is None else np.asarray(rows, dtype=np.int64)
    return {name: state_of(stat, name, picked) for name, stat in res.run_statistics.items()}


FOLD_ITEMS = 1 << 16
"""Exposure states waiting to be merged are folded into the merged one once they hold at
least as many items as it does, and at least this many."""


class RunLevelStates:
    """The run-level measures' states of the parts seen so far, merged as they come: the
    exposure counts are folded by item id whenever the waiting states hold as many items as
    the merged one (so memory stays bounded by the catalogue and the work linear); the
    per-user states are kept in the parts' order."""

    def __init__(self) -> None:
        self._states: dict[str, list[Any]] = {}
        self._waiting: dict[str, int] = {}

    def add(self, part: Part) -> Part:
        """Take ``part``'s states; the part without them."""
        from ranklens.kernels.run_parts import ExposureState, merge_states, state_size

        if not part.statistics:
            return part
        for name, state in part.statistics.items():
            held = self._states.setdefault(name, [])
            held.append(state)
            if isinstance(state, ExposureState):
                waiting = self._waiting.get(name, 0) + state_size(state)
                if len(held) > 1 and waiting >= max(state_size(held[0]), FOLD_ITEMS):
                    held[:] = [merge_states(held)]
                    waiting = 0
                self._waiting[name] = waiting
        return replace(part, statistics={})

    def finish(self, measures: Sequence[Measure], order: Any) -> dict[str, Any]:
        """The run-level statistics of the combined results (``order``: the part rows of
        the results' queries, in the results' order).

        Raises
        ------
        MeasureError
            A run-level measure has no state (no part evaluated a user).
        """
        from ranklens.base.errors import MeasureError
        from ranklens.kernels.run_parts import ExposureState, finish, merge_states, state_size
        from ranklens.measures.base import is_run_level

        out: dict[str, Any] = {}
        for m in measures:
            if not is_run_level(m):
                continue
            held = self._states.get(m.name)
            if not held:
                raise MeasureError(f"{m.name}: no user was evaluated, so it has no value")
            merged = merge_states(held)
            if not isinstance(merged, ExposureState) and state_size(merged) != len(order):
                raise MeasureError(
                    f"{m.name}: the parts' states cover {state_size(merged)} users, the "
                    f"results {len(order)}"
                )
            out[m.name] = finish(merged, m.name, order)
        return out


def missing_part(
    evaluator: Evaluator, present: set[str], measures: Sequence[Measure] | None = None
) -> Part | None:
    """With ``queries="qrels"``, the values of the qrels queries not in ``present`` (scored on
    an empty ranking, as the in-memory evaluation does); ``None`` otherwise or if none."""
    if evaluator.queries != "qrels":
        return None
    qids = evaluator.qrels.qids
    rows = [i for i, q in enumerate(qids) if q not in present]
    if not rows:
        return None
    empty = Run.from_dict({absent_id(qids): {"d": 0.0}})
    if evaluator.ties == "rank":  # ties="rank" reads a rank column: give the one entry one
        empty = replace(empty, ranks=np.ones(1, dtype=np.int64))
    res = with_policy(evaluator, "qrels", measures).evaluate_part(empty)
    values = np.asarray(res.values)[np.asarray(rows, dtype=np.int64)]
    states = states_of(res, rows)
    return Part(tuple(qids[i] for i in rows), values, 0, 0, 0, statistics=states)


def combine(
    name: str,
    measures: Sequence[Measure],
    queries: QueryPolicy,
    parts: Iterable[Part],
    qrels_queries: int | None = None,
    states: RunLevelStates | None = None,
) -> Results:
    """One :class:`Results` from parts that hold disjoint queries: rows in query byte order,
    query counts summed (``qrels_queries`` overrides the qrels count where the parts do not
    carry it).

    The run-level measures (``Coverage@10``, ...) are made from the parts' states
    (:mod:`ranklens.kernels.run_parts`), taken from the parts here or already gathered in
    ``states`` (a caller that streams many parts takes them as they come, in the order of
    ``parts``).

    Raises
    ------
    MeasureError
        A run-level measure's states show more items than the catalogue holds, or it has
        none (see :meth:`RunLevelStates.finish`).
    """
    from ranklens.measures.base import is_run_level

    run_level = any(is_run_level(m) for m in measures)
    gathered = states if states is not None else RunLevelStates()
    ids: list[str] = []
    blocks: list[Float64Array] = []
    nq = nr = both = retrieving = matched = retrieved = 0
    tied: int | None = 0
    for whole in parts:
        part = gathered.add(whole)
        ids.extend(part.queries)
        blocks.append(part.values)
        nq += part.qrels_queries
        nr += part.run_queries
        both += part.both
        retrieving += part.retrieving
        matched += part.matched
        retrieved += part.retrieved
        tied = None if tied is None or part.tied is None else tied + part.tied
    if qrels_queries is not None:
        nq = qrels_queries
    width = len(measures)
    stacked = np.concatenate(blocks) if blocks else np.zeros((0, width), dtype=np.float64)
    # str order is code point order, which is UTF-8 byte order: the in-memory query order
    order = np.asarray(sorted(range(len(ids)), key=ids.__getitem__), dtype=np.int64)
    values = np.ascontiguousarray(stacked[order], dtype=np.float64)
    qids = tuple(ids[i] for i in order.tolist())
    counts = {
        "qrels": nq,
        "run": nr,
        "evaluated": len(qids),
        "missing": nq - both if queries == "qrels" else 0,
        "unjudged": nr - both if queries != "run" else 0,
        "shared": both,
        "retrieving": retrieving,
        "matched": matched,
        "retrieved": retrieved,
    }
    statistics = gathered.finish(measures, order) if run_level else {}
    return Results(
        name,
        tuple(measures),
        qids,
        values,
        counts,
        tie_affected_queries=tied,
        run_statistics=statistics,
    )
