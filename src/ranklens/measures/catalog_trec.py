"""The rest of trec_eval 10.0's measures, declared for the registry.

Set measures (``SetRelP``, ``SetAP``, ``SetF``, ``Utility``, ``NumNonRelJudgedRet``),
cut-off measures (``RelP@k``, ``RprecMult@x``, ``Unjudged@k``), AP variants (``infAP``,
``GMBpref``, ``YAAP``, ``11ptAvg``), the gain family (``BinG``, ``G``, ``nDCGRel``,
``RnDCG``, ``DCG``, ``IDCG``) and rank-biased precision (``RBP``, ``RBPResid``). Each
kernel reproduces trec_eval's arithmetic, so the printed values are trec_eval's; where
ranklens deliberately differs, the measure's formula says so.

>>> from ranklens.measures import parse_measure
>>> str(parse_measure("SetF(beta=0.5)")), str(parse_measure("RprecMult@0.2"))
('SetF(beta=0.5)', 'RprecMult@0.2')
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from ranklens.base.errors import MeasureError
from ranklens.kernels import ap_variants as apv
from ranklens.kernels import bpref as bp
from ranklens.kernels import dcg, rbp
from ranklens.kernels import gain_measures as gm
from ranklens.kernels import rank_cutoffs as rc
from ranklens.kernels import set_based as sb
from ranklens.kernels.options import RBP_GAINS, RESIDUAL_TAILS
from ranklens.measures import catalog
from ranklens.measures.base import MeasureSpec, Param
from ranklens.measures.catalog import CUTOFF, INF, JUDGED_ONLY, REL, ROUNDING

DEFAULT_LEVELS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
"""trec_eval's recall levels for ``11pt_avg``."""


BoundedParam = Param
"""A parameter with an upper bound too (:class:`Param` declares both bounds now; the name
stays for the catalogs that import it)."""


@dataclass(frozen=True)
class LevelsParam(Param):
    """A list of recall levels: numbers in [0, 1], without repeats; stored sorted, as floats
    (a level above 1 is never reached: its value would always be 0)."""

    def check(self, value: Any, measure: str) -> Any:
        """Validate ``value`` and return it as a sorted tuple of floats."""
        if not isinstance(value, (tuple, list)) or not value:
            raise MeasureError(
                f"{measure}: parameter {self.name} must be a non-empty list of recall levels, "
                f"like [0.2,0.5,0.8]; got {value!r}"
            )
        levels: list[float] = []
        for item in value:
            if isinstance(item, bool) or not isinstance(item, (int, float)):
                raise MeasureError(f"{measure}: recall level {item!r} is not a number")
            if not math.isfinite(item) or not 0 <= item <= 1:
                raise MeasureError(
                    f"{measure}: recall level {item!r} must be in [0, 1] (a recall above 1 "
                    "is never reached)"
                )
            levels.append(float(item))
        if len(set(levels)) != len(levels):
            raise MeasureError(f"{measure}: recall levels repeat in {value!r}")
        return tuple(sorted(levels))


def _ndcg_param(name: str) -> Param:
    """The parameter ``name`` of ``nDCG`` (its gain map and DCG form, shared here)."""
    for spec in catalog.SPECS:
        if spec.name == "nDCG":
            found = spec.param(name)
            if found is not None:
                return found
    raise RuntimeError(f"nDCG has no parameter {name!r}")  # pragma: no cover


GAINS = _ndcg_param("gains")
DCG_FORM = _ndcg_param("dcg")
IDEAL = _ndcg_param("ideal")
PERSISTENCE = BoundedParam(
    "p",
    float,
    0.8,
    "persistence: the probability of reading on (below 1: at 1 RBP would always be 0)",
    minimum=0.0,
    maximum=1.0,
    exclusive_maximum=True,
)
RBP_REL = Param(
    "rel", int, 1, "binary gain: minimum grade of a relevant document (graded gain ignores it)"
)
LEVELS = LevelsParam(
    "levels", tuple, DEFAULT_LEVELS, "the recall levels to average, e.g. [0.25,0.5,0.75]"
)

_UNJUDGED_NOTE = "unjudged: not in the qrels or judged negative"

