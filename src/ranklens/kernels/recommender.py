r"""Beyond-accuracy recommender measures: catalogue coverage and concentration of exposure
(over the whole run) and popularity bias (per user).

Notation: :math:`L_u` is user :math:`u`'s top-k list (the first :math:`\min(k, n_u)` items
of its ranking, :math:`n_u` items ranked), :math:`\phi(i)` the popularity of item :math:`i`
(its distinct training users, or the counts given; its interactions with
``count="interactions"``; 0 if the popularity data does not list it),
:math:`N` the catalogue size, :math:`x_i = |\{u : i \in L_u\}|` item :math:`i`'s exposure
(0 for an item never shown).

Run-level measures (aggregate ``"run"``) return an :class:`ExposureStatistic`: the value
over all the evaluated users, recomputable with each user counted a given number of times
(the bootstrap over users of :func:`ranklens.compare`).

Everything is vectorised: a top-k list's items are interned once per cut-off (one
C pass over their ids together with the popularity data's), then gathered and counted.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np

from ranklens.base.errors import MeasureError
from ranklens.base.types import Float64Array, Int64Array, UInt8Array
from ranklens.data.native import core as _core
from ranklens.kernels.options import DEFAULT_A, DEFAULT_B
from ranklens.ranking.align import Ranked
from ranklens.ranking.items import ItemData

ExposureKind = Literal["coverage", "gini", "entropy"]


def item_data(view: Ranked) -> ItemData:
    """The evaluator's item data (popularity, catalogue size); none given: empty."""
    judgments = None if view.source is None else view.source.judgments
    items = None if judgments is None else judgments.items
    return items if items is not None else ItemData.of(None)


def top_items(view: Ranked, cutoff: int | None) -> tuple[Int64Array, Int64Array]:
    """The user (query index) and item code (:meth:`ItemData.codes`) of every entry of the
    top-``cutoff`` lists, in ranking order; computed once per cut-off."""

    def make() -> tuple[Int64Array, Int64Array]:
        if view.source is None or view.entry is None:
            raise MeasureError("the recommender measures need the run's item ids")
        rows = np.arange(view.rel.shape[0]) if cutoff is None else np.flatnonzero(view.pos < cutoff)
        run = view.source.run
        data, offsets = _core.take_strings(run.doc_data, run.doc_offsets, view.entry[rows])
        users: Int64Array = view.ids[rows]
        return users, item_data(view).codes(data, offsets)

    found: tuple[Int64Array, Int64Array] = view.derived(("top_items", cutoff), make)
    return found


def _list_lengths(view: Ranked, cutoff: int | None) -> Float64Array:
    sizes = view.num_ret if cutoff is None else np.minimum(view.num_ret, cutoff)
    return sizes.astype(np.float64)


def _per_user_mean(view: Ranked, cutoff: int | None, per_item: Float64Array) -> Float64Array:
    """Per user, the mean of ``per_item`` over its top-k list (0 for an empty list)."""
    users, _ = top_items(view, cutoff)
    # float64 also for no entry (bincount of nothing is int64)
    sums = np.bincount(users, weights=per_item, minlength=view.num_queries).astype(np.float64)
    sizes = _list_lengths(view, cutoff)
    out: Float64Array = np.divide(sums, sizes, out=np.zeros_like(sums), where=sizes > 0)
    return out


def average_popularity(view: Ranked, cutoff: int | None, count: str = "users") -> Float64Array:
    r"""ARP: per user, the mean popularity of its top-k list,
    :math:`\frac{1}{|L_u|}\sum_{i \in L_u} \phi(i)` (0 for an empty list);
    ``count="interactions"``: :math:`\phi(i)` counts the item's interactions."""
    items = item_data(view)
    items.require_popularity(f"ARP@{cutoff}" if cutoff else "ARP")
    _, codes = top_items(view, cutoff)
    return _per_user_mean(view, cutoff, items.popularity_of(codes, count))


def _in_long_tail(
    view: Ranked, cutoff: int | None, head_share: float, name: str, count: str
) -> Float64Array:
    items = item_data(view)
    items.require_popularity(name)
    _, codes = top_items(view, cutoff)
    tail = np.concatenate([items.long_tail(head_share, count), [True]])  # unlisted: none
    return tail[np.minimum(codes, items.num_known)].astype(np.float64)


