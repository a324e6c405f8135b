"""Generated qrels and runs with every awkward case, for the scale backends' differential
tests (streaming, Dask, Spark against the in-memory evaluation)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

import ranklens

MEASURES = [
    "official",
    "nDCG@10",
    "nDCG",
    "ERR@10",
    "RBP(p=0.8)",
    "Judged@10",
    "AP(judged_only=True)",
    "P(rel=2)@5",
    "nDCG(dcg='exp-log2')@10",
    "SetF",
    "infAP",
    "Success@3",
    "MSE",
    "AP(norm='min')@5",
    "R@10",
    "RR(rel=2)",
]
MEASURES_FIXED = [m if m != "ERR@10" else "ERR(max_rel=3)@10" for m in MEASURES]
"""The same with ERR's ``g_max`` given (its default depends on the set of queries)."""
"""Many families: trec_eval's official set (sums, a geometric mean, interpolated
precision), graded, judged-only, cut-off and score-based measures."""


@dataclass(frozen=True)
class Case:
    """Qrels and run as ``(qid, docid, value)`` rows; the run grouped by query, in a
    shuffled query order, lines in a shuffled order within each query."""

    qrels: list[tuple[str, str, int]]
    run: list[tuple[str, str, float]]

    def qrels_text(self) -> str:
        return "".join(f"{q} 0 {d} {r}\n" for q, d, r in self.qrels)

    def run_text(self, tag: str = "tagged") -> str:
        return "".join(f"{q} Q0 {d} {i + 1} {s!r} {tag}\n" for i, (q, d, s) in enumerate(self.run))


def make_case(seed: int, n_queries: int = 40) -> Case:
    """Qrels and a run with ties, grades -1..3, unjudged documents, queries without
    relevant documents, queries only in the qrels and queries only in the run; query ids
    whose byte order differs from their numeric order, and non-ASCII ones."""
    rng = np.random.default_rng(seed)
    names = [str(i) for i in range(n_queries - 3)] + ["q\u00e9", "Q-1", "\u65e5\u672c"]
    roles = rng.choice(["both", "both", "both", "qrels", "run", "norel"], size=n_queries)
    qrels: list[tuple[str, str, int]] = []
    run_groups: list[list[tuple[str, str, float]]] = []
    for qid, role in zip(names, roles, strict=True):
        pool = [f"d{k}" for k in rng.permutation(60)[: int(rng.integers(1, 45))]]
        if role != "run":
            judged = pool[: int(rng.integers(1, len(pool) + 1))]
            for doc in judged:
                grade = 0 if role == "norel" else int(rng.choice([-1, 0, 0, 1, 2, 3]))
                qrels.append((qid, doc, grade))
        if role != "qrels":
            depth = int(rng.integers(1, 40))
            docs = pool + [f"u{k}" for k in range(depth)]
            chosen = [docs[k] for k in rng.permutation(len(docs))[:depth]]
            scores = np.round(rng.random(depth) * 4) / 4  # few distinct values: many ties
            run_groups.append([(qid, d, float(s)) for d, s in zip(chosen, scores, strict=True)])
    order = rng.permutation(len(run_groups))
    run = [row for k in order.tolist() for row in run_groups[k]]
    return Case(qrels, run)


def run_table(rows: list[tuple[str, str, float]], ranks: bool = False) -> Any:
    """The run rows as an Arrow table (string ids, float scores), with a ``rank`` column
    counting down when ``ranks``."""
    import pyarrow as pa

    columns: dict[str, Any] = {
        "query_id": pa.array([q for q, _, _ in rows], pa.string()),
        "doc_id": pa.array([d for _, d, _ in rows], pa.string()),
        "score": pa.array([s for _, _, s in rows], pa.float64()),
    }
    if ranks:
        columns["rank"] = pa.array(np.arange(len(rows), 0, -1), pa.int64())
    return pa.table(columns)


def repeated(case: Case, seed: int) -> list[tuple[str, str, float]]:
    """The run with some rows repeated (another score) right after their query's rows:
    still grouped, so ``duplicates=`` and the row order decide."""
    rng = np.random.default_rng(seed)
    rows = list(case.run)
    for k in sorted(rng.choice(len(rows), size=6, replace=False).tolist(), reverse=True):
        q, d, s = rows[k]
        end = k
        while end + 1 < len(rows) and rows[end + 1][0] == q:
            end += 1
        rows.insert(end + 1, (q, d, 1.0 - s))
    return rows


PATH_CASES = [
    (1, 37, {}),
    (2, 53, {"ties": "input", "queries": "both", "depth": 5}),
    (3, 41, {"queries": "run", "ties": "rank"}),
    (4, 60, {"duplicates": "first", "ties": "input"}),
    (5, 29, {"duplicates": "max", "queries": "run"}),
    (6, 1000, {"queries": "both"}),
]
"""(seed, row group size, options) of the Parquet-path differential tests: every
``queries=`` policy (ERR's default ``g_max`` under each), ties input and rank, duplicates
first and max, one row group or many."""


@dataclass(frozen=True)
class BrokenRuns:
    """Parquet runs of one case, each holding one error: a document repeated inside a row
    group and one repeated across two (``duplicated``), a dataset whose second file
    (``b.parquet``, its 5th row) has no score (``missing_score``), and a run whose 71st
    row has no query id (``missing_id``)."""

    duplicated: tuple[Any, Any]
    missing_score: Any
    missing_id: Any


def broken_runs(case: Case, folder: Any) -> BrokenRuns:
    """The :class:`BrokenRuns` of ``case``, written under ``folder`` (a ``Path``)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    inside = list(case.run)
    inside.insert(3, inside[2])
    first_q = case.run[0][0]
    span = sum(1 for q, _, _ in case.run if q == first_q)
    across = list(case.run)
    across.insert(span, across[0])  # the first query's last row repeats its first
    duplicated = []
    for rows, group in ((inside, 50), (across, max(span - 1, 1))):
        path = folder / f"dup-{group}.parquet"
        pq.write_table(run_table(rows), path, row_group_size=group)
        duplicated.append(path)
    parts = folder / "parts"
    parts.mkdir()
    pq.write_table(run_table(case.run[:30]), parts / "a.parquet", row_group_size=17)
    rest = run_table(case.run[30:])
    scores = rest.column("score").to_pylist()
    scores[4] = None
    pq.write_table(
        rest.set_column(2, "score", pa.array(scores, pa.float64())),
        parts / "b.parquet",
        row_group_size=40,
    )
    no_id = run_table(case.run)
    ids = no_id.column("query_id").to_pylist()
    ids[70] = None
    no_id_path = folder / "no-id.parquet"
    pq.write_table(no_id.set_column(0, "query_id", pa.array(ids, pa.string())), no_id_path, 50)
    return BrokenRuns((duplicated[0], duplicated[1]), parts, no_id_path)


def same(a: ranklens.Results, b: ranklens.Results) -> None:
    """The same queries, measures, values, means (NaN where NaN), counts and tie counts."""
    assert a.queries == b.queries
    assert a.names == b.names
    np.testing.assert_array_equal(a.values, b.values)
    for name in a.names:
        x, y = a.aggregate[name], b.aggregate[name]
        assert x == y or (math.isnan(x) and math.isnan(y)), name
    assert dict(a.query_counts) == dict(b.query_counts)
    assert a.tie_affected_queries == b.tie_affected_queries
