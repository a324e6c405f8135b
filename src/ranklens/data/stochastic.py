"""Stochastic runs (several sampled rankings per query) and document group labels, as
expected exposure and AWRF read them.

A stochastic run is ``{qid: [ranking, ranking, ...]}``, each ranking a list of document ids
best first. It is read from

- a file of ``qid sample docno rank score [tag]`` lines (TREC Fair Ranking's and expeval's
  run format: the second column numbers the sample);
- a pandas/polars DataFrame or pyarrow Table with query (``query_id``, ``qid``, ``query``,
  ``user_id``, ``user``), sample (``sample``, ``sample_id``, ``iteration``, ``iter``),
  document (``doc_id``, ``docno``, ``doc``, ``docid``, ``item_id``, ``item``) and,
  optionally, ``rank`` columns (without ``rank``: the rows' order);
- a dict ``{qid: [[docid, ...], ...]}``.

Within a sample, documents are ordered by rank (ranks 1, 2, 5 are positions 1, 2, 3); a
rank repeated within a sample is an error, and so is a document repeated within a sample
(a sampled ranking ranks each document once: a second position would add exposure that no
ranking gives, and push the expected exposure measures outside their range). A run that
holds no ranking is an error.

Group labels are ``{docid: label or [labels]}``, a DataFrame with a document and a
``group`` column, or a file of ``docid,group[,group...]`` (TREC Fair Ranking's group CSV)
or ``docid group`` lines.
"""

from __future__ import annotations

import io
import os
from collections.abc import Hashable, Mapping, Sequence
from typing import Any

from ranklens.base.errors import DuplicateError, EmptyInputError, InputError, ParseError
from ranklens.data.frames import column_names, is_frame
from ranklens.data.source import read_bytes, second_fields_of_duplicate

StochasticRun = dict[str, list[list[str]]]
DocGroups = dict[str, list[Hashable]]

QUERY_COLUMNS = ("query_id", "qid", "query", "user_id", "user")
SAMPLE_COLUMNS = ("sample", "sample_id", "iteration", "iter")
DOC_COLUMNS = ("doc_id", "docno", "doc", "docid", "item_id", "item")
GROUP_COLUMNS = ("group", "groups", "group_id", "label")
PLAIN_RUN_SAMPLE = "Q0"

_NO_SAMPLES = (
    "{what} needs several sampled rankings per query, and this run has no "
    "sample numbers ({why}); give 'qid sample docno rank score' lines (a sample number in "
    "the second column), a table with a 'sample' column{remedy}"
)
_SINGLE_RANKING = (
    ", or pass single_ranking=True to evaluate each query's one ranking as a deterministic "
    "policy"
)


def no_samples_message(why: str, measure: str | None = None) -> str:
    """The error for a run without sample numbers, read for expected exposure (``measure``:
    the measure that reads it, which has no ``single_ranking`` option)."""
    if measure is None:
        return _NO_SAMPLES.format(what="expected exposure", why=why, remedy=_SINGLE_RANKING)
    return _NO_SAMPLES.format(what=measure, why=why, remedy=" or {qid: [[docid, ...], ...]}")


def read_stochastic_run(
    obj: object, *, single_ranking: bool = False, measure: str | None = None
) -> StochasticRun:
    """``{qid: [ranking, ...]}`` from a file, a DataFrame or a dict (module docstring).

    ``single_ranking``: accept a plain TREC run (``Q0`` in the second column, or a table
    without a sample column) as one sample per query; otherwise it is an error (naming
    ``measure``, the measure that reads the run, when given).

    >>> read_stochastic_run({"q1": [["a", "b"], ["b", "a"]]})
    {'q1': [['a', 'b'], ['b', 'a']]}
    """
    if isinstance(obj, Mapping):
        return _from_mapping(obj)
    if is_frame(obj):
        return _from_frame(obj, single_ranking, measure)
    if isinstance(obj, str | os.PathLike) or hasattr(obj, "read"):
        return _from_file(obj, single_ranking, measure)
    raise InputError(
        f"cannot read a stochastic run from a {type(obj).__name__}: give a path, a DataFrame "
        "(query, sample, doc, rank columns) or {qid: [[docid, ...], ...]}"
    )


