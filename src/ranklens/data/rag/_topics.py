"""What the collections of the RAG readers share: one item per topic (an answer, a topic's
nuggets, its support judgments), kept in byte order of the topic ids and looked up by
topic.

>>> from dataclasses import dataclass
>>> @dataclass(frozen=True)
... class Item:
...     topic: str
...     line: int | None = None
>>> [i.topic for i in sorted_by_topic([Item("b"), Item("a")], None, lambda t, w: "")]
['a', 'b']
>>> sorted_by_topic([Item("a", 3), Item("a", 7)], "x.jsonl", lambda t, w: f"'{t}' {w}")
Traceback (most recent call last):
...
ranklens.base.errors.InputError: x.jsonl:7: 'a' lines 3 and 7
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Generic, Protocol, TypeVar

from ranklens.base.errors import InputError


class Topical(Protocol):
    """An item of one topic, read from a line of a file (``None`` in memory)."""

    @property
    def topic(self) -> str: ...

    @property
    def line(self) -> int | None: ...


ItemT = TypeVar("ItemT", bound=Topical)


def byte_order(topic: str) -> bytes:
    """The sort key of a topic id: its UTF-8 bytes (lone surrogates kept)."""
    return topic.encode("utf-8", "surrogatepass")


def sorted_by_topic(
    items: Iterable[ItemT], source: str | None, repeated: Callable[[str, str], str]
) -> tuple[ItemT, ...]:
    """``items`` in byte order of their topics; a topic that comes twice is an
    :class:`InputError` at the second one's line, its message ``repeated(topic, where)``
    (``where``: ``lines A and B`` where both lines are known, else ``twice``)."""
    seen: dict[str, ItemT] = {}
    for item in items:
        first = seen.get(item.topic)
        if first is not None:
            where = (
                f"lines {first.line} and {item.line}"
                if first.line is not None and item.line is not None
                else "twice"
            )
            raise InputError(repeated(item.topic, where), path=source, line=item.line)
        seen[item.topic] = item
    return tuple(sorted(seen.values(), key=lambda item: byte_order(item.topic)))


class ByTopic(Generic[ItemT]):
    """A frozen dataclass's items, one per topic, looked up by topic: ``len``, ``in``,
    iteration (in their order, topics' byte order), ``[topic]`` and :attr:`qids`.

    A subclass says which of its fields holds the items (:meth:`_items`).
    """

    _by_topic: Mapping[str, ItemT]

    def _items(self) -> tuple[ItemT, ...]:
        raise NotImplementedError

    def __post_init__(self) -> None:
        object.__setattr__(self, "_by_topic", {item.topic: item for item in self._items()})

    @property
    def qids(self) -> tuple[str, ...]:
        """The topics, in byte order."""
        return tuple(item.topic for item in self._items())

    def __getitem__(self, topic: str) -> ItemT:
        return self._by_topic[topic]

    def __contains__(self, topic: object) -> bool:
        return topic in self._by_topic

    def __iter__(self) -> Iterator[ItemT]:
        return iter(self._items())

    def __len__(self) -> int:
        return len(self._items())
