r"""Intra-list diversity (``ILD``, from item features) and popularity-based ranking-based
statistical parity (``PopRSP``, from training interactions).

ILD of user :math:`u`'s top-k list :math:`L_u` (:math:`n = |L_u|` items):

.. math:: \mathrm{ILD}(L_u) = \frac{2}{n(n-1)} \sum_{\{i, j\} \subseteq L_u,\ i \ne j} d(i, j)

with :math:`d(i, j) = 1 - \frac{x_i \cdot x_j}{\lVert x_i \rVert \lVert x_j \rVert}` (cosine)
or :math:`1 - \frac{|A_i \cap A_j|}{|A_i \cup A_j|}` (Jaccard, label sets; two empty sets
are at distance 0, as scipy), and 0 for a list of fewer than 2 items.

Cosine over vectors is computed without a loop over pairs: with unit vectors
:math:`\hat x_i` and :math:`s_u = \sum_{i \in L_u} \hat x_i`, the sum of the similarities
of the pairs is :math:`(\lVert s_u \rVert^2 - n) / 2`. Over label sets (and Jaccard over
0/1 vectors), the pairs that share a label are generated per (user, label) and counted.

PopRSP (Zhu, Wang and Caverlee, SIGIR 2021):

.. math:: P(R@k \mid g) = \frac{\sum_u |L_u \cap g \setminus I_u^+|}
   {\sum_u |g \setminus I_u^+|}, \qquad
   \mathrm{PopRSP} = \frac{\mathrm{std}_g P(R@k \mid g)}{\mathrm{mean}_g P(R@k \mid g)}

over the short head and the long tail :math:`g`, :math:`I_u^+` user :math:`u`'s training
items (population std over the two groups).
"""

from __future__ import annotations

import numpy as np

from ranklens.base.errors import MeasureError
from ranklens.base.types import Float64Array, Int64Array
from ranklens.data.native import core as _core
from ranklens.kernels.recommender import GroupRateStatistic, item_data
from ranklens.ranking.align import Ranked
from ranklens.ranking.item_features import ItemFeatures
from ranklens.ranking.items import ItemData

_BLOCK = 1 << 22
"""Entries x dimensions gathered at once by the cosine sums (bounded memory)."""


def _decode(data: np.ndarray, offsets: Int64Array, j: int) -> str:
    return bytes(data[offsets[j] : offsets[j + 1]]).decode("utf-8", "replace")


def _list_users(view: Ranked, cutoff: int | None) -> Int64Array:
    """The user (query index) of every entry of the top-``cutoff`` lists."""
    rows = np.arange(view.rel.shape[0]) if cutoff is None else np.flatnonzero(view.pos < cutoff)
    users: Int64Array = view.ids[rows]
    return users


def _feature_rows(view: Ranked, cutoff: int | None, name: str) -> tuple[ItemFeatures, Int64Array]:
    """The item features and the feature row of every entry of the top-``cutoff`` lists.

    Raises
    ------
    MeasureError
        No features were given, or an item of a list has none (naming it and its user).
    """
    features = item_data(view).features
    if features is None:
        raise MeasureError(
            f"{name} needs item features: pass item_features= to ranklens.evaluate / "
            "Evaluator ({item: vector}, {item: {labels}}, a table or a file; ranklens eval "
            "--item-features FILE)"
        )

    def make() -> Int64Array:
        if view.source is None or view.entry is None:
            raise MeasureError(f"{name} needs the run's item ids")
        rows = np.arange(view.rel.shape[0]) if cutoff is None else np.flatnonzero(view.pos < cutoff)
        run = view.source.run
        data, offsets = _core.take_strings(run.doc_data, run.doc_offsets, view.entry[rows])
        found = features.rows(data, offsets)
        missing = np.flatnonzero(found < 0)
        if missing.shape[0]:
            j = int(missing[0])
            users = _list_users(view, cutoff)
            raise MeasureError(
                f"{name}: item {_decode(data, offsets, j)!r} (in the list of user "
                f"{view.qids[int(users[j])]!r}) has no features in item_features= "
                f"({features.source}; {missing.shape[0]} recommended item(s) without "
                "features): give every recommended item features, or leave such items out "
                "of the run"
            )
        return found

    found: Int64Array = view.derived(("feature_rows", cutoff, id(features)), make)
    return features, found


