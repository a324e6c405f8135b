"""Reference documentation of the measures trec_eval lacks
(:mod:`ranklens.measures.catalog_ir`, ``catalog_set`` and ``catalog_curves``): equivalents
and hand-computed examples (see :mod:`ranklens.measures.reference`).

The confusion-matrix example retrieves a, b and x of a 10-document collection where a, c
and d are relevant: TP = 1, FP = 2 (b, and x, unjudged), FN = 3 - 1 = 2, TN = 10 - 1 - 2 -
2 = 5.

>>> len(DOCS)
16
"""

from __future__ import annotations

import math
from types import MappingProxyType

from ranklens.measures.reference_core import BASIC_QRELS, BASIC_RUN
from ranklens.measures.reference_model import MeasureDoc, MeasureExample, doc

CONFUSION_RUN = {"q1": {"a": 0.9, "b": 0.8, "x": 0.7}}
_DENSE = "on a dense labelling of the whole collection (1 = retrieved, for y_pred)"
# judged retrieved a (2, score 1.5), b (0, 0.5), c (1, 0.2); x unjudged
REGRESSION_QRELS = {"q1": {"a": 2, "b": 0, "c": 1}}
REGRESSION_RUN = {"q1": {"a": 1.5, "b": 0.5, "x": 0.4, "c": 0.2}}
_SQUARES = "(1.5 - 2)^2 + (0.5 - 0)^2 + (0.2 - 1)^2 = 0.25 + 0.25 + 0.64 = 1.14 over m = 3"
# judged retrieved in rank order a(0) b(2) c(1) d(1), x skipped
ORDER_QRELS = {"q1": {"a": 0, "b": 2, "c": 1, "d": 1}}
ORDER_RUN = {"q1": {"a": 0.9, "b": 0.8, "x": 0.7, "c": 0.6, "d": 0.5}}
_NO_TOOL = "none in trec_eval, ir_measures, ranx, sklearn or torchmetrics"


def _rate(measure: str, expected: float, narration: str, **equivalents: str) -> MeasureDoc:
    return doc(
        MeasureExample(measure, BASIC_QRELS, CONFUSION_RUN, expected, narration),
        "num_docs is required (ranklens eval --num-docs fills it in).",
        **equivalents,
    )


