"""The records of the measure reference: :class:`MeasureExample` (a hand-computed worked
example) and :class:`MeasureDoc` (equivalents in other tools, notes), which the
``reference_*`` modules declare and :mod:`ranklens.measures.reference` renders."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from ranklens.base.errors import MeasureError

TOOLS = ("trec_eval", "ir_measures", "ranx", "sklearn", "scipy", "torchmetrics", "other")
"""The tools an equivalent may name, in the order they are shown (``other``: a tool outside
this list, e.g. RecBole, Spark or gdeval, or why there is none)."""

QrelsDict = Mapping[str, Mapping[str, int]]
RunDict = Mapping[str, Mapping[str, float]]
SampledRunDict = Mapping[str, Sequence[Sequence[str]]]
"""A stochastic run ``{qid: [[docid, ...], ...]}`` (the expected exposure measures)."""


def _freeze(nested: Mapping[str, Any]) -> Mapping[str, Any]:
    return MappingProxyType(
        {
            q: MappingProxyType(dict(d))
            if isinstance(d, Mapping)
            else tuple(tuple(ranking) for ranking in d)
            for q, d in nested.items()
        }
    )


@dataclass(frozen=True)
class MeasureExample:
    """A tiny evaluation whose value was computed by hand.

    Parameters
    ----------
    measure
        The measure string, as passed to :func:`ranklens.evaluate`.
    qrels
        ``{qid: {docid: grade}}``, or the text of a judgement file (4 columns ``qid jg docno
        rel`` or 5 columns ``qid jg jsg docno rel_level``) for the measures that read one;
        the example then passes it as ``io.StringIO(text)`` in place of the qrels.
    run
        ``{qid: {docid: score}}``, or ``{qid: [[docid, ...], ...]}`` (sampled rankings) for
        the measures of a stochastic run.
    expected
        The aggregate value, as arithmetic on the hand computation.
    narration
        One or two sentences with that arithmetic.
    options
        Keyword arguments of :func:`ranklens.evaluate` beside the measure (the item data of
        the recommender measures: ``popularity``, ``num_items``), or ``None``.
    """

    measure: str
    qrels: QrelsDict | str
    run: RunDict | SampledRunDict
    expected: float
    narration: str
    options: Mapping[str, Any] | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.qrels, str):
            object.__setattr__(self, "qrels", _freeze(self.qrels))
        object.__setattr__(self, "run", _freeze(self.run))
        object.__setattr__(self, "expected", float(self.expected))


@dataclass(frozen=True)
class MeasureDoc:
    """What the registry's declaration does not say about a measure: its ``equivalents``
    (``(tool, name or call and how its convention differs)`` pairs, tools from
    :data:`TOOLS`), ``notes`` on its conventions, and a worked ``example``."""

    equivalents: tuple[tuple[str, str], ...]
    example: MeasureExample
    notes: str = ""


def doc(example: MeasureExample, notes: str = "", **equivalents: str) -> MeasureDoc:
    """A :class:`MeasureDoc` with one keyword per tool of :data:`TOOLS`, shown in that order.

    Raises
    ------
    MeasureError
        A keyword is not a tool of :data:`TOOLS`.
    """
    unknown = set(equivalents) - set(TOOLS)
    if unknown:
        raise MeasureError(f"unknown tools {sorted(unknown)}; known: {list(TOOLS)}")
    pairs = tuple((tool, equivalents[tool]) for tool in TOOLS if tool in equivalents)
    return MeasureDoc(pairs, example, notes)
