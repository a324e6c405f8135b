"""trec_eval's preference measures: ``-R prefs`` and ``-R qrels_prefs``, ``-m all_prefs``.

This module reads preference judgments and computes trec_eval 10.0's 14 ``prefs_*``
measures exactly as ``form_prefs_counts.c`` and the ``m_prefs_*.c`` files do, quirks
included, so that every printed ``%6.4f`` digit matches.

File formats
------------
``prefs`` (:func:`read_prefs`), five whitespace-separated columns::

    qid  jg  jsg  docno  rel_level

``jg`` names a *judgement group* (one user's view of one information need), ``jsg`` a
*judgement sub-group* inside it, and ``rel_level`` is a number. Inside a sub-group, every
document is preferred to every document with a lower ``rel_level``; equal levels express no
preference. The sub-groups of a group are combined and closed under transitivity (A > B in
one sub-group and B > C in another give A > C); a group whose preferences form a cycle is an
error. Different groups may contradict each other. ``rel_level`` 0 means "not relevant"
(a document must not be 0 in one sub-group of a group and > 0 in another).

``qrels_prefs`` (:func:`read_qrels_prefs`) is an ordinary qrels file, ``qid jg docno
rel_level``: column 2 (``iter`` in qrels) is the judgement group, and every group has a
single sub-group, so each group is a complete ordering by ``rel_level``.

Blank lines and lines whose first non-blank character is ``#`` are skipped (trec_eval 10);
any other line must have exactly 5 (4) fields and a decimal ``rel_level``, otherwise
:class:`~ranklens.base.errors.ParseError` names the file and the physical line.

Counting preferences
--------------------
The run's documents for a query are sorted by score, descending, ties broken by docno
**ascending** (``form_prefs_counts.c`` sorts this way; the other trec_eval measures break
ties by docno descending), and cut to ``depth`` (``-M``). Only judged documents matter:
the judged documents that were retrieved get internal ranks ``0 .. NJR-1`` in ranking order,
the judged ones that were not retrieved get ``NJR .. NJ-1`` in docno order. For a
preference A > B with internal ranks a and b, and a group g:

* ``ful_ret(g)``: both retrieved and a < b; ``poss_ret(g)``: both retrieved.
* ``ful_imp(g)``: A retrieved, B not; ``poss_imp(g)``: exactly one of them retrieved.
* ``notoccur(g)``: neither retrieved.

A group with one sub-group counts every (A, B) pair of its levels, so a document listed twice
at the same level counts twice (and listing it at two levels of one sub-group is an error);
a group with several sub-groups counts each distinct preference of its transitive closure
once. ``R(g)``/``N(g)`` are the numbers of the group's documents with level > 0 / == 0
(``R_ret``/``N_ret``: those retrieved). ``C[a][b]`` counts the groups preferring a to b.

Measures
--------
With sums over the J groups of a query, ``ful = sum(ful_ret + ful_imp)`` and
``poss = sum(poss_ret + poss_imp + notoccur)``:

=========================== ===========================================================
``prefs_num_prefs_poss``     ``poss`` (summed over queries in the summary, printed ``%ld``)
``prefs_num_prefs_ful``      ``ful`` (summed)
``prefs_num_prefs_ful_ret``  ``sum(ful_ret)`` (summed)
``prefs_simp``               ``ful / poss`` (0 if poss = 0)
``prefs_simp_ret``           ``sum(ful_ret) / sum(poss_ret)``
``prefs_simp_imp``           ``sum(ful_ret + ful_imp) / sum(poss_ret + poss_imp)``
``prefs_avgjg``              ``(1/J) sum_g ful(g)/poss(g)``, groups with poss(g) = 0 adding 0
``prefs_avgjg_ret``          the same with the ``_ret`` counts
``prefs_avgjg_imp``          the same with ``_ret + _imp`` counts
``prefs_pair``               mean over document pairs {a, b} with ``C[a][b] + C[b][a] > 0`` of
                             ``C[a][b] / (C[a][b] + C[b][a])`` (a ranked first; 0 if neither
                             is retrieved)
``prefs_pair_ret``           the same over pairs with both documents retrieved
``prefs_pair_imp``           the same over pairs with at least one retrieved
``prefs_avgjg_Rnonrel``      ``prefs_avgjg`` with each group's non-relevant documents
                             padded or cut to ``R(g)``: if ``R >= N``,
                             ``(ful + R_ret (R-N)) / (poss + R (R-N))``; otherwise the
                             counts are redone keeping only the first ``R`` non-relevant
                             documents (internal rank order)
``prefs_avgjg_Rnonrel_ret``  the same with ``R_ret``/``N_ret`` and retrieved documents only
=========================== ===========================================================

The last two copy trec_eval's code to the letter, including its oddities: the ``R >= N``
branch multiplies by ``R(g)`` (not ``R_ret(g)``) in ``poss`` of the ``_ret`` variant; the
recount of a one-sub-group group also pairs the non-relevant class with its own first ``R``
documents; the ``_ret`` recount of a multi-sub-group group stops at the ``R(g)+1``-th
retrieved non-relevant document; and a group whose recount is 0/0 makes the whole query 0
(NaN in trec_eval's sum fails its ``sum > 0`` test). All ratios other than those two return 0
for an empty denominator. Every mean over groups or pairs is summed in trec_eval's order and
divided once.

Which queries
-------------
trec_eval 10 evaluates the preference file's queries in ``strcmp`` order; run queries
without preferences are ignored. A preference query missing from the run is fatal without
``-c``; with ``-c`` it is evaluated against a one-document dummy ranking, which scores as
an empty ranking (the dummy is never judged). :func:`evaluate_prefs` follows ``-c`` by
default (``queries="qrels"``); ``queries="both"`` keeps only queries in both files
(trec_eval 9 without ``-c``). The summary (:func:`summarize_prefs`) divides by the number of
evaluated queries, which is what ``num_q`` prints. ``-J`` has no effect on these measures
(only judged documents are ever counted). The output is the same in trec_eval 9.0.8.

Performance: a query is processed with numpy, but with Python loops over its judgement
groups and relevance classes, and the preference pairs of a group are materialised (memory
proportional to the number of preferences; transitive closure is cubic in the size of a
multi-sub-group group). Preference files are small in practice, so this is not a hot path.

Examples
--------
>>> from ranklens import Run
>>> prefs = Prefs.from_records([("q1", "u1", "s", "d1", 2.0), ("q1", "u1", "s", "d2", 1.0)])
>>> run = Run.from_dict({"q1": {"d2": 0.9, "d1": 0.5}})
>>> values = evaluate_prefs(prefs, run)["q1"]
>>> values["prefs_num_prefs_poss"], values["prefs_simp"]
(1.0, 0.0)
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np

from ranklens.base.errors import EmptyInputError, InputError, MeasureError
from ranklens.base.types import Float64Array, Int64Array, QueryPolicy
from ranklens.data.prefs import Prefs
from ranklens.data.run import Run
from ranklens.kernels.judged import per_query_dicts, rank_for_judgments
from ranklens.ranking.align import Ranked
from ranklens.ranking.judgments import Judgments

__all__ = [
    "PREFS_MEASURES",
    "PREFS_SUMMED",
    "evaluate_prefs",
    "prefs_table",
    "prefs_values",
    "summarize",
    "summarize_prefs",
]

PREFS_MEASURES: Final[tuple[str, ...]] = (
    "prefs_num_prefs_poss",
    "prefs_num_prefs_ful",
    "prefs_num_prefs_ful_ret",
    "prefs_simp",
    "prefs_pair",
    "prefs_avgjg",
    "prefs_avgjg_Rnonrel",
    "prefs_simp_ret",
    "prefs_pair_ret",
    "prefs_avgjg_ret",
    "prefs_avgjg_Rnonrel_ret",
    "prefs_simp_imp",
    "prefs_pair_imp",
    "prefs_avgjg_imp",
)
"""The 14 value names, in trec_eval's registry (= output) order."""

