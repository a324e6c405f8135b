"""Answer measures against gold answers: EM and F1 equal the SQuAD 2.0 evaluation
script's definitions (transcribed below as the reference), ROUGE-1/2/L precision, recall
and F equal Google's rouge-score package (a test peer: ``pip install rouge-score``) with and
without stemming, on generated and real texts; ``ranklens.evaluate(gold, answers, ["EM",
"F1", "ROUGE-L"])`` as the acceptance checks call it; the topics evaluated; the errors."""

from __future__ import annotations

import collections
import gzip
import json
import re
import string
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ranklens
from ranklens import InputError, MeasureError, MissingDependencyError
from ranklens.kernels import rag_text

rouge_scorer = pytest.importorskip("rouge_score.rouge_scorer")

DATA = Path(__file__).resolve().parent / "data" / "rag"


# --- the SQuAD 2.0 evaluation script's definitions, as the reference ----------------------


def squad_normalize(s: str) -> str:
    def remove_articles(text: str) -> str:
        return re.sub(re.compile(r"\b(a|an|the)\b", re.UNICODE), " ", text)

    def white_space_fix(text: str) -> str:
        return " ".join(text.split())

    def remove_punc(text: str) -> str:
        exclude = set(string.punctuation)
        return "".join(ch for ch in text if ch not in exclude)

    return white_space_fix(remove_articles(remove_punc(s.lower())))


def squad_tokens(s: str) -> list[str]:
    return squad_normalize(s).split() if s else []


def squad_exact(gold: str, pred: str) -> int:
    return int(squad_normalize(gold) == squad_normalize(pred))


def squad_f1(gold: str, pred: str) -> float:
    g, p = squad_tokens(gold), squad_tokens(pred)
    common = collections.Counter(g) & collections.Counter(p)
    same = sum(common.values())
    if len(g) == 0 or len(p) == 0:
        return int(g == p)
    if same == 0:
        return 0
    precision, recall = same / len(p), same / len(g)
    return (2 * precision * recall) / (precision + recall)


def squad_scores(golds: list[str], pred: str) -> tuple[float, float]:
    """The script's per-question scores: gold answers normalising to nothing dropped, none
    left: ``['']``; the max over them."""
    kept = [g for g in golds if squad_normalize(g)] or [""]
    return max(squad_exact(g, pred) for g in kept), max(squad_f1(g, pred) for g in kept)


# --- the acceptance call ------------------------------------------------------------------


def test_evaluate_gold_and_answers_with_em_f1_and_rouge_l() -> None:
    gold = {"q1": ["Eiffel Tower", "the tower in Paris"], "q2": ["1889"], "q3": ["blue"]}
    answers = {"q1": "It is the Eiffel Tower.", "q2": "1889", "q3": "Red, mostly."}
    res = ranklens.evaluate(gold, answers, ["EM", "F1", "ROUGE-L"])
    assert res.names == ["EM", "F1", "ROUGE-L"] and res.queries == ("q1", "q2", "q3")
    scorer = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=True)
    for q in gold:
        em, f1 = squad_scores(gold[q], answers[q])
        row = res.per_query[q]
        assert row["EM"] == em and row["F1"] == f1
        assert row["ROUGE-L"] == scorer.score_multi(gold[q], answers[q])["rougeL"].fmeasure
    assert res.per_query["q2"]["EM"] == 1.0 and res.per_query["q1"]["EM"] == 0.0
    assert res["F1"] == pytest.approx(sum(squad_scores(gold[q], answers[q])[1] for q in gold) / 3)
    # F1 on answers is the token F1 (TokenF1), the ranking measure F1 elsewhere
    alone = ranklens.evaluate(gold, answers, "F1")
    assert alone.per_query == {q: {"F1": res.per_query[q]["F1"]} for q in gold}
    tokens = ranklens.evaluate(gold, answers, ["TokenF1", "exact_match", "rougeL"])
    assert tokens.values.tolist() == [[r[1], r[0], r[2]] for r in res.values.tolist()]


