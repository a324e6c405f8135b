"""Between ranx's forms and ranklens' tables: dicts, numpy arrays and typed lists, files.

ranx holds a run (or qrels) as ``{q_id: {doc_id: value}}``; its metric kernels read, per
query, a ``(n, 2)`` array of ``[doc_id, value]`` rows in ranked order (doc ids hashed to
float64). Everything here turns those forms into :class:`ranklens.Run` /
:class:`ranklens.Qrels` (columnar, grouped by query) and back, keeping what ranklens'
tables do not: the queries without any document (ranx keeps ``{q_id: {}}``) and the order
of the queries.
"""

from __future__ import annotations

import gzip
import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from itertools import chain
from typing import Any

import numpy as np

from ranklens.base.errors import MissingDependencyError
from ranklens.base.optional import require
from ranklens.base.types import Float64Array, TiePolicy
from ranklens.compat.ranx._errors import (
    RanxAssertionError,
    RanxFileNotFoundError,
    RanxInputError,
    describe,
)
from ranklens.data.grouped import encode_ids
from ranklens.data.qrels import Qrels as _Qrels
from ranklens.data.run import Run as _Run

RUN_KINDS = ("json", "trec", "lz4", "gz", "parquet")
QRELS_KINDS = ("json", "trec", "gz", "parquet")


# ----------------------------------------------------------------------------- files


def file_kind(path: str | os.PathLike[str], kind: str | None, kinds: tuple[str, ...]) -> str:
    """ranx's ``get_file_kind``: ``kind`` if given, else the extension (``.txt`` is
    ``trec``, ``.parq`` is ``parquet``); a kind outside ``kinds`` is refused."""
    if kind is None:
        kind = os.path.splitext(os.fspath(path))[1][1:]
        kind = {"txt": "trec", "parq": "parquet"}.get(kind, kind)
    if kind not in kinds:
        names = ", ".join(repr(k) for k in kinds)
        raise RanxAssertionError(
            f"cannot tell the kind of file {os.fspath(path)!r} (kind={kind!r}): kind must be "
            f"one of {names}; name it with kind=... or use one of ranx's extensions "
            "(.json, .trec, .txt, .gz, .lz4, .parquet, .parq)"
        )
    return kind


def check_exists(path: str | os.PathLike[str]) -> None:
    """Refuse a path without a file, as ranx's ``open`` does (a ``FileNotFoundError``)."""
    if not os.path.exists(path):
        raise RanxFileNotFoundError("no such file; check the path", path=os.fspath(path))


def read_json(path: str | os.PathLike[str]) -> Any:
    """A JSON file (ranx's ``{q_id: {doc_id: value}}``)."""
    check_exists(path)
    try:
        with open(path, encoding="utf-8") as handle:
            return json.load(handle)
    except json.JSONDecodeError as exc:
        raise RanxInputError(
            f"not JSON ({exc.msg}); ranx's JSON files hold {{q_id: {{doc_id: value}}}}",
            path=os.fspath(path),
            line=exc.lineno,
        ) from None


def write_json(content: Any, path: str | os.PathLike[str]) -> None:
    """JSON indented by two spaces, as ranx writes it."""
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(content, handle, indent=2)


def _lz4_modules(feature: str) -> tuple[Any, Any]:
    try:
        return require("lz4.frame", feature), require("cbor2", feature)
    except MissingDependencyError:
        raise MissingDependencyError(
            f"{feature} reads and writes ranx's LZ4 files (CBOR compressed with LZ4), which "
            "needs the packages 'lz4' and 'cbor2': pip install 'ranklens[ranx]'"
        ) from None


def read_lz4(path: str | os.PathLike[str]) -> Any:
    """ranx's LZ4 file: CBOR, compressed with LZ4, inside an LZ4 frame."""
    frame, cbor2 = _lz4_modules("Run.from_file(kind='lz4')")
    check_exists(path)
    try:
        with frame.open(os.fspath(path), mode="r") as handle:
            return cbor2.loads(frame.decompress(handle.read()))
    except (RuntimeError, ValueError, EOFError) as exc:
        raise RanxInputError(
            f"not one of ranx's LZ4 files ({exc}); they hold {{q_id: {{doc_id: score}}}} as "
            "CBOR compressed twice with LZ4",
            path=os.fspath(path),
        ) from None


