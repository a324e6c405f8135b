"""The worked computations stored in a report: for the queries a reader is most likely to
click, every explainable measure of every run."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ranklens.base.errors import MeasureError, OptionError
from ranklens.data.grouped import subset_entries
from ranklens.data.qrels import Qrels
from ranklens.data.run import Run
from ranklens.evaluation.results import Results


def chosen_queries(results: Sequence[Results], limit: int) -> list[str]:
    """The queries to explain: all when there are at most ``limit``, else the ``limit`` with
    the largest spread (max - min over the runs) of the first measure, ties by query id."""
    queries = list(results[0].queries)
    if len(queries) <= limit:
        return queries
    values = np.stack([r.values[:, 0] for r in results])
    spread = np.nan_to_num(values.max(axis=0) - values.min(axis=0), nan=0.0)
    order = np.lexsort((np.arange(len(queries)), -spread))[:limit]
    return sorted(queries[i] for i in order)


def restricted(run: Run, queries: Sequence[str]) -> Run:
    """``run`` with only the entries of ``queries`` (its query list is unchanged), so a
    worked computation aligns a few rankings rather than the whole run."""
    index = run.query_index()
    keep = [
        np.arange(run.q_offsets[index[q]], run.q_offsets[index[q] + 1], dtype=np.int64)
        for q in queries
        if q in index
    ]
    entries = np.sort(np.concatenate(keep)) if keep else np.zeros(0, dtype=np.int64)
    ranks = None if run.ranks is None else run.ranks[entries]
    columns = subset_entries(run, entries)
    return Run(**columns, scores=run.scores[entries], name=run.name, ranks=ranks)  # type: ignore[arg-type]


def explanations(
    qrels: Qrels,
    runs: Sequence[Run],
    measures: Sequence[str],
    queries: Sequence[str],
    options: dict[str, Any],
    digits: int,
) -> tuple[dict[str, list[dict[str, Any]]], list[str]]:
    """``{qid: [explanation dicts]}`` for ``queries``, and the measures that could not be
    explained (their family has no worked form)."""
    from ranklens.presentation.explanation import explain_measures, explainable

    families = set(explainable())
    usable: list[str] = []
    skipped: list[str] = []
    for m in measures:
        (usable if _family(m) in families else skipped).append(m)
    out: dict[str, list[dict[str, Any]]] = {}
    if not usable:
        return out, skipped
    small = [restricted(run, queries) for run in runs]
    for qid in queries:
        items: list[dict[str, Any]] = []
        for run in small:
            try:
                worked = explain_measures(qrels, run, qid, usable, **options)
            except (MeasureError, OptionError):
                continue
            items += [_as_payload(ex.to_dict(digits)) for ex in worked]
        out[qid] = items
    return out, skipped


def _family(measure: str) -> str:
    from ranklens.measures.language import parse_measure

    return parse_measure(measure).spec.name


def _as_payload(ex: dict[str, Any]) -> dict[str, Any]:
    """An explanation dict in the compact shape the report's script draws."""
    rows: list[dict[str, Any]] = []
    for row in ex["rows"]:
        if "gap" in row:
            first, last = row["gap"]
            text = f"rank {first} not shown" if first == last else f"ranks {first}-{last} not shown"
            rows.append({"gap": text})
        else:
            rows.append({"cells": [row["rank"], row["docid"], row["judgment"], *row["cells"]]})
    return {
        "run": ex["run"],
        "measure": ex["measure"],
        "value": ex["value"],
        "formula": ex["formula"],
        "columns": ex["columns"],
        "rows": rows,
        "result": ex["result"],
        "notes": ex["summary"],
    }
