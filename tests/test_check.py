"""``ranklens check``: every defect of a run file or a TREC RAG answer file, at the line of
the file where it is; clean files report nothing; exit 0/1/2; and the check agrees with
the strict readers (what they refuse has a defect, a file without defects reads)."""

from __future__ import annotations

import bz2
import gzip
import json
import warnings
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ranklens
from ranklens.base.errors import InputError, RanklensError
from ranklens.data.rag.answers import read_rag_runs
from ranklens.workflow.findings import WARNINGS_PER_KIND
from workflow_support import run_cli

DATA = Path(__file__).parent / "data"
ANSWERS = DATA / "rag" / "baseline_rag24.answers.jsonl.gz"

CLEAN_RUN = (
    "# a comment line\n"
    "q1 Q0 d1 1 3.5 sys\n"
    "q1 Q0 d2 2 2.0 sys\n"
    "\n"
    "q1 Q0 d3 3 -1e-3 sys\n"
    "q2 Q0 d1 1 7 sys\n"
    "q2 Q0 d9 2 +6.5E-1 sys\n"
)
CLEAN_QRELS = "q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 2\nq2 0 d1 1\nq2 0 d9 0\n"


def write(tmp_path: Path, name: str, text: str | bytes) -> Path:
    path = tmp_path / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8", newline="")
    return path


def defects(path: Path, **options: Any) -> list[tuple[int, str]]:
    return [(f.line, f.message) for f in ranklens.check(path, **options).defects]


# ------------------------------------------------------------------------------------ runs


def test_a_clean_run_reports_nothing(tmp_path: Path) -> None:
    run = write(tmp_path, "clean.run", CLEAN_RUN)
    qrels = write(tmp_path, "qrels.txt", CLEAN_QRELS)
    found = ranklens.check(run, qrels=qrels, depth=3)
    assert list(found) == [] and found.ok
    code, out, err = run_cli(["check", str(run), "--qrels", str(qrels)])
    assert (code, out) == (0, "")
    assert err == f"ranklens: {run}: 0 defects, 0 warnings\n"


@pytest.mark.parametrize(
    "bad_line, expected",
    [
        ("q1 Q0 d7 4 -5.0", "expected 6 columns (qid Q0 docid rank score tag), found 5"),
        ("q1 Q0 d7 4 -5.0 sys more", "expected 6 columns (qid Q0 docid rank score tag), found 7"),
        ("q1 Q0 d7 4 high sys", "score 'high' is not a number"),
        ("q1 Q0 d7 4 nan sys", "score 'nan' is not finite (NaN or infinity)"),
        ("q1 Q0 d7 4 -inf sys", "score '-inf' is not finite (NaN or infinity)"),
        ("q1 Q0 d7 4 1e999 sys", "score '1e999' is not finite (NaN or infinity)"),
        ("q1 Q0 d7 4.5 1.0 sys", "rank '4.5' is not an integer"),
        ("q1 Q0 d7 four 1.0 sys", "rank 'four' is not an integer"),
        (
            "q1 Q0 d2 4 -5.0 sys",
            "query 'q1' retrieves document 'd2' again (first at line 3); keep one line per "
            "(query, document)",
        ),
        (
            "q1 Q0 d7 4 -5.0 other",
            "a second run tag 'other' (line 2 has 'sys'): a run file holds one run; split it "
            "by tag",
        ),
    ],
)
def test_each_defect_is_reported_at_its_line(tmp_path: Path, bad_line: str, expected: str) -> None:
    lines = CLEAN_RUN.splitlines()
    lines.insert(5, bad_line)  # the file's line 6 (after the blank line 4)
    path = write(tmp_path, "bad.run", "\n".join(lines) + "\n")
    assert defects(path) == [(6, expected)]
    code, out, _ = run_cli(["check", str(path), "--quiet"])
    assert code == 1
    assert out == f"{path}:6: {expected}\n"