def long_tail_share(
    view: Ranked, cutoff: int | None, head_share: float, count: str = "users"
) -> Float64Array:
    r"""APLT: per user, the share of its top-k list in the long tail,
    :math:`|L_u \cap \Gamma| / |L_u|` (0 for an empty list)."""
    return _per_user_mean(view, cutoff, _in_long_tail(view, cutoff, head_share, "APLT", count))


def long_tail_count(
    view: Ranked, cutoff: int | None, head_share: float, count: str = "users"
) -> Float64Array:
    r"""ACLT: per user, the number of long-tail items in its top-k list,
    :math:`|L_u \cap \Gamma|`."""
    users, _ = top_items(view, cutoff)
    tail = _in_long_tail(view, cutoff, head_share, "ACLT", count)
    out: Float64Array = np.asarray(
        np.bincount(users, weights=tail, minlength=view.num_queries), dtype=np.float64
    )
    return out


def exposure_value(
    shown: Float64Array, catalogue: int | None, kind: ExposureKind, scope: str, variant: str
) -> float:
    """Coverage, Gini or Entropy from the exposures of the items shown (> 0) in increasing
    order (the same arithmetic for a run in memory and for one evaluated in parts, whose
    counts are merged by item id)."""
    if kind == "entropy":
        if shown.shape[0] == 0:
            return 0.0
        p = shown / shown.sum()
        logs = np.log2(p) if variant == "log2" else np.log(p)
        return float(-(p * logs).sum())
    size = shown.shape[0] if scope == "shown" else catalogue
    if size is None:
        raise MeasureError("the catalogue size is needed")
    if kind == "coverage":
        return float(shown.shape[0]) / float(size)
    total = float(shown.sum())
    gini = 0.0
    if total > 0.0:
        ranks = np.arange(size - shown.shape[0] + 1, size + 1, dtype=np.float64)
        gini = float(((2.0 * ranks - size - 1.0) * shown).sum() / (size * total))
    if variant == "elliot":
        return 1.0 - gini * size / (size - 1.0) if size > 1 else 1.0
    return gini


@dataclass(frozen=True, eq=False)
class ExposureStatistic:
    """A measure of the items' exposure counts over the top-k lists of all the users.

    Attributes
    ----------
    users, items : the user (query index) and item code of every entry of the lists.
    num_queries : the number of evaluated users.
    catalogue : the catalogue size N (``None``: not needed, or the shown items with
        ``scope="shown"``).
    kind : ``"coverage"``, ``"gini"`` or ``"entropy"``.
    scope : ``"catalogue"`` (every item of the catalogue, unshown ones with exposure 0)
        or ``"shown"`` (only the items shown at least once); Gini only.
    """

    users: Int64Array
    items: Int64Array
    num_queries: int
    catalogue: int | None
    kind: ExposureKind
    scope: str = "catalogue"
    variant: str = ""
    """Gini: ``"elliot"`` reports ``1 - N/(N-1) G``; Entropy: ``"log2"`` in bits."""
    known_ids: tuple[UInt8Array, Int64Array] | None = None
    """The ids of the item codes ``0 .. len - 1`` (the popularity data's items, shared)."""
    unknown_ids: tuple[UInt8Array, Int64Array] | None = None
    """The ids of the item codes from ``len(known_ids)`` on (items the popularity data does
    not list), so that the counts can be merged by item id with another part's
    (:mod:`ranklens.kernels.run_parts`)."""
    known_key: str | None = None
    """The popularity data's :meth:`~ranklens.ranking.items.ItemData.fingerprint`: parts
    with the same one give the items it lists the same codes, so their counts are merged
    by code (no item id is written out)."""
    shown: tuple[Int64Array, Int64Array] | None = None
    """The distinct item codes of the lists (sorted) and how many lists show each
    (:func:`shown_items`), when computed."""

    def exposure(self, weights: Float64Array | None = None) -> Float64Array:
        """The exposure of each item code (users counted ``weights`` times)."""
        if weights is None:
            counts: Float64Array = np.bincount(self.items).astype(np.float64)
            return counts
        w = np.asarray(weights, dtype=np.float64)
        out: Float64Array = np.asarray(
            np.bincount(self.items, weights=w[self.users]), dtype=np.float64
        )
        return out

    def value(self, weights: Float64Array | None = None) -> float:
        """The measure's value (see :mod:`ranklens.kernels.recommender`)."""
        x = self.exposure(weights)
        return exposure_value(
            np.sort(x[x > 0]), self.catalogue, self.kind, self.scope, self.variant
        )

    def values(self, weights: Float64Array) -> Float64Array:
        """:meth:`value` for each row of ``weights`` (draws x users)."""
        w = np.asarray(weights, dtype=np.float64)
        return np.array([self.value(row) for row in w], dtype=np.float64)


