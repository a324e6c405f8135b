"""ir_datasets inputs: a dataset id (``"irds:msmarco-passage/trec-dl-2019/judged"``), a
dataset object, or the namedtuples of ``dataset.qrels_iter()`` / ``scoreddocs_iter()``.

``ir_datasets`` is optional (``pip install 'ranklens[irds]'``) and imported only when such an
input is given. A dataset id as qrels reads ``qrels_iter()`` (``TrecQrel(query_id, doc_id,
relevance, iteration)``); as a run, ``scoreddocs_iter()`` (``ScoredDoc(query_id, doc_id,
score)``), the dataset's own retrieval results (e.g. its BM25 top 1000). Reading a dataset
for the first time may download it (ir_datasets keeps it under ``IR_DATASETS_HOME``).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator
from typing import Any

from ranklens.base.errors import InputError
from ranklens.base.optional import require
from ranklens.base.types import DuplicatePolicy
from ranklens.data.qrels import Qrels
from ranklens.data.run import Run

PREFIX = "irds:"


def is_dataset_id(obj: object) -> bool:
    """True for a string ``"irds:<dataset id>"``."""
    return isinstance(obj, str) and obj.startswith(PREFIX)


def is_dataset(obj: object) -> bool:
    """True for an ir_datasets dataset object (it has ``qrels_iter`` or
    ``scoreddocs_iter``), recognised without importing ir_datasets."""
    return type(obj).__module__.split(".")[0] == "ir_datasets" and (
        hasattr(obj, "qrels_iter") or hasattr(obj, "scoreddocs_iter")
    )


def load(dataset_id: str) -> Any:
    """The ir_datasets dataset named ``dataset_id`` (with or without ``irds:``)."""
    irds = require("ir_datasets", "Reading an ir_datasets dataset")
    name = dataset_id[len(PREFIX) :] if dataset_id.startswith(PREFIX) else dataset_id
    try:
        return irds.load(name)
    except KeyError:
        raise InputError(
            f"ir_datasets has no dataset {name!r} (see https://ir-datasets.com for the ids)",
            path=dataset_id,
        ) from None


def _dataset(obj: Any) -> Any:
    return load(obj) if isinstance(obj, str) else obj


def qrels_from(obj: Any, duplicates: DuplicatePolicy = "error") -> Qrels:
    """Qrels from a dataset id or dataset object (its ``qrels_iter()``)."""
    dataset = _dataset(obj)
    if not dataset.has_qrels():
        raise InputError("this ir_datasets dataset has no qrels", path=str(obj))
    records = ((q.query_id, q.doc_id, q.relevance) for q in dataset.qrels_iter())
    source = obj if isinstance(obj, str) else f"{PREFIX}{type(dataset).__name__}"
    return Qrels.from_records(records, duplicates=duplicates, source=source)


def run_from(obj: Any, name: str | None = None, duplicates: DuplicatePolicy = "error") -> Run:
    """A run from a dataset id or dataset object (its ``scoreddocs_iter()``); named
    ``name``, else the dataset id."""
    dataset = _dataset(obj)
    if not dataset.has_scoreddocs():
        raise InputError(
            "this ir_datasets dataset has no scored documents (scoreddocs) to use as a run",
            path=str(obj),
        )
    records = ((s.query_id, s.doc_id, s.score) for s in dataset.scoreddocs_iter())
    default = obj[len(PREFIX) :] if isinstance(obj, str) and obj.startswith(PREFIX) else "run"
    return Run.from_records(records, name=name or default, duplicates=duplicates)


def plain_records(records: Iterable[Any], value: str) -> Iterable[Any]:
    """``records`` as ``(qid, docid, value)`` tuples: namedtuples with ``query_id``,
    ``doc_id`` and ``value`` fields (ir_datasets' ``TrecQrel``, ``ScoredDoc``, ...) are
    mapped to them, anything else is passed through (the first record is looked at)."""
    it: Iterator[Any] = iter(records)
    try:
        first = next(it)
    except StopIteration:
        return []
    fields = getattr(first, "_fields", ())
    rest = itertools.chain([first], it)
    if "query_id" in fields and "doc_id" in fields and value in fields:
        return ((r.query_id, r.doc_id, getattr(r, value)) for r in rest)
    return rest
