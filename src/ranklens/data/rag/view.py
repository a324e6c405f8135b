"""One run's generated answers joined with their judgments, topic by topic, as the flat
arrays the RAG kernels read (:mod:`ranklens.kernels.rag_nuggets`,
:mod:`ranklens.kernels.rag_citations`, :mod:`ranklens.kernels.rag_text`): what
:func:`ranklens.ranking.align.align` is to a ranking.

A topic the judgments cover but the run does not answer has an empty answer (no text,
no sentence, no citation; its nuggets all ``not_support``). A topic the run answers but
the judgments do not cover has no gold answers, no nuggets and no judged citation.
Unknown labels are counted (with the place of the first) for the evaluator's report and
its ``unknown="error"`` refusal.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from ranklens.base.types import Int64Array
from ranklens.data.rag.answers import Answer, RagRun
from ranklens.data.rag.gold import GoldAnswers
from ranklens.data.rag.nuggets import (
    NuggetSet,
    SegmentNuggets,
    TopicNuggets,
    assignment_code,
    importance_code,
)
from ranklens.data.rag.support import SupportSet, check_pairing, support_code

Int8Array = npt.NDArray[np.int8]
UNJUDGED = 4
"""The support code of a citation without a judgment."""


@dataclass(frozen=True)
class Unknown:
    """Labels outside the defined sets in one evaluation: how many, and the first (its
    file, line, topic and label) for messages."""

    count: int = 0
    path: str | None = None
    line: int | None = None
    topic: str = ""
    label: object = None

    def add(
        self, count: int, path: str | None, line: int | None, topic: str, label: object
    ) -> Unknown:
        """These and ``count`` more, the first of which is described."""
        if count == 0:
            return self
        if self.count:
            return Unknown(self.count + count, self.path, self.line, self.topic, self.label)
        return Unknown(count, path, line, topic, label)


@dataclass(frozen=True)
class NuggetArrays:
    """Nuggets of every evaluated topic: importance and assignment codes, and the offsets
    of each topic's nuggets (``offsets[t]:offsets[t + 1]``)."""

    importance: Int8Array
    assignment: Int8Array
    offsets: Int64Array
    unknown: Unknown = field(default_factory=Unknown)


@dataclass(frozen=True)
class Unmatched:
    """Support judgments that judge no citation of the answer they are for (a sentence past
    the answer's last, or a segment the sentence does not cite): how many, and the first
    (its file, line, topic, sentence and segment) for the warning."""

    count: int = 0
    path: str | None = None
    line: int | None = None
    topic: str = ""
    pair: tuple[int, str] = (0, "")

    def add(
        self, pairs: Sequence[tuple[int, str]], path: str | None, line: int | None, topic: str
    ) -> Unmatched:
        """These and ``pairs`` more, the first of which is described."""
        if not pairs:
            return self
        if self.count:
            return Unmatched(self.count + len(pairs), self.path, self.line, self.topic, self.pair)
        return Unmatched(len(pairs), path, line, topic, pairs[0])


@dataclass(frozen=True)
class SupportArrays:
    """Cited (sentence, segment) pairs of every evaluated answer, each pair once however
    often the sentence cites the segment: each pair's support code (:data:`UNJUDGED`
    without a judgment), its sentence's position in the answer, and the offsets of each
    topic's pairs and sentences; the labels outside the defined sets and the judgments
    that match no cited pair."""

    label: Int8Array
    pair_sentence: Int64Array
    pair_offsets: Int64Array
    sentence_offsets: Int64Array
    unknown: Unknown = field(default_factory=Unknown)
    unmatched: Unmatched = field(default_factory=Unmatched)


@dataclass(frozen=True)
class CitationArrays:
    """What the answers' citations show without judgments: per sentence the number of
    citations and of dangling ones; per topic the offsets of its sentences, its number of
    references and of distinct ones."""

    citations: Int64Array
    dangling: Int64Array
    sentence_offsets: Int64Array
    references: Int64Array
    distinct_references: Int64Array


