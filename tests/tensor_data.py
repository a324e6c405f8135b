"""Qrels and runs as padded (Q, N) arrays, for the tensor tests (a plain loop: test code)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ranklens.tensor import doc_id_codes


@dataclass
class Padded:
    qids: list[str]
    scores: np.ndarray
    labels: np.ndarray
    mask: np.ndarray
    doc_ids: np.ndarray
    n_rel: np.ndarray
    ideal_labels: np.ndarray


def padded(qrels: dict[str, dict[str, int]], run: dict[str, dict[str, float]]) -> Padded:
    """One row per qrels query (ranklens's default query set), the run's documents in the
    run's order; unjudged (absent or negatively judged) documents get label -1 inside the
    mask; ideal_labels lists every judged grade (>= 0) of the query."""
    qids = sorted(qrels, key=lambda q: q.encode())
    width = max([len(run.get(q, {})) for q in qids] + [1])
    depth = max([len(qrels[q]) for q in qids] + [1])
    everything = sorted({d for q in qids for d in run.get(q, {})})
    code = dict(zip(everything, doc_id_codes(everything).tolist(), strict=True))
    nq = len(qids)
    scores = np.zeros((nq, width))
    labels = np.full((nq, width), -1, dtype=np.int64)
    mask = np.zeros((nq, width), dtype=bool)
    ids = np.zeros((nq, width), dtype=np.int64)
    ideal = np.full((nq, depth), -1, dtype=np.int64)
    n_rel = np.zeros(nq, dtype=np.int64)
    for i, q in enumerate(qids):
        judged = {d: g for d, g in qrels[q].items() if g >= 0}
        grades = sorted(judged.values(), reverse=True)
        ideal[i, : len(grades)] = grades
        n_rel[i] = sum(g >= 1 for g in grades)
        for j, (d, s) in enumerate(run.get(q, {}).items()):
            scores[i, j] = s
            labels[i, j] = judged.get(d, -1)
            mask[i, j] = True
            ids[i, j] = code[d]
    return Padded(qids, scores, labels, mask, ids, n_rel, ideal)


def generated(seed: int, num_queries: int = 40) -> tuple[dict, dict]:
    """Qrels and a run with ties, graded and negative judgments, unjudged documents,
    queries without relevant documents and qrels queries missing from the run."""
    rng = np.random.default_rng(seed)
    names = [f"d{i}" for i in range(30)] + [f"D{i}x" for i in range(10)] + ["d1a", "e", "d"]
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(num_queries):
        qid = f"q{q}"
        pool = rng.permutation(names)
        judged = pool[: rng.integers(1, 25)]
        top = int(rng.integers(0, 4))  # 0: no relevant document at all
        qrels[qid] = {
            str(d): int(g)
            for d, g in zip(judged, rng.integers(-1, top + 1, len(judged)), strict=True)
        }
        if rng.random() < 0.1:
            continue  # missing from the run
        retrieved = rng.permutation(names)[: rng.integers(0, 30)]
        levels = rng.integers(1, 6)  # few distinct scores: many ties
        run[qid] = {str(d): float(rng.integers(0, levels)) / 2.0 for d in retrieved}
    return qrels, run