PREFS_SUMMED: Final[frozenset[str]] = frozenset(
    {"prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret"}
)
"""The counts: summed over queries in the summary and printed as ``%ld``; the rest are means."""




# -- shared helpers ---------------------------------------------------------------------------


def c_divide(numerator: float, denominator: float) -> float:
    """``numerator / denominator`` with C's IEEE result for a zero denominator."""
    if denominator == 0:
        if numerator == 0 or math.isnan(numerator):
            return math.nan
        return math.copysign(math.inf, numerator)
    return numerator / denominator


def sequential_sum(values: np.ndarray) -> float:
    """Left-to-right float64 sum (C's ``for`` loop), not numpy's pairwise ``sum``."""
    if values.shape[0] == 0:
        return 0.0
    return float(np.add.accumulate(values.astype(np.float64))[-1])


def summarize(
    per_query: Mapping[str, Mapping[str, float]],
    names: Sequence[str],
    summed: frozenset[str] = frozenset(),
    num_q: int | None = None,
) -> dict[str, float]:
    """trec_eval's ``all`` values: per-query values added in query order, then means
    divided by ``num_q`` (default: the number of queries); names in ``summed`` stay sums.

    Raises
    ------
    EmptyInputError
        No query was evaluated (trec_eval: "No queries with both results and relevance
        info").
    """
    count = len(per_query) if num_q is None else num_q
    if count <= 0:
        raise EmptyInputError("no query has both results and relevance information")
    out: dict[str, float] = {}
    for name in names:
        total = 0.0
        for values in per_query.values():
            total += values[name]
        out[name] = total if name in summed else total / count
    return out


