"""Generated answers (retrieval-augmented generation): their inputs, their measures and the
tools around them, in one place (see ``docs/rag.md``).

The measures of answers are ordinary measures of the measure language
(:mod:`ranklens.measures.catalog_rag`): ``ranklens.evaluate``, ``ranklens.compare``,
``ranklens.leaderboard_agreement``, ``ranklens.ppi_mean`` and the rest take them with the
judgments of answers in place of qrels and RAG runs in place of runs. This module adds the
readers, the one call of nuggetizer's scorer (:func:`nugget_scores`), and the conversions
that hand answers to the tools of rankings and of judges: the references of a RAG run as
a ranking (:func:`references`), nuggets as subtopics (:func:`nugget_qrels`), nugget
assignments as graded judgments (:func:`assignment_qrels`).

>>> import ranklens
>>> res = ranklens.rag.nugget_scores([{"qid": "q1", "nuggets": [
...     {"text": "a", "importance": "vital", "assignment": "support"},
...     {"text": "b", "importance": "okay", "assignment": "partial_support"}]}])
>>> res.per_query["q1"]["vital_score"], res.per_query["q1"]["all_score"]
(1.0, 0.75)
"""

from __future__ import annotations

from ranklens.base.errors import InputError, OptionError
from ranklens.base.types import QUERY_POLICIES, QueryPolicy
from ranklens.data.qrels import Qrels
from ranklens.data.rag.answers import Answer, RagRun, read_answers, read_rag_runs
from ranklens.data.rag.example import example_records, write_example
from ranklens.data.rag.gold import GoldAnswers, read_gold
from ranklens.data.rag.judgments import RagJudgments, rag_judgments, read_rag_judgments
from ranklens.data.rag.nuggets import (
    ASSIGNMENT,
    IMPORTANCE,
    NuggetSet,
    SegmentNuggets,
    assignment_code,
    read_assignments,
    read_nuggets,
    read_segment_assignments,
)
from ranklens.data.rag.support import SUPPORT_LABELS, SupportSet, read_support
from ranklens.data.run import Run
from ranklens.data.subtopics import SubtopicQrels
from ranklens.evaluation.answers import read_answer_run, runs_from_assignments
from ranklens.evaluation.evaluator import Evaluator
from ranklens.evaluation.results import Results
from ranklens.kernels.rag_nuggets import UNKNOWN_POLICIES

__all__ = [
    "ASSIGNMENT",
    "IMPORTANCE",
    "NUGGET_MEASURES",
    "SUPPORT_LABELS",
    "Answer",
    "GoldAnswers",
    "NuggetSet",
    "RagJudgments",
    "RagRun",
    "SegmentNuggets",
    "SupportSet",
    "assignment_qrels",
    "example_records",
    "judgments",
    "nugget_qrels",
    "nugget_scores",
    "read_answer_run",
    "read_answers",
    "read_assignments",
    "read_gold",
    "read_judgments",
    "read_nuggets",
    "read_rag_runs",
    "read_segment_assignments",
    "read_support",
    "references",
    "write_example",
]

NUGGET_MEASURES = (
    "NuggetVitalStrict",
    "NuggetVital",
    "NuggetWeightedStrict",
    "NuggetWeighted",
    "NuggetAllStrict",
    "NuggetAll",
)
"""The six nugget scores, in the order of nuggetizer's metrics file
(``strict_vital_score``, ``vital_score``, ``strict_weighted_score``, ``weighted_score``,
``strict_all_score``, ``all_score``; each measure answers to that name too)."""

judgments = rag_judgments
read_judgments = read_rag_judgments


def nugget_scores(
    assignments: object,
    *,
    nuggets: object = None,
    run: str | None = None,
    unknown: str = "nuggetizer",
    queries: QueryPolicy = "qrels",
) -> Results:
    """The six nugget scores of one run's answers, per topic and their means, as
    castorini/nuggetizer's scorer computes them (``calculate_nugget_scores`` and
    ``calculate_global_metrics``).

    Parameters
    ----------
    assignments
        Nugget assignments in nuggetizer's format: a path (JSON lines), a file object,
        records (dicts) or a table with one row per nugget.
    nuggets
        Optionally, the nuggets file: then its topics are the ones evaluated (a topic the
        run's assignments lack scores 0, as an empty answer), instead of the assigned ones.
    run
        The run to score when the assignments hold several (by ``run_id``).
    unknown
        Labels outside vital/okay and support/partial_support/not_support:
        ``"nuggetizer"`` (default: scored as nuggetizer does), ``"ignore"`` (left out) or
        ``"error"``.
    queries
        As for :func:`ranklens.evaluate`.

    Returns
    -------
    Results
        One column per score (:data:`NUGGET_MEASURES`); ``per_query[topic]`` answers to
        nuggetizer's names (``"vital_score"``, ``"strict_all_score"``, ...) as well.

    Raises
    ------
    OptionError
        The assignments hold several runs and ``run`` names none of them.
    """
    if unknown not in UNKNOWN_POLICIES:
        raise OptionError(f"unknown must be one of {list(UNKNOWN_POLICIES)}, not {unknown!r}")
    runs = runs_from_assignments(assignments)
    chosen = runs[0]
    if len(runs) > 1 or run is not None:
        names = [r.name for r in runs]
        listed = ", ".join(repr(n) for n in names)
        if run is not None and run not in names:
            held = f"runs {listed}" if len(names) > 1 else f"one run, {listed}"
            raise OptionError(
                f"the assignments hold no run named {run!r}; they hold {held} (run=...)"
            )
        if run is None:
            raise OptionError(
                f"the assignments hold runs {listed}: name the one to score (run=...)"
            )
        chosen = runs[names.index(run)]
    suffix = "" if unknown == "nuggetizer" else f"(unknown={unknown!r})"
    measures = [m + suffix for m in NUGGET_MEASURES]
    if queries not in QUERY_POLICIES:
        raise OptionError(f"queries must be one of {list(QUERY_POLICIES)}, not {queries!r}")
    evaluator = Evaluator(nuggets, measures, queries=queries)
    return evaluator.evaluate(chosen)


