"""Measures of your own: :func:`define_measure`.

A user measure is a Python function of one query's ranking; once defined it works
everywhere a built-in measure does (``evaluate``, ``Evaluator``, the measure language with
parameters and ``@`` cut-offs, ``compare`` and its statistics, reports, plots and the
command line, where ``ranklens --plugin MODULE ...`` imports a module that defines
measures).

Where definitions live: a process-wide registry,
:data:`ranklens.measures.user_registry.USER_MEASURES`. The project keeps
no global mutable state, and this is the one exception, for a reason: a measure's name
must mean the same thing wherever a name is parsed (a ``compare`` call, a report, a CLI
argument after ``--plugin``), and passing a registry object through every one of those
entry points would change each of their signatures. To stay safe the registry only
grows: a name is defined once (redefinition raises), a definition cannot shadow a built-in
name, alias, trec_eval name or peer-library name (compared ignoring case, so a user
measure is never confused with a built-in one), and additions are serialised by a lock,
so threads may define measures concurrently.

What a user measure may return, for each query: a **real number** (a Python ``int``,
``float`` or ``bool``, a numpy integer, floating or bool scalar, or a 0-d array of one),
**finite** (NaN and the infinities are refused: a measure that has no value for a query
must say what the query scores), and **within its declared bounds** (``bounds=``; a value
beyond a bound by no more than :data:`BOUND_TOLERANCE` times ``max(1, |bound|)``,
floating-point rounding, is taken as the bound). A batch function returns one such number
per query, as an array or a sequence of numbers (not strings). The arrays a measure is
handed are read-only: changing one raises, so copy it first. Whatever goes wrong in the
user's code, an exception it raises or a value it may not return, is a
:class:`~ranklens.base.errors.UserMeasureError` that names the measure and the query:
``measure 'X' failed on query 'q1': ZeroDivisionError: division by zero``.

>>> import numpy as np
>>> import ranklens
>>> from ranklens.measures.user import define_measure
>>> def first_grade(relevance, scores):
...     '''The grade of the top document.'''
...     return float(relevance[0]) if len(relevance) else 0.0
>>> from ranklens.measures.user_registry import USER_MEASURES
>>> if USER_MEASURES.get("DocTestFirstGrade") is None:  # defined once per process
...     spec = define_measure("DocTestFirstGrade", first_grade)
>>> res = ranklens.evaluate({"q": {"a": 2}}, {"q": {"a": 0.9, "b": 0.1}}, "DocTestFirstGrade")
>>> res["DocTestFirstGrade"]
2.0
"""

from __future__ import annotations

import math
import numbers
import re
import traceback
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from ranklens.base.errors import MeasureError, UserMeasureError
from ranklens.base.types import Float64Array
from ranklens.measures import peer_names, trec_names, trec_table
from ranklens.measures.base import Aggregate, MeasureSpec, Param
from ranklens.measures.registry import ALIASES, REGISTRY
from ranklens.measures.user_registry import USER_MEASURES

PerQuery = Callable[..., float]
"""``per_query(relevance, scores, **params) -> float`` for one query."""
Batch = Callable[..., Any]
"""``batch(relevance, scores, offsets, **params) -> array``: every query at once; query
``j`` is ``relevance[offsets[j]:offsets[j+1]]``."""

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

BOUND_TOLERANCE = 1e-12
"""How far (relative to ``max(1, |bound|)``) a user measure's value may lie beyond one of
its declared bounds and still be taken, as that bound: floating-point rounding."""


def _builtin_clash(name: str) -> str | None:
    """The built-in name (any language, any case) that ``name`` would be confused with."""
    lowered = name.lower()
    pools = (REGISTRY, ALIASES, trec_names.known_names(), peer_names.PEER_NAMES, trec_table.BY_NAME)
    for pool in pools:
        for builtin in pool:
            if builtin.lower() == lowered:
                return str(builtin)
    return None


