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
    """Qrels from a :class:`Qrels`, a path (or ``-``), a file object, ``{qid: {docid: rel}}``,
    a pandas/polars DataFrame or ``(qid, docid, rel)`` tuples."""
    if isinstance(obj, Qrels):
        return obj.deduplicated(duplicates)
    if isinstance(obj, str | os.PathLike) or hasattr(obj, "read"):
        return Qrels.from_file(cast("str | os.PathLike[str] | IO[str]", obj), duplicates=duplicates)
    if isinstance(obj, Mapping):
        return Qrels.from_dict(obj)
    if is_frame(obj):
        return Qrels.from_frame(obj, duplicates=duplicates)
    if isinstance(obj, Iterable):
        return Qrels.from_records(cast(Iterable[tuple[str, str, int]], obj), duplicates=duplicates)
    raise TypeError(f"cannot make qrels from {type(obj).__name__}")


def as_run(obj: RunLike, duplicates: DuplicatePolicy = "error", name: str | None = None) -> Run:
    """A run from a :class:`Run`, a path (or ``-``), a file object, ``{qid: {docid: score}}``,
    a pandas/polars DataFrame or ``(qid, docid, score)`` tuples."""
    if isinstance(obj, Run):
        run = obj.deduplicated(duplicates)
        return run.renamed(name) if name else run
    if isinstance(obj, str | os.PathLike) or hasattr(obj, "read"):
        return Run.from_file(
            cast("str | os.PathLike[str] | IO[str]", obj), name=name, duplicates=duplicates
        )
    if isinstance(obj, Mapping):
        return Run.from_dict(obj, name=name or "run")
    if is_frame(obj):
        return Run.from_frame(obj, name=name or "run", duplicates=duplicates)
    if isinstance(obj, Iterable):
        records = cast(Iterable[tuple[str, str, float]], obj)
        return Run.from_records(records, name=name or "run", duplicates=duplicates)
    raise TypeError(f"cannot make a run from {type(obj).__name__}")
