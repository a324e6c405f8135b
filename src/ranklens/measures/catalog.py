"""The declarations of ranklens's measures, bound to their kernels.

Each :class:`MeasureSpec` names the measure, its parameters and defaults, its bounds and
aggregation, trec_eval's name for it and a formula; everything else (the parser, the
``ranklens measures`` listing, the common tests) is generated from these.
"""

from __future__ import annotations

import math

from ranklens.kernels import average_precision as ap
from ranklens.kernels import bpref as bp
from ranklens.kernels import dcg
from ranklens.kernels import interpolated as ip
from ranklens.kernels import precision as pr
from ranklens.kernels import reciprocal_rank as rr
from ranklens.measures.base import MeasureSpec, Param

REL = Param("rel", int, 1, "minimum grade of a relevant document (trec_eval -l)")
JUDGED_ONLY = Param(
    "judged_only", bool, False, "drop unjudged documents from the ranking first (trec_eval -J)"
)
CUTOFF = Param("cutoff", int, None, "only the top k documents count (k >= 1)", minimum=1)
COUNT_REL = Param(
    "rel", int, None, "count only documents with at least this grade (None: all)", minimum=0
)
ROUNDING = Param(
    "rounding",
    str,
    "round",
    "recall level to a count of relevant documents: 'round' (trec_eval 10) or 'trec9' "
    "(9.0.8: floor(x * R + 0.9))",
    choices=("round", "trec9"),
)
INF = math.inf
EXTRA_CATALOGS = (
    "ranklens.measures.catalog_trec",
    "ranklens.measures.catalog_prefs",
    "ranklens.measures.catalog_ir",
    "ranklens.measures.catalog_set",
    "ranklens.measures.catalog_curves",
    "ranklens.measures.catalog_diversity",
    "ranklens.measures.catalog_cwl",
    "ranklens.measures.catalog_irm",
    "ranklens.measures.catalog_recsys",
    "ranklens.measures.catalog_sampled",
    "ranklens.measures.catalog_exposure",
    "ranklens.measures.catalog_rag",
)
"""Modules with more declarations (each exports ``SPECS``), merged into the registry."""


def extra_specs() -> tuple[MeasureSpec, ...]:
    """The declarations of :data:`EXTRA_CATALOGS` that are present."""
    import importlib

    out: list[MeasureSpec] = []
    for name in EXTRA_CATALOGS:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:
                raise
            continue
        out.extend(module.SPECS)
    return tuple(out)


