"""Generated data for the tests of ``ranklens.compat.ranx`` against ranx itself.

Every generator mixes what differential tests must cover: graded labels (0-3), negative
labels, unjudged retrieved documents, queries without relevant documents, queries on one
side only, and queries without any document (``{}``) on either side.
"""

from __future__ import annotations

import numpy as np

METRICS = [
    "ndcg@10",
    "ndcg",
    "map@100",
    "map",
    "mrr",
    "mrr@5",
    "precision@5",
    "precision",
    "recall@10",
    "recall",
    "hits@10",
    "hit_rate@3",
    "hit_rate",
    "r-precision",
    "f1@10",
    "f1",
    "ndcg_burges@10",
    "dcg@5",
    "dcg_burges@5",
    "rbp.8",
    "rbp.95",
    "map@10-l2",
    "precision@5-l2",
    "recall@10-l3",
    "mrr-l2",
    "ndcg@10-l2",
    "ndcg_burges@5-l3",
    "dcg@10-l2",
]
"""ranx's metrics, with cut-offs and relevance levels (bpref apart: see the tests)."""


def make_data(
    seed: int,
    ties: bool = False,
    n_queries: int = 30,
    max_docs: int = 40,
    negative: bool = True,
    empty: bool = True,
) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]]:
    """Qrels and a run; scores distinct unless ``ties`` (then few distinct values).

    q4, q13, q22: not in the qrels; q5, q13, q21, q29: not in the run; q7, q14, q21, q28:
    no relevant document; with ``empty``, q2 and q11 have ``{}`` in the qrels and q3 and q12
    ``{}`` in the run.
    """
    rng = np.random.default_rng(seed)
    grades = [0, 0, 1, 2, 3] + ([-1] if negative else [])
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(n_queries):
        docs = [f"d{i}" for i in rng.choice(300, max_docs + 20, replace=False)]
        if q % 9 != 4:
            judged = docs[: int(rng.integers(1, 25))]
            qrels[f"q{q}"] = {d: int(rng.choice(grades)) for d in judged}
            if q % 7 == 0:
                qrels[f"q{q}"] = {d: 0 for d in judged}
            if empty and q % 9 == 2:
                qrels[f"q{q}"] = {}
        if q % 8 == 5:
            continue
        retrieved = rng.permutation(docs)[: int(rng.integers(2, max_docs))]
        if ties:
            scores = rng.integers(0, 4, len(retrieved)).astype(float)
        else:
            scores = rng.permutation(len(retrieved)) + rng.random()
        run[f"q{q}"] = {str(d): float(s) for d, s in zip(retrieved, scores, strict=True)}
        if empty and q % 9 == 3:
            run[f"q{q}"] = {}
    return qrels, run


def matched(
    qrels: dict[str, dict[str, int]], run: dict[str, dict[str, float]], sort: bool = True
) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]]:
    """The same data with the run's and the qrels' queries made equal (ranx's precondition
    without make_comparable), in sorted order or the qrels' order."""
    common = [q for q in qrels if q in run]
    if sort:
        common.sort()
    return {q: qrels[q] for q in common}, {q: run[q] for q in common}


def make_arrays(
    seed: int, n_queries: int = 12, repeats: bool = True
) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """ranx's array form: per query, qrels rows ``[doc_id, grade]`` sorted by decreasing grade
    (as ranx's own conversion sorts them) and run rows ``[doc_id, score]`` in ranked order.

    Grades 0-3 and -1, unjudged retrieved documents, a query without qrels rows and one
    without run rows; with ``repeats``, a qrels row repeated with its grade and an unjudged
    document retrieved twice (both counted as ranx counts them)."""
    rng = np.random.default_rng(seed)
    qrels, runs = [], []
    for q in range(n_queries):
        pool = rng.choice(np.arange(1, 60), size=30, replace=False).astype(np.float64)
        judged = pool[: int(rng.integers(1, 12))]
        grades = rng.choice([-1, 0, 0, 1, 1, 2, 3], size=len(judged))
        rows = np.column_stack([judged, grades]).astype(np.float64)
        if repeats and q % 4 == 1:
            rows = np.vstack([rows, rows[:1]])
        rows = rows[np.argsort(-rows[:, 1], kind="stable")]
        retrieved = rng.permutation(pool)[: int(rng.integers(1, 25))]
        if repeats and q % 5 == 2:
            unjudged = [d for d in retrieved if d not in set(judged.tolist())]
            if unjudged:
                retrieved = np.concatenate([retrieved, [unjudged[0]]])
        ranked = np.column_stack([retrieved, np.linspace(1.0, 0.0, len(retrieved))])
        if q == 3:
            rows = np.zeros((0, 2))
        if q == 6:
            ranked = np.zeros((0, 2))
        qrels.append(rows)
        runs.append(ranked)
    return qrels, runs
