"""Turning whatever the user passed (path, dict, DataFrame, records) into Qrels or a Run."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import IO, Any, cast

from ranklens.base.errors import DuplicateError, InputError
from ranklens.base.types import DuplicatePolicy
from ranklens.data.idioms import accept_one_input
from ranklens.data.kinds import file_kind, is_frame, is_parquet_dataset, refuse_lazy
from ranklens.data.qrels import Qrels
from ranklens.data.run import Run

QrelsLike = Qrels | str | os.PathLike[str] | Mapping[str, Mapping[str, int]] | Any
RunLike = Run | str | os.PathLike[str] | Mapping[str, Mapping[str, float]] | Any


def as_qrels(obj: QrelsLike, duplicates: DuplicatePolicy = "error") -> Qrels:
    """Qrels from a :class:`Qrels`, a path (or ``-``; TREC text, or Parquet / JSON lines by
    suffix, .csv / .tsv with a header row; also as bytes), a file object,
    ``{qid: {docid: rel}}``, a pandas/polars DataFrame,
    ``(qid, docid, rel)`` tuples, an ir_datasets id (``"irds:..."``) or dataset, or the
    namedtuples of ``dataset.qrels_iter()``."""
    from ranklens.data import irds

    if isinstance(obj, bytes):  # a path in bytes, as os.open takes
        obj = os.fsdecode(obj)
    refuse_lazy(obj, "qrels")
    if isinstance(obj, Qrels):
        return obj.deduplicated(duplicates)
    if irds.is_dataset_id(obj) or irds.is_dataset(obj):
        return irds.qrels_from(obj, duplicates)
    kind = file_kind(obj)
    if kind == "parquet":
        return Qrels.from_parquet(cast("str | os.PathLike[str]", obj), duplicates)
    if kind == "jsonl":
        return Qrels.from_jsonl(cast("str | os.PathLike[str]", obj), duplicates)
    if kind == "delimited":
        from ranklens.data.table_files import delimited_columns

        columns, _ = delimited_columns(cast("str", obj), True)
        return Qrels._make(columns).deduplicated(duplicates)
    if isinstance(obj, str | os.PathLike) or hasattr(obj, "read"):
        return Qrels.from_file(cast("str | os.PathLike[str] | IO[str]", obj), duplicates=duplicates)
    if isinstance(obj, Mapping):
        return Qrels.from_dict(obj, duplicates=duplicates)
    if is_frame(obj):
        return Qrels.from_frame(obj, duplicates=duplicates)
    if isinstance(obj, Iterable):
        records = irds.plain_records(obj, "relevance")
        return Qrels.from_records(
            cast(Iterable[tuple[str, str, int]], records), duplicates=duplicates
        )
    raise InputError(_refusal("qrels", obj, "{qid: {docid: relevance}}"))


def as_run(
    obj: RunLike,
    duplicates: DuplicatePolicy = "error",
    name: str | None = None,
    *,
    ranks: bool | None = None,
) -> Run:
    """A run from a :class:`Run`, a path (or ``-``; TREC text, or Parquet / JSON lines by
    suffix, .csv / .tsv with a header row; also as bytes), a file object,
    ``{qid: {docid: score}}``, a pandas/polars DataFrame,
    ``(qid, docid, score)`` tuples, an ir_datasets id or dataset (its ``scoreddocs``), or
    the namedtuples of ``dataset.scoreddocs_iter()``; a directory or glob of Parquet files
    (hive partitions read as columns) is read whole. ``ranks``: when a TREC file's rank
    column is read (:meth:`Run.from_file`)."""
    from ranklens.data import irds

    if isinstance(obj, bytes):  # a path in bytes, as os.open takes
        obj = os.fsdecode(obj)
    refuse_lazy(obj, "run")
    if isinstance(obj, Run):
        run = obj.deduplicated(duplicates)
        return run.renamed(name) if name else run
    if irds.is_dataset_id(obj) or irds.is_dataset(obj):
        return irds.run_from(obj, name, duplicates)
    if is_parquet_dataset(obj):  # a directory or glob of Parquet files
        from ranklens.data.parquet_stream import read_parquet_run

        return read_parquet_run(cast("str", obj), name, duplicates)
    kind = file_kind(obj)
    if kind == "parquet":
        return Run.from_parquet(cast("str | os.PathLike[str]", obj), name, duplicates)
    if kind == "jsonl":
        return Run.from_jsonl(cast("str | os.PathLike[str]", obj), name, duplicates)
    if kind == "delimited":
        from ranklens.data.source import describe
        from ranklens.data.table_files import delimited_columns

        columns, tag = delimited_columns(cast("str", obj), False)
        the_name = name or tag or os.path.basename(describe(obj))
        return Run._make(columns, the_name).deduplicated(duplicates)
    if isinstance(obj, str | os.PathLike) or hasattr(obj, "read"):
        try:
            return Run.from_file(
                cast("str | os.PathLike[str] | IO[str]", obj),
                name=name,
                duplicates=duplicates,
                ranks=ranks,
            )
        except DuplicateError as exc:  # a stochastic run given to ordinary measures?
            from ranklens.data.stochastic import stochastic_duplicate

            raise stochastic_duplicate(exc) from None
    if isinstance(obj, Mapping):
        return Run.from_dict(obj, name=name or "run", duplicates=duplicates)
    if is_frame(obj):
        return Run.from_frame(obj, name=name or "run", duplicates=duplicates)
    if isinstance(obj, Iterable):
        records = cast(Iterable[tuple[str, str, float]], irds.plain_records(obj, "score"))
        return Run.from_records(records, name=name or "run", duplicates=duplicates)
    raise InputError(_refusal("a run", obj, "{qid: {docid: score}}"))


def _refusal(what: str, obj: object, mapping: str) -> str:
    """Why ``obj`` cannot be read as qrels or a run, and what can."""
    return (
        f"cannot make {what} from {type(obj).__name__} {obj!r:.60}: give a path, a file "
        f"object, {mapping}, a pandas or polars DataFrame, a pyarrow Table or "
        "(qid, docid, value) tuples"
    )


def _qrels_from(data: Any, duplicates: DuplicatePolicy = "error") -> Qrels:
    return as_qrels(data, duplicates)


def _run_from(data: Any, name: str | None = None, duplicates: DuplicatePolicy = "error") -> Run:
    return as_run(data, duplicates, name)


# Qrels(data) and Run(data, name=...), as ranx: see ranklens.data.idioms
accept_one_input(Qrels, _qrels_from, frozenset({"duplicates"}))
accept_one_input(Run, _run_from, frozenset({"name", "duplicates"}))