def write_lz4(content: Any, path: str | os.PathLike[str]) -> None:
    """Write ``content`` as ranx does (``ranx.io.save_lz4``)."""
    frame, cbor2 = _lz4_modules("Run.save(kind='lz4')")
    directory = os.path.dirname(os.fspath(path))
    if directory:
        os.makedirs(directory, exist_ok=True)
    with frame.open(os.fspath(path), mode="wb") as handle:
        handle.write(frame.compress(cbor2.dumps(content), compression_level=16))


def write_gzip_text(text_writer: Any, path: str | os.PathLike[str]) -> None:
    """Write TREC text through ``text_writer(stream)`` into a gzip file."""
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        text_writer(handle)


# ----------------------------------------------------------------------------- dicts


def _is_text(kind: type) -> bool:
    return issubclass(kind, str)


def _is_score(kind: type) -> bool:
    return kind is int or issubclass(kind, float)


def _is_grade(kind: type) -> bool:
    return kind is int or issubclass(kind, np.signedinteger)


def _all_of(items: Iterable[Any], accepted: Any) -> bool:
    """Whether the type of every item is ``accepted`` (checked once per distinct type)."""
    return all(accepted(kind) for kind in set(map(type, items)))


def _plain_columns(
    filled: Mapping[Any, Mapping[str, Any]], integer: bool
) -> tuple[dict[str, Any], np.ndarray] | None:
    """The grouped columns of ``{q_id: {doc_id: value}}`` (every query with documents) and
    its values, built directly when every id is a ``str`` and every value a finite ``float``
    / ``int`` (an ``int`` for relevance); ``None`` otherwise (then ranklens' validating
    reader reads it, and reports what is wrong). A dict holds each document once per query,
    so nothing is repeated; queries are sorted (byte order: code points), documents kept
    in the dict's order."""
    if not _all_of(filled, _is_text):
        return None
    qids = sorted(filled)
    docs = [filled[q] for q in qids]
    doc_ids = list(chain.from_iterable(docs))
    values = list(chain.from_iterable(d.values() for d in docs))
    if not (_all_of(doc_ids, _is_text) and _all_of(values, _is_grade if integer else _is_score)):
        return None
    try:
        "".join(qids).encode("utf-8")  # no lone surrogate: ids are written as UTF-8
        array = np.asarray(values, dtype=np.int64 if integer else np.float64)
        data, doc_offsets = encode_ids(doc_ids)
    except (OverflowError, UnicodeError, ValueError):
        return None
    if not integer and not np.isfinite(array).all():
        return None
    q_offsets = np.zeros(len(qids) + 1, dtype=np.int64)
    np.cumsum([len(d) for d in docs], out=q_offsets[1:])
    columns = {
        "qids": tuple(qids),
        "q_offsets": q_offsets,
        "doc_data": data,
        "doc_offsets": doc_offsets,
        "lines": None,
        "source": "<dict>",
        "unique": True,
    }
    return columns, array


def _query_key(key: object) -> str:
    """A query id as ranklens keeps it (``str``, or an ``int`` as its digits)."""
    if isinstance(key, str):
        return key
    if isinstance(key, int | np.integer) and not isinstance(key, bool):
        return str(int(key))
    raise RanxInputError(f"a query id must be a string, not {describe(key)}")


def _inner(mapping: Mapping[Any, Any]) -> tuple[list[str], dict[Any, Mapping[str, Any]]]:
    """The query ids in order, and the queries that have documents."""
    if not isinstance(mapping, Mapping):
        raise RanxInputError(f"expected {{q_id: {{doc_id: value}}}}, got {describe(mapping)}")
    order = [_query_key(q) for q in mapping]
    filled: dict[Any, Mapping[str, Any]] = {}
    for q, docs in mapping.items():
        if not isinstance(docs, Mapping):
            raise RanxInputError(f"query {q!r}: expected {{doc_id: value}}, got {describe(docs)}")
        if docs:
            filled[q] = docs
    return order, filled


