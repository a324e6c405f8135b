"""ranx's ``evaluate`` (``ranx.meta.evaluate``)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from ranklens.compat.ranx._errors import RanxEmptyInputError, ranx_errors
from ranklens.compat.ranx.data_structures.run import RanxTies, Run, check_ties, ranklens_ties
from ranklens.compat.ranx.meta._common import (
    QrelsLike,
    RunLike,
    Scorer,
    check_threads,
    longest,
    measures_of,
    metric_names,
    pair,
)

__all__ = ["evaluate"]


@ranx_errors
def evaluate(
    qrels: QrelsLike,
    run: RunLike,
    metrics: Iterable[str] | str,
    return_mean: bool = True,
    return_std: bool = False,
    threads: int = 0,
    save_results_in_run: bool = True,
    make_comparable: bool = False,
    *,
    ties: RanxTies = "ranx",
) -> Any:
    """ranx's ``evaluate``: the mean of each metric over the qrels' queries.

    Parameters
    ----------
    qrels, run
        :class:`Qrels` and :class:`Run`, ``{q_id: {doc_id: value}}`` dicts, or both in
        ranx's array form (per query a ``(n, 2)`` array of ``[doc_id, value]`` rows, the
        run's in ranked order: a 3-d numpy array, a list or a ``numba.typed.List`` of 2-d
        arrays, paired by position); also ranklens' ``Qrels``/``Run``, DataFrames with
        ranx's columns and paths of files in ranx's formats.
    metrics
        A ranx metric name (``"ndcg@10"``, ``"map@100-l2"``, ``"rbp.95"``) or a list of
        them; ranklens names work too.
    return_mean
        The means (default), or each metric's per-query values as an array, queries in
        ranx's order (a :class:`Qrels`' sorted, a dict's own, the arrays').
    return_std
        With ``return_mean``: ``{"mean": ..., "std": ...}`` for each metric.
    threads
        Accepted for ranx's signature; ranklens' evaluation needs no threads setting.
    save_results_in_run
        Store the values in ``run.scores``, ``run.mean_scores`` (and ``run.std_scores``
        with ``return_std``) when ``run`` is a :class:`Run`, as ranx does.
    make_comparable
        Score the qrels' queries missing from the run 0 and leave out the run's queries the
        qrels do not judge; otherwise both must have the same queries (ranx's rule). The
        run itself is not changed (ranx's is).
    ties
        How equal scores are ranked: ``"ranx"`` (default) as ranx ranks them (its sort's
        order, :mod:`ranklens.compat.ranx._order`), or ranklens' policy ``"trec_eval"``
        (document id descending, the same for every order of the input).

    Returns
    -------
    float, dict or numpy.ndarray
        A float for one metric, ``{metric: float}`` for several (ranx's shapes).

    Raises
    ------
    QueryMismatchError
        The qrels and the run have different queries and ``make_comparable`` is false (an
        ``AssertionError`` too, as ranx's).
    MeasureError
        An unknown metric (a ``ValueError``, as ranx's).

    Examples
    --------
    >>> import numpy as np
    >>> qrels = np.array([[[1, 1], [4, 1], [5, 1], [6, 1]]])  # one query: [doc_id, grade]
    >>> run = np.array([[[1, 0.9], [2, 0.8], [3, 0.7], [4, 0.6], [5, 0.5]]])  # ranked
    >>> float(evaluate(qrels, run, "hits@5")), float(evaluate(qrels, run, "recall@3"))
    (3.0, 0.25)
    """
    names = metric_names(metrics)
    check_threads(threads)
    policy = check_ties(ties)
    both = pair(qrels, run, make_comparable, policy == "ranx")
    if not both.queries:
        raise RanxEmptyInputError("the qrels hold no query: there is nothing to evaluate")
    measures, column = measures_of(names, longest(both.run))
    scorer = Scorer(
        both.qrels, both.queries, measures, ranklens_ties(policy) if both.tied_order else "input"
    )
    values = scorer.values(both.run)[:, column]
    if not return_mean:
        return_std = False
    if isinstance(run, Run) and save_results_in_run:
        for j, name in enumerate(names):
            run.mean_scores[name] = float(np.mean(values[:, j]))
            if return_std:
                run.std_scores[name] = float(np.std(values[:, j]))
            run.scores[name] = dict(zip(both.queries, values[:, j].tolist(), strict=True))
    out: dict[str, Any] = {}
    for j, name in enumerate(names):
        if not return_mean:
            out[name] = values[:, j].copy()
        elif return_std:
            out[name] = {"mean": float(np.mean(values[:, j])), "std": float(np.std(values[:, j]))}
        else:
            out[name] = float(np.mean(values[:, j]))
    return out[names[0]] if len(names) == 1 else out
