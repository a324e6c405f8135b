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
and, through ir_measures, by ``tests/test_compat_ir_measures.py``. It also serves, each as
the provider ir_measures would otherwise pick computes it (its order of tied documents,
the queries it reports, the errors it raises):

* ``RR@k`` (ir_measures' ``msmarco`` provider): 64-bit scores, ties by document id
  ascending;
* ``Judged@k`` (the ``judged`` provider): the share of the top k documents listed in the
  qrels, whatever their grade, ties by document id ascending; a ranking with no document
  divides by zero there, and here;
* ``Accuracy@k`` with ``rel >= 1`` (the ``accuracy`` provider): reported for the queries
  that retrieve a relevant document in the top k, ties in the run's order; a top k with no
  non-relevant document divides by zero there, and here;

The measures of ir_measures' other providers are left to them: ``cwl_eval``'s (``RBP``,
``BPM``, ``SDCG``, ``NERR8`` to ``NERR11``, ``INST``, ``INSQ``) and ``compat``'s (``Compat``),
whose values ranklens computes to within a few units in the last place but not bit for
bit (another order of the floating-point sums); ``gdeval``'s (``nDCG(dcg='exp-log2')@k``,
``ERR@k``), which runs a modified gdeval.pl 1.2a bundled with ir_measures (no mean line;
an empty run is no error there) where ranklens reproduces NIST's 1.3 (``ranklens
gdeval``); ``pyndeval``'s diversity measures, which read subtopic qrels this interface
does not carry; ``ranx``'s (``nDCG(dcg='exp-log2')`` without a cut-off), whose order of
tied documents is its sort's; ``runtime``'s (your own functions).

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
    """ir_measures' provider of the trec_eval measures, ``RR@k``, ``Judged@k`` and
    ``Accuracy@k``, computed by ranklens (see the module docstring for each one's
    conventions).

    It supports what ir_measures' ``pytrec_eval`` provider supports, translates each of
    those measures as that provider does, and evaluates them with
    :mod:`ranklens.compat.pytrec_eval` instead of pytrec_eval (it needs no pytrec_eval);
    the others as the provider ir_measures gives them to computes them.
    """

    NAME = NAME
    SUPPORTED_MEASURES = [  # noqa: RUF012 (ir_measures' own attribute, a list)
        *PytrecEvalProvider.SUPPORTED_MEASURES,
        irm_measures._RR(cutoff=Any_(), rel=Any_(), judged_only=Choices(False)),
        irm_measures._Judged(cutoff=Any_()),
        irm_measures._Accuracy(cutoff=Any_(), rel=Any_()),
    ]

    def supports(self, measure: Any) -> bool:
        """Whether the provider computes ``measure`` (``Accuracy`` only with ``rel >= 1``:
        below, the accuracy provider counts unjudged documents as relevant)."""
        if measure.NAME == "Accuracy" and not _whole_at_least_one(measure["rel"]):
            return False
        return bool(super().supports(measure))

    def _evaluator(self, measures: Any, qrels: Any) -> Any:
        chosen = list(measures)
        groups: dict[str, list[Any]] = {}
        for measure in chosen:
            groups.setdefault(_family(measure), []).append(measure)
        # in the order of ir_measures' own providers: pytrec_eval, judged, msmarco, accuracy
        made = [family for family in _FAMILIES if family in groups]
        teed = QrelsConverter(qrels).tee(len(made))
        evaluators = [
            self._family_evaluator(family, groups[family], part.qrels)
            for family, part in zip(made, teed, strict=True)
        ]
        if len(evaluators) == 1:
            return evaluators[0]
        return FallbackEvaluator(chosen, evaluators)

    def _family_evaluator(self, family: str, chosen: list[Any], qrels: Any) -> Any:
        if family == "pytrec_eval":
            return super()._evaluator(chosen, qrels)
        if family == "msmarco":
            return _CutRREvaluator(chosen, qrels)
        if family == "judged":
            return _JudgedEvaluator(chosen, qrels)
        return _AccuracyEvaluator(chosen, qrels)

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


_FAMILIES = ("pytrec_eval", "judged", "msmarco", "accuracy")
"""The provider each family of measures copies, in ir_measures' order of providers."""


def _family(measure: Any) -> str:
    """Which of ir_measures' providers the provider computes ``measure`` as."""
    name = measure.NAME
    if name == "RR" and measure["cutoff"] is not NOT_PROVIDED:
        return "msmarco"
    if name == "Judged":
        return "judged"
    if name == "Accuracy":
        return "accuracy"
    return "pytrec_eval"


