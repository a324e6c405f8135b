"""Estimating the parameters of the supervised fusion methods from training qrels.

Each estimator reads, for every run and every query of the qrels, the *hit list*: 1 at a
rank whose document is relevant (grade >= ``rel``), else 0, the run ranked by the tie
policy. The estimates are those of ranx (``*_train``), which follow the papers:

* ``posfuse``, ``slidefuse``: ``P(rank p)`` = hits at rank p over the queries whose list
  reaches rank p (Lillis et al. 2010, 2008);
* ``probfuse``: each query's list is cut into ``n_segments`` segments of ``ceil(n /
  n_segments)`` documents; ``P(segment k)`` is the mean over the queries of the fraction
  of relevant documents in segment k (Lillis et al. 2006);
* ``segfuse``: the same over the fixed segments 0-4, 5-14, 15-34, ... (sizes ``10 * 2^(k-1)
  - 5``), each fraction taken over the full segment size (Shokouhi 2007);
* ``bayesfuse``: log-odds ``log(p / (1 - p))`` of the mean precision ``p`` of the segments
  cut at ranks 5, 10, 15, 20, 30, 100, 200, 500, 1000 (0 and 1 replaced by 0.001 and 0.999);
* ``mapfuse``: each run's mean average precision (AP over the qrels' queries).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ranklens.base.errors import InputError, OptionError
from ranklens.base.segments import positions, segment_ids
from ranklens.base.types import Float64Array, Int64Array, TiePolicy
from ranklens.data.coerce import QrelsLike, RunLike, as_qrels, as_run
from ranklens.fusion.methods import BAYES_CUTOFFS, SEGFUSE_BOUNDS, SUPERVISED, get_method
from ranklens.ranking.align import PreparedQrels, align


def train(
    method: str,
    qrels: QrelsLike,
    runs: Sequence[RunLike],
    *,
    n_segments: int = 25,
    rel: int = 1,
    ties: TiePolicy = "trec_eval",
) -> dict[str, Any]:
    """Estimate a supervised method's parameters; returns the ``params`` for :func:`fuse`.

    Parameters
    ----------
    method
        ``bayesfuse``, ``posfuse``, ``probfuse``, ``segfuse``, ``slidefuse`` or ``mapfuse``.
    qrels, runs
        Training qrels and the runs to be fused (paths, objects, dicts).
    n_segments
        ProbFuse's number of segments per list.
    rel
        The lowest relevant grade.
    ties
        Tie policy for ranking the runs.

    Examples
    --------
    >>> qrels = {"q1": {"a": 1}, "q2": {"b": 1}}
    >>> run = {"q1": {"a": 0.9, "b": 0.5}, "q2": {"a": 0.9, "b": 0.5}}
    >>> [p.tolist() for p in train("posfuse", qrels, [run])["probs"]]
    [[0.5, 0.5]]
    """
    spec = get_method(method)
    if spec.name not in SUPERVISED:
        raise OptionError(f"method {spec.name!r} has nothing to train; train one of {SUPERVISED}")
    if n_segments < 1:
        raise OptionError(f"n_segments must be a positive number, not {n_segments}")
    prepared = PreparedQrels.of(as_qrels(qrels))
    inputs = [as_run(run) for run in runs]
    _check_overlap(prepared.qrels.qids, inputs)
    if spec.name == "mapfuse":
        from ranklens.evaluation.evaluator import Evaluator
        from ranklens.measures.language import parse_measure

        ap = parse_measure(f"AP(rel={rel})")
        evaluator = Evaluator(prepared.qrels, [ap], ties=ties)
        return {"map_scores": [float(evaluator.evaluate(run)[ap]) for run in inputs]}
    hits = [_hit_lists(prepared, run, rel, ties) for run in inputs]
    if spec.name in ("posfuse", "slidefuse"):
        return {"probs": [_position_probs(*h) for h in hits]}
    if spec.name == "probfuse":
        return {"probs": [_probfuse_probs(*h, n_segments) for h in hits]}
    if spec.name == "segfuse":
        return {"probs": [_fixed_segments(*h, SEGFUSE_BOUNDS) for h in hits]}
    return {"log_odds": [_log_odds(*h) for h in hits]}


def _check_overlap(qids: Sequence[str], runs: Sequence[Any]) -> None:
    """Refuse a run that shares no query with the training qrels: nothing to estimate from."""
    if not runs:
        raise OptionError("training needs at least one run")
    judged = set(qids)
    for number, run in enumerate(runs, 1):
        if judged.isdisjoint(run.qids):
            raise InputError(
                f"run {number} ({run.name}) shares no query with the training qrels (the run "
                f"has {len(run.qids)} queries, e.g. {run.qids[0]!r}; the qrels {len(judged)}, "
                f"e.g. {min(judged)!r}); train on qrels of the runs' queries"
                if run.qids and judged
                else f"run {number} ({run.name}) or the training qrels hold no query"
            )


def _hit_lists(
    prepared: PreparedQrels, run: Any, rel: int, ties: TiePolicy
) -> tuple[Int64Array, Float64Array]:
    """Per qrels query, the offsets of its ranked list, and 1.0 at each relevant rank."""
    ranked = align(prepared, run, ties=ties, queries="qrels").base
    return ranked.offsets, (ranked.rel >= rel).astype(np.float64)


def _position_probs(offsets: Int64Array, hit: Float64Array) -> Float64Array:
    ids = segment_ids(offsets)
    pos = positions(offsets, ids)
    longest = int(np.diff(offsets).max(initial=0))
    if longest == 0:
        raise OptionError("no run retrieved anything for the qrels' queries")
    hits = np.bincount(pos, weights=hit, minlength=longest)
    lists = np.bincount(pos, minlength=longest)
    probs: Float64Array = hits / lists
    return probs


def _probfuse_probs(offsets: Int64Array, hit: Float64Array, n_segments: int) -> Float64Array:
    nq = offsets.shape[0] - 1
    ids = segment_ids(offsets)
    pos = positions(offsets, ids)
    size = np.maximum(-(-np.diff(offsets) // n_segments), 1)
    key = ids * n_segments + pos // size[ids]
    hits = np.bincount(key, weights=hit, minlength=nq * n_segments).astype(np.float64)
    hits = hits.reshape(nq, n_segments)
    lens = np.bincount(key, minlength=nq * n_segments).reshape(nq, n_segments)
    frac = np.divide(hits, lens, out=np.zeros_like(hits), where=lens > 0)
    probs: Float64Array = frac.sum(axis=0) / max(nq, 1)
    return probs


def _segment_hits(offsets: Int64Array, hit: Float64Array, bounds: Any) -> Float64Array:
    """Per query and segment ``[bounds[k], bounds[k+1])``, the hits."""
    nq = offsets.shape[0] - 1
    bounds = np.asarray(bounds, dtype=np.int64)
    n_seg = bounds.shape[0] - 1
    ids = segment_ids(offsets)
    pos = positions(offsets, ids)
    seg = np.searchsorted(bounds, pos, side="right") - 1
    inside = seg < n_seg
    key = ids[inside] * n_seg + seg[inside]
    counts = np.bincount(key, weights=hit[inside], minlength=nq * n_seg)
    table: Float64Array = counts.astype(np.float64).reshape(nq, n_seg)
    return table


def _fixed_segments(offsets: Int64Array, hit: Float64Array, bounds: Any) -> Float64Array:
    nq = offsets.shape[0] - 1
    widths = np.diff(np.asarray(bounds, dtype=np.float64))
    probs: Float64Array = (_segment_hits(offsets, hit, bounds) / widths).sum(axis=0) / max(nq, 1)
    return probs


def _log_odds(
    offsets: Int64Array, hit: Float64Array, cutoffs: Sequence[int] = BAYES_CUTOFFS
) -> Float64Array:
    nq = offsets.shape[0] - 1
    cuts = np.asarray(cutoffs, dtype=np.int64)
    widths = np.diff(cuts).astype(np.float64)
    precision = (_segment_hits(offsets, hit, cuts) / widths).sum(axis=0) / max(nq, 1)
    precision = np.where(precision == 0, 0.001, precision)
    negative = 1.0 - precision
    negative = np.where(negative == 0, 0.001, negative)
    odds: Float64Array = np.repeat(np.log(precision / negative), np.diff(cuts))
    return odds