# -- counting ---------------------------------------------------------------------------------


@dataclass
class _Group:
    """One judgement group's counts (trec_eval's ``JG``); ``poss_*`` include ``ful_*``."""

    ful_ret: int
    poss_ret: int
    ful_imp: int
    poss_imp: int
    notoccur: int
    num_rel: int
    num_rel_ret: int
    num_nonrel: int
    num_nonrel_ret: int
    classes: list[Int64Array] | None = None
    """One sub-group: internal ranks (ascending) per level, levels decreasing."""
    ranks: Int64Array | None = None
    """Several sub-groups: the group's documents (internal ranks, ascending) ..."""
    rel: Float64Array | None = None
    """... their rel_level (the last one given), ..."""
    edges: tuple[Int64Array, Int64Array] | None = None
    """... and the closed preference relation as (preferred, other) internal ranks."""


def _class_pairs(r1: Int64Array, r2: Int64Array, njr: int) -> tuple[int, int, int, int, int]:
    """Counts for every (a in r1, b in r2) with a preferred: ful_ret, unful_ret, ful_imp,
    unful_imp, notoccur."""
    a = r1[:, None]
    b = r2[None, :]
    before = a < b
    a_ret = a < njr
    b_ret = b < njr
    ful_ret = int(np.count_nonzero(before & b_ret))
    ful_imp = int(np.count_nonzero(before & a_ret & ~b_ret))
    unful_ret = int(np.count_nonzero(~before & a_ret))
    unful_imp = int(np.count_nonzero(~before & ~a_ret & b_ret))
    notoccur = r1.shape[0] * r2.shape[0] - ful_ret - ful_imp - unful_ret - unful_imp
    return ful_ret, unful_ret, ful_imp, unful_imp, notoccur


def _class_group(
    ranks: Int64Array, levels: Float64Array, njr: int, n: int, where: str, docno: list[str]
) -> tuple[_Group, list[Int64Array]]:
    """A group with one sub-group: equivalence classes by level (entries sorted by level
    descending, then rank). Returns the counts and the pair codes ``a * n + b``."""
    starts = np.flatnonzero(np.r_[True, levels[1:] != levels[:-1]])
    bounds = [*starts.tolist(), ranks.shape[0]]
    classes = [ranks[bounds[k] : bounds[k + 1]] for k in range(len(starts))]
    class_levels = levels[starts].tolist()
    counts = [0, 0, 0, 0, 0]
    codes: list[Int64Array] = []
    num = [0, 0, 0, 0]  # rel, rel_ret, nonrel, nonrel_ret
    for k, members in enumerate(classes):
        retrieved = int(np.count_nonzero(members < njr))
        if class_levels[k] > 0.0:
            num[0] += members.shape[0]
            num[1] += retrieved
        else:
            num[2] += members.shape[0]
            num[3] += retrieved
        for other in classes[k + 1 :]:
            same = np.intersect1d(members, other)
            if same.shape[0]:
                doc = docno[int(np.flatnonzero(ranks == same[0])[0])]
                raise InputError(
                    f"document '{doc}' has two different rel_levels in one judgement "
                    f"sub-group ({where})"
                )
            found = _class_pairs(members, other, njr)
            counts = [c + f for c, f in zip(counts, found, strict=True)]
            codes.append((members[:, None] * n + other[None, :]).ravel())
    ful_ret, unful_ret, ful_imp, unful_imp, notoccur = counts
    group = _Group(
        ful_ret=ful_ret,
        poss_ret=unful_ret + ful_ret,
        ful_imp=ful_imp,
        poss_imp=unful_imp + ful_imp,
        notoccur=notoccur,
        num_rel=num[0],
        num_rel_ret=num[1],
        num_nonrel=num[2],
        num_nonrel_ret=num[3],
        classes=classes,
    )
    return group, codes


