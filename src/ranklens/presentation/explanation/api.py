"""The entry points, :func:`explain` and :func:`explain_measures`, and the table that picks
a family's explainer from the measure's name.

>>> from ranklens.presentation.explanation.api import explainable
>>> explainable()[:4]
('P', 'R', 'F1', 'F')
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import MappingProxyType

from ranklens.base.errors import MeasureError, OptionError
from ranklens.base.types import DuplicatePolicy, QueryPolicy, TiePolicy
from ranklens.data.coerce import QrelsLike, RunLike
from ranklens.data.qrels import Qrels
from ranklens.data.run import Run
from ranklens.measures.base import Measure
from ranklens.presentation.explanation import (
    average_precision,
    bpref,
    dcg,
    diversity,
    err,
    precision,
    rbp,
)
from ranklens.presentation.explanation import reciprocal_rank as rr
from ranklens.presentation.explanation.context import Explainer, Options, QueryData, assemble
from ranklens.presentation.explanation.model import Explanation

FAMILIES: Mapping[str, tuple[Explainer, tuple[str, ...]]] = MappingProxyType(
    {
        "precision": (precision.explain_precision, precision.FAMILY),
        "average_precision": (
            average_precision.explain_average_precision,
            average_precision.FAMILY,
        ),
        "reciprocal_rank": (rr.explain_reciprocal_rank, rr.FAMILY),
        "cumulative_gain": (dcg.explain_cg, ("CG",)),
        "dcg": (dcg.explain_dcg, dcg.FAMILY),
        "rbp": (rbp.explain_rbp, rbp.FAMILY),
        "err": (err.explain_err, err.FAMILY),
        "bpref": (bpref.explain_bpref, bpref.FAMILY),
        "diversity": (diversity.explain_diversity, diversity.FAMILY),
    }
)
"""Each family: its explainer and the measures (registry names) it explains."""

BY_MEASURE: Mapping[str, str] = MappingProxyType(
    {name: family for family, (_, names) in FAMILIES.items() for name in names}
)
"""The family of each explainable measure."""

DEFAULT_MAX_ROWS = 20
"""Ranks always shown before only the ranks that add to the measure are."""


def explainable() -> tuple[str, ...]:
    """The names of the measures :func:`explain` can explain."""
    return tuple(BY_MEASURE)


def explain(
    qrels: QrelsLike,
    run: RunLike,
    query: str,
    measure: str | Measure,
    *,
    ties: TiePolicy = "trec_eval",
    queries: QueryPolicy = "qrels",
    depth: int | None = None,
    duplicates: DuplicatePolicy = "error",
    max_rows: int | None = DEFAULT_MAX_ROWS,
) -> Explanation:
    """The worked computation of ``measure`` on ``query``: every rank, its judgment, the
    family's terms and running sums, the ideal ranking, and the value with its formula.

    The ranking is the one :func:`ranklens.evaluate` scores (same tie policy, depth and
    query set), and :attr:`Explanation.value` equals its per-query value.

    Parameters
    ----------
    qrels, run
        As for :func:`ranklens.evaluate` (paths, dicts, :class:`~ranklens.Qrels`, ...).
    query
        The query id.
    measure
        One measure of an explainable family (:func:`explainable`): ``"nDCG@10"``,
        ``"AP(norm='ret')@5"``, ``"ERR(p=0.9)"``, ... or a trec_eval name (``"map"``).
    ties, queries, depth, duplicates
        As for :func:`ranklens.evaluate`.
    max_rows
        Show the first ``max_rows`` ranks, then only the ranks that add to the measure
        (a relevant document, a non-zero term) and the last; the others become
        :class:`~ranklens.presentation.explanation.model.Gap` entries. ``None`` shows every rank.

    Raises
    ------
    MeasureError
        For a measure outside the explainable families (the message lists them).
    OptionError
        For a query that is not evaluated, or an invalid option.

    Examples
    --------
    >>> ex = explain({"q1": {"a": 1, "b": 2}}, {"q1": {"a": 0.9, "b": 0.5}}, "q1", "nDCG")
    >>> ex.column("DCG@k"), round(ex.value, 4)
    ([1.0, 2.261859507142915], 0.8597)
    >>> print(ex.to_markdown().splitlines()[0])
    ### nDCG, query `q1`, run `run`
    """
    found = explain_measures(
        qrels,
        run,
        query,
        [measure],
        ties=ties,
        queries=queries,
        depth=depth,
        duplicates=duplicates,
        max_rows=max_rows,
    )
    if len(found) != 1:
        names = ", ".join(e.measure for e in found)
        raise MeasureError(f"'{measure}' stands for {len(found)} measures ({names}); name one")
    return found[0]


def explain_measures(
    qrels: QrelsLike,
    run: RunLike,
    query: str,
    measures: Iterable[str | Measure],
    *,
    ties: TiePolicy = "trec_eval",
    queries: QueryPolicy = "qrels",
    depth: int | None = None,
    duplicates: DuplicatePolicy = "error",
    max_rows: int | None = DEFAULT_MAX_ROWS,
) -> tuple[Explanation, ...]:
    """:func:`explain` for several measures (a trec_eval name like ``P.5,10`` stands for
    several), aligning the run with the qrels once.

    >>> [e.value for e in explain_measures({"q": {"a": 1}}, {"q": {"a": 1.0}}, "q", ["P.1,2"])]
    [1.0, 0.5]
    """
    from ranklens.evaluation.evaluator import Evaluator
    from ranklens.measures.language import parse_measures

    if not isinstance(query, str):
        raise OptionError(f"query must be a query id (a string), not {query!r}")
    if max_rows is not None and (
        isinstance(max_rows, bool) or not isinstance(max_rows, int) or max_rows < 0
    ):
        raise OptionError(f"max_rows must be a number of ranks >= 0 or None, not {max_rows!r}")
    parsed = parse_measures([measures] if isinstance(measures, str) else measures)
    from ranklens.evaluation.answers import reads_answers

    if reads_answers(parsed, qrels):  # generated answers (RAG)
        from ranklens.presentation.explanation.answers import explain_answers

        return explain_answers(qrels, run, query, parsed, queries=queries)
    for m in parsed:
        if m.spec.name not in BY_MEASURE:
            raise MeasureError(_unsupported(m))
    # the measures themselves: diversity measures read the qrels as subtopic qrels
    evaluator = Evaluator(
        qrels, parsed, ties=ties, queries=queries, depth=depth, duplicates=duplicates
    )
    aligned = evaluator.align(run)
    qrels_obj = evaluator.qrels
    index = _query_index(aligned.base.qids, query, qrels_obj, aligned.run, queries)
    judged = _judgments(qrels_obj, query)
    options = Options(ties, queries, depth)
    out: list[Explanation] = []
    for m in parsed:
        view = aligned.view(bool(m.params.get("judged_only", False)))
        start, stop = int(view.offsets[index]), int(view.offsets[index + 1])
        base_count = int(aligned.base.offsets[index + 1] - aligned.base.offsets[index])
        entries = view.entry[start:stop].tolist() if view.entry is not None else []
        data = QueryData(
            measure=m,
            query=query,
            run=aligned.run_name,
            view=view,
            index=index,
            docids=tuple(aligned.run.docid(e) for e in entries),
            scores=tuple(aligned.run.scores[entries].tolist()),
            judged=judged,
            options=options,
            removed=base_count - (stop - start),
        )
        family = BY_MEASURE[m.spec.name]
        explainer, _ = FAMILIES[family]
        out.append(assemble(data, family, explainer(data), max_rows))
    return tuple(out)


def _unsupported(m: Measure) -> str:
    families = "; ".join(f"{family}: {', '.join(names)}" for family, (_, names) in FAMILIES.items())
    return f"cannot explain {m.name}: explain covers the families {families}"


def _query_index(qids: tuple[str, ...], query: str, qrels: Qrels, run: Run, queries: str) -> int:
    """The index of ``query`` among the evaluated ``qids``, or an :class:`OptionError`
    saying why it is not evaluated."""
    if query in qids:
        return qids.index(query)
    qrels_ids, run_ids = set(qrels.qids), set(run.qids)
    qrels_name = qrels.source or "the qrels"
    run_name = run.source or "the run"
    if query in run_ids:
        raise OptionError(
            f"query '{query}' of {run_name} has no judgments in {qrels_name}, so it is not "
            f"evaluated (queries='{queries}'; queries='run' evaluates it without relevant "
            "documents)"
        )
    if query in qrels_ids:
        raise OptionError(
            f"query '{query}' is not in {run_name}, and queries='{queries}' evaluates only the "
            "queries in both (queries='qrels' scores it on an empty ranking)"
        )
    some = ", ".join(sorted(run_ids or qrels_ids)[:5])
    raise OptionError(
        f"query '{query}' is in neither {qrels_name} nor {run_name} (their queries include {some})"
    )


def _judgments(qrels: Qrels, query: str) -> dict[str, int]:
    """The query's qrels, ``{docid: label}`` (empty when the qrels do not have it)."""
    if query not in qrels.qids:
        return {}
    j = qrels.qids.index(query)
    a, b = int(qrels.q_offsets[j]), int(qrels.q_offsets[j + 1])
    labels = qrels.rels[a:b].tolist()
    return {qrels.docid(i): int(labels[i - a]) for i in range(a, b)}