def shown_items(view: Ranked, cutoff: int | None) -> tuple[Int64Array, Int64Array]:
    """The distinct item codes of the top-``cutoff`` lists, sorted, and how many lists
    show each; computed once per cut-off (Coverage and Gini read the same)."""

    def make() -> tuple[Int64Array, Int64Array]:
        _, codes = top_items(view, cutoff)
        if codes.shape[0] == 0:
            empty = np.zeros(0, dtype=np.int64)
            return empty, empty
        distinct, counts = np.unique(codes, return_counts=True)
        return distinct.astype(np.int64), counts.astype(np.int64)

    found: tuple[Int64Array, Int64Array] = view.derived(("shown_items", cutoff), make)
    return found


def exposure(
    view: Ranked,
    cutoff: int | None,
    kind: ExposureKind,
    scope: str = "catalogue",
    variant: str = "",
) -> ExposureStatistic:
    """The :class:`ExposureStatistic` of ``kind`` over the top-``cutoff`` lists."""
    users, codes = top_items(view, cutoff)
    shown = shown_items(view, cutoff)
    name = {"coverage": "Coverage", "gini": "Gini", "entropy": "Entropy"}[kind]
    needs_catalogue = kind == "coverage" or (kind == "gini" and scope == "catalogue")
    catalogue = (
        item_data(view).catalogue_size(f"{name}@{cutoff}" if cutoff else name)
        if needs_catalogue
        else None
    )
    if catalogue is not None:
        distinct = int(shown[0].shape[0])
        if distinct > catalogue:
            raise MeasureError(
                f"{name}@{cutoff}: the lists show {distinct} distinct items, more than the "
                f"catalogue's {catalogue}: pass the catalogue size as num_items= (ranklens "
                "eval --num-items N)"
            )
    items = item_data(view)
    return ExposureStatistic(
        users,
        codes,
        view.num_queries,
        catalogue,
        kind,
        scope,
        variant,
        (items.ids_data, items.ids_offsets),
        _unknown_ids(view, cutoff, codes, items.num_known),
        items.fingerprint(),
        shown,
    )


def _unknown_ids(
    view: Ranked, cutoff: int | None, codes: Int64Array, known: int
) -> tuple[UInt8Array, Int64Array]:
    """The ids of the item codes ``known`` and up of the top-``cutoff`` lists (items the
    popularity data does not list), in code order: one entry of each code is read."""
    unknown = np.flatnonzero(codes >= known)
    if unknown.shape[0] == 0 or view.source is None or view.entry is None:
        return _core.encode_strings([])
    where = np.empty(int(codes.max()) + 1 - known, dtype=np.int64)
    where[codes[unknown] - known] = unknown  # any entry of a code has its id
    rows = np.arange(view.rel.shape[0]) if cutoff is None else np.flatnonzero(view.pos < cutoff)
    run = view.source.run
    data, offsets = _core.take_strings(run.doc_data, run.doc_offsets, view.entry[rows[where]])
    return data, offsets


# --- propensity-scored measures (Jain, Prabhu and Varma, KDD 2016) ------------------------


MIN_TRAINING_USERS = 3
r"""The fewest training users Jain et al.'s propensity model holds for: its constant
:math:`C = (\ln N - 1)(B + 1)^A` is negative for :math:`N < e`, which would make
propensities above 1 (and inverse propensities below 1, or negative)."""


def require_propensity_model(num_users: int, b: float, measure: str) -> None:
    """Refuse the settings where Jain et al.'s propensity model is not a model: fewer than
    :data:`MIN_TRAINING_USERS` training users, or ``b`` not above 0.

    Raises
    ------
    MeasureError
        Naming the measure, the value and the remedy.
    """
    if num_users < MIN_TRAINING_USERS:
        raise MeasureError(
            f"{measure}: Jain et al.'s propensity model needs at least {MIN_TRAINING_USERS} "
            f"training users, not N = {num_users}: its C = (ln N - 1)(B + 1)^A is negative "
            "for N < e, which makes propensities above 1; give num_users= the number of "
            "training users (ranklens eval --num-users N)"
        )
    if not b > 0.0:
        raise MeasureError(
            f"{measure}: B must be greater than 0, not {b!r}: an item without training "
            "users would get an infinite inverse propensity (N_l + B)^-A"
        )


