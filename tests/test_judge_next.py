"""ranklens judge-next: the unjudged documents whose judgments narrow the ranges most.

Each candidate's narrowing is recomputed here from its definition: ranklens.bounds on the
qrels with the document judged at every grade, the guaranteed (smallest) narrowing of the
summed widths of every run's ranges.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

import ranklens
from ranklens.analysis.judge_next import judge_next
from ranklens.base.errors import OptionError

pytestmark = pytest.mark.filterwarnings("ignore::ranklens.InputWarning")

MEASURES = ["P@3", "AP", "nDCG@4"]


def _data(seed: int) -> tuple[dict[str, dict[str, int]], list[dict[str, dict[str, float]]]]:
    rng = random.Random(seed)
    qrels: dict[str, dict[str, int]] = {}
    runs: list[dict[str, dict[str, float]]] = [{}, {}]
    for q in range(3):
        docs = [f"d{i}" for i in range(8)]
        qrels[f"q{q}"] = {d: rng.choice([-1, 0, 1, 2]) for d in docs if rng.random() < 0.4}
        qrels[f"q{q}"].setdefault("d0", 1)
        for run in runs:
            run[f"q{q}"] = {d: float(rng.randint(0, 4)) for d in rng.sample(docs, 5)}
    return qrels, runs


def _width(qrels, runs, qid: str) -> float:  # type: ignore[no-untyped-def]
    total = 0.0
    for run in runs:
        ranges = ranklens.bounds(qrels, run, MEASURES)
        i = ranges.queries.index(qid)
        total += float(np.sum(ranges.high[i] - ranges.low[i]))
    return total


@pytest.mark.parametrize("seed", range(3))
def test_narrowing_is_the_guaranteed_narrowing(seed: int) -> None:
    qrels, runs = _data(seed)
    chosen = judge_next(qrels, runs, MEASURES, 4)
    assert len(chosen) == 4
    assert [c.narrowing for c in chosen] == sorted((c.narrowing for c in chosen), reverse=True)
    top = max(g for docs in qrels.values() for g in docs.values())
    for c in chosen:
        assert c.docid not in qrels[c.qid]
        assert any(c.docid in run.get(c.qid, {}) for run in runs)
        before = _width(qrels, runs, c.qid)
        after = [
            _width({**qrels, c.qid: {**qrels[c.qid], c.docid: g}}, runs, c.qid)
            for g in range(top + 1)
        ]
        assert c.narrowing == pytest.approx(min(before - w for w in after), abs=1e-12)


def test_every_candidate_is_ranked_and_none_better_left_out() -> None:
    qrels, runs = _data(7)
    every = judge_next(qrels, runs, MEASURES, 1000)
    unjudged = {
        (q, d) for run in runs for q, docs in run.items() for d in docs if d not in qrels[q]
    }
    assert {(c.qid, c.docid) for c in every} == unjudged
    assert judge_next(qrels, runs, MEASURES, 3) == every[:3]


def test_depth_limits_the_candidates() -> None:
    qrels = {"q": {"r": 1}}
    run = {"q": {"x": 3.0, "r": 2.0, "y": 1.0}}
    assert [c.docid for c in judge_next(qrels, [run], ["P@1"], 5, depth=1)] == ["x"]
    chosen = judge_next(qrels, [run], ["P@1"], 5)
    assert [(c.docid, c.narrowing) for c in chosen] == [("x", 1.0), ("y", 0.0)]


def test_bad_options() -> None:
    with pytest.raises(OptionError, match="budget must be a positive"):
        judge_next({"q": {"a": 1}}, [{"q": {"a": 1.0}}], "P@1", -1)
    with pytest.raises(OptionError, match="depth must be a positive"):
        judge_next({"q": {"a": 1}}, [{"q": {"a": 1.0}}], "P@1", 1, depth=0)


def test_the_command_writes_a_pool_file(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    from ranklens.cli import main

    qrels, runs = _data(3)
    (tmp_path / "qrels.txt").write_text(
        "".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items())
    )
    paths = []
    for k, run in enumerate(runs):
        path = tmp_path / f"r{k}.run"
        path.write_text(
            "".join(
                f"{q} Q0 {d} {i + 1} {s} r{k}\n"
                for q, docs in run.items()
                for i, (d, s) in enumerate(docs.items())
            )
        )
        paths.append(str(path))
    out = tmp_path / "next.txt"
    args = ["judge-next", str(tmp_path / "qrels.txt"), *paths, "-m", " ".join(MEASURES)]
    assert main([*args, "--budget", "3", "-o", str(out), "--quiet"]) == 0
    expected = judge_next(str(tmp_path / "qrels.txt"), paths, MEASURES, 3)
    assert out.read_text() == "".join(
        f"{q} {d}\n" for q, d in sorted((c.qid, c.docid) for c in expected)
    )
    assert main([*args, "--budget", "3", "-o", str(out)]) == 2  # exists
    assert "exists" in capsys.readouterr().err
    assert main([*args, "--budget", "-2"]) == 2
    assert capsys.readouterr().err.strip() == (
        "ranklens: error: --budget must be a positive number of documents, not -2"
    )
