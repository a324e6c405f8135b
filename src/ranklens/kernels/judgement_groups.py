"""trec_eval's judgement-group measures: ``-R qrels_jg``, ``-m qrels_jg``.

A ``qrels_jg`` file (:func:`read_qrels_jg`) is a qrels file whose second column names a
*judgement group* (one assessor's, or one user's, set of judgments)::

    qid  jg  docno  rel

Blank lines and lines whose first non-blank character is ``#`` are skipped; other lines
need exactly 4 fields and an integer ``rel`` (``2`` or ``2.0``); a docno twice in one
(qid, jg) is an error, as in trec_eval (``get_qrels_jg.c``).

Measures
--------
Each group g of a query is evaluated on its own, exactly like an ordinary qrels topic
(``form_res_rels_jg.c``), and the query's value is the mean over its J groups (summed in
``strcmp`` order of the group ids, then divided once; a single group is not divided).
For the ranking (score descending, ties by docno **descending**, cut to ``depth``), let
``rel_g(i)`` be the relevance of rank i (1-based) in g: its qrels value, -1 if g does not
judge the document, -2 if g's value is negative; with ``judged_only`` (``-J``) documents with
``rel_g < 0`` are removed first. With threshold l (``-l``, ``rel_level``), a rank is
relevant iff ``rel_g(i) >= l``; ``R_g`` counts g's judgments with value >= max(l, 0),
``rsf_g(k)`` the relevant ranks among the first ``min(k, n)`` (n retrieved), and
``RR_g`` the retrieved documents with ``rel_g >= 0`` and ``>= l``.

* ``map_avgjg`` = (1/J) sum_g AP_g, ``AP_g = (sum over relevant ranks i of rsf_g(i)/i) / R_g``
  (0 when no relevant document is retrieved).
* ``P_avgjg_k`` = (1/J) sum_g rsf_g(k) / k, for each cutoff k (default
  5, 10, 15, 20, 30, 100, 200, 500, 1000).
* ``Rprec_mult_avgjg_x`` = (1/J) sum_g P_g(c), ``c = (long)(x R_g + 0.9)``, for each
  multiple x (default 0.2, 0.4, ..., 2.0): ``RR_g / c`` if c > n, ``rsf_g(c) / c`` if
  1 <= c <= n, 0 if c = 0.

The summary (:func:`summarize_jg`) is the plain mean over evaluated queries.

Which queries
-------------
As for preferences (see :mod:`ranklens.kernels.preferences`): the qrels_jg queries in ``strcmp``
order; with trec_eval 10's ``-c`` (``queries="qrels"``, the default) a query missing from
the run is evaluated against an unjudged one-document dummy ranking, which scores 0 like an
empty ranking. The output is the same in trec_eval 9.0.8.

Performance: numpy per judgement group, with Python loops over queries and groups; fine
for judgement-group files, which hold few queries and groups.

Examples
--------
>>> from ranklens import Run
>>> qrels = QrelsJG.from_records([("q1", "a", "d1", 1), ("q1", "b", "d2", 1)])
>>> run = Run.from_dict({"q1": {"d1": 0.9, "d2": 0.5}})
>>> values = evaluate_jg(qrels, run, p_cutoffs=[1, 2], rprec_mults=[1.0])["q1"]
>>> values["map_avgjg"], values["P_avgjg_1"], values["Rprec_mult_avgjg_1.00"]
(0.75, 0.5, 0.5)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import pairwise
from typing import Final

import numpy as np

from ranklens.base.errors import MeasureError
from ranklens.base.types import Float64Array, Int64Array, QueryPolicy
from ranklens.data.judgement_groups import QrelsJG
from ranklens.data.run import Run
from ranklens.kernels.judged import per_query_dicts, rank_for_judgments
from ranklens.kernels.preferences import c_divide, sequential_sum, summarize
from ranklens.ranking.align import Ranked
from ranklens.ranking.judgments import Judgments

__all__ = [
    "DEFAULT_P_CUTOFFS",
    "DEFAULT_RPREC_MULTS",
    "evaluate_jg",
    "jg_table",
    "jg_value_names",
    "jg_values",
    "summarize_jg",
]

DEFAULT_P_CUTOFFS: Final[tuple[int, ...]] = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
"""trec_eval's default ``P_avgjg`` cutoffs."""

DEFAULT_RPREC_MULTS: Final[tuple[float, ...]] = (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)
"""trec_eval's default ``Rprec_mult_avgjg`` multiples of R."""


def _cutoffs(p_cutoffs: Sequence[int]) -> list[int]:
    values = sorted(int(c) for c in p_cutoffs)
    if not values or values[0] <= 0 or any(x != int(x) for x in p_cutoffs):
        raise MeasureError(f"P_avgjg cutoffs must be positive integers, not {list(p_cutoffs)}")
    if len(set(values)) != len(values):
        raise MeasureError(f"P_avgjg cutoffs must not repeat, not {list(p_cutoffs)}")
    return values


