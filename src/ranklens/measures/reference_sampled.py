"""Reference documentation of the inferred measures of stratified sampled judgments
(:mod:`ranklens.measures.catalog_sampled`): equivalents and hand-computed examples (see
:mod:`ranklens.measures.reference`).

Their examples read stratified qrels, given as the qrels (``io.StringIO(text)``). Topic 1
has two strata: stratum 1 holds a (relevant) and b (not), both judged; stratum 2 holds c
(pooled, not sampled: -1), d (relevant) and e (not), 2 of 3 judged. The run ranks a c d.
The estimated relevant documents: R_hat = 1 * 2/2 + 1 * 3/2 = 2.5. With s(r, n) = (r +
1e-5)/(n + 3e-5), the estimated relevant documents in the top k are E(1) = s(1, 1), E(2) =
s(1, 1) + s(0, 0) = s(1, 1) + 1/3 (c's stratum has nothing sampled above it yet) and E(3) =
s(1, 1) + 2 s(1, 1) = 3 s(1, 1).

>>> len(DOCS)
6
"""

from __future__ import annotations

import math
from types import MappingProxyType

from ranklens.measures.reference_model import MeasureDoc, MeasureExample, doc

STRATA = """\
1 0 a 1 1
1 0 b 1 0
1 0 c 2 -1
1 0 d 2 1
1 0 e 2 0
"""
STRATA_RUN = {"1": {"a": 3.0, "c": 2.0, "d": 1.0}}
_S11 = (1 + 1e-5) / (1 + 3e-5)
_SAMPLE_EVAL = "sample_eval.pl (NIST, 2011): the {line} line; ranklens sample-eval prints it too"


def _doc(measure: str, expected: float, narration: str, line: str) -> MeasureDoc:
    return doc(
        MeasureExample(measure, STRATA, STRATA_RUN, expected, narration),
        trec_eval="none: trec_eval reads no strata (its infAP reads ordinary qrels with -1 "
        "for unjudged pooled documents)",
        other=_SAMPLE_EVAL.format(line=line),
    )


DOCS = MappingProxyType(
    {
        "xinfAP": _doc(
            "xinfAP",
            (1 / 2.5) * 1 + (1.5 / 2.5) * (1 / 3 + (2 / 3) * (0.5 * _S11 + 0.5 * (1 / 3))),
            "a at rank 1 has precision 1; d at rank 3 has 2 pooled documents above it, half "
            "in each stratum: 1/3 + (2/3)(0.5 s(1, 1) + 0.5 s(0, 0)) = 0.7778; weighted by "
            "the strata's shares of R_hat: (1/2.5) 1 + (1.5/2.5) 0.7778 = 0.8667",
            "infAP",
        ),
        "infNDCG": _doc(
            "infNDCG",
            3
            * ((1 / 3) * 1 / 1 + (2 / 3) * (1 / math.log2(4)) / 1)
            / (1 + 1 / math.log2(3) + 1 / math.log2(4)),
            "stratum 1 has 1 of the 3 pooled retrieved documents (a: DCG 1, 1 sampled), "
            "stratum 2 has 2 (d at rank 3: DCG 1/log2(4), 1 sampled): 3 ((1/3) 1 + (2/3) "
            "0.5) = 2; the ideal has round(2.5) = 3 documents of grade 1: 1 + 1/log2(3) + "
            "1/log2(4); 2/2.1309 = 0.9386",
            "infNDCG",
        ),
        "infP": _doc(
            "infP@2",
            (_S11 + 1 / 3) / 2,
            "E(2) = s(1, 1) + 1/3 (c, not sampled, in a stratum with nothing sampled above "
            "it): (0.99998 + 0.3333)/2 = 0.6667",
            "iP10, iP50 and iP1000 (k = 10, 50, 1000)",
        ),
        "infIPrec": _doc(
            "infIPrec@0.5",
            _S11,
            "E(k)/k is s(1, 1) at rank 1, (s(1, 1) + 1/3)/2 at 2, s(1, 1) at 3 (E(3) = "
            "3 s(1, 1) reaches every level's x R_hat): the best from rank 1 on, s(1, 1) = "
            "0.99998, so 1.0 to 4 decimals",
            "iprec@rec0.50",
        ),
        "infNumRel": _doc(
            "infNumRel",
            1 * 2 / 2 + 1 * 3 / 2,
            "stratum 1: 1 relevant of 2 sampled, 2 pooled; stratum 2: 1 of 2 sampled, 3 "
            "pooled: 1 * 2/2 + 1 * 3/2 = 2.5",
            "inum_rel",
        ),
        "infNumRelRet": _doc(
            "infNumRelRet",
            3 * _S11,
            "E(3): a in stratum 1 (1 relevant of 1 sampled retrieved) and c, d in stratum 2 "
            "(1 of 1): s(1, 1) + 2 s(1, 1) = 2.9999",
            "inum_rel_ret",
        ),
    }
)
