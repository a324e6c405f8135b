"""What trec_eval's names and its measure table share: the ``official`` measures and the
``-l`` relevance level applied to a measure."""

from __future__ import annotations

from ranklens.measures.base import Measure

OFFICIAL = (
    "num_q",
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "map",
    "gm_map",
    "Rprec",
    "bpref",
    "recip_rank",
    "iprec_at_recall",
    "P",
)

def with_relevance_level(measure: Measure, level: int) -> Measure:
    """``measure`` under trec_eval's ``-l level``: the relevance threshold of the measures
    that have one (not of nDCG, whose gains are the grades, nor of counts like NumRet)."""
    from ranklens.measures.catalog import REL

    if level == 1 or REL not in measure.spec.params:
        return measure
    return measure.spec.make(**{**measure.params, "rel": level})
