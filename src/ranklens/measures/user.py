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

import re
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from ranklens.base.errors import MeasureError
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
    bounds: tuple[float, float] = (0.0, 1.0),
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
    summary, higher_is_better, bounds, aggregate
        A one-line description (default: the first line of ``per_query``'s docstring), the
        direction and range of the values (read by ``compare`` and the plots), and how the
        per-query values are combined (``"mean"``, ``"sum"`` or ``"gmean"``).

    Returns
    -------
    MeasureSpec
        The registered declaration.

    Raises
    ------
    MeasureError
        A bad or taken name, a reserved parameter name, an unsupported default.
    """
    if not isinstance(name, str) or _NAME.fullmatch(name) is None:
        raise MeasureError(
            f"measure name {name!r} must be letters, digits and '_' (not starting with a digit)"
        )
    if not callable(per_query):
        raise MeasureError(f"measure '{name}': per_query must be a function")
    declared = tuple(_param_of(k, v) for k, v in (params or {}).items())
    doc = (per_query.__doc__ or "").strip()
    description = summary or (doc.splitlines()[0] if doc else f"user measure {name}")
    kernel = _kernel(name, per_query, batch, cutoff)
    spec = MeasureSpec(
        name,
        description,
        doc or description,
        kernel,
        (*declared, Param("judged_only", bool, False, "drop unjudged documents first")),
        Param("cutoff", int, None, "keep the top k documents", minimum=1) if cutoff else None,
        aggregate=aggregate,
        higher_is_better=higher_is_better,
        bounds=bounds,
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


def _kernel(name: str, per_query: PerQuery, batch: Batch | None, cutoff: bool) -> Any:
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
        relevance.flags.writeable = False
        scores.flags.writeable = False
        if batch is not None:
            out = np.asarray(batch(relevance, scores, offsets, **values), dtype=np.float64)
            if out.shape != (offsets.shape[0] - 1,):
                raise MeasureError(
                    f"measure '{name}': its batch function returned shape {out.shape}, "
                    f"expected ({offsets.shape[0] - 1},), one value per query"
                )
            return out
        result = np.empty(offsets.shape[0] - 1, dtype=np.float64)
        for j in range(result.shape[0]):
            a, b = int(offsets[j]), int(offsets[j + 1])
            value = per_query(relevance[a:b], scores[a:b], **values)
            try:
                result[j] = float(value)
            except (TypeError, ValueError):
                raise MeasureError(
                    f"measure '{name}': per_query returned {value!r} for query "
                    f"'{view.qids[j]}', expected a number"
                ) from None
        return result

    return kernel


def _within(lengths: Any) -> Any:
    """0, 1, ..., n-1 for each length n, concatenated."""
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    starts = np.repeat(np.cumsum(lengths) - lengths, lengths)
    return np.arange(total, dtype=np.int64) - starts
