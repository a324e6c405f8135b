"""The declarations of the measures of generated answers (retrieval-augmented
generation): nugget scores (TREC RAG 2024/2025's AutoNuggetizer, castorini/nuggetizer),
support precision and recall of citations (TREC 2024 RAG's support evaluation), what the
citations show without judgments, answers against gold answers (SQuAD's exact match and
F1, ``rouge-score``'s ROUGE), the nugget coverage of an answer's references, and the
id-based context precision and recall of RAGAS over a run's references.

These read a run's answers (``rankings="answer"``) joined with their judgments
(:mod:`ranklens.data.rag.view`), and are evaluated by :mod:`ranklens.evaluation.answers`,
apart from the measures of rankings; ``ContextPrecision`` and ``ContextRecall`` are
ordinary measures of a ranking (the references, :func:`ranklens.rag.references`).

>>> from ranklens.measures import parse_measure
>>> str(parse_measure("vital_score")), str(parse_measure("ROUGE-L(stat='p')"))
('NuggetVital', "ROUGE-L(stat='p')")
"""

from __future__ import annotations

from dataclasses import replace
from types import ModuleType
from typing import Any

import numpy as np

from ranklens.base.errors import InputError
from ranklens.kernels import precision as pr
from ranklens.kernels.options import (
    CITATION_UNKNOWN_POLICIES,
    NUGGET_SETS,
    NUGGET_UNKNOWN_POLICIES,
    ROUGE_STATS,
)
from ranklens.measures.base import Kernel, Measure, MeasureSpec, Param


def _nuggets() -> ModuleType:
    """The kernels of the nugget measures, imported when one is first computed (see
    :class:`~ranklens.measures.base.KernelRef`)."""
    from ranklens.kernels import rag_nuggets

    return rag_nuggets


def _citations() -> ModuleType:
    """The kernels of the citation measures, imported as :func:`_nuggets`."""
    from ranklens.kernels import rag_citations

    return rag_citations


def _text() -> ModuleType:
    """The kernels of the text measures, imported as :func:`_nuggets`."""
    from ranklens.kernels import rag_text

    return rag_text


INF = float("inf")

NUGGET_UNKNOWN = Param(
    "unknown",
    str,
    "nuggetizer",
    "labels outside vital/okay and support/partial_support/not_support: 'nuggetizer' (as "
    "its scorer: a nugget of any importance counts among all nuggets, an unknown "
    "assignment earns 0), 'ignore' (such nuggets are left out) or 'error' (refused, naming "
    "the file and line)",
    choices=NUGGET_UNKNOWN_POLICIES,
)
SUPPORT_UNKNOWN = Param(
    "unknown",
    str,
    "zero",
    "support labels other than full/partial/no support (the judge's unreadable replies): "
    "'zero' (a judged citation with no support), 'ignore' (left out, as unjudged) or "
    "'error' (refused, naming the file and line)",
    choices=CITATION_UNKNOWN_POLICIES,
)
STAT = Param(
    "stat",
    str,
    "f",
    "'f' (F-measure), 'p' (precision: over the answer's tokens) or 'r' (recall: over the "
    "gold answer's)",
    choices=ROUGE_STATS,
)
STEM = Param(
    "stem",
    bool,
    True,
    "stem tokens longer than 3 characters with NLTK's Porter stemmer (rouge-score's "
    "use_stemmer=True; needs nltk, pip install 'ranklens[rag]')",
)
STRICT = Param(
    "strict", bool, False, "count full support only (a partially supported nugget earns 0)"
)
NUGGETS = Param(
    "nuggets",
    str,
    "weighted",
    "which nuggets: 'weighted' (vital 1, okay 1/2), 'vital' or 'all' (each 1)",
    choices=NUGGET_SETS,
)
LIMIT = Param("limit", int, 400, "the word limit (TREC RAG: 400)", minimum=1)
REL = Param("rel", int, 1, "minimum grade of a relevant (reference) segment", minimum=1)

_NUGGETIZER = (
    "Reference: Pradeep, Thakur, Upadhyay, Campos, Craswell and Lin, Initial Nugget "
    "Evaluation Results for the TREC 2024 RAG Track with the AutoNuggetizer Framework "
    "(arXiv:2411.09607), and castorini/nuggetizer's metrics.py; the weighted scores as "
    "NamaWho/pyterrier-nuggetizer"
)
_SUPPORT = (
    "Reference: Thakur, Pradeep, Upadhyay, Campos, Craswell and Lin, Support Evaluation "
    "for the TREC 2024 RAG Track: Comparing Human versus LLM Judges (SIGIR 2025, "
    "arXiv:2504.15205)"
)
_SQUAD = (
    "Reference: Rajpurkar, Jia and Liang, Know What You Don't Know (ACL 2018), the SQuAD "
    "2.0 evaluation script"
)
_ROUGE = (
    "Reference: Lin, ROUGE (2004), as google-research's rouge-score package computes it "
    "(RougeScorer(use_stemmer=True).score_multi)"
)


