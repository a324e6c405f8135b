"""Reference documentation of :mod:`ranklens.measures.catalog_irm` (ir_measures' measures
that had no ranklens counterpart): equivalents and hand-computed examples.

>>> sorted(DOCS)
['Accuracy']
"""

from __future__ import annotations

from types import MappingProxyType

from ranklens.measures.reference_model import MeasureExample, doc

DOCS = MappingProxyType(
    {
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
