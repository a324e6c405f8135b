"""System output: ranked documents with scores."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import KW_ONLY, dataclass, fields
from typing import IO, Any, Protocol, cast, overload

import numpy as np

from ranklens.base.errors import InputError, OptionError
from ranklens.base.types import TIE_POLICIES, DuplicatePolicy, Float64Array, Int64Array, TiePolicy
from ranklens.data.grouped import Grouped, resolve_duplicates, subset_entries
from ranklens.data.ir_metadata import IrMetadata
from ranklens.data.native import core as _core

_POLICY_CODE = {"trec_eval": 0, "input": 1, "docid_asc": 2}
_EXACT = 2**53  # integers of smaller magnitude are exact as float64
NO_RANK = -(2**63)
"""The rank of an entry whose rank field is not an integer (``Run.ranks``)."""


class DeferredRanks(Protocol):
    """A rank column that is read only when it is first needed (``ties="rank"``): a TREC
    run file's 4th column read again from the file, a table's ``rank`` column converted
    (see :class:`RankColumn`)."""

    def load(self) -> Int64Array:
        """The rank column, in the run's entry order."""
        ...

    def subset(self, keep: Int64Array) -> DeferredRanks:
        """The same column restricted to the entries ``keep`` (sorted indices)."""
        ...


class RankColumn:
    """:attr:`Run.ranks`: the rank column, read when it is first needed.

    Parsing a TREC run's rank column cost every evaluation about 5% of its time and 8
    bytes an entry (7M lines: 30 ms, 56 MB; 2026-11-27), and only the tie policy
    ``"rank"`` reads it. A run read from a file that can be read again (a path to a
    regular file) or from a table holds a :class:`DeferredRanks` instead, which
    ``run.ranks`` loads and keeps the first time it is read; everything else sees the
    same array as before. The raw value (array, deferred or ``None``) lives in the
    instance's ``__dict__`` under the field's name, so ``copy``, ``pickle`` and
    ``Run(**vars(run))`` carry it unread.
    """

    @overload
    def __get__(self, obj: None, owner: type | None = None) -> None: ...
    @overload
    def __get__(self, obj: object, owner: type | None = None) -> Int64Array | None: ...
    def __get__(self, obj: object | None, owner: type | None = None) -> Int64Array | None:
        if obj is None:  # the dataclass field's default
            return None
        value = obj.__dict__.get("ranks")
        if value is None or isinstance(value, np.ndarray):
            return cast("Int64Array | None", value)
        loaded = np.asarray(cast(DeferredRanks, value).load(), dtype=np.int64)
        loaded.flags.writeable = False
        obj.__dict__["ranks"] = loaded  # kept: the column is read once
        return loaded

    def __set__(self, obj: object, value: Int64Array | DeferredRanks | None) -> None:
        obj.__dict__["ranks"] = value


