"""The computation behind ranx's metric functions: arrays in, one value per query out.

ranx's kernels take, per query, ``[doc_id, relevance]`` rows of the qrels and ``[doc_id,
score]`` rows of the run in ranked order (a 3-d array, a list or a ``numba.typed.List``);
here the rows become ranklens tables (:func:`ranklens.compat.ranx._convert.tables_from_arrays`)
and the value is ranklens' measure of ranx's name, per query, in the arrays' order.
"""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np

from ranklens.base.types import Float64Array
from ranklens.compat.ranx import _convert
from ranklens.compat.ranx.meta._common import Scorer, longest, measures_of
from ranklens.ranking.align import UNJUDGED


def metric_name(metric: str, k: int, rel_lvl: int) -> str:
    """ranx's name of ``metric`` at cut-off ``k`` (0: none) and relevance level ``rel_lvl``."""
    _convert.check_cutoff(k)
    cut = f"@{int(k)}" if k else ""
    level = f"-l{int(rel_lvl)}" if rel_lvl != 1 else ""
    return f"{metric}{cut}{level}"


class MetricFunction(Protocol):
    """A ranx metric function of the arrays: ``f(qrels, run, k=0, rel_lvl=1)``."""

    def __call__(self, qrels: Any, run: Any, k: int = 0, rel_lvl: int = 1) -> Float64Array: ...


_ALL_RANKS = "Only the first ``k`` ranks count (0: all)."
_LOWEST_RELEVANT = "The lowest relevant grade."
_METRIC_DOC = """{summary}

    Parameters
    ----------
    qrels
        Per query, ``[doc_id, relevance]`` rows (ranx's typed list, a list or a 3-d array).
    run
        Per query, ``[doc_id, score]`` rows in ranked order, paired with ``qrels`` by
        position.
    k
        {k}
    rel_lvl
        {rel_lvl}

    Returns
    -------
    numpy.ndarray
        One value per query.
    """


def ranx_metric(
    module: str,
    function: str,
    metric: str,
    summary: str,
    *,
    reads_k: bool = True,
    rel_lvl_doc: str = _LOWEST_RELEVANT,
) -> MetricFunction:
    """ranx's metric function ``function`` of the module ``module``: the values of ranx's
    ``metric`` at ``k`` (not read unless ``reads_k``, as in ranx) and ``rel_lvl``, per query
    (:func:`per_query`), documented by ``summary`` (and ``rel_lvl_doc``, the text of the
    parameter ``rel_lvl``)."""

    def metric_function(qrels: Any, run: Any, k: int = 0, rel_lvl: int = 1) -> Float64Array:
        return per_query(qrels, run, metric_name(metric, k if reads_k else 0, rel_lvl))

    metric_function.__name__ = metric_function.__qualname__ = function
    metric_function.__module__ = module
    metric_function.__doc__ = _METRIC_DOC.format(
        summary=summary, k=_ALL_RANKS if reads_k else "Not read (as in ranx).", rel_lvl=rel_lvl_doc
    )
    return metric_function


def per_query(qrels: Any, run: Any, name: str) -> Float64Array:
    """The values of the measure ``name`` (a ranx or ranklens name) for each query of the
    arrays, in their order."""
    tables = _convert.tables_from_arrays(qrels, run)
    measures, _ = measures_of([name], longest(tables.run))
    values = Scorer(tables.qrels, tables.queries, measures, "input").values(tables.run)
    out: Float64Array = np.ascontiguousarray(values[:, 0])
    return out


def mark_lists(qrels: Any, run: Any, k: int, rel_lvl: int, mark: str) -> list[Float64Array]:
    """Per query, 1.0 at each of the first ``k`` ranks (all for ``k = 0``) whose document is
    ``mark``: ``"relevant"`` (judged ``rel_lvl`` or higher), ``"judged"`` (in the qrels, at
    any grade, negative ones too, as ranx reads them) or ``"non_rel"`` (judged 0)."""
    from ranklens.evaluation.evaluator import Evaluator

    _convert.check_cutoff(k)
    tables = _convert.tables_from_arrays(qrels, run)
    lengths = [int(n) for n in np.diff(_offsets_by_query(tables))]
    out = [np.zeros(n if k == 0 else min(k, n), dtype=np.float64) for n in lengths]
    if len(tables.qrels) == 0:
        return out
    ranked = Evaluator(tables.qrels, ["P"], ties="input", queries="qrels").align(tables.run).base
    if mark == "relevant":
        marks = ranked.relevant(rel_lvl)
    elif mark == "judged":
        marks = ranked.rel != UNJUDGED
    else:
        marks = ranked.rel == 0
    position = {q: i for i, q in enumerate(tables.queries)}
    bounds = ranked.offsets.tolist()
    for j, qid in enumerate(ranked.qids):
        i = position[qid]
        row = marks[bounds[j] : bounds[j + 1]][: len(out[i])]
        out[i] = row.astype(np.float64)
    return out


def _offsets_by_query(tables: _convert.ArrayInput) -> np.ndarray:
    """Run rows per query (every query of the arrays, in order), as offsets."""
    run = tables.run
    index = run.query_index()
    counts = np.diff(run.q_offsets)
    sizes = [int(counts[index[q]]) if q in index else 0 for q in tables.queries]
    offsets = np.zeros(len(sizes) + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    return offsets
