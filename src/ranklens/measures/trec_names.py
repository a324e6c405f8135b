"""trec_eval's measure names, mapped onto ranklens measures.

``map``, ``P.5,10`` (several cut-offs), ``P_5`` (one value name), ``ndcg_cut.10``,
``recip_rank``, ``iprec_at_recall..1,.5``, and the nickname ``official``. Cut-offs are read
as trec_eval reads them (``atol``: ``23.4`` is 23).
"""

from __future__ import annotations

import re

from ranklens.base.errors import MeasureError
from ranklens.measures.base import Measure
from ranklens.measures.registry import REGISTRY
from ranklens.measures.trec_common import OFFICIAL, with_relevance_level

DEFAULT_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
DEFAULT_RECALL_LEVELS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)

# trec_eval name -> (ranklens measure, kind of parameter list, default parameters)
_CUTOFF_MEASURES: dict[str, tuple[str, tuple[int, ...]]] = {
    "P": ("P", DEFAULT_CUTOFFS),
    "recall": ("R", DEFAULT_CUTOFFS),
    "map_cut": ("AP", DEFAULT_CUTOFFS),
    "ndcg_cut": ("nDCG", DEFAULT_CUTOFFS),
    "success": ("Success", (1, 5, 10)),
}
_PLAIN: dict[str, str] = {
    "map": "AP",
    "gm_map": "GMAP",
    "gm_bpref": "GMBpref",
    "recip_rank": "RR",
    "ndcg": "nDCG",
    "Rprec": "Rprec",
    "bpref": "Bpref",
    "num_q": "NumQ",
    "num_ret": "NumRet",
    "num_rel": "NumRel",
    "num_rel_ret": "NumRelRet",
    "set_P": "P",
    "set_recall": "R",
}
NICKNAMES: dict[str, tuple[str, ...]] = {"official": OFFICIAL}


def known_names() -> tuple[str, ...]:
    """Every trec_eval name this module understands (for suggestions)."""
    return (*_CUTOFF_MEASURES, *_PLAIN, "iprec_at_recall", *NICKNAMES)


def _atol(text: str) -> int:
    match = re.match(r"\s*[-+]?\d+", text)
    return int(match.group(0)) if match else 0


def _cutoffs(name: str, raw: str) -> list[int]:
    values = sorted(_atol(part) for part in raw.split(","))
    if any(v <= 0 for v in values):
        raise MeasureError(f"trec_eval measure '{name}': cut-offs must be positive ('{raw}')")
    if len(set(values)) != len(values):
        raise MeasureError(f"trec_eval measure '{name}': duplicate cut-offs ('{raw}')")
    return values


def _levels(name: str, raw: str) -> list[float]:
    try:
        values = sorted(float(part) for part in raw.split(","))
    except ValueError:
        raise MeasureError(f"trec_eval measure '{name}': bad recall levels ('{raw}')") from None
    if len(set(values)) != len(values):
        raise MeasureError(f"trec_eval measure '{name}': duplicate recall levels ('{raw}')")
    return values


def parse_trec_name(text: str) -> list[Measure] | None:
    """The ranklens measures for trec_eval name ``text``, or ``None`` if it is not one."""
    if text in NICKNAMES:
        out: list[Measure] = []
        for part in NICKNAMES[text]:
            found = parse_trec_name(part)
            if found:
                out.extend(found)
        return out
    base, dot, raw = text.partition(".")
    if base in _CUTOFF_MEASURES:
        target, defaults = _CUTOFF_MEASURES[base]
        cutoffs = _cutoffs(base, raw) if dot else list(defaults)
        return [REGISTRY[target].make(cutoff=k) for k in cutoffs]
    if base == "iprec_at_recall":
        levels = _levels(base, raw) if dot else list(DEFAULT_RECALL_LEVELS)
        return [REGISTRY["IPrec"].make(recall=x) for x in levels]
    if base in _PLAIN and not dot:
        return [REGISTRY[_PLAIN[base]].make()]
    match = re.fullmatch(r"(P|recall|map_cut|ndcg_cut|success)_(\d+)", text)
    if match:
        target = _CUTOFF_MEASURES[match.group(1)][0]
        return [REGISTRY[target].make(cutoff=int(match.group(2)))]
    match = re.fullmatch(r"iprec_at_recall_(\d*\.?\d+)", text)
    if match:
        return [REGISTRY["IPrec"].make(recall=float(match.group(1)))]
    return _from_trec_table(text)


def _from_trec_table(text: str) -> list[Measure] | None:
    """Any other trec_eval measure (``set_F``, ``Rprec_mult.0.5,2``, ``utility.2,-1,0,0``,
    ``rbp.p=0.8``, ``yaap``, ...) through the trec-eval front end's table, with its default
    options (``-l 1``, ``-N 0``); ``None`` if ``text`` is not one, or names a measure that
    needs a judgement file (use the ranklens name with ``judgments=``)."""
    from ranklens.measures.trec_table import BY_NAME, Options, TrecUsageError, request

    if text.partition(".")[0] not in BY_NAME:
        return None
    try:
        slots = request([text], Options())
    except TrecUsageError:
        return None
    aggregate = {"mean": "mean", "sum": "sum", "gm": "gmean"}
    out: list[Measure] = []
    for slot in slots:
        m = slot.measure if slot.kind == "measure" else _judged(slot.kind, slot.arg)
        if m is None or aggregate.get(slot.summary) != m.spec.aggregate:
            return None  # front-end values, or a summary the measure does not declare
        out.append(m)
    return out or None


def _judged(kind: str, arg: object) -> Measure | None:
    """The ranklens measure of a preference or judgement-group value (``prefs_simp``,
    ``P_avgjg`` at 10): the registered measure whose trec_eval name it is."""
    if kind not in ("prefs", "jg") or not isinstance(arg, tuple):
        return None
    name, at = arg
    for spec in REGISTRY.values():
        if spec.trec_name is None or spec.judgments == "qrels":
            continue
        with_at, _, without_at = spec.trec_name.partition("|")
        if at is None and without_at == name:
            return spec.make()
        if at is not None and spec.at is not None and with_at.startswith(f"{name}_{{"):
            value = int(at) if spec.at.type is int else float(at)
            return spec.make(**{spec.at.name: value})
    return None


def trec_value_name(measure: Measure) -> str | None:
    """trec_eval's value name for ``measure`` (``P_10``, ``map``), or ``None`` if it has none
    (a non-default parameter, or no trec_eval counterpart)."""
    spec = measure.spec
    if spec.trec_name is None:
        return None
    with_at, _, without_at = spec.trec_name.partition("|")
    at = spec.at
    for param in spec.params:
        if measure[param.name] != param.default:
            return None
    value = measure[at.name] if at is not None else None
    if value is None:
        return without_at or None
    return with_at.format(at=value) if with_at else None


__all__ = [
    "DEFAULT_CUTOFFS",
    "DEFAULT_RECALL_LEVELS",
    "NICKNAMES",
    "OFFICIAL",
    "known_names",
    "parse_trec_name",
    "trec_value_name",
    "with_relevance_level",
]
