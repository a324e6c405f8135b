"""Groups of queries (slices) compared alone: ``compare(..., groups=G)``.

``G`` is a ``{query_id: group}`` mapping or a two-column file
(:mod:`ranklens.data.query_groups`). Each group's comparison is :func:`ranklens.compare`'s
on the group's queries among those compared: the same test, correction (over the group's
own comparisons of each measure), intervals, effect sizes and draws as ``compare`` run on
those queries alone. A group with fewer than 2 of them gets its mean differences and
counts, and a note instead of p-values (:attr:`Comparison.notes`).

A query of ``G`` that no run (and no qrels) has is an error naming it (and, for a file,
its line): a group file of another collection, or ids spelled otherwise.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np

from ranklens.base.errors import InputError, OptionError
from ranklens.data.query_groups import as_query_groups
from ranklens.evaluation.results import Results
from ranklens.measures.base import is_run_level

if TYPE_CHECKING:
    from ranklens.analysis.comparison import Comparison

__all__ = ["group_comparisons", "restricted"]


def restricted(
    results: Results, queries: Sequence[str], index: Mapping[str, int] | None = None
) -> Results:
    """``results`` on ``queries`` only (each of them among its queries), in that order;
    ``index`` is ``{query: row}`` of ``results`` when already built."""
    if index is None:
        index = {q: i for i, q in enumerate(results.queries)}
    rows = np.fromiter((index[q] for q in queries), dtype=np.int64, count=len(queries))
    return replace(
        results,
        queries=tuple(queries),
        values=np.ascontiguousarray(results.values[rows]).reshape(len(queries), -1),
    )


def group_comparisons(
    whole: Comparison,
    groups: Any,
    compare_group: Callable[[Sequence[Results], str], Comparison],
) -> dict[str, Comparison]:
    """``{group: Comparison}`` of ``whole``'s queries in each group (module docstring);
    ``compare_group(results, name)`` compares the runs' results on one group's queries."""
    mapping, lines, path = as_query_groups(groups)
    run_level = [m.name for m in whole.results[0].measures if is_run_level(m)]
    if run_level:
        raise OptionError(
            f"{', '.join(run_level)}: computed over the whole run, not per query; compare "
            "these measures without groups"
        )
    # each run's rows indexed once, not once per group
    indexes = [{q: i for i, q in enumerate(r.queries)} for r in whole.results]
    for query in mapping:
        if not any(query in index for index in indexes):
            example = next(iter(whole.queries), None)
            hint = f" (they have ids like {example!r})" if example is not None else ""
            raise InputError(
                f"query {query!r} of the groups is in none of the runs{hint}; give groups "
                "of this collection's queries",
                path=path,
                line=lines.get(query),
            )
    order: dict[str, list[str]] = {}
    for group in mapping.values():
        order.setdefault(group, [])
    for query in whole.queries:
        if query in mapping:
            order[mapping[query]].append(query)
    out = {}
    for group, queries in order.items():
        part = [restricted(r, queries, i) for r, i in zip(whole.results, indexes, strict=True)]
        out[group] = compare_group(part, group)
    return out