def test_every_defect_is_reported_not_the_first(tmp_path: Path) -> None:
    text = (
        "q1 Q0 d1 1 1.0 a\n"  # 1
        "q1 Q0 d2 2 x a\n"  # 2: score
        "q1 Q0 d3\n"  # 3: columns
        "q1 Q0 d1 3 0.5 a\n"  # 4: repeated pair
        "q2 Q0 d1 one 0.5 b\n"  # 5: rank and a second tag
        "q2 Q0 d2 2 0.4 a\n"
        "q2 Q0 d3 3 0.3 a\n"  # 7: beyond depth 2
        "q2 Q0 d4 4 0.2 c\n"  # 8: a third tag
    )
    path = write(tmp_path, "many.run", text)
    assert [line for line, _ in defects(path, depth=2)] == [2, 3, 4, 5, 5, 7, 8]
    messages = dict(defects(path, depth=2))
    assert messages[7] == (
        "query 'q2' has 4 documents, more than the depth 2 (this is its first one beyond it)"
    )
    assert messages[8].startswith("a second run tag 'c'")


def test_line_numbers_count_comments_blank_lines_crlf_and_a_bom(tmp_path: Path) -> None:
    text = "\ufeff# header\r\n\r\nq1 Q0 d1 1 1.0 s\r\n\r\n# note\r\nq1 Q0 d2 2 oops s\r\n"
    path = write(tmp_path, "crlf.run", text.encode("utf-8"))
    assert defects(path) == [(6, "score 'oops' is not a number")]


def test_compressed_runs_are_checked_line_by_line(tmp_path: Path) -> None:
    body = CLEAN_RUN + "q3 Q0 d1 1 bad sys\n"
    for name, packed in (
        ("r.gz", gzip.compress(body.encode())),
        ("r.bz2", bz2.compress(body.encode())),
    ):
        assert defects(write(tmp_path, name, packed)) == [(8, "score 'bad' is not a number")]


def test_an_empty_file_and_a_file_of_comments_are_defects(tmp_path: Path) -> None:
    expected = "holds no run lines (the file is empty, or has only blank and '#' lines)"
    assert defects(write(tmp_path, "empty.run", "")) == [(1, expected)]
    assert defects(write(tmp_path, "comments.run", "# only\n\n# comments\n")) == [(1, expected)]
    # a file of bad lines is not empty: its lines are the defects
    assert defects(write(tmp_path, "bad.run", "q1 Q0 d1\n")) == [
        (1, "expected 6 columns (qid Q0 docid rank score tag), found 3")
    ]


def test_invalid_utf8_and_a_lone_carriage_return(tmp_path: Path) -> None:
    path = write(
        tmp_path, "bytes.run", b"q1 Q0 d1 1 1.0 s\nq1 Q0 d\xff 2 0.5 s\nq1 Q0 d3 3 0.4 s\rq1\n"
    )
    found = defects(path)
    assert (2, "the document id is not valid UTF-8 text") in found
    assert any(line == 3 and "carriage return" in message for line, message in found)


def test_warnings_ties_ranks_queries_and_unjudged(tmp_path: Path) -> None:
    text = (
        "q1 Q0 d1 1 2.0 s\n"
        "q1 Q0 d2 2 2.0 s\n"  # 2: tie with line 1
        "q2 Q0 d1 1 1.0 s\n"
        "q2 Q0 d2 2 5.0 s\n"  # 4: rank 2 scores higher than rank 1
        "q3 Q0 d1 1 1.0 s\n"  # 5: q3 not in the qrels
        "q2 Q0 d8 3 0.5 s\n"  # 6: never judged
    )
    run = write(tmp_path, "warn.run", text)
    qrels = write(tmp_path, "qrels.txt", "q1 0 d1 1\nq1 0 d2 0\nq2 0 d1 1\nq2 0 d2 1\n")
    found = ranklens.check(run, qrels=qrels)
    assert found.ok and not found.defects
    lines = {f.line: f.message for f in found.warnings}
    assert sorted(lines) == [1, 4, 5, 6]
    assert lines[1].startswith("query 'q1': 2 documents tie at score 2.0")
    assert lines[4].startswith(
        "query 'q2': rank 2 (line 4) has a higher score than rank 1 (line 3)"
    )
    assert lines[5].startswith("query 'q3' is not in the qrels")
    assert lines[6].startswith(
        "1 of the 5 documents retrieved for the judged queries (20.0%) were never judged"
    )
    code, out, _ = run_cli(["check", str(run), "--qrels", str(qrels), "--quiet"])
    assert code == 0 and out.splitlines()[0] == f"{run}:1: warning: {lines[1]}"


def test_a_rank_given_twice_is_a_warning(tmp_path: Path) -> None:
    found = ranklens.check(write(tmp_path, "r.run", "q1 Q0 a 1 3 s\nq1 Q0 b 1 2 s\n"))
    assert found.ok
    assert [(f.line, f.message) for f in found] == [
        (
            2,
            "query 'q1': rank 1 is given to more than one document (lines 1 and 2); "
            "documents are ranked by score, not by the rank column",
        )
    ]


