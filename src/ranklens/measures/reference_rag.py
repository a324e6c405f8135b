"""Reference documentation of the measures of generated answers
(:mod:`ranklens.measures.catalog_rag`): equivalents in other tools and hand-computed
examples (see :mod:`ranklens.measures.reference`).

The examples give the judgments as the text of a JSON lines file and the run as
``{topic: {"references": [...], "answer": [...]}}`` (a TREC RAG 2024 record per topic).

>>> len(DOCS)
22
"""

from __future__ import annotations

import json
from typing import Any

from ranklens.measures.reference_model import MeasureExample, doc


def _lines(*records: dict[str, Any]) -> str:
    return "".join(json.dumps(r) + "\n" for r in records)


def _nugget(text: str, importance: str, assignment: str) -> dict[str, str]:
    return {"text": text, "importance": importance, "assignment": assignment}


ASSIGNMENTS = _lines(
    {
        "qid": "q1",
        "nuggets": [
            _nugget("Paris is the capital", "vital", "support"),
            _nugget("on the Seine", "vital", "partial_support"),
            _nugget("largest city", "okay", "support"),
            _nugget("founded by the Parisii", "okay", "not_support"),
        ],
    },
    {
        "qid": "q2",
        "nuggets": [
            _nugget("Lyon is second", "vital", "not_support"),
            _nugget("on the Rhone", "okay", "partial_support"),
        ],
    },
)
NUGGET_RUN: Any = {
    "q1": {"answer": "Paris, on the Seine, is the capital and largest city."},
    "q2": {"answer": "Lyon lies on the Rhone."},
}
_NUGGET_SETTING = (
    "q1 has two vital nuggets, supported and partially supported, and two okay ones, "
    "supported and not; q2 a vital nugget not supported and an okay one partially."
)
_NUGGETIZER = (
    "castorini/nuggetizer: calculate_nugget_scores' {name}, the same value to the last bit "
    "(labels outside the defined sets as its scorer treats them); the weighted scores as "
    "NamaWho/pyterrier-nuggetizer; ranklens.rag.nugget_scores gives all six"
)
_NUGGET_NOTES = (
    "Reads nugget assignments (nuggetizer's format) as the judgments, or a file of them as "
    "the run (its answers); unknown='ignore' leaves out nuggets with labels outside the "
    "defined sets, unknown='error' refuses them. A topic judged but not answered scores 0."
)


def _nugget_doc(measure: str, alias: str, expected: float, narration: str) -> Any:
    return doc(
        MeasureExample(
            measure, ASSIGNMENTS, NUGGET_RUN, expected, f"{_NUGGET_SETTING} {narration}"
        ),
        _NUGGET_NOTES,
        other=_NUGGETIZER.format(name=alias),
    )


SUPPORT = _lines(
    {"topic_id": "q1", "sentence": 0, "segment": "s1", "support": "FS"},
    {"topic_id": "q1", "sentence": 0, "segment": "s2", "support": "PS"},
    {"topic_id": "q1", "sentence": 1, "segment": "s3", "support": "NS"},
    {"topic_id": "q2", "sentence": 0, "segment": "s1", "support": "PS"},
)
CITED_RUN: Any = {
    "q1": {
        "references": ["s1", "s2", "s3"],
        "answer": [
            {"text": "Paris is the capital.", "citations": [0, 1]},
            {"text": "It is in France.", "citations": [2, 5]},
            {"text": "It is big.", "citations": []},
        ],
    },
    "q2": {
        "references": ["s1", "s1", "s2"],
        "answer": [{"text": "Lyon is second.", "citations": [0]}],
    },
}
_CITED_SETTING = (
    "q1's three sentences cite s1 and s2, s3 and the dangling index 5, and nothing; q2's one "
    "sentence cites s1, and its references list s1 twice."
)
_SUPPORT_SETTING = (
    f"{_CITED_SETTING} The judgments: q1 sentence 1 fully supported by s1, partially by s2, "
    "sentence 2 not by s3 (the dangling citation is not judged); q2's sentence partially."
)
_SUPPORT_OTHER = (
    "TREC 2024 RAG's support evaluation (Thakur et al., SIGIR 2025): weighted {which}, "
    "from the track's support_eval output; no public scorer"
)
_CITATION_OTHER = "no common tool: counted from the run's citations (TREC RAG's run format)"