def _closure(matrix: np.ndarray) -> None:
    """Reflexive-transitive closure in place (Warshall, row-wise)."""
    np.fill_diagonal(matrix, True)
    for k in range(matrix.shape[0]):
        rows = matrix[:, k].copy()
        matrix[rows] |= matrix[k]


def _array_group(
    subgroups: list[str],
    ranks: Int64Array,
    levels: Float64Array,
    njr: int,
    n: int,
    where: str,
    docno: list[str],
) -> tuple[_Group, list[Int64Array]]:
    """A group with several sub-groups: a preference matrix, closed under transitivity.
    Entries are sorted by (sub-group, level descending, rank)."""
    members = np.unique(ranks)
    local = np.searchsorted(members, ranks)
    m = members.shape[0]
    prefer = np.zeros((m, m), dtype=bool)
    rel = np.full(m, -1.0)
    level_list = levels.tolist()
    local_list = local.tolist()
    start = 0
    for stop in range(1, len(subgroups) + 1):
        if stop < len(subgroups) and subgroups[stop] == subgroups[start]:
            continue
        block = levels[start:stop]
        above, below = np.nonzero(block[:, None] > block[None, :])
        prefer[local[start:stop][above], local[start:stop][below]] = True
        start = stop
    for i, k in enumerate(local_list):  # trec_eval's 0 vs non-0 consistency check
        old, new = rel[k], level_list[i]
        if (old > 0.0 and new == 0.0) or (old == 0.0 and new > 0.0):
            raise InputError(f"document '{docno[i]}' has both 0 and non-0 rel_level ({where})")
        rel[k] = new
    _closure(prefer)
    both = prefer & prefer.T
    np.fill_diagonal(both, False)
    if both.any():
        x, y = np.argwhere(both)[0].tolist()
        first = docno[local_list.index(x)]
        second = docno[local_list.index(y)]
        raise InputError(
            f"inconsistent preferences: '{first}' and '{second}' are each preferred to the "
            f"other ({where})"
        )
    np.fill_diagonal(prefer, False)
    a_local, b_local = np.nonzero(prefer)
    a, b = members[a_local], members[b_local]
    a_ret, b_ret = a < njr, b < njr
    ful_ret = int(np.count_nonzero(a_ret & b_ret & (b > a)))
    unful_ret = int(np.count_nonzero(a_ret & b_ret & (b < a)))
    ful_imp = int(np.count_nonzero(a_ret & ~b_ret))
    unful_imp = int(np.count_nonzero(~a_ret & b_ret))
    notoccur = int(np.count_nonzero(~a_ret & ~b_ret))
    ret = members < njr
    group = _Group(
        ful_ret=ful_ret,
        poss_ret=unful_ret + ful_ret,
        ful_imp=ful_imp,
        poss_imp=unful_imp + ful_imp,
        notoccur=notoccur,
        num_rel=int(np.count_nonzero(rel > 0.0)),
        num_rel_ret=int(np.count_nonzero((rel > 0.0) & ret)),
        num_nonrel=int(np.count_nonzero(rel == 0.0)),
        num_nonrel_ret=int(np.count_nonzero((rel == 0.0) & ret)),
        ranks=members,
        rel=rel,
        edges=(a, b),
    )
    return group, [a * n + b]


