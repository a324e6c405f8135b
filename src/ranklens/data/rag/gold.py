"""Gold (reference) answers for the answer measures (exact match, token F1, ROUGE).

Read from ``{topic: [answer, ...]}`` (a single string is one answer), a JSON lines file
or records ``{"qid" (or "topic_id", "query_id", "id"), "answers": [...]}`` (or
``"answer"``, ``"gold_answers"``; a string or a list), or a table with one row per gold
answer (a topic column and an ``answer`` column). A topic with an empty list has no
answer (SQuAD 2.0's unanswerable questions: its gold answer is the empty string).

>>> gold = read_gold({"q1": ["Paris", "City of Paris"], "q2": "4"})
>>> gold.qids, gold["q2"]
(('q1', 'q2'), ('4',))
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

from ranklens.base.errors import EmptyInputError, InputError
from ranklens.data.frames import is_frame
from ranklens.data.rag._records import (
    fail,
    identifier,
    items,
    read_records,
    text_value,
)
from ranklens.data.rag._records import (
    field as field_of,
)
from ranklens.data.rag._topics import byte_order

TOPIC_FIELDS = ("qid", "topic_id", "query_id", "id")
ANSWER_FIELDS = ("answers", "answer", "gold_answers", "gold")


@dataclass(frozen=True)
class GoldAnswers:
    """Gold answers by topic (byte order of the topic ids)."""

    answers: Mapping[str, tuple[str, ...]]
    source: str | None = None
    _qids: tuple[str, ...] = field(default=(), compare=False, repr=False)

    def __post_init__(self) -> None:
        ordered = sorted(self.answers, key=byte_order)
        object.__setattr__(self, "_qids", tuple(ordered))

    @property
    def qids(self) -> tuple[str, ...]:
        """The topics with gold answers, in byte order."""
        return self._qids

    def __getitem__(self, topic: str) -> tuple[str, ...]:
        return self.answers[topic]

    def __contains__(self, topic: object) -> bool:
        return topic in self.answers

    def get(self, topic: str) -> tuple[str, ...] | None:
        """The gold answers of ``topic``, or ``None`` when it has no gold record."""
        return self.answers.get(topic)

    def __iter__(self) -> Iterator[str]:
        return iter(self._qids)

    def __len__(self) -> int:
        return len(self._qids)


def json_text(value: object) -> str:
    """``value`` as JSON writes it (``null``, ``4``, ``true``), for messages."""
    import json

    try:
        return json.dumps(value)[:40]
    except (TypeError, ValueError):
        return repr(value)[:40]


def is_gold_mapping(obj: object) -> bool:
    """Whether ``obj`` is ``{topic: [answer, ...]}`` (some value a list of strings)."""
    return (
        isinstance(obj, Mapping)
        and bool(obj)
        and all(
            isinstance(v, str)
            or (isinstance(v, list | tuple) and all(isinstance(a, str) for a in v))
            for v in obj.values()
        )
        and any(isinstance(v, list | tuple) for v in obj.values())
    )


def read_gold(obj: object) -> GoldAnswers:
    """Gold answers from any of the forms of the module docstring.

    Raises
    ------
    InputError
        A record lacks its topic or answers, an answer is not a string, a topic is given
        twice.
    """
    if isinstance(obj, GoldAnswers):
        return obj
    if isinstance(obj, Mapping):
        if not obj:
            raise EmptyInputError("no gold answers: the mapping is empty")
        out: dict[str, tuple[str, ...]] = {}
        for topic, value in obj.items():
            if isinstance(value, str):
                out[str(topic)] = (value,)
            elif isinstance(value, list | tuple) and all(isinstance(a, str) for a in value):
                out[str(topic)] = tuple(value)
            else:
                raise InputError(
                    f"the gold answers of topic '{topic}' must be a list of strings, not "
                    f"{value!r:.60}"
                )
        return GoldAnswers(out)
    rows = read_records(obj, "gold answers")
    source = rows.source
    found: dict[str, list[str]] = {}
    lines: dict[str, int | None] = {}
    table = is_frame(obj)
    for record in rows.records:
        topic = identifier(
            field_of(record, TOPIC_FIELDS, source, "a gold answer record"),
            record,
            source,
            "the topic id",
        )
        value = field_of(record, ANSWER_FIELDS, source, "a gold answer record")
        what = f"the gold answers of topic '{topic}'"
        if value is None or isinstance(value, bool | int | float):
            raise fail(
                f"{what} are {json_text(value)}: a gold answers file holds each topic's "
                'answers as text, {"qid": ..., "answers": ["...", ...]} (write a number as a '
                'string, "4"; an unanswerable question as [])',
                record,
                source,
            )
        answers = [value] if isinstance(value, str) else items(value, record, source, what)
        texts = [text_value(a, record, source, "a gold answer") for a in answers]
        if topic in found and not table:
            raise fail(
                f"topic '{topic}' has gold answers on two records "
                f"(also {'line ' + str(lines[topic]) if lines[topic] else 'before'}); give "
                "all of a topic's answers in one list",
                record,
                source,
            )
        found.setdefault(topic, []).extend(texts)
        lines.setdefault(topic, record.line)
    return GoldAnswers({q: tuple(a) for q, a in found.items()}, source)