def _mults(rprec_mults: Sequence[float]) -> list[float]:
    values = sorted(float(x) for x in rprec_mults)
    if not values or len(set(values)) != len(values):
        raise MeasureError(
            f"Rprec_mult_avgjg needs distinct multiples of R, not {list(rprec_mults)}"
        )
    return values


def jg_value_names(
    p_cutoffs: Sequence[int] = DEFAULT_P_CUTOFFS,
    rprec_mults: Sequence[float] = DEFAULT_RPREC_MULTS,
) -> list[str]:
    """The printed value names, in trec_eval's order: ``map_avgjg``, ``P_avgjg_<k>`` and
    ``Rprec_mult_avgjg_<x:3.2f>`` (parameters sorted, as trec_eval sorts them).

    Examples
    --------
    >>> jg_value_names([10, 5], [0.5])
    ['map_avgjg', 'P_avgjg_5', 'P_avgjg_10', 'Rprec_mult_avgjg_0.50']
    """
    return [
        "map_avgjg",
        *(f"P_avgjg_{k}" for k in _cutoffs(p_cutoffs)),
        *("Rprec_mult_avgjg_%3.2f" % x for x in _mults(rprec_mults)),  # noqa: UP031
    ]


def _group_values(
    rel: Int64Array,
    num_rel: int,
    num_rel_ret: int,
    level: int,
    cutoffs: list[int],
    mults: list[float],
) -> tuple[float, list[float], list[float]]:
    """AP, P at each cutoff and P at each multiple of R for one judgement group."""
    relevant = rel >= level
    n = rel.shape[0]
    found = np.cumsum(relevant, dtype=np.int64)
    total = int(found[-1]) if n else 0
    positions = np.flatnonzero(relevant)
    ap = 0.0
    if positions.shape[0]:
        steps = np.arange(1, positions.shape[0] + 1, dtype=np.int64) / (positions + 1)
        ap = c_divide(sequential_sum(steps), num_rel)

    def rsf(k: int) -> int:
        return int(found[k - 1]) if k > 0 else 0

    precision = [rsf(min(k, n)) / k for k in cutoffs]
    rprec: list[float] = []
    for x in mults:
        cut = int(x * num_rel + 0.9)
        if cut > n:
            rprec.append(num_rel_ret / cut)
        elif cut >= 1:
            # trec_eval walks up from rank n, starting from num_rel_ret and stopping at 0
            so_far = num_rel_ret - (total - rsf(cut))
            rprec.append(so_far / cut if so_far > 0 else 0.0)
        else:
            rprec.append(0.0)
    return ap, precision, rprec


def jg_values(
    qrels_jg: QrelsJG,
    qids: Sequence[str],
    windows: Sequence[np.ndarray],
    *,
    rel_level: int = 1,
    judged_only: bool = False,
    p_cutoffs: Sequence[int] = DEFAULT_P_CUTOFFS,
    rprec_mults: Sequence[float] = DEFAULT_RPREC_MULTS,
) -> dict[str, Float64Array]:
    """``map_avgjg``, ``P_avgjg_*`` and ``Rprec_mult_avgjg_*`` of each query in ``qids``,
    given its ranked docnos (``windows[i]``: ties by docno descending, cut to the depth
    limit). A query without judgement groups scores 0."""
    names = jg_value_names(p_cutoffs, rprec_mults)
    cutoffs, mults = _cutoffs(p_cutoffs), _mults(rprec_mults)
    index = qrels_jg.query_index()
    docs = np.array(qrels_jg.docids(), dtype=str)
    out = {name: np.zeros(len(qids), dtype=np.float64) for name in names}
    for i, qid in enumerate(qids):
        window = windows[i]
        j = index.get(qid)
        bounds: list[int] = []
        if j is not None:
            a, b = int(qrels_jg.q_offsets[j]), int(qrels_jg.q_offsets[j + 1])
            groups = qrels_jg.groups[a:b]
            bounds = [a + k for k in range(b - a) if k == 0 or groups[k] != groups[k - 1]]
            bounds.append(b)
        ap_sum = 0.0
        p_sum = [0.0] * len(cutoffs)
        r_sum = [0.0] * len(mults)
        for start, stop in pairwise(bounds):
            judged = docs[start:stop]  # sorted by docno
            values = qrels_jg.rels[start:stop]
            if window.shape[0] and judged.shape[0]:
                pos = np.minimum(np.searchsorted(judged, window), judged.shape[0] - 1)
                hit = judged[pos] == window
                rel = np.where(hit, np.where(values[pos] < 0, -2, values[pos]), -1)
            else:
                rel = np.full(window.shape[0], -1, dtype=np.int64)
            if judged_only:
                rel = rel[rel >= 0]
            rel = rel.astype(np.int64)
            num_rel = int(np.count_nonzero((values >= 0) & (values >= rel_level)))
            num_rel_ret = int(np.count_nonzero((rel >= 0) & (rel >= rel_level)))
            ap, precision, rprec = _group_values(
                rel, num_rel, num_rel_ret, rel_level, cutoffs, mults
            )
            ap_sum += ap
            p_sum = [s + v for s, v in zip(p_sum, precision, strict=True)]
            r_sum = [s + v for s, v in zip(r_sum, rprec, strict=True)]
        num_groups = max(len(bounds) - 1, 0)
        row = [ap_sum, *p_sum, *r_sum]
        if num_groups > 1:
            row = [v / num_groups for v in row]
        for name, value in zip(names, row, strict=True):
            out[name][i] = value
    return out