@dataclass(frozen=True)
class CoverageArrays:
    """Nugget coverage of the answers' references: per topic its nuggets' importance codes
    and, for each nugget, the best support among the top k references (see
    :meth:`first_support`): ``rank[i]`` the first rank (from 1) of a reference that
    supports nugget ``i`` fully, ``partial_rank[i]`` partially or fully (a large number
    when none does)."""

    importance: Int8Array
    rank: Int64Array
    partial_rank: Int64Array
    offsets: Int64Array
    unknown: Unknown = field(default_factory=Unknown)


NEVER = np.iinfo(np.int64).max
"""The rank of a nugget no reference supports."""


@dataclass(frozen=True)
class AnswerView:
    """A run's answers joined with the judgments, for the evaluated topics (in the order
    of ``qids``): what every RAG kernel reads.

    Attributes
    ----------
    qids : the evaluated topics, in byte order.
    answers : each topic's answer (an empty one where the run has none).
    gold : each topic's gold answers (``None`` where there are none to compare with).
    nuggets, support, coverage : the judgments' arrays (``None`` when not asked for).
    citations : the answers' citation counts.
    """

    qids: tuple[str, ...]
    answers: tuple[Answer, ...]
    gold: tuple[tuple[str, ...] | None, ...] | None = None
    nuggets: NuggetArrays | None = None
    support: SupportArrays | None = None
    coverage: CoverageArrays | None = None
    citations: CitationArrays | None = None

    @property
    def num_queries(self) -> int:
        """The number of evaluated topics."""
        return len(self.qids)

    @property
    def texts(self) -> list[str]:
        """Each answer's text."""
        return [a.text for a in self.answers]


def empty_answer(topic: str) -> Answer:
    """The answer of a topic the run does not answer."""
    return Answer(topic, (), (), ())


def answers_of(run: RagRun, qids: Sequence[str]) -> tuple[Answer, ...]:
    """The run's answer to each topic, an empty one where it has none."""
    return tuple(run[q] if q in run else empty_answer(q) for q in qids)


def gold_of(gold: GoldAnswers, qids: Sequence[str]) -> tuple[tuple[str, ...] | None, ...]:
    """Each topic's gold answers; ``None`` for a topic without a gold record."""
    return tuple(gold.get(q) for q in qids)


def nugget_arrays(
    assignments: NuggetSet | None,
    nuggets: NuggetSet | None,
    run: RagRun,
    qids: Sequence[str],
) -> NuggetArrays:
    """The nuggets of each topic in ``qids``: the run's assignments where it has them; for
    a topic the run does not answer, the nuggets file's nuggets (or none), all
    ``not_support``."""
    importance: list[int] = []
    assignment: list[int] = []
    offsets = [0]
    unknown = Unknown()
    source = assignments.source if assignments is not None else None
    for q in qids:
        judged: TopicNuggets | None = None
        if assignments is not None and q in assignments:
            judged = assignments[q]
        if judged is not None:
            labels = judged.assignment or ()
            imp = [importance_code(x) for x in judged.importance]
            asg = [assignment_code(x) for x in labels]
            odd = [
                (i, a)
                for i, a in zip(judged.importance, labels, strict=True)
                if importance_code(i) == 2 or assignment_code(a) == 3
            ]
            if odd:
                first = odd[0][0] if importance_code(odd[0][0]) == 2 else odd[0][1]
                unknown = unknown.add(len(odd), source, judged.line, q, first)
        elif nuggets is not None and q in nuggets:
            listed = nuggets[q]
            imp = [importance_code(x) for x in listed.importance]
            asg = [2] * len(imp)
            odd_imp = [x for x in listed.importance if importance_code(x) == 2]
            if odd_imp:
                unknown = unknown.add(len(odd_imp), nuggets.source, listed.line, q, odd_imp[0])
        else:
            imp, asg = [], []
        importance.extend(imp)
        assignment.extend(asg)
        offsets.append(len(importance))
    return NuggetArrays(
        np.array(importance, dtype=np.int8),
        np.array(assignment, dtype=np.int8),
        np.array(offsets, dtype=np.int64),
        unknown,
    )


