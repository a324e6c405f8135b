"""Regenerate the bundled example data in ``src/ranklens/data/example_files/``.

The qrels are the real TREC 2019 Deep Learning passage judgments (``../shared/data/qrels``).
The runs are generated with a fixed seed: for every judged query, 100 documents mixing
judged passages (scores that grow with the grade) and unjudged ones, scores rounded to one
decimal so that ties occur. ``bm25`` is weaker than ``dense``, which is weaker than
``rerank``; ``rerank-repro`` is a reproduction of ``rerank`` (its scores perturbed, so some
documents swap places). ``dl19-llm.qrels.gz`` stands for an LLM judge of the same pairs:
each human grade kept with probability 0.7, otherwise moved one grade (up twice as often as
down, as LLM judges lean lenient), within 0-3. The commands' ``--example`` use them
(``ranklens.data.examples``).

    python tools/make_example_data.py [PATH_TO_QRELS]
"""

from __future__ import annotations

import gzip
import shutil
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parents[1] / "src" / "ranklens" / "data" / "example_files"
DEFAULT_QRELS = Path(__file__).resolve().parents[2] / "shared/data/qrels/qrels.dl19-passage.txt"


def make_run(qrels: dict[str, dict[str, int]], name: str, signal: float, seed: int) -> str:
    """A run of 100 documents per query; larger ``signal`` ranks relevant passages higher."""
    rng = np.random.default_rng(seed)
    lines = []
    for qid in sorted(qrels):
        judged = list(qrels[qid].items())
        take = rng.choice(len(judged), size=min(60, len(judged)), replace=False)
        docs = [judged[i][0] for i in take]
        grades = np.array([judged[i][1] for i in take], dtype=float)
        unjudged = [str(d) for d in rng.integers(9_000_000, 9_999_999, size=100 - len(docs))]
        docs += unjudged
        grades = np.concatenate([grades, np.full(len(unjudged), 0.5)])
        scores = np.round(signal * grades + rng.normal(0.0, 1.0, size=len(docs)) + 10.0, 1)
        order = np.argsort(-scores, kind="stable")
        for rank, i in enumerate(order, start=1):
            lines.append(f"{qid} Q0 {docs[i]} {rank} {scores[i]:.1f} {name}\n")
    return "".join(lines)


def make_llm_qrels(qrels: dict[str, dict[str, int]], seed: int) -> str:
    """The qrels as a lenient, noisy judge would grade them (same pairs, same order)."""
    rng = np.random.default_rng(seed)
    lines = []
    for qid in sorted(qrels):
        for docid, grade in qrels[qid].items():
            if rng.random() >= 0.7:
                grade = min(3, grade + 1) if rng.random() < 2 / 3 else max(0, grade - 1)
            lines.append(f"{qid} 0 {docid} {grade}\n")
    return "".join(lines)


def make_reproduction(run: str, name: str, seed: int) -> str:
    """``run`` with its scores perturbed (noise of 0.3) and re-ranked: a reproduction."""
    rng = np.random.default_rng(seed)
    by_query: dict[str, list[tuple[str, float]]] = defaultdict(list)
    for line in run.splitlines():
        qid, _, docid, _, score, _ = line.split()
        by_query[qid].append((docid, float(score)))
    lines = []
    for qid, pairs in by_query.items():
        scores = np.round(np.array([s for _, s in pairs]) + rng.normal(0.0, 0.3, len(pairs)), 1)
        order = np.argsort(-scores, kind="stable")
        for rank, i in enumerate(order, start=1):
            lines.append(f"{qid} Q0 {pairs[i][0]} {rank} {scores[i]:.1f} {name}\n")
    return "".join(lines)


def _write_gz(name: str, text: str) -> None:
    with gzip.GzipFile(OUT / name, "wb", mtime=0) as dst:
        dst.write(text.encode())


def main() -> None:
    """Write the qrels, the LLM qrels and the runs, gzip-compressed."""
    source = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_QRELS
    qrels: dict[str, dict[str, int]] = defaultdict(dict)
    for line in source.read_text().splitlines():
        qid, _, docid, rel = line.split()
        qrels[qid][docid] = int(rel)
    OUT.mkdir(parents=True, exist_ok=True)
    with (
        open(source, "rb") as src,
        gzip.GzipFile(OUT / "dl19-passage.qrels.gz", "wb", mtime=0) as dst,
    ):
        shutil.copyfileobj(src, dst)
    runs = {}
    for name, signal, seed in (("bm25", 0.6, 19), ("rerank", 1.4, 20), ("dense", 1.0, 21)):
        runs[name] = make_run(qrels, name, signal, seed)
        _write_gz(f"dl19-{name}.run.gz", runs[name])
    _write_gz("dl19-rerank-repro.run.gz", make_reproduction(runs["rerank"], "rerank-repro", 22))
    _write_gz("dl19-llm.qrels.gz", make_llm_qrels(qrels, 23))


if __name__ == "__main__":
    main()
