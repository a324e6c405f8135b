"""Awkward generated qrels and runs (as dicts) for the tests of ranklens.compat and of
user measures: tied scores (also ties only in float32), graded and negative labels,
unjudged documents, queries without relevant documents, empty rankings, queries only in
the run or only in the qrels, integer and float scores mixed.

Every query of the qrels has a judgment >= 0: pytrec_eval crashes (segfault) on a query
whose judgments are all negative.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def generated(seed: int) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, Any]]]:
    """Awkward qrels and run: see the module docstring."""
    rng = np.random.default_rng(seed)
    nq = int(rng.integers(1, 6))
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, Any]] = {}
    for i in range(nq + 2):
        qid = f"q{i}"
        docs = [f"d{j}" for j in range(int(rng.integers(0, 12)))]
        if i < nq:
            judged = {
                d: int(rng.choice([-1, 0, 0, 1, 1, 2, 3])) for d in docs if rng.random() < 0.7
            }
            if rng.random() < 0.2:  # no relevant document
                judged = {d: min(v, 0) for d, v in judged.items()}
            judged[f"j{i}"] = 0 if rng.random() < 0.5 else int(rng.integers(1, 3))
            qrels[qid] = judged
        if i >= 1 and rng.random() < 0.9:  # q0 is never in the run
            pool = docs + [f"u{j}" for j in range(int(rng.integers(0, 4)))]
            kind = int(rng.integers(0, 4))
            if kind == 0:  # ties
                run[qid] = {d: float(rng.integers(0, 3)) for d in pool}
            elif kind == 1:  # distinct as doubles, tied as 32-bit floats
                run[qid] = {d: 0.5 + float(rng.integers(0, 3)) * 1e-9 for d in pool}
            elif kind == 2:  # integer and float scores mixed
                run[qid] = {
                    d: int(rng.integers(-2, 3)) if rng.random() < 0.3 else float(rng.normal())
                    for d in pool
                }
            else:  # an empty ranking
                run[qid] = {}
    return qrels, run