def _from_mapping(obj: Mapping[Any, Any]) -> StochasticRun:
    if not obj:
        raise EmptyInputError("the run holds no rankings (an empty dict)")
    out: StochasticRun = {}
    for qid, rankings in obj.items():
        if isinstance(rankings, str | bytes) or not isinstance(rankings, Sequence):
            raise InputError(
                f"query {qid!r}: expected a list of rankings (lists of document ids), got "
                f"{type(rankings).__name__}"
            )
        samples: list[list[str]] = []
        for ranking in rankings:
            if isinstance(ranking, str | bytes) or not isinstance(ranking, Sequence):
                raise InputError(
                    f"query {qid!r}: each sample must be a list of document ids, got "
                    f"{type(ranking).__name__}"
                )
            docs = [str(d) for d in ranking]
            _refuse_repeated(docs, str(qid), len(samples))
            samples.append(docs)
        out[str(qid)] = samples
    return out


def _refuse_repeated(docs: Sequence[str], qid: str, sample: int) -> None:
    """Refuse a document that occurs twice in the ``sample``-th (0-based) ranking ``docs``
    of query ``qid``, naming both positions."""
    seen: dict[str, int] = {}
    for position, doc in enumerate(docs, 1):
        if doc in seen:
            raise DuplicateError(
                f"query {qid!r}, sample {sample} (counted from 0): document {doc!r} occurs "
                f"twice in one sampled ranking (positions {seen[doc]} and {position}); a "
                "sampled ranking ranks each document once",
                query=qid,
                document=doc,
            )
        seen[doc] = position


def _ordered(
    ranks: dict[str, dict[str, dict[int, str]]],
) -> StochasticRun:
    return {
        qid: [[by_rank[r] for r in sorted(by_rank)] for by_rank in samples.values()]
        for qid, samples in ranks.items()
    }


def _from_file(obj: object, single_ranking: bool, measure: str | None) -> StochasticRun:
    data, name = read_bytes(obj)
    ranks: dict[str, dict[str, dict[int, str]]] = {}
    lines: dict[tuple[str, str, str], int] = {}  # (query, sample, document): its line
    plain = True
    text = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors="surrogateescape")
    for number, line in enumerate(text, 1):
        fields = line.split()
        if not fields:
            continue
        if len(fields) < 4:
            raise ParseError(
                f"expected 'qid sample docno rank score [tag]', got {len(fields)} field(s)",
                path=name,
                line=number,
            )
        qid, sample, doc, rank_text = fields[:4]
        try:
            rank = int(rank_text)
        except ValueError:
            raise ParseError(
                f"the rank {rank_text!r} is not an integer", path=name, line=number
            ) from None
        plain = plain and sample == PLAIN_RUN_SAMPLE
        by_rank = ranks.setdefault(qid, {}).setdefault(sample, {})
        if rank in by_rank:
            raise ParseError(
                f"rank {rank} occurs twice in sample {sample!r} of query {qid!r}; a sampled "
                "ranking holds one document per rank",
                path=name,
                line=number,
            )
        first = lines.setdefault((qid, sample, doc), number)
        if first != number:
            raise DuplicateError(
                f"document {doc!r} occurs twice in sample {sample!r} of query {qid!r} (lines "
                f"{first} and {number}); a sampled ranking ranks each document once",
                path=name,
                lines=(first, number),
                query=qid,
                document=doc,
            )
        by_rank[rank] = doc
    if not ranks:
        raise EmptyInputError("the run holds no rankings", path=name)
    if plain and not single_ranking:
        raise InputError(f"{name}: " + no_samples_message("the second column is Q0", measure))
    return _ordered(ranks)


def _column(frame: Any, name: str) -> list[Any]:
    if type(frame).__module__.split(".")[0] == "pyarrow":
        arrow_values: list[Any] = frame.column(name).to_pylist()
        return arrow_values
    values: list[Any] = frame[name].to_list()  # pandas and polars
    return values


def _first(columns: list[str], names: tuple[str, ...]) -> str | None:
    return next((c for c in names if c in columns), None)


