"""``ranklens trec-eval --v9`` equals pytrec_eval (trec_eval 9.0.8) per query, through the
front end, on generated cases with -l, -M, -J and -c, ties, graded and negative labels,
unjudged documents and queries missing on either side."""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import numpy as np
import pytest

from ranklens.frontends.trec_eval.runner import TrecOptions, compute_table
from strategies import random_cases, trec_ranking

pytrec_eval = pytest.importorskip("pytrec_eval")

N_CASES = 520
OPTION_GRID = list(itertools.product((1, 2), (False, True), (None, 3), (False, True)))


def write(case, path: Path) -> tuple[Path, Path]:
    qrels, run = path / "qrels", path / "run"
    qrels.write_text(
        "".join(f"{q} 0 {d} {r}\n" for q, docs in case.qrels.items() for d, r in docs.items())
    )
    run.write_text(
        "".join(
            f"{q} Q0 {d} 0 {s!r} sys\n" for q, docs in case.run.items() for d, s in docs.items()
        )
    )
    return qrels, run


def truncated(run: dict[str, dict[str, float]], depth: int | None) -> dict[str, dict[str, float]]:
    if depth is None:
        return run
    return {q: {d: docs[d] for d in trec_ranking(docs)[:depth]} for q, docs in run.items()}


@pytest.mark.parametrize("block", range(4))
def test_v9_front_end_equals_pytrec_eval(tmp_path: Path, block: int) -> None:
    supported = set(pytrec_eval.supported_measures)
    compared = 0
    cases = list(random_cases(9000 + block, N_CASES // 4))
    for i, case in enumerate(cases):
        level, judged_only, depth, complete = OPTION_GRID[(i + block) % len(OPTION_GRID)]
        qrels_path, run_path = write(case, tmp_path)
        opts = TrecOptions(
            measures=("all_trec",),
            per_query=True,
            complete=complete,
            level=level,
            depth=depth,
            judged_only=judged_only,
            v9=True,
        )
        slots, table = compute_table(qrels_path, run_path, opts)
        evaluator = pytrec_eval.RelevanceEvaluator(
            case.qrels,
            {s.name.split("_")[0] if s.name[0] == "P" else s.name for s in slots} & supported
            | {"P", "recall", "iprec_at_recall", "ndcg_cut", "map_cut", "success", "Rprec_mult"},
            relevance_level=level,
            judged_docs_only_flag=judged_only,
        )
        expected = evaluator.evaluate(truncated(case.run, depth))
        assert list(table.queries) == sorted(expected), case
        judged_queries = {q for q, docs in case.qrels.items() if docs}
        assert table.divisor == (len(judged_queries) if complete else len(expected))
        for slot in slots:
            if slot.name not in table.values or slot.kind != "measure":
                continue
            ours = table.values[slot.name]
            if slot.summary == "gm":  # trec_eval keeps ln(max(v, 1e-5)) per query
                # libm's log, as trec_eval (numpy 1.x's SIMD log can differ in the last bit)
                ours = np.array([math.log(v) for v in np.maximum(ours, 1e-5).tolist()])
            for j, qid in enumerate(table.queries):
                theirs = expected[qid].get(slot.name)
                if theirs is None:
                    continue
                if np.isnan(theirs) and judged_only:
                    continue  # 9.0.8's 0/0 on an empty judged-only ranking; ranklens gives 0
                assert ours[j] == theirs, (slot.name, qid, level, judged_only, depth, case)
                compared += 1
    assert compared > 10_000