def _param_of(name: str, default: Any) -> Param:
    if name in ("relevance", "scores", "offsets", "judged_only", "cutoff"):
        raise MeasureError(f"parameter name '{name}' is reserved; choose another")
    if isinstance(default, bool):
        return Param(name, bool, default, "user parameter")
    if isinstance(default, int):
        return Param(name, int, default, "user parameter")
    if isinstance(default, float):
        return Param(name, float, default, "user parameter")
    if isinstance(default, str):
        return Param(name, str, default, "user parameter")
    raise MeasureError(
        f"parameter '{name}': its default must be a bool, int, float or str, got {default!r}"
    )


def define_measure(
    name: str,
    per_query: PerQuery,
    *,
    params: Mapping[str, Any] | None = None,
    batch: Batch | None = None,
    cutoff: bool = False,
    summary: str | None = None,
    higher_is_better: bool = True,
    bounds: tuple[float, float] | None = None,
    aggregate: Aggregate = "mean",
) -> MeasureSpec:
    """Define a measure of your own, usable by name everywhere.

    Parameters
    ----------
    name
        The measure's name (letters, digits, ``_``); it may not be, ignoring case, a
        built-in name, alias, trec_eval name or peer-library name, nor one already defined.
    per_query
        ``per_query(relevance, scores, **params) -> float``: one query's grades in rank
        order (a numpy int64 array; unjudged and negatively judged documents as 0, as
        ranklens' own measures see them) and the scores in the same order (float64). With
        ``cutoff=True`` both are already cut to the top ``k`` for ``NAME@k``.
    params
        The measure's parameters and their defaults (``{"alpha": 0.5}``); set in the measure
        language as ``NAME(alpha=0.7)``. Every measure also takes ``judged_only``
        (unjudged and negatively judged documents dropped before ``per_query`` sees the
        ranking, as trec_eval's ``-J``).
    batch
        Optional vectorised form ``batch(relevance, scores, offsets, **params) -> array``
        over every query at once (query ``j`` is ``[offsets[j]:offsets[j+1]]``, already
        cut); used instead of calling ``per_query`` for each query.
    cutoff
        Whether the measure takes ``@k`` (``NAME@10``).
    summary, higher_is_better, aggregate
        A one-line description (default: the first line of ``per_query``'s docstring), the
        direction of the values (read by ``compare`` and the plots), and how the per-query
        values are combined (``"mean"``, ``"sum"`` or ``"gmean"``).
    bounds
        ``(low, high)``, the range every value lies in (an end may be infinite), enforced:
        a value outside it is refused (:class:`~ranklens.base.errors.UserMeasureError`).
        ``None`` (default): no range declared, any finite value (shown as ``-inf`` to
        ``inf``).

    Returns
    -------
    MeasureSpec
        The registered declaration.

    Raises
    ------
    MeasureError
        A bad or taken name, a reserved parameter name, an unsupported default, bounds
        that are not two numbers ``low <= high``.

    Notes
    -----
    What the measure may return, and how its failures are reported, is in the module
    docstring (:mod:`ranklens.measures.user`): a finite real number within ``bounds`` for
    every query, else a :class:`~ranklens.base.errors.UserMeasureError` naming the measure
    and the query.
    """
    if not isinstance(name, str) or _NAME.fullmatch(name) is None:
        raise MeasureError(
            f"measure name {name!r} must be letters, digits and '_' (not starting with a digit)"
        )
    if not callable(per_query):
        raise MeasureError(f"measure '{name}': per_query must be a function")
    if batch is not None and not callable(batch):
        raise MeasureError(f"measure '{name}': batch must be a function or None")
    declared = tuple(_param_of(k, v) for k, v in (params or {}).items())
    doc = (per_query.__doc__ or "").strip()
    description = summary or (doc.splitlines()[0] if doc else f"user measure {name}")
    limits = _bounds_of(name, bounds)
    kernel = _kernel(name, per_query, batch, cutoff, limits)
    spec = MeasureSpec(
        name,
        description,
        doc or description,
        kernel,
        (*declared, Param("judged_only", bool, False, "drop unjudged documents first")),
        Param("cutoff", int, None, "keep the top k documents", minimum=1) if cutoff else None,
        aggregate=aggregate,
        higher_is_better=higher_is_better,
        bounds=limits,
        no_rel_value=None,
    )
    clash = _builtin_clash(name)
    if clash is not None:
        raise MeasureError(
            f"cannot define measure '{name}': it would be confused with the built-in "
            f"name '{clash}'; choose another name"
        )
    USER_MEASURES.add(spec)
    return spec


