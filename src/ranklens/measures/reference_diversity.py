"""Reference documentation of the diversity measures
(:mod:`ranklens.measures.catalog_diversity`): equivalents and hand-computed examples (see
:mod:`ranklens.measures.reference`).

Every example reads the same subtopic qrels (given as the qrels, ``io.StringIO(text)``):
query q1 has subtopics 1 and 2; a is relevant to both, b to 2, c to 1, d to neither. The run
ranks b, d, a. With alpha = 0.5 the gains are g = (1, 0, 1 + 0.5): b covers 2 first, d
nothing, a covers 1 first and 2 a second time. The greedy ideal ranking is a (gain 2), then
c (gain 0.5, tied with b, ties to the larger docno), then b (0.5).

>>> sorted(DOCS)[:3]
['AP_IA', 'ERR_IA', 'NRBP']
"""

from __future__ import annotations

import math
from types import MappingProxyType

from ranklens.measures.reference_model import MeasureDoc, MeasureExample, doc

SUBTOPIC_QRELS = """\
q1 1 a 1
q1 2 a 1
q1 2 b 1
q1 1 c 1
q1 1 d 0
q1 2 d 0
"""
RUN = {"q1": {"b": 0.9, "d": 0.8, "a": 0.7}}
L3 = math.log2(3)
_NDEVAL = "ndeval 4.5's {col} column (ranklens ndeval; ndeval -traditional for the tie order)"
_IRM = "{name} (through pyndeval, which sorts ties by docno ascending)"


def _doc(measure: str, expected: float, narration: str, col: str, irm: str) -> MeasureDoc:
    return doc(
        MeasureExample(measure, SUBTOPIC_QRELS, RUN, expected, narration),
        "Reads subtopic qrels (qid subtopic docno judgment); judgments above 1 count as 1 "
        "and a subtopic without a relevant document is left out of |S|, as in ndeval.",
        ir_measures=_IRM.format(name=irm),
        other=_NDEVAL.format(col=col),
    )


DOCS = MappingProxyType(
    {
        "alpha_nDCG": _doc(
            "alpha_nDCG@3",
            (1 + 0 + 1.5 / 2) / (2 + 0.5 / L3 + 0.5 / 2),
            "run: 1/log2(2) + 0 + 1.5/log2(4) = 1.75; ideal: 2 + 0.5/log2(3) + 0.5/log2(4) "
            "= 2.5655; 1.75 / 2.5655 = 0.6821",
            "alpha-nDCG@k",
            "alpha_nDCG@k",
        ),
        "alpha_DCG": _doc(
            "alpha_DCG@3",
            (1 + 0 + 1.5 / 2) / (2 * (1 + 0.5 / L3 + 0.25 / 2)),
            "1.75 over the ideal-ideal |S| (1 + 0.5/log2(3) + 0.25/log2(4)) = 2.8809: 0.6074",
            "alpha-DCG@k",
            "alpha_DCG@k",
        ),
        "ERR_IA": _doc(
            "ERR_IA@3",
            (1 + 0 + 1.5 / 3) / (2 * (1 + 0.5 / 2 + 0.25 / 3)),
            "1/1 + 0/2 + 1.5/3 = 1.5 over the ideal-ideal 2 (1 + 0.5/2 + 0.25/3) = 2.6667: 0.5625",
            "ERR-IA@k",
            "ERR_IA@k",
        ),
        "nERR_IA": _doc(
            "nERR_IA@3",
            (1 + 0 + 1.5 / 3) / (2 + 0.5 / 2 + 0.5 / 3),
            "1.5 over the ideal ranking's 2/1 + 0.5/2 + 0.5/3 = 2.4167: 0.6207",
            "nERR-IA@k",
            "nERR_IA@k",
        ),
        "NRBP": _doc(
            "NRBP",
            (1 - 0.5 * 0.5) / 2 * (1 + 0 * 0.5 + 1.5 * 0.25),
            "(1 - 0.5 * 0.5) / 2 * (1 + 0 * 0.5 + 1.5 * 0.25) = 0.375 * 1.375 = 0.5156",
            "NRBP",
            "NRBP",
        ),
        "nNRBP": _doc(
            "nNRBP",
            (1 + 1.5 * 0.25) / (2 + 0.5 * 0.5 + 0.5 * 0.25),
            "1.375 over the ideal ranking's 2 + 0.5 * 0.5 + 0.5 * 0.25 = 2.375: 0.5789",
            "nNRBP",
            "nNRBP",
        ),
        "AP_IA": _doc(
            "AP_IA",
            ((1 / 3) / 2 + (1 / 1 + 2 / 3) / 2) / 2,
            "subtopic 1: a at rank 3, R = 2: (1/3)/2; subtopic 2: b at 1, a at 3, R = 2: "
            "(1 + 2/3)/2; mean 0.5",
            "MAP-IA",
            "AP_IA",
        ),
        "P_IA": _doc(
            "P_IA@2",
            1 / (2 * 2),
            "top 2 (b, d): one (document, subtopic) pair, b-2, over k |S| = 4: 0.25",
            "P-IA@k",
            "P_IA@k",
        ),
        "StRecall": _doc(
            "StRecall@1",
            1 / 2,
            "b covers subtopic 2 of 2: 0.5",
            "strec@k",
            "StRecall@k",
        ),
    }
)
