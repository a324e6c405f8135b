r"""Was a run reproduced? The measures of repro_eval (Breuer et al., SIGIR 2020).

:func:`reproduction` compares an original run with its reproduction (same topics, same
qrels) or replication (other topics or qrels: ``qrels_reproduced=``):

* ``ktu``: Kendall's tau "union" per topic, as repro_eval computes it: the documents of
  both rankings (each cut at ``order_depth``) are numbered in the sorted order of their union;
  tau-b is taken between the two sequences of numbers, rank by rank (the shorter ranking
  sets the length, where repro_eval would stop with an error); the mean over the topics
  of the reproduced run.
* ``rbo``: rank-biased overlap per topic in the form repro_eval uses (Clarke et al.,
  TOIS 2021; normalised, truncated at ``order_depth``):
  :math:`\sum_{d=1}^{D} p^{d-1} |O_{1:d} \cap R_{1:d}| / d \,/\, \sum_{d=1}^{D} p^{d-1}`,
  ``p = 0.95``, ``D = 1000``; the mean over the topics of the reproduced run. (This is
  not the extrapolated RBO of :func:`~ranklens.leaderboard_agreement`.)
* ``rbo_ext``: the extrapolated RBO of the two rankings per topic (same ``p`` and depth),
  with documents of equal score tied and rankings of different lengths treated as Corsi
  and Urbano (SIGIR 2024) define (variant ``a``: the mean over the orders of the ties;
  :func:`~ranklens.analysis.stats.rank_similarity.rbo_rankings`); the mean over the
  topics of the reproduced run. repro_eval has no such number.
* ``rmse``: :math:`\sqrt{\frac{1}{n}\sum_j (o_j - r_j)^2}` of the per-topic values;
  ``nrmse``: divided by the largest RMSE possible for values in [0, 1],
  :math:`\sqrt{\frac{1}{n}\sum_j \max(o_j, 1 - o_j)^2}`.
* with a baseline (``baseline=(original_baseline, reproduced_baseline)``): the effect
  ratio ``er`` :math:`= \overline{\Delta r} / \overline{\Delta o}` of the mean per-topic
  improvements over the baseline, and the delta relative improvement ``dri``
  :math:`= RI_o - RI_r` with :math:`RI = (\bar a - \bar b) / \bar b`.
* ``p_value``: the paired t-test of the per-topic values (reproduction) or the unpaired
  one (replication), 1.0 when the two sets of values are identical.

Runs are ranked as everywhere in ranklens (score descending, ties by document id
descending: trec_eval's order, which is what repro_eval's ``break_ties`` gives for runs
sorted by score). Per-topic values are ranklens' (trec_eval's) over the qrels' topics; a
topic a run lacks scores 0, where repro_eval would drop it or stop. In a replication the
document orderings are not comparable, and ``ktu``, ``rbo``, ``rmse`` and ``nrmse`` are nan.

References
----------
Breuer, Ferro, Fuhr, Maistro, Sakai, Schaer and Soboroff (2020). How to Measure the
Reproducibility of System-oriented IR Experiments. SIGIR.

Examples
--------
>>> qrels = {"q1": {"a": 1, "b": 1}, "q2": {"c": 1}}
>>> original = {"q1": {"a": 3, "b": 2, "x": 1}, "q2": {"c": 2, "y": 1}}
>>> reproduced = {"q1": {"b": 3, "a": 2, "x": 1}, "q2": {"y": 2, "c": 1}}
>>> res = reproduction(qrels, original, reproduced, ["P@1"])
>>> round(res["P@1"]["rmse"], 4), round(res["P@1"]["ktu"], 4)
(0.7071, -0.3333)
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ranklens.analysis.named_numbers import NamedNumbers
from ranklens.analysis.stats.rank_similarity import rbo_rankings
from ranklens.base.errors import InputError, OptionError
from ranklens.data.coerce import QrelsLike, RunLike, as_run
from ranklens.data.run import Run
from ranklens.evaluation.evaluator import Evaluator
from ranklens.evaluation.results import Results
from ranklens.measures import Measure

_stats: Any = importlib.import_module("scipy.stats")  # untyped: scipy ships no stubs

NUMBERS = ("ktu", "rbo", "rbo_ext", "rmse", "nrmse", "er", "dri", "p_value")


@dataclass(frozen=True)
class Reproduction(NamedNumbers[dict[str, float]]):
    """``{measure: {number: value}}`` (:data:`NUMBERS`), with the per-topic document-order
    numbers and, given a baseline, the same numbers for the baseline pair."""

    numbers: dict[str, dict[str, float]]
    ktu_per_query: dict[str, float]
    rbo_per_query: dict[str, float]
    rbo_ext_per_query: dict[str, float]
    baseline: dict[str, dict[str, float]] | None
    """The baseline pair's numbers (``er`` and ``dri`` are the advanced run's alone: nan)."""


def reproduction(
    qrels: QrelsLike,
    original: RunLike,
    reproduced: RunLike,
    measures: Iterable[str | Measure] | str,
    baseline: tuple[RunLike, RunLike] | None = None,
    *,
    qrels_reproduced: QrelsLike | None = None,
    p: float = 0.95,
    order_depth: int = 1000,
    **options: Any,
) -> Reproduction:
    """The reproducibility measures of ``reproduced`` against ``original``.

    Parameters
    ----------
    qrels
        The judgments of the original experiment.
    original, reproduced
        The original (advanced) run and its reproduction.
    measures
        The measures whose per-topic values are compared.
    baseline
        ``(original_baseline, reproduced_baseline)``: the baseline of the original
        experiment and its reproduction, for ``er`` and ``dri``.
    qrels_reproduced
        Other judgments (another collection): a replication, tested unpaired.
    p, order_depth
        RBO's persistence and the depth of RBO and KTU (repro_eval's 0.95 and 1000).
    **options
        Passed to :class:`~ranklens.Evaluator`.
    """
    if not 0.0 < p < 1.0:
        raise OptionError(f"p must be between 0 and 1 (exclusive), not {p!r}")
    if isinstance(order_depth, bool) or not isinstance(order_depth, int) or order_depth < 1:
        raise OptionError(f"order_depth must be a positive integer, not {order_depth!r}")
    if baseline is not None and (not isinstance(baseline, tuple) or len(baseline) != 2):
        raise OptionError("baseline must be a pair (original_baseline, reproduced_baseline)")
    replication = qrels_reproduced is not None
    evaluator = Evaluator(qrels, measures, **options)
    rep_evaluator = Evaluator(qrels_reproduced, measures, **options) if replication else evaluator
    orig_run = as_run(original)
    rep_run = as_run(reproduced)
    orig = evaluator.evaluate(orig_run)
    rep = rep_evaluator.evaluate(rep_run)
    names = orig.names
    if replication:
        ktu: dict[str, float] = {}
        rbo: dict[str, float] = {}
        rbo_ext: dict[str, float] = {}
    else:
        ktu, rbo, rbo_ext = _order_numbers(orig_run, rep_run, p, order_depth)
    ktu_mean = _mean(ktu)
    rbo_mean = _mean(rbo)
    rbo_ext_mean = _mean(rbo_ext)
    base_numbers: dict[str, dict[str, float]] | None = None
    er_dri: dict[str, tuple[float, float]] = {}
    if baseline is not None:
        b_orig_run, b_rep_run = as_run(baseline[0]), as_run(baseline[1])
        b_orig = evaluator.evaluate(b_orig_run)
        b_rep = rep_evaluator.evaluate(b_rep_run)
        b_ktu, b_rbo, b_ext = (
            ({}, {}, {}) if replication else _order_numbers(b_orig_run, b_rep_run, p, order_depth)
        )
        base_numbers = {}
        for m in names:
            base_numbers[m] = _score_numbers(b_orig, b_rep, m, replication)
            base_numbers[m]["ktu"] = _mean(b_ktu)
            base_numbers[m]["rbo"] = _mean(b_rbo)
            base_numbers[m]["rbo_ext"] = _mean(b_ext)
            er_dri[m] = _effects(orig, b_orig, rep, b_rep, m)
    out: dict[str, dict[str, float]] = {}
    for m in names:
        numbers = _score_numbers(orig, rep, m, replication)
        numbers["ktu"], numbers["rbo"], numbers["rbo_ext"] = ktu_mean, rbo_mean, rbo_ext_mean
        numbers["er"], numbers["dri"] = er_dri.get(m, (math.nan, math.nan))
        out[m] = {k: numbers[k] for k in NUMBERS}
    if base_numbers is not None:
        base_numbers = {
            m: {k: v.get(k, math.nan) for k in NUMBERS} for m, v in base_numbers.items()
        }
    return Reproduction(out, ktu, rbo, rbo_ext, base_numbers)


def _mean(values: dict[str, float]) -> float:
    """The mean over the topics (nan when there are none; a nan topic makes it nan, as
    repro_eval's ``np.mean``)."""
    return float(np.mean(list(values.values()))) if values else math.nan


def _column(results: Results, measure: str) -> np.ndarray:
    return np.asarray(results.values[:, results.names.index(measure)], dtype=np.float64)


def _score_numbers(
    orig: Results, rep: Results, measure: str, replication: bool
) -> dict[str, float]:
    o, r = _column(orig, measure), _column(rep, measure)
    out = {"er": math.nan, "dri": math.nan}
    if replication:
        out["rmse"] = out["nrmse"] = math.nan
        same = o.shape == r.shape and bool(np.array_equal(o, r))
        out["p_value"] = 1.0 if same else _p_value(_stats.ttest_ind(o, r).pvalue)
        return out
    if orig.queries != rep.queries:  # both evaluated over the same qrels: cannot happen
        raise InputError("the original and reproduced results cover different queries")
    # summed left to right, as repro_eval does (bit for bit the same value)
    rmse = math.sqrt(sum(((o - r) ** 2).tolist()) / o.size) if o.size else math.nan
    worst = math.sqrt(sum((np.maximum(o, 1.0 - o) ** 2).tolist()) / o.size) if o.size else math.nan
    out["rmse"] = rmse
    out["nrmse"] = rmse / worst if worst else math.nan
    out["p_value"] = 1.0 if bool(np.array_equal(o, r)) else _p_value(_stats.ttest_rel(o, r).pvalue)
    return out


def _p_value(value: Any) -> float:
    return float(value)


def _effects(
    orig: Results, b_orig: Results, rep: Results, b_rep: Results, measure: str
) -> tuple[float, float]:
    o, bo = _column(orig, measure), _column(b_orig, measure)
    r, br = _column(rep, measure), _column(b_rep, measure)
    with np.errstate(divide="ignore", invalid="ignore"):
        er = float(np.mean(r - br)) / float(np.mean(o - bo)) if np.mean(o - bo) != 0 else math.nan
        ri_o = (
            (float(np.mean(o)) - float(np.mean(bo))) / float(np.mean(bo))
            if np.mean(bo)
            else math.nan
        )
        ri_r = (
            (float(np.mean(r)) - float(np.mean(br))) / float(np.mean(br))
            if np.mean(br)
            else math.nan
        )
    return er, ri_o - ri_r


def _rankings(run: Run) -> dict[str, list[tuple[str, float]]]:
    """Each query's documents and scores, best first (score descending, ties by id
    descending)."""
    return {
        qid: sorted(docs.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)
        for qid, docs in run.to_dict().items()
    }


def _tie_groups(ranked: list[tuple[str, float]]) -> list[list[str]]:
    """The ranking as groups of documents with equal scores."""
    groups: list[list[str]] = []
    previous: float | None = None
    for doc, score in ranked:
        if groups and score == previous:
            groups[-1].append(doc)
        else:
            groups.append([doc])
        previous = score
    return groups


def _order_numbers(
    original: Run, reproduced: Run, p: float, depth: int
) -> tuple[dict[str, float], dict[str, float], dict[str, float]]:
    orig = _rankings(original)
    rep = _rankings(reproduced)
    ktu: dict[str, float] = {}
    rbo: dict[str, float] = {}
    rbo_ext: dict[str, float] = {}
    for qid, rep_ranked in rep.items():
        orig_ranked = orig.get(qid, [])
        orig_docs = [doc for doc, _ in orig_ranked]
        rep_docs = [doc for doc, _ in rep_ranked]
        ktu[qid] = _ktu(orig_docs[:depth], rep_docs[:depth])
        rbo[qid] = _clarke_rbo(rep_docs, orig_docs, p, depth)
        rbo_ext[qid] = rbo_rankings(
            _tie_groups(orig_ranked[:depth]), _tie_groups(rep_ranked[:depth]), p, "a"
        )
    return ktu, rbo, rbo_ext


def _ktu(orig_docs: list[str], rep_docs: list[str]) -> float:
    length = min(len(orig_docs), len(rep_docs))
    if length < 2:
        return math.nan
    union = sorted(set(orig_docs) | set(rep_docs))
    index = {doc: i for i, doc in enumerate(union)}
    x = [index[d] for d in orig_docs[:length]]
    y = [index[d] for d in rep_docs[:length]]
    tau = float(_stats.kendalltau(x, y).statistic)
    return round(tau, 14) if math.isfinite(tau) else math.nan


def _clarke_rbo(run: list[str], ideal: list[str], p: float, depth: int) -> float:
    seen_run: set[str] = set()
    seen_ideal: set[str] = set()
    overlap = 0
    score = normaliser = 0.0
    weight = 1.0
    for i in range(depth):
        if i < len(run):
            doc = run[i]
            if doc not in seen_run:
                seen_run.add(doc)
                overlap += doc in seen_ideal
        if i < len(ideal):
            doc = ideal[i]
            if doc not in seen_ideal:
                seen_ideal.add(doc)
                overlap += doc in seen_run
        score += weight * overlap / (i + 1)
        normaliser += weight
        weight *= p
    return score / normaliser