def _whole_at_least_one(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def _ranklens_evaluator(qrels: dict[str, dict[str, int]], names: list[str], ties: str) -> Any:
    """A ranklens Evaluator of ``names`` over the queries of ``qrels`` with judgments (none
    if no query has one), evaluating the run's queries that the qrels judge."""
    from ranklens.evaluation.evaluator import Evaluator as RanklensEvaluator

    judged = {qid: docs for qid, docs in qrels.items() if docs}
    if not judged:
        return None
    return RanklensEvaluator(judged, names, ties=ties, queries="both")  # type: ignore[arg-type]


class _JudgedEvaluator(Evaluator):
    """``Judged@k`` as ir_measures' judged provider computes it, by ranklens: for each
    query of the run with judgments (in the run's order), the share of its top
    ``min(k, n)`` documents (ties by document id ascending) that the qrels list, whatever
    their grade (so negative grades count as 0 here: ranklens' ``Judged`` counts documents
    judged >= 0); an empty ranking divides by zero, as there."""

    def __init__(self, chosen: list[Any], qrels: Any) -> None:
        judged = QrelsConverter(qrels).as_dict_of_dict()
        super().__init__(chosen, set(judged))
        self._qrels = judged
        self._by_name = {_judged_name(m): m for m in chosen}
        listed = {q: {d: max(int(g), 0) for d, g in docs.items()} for q, docs in judged.items()}
        self._evaluator = _ranklens_evaluator(listed, list(self._by_name), "docid_asc")

    def _iter_calc(self, run: Any) -> Iterator[Metric]:
        scored = RunConverter(run).as_dict_of_dict()
        wanted = [qid for qid in scored if self._qrels.get(qid)]
        if not wanted or self._evaluator is None:
            return
        if any(not scored[qid] for qid in wanted):
            raise ZeroDivisionError("division by zero")  # (the judged provider's, on it)
        values = self._evaluator.evaluate_part({qid: scored[qid] for qid in wanted}).per_query
        for qid in wanted:
            for name, measure in self._by_name.items():
                yield Metric(query_id=qid, measure=measure, value=values[qid][name])


def _judged_name(measure: Any) -> str:
    cutoff = measure["cutoff"]
    return "Judged" if cutoff is NOT_PROVIDED else f"Judged@{cutoff}"


class _AccuracyEvaluator(Evaluator):
    """``Accuracy(rel=r)@k`` (``r >= 1``) as ir_measures' accuracy provider computes it,
    by ranklens (its ``Accuracy``, ties in the run's order): measure by measure, for each
    query of the run with judgments that retrieves a document of grade >= ``r`` in its top
    k, in the run's order, and for no other query; a top k without a non-relevant document
    divides by zero, as there."""

    def __init__(self, chosen: list[Any], qrels: Any) -> None:
        judged = QrelsConverter(qrels).as_dict_of_dict()
        super().__init__(chosen, set(judged))
        self._qrels = judged
        self._names = [_accuracy_names(m) for m in chosen]
        names = list(dict.fromkeys(name for trio in self._names for name in trio))
        self._evaluator = _ranklens_evaluator(judged, names, "input")

    def iter_calc(self, run: Any) -> Iterator[Metric]:
        """The values (no default for the queries not reported: as the accuracy provider,
        this replaces ir_measures' base ``iter_calc``)."""
        scored = RunConverter(run).as_dict_of_dict()
        wanted = [qid for qid in scored if scored[qid] and self._qrels.get(qid)]
        if not wanted or self._evaluator is None:
            return
        values = self._evaluator.evaluate_part({qid: scored[qid] for qid in wanted}).per_query
        for measure, (name, relevant, retrieved) in zip(self.measures, self._names, strict=True):
            for qid in wanted:
                found = values[qid][relevant]
                if found < 1:
                    continue  # (no relevant document retrieved: not reported there)
                if values[qid][retrieved] == found:
                    raise ZeroDivisionError("float division by zero")  # (as there)
                yield Metric(query_id=qid, measure=measure, value=values[qid][name])


def _accuracy_names(measure: Any) -> tuple[str, str, str]:
    """The ranklens names of ``Accuracy(rel=r)@k``, of its relevant retrieved and of its
    retrieved documents in the top k."""
    cutoff, rel = measure["cutoff"], measure["rel"]
    at = "" if cutoff is NOT_PROVIDED or not cutoff else f"@{cutoff}"
    return f"Accuracy(rel={rel}){at}", f"NumRelRet(rel={rel}){at}", f"NumRet{at}"


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
