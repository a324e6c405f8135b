"""Reference documentation of the C/W/L measures (:mod:`ranklens.measures.catalog_cwl`):
equivalents and hand-computed examples (see :mod:`ranklens.measures.reference`).

Every example ranks b (grade 0), a (1), c (1) and pads the ranking with gain 0 to
cwl_eval's depth of 1000: gains g = (0, 1, 1, 0, ...). With ``P_i = prod_{j<i} C_j`` the
expected utility is ``EU = sum_i P_i g_i / sum_i P_i``.

>>> sorted(DOCS)[:3]
['BPM', 'CWL_AP', 'CWL_P']
"""

from __future__ import annotations

import math
from types import MappingProxyType

from ranklens.measures.reference_model import MeasureDoc, MeasureExample, doc

QRELS = {"q1": {"a": 1, "b": 0, "c": 1}}
RUN = {"q1": {"b": 0.9, "a": 0.8, "c": 0.7}}
NOTE = (
    "Gains are grades mapped to [0, 1] (max_grade), every document costs 1, rankings are "
    "padded to max_n = 1000 as cwl_eval does; report= gives ETU, EC, ETC or EI (expected "
    "depth), residual=True the residual."
)


def _doc(measure: str, expected: float, narration: str, cwl: str, irm: str) -> MeasureDoc:
    return doc(
        MeasureExample(measure, QRELS, RUN, expected, narration),
        NOTE,
        ir_measures=irm,
        other=f"cwl_eval's {cwl} (its expected utility column; the others via report=)",
    )


DOCS = MappingProxyType(
    {
        "INST": _doc(
            "INST",
            (4 / 9 + 16 / 81) / (1 + 4 / 9 + sum((16 / 81) * (2 / i) ** 2 for i in range(2, 1000))),
            "T = 1: T_i = 1, 0, -1, -1, ... so C_1 = C_2 = (2/3)^2 and C_i = ((i-1)/i)^2 after: "
            "P = 1, 4/9, 16/81, (16/81)(2/3)^2, ...; EU = (4/9 + 16/81) / sum P = 0.3287",
            "INST-T=1",
            "INST(T=1) (cwl_eval provider)",
        ),
        "INSQ": _doc(
            "INSQ",
            (4 / 9 + 4 / 16) / sum(4 / (i + 2) ** 2 for i in range(1000)),
            "T = 1: C_i = ((i + 1) / (i + 2))^2, so P_i = (2 / (i + 1))^2 = 1, 4/9, 4/16, ...; "
            "EU = (4/9 + 4/16) / sum P = 0.2696",
            "INSQ-T=1",
            "INSQ(T=1) (cwl_eval provider)",
        ),
        "BPM": _doc(
            "BPM(K=2.0)",
            (0 + 1) / 2,
            "T = 1, K = 2: C_1 = 1 (gain 0 < 1, cost 1 < 2), C_2 = 0 (gain 1): W = (1/2, 1/2); "
            "EU = (0 + 1)/2 = 0.5",
            "BPM-Static-T=1-K=2",
            "BPM(T=1,K=2) (cwl_eval provider)",
        ),
        "CWL_RBP": _doc(
            "CWL_RBP(theta=0.5)",
            0.5 * (0 + 0.5 + 0.25),
            "W_i = (1 - theta) theta^(i-1): 0.5 * (0 + 0.5 * 1 + 0.25 * 1) = 0.375",
            "RBP@0.5",
            "RBP(p=0.5) gives the same value from the rank-biased precision definition",
        ),
        "CWL_P": _doc(
            "CWL_P@2",
            (0 + 1) / 2,
            "C = (1, 0, ...): W = (1/2, 1/2): (0 + 1)/2 = 0.5",
            "P@2",
            "P@2 gives the same value with binary gains",
        ),
        "CWL_RR": _doc(
            "CWL_RR",
            1 / 2,
            "C = 1 until the first gain (rank 2): W = (1/2, 1/2): (0 + 1)/2 = 0.5 = 1/2",
            "RR",
            "RR gives the same value with binary gains",
        ),
        "SDCG": _doc(
            "SDCG@2",
            (1 / math.log2(3)) / (1 + 1 / math.log2(3)),
            "C_1 = log2(2)/log2(3), then 0: P = (1, 1/log2(3)); EU = (0 + 1/log2(3)) / (1 + "
            "1/log2(3)) = 0.3869, DCG@2 over the sum of the first 2 discounts",
            "NDCG-k@2",
            "SDCG(max_rel=1)@2 (cwl_eval provider; ir_measures' max_rel is max_rel here)",
        ),
        "NERR8": _doc(
            "NERR8@3",
            (0 + 1) / 2,
            "C = (1 - 0, 1 - 1, 0): P = (1, 1, 0); EU = (0 + 1)/2 = 0.5",
            "NERR-EQ8@k=3",
            "NERR8(max_rel=1)@3 (cwl_eval provider)",
        ),
        "NERR9": _doc(
            "NERR9@3",
            (1 / 2) / (1 + 1 / 2),
            "C_1 = (1/2)(1 - 0), C_2 = (2/3)(1 - 1) = 0: P = (1, 1/2); EU = (1/2)/(3/2) = 1/3",
            "NERR-EQ9@k=3",
            "NERR9(max_rel=1)@3 (cwl_eval provider)",
        ),
        "NERR10": _doc(
            "NERR10(p=0.5)",
            0.5 / (1 + 0.5),
            "C_1 = 0.5 (1 - 0), C_2 = 0.5 (1 - 1) = 0: P = (1, 0.5); EU = 0.5/1.5 = 1/3",
            "NERR-EQ10@phi=0.5",
            "NERR10(p=0.5,max_rel=1) (cwl_eval provider)",
        ),
        "NERR11": _doc(
            "NERR11",
            (4 / 9) / (1 + 4 / 9),
            "T = 1: C_1 = ((1 + 1)/(1 + 2))^2 (1 - 0) = 4/9, C_2 = 0 (gain 1): P = (1, 4/9); "
            "EU = (4/9)/(13/9) = 4/13",
            "NERR-EQ11@T=1",
            "NERR11(T=1,max_rel=1) (cwl_eval provider)",
        ),
        "CWL_AP": _doc(
            "CWL_AP",
            (1 / 2 + 2 / 3) / 2,
            "S = (5/6, 5/6, 1/3, 0): C = (1, 2/5, 0): P = (1, 1, 2/5), W = (5/12, 5/12, 1/6); "
            "EU = 5/12 + 1/6 = 7/12 = (1/2 + 2/3)/2, AP with R = 2",
            "AP",
            "AP gives the same value when every relevant document is ranked",
        ),
    }
)
