"""What expected exposure refuses (issue 35, items 4 and 12): a document twice in one sampled
ranking, in every reader (``ranklens expeval`` with and without ``--fixed``, the ``EE-*``
measures of the language and ``ranklens.expected_exposure`` on a file, a DataFrame or a
dict), with the place named (both lines of a file, both rows of a frame, both positions
of a dict's sample); a run file without a line and qrels without a relevant document.
Before, expeval added both positions' exposure (EE-D 1.17, EE-R 1.19: outside [0, 1]),
printed scores for an empty run, and printed nothing (exit 0) for such qrels."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ranklens
from ranklens.base.errors import DuplicateError, EmptyInputError, InputError
from ranklens.cli import main
from ranklens.frontends.expeval import ExpevalOptions, expeval_values
from ranklens.kernels.exposure import UserModel, run_exposure

pd = pytest.importorskip("pandas")
pytestmark = pytest.mark.filterwarnings("ignore::ranklens.base.errors.InputWarning")
EE = ["EE-L", "EE-D", "EE-R"]


@st.composite
def repeated_case(draw):  # type: ignore[no-untyped-def]
    """Judgments, sampled rankings of judged and unjudged documents, and one sample of
    one query in which a document comes back at a later position."""
    grades: dict[str, dict[str, int]] = {}
    samples: dict[str, list[list[str]]] = {}
    for q in range(draw(st.integers(1, 3))):
        qid = f"q{q}"
        docs = [f"{qid}d{j}" for j in range(draw(st.integers(1, 5)))]
        grades[qid] = {d: draw(st.integers(-1, 3)) for d in docs}
        grades[qid][docs[0]] = draw(st.integers(1, 3))  # a relevant document
        pool = [*docs, f"{qid}u"]
        samples[qid] = [
            list(draw(st.permutations(pool)))[: draw(st.integers(1, len(pool)))]
            for _ in range(draw(st.integers(1, 3)))
        ]
    qid = draw(st.sampled_from(sorted(samples)))
    sample = draw(st.integers(0, len(samples[qid]) - 1))
    ranking = samples[qid][sample]
    first = draw(st.integers(0, len(ranking) - 1))
    later = draw(st.integers(first + 1, len(ranking)))
    ranking.insert(later, ranking[first])  # the document again, at a later position
    where = (qid, sample, ranking[first], first + 1, later + 1)
    return grades, samples, where


def _qrels_text(grades: dict[str, dict[str, int]]) -> str:
    return "".join(f"{q} 0 {d} {g}\n" for q, docs in grades.items() for d, g in docs.items())


def _run_rows(samples: dict[str, list[list[str]]]) -> list[tuple[str, int, str, int]]:
    return [
        (q, s, d, r)
        for q, rankings in samples.items()
        for s, ranking in enumerate(rankings)
        for r, d in enumerate(ranking, 1)
    ]


@settings(max_examples=40, deadline=None)
@given(repeated_case(), st.booleans())
def test_a_document_twice_in_one_sample_is_refused_by_every_reader(case, fixed) -> None:
    grades, samples, (qid, sample, doc, first, second) = case
    rows = _run_rows(samples)
    text = "".join(f"{q} {s} {d} {r} 0 t\n" for q, s, d, r in rows)
    line = {row: number for number, row in enumerate(rows, 1)}
    lines = (line[(qid, sample, doc, first)], line[(qid, sample, doc, second)])
    where = rf"<stream>:{lines[1]}: document '{doc}' occurs twice in sample '{sample}' of "
    where += rf"query '{qid}' \(lines {lines[0]} and {lines[1]}\)"
    qrels = _qrels_text(grades).encode()
    # ranklens expeval, expeval's behaviour or --fixed
    with pytest.raises(DuplicateError, match=where) as info:
        expeval_values(io.BytesIO(qrels), io.BytesIO(text.encode()), ExpevalOptions(fixed=fixed))
    assert info.value.lines == lines and "\n" not in str(info.value)
    # the measures of the language, from the same file
    with pytest.raises(DuplicateError, match=where):
        ranklens.evaluate(grades, io.BytesIO(text.encode()), EE)
    # a DataFrame: its rows, counted from 0
    frame = pd.DataFrame(rows, columns=["query_id", "sample", "doc_id", "rank"])
    at = rf"rows {lines[0] - 1} and {lines[1] - 1} \(counted from 0\): document '{doc}'"
    with pytest.raises(DuplicateError, match=at):
        ranklens.evaluate(grades, frame, EE)
    with pytest.raises(DuplicateError, match=at):
        ranklens.expected_exposure(grades, frame)
    # a dict: the query, the sample and both positions
    at = rf"query '{qid}', sample {sample} .*'{doc}'.*\(positions {first} and {second}\)"
    with pytest.raises(DuplicateError, match=at):
        ranklens.evaluate(grades, samples, EE)
    with pytest.raises(DuplicateError, match=at):
        ranklens.expected_exposure(grades, samples, model="rbp")
    # the kernel itself, for a caller that skips the readers
    with pytest.raises(DuplicateError, match=f"holds document '{doc}' twice"):
        run_exposure(samples[qid], grades[qid], UserModel())


@settings(max_examples=40, deadline=None)
@given(repeated_case())
def test_without_the_repeat_every_value_lies_in_the_unit_interval(case) -> None:
    """The run with the repeated document taken out of its sample is read by every path
    alike, and its corrected values are in [0, 1]."""
    grades, samples, (qid, sample, _, _, second) = case
    del samples[qid][sample][second - 1]
    res = ranklens.evaluate(grades, samples, EE)
    for name in EE:
        assert 0.0 <= res[name] <= 1.0, (name, res[name])
    text = "".join(f"{q} {s} {d} {r} 0 t\n" for q, s, d, r in _run_rows(samples))
    front, _ = expeval_values(
        io.BytesIO(_qrels_text(grades).encode()),
        io.BytesIO(text.encode()),
        ExpevalOptions(fixed=True),
    )
    for q, value in front.items():
        row = res.per_query[q]
        assert row["EE-D"] == pytest.approx(value.disparity, abs=1e-12)
        assert row["EE-R"] == pytest.approx(value.relevance, abs=1e-12)
        assert row["EE-L"] == pytest.approx(value.difference, abs=1e-12)


def test_the_command_lines_refuse_a_repeated_document_in_one_line(tmp_path, capsys) -> None:
    qrels, run = tmp_path / "fair.qrels", tmp_path / "fair.runs"
    qrels.write_text("1 0 d1 2\n1 0 d2 1\n1 1 d3 1\n")
    run.write_text("1 1 d1 1 3 t\n1 1 d3 2 2 t\n1 1 d1 3 1 t\n1 2 d3 1 3 t\n")
    for argv in (
        ["expeval", str(qrels), str(run)],
        ["expeval", "--fixed", "-G", str(qrels), str(run)],
        ["eval", "-m", "EE-D", "-m", "EE-R", "--quiet", str(qrels), str(run)],
    ):
        assert main(argv) == 2, argv
        captured = capsys.readouterr()
        assert captured.out == "" and "Traceback" not in captured.err
        assert captured.err.strip().splitlines() == [
            f"ranklens: error: {run}:3: document 'd1' occurs twice in sample '1' of query "
            "'1' (lines 1 and 3); a sampled ranking ranks each document once"
            + (" (expeval would add both positions' exposure)" if argv[0] == "expeval" else "")
        ]


def test_awrf_refuses_a_repeated_document_too() -> None:
    with pytest.raises(DuplicateError, match="positions 1 and 2"):
        ranklens.awrf({"q": {"a": 1}}, {"q": [["a", "a"]]}, {"a": "x"})


@pytest.mark.parametrize(
    ("qrels", "run", "message"),
    [
        ("1 0 a 1\n", "", "the run holds no sampled ranking"),
        ("1 0 a 1\n", "\n   \n", "the run holds no sampled ranking"),
        ("1 0 a 0\n1 0 b -1\n2 c 0\n", "1 s a 1 0 t\n", "no query has a relevant document"),
        ("", "1 s a 1 0 t\n", "the qrels hold no judgment"),
    ],
)
def test_expeval_refuses_an_empty_run_and_qrels_without_a_relevant_document(
    qrels: str, run: str, message: str, tmp_path: Path, capsys
) -> None:
    """expeval printed the worst values of every query for an empty run, and nothing
    (exit 0) for qrels without a relevant document."""
    (tmp_path / "q").write_text(qrels)
    (tmp_path / "r").write_text(run)
    for options in ([], ["--fixed", "--mean"], ["-G"]):
        assert main(["expeval", *options, str(tmp_path / "q"), str(tmp_path / "r")]) == 2
        captured = capsys.readouterr()
        assert captured.out == "" and message in captured.err
        assert len(captured.err.strip().splitlines()) == 1
    with pytest.raises(InputError, match=message):
        expeval_values(io.BytesIO(qrels.encode()), io.BytesIO(run.encode()))


def test_complete_judgments_make_a_query_without_a_relevant_document_count() -> None:
    """With -C every judged document has a target: the same qrels are evaluated."""
    values, _ = expeval_values(
        io.BytesIO(b"1 0 a 0\n1 0 b -1\n"),
        io.BytesIO(b"1 s a 1 0 t\n1 s b 2 0 t\n"),
        ExpevalOptions(complete=True, fixed=True),
    )
    assert list(values) == ["1"]


def test_an_empty_dict_run_is_refused() -> None:
    with pytest.raises(EmptyInputError, match="no rankings"):
        ranklens.expected_exposure({"q": {"a": 1}}, {})
    with pytest.raises(EmptyInputError, match="no rankings"):
        ranklens.evaluate({"q": {"a": 1}}, {}, "EE-L")
