"""Worked computations: how a measure gets its value on one query, rank by rank.

:func:`explain` returns an :class:`Explanation`: for each rank, the document, its judgment,
the family's terms (gain and discount, precision at the relevant ranks, stop
probabilities, ...) and running sums, the ideal ranking beside it, then the value with its
formula and notes on the conventions in effect. The rows are computed from the arrays the
kernels read, so the ranking, its ties and the value are exactly :func:`ranklens.evaluate`'s.

Explained families: precision/recall/F (``P``, ``R``, ``F1``, ``F``, ``Success``,
``Rprec``), ``AP`` (and ``GMAP``), ``RR``, ``CG``, ``DCG``/``nDCG``/``IDCG``, ``RBP`` (and
``RBPResid``), ``ERR``, ``Bpref`` (and ``GMBpref``) and the diversity measures
``alpha_nDCG``, ``alpha_DCG``, ``ERR_IA`` and ``nERR_IA``.

(The package is called ``explanation``, not ``explain``: a subpackage named like the
function ``ranklens.explain`` would replace it as an attribute of ``ranklens`` once
imported.)

>>> import ranklens
>>> ex = ranklens.explain({"q": {"a": 1, "c": 1}}, {"q": {"a": 3, "b": 2, "c": 1}}, "q", "AP")
>>> ex.column("P@k"), round(ex.value, 4)
([1.0, None, 0.6666666666666666], 0.8333)
"""

from __future__ import annotations

from ranklens.presentation.explanation.api import explain, explain_measures, explainable
from ranklens.presentation.explanation.model import Explanation, Gap, Row

__all__ = ["Explanation", "Gap", "Row", "explain", "explain_measures", "explainable"]
