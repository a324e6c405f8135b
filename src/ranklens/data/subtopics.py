"""Subtopic (intent) qrels for the diversity measures: ``qid subtopic docno judgment``.

NIST's diversity qrels (TREC Web track 2009-2014) judge each document once per subtopic of
the query. :class:`SubtopicQrels` holds them prepared once for every run: per query its
judged documents (ordered by docno), for each document the subtopics it is relevant to
(judgment > 0, counted as 1 as ndeval does), and the number of subtopics that have at
least one relevant document (the ``|S|`` every diversity measure divides by).

Readers: a TREC text file (4 columns, the second the subtopic), a pandas or polars
DataFrame or a pyarrow Table (read and checked as ordinary qrels frames are) with
``query_id``/``qid``, ``subtopic_id``/``subtopic``/``iteration``, ``doc_id``/``docno``,
``relevance``/``judgment``/``rel`` columns (ir_datasets names the field ``subtopic_id``),
records (tuples ``(qid, subtopic, docno, judgment)`` or objects with those attributes, such
as ir_datasets' ``TrecSubtopicQrel``) and ``{qid: {docno: {subtopic: judgment}}}``.

>>> sq = SubtopicQrels.from_dict({"q1": {"a": {"1": 1, "2": 1}, "b": {"2": 1}, "c": {"1": 0}}})
>>> sq.qids, sq.num_subtopics.tolist(), sq.docids
(('q1',), [2], ('a', 'b', 'c'))
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Hashable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ranklens.base.errors import InputError, ParseError
from ranklens.base.types import Int64Array
from ranklens.data.fields import parse_ints, split_columns
from ranklens.data.qrels import Qrels
from ranklens.data.source import read_bytes

_QID = ("query_id", "qid", "topic")
_SUB = ("subtopic_id", "subtopic", "iteration")
_DOC = ("doc_id", "docno", "docid")
_REL = ("relevance", "judgment", "rel", "label")


@dataclass(frozen=True, eq=False)
class SubtopicQrels:
    """Subtopic judgments prepared for the diversity kernels.

    Attributes
    ----------
    qids : the judged queries, in byte order.
    doc_offsets : int64 (nq + 1); query ``q``'s documents are rows
        ``doc_offsets[q]:doc_offsets[q+1]``, ordered by docno (byte order).
    docids : the document of each row.
    pair_offsets : int64 (rows + 1); row ``r``'s relevant subtopics are
        ``pair_sub[pair_offsets[r]:pair_offsets[r+1]]``, ascending.
    pair_sub : int64; a subtopic as a global id (query-major, then subtopic order).
    sub_offsets : int64 (nq + 1); query ``q``'s subtopics (with a relevant document) are the
        global ids ``sub_offsets[q]:sub_offsets[q+1]``.
    sub_nrel : int64; the number of relevant documents of each subtopic.
    declared : int64 (nq); subtopics named in each query's judgments, relevant or not.
    doc_grade : int64; each row's highest judgment over its subtopics.
    source : where the judgments came from (for messages).
    """

    qids: tuple[str, ...]
    doc_offsets: Int64Array
    docids: tuple[str, ...]
    pair_offsets: Int64Array
    pair_sub: Int64Array
    sub_offsets: Int64Array
    sub_nrel: Int64Array
    declared: Int64Array
    doc_grade: Int64Array
    source: str = "<subtopic qrels>"
    _cache: dict[Hashable, Any] = field(default_factory=dict, repr=False)

    @property
    def num_queries(self) -> int:
        """The number of judged queries."""
        return len(self.qids)

    @property
    def num_subtopics(self) -> Int64Array:
        """Each query's number of subtopics with at least one relevant document."""
        out: Int64Array = np.diff(self.sub_offsets)
        return out

    def cached(self, key: Hashable, make: Callable[[], Any]) -> Any:
        """``make()``, computed once per ``key`` (e.g. the ideal ranking for an alpha)."""
        if key not in self._cache:
            self._cache[key] = make()
        return self._cache[key]

    def query_index(self) -> dict[str, int]:
        """``{qid: position}``."""
        return {q: i for i, q in enumerate(self.qids)}

    def check_diverse(self, measure: str) -> None:
        """Raise if no query has more than one subtopic: the second column was not a subtopic
        (an ordinary qrels file's iteration column, or ir_datasets' ``iteration`` field)."""
        if self.num_queries and int(self.declared.max(initial=0)) <= 1:
            raise InputError(
                f"{measure} is a diversity measure, but every query of {self.source} has one "
                "subtopic: give subtopic qrels (qid subtopic docno judgment; ir_datasets "
                "calls the field subtopic_id)"
            )

    def key_qrels(self) -> Qrels:
        """Ordinary qrels whose value at (query, document) is the row number, to join a
        ranking with these judgments by the native aligner."""
        made: Qrels = self.cached("key_qrels", self._key_qrels)
        return made

    def _key_qrels(self) -> Qrels:
        return self._qrels_of(np.arange(len(self.docids), dtype=np.int64))

    def as_qrels(self) -> Qrels:
        """Ordinary qrels: every judged document with its highest judgment."""
        made: Qrels = self.cached("as_qrels", lambda: self._qrels_of(self.doc_grade.copy()))
        return made

    def _qrels_of(self, values: Int64Array) -> Qrels:
        """Ordinary qrels of the rows, valued ``values``: the rows are grouped by query
        already (query ids in code point order, which is UTF-8 byte order) and each
        (query, document) is one row, so the columns are taken as they are."""
        from ranklens.data.native import core as _core

        doc_data, doc_offsets = _core.encode_strings(list(self.docids))
        return Qrels(
            qids=self.qids,
            q_offsets=self.doc_offsets.copy(),
            doc_data=doc_data,
            doc_offsets=doc_offsets,
            lines=None,
            source=self.source,
            rels=values,
            unique=True,
        )

    @classmethod
    def from_columns(
        cls,
        qids: Iterable[object],
        subtopics: Iterable[object],
        docids: Iterable[object],
        judgments: Iterable[object],
        source: str = "<subtopic qrels>",
    ) -> SubtopicQrels:
        """Build from four parallel columns: ids str or int, judgments integers (as for
        ordinary qrels: :func:`ranklens.data.memory.check_ids` and
        :func:`~ranklens.data.memory.check_value`; messages give the row, from 1)."""
        columns = [list(qids), list(subtopics), list(docids), list(judgments)]
        if len({len(c) for c in columns}) > 1:
            raise InputError(f"{source}: the columns have different lengths")
        return cls.from_records(zip(*columns, strict=True), source)

    @classmethod
    def _from_texts(
        cls, q: list[str], s_raw: list[str], d: list[str], g: Int64Array, source: str
    ) -> SubtopicQrels:
        """Build from checked columns: ids as str, judgments int64."""
        if all(x.isdigit() for x in s_raw):
            s = np.asarray([int(x) for x in s_raw], dtype=np.int64)
        else:
            s = np.unique(np.asarray(s_raw, dtype=str), return_inverse=True)[1].astype(np.int64)
        return cls._build(np.asarray(q, dtype=str), s, np.asarray(d, dtype=str), g, source)

    @classmethod
    def _build(
        cls, q: np.ndarray, s: Int64Array, d: np.ndarray, g: Int64Array, source: str
    ) -> SubtopicQrels:
        qids_u, qi = np.unique(q, return_inverse=True)
        qi = qi.astype(np.int64)
        order = np.lexsort((s, d, qi))
        qi, s, d, g = qi[order], s[order], d[order], g[order]
        n = len(qi)
        # one judgment per (query, document, subtopic): the highest
        same = np.zeros(n, dtype=bool)
        if n > 1:
            same[1:] = (qi[1:] == qi[:-1]) & (d[1:] == d[:-1]) & (s[1:] == s[:-1])
        if same.any():
            last = np.flatnonzero(~np.append(same[1:], False))
            starts = np.flatnonzero(~same)
            g = np.maximum.reduceat(g, starts)
            qi, s, d = qi[last], s[last], d[last]
            n = len(qi)
        new_row = np.ones(n, dtype=bool)
        if n > 1:
            new_row[1:] = (qi[1:] != qi[:-1]) | (d[1:] != d[:-1])
        row_of = np.cumsum(new_row) - 1
        row_start = np.flatnonzero(new_row)
        nrows = len(row_start)
        row_q = qi[row_start]
        doc_offsets = np.zeros(len(qids_u) + 1, dtype=np.int64)
        np.cumsum(np.bincount(row_q, minlength=len(qids_u)), out=doc_offsets[1:])
        doc_grade = np.maximum.reduceat(g, row_start) if n else np.zeros(0, np.int64)
        # subtopics named per query
        sub_key_all = np.unique(qi * (int(s.max(initial=0)) + 1) + s)
        width = int(s.max(initial=0)) + 1
        declared = np.bincount(sub_key_all // width, minlength=len(qids_u)).astype(np.int64)
        rel = g > 0
        key = qi[rel] * width + s[rel]
        sub_keys, pair_sub = np.unique(key, return_inverse=True)
        sub_q = sub_keys // width
        sub_offsets = np.zeros(len(qids_u) + 1, dtype=np.int64)
        np.cumsum(np.bincount(sub_q, minlength=len(qids_u)), out=sub_offsets[1:])
        sub_nrel = np.bincount(pair_sub, minlength=len(sub_keys)).astype(np.int64)
        pair_offsets = np.zeros(nrows + 1, dtype=np.int64)
        np.cumsum(np.bincount(row_of[rel], minlength=nrows), out=pair_offsets[1:])
        return cls(
            _texts(qids_u),
            doc_offsets,
            _texts(d[row_start]),
            pair_offsets,
            pair_sub.astype(np.int64),
            sub_offsets,
            sub_nrel,
            declared,
            doc_grade.astype(np.int64),
            source,
        )

    @classmethod
    def from_dict(
        cls, mapping: Mapping[str, Mapping[str, Mapping[object, int]]], source: str = "<dict>"
    ) -> SubtopicQrels:
        """Build from ``{qid: {docno: {subtopic: judgment}}}``.

        Raises
        ------
        InputError
            A document's value is not a mapping of subtopics (ordinary qrels).
        """
        for q, docs in mapping.items():
            for d, subs in docs.items():
                if not isinstance(subs, Mapping):
                    raise InputError(
                        f"{source}: subtopic qrels are {{qid: {{docno: {{subtopic: judgment}}}}}}"
                        f", but query {q!r} document {d!r} has {subs!r} (ordinary qrels?)"
                    )
        rows = [
            (q, s, d, r)
            for q, docs in mapping.items()
            for d, subs in docs.items()
            for s, r in subs.items()
        ]
        return cls.from_records(rows, source)

    @classmethod
    def from_records(cls, records: Iterable[Any], source: str = "<records>") -> SubtopicQrels:
        """Build from ``(qid, subtopic, docno, judgment)`` tuples or objects with ``query_id``,
        ``subtopic_id``, ``doc_id`` and ``relevance`` attributes (ir_datasets).

        Ids are str or int and judgments integers, checked as for ordinary qrels (a float
        such as 0.5, a bool, a string or a missing value is an error naming the row)."""
        from ranklens.data.memory import check_ids, check_value, id_text

        q: list[str] = []
        s_raw: list[str] = []
        d: list[str] = []
        g: list[int] = []
        for row, rec in enumerate(records, 1):
            if isinstance(rec, tuple) and not hasattr(rec, "_fields"):
                if len(rec) != 4:
                    raise InputError(
                        f"a record has {len(rec)} fields, not 4 (qid, subtopic, docno, judgment)",
                        path=source,
                        line=row,
                    )
                values: tuple[object, ...] = rec
            else:
                values = tuple(_field(rec, names, source) for names in (_QID, _SUB, _DOC, _REL))
            qid, docid = check_ids(values[0], values[2], source, row)
            subtopic = id_text(values[1])
            if subtopic is None:
                raise InputError(
                    f"query '{qid}', document '{docid}': subtopic {values[1]!r} is not a str "
                    "or int",
                    path=source,
                    line=row,
                )
            where = f"query '{qid}', subtopic '{subtopic}', document '{docid}'"
            q.append(qid)
            s_raw.append(subtopic)
            d.append(docid)
            g.append(int(check_value(values[3], True, where, source, row)))
        return cls._from_texts(q, s_raw, d, np.asarray(g, dtype=np.int64), source)

    @classmethod
    def from_frame(cls, frame: Any, source: str = "<DataFrame>") -> SubtopicQrels:
        """Build from a pandas or polars DataFrame or a pyarrow Table with query, subtopic,
        document and judgment columns, read and checked as ordinary qrels frames are
        (:func:`ranklens.data.frames.from_frame`)."""
        from ranklens.data.frames import column_names, from_frame

        names = column_names(frame)
        picked = []
        for options in (_QID, _SUB, _DOC, _REL):
            found = next((c for c in options if c in names), None)
            if found is None:
                raise InputError(
                    f"{source}: no column named {' or '.join(options)} (columns: {names})"
                )
            picked.append(found)
        columns = from_frame(
            frame, True, picked[0], picked[2], picked[3], source=source, extra_ids=(picked[1],)
        )
        rows = columns["lines"]  # each entry's row (from 0), in grouped order
        counts = np.diff(columns["q_offsets"])
        q = np.repeat(np.asarray(columns["qids"], dtype=object), counts).tolist()
        d = _decoded(columns["doc_data"], columns["doc_offsets"])
        sub_data, sub_offsets = columns["extra"][picked[1]]
        subs = _decoded(sub_data, sub_offsets)
        s_raw = [subs[i] for i in rows.tolist()]
        return cls._from_texts(q, s_raw, d, np.asarray(columns["values"], np.int64), source)

    @classmethod
    def from_file(cls, source: object) -> SubtopicQrels:
        """Read ``qid subtopic docno judgment`` lines (blank lines skipped)."""
        data, name = read_bytes(source)
        if not data.strip():
            raise InputError(f"subtopic qrels file {name} has no judgments")
        cols = split_columns(data, 4, name)
        grades = parse_ints(cols[3], name, "judgment", signed=True)
        try:
            subtopics = parse_ints(cols[1], name, "subtopic")
        except ParseError:
            subtopics = np.unique(cols[1], return_inverse=True)[1].reshape(-1).astype(np.int64)
        return cls._build(cols[0], subtopics, cols[2], grades, name)


def _decoded(data: np.ndarray, offsets: np.ndarray) -> list[str]:
    """The strings of a string column (a byte buffer and offsets)."""
    blob = data.tobytes()
    bounds = offsets.tolist()
    return [blob[a:b].decode("utf-8") for a, b in itertools.pairwise(bounds)]


def _texts(values: np.ndarray) -> tuple[str, ...]:
    if values.dtype.kind == "S":
        return tuple(v.decode("utf-8", errors="replace") for v in values.tolist())
    return tuple(str(v) for v in values.tolist())


def _field(record: object, names: tuple[str, ...], source: str) -> object:
    for name in names:
        if isinstance(record, Mapping) and name in record:
            return record[name]
        if hasattr(record, name):
            return getattr(record, name)
    raise InputError(f"{source}: a record has no field {' or '.join(names)}")


def read_subtopic_qrels(source: object) -> SubtopicQrels:
    """Subtopic qrels from a path, file object, DataFrame, dict, records or
    :class:`SubtopicQrels` (returned as it is).

    Raises
    ------
    InputError
        Unreadable input, a line without 4 fields, a judgment that is not an integer.
    """
    if isinstance(source, SubtopicQrels):
        return source
    if isinstance(source, str | os.PathLike) or hasattr(source, "read"):
        return SubtopicQrels.from_file(source)
    from ranklens.data.frames import is_frame, refuse_lazy

    refuse_lazy(source, "subtopic qrels")
    if is_frame(source):
        return SubtopicQrels.from_frame(source)
    if isinstance(source, Mapping):
        return SubtopicQrels.from_dict(source)
    if isinstance(source, Iterable):
        return SubtopicQrels.from_records(source)
    raise InputError(f"cannot read subtopic qrels from {type(source).__name__}")