def run_from_dict(mapping: Mapping[Any, Mapping[str, float]], name: str) -> tuple[_Run, list[str]]:
    """A ranklens run of ``{q_id: {doc_id: score}}`` and every query id, in order (the
    queries without documents too)."""
    order, filled = _inner(mapping)
    plain = _plain_columns(filled, integer=False)
    if plain is None:
        return _Run.from_dict(filled, name), order
    columns, scores = plain
    return _Run(scores=scores, name=name, **columns), order


def qrels_from_dict(mapping: Mapping[Any, Mapping[str, int]]) -> tuple[_Qrels, list[str]]:
    """ranklens qrels of ``{q_id: {doc_id: relevance}}`` and every query id, in order."""
    order, filled = _inner(mapping)
    if not filled:
        return empty_qrels(), order
    plain = _plain_columns(filled, integer=True)
    if plain is None:
        return _Qrels.from_dict(filled), order
    columns, rels = plain
    return _Qrels(rels=rels, **columns), order


def empty_qrels(source: str = "<dict>") -> _Qrels:
    """Qrels without any judgment (ranklens' readers refuse to build them)."""
    return _Qrels(
        rels=np.zeros(0, dtype=np.int64),
        qids=(),
        q_offsets=np.zeros(1, dtype=np.int64),
        doc_data=np.zeros(0, dtype=np.uint8),
        doc_offsets=np.zeros(1, dtype=np.int64),
        lines=None,
        source=source,
        unique=True,
    )


def ranked_dict(
    run: _Run, queries: Iterable[str], ties: TiePolicy | None
) -> dict[str, dict[str, float]]:
    """``{q_id: {doc_id: score}}`` for every query of ``queries`` (in that order; ``{}``
    where the run has none), documents in ranked order (``ties=None``: in the run's row
    order, which is ranx's dict order)."""
    order = np.arange(len(run.scores)) if ties is None else run.ranking(ties)
    docs = run.docids()
    scores = run.scores.tolist()
    bounds = run.q_offsets.tolist()
    index = run.query_index()
    out: dict[str, dict[str, float]] = {}
    for qid in queries:
        j = index.get(qid)
        if j is None:
            out[qid] = {}
        else:
            out[qid] = {docs[i]: scores[i] for i in order[bounds[j] : bounds[j + 1]].tolist()}
    return out


def graded_order(qrels: _Qrels) -> np.ndarray:
    """The judgments of each query by decreasing relevance (ties in input order)."""
    return np.lexsort((np.arange(len(qrels)), -qrels.rels, qrels.query_of_entries()))


def graded_dict(qrels: _Qrels, queries: Iterable[str]) -> dict[str, dict[str, int]]:
    """``{q_id: {doc_id: relevance}}`` for every query of ``queries``, documents by
    decreasing relevance (as ranx sorts them)."""
    order = graded_order(qrels).tolist()
    docs = qrels.docids()
    rels = qrels.rels.tolist()
    bounds = qrels.q_offsets.tolist()
    index = qrels.query_index()
    out: dict[str, dict[str, int]] = {}
    for qid in queries:
        j = index.get(qid)
        out[qid] = {} if j is None else {docs[i]: rels[i] for i in order[bounds[j] : bounds[j + 1]]}
    return out


def hashed_arrays(content: Mapping[str, Mapping[str, float]]) -> list[Float64Array]:
    """ranx's typed list: per query (in the order of ``content``), a ``(n, 2)`` float64
    array of ``[hash(doc_id), value]`` rows in the order of the inner dicts."""
    return [
        np.array([[float(hash(d)), float(v)] for d, v in docs.items()], dtype=np.float64).reshape(
            -1, 2
        )
        for docs in content.values()
    ]


# ----------------------------------------------------------------------------- arrays


def is_array_form(obj: object) -> bool:
    """Whether ``obj`` is ranx's array form: a numpy array of shape ``(queries, n, 2)``, or a
    sequence (a list, a tuple, a ``numba.typed.List``) of ``(n, 2)`` arrays."""
    if isinstance(obj, np.ndarray):
        return True
    if isinstance(obj, list | tuple):
        return True
    return type(obj).__module__.startswith("numba.typed")


