"""Citation measures: support precision and recall against the definitions of TREC 2024
RAG's support evaluation (written out below as the reference) on generated runs and
judgments, in both layouts; what citations show without judgments; TREC RAG 2025's run
layout; RAGAS's id-based context precision and recall over a run's references; the nugget
coverage of the references and the nuggets as subtopics."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ranklens
from ranklens import InputError, InputWarning

WEIGHT = {"FS": 1.0, "PS": 0.5, "NS": 0.0}


def support_reference(
    answer: list[dict[str, Any]],
    references: list[str],
    labels: dict[tuple[int, str], Any],
    unknown: str = "zero",
) -> tuple[float, float]:
    """Weighted support precision and recall of one answer, from the definitions (Thakur
    et al. 2025): the judged (sentence, cited segment) *pairs*, a set: a sentence citing a
    segment twice (a repeated index, or a reference listed twice) is one pair."""
    judged: list[float] = []
    best: list[float] = []
    for s, sentence in enumerate(answer):
        weights = []
        segments = {
            references[c]
            if isinstance(c, int) and 0 <= c < len(references)
            else (c if isinstance(c, str) else str(c))
            for c in sentence["citations"]
        }
        for segment in segments:
            if (s, segment) not in labels:
                continue
            label = labels[(s, segment)]
            if label not in WEIGHT and unknown == "ignore":
                continue
            weights.append(WEIGHT.get(label, 0.0))
        judged += weights
        best.append(max(weights, default=0.0))
    precision = sum(judged) / len(judged) if judged else 0.0
    recall = sum(best) / len(best) if best else 0.0
    return precision, recall


def _random_case(rnd: random.Random) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A run of a few topics (citations: indices, dangling ones, none, repeated) and flat
    support judgments of some of its citations (some labels unknown)."""
    run: dict[str, Any] = {}
    judgments: list[dict[str, Any]] = []
    for t in range(rnd.randint(1, 5)):
        topic = f"t{t}"
        references = [f"s{rnd.randint(0, 6)}" for _ in range(rnd.randint(0, 5))]
        answer = []
        for s in range(rnd.randint(0, 4)):
            cited = [rnd.randint(-1, 6) for _ in range(rnd.randint(0, 3))]
            answer.append({"text": f"sentence {s}.", "citations": cited})
            for c in dict.fromkeys(cited):
                if 0 <= c < len(references) and rnd.random() < 0.7:
                    key = (s, references[c])
                    if any(
                        (j["sentence"], j["segment"]) == key and j["topic_id"] == topic
                        for j in judgments
                    ):
                        continue
                    label = rnd.choice(["FS", "PS", "NS", "NS", "maybe"])
                    judgments.append(
                        {
                            "topic_id": topic,
                            "sentence": s,
                            "segment": references[c],
                            "support": label,
                        }
                    )
        run[topic] = {"references": references, "answer": answer}
    return run, judgments


def _labels(judgments: list[dict[str, Any]], topic: str) -> dict[tuple[int, str], Any]:
    return {
        (j["sentence"], j["segment"]): j["support"] for j in judgments if j["topic_id"] == topic
    }


@settings(max_examples=60, deadline=None)
@given(st.randoms(use_true_random=False), st.sampled_from(["zero", "ignore"]))
def test_support_precision_and_recall_equal_the_definitions(
    rnd: random.Random, unknown: str
) -> None:
    run, judgments = _random_case(rnd)
    if not judgments:
        judgments = [{"topic_id": "t0", "sentence": 99, "segment": "none", "support": "FS"}]
    measures = [f"SupportPrecision(unknown={unknown!r})", f"SupportRecall(unknown={unknown!r})"]
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InputWarning)
        res = ranklens.evaluate(judgments, run, measures)
    for topic, record in run.items():
        precision, recall = support_reference(
            record["answer"], record["references"], _labels(judgments, topic), unknown
        )
        row = res.per_query[topic]
        assert row[measures[0]] == pytest.approx(precision, abs=1e-15)
        assert row[measures[1]] == pytest.approx(recall, abs=1e-15)


