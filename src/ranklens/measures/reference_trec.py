"""Reference documentation of the rest of trec_eval's measures
(:mod:`ranklens.measures.catalog_trec`): equivalents and hand-computed examples (see
:mod:`ranklens.measures.reference`).

>>> len(DOCS)
20
"""

from __future__ import annotations

import math
from types import MappingProxyType

from ranklens.measures.reference_core import BASIC_QRELS, BASIC_RUN
from ranklens.measures.reference_model import MeasureExample, doc

# R = 4 relevant (a c d e), a b c retrieved: A = 2 relevant retrieved of n = 3
SET_QRELS = {"q1": {"a": 1, "b": 0, "c": 1, "d": 1, "e": 1}}
SET_RUN = {"q1": {"a": 0.9, "b": 0.8, "c": 0.7}}
# ideal gains 2, 1, 1 (d not retrieved); ranking b(1) c(0) a(2)
GAIN_QRELS = {"q1": {"a": 2, "b": 1, "c": 0, "d": 1}}
GAIN_RUN = {"q1": {"b": 0.9, "c": 0.8, "a": 0.7}}
_IDCG3 = 2 + 1 / math.log2(3) + 1 / 2  # 2/log2(2) + 1/log2(3) + 1/log2(4)
_EXPERIMENTAL = "none outside trec_eval (an experimental trec_eval measure)"

