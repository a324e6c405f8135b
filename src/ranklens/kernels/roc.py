"""Area under the ROC curve of the judged documents (``AUC``), as a pair count."""

from __future__ import annotations

import numpy as np

from ranklens.base.segments import segment_count, segment_sum
from ranklens.base.types import Float64Array
from ranklens.kernels._util import safe_divide
from ranklens.ranking.align import Ranked


def roc_auc(r: Ranked, rel: int) -> Float64Array:
    """Area under the ROC curve of each query's judged documents (see
    :mod:`ranklens.analysis.curves`).

    ``AUC = C / (R * N)``, ``C`` the (relevant, judged non-relevant) pairs ranked in the
    right order, counting 1/2 for a pair where both documents are unretrieved (the
    unretrieved judged documents form one tied group after the ranking): for each relevant
    retrieved document ``d``, ``N - n_d`` pairs are right (``n_d`` judged non-relevant
    documents above it; every other non-relevant document, retrieved below or not retrieved,
    is below it), and ``(R - R_ret) * (N - N_ret) / 2`` half-pairs among the unretrieved.
    Unjudged and negatively judged documents are skipped. That is the trapezoidal area under
    the curve of :func:`ranklens.analysis.curves.roc_curve`. 0 when ``R = 0`` or ``N = 0``.
    """
    hits = r.hits(rel)
    q, _ = r.hit_places(rel)
    nonrel = np.flatnonzero(r.judged & (r.rel < rel))
    # judged non-relevant documents above each relevant one, within its query
    above = np.searchsorted(nonrel, hits) - np.searchsorted(nonrel, r.offsets[:-1][q])
    num_rel = r.num_rel(rel)
    num_nonrel = r.num_nonrel(rel)
    nonrel_ret = segment_count(r.locate(nonrel)[0], r.num_queries)
    right = segment_sum((num_nonrel[q] - above).astype(np.float64), q, r.num_queries)
    right += 0.5 * (num_rel - r.hit_counts(rel)) * (num_nonrel - nonrel_ret)
    return safe_divide(right, num_rel * num_nonrel)