def _nugget_kernel(nuggets: str, strict: bool) -> Kernel:
    def kernel(view: Any, unknown: str) -> Any:
        arrays = view.nuggets
        return _nuggets().nugget_score(
            arrays.importance, arrays.assignment, arrays.offsets, nuggets, strict, unknown
        )

    return kernel


def _nugget_spec(nuggets: str, strict: bool, alias: str) -> MeasureSpec:
    over = {
        "vital": "the vital nuggets",
        "weighted": "all nuggets, vital weighing 1 and okay 1/2",
        "all": "all nuggets",
    }[nuggets]
    credit = (
        "supported 1 (strict: partial support earns 0)"
        if strict
        else ("supported 1, partially supported 1/2")
    )
    formula = {
        "vital": "sum_{vital n} c_n / |vital|",
        "weighted": "(sum_{vital n} c_n + 1/2 sum_{okay n} c_n) / (|vital| + 1/2 |okay|)",
        "all": "sum_{n} c_n / |nuggets|",
    }[nuggets]
    name = "Nugget" + nuggets.capitalize() + ("Strict" if strict else "")
    return MeasureSpec(
        name,
        f"the answer's nugget score over {over} (AutoNuggetizer, nuggetizer's {alias})",
        f"{formula}, with c_n = 1 if nugget n is assigned support, "
        + ("else 0 (strict)" if strict else "1/2 if partial_support, else 0")
        + f"; 0 when the denominator is 0; credit: {credit}. {_NUGGETIZER}",
        _nugget_kernel(nuggets, strict),
        (NUGGET_UNKNOWN,),
        None,
        aliases=(alias,),
        judgments="assignments",
        rankings="answer",
    )


def _support_precision(view: Any, unknown: str) -> Any:
    s = view.support
    return _citations().support_precision(s.label, s.pair_offsets, unknown)


def _support_recall(view: Any, unknown: str) -> Any:
    s = view.support
    return _citations().support_recall(
        s.label, s.pair_sentence, s.pair_offsets, s.sentence_offsets, unknown
    )


def _cited(view: Any) -> Any:
    c = view.citations
    return _citations().cited_share(c.citations, c.sentence_offsets)


def _per_sentence(view: Any) -> Any:
    c = view.citations
    return _citations().per_sentence(c.citations, c.sentence_offsets)


def _dangling(view: Any) -> Any:
    c = view.citations
    return _citations().summed(c.dangling, c.sentence_offsets)


def _repeated(view: Any) -> Any:
    c = view.citations
    return (c.references - c.distinct_references).astype(np.float64)


def _words(view: Any) -> Any:
    return _text().answer_words(view.texts)


def _within(view: Any, limit: int) -> Any:
    words = np.array([len(t.split()) for t in view.texts], dtype=np.int64)
    return _citations().within_limit(words, limit)


def _em(view: Any) -> Any:
    return _text().exact_match(view.texts, view.gold)


def _f1(view: Any) -> Any:
    return _text().token_f1(view.texts, view.gold)


def _rouge(kind: str) -> Kernel:
    def kernel(view: Any, stat: str, stem: bool) -> Any:
        return _text().rouge(view.texts, view.gold, kind, stat, stem)

    return kernel


def _coverage(view: Any, nuggets: str, strict: bool, unknown: str, cutoff: int | None) -> Any:
    c = view.coverage
    return _nuggets().nugget_coverage(
        c.importance, c.rank, c.partial_rank, c.offsets, nuggets, strict, unknown, cutoff
    )


_CITED_NOTE = "an index outside the references, or a segment id that is not among them, is dangling"