def _internal_ranks(docnos: list[str], window: np.ndarray) -> tuple[Int64Array, int, int]:
    """Internal ranks of ``docnos`` (the query's judged entries), NJR and NJ."""
    judged = np.unique(np.array(docnos, dtype=str))
    nj = judged.shape[0]
    rank_of = np.full(nj, -1, dtype=np.int64)
    if window.shape[0]:
        pos = np.minimum(np.searchsorted(judged, window), nj - 1)
        hits = pos[judged[pos] == window]
    else:
        hits = np.zeros(0, dtype=np.int64)
    njr = hits.shape[0]
    rank_of[hits] = np.arange(njr, dtype=np.int64)
    missing = rank_of < 0
    rank_of[missing] = njr + np.arange(int(np.count_nonzero(missing)), dtype=np.int64)
    entry_ranks = rank_of[np.searchsorted(judged, np.array(docnos, dtype=str))]
    return entry_ranks, njr, nj


def _query_groups(
    qid: str,
    groups: list[str],
    subgroups: list[str],
    docnos: list[str],
    levels: Float64Array,
    window: np.ndarray,
) -> tuple[list[_Group], Int64Array, int, int]:
    """All judgement groups of one query (in ``strcmp`` order of the group ids), the pair
    codes of every counted preference, NJR and NJ."""
    ranks, njr, nj = _internal_ranks(docnos, window)
    order = sorted(
        range(len(docnos)),
        key=lambda i: (groups[i], subgroups[i], -levels[i], int(ranks[i])),
    )
    out: list[_Group] = []
    codes: list[Int64Array] = []
    start = 0
    for stop in range(1, len(order) + 1):
        if stop < len(order) and groups[order[stop]] == groups[order[start]]:
            continue
        idx = np.asarray(order[start:stop], dtype=np.int64)
        jg = groups[order[start]]
        where = f"judgement group '{jg}' of query '{qid}'"
        sub = [subgroups[i] for i in order[start:stop]]
        names = [docnos[i] for i in order[start:stop]]
        if len(set(sub)) > 1:
            group, found = _array_group(sub, ranks[idx], levels[idx], njr, nj, where, names)
        else:
            group, found = _class_group(ranks[idx], levels[idx], njr, nj, where, names)
        out.append(group)
        codes.extend(found)
        start = stop
    all_codes = np.concatenate(codes) if codes else np.zeros(0, dtype=np.int64)
    return out, all_codes, njr, nj


# -- measures ---------------------------------------------------------------------------------


def _pair_values(codes: Int64Array, njr: int, nj: int) -> tuple[float, float, float]:
    """prefs_pair, prefs_pair_ret and prefs_pair_imp from the preference pair codes."""
    if codes.shape[0] == 0:
        return 0.0, 0.0, 0.0
    unique, counts = np.unique(codes, return_counts=True)
    a, b = unique // nj, unique % nj
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    keys, inverse = np.unique(lo * nj + hi, return_inverse=True)
    forward = np.zeros(keys.shape[0], dtype=np.int64)
    backward = np.zeros(keys.shape[0], dtype=np.int64)
    np.add.at(forward, inverse, np.where(a < b, counts, 0))
    np.add.at(backward, inverse, np.where(a > b, counts, 0))
    lo_k, hi_k = keys // nj, keys % nj
    ratio = forward / (forward + backward)
    both = hi_k < njr
    one = (lo_k < njr) & ~both
    s_ret = sequential_sum(ratio[both])
    s_imp = sequential_sum(np.concatenate([ratio[both], ratio[one]]))
    n_ret = int(np.count_nonzero(both))
    n_imp = n_ret + int(np.count_nonzero(one))
    n_all = keys.shape[0]
    return (
        s_imp / n_all,
        s_ret / n_ret if n_ret else 0.0,
        s_imp / n_imp if n_imp else 0.0,
    )


def _recount_classes(
    classes: list[Int64Array], keep: int, njr: int, ret_only: bool
) -> tuple[int, int]:
    """The ``recalculate`` of m_prefs_avgjg_Rnonrel[_ret].c for a one-sub-group group."""
    if ret_only:
        classes = [c[c < njr] for c in classes]
        new = classes[-1][:keep]
    else:
        new = classes[-1][:keep]
    ful = poss = 0

    def tally(r1: Int64Array, r2: Int64Array) -> None:
        nonlocal ful, poss
        hit = int(np.count_nonzero((r1[:, None] < r2[None, :]) & (r1[:, None] < njr)))
        ful += hit
        poss += r1.shape[0] * r2.shape[0] - hit

    last = len(classes) - 1
    for k in range(len(classes)):
        for other in range(k + 1, last):
            tally(classes[k], classes[other])
    for k in range(len(classes)):
        tally(classes[k], new)
    return ful, poss + ful