def _rows(item: Any, side: str, i: int) -> Float64Array:
    """One query's ``(n, 2)`` rows as float64 (an empty array for no rows)."""
    try:
        rows = np.asarray(item, dtype=np.float64)
    except (TypeError, ValueError):
        raise RanxInputError(
            f"{side} query {i}: expected an (n, 2) array of [doc_id, value] rows, got "
            f"{describe(item)}"
        ) from None
    if rows.size == 0:
        return np.zeros((0, 2), dtype=np.float64)
    if rows.ndim != 2 or rows.shape[1] != 2:
        raise RanxInputError(
            f"{side} query {i}: expected an (n, 2) array of [doc_id, value] rows, got shape "
            f"{rows.shape}"
        )
    if not np.isfinite(rows[:, 0]).all():
        raise RanxInputError(f"{side} query {i}: a document id is NaN or infinite")
    return rows


def _arrays(obj: Any, side: str) -> list[Float64Array]:
    if isinstance(obj, np.ndarray) and obj.ndim == 2 and obj.size and obj.shape[1] == 2:
        raise RanxInputError(
            f"{side}: a 2-dimensional array is one query; ranx takes a list of them (or an "
            "array of shape (queries, n, 2))"
        )
    try:
        items = list(obj)
    except TypeError:
        raise RanxInputError(f"{side}: expected arrays, got {describe(obj)}") from None
    return [_rows(item, side, i) for i, item in enumerate(items)]


@dataclass(frozen=True)
class ArrayInput:
    """Qrels and a run given as arrays, as ranklens tables.

    Query ``i`` is named by ``i`` in zero-padded digits (so that byte order is index order);
    document ids are the distinct float ids numbered. ``judged`` marks the queries with at
    least one qrels row (the others have no judgments at all)."""

    qrels: _Qrels
    run: _Run
    queries: tuple[str, ...]
    judged: frozenset[str]


def _id_codes(ids: Float64Array) -> np.ndarray:
    """Equal float ids (``-0.0`` is ``0.0``) to equal integer codes."""
    _, codes = np.unique(ids + 0.0, return_inverse=True)
    return codes.reshape(-1)


