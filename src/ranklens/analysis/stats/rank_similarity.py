r"""How alike two orderings of the same items are, weighting the top: AP correlation
(tau_ap) and rank-biased overlap (RBO) with ties.

Both take one score per item under two conditions (higher is better); items with equal
scores are tied.

* **tau_ap** (Yilmaz, Aslam and Robertson, SIGIR 2008) of a candidate ordering ``y``
  against a reference ``x``:
  :math:`\tau_{AP} = \frac{2}{N-1} \sum_{i=2}^{N} \frac{C(i)}{i-1} - 1`, where the items
  are taken in the candidate's order and :math:`C(i)` counts the items above position
  :math:`i` that the reference also ranks above the item at :math:`i`. It is asymmetric:
  swaps at the top of the candidate cost more. Ties: a pair tied in the reference counts
  one half, or one when the candidate ties it too (so equal orderings score 1); tied
  items in the candidate are taken in every order with equal probability, and the value
  is the exact expectation over those orders (without ties this is the original
  definition).
* **RBO** (Webber, Moffat and Zobel, TOIS 2010), extrapolated, for two orderings of the
  same :math:`N` items: :math:`RBO = \frac{1-p}{p}\left(\sum_{d=1}^{N} A_d\, p^d +
  \frac{p^{N+1}}{1-p}\right)` with the agreement :math:`A_d` at depth :math:`d`. Ties are
  treated as Corsi and Urbano (SIGIR 2024) define: an item tied over ranks
  :math:`t..b` contributes 0 above :math:`t` and 1 from :math:`b` on, and in between
  :math:`(d - t + 1)/(b - t + 1)` (variants ``"a"`` and ``"b"``) or 1 (variant ``"w"``);
  with :math:`X_d = \sum_i c_x(i, d)\, c_y(i, d)`, :math:`A_d = X_d / d` (``"a"``: the
  mean RBO over the orders of the ties), :math:`2 X_d / (\sum_i c_x + \sum_i c_y)`
  (``"w"``: ties as equality) or :math:`X_d / \sqrt{\sum_i c_x^2 \sum_i c_y^2}` (``"b"``).
  Without ties the three are the same.

Examples
--------
>>> tau_ap([4, 3, 2, 1], [4, 3, 2, 1])
1.0
>>> round(tau_ap([4, 3, 2, 1], [3, 4, 2, 1]), 4), round(tau_ap([4, 3, 2, 1], [4, 3, 1, 2]), 4)
(0.3333, 0.7778)
>>> round(rank_biased_overlap([4, 3, 2, 1], [4, 3, 2, 1], p=0.9), 4)
1.0
>>> round(rank_biased_overlap([4, 3, 2, 1], [3, 4, 2, 1], p=0.9), 4)
0.9
"""

from __future__ import annotations

from typing import Literal

import numpy as np
import numpy.typing as npt

from ranklens.base.errors import InputError, OptionError
from ranklens.base.types import Float64Array, Int64Array

RboTies = Literal["a", "b", "w"]


def _scores(x: npt.ArrayLike, y: npt.ArrayLike) -> tuple[Float64Array, Float64Array]:
    a = np.asarray(x, dtype=np.float64)
    b = np.asarray(y, dtype=np.float64)
    if a.ndim != 1 or a.shape != b.shape:
        raise InputError("the two sets of scores must be vectors of the same length")
    if a.shape[0] < 2:
        raise InputError(f"comparing orderings needs at least 2 items, not {a.shape[0]}")
    if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
        raise InputError("scores must be finite numbers")
    return a, b