def test_f1_with_parameters_of_a_ranking_is_refused_on_answers() -> None:
    with pytest.raises(InputError, match=r"F1@10 is the F-measure of a ranking"):
        ranklens.evaluate({"q1": ["a"]}, {"q1": "a"}, ["EM", "F1@10"])
    with pytest.raises(MeasureError, match="EM reads generated answers and P@10 a ranking"):
        ranklens.evaluate({"q1": ["a"]}, {"q1": "a"}, ["EM", "P@10"])


# --- SQuAD EM and F1 on generated texts ---------------------------------------------------

WORDS = st.sampled_from(
    [
        "the",
        "The",
        "a",
        "an",
        "An",
        "cat",
        "Cat's",
        "hat",
        "1889",
        "U.S.A.",
        "--",
        "!",
        "",
        "naïve",
        "Eiffel",
        "tower",
        "tower.",
        "  ",
        "\t",
        "café",
        "ß",
        "AN",
        "another",
        "theory",
    ]
)
TEXT = st.lists(WORDS, max_size=8).map(" ".join)


@settings(max_examples=150, deadline=None)
@given(st.lists(TEXT, max_size=3), TEXT)
def test_em_and_f1_equal_the_squad_script(golds: list[str], answer: str) -> None:
    em, f1 = squad_scores(golds, answer)
    assert rag_text.exact_match([answer], [golds]).tolist() == [em]
    assert rag_text.token_f1([answer], [golds]).tolist() == [f1]


def test_unanswerable_questions_and_empty_answers() -> None:
    res = ranklens.evaluate(
        {"q1": [], "q2": [""], "q3": ["x"], "q4": []},
        {"q1": "", "q2": "something", "q3": "", "q4": "the"},
        ["EM", "F1", "ROUGE-L"],
    )
    assert res.per_query["q1"] == {"EM": 1.0, "F1": 1.0, "ROUGE-L": 0.0}
    assert res.per_query["q2"] == {"EM": 0.0, "F1": 0.0, "ROUGE-L": 0.0}
    assert res.per_query["q3"] == {"EM": 0.0, "F1": 0.0, "ROUGE-L": 0.0}
    assert res.per_query["q4"]["EM"] == 1.0  # 'the' normalises to nothing


# --- ROUGE against rouge-score --------------------------------------------------------------

ROUGE_WORDS = st.sampled_from(
    [
        "running",
        "runs",
        "ran",
        "the",
        "cats",
        "cat",
        "caresses",
        "ponies",
        "agreed",
        "generalization",
        "oscillators",
        "Héllo",
        "x-ray",
        "e.g.",
        "42",
        "3.14",
        "a",
        "ab",
        "abc",
        "abcd",
        "RUNNING",
        "connection",
        "connected",
        "connecting",
        "relational",
        "é",
        "İstanbul",
        "\u017f",  # long s
        "ﬁsh",
        "naïve",
        "ŉ",
        "?",
        "'s",
        "city",
        "cities",
        "happy",
        "happily",
    ]
)
ROUGE_TEXT = st.lists(ROUGE_WORDS, max_size=14).map(" ".join)


@settings(max_examples=120, deadline=None)
@given(st.lists(ROUGE_TEXT, min_size=1, max_size=3), ROUGE_TEXT, st.booleans())
def test_rouge_equals_rouge_score(golds: list[str], answer: str, stem: bool) -> None:
    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"], use_stemmer=stem)
    expected = scorer.score_multi(golds, answer)
    for kind, name in (("1", "rouge1"), ("2", "rouge2"), ("L", "rougeL")):
        score = expected[name]
        for stat, value in (("p", score.precision), ("r", score.recall), ("f", score.fmeasure)):
            got = rag_text.rouge([answer], [golds], kind, stat, stem)
            assert got.tolist() == [value], (kind, stat)


def _jsonl_gz(path: Path) -> list[dict[str, Any]]:
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle]