def inverse_propensity(
    counts: Float64Array, num_users: int, a: float, b: float, measure: str = "PSP"
) -> Float64Array:
    r"""Jain et al.'s inverse propensity of items with ``counts`` training users:
    :math:`1/p_l = 1 + C (N_l + B)^{-A}`, :math:`C = (\ln N - 1)(B + 1)^A`, N the number of
    training users (as pyxclib's ``compute_inv_propesity``), computed as
    :math:`1 + (\ln N - 1) e^{A (\ln(B + 1) - \ln(N_l + B))}`, which cannot overflow
    where the value itself is finite.

    Raises
    ------
    MeasureError
        ``num_users`` below :data:`MIN_TRAINING_USERS`, ``b`` not above 0 (an item without
        training users would weigh :math:`\infty`), or an inverse propensity too large for
        a double (``a`` very large).

    Examples
    --------
    >>> inverse_propensity(np.array([0.0, 1.0, 99.0]), 100, 0.55, 1.5).round(4).tolist()
    [5.7747, 4.6052, 1.4727]
    """
    require_propensity_model(num_users, b, measure)
    with np.errstate(over="ignore"):
        growth = np.exp(a * (math.log1p(b) - np.log(counts + b)))
        out: Float64Array = 1.0 + (math.log(float(num_users)) - 1.0) * growth
    if not np.isfinite(out).all():
        raise MeasureError(
            f"{measure}: the inverse propensity 1 + C (N_l + B)^-A of an item with "
            f"{float(counts[~np.isfinite(out)][0]):g} training users is too large for a "
            f"double with A = {a!r}: choose a smaller A (Jain et al. fit 0.5 to 0.6)"
        )
    return out


_OVERFLOW = (
    "the propensity-scored sums over the users overflow a double: the inverse propensities "
    "are too large; choose a smaller A"
)


@dataclass(frozen=True, eq=False)
class RatioStatistic:
    """A ratio of sums over users, ``sum_u num_u / sum_u den_u`` (0 when the denominator
    is 0): a value normalised by the best achievable one over the whole run, as pyxclib
    normalises its propensity-scored measures."""

    numerator: Float64Array
    denominator: Float64Array

    @property
    def num_queries(self) -> int:
        """The number of evaluated users."""
        return int(self.numerator.shape[0])

    def value(self, weights: Float64Array | None = None) -> float:
        """The ratio with user ``j`` counted ``weights[j]`` times.

        Raises
        ------
        MeasureError
            A sum overflows a double (inverse propensities near the largest double).
        """
        with np.errstate(over="ignore", invalid="ignore"):
            if weights is None:
                top, bottom = float(self.numerator.sum()), float(self.denominator.sum())
            else:
                w = np.asarray(weights, dtype=np.float64)
                top, bottom = float(w @ self.numerator), float(w @ self.denominator)
        if not (math.isfinite(top) and math.isfinite(bottom)):
            raise MeasureError(_OVERFLOW)
        return top / bottom if bottom > 0.0 else 0.0

    def values(self, weights: Float64Array) -> Float64Array:
        """:meth:`value` for each row of ``weights`` (draws x users).

        Raises
        ------
        MeasureError
            A sum overflows a double (inverse propensities near the largest double).
        """
        w = np.asarray(weights, dtype=np.float64)
        with np.errstate(over="ignore", invalid="ignore"):
            top, bottom = w @ self.numerator, w @ self.denominator
        if not (np.isfinite(top).all() and np.isfinite(bottom).all()):
            raise MeasureError(_OVERFLOW)
        out: Float64Array = np.divide(top, bottom, out=np.zeros_like(top), where=bottom > 0)
        return out


PropensityKind = Literal["P", "nDCG", "R"]


