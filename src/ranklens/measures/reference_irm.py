"""Reference documentation of :mod:`ranklens.measures.catalog_irm` (ir_measures' measures
that had no ranklens counterpart): equivalents and hand-computed examples.

>>> sorted(DOCS)
['Accuracy', 'Compat', 'LRAP', 'SkDCG', 'SknDCG']
"""

from __future__ import annotations

import math
from types import MappingProxyType

from ranklens.measures.reference_model import MeasureExample, doc

TIED_QRELS = {"q1": {"a": 1, "b": 0, "c": 1, "d": 1}}
TIED_RUN = {"q1": {"a": 2.0, "b": 1.0, "c": 1.0}}
_TIED = (
    "a (grade 1) at rank 1, then b (0) and c (1) tied at ranks 2-3 share them: mean gain "
    "1/2 times 1/log2(3) + 1/log2(4)"
)

_P = 0.5
_W = (1, _P, _P**2, _P**3)  # the RBO weights of depths 1-4

DOCS = MappingProxyType(
    {
        "Compat": doc(
            MeasureExample(
                "Compat(p=0.5)",
                {"q1": {"a": 2, "b": 0, "c": 1, "d": 1}},
                {"q1": {"b": 0.9, "a": 0.8, "x": 0.7, "c": 0.6}},
                (_W[1] * 1 / 2 + _W[2] * 1 / 3 + _W[3] * 2 / 4)
                / (_W[0] + _W[1] + _W[2] + _W[3] * 3 / 4),
                "R = b, a, x, c; the ideal I = a (grade 2), c, d (grade 1; c first, as the run "
                "ranks it, d is not retrieved); depth D = max(4, 3) = 4. Overlaps X = 0, 1, 1, 2: "
                "RBO(R, I) = (0.5 * 1/2 + 0.25 * 1/3 + 0.125 * 2/4) / 1.875 = 0.2111; for I "
                "itself X = 1, 2, 3, 3: RBO(I, I) = (1 + 0.5 + 0.25 + 0.125 * 3/4) / 1.875 = "
                "0.9833; Compat = 0.2111 / 0.9833 = 0.2147",
            ),
            "Unjudged and non-relevant documents are in R but never in I; a query without a "
            "relevant document (or without a ranking) scores 0. normalize=False gives RBO(R, I).",
            ir_measures="Compat(p=0.5) (its compat provider; run with ties='docid_asc'; it "
            "orders equal grades in I by run score, 0 for an unretrieved document, so it "
            "differs where a run has scores <= 0: docs/conventions.md)",
            other="github.com/claclark/Compatibility, the authors' implementation",
        ),
        "SkDCG": doc(
            MeasureExample(
                "SkDCG",
                TIED_QRELS,
                TIED_RUN,
                1 + 0.5 * (1 / math.log2(3) + 1 / 2),
                f"{_TIED}: 1 + 0.5 * (0.6309 + 0.5) = 1.5655",
            ),
            "d is judged relevant but not retrieved: sklearn never sees it.",
            sklearn="dcg_score(y_true, y_score, k=k, log_base=log_base) on the retrieved "
            "documents (ignore_ties=False)",
            other="DCG in the ir_measures/trec_eval sense breaks the tie instead (ignore_ties)",
        ),
        "LRAP": doc(
            MeasureExample(
                "LRAP",
                TIED_QRELS,
                TIED_RUN,
                (1 / 1 + 2 / 3) / 2,
                "a (relevant) at rank 1: 1/1; c (relevant) tied with b at ranks 2-3 counts at "
                "rank 3 with 2 relevant at or above: 2/3; mean (1 + 2/3)/2 = 0.8333",
            ),
            "Over the retrieved documents only (d is not seen); 1 for a query whose retrieved "
            "documents are all relevant or all not.",
            sklearn="label_ranking_average_precision_score(y_true, y_score) with one row per "
            "query over its retrieved documents",
            other="AP differs: it divides by every relevant document and breaks ties",
        ),
        "SknDCG": doc(
            MeasureExample(
                "SknDCG",
                TIED_QRELS,
                TIED_RUN,
                (1 + 0.5 * (1 / math.log2(3) + 1 / 2)) / (1 + 1 / math.log2(3)),
                f"{_TIED}: 1.5655; the ideal of the retrieved grades (1, 1, 0): 1 + 1/log2(3) "
                "= 1.6309; 1.5655 / 1.6309 = 0.9599 (d, not retrieved, is not in the ideal)",
            ),
            "The ideal holds only the retrieved documents, unlike nDCG's (all judged ones).",
            sklearn="ndcg_score(y_true, y_score, k=k) on the retrieved documents",
            other="nDCG normalises by every judged document of the query instead",
        ),
        "Accuracy": doc(
            MeasureExample(
                "Accuracy",
                {"q1": {"a": 1, "b": 0, "c": 1}},
                {"q1": {"b": 0.9, "a": 0.8, "x": 0.7, "c": 0.6}},
                1 - (1 + 2) / (2 * 2),
                "ranking b (non-relevant), a, x (unjudged: non-relevant), c: one non-relevant "
                "above a, two above c, of 2 * 2 pairs: 1 - 3/4 = 0.25",
            ),
            "Not the classification accuracy (TP + TN) / N: that is ClassAccuracy.",
            ir_measures="Accuracy (its accuracy provider keeps tied documents in input order: "
            "ties='input'; it leaves out a query without a retrieved relevant document, "
            "scored 0 here, and fails without a retrieved non-relevant one, 1 here)",
            sklearn="none (roc_auc_score over the retrieved documents is the same pair count "
            "with ties counted half)",
        ),
    }
)
