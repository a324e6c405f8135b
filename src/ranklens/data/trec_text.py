"""TREC text: ``qid iter docid rel`` qrels and ``qid Q0 docid rank score tag`` runs."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import pairwise
from typing import IO, TYPE_CHECKING, Any, cast

import numpy as np

from ranklens.base.errors import EmptyInputError, InputError, ParseError, ResourceError
from ranklens.base.types import Int64Array, UInt8Array
from ranklens.data.ir_metadata import IrMetadata, header_of
from ranklens.data.native import core as _core
from ranklens.data.source import LONE_CR_MESSAGE, read_source, release

if TYPE_CHECKING:
    from ranklens.data.qrels import Qrels
    from ranklens.data.run import Run

_RUN, _QRELS = 0, 1


Parsed = tuple[list[str], Int64Array, UInt8Array, Int64Array, np.ndarray, Int64Array, str | None]


def _parse(
    source: object, kind: int, ranks_wanted: bool = False
) -> tuple[Parsed, Int64Array | None, str, IrMetadata | None]:
    """The parsed columns, a run's rank column when ``ranks_wanted`` (``INT64_MIN`` where
    it is no integer) and a run's ir_metadata header (:mod:`ranklens.data.ir_metadata`;
    comment lines, which the parser skips).

    A carriage return that does not end a line is found by the parser's first pass over
    the lines (``lone_cr``), not by a pass of its own, and refused first, as
    :func:`~ranklens.data.source.read_source` refuses it; the header is read after the
    parse, and before its error is raised (its warning comes as it did)."""
    content, name = read_source(source, check_line_ends=False)
    ranks: Int64Array | None = None
    header: IrMetadata | None = None
    try:
        try:
            if ranks_wanted and kind == _RUN:
                *columns, ranks = _core.parse_trec(content, kind, 1, ranks=True, lone_cr=True)
                parsed = cast(Parsed, tuple(columns))
            else:
                parsed = _core.parse_trec(content, kind, 1, lone_cr=True)
        except ValueError as exc:
            if kind == _RUN and exc.args[-1:] != (LONE_CR_MESSAGE,):
                header_of(content, name)
            raise
        if kind == _RUN:
            header = header_of(content, name)
    except ValueError as exc:
        if len(exc.args) == 2 and isinstance(exc.args[0], int):
            line, message = exc.args
            hint = _likely_cause(str(message), kind, content, line)
            raise ParseError(str(message) + hint, path=name, line=line or None) from None
        raise
    except MemoryError:
        raise ResourceError(
            f"{name}: out of memory while parsing it; free memory or split the input"
        ) from None
    finally:
        release(content)
    if not parsed[0]:
        what = "run" if kind == _RUN else "qrels"
        raise EmptyInputError(
            f"holds no {what} lines (the file is empty, or has only blank and '#' lines)",
            path=name,
        )
    return parsed, ranks, name, header


_HINTS = {
    (_RUN, 4): "; this looks like a qrels file (qid iter docid relevance) given as the run: the "
    "qrels come first, then the run",
    (_QRELS, 6): "; this looks like a run file given as the qrels: the qrels come first, then "
    "the run",
    (_RUN, 3): "; this looks like a 3-column run (qid docid score): convert it to TREC's 6 "
    "columns, e.g. awk '{print $1, \"Q0\", $2, 0, $3, \"run\"}' FILE",
    (_QRELS, 3): "; this looks like 3-column qrels (qid docid relevance): add the iteration "
    "column, e.g. awk '{print $1, 0, $2, $3}' FILE",
    (_QRELS, 5): "; this looks like stratified sampled qrels (topic 0 docno stratum judgment): "
    "evaluate them with the sampled measures (-m xinfAP -m infNDCG -m infP@10 ...) or with "
    "'ranklens sample-eval' (a trec_eval prefs file, qid jg jsg docno rel_level, goes with the "
    "preference measures)",
}
"""The likely cause of a line with the wrong number of fields, by (file kind, fields)."""


def _line_text(content: object, line: int) -> bytes:
    """The bytes of physical line ``line`` (1-based) of ``content`` (at most 4 KiB)."""
    data = content.obj if isinstance(content, memoryview) else content
    skip = len(data) - len(content) if isinstance(content, memoryview) else 0  # type: ignore[arg-type]
    start = skip
    for _ in range(line - 1):
        found = data.find(b"\n", start)  # type: ignore[attr-defined]
        if found < 0:
            return b""
        start = found + 1
    return bytes(data[start : start + 4096]).split(b"\n", 1)[0]  # type: ignore[index]


def _likely_cause(message: str, kind: int, content: object, line: int) -> str:
    """What a column-count error most likely means: swapped files, CSV, 3-column files;
    and a first line of column names (a header, which TREC files do not have)."""
    header = line == 1 and ("is not a number" in message or "is not an integer" in message)
    if not header and ("expected" not in message or not 0 < line <= 1000):
        return ""  # a wrong format fails early
    try:
        text = _line_text(content, line)
    except (TypeError, ValueError):
        return ""
    fields = text.split()
    if header and fields and all(f[:1].isalpha() and not f.isdigit() for f in fields):
        return (
            f"; line {line} looks like a header (column names): TREC files have none; delete "
            "it (e.g. tail -n +2 FILE > FILE.trec), or name the file .csv or .tsv to read it "
            "as a table with a header row"
        )
    if text.count(b",") >= 2 and len(fields) <= 2:
        return (
            "; this looks like CSV (comma-separated): TREC files are separated by whitespace; "
            "name it .csv (with a header row naming query_id, doc_id and score or relevance) "
            "and ranklens reads it as CSV, or pass the table as a DataFrame in Python"
        )
    return _HINTS.get((kind, len(fields)), "")


def read_qrels(source: str | os.PathLike[str] | IO[bytes] | IO[str]) -> dict[str, Any]:
    """The columns of :class:`~ranklens.Qrels` read from TREC qrels (``qid iter docid
    relevance``) from a path, ``-`` (stdin) or a file object.

    Columns are separated by any whitespace; lines whose first non-blank character is ``#``
    and blank lines are skipped; gzip, bzip2 and xz files are decompressed. Relevance must be
    an integer (``2`` or ``2.0``). Errors name the file and the line.
    """
    (qids, q_offsets, doc_data, doc_offsets, rels, lines, _tag), _, name, _ = _parse(
        source, _QRELS
    )
    return {
        "qids": tuple(qids),
        "q_offsets": q_offsets,
        "doc_data": doc_data,
        "doc_offsets": doc_offsets,
        "lines": lines,
        "source": name,
        "rels": rels,
    }


def _stamp(path: str) -> tuple[int, int, int, int] | None:
    """What tells that a regular file is unchanged (size, modification time, inode,
    device); ``None`` for anything else (a pipe, a device, a missing file)."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    if not stat.S_ISREG(info.st_mode) or info.st_size == 0:
        return None
    return (info.st_size, info.st_mtime_ns, info.st_ino, info.st_dev)


