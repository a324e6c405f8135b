"""A result that reads as a mapping of its named numbers (``res["kappa"]``, ``dict(res)``),
with the details beside them as attributes: the base of the results of
:func:`~ranklens.agreement`, :func:`~ranklens.leaderboard_agreement` and
:func:`~ranklens.reproduction`."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Generic, TypeVar

Value = TypeVar("Value")


class NamedNumbers(Mapping[str, Value], Generic[Value]):
    """A mapping over the ``numbers`` attribute that a (dataclass) subclass defines."""

    numbers: dict[str, Value]

    def __getitem__(self, name: str) -> Value:
        return self.numbers[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self.numbers)

    def __len__(self) -> int:
        return len(self.numbers)