def test_the_tracks_support_output_is_read_as_judgments_or_as_the_run(tmp_path: Path) -> None:
    line = {
        "run_id": "r1",
        "topic_id": "q1",
        "references": ["a", "b", "c", "d"],
        "answer": [
            {"text": "One.", "citations": [0, 1, 2, 3]},
            {"text": "Two.", "citations": []},
            {"text": "Three.", "citations": [2]},
        ],
        "support_eval": [
            {
                "answer": "One.",
                "citations": [0, 1, 2, 3],
                "count": 4,
                "eval_scores": ["PS", "NS", "FS"],
            },  # the fourth citation was not judged
            {"answer": "Two.", "citations": [], "count": 0, "eval_scores": []},
            {"answer": "Three.", "citations": [2], "count": 1, "eval_scores": [None]},
        ],
    }
    path = tmp_path / "support.jsonl"
    path.write_text(json.dumps(line) + "\n")
    with pytest.warns(InputWarning, match="1 labels outside the defined sets"):
        alone = ranklens.evaluate(None, str(path), ["SupportPrecision", "SupportRecall"])
    # judged pairs: PS, NS, FS, None (0): (0.5 + 0 + 1 + 0) / 4; best per sentence: 1, 0, 0
    assert alone.per_query["q1"] == {"SupportPrecision": 1.5 / 4, "SupportRecall": 1 / 3}
    run = {k: line[k] for k in ("run_id", "topic_id", "references", "answer")}
    paired = ranklens.evaluate(str(path), [run], ["SupportPrecision(unknown='ignore')"])
    assert paired.per_query["q1"]["SupportPrecision(unknown='ignore')"] == 1.5 / 3
    assert paired.query_counts["unknown_labels"] == 1  # chosen: counted, not warned about
    with pytest.raises(InputError, match=r"support\.jsonl:1: .*unknown='error'"):
        ranklens.evaluate(str(path), [run], ["SupportRecall(unknown='error')"])
    other = {**run, "answer": [{"text": "Else.", "citations": [0]}]}
    with pytest.raises(InputError, match="judge another answer than run 'r1' gives"):
        ranklens.evaluate(str(path), [other], ["SupportPrecision"])


def test_citation_counts_need_no_judgment() -> None:
    run = {
        "q1": {
            "references": ["a", "b", "a"],
            "answer": [
                {"text": "One two three.", "citations": [0, 5, 1]},
                {"text": "Four.", "citations": []},
            ],
        },
        "q2": {"references": [], "answer": []},
    }
    measures = [
        "CitedSentences",
        "CitationsPerSentence",
        "DanglingCitations",
        "RepeatedReferences",
        "AnswerWords",
        "WordLimit(limit=3)",
    ]
    res = ranklens.evaluate(None, run, measures)
    assert res.per_query["q1"] == {
        "CitedSentences": 0.5,
        "CitationsPerSentence": 1.5,
        "DanglingCitations": 1.0,
        "RepeatedReferences": 1.0,
        "AnswerWords": 4.0,
        "WordLimit(limit=3)": 0.0,
    }
    assert res.per_query["q2"] == {
        "CitedSentences": 0.0,
        "CitationsPerSentence": 0.0,
        "DanglingCitations": 0.0,
        "RepeatedReferences": 0.0,
        "AnswerWords": 0.0,
        "WordLimit(limit=3)": 1.0,
    }