def test_rouge_on_real_answers_and_nuggets_equals_rouge_score() -> None:
    """The TREC RAG 2024 baseline's answers against its topics' nuggets as gold answers:
    real text, long answers, many gold answers per topic."""
    answers = {r["topic_id"]: r for r in _jsonl_gz(DATA / "baseline_rag24.answers.jsonl.gz")}
    nuggets = _jsonl_gz(DATA / "rag24_nuggets_mistral.jsonl.gz")[:40]
    gold = {r["qid"]: [n["text"] for n in r["nuggets"]] for r in nuggets}
    run = {q: " ".join(s["text"] for s in answers[q]["answer"]) for q in gold}
    res = ranklens.evaluate(
        gold, run, ["ROUGE-1", "ROUGE-2(stat='r')", "ROUGE-L(stat='p')", "ROUGE-L(stem=False)"]
    )
    stemmed = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"], use_stemmer=True)
    plain = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=False)
    for q in gold:
        best = stemmed.score_multi(gold[q], run[q])
        row = res.per_query[q]
        assert row["ROUGE-1"] == best["rouge1"].fmeasure
        assert row["ROUGE-2(stat='r')"] == best["rouge2"].recall
        assert row["ROUGE-L(stat='p')"] == best["rougeL"].precision
        assert row["ROUGE-L(stem=False)"] == plain.score_multi(gold[q], run[q])["rougeL"].fmeasure


def test_rouge_without_nltk_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "nltk.stem.porter", None)
    with pytest.raises(MissingDependencyError, match=r'pip install "ranklens\[rag\]".*stem=False'):
        ranklens.evaluate({"q1": ["a b"]}, {"q1": "a"}, ["ROUGE-L"])
    res = ranklens.evaluate({"q1": ["a b"]}, {"q1": "a"}, ["ROUGE-L(stem=False)", "EM"])
    assert res.per_query["q1"]["ROUGE-L(stem=False)"] == pytest.approx(2 / 3)


# --- topics --------------------------------------------------------------------------------


def test_which_topics_are_evaluated() -> None:
    gold = {"q1": ["a"], "q2": ["b"], "q3": ["c"]}
    answers = {"q1": "a", "q2": "x", "q9": "z"}
    res = ranklens.evaluate(gold, answers, ["EM"])
    assert res.queries == ("q1", "q2", "q3") and res.per_query["q3"]["EM"] == 0.0
    assert res.query_counts["missing"] == 1 and res.query_counts["unjudged"] == 1
    both = ranklens.evaluate(gold, answers, ["EM"], queries="both")
    assert both.queries == ("q1", "q2")
    run = ranklens.evaluate(gold, answers, ["EM", "F1"], queries="run")
    assert run.queries == ("q1", "q2", "q9") and run.per_query["q9"] == {"EM": 0.0, "F1": 0.0}
    with pytest.raises(InputError, match="share no topic"):
        ranklens.evaluate(gold, {"z1": "a"}, ["EM"])


def test_several_runs_and_names() -> None:
    gold = {"q1": ["a"], "q2": ["b"]}
    rs = ranklens.evaluate(gold, {"x": {"q1": "a", "q2": "b"}, "y": {"q1": "b"}}, ["EM"])
    assert rs.runs == ("x", "y") and rs.aggregate == {"x": {"EM": 1.0}, "y": {"EM": 0.0}}
    listed = ranklens.evaluate(gold, [{"q1": "a"}, {"q2": "b"}], ["EM"])
    assert listed.runs == ("run1", "run2")
    named = ranklens.evaluate(gold, [{"q1": "a"}, {"q2": "b"}], ["EM"], name=["m", "n"])
    assert named.runs == ("m", "n")


# --- gold files ---------------------------------------------------------------------------