def _bounds_of(name: str, bounds: Any) -> tuple[float, float]:
    """The declared bounds, checked: two numbers (not NaN), ``low <= high``."""
    if bounds is None:
        return (-math.inf, math.inf)
    try:
        low, high = bounds
        ok = all(
            isinstance(b, numbers.Real) and not isinstance(b, bool) and not math.isnan(b)
            for b in (low, high)
        )
    except (TypeError, ValueError):
        ok = False
    if not ok or not float(low) <= float(high):
        raise MeasureError(
            f"measure '{name}': bounds must be (low, high), two numbers with low <= high "
            f"(an end may be infinite), or None; not {bounds!r}"
        )
    return (float(low), float(high))


def _read_only(array: Any) -> Any:
    """A read-only view of ``array`` (the array itself, and whoever else holds it, keep
    their own flags)."""
    view = array.view()
    view.flags.writeable = False
    return view


def _kernel(
    name: str,
    per_query: PerQuery,
    batch: Batch | None,
    cutoff: bool,
    limits: tuple[float, float],
) -> Any:
    def kernel(view: Any, **values: Any) -> Float64Array:
        k = values.pop("cutoff", None) if cutoff else None
        offsets = np.asarray(view.offsets, dtype=np.int64)
        relevance = np.maximum(np.asarray(view.rel, dtype=np.int64), 0)
        found = view.scores
        scores = np.zeros(relevance.shape[0]) if found is None else np.asarray(found, np.float64)
        if k is not None:
            starts = offsets[:-1]
            lengths = np.minimum(np.diff(offsets), k)
            keep = np.repeat(starts, lengths) + _within(lengths)
            relevance, scores = relevance[keep], scores[keep]
            offsets = np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)
        relevance, scores, offsets = _read_only(relevance), _read_only(scores), _read_only(offsets)
        qids = [str(q) for q in view.qids]
        if batch is not None:
            try:
                returned = batch(relevance, scores, offsets, **values)
            except Exception as exc:
                raise _failure(name, None, exc, batch) from exc
            return _batch_values(name, returned, qids, limits)
        result = np.empty(offsets.shape[0] - 1, dtype=np.float64)
        for j in range(result.shape[0]):
            a, b = int(offsets[j]), int(offsets[j + 1])
            try:
                value = per_query(relevance[a:b], scores[a:b], **values)
            except Exception as exc:
                raise _failure(name, qids[j], exc, per_query) from exc
            result[j] = _checked(name, value, qids[j], limits, "per_query")
        return result

    return kernel


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _failure(name: str, qid: str | None, exc: Exception, function: Any) -> UserMeasureError:
    """The error for an exception raised by the user's ``function``: the measure, the
    query (``None`` for a batch function), the exception and where in the user's file."""
    where = f"on query '{qid}'" if qid is not None else "in its batch function (all queries)"
    detail = f"{type(exc).__name__}: {_one_line(str(exc))}".rstrip(": ")
    code = getattr(function, "__code__", None)
    frames = traceback.extract_tb(exc.__traceback__)
    mine = [f for f in frames if code is not None and f.filename == code.co_filename]
    place = f" ({mine[-1].filename}, line {mine[-1].lineno})" if mine else ""
    hint = ""
    if isinstance(exc, ValueError) and "read-only" in str(exc):
        hint = (
            "; the arrays a measure is handed are read-only: copy one before changing it "
            "(e.g. relevance.copy())"
        )
    return UserMeasureError(
        f"measure '{name}' failed {where}: {detail}{place}{hint}", measure=name, query=qid
    )


