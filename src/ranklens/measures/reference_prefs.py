"""Reference documentation of trec_eval's preference and judgement-group measures
(:mod:`ranklens.measures.catalog_prefs`): equivalents and hand-computed examples (see
:mod:`ranklens.measures.reference`).

Their examples read a judgement file, given as the qrels (``io.StringIO(text)``).

The preference example: two judgement groups over query q1; the run ranks a c b x, so the
judged documents retrieved are a, c, b (internal ranks 0, 1, 2), d and e are not.

* g1 (a 2, b 1, c 0): a>b fulfilled, a>c fulfilled, b>c not (c is above b); all three
  between retrieved documents: ful_ret = 2, poss_ret = 3.
* g2 (b 2, a 1, d 1, e 0): b>a not fulfilled (poss_ret = 1, ful_ret = 0); b>d, b>e, a>e
  fulfilled with one document retrieved (ful_imp = poss_imp = 3); d>e with neither
  retrieved (notoccur = 1). So ful(g2) = 3 of poss(g2) = 5.

The judgement-group example: g1 judges a and c relevant, b not; g2 judges b and d
relevant, a not; the run ranks a b c x.

>>> len(DOCS)
17
"""

from __future__ import annotations

from types import MappingProxyType

from ranklens.measures.reference_model import MeasureDoc, MeasureExample, doc

PREFS = """\
q1 g1 a 2
q1 g1 b 1
q1 g1 c 0
q1 g2 b 2
q1 g2 a 1
q1 g2 d 1
q1 g2 e 0
"""
PREFS_RUN = {"q1": {"a": 0.9, "c": 0.8, "b": 0.7, "x": 0.6}}
JG = """\
q1 g1 a 1
q1 g1 b 0
q1 g1 c 1
q1 g2 a 0
q1 g2 b 1
q1 g2 d 1
"""
JG_RUN = {"q1": {"a": 0.9, "b": 0.8, "c": 0.7, "x": 0.6}}
_NONE = "none outside trec_eval (ir_measures, ranx, sklearn and torchmetrics have no " + (
    "preference measures)"
)
_NONE_JG = "none outside trec_eval (no other tool reads judgement groups)"
_COUNTS = "g1: ful_ret 2 of poss_ret 3; g2: ful_ret 0 of poss_ret 1, ful_imp 3 of poss_imp 3, "
_COUNTS += "notoccur 1"


def _prefs(measure: str, expected: float, narration: str, trec: str) -> MeasureDoc:
    """A preference measure's documentation; the narration of a count-based measure (not
    ``PrefsPair*``) starts with the counts of the two groups."""
    text = narration if measure.startswith("PrefsPair") else f"{_COUNTS}: {narration}"
    return doc(
        MeasureExample(measure, PREFS, PREFS_RUN, expected, text),
        trec_eval=f"{trec} (-R qrels_prefs, or -R prefs for a 5-column file)",
        other=_NONE,
    )


