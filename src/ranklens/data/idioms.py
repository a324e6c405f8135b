"""``Qrels(data)`` and ``Run(data, name=...)``: ranx's idiom, building from any input.

:class:`~ranklens.Qrels` and :class:`~ranklens.Run` are dataclasses of columns; their
generated constructors take the internal arrays (by keyword, inside ranklens). Called with
one positional argument instead (a dict, a DataFrame, a path, records ...), they build the
object as :func:`ranklens.data.coerce.as_qrels` / :func:`~ranklens.data.coerce.as_run`
would, so ``ranklens.Qrels({"q1": {"d1": 1}})`` works as in ranx.
:mod:`ranklens.data.coerce` installs it (it imports both classes; they do not import it).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any


def accept_one_input(cls: type[Any], build: Callable[..., Any], keywords: frozenset[str]) -> None:
    """Let ``cls(data, **options)`` (one positional argument, ``options`` among
    ``keywords``) build the object with ``build(data, **options)``; any other call is the
    dataclass's own constructor."""
    generated = cls.__init__

    def init(self: Any, *args: Any, **kwargs: Any) -> None:
        if len(args) == 1 and set(kwargs) <= keywords:
            built = build(args[0], **kwargs)
            for column in dataclasses.fields(cls):
                # the stored value: a column read when first needed stays unread
                # (ranklens.data.run.RankColumn)
                object.__setattr__(self, column.name, vars(built)[column.name])
            return
        generated(self, *args, **kwargs)

    init.__name__ = "__init__"
    init.__doc__ = generated.__doc__
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    setattr(cls, "__init__", init)  # noqa: B010 (a method replaced on purpose)
