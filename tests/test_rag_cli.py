"""``ranklens rag``: scores runs of generated answers from files (or the bundled example),
compares them with a baseline, and writes the comparison or an HTML report; the numbers are
the Python API's."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest

import ranklens
from ranklens.cli import main
from ranklens.data.rag.example import write_example


def run(args: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(args)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return write_example(tmp_path_factory.mktemp("rag"))


def test_example_compares_the_bundled_runs() -> None:
    code, out, err = run(["rag", "--example", "-m", "NuggetAll,EM", "-f", "json", "--quiet"])
    assert code == 0 and err == ""
    payload = json.loads(out)
    assert [r["name"] for r in payload["runs"]] == ["baseline", "better", "terse"]
    assert payload["measures"] == ["NuggetAll", "EM"]


def test_files_give_the_numbers_of_the_python_api(files: dict[str, Path]) -> None:
    paths = [str(files[r]) for r in ("baseline", "better", "terse")]
    code, out, _ = run(
        [
            "rag",
            str(files["gold"]),
            *paths,
            "--assignments",
            str(files["assignments"]),
            "--support",
            str(files["support"]),
            "--nuggets",
            str(files["nuggets"]),
            "-m",
            "NuggetVitalStrict,SupportRecall,F1",
            "-f",
            "json",
            "--quiet",
        ]
    )
    assert code == 0
    payload = json.loads(out)
    judgments = ranklens.rag.judgments(
        gold=str(files["gold"]),
        assignments=str(files["assignments"]),
        support=str(files["support"]),
        nuggets=str(files["nuggets"]),
    )
    cmp = ranklens.compare(judgments, paths, ["NuggetVitalStrict", "SupportRecall", "F1"])
    assert payload["runs"] == json.loads(json.dumps(cmp.to_dict()))["runs"]


def test_default_measures_follow_the_judgments(files: dict[str, Path]) -> None:
    code, out, _ = run(["rag", str(files["gold"]), str(files["baseline"]), "-f", "json"])
    assert code == 0
    names = json.loads(out)["measures"]
    assert names == ["EM", "F1", "ROUGE-L", "CitedSentences", "AnswerWords"]


def test_assignment_files_are_runs_judged_in_their_own_file(
    files: dict[str, Path], tmp_path: Path
) -> None:
    records = [json.loads(x) for x in files["assignments"].read_text().splitlines()]
    paths = []
    for name in ("baseline", "better"):
        path = tmp_path / f"{name}.assign.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in records if r["run_id"] == name))
        paths.append(str(path))
    code, out, _ = run(["rag", *paths, "-m", "NuggetAll", "-f", "csv", "--quiet"])
    assert code == 0 and "better" in out
    expected = ranklens.rag.nugget_scores(paths[1]).aggregate["NuggetAll"]
    assert repr(round(expected, 4))[:5] in out or f"{expected}" in out


def test_one_run_per_topic_values(files: dict[str, Path]) -> None:
    code, out, _ = run(
        ["rag", str(files["gold"]), str(files["terse"]), "-m", "EM", "-q", "-f", "json"]
    )
    assert code == 0
    payload = json.loads(out)["runs"][0]
    assert payload["name"] == "terse" and len(payload["per_query"]) == 12


def test_html_report(files: dict[str, Path], tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    target = tmp_path / "report.html"
    paths = [str(files[r]) for r in ("baseline", "better")]
    code, _, _ = run(
        [
            "rag",
            str(files["assignments"]),
            *paths,
            "-f",
            "html",
            "-o",
            str(target),
            "-m",
            "NuggetAll,CitedSentences",
            "--quiet",
        ]
    )
    assert code == 0
    html = target.read_text()
    assert html.startswith("<!DOCTYPE html>") and "Summary and significance" in html
    assert "better · NuggetAll" in html and "<svg" in html
    assert '"explanations": {"q' in html and "weight x credit" in html  # worked computations


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["rag"], "give a judgments file and at least one run"),
        (["rag", "--example", "-f", "html"], "-f html writes one HTML file: give -o FILE"),
        (["rag", "--example", "-m", "nDCG@10"], "not measures of generated answers"),
        (["rag", "--example", "--gold", "a", "--gold", "b"], "--gold takes one file"),
    ],
)
def test_errors_are_one_line(args: list[str], message: str) -> None:
    code, _, err = run(args)
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1


def test_unknown_labels_refused_with_the_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    path.write_text(
        json.dumps(
            {
                "qid": "q1",
                "run_id": "r",
                "nuggets": [{"text": "x", "importance": "vital", "assignment": "maybe"}],
            }
        )
        + "\n"
    )
    other = tmp_path / "b.jsonl"
    other.write_text(
        json.dumps(
            {
                "qid": "q1",
                "run_id": "s",
                "nuggets": [{"text": "x", "importance": "vital", "assignment": "support"}],
            }
        )
        + "\n"
    )
    code, _, err = run(["rag", str(path), str(other), "-m", "NuggetVital", "--unknown", "error"])
    assert code == 2 and f"{path}:1:" in err and "'error'" in err


def test_eval_and_compare_take_answers_too(files: dict[str, Path]) -> None:
    code, out, _ = run(
        ["eval", str(files["gold"]), str(files["terse"]), "-m", "EM,F1", "-f", "json"]
    )
    assert code == 0
    payload = json.loads(out)["runs"][0]
    expected = ranklens.evaluate(str(files["gold"]), str(files["terse"]), ["EM", "F1"])
    assert payload["name"] == "terse" and payload["aggregate"]["EM"] == pytest.approx(
        expected["EM"], abs=1e-12
    )
    code, out, _ = run(
        [
            "compare",
            str(files["assignments"]),
            str(files["baseline"]),
            str(files["better"]),
            "-m",
            "NuggetAll",
            "-f",
            "json",
        ]
    )
    assert code == 0 and [r["name"] for r in json.loads(out)["runs"]] == ["baseline", "better"]


def test_one_assignment_file_holds_every_run(files: dict[str, Path]) -> None:
    code, out, _ = run(
        ["rag", str(files["assignments"]), "-m", "NuggetAll", "-f", "json", "--quiet"]
    )
    assert code == 0
    runs = json.loads(out)["runs"]
    assert [r["name"] for r in runs] == ["baseline", "better", "terse"]
    for r in runs:
        expected = ranklens.rag.nugget_scores(str(files["assignments"]), run=r["name"])
        assert r["mean"]["NuggetAll"] == pytest.approx(expected["NuggetAll"], abs=1e-12)


def test_eval_on_answers_says_which_topics_differ(tmp_path: Path) -> None:
    gold = tmp_path / "gold.jsonl"
    gold.write_text('{"qid": "q1", "answers": ["Paris"]}\n{"qid": "q2", "answers": ["4"]}\n')
    answers = tmp_path / "answers.jsonl"
    answers.write_text(
        json.dumps({"run_id": "r", "topic_id": "q1", "references": [], "answer": "Paris"})
        + "\n"
        + json.dumps({"run_id": "r", "topic_id": "q3", "references": [], "answer": "x"})
        + "\n"
    )
    for command in ("eval", "rag"):
        code, _, err = run([command, str(gold), str(answers), "-m", "EM"])
        assert code == 0
        assert "run 'r' answers 1 of the 2 judged topics" in err
        assert "1 topics of run 'r' have no judgments" in err
        code, _, err = run([command, str(gold), str(answers), "-m", "EM", "--quiet"])
        assert code == 0 and err == ""


@pytest.mark.parametrize(
    ("measure", "message"),
    [
        ("F1@10", "F1@10 is the F-measure of a ranking, not a measure of generated answers"),
        ("AP", "holds gold answers, judgments of generated answers, but AP is a measure of"),
    ],
)
def test_eval_of_ranking_measures_on_gold_answers_is_one_line(
    tmp_path: Path, measure: str, message: str
) -> None:
    gold = tmp_path / "gold.jsonl"
    gold.write_text('{"qid": "q1", "answers": ["Paris"]}\n')
    answers = tmp_path / "answers.jsonl"
    answers.write_text('{"qid": "q1", "answer": "Paris", "run_id": "r"}\n')
    code, _, err = run(["eval", str(gold), str(answers), "-m", measure])
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1


def test_rouge_without_nltk_is_one_line_naming_the_extra(
    files: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "nltk.stem.porter", None)
    code, _, err = run(["rag", str(files["gold"]), str(files["terse"]), "-m", "ROUGE-L"])
    assert code != 0 and len(err.strip().splitlines()) == 1
    assert 'pip install "ranklens[rag]"' in err and "Traceback" not in err


def test_assignment_files_as_runs_get_no_citation_measure_by_default(
    files: dict[str, Path],
) -> None:
    code, out, _ = run(["rag", str(files["assignments"]), "-f", "json", "--quiet"])
    assert code == 0
    assert "CitedSentences" not in json.loads(out)["measures"]
    code, _, err = run(["rag", str(files["assignments"]), "-m", "CitedSentences"])
    assert code == 2 and "reads the answers' citations" in err