def tau_ap(reference: npt.ArrayLike, candidate: npt.ArrayLike) -> float:
    """AP correlation of the ``candidate`` ordering against the ``reference`` (scores, one
    per item, higher first); see the module's docstring for the treatment of ties."""
    ref, cand = _scores(reference, candidate)
    n = ref.shape[0]
    order = np.argsort(-cand, kind="stable")
    ref_sorted = ref[order]
    cand_sorted = cand[order]
    # correct[i, j]: the reference puts item j above item i (1); a pair tied in the
    # reference counts one half, or 1 when the candidate ties it too
    tied_ref = ref_sorted[None, :] == ref_sorted[:, None]
    tied_cand = cand_sorted[None, :] == cand_sorted[:, None]
    correct = (ref_sorted[None, :] > ref_sorted[:, None]).astype(np.float64)
    correct += np.where(tied_ref, np.where(tied_cand, 1.0, 0.5), 0.0)
    np.fill_diagonal(correct, 0.0)
    # tie groups of the candidate: positions start..stop-1 share one score
    starts = np.flatnonzero(np.r_[True, cand_sorted[1:] != cand_sorted[:-1]])
    stops = np.r_[starts[1:], n]
    total = 0.0
    for start, stop in zip(starts.tolist(), stops.tolist(), strict=True):
        group = np.arange(start, stop)
        size = stop - start
        above = correct[np.ix_(group, np.arange(start))].sum(axis=1)  # items above the group
        within = correct[np.ix_(group, group)].sum(axis=1)  # other members above, in ref
        for position in range(start, stop):
            if position == 0:
                continue
            share = (position - start) / (size - 1) if size > 1 else 0.0
            expected_c = float(np.mean(above + share * within))
            total += expected_c / position
    return float(2.0 * total / (n - 1) - 1.0)


def _contributions(scores: Float64Array, ties: RboTies) -> Float64Array:
    """``c[i, d]``: how much item ``i`` is present at depth ``d + 1`` of the ordering."""
    n = scores.shape[0]
    order = np.argsort(-scores, kind="stable")
    sorted_scores = scores[order]
    starts = np.flatnonzero(np.r_[True, sorted_scores[1:] != sorted_scores[:-1]])
    stops = np.r_[starts[1:], n]
    top = np.empty(n, dtype=np.int64)
    bottom = np.empty(n, dtype=np.int64)
    for start, stop in zip(starts.tolist(), stops.tolist(), strict=True):
        top[order[start:stop]] = start
        bottom[order[start:stop]] = stop - 1
    depth = np.arange(n)[None, :]
    if ties == "w":
        return (depth >= top[:, None]).astype(np.float64)
    span = (bottom - top + 1)[:, None].astype(np.float64)
    partial = (depth - top[:, None] + 1) / span
    return np.clip(partial, 0.0, 1.0)


def rank_biased_overlap(
    x: npt.ArrayLike, y: npt.ArrayLike, p: float = 0.9, ties: RboTies = "a"
) -> float:
    """Extrapolated rank-biased overlap of two orderings of the same items (scores, one per
    item, higher first), with ties treated by variant ``ties`` (see the module)."""
    if not 0.0 < p < 1.0:
        raise OptionError(f"p must be between 0 and 1 (exclusive), not {p!r}")
    if ties not in ("a", "b", "w"):
        raise OptionError(f"ties must be 'a', 'b' or 'w', not {ties!r}")
    a, b = _scores(x, y)
    n = a.shape[0]
    cx = _contributions(a, ties)
    cy = _contributions(b, ties)
    overlap = (cx * cy).sum(axis=0)
    depth = np.arange(1, n + 1, dtype=np.float64)
    if ties == "a":
        agreement = overlap / depth
    elif ties == "w":
        agreement = 2.0 * overlap / (cx.sum(axis=0) + cy.sum(axis=0))
    else:
        agreement = overlap / np.sqrt((cx**2).sum(axis=0) * (cy**2).sum(axis=0))
    weights = p**depth
    tail = p ** (n + 1) / (1.0 - p)  # every item seen by depth n: agreement 1 from there on
    return float((1.0 - p) / p * (float(np.sum(agreement * weights)) + tail))


def _flatten(groups: list[list[str]]) -> tuple[list[str], Int64Array, Int64Array]:
    """Items in rank order with the top and bottom rank (0-based) of each one's tie group."""
    items: list[str] = []
    top: list[int] = []
    bottom: list[int] = []
    for group in groups:
        first = len(items)
        items.extend(group)
        top.extend([first] * len(group))
        bottom.extend([first + len(group) - 1] * len(group))
    return items, np.asarray(top, dtype=np.int64), np.asarray(bottom, dtype=np.int64)