DOCS = MappingProxyType(
    {
        "F1": doc(
            MeasureExample(
                "F1@2",
                BASIC_QRELS,
                BASIC_RUN,
                2 * (1 / 2) * (1 / 3) / (1 / 2 + 1 / 3),
                "top 2 (a b): P@2 = 1/2, R@2 = 1/3 (R = 3): 2 * (1/2)(1/3)/(1/2 + 1/3) = 0.4",
            ),
            ranx="f1@k",
            sklearn="f1_score(y_true, y_pred) is the set form (no @k), on a dense labelling",
            other="trec_eval has only the set form, set_F (SetF)",
        ),
        "F": doc(
            MeasureExample(
                "F(beta=2)@4",
                BASIC_QRELS,
                BASIC_RUN,
                (1 + 4) * (2 / 4) * (2 / 3) / (4 * (2 / 4) + 2 / 3),
                "top 4 (a b c x): P@4 = 2/4, R@4 = 2/3, beta^2 = 4: 5 * (1/2)(2/3) / (4 * "
                "1/2 + 2/3) = (5/3)/(8/3) = 0.625",
            ),
            sklearn="fbeta_score(y_true, y_pred, beta=beta) is the set form, on a dense labelling",
            other="trec_eval's set_F.x is SetF(beta=sqrt(x)), the set form",
        ),
        "CG": doc(
            MeasureExample(
                "CG@4",
                {"q1": {"a": 2, "b": -1, "c": 3, "d": 0}},
                {"q1": {"a": 0.9, "x": 0.8, "b": 0.7, "c": 0.6, "d": 0.5}},
                2 + 0 + 0 + 3,
                "top 4: a (2), x (unjudged, 0), b (judged -1, 0), c (3): 2 + 0 + 0 + 3 = 5",
            ),
            other=f"{_NO_TOOL}; it is DCG without the discount",
        ),
        "ERR": doc(
            MeasureExample(
                "ERR",
                {"q1": {"a": 1, "b": 3, "c": 0}},
                {"q1": {"a": 0.9, "c": 0.8, "b": 0.7}},
                1 / 8 + (1 / 2) * 0 + (1 / 3) * (7 / 8) * (7 / 8),
                "max_rel = 3 (the highest grade in the qrels), stop probabilities (2^g - "
                "1)/8: a 1/8, c 0, b 7/8; ERR = 1/8 + (1/2)(7/8)(0) + (1/3)(7/8)(1)(7/8) = "
                "0.3802",
            ),
            "max_rel defaults to the highest grade in the qrels of the evaluated queries, "
            "so adding a query can change another query's value; fix it with max_rel.",
            ir_measures="ERR@k (gdeval.pl: ERR(max_rel=4)@k, its grade scale fixed at 0-4)",
            other="gdeval.pl (TREC Web track): ERR(max_rel=4)@20; founding document 001's "
            "patience is p",
        ),
        "Inversions": doc(
            MeasureExample(
                "Inversions",
                ORDER_QRELS,
                ORDER_RUN,
                3.0,
                "judged documents in rank order a(0) b(2) c(1) d(1) (x skipped): a is "
                "above three higher grades, b above two lower ones, c and d are equal: 3",
            ),
            scipy="scipy.stats.kendalltau counts the same discordant pairs",
            other=f"{_NO_TOOL}; founding document 001's Kendall tau distance",
        ),
        "KendallTau": doc(
            MeasureExample(
                "KendallTau",
                ORDER_QRELS,
                ORDER_RUN,
                (2 - 3) / math.sqrt(6 * (6 - 1)),
                "m = 4 judged documents a(0) b(2) c(1) d(1): n0 = 6 pairs, C = 2 (b above c "
                "and d), D = 3 (a below b, c, d in grade), T = 1 tie (c, d): (2 - 3)/sqrt(6 "
                "* 5) = -0.1826",
            ),
            scipy="scipy.stats.kendalltau(-rank, grade, variant='b') over the judged "
            "retrieved documents (tests/test_confusion_and_correlation.py checks it)",
        ),
        "ClassAccuracy": _rate(
            "ClassAccuracy(num_docs=10)",
            (1 + 5) / 10,
            "TP = 1, FP = 2, FN = 2, TN = 5 of N = 10: (1 + 5)/10 = 0.6",
            ir_measures="none: ir_measures' Accuracy is another measure, the fraction of "
            "(relevant, non-relevant) retrieved pairs in the right order (compare AUC)",
            sklearn=f"accuracy_score(y_true, y_pred) {_DENSE}",
        ),
        "ErrorRate": _rate(
            "ErrorRate(num_docs=10)",
            (2 + 2) / 10,
            "FP = 2, FN = 2 of N = 10: (2 + 2)/10 = 0.4",
            sklearn=f"1 - accuracy_score(y_true, y_pred) {_DENSE}",
        ),
        "Specificity": _rate(
            "Specificity(num_docs=10)",
            5 / (5 + 2),
            "TN = 5, FP = 2: 5/(5 + 2) = 0.7143",
            sklearn=f"recall_score(y_true, y_pred, pos_label=0) {_DENSE}",
        ),
        "Fallout": _rate(
            "Fallout(num_docs=10)@2",
            1 / (1 + 6),
            "top 2 (a b): TP = 1, FP = 1, FN = 2, TN = 10 - 1 - 1 - 2 = 6: 1/(1 + 6) = 0.1429",
            torchmetrics="RetrievalFallOut(top_k=k) (over the scored documents, not a "
            "collection of num_docs)",
            sklearn=f"1 - recall_score(y_true, y_pred, pos_label=0) {_DENSE}",
        ),
        "MissRate": _rate(
            "MissRate(num_docs=10)",
            2 / (2 + 1),
            "FN = 2, TP = 1: 2/(2 + 1) = 0.6667",
            sklearn=f"1 - recall_score(y_true, y_pred) {_DENSE}",
        ),
        "TPR": _rate(
            "TPR(num_docs=10)@1",
            1 / (1 + 2),
            "top 1 (a): TP = 1, FN = 2: 1/3 = 0.3333 (the same as R@1)",
            trec_eval="recall.k / set_recall (the same value)",
            sklearn=f"recall_score(y_true, y_pred) {_DENSE}",
        ),
        "MSE": doc(
            MeasureExample(
                "MSE",
                REGRESSION_QRELS,
                REGRESSION_RUN,
                (0.25 + 0.25 + 0.64) / 3,
                f"{_SQUARES}: 1.14/3 = 0.38",
            ),
            sklearn="mean_squared_error(grades, scores) over the judged retrieved documents",
        ),
        "RMSE": doc(
            MeasureExample(
                "RMSE",
                REGRESSION_QRELS,
                REGRESSION_RUN,
                math.sqrt((0.25 + 0.25 + 0.64) / 3),
                f"{_SQUARES}: sqrt(1.14/3) = 0.6164",
            ),
            sklearn="root_mean_squared_error(grades, scores) per query",
        ),
        "MAE": doc(
            MeasureExample(
                "MAE",
                REGRESSION_QRELS,
                REGRESSION_RUN,
                (0.5 + 0.5 + 0.8) / 3,
                "|1.5 - 2| + |0.5 - 0| + |0.2 - 1| = 1.8 over m = 3 (x unjudged): 0.6",
            ),
            sklearn="mean_absolute_error(grades, scores) over the judged retrieved documents",
        ),
        "AUC": doc(
            MeasureExample(
                "AUC",
                {"q1": {"a": 1, "b": 0, "c": 1, "d": 0, "e": 0, "f": 1}},
                {"q1": {"a": 0.9, "b": 0.8, "x": 0.7, "c": 0.6, "d": 0.5}},
                ((3 - 0) + (3 - 1) + (3 - 2) * (3 - 2) / 2) / (3 * 3),
                "R = 3 (a, c, f), N = 3 (b, d, e); x is skipped: a has no non-relevant "
                "above (3 pairs right), c has b above (2), and f and e, not retrieved, tie "
                "at the bottom (1/2): (3 + 2 + 1/2)/9 = 0.6111",
            ),
            "Judged documents the run misses share one tied place after the ranking.",
            sklearn="roc_auc_score(grades >= rel, scores) on a dense query "
            "(tests/test_curves.py checks it)",
            torchmetrics="RetrievalAUROC (over the scored documents)",
        ),
    }
)
