# mypy: disable-error-code="no-untyped-call"
"""A ``ranklens`` provider for ir_measures: ``import ranklens.compat.ir_measures``.

Importing this module registers the provider in ``ir_measures.providers.registry`` (as
``"ranklens"``) and puts it first in ``ir_measures.DefaultPipeline``, so that
``ir_measures.calc_aggregate``, ``iter_calc``, ``calc`` and ``evaluator`` (and PyTerrier
experiments, which call them) use ranklens for every measure it supports; any other
measure is left to the provider ir_measures would otherwise pick.

Which measures, and why the values are the same: ir_measures computes the trec_eval
family (``P``, ``R``, ``AP``, ``RR``, ``nDCG``, ``Rprec``, ``Bpref``, ``infAP``,
``Success``, ``IPrec``, ``SetP``, ``SetR``, ``SetF``, ``SetAP``, ``NumRet``, ``NumRel``,
``NumQ``, with the parameters its ``pytrec_eval`` provider accepts) through pytrec_eval.
This provider keeps that provider's translation of each measure into pytrec_eval calls
(the relevance levels, ``judged_only``, custom gains, ``SetF``'s ``beta``) and answers them
with :mod:`ranklens.compat.pytrec_eval`, whose values are pytrec_eval's (trec_eval 9.0.8:
32-bit scores, 9.0.8's recall-level rounding), proven by ``tests/test_compat_pytrec_eval.py``
and, through ir_measures, by ``tests/test_compat_ir_measures.py``. ``RR@k``, which ir_measures
gives to its ``msmarco`` provider, is computed as that provider does (64-bit scores, ties
by document id ascending). The measures of the other providers (``cwl_eval``, ``compat``,
``pyndeval``, ``judged``, ``gdeval``, ``accuracy``, ``ranx``) are left to them.

This is the only ranklens module that imports ir_measures.

Examples
--------
>>> import ir_measures
>>> import ranklens.compat.ir_measures
>>> ir_measures.providers.registry["ranklens"].supports(ir_measures.parse_measure("nDCG@10"))
True
>>> qrels = {"q1": {"d1": 1, "d2": 0}}
>>> run = {"q1": {"d1": 0.2, "d2": 0.9}}
>>> values = ir_measures.calc_aggregate([ir_measures.P @ 1, ir_measures.AP], qrels, run)
>>> sorted((str(measure), value) for measure, value in values.items())
[('AP', 0.5), ('P@1', 0.0)]
"""

from __future__ import annotations

from collections.abc import Iterator
from types import ModuleType
from typing import Any, cast

import ir_measures
from ir_measures import Metric
from ir_measures import measures as irm_measures
from ir_measures.measures.base import _NOT_PROVIDED as NOT_PROVIDED
from ir_measures.providers.base import Any as Any_
from ir_measures.providers.base import Choices, Evaluator
from ir_measures.providers.fallback_provider import FallbackEvaluator
from ir_measures.providers.pytrec_eval_provider import PytrecEvalProvider
from ir_measures.util import QrelsConverter, RunConverter

from ranklens.compat import pytrec_eval as _compat_pytrec_eval
from ranklens.measures.language import parse_measure as _parse_measure

__all__ = ["NAME", "RanklensProvider", "provider"]

NAME = "ranklens"


class RanklensProvider(PytrecEvalProvider):
    """ir_measures' provider of the trec_eval measures and of ``RR@k``, computed by ranklens.

    It supports what ir_measures' ``pytrec_eval`` provider supports, translates each of
    those measures as that provider does, and evaluates them with
    :mod:`ranklens.compat.pytrec_eval` instead of pytrec_eval (it needs no pytrec_eval);
    and ``RR@k`` (with ``rel``, without ``judged_only``), which ir_measures gives to its
    ``msmarco`` provider, computed as that provider does: scores as 64-bit floats, ties by
    document id ascending, the reciprocal rank of the first document of grade >= ``rel``
    in the top ``k``.
    """

    NAME = NAME
    SUPPORTED_MEASURES = [  # noqa: RUF012 (ir_measures' own attribute, a list)
        *PytrecEvalProvider.SUPPORTED_MEASURES,
        irm_measures._RR(cutoff=Any_(), rel=Any_(), judged_only=Choices(False)),
    ]

    def _evaluator(self, measures: Any, qrels: Any) -> Any:
        chosen = list(measures)
        cut_rr = [m for m in chosen if m.NAME == "RR" and m["cutoff"] is not NOT_PROVIDED]
        rest = [m for m in chosen if not any(m is c for c in cut_rr)]
        if not cut_rr:
            return super()._evaluator(rest, qrels)
        teed = QrelsConverter(qrels).tee(2 if rest else 1)
        cut = _CutRREvaluator(cut_rr, teed[0].qrels)
        if not rest:
            return cut
        return FallbackEvaluator(chosen, [cut, super()._evaluator(rest, teed[1].qrels)])

    def __init__(self) -> None:
        super().__init__()
        self.pytrec_eval: ModuleType | None = _compat_pytrec_eval

    def initialize(self) -> None:
        """Always available: the engine is ranklens itself."""
        self.pytrec_eval = _compat_pytrec_eval

    def install_instructions(self) -> str:
        """How to install the provider (ranklens is already installed)."""
        return "pip install ranklens"


class _CutRREvaluator(Evaluator):
    """``RR(rel=r)@k`` as ir_measures' msmarco provider computes it, by ranklens."""

    def __init__(self, chosen: list[Any], qrels: Any) -> None:
        from ranklens.evaluation.evaluator import Evaluator as RanklensEvaluator

        judged = QrelsConverter(qrels).as_dict_of_dict()
        super().__init__(chosen, set(judged))
        self._by_name = {f"RR(rel={m['rel']})@{m['cutoff']}": m for m in chosen}
        self._evaluator = (
            RanklensEvaluator(judged, list(self._by_name), ties="docid_asc", queries="both")
            if judged
            else None
        )

    def _iter_calc(self, run: Any) -> Iterator[Metric]:
        scored = RunConverter(run).as_dict_of_dict()
        if self._evaluator is None or not scored:
            return
        results = self._evaluator.evaluate_part(scored)
        for qid, values in results.per_query.items():
            for name, measure in self._by_name.items():
                key = str(_parse_measure(name))
                yield Metric(query_id=qid, measure=measure, value=values[key])


def _install() -> RanklensProvider:
    """Register the provider once and put it first in ir_measures' default pipeline (the
    registry and the pipeline are ir_measures' own module-level objects; importing this
    module again changes nothing)."""
    registry: dict[str, Any] = ir_measures.providers.registry
    found = registry.get(NAME)
    if type(found).__module__ != __name__:  # not registered yet (a reload keeps the first)
        found = RanklensProvider()
        ir_measures.providers.register(found)
    pipeline: list[Any] = ir_measures.DefaultPipeline.providers
    if not any(p is found for p in pipeline):
        pipeline.insert(0, found)
    return cast(RanklensProvider, found)


provider: RanklensProvider = _install()
"""The registered provider (also ``ir_measures.providers.registry["ranklens"]``)."""
