"""What one partition (Dask) or one group of queries (Spark) runs: pandas rows of whole
queries in, a :class:`~ranklens.evaluation.parts.Part` of per-query values out.

Both engines call :func:`evaluate_frames` with the rows of the qrels and of the run that
share a set of queries (each query's rows all in the same call), then
:func:`ranklens.evaluation.parts.combine` puts the parts together in query byte order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ranklens.base.errors import DuplicateError, InputError, OptionError
from ranklens.base.types import DuplicatePolicy, QueryPolicy, TiePolicy
from ranklens.data.frames import DOC_NAMES, QID_NAMES, REL_NAMES, SCORE_NAMES
from ranklens.data.qrels import Qrels
from ranklens.data.run import Run
from ranklens.evaluation.evaluator import Evaluator, check_options
from ranklens.evaluation.parts import (
    Part,
    absent_id,
    missing_part,
    pinned,
    set_dependent,
    states_of,
)
from ranklens.measures.base import Measure
from ranklens.measures.language import parse_measures
from ranklens.ranking.interactions import TrainLike
from ranklens.ranking.item_features import ItemFeaturesLike
from ranklens.ranking.items import ItemData, PopularityLike

QUERY, DOC, VALUE, ROW = "query_id", "doc_id", "value", "_row"
"""The columns of the frames handed to :func:`evaluate_frames`: ids as strings, the grade
or score, and the row's position in its input (for ``ties="input"``, duplicates)."""


@dataclass(frozen=True)
class Options:
    """The measures and conventions of a distributed evaluation (sent to every worker)."""

    measures: tuple[Measure, ...]
    ties: TiePolicy = "trec_eval"
    queries: QueryPolicy = "qrels"
    depth: int | None = None
    duplicates: DuplicatePolicy = "error"
    items: ItemData | None = None
    """The item data of the recommender measures (``popularity=``, ``num_items=``,
    ``num_users=``, ``item_features=``, ``train=``), read once on the client and sent to
    every part."""

    @classmethod
    def of(
        cls,
        measures: Sequence[str | Measure] | str,
        ties: TiePolicy,
        queries: QueryPolicy,
        depth: int | None,
        duplicates: DuplicatePolicy,
        popularity: PopularityLike | None = None,
        num_items: int | None = None,
        num_users: int | None = None,
        item_features: ItemFeaturesLike | None = None,
        train: TrainLike | None = None,
    ) -> Options:
        """Check the options, parse the measures and read the item data once, on the
        client."""
        check_options(ties, queries, depth, duplicates)
        parsed = tuple(parse_measures([measures] if isinstance(measures, str) else measures))
        needs = [m.name for m in parsed if m.spec.judgments != "qrels"]
        if needs:
            raise OptionError(
                f"{', '.join(needs)} read a judgement file, which the distributed backends do "
                "not partition: evaluate them with ranklens.evaluate"
            )
        items = None
        side = (popularity, num_items, num_users, item_features, train)
        if any(given is not None for given in side):
            items = ItemData.of(popularity, num_items, num_users, None, item_features, train)
        return cls(parsed, ties, queries, depth, duplicates, items)

    def pinned(self, g_max: int | None) -> Options:
        """These options with ERR's default ``g_max`` fixed (see
        :func:`ranklens.evaluation.parts.pinned`)."""
        if g_max is None or not set_dependent(self.measures):
            return self
        return replace(self, measures=tuple(pinned(self.measures, g_max)))


def pick_columns(
    columns: Sequence[str],
    value_names: tuple[str, ...],
    what: str,
    given: tuple[str | None, str | None, str | None],
) -> tuple[str, str, str]:
    """The query, document and value columns of a table (the usual names unless given)."""
    out = []
    for wanted, names, kind in zip(
        given,
        (QID_NAMES, DOC_NAMES, value_names),
        ("query id", "document id", what),
        strict=True,
    ):
        if wanted is not None:
            if wanted not in columns:
                raise InputError(f"table has no column '{wanted}' (columns: {list(columns)})")
            out.append(wanted)
            continue
        found = next((n for n in names if n in columns), None)
        if found is None:
            raise InputError(
                f"table has no {kind} column: name one of {list(names)} or pass the column "
                f"name (columns present: {list(columns)})"
            )
        out.append(found)
    return out[0], out[1], out[2]


def qrels_columns(
    columns: Sequence[str], given: tuple[str | None, str | None, str | None]
) -> tuple[str, str, str]:
    """:func:`pick_columns` for qrels (relevance)."""
    return pick_columns(columns, REL_NAMES, "relevance", given)


def run_columns(
    columns: Sequence[str], given: tuple[str | None, str | None, str | None]
) -> tuple[str, str, str]:
    """:func:`pick_columns` for a run (score)."""
    return pick_columns(columns, SCORE_NAMES, "score", given)


def as_strings(column: Any) -> Any:
    """A pandas id column as Python strings: categories as their values, integers as their
    decimal digits (as ranklens reads them in memory); a missing id stays missing (``None``,
    which the reader refuses naming the row), never the text "None" or "nan"."""
    texts = column.astype(str)
    missing = column.isna()
    if bool(missing.any()):
        texts = texts.astype(object).where(~missing, None)
    return texts