@dataclass(frozen=True, eq=False)
class FileRanks:
    """The rank column of a TREC run file, read from the file again when it is first
    needed (``ties="rank"``; see :class:`ranklens.data.run.RankColumn`).

    Attributes
    ----------
    path : the file.
    stamp : its size, modification time, inode and device when the run was read.
    keep : the entries of the parsed file the run kept (duplicates resolved), or all.
    """

    path: str
    stamp: tuple[int, int, int, int]
    keep: Int64Array | None = None

    def load(self) -> Int64Array:
        """The rank column of the run's entries.

        Raises
        ------
        InputError
            The file changed (or went) since the run was read from it.
        """
        if _stamp(self.path) != self.stamp:
            raise InputError(
                "changed (or was removed) after the run was read from it; ties='rank' reads "
                "the run's rank column (its 4th column) from the file when it is first "
                "needed: read the run again, or read it with Run.from_file(path, ranks=True)",
                path=self.path,
            )
        _, ranks, _, _ = _parse(self.path, _RUN, ranks_wanted=True)
        column = cast(Int64Array, ranks)
        return column if self.keep is None else column[self.keep]

    def subset(self, keep: Int64Array) -> FileRanks:
        """The column of the entries ``keep`` of this one."""
        return FileRanks(self.path, self.stamp, keep if self.keep is None else self.keep[keep])