def test_many_warnings_of_a_kind_are_summed_up(tmp_path: Path) -> None:
    queries = WARNINGS_PER_KIND + 5
    text = "".join(f"q{i} Q0 a 1 1.0 s\nq{i} Q0 b 2 1.0 s\n" for i in range(queries))
    found = ranklens.check(write(tmp_path, "ties.run", text))
    assert len(found.warnings) == WARNINGS_PER_KIND + 1
    last = found.warnings[-1]
    assert last.line == 2 * WARNINGS_PER_KIND + 1
    assert last.message == "... and 5 more queries with tied scores (from here on)"


def test_an_unclosed_metadata_header_is_a_warning(tmp_path: Path) -> None:
    text = "# ir_metadata.start\n# tag: x\nq1 Q0 d1 1 1.0 s\n"
    found = ranklens.check(write(tmp_path, "meta.run", text))
    assert found.ok
    assert [(f.line, f.severity) for f in found] == [(1, "warning")]
    assert "ir_metadata.end" in found.warnings[0].message


def test_json_output_holds_every_finding(tmp_path: Path) -> None:
    path = write(tmp_path, "bad.run", "q1 Q0 d1 1 x s\nq1 Q0 d2 2 1 s\n")
    code, out, _ = run_cli(["check", str(path), "-f", "json", "--quiet"])
    assert code == 1
    data = json.loads(out)
    assert data["defects"] == 1 and data["warnings"] == 0
    assert data["findings"] == [
        {"file": str(path), "line": 1, "severity": "defect", "message": "score 'x' is not a number"}
    ]


@pytest.mark.parametrize(
    "name, content, expected",
    [
        ("missing.run", None, "no such file"),
        ("folder", "DIR", "is a directory"),
        ("broken.gz", gzip.compress(CLEAN_RUN.encode(), mtime=0)[:-9], "is not a valid gzip file"),
        ("binary.run", b"q1 Q0 d1 1 1.0 s\n\x00\x01\x02garbage", "contains a NUL byte"),
        ("run.zip", b"PK\x03\x04" + b"\x14" * 30, "is a zip archive"),
    ],
)
def test_a_file_that_cannot_be_read_exits_2(
    tmp_path: Path, name: str, content: bytes | str | None, expected: str
) -> None:
    path = tmp_path / name
    if content == "DIR":
        path.mkdir()
    elif isinstance(content, bytes):
        path.write_bytes(content)
    with pytest.raises(InputError):
        ranklens.check(path)
    code, out, err = run_cli(["check", str(path)])
    assert code == 2 and out == ""
    assert err.startswith(f"ranklens: error: {path}") and expected in err
    assert len(err.strip().splitlines()) == 1


def test_the_example_and_wrong_options() -> None:
    code, out, err = run_cli(["check", "--example"])
    assert code == 0 and "0 defects" in err and "warning: " in out
    assert run_cli(["check", "x.jsonl", "--rag", "--depth", "3"])[0] == 2


# ---------------------------------------------------------------------------- RAG answers


def answer(topic: str, **changes: Any) -> dict[str, Any]:
    record: dict[str, Any] = {
        "run_id": "rag-sys",
        "topic_id": topic,
        "topic": f"question {topic}?",
        "references": ["seg-a", "seg-b", "seg-c"],
        "response_length": 7,
        "answer": [
            {"text": "The first sentence here.", "citations": [0, 2]},
            {"text": "A second one.", "citations": [1]},
        ],
    }
    record.update(changes)
    return {k: v for k, v in record.items() if v is not None}


def jsonl(records: list[Any]) -> str:
    return "".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records)


def test_clean_answers_report_nothing(tmp_path: Path) -> None:
    path = write(tmp_path, "answers.jsonl", jsonl([answer("t1"), answer("t2"), answer("t3")]))
    assert list(ranklens.check(path, rag=True)) == []
    assert run_cli(["check", str(path), "--rag"])[:2] == (0, "")
    assert len(read_rag_runs(path)[0].answers) == 3


LONG = " ".join(["word"] * 401)


