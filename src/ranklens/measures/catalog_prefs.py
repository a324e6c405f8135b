"""trec_eval's preference and judgement-group measures, declared for the registry.

The 14 ``prefs_*`` measures (``PrefsSimp``, ``PrefsPair``, ``PrefsAvgJG``, ...,
``NumPrefsPoss``) need preference judgments (trec_eval ``-R prefs`` or ``-R qrels_prefs``);
``APAvgJG``, ``PAvgJG@k`` and ``RprecMultAvgJG@x`` need judgement-group qrels (``-R
qrels_jg``). Their declarations say so in
:attr:`~ranklens.measures.base.MeasureSpec.judgments`; the evaluator reads that file once
(``judgments=PATH``; by default the qrels file itself, read as trec_eval reads it with
``-R qrels_prefs`` / ``-R qrels_jg``) and :func:`~ranklens.ranking.align.align` attaches it
to the ranking. Their kernels (:mod:`ranklens.kernels.preferences`,
:mod:`ranklens.kernels.judgement_groups`) read the same aligned ranking as every other
measure, looking documents up by id in that judgement data.

>>> from ranklens.measures import parse_measure
>>> m = parse_measure("RprecMultAvgJG@0.4")
>>> str(m), m.spec.judgments, value_name(m)
('RprecMultAvgJG@0.4', 'qrels_jg', 'Rprec_mult_avgjg_0.40')
>>> value_name(parse_measure("PrefsAvgJGRnonrelRet"))
'prefs_avgjg_Rnonrel_ret'
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ranklens.base.errors import MeasureError
from ranklens.base.types import Float64Array
from ranklens.measures.base import Measure, MeasureSpec, Param
from ranklens.measures.catalog import INF, JUDGED_ONLY, REL

if TYPE_CHECKING:
    from ranklens.ranking.align import Ranked

_PREFS_NOTE = "(needs preference judgments)"
_JG_NOTE = "(needs judgement-group qrels)"
_COUNTS = (
    "With sums over the query's judgement groups: ful = fulfilled preferences (A ranked "
    "above B, or A retrieved and B not), poss = every preference (both, one or neither "
    "retrieved)"
)
_RET = "_ret: only preferences between two retrieved documents"
_IMP = "_imp: preferences with at least one document retrieved"


def _prefs_kernel(trec: str) -> Any:
    def kernel(view: Ranked) -> Float64Array:
        from ranklens.kernels.preferences import prefs_table  # when computed: see KernelRef

        return prefs_table(view)[trec]

    return kernel


def _jg_kernel(name: str) -> Any:
    def kernel(
        view: Ranked,
        rel: int,
        judged_only: bool,
        cutoff: int = 1,
        mult: float = 1.0,
    ) -> Float64Array:
        from ranklens.kernels.judgement_groups import jg_table  # when computed: see KernelRef

        table = jg_table(
            view, rel_level=rel, judged_only=judged_only, p_cutoffs=(cutoff,), rprec_mults=(mult,)
        )
        if name == "PAvgJG":
            return table[f"P_avgjg_{cutoff}"]
        if name == "RprecMultAvgJG":
            return table["Rprec_mult_avgjg_%3.2f" % mult]  # noqa: UP031 (trec_eval's format)
        return table["map_avgjg"]

    return kernel


def _prefs(
    name: str,
    trec: str,
    summary: str,
    formula: str,
    *,
    summed: bool = False,
) -> MeasureSpec:
    return MeasureSpec(
        name,
        f"{summary} {_PREFS_NOTE}",
        formula,
        _prefs_kernel(trec),
        aggregate="sum" if summed else "mean",
        bounds=(0.0, INF) if summed else (0.0, 1.0),
        no_rel_value=None,
        trec_name=f"|{trec}",
        judgments="prefs",
    )


def _jg(
    name: str,
    summary: str,
    formula: str,
    trec_name: str,
    at: Param | None = None,
    aliases: tuple[str, ...] = (),
) -> MeasureSpec:
    return MeasureSpec(
        name,
        f"{summary} {_JG_NOTE}",
        formula,
        _jg_kernel(name),
        (REL, JUDGED_ONLY),
        at,
        at_required=at is not None,
        aliases=aliases,
        trec_name=trec_name,
        judgments="qrels_jg",
    )


_RNONREL = (
    "prefs_avgjg with each group's non-relevant documents (level 0) padded or cut to R(g), "
    "its documents with level > 0: if R >= N (N non-relevant), ful(g)/poss(g) becomes "
    "(ful + R_ret (R - N)) / (poss + R (R - N)), else the counts are redone keeping the "
    "first R non-relevant documents; a group whose recount is 0/0 makes the query 0 "
    "(trec_eval's code, to the letter)"
)

SPECS: tuple[MeasureSpec, ...] = (
    _prefs(
        "PrefsSimp",
        "prefs_simp",
        "preferences fulfilled over preferences possible",
        f"PrefsSimp = ful / poss; 0 if poss = 0. {_COUNTS}",
    ),
    _prefs(
        "PrefsSimpRet",
        "prefs_simp_ret",
        "PrefsSimp over the preferences between retrieved documents",
        f"PrefsSimpRet = sum(ful_ret) / sum(poss_ret); 0 if that is 0. {_RET}",
    ),
    _prefs(
        "PrefsSimpImp",
        "prefs_simp_imp",
        "PrefsSimp over the preferences with a retrieved document",
        f"PrefsSimpImp = sum(ful_ret + ful_imp) / sum(poss_ret + poss_imp); 0 if that is 0. {_IMP}",
    ),
    _prefs(
        "PrefsPair",
        "prefs_pair",
        "the mean over document pairs of the fraction of judgement groups the ranking agrees with",
        "PrefsPair = mean over pairs {a, b} with C[a][b] + C[b][a] > 0 of C[a][b] / (C[a][b] "
        "+ C[b][a]), a the one ranked first, C[a][b] the groups preferring a to b; a pair "
        "with neither retrieved adds 0",
    ),
    _prefs(
        "PrefsPairRet",
        "prefs_pair_ret",
        "PrefsPair over the pairs of retrieved documents",
        "PrefsPairRet = PrefsPair over the pairs with both documents retrieved",
    ),
    _prefs(
        "PrefsPairImp",
        "prefs_pair_imp",
        "PrefsPair over the pairs with a retrieved document",
        "PrefsPairImp = PrefsPair over the pairs with at least one document retrieved",
    ),
    _prefs(
        "PrefsAvgJG",
        "prefs_avgjg",
        "preferences fulfilled over possible, per judgement group, averaged over the groups",
        "PrefsAvgJG = (1/J) sum_g ful(g) / poss(g) over the query's J groups, a group with "
        "poss(g) = 0 adding 0",
    ),
    _prefs(
        "PrefsAvgJGRet",
        "prefs_avgjg_ret",
        "PrefsAvgJG over the preferences between retrieved documents",
        f"PrefsAvgJGRet = (1/J) sum_g ful_ret(g) / poss_ret(g). {_RET}",
    ),
    _prefs(
        "PrefsAvgJGImp",
        "prefs_avgjg_imp",
        "PrefsAvgJG over the preferences with a retrieved document",
        f"PrefsAvgJGImp = (1/J) sum_g (ful_ret + ful_imp)(g) / (poss_ret + poss_imp)(g). {_IMP}",
    ),
    _prefs(
        "PrefsAvgJGRnonrel",
        "prefs_avgjg_Rnonrel",
        "PrefsAvgJG with as many non-relevant as relevant documents per group",
        f"PrefsAvgJGRnonrel = {_RNONREL}",
    ),
    _prefs(
        "PrefsAvgJGRnonrelRet",
        "prefs_avgjg_Rnonrel_ret",
        "PrefsAvgJGRnonrel over retrieved documents",
        "PrefsAvgJGRnonrelRet = PrefsAvgJGRnonrel with R_ret / N_ret and retrieved documents "
        "only (its R >= N branch multiplies by R(g) in poss, as trec_eval does)",
    ),
    _prefs(
        "NumPrefsPoss",
        "prefs_num_prefs_poss",
        "the number of preferences",
        f"NumPrefsPoss = poss; summed over queries. {_COUNTS}",
        summed=True,
    ),
    _prefs(
        "NumPrefsFul",
        "prefs_num_prefs_ful",
        "the number of preferences the ranking fulfils",
        "NumPrefsFul = ful = sum_g (ful_ret + ful_imp)(g); summed over queries",
        summed=True,
    ),
    _prefs(
        "NumPrefsFulRet",
        "prefs_num_prefs_ful_ret",
        "the number of fulfilled preferences between retrieved documents",
        "NumPrefsFulRet = sum_g ful_ret(g); summed over queries",
        summed=True,
    ),
    _jg(
        "APAvgJG",
        "average precision per judgement group, averaged over the groups",
        "APAvgJG = (1/J) sum_g AP_g over the query's J groups, AP_g = (1/R_g) sum over ranks "
        "i relevant in g of rsf_g(i) / i (0 if none is retrieved), R_g = g's judgments >= rel",
        "|map_avgjg",
        aliases=("MAPAvgJG",),
    ),
    _jg(
        "PAvgJG",
        "precision at k per judgement group, averaged over the groups",
        "PAvgJG@k = (1/J) sum_g rsf_g(k) / k, rsf_g(k) = ranks <= k relevant in g (a shorter "
        "ranking is padded with non-relevant documents)",
        "P_avgjg_{at}|",
        Param("cutoff", int, None, "only the top k documents count (k >= 1)", minimum=1),
    ),
    _jg(
        "RprecMultAvgJG",
        "precision at a multiple of R per judgement group, averaged over the groups",
        "RprecMultAvgJG@x = (1/J) sum_g P_g(c), c = floor(x * R_g + 0.9): rsf_g(c) / c if "
        "c <= n retrieved, RR_g / c if c > n (RR_g relevant retrieved), 0 if c = 0",
        "Rprec_mult_avgjg_{at:.2f}|",
        Param(
            "mult",
            float,
            None,
            "the multiple of R, e.g. 0.2 or 2 (above 0)",
            minimum=0.0,
            exclusive_minimum=True,
        ),
    ),
)


def value_name(measure: Measure) -> str:
    """The key of ``measure``'s value in :func:`ranklens.kernels.preferences.evaluate_prefs`' or
    :func:`ranklens.kernels.judgement_groups.evaluate_jg`'s result (trec_eval's value name)."""
    spec = measure.spec
    if spec.name == "PAvgJG":
        return f"P_avgjg_{measure['cutoff']}"
    if spec.name == "RprecMultAvgJG":
        return "Rprec_mult_avgjg_%3.2f" % measure["mult"]  # noqa: UP031 (trec_eval's format)
    with_at, _, without_at = (spec.trec_name or "|").partition("|")
    if spec.judgments == "qrels" or not without_at or with_at:
        raise MeasureError(f"{measure.name} is not a preference or judgement-group measure")
    return without_at