def _from_frame(frame: Any, single_ranking: bool, measure: str | None) -> StochasticRun:
    columns = column_names(frame)
    query, sample = _first(columns, QUERY_COLUMNS), _first(columns, SAMPLE_COLUMNS)
    doc, rank = _first(columns, DOC_COLUMNS), _first(columns, ("rank",))
    if query is None or doc is None:
        raise InputError(
            f"the run table needs a query column (one of {list(QUERY_COLUMNS)}) and a document "
            f"column (one of {list(DOC_COLUMNS)}); columns present: {columns}"
        )
    if sample is None and not single_ranking:
        why = f"no column of {list(SAMPLE_COLUMNS)}"
        raise InputError(no_samples_message(why, measure))
    qids = [str(q) for q in _column(frame, query)]
    docs = [str(d) for d in _column(frame, doc)]
    samples = [str(s) for s in _column(frame, sample)] if sample else ["0"] * len(qids)
    positions = [int(r) for r in _column(frame, rank)] if rank else list(range(len(qids)))
    ranks: dict[str, dict[str, dict[int, str]]] = {}
    rows: dict[tuple[str, str, str], int] = {}  # (query, sample, document): its row
    for row, (qid, smp, position, docid) in enumerate(
        zip(qids, samples, positions, docs, strict=True)
    ):
        by_rank = ranks.setdefault(qid, {}).setdefault(smp, {})
        if position in by_rank:
            raise InputError(
                f"row {row}: rank {position} occurs twice in sample {smp!r} of query {qid!r}; "
                "a sampled ranking holds one document per rank"
            )
        first = rows.setdefault((qid, smp, docid), row)
        if first != row:
            raise DuplicateError(
                f"rows {first} and {row} (counted from 0): document {docid!r} occurs twice in "
                f"sample {smp!r} of query {qid!r}; a sampled ranking ranks each document once",
                query=qid,
                document=docid,
            )
        by_rank[position] = docid
    if not ranks:
        raise EmptyInputError("the run table holds no rows")
    return _ordered(ranks)


def read_groups(obj: object) -> DocGroups:
    """``{docid: [labels]}`` from a dict, a DataFrame or a file (module docstring).

    >>> read_groups({"a": "x", "b": ["x", "y"]})
    {'a': ['x'], 'b': ['x', 'y']}
    """
    if isinstance(obj, Mapping):
        out: DocGroups = {}
        for doc, labels in obj.items():
            if isinstance(labels, str | bytes | int) or not isinstance(labels, Sequence):
                out[str(doc)] = [labels]
            else:
                out[str(doc)] = list(dict.fromkeys(labels))
            if not out[str(doc)]:
                raise InputError(f"document {doc!r} has an empty list of groups")
        return out
    if is_frame(obj):
        columns = column_names(obj)
        doc, group = _first(columns, DOC_COLUMNS), _first(columns, GROUP_COLUMNS)
        if doc is None or group is None:
            raise InputError(
                f"the groups table needs a document column (one of {list(DOC_COLUMNS)}) and a "
                f"group column (one of {list(GROUP_COLUMNS)}); columns present: {columns}"
            )
        table: DocGroups = {}
        for docid, label in zip(_column(obj, doc), _column(obj, group), strict=True):
            labels = table.setdefault(str(docid), [])
            if label not in labels:
                labels.append(label)
        return table
    if isinstance(obj, str | os.PathLike) or hasattr(obj, "read"):
        return _groups_file(obj)
    raise InputError(
        f"cannot read groups from a {type(obj).__name__}: give {{docid: group}}, a DataFrame "
        "(doc, group columns) or a file of 'docid,group' lines"
    )


def _groups_file(obj: object) -> DocGroups:
    data, name = read_bytes(obj)
    out: DocGroups = {}
    for number, line in enumerate(data.decode("utf-8", errors="surrogateescape").split("\n"), 1):
        text = line.strip()
        if not text:
            continue
        fields = [f.strip() for f in text.split(",")] if "," in text else text.split()
        if len(fields) < 2 or not all(fields):
            raise ParseError(
                "expected 'docid,group' (or 'docid group'): a document id and at least one "
                "group label",
                path=name,
                line=number,
            )
        labels = out.setdefault(fields[0], [])
        labels.extend(g for g in fields[1:] if g not in labels)
    if not out:
        raise EmptyInputError("the groups file holds no labels", path=name)
    return out


def stochastic_duplicate(exc: DuplicateError) -> DuplicateError:
    """``exc`` (a run file's repeated (query, document) pair), told that the file looks like
    a stochastic run when the two lines' second columns differ and neither is ``Q0``: they
    are two sampled rankings, which the expected exposure measures read; otherwise ``exc``
    itself."""
    fields = second_fields_of_duplicate(exc)
    if fields is None or exc.lines is None or PLAIN_RUN_SAMPLE in fields:
        return exc
    first, second = fields
    return DuplicateError(
        f"{exc.message}. This looks like a stochastic run: the second column numbers sampled "
        f"rankings (lines {exc.lines[0]} and {exc.lines[1]} rank it in samples {first} and "
        f"{second}); the expected exposure measures read it (EE-L, EE-D, EE-R), ordinary "
        "measures need one ranking per query (evaluate one sample)",
        path=exc.path,
        lines=exc.lines,
        query=exc.query,
        document=exc.document,
    )