def propensity_scored(
    view: Ranked, cutoff: int, rel: int, kind: PropensityKind, a: float, b: float
) -> RatioStatistic:
    r"""``PSP@k``, ``PSnDCG@k`` or ``PSR@k`` over the whole run (see the catalog)."""
    chosen = (("rel", rel, 1), ("A", a, DEFAULT_A), ("B", b, DEFAULT_B))
    given = ",".join(f"{key}={value!r}" for key, value, default in chosen if value != default)
    name = f"PS{kind}" + (f"({given})" if given else "") + f"@{cutoff}"
    items = item_data(view)
    items.require_popularity(name)
    num_users = items.training_users(name)
    require_propensity_model(num_users, b, name)
    items.require_users_bound(name)
    nq = view.num_queries
    # the lists: relevant items weighted by their inverse propensity
    rows = np.flatnonzero(view.pos < cutoff)
    users, codes = top_items(view, cutoff)
    grades = view.rel[rows]
    gain = inverse_propensity(items.popularity_of(codes), num_users, a, b, name) * (
        (grades >= rel) & (grades >= 0)
    )
    # the best lists: each user's relevant items by decreasing inverse propensity
    best_users, best_codes = items.relevant(view.qids, rel)
    best_gain = inverse_propensity(items.popularity_of(best_codes), num_users, a, b, name)
    order = np.lexsort((-best_gain, best_users))
    best_users, best_gain = best_users[order], best_gain[order]
    counts = np.bincount(best_users, minlength=nq)
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    best_pos = np.arange(best_users.shape[0]) - starts[best_users]
    keep = best_pos < cutoff
    best_users, best_gain, best_pos = best_users[keep], best_gain[keep], best_pos[keep]
    relevant = counts.astype(np.float64)
    if kind == "nDCG":
        gain = gain / np.log2(view.pos[rows] + 2.0)
        best_gain = best_gain / np.log2(best_pos + 2.0)
        ideal = np.cumsum(np.concatenate(([0.0], 1.0 / np.log2(np.arange(cutoff) + 2.0))))
        scale = ideal[np.minimum(counts, cutoff)]  # unweighted IDCG of min(R, k) items
    elif kind == "R":
        scale = np.maximum(relevant, 1.0)
    else:
        scale = np.full(nq, float(cutoff))
    with np.errstate(over="ignore", invalid="ignore"):
        top = np.bincount(users, weights=gain, minlength=nq)
        bottom = np.bincount(best_users, weights=best_gain, minlength=nq)
    with np.errstate(divide="ignore", invalid="ignore"):
        numerator = np.where(scale > 0, top / scale, 0.0)
        denominator = np.where(scale > 0, bottom / scale, 0.0)
    if not (np.isfinite(numerator).all() and np.isfinite(denominator).all()):
        raise MeasureError(
            f"{name}: a user's sum of inverse propensities overflows a double with A = "
            f"{a!r}: choose a smaller A"
        )
    statistic = RatioStatistic(numerator.astype(np.float64), denominator.astype(np.float64))
    statistic.value()  # the sums over the users are finite (raises otherwise)
    return statistic


# --- novelty (Vargas and Castells, RecSys 2011) -------------------------------------------


def expected_novelty(
    view: Ranked, cutoff: int | None, rel: int, kind: Literal["EPC", "EFD"]
) -> Float64Array:
    r"""EPC or EFD per user: the rank-discounted mean novelty of the relevant items of its
    top-k list, :math:`\sum_j d_j\,rel_j\,nov(i_j) / \sum_j d_j`, :math:`d_j = 1/\log_2(j + 1)`
    over the list's positions; EPC's novelty is :math:`1 - \phi(i)/N` (N training users),
    EFD's :math:`-\log_2(\phi(i) / \sum_l \phi(l))` (an item without interactions takes the
    largest novelty of an item with some, as Elliot); 0 for an empty list. :math:`\phi(i)`
    counts distinct users (Vargas and Castells' :math:`p(seen|i)` and :math:`p(i|seen)` are
    over the (user, item) pairs with an interaction), so EPC is in [0, 1].

    Raises
    ------
    MeasureError
        No popularity data; EPC: N unknown or a popularity above N; EFD: no item with an
        interaction.
    """
    name = f"{kind}@{cutoff}" if cutoff else kind
    items = item_data(view)
    items.require_popularity(name)
    if kind == "EPC":
        items.require_users_bound(name)
    rows = np.arange(view.rel.shape[0]) if cutoff is None else np.flatnonzero(view.pos < cutoff)
    users, codes = top_items(view, cutoff)
    pop = items.popularity_of(codes)
    if kind == "EPC":
        novelty = 1.0 - pop / float(items.training_users(name))
    else:
        total = float(items.popularity.sum())
        seen = items.popularity[items.popularity > 0]
        if seen.shape[0] == 0:
            raise MeasureError(f"{name}: the popularity data has no interaction")
        largest = -np.log2(float(seen.min()) / total)
        with np.errstate(divide="ignore"):
            novelty = np.where(pop > 0, -np.log2(np.maximum(pop, 1e-300) / total), largest)
    grades = view.rel[rows]
    discount = 1.0 / np.log2(view.pos[rows] + 2.0)
    hits = ((grades >= rel) & (grades >= 0)).astype(np.float64)
    nq = view.num_queries
    top = np.bincount(users, weights=discount * hits * novelty, minlength=nq).astype(np.float64)
    norm = np.bincount(users, weights=discount, minlength=nq).astype(np.float64)
    out: Float64Array = np.divide(top, norm, out=np.zeros_like(top), where=norm > 0)
    return out


