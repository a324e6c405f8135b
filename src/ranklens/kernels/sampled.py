r"""The inferred measures of stratified sampled judgments (Yilmaz, Kanoulas and Aslam, SIGIR
2008), as NIST's sample_eval.pl computes them: one arithmetic for the ``ranklens
sample-eval`` front end (:mod:`ranklens.frontends.sample_eval`) and for the sampled measures
of the language (``xinfAP``, ``infNDCG``, ``iP@k``, ``iIPrec@x``, ``infNumRel``,
``infNumRelRet``; :mod:`ranklens.measures.catalog_sampled`).

For a topic whose pool is split into strata :math:`s`, with :math:`N_s` pooled and
:math:`n_s` sampled (judged) documents of which :math:`r_s` are relevant
(:class:`~ranklens.data.strata.StrataTopic`):

* :func:`estimated_relevant`: :math:`\hat R = \sum_s r_s N_s / n_s` (``inum_rel``);
* :func:`topic_values`, for a ranking cut to its first 1000 documents: at each rank the
  estimated number of relevant documents retrieved so far, :math:`\sum_s d_s (\rho_s +
  10^{-5})/(\sigma_s + 3 \cdot 10^{-5})` (:math:`d_s` pooled documents of stratum
  :math:`s` so far, :math:`\sigma_s` of them sampled, :math:`\rho_s` relevant); xinfAP
  (per stratum the mean estimated precision at its relevant sampled documents, weighted by
  the stratum's share :math:`(r_s N_s / n_s)/\hat R`; the precision at rank :math:`k` is
  :math:`1/k + (d/k) \sum_s (d_s/d)(\rho_s + 10^{-5})/(\sigma_s + 3 \cdot 10^{-5})` over
  the :math:`d` pooled documents above it); infNDCG (each stratum's DCG of its sampled
  retrieved documents scaled to the stratum, over :func:`ideal_dcg`);
* :func:`precision_at` and :func:`interpolated_points` (the 11 recall levels).

:func:`sampled_table` computes them for every query of an aligned ranking, from the
stratified qrels that :func:`~ranklens.ranking.align.align` attached.

>>> import io
>>> from ranklens.data.strata import read_strata
>>> strata = read_strata(io.BytesIO(b"1 0 a 1 1\n1 0 b 1 0\n1 0 c 2 -1\n1 0 d 2 1\n"))
>>> values = topic_values(strata.topics[b"1"], [b"a", b"c", b"d"])
>>> round(values.ap, 4), round(values.num_rel, 4)
(0.8518, 3.0)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ranklens.base.errors import MeasureError
from ranklens.base.types import Float64Array
from ranklens.data.strata import StrataTopic

if TYPE_CHECKING:
    from ranklens.ranking.align import Ranked

MAX_RESULT_SIZE = 1000
"""sample_eval reads at most this many documents of a topic."""
RECALL_LEVELS = ("0", ".1", ".2", ".3", ".4", ".5", ".6", ".7", ".8", ".9", "1")
"""The recall levels of :func:`interpolated_points`, as sample_eval writes them."""


@dataclass(frozen=True)
class SampledValues:
    """The estimates of one topic for one ranking."""

    ap: float
    """xinfAP (sample_eval's ``infAP``)."""
    ndcg: float
    """infNDCG."""
    num_rel_ret: float
    """The estimated relevant documents retrieved (``inum_rel_ret``)."""
    num_rel: float
    """The estimated relevant documents (``inum_rel``)."""
    rel_at_rank: list[float]
    """The estimated relevant documents retrieved up to each rank (at most 1000)."""


def estimated_relevant(entry: StrataTopic) -> float:
    """:math:`\\hat R = \\sum_s r_s N_s / n_s` over the strata with a sample."""
    num_rel = 0.0
    for stratum in entry.strata():
        sampled = entry.sampled.get(stratum, 0)
        if sampled != 0:
            num_rel += entry.relevant.get(stratum, 0) * entry.docs[stratum] / sampled
    return num_rel


def ideal_dcg(entry: StrataTopic) -> float:
    """The ideal DCG of the estimated numbers of documents of each grade: each grade's
    estimate rounded to whole documents (Perl's ``int(x + 0.5)``), grades from the highest
    (in byte order of their text, as sample_eval sorts them), each stopped at rank 1000."""
    per_grade: dict[bytes, float] = {}
    for stratum in entry.strata():
        for grade in sorted(entry.per_grade.get(stratum, {})):
            count = entry.per_grade[stratum][grade]
            per_grade[grade] = per_grade.get(grade, 0.0) + (
                count * entry.docs[stratum] / entry.sampled[stratum]
            )
    optimal = 0.0
    start = 0
    for grade in sorted(per_grade, reverse=True):
        value = float(grade)  # the reader checked that it is a finite number
        documents = int(per_grade[grade] + 0.5)
        for r in range(start + 1, start + documents + 1):
            optimal += value / (math.log(r + 1) / math.log(2))
            if r >= MAX_RESULT_SIZE:
                break
        start += documents
    return optimal


def _smoothed(weight: float, relevant: int, sampled: int) -> float:
    """``weight * (relevant + 1e-5) / (sampled + 3e-5)``, in sample_eval's order of operations."""
    return weight * (relevant + 0.00001) / (sampled + 0.00003)


def topic_values(
    entry: StrataTopic,
    ranking: Sequence[bytes],
    *,
    num_rel: float | None = None,
    optimal_dcg: float | None = None,
) -> SampledValues:
    """The estimates of one topic for ``ranking`` (its documents in rank order; only the
    first 1000 count). ``num_rel`` and ``optimal_dcg`` default to :func:`estimated_relevant`
    and :func:`ideal_dcg` of ``entry``."""
    if num_rel is None:
        num_rel = estimated_relevant(entry)
    if optimal_dcg is None:
        optimal_dcg = ideal_dcg(entry)
    strata = entry.strata()
    docs_above = dict.fromkeys(strata, 0)
    sampled_above = dict.fromkeys(strata, 0)
    relevant_above = dict.fromkeys(strata, 0)
    gain = dict.fromkeys(strata, 0.0)
    precision_sum = dict.fromkeys(strata, 0.0)
    pooled_above = 0
    rel_at_rank: list[float] = []
    for rank, doc in enumerate(ranking[:MAX_RESULT_SIZE], 1):
        grade = entry.rel.get(doc, -1.0)
        stratum = entry.stratum.get(doc)
        if grade > 0 and stratum is not None:
            above = 0.0
            for s in strata:
                if pooled_above != 0:
                    share = docs_above[s] / pooled_above
                    if share != 0:
                        above += _smoothed(share, relevant_above[s], sampled_above[s])
            precision_sum[stratum] += 1 / rank + (pooled_above / rank) * above
            relevant_above[stratum] += 1
            gain[stratum] += grade / (math.log(rank + 1) / math.log(2))
        if stratum is not None:
            pooled_above += 1
            docs_above[stratum] += 1
            if grade >= 0:
                sampled_above[stratum] += 1
        estimate = 0.0
        for s in strata:
            estimate += _smoothed(docs_above[s], relevant_above[s], sampled_above[s])
        rel_at_rank.append(estimate)
    num_rel_ret = rel_at_rank[-1] if rel_at_rank else 0.0
    ap = 0.0
    for s in strata:
        sampled = entry.sampled.get(s, 0)
        if sampled != 0:
            relevant = entry.relevant.get(s, 0)
            estimated = relevant * entry.docs[s] / sampled
            if num_rel != 0:
                share = estimated / num_rel
                within = precision_sum[s] / relevant if relevant != 0 else 0.0
                ap += share * within
    dcg = 0.0
    for s in strata:
        if pooled_above != 0:
            share = docs_above[s] / pooled_above
            if sampled_above[s] != 0:
                dcg += share * gain[s] / sampled_above[s]
    ndcg = pooled_above * dcg / optimal_dcg if optimal_dcg != 0 else 0.0
    return SampledValues(ap, ndcg, num_rel_ret, num_rel, rel_at_rank)


def precision_at(values: SampledValues, k: int) -> float:
    """The estimated precision at rank ``k``: the estimated relevant documents retrieved up
    to rank ``k`` over ``k`` (a shorter ranking: all of them over ``k``)."""
    if k <= len(values.rel_at_rank):
        return values.rel_at_rank[k - 1] / k
    return values.num_rel_ret / k


def interpolated_points(values: SampledValues) -> list[float]:
    """The interpolated precision at the 11 recall levels of :data:`RECALL_LEVELS`, as
    sample_eval computes it: walking the ranks from the last, the best estimated precision
    so far is given to the highest level whose estimated relevant count is not reached (one
    level per rank); levels beyond the estimated relevant retrieved score 0."""
    cutoffs = [float(level) * values.num_rel for level in RECALL_LEVELS]
    points = [0.0] * len(cutoffs)
    best = 0.0
    current = len(cutoffs) - 1
    while current >= 0 and cutoffs[current] > values.num_rel_ret:
        current -= 1
    for rank in range(len(values.rel_at_rank), 0, -1):
        value = values.rel_at_rank[rank - 1]
        best = max(best, value / rank)
        if current >= 0 and cutoffs[current] > value:
            points[current] += best
            current -= 1
    while current >= 0:
        points[current] += best
        current -= 1
    return points


def sampled_table(view: Ranked) -> list[SampledValues]:
    """:func:`topic_values` of every query of ``view`` (in its order), from the stratified
    qrels attached to it; a query the stratified qrels lack has no judged document (every
    estimate 0). Ties are ordered by document id descending, as sample_eval does, whatever
    the evaluator's ties policy; computed once per ranking."""

    def make() -> list[SampledValues]:
        strata = view.judgments.strata
        if strata is None:
            raise MeasureError("the sampled measures need stratified qrels")
        empty = StrataTopic()
        out: list[SampledValues] = []
        for qid, window in zip(view.qids, view.windows("trec_eval"), strict=True):
            entry = strata.topics.get(qid.encode("utf-8", errors="surrogateescape"), empty)
            ranking = [
                str(doc).encode("utf-8", errors="surrogateescape")
                for doc in window[:MAX_RESULT_SIZE]
            ]
            out.append(topic_values(entry, ranking))
        return out

    table: list[SampledValues] = view.derived(("strata",), make)
    return table


def column(values: Sequence[SampledValues], pick: str, at: float | None = None) -> Float64Array:
    """One estimate of every query: ``pick`` is ``"ap"``, ``"ndcg"``, ``"num_rel"``,
    ``"num_rel_ret"``, ``"precision"`` (at rank ``at``) or ``"iprec"`` (at recall level
    ``at``, one of 0, 0.1, ..., 1)."""
    if pick == "precision":
        k = int(at) if at is not None else 1
        return np.array([precision_at(v, k) for v in values], dtype=np.float64)
    if pick == "iprec":
        index = round((at or 0.0) * 10)
        return np.array([interpolated_points(v)[index] for v in values], dtype=np.float64)
    return np.array([float(getattr(v, pick)) for v in values], dtype=np.float64)
