r"""The inferred measures of stratified sampled judgments (NIST sample_eval.pl's estimators),
declared for the registry.

``xinfAP``, ``infNDCG``, ``infP@k``, ``infIPrec@x``, ``infNumRel`` and ``infNumRelRet``
read stratified qrels (``topic 0 docno stratum judgment``, ``-1`` for pooled but not
sampled): their declarations say ``judgments="strata"``, the evaluator reads the file once
(the qrels, or ``judgments=PATH``) and their kernels (:mod:`ranklens.kernels.sampled`, the
arithmetic of ``ranklens sample-eval``) compute per query exactly what ``sample-eval -q``
prints. trec_eval's own ``infAP`` (inferred AP from ordinary qrels with ``-1`` for
unjudged pooled documents) is another measure; sample_eval's ``infAP`` line is ``xinfAP``.

Per query, for a topic with strata :math:`s` (:math:`N_s` pooled, :math:`n_s` sampled,
:math:`r_s` relevant), the run cut to its first 1000 documents ranked by score descending
then document id descending, and :math:`E(k) = \sum_s d_s(k) (\rho_s(k) + 10^{-5}) /
(\sigma_s(k) + 3 \cdot 10^{-5})` the estimated relevant documents in the top :math:`k`
(:math:`d_s(k)` pooled documents of stratum :math:`s` in the top :math:`k`, of which
:math:`\sigma_s(k)` sampled and :math:`\rho_s(k)` relevant):

* ``infNumRel`` :math:`= \hat R = \sum_s r_s N_s / n_s`; ``infNumRelRet`` :math:`= E(n)`;
* ``infP@k`` :math:`= E(\min(k, n)) / k`;
* ``xinfAP`` :math:`= \sum_s \frac{r_s N_s / n_s}{\hat R} \cdot \frac{1}{r_s} \sum_{i \in
  \mathrm{rel}_s} \big(\frac{1}{k_i} + \frac{k_i - 1}{k_i} \hat p_s(k_i)\big)`, the inner
  sum over the relevant sampled documents of stratum :math:`s` (retrieved at rank
  :math:`k_i`; not retrieved: 0) and :math:`\hat p` the smoothed precision of the pooled
  documents above;
* ``infNDCG`` :math:`= d \sum_s \frac{d_s}{d} \frac{\mathrm{DCG}_s}{\sigma_s} /
  \mathrm{IDCG}`, :math:`\mathrm{DCG}_s` the DCG (gain = judgment, discount
  :math:`\log_2(k + 1)`) of stratum :math:`s`'s sampled retrieved documents,
  :math:`\mathrm{IDCG}` the ideal DCG of the estimated number of documents of each grade;
* ``infIPrec@x`` for the 11 levels :math:`x \in \{0, 0.1, \ldots, 1\}`: interpolated
  precision from :math:`E(k)/k` at recall :math:`x \hat R`, as sample_eval computes it.

A topic whose sample holds no relevant document has xinfAP, infNDCG and infNumRel 0, but
its infP, infIPrec and infNumRelRet are not 0: the smoothing estimates a stratum with
nothing sampled above a rank at 1/3 relevant, as sample_eval does.

Aggregation: the means and sums over the evaluated queries, as for every measure. With a
run that has every topic of the qrels, these are sample_eval's ``all`` lines; see
``docs/sample-eval.md`` for a run that misses topics.

>>> from ranklens.measures import parse_measure
>>> m = parse_measure("infIPrec@0.5")
>>> str(m), m.spec.judgments, m.spec.aggregate
('infIPrec@0.5', 'strata', 'mean')
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ranklens.base.errors import MeasureError
from ranklens.base.types import Float64Array
from ranklens.measures.base import MeasureSpec, Param

if TYPE_CHECKING:
    from ranklens.ranking.align import Ranked

_NOTE = "(needs stratified sampled qrels, as sample_eval)"
_LEVELS = tuple(i / 10 for i in range(11))
INF = float("inf")


def _kernel(pick: str) -> Any:
    def kernel(
        view: Ranked, cutoff: int | None = None, recall: float | None = None
    ) -> Float64Array:
        at: float | None = None
        if pick == "precision":
            at = cutoff
        elif pick == "iprec":
            if recall not in _LEVELS:
                raise MeasureError(
                    f"infIPrec@{recall!r}: sample_eval interpolates at the 11 recall levels "
                    "0, 0.1, ..., 1 only; use one of them"
                )
            at = recall
        from ranklens.kernels.sampled import column, sampled_table  # see KernelRef

        return column(sampled_table(view), pick, at)

    return kernel


def _spec(
    name: str,
    pick: str,
    summary: str,
    formula: str,
    *,
    at: Param | None = None,
    summed: bool = False,
    aliases: tuple[str, ...] = (),
    bounds: tuple[float, float] = (0.0, 1.0),
    smoothed: bool = False,
) -> MeasureSpec:
    """A sampled measure's declaration; ``smoothed``: its estimate is smoothed, so a topic
    whose sample holds no relevant document does not score 0 (no ``no_rel_value``)."""
    return MeasureSpec(
        name,
        f"{summary} {_NOTE}",
        formula,
        _kernel(pick),
        (),
        at,
        at_required=at is not None,
        aliases=aliases,
        aggregate="sum" if summed else "mean",
        bounds=(0.0, INF) if summed else bounds,
        no_rel_value=None if smoothed else 0.0,
        judgments="strata",
    )


_ESTIMATE = (
    "E(k) = sum over strata s of d_s(k) (rho_s(k) + 1e-5) / (sigma_s(k) + 3e-5): the "
    "estimated relevant documents in the top k (d_s pooled documents of stratum s there, "
    "sigma_s of them sampled, rho_s relevant); rankings cut to 1000 documents"
)

SPECS: tuple[MeasureSpec, ...] = (
    _spec(
        "xinfAP",
        "ap",
        "extended inferred average precision from stratified samples (sample_eval's infAP; "
        "Yilmaz, Kanoulas and Aslam 2008)",
        "xinfAP = sum_s (r_s N_s / n_s) / R_hat * mean over the relevant sampled documents "
        "of stratum s of (1/k + ((k-1)/k) p_hat(k)), k the document's rank (0 if not "
        "retrieved), p_hat(k) = sum_s' (d_s'/d) (rho_s' + 1e-5) / (sigma_s' + 3e-5) over the "
        "d pooled documents above it; R_hat = sum_s r_s N_s / n_s (N_s pooled, n_s sampled, "
        "r_s relevant in stratum s); 0 if R_hat = 0",
    ),
    _spec(
        "infNDCG",
        "ndcg",
        "inferred nDCG from stratified samples (sample_eval's infNDCG)",
        "infNDCG = d * sum_s (d_s / d) DCG_s / sigma_s / IDCG: DCG_s the DCG (gain = "
        "judgment, discount log2(k + 1)) of stratum s's sampled retrieved documents, d_s its "
        "pooled retrieved documents (d in all), sigma_s its sampled retrieved ones; IDCG the "
        "ideal DCG of round(sum_s count_s(g) N_s / n_s) documents of each grade g, each grade "
        "stopped at rank 1000; 0 if IDCG = 0",
        bounds=(0.0, INF),
    ),
    _spec(
        "infP",
        "precision",
        "inferred precision at k from stratified samples (sample_eval's iP10, iP50, iP1000)",
        f"infP@k = E(min(k, n)) / k, n the documents retrieved (at most 1000). {_ESTIMATE}",
        at=Param("cutoff", int, None, "the rank k (k >= 1)", minimum=1),
        aliases=("iP",),
        smoothed=True,
    ),
    _spec(
        "infIPrec",
        "iprec",
        "inferred interpolated precision at a recall level from stratified samples "
        "(sample_eval's iprec@recX)",
        "infIPrec@x = the best E(k)/k at or below the rank where E(k) first reaches x R_hat, "
        "walking the ranks from the last and giving one level per rank, as sample_eval; 0 "
        f"if x R_hat > E(n); x one of 0, 0.1, ..., 1. {_ESTIMATE}",
        at=Param(
            "recall", float, None, "the recall level: 0, 0.1, ..., 1", minimum=0.0, maximum=1.0
        ),
        smoothed=True,
    ),
    _spec(
        "infNumRel",
        "num_rel",
        "the estimated number of relevant documents from stratified samples "
        "(sample_eval's inum_rel)",
        "infNumRel = R_hat = sum over strata s of r_s N_s / n_s (N_s pooled, n_s sampled, "
        "r_s relevant documents of stratum s; strata without a sample count 0)",
        summed=True,
        aliases=("inum_rel",),
    ),
    _spec(
        "infNumRelRet",
        "num_rel_ret",
        "the estimated number of relevant documents retrieved from stratified samples "
        "(sample_eval's inum_rel_ret)",
        f"infNumRelRet = E(n), n the documents retrieved (at most 1000). {_ESTIMATE}",
        summed=True,
        smoothed=True,
        aliases=("inum_rel_ret",),
    ),
)
