"""Nuggets and nugget assignments in nuggetizer's formats (castorini/nuggetizer; the TREC
RAG 2024 and 2025 AutoNuggetizer).

* nuggets: one JSON line per topic, ``{"qid", "query", "nuggets": [{"text",
  "importance"}]}``, importance ``vital`` or ``okay``;
* assignments: one JSON line per answer, ``{"qid", "run_id" (where present), "query",
  "answer_text", "nuggets": [{"text", "importance", "assignment"}]}``, assignment
  ``support``, ``partial_support`` or ``not_support`` (3-grade) or ``support`` and
  ``not_support`` (2-grade).

Labels are kept as they are written: real LLM output holds others (``failed``,
``questionable``, free text, empty strings, ``null``), which the measures treat by their
``unknown`` policy (:mod:`ranklens.kernels.rag_nuggets`). A nugget without an
``importance`` or ``assignment`` field is an error (nuggetizer's scorer fails on it too).
A table (pandas, polars, pyarrow) is read with one row per nugget: a topic column, an
``importance`` and an ``assignment`` column, optionally ``run_id`` and ``text``.

>>> runs = read_assignments([{"qid": "q1", "run_id": "r", "nuggets": [
...     {"text": "a", "importance": "vital", "assignment": "support"},
...     {"text": "b", "importance": "okay", "assignment": "failed"}]}])
>>> runs[0].name, runs[0].qids, runs[0]["q1"].assignment
('r', ('q1',), ('support', 'failed'))
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace

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
)
from ranklens.data.rag._records import (
    field as field_of,
)
from ranklens.data.rag._topics import ByTopic, byte_order, sorted_by_topic

QID_FIELDS = ("qid", "topic_id", "query_id")
IMPORTANCE = ("vital", "okay")
"""The importance labels nuggetizer defines, in the order of their codes (0, 1)."""
ASSIGNMENT = ("support", "partial_support", "not_support")
"""The assignment labels nuggetizer defines, in the order of their codes (0, 1, 2)."""


def importance_code(label: object) -> int:
    """0 for ``vital``, 1 for ``okay``, 2 for any other label (exact spelling)."""
    if isinstance(label, str) and label in IMPORTANCE:
        return IMPORTANCE.index(label)
    return 2


def assignment_code(label: object) -> int:
    """0 ``support``, 1 ``partial_support``, 2 ``not_support``, 3 any other label."""
    if isinstance(label, str) and label in ASSIGNMENT:
        return ASSIGNMENT.index(label)
    return 3


@dataclass(frozen=True)
class TopicNuggets:
    """One topic's nuggets (and, in an assignment file, their assignments to an answer).

    Attributes
    ----------
    topic : the topic id.
    texts : the nuggets' texts.
    importance : their importance labels, as written (any JSON value).
    assignment : their assignment labels, as written; ``None`` in a nuggets file.
    line : the line of the file (``None`` in memory).
    answer_text : the answer the nuggets were assigned to, where the record has it.
    """

    topic: str
    texts: tuple[str, ...]
    importance: tuple[object, ...]
    assignment: tuple[object, ...] | None = None
    line: int | None = None
    answer_text: str | None = None


@dataclass(frozen=True)
class NuggetSet(ByTopic[TopicNuggets]):
    """Nuggets by topic (in byte order): a nuggets file, or one run's assignments.

    Attributes
    ----------
    name : the run's name for assignments (its ``run_id``, else the file's stem, else
        ``run``); the file's stem for nuggets.
    topics : one :class:`TopicNuggets` per topic.
    source : the file read (``None`` in memory).
    named : whether the records named the run (a ``run_id`` field).
    """

    name: str
    topics: tuple[TopicNuggets, ...]
    source: str | None = None
    named: bool = False

    def _items(self) -> tuple[TopicNuggets, ...]:
        return self.topics

    @property
    def assigned(self) -> bool:
        """Whether these are assignments (every topic has assignment labels)."""
        return all(t.assignment is not None for t in self.topics)

    def renamed(self, name: str) -> NuggetSet:
        """The same nuggets under another run name (then named)."""
        return replace(self, name=name, named=True)


def _sorted(
    topics: list[TopicNuggets], name: str, source: str | None, named: bool, what: str
) -> NuggetSet:
    ordered = sorted_by_topic(
        topics,
        source,
        lambda topic, where: (
            f"topic '{topic}' has two records of {what} for run '{name}'"
            f"{'' if where == 'twice' else ' (' + where + ')'}; give one record per topic (and "
            "run)"
        ),
    )
    return NuggetSet(name, ordered, source, named)


def read_nuggets(obj: object) -> NuggetSet:
    """The nuggets of nuggetizer's nuggets file (or of its records, or a table): the
    topics judged and each nugget's importance. Assignment labels, where the records have
    them, are ignored.

    Raises
    ------
    InputError
        A record lacks its topic or its nuggets, or a nugget its importance.
    """
    if isinstance(obj, NuggetSet):
        return obj
    rows = read_records(obj, "nuggets")
    if is_frame(obj):
        return _table(rows, assigned=False)[0]
    name = file_stem_of(rows.source, "nuggets")
    _refuse_repeated(rows, lambda record: name, "nuggets")
    topics = [_topic(r, rows.source, assigned=False) for r in rows.records]
    return _sorted(topics, name, rows.source, False, "nuggets")


def _refuse_repeated(rows: Records, run_of: Callable[[Record], str], what: str) -> None:
    """Refuse a topic with two records for one run, naming both (lines of a file,
    record numbers in memory)."""
    seen: dict[tuple[str, str], Record] = {}
    for record in rows.records:
        value = optional(record, QID_FIELDS)
        if value is None or isinstance(value, bool) or not isinstance(value, str | int):
            continue  # the reader says what is wrong with it
        key = (run_of(record), str(value))
        first = seen.setdefault(key, record)
        if first is not record:
            where = (
                f"lines {first.line} and {record.line}"
                if first.line is not None and record.line is not None
                else f"records {first.index} and {record.index}"
            )
            raise fail(
                f"topic '{key[1]}' has two records of {what} for run '{key[0]}' on {where}; "
                "give one record per topic (and run)",
                record,
                rows.source,
            )


def read_assignments(obj: object) -> tuple[NuggetSet, ...]:
    """The nugget assignments of nuggetizer's assignment file (or its records, or a table
    with one row per nugget): one :class:`NuggetSet` per run (by ``run_id``, in the order
    first seen; records without one belong to a run named after the file's stem).

    Raises
    ------
    InputError
        A record lacks its topic or its nuggets, a nugget its importance or assignment; a
        topic has two records for one run.
    """
    if isinstance(obj, NuggetSet):
        return (obj,)
    rows = read_records(obj, "nugget assignments")
    if is_frame(obj):
        return _table(rows, assigned=True)
    default = file_stem_of(rows.source, "run")

    def run_of(record: Record) -> str:
        value = optional(record, ("run_id",))
        return default if value is None else str(value)

    _refuse_repeated(rows, run_of, "nugget assignments")
    grouped: dict[str, list[TopicNuggets]] = {}
    named: dict[str, bool] = {}
    for record in rows.records:
        run_value = optional(record, ("run_id",))
        run = default if run_value is None else identifier(run_value, record, rows.source, "run_id")
        grouped.setdefault(run, []).append(_topic(record, rows.source, assigned=True))
        named[run] = run_value is not None
    return tuple(
        _sorted(t, run, rows.source, named[run], "nugget assignments") for run, t in grouped.items()
    )


def _topic(record: Record, source: str | None, *, assigned: bool) -> TopicNuggets:
    what = "a record of nugget assignments" if assigned else "a record of nuggets"
    topic = identifier(field_of(record, QID_FIELDS, source, what), record, source, "the topic id")
    nuggets = items(field_of(record, ("nuggets",), source, what), record, source, "'nuggets'")
    texts: list[str] = []
    importance: list[object] = []
    assignment: list[object] = []
    for k, nugget in enumerate(nuggets, 1):
        if not isinstance(nugget, Mapping):
            shape = '"text", "importance", "assignment"' if assigned else '"text", "importance"'
            raise fail(
                f"nugget {k} of topic '{topic}' must be an object {{{shape}}}, not {nugget!r:.40}",
                record,
                source,
            )
        if "importance" not in nugget:
            raise fail(f"nugget {k} of topic '{topic}' has no 'importance'", record, source)
        if assigned and "assignment" not in nugget:
            raise fail(
                f"nugget {k} of topic '{topic}' has no 'assignment' (is this a nuggets file "
                "rather than assignments?)",
                record,
                source,
            )
        text = nugget.get("text", "")
        texts.append(text if isinstance(text, str) else str(text))
        importance.append(nugget["importance"])
        if assigned:
            assignment.append(nugget["assignment"])
    answer = optional(record, ("answer_text",))
    return TopicNuggets(
        topic,
        tuple(texts),
        tuple(importance),
        tuple(assignment) if assigned else None,
        record.line,
        answer if isinstance(answer, str) else None,
    )


def _table(rows: Records, *, assigned: bool) -> tuple[NuggetSet, ...]:
    """One row per nugget: topic, importance (and assignment), optionally run_id, text."""
    what = "nugget assignments" if assigned else "nuggets"
    grouped: dict[str, dict[str, list[tuple[str, object, object]]]] = {}
    for record in rows.records:
        topic = identifier(
            field_of(record, QID_FIELDS, None, f"a row of {what}"), record, None, "the topic id"
        )
        importance = field_of(record, ("importance",), None, f"a row of {what}")
        assignment = (
            field_of(record, ("assignment",), None, f"a row of {what}") if assigned else None
        )
        run_value = optional(record, ("run_id",))
        run = "run" if run_value is None else identifier(run_value, record, None, "run_id")
        text = optional(record, ("text", "nugget"))
        grouped.setdefault(run, {}).setdefault(topic, []).append(
            ("" if text is None else str(text), importance, assignment)
        )
    out = []
    for run, topics in grouped.items():
        made = [
            TopicNuggets(
                topic,
                tuple(t for t, _, _ in rows_),
                tuple(i for _, i, _ in rows_),
                tuple(a for _, _, a in rows_) if assigned else None,
            )
            for topic, rows_ in topics.items()
        ]
        out.append(_sorted(made, run, None, run != "run", what))
    return tuple(out)


@dataclass(frozen=True)
class TopicSegments:
    """One topic's nuggets assigned to retrieved segments (nuggetizer's retrieval mode):
    the nuggets (texts, importance) and, per segment id, the assignment of each nugget."""

    topic: str
    texts: tuple[str, ...]
    importance: tuple[object, ...]
    segments: Mapping[str, tuple[object, ...]]
    line: int | None = None


@dataclass(frozen=True)
class SegmentNuggets(ByTopic[TopicSegments]):
    """Nugget assignments to segments, by topic (byte order): which segments support which
    nuggets, for the coverage of a ranking (``NuggetCoverage@k``) and the nuggets as
    subtopics of the diversity measures (:func:`ranklens.rag.nugget_qrels`)."""

    topics: tuple[TopicSegments, ...]
    source: str | None = None

    def _items(self) -> tuple[TopicSegments, ...]:
        return self.topics


SEGMENT_FIELDS = ("docid", "segment_id", "segment")


def read_segment_assignments(obj: object) -> SegmentNuggets:
    """Nugget assignments to retrieved segments: nuggetizer's retrieval-mode output, one
    record per (topic, segment) ``{"qid", "docid", "candidate_text", "nuggets": [{"text",
    "importance", "assignment"}]}``. Every record of a topic must list the same nuggets,
    in the same order.

    Raises
    ------
    InputError
        A record lacks its topic, its segment or its nuggets; a topic's records list
        different nuggets; a segment is assigned twice.
    """
    if isinstance(obj, SegmentNuggets):
        return obj
    rows = read_records(obj, "nugget assignments to segments")
    source = rows.source
    heads: dict[str, TopicNuggets] = {}
    segments: dict[str, dict[str, tuple[object, ...]]] = {}
    for record in rows.records:
        nuggets = _topic(record, source, assigned=True)
        segment = identifier(
            field_of(record, SEGMENT_FIELDS, source, "a nugget assignment to a segment"),
            record,
            source,
            "the segment id",
        )
        held = heads.setdefault(nuggets.topic, nuggets)
        if held.texts != nuggets.texts or held.importance != nuggets.importance:
            raise fail(
                f"topic '{nuggets.topic}' lists other nuggets here than on line {held.line}: "
                "every segment of a topic must be judged against the same nuggets",
                record,
                source,
            )
        assigned = segments.setdefault(nuggets.topic, {})
        if segment in assigned:
            raise fail(
                f"segment '{segment}' of topic '{nuggets.topic}' is assigned twice", record, source
            )
        assigned[segment] = nuggets.assignment or ()
    made = [TopicSegments(t, h.texts, h.importance, segments[t], h.line) for t, h in heads.items()]
    ordered = sorted(made, key=lambda t: byte_order(t.topic))
    return SegmentNuggets(tuple(ordered), source)