GOLD = _lines(
    {"qid": "q1", "answers": ["Eiffel Tower", "La tour Eiffel"]},
    {"qid": "q2", "answers": ["4"]},
    {"qid": "q3", "answers": ["1889"]},
)
GOLD_RUN: Any = {"q1": {"answer": "The Eiffel Tower!"}, "q2": {"answer": "4 legs"}}
_GOLD_SETTING = (
    "q1 answers 'The Eiffel Tower!' to the gold answers 'Eiffel Tower' and 'La tour "
    "Eiffel', q2 '4 legs' to '4'; q3 is not answered (an empty answer)."
)

SEGMENTS = _lines(
    {
        "qid": "q1",
        "docid": "s1",
        "nuggets": [
            _nugget("A", "vital", "support"),
            _nugget("B", "vital", "not_support"),
            _nugget("C", "okay", "not_support"),
        ],
    },
    {
        "qid": "q1",
        "docid": "s2",
        "nuggets": [
            _nugget("A", "vital", "not_support"),
            _nugget("B", "vital", "partial_support"),
            _nugget("C", "okay", "support"),
        ],
    },
    {
        "qid": "q1",
        "docid": "s3",
        "nuggets": [
            _nugget("A", "vital", "not_support"),
            _nugget("B", "vital", "support"),
            _nugget("C", "okay", "not_support"),
        ],
    },
    {"qid": "q2", "docid": "s9", "nuggets": [_nugget("D", "vital", "support")]},
)
COVERAGE_RUN: Any = {"q1": {"references": ["s2", "s1", "s2", "s3"], "answer": []}}