def _recount_array(group: _Group, njr: int, nj: int, ret_only: bool) -> tuple[int, int]:
    """The ``recalculate`` of m_prefs_avgjg_Rnonrel[_ret].c for a multi-sub-group group."""
    if group.ranks is None or group.rel is None or group.edges is None:
        raise RuntimeError("internal error: an array group without its arrays")
    limit = njr if ret_only else nj
    zero = group.rel == 0.0
    seen = group.ranks[zero & (group.ranks < limit)]
    first = int(seen[group.num_rel]) if seen.shape[0] > group.num_rel else limit
    dropped = group.ranks[zero & (group.ranks >= first)]
    a, b = group.edges
    kept = ~np.isin(a, dropped) & ~np.isin(b, dropped)
    a_ret, b_ret = a < njr, b < njr
    if ret_only:  # areas A1 (fulfilled) and A2 (not) only
        ful = int(np.count_nonzero(kept & a_ret & b_ret & (b > a)))
        unful = int(np.count_nonzero(kept & a_ret & b_ret & (b < a)))
    else:  # fulfilled: A1, A3; not: A2, A4, A5
        ful = int(np.count_nonzero(kept & a_ret & (~b_ret | (b > a))))
        unful = int(np.count_nonzero(kept & (~a_ret | (b_ret & (b < a)))))
    return ful, unful + ful


def _avgjg_rnonrel(groups: list[_Group], njr: int, nj: int, ret_only: bool) -> float:
    total = 0.0
    for g in groups:
        big_r, big_n = (g.num_rel_ret, g.num_nonrel_ret) if ret_only else (g.num_rel, g.num_nonrel)
        if big_r >= big_n:
            if ret_only:
                ful = g.ful_ret
                poss = g.poss_ret
            else:
                ful = g.ful_ret + g.ful_imp
                poss = g.poss_ret + g.poss_imp + g.notoccur
            ful += g.num_rel_ret * (big_r - big_n)
            poss += g.num_rel * (big_r - big_n)
        elif g.classes is not None:
            ful, poss = _recount_classes(g.classes, big_r, njr, ret_only)
        else:
            ful, poss = _recount_array(g, njr, nj, ret_only)
        total += c_divide(ful, poss)
    return total / len(groups) if total > 0.0 else 0.0


def _avgjg(pairs: list[tuple[int, int]]) -> float:
    total = 0.0
    for ful, poss in pairs:
        if poss:
            total += ful / poss
    return total / len(pairs) if total > 0.0 else 0.0


def _values(groups: list[_Group], codes: Int64Array, njr: int, nj: int) -> dict[str, float]:
    ful_ret = sum(g.ful_ret for g in groups)
    ful_imp = sum(g.ful_imp for g in groups)
    poss_ret = sum(g.poss_ret for g in groups)
    poss_imp = sum(g.poss_imp for g in groups)
    notoccur = sum(g.notoccur for g in groups)
    ful = ful_ret + ful_imp
    poss = poss_ret + poss_imp + notoccur
    pair, pair_ret, pair_imp = _pair_values(codes, njr, nj)
    values = {
        "prefs_num_prefs_poss": float(poss),
        "prefs_num_prefs_ful": float(ful),
        "prefs_num_prefs_ful_ret": float(ful_ret),
        "prefs_simp": ful / poss if poss else 0.0,
        "prefs_pair": pair,
        "prefs_avgjg": _avgjg(
            [(g.ful_ret + g.ful_imp, g.poss_ret + g.poss_imp + g.notoccur) for g in groups]
        ),
        "prefs_avgjg_Rnonrel": _avgjg_rnonrel(groups, njr, nj, False),
        "prefs_simp_ret": ful_ret / poss_ret if poss_ret else 0.0,
        "prefs_pair_ret": pair_ret,
        "prefs_avgjg_ret": _avgjg([(g.ful_ret, g.poss_ret) for g in groups]),
        "prefs_avgjg_Rnonrel_ret": _avgjg_rnonrel(groups, njr, nj, True),
        "prefs_simp_imp": ful / (poss_ret + poss_imp) if poss_ret + poss_imp else 0.0,
        "prefs_pair_imp": pair_imp,
        "prefs_avgjg_imp": _avgjg(
            [(g.ful_ret + g.ful_imp, g.poss_ret + g.poss_imp) for g in groups]
        ),
    }
    return {name: values[name] for name in PREFS_MEASURES}