def test_the_trec_rag_2025_layout(tmp_path: Path) -> None:
    record = {
        "metadata": {"team_id": "t", "run_id": "r25", "narrative_id": 7, "type": "automatic"},
        "references": ["s1", "s2"],
        "answer": [
            {"text": "A b.", "citations": ["s2", "s9"]},
            {"text": "C.", "citations": [0]},
        ],
    }
    responses = {
        "metadata": {"team_id": "t", "run_id": "r25", "topic_id": "8"},
        "references": ["s1"],
        "responses": [{"text": "D.", "citations": ["s1"]}],
    }
    path = tmp_path / "run25.jsonl"
    path.write_text(json.dumps(record) + "\n" + json.dumps(responses) + "\n")
    run = ranklens.rag.read_answer_run(str(path))
    assert run.name == "r25" and run.qids == ("7", "8")
    assert run["7"].citations == ((1, -1), (0,)) and run["7"].cited == (("s2", "s9"), ("s1",))
    res = ranklens.evaluate(None, str(path), ["DanglingCitations", "CitationsPerSentence"])
    assert res.per_query["7"] == {"DanglingCitations": 1.0, "CitationsPerSentence": 1.5}
    assert ranklens.rag.references(str(path)).to_dict() == {
        "7": {"s1": 2.0, "s2": 1.0},
        "8": {"s1": 1.0},
    }


@pytest.mark.parametrize(
    ("record", "message"),
    [
        ({"run_id": "r", "answer": []}, r"run\.jsonl:1: an answer needs its topic"),
        ({"run_id": "r", "topic_id": "q"}, r"run\.jsonl:1: an answer needs its sentences"),
        (
            {"topic_id": "q", "answer": [{"text": "a", "citations": [1.5]}]},
            r"run\.jsonl:1: sentence 1 cites 1\.5",
        ),
        (
            {"topic_id": "q", "answer": [{"citations": []}]},
            r"run\.jsonl:1: sentence 1's text must be a string",
        ),
        (
            {"topic_id": "q", "references": "abc", "answer": []},
            r"run\.jsonl:1: 'references' must be a list",
        ),
    ],
)
def test_bad_runs_are_one_line_errors(tmp_path: Path, record: dict[str, Any], message: str) -> None:
    path = tmp_path / "run.jsonl"
    path.write_text(json.dumps(record) + "\n")
    with pytest.raises(InputError, match=message):
        ranklens.evaluate(None, str(path), ["AnswerWords"])