def read_run(
    source: str | os.PathLike[str] | IO[bytes] | IO[str],
    name: str | None = None,
    *,
    ranks: bool | None = True,
) -> dict[str, Any]:
    """The columns of :class:`~ranklens.Run` read from a TREC run (``qid Q0 docid rank score
    tag``) from a path, ``-`` or a file object.

    Documents are ranked by score; the rank column is kept as ``ranks`` for the tie policy
    ``"rank"`` only (a field that is not an integer is ``INT64_MIN`` there, an error only
    under that policy); columns after the tag are ignored. ``ranks``: ``True`` reads the
    rank column now, ``False`` not at all (``ranks`` is ``None``), ``None`` when it is
    first needed (:class:`FileRanks`, the file read again then) for a path to a regular
    file, now for anything else. The run's name is ``name``, else the tag of the last
    line (as trec_eval's ``runid``), else the file name. An ir_metadata header
    (``# ir_metadata.start`` ... comment lines at the top) is kept as ``metadata``.
    """
    deferred: FileRanks | None = None
    if ranks is None and isinstance(source, str | os.PathLike):
        path = os.fspath(source)
        stamp = _stamp(path) if isinstance(path, str) and path != "-" else None
        deferred = None if stamp is None else FileRanks(path, stamp)
    wanted = bool(ranks) or (ranks is None and deferred is None)
    parsed, read_ranks, where, header = _parse(source, _RUN, ranks_wanted=wanted)
    qids, q_offsets, doc_data, doc_offsets, scores, lines, tag = parsed
    if _scores_count_up(scores, q_offsets, lines):
        column = read_ranks if read_ranks is not None else _ranks_of(deferred)
        if column is not None and not np.array_equal(column, scores):
            import warnings

            from ranklens.base.errors import InputWarning

            warnings.warn(InputWarning(SWAPPED_COLUMNS.format(name=where)), stacklevel=3)
    return {
        "qids": tuple(qids),
        "q_offsets": q_offsets,
        "doc_data": doc_data,
        "doc_offsets": doc_offsets,
        "lines": lines,
        "source": where,
        "scores": scores,
        "name": name or tag or os.path.basename(where),
        "ranks": deferred if deferred is not None else read_ranks,
        "metadata": header,
    }


SWAPPED_COLUMNS = (
    "{name}: the rank and score columns look swapped: the score column (the 5th) holds "
    "exactly 1, 2, ..., n in each query in file order and the rank column (the 4th) other "
    "numbers, so the document of each query's last line ranks first (ranklens ranks by "
    "score); swap the columns, e.g. awk '{{t = $4; $4 = $5; $5 = t; print}}' FILE"
)
"""The warning of a run read from a TREC file whose rank and score columns look swapped
(:func:`_scores_count_up`)."""


def _scores_count_up(scores: np.ndarray, q_offsets: Int64Array, lines: Int64Array) -> bool:
    """Whether the scores of every query are exactly the integers 1, 2, ..., n in the
    order of the file's lines (the rank column's content), with at least one query of two
    documents or more: what a run whose rank and score columns were swapped holds. A run
    whose scores are real scores fails at its first few values, so this costs nothing
    there."""
    if len(scores) < 2 or scores[0] != 1.0:
        return False  # the first line of a query has score 1
    if not np.all(scores[:64] == np.floor(scores[:64])):
        return False
    sizes = np.diff(q_offsets)
    if sizes.size == 0 or sizes.max() < 2:
        return False
    segment = np.repeat(np.arange(sizes.size), sizes)
    order = np.lexsort((lines, segment))
    within = np.arange(len(scores)) - np.repeat(q_offsets[:-1], sizes) + 1
    return bool(np.array_equal(scores[order], within.astype(scores.dtype)))


def _ranks_of(deferred: FileRanks | None) -> Int64Array | None:
    """The rank column of a run file read without it (``None`` if it cannot be had)."""
    if deferred is None:
        return None
    try:
        return deferred.load()
    except InputError:
        return None


def format_score(value: float) -> str:
    """The shortest text that reads back as exactly ``value``."""
    return repr(float(value))