SPECS: tuple[MeasureSpec, ...] = (
    _nugget_spec("vital", True, "strict_vital_score"),
    _nugget_spec("vital", False, "vital_score"),
    _nugget_spec("weighted", True, "strict_weighted_score"),
    _nugget_spec("weighted", False, "weighted_score"),
    _nugget_spec("all", True, "strict_all_score"),
    _nugget_spec("all", False, "all_score"),
    MeasureSpec(
        "SupportPrecision",
        "weighted support precision: how well the cited segments support their sentences",
        "sum over the judged (sentence, cited segment) pairs of w / their number, w = 1 "
        "full support, 1/2 partial, 0 none; a citation without a judgment is left out; 0 "
        f"when none is judged. {_SUPPORT}",
        _support_precision,
        (SUPPORT_UNKNOWN,),
        None,
        aliases=("weighted_precision",),
        judgments="support",
        rankings="answer",
    ),
    MeasureSpec(
        "SupportRecall",
        "weighted support recall: how much of the answer its citations support",
        "sum over the answer's sentences of the best w of its judged citations (0 without "
        "any) / the number of sentences, w = 1 full support, 1/2 partial, 0 none; 0 for an "
        f"answer without sentences. {_SUPPORT}",
        _support_recall,
        (SUPPORT_UNKNOWN,),
        None,
        aliases=("weighted_recall",),
        judgments="support",
        rankings="answer",
    ),
    MeasureSpec(
        "CitedSentences",
        "the share of the answer's sentences that cite at least one segment",
        "|{sentences with a citation}| / |sentences|; 0 for an answer without sentences",
        _cited,
        judgments="none",
        rankings="answer",
        no_rel_value=None,
    ),
    MeasureSpec(
        "CitationsPerSentence",
        "the mean number of citations of the answer's sentences",
        "sum over sentences of |citations| / |sentences|; 0 for an answer without sentences",
        _per_sentence,
        bounds=(0.0, INF),
        judgments="none",
        rankings="answer",
        no_rel_value=None,
    ),
    MeasureSpec(
        "DanglingCitations",
        "the number of the answer's citations that point at no reference",
        f"|{{citations not in the references}}|: {_CITED_NOTE}",
        _dangling,
        bounds=(0.0, INF),
        higher_is_better=False,
        judgments="none",
        rankings="answer",
        no_rel_value=None,
    ),
    MeasureSpec(
        "RepeatedReferences",
        "the number of repeated entries in the answer's references",
        "|references| - |distinct references|",
        _repeated,
        bounds=(0.0, INF),
        higher_is_better=False,
        judgments="none",
        rankings="answer",
        no_rel_value=None,
    ),
    MeasureSpec(
        "AnswerWords",
        "the answer's length in words (lower counts as better: more concise)",
        "the number of white-space separated words of the answer's sentences joined by "
        "spaces (not the run's own response_length)",
        _words,
        bounds=(0.0, INF),
        judgments="none",
        rankings="answer",
        no_rel_value=None,
        higher_is_better=False,
    ),
    MeasureSpec(
        "WordLimit",
        "1 if the answer keeps to the word limit, else 0",
        "1 if AnswerWords <= limit else 0 (TREC RAG's limit: 400 words)",
        _within,
        (LIMIT,),
        judgments="none",
        rankings="answer",
        no_rel_value=None,
    ),
    MeasureSpec(
        "EM",
        "exact match with a gold answer, after SQuAD's normalisation",
        "max over gold answers g of [normalize(answer) = normalize(g)], normalize: lower "
        "case, no ASCII punctuation, no articles (a, an, the), single spaces; gold answers "
        "normalising to nothing are dropped, none left: g = ''. " + _SQUAD,
        _em,
        aliases=("ExactMatch", "exact_match"),
        judgments="gold",
        rankings="answer",
        no_rel_value=None,
    ),
    MeasureSpec(
        "TokenF1",
        "token F1 with the best gold answer, after SQuAD's normalisation ('F1' on answers)",
        "max over gold answers g of 2 P R / (P + R), P = |common| / |answer tokens|, R = "
        "|common| / |g's tokens| (common: the multiset intersection of the normalised "
        "tokens); 1 if both are empty, 0 if one is. " + _SQUAD,
        _f1,
        aliases=("token_f1",),
        judgments="gold",
        rankings="answer",
        no_rel_value=None,
    ),
    MeasureSpec(
        "ROUGE-1",
        "ROUGE-1 (unigram overlap) with the best gold answer, as rouge-score computes it",
        "P = |shared unigrams| / |answer's|, R = |shared| / |gold's| (with multiplicity), "
        "F = 2PR / (P + R); over gold answers, the one with the best F. " + _ROUGE,
        _rouge("1"),
        (STAT, STEM),
        aliases=("rouge1",),
        judgments="gold",
        rankings="answer",
        no_rel_value=None,
    ),
    MeasureSpec(
        "ROUGE-2",
        "ROUGE-2 (bigram overlap) with the best gold answer, as rouge-score computes it",
        "as ROUGE-1 over bigrams. " + _ROUGE,
        _rouge("2"),
        (STAT, STEM),
        aliases=("rouge2",),
        judgments="gold",
        rankings="answer",
        no_rel_value=None,
    ),
    MeasureSpec(
        "ROUGE-L",
        "ROUGE-L (longest common subsequence) with the best gold answer, as rouge-score",
        "P = LCS / |answer tokens|, R = LCS / |gold tokens|, F = 2PR / (P + R) (0 when "
        "either is empty); over gold answers, the one with the best F. " + _ROUGE,
        _rouge("L"),
        (STAT, STEM),
        aliases=("rougeL",),
        judgments="gold",
        rankings="answer",
        no_rel_value=None,
    ),
    MeasureSpec(
        "NuggetCoverage",
        "the nuggets supported by the answer's top k references, vital-weighted",
        "sum over nuggets n of w_n c_n / sum_n w_n, c_n = 1 if a reference in the top k "
        "supports n, else 1/2 if one partially supports it (strict: 0); w: vital 1, okay "
        "1/2 (nuggets='weighted'), or vital only, or all 1; references in the run's order, "
        "a repeated one counted once; 0 when the weights sum to 0",
        _coverage,
        (NUGGETS, STRICT, NUGGET_UNKNOWN),
        Param("cutoff", int, None, "only the top k references count (k >= 1)", minimum=1),
        judgments="segments",
        rankings="answer",
    ),
    MeasureSpec(
        "ContextPrecision",
        "RAGAS's id-based context precision: the share of the references that are relevant",
        "|retrieved ids in the reference ids| / |retrieved ids| over distinct ids "
        "(trec_eval's set_P with the RAG run's references as the ranking, "
        "ranklens.rag.references); 0 for an empty ranking (RAGAS: no value)",
        lambda r, rel: pr.precision(r, rel, None),
        (REL,),
        None,
    ),
    MeasureSpec(
        "ContextRecall",
        "RAGAS's id-based context recall: the share of the relevant segments retrieved",
        "|retrieved ids in the reference ids| / |reference ids| (trec_eval's set_recall with "
        "the RAG run's references as the ranking); 0 without relevant segments (RAGAS: no "
        "value)",
        lambda r, rel: pr.recall(r, rel, None),
        (REL,),
        None,
    ),
)

