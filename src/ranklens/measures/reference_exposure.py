"""Reference documentation of the expected exposure measures
(:mod:`ranklens.measures.catalog_exposure`): their equivalent in github.com/diazf/expeval and
hand-computed examples (see :mod:`ranklens.measures.reference`).

Every example judges q1's documents a and b relevant (c not) and q2's d relevant; the run
samples two rankings for q1, ``a b`` and ``b a``, and none for q2 (missing: the worst value
of each measure). Under the default browsing model (gerr, p = 0.5, u = 0.5) the exposure is
1 at the first position and p (1 - u) = 0.25 at the second (below a relevant document), so
a and b each get (1 + 0.25) / 2 = 0.625, which is also their target: the ideal policy
shuffles the two relevant documents, (1 - 0.25^2) / (2 (1 - 0.25)) = 0.625.

>>> len(DOCS)
3
"""

from __future__ import annotations

from typing import Any

from ranklens.measures.reference_model import MeasureExample, doc

QRELS = "q1 0 a 1\nq1 0 b 1\nq1 0 c 0\nq2 0 d 1\n"
RUN = {"q1": [["a", "b"], ["b", "a"]]}
_SETTING = (
    "q1's samples a b and b a give a and b exposure (1 + 0.25) / 2 = 0.625 each, their "
    "target; q2 is missing from the run."
)
_EXPEVAL = (
    "github.com/diazf/expeval: {flag} line of 'expeval.py -I qrels -R run' with its "
    "normalisation quirks; ranklens expeval --fixed prints these values (docs/expeval.md)"
)
_NOTES = (
    "Reads a stochastic run (several sampled rankings per query) and is evaluated alone (not "
    "beside measures of one ranking per query). Evaluated queries: those with a relevant "
    "document (complete=True: any judged document); a query the run lacks gets the worst "
    "value. With groups= (--groups FILE) documents are replaced by groups (a document "
    "without a label counts in none). normalize=False gives the raw value, from 0 up."
)


def _example(
    measure: str, expected: float, narration: str, options: dict[str, Any] | None = None
) -> MeasureExample:
    return MeasureExample(measure, QRELS, RUN, expected, f"{_SETTING} {narration}", options)


DOCS = {
    "EE-L": doc(
        _example(
            "EE-L",
            (0.0 + 1.0) / 2,
            "q1's loss is (0.625 - 0.625)^2 + (0.625 - 0.625)^2 = 0 (normalised 0); q2 gets "
            "the upper bound, 1; the mean is (0 + 1) / 2 = 0.5.",
        ),
        _NOTES,
        other=_EXPEVAL.format(flag="the 'difference'"),
    ),
    "EE-D": doc(
        _example(
            "EE-D",
            (2 * 0.625**2 / (1 / (1 - 0.25)) + 1.0) / 2,
            "q1's disparity is 0.625^2 + 0.625^2 = 0.78125, over its upper bound 1 / (1 - "
            "p^2) = 4/3 (an unbounded collection): 0.5859375; q2 gets the upper bound, 1; "
            "the mean is (0.5859375 + 1) / 2.",
        ),
        _NOTES,
        other=_EXPEVAL.format(flag="the 'disparity'"),
    ),
    "EE-R": doc(
        _example(
            "EE-R",
            (2 * 0.625**2 / (1.5 * (0.625 + 0.625)) + 0.0) / 2,
            "With groups a: x, b: y, d: x, q1's groups x and y get exposure 0.625 each, "
            "their target: relevance 0.625^2 + 0.625^2 = 0.78125 over its upper bound M "
            "(0.625 + 0.625), where M = 1 + p = 1.5, the exposure of the first two "
            "positions, is the most a group of q1's two relevant documents can get: 5/12; q2 "
            "gets the lower bound, 0; the mean is 5/24.",
            {"groups": {"a": "x", "b": "y", "d": "x"}},
        ),
        _NOTES,
        other=_EXPEVAL.format(flag="the 'relevance' (with -G: groups from the qrels)")
        + "; expeval's group relevance bound stays 0, so its -G value is always 1",
    ),
}
