"""ranx's ``FrozensetDict`` (``ranx.data_structures.frozenset_dict``)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, MutableMapping
from typing import Any

__all__ = ["FrozensetDict"]


class FrozensetDict(MutableMapping[Any, Any]):
    """ranx's dict keyed by unordered pairs: ``d["a", "b"]`` is ``d["b", "a"]`` (every key
    is turned into a ``frozenset``).

    Examples
    --------
    >>> d = FrozensetDict({("bm25", "dense"): 0.01})
    >>> d["dense", "bm25"], frozenset({"bm25", "dense"}) in d
    (0.01, True)
    """

    def __init__(self, arg: Mapping[Any, Any] | None = None) -> None:
        self._map: dict[frozenset[Any], Any] = {}
        if arg is not None:
            self.update(arg)

    def __getitem__(self, key: Any) -> Any:
        return self._map[frozenset(key)]

    def __setitem__(self, key: Any, value: Any) -> None:
        self._map[frozenset(key)] = value

    def __delitem__(self, key: Any) -> None:
        del self._map[frozenset(key)]

    def __iter__(self) -> Iterator[frozenset[Any]]:
        return iter(self._map)

    def __len__(self) -> int:
        return len(self._map)

    def __repr__(self) -> str:
        return f"FrozensetDict({self._map!r})"
