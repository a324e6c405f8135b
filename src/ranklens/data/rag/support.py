"""Support judgments of cited segments: does the segment an answer sentence cites support
it fully, partially, or not at all (TREC 2024 RAG's support evaluation)?

Two layouts are read:

* the track's support evaluation output: the run's JSON line (``run_id``, ``topic_id``,
  ``references``, ``answer``) with ``support_eval``, a list with one entry per answer
  sentence, ``{"answer": sentence, "citations": [index, ...], "eval_scores": [label,
  ...]}``; ``eval_scores[j]`` judges ``citations[j]`` (the track judged at most the first
  three citations of a sentence: the others have no label, and are not judged);
* one record (or table row) per judgment: ``{"run_id" (optional), "topic_id" (or
  "qid"), "sentence": position of the sentence in the answer (from 0), "segment" (or
  "citation", "docid"): the cited segment id, "support" (or "label", "judgment"): the
  label}``.

Labels: ``FS``, ``full_support`` or ``Full Support``; ``PS``, ``partial_support`` or
``Partial Support``; ``NS``, ``no_support`` or ``No Support``. Anything else (``null``
where the judge's reply was not understood) is an unknown label, treated by the
measures' ``unknown`` policy.

>>> runs = read_support([{"run_id": "r", "topic_id": "q1", "sentence": 0,
...                       "segment": "s1", "support": "FS"}])
>>> runs[0].name, runs[0]["q1"].labels
('r', {(0, 's1'): 'FS'})
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from ranklens.base.errors import InputError
from ranklens.data.rag._records import (
    Record,
    fail,
    file_stem_of,
    identifier,
    items,
    optional,
    read_records,
)
from ranklens.data.rag._records import (
    field as field_of,
)
from ranklens.data.rag._topics import ByTopic, byte_order
from ranklens.data.rag.answers import Answer, parse_answer

SUPPORT_LABELS: Mapping[str, int] = {
    "FS": 0,
    "full_support": 0,
    "Full Support": 0,
    "PS": 1,
    "partial_support": 1,
    "Partial Support": 1,
    "NS": 2,
    "no_support": 2,
    "No Support": 2,
}
"""The defined support labels and their codes (0 full, 1 partial, 2 none); 3: unknown."""


def support_code(label: object) -> int:
    """0 full, 1 partial, 2 no support, 3 an unknown label (exact spelling)."""
    return SUPPORT_LABELS.get(label, 3) if isinstance(label, str) else 3


@dataclass(frozen=True)
class TopicSupport:
    """The support judgments of one answer: ``labels[(sentence, segment)]`` (sentence
    position from 0, the cited segment id), as written; the judged answer, where the
    records carry it (the track's layout)."""

    topic: str
    labels: Mapping[tuple[int, str], object]
    answer: Answer | None = None
    line: int | None = None
    lines: Mapping[tuple[int, str], int] = field(default_factory=dict, compare=False)
    """The line of each judgment, where it has its own (one record per judgment)."""

    def line_of(self, pair: tuple[int, str]) -> int | None:
        """The line of the judgment of ``pair`` (else of the topic's first record)."""
        return self.lines.get(pair, self.line)


@dataclass(frozen=True)
class SupportSet(ByTopic[TopicSupport]):
    """One run's support judgments, by topic (byte order)."""

    name: str
    topics: tuple[TopicSupport, ...]
    source: str | None = None
    named: bool = False

    def _items(self) -> tuple[TopicSupport, ...]:
        return self.topics

    def renamed(self, name: str) -> SupportSet:
        """The same judgments under another run name."""
        return replace(self, name=name, named=True)


def read_support(obj: object) -> tuple[SupportSet, ...]:
    """The support judgments of ``obj`` (a path, a file object, records or a table), one
    :class:`SupportSet` per run (by run id; records without one belong to a run named
    after the file's stem).

    Raises
    ------
    InputError
        A record is in neither layout, a sentence position is not an integer, a judgment
        repeats a (sentence, segment) pair with another label.
    """
    if isinstance(obj, SupportSet):
        return (obj,)
    rows = read_records(obj, "support judgments")
    source = rows.source
    default = file_stem_of(source, "run")
    grouped: dict[str, dict[str, TopicSupport]] = {}
    named: dict[str, bool] = {}
    first_index: dict[tuple[str, str], int] = {}
    for record in rows.records:
        if "support_eval" in record.data:
            run, judged = _track_record(record, source, default)
            topics = grouped.setdefault(run, {})
            if judged.topic in topics:
                first = topics[judged.topic].line
                where = (
                    f"lines {first} and {record.line}"
                    if first is not None and record.line is not None
                    else f"records {first_index[(run, judged.topic)]} and {record.index}"
                )
                raise fail(
                    f"run '{run}' has two support evaluations of topic '{judged.topic}' "
                    f"({where}); give one per topic and run",
                    record,
                    source,
                )
            first_index[(run, judged.topic)] = record.index
            topics[judged.topic] = judged
            named[run] = optional(record, ("run_id",)) is not None or "metadata" in record.data
            continue
        run_value = optional(record, ("run_id",))
        run = default if run_value is None else identifier(run_value, record, source, "run_id")
        named[run] = run_value is not None
        topic = identifier(
            field_of(record, ("topic_id", "qid", "query_id"), source, "a support judgment"),
            record,
            source,
            "the topic id",
        )
        sentence = field_of(record, ("sentence", "sentence_index"), source, "a support judgment")
        if isinstance(sentence, bool) or not isinstance(sentence, int) or sentence < 0:
            raise fail(
                f"'sentence' is the sentence's position in the answer (0, 1, ...), not "
                f"{sentence!r:.40}",
                record,
                source,
            )
        segment = identifier(
            field_of(
                record, ("segment", "citation", "docid", "segment_id"), source, "a support judgment"
            ),
            record,
            source,
            "the cited segment",
        )
        label = field_of(record, ("support", "label", "judgment"), source, "a support judgment")
        topics = grouped.setdefault(run, {})
        held = topics.get(topic)
        labels = dict(held.labels) if held is not None else {}
        lines = dict(held.lines) if held is not None else {}
        key = (sentence, segment)
        if key in labels and labels[key] != label:
            earlier = lines.get(key)
            raise fail(
                f"sentence {sentence} of topic '{topic}' citing '{segment}' is judged twice, "
                f"{labels[key]!r} and {label!r}"
                + (f" (lines {earlier} and {record.line})" if earlier and record.line else ""),
                record,
                source,
            )
        labels[key] = label
        if record.line is not None:
            lines.setdefault(key, record.line)
        topics[topic] = TopicSupport(
            topic, labels, None, record.line if held is None else held.line, lines
        )
    out = []
    for run, topics in grouped.items():
        ordered = sorted(topics.values(), key=lambda t: byte_order(t.topic))
        out.append(SupportSet(run, tuple(ordered), source, named[run]))
    return tuple(out)


def _track_record(record: Record, source: str | None, default: str) -> tuple[str, TopicSupport]:
    """A line of the track's support evaluation output: the run's line and its
    ``support_eval``."""
    run, answer = parse_answer(record, source, default)
    evaluations = items(record.data["support_eval"], record, source, "'support_eval'")
    labels: dict[tuple[int, str], Any] = {}
    for i, entry in enumerate(evaluations):
        if not isinstance(entry, Mapping):
            raise fail(
                f"entry {i + 1} of 'support_eval' must be an object with 'citations' and "
                "'eval_scores'",
                record,
                source,
            )
        citations = items(entry.get("citations", ()), record, source, "'citations'")
        scores = items(entry.get("eval_scores", ()), record, source, "'eval_scores'")
        if len(scores) > len(citations):
            raise fail(
                f"entry {i + 1} of 'support_eval' has {len(scores)} eval_scores for "
                f"{len(citations)} citations",
                record,
                source,
            )
        for citation, label in zip(citations, scores, strict=False):
            if isinstance(citation, bool) or not isinstance(citation, int | str):
                raise fail(
                    f"a citation is an index or a segment id, not {citation!r:.40}", record, source
                )
            if isinstance(citation, int):
                inside = 0 <= citation < len(answer.references)
                segment = answer.references[citation] if inside else str(citation)
            else:
                segment = citation
            labels.setdefault((i, segment), label)
        text = entry.get("answer")
        if isinstance(text, str) and i < len(answer.sentences) and text != answer.sentences[i]:
            raise fail(
                f"entry {i + 1} of 'support_eval' judges the sentence {text!r:.50}, but "
                f"sentence {i + 1} of the answer is {answer.sentences[i]!r:.50}",
                record,
                source,
            )
    if len(evaluations) > len(answer.sentences) and answer.sentences:
        raise fail(
            f"'support_eval' judges {len(evaluations)} sentences of an answer of "
            f"{len(answer.sentences)}",
            record,
            source,
        )
    return run, TopicSupport(answer.topic, labels, answer, record.line)


def check_pairing(judged: TopicSupport, answer: Answer, run: str, source: str | None) -> None:
    """Refuse support judgments made for another answer than ``answer`` (the track's
    layout carries the judged sentences: they must be the run's)."""
    if judged.answer is not None and judged.answer.sentences != answer.sentences:
        raise InputError(
            f"the support judgments of topic '{answer.topic}' judge another answer than run "
            f"'{run}' gives: check that they were made for this run",
            path=source,
            line=judged.line,
        )
