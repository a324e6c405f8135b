"""The rest of ir_measures' catalog: ``Accuracy`` (its ordered-pair accuracy; the
classification accuracy is ``ClassAccuracy``).

>>> from ranklens.measures import parse_measure
>>> str(parse_measure("Accuracy(rel=2)@10"))
'Accuracy(rel=2)@10'
"""

from __future__ import annotations

from ranklens.kernels import pair_accuracy as pa
from ranklens.measures.base import MeasureSpec
from ranklens.measures.catalog import CUTOFF, REL

SPECS: tuple[MeasureSpec, ...] = (
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
)
