"""Item features for the intra-list diversity measure ``ILD`` (``item_features=``).

Two kinds of features, read from what the user has:

* **vectors**: each item a vector of numbers of the same length (embeddings, one-hot or
  multi-hot genre vectors): ``{item: vector}``, a table with an item column and numeric
  feature columns (or an item column and one column holding each item's vector), or a
  text file of lines ``item v1 v2 ... vd`` (d >= 2; whitespace or tab separated, comma
  separated for ``.csv``), or a Parquet file holding such a table;
* **labels**: each item a set of labels (genres, categories, tags): ``{item: {labels}}``,
  a table with an item column and one column of labels (one row per item and label, or
  each row a list of labels), or a text file of lines ``item label`` (one line per item
  and label; an item may repeat).

A text file is read as labels when every line has 2 fields, as vectors when lines have 3
or more; a first line whose first field is an item column name (``item_id``, ``item``,
...) is a header; ``#`` lines are comments.

Labels are the nonzero coordinates of a 0/1 vector, so both kinds work with both
distances of ``ILD``: cosine (on label sets, :math:`|A \\cap B| / \\sqrt{|A||B|}`) and
Jaccard (on vectors, only 0/1 ones).

>>> f = ItemFeatures.of({"a": [1.0, 0.0], "b": [0.0, 2.0]})
>>> f.kind, f.dimension, f.rows(*_core.encode_strings(["b", "z", "a"])).tolist()
('vectors', 2, [1, -1, 0])
>>> g = ItemFeatures.of({"a": {"drama", "comedy"}, "b": {"drama"}})
>>> g.kind, g.label_count.tolist()
('labels', [2, 1])
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import IO, Any, Literal

import numpy as np

from ranklens.base.errors import InputError, ParseError
from ranklens.base.types import BoolArray, Float64Array, Int64Array, UInt8Array
from ranklens.data.native import core as _core
from ranklens.ranking.item_tables import ITEM_NAMES, filled_column, first_column, pandas_table

ItemFeaturesLike = Mapping[str, Any] | str | os.PathLike[str] | IO[bytes] | IO[str] | Any
"""Item features: ``{item: vector}``, ``{item: set of labels}``, a table, or a file."""

FeatureKind = Literal["vectors", "labels"]
WHAT = "item_features"


@dataclass(frozen=True, eq=False)
class ItemFeatures:
    """The features of the items, prepared once for many runs.

    Attributes
    ----------
    ids : the items, distinct, in the order given.
    ids_data, ids_offsets : the same as a string column.
    kind : ``"vectors"`` (``matrix`` holds them) or ``"labels"`` (``label_offsets`` and
        ``label_codes``: item ``j``'s labels are ``label_codes[label_offsets[j]:
        label_offsets[j + 1]]``, distinct).
    matrix : float64 (items, d), the vectors (``None`` for labels).
    label_offsets, label_codes : the label sets (for vectors: their nonzero coordinates,
        made on first use by :meth:`sets`).
    source : where the features came from, for messages.
    """

    ids: tuple[str, ...]
    ids_data: UInt8Array
    ids_offsets: Int64Array
    kind: FeatureKind
    matrix: Float64Array | None = None
    label_offsets: Int64Array | None = None
    label_codes: Int64Array | None = None
    source: str = "<dict>"
    _memo: dict[object, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def of(cls, features: ItemFeaturesLike) -> ItemFeatures:
        """Read ``features`` (see the module's description).

        Raises
        ------
        InputError
            An item is listed twice (vectors), vectors differ in length, a value is not a
            finite number, items mix vectors and label sets, a table has no item column
            (:class:`~ranklens.base.errors.ParseError` names a file's bad line).
        """
        if isinstance(features, ItemFeatures):
            return features
        from ranklens.data.frames import is_frame

        if isinstance(features, Mapping):
            return _of_mapping(features, "<dict>")
        if is_frame(features):
            return _of_frame(features, "<DataFrame>")
        name = os.fspath(features) if isinstance(features, (str, os.PathLike)) else None
        if name is not None and name.lower().endswith(".parquet"):
            from ranklens.data.table_files import open_parquet

            return _of_frame(open_parquet(name, "item_features="), name)
        if name is None and not hasattr(features, "read"):
            raise InputError(
                f"item_features must be {{item: vector}}, {{item: {{labels}}}}, a table or a "
                f"file, not {type(features).__name__}"
            )
        return _of_text(features)

    @property
    def dimension(self) -> int:
        """The length of the vectors (the number of distinct labels for label sets)."""
        if self.matrix is not None:
            return int(self.matrix.shape[1])
        codes = self.label_codes
        return 0 if codes is None or codes.shape[0] == 0 else int(codes.max()) + 1

    @property
    def label_count(self) -> Int64Array:
        """The number of labels of each item (nonzero coordinates of a vector)."""
        offsets, _ = self.sets()
        out: Int64Array = np.diff(offsets).astype(np.int64)
        return out

    def rows(self, data: UInt8Array, offsets: Int64Array) -> Int64Array:
        """The row of each string of the column ``(data, offsets)`` among :attr:`ids`
        (``-1`` for an item without features)."""
        known = int(self.ids_data.shape[0])
        count = len(self.ids)
        joined = np.concatenate([self.ids_data, data]) if known else data
        bounds = (
            np.concatenate([self.ids_offsets, offsets[1:] + known]) if known else offsets
        ).astype(np.int64)
        codes, _ = _core.intern_strings(joined, bounds)
        found = codes[count:]
        out: Int64Array = np.where(found < count, found, -1).astype(np.int64)
        return out

    def sets(self) -> tuple[Int64Array, Int64Array]:
        """The label sets (offsets, codes); for vectors their nonzero coordinates."""
        if self.label_offsets is not None and self.label_codes is not None:
            return self.label_offsets, self.label_codes
        if "sets" not in self._memo:
            matrix = self.matrix if self.matrix is not None else np.zeros((0, 0))
            item, coord = np.nonzero(matrix)
            counts = np.bincount(item, minlength=matrix.shape[0])
            offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
            self._memo["sets"] = (offsets, coord.astype(np.int64))
        found: tuple[Int64Array, Int64Array] = self._memo["sets"]
        return found

    def non_binary(self) -> int:
        """The row of the first item whose vector holds a value other than 0 and 1
        (``-1``: none; always ``-1`` for label sets)."""
        if self.matrix is None:
            return -1
        if "non_binary" not in self._memo:
            bad = ((self.matrix != 0.0) & (self.matrix != 1.0)).any(axis=1)
            self._memo["non_binary"] = int(np.argmax(bad)) if bad.any() else -1
        found: int = self._memo["non_binary"]
        return found

    def unit_vectors(self) -> Float64Array:
        """The vectors scaled to length 1 (zero vectors stay 0), and one more row of
        zeros at the end (the padding of lists gathered as a matrix)."""
        if "unit" not in self._memo:
            matrix = self.matrix if self.matrix is not None else np.zeros((0, 0))
            norms = np.sqrt(np.einsum("ij,ij->i", matrix, matrix))
            scale = np.divide(1.0, norms, out=np.zeros_like(norms), where=norms > 0)
            unit = np.zeros((matrix.shape[0] + 1, matrix.shape[1]))
            np.multiply(matrix, scale[:, None], out=unit[:-1])
            self._memo["unit"] = unit
        found: Float64Array = self._memo["unit"]
        return found

    def is_zero(self) -> BoolArray:
        """Whether each item's vector is 0 (an empty label set)."""
        if self.matrix is not None:
            out: BoolArray = np.asarray(~self.matrix.any(axis=1), dtype=bool)
            return out
        empty: BoolArray = np.asarray(self.label_count == 0, dtype=bool)
        return empty


def _vectors(ids: list[str], vectors: list[Any], source: str, where: list[str]) -> ItemFeatures:
    """Vectors ``vectors`` of the items ``ids``; ``where[j]`` says where row j was given."""
    _check_distinct(ids, source, where)
    if not ids:
        raise InputError(f"{WHAT}: no item has features", path=source)
    width: int | None = None
    rows: list[Float64Array] = []
    for item, value, at in zip(ids, vectors, where, strict=True):
        try:
            row = np.asarray(value, dtype=np.float64)
        except (TypeError, ValueError):
            raise InputError(
                f"{WHAT}: the vector of item {item!r} ({at}) holds something that is not a "
                "number: give numbers (or a set of labels for every item)",
                path=source,
            ) from None
        if row.ndim != 1:
            raise InputError(
                f"{WHAT}: the features of item {item!r} ({at}) must be one vector of numbers",
                path=source,
            )
        if width is None:
            width = int(row.shape[0])
        elif row.shape[0] != width:
            raise InputError(
                f"{WHAT}: item {item!r} ({at}) has a vector of length {row.shape[0]}, the "
                f"first item {ids[0]!r} one of length {width}: give every item a vector of "
                "the same length",
                path=source,
            )
        if not np.isfinite(row).all():
            raise InputError(
                f"{WHAT}: the vector of item {item!r} ({at}) holds a value that is not "
                "finite (NaN or infinity)",
                path=source,
            )
        rows.append(row)
    data, offsets = _core.encode_strings(ids)
    matrix = np.vstack(rows) if width else np.zeros((len(ids), 0))
    return ItemFeatures(tuple(ids), data, offsets, "vectors", matrix, source=source)


def _labels(pairs: Iterable[tuple[str, str]], source: str, items: list[str]) -> ItemFeatures:
    """Label sets from ``(item, label)`` pairs; ``items`` lists the items (also those
    without labels) in order."""
    order = {item: j for j, item in enumerate(dict.fromkeys(items))}
    vocabulary: dict[str, int] = {}
    seen: set[tuple[int, int]] = set()
    for item, label in pairs:
        key = (order[item], vocabulary.setdefault(label, len(vocabulary)))
        seen.add(key)
    ordered = sorted(seen)
    item_of = np.array([p[0] for p in ordered], dtype=np.int64)
    codes = np.array([p[1] for p in ordered], dtype=np.int64)
    counts = np.bincount(item_of, minlength=len(order))
    offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    ids = list(order)
    data, id_offsets = _core.encode_strings(ids)
    return ItemFeatures(tuple(ids), data, id_offsets, "labels", None, offsets, codes, source=source)


def _check_distinct(ids: list[str], source: str, where: list[str]) -> None:
    first: dict[str, int] = {}
    for row, item in enumerate(ids):
        if item in first:
            raise InputError(
                f"{WHAT}: item {item!r} has two vectors ({where[first[item]]} and "
                f"{where[row]}): give each item one",
                path=source,
            )
        first[item] = row


def _is_label_set(value: object) -> bool:
    if isinstance(value, (set, frozenset)):
        return True
    if isinstance(value, (list, tuple)) and value:
        return all(isinstance(v, str) for v in value)
    return False


def _of_mapping(features: Mapping[Any, Any], source: str) -> ItemFeatures:
    ids = [str(k) for k in features]
    values = list(features.values())
    if not ids:
        raise InputError(f"{WHAT}: no item has features", path=source)
    for item, value in zip(ids, values, strict=True):
        if isinstance(value, (str, bytes)):
            raise InputError(
                f"{WHAT}: the features of item {item!r} are one string ({value!r}): give a "
                "set of labels ({'drama'}) or a vector of numbers",
                path=source,
            )
    labelled = [_is_label_set(v) for v in values]
    if any(labelled):
        if not all(labelled):
            vector_item = ids[labelled.index(False)]
            label_item = ids[labelled.index(True)]
            raise InputError(
                f"{WHAT}: item {label_item!r} has a set of labels but item {vector_item!r} "
                "a vector: give every item a set of labels, or every item a vector",
                path=source,
            )
        pairs: list[tuple[str, str]] = []
        for item, value in zip(ids, values, strict=True):
            for label in value:
                if not isinstance(label, str):
                    raise InputError(
                        f"{WHAT}: item {item!r} has the label {label!r}, not a string: labels "
                        "are strings",
                        path=source,
                    )
                pairs.append((item, label))
        return _labels(pairs, source, ids)
    return _vectors(ids, values, source, [f"item {item!r}" for item in ids])


def _of_frame(frame: Any, source: str) -> ItemFeatures:
    frame, columns = pandas_table(frame)
    item_column = first_column(ITEM_NAMES, columns)
    if item_column is None:
        raise InputError(
            f"{WHAT} table has no item column (columns: {columns}); name it one of "
            f"{list(ITEM_NAMES)}",
            path=source,
        )
    others = [c for c in frame.columns if str(c) != item_column]
    if not others:
        raise InputError(
            f"{WHAT} table has only an item column: add feature columns (numbers) or a "
            "column of labels",
            path=source,
        )
    items = [str(i) for i in filled_column(frame, item_column, WHAT, source).tolist()]
    where = [f"row {j + 1}" for j in range(len(items))]
    if len(others) == 1:
        values = frame[others[0]].tolist()
        if values and all(isinstance(v, str) for v in values):  # one row per item and label
            return _labels(zip(items, values, strict=True), source, items)
        if values and all(
            hasattr(v, "__len__") and not isinstance(v, (str, bytes)) for v in values
        ):  # each row a vector or a list of labels
            as_lists = [v.tolist() if hasattr(v, "tolist") else list(v) for v in values]
            if all(_is_label_set(v) or len(v) == 0 for v in as_lists) and any(
                _is_label_set(v) for v in as_lists
            ):
                pairs = [
                    (i, str(label)) for i, v in zip(items, as_lists, strict=True) for label in v
                ]
                return _labels(pairs, source, items)
            return _vectors(items, as_lists, source, where)
    for column in others:
        kind = frame[column].dtype.kind
        if kind not in "biuf":
            raise InputError(
                f"{WHAT} table: column {str(column)!r} is not numeric (dtype "
                f"{frame[column].dtype}): feature columns hold numbers; labels go in a "
                "table of an item column and one label column",
                path=source,
            )
    matrix = frame[others].to_numpy(dtype=np.float64)
    return _vectors(items, list(matrix), source, where)


def _of_text(features: object) -> ItemFeatures:
    from ranklens.data.source import read_bytes

    data, name = read_bytes(features)
    comma = name.lower().endswith((".csv", ".csv.gz"))
    lines: list[tuple[int, list[str]]] = []
    for number, raw in enumerate(data.decode("utf-8").splitlines(), start=1):
        fields = [f.strip() for f in raw.split(",")] if comma else raw.split()
        if not fields or not fields[0] or fields[0].startswith("#"):
            continue
        if not lines and fields[0].lower() in ITEM_NAMES and not _all_numbers(fields[1:2]):
            continue  # a header
        lines.append((number, fields))
    if not lines:
        raise InputError(f"{WHAT}: the file holds no item", path=name)
    first_number, first = lines[0]
    if len(first) < 2:
        raise ParseError(
            f"an {WHAT} line is 'item label' or 'item v1 v2 ...', not {len(first)} field",
            path=name,
            line=first_number,
        )
    if len(first) == 2:  # item label
        for number, fields in lines:
            if len(fields) != 2:
                raise ParseError(
                    f"an {WHAT} file of labels has lines 'item label' (2 fields), not "
                    f"{len(fields)}",
                    path=name,
                    line=number,
                )
        items = [fields[0] for _, fields in lines]
        return _labels(((f[0], f[1]) for _, f in lines), name, items)
    ids: list[str] = []
    rows: list[list[float]] = []
    where: list[str] = []
    for number, fields in lines:
        if len(fields) != len(first):
            raise ParseError(
                f"an {WHAT} line has {len(fields)} fields, the first line {len(first)}: give "
                "every item a vector of the same length",
                path=name,
                line=number,
            )
        values: list[float] = []
        for text in fields[1:]:
            try:
                value = float(text)
            except ValueError:
                raise ParseError(
                    f"{WHAT}: the vector of item {fields[0]!r} holds {text!r}, not a number",
                    path=name,
                    line=number,
                ) from None
            if not math.isfinite(value):
                raise ParseError(
                    f"{WHAT}: the vector of item {fields[0]!r} holds {text!r}, not a finite number",
                    path=name,
                    line=number,
                )
            values.append(value)
        ids.append(fields[0])
        rows.append(values)
        where.append(f"line {number}")
    return _vectors(ids, rows, name, where)


def _all_numbers(fields: list[str]) -> bool:
    try:
        for text in fields:
            float(text)
    except ValueError:
        return False
    return bool(fields)