def jg_table(
    view: Ranked,
    *,
    rel_level: int,
    judged_only: bool,
    p_cutoffs: Sequence[int] = (1,),
    rprec_mults: Sequence[float] = (1.0,),
) -> dict[str, Float64Array]:
    """:func:`jg_values` of every query of ``view``, from the judgement-group qrels that
    :func:`~ranklens.ranking.align.align` attached (computed once per parameters)."""

    def make() -> dict[str, Float64Array]:
        qrels_jg = view.judgments.qrels_jg
        if qrels_jg is None:
            raise MeasureError("the judgement-group measures need judgement-group qrels")
        return jg_values(
            qrels_jg,
            view.qids,
            view.windows("trec_eval"),
            rel_level=rel_level,
            judged_only=judged_only,
            p_cutoffs=p_cutoffs,
            rprec_mults=rprec_mults,
        )

    key = ("jg", rel_level, judged_only, tuple(p_cutoffs), tuple(rprec_mults))
    table: dict[str, Float64Array] = view.derived(key, make)
    return table


def evaluate_jg(
    qrels_jg: QrelsJG,
    run: Run | Mapping[str, Mapping[str, float]],
    *,
    rel_level: int = 1,
    depth: int | None = None,
    judged_only: bool = False,
    p_cutoffs: Sequence[int] = DEFAULT_P_CUTOFFS,
    rprec_mults: Sequence[float] = DEFAULT_RPREC_MULTS,
    queries: QueryPolicy = "qrels",
) -> dict[str, dict[str, float]]:
    """``map_avgjg``, ``P_avgjg_*`` and ``Rprec_mult_avgjg_*`` for every evaluated query.

    Parameters
    ----------
    qrels_jg
        Judgement-group qrels (:func:`read_qrels_jg` or :meth:`QrelsJG.from_records`).
    run
        The run, or ``{qid: {docno: score}}``.
    rel_level
        Relevant means ``rel >= rel_level`` (``-l``).
    depth
        Keep only the first ``depth`` documents of each ranking (``-M``).
    judged_only
        Drop documents a group has not judged (or judged negative) before evaluating it
        (``-J``).
    p_cutoffs, rprec_mults
        The ``P_avgjg`` cutoffs and ``Rprec_mult_avgjg`` multiples (sorted; no repeats).
    queries
        ``"qrels"`` (default, trec_eval 10 ``-c``), ``"both"`` or ``"run"``; see
        :func:`ranklens.kernels.preferences.evaluate_prefs`.

    Returns
    -------
    dict
        ``{qid: {value name: value}}``, queries in ``strcmp`` order, names as
        :func:`jg_value_names`. ``len()`` of it is trec_eval's ``num_q``.
    """
    ranked = rank_for_judgments(Judgments(qrels_jg=qrels_jg), run, depth=depth, queries=queries)
    names = jg_value_names(p_cutoffs, rprec_mults)
    if isinstance(ranked, Ranked):
        table = jg_table(
            ranked,
            rel_level=rel_level,
            judged_only=judged_only,
            p_cutoffs=p_cutoffs,
            rprec_mults=rprec_mults,
        )
        return per_query_dicts(ranked.qids, table, names)
    empty = [np.array([], dtype=str)] * len(ranked)
    table = jg_values(
        qrels_jg,
        ranked,
        empty,
        rel_level=rel_level,
        judged_only=judged_only,
        p_cutoffs=p_cutoffs,
        rprec_mults=rprec_mults,
    )
    return per_query_dicts(ranked, table, names)


def summarize_jg(
    per_query: Mapping[str, Mapping[str, float]], *, num_q: int | None = None
) -> dict[str, float]:
    """The ``all`` values of :func:`evaluate_jg`'s result: every value averaged over
    ``num_q`` queries (default: all of them), summed in query order."""
    names = list(next(iter(per_query.values()), {}))
    return summarize(per_query, names, frozenset(), num_q)