SPECS: tuple[MeasureSpec, ...] = (
    MeasureSpec(
        "SetRelP",
        "relative set precision: precision of the retrieved set over the best possible",
        "SetRelP = A / min(n, R), A relevant retrieved, n retrieved, R relevant in the qrels; "
        "0 if n = 0 or R = 0",
        sb.set_relative_precision,
        (REL, JUDGED_ONLY),
        trec_name="|set_relative_P",
    ),
    MeasureSpec(
        "SetAP",
        "set average precision: set precision times set recall",
        "SetAP = (A * A) / (n * R), A relevant retrieved, n retrieved, R relevant in the "
        "qrels; 0 if n = 0 or R = 0",
        sb.set_average_precision,
        (REL, JUDGED_ONLY),
        trec_name="|set_map",
    ),
    MeasureSpec(
        "SetF",
        "F-beta of the retrieved set: weighted harmonic mean of set precision and recall",
        "SetF = (1 + beta^2) * P * R / (beta^2 * P + R), P = A / n, R = A / |relevant|; 0 if "
        "no relevant document is retrieved. trec_eval set_F.x is SetF(beta=sqrt(x)) (its x "
        "weighs recall; beta is the usual F-beta, beta=1 gives F1)",
        sb.set_f,
        (
            Param(
                "beta", float, 1.0, "recall is beta times as important as precision", minimum=0.0
            ),
            REL,
            JUDGED_ONLY,
        ),
        trec_name="|set_F",
    ),
    MeasureSpec(
        "RelP",
        "relative precision: precision at k over the best possible precision at k",
        "RelP@k = |{relevant in top k}| / min(k, R); 0 if R = 0",
        rc.relative_precision,
        (REL, JUDGED_ONLY),
        CUTOFF,
        at_required=True,
        trec_name="relative_P_{at}|",
    ),
    MeasureSpec(
        "RprecMult",
        "precision at a multiple of R, R being the number of relevant documents",
        "RprecMult@x = P@c, c = floor(x * R + 0.9) (trec_eval's rule, also in 10.0); 0 if "
        "c = 0; a ranking shorter than c is padded with non-relevant documents",
        rc.precision_at_r_multiple,
        (REL, JUDGED_ONLY),
        Param(
            "mult",
            float,
            None,
            "the multiple of R, e.g. 0.2 or 2 (above 0)",
            minimum=0.0,
            exclusive_minimum=True,
        ),
        at_required=True,
        trec_name="Rprec_mult_{at:.2f}|",
    ),
    MeasureSpec(
        "Utility",
        "linear utility of the retrieved set, from its contingency table",
        "Utility = a*A + b*B + c*C + d*D, A relevant retrieved, B non-relevant retrieved, "
        "C relevant not retrieved, D = num_docs + A - n - R (trec_eval -N num_docs)",
        sb.utility,
        (
            Param("a", float, 1.0, "worth of a relevant retrieved document"),
            Param("b", float, -1.0, "worth of a non-relevant retrieved document"),
            Param("c", float, 0.0, "worth of a relevant document not retrieved"),
            Param("d", float, 0.0, "worth of a non-relevant document not retrieved"),
            Param(
                "num_docs",
                int,
                0,
                "documents in the collection, for D (trec_eval -N)",
                minimum=0,
            ),
            REL,
            JUDGED_ONLY,
        ),
        bounds=(-INF, INF),
        no_rel_value=None,
        trec_name="|utility",
    ),
    MeasureSpec(
        "NumNonRelJudgedRet",
        "the number of retrieved documents judged non-relevant",
        "NumNonRelJudgedRet = |{retrieved with 0 <= grade < rel}|",
        sb.judged_nonrelevant_retrieved,
        (REL, JUDGED_ONLY),
        aggregate="sum",
        bounds=(0.0, INF),
        no_rel_value=None,
        trec_name="|num_nonrel_judged_ret",
    ),
    MeasureSpec(
        "Unjudged",
        "the fraction of the top k documents that are unjudged",
        f"Unjudged@k = |{{unjudged in top k}}| / k ({_UNJUDGED_NOTE}); the divisor stays k "
        "for a shorter ranking (unlike 1 - Judged@k)",
        lambda r, cutoff: rc.unjudged_fraction(r, cutoff),
        (JUDGED_ONLY,),
        CUTOFF,
        at_required=True,
        higher_is_better=False,
        no_rel_value=None,
        trec_name="unj_{at}|",
    ),
    MeasureSpec(
        "YAAP",
        "yet another average precision: a log-odds form of AP (Robertson, 2012)",
        "YAAP = ln((1 + S) / (1 + R - S)), S = sum_{relevant retrieved d} P@rank(d) (R * AP)",
        apv.yaap,
        (REL, JUDGED_ONLY),
        bounds=(-INF, INF),
        trec_name="|yaap",
    ),
    MeasureSpec(
        "infAP",
        "inferred average precision, for pools judged on a random sample (Yilmaz & Aslam)",
        "infAP = (1/R) * sum over relevant retrieved d at 0-based rank j of: 1 if j = 0, else "
        "1/(j+1) + (j/(j+1)) * ((r-1+n+u)/j) * ((r-1+e)/(r-1+n+2e)); r relevant up to d, n "
        "judged non-relevant and u negatively judged (pooled, not sampled) above d, e = 1e-5",
        apv.inferred_ap,
        (REL,),
        aliases=("InfAP",),
        trec_name="|infAP",
    ),
    MeasureSpec(
        "GMBpref",
        "geometric mean of bpref over the queries",
        "exp(mean_q ln(max(bpref_q, 1e-5))); per query the value is bpref",
        lambda r, rel: bp.bpref(r, rel),
        (REL,),
        aggregate="gmean",
        trec_name="|gm_bpref",
    ),
    MeasureSpec(
        "11ptAvg",
        "interpolated precision averaged over recall levels (11-point average)",
        "11ptAvg = (1/|levels|) * sum_{x in levels} IPrec@x, added from the highest level "
        "down (trec_eval 11pt_avg); an empty ranking scores 0 (trec_eval -J: NaN)",
        lambda r, rel, rounding, levels: apv.eleven_point_average(r, rel, rounding, levels),
        (REL, JUDGED_ONLY, ROUNDING, LEVELS),
        trec_name="|11pt_avg",
    ),
    MeasureSpec(
        "BinG",
        "binary G: relevant documents discounted by the non-relevant ones above them",
        "BinG = (1/R) * sum_{relevant retrieved d} 1 / log2(2 + |{non-relevant above d}|)",
        gm.binary_g,
        (REL, JUDGED_ONLY),
        trec_name="|binG",
    ),
    MeasureSpec(
        "G",
        "normalised gain G, between nDCG and AP (trec_eval's experimental G)",
        "G = [sum_{ranks i, gain_i != 0} gain_i / log2(2 + cost(i) - S(i))] / sum_j ig_j, "
        "S(i) gain of ranks 1..i, cost(i) = sum_{j <= i} max(ig_j, 1), ig the ideal gains; "
        "0 if the ideal sum is 0",
        gm.g_measure,
        (GAINS, IDEAL),
        trec_name="|G",
    ),
    MeasureSpec(
        "nDCGRel",
        "nDCG averaged over the relevant documents (trec_eval's experimental ndcg_rel)",
        "nDCGRel = (1/P) * [sum_{retrieved d, gain > 0} DCG(r_d) / IDCG(min(r_d, P)) + (P - "
        "m) * DCG(n) / IDCG(P)], P positive ideal gains, m the retrieved d; 0 if not positive",
        gm.ndcg_rel,
        (GAINS, IDEAL),
        trec_name="|ndcg_rel",
    ),
    MeasureSpec(
        "RnDCG",
        "nDCG averaged where the ideal gain changes (trec_eval's experimental Rndcg)",
        "RnDCG = mean of DCG(min(b, n)) / IDCG(b) over the ideal positions b after which the "
        "ideal gain drops (the last positive one included), plus DCG(n) / IDCG(P) if n > P + "
        "1; 0 if R = 0 at rel, and 0 where trec_eval divides 0 by 0 (no such position)",
        gm.r_ndcg,
        (GAINS, REL, IDEAL),
        trec_name="|Rndcg",
    ),
    MeasureSpec(
        "DCG",
        "discounted cumulative gain (trec_eval dcg: linear gain, or custom gains)",
        "DCG@k = sum_{i <= k} gain(rel_i) / log2(i + 1), gain = the grade unless `gains` "
        "maps it (2^gain - 1 with dcg='exp-log2'); unjudged documents gain 0",
        dcg.dcg,
        (GAINS, DCG_FORM, JUDGED_ONLY),
        CUTOFF,
        bounds=(0.0, INF),
        trec_name="|dcg",
    ),
    MeasureSpec(
        "IDCG",
        "DCG of the ideal ranking (trec_eval ideal_dcg)",
        "IDCG@k = DCG@k of every judged document of the query's qrels, retrieved or not, by "
        "decreasing gain, up to the first gain <= 0",
        dcg.ideal_dcg,
        (GAINS, DCG_FORM, IDEAL),
        CUTOFF,
        bounds=(0.0, INF),
        trec_name="|ideal_dcg",
    ),
    MeasureSpec(
        "RBP",
        "rank-biased precision: the expected gain per document read by a user with "
        "persistence p (Moffat & Zobel, 2008)",
        "RBP = (1 - p) * sum_{i >= 0} g_i * p^i over 0-based ranks i; binary gain: g = 1 if "
        "grade >= rel; graded: g = grade / L, L the query's highest judged grade, if L > 1 "
        "(trec_eval 10 rbp, which is RBP(p=0.9,gain='graded')); raw: g = grade if grade >= rel "
        "(ranx's rbp)",
        lambda r, p, rel, gain: rbp.rbp(r, p, rel, gain),
        (
            PERSISTENCE,
            RBP_REL,
            Param(
                "gain", str, "binary", "binary, graded or raw-grade gain", choices=RBP_GAINS
            ),
        ),
    ),
    MeasureSpec(
        "RBPResid",
        "the RBP residual: how much RBP could still gain from unjudged and unretrieved documents",
        f"RBPResid = p^n + (1 - p) * sum_{{unjudged ranks i}} p^i, n retrieved "
        f"({_UNJUDGED_NOTE}); tail='trec': 0 for a query without unjudged retrieved "
        "documents (trec_eval 10 rbp_resid, which is RBPResid(p=0.9,tail='trec'))",
        lambda r, p, tail: rbp.rbp_residual(r, p, tail),
        (
            PERSISTENCE,
            Param(
                "tail",
                str,
                "always",
                "'always': add the unretrieved tail p^n; 'trec': only for a query with an "
                "unjudged retrieved document (trec_eval 10)",
                choices=RESIDUAL_TAILS,
            ),
        ),
        higher_is_better=False,
        no_rel_value=None,
    ),
)
