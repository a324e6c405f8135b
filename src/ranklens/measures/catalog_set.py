"""Measures that are not ranking measures in the usual sense, for comparison and teaching:
rank correlation with the grades (``Inversions@k``, ``KendallTau@k``), rates of the
confusion matrix against the collection (``Accuracy``, ``ErrorRate``, ``Specificity``,
``Fallout``, ``MissRate``, ``TPR``; they need the collection size ``num_docs``) and
regression errors between scores and grades (``MSE``, ``RMSE``, ``MAE``), which founding
document 001 shows to illustrate why ranking needs its own measures.

Set precision and set recall are ``P`` and ``R`` without ``@k`` (no ``SetP``/``SetR``
aliases: aliases are declared with a measure, in its own catalog).

>>> from ranklens.measures import parse_measure
>>> str(parse_measure("Fallout(num_docs=1000)@10")), str(parse_measure("KendallTau(rel=1)"))
('Fallout(num_docs=1000)@10', 'KendallTau(rel=1)')
"""

from __future__ import annotations

from ranklens.kernels import confusion as cf
from ranklens.kernels import rank_correlation as rc
from ranklens.kernels import regression as rg
from ranklens.measures.base import MeasureSpec, Param
from ranklens.measures.catalog import CUTOFF, INF, JUDGED_ONLY, REL

NUM_DOCS = Param(
    "num_docs",
    int,
    None,
    "documents in the collection, N (required; ranklens eval --num-docs fills it in)",
    minimum=0,
)
BINARY_REL = Param(
    "rel",
    int,
    None,
    "compare binary relevance (grade >= rel) instead of the grades (None: the grades)",
    minimum=0,
)
_CONFUSION = (
    "TP = relevant retrieved, FP = retrieved - TP (unjudged documents count as non-relevant), "
    "FN = R - TP, TN = N - TP - FP - FN, N = num_docs, over the top k (without @k: all "
    "retrieved)"
)
_REGRESSION_NOTE = (
    "; not a ranking measure: shown, as founding document 001 does, to illustrate why "
    "ranking needs its own measures"
)
_REGRESSION = (
    "over the judged retrieved documents of the top k (grade g_i >= 0; unjudged and negatively "
    "judged documents skipped), s_i the run's score, m of them; 0 if m = 0"
)


def _rate(name: str, summary: str, formula: str, which: cf.Rate, better: bool) -> MeasureSpec:
    return MeasureSpec(
        name,
        summary,
        f"{formula}; {_CONFUSION}; 0 if the denominator is 0",
        lambda r, rel, num_docs, cutoff: cf.rate(r, rel, cutoff, num_docs, which, name),
        (REL, JUDGED_ONLY, NUM_DOCS),
        CUTOFF,
        higher_is_better=better,
        no_rel_value=0.0 if which in ("miss", "tpr") else None,
    )


def _error(name: str, summary: str, formula: str, which: rg.Error) -> MeasureSpec:
    return MeasureSpec(
        name,
        summary + _REGRESSION_NOTE,
        f"{formula} {_REGRESSION}",
        lambda r, cutoff: rg.score_error(r, cutoff, which),
        (JUDGED_ONLY,),
        CUTOFF,
        higher_is_better=False,
        bounds=(0.0, INF),
        no_rel_value=None,
    )


SPECS: tuple[MeasureSpec, ...] = (
    MeasureSpec(
        "Inversions",
        "inversions: the pairs of judged documents in the top k ranked against their grades "
        "(founding document 001's Kendall tau distance)",
        "Inversions@k = |{(i, j): i ranked above j, g_i < g_j}| over the judged retrieved "
        "documents of the top k (grade g >= 0; unjudged and negatively judged documents "
        "skipped); equal grades are not inverted; with rel: binary grades [g >= rel]",
        lambda r, rel, cutoff: rc.inversions(r, cutoff, rel),
        (BINARY_REL, JUDGED_ONLY),
        CUTOFF,
        higher_is_better=False,
        bounds=(0.0, INF),
    ),
    MeasureSpec(
        "KendallTau",
        "Kendall's tau-b between the rank order and the grades of the judged documents in "
        "the top k",
        "KendallTau@k = (C - D) / sqrt(n0 * (n0 - T)) over the m judged retrieved documents "
        "of the top k (unjudged and negatively judged documents skipped): n0 = m(m-1)/2, "
        "C pairs with the higher-ranked document of higher grade, D the Inversions, T pairs "
        "of equal grade; 1 when grades never rise down the ranking, -1 when they never fall; "
        "0 if undefined (m < 2 or one grade); with rel: binary grades [g >= rel]",
        lambda r, rel, cutoff: rc.kendall_tau(r, cutoff, rel),
        (BINARY_REL, JUDGED_ONLY),
        CUTOFF,
        bounds=(-1.0, 1.0),
    ),
    _rate(
        "ClassAccuracy",
        "classification accuracy: the fraction of the collection classified correctly by "
        "retrieving it or not (ir_measures' Accuracy is the ordered-pair one)",
        "ClassAccuracy = (TP + TN) / N",
        "accuracy",
        True,
    ),
    _rate(
        "ErrorRate",
        "error rate: the fraction of the collection classified wrongly (1 - ClassAccuracy)",
        "ErrorRate = (FP + FN) / N",
        "error",
        False,
    ),
    _rate(
        "Specificity",
        "specificity (true negative rate): the fraction of non-relevant documents not retrieved",
        "Specificity = TN / (TN + FP)",
        "specificity",
        True,
    ),
    _rate(
        "Fallout",
        "fallout (false positive rate): the fraction of non-relevant documents retrieved",
        "Fallout = FP / (FP + TN)",
        "fallout",
        False,
    ),
    _rate(
        "MissRate",
        "miss rate (false negative rate): the fraction of relevant documents not retrieved",
        "MissRate = FN / (FN + TP)",
        "miss",
        False,
    ),
    _rate(
        "TPR",
        "true positive rate: the fraction of relevant documents retrieved (recall, as R)",
        "TPR = TP / (TP + FN)",
        "tpr",
        True,
    ),
    _error(
        "MSE",
        "mean squared error between the run's scores and the grades",
        "MSE@k = (1/m) sum_i (s_i - g_i)^2",
        "mse",
    ),
    _error(
        "RMSE",
        "root mean squared error between the run's scores and the grades, per query (the "
        "aggregate is the mean of the per-query RMSEs, not the root of the mean MSE)",
        "RMSE@k = sqrt((1/m) sum_i (s_i - g_i)^2)",
        "rmse",
    ),
    _error(
        "MAE",
        "mean absolute error between the run's scores and the grades",
        "MAE@k = (1/m) sum_i |s_i - g_i|",
        "mae",
    ),
)
