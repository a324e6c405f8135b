"""Reference documentation of the core measures (:mod:`ranklens.measures.catalog`):
equivalents and hand-computed examples (see :mod:`ranklens.measures.reference`).

Document ``x``, ``y`` or ``z`` in a run is never judged. Each ``expected`` is the
narration's arithmetic.

>>> sorted(DOCS)[:3]
['AP', 'Bpref', 'GMAP']
"""

from __future__ import annotations

import math
from types import MappingProxyType

from ranklens.measures.reference_model import MeasureExample, doc

# relevant a, c, d (d not retrieved), b judged non-relevant, x unjudged: ranking a b c x
BASIC_QRELS = {"q1": {"a": 1, "b": 0, "c": 1, "d": 1}}
BASIC_RUN = {"q1": {"a": 0.9, "b": 0.8, "c": 0.7, "x": 0.6}}
_PYTREC = "via pytrec_eval: trec_eval 9.0.8, only the queries in both qrels and run"

DOCS = MappingProxyType(
    {
        "P": doc(
            MeasureExample(
                "P@5",
                BASIC_QRELS,
                {"q1": {"a": 0.9, "x": 0.8, "c": 0.7}},
                2 / 5,
                "ranking a x c (x unjudged), relevant at ranks 1 and 3; the ranking is "
                "shorter than 5 and trec_eval pads it with non-relevant documents: 2/5 = 0.4",
            ),
            "A ranking shorter than k still divides by k (trec_eval); P without @k divides "
            "by the number retrieved, which is also P with depth=k.",
            trec_eval="P.k (value P_k); set_P without @k",
            ir_measures=f"P@k, SetP ({_PYTREC})",
            ranx="precision@k (divides by k; the order of tied scores is arbitrary)",
            sklearn="no P@k; precision_score(y_true, y_pred) is set precision on a dense "
            "labelling of the collection",
            torchmetrics="RetrievalPrecision(top_k=k) divides by k; adaptive_k=True divides "
            "by min(k, n), which is P with depth=k",
        ),
        "R": doc(
            MeasureExample(
                "R@3",
                {"q1": {"a": 1, "b": 0, "c": 1, "d": 1, "e": 2}},
                {"q1": {"a": 0.9, "b": 0.8, "c": 0.7, "x": 0.6}},
                2 / 4,
                "R = 4 relevant documents (a, c, d and e of grade 2; d and e not retrieved); "
                "the top 3 (a b c) hold 2 of them: 2/4 = 0.5",
            ),
            "norm='R' divides by every relevant document of the qrels, retrieved or not.",
            trec_eval="recall.k (value recall_k); set_recall without @k",
            ir_measures=f"R@k, SetR ({_PYTREC})",
            ranx="recall@k (norm='R')",
            sklearn="recall_score(y_true, y_pred): set recall on a dense labelling",
            torchmetrics="RetrievalRecall(top_k=k): N = the relevant documents among the "
            "scored ones, so relevant documents the run misses are invisible",
            other="BEIR's capped recall R_cap@k is R(norm='min')@k",
        ),
        "AP": doc(
            MeasureExample(
                "AP",
                BASIC_QRELS,
                BASIC_RUN,
                (1 / 1 + 2 / 3) / 3,
                "relevant at ranks 1 and 3 of R = 3 (d is never retrieved, x is unjudged): "
                "(1/1 + 2/3)/3 = 0.5556",
            ),
            "AP@k with norm='R' is trec_eval's map_cut.k: the denominator stays R however "
            "small k is; see conventions.md for 'min' and 'ret'.",
            trec_eval="map; map_cut.k (value map_cut_k) for AP@k",
            ir_measures=f"AP, AP@k ({_PYTREC})",
            ranx="map@k (norm='R')",
            sklearn="average_precision_score(y_true, y_score) on a dense query (every "
            "document scored and judged) with distinct scores; tied scores form one "
            "threshold there, not a rank order",
            torchmetrics="RetrievalMAP(top_k=k) divides by the relevant documents in the top "
            "k: AP(norm='ret')@k",
            other="RecBole MAP@k and Spark meanAveragePrecisionAt(k): AP(norm='min')@k; "
            "founding document 001's AP@k: AP(norm='ret')@k",
        ),
        "GMAP": doc(
            MeasureExample(
                "GMAP",
                {"q1": {"a": 1, "b": 1}, "q2": {"c": 1}},
                {"q1": {"a": 0.9}, "q2": {"y": 1.0}},
                math.sqrt(0.5 * 1e-5),
                "q1: a at rank 1 of R = 2, AP = (1/1)/2 = 0.5; q2 retrieves no relevant "
                "document, AP = 0, raised to 1e-5: exp((ln 0.5 + ln 1e-5)/2) = sqrt(0.5 * "
                "1e-5) = 0.002236",
            ),
            trec_eval="gm_map",
            other="ir_measures, ranx, sklearn and torchmetrics have no geometric mean; "
            "exp(mean(log(max(AP, 1e-5)))) over their per-query AP gives it",
        ),
        "RR": doc(
            MeasureExample(
                "RR",
                {"q1": {"a": 0, "b": 1}},
                {"q1": {"a": 0.5, "b": 0.5, "c": 0.9}},
                1 / 2,
                "c (unjudged) first; a and b tie at 0.5 and trec_eval puts the larger "
                "document id first, so b, relevant, is at rank 2: 1/2 = 0.5 (ties='input' or "
                "'docid_asc' would give 1/3)",
            ),
            "RR@k is 0 when the first relevant document is below k.",
            trec_eval="recip_rank (no cutoff: RR@k is recip_rank with -M k, depth=k)",
            ir_measures="RR, RR@k",
            ranx="mrr@k",
            torchmetrics="RetrievalMRR(top_k=k)",
            sklearn="none (label_ranking_average_precision_score is another measure)",
        ),
        "nDCG": doc(
            MeasureExample(
                "nDCG",
                {"q1": {"a": 2, "b": 1, "c": 0, "d": 1}},
                {"q1": {"a": 0.5, "b": 0.9, "c": 0.5}},
                2 / (2 + 1 / math.log2(3) + 1 / 2),
                "b first; a and c tie at 0.5, the larger id (c) first: grades 1, 0, 2, DCG "
                "= 1/log2(2) + 0 + 2/log2(4) = 2; the ideal ranking takes every judged "
                "document, retrieved or not (d): 2, 1, 1, IDCG = 2 + 1/log2(3) + 1/2 = "
                "3.1309; nDCG = 2/3.1309 = 0.6388",
            ),
            "Gain is the grade (linear, as trec_eval); dcg='exp-log2' uses 2^grade - 1. The "
            "ideal ranking is built from all judged documents of the query, not from the "
            "retrieved ones. Ties follow the evaluator's ties policy.",
            trec_eval="ndcg (gains: -m ndcg.1=3,2=9 is nDCG(gains={1:3,2:9})); ndcg_cut.k "
            "for nDCG@k (no gains)",
            ir_measures="nDCG, nDCG@k, nDCG(gains={...}) (pytrec_eval); "
            "nDCG(dcg='exp-log2')@k (gdeval)",
            ranx="ndcg@k (linear gain), ndcg_burges@k (dcg='exp-log2'); the order of tied "
            "scores is arbitrary (unstable sort)",
            sklearn="ndcg_score([grades], [scores], k=k, ignore_ties=True) on a dense query "
            "(the ideal is built from that row only); ignore_ties=False averages the gains "
            "of tied documents instead of ordering them",
            torchmetrics="RetrievalNormalizedDCG(top_k=k): dense, the ideal from the scored "
            "documents only, ties in torch.argsort's order",
        ),
        "Rprec": doc(
            MeasureExample(
                "Rprec",
                BASIC_QRELS,
                BASIC_RUN,
                2 / 3,
                "R = 3 relevant documents; the top 3 (a b c) hold 2 of them: 2/3 = 0.6667",
            ),
            trec_eval="Rprec",
            ir_measures="Rprec",
            ranx="r-precision",
            torchmetrics="RetrievalRPrecision (R = the relevant documents among the scored ones)",
        ),
        "Bpref": doc(
            MeasureExample(
                "Bpref",
                {"q1": {"a": 1, "b": 0, "c": 1, "d": 0, "e": 1}},
                {"q1": {"x": 0.9, "b": 0.8, "a": 0.7, "d": 0.6, "c": 0.5}},
                (1 - 1 / 2 + (1 - 2 / 2)) / 3,
                "R = 3, N = 2 judged non-relevant; ranking x b a d c, x unjudged and "
                "skipped: a has 1 non-relevant above, 1 - min(1, 3)/min(2, 3) = 1/2; c has "
                "2, 1 - 2/2 = 0; e is not retrieved: (1/2 + 0)/3 = 0.1667",
            ),
            "Unjudged documents are ignored; only judged non-relevant ones above a relevant "
            "document count.",
            trec_eval="bpref",
            ir_measures="Bpref",
            ranx="bpref",
        ),
        "IPrec": doc(
            MeasureExample(
                "IPrec@0.5",
                {"q1": {"a": 1, "b": 0, "c": 1, "d": 1, "e": 1}},
                {"q1": {"a": 0.9, "b": 0.8, "c": 0.7, "d": 0.6}},
                3 / 4,
                "R = 4 (e not retrieved), recall 0.5 needs round(0.5 * 4) = 2 relevant "
                "documents: the second (c) is at rank 3; the best precision at rank 3 or "
                "below is max(P@3, P@4) = max(2/3, 3/4) = 0.75",
            ),
            "rounding='trec9' is trec_eval 9.0.8's floor(x * R + 0.9) (pytrec_eval, ir_measures).",
            trec_eval="iprec_at_recall (value iprec_at_recall_0.50)",
            ir_measures="IPrec@0.5 (pytrec_eval: IPrec(rounding='trec9'))",
            sklearn="precision_recall_curve on a dense query, then the highest precision at "
            "recall >= x",
        ),
        "Success": doc(
            MeasureExample(
                "Success@2",
                {"q1": {"a": 0, "b": 1}},
                {"q1": {"a": 0.9, "b": 0.8, "c": 0.8}},
                0.0,
                "a first; b and c tie at 0.8 and the larger id (c, unjudged) wins the tie: "
                "the top 2 (a c) hold no relevant document, 0",
            ),
            trec_eval="success.k (value success_k)",
            ir_measures="Success@k",
            ranx="hit_rate@k",
            torchmetrics="RetrievalHitRate(top_k=k)",
        ),
        "Judged": doc(
            MeasureExample(
                "Judged@5",
                {"q1": {"a": 1, "b": 0}},
                {"q1": {"a": 0.9, "x": 0.8, "b": 0.7, "y": 0.6}},
                2 / 4,
                "4 documents retrieved, so the top min(5, 4) = 4: a and b are judged, x and "
                "y not: 2/4 = 0.5 (Unjudged@5 divides by 5 instead)",
            ),
            "Divides by min(k, n), so it is not 1 - Unjudged@k on a short ranking.",
            ir_measures="Judged@k (also divides by min(k, n); its ties: document id ascending)",
            trec_eval="none; unj.k is Unjudged@k",
        ),
        "NumRet": doc(
            MeasureExample(
                "NumRet",
                {"q1": {"a": 1}, "q2": {"b": 1}},
                {
                    "q1": {"a": 0.9, "x": 0.8, "y": 0.7},
                    "q2": {"b": 0.9, "z": 0.8},
                    "q3": {"c": 1.0},
                },
                3 + 2,
                "q1 retrieves 3 documents and q2 2; q3 has no judgments and is left out "
                "(queries='qrels'): 3 + 2 = 5",
            ),
            trec_eval="num_ret",
            ir_measures="NumRet; NumRet(rel=g) is NumRelRet(rel=g)",
        ),
        "NumRelRet": doc(
            MeasureExample(
                "NumRelRet(rel=2)",
                {"q1": {"a": 2, "b": 1, "c": 2, "d": 0}},
                {"q1": {"a": 0.9, "b": 0.8, "d": 0.7}},
                1.0,
                "with rel=2 only grades >= 2 count: a is retrieved, c is not (b has grade 1): 1",
            ),
            trec_eval="num_rel_ret (with -l 2 for rel=2)",
            ir_measures="NumRet(rel=1)",
            ranx="hits@k is Hits@k (the same count, averaged over queries, not summed)",
        ),
        "Hits": doc(
            MeasureExample(
                "Hits@3",
                BASIC_QRELS,
                BASIC_RUN,
                2.0,
                "the top 3 hold two relevant documents: 2 (a query's count; the mean over "
                "queries is reported, where NumRelRet@3 sums)",
            ),
            "What ranx calls hits@k; hit_rate@k (1 if any relevant document) is Success@k.",
            ranx="hits@k",
            trec_eval="none per query (num_rel_ret is the sum over the whole ranking)",
        ),
        "NumRel": doc(
            MeasureExample(
                "NumRel",
                {"q1": {"a": 1, "b": 0, "c": 2, "d": 1}, "q2": {"e": 0}},
                {"q1": {"a": 0.9}, "q2": {"e": 0.9}},
                3 + 0,
                "q1 judges a, c and d relevant (grade >= 1), retrieved or not; q2 none: 3 + 0 = 3",
            ),
            "trec_eval -c sums grades > 0 over every qrels query, ignoring -l (docs/"
            "trec_eval.md, difference 6).",
            trec_eval="num_rel",
            ir_measures="NumRel",
        ),
        "NumQ": doc(
            MeasureExample(
                "NumQ",
                {"q1": {"a": 1}, "q2": {"b": 1}},
                {"q1": {"a": 0.9}, "q3": {"c": 0.9}},
                2.0,
                "queries='qrels' evaluates q1 and q2 (q2 is missing from the run and scores "
                "0), not q3 (no judgments): 2",
            ),
            trec_eval="num_q (with -c)",
            ir_measures="NumQ",
        ),
    }
)