def test_gold_answers_from_files_and_tables(tmp_path: Path) -> None:
    path = tmp_path / "gold.jsonl"
    path.write_text('{"qid": "q1", "answers": ["a", "b"]}\n{"query_id": 2, "answer": "c"}\n')
    answers = {"q1": "b", "2": "c"}
    from_file = ranklens.evaluate(str(path), answers, ["EM"])
    assert from_file.per_query == {"2": {"EM": 1.0}, "q1": {"EM": 1.0}}
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"qid": ["q1", "q1", "2"], "answer": ["a", "b", "c"]})
    from_frame = ranklens.evaluate(ranklens.rag.read_gold(frame), answers, ["EM"])
    assert from_frame.per_query == from_file.per_query


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"qid": "q1", "answers": [1]}\n', r"gold\.jsonl:1: a gold answer must be a string"),
        ('{"qid": "q1"}\n', r"gold\.jsonl:1: a gold answer record needs the field 'answers'"),
        (
            '{"qid": "q1", "answers": ["a"]}\n{"qid": "q1", "answers": ["b"]}\n',
            r"gold\.jsonl:2: topic 'q1' has gold answers on two records \(also line 1\)",
        ),
    ],
)
def test_bad_gold_files_are_one_line_errors(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "gold.jsonl"
    path.write_text(content)
    with pytest.raises(InputError, match=message):
        ranklens.evaluate(ranklens.rag.read_gold(str(path)), {"q1": "a"}, ["EM"])
    with pytest.raises(InputError, match="must be a list of strings"):
        ranklens.rag.read_gold({"q1": [1]})


# --- issue 45: what a gold answers file is told -------------------------------------------


@pytest.mark.parametrize(
    ("answers", "shown"), [(4, "are 4"), (None, "are null"), (True, "are true"), ([4], "not 4")]
)
def test_a_gold_file_with_a_bad_answer_is_called_gold_answers(
    tmp_path: Path, answers: Any, shown: str
) -> None:
    path = tmp_path / "gold.jsonl"
    path.write_text(json.dumps({"qid": "q1", "answers": answers}) + "\n")
    for measure in ("EM", "F1"):
        with pytest.raises(InputError, match=rf"gold\.jsonl:1: .*gold answer.*{shown}") as err:
            ranklens.evaluate(str(path), {"q1": "4"}, [measure])
        assert "RAG run" not in str(err.value)


def test_ranking_measures_on_a_gold_file_name_the_measures_of_answers(tmp_path: Path) -> None:
    path = tmp_path / "gold.jsonl"
    path.write_text(json.dumps({"qid": "q1", "answers": ["Paris"]}) + "\n")
    with pytest.raises(InputError, match="F1@10 is the F-measure of a ranking, not a measure of"):
        ranklens.evaluate(str(path), {"q1": "Paris"}, ["F1@10"])
    with pytest.raises(MeasureError, match=r"holds gold answers.*AP is a measure of rankings.*EM"):
        ranklens.evaluate(str(path), {"q1": "Paris"}, ["AP"])
    res = ranklens.evaluate(str(path), {"q1": "Paris"}, ["F1"])  # F1 on answers: the token F1
    assert res.per_query["q1"]["F1"] == 1.0


BAD_ANSWER = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False, allow_infinity=False),
    st.lists(st.one_of(st.integers(), st.none(), st.floats(allow_nan=False)), min_size=1),
)


@settings(max_examples=60, deadline=None)
@given(BAD_ANSWER, st.sampled_from(["answers", "answer", "gold_answers"]), st.integers(0, 2))
def test_any_bad_gold_answer_is_refused_as_a_gold_answer(value: Any, field: str, good: int) -> None:
    """Whatever the bad answer and wherever its record is, the file is read as gold answers
    (by its topic and answer fields) and the error names the gold answer, its line."""
    records = [{"qid": f"q{i}", field: ["fine"]} for i in range(good)]
    records.append({"qid": "bad", field: value})
    with pytest.raises(InputError) as err:
        ranklens.rag.read_judgments(records)
    message = str(err.value)
    assert "gold answer" in message and "RAG run" not in message
    assert f"record {good + 1}" in message
