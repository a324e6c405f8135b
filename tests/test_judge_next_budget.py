"""judge-next's budget at its edges: more than there is to judge, zero, negative."""

from __future__ import annotations

import pytest

from ranklens.analysis.judge_next import judge_next
from ranklens.base.errors import OptionError
from ranklens.cli import main

QRELS = {"q1": {"a": 1, "b": 0}, "q2": {"c": 1}}
RUN = {"q1": {"a": 3.0, "x": 2.0, "b": 1.0, "y": 0.5}, "q2": {"z": 2.0, "c": 1.0}}


def test_a_budget_above_the_unjudged_documents_lists_each_once() -> None:
    chosen = judge_next(QRELS, [RUN], ["P@2", "AP"], 1000)
    assert sorted((c.qid, c.docid) for c in chosen) == [("q1", "x"), ("q1", "y"), ("q2", "z")]
    assert [c.narrowing for c in chosen] == sorted((c.narrowing for c in chosen), reverse=True)


@pytest.mark.parametrize("budget", [0, -1])
def test_a_budget_below_one_is_refused(budget: int) -> None:
    with pytest.raises(OptionError, match="budget must be a positive"):
        judge_next(QRELS, [RUN], ["P@2"], budget)


@pytest.mark.parametrize("budget", ["0", "-3"])
def test_the_command_line_refuses_it_in_one_line(tmp_path, capsys, budget: str) -> None:  # type: ignore[no-untyped-def]
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"{q} 0 {d} {g}\n" for q, j in QRELS.items() for d, g in j.items()))
    run = tmp_path / "a.run"
    run.write_text(
        "".join(
            f"{q} Q0 {d} {i + 1} {s} a\n"
            for q, docs in RUN.items()
            for i, (d, s) in enumerate(docs.items())
        )
    )
    assert main(["judge-next", str(qrels), str(run), "--budget", budget]) == 2
    err = capsys.readouterr().err
    assert err.strip() == (
        f"ranklens: error: --budget must be a positive number of documents, not {budget}"
    )
    assert "Traceback" not in err
    assert main(["judge-next", str(qrels), str(run), "--budget", "50", "--quiet"]) == 0
    assert capsys.readouterr().out == "q1 x\nq1 y\nq2 z\n"