@pytest.mark.parametrize(
    "bad, expected",
    [
        (
            '{"run_id": "rag-sys", "topic_id": ',
            "is not a JSON object (Expecting value at column 35)",
        ),
        ('["a list"]', "holds a JSON list, not an object"),
        (answer("t9", run_id=None), "missing field 'run_id'"),
        (answer("t9", topic_id=None), "missing field 'topic_id'"),
        (
            answer("t9", references=None),
            "topic 't9': missing field 'references' (the segments the answer used)",
        ),
        (
            answer("t9", answer=None),
            "topic 't9': missing field 'answer' (a list of {text, citations})",
        ),
        (
            answer("t9", answer=[{"text": "x"}]),
            "topic 't9': sentence 1: missing field 'citations' (may be [])",
        ),
        (answer("t9", answer=[{"citations": []}]), "topic 't9': sentence 1: missing field 'text'"),
        (
            answer("t9", answer=[{"text": "x", "citations": [0, 3]}]),
            "topic 't9': sentence 1 cites 3, outside its 3 references (indices 0-2)",
        ),
        (
            answer("t9", answer=[{"text": "x", "citations": [-1]}]),
            "topic 't9': sentence 1 cites -1, outside its 3 references (indices 0-2)",
        ),
        (
            answer("t9", answer=[{"text": LONG, "citations": []}]),
            "topic 't9': the answer has 401 words, over the limit of 400",
        ),
        (
            answer("t1"),
            "run 'rag-sys' answers topic 't1' again (first at line 1); give one answer per topic",
        ),
        (
            answer("t9", response_length="7"),
            "topic 't9': 'response_length' must be an integer, not '7'",
        ),
    ],
)
def test_each_answer_defect_is_reported_at_its_line(
    tmp_path: Path, bad: Any, expected: str
) -> None:
    records = [answer("t1"), answer("t2"), "", bad, answer("t3")]
    path = write(tmp_path, "bad.jsonl", jsonl(records))
    assert defects(path, rag=True) == [(4, expected)]
    code, out, _ = run_cli(["check", str(path), "--rag", "--quiet"])
    assert (code, out) == (1, f"{path}:4: {expected}\n")


def test_the_2025_layout(tmp_path: Path) -> None:
    record = {
        "metadata": {"team_id": "team", "run_id": "r25", "narrative_id": "n1"},
        "references": ["s1", "s2"],
        "responses": [{"text": "An answer.", "citations": ["s2", 0]}],
    }
    missing = {**record, "metadata": {"narrative_id": "n2"}}
    dangling = {
        **record,
        "metadata": {"run_id": "r25", "topic_id": "n3"},
        "responses": [{"text": "x", "citations": ["s9"]}],
    }
    path = write(tmp_path, "a25.jsonl", jsonl([record, missing, dangling]))
    assert defects(path, rag=True) == [
        (2, "missing field 'metadata.run_id'"),
        (3, "topic 'n3': sentence 1 cites 's9', which is not in its references"),
    ]


def test_a_json_array_is_not_json_lines(tmp_path: Path) -> None:
    path = write(tmp_path, "a.json", "\n[\n" + json.dumps(answer("t1")) + "\n]\n")
    assert defects(path, rag=True) == [
        (
            2,
            "the file is one JSON array: a TREC RAG answer file holds one JSON object per "
            "line (JSON lines)",
        )
    ]


def test_the_word_limit_is_an_option(tmp_path: Path) -> None:
    path = write(tmp_path, "a.jsonl", jsonl([answer("t1")]))  # 7 words
    assert defects(path, rag=True, max_words=6) == [
        (1, "topic 't1': the answer has 7 words, over the limit of 6")
    ]
    assert run_cli(["check", str(path), "--rag", "--max-words", "7"])[0] == 0


def test_several_defects_of_one_answer_are_all_reported(tmp_path: Path) -> None:
    bad = answer("t1", run_id=None, references=["s"], answer=[{"text": "x", "citations": [1, 2]}])
    found = defects(write(tmp_path, "a.jsonl", jsonl([bad])), rag=True)
    assert [line for line, _ in found] == [1, 1, 1]
    assert "missing field 'run_id'" in found[0][1] and "cites 2" in found[2][1]


def test_the_bundled_answers_have_ten_answers_over_the_limit() -> None:
    found = ranklens.check(ANSWERS, rag=True)
    assert len(found.defects) == 10 and not found.warnings
    runs = read_rag_runs(ANSWERS)
    lengths = {a.line: len(a.text.split()) for a in runs[0].answers}
    assert {f.line for f in found.defects} == {line for line, n in lengths.items() if n > 400}


