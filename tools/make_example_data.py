"""Regenerate the bundled example data in ``src/ranklens/data/``.

The qrels are the real TREC 2019 Deep Learning passage judgments (``../shared/data/qrels``).
The two runs are generated with a fixed seed: for every judged query, 100 documents mixing
judged passages (scores that grow with the grade) and unjudged ones, scores rounded to one
decimal so that ties occur. ``bm25`` is weaker than ``rerank``.

    python tools/make_example_data.py [PATH_TO_QRELS]
"""

from __future__ import annotations

import gzip
import shutil
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parents[1] / "src" / "ranklens" / "data"
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


def main() -> None:
    """Write the qrels and the two runs, gzip-compressed."""
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
    for name, signal, seed in (("bm25", 0.6, 19), ("rerank", 1.4, 20)):
        text = make_run(qrels, name, signal, seed)
        with gzip.GzipFile(OUT / f"dl19-{name}.run.gz", "wb", mtime=0) as dst:
            dst.write(text.encode())


if __name__ == "__main__":
    main()