SPECS: tuple[MeasureSpec, ...] = (
    MeasureSpec(
        "P",
        "precision: the fraction of the top k documents that are relevant",
        "P@k = |{relevant in top k}| / k (a shorter ranking is padded with non-relevant "
        "documents); without @k: relevant retrieved / retrieved",
        pr.precision,
        (REL, JUDGED_ONLY),
        CUTOFF,
        trec_name="P_{at}|set_P",
    ),
    MeasureSpec(
        "R",
        "recall: the fraction of the relevant documents found in the top k",
        "R@k = |{relevant in top k}| / N; norm='R': N = R, the relevant documents in the "
        "qrels (trec_eval); norm='min': N = min(R, k) (min(R, n) without @k, n retrieved); "
        "0 if N = 0",
        pr.recall,
        (
            REL,
            JUDGED_ONLY,
            Param(
                "norm",
                str,
                "R",
                "denominator: 'R' (all relevant documents, trec_eval) or 'min' (min(R, k))",
                choices=pr.RECALL_NORMS,
            ),
        ),
        CUTOFF,
        aliases=("Recall",),
        trec_name="recall_{at}|set_recall",
    ),
    MeasureSpec(
        "AP",
        "average precision: mean of P@i over the ranks i of relevant documents",
        "AP@k = (1/N) * sum_{i <= k, d_i relevant} P@i; norm='R': N = R, the relevant "
        "documents in the qrels (trec_eval map_cut); norm='min': N = min(R, k) (Spark, "
        "RecBole; min(R, n) without @k, n retrieved); norm='ret': N = relevant documents "
        "retrieved in the top k; 0 if N = 0",
        ap.average_precision,
        (
            REL,
            JUDGED_ONLY,
            Param(
                "norm",
                str,
                "R",
                "denominator: 'R' (all relevant documents, trec_eval), 'min' (min(R, k)) "
                "or 'ret' (relevant documents retrieved in the top k)",
                choices=ap.AP_NORMS,
            ),
        ),
        CUTOFF,
        aliases=("MAP",),
        trec_name="map_cut_{at}|map",
    ),
    MeasureSpec(
        "GMAP",
        "geometric mean of average precision over the queries",
        "exp(mean_q ln(max(AP_q, 1e-5))); per query the value is AP",
        lambda r, rel: ap.average_precision(r, rel, None),
        (REL, JUDGED_ONLY),
        None,
        aggregate="gmean",
        trec_name="|gm_map",
    ),
    MeasureSpec(
        "RR",
        "reciprocal rank of the first relevant document",
        "RR@k = 1 / rank of the first relevant document if it is in the top k, else 0",
        rr.reciprocal_rank,
        (REL, JUDGED_ONLY),
        CUTOFF,
        aliases=("MRR",),
        trec_name="|recip_rank",
    ),
    MeasureSpec(
        "nDCG",
        "normalised discounted cumulative gain (linear gain as trec_eval, or custom gains)",
        "nDCG@k = DCG@k / IDCG@k, DCG@k = sum_{i <= k} gain(rel_i) / log2(i + 1), gain = the "
        "grade unless `gains` maps it (2^gain - 1 with dcg='exp-log2'); the ideal ranking "
        "orders all judged documents of the query by decreasing gain, up to the first gain "
        "<= 0 (ideal='trec_eval': in trec_eval's order for custom gains); 0 if IDCG = 0. "
        "trec_eval's ndcg_cut has no gains: nDCG(gains=...)@k has no counterpart",
        dcg.ndcg,
        (
            JUDGED_ONLY,
            Param(
                "gains",
                tuple,
                None,
                "custom gain per grade, e.g. {1:3,2:9} (trec_eval ndcg.1=3,2=9); other grades "
                "gain their grade, unjudged documents 0 (None: linear gain)",
            ),
            Param(
                "dcg",
                str,
                "log2",
                "'log2': gain / log2(rank + 1) (trec_eval); 'exp-log2': (2^gain - 1) / "
                "log2(rank + 1)",
                choices=("log2", "exp-log2"),
            ),
            Param(
                "ideal",
                str,
                "sorted",
                "how the ideal ranking orders custom gains: 'sorted', by decreasing gain; "
                "'trec_eval', as trec_eval's ndcg.1=g1,... does (its comparison (int)(g1 - g2) "
                "ties gains less than 1 apart; trec_eval's names use it)",
                choices=("sorted", "trec_eval"),
            ),
        ),
        CUTOFF,
        aliases=("NDCG",),
        trec_name="ndcg_cut_{at}|ndcg",
    ),
    MeasureSpec(
        "Rprec",
        "precision at rank R, R being the number of relevant documents",
        "Rprec = |{relevant in top R}| / R; 0 if R = 0",
        pr.r_precision,
        (REL, JUDGED_ONLY),
        None,
        aliases=("R-Prec", "RPrec"),
        trec_name="|Rprec",
    ),
    MeasureSpec(
        "Bpref",
        "binary preference: how often judged relevant documents precede judged non-relevant ones",
        "bpref = (1/R) * sum_{relevant retrieved d} (1 - min(n_d, R) / min(N, R)), n_d judged "
        "non-relevant above d, N judged non-relevant in the qrels; unjudged ignored",
        lambda r, rel: bp.bpref(r, rel),
        (REL,),
        None,
        aliases=("bpref",),
        trec_name="|bpref",
    ),
    MeasureSpec(
        "IPrec",
        "interpolated precision at a recall level",
        "IPrec@x = max{P@i : i >= rank of the c-th relevant document}, c = round(x * R); 0 if "
        "fewer than c relevant documents are retrieved",
        ip.interpolated_precision,
        (REL, JUDGED_ONLY, ROUNDING),
        Param("recall", float, None, "the recall level, 0 to 1", minimum=0.0, maximum=1.0),
        at_required=True,
        trec_name="iprec_at_recall_{at:.2f}|",
    ),
    MeasureSpec(
        "Success",
        "1 if a relevant document is in the top k, else 0",
        "Success@k = 1 if |{relevant in top k}| > 0 else 0",
        pr.success,
        (REL, JUDGED_ONLY),
        CUTOFF,
        at_required=True,
        trec_name="success_{at}|",
    ),
    MeasureSpec(
        "Judged",
        "the fraction of the top k documents that are judged",
        "Judged@k = |{judged in top min(k, n)}| / min(k, n), n = retrieved; 0 if n = 0",
        lambda r, cutoff: pr.judged_fraction(r, cutoff),
        (),
        CUTOFF,
        no_rel_value=None,
    ),
    MeasureSpec(
        "NumRet",
        "the number of retrieved documents (with rel: of retrieved documents with that grade)",
        "NumRet = n; NumRet(rel=g) = |{retrieved with grade >= g}|",
        lambda r, rel, cutoff: (
            pr.num_ret(r, cutoff) if rel is None else pr.relevant_retrieved(r, rel, cutoff)
        ),
        (COUNT_REL, JUDGED_ONLY),
        CUTOFF,
        aggregate="sum",
        bounds=(0.0, INF),
        no_rel_value=None,
        trec_name="|num_ret",
    ),
    MeasureSpec(
        "NumRelRet",
        "the number of relevant documents retrieved",
        "NumRelRet = |{retrieved with grade >= rel}|",
        lambda r, rel, cutoff: pr.relevant_retrieved(r, rel, cutoff),
        (REL, JUDGED_ONLY),
        CUTOFF,
        aggregate="sum",
        bounds=(0.0, INF),
        trec_name="|num_rel_ret",
    ),
    MeasureSpec(
        "Hits",
        "the number of relevant documents in the top k (ranx's hits), averaged over queries",
        "Hits@k = |{relevant in top k}|; the mean over queries (NumRelRet@k is its sum)",
        lambda r, rel, cutoff: pr.relevant_retrieved(r, rel, cutoff),
        (REL, JUDGED_ONLY),
        CUTOFF,
        bounds=(0.0, INF),
    ),
    MeasureSpec(
        "NumRel",
        "the number of relevant documents in the qrels (R), retrieved or not",
        "NumRel = |{judged with grade >= rel}|",
        lambda r, rel: pr.num_rel(r, rel),
        (REL,),
        None,
        aggregate="sum",
        bounds=(0.0, INF),
        trec_name="|num_rel",
    ),
    MeasureSpec(
        "NumQ",
        "the number of evaluated queries",
        "1 per query; summed over queries",
        lambda r: pr.num_q(r),
        (),
        None,
        aggregate="sum",
        bounds=(1.0, 1.0),
        no_rel_value=None,
        trec_name="|num_q",
    ),
)