def _real(value: Any) -> float | None:
    """``value`` as a float when it is a real number (a bool as 0 or 1), else ``None``;
    raises OverflowError for an integer too large for a float64."""
    if isinstance(value, np.ndarray) and value.shape == () and value.dtype.kind in "biuf":
        value = value[()]
    if isinstance(value, bool | np.bool_):
        return float(bool(value))
    if isinstance(value, numbers.Real):
        return float(value)
    return None


def _checked(name: str, value: Any, qid: str, limits: tuple[float, float], source: str) -> float:
    """``value`` as the measure's value for ``qid``, or :class:`UserMeasureError` when a
    measure may not return it (see the module docstring)."""
    shown = _shown(value)
    problem = None
    try:
        number = _real(value)
    except OverflowError:
        number = None
        problem = f"{source} returned {shown}, too large for a float64"
    if number is None:
        problem = problem or (
            f"{source} returned {shown} ({type(value).__name__}), expected a real number "
            "(an int, float or bool, or a numpy scalar of one)"
        )
    elif not math.isfinite(number):
        problem = (
            f"{source} returned {number}, expected a finite number (NaN and infinities "
            "are refused: return the value the query should count as)"
        )
    else:
        low, high = limits
        if low <= number <= high:
            return number
        if number < low and low - number <= BOUND_TOLERANCE * max(1.0, abs(low)):
            return low  # floating-point rounding below the bound
        if number > high and number - high <= BOUND_TOLERANCE * max(1.0, abs(high)):
            return high
        problem = (
            f"{source} returned {number!r}, outside its declared bounds [{low:g}, {high:g}]; "
            "fix the measure, or declare the bounds it can reach "
            "(define_measure(..., bounds=(low, high)))"
        )
    raise UserMeasureError(
        f"measure '{name}' failed on query '{qid}': {problem}", measure=name, query=qid
    )


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _batch_values(
    name: str, returned: Any, qids: list[str], limits: tuple[float, float]
) -> Float64Array:
    """A batch function's values, one per query, checked as :func:`_checked` checks one
    (strings are refused, not parsed)."""
    try:
        if isinstance(returned, list | tuple):  # each item checked as one value
            array = np.empty(len(returned), dtype=object)
            for j, item in enumerate(returned):
                array[j] = item
        else:
            array = np.asarray(returned)
    except (TypeError, ValueError, OverflowError) as exc:
        raise UserMeasureError(
            f"measure '{name}' failed: its batch function returned something that is not an "
            f"array of numbers ({type(exc).__name__}: {_one_line(str(exc))})",
            measure=name,
        ) from None
    if array.shape != (len(qids),):
        raise UserMeasureError(
            f"measure '{name}' failed: its batch function returned shape {array.shape}, "
            f"expected ({len(qids)},), one value per query",
            measure=name,
        )
    if not qids:
        return np.zeros(0, dtype=np.float64)
    if array.dtype.kind in "biuf":
        with np.errstate(over="ignore"):  # a longdouble beyond float64: inf, refused below
            converted = array.astype(np.float64)
        low, high = limits
        bad = ~np.isfinite(converted)
        bad |= converted < low - BOUND_TOLERANCE * max(1.0, abs(low))
        bad |= converted > high + BOUND_TOLERANCE * max(1.0, abs(high))
        for j in np.flatnonzero(bad)[:1].tolist():
            _checked(name, converted[j], qids[j], limits, "its batch function")  # raises
        return np.clip(converted, low, high)
    if array.dtype.kind != "O":
        raise UserMeasureError(
            f"measure '{name}' failed on query '{qids[0]}': its batch function returned an "
            f"array of {array.dtype} (e.g. {_shown(array[0].item())}), expected real numbers",
            measure=name,
            query=qids[0],
        )
    out = np.empty(len(qids), dtype=np.float64)
    for j, value in enumerate(array.tolist()):
        out[j] = _checked(name, value, qids[j], limits, "its batch function")
    return out


def _within(lengths: Any) -> Any:
    """0, 1, ..., n-1 for each length n, concatenated."""
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    starts = np.repeat(np.cumsum(lengths) - lengths, lengths)
    return np.arange(total, dtype=np.int64) - starts