# --------------------------------------------------------- agreement with the strict readers

RUN_LINES = st.sampled_from(
    [
        "q1 Q0 d1 1 1.5 s",
        "q1 Q0 d2 2 1.0 s",
        "q2 Q0 d1 1 -2 s",
        "q2 Q0 d3 2 3e2 s",
        "# comment",
        "",
        "q1 Q0 d1 3 0.1 s",  # repeats q1 d1
        "q1 Q0 d4 4 nan s",
        "q1 Q0 d5 5 x s",
        "q1 Q0 d6 6 1.0",
        "q1 Q0 d7 7 1.0 s extra",
        "q1 Q0 d8 eight 1.0 s",
        "q2 Q0 d9 1 1.0 t",
        "q1 d10 1.0",
        "q3 Q0 d\udcff 1 1.0 s",  # invalid UTF-8 once encoded with surrogateescape
        "q3 Q0 d11 1 1.0 s\r",
        "q3 Q0 d12 1\r1.0 s",
    ]
)


def _strict_run(path: Path) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ranklens.Run.from_file(str(path))
    except RanklensError:
        return False
    return True


def _checked(path: Path, **options: Any) -> bool | None:
    """True: no defect; False: a defect; None: the file cannot be read."""
    try:
        return ranklens.check(path, **options).ok
    except InputError:
        return None


AGREEMENT = settings(
    max_examples=150,
    deadline=None,
    derandomize=True,
    suppress_health_check=list(HealthCheck),
    database=None,
)
"""Generated files, the same ones on every run."""


FIELD = st.text(alphabet="q1d2 .\teE+-#x\r\x00\x0b\udcff", max_size=6)
"""A damaged field: digits, signs, exponents, comment marks, whitespace, NUL, invalid UTF-8."""
DAMAGED_LINES = st.lists(FIELD, min_size=0, max_size=8).map(" ".join)


@AGREEMENT
@given(lines=st.lists(RUN_LINES | DAMAGED_LINES, max_size=8), compress=st.booleans())
def test_check_agrees_with_the_strict_run_reader(
    tmp_path_factory: pytest.TempPathFactory, lines: list[str], compress: bool
) -> None:
    data = "\n".join(lines).encode("utf-8", "surrogateescape")
    path = tmp_path_factory.mktemp("agree") / "run.txt"
    path.write_bytes(gzip.compress(data) if compress else data)
    # no defect: the reader reads it (the check may be stricter: six columns, integer
    # ranks, one tag); refused by the reader: a defect, or the file cannot be read
    assert _checked(path) is not True or _strict_run(path), lines


ANSWER_RECORDS = st.sampled_from(
    [
        json.dumps(answer("t1")),
        json.dumps(answer("t2")),
        json.dumps(answer("t1")),  # a topic twice
        json.dumps(answer("t3", answer="a plain string")),
        json.dumps(answer("t4", answer=[{"text": 5, "citations": []}])),
        json.dumps(answer("t5", answer=[{"text": "x", "citations": [True]}])),
        json.dumps(answer("t6", references="seg")),
        json.dumps(answer("t7", topic_id=None)),
        json.dumps(answer("t8", topic_id="")),
        json.dumps(answer("t9", answer=[{"text": "x", "citations": "0"}])),
        json.dumps(
            {"metadata": {"run_id": "m", "topic_id": "u1"}, "references": [], "responses": []}
        ),
        json.dumps([1, 2]),
        '{"topic_id": "t10", ',
        "",
        "   ",
        '"just a string"',
        json.dumps(answer("t11", answer=["not an object"])),
        '{"topic_id": "t12", "answer": [], "references": [], "run_id": "r"}\u2028',
        json.dumps(
            answer("t13", answer=[{"text": "a\u2028b\x85c", "citations": []}]), ensure_ascii=False
        ),
    ]
)


def _strict_answers(path: Path) -> bool:
    try:
        read_rag_runs(path)
    except RanklensError:
        return False
    return True


@AGREEMENT
@given(records=st.lists(ANSWER_RECORDS, max_size=6))
def test_check_agrees_with_the_strict_answer_reader(
    tmp_path_factory: pytest.TempPathFactory, records: list[str]
) -> None:
    path = tmp_path_factory.mktemp("agree") / "answers.jsonl"
    path.write_text("\n".join(records), encoding="utf-8")
    assert _checked(path, rag=True) is not True or _strict_answers(path), records
