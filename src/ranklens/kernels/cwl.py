"""C/W/L user-model measures (Moffat et al.), as ``cwl_eval`` computes them.

A user model is a continuation vector ``C_i`` (the probability of going on from rank i to
i + 1). From it, over rankings padded (or cut) to ``n`` ranks (``cwl_eval``'s ``max_n``,
1000): the weights ``W_i = prod_{j<i} C_j / sum_k prod_{j<k} C_j``, the stopping
probabilities ``L_i = prod_{j<i} C_j (1 - C_i)``, and five numbers per query:

* ``EU``, expected utility per document: ``sum_i W_i g_i``;
* ``ETU``, expected total utility: ``sum_i L_i sum_{j<=i} g_j``;
* ``EC``, expected cost per document: ``sum_i W_i c_i``; ``ETC``, expected total cost;
* ``EI``, expected depth: ``1 / W_1``.

Gains are grades mapped to [0, 1] (``(min(max(grade, min_grade), max_grade) - min_grade) /
(max_grade - min_grade)``, negative judgments as grade 0; unjudged 0). A document costs what
the evaluator's costs say (:mod:`ranklens.ranking.costs`), ``max_cost`` where they say
nothing (1 by default). The residual of a number is its value when unjudged documents (and
the padding) have gain 1 and unpriced ones cost ``min_cost``, minus its value when they
have gain 0 and cost ``max_cost``, as ``cwl_eval`` computes it.

The continuation vectors (``i`` from 0, ``G_i = sum_{j<=i} g_j``, ``K_i = sum_{j<=i} c_j``
the cumulative cost, ``i + 1`` with unit costs):

* RBP: ``C_i = theta``; P@k: 1 for ``i < k - 1``, then 0; RR: 1 until the first ``g > 0``;
* INST: ``C_i = ((i + T + T_i) / (i + 1 + T + T_i))^2``, ``T_i = T - G_i``;
* INSQ: ``C_i = ((i + 2T) / (i + 1 + 2T))^2``;
* BPM (static): 1 while ``G_i < T`` and ``K_i < K``, then 0;
* AP: ``C_i = S_{i+1} / S_i`` (0 if ``S_{i+1} = 0``), ``S_i = sum_{j>=i} g_j / (j + 1)``;
* SDCG@k (cwl_eval's NDCG-k): ``C_i = log(r + 1) / log(r + 2)`` for ``r = i + 1 < k``;
* NERR8@k: ``1 - g_i``, NERR9@k: ``r / (r + 1) (1 - g_i)`` (both 0 from ``r = k``),
  NERR10: ``p (1 - g_i)``, NERR11: ``((r + 2T - 1) / (r + 2T))^2 (1 - g_i)`` (Azzopardi et al.
  2021).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ranklens.base.errors import MeasureError
from ranklens.base.types import Float64Array
from ranklens.kernels.options import REPORTS

if TYPE_CHECKING:
    from ranklens.ranking.align import Ranked


def gain_matrix(
    r: Ranked, max_grade: int, n: int, unjudged: float, min_grade: int = 0
) -> Float64Array:
    """``(nq, n)`` gains: judged grades mapped to [0, 1] between ``min_grade`` and
    ``max_grade``, ``unjudged`` for unjudged documents and for the padding beyond each
    ranking."""
    nq = len(r.offsets) - 1
    counts = np.diff(r.offsets)
    rank = np.arange(len(r.rel), dtype=np.int64) - np.repeat(r.offsets[:-1], counts)
    query = np.repeat(np.arange(nq, dtype=np.int64), counts)
    keep = rank < n
    rel = r.rel[keep]
    grade = np.clip(np.maximum(rel, 0), min_grade, max_grade)  # negative judgments: grade 0
    gain = (grade - min_grade) / float(max_grade - min_grade)
    gain = np.where(rel == -1, unjudged, gain)
    out = np.full((nq, n), unjudged, dtype=np.float64)
    out[query[keep], rank[keep]] = gain
    return out


def cost_matrix(r: Ranked, n: int, unknown: float) -> Float64Array:
    """``(nq, n)`` costs: each ranked document's cost from the evaluator's costs
    (:attr:`ranklens.ranking.judgments.Judgments.costs`), ``unknown`` where it has none and
    for the padding beyond each ranking."""
    source = r.source
    costs = None if source is None or source.judgments is None else source.judgments.costs
    if source is None or costs is None:
        return np.full((len(r.offsets) - 1, n), unknown, dtype=np.float64)
    priced: Float64Array = r.derived(("cwl_costs", n), lambda: _priced(r, n))
    out: Float64Array = np.where(np.isnan(priced), unknown, priced)
    return out


def _priced(r: Ranked, n: int) -> Float64Array:
    """The costs of :func:`cost_matrix`, NaN where unknown (looked up once per ranking)."""
    source = r.source
    costs = None if source is None or source.judgments is None else source.judgments.costs
    out: Float64Array = np.full((len(r.offsets) - 1, n), np.nan, dtype=np.float64)
    if source is None or costs is None:
        return out
    counts = np.diff(r.offsets)
    for i, window in enumerate(r.windows(source.ties)):
        if window.shape[0] != counts[i]:
            raise MeasureError(
                f"C/W/L costs: query {r.qids[i]!r} ranks {window.shape[0]} documents by id but "
                f"{counts[i]} in the aligned ranking"
            )
        found = costs.lookup(r.qids[i], window[:n].tolist())
        out[i, : found.shape[0]] = found
    return out


def continuation(
    model: str, g: Float64Array, params: dict[str, float], cost: Float64Array | None = None
) -> Float64Array:
    """The ``(nq, n)`` continuation probabilities of ``model`` given the gains ``g`` (and
    the costs ``cost``, 1 per document if ``None``: only BPM's budget reads them)."""
    nq, n = g.shape
    i = np.arange(n, dtype=np.float64)[None, :]
    if model == "RBP":
        full: Float64Array = np.full((nq, n), params["theta"], dtype=np.float64)
        return full
    if model == "P":
        k = int(params["k"])
        first: Float64Array = np.broadcast_to((i < k - 1).astype(np.float64), (nq, n)).copy()
        return first
    cum = np.cumsum(g, axis=1)
    if model == "RR":
        before = np.cumsum(g > 0, axis=1) == 0  # no gain up to and including i
        stops: Float64Array = before.astype(np.float64)
        return stops
    if model == "INST":
        t = params["T"]
        ti = t - cum
        c: Float64Array = (((i + 1.0) + t + ti - 1.0) / ((i + 1.0) + t + ti)) ** 2.0
        return c
    if model == "INSQ":
        t = params["T"]
        return np.broadcast_to(((i + 2.0 * t) / (i + 1.0 + 2.0 * t)) ** 2.0, (nq, n)).copy()
    if model == "BPM":
        spent = i + 1.0 if cost is None else np.cumsum(cost, axis=1)
        ok = (cum < params["T"]) & (spent < params["K"])
        # cwl_eval continues while both hold from the top: the first failure stops for good
        return (np.cumprod(ok, axis=1) > 0).astype(np.float64)
    if model == "AP":
        rii = g / (i + 1.0)
        suffix = np.cumsum(rii[:, ::-1], axis=1)[:, ::-1]
        nxt = np.concatenate((suffix[:, 1:], np.zeros((nq, 1))), axis=1)
        safe = np.where(suffix > 0, suffix, 1.0)
        c = np.where(nxt > 0.0, nxt / safe, 0.0)
        c[:, -1] = 0.0
        return c
    rank = i + 1.0  # from 1
    if model == "SDCG":
        k = int(params["k"])
        disc = np.log(rank + 1.0) / np.log(rank + 2.0)
        return np.broadcast_to(np.where(rank < k, disc, 0.0), (nq, n)).copy()
    within = rank < params.get("k", np.inf)
    if model == "NERR8":
        return np.where(within, 1.0 - g, 0.0)
    if model == "NERR9":
        return np.where(within, rank / (rank + 1.0) * (1.0 - g), 0.0)
    if model == "NERR10":
        return params["p"] * (1.0 - g)
    if model == "NERR11":
        t = params["T"]
        return ((rank + 2.0 * t - 1.0) / (rank + 2.0 * t)) ** 2.0 * (1.0 - g)
    raise MeasureError(f"unknown C/W/L model {model!r}")


def _dot(spec: str, a: Float64Array, b: Float64Array) -> Float64Array:
    out: Float64Array = np.einsum(spec, a, b)
    return out


def _numbers(
    model: str, g: Float64Array, cost: Float64Array, params: dict[str, float], report: str
) -> Float64Array:
    nq = g.shape[0]
    c = continuation(model, g, params, cost)
    prod = np.concatenate((np.ones((nq, 1)), np.cumprod(c[:, :-1], axis=1)), axis=1)
    total = prod.sum(axis=1)
    if report == "EI":
        out: Float64Array = total
        return out
    w = prod / total[:, None]
    if report == "EU":
        return _dot("qi,qi->q", w, g)
    if report == "EC":
        return _dot("qi,qi->q", w, cost)
    stop = prod * (1.0 - c)
    if report == "ETU":
        return _dot("qi,qi->q", stop, np.cumsum(g, axis=1))
    if report == "ETC":
        return _dot("qi,qi->q", stop, np.cumsum(cost, axis=1))
    raise MeasureError(f"report must be one of {list(REPORTS)}, not {report!r}")


def cwl_measure(
    r: Ranked,
    model: str,
    report: str = "EU",
    residual: bool = False,
    max_grade: int = 1,
    max_n: int = 1000,
    min_grade: int = 0,
    max_cost: float = 1.0,
    min_cost: float = 1.0,
    **params: float,
) -> Float64Array:
    """One C/W/L number per query (``report``), or its residual.

    Gains map grades ``min_grade..max_grade`` to [0, 1]; a document without a cost (see
    :func:`cost_matrix`) costs ``max_cost``, and ``min_cost`` in the best case of a residual.

    >>> from ranklens.ranking.align import Ranked, GradeCounts
    >>> import numpy as np
    >>> rel = np.array([0, 1, 1])
    >>> r = Ranked(("q",), np.array([0, 3]), rel, GradeCounts.of(np.zeros(3, np.int64), rel, 1))
    >>> float(cwl_measure(r, "RR")[0]), float(cwl_measure(r, "P", k=2)[0])
    (0.5, 0.5)
    """
    if max_grade < 1 or max_n < 1:
        raise MeasureError(f"C/W/L: max_grade and max_n must be >= 1, got {max_grade}, {max_n}")
    if min_grade >= max_grade:
        raise MeasureError(
            f"C/W/L: min_rel must be below the grade of gain 1, got {min_grade} >= {max_grade}"
        )
    if not 0.0 <= min_cost <= max_cost:
        raise MeasureError(f"C/W/L: need 0 <= min_cost <= max_cost, got {min_cost}, {max_cost}")
    gains = gain_matrix(r, max_grade, max_n, 0.0, min_grade)
    worst = _numbers(model, gains, cost_matrix(r, max_n, max_cost), params, report)
    if not residual:
        return worst
    gains = gain_matrix(r, max_grade, max_n, 1.0, min_grade)
    best = _numbers(model, gains, cost_matrix(r, max_n, min_cost), params, report)
    out: Float64Array = best - worst
    return out