DOCS = MappingProxyType(
    {
        "PrefsSimp": _prefs(
            "PrefsSimp",
            (2 + 3) / (3 + 1 + 3 + 1),
            "(2 + 3) fulfilled of (3 + 1 + 3 + 1) = 5/8 = 0.625",
            "prefs_simp",
        ),
        "PrefsSimpRet": _prefs(
            "PrefsSimpRet",
            (2 + 0) / (3 + 1),
            "between retrieved documents, (2 + 0)/(3 + 1) = 0.5",
            "prefs_simp_ret",
        ),
        "PrefsSimpImp": _prefs(
            "PrefsSimpImp",
            (2 + 0 + 3) / (3 + 1 + 3),
            "d>e, with neither retrieved, is left out: (2 + 0 + 3)/(3 + 1 + 3) = 5/7 = 0.7143",
            "prefs_simp_imp",
        ),
        "PrefsPair": _prefs(
            "PrefsPair",
            (1 / 2 + 1 + 0 + 1 + 1 + 1 + 0) / 7,
            "ranking a c b (x unjudged; d, e not retrieved); 7 pairs: {a,b} is preferred "
            "both ways (1 of 2 groups agree with a first: "
            "1/2), {a,c} 1, {b,c} 0 (c is first), {b,d}, {b,e}, {a,e} 1 each, {d,e} 0 "
            "(neither retrieved): 4.5/7 = 0.6429",
            "prefs_pair",
        ),
        "PrefsPairRet": _prefs(
            "PrefsPairRet",
            (1 / 2 + 1 + 0) / 3,
            "ranking a c b; the pairs of retrieved documents, {a,b} (1/2, g1 and g2 "
            "disagree), {a,c} (1) and {b,c} (0, c first): (1/2 + 1 + 0)/3 = 0.5",
            "prefs_pair_ret",
        ),
        "PrefsPairImp": _prefs(
            "PrefsPairImp",
            (1 / 2 + 1 + 0 + 1 + 1 + 1) / 6,
            "ranking a c b; every pair but {d,e} (neither retrieved), as in PrefsPair: "
            "(1/2 + 1 + 0 + 1 + 1 + 1)/6 = 0.75",
            "prefs_pair_imp",
        ),
        "PrefsAvgJG": _prefs(
            "PrefsAvgJG",
            (2 / 3 + 3 / 5) / 2,
            "(2/3 + 3/5)/2 = 19/30 = 0.6333",
            "prefs_avgjg",
        ),
        "PrefsAvgJGRet": _prefs(
            "PrefsAvgJGRet",
            (2 / 3 + 0 / 1) / 2,
            "(2/3 + 0/1)/2 = 0.3333",
            "prefs_avgjg_ret",
        ),
        "PrefsAvgJGImp": _prefs(
            "PrefsAvgJGImp",
            (2 / 3 + 3 / 4) / 2,
            "(2/3 + (0 + 3)/(1 + 3))/2 = 17/24 = 0.7083",
            "prefs_avgjg_imp",
        ),
        "PrefsAvgJGRnonrel": _prefs(
            "PrefsAvgJGRnonrel",
            ((2 + 2 * 1) / (3 + 2 * 1) + (3 + 2 * 2) / (5 + 3 * 2)) / 2,
            "g1 has R = 2 relevant (a, b; both retrieved) and N = 1 non-relevant, so R - N "
            "= 1 imaginary non-relevant documents are added: (2 + 2*1)/(3 + 2*1) = 4/5; g2 "
            "has R = 3 (2 retrieved), N = 1: (3 + 2*2)/(5 + 3*2) = 7/11; (4/5 + 7/11)/2 = "
            "0.7182",
            "prefs_avgjg_Rnonrel",
        ),
        "PrefsAvgJGRnonrelRet": _prefs(
            "PrefsAvgJGRnonrelRet",
            ((2 + 2 * (2 - 1)) / (3 + 2 * (2 - 1)) + (0 + 2 * (2 - 0)) / (1 + 3 * (2 - 0))) / 2,
            "g1: R_ret = 2, N_ret = 1 (c): (2 + 2*1)/(3 + R*1) with R = 2: 4/5; g2: R_ret "
            "= 2, N_ret = 0: (0 + 2*2)/(1 + R*2) with R = 3 relevant in all (trec_eval's "
            "code multiplies by R, not R_ret): 4/7; (4/5 + 4/7)/2 = 24/35 = 0.6857",
            "prefs_avgjg_Rnonrel_ret",
        ),
        "NumPrefsPoss": _prefs(
            "NumPrefsPoss",
            3 + 1 + 3 + 1,
            "3 + 1 + 3 + 1 = 8 preferences",
            "prefs_num_prefs_poss",
        ),
        "NumPrefsFul": _prefs(
            "NumPrefsFul",
            2 + 0 + 3,
            "2 + 0 + 3 = 5 fulfilled",
            "prefs_num_prefs_ful",
        ),
        "NumPrefsFulRet": _prefs(
            "NumPrefsFulRet",
            2 + 0,
            "2 + 0 = 2 fulfilled between retrieved documents",
            "prefs_num_prefs_ful_ret",
        ),
        "APAvgJG": doc(
            MeasureExample(
                "APAvgJG",
                JG,
                JG_RUN,
                ((1 / 1 + 2 / 3) / 2 + (1 / 2) / 2) / 2,
                "g1: relevant at ranks 1 and 3 of R = 2, AP = (1 + 2/3)/2 = 5/6; g2: b at "
                "rank 2, d not retrieved, AP = (1/2)/2 = 1/4; (5/6 + 1/4)/2 = 13/24 = 0.5417",
            ),
            trec_eval="map_avgjg (-R qrels_jg)",
            other=_NONE_JG,
        ),
        "PAvgJG": doc(
            MeasureExample(
                "PAvgJG@5",
                JG,
                JG_RUN,
                (2 / 5 + 1 / 5) / 2,
                "the top 5 (a b c x, padded) hold 2 of g1's relevant documents and 1 of "
                "g2's: (2/5 + 1/5)/2 = 0.3",
            ),
            trec_eval="P_avgjg.k (value P_avgjg_5; -R qrels_jg)",
            other=_NONE_JG,
        ),
        "RprecMultAvgJG": doc(
            MeasureExample(
                "RprecMultAvgJG@2",
                JG,
                JG_RUN,
                (2 / 4 + 1 / 4) / 2,
                "both groups have R = 2, c = floor(2 * 2 + 0.9) = 4 = the documents "
                "retrieved: g1 P@4 = 2/4, g2 P@4 = 1/4; (2/4 + 1/4)/2 = 0.375",
            ),
            trec_eval="Rprec_mult_avgjg.x (value Rprec_mult_avgjg_2.00; -R qrels_jg)",
            other=_NONE_JG,
        ),
    }
)