def prefs_values(
    prefs: Prefs, qids: Sequence[str], windows: Sequence[np.ndarray]
) -> dict[str, Float64Array]:
    """The 14 ``prefs_*`` values of each query in ``qids``, given its ranked docnos.

    ``windows[i]`` is query ``qids[i]``'s ranking (ties by docno ascending, cut to the
    depth limit). A query without preferences has no groups and scores 0.
    """
    index = prefs.query_index()
    docs = prefs.docids()
    out = {name: np.zeros(len(qids), dtype=np.float64) for name in PREFS_MEASURES}
    for i, qid in enumerate(qids):
        j = index.get(qid)
        if j is None:
            continue
        a, b = int(prefs.q_offsets[j]), int(prefs.q_offsets[j + 1])
        groups, codes, njr, nj = _query_groups(
            qid,
            list(prefs.groups[a:b]),
            list(prefs.subgroups[a:b]),
            docs[a:b],
            prefs.levels[a:b],
            windows[i],
        )
        for name, value in _values(groups, codes, njr, nj).items():
            out[name][i] = value
    return out


def prefs_table(view: Ranked) -> dict[str, Float64Array]:
    """The 14 ``prefs_*`` values of every query of ``view`` (computed once per ranking,
    from the preference judgments :func:`~ranklens.ranking.align.align` attached)."""

    def make() -> dict[str, Float64Array]:
        prefs = view.judgments.prefs
        if prefs is None:
            raise MeasureError("the preference measures need preference judgments")
        return prefs_values(prefs, view.qids, view.windows("docid_asc"))

    table: dict[str, Float64Array] = view.derived(("prefs",), make)
    return table


def evaluate_prefs(
    prefs: Prefs,
    run: Run | Mapping[str, Mapping[str, float]],
    *,
    depth: int | None = None,
    judged_only: bool = False,
    queries: QueryPolicy = "qrels",
) -> dict[str, dict[str, float]]:
    """trec_eval's 14 ``prefs_*`` values for every evaluated query.

    The run is ranked and aligned as for every other measure
    (:func:`~ranklens.kernels.judged.rank_for_judgments`), then :func:`prefs_table` reads it.

    Parameters
    ----------
    prefs
        Preferences from :func:`~ranklens.data.prefs.read_prefs`,
        :func:`~ranklens.data.prefs.read_qrels_prefs` or :meth:`Prefs.from_records`.
    run
        The run, or ``{qid: {docno: score}}``.
    depth
        Keep only the first ``depth`` documents of each ranking (``-M``).
    judged_only
        trec_eval's ``-J``; accepted for symmetry, it changes nothing here.
    queries
        ``"qrels"`` (default): every preference query, one missing from the run scored as
        an empty ranking (trec_eval 10 ``-c``); ``"both"``: queries in both; ``"run"``:
        every run query (one without preferences has no groups and scores 0).

    Returns
    -------
    dict
        ``{qid: {value name: value}}``, queries in ``strcmp`` order and names in
        :data:`PREFS_MEASURES` order. ``len()`` of it is trec_eval's ``num_q``.

    Raises
    ------
    InputError
        Inconsistent preferences in a judgement group (trec_eval exits 4 or aborts).
    DuplicateError
        A document twice in a query's (cut) ranking.
    """
    del judged_only  # form_prefs_counts.c never looks at -J
    ranked = rank_for_judgments(Judgments(prefs=prefs), run, depth=depth, queries=queries)
    if isinstance(ranked, Ranked):
        return per_query_dicts(ranked.qids, prefs_table(ranked), PREFS_MEASURES)
    empty = [np.array([], dtype=str)] * len(ranked)
    return per_query_dicts(ranked, prefs_values(prefs, ranked, empty), PREFS_MEASURES)


def summarize_prefs(
    per_query: Mapping[str, Mapping[str, float]], *, num_q: int | None = None
) -> dict[str, float]:
    """The ``all`` values of :func:`evaluate_prefs`'s result: the three ``num_prefs``
    counts summed, the other measures averaged over ``num_q`` queries (default: all)."""
    return summarize(per_query, PREFS_MEASURES, PREFS_SUMMED, num_q)
