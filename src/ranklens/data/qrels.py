"""Relevance judgments."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import IO, Any

from ranklens.base.types import DuplicatePolicy, Int64Array
from ranklens.data.grouped import Grouped, resolve_duplicates, subset_entries


@dataclass(frozen=True, eq=False)
class Qrels(Grouped):
    """Relevance judgments: for each query, documents and their integer relevance.

    Build one with :meth:`from_file`, :meth:`from_dict`, :meth:`from_records` or
    :meth:`from_frame`, or ``Qrels(data)`` with any of their inputs (a path, a dict, a
    DataFrame ..., as ranx), or pass any of those inputs to :func:`ranklens.evaluate`.
    A negative relevance means "in the pool but not judged" (trec_eval's convention).

    Examples
    --------
    >>> qrels = Qrels.from_dict({"q1": {"d1": 1, "d2": 0}, "q2": {"d3": 2}})
    >>> qrels.qids, len(qrels)
    (('q1', 'q2'), 3)
    >>> qrels.to_dict()
    {'q1': {'d1': 1, 'd2': 0}, 'q2': {'d3': 2}}
    >>> Qrels({"q1": {"d1": 1}})
    Qrels(1 queries, 1 judgments, source='<dict>')
    """

    rels: Int64Array

    def __post_init__(self) -> None:
        super().__post_init__()
        self.rels.flags.writeable = False

    def __repr__(self) -> str:
        return f"Qrels({self.num_queries} queries, {len(self)} judgments, source={self.source!r})"

    @classmethod
    def from_file(
        cls,
        source: str | os.PathLike[str] | IO[bytes] | IO[str],
        duplicates: DuplicatePolicy = "error",
    ) -> Qrels:
        """Read TREC qrels (``qid iter docid rel``); see
        :func:`ranklens.data.trec_text.read_qrels`."""
        from ranklens.data.trec_text import read_qrels

        return cls(**read_qrels(source)).deduplicated(duplicates)

    @classmethod
    def from_dict(
        cls,
        mapping: Mapping[str, Mapping[str, int]],
        source: str = "<dict>",
        duplicates: DuplicatePolicy = "error",
    ) -> Qrels:
        """Build from ``{qid: {docid: relevance}}``. Keys are str or int: ``"1"`` and ``1``
        are the same id, so two such keys are a repeated pair, resolved by ``duplicates``."""
        from ranklens.data.memory import from_dict

        columns = from_dict(mapping, True, source, duplicates=duplicates)
        return cls._make(columns).deduplicated(duplicates)

    @classmethod
    def from_records(
        cls,
        records: Iterable[tuple[str, str, int]],
        duplicates: DuplicatePolicy = "error",
        source: str = "<records>",
    ) -> Qrels:
        """Build from ``(qid, docid, relevance)`` tuples."""
        from ranklens.data.memory import from_records

        return cls._make(from_records(records, True, source)).deduplicated(duplicates)

    @classmethod
    def from_frame(
        cls,
        frame: Any,
        qid_col: str | None = None,
        doc_col: str | None = None,
        rel_col: str | None = None,
        duplicates: DuplicatePolicy = "error",
    ) -> Qrels:
        """Build from a pandas or polars DataFrame.

        Columns are found by name (``query_id``/``qid``, ``doc_id``/``docid``,
        ``relevance``/``rel``/``label``) unless given.
        """
        from ranklens.data.frames import from_frame

        columns = from_frame(frame, True, qid_col, doc_col, rel_col)
        return cls._make(columns).deduplicated(duplicates)

    @classmethod
    def _make(cls, columns: dict[str, Any]) -> Qrels:
        values = columns.pop("values")
        return cls(rels=values, **columns)

    def deduplicated(self, policy: DuplicatePolicy = "error") -> Qrels:
        """These qrels with repeated (query, document) pairs resolved by ``policy``."""
        keep = resolve_duplicates(self, self.rels, policy, "qrels")
        if keep is None:
            return self if self.unique else replace(self, unique=True)
        return Qrels(rels=self.rels[keep], **subset_entries(self, keep))  # type: ignore[arg-type]

    def to_dict(self) -> dict[str, dict[str, int]]:
        """``{qid: {docid: relevance}}``."""
        out: dict[str, dict[str, int]] = {}
        docs = self.docids()
        rels = self.rels.tolist()
        bounds = self.q_offsets.tolist()
        for j, qid in enumerate(self.qids):
            a, b = bounds[j], bounds[j + 1]
            out[qid] = dict(zip(docs[a:b], rels[a:b], strict=True))
        return out

    def to_records(self) -> list[tuple[str, str, int]]:
        """``(qid, docid, relevance)`` tuples, grouped by query."""
        qidx = self.query_of_entries().tolist()
        return [
            (self.qids[q], d, r)
            for q, d, r in zip(qidx, self.docids(), self.rels.tolist(), strict=True)
        ]

    def to_pandas(self) -> Any:
        """A pandas DataFrame with columns ``query_id``, ``doc_id``, ``relevance``."""
        from ranklens.base.optional import require

        pd = require("pandas", "Qrels.to_pandas")
        rows = self.to_records()
        return pd.DataFrame(rows, columns=["query_id", "doc_id", "relevance"])

    @classmethod
    def from_parquet(
        cls, path: str | os.PathLike[str], duplicates: DuplicatePolicy = "error"
    ) -> Qrels:
        """Read qrels saved by :meth:`to_parquet` (or any Parquet file with the columns
        :meth:`from_frame` finds); see :mod:`ranklens.data.table_files`."""
        from ranklens.data.table_files import parquet_columns

        columns, _ = parquet_columns(path, True)
        columns.pop("ranks", None)
        return cls._make(columns).deduplicated(duplicates)

    @classmethod
    def from_jsonl(
        cls, path: str | os.PathLike[str] | IO[str], duplicates: DuplicatePolicy = "error"
    ) -> Qrels:
        """Read JSON lines ``{"query_id", "doc_id", "relevance"}`` (as :meth:`to_jsonl`
        writes them)."""
        from ranklens.data.table_files import jsonl_columns

        columns, _ = jsonl_columns(path, True)
        return cls._make(columns).deduplicated(duplicates)

    def to_parquet(self, path: str | os.PathLike[str]) -> None:
        """Save as Parquet (``query_id``, ``doc_id`` strings, ``relevance`` int64), in this
        order; :meth:`from_parquet` reads back equal qrels."""
        from ranklens.data.table_files import write_parquet

        write_parquet(self, path)

    def to_jsonl(self, path: str | os.PathLike[str] | IO[str]) -> None:
        """Save as JSON lines, one judgment a line (``.gz`` compresses)."""
        from ranklens.data.table_files import write_jsonl

        write_jsonl(self, path)

    def write(self, path: str | os.PathLike[str] | IO[str]) -> None:
        """Write TREC qrels text (``qid 0 docid rel``)."""
        from ranklens.data.trec_text import trec_qrels_lines, write_lines

        write_lines(path, trec_qrels_lines(self))

