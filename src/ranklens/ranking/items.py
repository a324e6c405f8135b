"""What the recommender measures know about items beside the run and the qrels: their
popularity (interactions in the training data) and the size of the catalogue.

Popularity is given as ``{item: count}``, as a table (pandas, polars or pyarrow; either an
item column with a ``count`` / ``popularity`` column, or training interactions, one row per
interaction) or as a file: text lines ``item count`` (whitespace separated, ``#`` comments
skipped) or a Parquet file holding such a table. An item the popularity data does not list
has popularity 0. Counts given are used as they are.

Training interactions (a table without a count column, or ``train=``) give two counts per
item: its distinct users (:attr:`ItemData.popularity`, what the published definitions of
``EPC``, ``EFD``, ``PSP``, ``ARP`` and the short head count: a user who interacted with an
item several times counts once) and its interactions, the rows (:attr:`ItemData.interactions`,
read by ``count='interactions'``). A table without a user column cannot tell repeated
pairs apart: each row counts as one user.

The catalogue is ``num_items`` items when given, else the items of the popularity data.

>>> items = ItemData.of({"a": 5, "b": 3, "c": 1, "d": 1})
>>> items.catalogue_size("Coverage@10"), items.popularity.tolist()
(4, [5.0, 3.0, 1.0, 1.0])
>>> codes = items.codes(*encode(["b", "z", "a"]))
>>> codes.tolist(), items.popularity_of(codes).tolist()
([1, 4, 0], [3.0, 0.0, 5.0])
>>> items.long_tail(0.2).tolist()  # the head holds 20% of the 10 interactions: item a
[False, True, True, True]

A play log repeats (user, item) pairs: x played a three times, y once; a has 2 users and
4 interactions.

>>> log = ItemData.of(train={"x": ["a", "a", "a", "b"], "y": ["a"]})
>>> log.popularity.tolist(), log.interactions_per_item().tolist(), log.num_users
([2.0, 1.0], [4.0, 1.0], 2)
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import IO, Any, cast

import numpy as np

from ranklens.base.errors import InputError, MeasureError, ParseError
from ranklens.base.types import BoolArray, Float64Array, Int64Array, UInt8Array
from ranklens.data.native import core as _core
from ranklens.data.qrels import Qrels
from ranklens.ranking.interactions import TrainingInteractions, TrainLike
from ranklens.ranking.item_features import ItemFeatures, ItemFeaturesLike
from ranklens.ranking.item_tables import (
    ITEM_NAMES,
    POPULARITY_COUNTS,
    USER_NAMES,
    filled_column,
    first_column,
    pandas_table,
)

PopularityLike = Mapping[str, float] | str | os.PathLike[str] | IO[bytes] | IO[str] | Any
"""Item popularity: ``{item: count}``, a table (pandas / polars / pyarrow), or a file."""

COUNT_NAMES = ("count", "popularity", "pop", "interactions", "n")


def encode(ids: list[str]) -> tuple[UInt8Array, Int64Array]:
    """The UTF-8 string column (bytes, offsets) of ``ids``."""
    return _core.encode_strings(ids)


@dataclass(frozen=True, eq=False)
class ItemData:
    """Item popularity and catalogue size, prepared once for many runs.

    Attributes
    ----------
    ids_data, ids_offsets : the items of the popularity data (a string column), distinct.
    popularity : float64, the popularity of each of them: the counts given, or, from
        training interactions, the item's distinct users.
    num_items : the catalogue size given (``None``: the items of the popularity data).
    has_popularity : whether popularity data was given.
    source : where the popularity came from, for messages.
    num_users : the number of training users (instances) N of the propensity-scored
        measures: given, or the distinct users of a table of training interactions.
    qrels : the evaluator's qrels, for the measures that rank each user's relevant items
        (the best achievable value of ``PSP``, ...).
    """

    ids_data: UInt8Array
    ids_offsets: Int64Array
    popularity: Float64Array
    num_items: int | None = None
    has_popularity: bool = True
    source: str | None = None
    num_users: int | None = None
    qrels: Qrels | None = None
    features: ItemFeatures | None = None
    """The item features of ``ILD`` (``item_features=``)."""
    train: TrainingInteractions | None = None
    """Each user's training items, for ``PopRSP`` (``train=``)."""
    interactions: Float64Array | None = None
    """The interactions (rows) of each item of the popularity data where they differ from
    ``popularity`` (training interactions that repeat a (user, item) pair); ``None``: the
    same as ``popularity``."""
    _memo: dict[object, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def of(
        cls,
        popularity: PopularityLike | None = None,
        num_items: int | None = None,
        num_users: int | None = None,
        qrels: Qrels | None = None,
        item_features: ItemFeaturesLike | None = None,
        train: TrainLike | None = None,
    ) -> ItemData:
        """Read ``popularity`` (see the module's description) and check ``num_items``.

        ``item_features`` (:mod:`ranklens.ranking.item_features`) and ``train``
        (:mod:`ranklens.ranking.interactions`) are read too; without ``popularity``, the
        training interactions give it (interactions per item), and without
        ``num_users`` their distinct users.

        Raises
        ------
        InputError
            A count is negative or not finite, an item is listed twice, a table has no
            item column, ``num_items`` is not a positive integer
            (:class:`~ranklens.base.errors.ParseError` names a file's bad line).
        """
        if num_items is not None and (
            isinstance(num_items, bool) or not isinstance(num_items, int) or num_items < 1
        ):
            raise InputError(f"num_items must be a positive number of items, not {num_items!r}")
        if num_users is not None and (
            isinstance(num_users, bool) or not isinstance(num_users, int) or num_users < 1
        ):
            raise InputError(f"num_users must be a positive number of users, not {num_users!r}")
        if item_features is not None or train is not None:
            features = None if item_features is None else ItemFeatures.of(item_features)
            training = None if train is None else TrainingInteractions.of(train)
            interactions = None
            if popularity is None and training is not None:
                popularity, interactions = _training_counts(training)
                num_users = training.num_users if num_users is None else num_users
            base = cls.of(popularity, num_items, num_users, qrels)
            counted = (
                base.interactions if interactions is None else _differing(base, interactions)
            )
            return dataclasses.replace(
                base, features=features, train=training, interactions=counted, _memo={}
            )
        if popularity is None:
            empty = encode([])
            return cls(empty[0], empty[1], np.zeros(0), num_items, False, None, num_users, qrels)
        if isinstance(popularity, ItemData):
            return cls(
                popularity.ids_data,
                popularity.ids_offsets,
                popularity.popularity,
                num_items if num_items is not None else popularity.num_items,
                popularity.has_popularity,
                popularity.source,
                num_users if num_users is not None else popularity.num_users,
                qrels if qrels is not None else popularity.qrels,
                popularity.features,
                popularity.train,
                popularity.interactions,
            )
        ids, counts, source, users, rows = _read(popularity)
        data, offsets = encode(ids)
        codes, first = _core.intern_strings(data, offsets)
        if first.shape[0] < len(ids):  # the first row that repeats an earlier item
            again = int(np.flatnonzero(first[codes] != np.arange(len(ids)))[0])
            item = ids[again]
            raise InputError(
                f"popularity: item {item!r} is listed twice (rows {int(first[codes[again]]) + 1} "
                f"and {again + 1}); give one count per item, or the training interactions as a "
                "table with an item column",
                path=source,
            )
        values = np.asarray(counts, dtype=np.float64).reshape(-1)
        bad = ~np.isfinite(values) | (values < 0)
        if bad.any():
            row = int(np.argmax(bad))
            raise InputError(
                f"popularity of item {ids[row]!r} must be a finite number >= 0, got "
                f"{counts[row]!r}",
                path=source,
            )
        users = num_users if num_users is not None else users
        items = cls(data, offsets, values, num_items, True, source, users, qrels)
        if rows is None:
            return items
        return dataclasses.replace(items, interactions=_differing(items, rows), _memo={})

    @property
    def num_known(self) -> int:
        """How many items the popularity data lists."""
        return int(self.popularity.shape[0])

    def require_popularity(self, measure: str) -> None:
        """Raise :class:`MeasureError` unless popularity data was given."""
        if not self.has_popularity:
            raise MeasureError(
                f"{measure} needs item popularity: pass popularity= to ranklens.evaluate / "
                "Evaluator ({item: count}, a table of training interactions or a file of "
                "'item count' lines; ranklens eval --popularity FILE)"
            )

    def catalogue_size(self, measure: str) -> int:
        """``num_items``, else the number of items of the popularity data.

        Raises
        ------
        MeasureError
            Neither was given.
        """
        if self.num_items is not None:
            return self.num_items
        if self.has_popularity and self.num_known > 0:
            return self.num_known
        raise MeasureError(
            f"{measure} needs the catalogue size: pass num_items= (ranklens eval "
            "--num-items N) or popularity= (its items are the catalogue)"
        )

    def training_users(self, measure: str) -> int:
        """The number of training users N (``num_users``).

        Raises
        ------
        MeasureError
            It is not known.
        """
        if self.num_users is None:
            raise MeasureError(
                f"{measure} needs the number of training users N for its propensities: pass "
                "num_users= (ranklens eval --num-users N), or popularity= as a table of "
                "training interactions with a user column"
            )
        return self.num_users

    def require_users_bound(self, measure: str) -> None:
        r"""Refuse popularity counts above the number of training users N: the measures
        that read an item's popularity as its share of the training users (``EPC``'s
        :math:`1 - \phi(i)/N`, Jain et al.'s :math:`N_l` of ``PSP``) need
        :math:`\phi(i) \le N`.

        Raises
        ------
        MeasureError
            An item's popularity exceeds ``num_users`` (naming the most popular item).
        """
        users = self.training_users(measure)
        if self.num_known == 0:
            return
        top = int(np.argmax(self.popularity))
        if self.popularity[top] > users:
            item = bytes(self.ids_data[self.ids_offsets[top] : self.ids_offsets[top + 1]])
            raise MeasureError(
                f"{measure}: item {item.decode('utf-8', 'replace')!r} has popularity "
                f"{self.popularity[top]:g}, more than the N = {users} training users, and "
                f"{measure} reads an item's popularity as its number of distinct training "
                "users (at most N): give popularity= the training interactions as a table "
                "with a user column (ranklens counts each item's distinct users), or counts "
                "of distinct users, and num_users= the training users"
            )

    def interactions_per_item(self) -> Float64Array:
        """The interactions (rows) of each item of the popularity data: where the training
        interactions repeat a (user, item) pair, more than its distinct users
        (``popularity``); otherwise ``popularity``."""
        return self.popularity if self.interactions is None else self.interactions

    def counts(self, count: str) -> Float64Array:
        """The popularity vector that ``count`` names: ``"users"`` (``popularity``) or
        ``"interactions"`` (:meth:`interactions_per_item`)."""
        if count == "interactions":
            return self.interactions_per_item()
        if count not in POPULARITY_COUNTS:
            raise MeasureError(f"count must be one of {list(POPULARITY_COUNTS)}, not {count!r}")
        return self.popularity

    def relevant(self, qids: tuple[str, ...], threshold: int) -> tuple[Int64Array, Int64Array]:
        """The user (index into ``qids``) and item code of every qrels item of grade >=
        ``threshold`` of the users ``qids``.

        Raises
        ------
        MeasureError
            The qrels were not attached (the item data was not made by an evaluator).
        """
        if self.qrels is None:
            raise MeasureError("the relevant items are not known: evaluate with an Evaluator")
        qrels = self.qrels
        if "qrels_index" not in self._memo:  # once, not once per streamed chunk
            self._memo["qrels_index"] = qrels.query_index()
        index: dict[str, int] = self._memo["qrels_index"]
        rows = np.fromiter((index.get(q, -1) for q in qids), dtype=np.int64, count=len(qids))
        present = np.flatnonzero(rows >= 0)
        starts = qrels.q_offsets[rows[present]].astype(np.int64)
        sizes = (qrels.q_offsets[rows[present] + 1] - starts).astype(np.int64)
        entries = _core.ranges(starts, sizes, 1)
        users = np.repeat(present, sizes)
        keep = qrels.rels[entries] >= threshold
        entries, users = entries[keep], users[keep]
        data, offsets = _core.take_strings(qrels.doc_data, qrels.doc_offsets, entries)
        return users.astype(np.int64), self.codes(data, offsets)

    def fingerprint(self) -> str:
        """A digest of the popularity data's item ids in their order (computed once): two
        :class:`ItemData` with the same fingerprint give every item the same code, so
        counts kept by code (:mod:`ranklens.kernels.run_parts`) can be added."""
        if "fingerprint" not in self._memo:
            import hashlib

            digest = hashlib.blake2b(digest_size=16)
            digest.update(np.ascontiguousarray(self.ids_offsets, dtype=np.int64).tobytes())
            digest.update(np.ascontiguousarray(self.ids_data, dtype=np.uint8).tobytes())
            self._memo["fingerprint"] = digest.hexdigest()
        found: str = self._memo["fingerprint"]
        return found

    def codes(self, data: UInt8Array, offsets: Int64Array) -> Int64Array:
        """A code for each string of the column ``(data, offsets)``: the item's row in the
        popularity data (``0 .. num_known - 1``), or ``num_known`` and up for items it does
        not list, numbered in order of first appearance (equal strings get equal codes).

        A column at least as long as the popularity data is interned together with it; a
        shorter one (a streamed chunk's top-k lists against a large catalogue) looks its
        distinct strings up in a table of the popularity ids built once, so that each
        chunk costs its own size, not the catalogue's; with a catalogue of integer ids
        (:meth:`_rows_by_value`) each string is looked up by the integer it writes and
        only those it does not list are interned. All give the same codes.
        """
        known = self.num_known
        rows = offsets.shape[0] - 1
        if rows > 0 and self._rows_by_value() is not None:
            return self._codes_by_value(data, offsets.astype(np.int64))
        if rows >= known:
            joined = np.concatenate([self.ids_data, data]) if known else data
            bounds = (
                np.concatenate([self.ids_offsets, offsets[1:] + self.ids_data.shape[0]])
                if known
                else offsets
            ).astype(np.int64)
            codes, _ = _core.intern_strings(joined, bounds)
            out: Int64Array = codes[known:]
            return out
        local, first = _core.intern_strings(data, offsets.astype(np.int64))
        found = self._rows_of(data, offsets[first], offsets[first + 1])
        unknown = found < 0
        found[unknown] = known + np.arange(int(unknown.sum()), dtype=np.int64)
        looked_up: Int64Array = found[local]
        return looked_up

    def _codes_by_value(self, data: UInt8Array, offsets: Int64Array) -> Int64Array:
        """:meth:`codes` against a catalogue of integer ids (:meth:`_rows_by_value`): each
        string's row found by the integer it writes (a string that writes none, or writes
        it otherwise, ``017``, is not listed), with no string compared or interned; the
        strings it does not list numbered from ``num_known`` in order of first appearance."""
        table = cast(Int64Array, self._rows_by_value())
        values = _core.decimal_values(data, offsets)
        inside = (values >= 0) & (values < table.shape[0])
        found: Int64Array = np.where(inside, table[np.where(inside, values, 0)], -1)
        missing = np.flatnonzero(found < 0)
        if missing.shape[0]:
            sub_data, sub_offsets = _core.take_strings(data, offsets, missing)
            local, _ = _core.intern_strings(sub_data, sub_offsets)
            found[missing] = self.num_known + local  # intern: codes by first appearance
        return found

    def _rows_of(self, data: UInt8Array, starts: Int64Array, ends: Int64Array) -> Int64Array:
        """The row in the popularity data of each string ``data[starts[i]:ends[i]]``, -1 for
        a string it does not list: a binary search in the ids sorted once as fixed-width
        byte strings, or, where that cannot be exact (numpy's fixed-width strings drop
        trailing NUL bytes, so an id holding a NUL byte could match another) or would be
        large (ids longer than :data:`_FIXED_WIDTH_LIMIT` bytes), a table of the ids."""
        nul = np.zeros(data.shape[0] + 1, dtype=np.int64)
        np.cumsum(data == 0, out=nul[1:])
        sorted_ids = self._sorted_ids()
        if sorted_ids is None or bool((nul[ends] > nul[starts]).any()):
            table = self._id_rows()
            return np.fromiter(
                (
                    table.get(bytes(data[a:b]), -1)
                    for a, b in zip(starts.tolist(), ends.tolist(), strict=True)
                ),
                dtype=np.int64,
                count=starts.shape[0],
            )
        fixed, order = sorted_ids
        width = self._id_width()
        found = np.full(starts.shape[0], -1, dtype=np.int64)
        fits = np.flatnonzero(ends - starts <= width)  # a longer id is not listed
        if fits.size and fixed.size:
            wanted = _sort_keys(_fixed_width(data, starts[fits], ends[fits], width))
            # searched in increasing order: each search starts near the previous one, in
            # memory the cache still holds (3x faster over a million-item catalogue)
            by_key = np.argsort(wanted, kind="stable")
            at = np.empty(wanted.shape[0], dtype=np.int64)
            at[by_key] = np.searchsorted(fixed, wanted[by_key])
            at = np.minimum(at, fixed.size - 1)
            hit = fixed[at] == wanted
            found[fits[hit]] = order[at[hit]]
        return found

    def _rows_by_value(self) -> Int64Array | None:
        """``table[v]``: the row of the id written ``str(v)``, -1 for none, when every id is
        a plainly written decimal integer and the largest is below
        :data:`_VALUE_TABLE_SLACK` times their number (plus 65,536); else ``None`` (built
        once). The ids are distinct, so each value has at most one row."""
        key = "rows_by_value"
        if key not in self._memo:
            table: Int64Array | None = None
            if self.num_known:
                values = _core.decimal_values(self.ids_data, self.ids_offsets)
                largest = int(values.max())
                if int(values.min()) >= 0 and largest < _VALUE_TABLE_SLACK * values.shape[0] + (
                    1 << 16
                ):
                    table = np.full(largest + 1, -1, dtype=np.int64)
                    table[values] = np.arange(values.shape[0], dtype=np.int64)
            self._memo[key] = table
        found: Int64Array | None = self._memo[key]
        return found

    def _id_width(self) -> int:
        """The longest popularity id in bytes (at least 1; found once)."""
        if "id_width" not in self._memo:
            sizes = self.ids_offsets[1:] - self.ids_offsets[:-1]
            self._memo["id_width"] = max(int(sizes.max()), 1) if self.num_known else 1
        width: int = self._memo["id_width"]
        return width

    def _sorted_ids(self) -> tuple[np.ndarray[Any, Any], Int64Array] | None:
        """The popularity ids as sort keys (:func:`_sort_keys` of their fixed-width byte
        strings), sorted, and the row of each; ``None`` where an id holds a NUL byte or is
        longer than :data:`_FIXED_WIDTH_LIMIT` bytes (built once)."""
        key = "sorted_ids"
        if key not in self._memo:
            starts, ends = self.ids_offsets[:-1], self.ids_offsets[1:]
            width = self._id_width()
            if width > _FIXED_WIDTH_LIMIT or bool((self.ids_data == 0).any()):
                self._memo[key] = None
            else:
                fixed = _sort_keys(_fixed_width(self.ids_data, starts, ends, width))
                order = np.argsort(fixed, kind="stable").astype(np.int64)
                self._memo[key] = (fixed[order], order)
        found: tuple[np.ndarray[Any, Any], Int64Array] | None = self._memo[key]
        return found

    def _byte_order(self) -> Int64Array:
        """The rows of the popularity data with their ids in byte order: the order of the
        binary search's keys where it has them, else a sort of the ids as Python bytes."""
        sorted_ids = self._sorted_ids()
        if sorted_ids is not None:  # ids are distinct: the same order as sorting bytes
            return sorted_ids[1]
        ids = [
            bytes(self.ids_data[a:b])
            for a, b in zip(
                self.ids_offsets[:-1].tolist(), self.ids_offsets[1:].tolist(), strict=True
            )
        ]
        if not ids:
            return np.zeros(0, dtype=np.int64)
        by_id: Int64Array = np.argsort(np.array(ids, dtype=object), kind="stable")
        return by_id

    def _id_rows(self) -> dict[bytes, int]:
        """``{item id: row}`` of the popularity data, built once."""
        key = "id_rows"
        if key not in self._memo:
            ends = self.ids_offsets.tolist()
            self._memo[key] = {
                bytes(self.ids_data[a:b]): row
                for row, (a, b) in enumerate(itertools.pairwise(ends))
            }
        table: dict[bytes, int] = self._memo[key]
        return table

    def popularity_of(self, codes: Int64Array, count: str = "users") -> Float64Array:
        """The popularity of the items ``codes`` (0 for items the data does not list);
        ``count="interactions"``: their interactions (:meth:`counts`)."""
        key = ("padded", count)
        if key not in self._memo:  # once, not once per streamed chunk (a catalogue's copy)
            self._memo[key] = np.concatenate([self.counts(count), [0.0]])
        padded: Float64Array = self._memo[key]
        out: Float64Array = padded[np.minimum(codes, self.num_known)]
        return out

    def long_tail(self, head_share: float, count: str = "users") -> BoolArray:
        """Whether each item of the popularity data is in the long tail: not in the short
        head, the most popular items that together hold ``head_share`` of the total
        popularity (``count``: the items' distinct users, or their ``"interactions"``).

        Items are ranked by popularity, highest first, equal popularity by item id in byte
        order; the head is the shortest prefix of that ranking whose popularity adds up to
        at least ``head_share`` of the total (no item if the total is 0). An item without
        interactions is always in the long tail.
        """
        key = ("long_tail", head_share, count)
        if key not in self._memo:
            popularity = self.counts(count)
            by_id = self._byte_order()
            order = by_id[np.argsort(-popularity[by_id], kind="stable")]
            total = float(popularity.sum())
            tail = np.ones(self.num_known, dtype=bool)
            if total > 0:
                running = np.cumsum(popularity[order])
                size = int(np.searchsorted(running, head_share * total, side="left")) + 1
                size = min(size, self.num_known)
                head = order[:size]
                tail[head[popularity[head] > 0]] = False
            self._memo[key] = tail
        found: BoolArray = self._memo[key]
        return found


_Read = tuple[list[str], list[Any], str | None, int | None, list[int] | None]
"""Item ids, their counts, the source's name, the number of distinct users (of a table of
interactions with a user column; else ``None``) and the interactions (rows) per item where
the counts are distinct users (else ``None``)."""


def _read(popularity: object) -> _Read:
    """The popularity data (see :data:`_Read`)."""
    from ranklens.data.frames import is_frame

    if isinstance(popularity, Mapping):
        return [str(k) for k in popularity], list(popularity.values()), "<dict>", None, None
    if is_frame(popularity):
        return _of_frame(popularity, "<DataFrame>")
    name = os.fspath(popularity) if isinstance(popularity, (str, os.PathLike)) else None
    if name is not None and name.endswith(".parquet"):
        from ranklens.data.table_files import open_parquet

        return _of_frame(open_parquet(name, "popularity="), name)
    return _of_text(popularity)


def _of_frame(frame: Any, source: str) -> _Read:
    frame, columns = pandas_table(frame)
    item = first_column(ITEM_NAMES, columns)
    if item is None:
        raise InputError(
            f"popularity table has no item column (columns: {columns}); name it one of "
            f"{list(ITEM_NAMES)}",
            path=source,
        )
    count = next((c for c in COUNT_NAMES if c in columns), None)
    items = filled_column(frame, item, "popularity", source).astype(str)
    if count is None:  # training interactions: one row per interaction
        counted = items.value_counts(sort=False)
        ids = [str(i) for i in counted.index]
        rows = counted.to_numpy().tolist()
        user = first_column(USER_NAMES, columns)
        if user is None:  # no user to tell repeated pairs apart: a row is a user
            return ids, rows, source, None, None
        owners = filled_column(frame, user, "popularity", source).astype(str)
        pairs = type(frame)({"user": owners.to_numpy(), "item": items.to_numpy()})
        pairs = pairs.drop_duplicates()
        distinct = pairs["item"].value_counts(sort=False).reindex(counted.index)
        users = int(pairs["user"].nunique())
        return ids, distinct.to_numpy().tolist(), source, users, rows
    values = filled_column(frame, count, "popularity", source).to_numpy()
    try:
        numbers = values.astype(np.float64).tolist()
    except (TypeError, ValueError):
        raise InputError(
            f"popularity column {count!r} holds something that is not a number", path=source
        ) from None
    return items.tolist(), numbers, source, None, None


def _training_counts(training: TrainingInteractions) -> tuple[dict[str, int], list[int]]:
    """``{item: distinct users}`` of the training interactions, and the interactions (rows)
    of the same items in the same order."""
    _, data, offsets = training.items_of(training.users)  # each user's items, once each
    codes, first = _core.intern_strings(data, offsets.astype(np.int64))
    users = np.bincount(codes, minlength=first.shape[0])
    distinct = {
        bytes(data[offsets[j] : offsets[j + 1]]).decode("utf-8"): int(users[c])
        for c, j in enumerate(first.tolist())
    }
    rows = [int(training.counts[item]) for item in distinct]
    return distinct, rows


def _differing(items: ItemData, rows: Sequence[float]) -> Float64Array | None:
    """``rows`` as the interactions of ``items`` (in the order of its ids), ``None`` where
    they equal its popularity (no repeated (user, item) pair)."""
    counted = np.asarray(rows, dtype=np.float64).reshape(-1)
    return None if np.array_equal(counted, items.popularity) else counted


def _of_text(source: object) -> tuple[list[str], list[Any], str | None, None, None]:
    from ranklens.data.source import read_bytes

    data, name = read_bytes(source)
    ids: list[str] = []
    counts: list[float] = []
    for number, raw in enumerate(data.decode("utf-8").splitlines(), start=1):
        fields = raw.split()
        if not fields or fields[0].startswith("#"):
            continue
        if len(fields) != 2:
            raise ParseError(
                f"a popularity line has 2 fields (item count), not {len(fields)}",
                path=name,
                line=number,
            )
        try:
            value = float(fields[1])
        except ValueError:
            raise ParseError(
                f"popularity of item {fields[0]!r} is not a number: {fields[1]!r}",
                path=name,
                line=number,
            ) from None
        if not math.isfinite(value) or value < 0:
            raise InputError(
                f"popularity of item {fields[0]!r} must be a finite number >= 0, got {fields[1]!r}",
                path=name,
                line=number,
            )
        ids.append(fields[0])
        counts.append(value)
    return ids, counts, name, None, None


_FIXED_WIDTH_LIMIT = 64
"""The longest item id (bytes) looked up by binary search among fixed-width byte strings
(:meth:`ItemData.codes`); longer catalogues use a table of the ids."""

_VALUE_TABLE_SLACK = 8
"""A catalogue of integer ids is looked up in a table indexed by the integer when its
largest id is below this many times the number of ids (plus 65,536): 8 bytes of table per
possible id, a lookup per item instead of a binary search (a 100M-row run's top-10 items
against a million-item catalogue: 2.8 s of searches and interning, 2026-11-27)."""

def _sort_keys(fixed: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """Fixed-width byte strings (``S{w}``) as keys with the same order and equality: for
    ``w <= 8`` unsigned 64-bit integers (the bytes read big-endian, zero-padded: an integer
    comparison and search instead of a string one, several times faster over a large
    catalogue), else the strings themselves."""
    width = fixed.dtype.itemsize
    if width > 8:
        return fixed
    padded = np.zeros((fixed.shape[0], 8), dtype=np.uint8)
    padded[:, :width] = fixed.view(np.uint8).reshape(-1, width)
    keys: np.ndarray[Any, Any] = padded.view(">u8").reshape(-1).astype(np.uint64)
    return keys


def _fixed_width(
    data: UInt8Array, starts: Int64Array, ends: Int64Array, width: int
) -> np.ndarray[Any, Any]:
    """The strings ``data[starts[i]:ends[i]]`` (each at most ``width`` bytes) as numpy
    fixed-width byte strings (``S{width}``, zero-padded), without a Python loop."""
    sizes = (ends - starts).astype(np.int64)
    matrix = np.zeros((sizes.shape[0], width), dtype=np.uint8)
    rows = np.repeat(np.arange(sizes.shape[0]), sizes)
    columns = np.arange(int(sizes.sum()), dtype=np.int64) - np.repeat(
        np.cumsum(sizes) - sizes, sizes
    )
    matrix[rows, columns] = data[np.repeat(starts, sizes) + columns]
    return matrix.view(f"S{width}").reshape(-1)
