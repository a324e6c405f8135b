"""Measures read off the curves of :mod:`ranklens.analysis.curves`: ``AUC``, the area under the ROC
curve of a query's judged documents.

>>> from ranklens import evaluate
>>> evaluate({"q": {"a": 1, "b": 0, "c": 0}}, {"q": {"b": 3, "a": 2, "c": 1}}, "AUC")["AUC"]
0.5
"""

from __future__ import annotations

from ranklens.kernels import roc
from ranklens.measures.base import MeasureSpec
from ranklens.measures.catalog import REL

SPECS: tuple[MeasureSpec, ...] = (
    MeasureSpec(
        "AUC",
        "area under the ROC curve of the judged documents (the fraction of relevant / "
        "judged non-relevant pairs ranked in the right order)",
        "AUC = (1/(R*N)) * (sum over relevant retrieved d of (N - n_d) + (R - R_ret) * "
        "(N - N_ret) / 2), n_d judged non-relevant documents ranked above d, N judged "
        "non-relevant documents (grade < rel), R_ret and N_ret those retrieved; unjudged "
        "documents skipped, judged documents not retrieved placed after the ranking as one "
        "tied group; equal scores in the order of the tie policy (no tie groups); 0 if R = 0 "
        "or N = 0",
        roc.roc_auc,
        (REL,),
        None,
    ),
)
