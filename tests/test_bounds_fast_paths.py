"""ranklens.bounds' shortcuts on deep runs give the ranges of an exhaustive search: one
grade (nDCG's sorted assignments scored by formula), cut-off measures (the copies of a
query keep only its top k ranks) and queries with nothing to grade (their value kept).

Every assignment of grades to a query's unjudged retrieved documents is one pseudo-query
evaluated by ranklens.evaluate, on generated queries with binary and negative labels, tied
scores, queries without relevant documents and queries without unjudged documents.
"""

from __future__ import annotations

import itertools
import random

import pytest

import ranklens

pytestmark = pytest.mark.filterwarnings("ignore::ranklens.InputWarning")

MEASURES = [
    "nDCG",
    "nDCG@3",
    "nDCG(dcg='exp-log2')@2",
    "nDCG(judged_only=True)@3",
    "AP@3",
    "R@2",
    "P@3",
    "RR@2",
    "Success@2",
    "DCG@3",
    "CG@2",
    "Hits@3",
    "Bpref",
    "AP(judged_only=True)",
]


def _generate(seed: int) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]]:
    rng = random.Random(seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(rng.randint(2, 5)):
        qid = f"q{q}"
        docs = [f"d{i}" for i in range(rng.randint(2, 9))]
        retrieved = rng.sample(docs, rng.randint(1, len(docs)))
        unjudged = set(rng.sample(retrieved, min(len(retrieved), rng.randint(0, 5))))
        judged = {d: rng.choice([-1, 0, 0, 1]) for d in docs if d not in unjudged}
        qrels[qid] = judged or {"j": 1}
        run[qid] = {d: float(rng.choice([1, 2, 2, 3])) for d in retrieved}  # ties
    return qrels, run


def _exhaustive(qrels, run, measures, top):  # type: ignore[no-untyped-def]
    pseudo_qrels: dict[str, dict[str, int]] = {}
    pseudo_run: dict[str, dict[str, float]] = {}
    owner: dict[str, str] = {}
    for qid, judged in qrels.items():
        unjudged = sorted(d for d in run.get(qid, {}) if d not in judged)
        for k, grades in enumerate(itertools.product(range(top + 1), repeat=len(unjudged))):
            name = f"{qid}#{k}"
            owner[name] = qid
            pseudo_qrels[name] = {**judged, **dict(zip(unjudged, grades, strict=True))}
            pseudo_run[name] = run[qid]
    res = ranklens.evaluate(pseudo_qrels, pseudo_run, measures)
    out: dict[str, dict[str, tuple[float, float]]] = {}
    for m in measures:
        values = res.query_values(m)
        seen: dict[str, list[float]] = {}
        for name, qid in owner.items():
            seen.setdefault(qid, []).append(values[name])
        out[m] = {q: (min(v), max(v)) for q, v in seen.items()}
    return out


@pytest.mark.parametrize("seed", range(8))
def test_the_fast_paths_equal_an_exhaustive_search(seed: int) -> None:
    qrels, run = _generate(seed)
    names = [m.name for m in ranklens.parse_measures(MEASURES)]
    ranges = ranklens.bounds(qrels, run, names)
    assert ranges.max_grade == 1
    reference = _exhaustive(qrels, run, names, 1)
    for m in names:
        for qid, (low, _value, high) in ranges.query_values(m).items():
            assert (low, high) == pytest.approx(reference[m][qid], abs=1e-12), (m, qid)
