"""Regression errors between the run's scores and the relevance grades (MSE, RMSE, MAE).

These are not ranking measures: founding document 001 uses them to show why ranking needs
its own measures (a run can have the lower squared error and still put every relevant
document below the non-relevant ones). They compare each judged retrieved document's score
(grade >= 0; unjudged documents and negative judgments are skipped) with its grade.
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from ranklens.base.errors import MeasureError
from ranklens.base.types import Float64Array
from ranklens.kernels.rank_correlation import judged_in_top
from ranklens.ranking.align import Ranked

Error = Literal["mse", "rmse", "mae"]


def score_error(r: Ranked, cutoff: int | None, which: Error) -> Float64Array:
    """Per query, over the judged documents of the top ``cutoff`` with scores ``s`` and
    grades ``g``: ``mse`` mean((s - g)^2), ``rmse`` sqrt(mse), ``mae`` mean(|s - g|); 0 for
    a query without such a document.

    Raises
    ------
    MeasureError
        If the arrays carry no scores (they were not built by :func:`ranklens.ranking.align.align`).
    """
    if r.scores is None:
        raise MeasureError(f"{which.upper()} needs the run's scores, which these arrays lack")
    index = judged_in_top(r, cutoff)
    ids = r.ids[index]
    diff = r.scores[index] - r.rel[index].astype(np.float64)
    weights = np.abs(diff) if which == "mae" else diff * diff
    total = np.bincount(ids, weights=weights, minlength=r.num_queries).astype(np.float64)
    count = np.bincount(ids, minlength=r.num_queries)
    out = np.zeros(r.num_queries, dtype=np.float64)
    np.divide(total, count, out=out, where=count > 0)
    return np.sqrt(out) if which == "rmse" else out
