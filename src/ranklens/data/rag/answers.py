"""Generated answers: the runs of TREC RAG 2024 and 2025, and plain ``{topic: text}``.

A RAG run holds, per topic, an answer cut into sentences, each with the segments it cites,
and the ranked list of segments the answer was made from (``references``). Two layouts
are read, one JSON object per topic (a file holds one run or several, told apart by their
run id):

* TREC RAG 2024: ``{"run_id", "topic_id", "topic", "references": [segment id, ...],
  "response_length", "answer": [{"text", "citations": [index into references, ...]}]}``;
* TREC RAG 2025: ``{"metadata": {"team_id", "run_id", "topic_id" or "narrative_id"},
  "references": [...], "responses" or "answer": [{"text", "citations": [segment id or
  index, ...]}]}``.

A citation is an index into ``references`` (an integer) or a segment id (a string); an
index outside the list, or a segment id that is not in it, is a *dangling* citation
(kept, and counted by ``DanglingCitations``). Answers without sentences or citations come
from ``{topic: text}`` or ``{topic: [sentence, ...]}`` mappings, or from a table with a
topic column and a text column.

>>> run = read_answers({"q1": "Paris is the capital.", "q2": ["One.", "Two."]})
>>> run.name, run.qids, run["q2"].text
('run', ('q1', 'q2'), 'One. Two.')
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from ranklens.base.errors import InputError
from ranklens.data.frames import is_frame
from ranklens.data.rag._records import (
    Record,
    Records,
    fail,
    file_stem_of,
    identifier,
    items,
    optional,
    read_records,
    text_value,
)
from ranklens.data.rag._topics import ByTopic, sorted_by_topic

TOPIC_FIELDS = ("topic_id", "qid", "query_id", "narrative_id", "topic")
"""Where a record names its topic, in this order (``topic`` only when it is not the
question's text, i.e. in a table of ``topic, text``)."""
TEXT_FIELDS = ("text", "answer", "answer_text", "response", "prediction")


@dataclass(frozen=True)
class Answer:
    """One topic's generated answer.

    Attributes
    ----------
    topic : the topic id.
    sentences : the answer's sentences (one, for an answer given as plain text).
    citations : per sentence, the cited positions in ``references`` (-1: dangling).
    cited : per sentence, the cited segment ids (a dangling index as its number).
    references : the segments the answer was generated from, in rank order.
    response_length : the word count the run reports (``None`` when it has none).
    line : the line of the file it was read from (``None`` in memory).
    cites : whether the answer came with its citations and references (``False`` for
        one given as text only: ``{topic: text}``, a table, a nugget assignment's
        ``answer_text``), so that no measure of citations reads it as citing nothing.
    """

    topic: str
    sentences: tuple[str, ...]
    citations: tuple[tuple[int, ...], ...]
    cited: tuple[tuple[str, ...], ...]
    references: tuple[str, ...] = ()
    response_length: int | None = None
    line: int | None = None
    cites: bool = True

    @property
    def text(self) -> str:
        """The whole answer: the sentences joined by one space (as nuggetizer's
        ``answer_text``)."""
        return " ".join(self.sentences)


@dataclass(frozen=True)
class RagRun(ByTopic[Answer]):
    """One run's answers, by topic (in byte order of the topic ids).

    Attributes
    ----------
    name : the run's name (its run id, else the file's stem, else ``run``).
    answers : the answers, one per topic.
    source : the file it was read from (``None`` in memory).
    embedded : judgments that came with the answers (nugget assignments, support
        judgments), kept for the evaluation (see :mod:`ranklens.data.rag.judgments`).
    """

    name: str
    answers: tuple[Answer, ...]
    source: str | None = None
    embedded: Any = field(default=None, compare=False)

    def _items(self) -> tuple[Answer, ...]:
        return self.answers

    def renamed(self, name: str) -> RagRun:
        """The same answers under another name."""
        return replace(self, name=name)

    @property
    def cites(self) -> bool:
        """Whether the answers came with their citations (some answer did; a run of
        answers given as text only did not)."""
        return any(a.cites for a in self.answers)


def by_topic(answers: list[Answer], name: str, source: str | None, embedded: Any = None) -> RagRun:
    """A :class:`RagRun` of ``answers`` sorted by topic (byte order); a topic answered twice
    is an error naming both places."""
    ordered = sorted_by_topic(
        answers,
        source,
        lambda topic, where: (
            f"run '{name}' answers topic '{topic}' {where}; give one answer per topic (one JSON "
            "line per topic and run)"
        ),
    )
    return RagRun(name, ordered, source, embedded)


def is_answers_mapping(obj: object) -> bool:
    """Whether ``obj`` is ``{topic: text}`` or ``{topic: [sentence, ...]}`` (one run)."""
    return (
        isinstance(obj, Mapping)
        and bool(obj)
        and all(
            isinstance(v, str)
            or (isinstance(v, list | tuple) and all(isinstance(s, str) for s in v))
            for v in obj.values()
        )
    )


def read_answers(obj: object, name: str | None = None) -> RagRun:
    """One run's answers from ``{topic: text}``, ``{topic: [sentence, ...]}``, a
    :class:`RagRun`, or a RAG run file or records holding one run (see
    :func:`read_rag_runs` for several).

    Raises
    ------
    InputError
        The input is not one run's answers (the message says what is expected), or holds
        several runs.
    """
    if isinstance(obj, RagRun):
        return obj.renamed(name) if name else obj
    if isinstance(obj, Mapping):
        if not is_answers_mapping(obj):
            raise InputError(
                "answers must be {topic: text} or {topic: [sentence, ...]}, not "
                f"{type(obj).__name__} {obj!r:.60}"
            )
        answers = [
            _plain(str(topic), value if isinstance(value, str) else tuple(value))
            for topic, value in obj.items()
        ]
        return by_topic(answers, name or "run", None)
    runs = read_rag_runs(obj)
    if len(runs) != 1:
        names = ", ".join(r.name for r in runs)
        raise InputError(
            f"holds {len(runs)} runs ({names}); give one run, or evaluate them all with a "
            "list or a mapping of runs",
            path=runs[0].source,
        )
    return runs[0].renamed(name) if name else runs[0]


def _plain(topic: str, text: str | tuple[str, ...], line: int | None = None) -> Answer:
    sentences = (text,) if isinstance(text, str) else text
    empty: tuple[tuple[Any, ...], ...] = tuple(() for _ in sentences)
    return Answer(topic, sentences, empty, empty, (), None, line, cites=False)


def read_rag_runs(obj: object) -> tuple[RagRun, ...]:
    """The runs of a TREC RAG 2024 or 2025 file (path or file object), of a list of its
    records, or of a table with a topic column and a text column (and a ``run_id``
    column for several runs): one :class:`RagRun` per run id, in the order first seen.
    Records without a run id belong to a run named after the file's stem (``run``
    in memory).

    Raises
    ------
    InputError
        A record lacks a topic or its sentences, a field has the wrong type, a topic is
        answered twice by one run (the file and the line named).
    """
    if is_frame(obj):
        return _table_runs(read_records(obj, "answers"))
    rows = read_records(obj, "RAG run")
    default = file_stem_of(rows.source, "run")
    grouped: dict[str, list[Answer]] = {}
    for record in rows.records:
        run, answer = parse_answer(record, rows.source, default)
        grouped.setdefault(run, []).append(answer)
    return tuple(by_topic(a, n, rows.source) for n, a in grouped.items())


def _table_runs(rows: Records) -> tuple[RagRun, ...]:
    grouped: dict[str, list[Answer]] = {}
    for record in rows.records:
        topic = optional(record, TOPIC_FIELDS)
        text = optional(record, TEXT_FIELDS)
        if topic is None or text is None:
            raise fail(
                f"a table of answers needs a topic column ({', '.join(TOPIC_FIELDS[:3])}) and "
                f"a text column ({', '.join(TEXT_FIELDS)}); it has {list(record.data)}",
                record,
                None,
            )
        run = optional(record, ("run_id", "run", "system"))
        key = "run" if run is None else identifier(run, record, None, "run_id")
        grouped.setdefault(key, []).append(
            _plain(
                identifier(topic, record, None, "the topic id"),
                text_value(text, record, None, "the answer's text"),
            )
        )
    return tuple(by_topic(a, n, None) for n, a in grouped.items())


def parse_answer(record: Record, source: str | None, default_run: str) -> tuple[str, Answer]:
    """The run name and the answer of one record of a RAG run (2024 or 2025 layout), or of
    a nugget assignment or support judgment record that carries the answer."""
    data = record.data
    meta = data.get("metadata")
    if isinstance(meta, Mapping):  # TREC RAG 2025
        holder: Mapping[str, Any] = meta
        topic_value = next(
            (meta[k] for k in ("topic_id", "narrative_id", "qid") if k in meta), None
        )
        if topic_value is None:
            topic_value = next((data[k] for k in ("topic_id", "narrative_id") if k in data), None)
    else:
        holder = data
        topic_value = next((data[k] for k in ("topic_id", "qid", "query_id") if k in data), None)
    if topic_value is None:
        raise fail(
            "an answer needs its topic: 'topic_id' (TREC RAG 2024), 'metadata.topic_id' or "
            "'metadata.narrative_id' (2025), or 'qid'",
            record,
            source,
        )
    topic = identifier(topic_value, record, source, "the topic id")
    run_value = holder.get("run_id", data.get("run_id"))
    run = default_run if run_value is None else identifier(run_value, record, source, "run_id")
    references = tuple(
        identifier(r, record, source, "a reference (segment id)")
        for r in items(data.get("references", ()), record, source, "'references'")
    )
    sentences_value = next((data[k] for k in ("answer", "responses") if k in data), None)
    if sentences_value is None:
        if "answer_text" in data:  # a nugget assignment record: the text only
            text = text_value(data["answer_text"], record, source, "'answer_text'")
            return run, _plain(topic, text, record.line)
        raise fail(
            "an answer needs its sentences: 'answer' (a list of {text, citations}) or "
            "'responses' (TREC RAG 2025)",
            record,
            source,
        )
    if isinstance(sentences_value, str):
        return run, _plain(topic, sentences_value, record.line)
    sentences: list[str] = []
    citations: list[tuple[int, ...]] = []
    cited: list[tuple[str, ...]] = []
    position = {ref: i for i, ref in reversed(list(enumerate(references)))}
    for k, sentence in enumerate(items(sentences_value, record, source, "'answer'"), 1):
        if not isinstance(sentence, Mapping):
            raise fail(
                f'sentence {k} of the answer must be {{"text", "citations"}}, not {sentence!r:.40}',
                record,
                source,
            )
        sentences.append(text_value(sentence.get("text"), record, source, f"sentence {k}'s text"))
        indices: list[int] = []
        ids: list[str] = []
        for c in items(sentence.get("citations", ()), record, source, f"sentence {k}'s citations"):
            if isinstance(c, bool) or not isinstance(c, int | str):
                raise fail(
                    f"sentence {k} cites {c!r:.40}: a citation is an index into references "
                    "(an integer) or a segment id (a string)",
                    record,
                    source,
                )
            if isinstance(c, int):
                inside = 0 <= c < len(references)
                indices.append(c if inside else -1)
                ids.append(references[c] if inside else str(c))
            else:
                indices.append(position.get(c, -1))
                ids.append(c)
        citations.append(tuple(indices))
        cited.append(tuple(ids))
    length = holder.get("response_length", data.get("response_length"))
    if isinstance(length, bool) or not isinstance(length, int | None):
        raise fail(f"response_length must be an integer, not {length!r:.40}", record, source)
    answer = Answer(
        topic, tuple(sentences), tuple(citations), tuple(cited), references, length, record.line
    )
    return run, answer