DOCS = MappingProxyType(
    {
        "SetRelP": doc(
            MeasureExample(
                "SetRelP",
                SET_QRELS,
                SET_RUN,
                2 / min(3, 4),
                "A = 2 relevant of n = 3 retrieved, R = 4: 2/min(3, 4) = 0.6667",
            ),
            trec_eval="set_relative_P",
            ir_measures="SetRelP (SetP(relative=True))",
        ),
        "SetAP": doc(
            MeasureExample(
                "SetAP",
                SET_QRELS,
                SET_RUN,
                (2 * 2) / (3 * 4),
                "A = 2, n = 3, R = 4: set precision 2/3 times set recall 2/4 = 4/12 = 0.3333",
            ),
            trec_eval="set_map",
            ir_measures="SetAP",
        ),
        "SetF": doc(
            MeasureExample(
                "SetF(beta=2)",
                SET_QRELS,
                SET_RUN,
                (1 + 4) * (2 / 3) * (2 / 4) / (4 * (2 / 3) + 2 / 4),
                "P = 2/3, R = 2/4, beta^2 = 4: 5 * (2/3)(1/2) / (4 * 2/3 + 1/2) = (5/3)/(19/6) "
                "= 10/19 = 0.5263",
            ),
            "beta is the usual F-beta; trec_eval's parameter x is beta^2.",
            trec_eval="set_F.x with x = beta^2 (set_F.4 is SetF(beta=2)); set_F is beta = 1",
            ir_measures="SetF(beta=b) passes b to pytrec_eval's set_F unchanged, so it is "
            "ranklens SetF(beta=sqrt(b)); the two agree at beta = 1",
            sklearn="fbeta_score(y_true, y_pred, beta=beta) on a dense labelling",
        ),
        "RelP": doc(
            MeasureExample(
                "RelP@5",
                BASIC_QRELS,
                BASIC_RUN,
                2 / min(5, 3),
                "R = 3; the top 5 (a b c x, padded) hold 2 relevant: 2/min(5, 3) = 0.6667 "
                "(P@5 = 2/5)",
            ),
            trec_eval="relative_P.k (value relative_P_k)",
            other="BEIR's capped recall R_cap@k has the same value (relevant in the top k "
            "over min(k, R))",
        ),
        "RprecMult": doc(
            MeasureExample(
                "RprecMult@2",
                BASIC_QRELS,
                BASIC_RUN,
                2 / 6,
                "R = 3, c = floor(2 * 3 + 0.9) = 6 > 4 retrieved: the ranking is padded, 2 "
                "relevant in the top 6: 2/6 = 0.3333",
            ),
            trec_eval="Rprec_mult.x (value Rprec_mult_2.00)",
        ),
        "Utility": doc(
            MeasureExample(
                "Utility(a=2,c=-0.5)",
                BASIC_QRELS,
                BASIC_RUN,
                2 * 2 - 1 * 2 - 0.5 * 1,
                "A = 2 relevant retrieved, B = 4 - 2 = 2 others retrieved (b and unjudged "
                "x), C = 3 - 2 = 1 relevant missed: 2*2 - 1*2 - 0.5*1 = 1.5",
            ),
            "The aggregate is a mean, as trec_eval's, not a sum.",
            trec_eval="utility.a,b,c,d (here -m utility.2,-1,-0.5,0; -N num_docs for d)",
        ),
        "NumNonRelJudgedRet": doc(
            MeasureExample(
                "NumNonRelJudgedRet(rel=2)",
                {"q1": {"a": 2, "b": 0, "c": 1, "d": -1}},
                {"q1": {"a": 0.9, "b": 0.8, "c": 0.7, "d": 0.6, "x": 0.5}},
                2.0,
                "with rel=2, b (0) and c (1) are judged non-relevant; a is relevant, d "
                "(judged -1) and x count as unjudged: 2",
            ),
            trec_eval="num_nonrel_judged_ret",
        ),
        "Unjudged": doc(
            MeasureExample(
                "Unjudged@5",
                {"q1": {"a": 1, "b": 0, "d": -1}},
                {"q1": {"a": 0.9, "x": 0.8, "b": 0.7, "d": 0.6}},
                2 / 5,
                "x (not in the qrels) and d (judged -1) are unjudged; the divisor stays 5 "
                "for a 4-document ranking: 2/5 = 0.4",
            ),
            trec_eval="unj.k (value unj_k; trec_eval 10 only)",
            ir_measures="1 - Judged@k on rankings of at least k documents",
        ),
        "YAAP": doc(
            MeasureExample(
                "YAAP",
                BASIC_QRELS,
                BASIC_RUN,
                math.log((1 + 5 / 3) / (1 + 3 - 5 / 3)),
                "S = 1/1 + 2/3 = 5/3 (relevant at ranks 1 and 3), R = 3: ln((1 + 5/3)/(1 + "
                "3 - 5/3)) = ln(8/7) = 0.1335",
            ),
            trec_eval="yaap",
        ),
        "infAP": doc(
            MeasureExample(
                "infAP",
                {"q1": {"a": 1, "b": 0, "c": -1, "d": 1}},
                {"q1": {"a": 0.9, "b": 0.8, "c": 0.7, "x": 0.6, "d": 0.5}},
                (1 + (1 / 5 + (4 / 5) * (3 / 4) * ((1 + 1e-5) / (2 + 2e-5)))) / 2,
                "R = 2; a at rank 1 adds 1; d at 0-based rank j = 4 with r = 2, n = 1 "
                "judged non-relevant (b) and u = 1 pooled-unjudged (c, -1) above: 1/5 + "
                "(4/5)(3/4)((1 + e)/(2 + 2e)) = 0.2 + 0.6 * 0.5 = 0.5; (1 + 0.5)/2 = 0.75 "
                "(AP is (1 + 2/5)/2 = 0.7)",
            ),
            "A negative grade marks a pooled document that was not sampled for judging.",
            trec_eval="infAP",
            ir_measures="infAP",
        ),
        "GMBpref": doc(
            MeasureExample(
                "GMBpref",
                {"q1": {"a": 1, "b": 0}, "q2": {"c": 1, "d": 0}},
                {"q1": {"a": 0.9, "b": 0.8}, "q2": {"d": 0.9, "c": 0.8}},
                math.sqrt(1.0 * 1e-5),
                "q1: a above b, bpref = 1; q2: d above c, bpref = 1 - 1/1 = 0, raised to "
                "1e-5: exp((ln 1 + ln 1e-5)/2) = sqrt(1e-5) = 0.003162",
            ),
            trec_eval="gm_bpref",
        ),
        "11ptAvg": doc(
            MeasureExample(
                "11ptAvg",
                {"q1": {"a": 1, "b": 0, "c": 1}},
                {"q1": {"a": 0.9, "b": 0.8, "c": 0.7}},
                (8 * 1 + 3 * (2 / 3)) / 11,
                "R = 2, relevant at ranks 1 and 3: levels 0 to 0.7 need round(x * 2) <= 1 "
                "relevant documents and score max(P@1..3) = 1; levels 0.8, 0.9, 1.0 need 2 "
                "and score P@3 = 2/3: (8 * 1 + 3 * 2/3)/11 = 10/11 = 0.9091",
            ),
            "rounding='trec9' is trec_eval 9.0.8's floor(x * R + 0.9).",
            trec_eval="11pt_avg (11pt_avg.0.25,0.5,0.75 for levels=[0.25,0.5,0.75])",
            sklearn="precision_recall_curve on a dense query, interpolated and averaged at "
            "the levels by hand",
        ),
        "BinG": doc(
            MeasureExample(
                "BinG",
                BASIC_QRELS,
                {"q1": {"a": 0.9, "b": 0.8, "x": 0.7, "c": 0.6}},
                (1 / math.log2(2 + 0) + 1 / math.log2(2 + 2)) / 3,
                "ranking a b x c, R = 3: a has no non-relevant document above, 1/log2(2) = "
                "1; c has b and unjudged x above, 1/log2(4) = 0.5: (1 + 0.5)/3 = 0.5",
            ),
            trec_eval="binG",
            other=_EXPERIMENTAL,
        ),
        "G": doc(
            MeasureExample(
                "G",
                {"q1": {"a": 2, "b": 1, "c": 0}},
                {"q1": {"b": 0.9, "a": 0.8, "c": 0.7}},
                (1 / math.log2(2 + 2 - 1) + 2 / math.log2(2 + 3 - 3)) / 3,
                "ideal gains 2, 1 (sum 3); ranking b(1) a(2) c(0): rank 1, S = 1, cost = "
                "max(2, 1) = 2: 1/log2(2 + 2 - 1); rank 2, S = 3, cost = 2 + 1 = 3: "
                "2/log2(2 + 3 - 3) = 2; c gains nothing: (0.6309 + 2)/3 = 0.8770",
            ),
            trec_eval="G (gains: -m G.1=3,2=9)",
            other=_EXPERIMENTAL,
        ),
        "nDCGRel": doc(
            MeasureExample(
                "nDCGRel",
                GAIN_QRELS,
                GAIN_RUN,
                (1 / 2 + 2 * (2 / _IDCG3)) / 3,
                "ideal gains 2, 1, 1 (P = 3); ranking b(1) c(0) a(2): DCG(1) = 1, DCG(3) = 1 "
                "+ 2/log2(4) = 2; b at rank 1 adds DCG(1)/IDCG(1) = 1/2, a at rank 3 adds "
                "DCG(3)/IDCG(3) = 2/3.1309, and d, never retrieved, adds DCG(3)/IDCG(3) "
                "again: (0.5 + 2 * 0.6388)/3 = 0.5925",
            ),
            trec_eval="ndcg_rel",
            other=_EXPERIMENTAL,
        ),
        "RnDCG": doc(
            MeasureExample(
                "RnDCG",
                GAIN_QRELS,
                GAIN_RUN,
                (1 / 2 + 2 / _IDCG3) / 2,
                "ideal gains 2, 1, 1 drop after position 1 and end at P = 3; ranking b(1) "
                "c(0) a(2): DCG(1)/IDCG(1) = 1/2 and DCG(3)/IDCG(3) = 2/3.1309 = 0.6388; "
                "n = 3 is not above P + 1, no extra point: (0.5 + 0.6388)/2 = 0.5694",
            ),
            trec_eval="Rndcg",
            other=_EXPERIMENTAL,
        ),
        "DCG": doc(
            MeasureExample(
                "DCG(dcg='exp-log2')",
                {"q1": {"a": 2, "b": 1, "c": 0}},
                {"q1": {"c": 0.9, "a": 0.8, "b": 0.7, "x": 0.6}},
                (2**2 - 1) / math.log2(3) + (2**1 - 1) / math.log2(4),
                "ranking c(0) a(2) b(1) x: gains 2^g - 1 = 0, 3, 1, 0: 3/log2(3) + 1/log2(4) "
                "= 1.8928 + 0.5 = 2.3928",
            ),
            trec_eval="dcg (linear gain; -m dcg.1=1,2=3 gives these exponential gains)",
            ranx="dcg@k (linear), dcg_burges@k (dcg='exp-log2')",
            sklearn="dcg_score([grades], [scores], k=k, ignore_ties=True) (linear gain) on a "
            "dense query",
        ),
        "IDCG": doc(
            MeasureExample(
                "IDCG(gains={2:10})@2",
                {"q1": {"a": 2, "b": 1, "c": 1, "d": 0}},
                {"q1": {"x": 1.0}},
                10 / math.log2(2) + 1 / math.log2(3),
                "grade 2 gains 10, grade 1 gains 1; the ideal order of the judged documents "
                "is 10, 1, 1, whatever the run: 10/log2(2) + 1/log2(3) = 10.6309",
            ),
            trec_eval="ideal_dcg (-m ideal_dcg.2=10; no cutoff in trec_eval)",
            sklearn="dcg_score([grades], [grades], k=k) (the run scored by its own grades)",
        ),
        "RBP": doc(
            MeasureExample(
                "RBP(p=0.5,gain='graded')",
                {"q1": {"a": 2, "b": 0, "c": 1}},
                {"q1": {"a": 0.9, "b": 0.8, "c": 0.7}},
                (1 - 0.5) * (2 / 2 * 1 + 0 * 0.5 + 1 / 2 * 0.25),
                "graded gain = grade/2 (the highest grade is 2): (1 - 0.5)(1 * 1 + 0 * 0.5 "
                "+ 0.5 * 0.25) = 0.5 * 1.125 = 0.5625",
            ),
            "The default p = 0.8 is ir_measures'; trec_eval's rbp is RBP(p=0.9,gain='graded').",
            trec_eval="rbp (= RBP(p=0.9,gain='graded'); rbp.p=0.5 sets p; trec_eval 10 only; "
            "see docs/trec_eval.md difference 2)",
            ir_measures="RBP(p=0.8,rel=1) for binary gain",
            ranx="rbp.p = RBP(p=0.p,gain='raw'), the grade itself as gain (rbp.8 is p = 0.8)",
        ),
        "RBPResid": doc(
            MeasureExample(
                "RBPResid(p=0.5)",
                {"q1": {"a": 1, "b": 0}},
                {"q1": {"a": 0.9, "x": 0.8, "b": 0.7}},
                0.5**3 + (1 - 0.5) * 0.5**1,
                "n = 3 retrieved, x unjudged at 0-based rank 1: 0.5^3 + (1 - 0.5) * 0.5^1 = "
                "0.125 + 0.25 = 0.375",
            ),
            "tail='trec' reports 0 for a query without unjudged retrieved documents, as "
            "trec_eval 10 does.",
            trec_eval="rbp_resid (= RBPResid(p=0.9,tail='trec'); trec_eval 10 only)",
        ),
    }
)
