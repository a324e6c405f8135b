"""Layer 2, ranking and alignment: a run ranked once by a named tie policy and joined once
with its judgments (:class:`~ranklens.ranking.align.Aligned`), which every measure reads."""
