"""C/W/L user-model measures (Moffat et al.), as ``cwl_eval`` computes them: ``INST(T=...)``,
``INSQ(T=...)``, ``BPM(T=...,K=...)`` and the C/W/L forms of RBP, P@k, RR and AP
(``CWL_RBP``, ``CWL_P@k``, ``CWL_RR``, ``CWL_AP``); kernels in :mod:`ranklens.kernels.cwl`.

Each reports the expected utility per document by default; ``report=`` picks another of
cwl_eval's numbers (``ETU``, ``EC``, ``ETC``, ``EI`` the expected depth) and
``residual=True`` its residual. Documents cost what the evaluator's ``costs=`` say
(``max_cost``, 1 by default, where they say nothing); ir_measures' spellings are accepted:
``max_rel`` / ``min_rel`` for the gain range, ``BPM(T=1.0,max_rel=1)@20`` for the budget K.

>>> from ranklens.measures import parse_measure
>>> str(parse_measure("INST(T=3.0,report='ETU')"))
"INST(T=3.0,report='ETU')"
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ranklens.base.errors import MeasureError
from ranklens.base.types import Float64Array
from ranklens.kernels.options import REPORTS
from ranklens.measures.base import MeasureSpec, Param
from ranklens.measures.catalog import INF
from ranklens.measures.catalog_trec import BoundedParam

if TYPE_CHECKING:
    from ranklens.ranking.align import Ranked

REPORT = Param(
    "report",
    str,
    "EU",
    "which C/W/L number: EU (expected utility per document), ETU (expected total utility), "
    "EC (expected cost per document), ETC (expected total cost), EI (expected depth)",
    choices=REPORTS,
)
RESIDUAL = Param(
    "residual", bool, False, "the residual: unjudged documents at gain 1 minus at gain 0"
)
MAX_GRADE = Param(
    "max_grade", int, 1, "the grade of gain 1 (>= 1): gain = min(grade, max_grade) / max_grade"
)
MAX_N = Param("max_n", int, 1000, "rankings padded or cut to this depth (>= 1; cwl_eval)")
MIN_REL = Param(
    "min_rel",
    int,
    0,
    "ir_measures: the grade of gain 0 (grades below count as it), gain = (min(max(grade, "
    "min_rel), top) - min_rel) / (top - min_rel)",
)
MAX_REL_ALIAS = Param(
    "max_rel", int, None, "ir_measures' name for max_grade (give one or the other)", minimum=1
)
MAX_COST = Param(
    "max_cost",
    float,
    1.0,
    "the cost of a document the evaluator's costs do not price, and of the padding "
    "(cwl_eval's --max_cost)",
    minimum=0.0,
)
MIN_COST = Param(
    "min_cost",
    float,
    1.0,
    "that cost in the best case of a residual (cwl_eval's --min_cost; <= max_cost)",
    minimum=0.0,
)
T = Param("T", float, 1.0, "the gain the user wants (above 0)", minimum=0.0, exclusive_minimum=True)
COMMON = (REPORT, RESIDUAL, MAX_GRADE, MAX_REL_ALIAS, MIN_REL, MAX_N, MAX_COST, MIN_COST)
MAX_REL = Param(
    "max_rel",
    int,
    1,
    "ir_measures' name: the grade of gain 1 (>= 1), gain = min(grade, max_rel) / max_rel",
)
IRM = (REPORT, RESIDUAL, MAX_REL, MIN_REL, MAX_N, MAX_COST, MIN_COST)
K_AT = Param("k", int, None, "the rank cut-off (>= 1)", minimum=1)
VIEW = (
    "W_i = prod_{j<i} C_j / sum_k prod_{j<k} C_j; EU = sum_i W_i g_i, g_i = min(grade, "
    "max_grade) / max_grade over rankings padded to max_n; EC = sum_i W_i c_i with c_i the "
    "document's cost (costs=, else max_cost)"
)


def _top_grade(measure: str, values: dict[str, Any]) -> None:
    """Resolve ``max_rel`` (ir_measures' name) into ``max_grade`` and ``min_rel`` into
    the kernel's ``min_grade``, in place."""
    alias = values.pop("max_rel", None)
    if alias is not None:
        if values.get("max_grade", 1) not in (1, alias):
            raise MeasureError(
                f"{measure}: max_rel={alias} and max_grade={values['max_grade']} disagree; "
                "give one of them"
            )
        values["max_grade"] = alias
    values["min_grade"] = values.pop("min_rel", 0)


def _spec(
    name: str,
    summary: str,
    model: str,
    formula: str,
    params: tuple[Param, ...],
    at: Param | None = None,
    rename: dict[str, str] | None = None,
    common: tuple[Param, ...] = COMMON,
    at_required: bool = True,
) -> MeasureSpec:
    names = rename or {}

    def kernel(r: Ranked, **values: Any) -> Float64Array:
        from ranklens.kernels import cwl  # when first computed: see KernelRef

        fixed = {names.get(k, k): v for k, v in values.items()}
        _top_grade(name, fixed)
        return cwl.cwl_measure(r, model, **fixed)

    return MeasureSpec(
        name,
        summary,
        f"{formula}; {VIEW}",
        kernel,
        params + common,
        at,
        at_required=at is not None and at_required,
        bounds=(0.0, INF),
    )


SPECS: tuple[MeasureSpec, ...] = (
    _spec(
        "INST",
        "INST: an adaptive user who wants T units of gain (Moffat et al. 2015)",
        "INST",
        "C_i = ((i + T + T_i - 1) / (i + T + T_i))^2 (ranks i from 1), T_i = T - sum_{j<=i} g_j",
        (T,),
    ),
    _spec(
        "INSQ",
        "INSQ: INST's user without the adaptation to gain found (Moffat et al. 2012)",
        "INSQ",
        "C_i = ((i + 2T - 1) / (i + 2T))^2 (ranks i from 1)",
        (T,),
    ),
    _spec(
        "BPM",
        "the static Bejewelled Player Model: stop at T gain or K documents (Zhang et al. 2017)",
        "BPM",
        "C_i = 1 while sum_{j<=i} g_j < T and sum_{j<=i} c_j < K, else 0 (c_j the documents' "
        "costs, 1 each by default: then the second is i < K, ranks i from 1)",
        (T,),
        Param(
            "K",
            float,
            10.0,
            "the cost the user will spend (documents, with unit costs); @K as ir_measures' BPM@k",
            minimum=0.0,
        ),
        at_required=False,
    ),
    _spec(
        "CWL_RBP",
        "rank-biased precision as a C/W/L measure (cwl_eval's RBP)",
        "RBP",
        "C_i = theta",
        (
            BoundedParam(
                "theta",
                float,
                0.9,
                "persistence (below 1)",
                minimum=0.0,
                maximum=1.0,
                exclusive_maximum=True,
            ),
        ),
    ),
    _spec(
        "CWL_P",
        "precision at k as a C/W/L measure (cwl_eval's P@k)",
        "P",
        "C_i = 1 for i < k, else 0 (ranks i from 1)",
        (),
        Param("k", int, None, "the number of documents examined", minimum=1),
    ),
    _spec(
        "CWL_RR",
        "reciprocal rank as a C/W/L measure (cwl_eval's RR)",
        "RR",
        "C_i = 1 until the first document with gain > 0, then 0",
        (),
    ),
    _spec(
        "CWL_AP",
        "average precision as a C/W/L measure (cwl_eval's AP)",
        "AP",
        "C_i = S_{i+1} / S_i, S_i = sum_{j>=i} g_j / j (0 once S_{i+1} = 0)",
        (),
    ),
    _spec(
        "SDCG",
        "scaled DCG: DCG@k over the sum of the first k discounts (ir_measures, cwl_eval's NDCG-k)",
        "SDCG",
        "C_i = log2(i + 1) / log2(i + 2) for i < k, else 0 (ranks i from 1): EU = sum_{i<=k} "
        "g_i / log2(i + 1) / sum_{i<=k} 1 / log2(i + 1)",
        (),
        K_AT,
        {"max_rel": "max_grade"},
        IRM,
    ),
    _spec(
        "NERR8",
        "not-but-nearly ERR, equation 8 (Azzopardi et al. 2021), cut at k",
        "NERR8",
        "C_i = 1 - g_i for i < k, else 0 (ranks i from 1)",
        (),
        K_AT,
        {"max_rel": "max_grade"},
        IRM,
    ),
    _spec(
        "NERR9",
        "not-but-nearly ERR, equation 9 (Azzopardi et al. 2021), cut at k",
        "NERR9",
        "C_i = i / (i + 1) (1 - g_i) for i < k, else 0 (ranks i from 1)",
        (),
        K_AT,
        {"max_rel": "max_grade"},
        IRM,
    ),
    _spec(
        "NERR10",
        "not-but-nearly ERR, equation 10 (Azzopardi et al. 2021): RBP-like patience p",
        "NERR10",
        "C_i = p (1 - g_i)",
        (BoundedParam("p", float, 0.9, "patience", minimum=0.0, maximum=1.0),),
        None,
        {"max_rel": "max_grade"},
        IRM,
    ),
    _spec(
        "NERR11",
        "not-but-nearly ERR, equation 11 (Azzopardi et al. 2021): INSQ-like with T",
        "NERR11",
        "C_i = ((i + 2T - 1) / (i + 2T))^2 (1 - g_i) (ranks i from 1)",
        (T,),
        None,
        {"max_rel": "max_grade"},
        IRM,
    ),
)