def test_a_topic_answered_twice_names_both_lines(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    line = json.dumps({"run_id": "r", "topic_id": "q", "answer": "x"})
    path.write_text(line + "\n" + line + "\n")
    with pytest.raises(InputError, match=r"run\.jsonl:2: run 'r' answers topic 'q' lines 1 and 2"):
        ranklens.rag.read_answer_run(str(path))


# --- RAGAS's id-based context precision and recall ----------------------------------------


def ragas_precision(retrieved: list[str], reference: list[str]) -> float:
    ret, ref = set(retrieved), set(reference)
    return len(ret & ref) / len(ret)


def ragas_recall(retrieved: list[str], reference: list[str]) -> float:
    return len(set(retrieved) & set(reference)) / len(set(reference))


@settings(max_examples=60, deadline=None)
@given(st.randoms(use_true_random=False))
def test_context_precision_and_recall_equal_ragas(rnd: random.Random) -> None:
    pool = [f"s{i}" for i in range(8)]
    run = {
        f"q{t}": {"references": [rnd.choice(pool) for _ in range(rnd.randint(1, 7))], "answer": []}
        for t in range(4)
    }
    qrels = {q: {s: rnd.choice([0, 1, 2]) for s in rnd.sample(pool, 4)} for q in run}
    for q in qrels:
        qrels[q][rnd.choice(pool)] = 1  # one relevant segment at least
    res = ranklens.evaluate(
        qrels, ranklens.rag.references(run), ["ContextPrecision", "ContextRecall"]
    )
    for q, record in run.items():
        relevant = [s for s, g in qrels[q].items() if g >= 1]
        assert res.per_query[q]["ContextPrecision"] == ragas_precision(
            record["references"], relevant
        )
        assert res.per_query[q]["ContextRecall"] == ragas_recall(record["references"], relevant)
    same = ranklens.evaluate(qrels, ranklens.rag.references(run), ["P", "R"])
    assert same.values.tolist() == res.values.tolist()  # trec_eval's set_P and set_recall


# --- nugget coverage and nuggets as subtopics ---------------------------------------------


def _segment_records(rnd: random.Random) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    records = []
    run: dict[str, Any] = {}
    for t in range(3):
        topic = f"q{t}"
        nuggets = [("vital" if i < 2 else "okay") for i in range(rnd.randint(1, 4))]
        segments = [f"s{t}{k}" for k in range(5)]
        for segment in segments:
            records.append(
                {
                    "qid": topic,
                    "docid": segment,
                    "nuggets": [
                        {
                            "text": f"n{i}",
                            "importance": imp,
                            "assignment": rnd.choice(
                                ["support", "partial_support", "not_support", "not_support"]
                            ),
                        }
                        for i, imp in enumerate(nuggets)
                    ],
                }
            )
        run[topic] = {
            "references": [rnd.choice(segments) for _ in range(rnd.randint(0, 6))],
            "answer": [],
        }
    return records, run


def coverage_reference(
    records: list[dict[str, Any]],
    topic: str,
    references: list[str],
    k: int,
    nuggets: str,
    strict: bool,
) -> float:
    top = list(dict.fromkeys(references))[:k]
    rows = {r["docid"]: r["nuggets"] for r in records if r["qid"] == topic}
    listed = next(iter(rows.values()))
    earned = possible = 0.0
    for i, n in enumerate(listed):
        w = (
            {"vital": 1.0, "okay": 0.5}[n["importance"]]
            if nuggets == "weighted"
            else ((1.0 if n["importance"] == "vital" else 0.0) if nuggets == "vital" else 1.0)
        )
        labels = [rows[s][i]["assignment"] for s in top if s in rows]
        credit = (
            1.0
            if "support" in labels
            else (0.5 if "partial_support" in labels and not strict else 0.0)
        )
        earned += w * credit
        possible += w
    return earned / possible if possible else 0.0


@settings(max_examples=40, deadline=None)
@given(
    st.randoms(use_true_random=False),
    st.sampled_from([1, 2, 3, 10]),
    st.sampled_from(["weighted", "vital", "all"]),
    st.booleans(),
)
def test_nugget_coverage_equals_its_definition(
    rnd: random.Random, k: int, nuggets: str, strict: bool
) -> None:
    records, run = _segment_records(rnd)
    name = f"NuggetCoverage(nuggets={nuggets!r},strict={strict})@{k}"
    res = ranklens.evaluate(records, run, [name])
    measure = res.names[0]
    for topic, record in run.items():
        expected = coverage_reference(records, topic, record["references"], k, nuggets, strict)
        assert res.per_query[topic][measure] == pytest.approx(expected, abs=1e-15)


def test_nuggets_as_subtopics_of_the_diversity_measures() -> None:
    """Subtopic recall over nuggets_qrels is NuggetCoverage over all nuggets, strict, when
    every nugget has a supporting segment (the diversity measures count only those)."""
    rnd = random.Random(3)
    records, run = _segment_records(rnd)
    for topic in run:  # give every nugget a supporting segment
        first = next(r for r in records if r["qid"] == topic)
        for n in first["nuggets"]:
            n["assignment"] = "support"
    qrels = ranklens.rag.nugget_qrels(records)
    ranking = ranklens.rag.references(run)
    diversity = ranklens.evaluate(qrels, ranking, ["StRecall@3"], queries="both")
    coverage = ranklens.evaluate(
        records, run, ["NuggetCoverage(nuggets='all',strict=True)@3"], queries="both"
    )
    for q in diversity.queries:
        assert diversity.per_query[q]["StRecall@3"] == pytest.approx(
            coverage.per_query[q][coverage.names[0]], abs=1e-15
        )


def test_tables_of_answers_and_of_support_judgments() -> None:
    pd = pytest.importorskip("pandas")
    answers = pd.DataFrame(
        {"run_id": ["r", "r", "s"], "topic_id": ["q1", "q2", "q1"], "text": ["a b", "c", "d"]}
    )
    runs = ranklens.rag.read_rag_runs(answers)
    assert [(r.name, r.qids) for r in runs] == [("r", ("q1", "q2")), ("s", ("q1",))]
    res = ranklens.evaluate({"q1": ["a b"], "q2": ["x"]}, list(runs), ["EM"])
    assert res.aggregate == {"r": {"EM": 0.5}, "s": {"EM": 0.0}}
    support = pd.DataFrame(
        {
            "topic_id": ["q1", "q1"],
            "sentence": [0, 0],
            "segment": ["a", "b"],
            "support": ["FS", "NS"],
        }
    )
    run = {"q1": {"references": ["a", "b"], "answer": [{"text": "x", "citations": [0, 1]}]}}
    judged = ranklens.rag.judgments(support=support)
    assert ranklens.evaluate(judged, run, ["SupportPrecision"])["SupportPrecision"] == 0.5


# ---------------------------------------------------------------- issue 45: pairs, strays


def _flat(topic: str, sentence: int, segment: str, label: str) -> dict[str, Any]:
    return {"topic_id": topic, "sentence": sentence, "segment": segment, "support": label}


@pytest.mark.parametrize(
    ("references", "citations"),
    [(["s1", "s2"], [0, 0, 1]), (["s1", "s1", "s2"], [0, 1, 2]), (["s1", "s2"], ["s1", 0, 1])],
    ids=["repeated index", "reference listed twice", "segment id and index"],
)
def test_a_segment_cited_twice_by_one_sentence_is_one_judged_pair(
    references: list[str], citations: list[Any]
) -> None:
    # the documented formula sums over the judged (sentence, segment) pairs: FS and NS give
    # (1 + 0) / 2, whatever the number of citations of s1 (counted per citation: 2/3)
    run = {"q1": {"references": references, "answer": [{"text": "A.", "citations": citations}]}}
    judgments = [_flat("q1", 0, "s1", "FS"), _flat("q1", 0, "s2", "NS")]
    res = ranklens.evaluate(judgments, run, ["SupportPrecision", "SupportRecall"])
    assert res.per_query["q1"] == {"SupportPrecision": 0.5, "SupportRecall": 1.0}
    assert res.query_counts["unmatched_judgments"] == 0


def test_judgments_numbered_from_one_are_counted_and_named(tmp_path: Path) -> None:
    run = {
        "q1": {
            "references": ["s1", "s2"],
            "answer": [
                {"text": "A.", "citations": [0]},
                {"text": "B.", "citations": [1]},
            ],
        }
    }
    path = tmp_path / "support.jsonl"
    shifted = [_flat("q1", 1, "s1", "FS"), _flat("q1", 2, "s2", "PS")]  # from 1, not 0
    path.write_text("".join(json.dumps(j) + "\n" for j in shifted))
    with pytest.warns(InputWarning) as seen:
        res = ranklens.evaluate(str(path), run, ["SupportPrecision", "SupportRecall"])
    (warning,) = [w for w in seen if "match no citation" in str(w.message)]
    message = str(warning.message)
    assert "2 support judgments" in message and f"{path}:1" in message
    assert "sentence 1 citing 's1'" in message and "numbered from 0" in message
    assert res.query_counts["unmatched_judgments"] == 2
    assert res.per_query["q1"] == {"SupportPrecision": 0.0, "SupportRecall": 0.0}


def _stray_case(rnd: random.Random) -> tuple[dict[str, Any], list[dict[str, Any]], int]:
    """A run and support judgments, some of which judge nothing in the answers: a sentence
    past the last, a segment the sentence does not cite, a topic the run does not answer
    (not counted: it is missing, not misnumbered); and how many match nothing."""
    run, judgments = _random_case(rnd)
    keys = {(j["topic_id"], j["sentence"], j["segment"]) for j in judgments}
    strays = 0
    for topic, record in run.items():
        for _ in range(rnd.randint(0, 3)):
            sentence = rnd.randint(0, len(record["answer"]) + 2)
            segment = f"s{rnd.randint(0, 9)}"
            if (topic, sentence, segment) in keys:
                continue
            cited = sentence < len(record["answer"]) and segment in {
                record["references"][c]
                for c in record["answer"][sentence]["citations"]
                if 0 <= c < len(record["references"])
            } | {str(c) for c in record["answer"][sentence]["citations"]}
            keys.add((topic, sentence, segment))
            judgments.append(_flat(topic, sentence, segment, rnd.choice(["FS", "PS", "NS"])))
            strays += not cited
    judgments.append(_flat("unanswered", 0, "s1", "FS"))
    return run, judgments, strays


@settings(max_examples=60, deadline=None)
@given(st.randoms(use_true_random=False))
def test_stray_judgments_are_counted_and_change_no_score(rnd: random.Random) -> None:
    run, judgments, strays = _stray_case(rnd)
    measures = ["SupportPrecision", "SupportRecall"]
    import warnings

    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        res = ranklens.evaluate(judgments, run, measures, queries="run")
    assert res.query_counts["unmatched_judgments"] == strays
    assert any("match no citation" in str(w.message) for w in seen) == (strays > 0)
    for topic, record in run.items():
        precision, recall = support_reference(
            record["answer"], record["references"], _labels(judgments, topic)
        )
        assert res.per_query[topic]["SupportPrecision"] == pytest.approx(precision, abs=1e-15)
        assert res.per_query[topic]["SupportRecall"] == pytest.approx(recall, abs=1e-15)


def test_unknown_support_labels_are_warned_about_in_the_files_terms(tmp_path: Path) -> None:
    run = {"q1": {"references": ["s1"], "answer": [{"text": "A.", "citations": [0]}]}}
    path = tmp_path / "support.jsonl"
    path.write_text(json.dumps(_flat("q1", 0, "s1", "maybe")) + "\n")
    with pytest.warns(InputWarning) as seen:
        ranklens.evaluate(str(path), run, ["SupportPrecision"])
    (message,) = [str(w.message) for w in seen]
    assert "support judgments" in message and "FS/PS/NS" in message and f"{path}:1" in message
    assert "'maybe'" in message and "weighs 0" in message and "nuggetizer" not in message


def test_two_support_evaluations_of_a_topic_name_both_lines(tmp_path: Path) -> None:
    line = {
        "run_id": "r",
        "topic_id": "q1",
        "references": ["a"],
        "answer": [{"text": "One.", "citations": [0]}],
        "support_eval": [{"answer": "One.", "citations": [0], "eval_scores": ["FS"]}],
    }
    path = tmp_path / "support.jsonl"
    path.write_text((json.dumps(line) + "\n") * 2)
    with pytest.raises(InputError, match=r"support\.jsonl:2: .*topic 'q1' \(lines 1 and 2\)"):
        ranklens.rag.read_support(str(path))


# ------------------------------------------------ issue 45: citations absent are not zero

CITING = ["CitedSentences", "CitationsPerSentence", "DanglingCitations", "RepeatedReferences"]


@pytest.mark.parametrize("measure", [*CITING, "SupportPrecision", "SupportRecall"])
def test_citation_measures_refuse_answers_without_citations(tmp_path: Path, measure: str) -> None:
    # nugget assignments carry only each answer's text: no citation is known, none is 0
    path = tmp_path / "assignments.jsonl"
    record = {
        "qid": "q1",
        "run_id": "r",
        "answer_text": "Paris [0]. It is big [1].",
        "nuggets": [{"text": "Paris", "importance": "vital", "assignment": "support"}],
    }
    path.write_text(json.dumps(record) + "\n")
    judgments = [_flat("q1", 0, "s1", "FS")] if measure.startswith("Support") else None
    with pytest.raises(InputError, match=rf"{measure} reads the answers' citations.*run 'r'"):
        ranklens.evaluate(judgments, str(path), [measure])
    with pytest.raises(InputError, match="given as text"):
        ranklens.evaluate(judgments, {"q1": "Paris [0]."}, [measure])
    res = ranklens.evaluate(None, str(path), ["NuggetVital", "AnswerWords"])  # no citation read
    assert res.per_query["q1"] == {"NuggetVital": 1.0, "AnswerWords": 6.0}
