"""The measure a column of per-topic scores stands for, whatever tool wrote it.

A score file names its measures its own way: trec_eval's value names (``map``,
``ndcg_cut_10``, ``P_10``, ``iprec_at_recall_0.10``, ``Rprec_mult_0.20``,
``relative_P_10``, ``unj_5``), ranklens' (``nDCG@10``, ``RBP(p=0.8)``, and the peer
tools' names it reads, such as nuggetizer's ``strict_vital_score``), or a name of its own
(an LLM judge's ``Measure-01``, a team's ``grade``).
:func:`measure_named` gives the :class:`~ranklens.Measure` of each: the ranklens measure
when the name is trec_eval's or ranklens' (so ``results["nDCG@10"]`` and
``results["ndcg_cut_10"]`` both answer, and such results compare with computed ones), and
otherwise an *external* measure (:func:`external_measure`): a measure ranklens cannot
compute, named as in the file, averaged over topics, higher better unless told.

>>> measure_named("ndcg_cut_10").name, measure_named("relative_P_10").name
('nDCG@10', 'RelP@10')
>>> m = measure_named("llm_judge_grade")
>>> m.name, is_external(m), m.spec.aggregate
('llm_judge_grade', True, 'mean')
"""

from __future__ import annotations

import math
import re
from functools import lru_cache
from typing import Any

from ranklens.base.errors import MeasureError, RanklensError
from ranklens.measures.base import Aggregate, Measure, MeasureSpec

EXTERNAL_SUMMARY = "a per-topic score read from a file (ranklens does not compute it)"
_NAME = re.compile(r"^[^\s]+$")


def _not_computable(view: Any, **params: Any) -> Any:
    raise MeasureError(
        "this measure was read from a score file: ranklens cannot compute it from a run"
    )


@lru_cache(maxsize=4096)
def external_measure(
    name: str, higher_is_better: bool = True, aggregate: Aggregate = "mean"
) -> Measure:
    """A measure ranklens does not know, named ``name``: its values come from a file.

    It has no parameters (its canonical name is ``name``), its aggregate over topics is
    ``aggregate`` (the mean unless told), its bounds are unknown (the whole real line), and
    ``higher_is_better`` says which way is better (it orders the runs in comparisons and
    leaderboards).

    Raises
    ------
    MeasureError
        ``name`` is empty or holds whitespace.
    """
    if not name or not _NAME.match(name):
        raise MeasureError(
            f"a score's measure name must be non-empty and hold no whitespace, not {name!r}"
        )
    spec = MeasureSpec(
        name=name,
        summary=EXTERNAL_SUMMARY,
        formula="the values given, per topic; their mean over topics",
        kernel=_not_computable,
        higher_is_better=higher_is_better,
        aggregate=aggregate,
        bounds=(-math.inf, math.inf),
        no_rel_value=None,
    )
    return spec.make()


def is_external(measure: Measure) -> bool:
    """Whether ``measure`` was made by :func:`external_measure` (read from a file, not
    computable by ranklens)."""
    return measure.spec.summary == EXTERNAL_SUMMARY and measure.spec.kernel is _not_computable


@lru_cache(maxsize=4096)
def trec_value_measure(name: str) -> Measure | None:
    """The ranklens measure of trec_eval's printed value name ``name`` (``map``,
    ``P_10``, ``ndcg_cut_10``, ``iprec_at_recall_0.10``, ``Rprec_mult_0.20``,
    ``relative_P_10``, ``unj_5``, ``set_F``, ...), with trec_eval's default options
    (``-l 1``, ``-N 0``), or ``None``. Values trec_eval prints only for the run (``gm_map``,
    ``num_q``, ``runid``) and values that are no numbers (``relstring``) give ``None``."""
    from ranklens.measures.trec_names import _judged
    from ranklens.measures.trec_table import BY_NAME, Options, TrecUsageError, request

    candidates: list[str] = []
    if name in BY_NAME:
        candidates.append(name)
    for i in range(len(name) - 1, 0, -1):
        if name[i] == "_" and name[:i] in BY_NAME:
            candidates.append(f"{name[:i]}.{name[i + 1 :]}")
    for text in candidates:
        try:
            slots = request([text], Options())
        except (TrecUsageError, RanklensError, ValueError):
            continue
        for slot in slots:
            if slot.name != name or not slot.per_query:
                continue
            if slot.kind == "measure":
                return slot.measure
            if slot.kind in ("prefs", "jg"):  # P_avgjg_5, prefs_simp, ...
                return _judged(slot.kind, slot.arg)
    return None


def _may_parse(name: str) -> bool:
    """Whether the measure language may know ``name``: its head is a registered name, or it
    is a trec_eval or a peer tool's name. (A name it does not know costs the parser its
    "did you mean" search; a file of many such names is read without it.)"""
    from ranklens.measures import peer_names, trec_names
    from ranklens.measures.registry import lookup

    text = name.strip()
    try:
        if peer_names.ir_measures_set(text) or peer_names.translate(text) is not None:
            return True
        if trec_names.parse_trec_name(text) is not None:
            return True
    except (RanklensError, ValueError, TypeError):
        return True  # a known form with a bad parameter: the parser says what is wrong
    head = re.match(r"\d*[A-Za-z_][A-Za-z0-9_\-]*", text)
    return head is not None and lookup(head.group(0)) is not None


@lru_cache(maxsize=4096)
def measure_named(name: str, higher_is_better: bool | None = None) -> Measure:
    """The measure a score file's column ``name`` stands for: trec_eval's value name
    (:func:`trec_value_measure`), else a name of ranklens' measure language (trec_eval's
    ``-m`` names included, :func:`~ranklens.parse_measure`), else an external measure
    (:func:`external_measure`, ``higher_is_better`` default ``True``). trec_eval's
    z-scores (``-Z``: ``Zmap``, ``Znum_ret``) are external measures aggregated as the
    measure they standardise (``Znum_ret`` summed).

    Raises
    ------
    MeasureError
        ``higher_is_better`` is given for a measure ranklens knows (it declares its own
        direction), or ``name`` is empty or holds whitespace.
    """
    from ranklens.measures.language import parse_measure

    known = trec_value_measure(name)
    if known is None and _may_parse(name):
        try:
            known = parse_measure(name)
        except (RanklensError, RecursionError, ValueError, TypeError):
            known = None
    if known is not None:
        if higher_is_better is not None and higher_is_better != known.spec.higher_is_better:
            direction = "higher" if known.spec.higher_is_better else "lower"
            raise MeasureError(
                f"'{name}' is ranklens' {known.name}, for which {direction} is better; its "
                "direction cannot be changed (rename the column if it is another score)"
            )
        return known
    aggregate: Aggregate = "mean"
    if name.startswith("Z") and len(name) > 1:  # trec_eval -Z: the base's aggregate
        base = trec_value_measure(name[1:])
        if base is not None:
            aggregate = base.spec.aggregate
    return external_measure(name, True if higher_is_better is None else higher_is_better, aggregate)


__all__ = [
    "external_measure",
    "is_external",
    "measure_named",
    "trec_value_measure",
]
