"""Which queries' values tied scores can decide.

Documents with equal scores have no order of their own: trec_eval ranks them by document
id descending (ranklens' default), other tools by input order or otherwise. A query's
value can then differ between tools when a group of tied documents mixes documents of
different gains (a relevant one tied with a non-relevant or unjudged one, or two grades)
and the group begins within the deepest cut-off evaluated: reordering the group moves a
relevant document up or down, or across the cut-off. :func:`tie_affected_queries` counts
those queries (see ``docs/conventions.md``): from where each query's first such group
begins, which :func:`ranklens.ranking.align.align` finds in the join's own pass over the
rankings (``Ranked.tie_starts``), else on the aligned arrays, without a loop over queries.
"""

from __future__ import annotations

import numpy as np

from ranklens.ranking.align import Ranked


def tie_affected_queries(ranked: Ranked, cutoff: int | None = None) -> int:
    """The number of queries with a group of equal scores that holds documents of
    different gains (grade ``max(rel, 0)``: unjudged and negative judgments count as 0)
    and begins at a rank ``<= cutoff`` (``None``: anywhere in the ranking).

    Parameters
    ----------
    ranked
        The aligned arrays (:meth:`ranklens.ranking.align.Aligned.view`), with the run's
        scores; 0 without them. Arrays from :func:`~ranklens.ranking.align.align` carry
        where each query's first such group begins (``tie_starts``, which also counts a
        group that a depth limit cuts); on other arrays the groups are found on the ranks
        they hold.
    cutoff
        The deepest rank that any measure evaluated reads (``None``: the whole ranking).

    Examples
    --------
    >>> from ranklens.data.qrels import Qrels
    >>> from ranklens.data.run import Run
    >>> from ranklens.ranking.align import PreparedQrels, align
    >>> qrels = Qrels.from_dict({"q1": {"a": 1}, "q2": {"c": 1}})
    >>> run = Run.from_dict({"q1": {"a": 0.5, "b": 0.5}, "q2": {"c": 0.9, "d": 0.5}})
    >>> tie_affected_queries(align(PreparedQrels.of(qrels), run).base)
    1
    """
    starts = ranked.tie_starts
    if starts is not None:  # found by the join (align); -1: no such group
        begun = starts >= 0 if cutoff is None else (starts >= 0) & (starts < cutoff)
        return int(np.count_nonzero(begun))
    scores = ranked.scores
    n = ranked.rel.shape[0]
    if scores is None or n < 2:
        return 0
    ids = ranked.ids
    tied = (scores[1:] == scores[:-1]) & (ids[1:] == ids[:-1])
    if not tied.any():
        return 0
    gain = np.maximum(ranked.rel, 0)
    mixed = np.flatnonzero(tied & (gain[1:] != gain[:-1]))  # pairs (i, i + 1)
    if mixed.shape[0] == 0:
        return 0
    if cutoff is not None:
        index = np.arange(n, dtype=np.int64)
        group_start = np.maximum.accumulate(np.where(np.append(True, ~tied), index, 0))
        first = group_start[mixed]
        mixed = mixed[first - ranked.offsets[ids[first]] < cutoff]
    queries = ids[mixed]
    if queries.shape[0] == 0:
        return 0
    return int(np.count_nonzero(queries[1:] != queries[:-1])) + 1
