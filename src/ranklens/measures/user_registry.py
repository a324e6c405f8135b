"""The registry of user measures (defined by :func:`ranklens.measures.user.define_measure`).

A leaf module (it imports only :mod:`ranklens.measures.base`), so that the measure
registry's :func:`~ranklens.measures.registry.lookup` can consult it without an import
circle.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from types import MappingProxyType

from ranklens.base.errors import MeasureError
from ranklens.measures.base import MeasureSpec

__all__ = ["USER_MEASURES", "UserMeasures"]


class UserMeasures:
    """The registry of user measures: grows only, thread-safe (see the module docstring)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._specs: dict[str, MeasureSpec] = {}

    def get(self, name: str) -> MeasureSpec | None:
        """The user measure called ``name``, else ``None``."""
        return self._specs.get(name)

    def names(self) -> tuple[str, ...]:
        """The defined names, in definition order."""
        return tuple(self._specs)

    def snapshot(self) -> Mapping[str, MeasureSpec]:
        """A read-only copy of the definitions."""
        with self._lock:
            return MappingProxyType(dict(self._specs))

    def add(self, spec: MeasureSpec) -> None:
        """Register ``spec``; raises :class:`MeasureError` if a user measure has its name
        (ignoring case). Clashes with built-in names are refused by
        :func:`ranklens.measures.user.define_measure` before it calls this."""
        with self._lock:
            taken = {n.lower(): n for n in self._specs}.get(spec.name.lower())
            if taken is not None:
                raise MeasureError(
                    f"measure '{spec.name}' is already defined"
                    + (f" (as '{taken}')" if taken != spec.name else "")
                    + "; a name is defined once per process"
                )
            self._specs[spec.name] = spec


USER_MEASURES = UserMeasures()
"""The process-wide registry of user measures (see :mod:`ranklens.measures.user` for why
it is process-wide)."""
