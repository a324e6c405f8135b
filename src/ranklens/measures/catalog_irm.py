"""The rest of ir_measures' catalog and sklearn's conventions: ``Accuracy`` (ir_measures'
ordered-pair accuracy; the classification accuracy is ``ClassAccuracy``), ``Compat``
(compatibility with the ideal ranking, Clarke et al. 2020), and sklearn's
tie-averaged ``dcg_score`` / ``ndcg_score`` with their log base (``SkDCG``, ``SknDCG``).

>>> from ranklens.measures import parse_measure
>>> str(parse_measure("Accuracy(rel=2)@10"))
'Accuracy(rel=2)@10'
"""

from __future__ import annotations

from ranklens.kernels import compat as cp
from ranklens.kernels import pair_accuracy as pa
from ranklens.kernels import sklearn_dcg as sk
from ranklens.measures.base import MeasureSpec, Param
from ranklens.measures.catalog import CUTOFF, INF, REL
from ranklens.measures.catalog_trec import BoundedParam

LOG_BASE = Param("log_base", float, 2.0, "the base of the discount's logarithm (> 1)")
IGNORE_TIES = Param(
    "ignore_ties",
    bool,
    False,
    "False (sklearn's default): documents with equal scores share their positions' "
    "discounts (tie-averaged); True: rank order as the evaluator's ties policy",
)
_SK = (
    "over the retrieved documents only, linear gain (unjudged and negative 0), discount "
    "1/log_b(i + 1); tie-averaged: a group of equal scores contributes its mean gain times "
    "the sum of its positions' discounts"
)

SPECS: tuple[MeasureSpec, ...] = (
    MeasureSpec(
        "Compat",
        "compatibility: rank-biased overlap with the ideal ranking of the qrels, over the "
        "best achievable (Clarke, Vtyurina and Smucker 2020; ir_measures' Compat)",
        "Compat = RBO(R, I) / RBO(I, I), RBO(R, I) = sum_{d<=D} p^(d-1) |R[:d] & I[:d]| / d / "
        "sum_{d<=D} p^(d-1), D = max(|R|, |I|); I: the documents of grade > 0 by grade "
        "descending, equal grades in the run's order, unretrieved ones last; normalize=False: "
        "RBO(R, I); 0 without a relevant document",
        lambda r, p, normalize: cp.compatibility(r, p, normalize),
        (
            BoundedParam("p", float, 0.95, "persistence of the overlap", minimum=0.0, maximum=1.0),
            Param(
                "normalize",
                bool,
                True,
                "divide by the ideal ranking's own overlap RBO(I, I), the best achievable",
            ),
        ),
    ),
    MeasureSpec(
        "Accuracy",
        "ir_measures' Accuracy: the fraction of (relevant, non-relevant) pairs of retrieved "
        "documents ranked in the right order",
        "Accuracy@k = 1 - sum_{relevant d in top k} |{non-relevant above d}| / (R_k N_k), R_k "
        "and N_k the relevant and non-relevant (unjudged included) documents in the top k; 0 "
        "without a retrieved relevant document, 1 without a retrieved non-relevant one",
        lambda r, rel, cutoff: pa.pair_accuracy(r, rel, cutoff),
        (REL,),
        CUTOFF,
    ),
    MeasureSpec(
        "SkDCG",
        "sklearn's dcg_score: DCG with tie-averaging and a log base, over the retrieved",
        f"SkDCG@k = sum_groups mean_gain(group) * sum_{{i in group, i <= k}} 1/log_b(i + 1), {_SK}",
        lambda r, cutoff, log_base, ignore_ties: sk.sk_dcg(r, cutoff, log_base, ignore_ties),
        (LOG_BASE, IGNORE_TIES),
        CUTOFF,
        aliases=("dcg_score",),
        bounds=(0.0, INF),
    ),
    MeasureSpec(
        "SknDCG",
        "sklearn's ndcg_score: tie-averaged DCG over the ideal DCG of the retrieved documents",
        f"SknDCG@k = SkDCG@k / IDCG@k, IDCG of the retrieved documents ordered by grade; 0 if "
        f"IDCG = 0; {_SK}",
        lambda r, cutoff, log_base, ignore_ties: sk.sk_ndcg(r, cutoff, log_base, ignore_ties),
        (LOG_BASE, IGNORE_TIES),
        CUTOFF,
        aliases=("ndcg_score",),
    ),
    MeasureSpec(
        "LRAP",
        "sklearn's label ranking average precision over the retrieved documents",
        "LRAP = mean over relevant retrieved d of |{relevant e: s_e >= s_d}| / |{e: s_e >= "
        "s_d}| (ties at their worst position); 1 if no or every retrieved document is relevant",
        lambda r, rel: sk.label_ranking_ap(r, rel),
        (REL,),
        None,
        aliases=("label_ranking_average_precision",),
        no_rel_value=1.0,
    ),
)
