"""The columnar layout shared by :class:`~ranklens.Qrels` and :class:`~ranklens.Run`.

Entries are grouped by query: the queries are sorted in byte order (trec_eval's ``strcmp``
order) and the entries of query ``j`` are ``q_offsets[j]:q_offsets[j + 1]``. Document ids are
one string column in Arrow's layout (``doc_data`` holds the UTF-8 bytes, ``doc_offsets`` the
``n + 1`` boundaries). Every array is read-only.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import pairwise

import numpy as np

from ranklens.base.errors import DuplicateError, OptionError
from ranklens.base.types import DuplicatePolicy, Int64Array, UInt8Array
from ranklens.data.native import core as _core


def _frozen(array: np.ndarray) -> np.ndarray:
    array.flags.writeable = False
    return array


@dataclass(frozen=True, eq=False)
class Grouped:
    """Entries grouped by query; the base of :class:`Qrels` and :class:`Run`."""

    qids: tuple[str, ...]
    q_offsets: Int64Array
    doc_data: UInt8Array
    doc_offsets: Int64Array
    lines: Int64Array | None
    """1-based line (file) or row (in-memory) of each entry, for error messages."""
    source: str | None
    """Where the data came from: a path, ``<stdin>``, ``<dict>``, ``<DataFrame>`` ..."""
    unique: bool = field(default=False, kw_only=True)
    """True once repeated (query, document) pairs have been checked for and resolved."""

    def __post_init__(self) -> None:
        for name in ("q_offsets", "doc_data", "doc_offsets", "lines"):
            value = getattr(self, name)
            if value is not None:
                _frozen(value)

    def __len__(self) -> int:
        return int(self.doc_offsets.shape[0] - 1)

    @property
    def num_queries(self) -> int:
        """The number of distinct queries."""
        return len(self.qids)

    def docid(self, index: int) -> str:
        """The document id of entry ``index`` (grouped order)."""
        start, stop = int(self.doc_offsets[index]), int(self.doc_offsets[index + 1])
        return bytes(self.doc_data[start:stop]).decode("utf-8")

    def docids(self) -> list[str]:
        """All document ids, in grouped order, as Python strings."""
        blob = self.doc_data.tobytes()
        offsets = self.doc_offsets.tolist()
        return [blob[a:b].decode("utf-8") for a, b in pairwise(offsets)]

    def query_of_entries(self) -> Int64Array:
        """The query index of every entry."""
        counts = np.diff(self.q_offsets)
        return _core.ranges(np.arange(len(self.qids), dtype=np.int64), counts, 0)

    def query_index(self) -> dict[str, int]:
        """A mapping from query id to its position in :attr:`qids`."""
        return {qid: i for i, qid in enumerate(self.qids)}

    def _where(self, index: int) -> int | None:
        return None if self.lines is None else int(self.lines[index])


def resolve_duplicates(
    table: Grouped, values: np.ndarray, policy: DuplicatePolicy, what: str
) -> Int64Array | None:
    """Find repeated (query, document) pairs and apply ``policy``.

    Returns ``None`` when nothing is repeated (or ``table`` was checked already), else the
    sorted indices of the entries to keep. Raises :class:`DuplicateError` for ``"error"``.
    """
    if policy not in ("error", "first", "max"):
        raise OptionError(f"duplicates must be 'error', 'first' or 'max', not {policy!r}")
    if table.unique:
        return None
    dup, first = _core.find_duplicates(table.q_offsets, table.doc_data, table.doc_offsets, None, -1)
    if dup.shape[0] == 0:
        return None
    if policy == "error":
        i = int(np.argmin(dup))  # the earliest repeat in input order
        d, f = int(dup[i]), int(first[i])
        query = table.qids[int(np.searchsorted(table.q_offsets, d, side="right")) - 1]
        document = table.docid(d)
        lines = None
        if table.lines is not None:
            lines = (int(table.lines[f]), int(table.lines[d]))
        unit = "line" if table.source and not table.source.startswith("<") else "row"
        where = f" ({unit}s {lines[0]} and {lines[1]})" if lines else ""
        raise DuplicateError(
            f"{what} has document '{document}' twice for query '{query}'{where}; "
            "remove one, or choose duplicates='first' or 'max' (--duplicates)",
            path=table.source,
            lines=lines,
            query=query,
            document=document,
        )
    keep = np.ones(len(table), dtype=bool)
    if policy == "first":
        keep[dup] = False
    else:
        # Each repeated pair forms a group keyed by its first occurrence; keep the entry
        # with the highest value, the earliest one on ties.
        members = np.concatenate([np.unique(first), dup])
        keys = np.concatenate([np.unique(first), first])
        order = np.lexsort((members, -values[members].astype(np.float64), keys))
        keys_sorted = keys[order]
        winners = members[order][np.r_[True, keys_sorted[1:] != keys_sorted[:-1]]]
        keep[members] = False
        keep[winners] = True
    return np.flatnonzero(keep).astype(np.int64)


def subset_entries(table: Grouped, keep: Int64Array) -> dict[str, object]:
    """The grouped columns restricted to the entries ``keep`` (sorted), as constructor args."""
    doc_data, doc_offsets = _core.take_strings(table.doc_data, table.doc_offsets, keep)
    qidx = table.query_of_entries()[keep]
    counts = np.bincount(qidx, minlength=len(table.qids))
    q_offsets = np.zeros(len(table.qids) + 1, dtype=np.int64)
    np.cumsum(counts, out=q_offsets[1:])
    return {
        "qids": table.qids,
        "q_offsets": q_offsets,
        "doc_data": doc_data,
        "doc_offsets": doc_offsets,
        "lines": None if table.lines is None else table.lines[keep],
        "source": table.source,
        "unique": True,
    }


def offsets_of_sorted(qids: Sequence[str]) -> tuple[tuple[str, ...], Int64Array]:
    """The distinct query ids and their offsets, for entries already sorted by query."""
    distinct: list[str] = []
    counts: list[int] = []
    for qid in qids:
        if not distinct or distinct[-1] != qid:
            distinct.append(qid)
            counts.append(0)
        counts[-1] += 1
    offsets = np.zeros(len(distinct) + 1, dtype=np.int64)
    np.cumsum(np.asarray(counts, dtype=np.int64), out=offsets[1:])
    return tuple(distinct), offsets


def encode_ids(values: Sequence[str]) -> tuple[UInt8Array, Int64Array]:
    """Encode Python strings as a string column."""
    data, offsets = _core.encode_strings(values if isinstance(values, list) else list(values))
    return data, offsets
