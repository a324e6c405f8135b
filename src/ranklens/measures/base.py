"""What a measure is: a declaration (:class:`MeasureSpec`) and a parameterised instance
(:class:`Measure`) whose canonical string round-trips through the parser."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol, cast

import numpy as np

from ranklens.base.errors import MeasureError
from ranklens.base.types import Float64Array

if TYPE_CHECKING:
    from ranklens.ranking.align import Aligned, Ranked
    from ranklens.ranking.stochastic import SampledRankings

Aggregate = Literal["mean", "sum", "gmean", "run"]
"""How a measure's value for the run is made: the ``mean``, ``sum`` or geometric mean
(``gmean``) of per-query values, or ``run``: computed over the whole run at once (the
catalogue coverage of all the users' lists, ...), with no per-query values (its kernel
returns a :class:`RunStatistic`)."""
Judgments = Literal[
    "qrels",
    "qrels_jg",
    "prefs",
    "subtopics",
    "strata",
    "gold",
    "assignments",
    "support",
    "segments",
    "none",
]
"""What a measure is computed from: ordinary qrels, judgement-group qrels (trec_eval
``-R qrels_jg``), preference judgments (``-R prefs`` / ``-R qrels_prefs``), subtopic
qrels (the diversity measures) or stratified sampled qrels (the sampled measures); for
the measures of generated answers, gold answers, nugget assignments, support judgments,
nugget assignments to segments, or nothing (:mod:`ranklens.measures.catalog_rag`)."""
Rankings = Literal["one", "sampled", "answer"]
"""What a measure reads of the run: one ranking per query, several sampled rankings per
query (a stochastic run, :mod:`ranklens.ranking.stochastic`), or one generated answer per
query (a RAG run, :mod:`ranklens.evaluation.answers`)."""
GMEAN_FLOOR = 1e-5
"""Per-query values below this are raised to it before a geometric mean (trec_eval)."""

Kernel = Callable[..., Any]
"""``kernel(view, **params)``: per-query values (a float64 array), or a
:class:`RunStatistic` for a measure whose aggregate is ``"run"``."""


@dataclass(frozen=True)
class KernelRef:
    """A kernel named by its module and function, imported when it is first called.

    The catalogues declare most measures' kernels this way (or call them from a function
    that imports their module), so that the registry, which every evaluation reads to
    parse its measure names, imports no kernel module: a measure's module is imported
    when the measure is first computed (importing all of them cost each evaluation about
    15 ms; 2026-11-27).

    >>> ref = KernelRef("ranklens.kernels.precision", "precision")
    >>> ref.resolve().__name__
    'precision'
    """

    module: str
    function: str

    def resolve(self) -> Kernel:
        """The kernel itself (its module imported)."""
        import importlib

        found: Kernel = getattr(importlib.import_module(self.module), self.function)
        return found

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.resolve()(*args, **kwargs)


class RunStatistic(Protocol):
    """The value of a run-level measure (aggregate ``"run"``), recomputable with each
    evaluated query (user) counted a given number of times: what the bootstrap over users
    of :func:`ranklens.compare` resamples.

    ``value(None)`` is the measure's value on the run; ``value(w)`` counts query ``j`` (in
    the results' query order) ``w[j]`` times; ``values(W)`` does so for each row of the
    ``(draws, queries)`` matrix ``W``.
    """

    @property
    def num_queries(self) -> int:
        """The number of evaluated queries it covers."""
        ...

    def value(self, weights: Float64Array | None = None) -> float:
        """The value with query ``j`` counted ``weights[j]`` times (``None``: once each)."""
        ...

    def values(self, weights: Float64Array) -> Float64Array:
        """:meth:`value` for each row of ``weights`` (draws x queries)."""
        ...


def is_run_level(measure: Measure | MeasureSpec) -> bool:
    """Whether a measure is computed over the whole run (aggregate ``"run"``): it has no
    per-query values."""
    spec = measure.spec if isinstance(measure, Measure) else measure
    return spec.aggregate == "run"


def is_sampled(measure: Measure | MeasureSpec) -> bool:
    """Whether a measure reads several sampled rankings per query (a stochastic run)."""
    spec = measure.spec if isinstance(measure, Measure) else measure
    return spec.rankings == "sampled"


@dataclass(frozen=True)
class Param:
    """A typed measure parameter with its default and, for numbers, its valid range.

    The range is declared once here and checked by :meth:`check` for every way a measure
    is made (the measure language, trec_eval's names, :meth:`MeasureSpec.make`): ``minimum``
    and ``maximum`` bound it, ``exclusive_minimum`` / ``exclusive_maximum`` leave the bound
    itself out (``RBP``'s ``p`` is in ``[0, 1)``: at 1 every value would be 0). A float
    parameter is always finite.

    >>> Param("p", float, 0.8, "persistence", minimum=0.0, maximum=1.0,
    ...       exclusive_maximum=True).range_text()
    'in [0.0, 1.0)'
    """

    name: str
    type: type
    default: Any
    help: str
    choices: tuple[Any, ...] | None = None
    minimum: float | None = None
    maximum: float | None = None
    exclusive_minimum: bool = False
    exclusive_maximum: bool = False

    def range_text(self) -> str:
        """The valid range in words: ``in [0.0, 1.0)``, ``at least 1``, ``greater than 0.0``."""
        low, high = self.minimum, self.maximum
        if low is not None and high is not None:
            left = "(" if self.exclusive_minimum else "["
            right = ")" if self.exclusive_maximum else "]"
            return f"in {left}{low!r}, {high!r}{right}"
        if low is not None:
            return f"{'greater than' if self.exclusive_minimum else 'at least'} {low!r}"
        if high is not None:
            return f"{'less than' if self.exclusive_maximum else 'at most'} {high!r}"
        return "a finite number"

    def in_range(self, number: float) -> bool:
        """Whether ``number`` is finite and inside the declared range."""
        if not _finite(number):
            return False
        low, high = self.minimum, self.maximum
        if low is not None and (number <= low if self.exclusive_minimum else number < low):
            return False
        return not (
            high is not None and (number >= high if self.exclusive_maximum else number > high)
        )

    def check(self, value: Any, measure: str) -> Any:
        """Validate and normalise ``value`` (ints are accepted for float parameters)."""
        if self.type is float and isinstance(value, int) and not isinstance(value, bool):
            if not _finite(value):
                raise MeasureError(
                    f"{measure}: parameter {self.name} must be {self.range_text()}, got {value!r}"
                )
            value = float(value)
        if value is None and self.default is None:
            return None
        if not isinstance(value, self.type) or (self.type is int and isinstance(value, bool)):
            raise MeasureError(
                f"{measure}: parameter {self.name} must be {self.type.__name__}, got {value!r}"
            )
        if self.choices is not None and value not in self.choices:
            raise MeasureError(
                f"{measure}: parameter {self.name} must be one of {list(self.choices)}, "
                f"got {value!r}"
            )
        if self.type in (int, float) and not self.in_range(cast(float, value)):
            raise MeasureError(
                f"{measure}: parameter {self.name} must be {self.range_text()}, got {value!r}"
            )
        return value


def _finite(value: float) -> bool:
    """``math.isfinite``, also for an int beyond a double's range (not finite then)."""
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


@dataclass(frozen=True)
class MeasureSpec:
    """The declaration of a measure family, e.g. ``P`` with ``rel``, ``judged_only`` and a cutoff.

    ``kernel(view, **params)`` computes one value per query from the aligned arrays; the
    ``judged_only`` parameter, where declared, selects the view and is not passed on.
    """

    name: str
    summary: str
    formula: str
    kernel: Kernel
    params: tuple[Param, ...] = ()
    at: Param | None = None
    """The parameter that ``@`` sets (a cutoff, or a recall level for ``IPrec``)."""
    at_required: bool = False
    aliases: tuple[str, ...] = ()
    aggregate: Aggregate = "mean"
    higher_is_better: bool = True
    bounds: tuple[float, float] = (0.0, 1.0)
    no_rel_value: float | None = 0.0
    """The value of a query without relevant documents (``None``: it does not apply)."""
    trec_name: str | None = None
    """trec_eval's names as ``"WITH_AT|WITHOUT_AT"`` templates (``{at}`` is the ``@`` value);
    an empty side means trec_eval has no such form."""
    judgments: Judgments = "qrels"
    """What kind of judgments the measure needs: ``"qrels"`` (ordinary qrels, the aligned
    arrays that ``kernel`` reads), ``"qrels_jg"`` (qrels whose second column is a judgement
    group, :mod:`ranklens.kernels.judgement_groups`) or ``"prefs"`` (preference judgments,
    :mod:`ranklens.kernels.preferences`). The last two read the judgement file (``judgments=``,
    by default the qrels file) that :func:`~ranklens.ranking.align.align` attaches to the
    ranking; their kernel gets the whole ranking and every parameter (``judged_only``
    included)."""
    rankings: Rankings = "one"
    """What the measure reads of the run: ``"one"`` ranking per query (the aligned arrays),
    or ``"sampled"``: several sampled rankings per query (a stochastic run with sample
    numbers; expected exposure), whose kernel gets a
    :class:`~ranklens.ranking.stochastic.SampledRankings` and every parameter."""

    def all_params(self) -> tuple[Param, ...]:
        """Every parameter, the ``@`` one last."""
        return self.params + ((self.at,) if self.at is not None else ())

    def param(self, name: str) -> Param | None:
        """The parameter called ``name``."""
        return next((p for p in self.all_params() if p.name == name), None)

    def make(self, **values: Any) -> Measure:
        """An instance with ``values`` for some parameters (validated), defaults for the rest."""
        known = {p.name: p for p in self.all_params()}
        for key in values:
            if key not in known:
                names = ", ".join(known) or "none"
                raise MeasureError(f"{self.name} has no parameter '{key}' (parameters: {names})")
        chosen: dict[str, Any] = {}
        for p in self.all_params():
            if p.name in values:
                chosen[p.name] = p.check(values[p.name], self.name)
            else:
                chosen[p.name] = p.default
        if self.at is not None and self.at_required and chosen[self.at.name] is None:
            raise MeasureError(f"{self.name} needs '@{self.at.name}', e.g. {self.name}@10")
        return Measure(self, tuple(chosen.items()))


@dataclass(frozen=True)
class Measure:
    """A measure with all its parameters fixed; hashable, printed in canonical form.

    >>> from ranklens.measures import parse_measure
    >>> m = parse_measure("nDCG(judged_only=True)@10")
    >>> str(m), m["cutoff"], m.spec.name
    ('nDCG(judged_only=True)@10', 10, 'nDCG')
    """

    spec: MeasureSpec = field(compare=False)
    items: tuple[tuple[str, Any], ...]
    name: str = field(init=False, compare=True)

    def __post_init__(self) -> None:
        object.__setattr__(self, "name", self._canonical())

    def __getitem__(self, key: str) -> Any:
        for k, v in self.items:
            if k == key:
                return v
        raise KeyError(key)

    @property
    def params(self) -> Mapping[str, Any]:
        """All parameter values, defaults included."""
        return dict(self.items)

    def _canonical(self) -> str:
        at = self.spec.at
        shown = [
            f"{k}={_repr(v)}"
            for k, v in sorted(self.items)
            if (at is None or k != at.name) and v != _default(self.spec, k)
        ]
        text = self.spec.name + (f"({','.join(shown)})" if shown else "")
        if at is not None and self[at.name] is not None:
            text += f"@{_repr(self[at.name])}"
        return text

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"Measure({self.name!r})"

    def compute(self, aligned: Aligned) -> Float64Array:
        """Per-query values on ``aligned``, in its query order.

        Raises
        ------
        MeasureError
            The measure is run-level (:func:`is_run_level`): see :meth:`statistic`.
        """
        if is_run_level(self):
            raise MeasureError(no_per_query_message(self.name))
        if is_sampled(self) or self.spec.rankings == "answer":
            what = (
                "generated answers (a RAG run)"
                if self.spec.rankings == "answer"
                else "several sampled rankings per query (a stochastic run with sample numbers)"
            )
            raise MeasureError(
                f"{self.name} reads {what}, not one ranking: evaluate it with ranklens.evaluate"
            )
        if self.spec.judgments != "qrels":
            # judged documents are those of its own judgement file: the kernel gets the
            # whole ranking and applies ``judged_only`` itself
            values = dict(self.items)
            return np.asarray(self.spec.kernel(aligned.base, **values), dtype=np.float64)
        return self.compute_on(aligned.view(bool(self.params.get("judged_only", False))))

    def statistic(self, aligned: Aligned) -> RunStatistic:
        """The :class:`RunStatistic` of a run-level measure on ``aligned``.

        Raises
        ------
        MeasureError
            The measure is not run-level.
        """
        if not is_run_level(self):
            raise MeasureError(f"{self.name} is computed per query, not over the whole run")
        values = dict(self.items)
        stat: RunStatistic = self.spec.kernel(aligned.base, **values)
        return stat

    def compute_sampled(self, sampled: SampledRankings) -> Float64Array:
        """Per-query values of a measure that reads sampled rankings (:func:`is_sampled`), in
        the query order of ``sampled``."""
        values = dict(self.items)
        return np.asarray(self.spec.kernel(sampled, **values), dtype=np.float64)

    def compute_on(self, view: Ranked) -> Float64Array:
        """Per-query values on ``view`` as it is (``judged_only`` is not applied again)."""
        values = dict(self.items)
        values.pop("judged_only", None)
        result = np.asarray(self.spec.kernel(view, **values), dtype=np.float64)
        return result


def no_per_query_message(name: str) -> str:
    """The error for a run-level measure asked per query."""
    return (
        f"{name} is computed over the whole run (all users' lists at once), not per query: "
        "it has no per-query values; read its value for the run (results.aggregate, the "
        "'all' row) and leave it out of per-query output (-q)"
    )


def _default(spec: MeasureSpec, name: str) -> Any:
    param = spec.param(name)
    return None if param is None else param.default


def _repr(value: Any) -> str:
    if isinstance(value, tuple) and all(isinstance(v, tuple) for v in value):  # a mapping
        return "{" + ",".join(f"{k}:{_repr(v)}" for k, v in value) + "}"
    if isinstance(value, tuple):  # a sequence, e.g. recall levels
        return "[" + ",".join(_repr(v) for v in value) + "]"
    return repr(value)