def support_arrays(
    judgments: SupportSet | None,
    answers: Sequence[Answer],
    run_name: str,
    answered: frozenset[str] | None = None,
) -> SupportArrays:
    """The cited (sentence, segment) pairs of each answer, each once (a sentence citing a
    segment twice, by a repeated index or a reference listed twice, is one pair), with
    their support codes (a pair the judgments do not cover: :data:`UNJUDGED`). Judgments
    of the topics in ``answered`` (default: every answer's) that match no pair are counted
    (:class:`Unmatched`)."""
    label: list[int] = []
    pair_sentence: list[int] = []
    pair_offsets = [0]
    sentence_offsets = [0]
    unknown = Unknown()
    unmatched = Unmatched()
    source = judgments.source if judgments is not None else None
    for answer in answers:
        judged = (
            judgments[answer.topic] if judgments is not None and answer.topic in judgments else None
        )
        if judged is not None:
            check_pairing(judged, answer, run_name, source)
        pairs = [(s, segment) for s, cited in enumerate(answer.cited) for segment in cited]
        for s, segment in dict.fromkeys(pairs):
            has = judged is not None and (s, segment) in judged.labels
            value = judged.labels[(s, segment)] if judged is not None and has else None
            code = support_code(value) if has else UNJUDGED
            if code == 3:
                unknown = unknown.add(
                    1, source, judged.line if judged else None, answer.topic, value
                )
            label.append(code)
            pair_sentence.append(s)
        if judged is not None and (answered is None or answer.topic in answered):
            cited_pairs = set(pairs)
            stray = [p for p in judged.labels if p not in cited_pairs]
            if stray:
                line = judged.line_of(stray[0])
                unmatched = unmatched.add(stray, source, line, answer.topic)
        pair_offsets.append(len(label))
        sentence_offsets.append(sentence_offsets[-1] + len(answer.sentences))
    return SupportArrays(
        np.array(label, dtype=np.int8),
        np.array(pair_sentence, dtype=np.int64),
        np.array(pair_offsets, dtype=np.int64),
        np.array(sentence_offsets, dtype=np.int64),
        unknown,
        unmatched,
    )


def citation_arrays(answers: Sequence[Answer]) -> CitationArrays:
    """The citation counts of each answer."""
    citations: list[int] = []
    dangling: list[int] = []
    offsets = [0]
    references: list[int] = []
    distinct: list[int] = []
    for answer in answers:
        for cited in answer.citations:
            citations.append(len(cited))
            dangling.append(sum(1 for c in cited if c < 0))
        offsets.append(len(citations))
        references.append(len(answer.references))
        distinct.append(len(set(answer.references)))
    return CitationArrays(
        np.array(citations, dtype=np.int64),
        np.array(dangling, dtype=np.int64),
        np.array(offsets, dtype=np.int64),
        np.array(references, dtype=np.int64),
        np.array(distinct, dtype=np.int64),
    )


def coverage_arrays(segments: SegmentNuggets, answers: Sequence[Answer]) -> CoverageArrays:
    """For each topic's nuggets, the first rank among the answer's references (in order,
    a repeated reference counted at its first rank) of a segment that supports it fully,
    and of one that supports it at least partially."""
    importance: list[int] = []
    rank: list[int] = []
    partial_rank: list[int] = []
    offsets = [0]
    unknown = Unknown()
    for answer in answers:
        if answer.topic in segments:
            judged = segments[answer.topic]
            codes = [importance_code(x) for x in judged.importance]
            n = len(codes)
            first = [int(NEVER)] * n
            first_partial = [int(NEVER)] * n
            seen: set[str] = set()
            position = 0
            for segment in answer.references:
                if segment in seen:
                    continue
                seen.add(segment)
                position += 1
                labels = judged.segments.get(segment)
                if labels is None:
                    continue
                for i, label in enumerate(labels[:n]):
                    code = assignment_code(label)
                    if code == 0 and first[i] == NEVER:
                        first[i] = position
                    if code in (0, 1) and first_partial[i] == NEVER:
                        first_partial[i] = position
            odd = sum(1 for c in codes if c == 2) + sum(
                1 for labels in judged.segments.values() for x in labels if assignment_code(x) == 3
            )
            if odd:
                unknown = unknown.add(odd, segments.source, judged.line, answer.topic, None)
            importance.extend(codes)
            rank.extend(first)
            partial_rank.extend(first_partial)
        offsets.append(len(importance))
    return CoverageArrays(
        np.array(importance, dtype=np.int8),
        np.array(rank, dtype=np.int64),
        np.array(partial_rank, dtype=np.int64),
        np.array(offsets, dtype=np.int64),
        unknown,
    )