@dataclass(frozen=True, eq=False)
class Run(Grouped):
    """A system's output: for each query, documents with float64 scores.

    Documents are ranked by score, ties broken by a named policy (see :meth:`ranking`); the
    rank column of a TREC file is kept in :attr:`ranks` for the policy ``"rank"``, which
    orders by it instead (as NIST ndeval).

    Examples
    --------
    >>> run = Run.from_dict({"q1": {"d1": 0.5, "d2": 0.5, "d3": 0.9}}, name="bm25")
    >>> run.name, len(run)
    ('bm25', 3)
    >>> [run.docid(i) for i in run.ranking()]  # ties: docid descending, as trec_eval
    ['d3', 'd2', 'd1']

    ``Run(data, name=...)`` builds from any input :func:`ranklens.evaluate` takes (a path,
    a dict, a DataFrame ..., as ranx):

    >>> Run({"q1": {"d1": 0.5}}, name="bm25")
    Run('bm25', 1 queries, 1 entries, source='<dict>')
    """

    scores: Float64Array
    name: str
    _: KW_ONLY
    ranks: RankColumn = RankColumn()
    """The rank column of each entry (a TREC file's 4th column, a DataFrame's ``rank``;
    ``NO_RANK`` where it is not an integer), or ``None`` when the run was built without
    one; read only by the tie policy ``"rank"``. Given as an array or as a
    :class:`DeferredRanks`, which is loaded when this is first read (:class:`RankColumn`)."""
    metadata: IrMetadata | None = None
    """The run's ir_metadata (the ``# ir_metadata.start`` header of a TREC run file,
    :mod:`ranklens.data.ir_metadata`), or ``None``; written back by :meth:`write`."""

    def __post_init__(self) -> None:
        super().__post_init__()
        self.scores.flags.writeable = False
        raw = self.__dict__.get("ranks")
        if isinstance(raw, np.ndarray):
            raw.flags.writeable = False

    def _with(self, **changes: Any) -> Run:
        """A copy with ``changes``, the rank column carried as it is (not loaded, as
        :func:`dataclasses.replace` would load it)."""
        kept = {f.name: self.__dict__[f.name] for f in fields(self) if f.init}
        return Run(**{**kept, **changes})

    def __repr__(self) -> str:
        return (
            f"Run({self.name!r}, {self.num_queries} queries, {len(self)} entries, "
            f"source={self.source!r})"
        )

    @classmethod
    def from_file(
        cls,
        source: str | os.PathLike[str] | IO[bytes] | IO[str],
        name: str | None = None,
        duplicates: DuplicatePolicy = "error",
        *,
        ranks: bool | None = None,
    ) -> Run:
        """Read a TREC run; see :func:`ranklens.data.trec_text.read_run`.

        ``ranks`` says when its rank column (the 4th, read only by ``ties="rank"``) is
        read: ``None`` (default) when :attr:`ranks` is first read (the file is read again
        then; a stream, which cannot be, has it read now), ``True`` now, ``False`` never
        (the run has none)."""
        from ranklens.data.trec_text import read_run

        return cls(**read_run(source, name, ranks=ranks)).deduplicated(duplicates)

    @classmethod
    def from_dict(
        cls,
        mapping: Mapping[str, Mapping[str, float]],
        name: str = "run",
        duplicates: DuplicatePolicy = "error",
    ) -> Run:
        """Build from ``{qid: {docid: score}}``. An empty mapping is an empty run (every
        qrels query then scores as retrieving nothing, as in ir_measures); an empty run
        *file* is an error. Keys are str or int: ``"1"`` and ``1`` are the same id, so
        two such keys are a repeated pair, resolved by ``duplicates``."""
        from ranklens.data.memory import from_dict

        columns = from_dict(mapping, False, "<dict>", allow_empty=True, duplicates=duplicates)
        return cls._make(columns, name).deduplicated(duplicates)

    @classmethod
    def from_records(
        cls,
        records: Iterable[tuple[str, str, float]],
        name: str = "run",
        duplicates: DuplicatePolicy = "error",
    ) -> Run:
        """Build from ``(qid, docid, score)`` tuples."""
        from ranklens.data.memory import from_records

        return cls._make(from_records(records, False, "<records>"), name).deduplicated(duplicates)

    @classmethod
    def from_frame(
        cls,
        frame: Any,
        name: str = "run",
        qid_col: str | None = None,
        doc_col: str | None = None,
        score_col: str | None = None,
        duplicates: DuplicatePolicy = "error",
    ) -> Run:
        """Build from a pandas or polars DataFrame (columns ``query_id``, ``doc_id``, ``score``
        or the other usual names, unless given)."""
        from ranklens.data.frames import from_frame

        columns = from_frame(frame, False, qid_col, doc_col, score_col)
        return cls._make(columns, name).deduplicated(duplicates)

    @classmethod
    def _make(cls, columns: dict[str, Any], name: str) -> Run:
        values = columns.pop("values")
        return cls(scores=values, name=name, **columns)

    def renamed(self, name: str) -> Run:
        """The same run under another name."""
        return self._with(name=name)

    def deduplicated(self, policy: DuplicatePolicy = "error") -> Run:
        """This run with repeated (query, document) pairs resolved by ``policy``."""
        keep = resolve_duplicates(self, self.scores, policy, "run")
        if keep is None:
            return self if self.unique else self._with(unique=True)
        raw = self.__dict__.get("ranks")
        ranks: Int64Array | DeferredRanks | None = None
        if isinstance(raw, np.ndarray):
            ranks = raw[keep]
        elif raw is not None:
            ranks = cast(DeferredRanks, raw).subset(keep)
        columns = subset_entries(self, keep)
        return Run(
            scores=self.scores[keep],
            name=self.name,
            ranks=ranks,
            metadata=self.metadata,
            **columns,  # type: ignore[arg-type]
        )

    def ranking(self, ties: TiePolicy = "trec_eval") -> Int64Array:
        """The entries of each query in ranked order, as a permutation of entry indices.

        Documents are ordered by score, descending; equal scores are ordered by ``ties``
        (see :data:`ranklens.base.types.TiePolicy`). ``ranking()[q_offsets[j]:q_offsets[j+1]]``
        is query ``j``'s ranking. ``ties="rank"`` orders by :attr:`ranks` instead, ascending
        (scores are not read), as NIST ndeval does without ``-traditional``.

        Raises
        ------
        OptionError
            ``ties="rank"`` for a run without a rank column (built from a dict or records).
        InputError
            ``ties="rank"`` and a rank that is not an integer, or a rank given twice for a
            query (ndeval's "duplicate rank").
        """
        if ties not in TIE_POLICIES:
            raise OptionError(f"ties must be one of {list(TIE_POLICIES)}, not {ties!r}")
        if ties == "rank":
            return self._rank_order()
        perm: Int64Array = _core.rank(
            self.q_offsets, self.doc_data, self.doc_offsets, self.scores, _POLICY_CODE[ties]
        )
        return perm

    def _rank_order(self) -> Int64Array:
        """The entries of each query by rank column, ascending (``ties="rank"``)."""
        ranks = self.ranks
        if ranks is None:
            raise OptionError(
                f"ties='rank' orders documents by the run's rank column, and run "
                f"'{self.name}' has none (it was built from {self.source or 'memory'}): read "
                "the run from a TREC file, give a DataFrame with a 'rank' column, or choose "
                "another tie policy (ties='trec_eval' orders by score)"
            )
        if len(ranks) == 0:
            return np.zeros(0, dtype=np.int64)
        bad = np.flatnonzero(ranks == NO_RANK)
        if bad.shape[0]:
            raise InputError(
                "a rank (a TREC run's 4th column, a DataFrame's 'rank') is not an integer, "
                "and ties='rank' orders by it; fix the run or choose another tie policy",
                path=self.source,
                line=self._where(int(bad[0])),
            )
        if int(np.abs(ranks).max()) < _EXACT:  # exact as doubles: the native ranking
            perm: Int64Array = _core.rank(
                self.q_offsets, self.doc_data, self.doc_offsets, -ranks.astype(np.float64), 1
            )
        else:
            perm = np.lexsort((ranks, self.query_of_entries())).astype(np.int64)
        ordered = ranks[perm]
        queries = self.query_of_entries()  # perm keeps every entry within its query
        same = np.flatnonzero((ordered[1:] == ordered[:-1]) & (queries[1:] == queries[:-1]))
        if same.shape[0]:
            first, second = sorted((int(perm[same[0]]), int(perm[same[0] + 1])))
            query = self.qids[int(queries[same[0]])]
            lines = ""
            if self.lines is not None:
                unit = "line" if self.source and not self.source.startswith("<") else "row"
                lines = f" ({unit}s {self._where(first)} and {self._where(second)})"
            raise InputError(
                f"duplicate rank {int(ordered[same[0]])} for query '{query}'{lines}: "
                "ties='rank' orders documents by the rank column, which must not repeat "
                "within a query (as ndeval); fix the run or choose another tie policy",
                path=self.source,
                line=self._where(second),
            )
        return perm

    def to_dict(self) -> dict[str, dict[str, float]]:
        """``{qid: {docid: score}}``."""
        out: dict[str, dict[str, float]] = {}
        docs = self.docids()
        scores = self.scores.tolist()
        bounds = self.q_offsets.tolist()
        for j, qid in enumerate(self.qids):
            a, b = bounds[j], bounds[j + 1]
            out[qid] = dict(zip(docs[a:b], scores[a:b], strict=True))
        return out

    def to_pandas(self) -> Any:
        """A pandas DataFrame with columns ``query_id``, ``doc_id``, ``score``."""
        from ranklens.base.optional import require

        pd = require("pandas", "Run.to_pandas")
        qidx = self.query_of_entries().tolist()
        return pd.DataFrame(
            {
                "query_id": [self.qids[q] for q in qidx],
                "doc_id": self.docids(),
                "score": self.scores,
            }
        )

    @classmethod
    def from_parquet(
        cls,
        path: str | os.PathLike[str],
        name: str | None = None,
        duplicates: DuplicatePolicy = "error",
    ) -> Run:
        """Read a run saved by :meth:`to_parquet` (or any Parquet file with the columns
        :meth:`from_frame` finds); named ``name``, else the name saved in the file, else
        the file name."""
        from ranklens.data.table_files import parquet_columns

        columns, saved = parquet_columns(path, False, named=name is None)
        the_name = name or saved or os.path.basename(os.fspath(path))
        return cls._make(columns, the_name).deduplicated(duplicates)

    @classmethod
    def from_jsonl(
        cls,
        path: str | os.PathLike[str] | IO[str],
        name: str | None = None,
        duplicates: DuplicatePolicy = "error",
    ) -> Run:
        """Read JSON lines ``{"query_id", "doc_id", "score"}`` (as :meth:`to_jsonl` writes
        them); named ``name``, else the last line's ``run``, else the file name."""
        from ranklens.data.source import describe
        from ranklens.data.table_files import jsonl_columns

        columns, tag = jsonl_columns(path, False)
        the_name = name or tag or os.path.basename(describe(path))
        return cls._make(columns, the_name).deduplicated(duplicates)

    def to_parquet(self, path: str | os.PathLike[str]) -> None:
        """Save as Parquet (``query_id``, ``doc_id`` strings, ``score`` float64, the name in
        the file's metadata); :meth:`from_parquet` reads back an equal run."""
        from ranklens.data.table_files import write_parquet

        write_parquet(self, path)

    def to_jsonl(self, path: str | os.PathLike[str] | IO[str]) -> None:
        """Save as JSON lines, one document a line with its exact score and the run's name
        (``.gz`` compresses)."""
        from ranklens.data.table_files import write_jsonl

        write_jsonl(self, path)

    def write(
        self,
        path: str | os.PathLike[str] | IO[str],
        ties: TiePolicy = "trec_eval",
        name: str | None = None,
    ) -> None:
        """Write TREC run text (``qid Q0 docid rank score tag``), ranked, ranks from 1."""
        from ranklens.data.trec_text import write_run

        write_run(path, self, self.ranking(ties), name or self.name)