def _present(
    rows: Int64Array, top: Int64Array, bottom: Int64Array, size: int, depth: int, ties: RboTies
) -> Float64Array:
    """``c[i, d]`` over the ``size`` items of the union (``rows`` places a ranking's items)."""
    out = np.zeros((size, depth), dtype=np.float64)
    d = np.arange(depth)[None, :]
    if ties == "w":
        out[rows] = (d >= top[:, None]).astype(np.float64)
    else:
        span = (bottom - top + 1)[:, None].astype(np.float64)
        out[rows] = np.clip((d - top[:, None] + 1) / span, 0.0, 1.0)
    return out


def rbo_rankings(
    x: list[list[str]], y: list[list[str]], p: float = 0.9, ties: RboTies = "a"
) -> float:
    r"""Extrapolated RBO of two rankings of possibly different items and lengths, given as
    lists of tie groups (``[["d1"], ["d2", "d3"], ...]``), as Corsi and Urbano (SIGIR 2024)
    define it: with :math:`s \le l` the lengths, the agreement :math:`A_d` is observed up to
    depth :math:`s`; from :math:`s + 1` to :math:`l` the items of the shorter ranking not
    yet seen are assumed to overlap at the rate :math:`A_s`; beyond :math:`l` the agreement
    is extrapolated to stay constant. Without ties this is Webber et al.'s
    :math:`RBO_{EXT}` for uneven lists (their equation 32). nan when both are empty, 0 when
    one is.

    >>> round(rbo_rankings([["a"], ["b"], ["c"]], [["a"], ["c"]], p=0.9), 4)
    0.82
    """
    if not 0.0 < p < 1.0:
        raise OptionError(f"p must be between 0 and 1 (exclusive), not {p!r}")
    if ties not in ("a", "b", "w"):
        raise OptionError(f"ties must be 'a', 'b' or 'w', not {ties!r}")
    fx, fy = _flatten(x), _flatten(y)
    if len(fx[0]) != len(set(fx[0])) or len(fy[0]) != len(set(fy[0])):
        raise InputError("an item occurs twice in one ranking")
    if not fx[0] and not fy[0]:
        return float("nan")
    if not fx[0] or not fy[0]:
        return 0.0
    short, long_ = (fx, fy) if len(fx[0]) <= len(fy[0]) else (fy, fx)
    s, n = len(short[0]), len(long_[0])
    union = {item: i for i, item in enumerate(short[0])}
    for item in long_[0]:
        union.setdefault(item, len(union))
    rows_s = np.asarray([union[i] for i in short[0]], dtype=np.int64)
    rows_l = np.asarray([union[i] for i in long_[0]], dtype=np.int64)
    cs = _present(rows_s, short[1], short[2], len(union), n, ties)
    cl = _present(rows_l, long_[1], long_[2], len(union), n, ties)
    depth = np.arange(1, n + 1, dtype=np.float64)
    seen = (cs * cl).sum(axis=0)
    sum_s, sum_l = cs.sum(axis=0), cl.sum(axis=0)
    sq_s, sq_l = (cs**2).sum(axis=0), (cl**2).sum(axis=0)
    agreement = np.empty(n, dtype=np.float64)
    first = slice(0, s)
    if ties == "a":
        agreement[first] = seen[first] / depth[first]
    elif ties == "w":
        agreement[first] = 2.0 * seen[first] / (sum_s[first] + sum_l[first])
    else:
        agreement[first] = seen[first] / np.sqrt(sq_s[first]) / np.sqrt(sq_l[first])
    at_s = float(agreement[s - 1])
    if n > s:
        later = slice(s, n)
        unseen_rows = np.asarray([union[i] for i in long_[0] if i not in set(short[0])])
        unseen = cl[unseen_rows][:, later]
        counted = (unseen != 0).sum(axis=0)
        mean_unseen = np.where(counted > 0, unseen.sum(axis=0) / np.maximum(counted, 1), np.nan)
        extended = seen[later] + (depth[later] - s) * at_s * mean_unseen
        if ties == "a":
            agreement[later] = extended / depth[later]
        elif ties == "w":
            agreement[later] = 2.0 * extended / (depth[later] + sum_l[later])
        else:
            agreement[later] = extended / np.sqrt(depth[later]) / np.sqrt(sq_l[later])
    tail = (seen[n - 1] + (n - s) * at_s) / n * p ** (n + 1) / (1.0 - p)
    return float((1.0 - p) / p * (float(np.sum(agreement * p**depth)) + tail))
