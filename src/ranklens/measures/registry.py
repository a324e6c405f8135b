"""The registry of measure declarations, by name and alias."""

from __future__ import annotations

from types import MappingProxyType

from ranklens.base.errors import MeasureError
from ranklens.measures import catalog
from ranklens.measures.base import MeasureSpec

SPECS: tuple[MeasureSpec, ...] = catalog.SPECS + catalog.extra_specs()

REGISTRY: MappingProxyType[str, MeasureSpec] = MappingProxyType({s.name: s for s in SPECS})
"""Every measure declaration, by canonical name."""

ALIASES: MappingProxyType[str, str] = MappingProxyType(
    {alias: s.name for s in SPECS for alias in s.aliases}
)


def lookup(name: str) -> MeasureSpec | None:
    """The declaration called ``name`` (or with that alias), else the user measure of that
    name (:func:`ranklens.measures.user.define_measure`), else ``None``."""
    spec = REGISTRY.get(name)
    if spec is None and name in ALIASES:
        spec = REGISTRY[ALIASES[name]]
    if spec is None:
        from ranklens.measures.user_registry import USER_MEASURES

        spec = USER_MEASURES.get(name)
    return spec


def suggest(name: str, extra: tuple[str, ...] = ()) -> str:
    """A "did you mean" hint for an unknown measure name."""
    import difflib  # only for a name that is not known

    pool = list(dict.fromkeys([*REGISTRY, *ALIASES, *extra]))
    close = difflib.get_close_matches(name, pool, n=3, cutoff=0.5)
    if not close:
        lower = {p.lower(): p for p in pool}
        close = [lower[name.lower()]] if name.lower() in lower else []
    hint = f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
    return f"{hint} ('ranklens measures' lists them all)"


def get_spec(name: str) -> MeasureSpec:
    """The declaration called ``name``; raises :class:`MeasureError` with suggestions."""
    spec = lookup(name)
    if spec is None:
        raise MeasureError(f"unknown measure '{name}'{suggest(name)}")
    return spec