def _refuse_zero(features: ItemFeatures, rows: Int64Array, name: str) -> None:
    zero = features.is_zero()[rows]
    if zero.any():
        item = features.ids[int(rows[int(np.argmax(zero))])]
        what = "an empty label set" if features.kind == "labels" else "a zero feature vector"
        raise MeasureError(
            f"{name}: item {item!r} has {what}: its cosine distance to other items is "
            "undefined; give it a nonzero vector (or a label), leave it out of the run, or "
            "use ILD(distance='jaccard')"
        )


def _cosine_vectors(
    features: ItemFeatures, users: Int64Array, rows: Int64Array, nq: int
) -> Float64Array:
    """Per user, the sum of the cosine similarities of the pairs of its list:
    ``(|s_u|^2 - n_u) / 2``, ``s_u`` the sum of its items' unit vectors.

    The lists are gathered as a (users, longest list, d) array padded with a zero
    vector, in blocks of users of bounded size."""
    unit = features.unit_vectors()
    padding = unit.shape[0] - 1
    sums = np.zeros(nq)
    if rows.shape[0] == 0:
        return sums
    owners, first, sizes = np.unique(users, return_index=True, return_counts=True)
    place = np.arange(rows.shape[0]) - np.repeat(first, sizes)
    step = max(_BLOCK // (max(int(unit.shape[1]), 1) * int(sizes.max())), 1)
    for start in range(0, owners.shape[0], step):
        stop = min(start + step, owners.shape[0])
        longest = int(sizes[start:stop].max())
        lo, hi = int(first[start]), int(first[stop - 1] + sizes[stop - 1])
        index = np.full((stop - start, longest), padding, dtype=np.int64)
        local = np.repeat(np.arange(stop - start), sizes[start:stop])
        index[local, place[lo:hi]] = rows[lo:hi]
        total = unit[index].sum(axis=1)
        squared = np.einsum("ij,ij->i", total, total)
        sums[owners[start:stop]] = (squared - sizes[start:stop]) / 2.0
    return sums


def _shared_labels(
    offsets: Int64Array, codes: Int64Array, users: Int64Array, rows: Int64Array
) -> tuple[Int64Array, Int64Array, Int64Array]:
    """The pairs of entries (``a < b``, entry indices) of the same list that share at
    least one label, and how many labels each pair shares."""
    counts = (offsets[rows + 1] - offsets[rows]).astype(np.int64)
    labels = codes[_core.ranges(offsets[rows].astype(np.int64), counts, 1)]
    entry = np.repeat(np.arange(rows.shape[0], dtype=np.int64), counts)
    owner = users[entry]
    vocabulary = np.int64(int(codes.max(initial=0)) + 1)
    order = np.argsort(owner * vocabulary + labels, kind="stable")  # entries stay in order
    entry, labels, owner = entry[order], labels[order], owner[order]
    if entry.shape[0] == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty
    new = np.concatenate([[True], (owner[1:] != owner[:-1]) | (labels[1:] != labels[:-1])])
    starts = np.flatnonzero(new)
    sizes = np.diff(np.concatenate([starts, [entry.shape[0]]]))
    place = np.arange(entry.shape[0]) - np.repeat(starts, sizes)
    after = np.repeat(sizes, sizes) - place - 1  # later members of the same group
    first = np.repeat(entry, after)
    second = entry[_core.ranges(np.arange(entry.shape[0], dtype=np.int64) + 1, after, 1)]
    n = np.int64(rows.shape[0])
    keys, shared = np.unique(first * n + second, return_counts=True)
    return keys // n, keys % n, shared.astype(np.int64)


def _similarity_sums(
    features: ItemFeatures, users: Int64Array, rows: Int64Array, nq: int, distance: str
) -> Float64Array:
    """Per user, the sum over the pairs of its list of their similarity (1 - distance)."""
    if distance == "cosine" and features.kind == "vectors":
        return _cosine_vectors(features, users, rows, nq)
    offsets, codes = features.sets()
    size = np.diff(offsets)[rows].astype(np.float64)
    a, b, shared = _shared_labels(offsets, codes, users, rows)
    both = shared.astype(np.float64)
    if distance == "cosine":
        similarity = both / np.sqrt(size[a] * size[b])
    else:
        similarity = both / (size[a] + size[b] - both)
    sums = np.bincount(users[a], weights=similarity, minlength=nq).astype(np.float64)
    if distance == "jaccard":  # two empty sets: the same (distance 0)
        empty = np.bincount(users, weights=(size == 0).astype(np.float64), minlength=nq)
        sums += empty * (empty - 1.0) / 2.0
    return sums


def intra_list_diversity(view: Ranked, cutoff: int | None, distance: str) -> Float64Array:
    r"""ILD per user: the mean distance of the pairs of distinct items of its top-k list
    (0 for a list of fewer than 2 items); see the module's description.

    Raises
    ------
    MeasureError
        No item features, an item of a list without features, a zero vector (empty label
        set) with the cosine distance, a vector of values other than 0 and 1 with Jaccard.

    Examples
    --------
    u's list a b c: d(a, b) = 1 - 0 = 1, d(a, c) = d(b, c) = 1 - 1/sqrt(2); the mean of
    the three pairs is (3 - sqrt 2)/3:

    >>> import ranklens
    >>> features = {"a": [1, 0], "b": [0, 1], "c": [1, 1]}
    >>> res = ranklens.evaluate({"u": {"a": 1}}, {"u": {"a": 3, "b": 2, "c": 1}}, "ILD@3",
    ...                         item_features=features)
    >>> round(res["ILD@3"], 4)
    0.5286
    """
    name = f"ILD@{cutoff}" if cutoff else "ILD"
    if distance != "cosine":
        name = f"ILD(distance={distance!r})" + (f"@{cutoff}" if cutoff else "")
    features, rows = _feature_rows(view, cutoff, name)
    users = _list_users(view, cutoff)
    nq = view.num_queries
    if distance == "cosine":
        _refuse_zero(features, rows, name)
    else:
        bad = features.non_binary()
        if bad >= 0:
            raise MeasureError(
                f"{name}: item {features.ids[bad]!r} has a feature that is neither 0 nor 1: "
                "the Jaccard distance reads label sets or 0/1 vectors; use the cosine "
                "distance (ILD@k) for other vectors"
            )
    similarity = _similarity_sums(features, users, rows, nq, distance)
    sizes = np.bincount(users, minlength=nq).astype(np.float64)
    pairs = sizes * (sizes - 1.0) / 2.0
    value = np.divide(pairs - similarity, pairs, out=np.zeros(nq), where=pairs > 0)
    upper = 2.0 if distance == "cosine" else 1.0
    out: Float64Array = np.clip(value, 0.0, upper)  # rounding of the sums only
    return out


# --- popularity-based ranking-based statistical parity (Zhu, Wang and Caverlee 2021) -------


def _list_and_train_codes(
    view: Ranked, cutoff: int, items: ItemData
) -> tuple[Int64Array, Int64Array, Int64Array, Int64Array]:
    """The user and item code of every entry of the top-``cutoff`` lists and of every
    training item of the evaluated users, coded together (an item the popularity data does
    not list gets the same code in both)."""
    if view.source is None or view.entry is None or items.train is None:
        raise MeasureError("PopRSP needs the run's item ids and the training interactions")
    rows = np.flatnonzero(view.pos < cutoff)
    run = view.source.run
    data, offsets = _core.take_strings(run.doc_data, run.doc_offsets, view.entry[rows])
    train_users, train_data, train_offsets = items.train.items_of(view.qids)
    joined = np.concatenate([data, train_data])
    bounds = np.concatenate([offsets, train_offsets[1:] + data.shape[0]]).astype(np.int64)
    codes = items.codes(joined, bounds)
    count = rows.shape[0]
    users: Int64Array = view.ids[rows]
    return users, codes[:count], train_users, codes[count:]


def statistical_parity(
    view: Ranked, cutoff: int, head_share: float, unlisted: str, count: str = "users"
) -> GroupRateStatistic:
    """PopRSP's per-user counts (see :class:`~ranklens.kernels.recommender.GroupRateStatistic`).

    The groups: the short head of the popularity data (``head_share``; ``count``: of its
    distinct users, or of its ``"interactions"``) and the long tail,
    the rest of the catalogue (``num_items`` items, else the popularity data's). Items the
    popularity data does not list are in the long tail (``unlisted="tail"``) or in neither
    group (``"ignore"``, as Elliot, whose groups hold only training items).

    Raises
    ------
    MeasureError
        No training interactions or popularity, or more distinct items than the catalogue.

    Examples
    --------
    Head a (10 of 14 interactions), tail b c d; u trained on b: it could get a (head) and
    c, d (tail); its list a c shows the head's one and 1 of the tail's 2:
    P_head = 1, P_tail = 1/2, |1 - 1/2| / (1 + 1/2) = 1/3.

    >>> import ranklens
    >>> res = ranklens.evaluate({"u": {"a": 1}}, {"u": {"a": 2, "c": 1}}, "PopRSP@2",
    ...                         popularity={"a": 10, "b": 2, "c": 1, "d": 1}, train={"u": ["b"]})
    >>> round(res["PopRSP@2"], 4)
    0.3333
    """
    name = f"PopRSP@{cutoff}"
    items = item_data(view)
    if items.train is None:
        raise MeasureError(
            f"{name} needs each user's training items: pass train= to ranklens.evaluate / "
            "Evaluator (a table of user and item columns, {user: [items]} or a file of "
            "'user item' lines; ranklens eval --train FILE)"
        )
    items.require_popularity(name)
    tail = items.long_tail(head_share, count)
    known = items.num_known
    nq = view.num_queries
    users, codes, train_users, train_codes = _list_and_train_codes(view, cutoff, items)
    head_size = float(known - int(tail.sum()))
    if unlisted == "tail":
        catalogue = float(items.catalogue_size(name))
        distinct = np.unique(np.concatenate([codes, train_codes]))
        seen = known + int(np.count_nonzero(distinct >= known))
        if seen > catalogue:
            raise MeasureError(
                f"{name}: the lists and training items hold {seen} distinct items, more than "
                f"the catalogue's {int(catalogue)}: pass the catalogue size as num_items= "
                "(ranklens eval --num-items N)"
            )
        tail_size = catalogue - head_size
    else:
        tail_size = float(int(tail.sum()))

    def group(of: Int64Array) -> Int64Array:
        """0 head, 1 tail, 2 neither."""
        inside = of < known
        out = np.full(of.shape[0], 1 if unlisted == "tail" else 2, dtype=np.int64)
        out[inside] = tail[of[inside]].astype(np.int64)
        return out

    # each user's training items, once each (codes are per item id)
    width = np.int64(max(int(train_codes.max(initial=0)) + 1, 1))
    pair = np.unique(train_users * width + train_codes)
    t_users, t_codes = pair // width, pair % width
    interacted = np.zeros((nq, 3))
    np.add.at(interacted, (t_users, group(t_codes)), 1.0)
    candidates = np.array([head_size, tail_size])[None, :] - interacted[:, :2]
    # the un-interacted items of each list
    if t_codes.shape[0]:
        train_keys = t_users * width + t_codes
        list_keys = users * width + np.minimum(codes, width - 1)
        in_train = np.isin(list_keys, train_keys) & (codes < width)
    else:
        in_train = np.zeros(codes.shape[0], dtype=bool)
    keep = ~in_train
    shown = np.zeros((nq, 3))
    np.add.at(shown, (users[keep], group(codes[keep])), 1.0)
    return GroupRateStatistic(shown[:, :2].copy(), candidates.astype(np.float64))
