"""Measures common in IR and recommender evaluation that trec_eval lacks: the F-measure at
a cutoff (``F1@k``, ``F(beta=...)@k``), cumulative gain (``CG@k``) and expected reciprocal
rank (``ERR@k``, Chapelle et al. 2009, with founding document 001's patience ``p``).

>>> from ranklens.measures import parse_measure
>>> str(parse_measure("F(beta=2.0)@10")), str(parse_measure("ERR(p=0.9,max_rel=4)@20"))
('F(beta=2.0)@10', 'ERR(max_rel=4,p=0.9)@20')
"""

from __future__ import annotations

from ranklens.kernels import cumulative_gain as cg
from ranklens.kernels import err
from ranklens.kernels import fmeasure as fm
from ranklens.measures.base import MeasureSpec, Param
from ranklens.measures.catalog import CUTOFF, INF, JUDGED_ONLY, REL
from ranklens.measures.catalog_trec import BoundedParam

SPECS: tuple[MeasureSpec, ...] = (
    MeasureSpec(
        "F1",
        "F1: the harmonic mean of precision and recall at k",
        "F1@k = 2 * P@k * R@k / (P@k + R@k), P@k padded (as P), R@k = |{relevant in top k}| "
        "/ R; 0 if both are 0; without @k: of set precision and set recall",
        lambda r, rel, cutoff: fm.f_measure(r, rel, cutoff, 1.0),
        (REL, JUDGED_ONLY),
        CUTOFF,
    ),
    MeasureSpec(
        "F",
        "F-measure: the weighted harmonic mean of precision and recall at k",
        "F@k = (1 + beta^2) * P@k * R@k / (beta^2 * P@k + R@k), P@k padded (as P), R@k = "
        "|{relevant in top k}| / R; 0 if both are 0; without @k: of set precision and set "
        "recall (compare trec_eval's set_F: SetF); beta = 1 is F1",
        lambda r, rel, cutoff, beta: fm.f_measure(r, rel, cutoff, beta),
        (
            Param(
                "beta",
                float,
                1.0,
                "weight of recall: beta > 1 favours recall, beta < 1 precision",
                minimum=0.0,
            ),
            REL,
            JUDGED_ONLY,
        ),
        CUTOFF,
    ),
    MeasureSpec(
        "CG",
        "cumulative gain: the sum of the grades of the top k documents",
        "CG@k = sum_{i <= k} g_i, g_i = the grade at rank i (linear gain; unjudged and "
        "negatively judged documents 0); without @k: the whole ranking",
        lambda r, cutoff: cg.cumulative_gain(r, cutoff),
        (JUDGED_ONLY,),
        CUTOFF,
        bounds=(0.0, INF),
    ),
    MeasureSpec(
        "ERR",
        "expected reciprocal rank: the expected inverse rank at which a cascading user stops",
        "ERR@k = sum_{r <= k} (1/r) * R_r * prod_{i < r} p * (1 - R_i), stop probability "
        "R_i = (2^g_i - 1) / 2^max_rel (grades clipped to 0..max_rel; unjudged 0); max_rel "
        "defaults to the highest grade in the qrels (of the evaluated queries); p = 1 is "
        "Chapelle et al.'s ERR (2009), p < 1 the user goes past a document only with "
        "probability p",
        lambda r, cutoff, p, max_rel: err.expected_reciprocal_rank(r, cutoff, p, max_rel),
        (
            BoundedParam(
                "p",
                float,
                1.0,
                "probability of going on past an unsatisfying document (0 to 1)",
                minimum=0.0,
                maximum=1.0,
            ),
            Param(
                "max_rel",
                int,
                None,
                "the grade of a certainly satisfying document (None: the highest grade in "
                "the qrels; 0 makes every stop probability 0)",
                minimum=0,
            ),
        ),
        CUTOFF,
    ),
)