def _grouped(qids: tuple[str, ...], query: np.ndarray, doc_names: list[str]) -> dict[str, Any]:
    """Grouped columns (entries already in query order)."""
    counts = np.bincount(query, minlength=len(qids))
    offsets = np.zeros(len(qids) + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    keep = np.flatnonzero(counts)
    data, doc_offsets = encode_ids(doc_names)
    return {
        "qids": tuple(qids[i] for i in keep.tolist()),
        "q_offsets": np.concatenate([[0], offsets[1:][keep]]).astype(np.int64),
        "doc_data": data,
        "doc_offsets": doc_offsets,
        "lines": None,
        "source": "<arrays>",
        "unique": True,
    }


def tables_from_arrays(qrels: Any, run: Any) -> ArrayInput:
    """ranx's array form as ranklens tables, with ranx's meaning.

    Each run array lists a query's documents in ranked order (the value column is not
    read: ranx's kernels take the rows as ranked). A document repeated in a qrels array
    with the same relevance counts once more as a judged document the run cannot retrieve
    (ranx counts rows: the number of relevant documents and the ideal DCG grow); with
    another relevance it is refused. A document repeated in a run array occupies each of
    its ranks; if the qrels judge it, it is refused (ranx would count it relevant at every
    rank, beyond the measures' definitions)."""
    q_rows = _arrays(qrels, "qrels")
    r_rows = _arrays(run, "run")
    if len(q_rows) != len(r_rows):
        raise RanxInputError(
            f"the qrels hold {len(q_rows)} queries and the run {len(r_rows)}: ranx pairs them "
            "by position, so they must be as many"
        )
    n = len(q_rows)
    width = len(str(max(n - 1, 0)))
    qids = tuple(f"{i:0{width}d}" for i in range(n))
    q_sizes = np.array([len(r) for r in q_rows], dtype=np.int64)
    r_sizes = np.array([len(r) for r in r_rows], dtype=np.int64)
    q_all = np.concatenate([np.zeros((0, 2)), *q_rows])
    r_all = np.concatenate([np.zeros((0, 2)), *r_rows])
    codes = _id_codes(np.concatenate([q_all[:, 0], r_all[:, 0]]))
    q_codes, r_codes = codes[: len(q_all)], codes[len(q_all) :]
    q_query = np.repeat(np.arange(n), q_sizes)
    r_query = np.repeat(np.arange(n), r_sizes)
    grades = q_all[:, 1]
    if not (np.isfinite(grades).all() and (grades == np.round(grades)).all()):
        bad = int(np.flatnonzero(~(np.isfinite(grades) & (grades == np.round(grades))))[0])
        raise RanxInputError(
            f"qrels query {int(q_query[bad])}: relevance {grades[bad]!r} is not an integer "
            "(ranx's Qrels hold integer judgments)"
        )
    q_names = [str(c) for c in q_codes.tolist()]
    _rename_repeats_in_qrels(q_query, q_codes, grades, q_names)
    r_names = [str(c) for c in r_codes.tolist()]
    _rename_repeats_in_run(r_query, r_codes, q_query, q_codes, r_names)
    qrels_table = empty_qrels("<arrays>")
    if len(q_all):
        qrels_table = _Qrels(rels=grades.astype(np.int64), **_grouped(qids, q_query, q_names))
    position = np.arange(len(r_all)) - np.repeat(np.cumsum(r_sizes) - r_sizes, r_sizes)
    run_table = _Run(
        scores=-position.astype(np.float64), name="run", **_grouped(qids, r_query, r_names)
    )
    judged = frozenset(qids[i] for i in np.flatnonzero(q_sizes).tolist())
    return ArrayInput(qrels_table, run_table, qids, judged)


def _repeats(query: np.ndarray, codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The entries whose (query, id) occurred before, and the entry of the first one."""
    if len(codes) == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty
    order = np.lexsort((np.arange(len(codes)), codes, query))
    same = (query[order][1:] == query[order][:-1]) & (codes[order][1:] == codes[order][:-1])
    starts = np.flatnonzero(np.r_[True, ~same])
    group = np.cumsum(np.r_[True, ~same]) - 1
    first = order[starts][group]
    later = np.flatnonzero(np.r_[False, same])
    return order[later], first[later]


def _rename_repeats_in_qrels(
    query: np.ndarray, codes: np.ndarray, grades: np.ndarray, names: list[str]
) -> None:
    repeated, first = _repeats(query, codes)
    for count, (i, f) in enumerate(zip(repeated.tolist(), first.tolist(), strict=True)):
        if grades[i] != grades[f]:
            raise RanxInputError(
                f"qrels query {int(query[i])}: document {names[i]} of the array is judged "
                f"twice, {int(grades[f])} and {int(grades[i])}; keep one judgment"
            )
        names[i] = f"{names[i]}#{count}"  # counted again, never retrieved


def _rename_repeats_in_run(
    query: np.ndarray,
    codes: np.ndarray,
    q_query: np.ndarray,
    q_codes: np.ndarray,
    names: list[str],
) -> None:
    repeated, _ = _repeats(query, codes)
    if repeated.shape[0] == 0:
        return
    judged = set(zip(q_query.tolist(), q_codes.tolist(), strict=True))
    for count, i in enumerate(repeated.tolist()):
        if (int(query[i]), int(codes[i])) in judged:
            raise RanxInputError(
                f"run query {int(query[i])}: a document the qrels judge is retrieved twice; "
                "ranx would count it at both ranks (precision and recall above their "
                "definitions): remove the repeat"
            )
        names[i] = f"{names[i]}~{count}"  # one more unjudged document at this rank


def check_cutoff(k: int) -> None:
    """ranx's ``assert k >= 0``."""
    if isinstance(k, bool) or not isinstance(k, int | np.integer) or k < 0:
        raise RanxAssertionError(f"k must be an integer >= 0 (0: every document), not {k!r}")