def write_lines(path: str | os.PathLike[str] | IO[str], lines: list[str]) -> None:
    """Write ``lines`` (each ending in a newline) to a path or a text stream."""
    text = "".join(lines)
    if hasattr(path, "write"):
        path.write(text)
    else:
        with open(os.fspath(path), "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)


_UNWRITABLE = np.zeros(256, dtype=bool)
_UNWRITABLE[[0, 9, 10, 11, 12, 13, 32]] = True  # NUL and the whitespace that splits columns


def _unwritable(text: bytes) -> bool:
    return not text or bool(_UNWRITABLE[np.frombuffer(text, dtype=np.uint8)].any())


def check_writable(
    qids: tuple[str, ...] | list[str],
    doc_data: UInt8Array,
    doc_offsets: Int64Array,
    q_offsets: Int64Array,
    tag: str | None = None,
) -> None:
    """Raise :class:`~ranklens.base.errors.InputError` unless every id can be written as a
    TREC text column and read back as itself.

    A column is split at whitespace, and a line starting with ``#`` is a comment: an empty
    id, an id holding whitespace (space, tab, newline ...) or NUL, a query id starting with
    ``#`` would read back as other queries and documents. The run tag is the last column:
    it may hold spaces (only its first word reads back) but not a newline or NUL, and not
    be blank.
    """
    for qid in qids:
        raw = qid.encode("utf-8", "surrogatepass")
        if _unwritable(raw) or raw.startswith(b"#"):
            raise InputError(
                f"query id {qid!r} cannot be written as TREC text (an id must be non-empty, "
                "hold no whitespace and not start with '#'); rename the query, or save with "
                "to_parquet / to_jsonl"
            )
    lengths = np.diff(doc_offsets)
    bad = np.zeros(lengths.shape[0], dtype=bool)
    bad |= lengths == 0
    if doc_data.shape[0]:
        hits = np.flatnonzero(_UNWRITABLE[doc_data])
        if hits.shape[0]:
            bad[np.searchsorted(doc_offsets, hits, side="right") - 1] = True
    if bad.any():
        entry = int(np.flatnonzero(bad)[0])
        doc = bytes(doc_data[doc_offsets[entry] : doc_offsets[entry + 1]])
        query = qids[int(np.searchsorted(q_offsets, entry, side="right") - 1)]
        raise InputError(
            f"document id {doc.decode('utf-8', 'surrogateescape')!r} of query {query!r} cannot "
            "be written as TREC text (an id must be non-empty and hold no whitespace); rename "
            "the document, or save with to_parquet / to_jsonl"
        )
    if tag is not None and (not tag.strip() or "\n" in tag or "\x00" in tag):
        raise InputError(
            f"run tag {tag!r} cannot be written as TREC text (it must hold a visible character "
            "and no newline or NUL); give another name"
        )


def trec_qrels_lines(qrels: Qrels) -> list[str]:
    """The qrels as TREC lines, grouped by query in byte order (ids checked with
    :func:`check_writable`)."""
    check_writable(qrels.qids, qrels.doc_data, qrels.doc_offsets, qrels.q_offsets)
    qidx = qrels.query_of_entries().tolist()
    docs = qrels.docids()
    rels = qrels.rels.tolist()
    return [f"{qrels.qids[q]} 0 {d} {r}\n" for q, d, r in zip(qidx, docs, rels, strict=True)]


CHUNK_LINES = 1 << 18
"""About how many lines :func:`trec_run_chunks` formats at a time (whole queries)."""


def trec_run_chunks(
    run: Run, order: Int64Array, name: str, errors: str = "strict"
) -> Iterator[bytes]:
    """The run as UTF-8 TREC lines ``qid Q0 docid rank score tag`` in the order ``order`` (a
    ranking: query ``j``'s entries are ``order[q_offsets[j]:q_offsets[j+1]]``), ranks
    counted per query from 1, each score as ``repr`` writes it (:func:`format_score`);
    in chunks of whole queries. ``errors`` applies to encoding the query ids and the tag.
    Ids and tag are checked first (:func:`check_writable`)."""
    check_writable(run.qids, run.doc_data, run.doc_offsets, run.q_offsets, name)
    encoded = [qid.encode("utf-8", errors) for qid in run.qids]
    qid_offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    np.cumsum([len(b) for b in encoded], out=qid_offsets[1:])
    qid_data = np.frombuffer(b"".join(encoded), dtype=np.uint8)
    tag = name.encode("utf-8", errors)
    nq = len(run.qids)
    cuts = np.searchsorted(run.q_offsets, np.arange(CHUNK_LINES, len(order), CHUNK_LINES))
    bounds = [0, *sorted(set(cuts.tolist()) - {0, nq}), nq]
    for lo, hi in pairwise(bounds):
        yield _core.format_run(
            qid_data,
            qid_offsets,
            run.q_offsets,
            run.doc_data,
            run.doc_offsets,
            run.scores,
            order,
            tag,
            lo,
            hi,
        )


def write_run(
    path: str | os.PathLike[str] | IO[str], run: Run, order: Int64Array, name: str
) -> None:
    """Write the run as TREC text (:func:`trec_run_chunks`) to a path or a text stream,
    after its ir_metadata header if it has one (``run.metadata``)."""
    metadata: IrMetadata | None = getattr(run, "metadata", None)
    header = "".join(line + "\n" for line in metadata.comment_lines()) if metadata else ""
    if hasattr(path, "write"):
        path.write(header)
        for chunk in trec_run_chunks(run, order, name, "surrogatepass"):
            path.write(chunk.decode("utf-8", "surrogatepass"))
    else:
        chunks = trec_run_chunks(run, order, name)
        first = next(chunks, b"")
        with open(os.fspath(path), "wb") as handle:
            handle.write(header.encode("utf-8"))
            handle.write(first)
            for chunk in chunks:
                handle.write(chunk)
