"""Diversity measures over subtopic qrels (``qid subtopic docno judgment``), with NIST
ndeval 4.5's definitions and ir_measures' names: ``alpha_nDCG(alpha=0.5)@k``,
``alpha_DCG@k``, ``ERR_IA@k``, ``nERR_IA@k``, ``NRBP(alpha,beta)``, ``nNRBP``, ``P_IA@k``,
``AP_IA`` and ``StRecall@k`` (kernels in :mod:`ranklens.kernels.diversity`).

They read subtopic qrels: the qrels themselves when they are a subtopic file, DataFrame
(``subtopic_id`` column), records or ``{qid: {docno: {subtopic: judgment}}}``, or
``judgments=``. Ties follow the evaluator's policy (trec_eval's by default, which is
``ndeval -traditional``).

>>> from ranklens.measures import parse_measure
>>> str(parse_measure("alpha_nDCG(alpha=0.8)@20")), str(parse_measure("NRBP(beta=0.3)"))
('alpha_nDCG(alpha=0.8)@20', 'NRBP(beta=0.3)')
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ranklens.base.types import Float64Array
from ranklens.measures.base import MeasureSpec, Param
from ranklens.measures.catalog import INF
from ranklens.measures.catalog_trec import BoundedParam

if TYPE_CHECKING:
    from ranklens.ranking.align import Ranked

ALPHA = BoundedParam(
    "alpha",
    float,
    0.5,
    "redundancy intolerance: a subtopic's gain shrinks by (1 - alpha) "
    "each time it is covered again",
    minimum=0.0,
    maximum=1.0,
)
BETA = BoundedParam(
    "beta",
    float,
    0.5,
    "patience: the probability of going on to the next rank",
    minimum=0.0,
    maximum=1.0,
)
K = Param("cutoff", int, None, "only the top k documents count (k >= 1)", minimum=1)
GAIN = "g_i = sum over the subtopics s of the document at rank i of (1 - alpha)^c_s(i)"


def _spec(
    name: str,
    summary: str,
    formula: str,
    params: tuple[Param, ...],
    at: Param | None,
    *,
    bounds: tuple[float, float] = (0.0, 1.0),
    aliases: tuple[str, ...] = (),
) -> MeasureSpec:
    def kernel(r: Ranked, **values: Any) -> Float64Array:
        from ranklens.kernels import diversity  # when first computed: see KernelRef

        return diversity.measure(r, name, **values)

    return MeasureSpec(
        name,
        summary,
        formula,
        kernel,
        params,
        at,
        at_required=at is not None and name != "StRecall",
        aliases=aliases,
        bounds=bounds,
        judgments="subtopics",
    )


SPECS: tuple[MeasureSpec, ...] = (
    _spec(
        "alpha_nDCG",
        "alpha-nDCG: novelty-biased nDCG over subtopics (Clarke et al. 2008), as ndeval",
        f"alpha-nDCG@k = sum_{{i<k}} g_i / log2(i+2) over the same sum for the greedy ideal "
        f"ranking of the judged documents (ties to the larger docno); {GAIN}, c_s(i) the "
        "earlier ranks covering s",
        (ALPHA,),
        K,
        aliases=("alpha-nDCG",),
    ),
    _spec(
        "alpha_DCG",
        "alpha-DCG with ndeval's collection-independent normalisation",
        f"alpha-DCG@k = sum_{{i<k}} g_i / log2(i+2) / (|S| sum_{{i<k}} (1-alpha)^i / "
        f"log2(i+2)) for k >= 2 (k = 1 is not divided, as in ndeval); {GAIN}",
        (ALPHA,),
        K,
        bounds=(0.0, INF),
        aliases=("alpha-DCG",),
    ),
    _spec(
        "ERR_IA",
        "intent-aware ERR with ndeval's collection-independent normalisation",
        f"ERR-IA@k = sum_{{i<k}} g_i / (i+1) / (|S| sum_{{i<k}} (1-alpha)^i / (i+1)) for "
        f"k >= 2; {GAIN}",
        (ALPHA,),
        K,
        bounds=(0.0, INF),
        aliases=("ERR-IA",),
    ),
    _spec(
        "nERR_IA",
        "intent-aware ERR normalised by the greedy ideal ranking, as ndeval",
        f"nERR-IA@k = sum_{{i<k}} g_i / (i+1) over the same sum for the ideal ranking; {GAIN}",
        (ALPHA,),
        K,
        aliases=("nERR-IA",),
    ),
    _spec(
        "NRBP",
        "novelty- and rank-biased precision (Clarke et al. 2009), whole ranking",
        f"NRBP = (1 - (1-alpha) beta) / |S| sum_i beta^(i-1) g_i; {GAIN}",
        (ALPHA, BETA),
        None,
    ),
    _spec(
        "nNRBP",
        "NRBP normalised by the greedy ideal ranking's NRBP",
        "nNRBP = NRBP / NRBP(ideal ranking)",
        (ALPHA, BETA),
        None,
    ),
    _spec(
        "AP_IA",
        "intent-aware average precision: the mean over subtopics of each one's AP",
        "AP-IA = 1/|S| sum_s (1/R_s) sum_{i: d_i relevant to s} |{j <= i relevant to s}| / i",
        (),
        None,
        aliases=("MAP_IA", "MAP-IA"),
    ),
    _spec(
        "P_IA",
        "intent-aware precision at k",
        "P-IA@k = |{(i, s): i <= k, d_i relevant to s}| / (k |S|)",
        (),
        K,
        aliases=("P-IA",),
    ),
    _spec(
        "StRecall",
        "subtopic recall: the fraction of subtopics covered by the top k",
        "StRecall@k = |{s: some d_i, i <= k, is relevant to s}| / |S|; without @k the whole "
        "ranking",
        (),
        K,
        aliases=("strec", "S-recall"),
    ),
)