def references(run: object, name: str | None = None) -> Run:
    """The references of a RAG run's answers (the segments each answer was generated from)
    as a ranking, for the measures of rankings: ``nDCG@10``, ``ContextPrecision``,
    ``alpha_nDCG@10`` with :func:`nugget_qrels`, ... The order is the references' order; a
    segment listed twice keeps its first place.

    >>> references({"q1": {"references": ["s1", "s2", "s1"], "answer": []}}).to_dict()
    {'q1': {'s1': 3.0, 's2': 2.0}}
    """
    rag = read_answer_run(run, name)
    records = [
        (a.topic, segment, float(len(a.references) - i))
        for a in rag
        for i, segment in enumerate(a.references)
    ]
    if not records:
        raise InputError(f"run '{rag.name}' has no references: no ranking to evaluate")
    return Run.from_records(records, name=rag.name, duplicates="first")


def nugget_qrels(segments: object, *, partial: bool = False) -> SubtopicQrels:
    """Nuggets as the subtopics of the diversity measures: topic, nugget (its position in
    the topic's list), segment, 1 when the segment supports the nugget (with ``partial``,
    a partial support too), from nuggetizer's assignments of nuggets to retrieved
    segments. Evaluate a ranking of segments with them: ``alpha_nDCG@10``,
    ``StRecall@10``, ``ERR_IA@10`` (with :func:`references` for a RAG run's).

    >>> sq = nugget_qrels([{"qid": "q1", "docid": "s1", "nuggets": [
    ...     {"text": "a", "importance": "vital", "assignment": "support"},
    ...     {"text": "b", "importance": "okay", "assignment": "not_support"}]}])
    >>> sq.qids, sq.num_subtopics.tolist()
    (('q1',), [1])
    """
    read = read_segment_assignments(segments)
    mapping: dict[str, dict[str, dict[object, int]]] = {}
    for topic in read:
        docs = mapping.setdefault(topic.topic, {})
        for segment, labels in topic.segments.items():
            grades: dict[object, int] = {}
            for i, label in enumerate(labels):
                code = assignment_code(label)
                grades[str(i + 1)] = int(code == 0 or (partial and code == 1))
            docs[segment] = grades
    return SubtopicQrels.from_dict(mapping, source=read.source or "<nugget assignments>")


def assignment_qrels(
    assignments: object, *, run: str | None = None, unknown: str = "nuggetizer"
) -> Qrels:
    """Nugget assignments as graded judgments, to compare two judges' assignments with
    :func:`ranklens.agreement` (Cohen's kappa, Krippendorff's alpha, the confusion matrix):
    query = the topic (``run/topic`` when several runs are given), document = the nugget's
    text (``text #2`` for a repeated one), grade 2 ``support``, 1 ``partial_support``, 0
    ``not_support``. ``unknown``: an unknown assignment is graded 0 as nuggetizer scores it
    (``"nuggetizer"``), left out (``"ignore"``) or refused (``"error"``).

    >>> a = assignment_qrels([{"qid": "q1", "nuggets": [
    ...     {"text": "a", "importance": "vital", "assignment": "partial_support"}]}])
    >>> a.to_dict()
    {'q1': {'a': 1}}
    """
    if unknown not in UNKNOWN_POLICIES:
        raise OptionError(f"unknown must be one of {list(UNKNOWN_POLICIES)}, not {unknown!r}")
    sets = read_assignments(assignments)
    if run is not None:
        sets = tuple(s for s in sets if s.name == run)
        if not sets:
            raise OptionError(f"the assignments hold no run named {run!r}")
    records: list[tuple[str, str, int]] = []
    for judged in sets:
        for topic in judged:
            qid = topic.topic if len(sets) == 1 else f"{judged.name}/{topic.topic}"
            seen: dict[str, int] = {}
            for text, label in zip(topic.texts, topic.assignment or (), strict=True):
                seen[text] = seen.get(text, 0) + 1
                doc = text if seen[text] == 1 else f"{text} #{seen[text]}"
                code = assignment_code(label)
                if code == 3:
                    if unknown == "error":
                        raise InputError(
                            f"topic '{topic.topic}' assigns nugget {text!r:.40} the label "
                            f"{label!r}, outside support/partial_support/not_support",
                            path=judged.source,
                            line=topic.line,
                        )
                    if unknown == "ignore":
                        continue
                records.append((qid, doc, {0: 2, 1: 1}.get(code, 0)))
    if not records:
        raise InputError("the assignments hold no nugget to compare")
    return Qrels.from_records(records, source=sets[0].source or "<nugget assignments>")
