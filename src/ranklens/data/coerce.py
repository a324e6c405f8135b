"""Turning whatever the user passed (path, dict, DataFrame, records) into Qrels or a Run."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import IO, Any, cast

from ranklens.base.types import DuplicatePolicy
from ranklens.data.frames import is_frame
from ranklens.data.qrels import Qrels
from ranklens.data.run import Run

QrelsLike = Qrels | str | os.PathLike[str] | Mapping[str, Mapping[str, int]] | Any
RunLike = Run | str | os.PathLike[str] | Mapping[str, Mapping[str, float]] | Any


def as_qrels(obj: QrelsLike, duplicates: DuplicatePolicy = "error") -> Qrels:
    """Qrels from a :class:`Qrels`, a path (or ``-``; TREC text, or Parquet / JSON lines by
    suffix), a file object, ``{qid: {docid: rel}}``, a pandas/polars DataFrame,
    ``(qid, docid, rel)`` tuples, an ir_datasets id (``"irds:..."``) or dataset, or the
    namedtuples of ``dataset.qrels_iter()``."""
    from ranklens.data import irds, table_files

    if isinstance(obj, Qrels):
        return obj.deduplicated(duplicates)
    if irds.is_dataset_id(obj) or irds.is_dataset(obj):
        return irds.qrels_from(obj, duplicates)
    kind = table_files.file_kind(obj)
    if kind == "parquet":
        return Qrels.from_parquet(cast("str | os.PathLike[str]", obj), duplicates)
    if kind == "jsonl":
        return Qrels.from_jsonl(cast("str | os.PathLike[str]", obj), duplicates)
    if isinstance(obj, str | os.PathLike) or hasattr(obj, "read"):
        return Qrels.from_file(cast("str | os.PathLike[str] | IO[str]", obj), duplicates=duplicates)
    if isinstance(obj, Mapping):
        return Qrels.from_dict(obj)
    if is_frame(obj):
        return Qrels.from_frame(obj, duplicates=duplicates)
    if isinstance(obj, Iterable):
        records = irds.plain_records(obj, "relevance")
        return Qrels.from_records(
            cast(Iterable[tuple[str, str, int]], records), duplicates=duplicates
        )
    raise TypeError(f"cannot make qrels from {type(obj).__name__}")


def as_run(obj: RunLike, duplicates: DuplicatePolicy = "error", name: str | None = None) -> Run:
    """A run from a :class:`Run`, a path (or ``-``; TREC text, or Parquet / JSON lines by
    suffix), a file object, ``{qid: {docid: score}}``, a pandas/polars DataFrame,
    ``(qid, docid, score)`` tuples, an ir_datasets id or dataset (its ``scoreddocs``), or
    the namedtuples of ``dataset.scoreddocs_iter()``."""
    from ranklens.data import irds, table_files

    if isinstance(obj, Run):
        run = obj.deduplicated(duplicates)
        return run.renamed(name) if name else run
    if irds.is_dataset_id(obj) or irds.is_dataset(obj):
        return irds.run_from(obj, name, duplicates)
    kind = table_files.file_kind(obj)
    if kind == "parquet":
        return Run.from_parquet(cast("str | os.PathLike[str]", obj), name, duplicates)
    if kind == "jsonl":
        return Run.from_jsonl(cast("str | os.PathLike[str]", obj), name, duplicates)
    if isinstance(obj, str | os.PathLike) or hasattr(obj, "read"):
        return Run.from_file(
            cast("str | os.PathLike[str] | IO[str]", obj), name=name, duplicates=duplicates
        )
    if isinstance(obj, Mapping):
        return Run.from_dict(obj, name=name or "run")
    if is_frame(obj):
        return Run.from_frame(obj, name=name or "run", duplicates=duplicates)
    if isinstance(obj, Iterable):
        records = cast(Iterable[tuple[str, str, float]], irds.plain_records(obj, "score"))
        return Run.from_records(records, name=name or "run", duplicates=duplicates)
    raise TypeError(f"cannot make a run from {type(obj).__name__}")
