"""Training interactions (``train=``): the items each user interacted with in training.

``PopRSP`` leaves each user's training items out of its denominators (the items the user
could still be recommended); without ``popularity=``, the training interactions also give
the items' popularity (interactions per item, one per row) and, without ``num_users=``,
the number of training users (its distinct users).

Given as ``{user: items}`` (an iterable of item ids, or a mapping whose keys are the
items), a table (pandas, polars or pyarrow) with a user column (``user_id``, ``user``,
...) and an item column (``item_id``, ``item``, ...), one row per interaction, or a file:
text lines ``user item`` (whitespace or tab separated, comma separated for ``.csv``;
further fields such as a rating or a time are ignored; a first line naming the columns is
a header; ``#`` lines are comments) or a Parquet file holding such a table.

>>> t = TrainingInteractions.of({"u1": ["a", "b", "a"], "u2": ["b"]})
>>> t.num_users, t.popularity()
(2, {'a': 2, 'b': 2})
>>> users, data, offsets = t.items_of(("u2", "u3", "u1"))
>>> users.tolist(), [bytes(data[a:b]).decode() for a, b in zip(offsets[:-1], offsets[1:])]
([0, 2, 2], ['b', 'a', 'b'])
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import IO, Any

import numpy as np

from ranklens.base.errors import InputError, ParseError
from ranklens.base.types import Int64Array, UInt8Array
from ranklens.data.native import core as _core
from ranklens.ranking.item_tables import (
    ITEM_NAMES,
    USER_NAMES,
    filled_column,
    first_column,
    pandas_table,
)

TrainLike = Mapping[str, Any] | str | os.PathLike[str] | IO[bytes] | IO[str] | Any
"""Training interactions: ``{user: items}``, a table of user and item columns, or a file."""


@dataclass(frozen=True, eq=False)
class TrainingInteractions:
    """Each user's training items (distinct) and the interactions per item.

    Attributes
    ----------
    users : the training users, in order of first appearance.
    user_offsets : int64 (users + 1): user ``j``'s items are entries
        ``user_offsets[j]:user_offsets[j + 1]`` of the item column.
    item_data, item_offsets : the item column (each user's distinct items).
    counts : the interactions (rows) per item, duplicates included.
    source : where they came from, for messages.
    """

    users: tuple[str, ...]
    user_offsets: Int64Array
    item_data: UInt8Array
    item_offsets: Int64Array
    counts: Mapping[str, int]
    source: str

    @classmethod
    def of(cls, train: TrainLike) -> TrainingInteractions:
        """Read ``train`` (see the module's description).

        Raises
        ------
        InputError
            A table without a user or item column, a line with fewer than 2 fields
            (:class:`~ranklens.base.errors.ParseError`, naming the file and line).
        """
        if isinstance(train, TrainingInteractions):
            return train
        from ranklens.data.frames import is_frame

        if isinstance(train, Mapping):
            pairs: list[tuple[str, str]] = []
            for user, items in train.items():
                if isinstance(items, (str, bytes)):
                    raise InputError(
                        f"train: user {user!r} has one string ({items!r}) as its items: give "
                        "a list of item ids, {user: [items]}",
                        path="<dict>",
                    )
                pairs.extend((str(user), str(item)) for item in items)
            return _build(pairs, "<dict>")
        if is_frame(train):
            return _build(_frame_pairs(train, "<DataFrame>"), "<DataFrame>")
        name = os.fspath(train) if isinstance(train, (str, os.PathLike)) else None
        if name is not None and name.lower().endswith(".parquet"):
            from ranklens.data.table_files import open_parquet

            return _build(_frame_pairs(open_parquet(name, "train="), name), name)
        if name is None and not hasattr(train, "read"):
            raise InputError(
                "train must be a table with user and item columns, {user: [items]} or a "
                f"file, not {type(train).__name__}"
            )
        return _of_text(train)

    @property
    def num_users(self) -> int:
        """The number of distinct training users."""
        return len(self.users)

    def popularity(self) -> dict[str, int]:
        """``{item: interactions}``: the rows of each item."""
        return dict(self.counts)

    def items_of(self, qids: tuple[str, ...]) -> tuple[Int64Array, UInt8Array, Int64Array]:
        """The training items of the users ``qids``: the user (index into ``qids``) of each,
        and the items as a string column (users without training items have none)."""
        index = {u: j for j, u in enumerate(self.users)}
        rows = np.fromiter((index.get(q, -1) for q in qids), dtype=np.int64, count=len(qids))
        present = np.flatnonzero(rows >= 0)
        starts = self.user_offsets[rows[present]]
        sizes = self.user_offsets[rows[present] + 1] - starts
        entries = _core.ranges(starts.astype(np.int64), sizes.astype(np.int64), 1)
        data, offsets = _core.take_strings(self.item_data, self.item_offsets, entries)
        users: Int64Array = np.repeat(present, sizes).astype(np.int64)
        return users, data, offsets


def _build(pairs: list[tuple[str, str]], source: str) -> TrainingInteractions:
    if not pairs:
        raise InputError("train: no interaction given", path=source)
    by_user: dict[str, dict[str, None]] = {}
    counts: Counter[str] = Counter()
    for user, item in pairs:
        by_user.setdefault(user, {})[item] = None
        counts[item] += 1
    items = [item for user_items in by_user.values() for item in user_items]
    sizes = [len(user_items) for user_items in by_user.values()]
    data, offsets = _core.encode_strings(items)
    user_offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    return TrainingInteractions(tuple(by_user), user_offsets, data, offsets, dict(counts), source)


def _frame_pairs(frame: Any, source: str) -> list[tuple[str, str]]:
    frame, columns = pandas_table(frame)
    user = first_column(USER_NAMES, columns)
    item = first_column(ITEM_NAMES, columns)
    if user is None or item is None:
        raise InputError(
            f"train table needs a user column (one of {list(USER_NAMES)}) and an item column "
            f"(one of {list(ITEM_NAMES)}); its columns: {columns}",
            path=source,
        )
    users = filled_column(frame, user, "train", source).astype(str).tolist()
    items = filled_column(frame, item, "train", source).astype(str).tolist()
    return list(zip(users, items, strict=True))


def _of_text(train: object) -> TrainingInteractions:
    from ranklens.data.source import read_bytes

    data, name = read_bytes(train)
    comma = name.lower().endswith((".csv", ".csv.gz"))
    pairs: list[tuple[str, str]] = []
    for number, raw in enumerate(data.decode("utf-8").splitlines(), start=1):
        fields = [f.strip() for f in raw.split(",")] if comma else raw.split()
        if not fields or not fields[0] or fields[0].startswith("#"):
            continue
        if len(fields) < 2:
            raise ParseError(
                "a training interaction line is 'user item' (2 fields or more), not 1 field",
                path=name,
                line=number,
            )
        if not pairs and fields[0].lower() in USER_NAMES and fields[1].lower() in ITEM_NAMES:
            continue  # a header
        pairs.append((fields[0], fields[1]))
    return _build(pairs, name)