READS_CITATIONS = frozenset(
    {
        "SupportPrecision",
        "SupportRecall",
        "CitedSentences",
        "CitationsPerSentence",
        "DanglingCitations",
        "RepeatedReferences",
    }
)
"""The measures that read the answers' citations or references: a run whose answers
came as text only (no citations, no references) is refused for them, not scored 0."""

TOKEN_F1_AS_F1 = replace(next(s for s in SPECS if s.name == "TokenF1"), name="F1", aliases=())
"""``F1`` on answers: the token F1 (the registry's ``F1`` is the F-measure of a ranking).
:mod:`ranklens.evaluation.answers` gives this spelling to the measure ``F1`` when it is
evaluated on answers and gold answers, so ``results["F1"]`` is the token F1 there."""


def answer_spelling(measure: Measure) -> Measure:
    """``measure`` as evaluated on answers: the ranking measure ``F1`` (without
    parameters) is the token F1 there, still called ``F1``; other measures unchanged.

    Raises
    ------
    InputError
        ``F1`` with parameters of the ranking measure (``F1@10``), on answers.
    """
    if measure.spec.name != "F1" or measure.spec.rankings == "answer":
        return measure
    if measure.name != "F1":
        raise InputError(
            f"{measure.name} is the F-measure of a ranking, not a measure of generated "
            "answers: on answers F1 is the token F1, without parameters (or name it "
            f"TokenF1); the measures of answers with gold answers: "
            f"{', '.join(measures_reading('gold'))}"
        )
    return TOKEN_F1_AS_F1.make()


def measures_reading(kind: str) -> tuple[str, ...]:
    """The measures of answers that read judgments of ``kind`` (nugget scores for
    ``"nuggets"`` too: they read the assignments of the topics the nuggets name).

    >>> measures_reading("gold")
    ('EM', 'TokenF1', 'ROUGE-1', 'ROUGE-2', 'ROUGE-L')
    """
    wanted = "assignments" if kind == "nuggets" else kind
    return tuple(s.name for s in SPECS if s.judgments == wanted and s.rankings == "answer")


def is_answer_measure(measure: Measure | MeasureSpec) -> bool:
    """Whether ``measure`` reads generated answers (not a ranking)."""
    spec = measure.spec if isinstance(measure, Measure) else measure
    return spec.rankings == "answer"


READS = {
    "assignments": "nugget assignments of the run's answers (nuggetizer's format; a "
    "nuggets file, if given, names the topics judged)",
    "support": "support judgments of the answers' citations (TREC 2024 RAG's support "
    "evaluation output, or one record per judgment)",
    "gold": "gold answers per topic",
    "segments": "nugget assignments to segments (nuggetizer's retrieval mode) and the "
    "answers' references",
    "none": "the run's answers and citations only (no judgments)",
}


def reads_text(spec: MeasureSpec) -> str:
    """What a measure of answers reads, for its reference entry."""
    return (
        "reads generated answers (TREC RAG 2024/2025 runs, or {topic: text}) and "
        + READS.get(spec.judgments, spec.judgments)
        + "; evaluated apart from the measures of rankings"
    )