SIDES = ("<qrels>", "<run>")
"""The ``path`` of an error in a part's qrels or run rows (see :func:`evaluate_frames`)."""


def _read(frame: Any, side: str, build: Any, whole_rows: bool) -> Any:
    """``build(frame)``; with ``whole_rows`` (the :data:`ROW` column holds each row's
    position in the whole input), an :class:`InputError` naming the row by that position
    rather than by its place in this part, and ``side`` as its path."""
    try:
        return build(frame)
    except InputError as exc:
        if not whole_rows or exc.path not in (None, "<DataFrame>") or ROW not in frame.columns:
            raise

        def whole(row: int) -> int:
            return int(frame[ROW].iloc[row])

        if isinstance(exc, DuplicateError) and exc.lines is not None:
            first, second = (whole(r) for r in exc.lines)
            message = exc.message.replace(
                f"rows {exc.lines[0]} and {exc.lines[1]}", f"rows {first} and {second}"
            )
            raise DuplicateError(
                message,
                path=side,
                lines=(first, second),
                query=exc.query,
                document=exc.document,
            ) from None
        line = None if exc.line is None else whole(exc.line)
        raise type(exc)(exc.message, path=side, line=line) from None


def _ordered(frame: Any) -> Any:
    return frame.sort_values(ROW, kind="stable") if ROW in frame.columns else frame


def top_grade(qrels: Any, run: Any, queries: QueryPolicy) -> int:
    """The highest grade (>= 0) among the judgments of the queries this part evaluates:
    ERR's default ``g_max`` is the maximum of these over the parts."""
    if qrels is None or len(qrels) == 0:
        return 0
    values = qrels[VALUE]
    if queries != "qrels":
        if run is None or len(run) == 0:
            return 0
        values = values[qrels[QUERY].isin(set(run[QUERY].tolist()))]
    return max(int(values.max()) if len(values) else 0, 0)


def evaluate_frames(qrels: Any, run: Any, options: Options, *, whole_rows: bool = False) -> Part:
    """Evaluate pandas rows of whole queries (columns :data:`QUERY`, :data:`DOC`,
    :data:`VALUE`, optionally :data:`ROW`), either side possibly empty. With
    ``whole_rows`` (:data:`ROW` holds positions in the whole input, from 0), an error in
    the rows names that position, with the path :data:`SIDES` ``[0]`` or ``[1]``."""
    q = None
    if qrels is not None and len(qrels):
        q = _read(
            _ordered(qrels).reset_index(drop=True),
            SIDES[0],
            lambda rows: Qrels.from_frame(
                rows, qid_col=QUERY, doc_col=DOC, rel_col=VALUE, duplicates=options.duplicates
            ),
            whole_rows,
        )
    r = None
    if run is not None and len(run):
        r = _read(
            _ordered(run).reset_index(drop=True),
            SIDES[1],
            lambda rows: Run.from_frame(
                rows, qid_col=QUERY, doc_col=DOC, score_col=VALUE, duplicates=options.duplicates
            ),
            whole_rows,
        )
    return evaluate_part(q, r, options)


def evaluate_part(qrels: Qrels | None, run: Run | None, options: Options) -> Part:
    """Evaluate one part holding whole queries of both sides (either side may be absent).

    An :class:`Evaluator` on the part's qrels with the caller's options. A part without
    qrels or without run lines still counts its queries and, as the policy asks, scores
    them (a qrels query with an empty ranking under ``"qrels"``, a run query with no
    relevant document under ``"run"``).
    """
    measures, queries = options.measures, options.queries
    nq = 0 if qrels is None else len(qrels.qids)
    nr = 0 if run is None else run.num_queries
    nothing = Part((), np.zeros((0, len(measures)), dtype=np.float64), nq, nr, 0)
    kwargs: dict[str, Any] = {
        "ties": options.ties,
        "queries": queries,
        "depth": options.depth,
        "popularity": options.items,
    }
    if qrels is None:
        if run is None:
            return nothing
        empty = Qrels.from_dict({absent_id(run.qids): {"d": 0}})
        if queries != "run":
            if options.ties == "rank":  # its ranks are checked, as the single machine does
                Evaluator(empty, measures, **{**kwargs, "queries": "run"}).evaluate_part(run)
            return nothing
        res = Evaluator(empty, measures, **kwargs).evaluate_part(run)
        return Part(res.queries, np.asarray(res.values), 0, nr, 0, statistics=states_of(res))
    evaluator = Evaluator(qrels, measures, **kwargs)
    if run is None:
        part = missing_part(evaluator, set())
        if part is None:
            return nothing
        return Part(part.queries, part.values, nq, 0, 0, statistics=part.statistics)
    res = evaluator.evaluate_part(run)
    counts = res.query_counts
    if queries == "run":
        index = run.query_index()
        both = sum(1 for qid in qrels.qids if qid in index)
    else:
        both = nr - counts["unjudged"]
    return Part(
        res.queries,
        np.asarray(res.values),
        nq,
        nr,
        both,
        counts["retrieving"],
        counts["matched"],
        counts["retrieved"],
        res.tie_affected_queries,
        states_of(res),
    )
