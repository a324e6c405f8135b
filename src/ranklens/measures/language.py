"""Parsing measure names: the ir_measures language and trec_eval's names.

The ir_measures language::

    measure := NAME [ "(" [ param { "," param } ] ")" ] [ "@" number ]
    param   := IDENT "=" value
    value   := number | "True" | "False" | "None" | string | "[" [ number { "," number } ] "]"
             | "{" [ number ":" number { "," number ":" number } ] "}"

e.g. ``P@10``, ``P(rel=2)@10``, ``nDCG(judged_only=True)@10``, ``IPrec@0.5``. Aliases:
``MAP``, ``MRR``, ``NDCG``. trec_eval names (``map``, ``P.5,10``, ``P_5``, ``ndcg_cut.10``,
``recip_rank``, ``official``) are handled by :mod:`ranklens.measures.trec_names`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache
from typing import Any, cast

from ranklens.base.errors import MeasureError
from ranklens.measures.base import Measure
from ranklens.measures.registry import get_spec, lookup, suggest

PARSED_CACHE_SIZE = 4096
"""How many measure names :func:`parsed_text` keeps parsed."""

_TOKEN = re.compile(
    r"""\s*(?:
        (?P<name>\d+(?![eE][-+]?\d)[A-Za-z_][A-Za-z0-9_]*|[A-Za-z_][A-Za-z0-9_\-]*)
      | (?P<number>[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?)
      | (?P<string>'[^']*'|"[^"]*")
      | (?P<punct>[(),=@{}:\[\]])
    )""",
    re.VERBOSE,
)


def _tokens(text: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    pos = 0
    text = text.strip()
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if match is None or match.end() == pos:
            raise MeasureError(f"cannot parse measure '{text}' at '{text[pos:]}'")
        kind = match.lastgroup or ""
        out.append((kind, match.group(kind)))
        pos = match.end()
    return out


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = _tokens(text)
        self.i = 0

    def peek(self) -> tuple[str, str]:
        return self.tokens[self.i] if self.i < len(self.tokens) else ("end", "")

    def take(self, kind: str, value: str | None = None) -> str:
        got_kind, got = self.peek()
        if got_kind != kind or (value is not None and got != value):
            want = repr(value) if value is not None else kind
            found = repr(got) if got else "the end"
            raise MeasureError(
                f"cannot parse measure '{self.text}': expected {want}, found {found}"
            )
        self.i += 1
        return got

    def value(self) -> Any:
        kind, token = self.peek()
        if kind == "number":
            self.i += 1
            return _number(token)
        if kind == "string":
            self.i += 1
            return token[1:-1]
        if kind == "name" and token in ("True", "False", "None"):
            self.i += 1
            return {"True": True, "False": False, "None": None}[token]
        if (kind, token) == ("punct", "{"):
            return self.mapping()
        if (kind, token) == ("punct", "["):
            return self.sequence()
        raise MeasureError(f"cannot parse measure '{self.text}': unexpected {token!r}")

    def mapping(self) -> tuple[tuple[Any, Any], ...]:
        self.take("punct", "{")
        items: dict[Any, Any] = {}
        while self.peek() != ("punct", "}"):
            key = _number(self.take("number"))
            self.take("punct", ":")
            items[key] = _number(self.take("number"))
            if self.peek() == ("punct", ","):
                self.i += 1
        self.take("punct", "}")
        return tuple(sorted(items.items()))

    def sequence(self) -> tuple[Any, ...]:
        self.take("punct", "[")
        items: list[Any] = []
        while self.peek() != ("punct", "]"):
            items.append(_number(self.take("number")))
            if self.peek() == ("punct", ","):
                self.i += 1
        self.take("punct", "]")
        return tuple(items)

    def measure(self) -> tuple[str, dict[str, Any], Any]:
        name = self.take("name")
        params: dict[str, Any] = {}
        if self.peek() == ("punct", "("):
            self.i += 1
            while self.peek() != ("punct", ")"):
                key = self.take("name")
                self.take("punct", "=")
                if key in params:
                    raise MeasureError(f"measure '{self.text}' sets '{key}' twice")
                params[key] = self.value()
                if self.peek() == ("punct", ","):
                    self.i += 1
            self.take("punct", ")")
        at: Any = None
        if self.peek() == ("punct", "@"):
            self.i += 1
            at = _number(self.take("number"))
        if self.peek()[0] != "end":
            raise MeasureError(f"cannot parse measure '{self.text}': unexpected '{self.peek()[1]}'")
        return name, params, at


def _number(token: str) -> int | float:
    try:
        return int(token)
    except ValueError:
        return float(token)


def parse_ir_measure(text: str) -> Measure:
    """Parse one measure in the ir_measures language (raises :class:`MeasureError`)."""
    name, params, at = _Parser(text).measure()
    spec = get_spec(name)
    if at is not None:
        if spec.at is None:
            raise MeasureError(f"{spec.name} takes no '@' value ('{text}')")
        if spec.at.name in params:
            raise MeasureError(f"'{text}' sets {spec.at.name} twice")
        params[spec.at.name] = at
    return spec.make(**params)


def split_measure_names(text: str) -> list[str]:
    """The measures of one string: separated by commas or whitespace, the same in Python
    and on the command line (``-m``).

    A comma or space inside parentheses or braces belongs to the measure's parameters; a
    comma followed by a digit continues a trec_eval parameter list (``P.5,10``: no measure
    name starts with a digit); whitespace next to ``@``, ``=``, ``(`` or ``)`` is not a
    separator (``NDCG@ 10`` is one measure):

    >>> split_measure_names("nDCG@10,AP P.5,10 NDCG@ 10 RBP(p=0.8, gain='graded')")
    ['nDCG@10', 'AP', 'P.5,10', 'NDCG@ 10', "RBP(p=0.8, gain='graded')"]
    """
    out: list[str] = []
    current: list[str] = []
    depth = 0
    for i, ch in enumerate(text):
        depth += ch in "({"
        depth -= ch in ")}"
        if ch.isspace():
            before = "".join(current).rstrip()[-1:]
            after = text[i:].lstrip()[:1]
            ends = not (before in ("@", "=", "(") or after in ("@", "=", "(", ")", ","))
        else:
            ends = ch == "," and not text[i + 1 : i + 2].isdigit()
        if ends and depth == 0:
            if "".join(current).strip():
                out.append("".join(current).strip())
            current = []
        else:
            current.append(ch)
    if "".join(current).strip():
        out.append("".join(current).strip())
    return out


def parse_measures(names: Iterable[str | Measure] | str | Measure) -> list[Measure]:
    """Parse measure names (either language, nicknames expanded), keeping the first of
    repeated measures, in order. A str holds one measure or several separated by commas or
    spaces (:func:`split_measure_names`, as ``-m`` on the command line reads them);
    ir_measures' measure objects (``ir_measures.nDCG@10``) are read by their name.

    Raises
    ------
    MeasureError
        An unknown name, or something that is not a measure name (``None``, a number).
    """
    if isinstance(names, str | Measure) or is_peer_measure(names):
        names = [cast("str | Measure", names)]
    if names is None or not isinstance(names, Iterable):
        raise MeasureError(
            f"measures must be a list of names such as ['nDCG@10', 'AP'], not {names!r}"
        )
    out: dict[str, Measure] = {}
    for item in names:
        if isinstance(item, Measure):
            out.setdefault(item.name, item)
            continue
        text = _as_text(item)
        for one in (split_measure_names(text) or [text]) if isinstance(item, str) else [text]:
            for measure in parsed_text(one):
                out.setdefault(measure.name, measure)
    return list(out.values())


@lru_cache(maxsize=PARSED_CACHE_SIZE)
def parsed_text(text: str) -> tuple[Measure, ...]:
    """The measures one name stands for (either language, a nickname expanded), parsed once
    per process and kept in a bounded cache (:data:`PARSED_CACHE_SIZE` names, least
    recently used out first).

    Caching is sound because a successful parse cannot change: measures are immutable,
    the built-in registry is fixed, and a user measure can neither shadow a built-in name
    (in any language) nor be defined twice (:mod:`ranklens.measures.user`). A name that
    fails to parse is not cached (a user measure of that name may be defined later)."""
    return tuple(_parse_any(text))


def is_peer_measure(obj: object) -> bool:
    """Whether ``obj`` is an ir_measures measure object (read by its canonical name)."""
    return type(obj).__module__.startswith("ir_measures.") and hasattr(obj, "SUPPORTED_PARAMS")


def _as_text(item: object) -> str:
    """A measure name: a str, or an ir_measures measure's canonical name."""
    if isinstance(item, str):
        return item
    if is_peer_measure(item):
        return str(item)
    raise MeasureError(
        f"a measure is a name such as 'nDCG@10' (or a Measure, or an ir_measures measure), "
        f"not {item!r}"
    )


def parse_measure(text: str | Measure) -> Measure:
    """Parse exactly one measure (a trec_eval name that stands for several is an error)."""
    if isinstance(text, Measure):
        return text
    found = parsed_text(_as_text(text))
    if len(found) != 1:
        names = ", ".join(m.name for m in found)
        raise MeasureError(f"'{text}' stands for {len(found)} measures ({names}); name one")
    return found[0]


def _parse_any(text: str, hints: bool = True) -> list[Measure]:
    from ranklens.measures import peer_names, trec_names

    stripped = peer_names.ir_measures_set(text.strip()) or text.strip()
    head = re.match(r"\d*[A-Za-z_][A-Za-z0-9_\-]*", stripped)
    trec_style = head is not None and stripped[head.end() : head.end() + 1] == "."
    if head is not None and lookup(head.group(0)) is not None and not trec_style:
        return [parse_ir_measure(stripped)]
    found = trec_names.parse_trec_name(stripped)
    if found is not None:
        return found
    peer = peer_names.translate(stripped)
    if peer is not None:
        return [parse_ir_measure(peer)]
    if head is None:
        raise MeasureError(f"cannot parse measure '{text}'")
    if head.group(0) in trec_names.known_names():
        raise MeasureError(
            f"cannot parse measure '{text}': trec_eval's '{head.group(0)}' takes parameters "
            "after a '.', as in P.5,10 or ndcg_cut.10"
        )
    hint = _suggestions(stripped) if hints else ""
    raise MeasureError(f"unknown measure '{head.group(0)}'{hint}")


def _suggestions(text: str) -> str:
    """ "Did you mean" for an unknown name, in both languages and without repeats: a name
    run together with its cut-off (``ndcg_cut10``) is offered in trec_eval's form
    (``ndcg_cut.10``) and in ranklens' (``nDCG@10``); otherwise the closest names."""
    from ranklens.measures import peer_names, trec_names

    offers: list[str] = []
    glued = re.fullmatch(r"(?P<base>[A-Za-z_]+?)_?(?P<k>\d+)", text)
    if glued is not None:
        base, k = glued.group("base"), glued.group("k")
        for candidate in (f"{base}.{k}", f"{base}_{k}", f"{base}@{k}"):
            try:  # (without hints of its own: a candidate may be glued again)
                measures = _parse_any(candidate, hints=False)
            except MeasureError:
                continue
            if len(measures) == 1:
                offers.extend([candidate, measures[0].name])
                break
    if not offers:
        head = re.match(r"[A-Za-z_][A-Za-z0-9_\-]*", text)
        name = head.group(0) if head else text
        hint = suggest(name, (*trec_names.known_names(), *peer_names.PEER_NAMES))
        return hint
    unique = list(dict.fromkeys(offers))
    return (
        f"; did you mean {' or '.join(repr(o) for o in unique)}? "
        "('ranklens measures' lists them all)"
    )
