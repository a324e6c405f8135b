r"""Click measures per query, from a click log, as :class:`~ranklens.Results`.

For query :math:`q` with impressions :math:`I_q`, :math:`c_{i,r}` the click at position
:math:`r` of impression :math:`i`:

- ``CTR``: the share of impressions with at least one click,
  :math:`\frac{1}{|I_q|}\sum_i [\sum_r c_{i,r} > 0]`;
- ``Abandonment``: the share without a click, :math:`1 - \mathrm{CTR}` (lower is better);
- ``Clicks@k``: clicks in the top :math:`k` per impression,
  :math:`\frac{1}{|I_q|}\sum_i \sum_{r \le k} c_{i,r}` (``Clicks``: all positions);
- ``ClickRR``: the reciprocal rank of the first click (0 without a click), averaged over
  impressions.

The aggregate of each is the mean over queries (each query counts once, as the other
measures of ranklens); :attr:`Results.query_counts` holds the impressions.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from ranklens.base.errors import MeasureError
from ranklens.base.types import Float64Array
from ranklens.evaluation.results import Results
from ranklens.measures.base import Measure, MeasureSpec, Param

DEFAULT_CLICK_MEASURES = ("CTR", "Abandonment", "Clicks@1", "Clicks@10", "ClickRR")


def _not_from_qrels(view: Any, **params: Any) -> Float64Array:
    raise MeasureError(
        "click measures are computed from a click log (ranklens.logs.click_measures), not "
        "from qrels and a run"
    )


_CUTOFF = Param("cutoff", int, None, "positions counted", minimum=1)
SPECS = {
    "CTR": MeasureSpec(
        "CTR",
        "share of impressions with a click",
        "mean_i [sum_r c_ir > 0]",
        _not_from_qrels,
        no_rel_value=None,
    ),
    "Abandonment": MeasureSpec(
        "Abandonment",
        "share of impressions without a click",
        "mean_i [sum_r c_ir = 0]",
        _not_from_qrels,
        higher_is_better=False,
        no_rel_value=None,
    ),
    "Clicks": MeasureSpec(
        "Clicks",
        "clicks per impression (in the top k)",
        "mean_i sum_{r<=k} c_ir",
        _not_from_qrels,
        at=_CUTOFF,
        bounds=(0.0, float("inf")),
        no_rel_value=None,
    ),
    "ClickRR": MeasureSpec(
        "ClickRR",
        "reciprocal rank of the first click",
        "mean_i 1 / min{r : c_ir = 1}",
        _not_from_qrels,
        no_rel_value=None,
    ),
}
_NAME = re.compile(r"^(?P<name>[A-Za-z]+)(?:@(?P<k>\d+))?$")


def click_measure(name: str) -> Measure:
    """The click measure called ``name`` (``CTR``, ``Abandonment``, ``Clicks@k``,
    ``ClickRR``).

    >>> click_measure("clicks@5").name
    'Clicks@5'
    """
    m = _NAME.match(name.strip())
    spec = None
    if m:
        spec = next((s for key, s in SPECS.items() if key.lower() == m["name"].lower()), None)
    if spec is None or m is None:
        raise MeasureError(
            f"unknown click measure {name!r}: choose among CTR, Abandonment, Clicks@k, ClickRR"
        )
    if m["k"] is not None:
        if spec.at is None:
            raise MeasureError(f"{spec.name} takes no @k")
        return spec.make(cutoff=int(m["k"]))
    return spec.make()


def click_measures(
    log: Any, measures: Sequence[str] = DEFAULT_CLICK_MEASURES, *, name: str = "clicks"
) -> Results:
    """Click measures per query of a log.

    Parameters
    ----------
    log
        A :class:`~ranklens.logs.ClickLog` or anything :func:`~ranklens.logs.read_log` reads.
    measures
        Names: ``CTR``, ``Abandonment``, ``Clicks@k`` (``Clicks``: all positions), ``ClickRR``.
    name
        The name of the results (as a run's name).

    Examples
    --------
    >>> from ranklens.logs import read_log
    >>> log = read_log({"session_id": [1, 1, 2, 2], "query_id": ["q"] * 4,
    ...                 "doc_id": ["a", "b", "a", "b"], "position": [1, 2, 1, 2],
    ...                 "clicked": [False, True, False, False]})
    >>> res = click_measures(log, ["CTR", "Clicks@1", "ClickRR"])
    >>> res.per_query["q"]
    {'CTR': 0.5, 'Clicks@1': 0.0, 'ClickRR': 0.25}
    """
    from ranklens.logs.read import read_log

    log = read_log(log)
    chosen = [click_measure(m) for m in measures]
    n_q = len(log.queries)
    imp = log.impression_of_rows
    clicked = log.clicked.astype(np.float64)
    positions = log.positions
    per_imp_clicks = np.bincount(imp, weights=clicked, minlength=log.num_impressions)
    impressions = np.bincount(log.query, minlength=n_q).astype(np.float64)
    first = np.full(log.num_impressions, np.inf)
    hit = log.clicked
    np.minimum.at(first, imp[hit], positions[hit].astype(np.float64))
    columns = []
    for measure in chosen:
        kind = measure.spec.name
        if kind == "CTR":
            per_imp = (per_imp_clicks > 0).astype(np.float64)
        elif kind == "Abandonment":
            per_imp = (per_imp_clicks == 0).astype(np.float64)
        elif kind == "Clicks":
            k = measure["cutoff"]
            keep = clicked if k is None else clicked * (positions <= k)
            per_imp = np.asarray(
                np.bincount(imp, weights=keep, minlength=log.num_impressions), dtype=np.float64
            )
        else:
            per_imp = np.where(np.isfinite(first), 1.0 / first, 0.0)
        sums = np.bincount(log.query, weights=per_imp, minlength=n_q)
        columns.append(sums / np.maximum(impressions, 1.0))
    seen = impressions > 0
    values = np.stack(columns, axis=1)[seen] if columns else np.zeros((int(seen.sum()), 0))
    queries = tuple(q for q, s in zip(log.queries, seen.tolist(), strict=True) if s)
    return Results(
        name,
        tuple(chosen),
        queries,
        np.ascontiguousarray(values, dtype=np.float64),
        {"queries": len(queries), "impressions": log.num_impressions},
    )
