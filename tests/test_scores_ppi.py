"""PPI from per-topic score files: ``ppi_from_scores`` and ``ranklens ppi --scores-a/-b``
give exactly ``ppi_mean``'s numbers when the scores are the run's own per-topic values."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ranklens
from ranklens.analysis.ppi import ppi_from_scores, ppi_mean
from ranklens.base.errors import InputError, OptionError
from ranklens.cli import main


def _case(seed: int) -> tuple[dict, dict, dict]:
    """Human judgments of a random sample of the queries, the LLM's of all, and a run: tied
    scores, graded and negative labels, unjudged documents, queries without relevant ones."""
    rng = np.random.default_rng(seed)
    queries = [f"q{i}" for i in range(int(rng.integers(6, 14)))]
    docs = [f"d{i}" for i in range(8)]
    llm: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in queries:
        judged = rng.choice(docs, size=int(rng.integers(1, 7)), replace=False)
        llm[q] = {str(d): int(rng.integers(-1, 4)) for d in judged}
        shown = {str(judged[0]), *map(str, rng.choice(docs, size=int(rng.integers(0, 7))))}
        run[q] = {d: float(rng.integers(0, 4)) for d in sorted(shown)}  # ties; one judged
    sample = rng.choice(queries, size=int(rng.integers(2, len(queries) - 1)), replace=False)
    human = {
        str(q): {d: max(-1, min(3, g + int(rng.integers(-1, 2)))) for d, g in llm[q].items()}
        for q in sample
    }
    return human, llm, run


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10_000), st.sampled_from(["AP", "nDCG@5", "P@3", "RR"]), st.booleans())
def test_scores_give_ppi_means_numbers(seed: int, measure: str, tuning: bool) -> None:
    human, llm, run = _case(seed)
    try:
        expected = ppi_mean(human, llm, run, measure, power_tuning=tuning)
    except InputError as exc:  # a refusal (no variance, one LLM-only query) is the same
        with pytest.raises(InputError, match=str(exc)[:40].replace("(", r"\(").replace(")", r"\)")):
            ppi_from_scores(
                ranklens.evaluate(human, run, [measure]),
                ranklens.evaluate(llm, run, [measure]),
                measure,
                power_tuning=tuning,
            )
        return
    got = ppi_from_scores(
        ranklens.evaluate(human, run, [measure]),
        ranklens.evaluate(llm, run, [measure]),
        measure,
        power_tuning=tuning,
    )
    assert got == expected


def test_the_command_reads_score_files_as_it_evaluates_runs(tmp_path: Path) -> None:
    human, llm, run = _case(7)
    paths = {}
    for name, qrels in (("human", human), ("llm", llm)):
        paths[name] = tmp_path / f"{name}.csv"
        ranklens.write_scores(ranklens.evaluate(qrels, run, ["AP", "nDCG@5"]), str(paths[name]))
        (tmp_path / f"{name}.qrels").write_text(
            "".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items())
        )
    (tmp_path / "r.run").write_text(
        "".join(
            f"{q} Q0 {d} {i + 1} {s} r\n"
            for q, docs in run.items()
            for i, (d, s) in enumerate(docs.items())
        )
    )
    common = ["-m", "AP,nDCG@5", "-f", "json", "--quiet"]
    files = [str(tmp_path / "human.qrels"), str(tmp_path / "llm.qrels"), str(tmp_path / "r.run")]
    out_runs = tmp_path / "from-runs.json"
    out_scores = tmp_path / "from-scores.json"
    assert main(["ppi", *files, *common, "-o", str(out_runs)]) == 0
    scores = ["--scores-a", str(paths["human"]), "--scores-b", str(paths["llm"])]
    assert main(["ppi", *scores, *common, "-o", str(out_scores)]) == 0
    assert json.loads(out_scores.read_text()) == json.loads(out_runs.read_text())
    assert main(["ppi", *files, *scores]) == 2  # one way or the other


def test_scores_must_be_results_and_cover_the_human_topics() -> None:
    human, llm, run = _case(3)
    by_human = ranklens.evaluate(human, run, ["AP"])
    with pytest.raises(OptionError, match="must be Results"):
        ppi_from_scores(by_human, {"q1": 0.5}, "AP")  # type: ignore[arg-type]
    partial = ranklens.evaluate({q: llm[q] for q in list(llm)[:1]}, run, ["AP"], queries="both")
    with pytest.raises(InputError, match="no LLM value"):
        ppi_from_scores(by_human, partial, "AP")