DOCS = {
    "NuggetVitalStrict": _nugget_doc(
        "NuggetVitalStrict",
        "strict_vital_score",
        (1 / 2 + 0 / 1) / 2,
        "Vital, strict: q1 1/2 (the partial support earns 0), q2 0/1; the mean is 0.25.",
    ),
    "NuggetVital": _nugget_doc(
        "NuggetVital",
        "vital_score",
        ((1 + 0.5) / 2 + 0 / 1) / 2,
        "Vital: q1 (1 + 1/2) / 2 = 0.75, q2 0/1; the mean is 0.375.",
    ),
    "NuggetWeightedStrict": _nugget_doc(
        "NuggetWeightedStrict",
        "strict_weighted_score",
        ((1 + 0.5 * 1) / (2 + 0.5 * 2) + 0) / 2,
        "Weighted, strict: q1 (1 + 1/2 x 1) / (2 + 1/2 x 2) = 0.5, q2 0 / 1.5; the mean is 0.25.",
    ),
    "NuggetWeighted": _nugget_doc(
        "NuggetWeighted",
        "weighted_score",
        ((1 + 0.5 + 0.5 * 1) / (2 + 0.5 * 2) + (0.5 * 0.5) / (1 + 0.5)) / 2,
        "Weighted: q1 (1 + 1/2 + 1/2 x 1) / 3 = 2/3, q2 (1/2 x 1/2) / 1.5 = 1/6; the mean is 5/12.",
    ),
    "NuggetAllStrict": _nugget_doc(
        "NuggetAllStrict",
        "strict_all_score",
        (2 / 4 + 0 / 2) / 2,
        "All, strict: q1 2/4, q2 0/2; the mean is 0.25.",
    ),
    "NuggetAll": _nugget_doc(
        "NuggetAll",
        "all_score",
        ((1 + 0.5 + 1 + 0) / 4 + 0.5 / 2) / 2,
        "All: q1 (1 + 1/2 + 1 + 0) / 4 = 0.625, q2 (0 + 1/2) / 2 = 0.25; the mean is 0.4375.",
    ),
    "SupportPrecision": doc(
        MeasureExample(
            "SupportPrecision",
            SUPPORT,
            CITED_RUN,
            ((1 + 0.5 + 0) / 3 + 0.5 / 1) / 2,
            f"{_SUPPORT_SETTING} q1: (1 + 1/2 + 0) / 3 judged pairs = 0.5; q2: 1/2; the mean "
            "is 0.5.",
        ),
        "A citation without a judgment is left out; unknown='ignore' also leaves out labels "
        "outside FS/PS/NS, which by default weigh 0.",
        other=_SUPPORT_OTHER.format(which="precision"),
    ),
    "SupportRecall": doc(
        MeasureExample(
            "SupportRecall",
            SUPPORT,
            CITED_RUN,
            ((1 + 0 + 0) / 3 + 0.5 / 1) / 2,
            f"{_SUPPORT_SETTING} q1: (max(1, 1/2) + 0 + 0) / 3 sentences = 1/3; q2: 1/2; the "
            "mean is 5/12.",
        ),
        "A sentence without a judged citation adds 0.",
        other=_SUPPORT_OTHER.format(which="recall"),
    ),
    "CitedSentences": doc(
        MeasureExample(
            "CitedSentences",
            SUPPORT,
            CITED_RUN,
            (2 / 3 + 1) / 2,
            f"{_CITED_SETTING} q1: 2 of 3 sentences cite, q2: 1 of 1; the mean is 5/6.",
        ),
        "Reads no judgment (those given are not used): the run's topics are evaluated.",
        other=_CITATION_OTHER,
    ),
    "CitationsPerSentence": doc(
        MeasureExample(
            "CitationsPerSentence",
            SUPPORT,
            CITED_RUN,
            ((2 + 2 + 0) / 3 + 1) / 2,
            f"{_CITED_SETTING} q1: (2 + 2 + 0) / 3, q2: 1; the mean is 7/6.",
        ),
        "Reads no judgment; a dangling citation counts.",
        other=_CITATION_OTHER,
    ),
    "DanglingCitations": doc(
        MeasureExample(
            "DanglingCitations",
            SUPPORT,
            CITED_RUN,
            (1 + 0) / 2,
            f"{_CITED_SETTING} q1 cites index 5 of 3 references, q2 nothing dangling; the "
            "mean is 0.5.",
        ),
        "Reads no judgment. In TREC RAG 2025's layout (citations as segment ids) a cited "
        "segment that is not among the references is dangling.",
        other=_CITATION_OTHER,
    ),
    "RepeatedReferences": doc(
        MeasureExample(
            "RepeatedReferences",
            SUPPORT,
            CITED_RUN,
            (0 + 1) / 2,
            f"{_CITED_SETTING} q1 repeats none of its 3 references, q2 one of its 3; the "
            "mean is 0.5.",
        ),
        "Reads no judgment.",
        other=_CITATION_OTHER,
    ),
    "AnswerWords": doc(
        MeasureExample(
            "AnswerWords",
            SUPPORT,
            CITED_RUN,
            (11 + 3) / 2,
            f"{_CITED_SETTING} q1 has 4 + 4 + 3 = 11 words, q2 3; the mean is 7.",
        ),
        "Reads no judgment; the run's own response_length is not used.",
        other="TREC RAG's response_length field counts words its own way (it may differ)",
    ),
    "WordLimit": doc(
        MeasureExample(
            "WordLimit(limit=10)",
            SUPPORT,
            CITED_RUN,
            (0 + 1) / 2,
            f"{_CITED_SETTING} q1's 11 words exceed 10, q2's 3 do not; the mean is 0.5.",
        ),
        "Reads no judgment.",
        other="TREC RAG's 400-word limit on answers",
    ),
    "EM": doc(
        MeasureExample(
            "EM",
            GOLD,
            GOLD_RUN,
            (1 + 0 + 0) / 3,
            f"{_GOLD_SETTING} q1 normalises to 'eiffel tower' (no article, no punctuation): "
            "1; q2 '4 legs' is not '4': 0; q3: 0; the mean is 1/3.",
        ),
        "On answers, the measure language's EM; evaluate(gold, {topic: text}, ['EM']).",
        other="the SQuAD 2.0 evaluation script's exact scores (max over gold answers); "
        "pyterrier_rag's EM",
    ),
    "TokenF1": doc(
        MeasureExample(
            "TokenF1",
            GOLD,
            GOLD_RUN,
            (1 + 2 * 0.5 * 1 / (0.5 + 1) + 0) / 3,
            f"{_GOLD_SETTING} q1: 1; q2: P = 1/2, R = 1, F1 = 2/3; q3: 0; the mean is 5/9.",
        ),
        "Evaluated on answers, the name F1 means this measure (results['F1']).",
        other="the SQuAD 2.0 evaluation script's f1 scores (max over gold answers); "
        "pyterrier_rag's F1",
    ),
    "ROUGE-1": doc(
        MeasureExample(
            "ROUGE-1(stat='r')",
            GOLD,
            GOLD_RUN,
            (1 + 1 + 0) / 3,
            f"{_GOLD_SETTING} q1: the gold answer with the best F is 'Eiffel Tower', both of "
            "whose unigrams the answer has: R = 1; q2: R = 1 ('legs' stems to 'leg'); q3: 0; "
            "the mean is 2/3.",
        ),
        "Needs nltk for stem=True (pip install 'ranklens[rag]').",
        other="rouge_score.rouge_scorer.RougeScorer(['rouge1'], use_stemmer=True)"
        ".score_multi(gold, answer)['rouge1'].recall",
    ),
    "ROUGE-2": doc(
        MeasureExample(
            "ROUGE-2",
            GOLD,
            GOLD_RUN,
            (2 * 0.5 * 1 / (0.5 + 1) + 0 + 0) / 3,
            f"{_GOLD_SETTING} q1: one of the answer's 2 bigrams is the gold answer's: P = 1/2, "
            "R = 1, F = 2/3; q2: '4' has no bigram: 0; q3: 0; the mean is 2/9.",
        ),
        "Needs nltk for stem=True (pip install 'ranklens[rag]').",
        other="rouge_score.rouge_scorer.RougeScorer(['rouge2'], use_stemmer=True)"
        ".score_multi(gold, answer)['rouge2'].fmeasure",
    ),
    "ROUGE-L": doc(
        MeasureExample(
            "ROUGE-L",
            GOLD,
            GOLD_RUN,
            (0.8 + 2 * 0.5 / 1.5 + 0) / 3,
            f"{_GOLD_SETTING} q1: LCS 2 of 3 answer and 2 gold tokens, F = 0.8 ('La tour "
            "Eiffel' gives 1/3); q2: LCS 1, P = 1/2, R = 1, F = 2/3; q3: 0; the mean is 22/45.",
        ),
        "Needs nltk for stem=True (pip install 'ranklens[rag]').",
        other="rouge_score.rouge_scorer.RougeScorer(['rougeL'], use_stemmer=True)"
        ".score_multi(gold, answer)['rougeL'].fmeasure",
    ),
    "NuggetCoverage": doc(
        MeasureExample(
            "NuggetCoverage@2",
            SEGMENTS,
            COVERAGE_RUN,
            ((1 + 0.5 + 0.5 * 1) / 2.5 + 0) / 2,
            "q1's references s2, s1, s2, s3 (the repeated s2 counts once): in the top 2, s1 "
            "supports vital A, s2 okay C and partially vital B (s3, which supports B, is "
            "third): (1 + 1/2 + 1/2 x 1) / (1 + 1 + 1/2) = 0.8; q2 is not answered: 0; the "
            "mean is 0.4.",
        ),
        "Reads nuggetizer's assignments of nuggets to segments (retrieval mode) and the "
        "answers' references; ranklens.rag.nugget_qrels gives the same judgments as "
        "subtopics for alpha_nDCG, ERR_IA and StRecall.",
        other="no common tool; the coverage of nuggets by a ranking, nuggets as subtopics "
        "(as the diversity measures' subtopic recall), vital-weighted",
    ),
    "ContextPrecision": doc(
        MeasureExample(
            "ContextPrecision",
            {"q1": {"s1": 1, "s2": 0, "s4": 2}, "q2": {"s9": 1}},
            {"q1": {"s1": 3.0, "s2": 2.0, "s3": 2.0}},
            (1 / 3 + 0) / 2,
            "q1 retrieves s1 (relevant), s2 (judged not relevant) and s3 (unjudged): 1/3; q2 "
            "is missing from the run: 0; the mean is 1/6.",
        ),
        "A ranking measure: give a RAG run's references with ranklens.rag.references(run).",
        trec_eval="set_P on the references",
        other="ragas IDBasedContextPrecision (retrieved_context_ids, reference_context_ids); "
        "RAGAS gives no value for an empty retrieval, ranklens 0",
    ),
    "ContextRecall": doc(
        MeasureExample(
            "ContextRecall",
            {"q1": {"s1": 1, "s2": 0, "s4": 2}, "q2": {"s9": 1}},
            {"q1": {"s1": 3.0, "s2": 2.0, "s3": 2.0}},
            (1 / 2 + 0) / 2,
            "q1's relevant segments are s1 and s4, of which s1 is retrieved: 1/2; q2 is missing "
            "from the run: 0; the mean is 1/4.",
        ),
        "A ranking measure: give a RAG run's references with ranklens.rag.references(run).",
        trec_eval="set_recall on the references",
        other="ragas IDBasedContextRecall; RAGAS gives no value without reference ids, ranklens 0",
    ),
}