# --- popularity bias in opportunity (Zhu, Wang and Caverlee, SIGIR 2021) -------------------


@dataclass(frozen=True, eq=False)
class GroupRateStatistic:
    """A disparity between the short head and the long tail (PopREO, PopRSP): per user,
    the hits and the totals of each group; ``value`` is the relative standard deviation of
    the groups' rates ``sum_u hits_ug / sum_u totals_ug``: ``std / mean`` over the two
    groups (population std, as numpy and Elliot), NaN when a group's total is 0 or nothing
    is hit.

    PopREO: hits are the relevant items found in the top k, totals the relevant items
    (``P(R@k | g, y = 1)``); PopRSP: hits are the un-interacted items of the top-k list,
    totals the un-interacted items of the catalogue (``P(R@k | g)``).
    """

    hits: Float64Array  # (users, 2): head, tail
    totals: Float64Array  # (users, 2)

    @property
    def num_queries(self) -> int:
        """The number of evaluated users."""
        return int(self.hits.shape[0])

    def value(self, weights: Float64Array | None = None) -> float:
        """The measure with user ``j`` counted ``weights[j]`` times."""
        w = np.ones(self.num_queries) if weights is None else np.asarray(weights, np.float64)
        return float(self.values(w[None, :])[0])

    def values(self, weights: Float64Array) -> Float64Array:
        """:meth:`value` for each row of ``weights`` (draws x users)."""
        w = np.asarray(weights, dtype=np.float64)
        hits, totals = w @ self.hits, w @ self.totals
        with np.errstate(divide="ignore", invalid="ignore"):
            rate = hits / totals
            out: Float64Array = np.std(rate, axis=1) / np.mean(rate, axis=1)
        return out


def popularity_opportunity(
    view: Ranked, cutoff: int, rel: int, head_share: float, unlisted: str, count: str = "users"
) -> GroupRateStatistic:
    """PopREO's per-user counts (see :class:`GroupRateStatistic`); items the
    popularity data does not list are in the long tail (``unlisted="tail"``) or in neither
    group (``"ignore"``, as Elliot, whose groups hold only training items)."""
    name = f"PopREO@{cutoff}"
    items = item_data(view)
    items.require_popularity(name)
    tail = items.long_tail(head_share, count)
    nq = view.num_queries

    def groups(codes: Int64Array) -> Int64Array:
        """0 head, 1 tail, 2 neither."""
        listed = codes < items.num_known
        group = np.where(listed, 1, 1 if unlisted == "tail" else 2)
        group[listed] = tail[codes[listed]].astype(np.int64)
        return group.astype(np.int64)

    rows = np.flatnonzero(view.pos < cutoff)
    users, codes = top_items(view, cutoff)
    grades = view.rel[rows]
    hit = (grades >= rel) & (grades >= 0)
    found = np.zeros((nq, 3))
    np.add.at(found, (users[hit], groups(codes[hit])), 1.0)
    rel_users, rel_codes = items.relevant(view.qids, rel)
    relevant = np.zeros((nq, 3))
    np.add.at(relevant, (rel_users, groups(rel_codes)), 1.0)
    return GroupRateStatistic(found[:, :2].copy(), relevant[:, :2].copy())
