"""trec_eval's judgement-group qrels, read and held: ``-R qrels_jg``.

A ``qrels_jg`` file (:func:`read_qrels_jg`) is a qrels file whose second column names a
*judgement group* (one assessor's, or one user's, set of judgments)::

    qid  jg  docno  rel

Blank lines and lines whose first non-blank character is ``#`` are skipped; other lines
need exactly 4 fields and an integer ``rel`` (``2`` or ``2.0``); a docno twice in one
(qid, jg) is an error, as in trec_eval (``get_qrels_jg.c``). The measures are computed by
:mod:`ranklens.kernels.judgement_groups`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import pairwise

import numpy as np

from ranklens.base.errors import DuplicateError, EmptyInputError, InputError, ParseError
from ranklens.base.types import Int64Array
from ranklens.data.grouped import Grouped, encode_ids, offsets_of_sorted
from ranklens.data.prefs import Source, read_table

__all__ = ["QrelsJG", "read_qrels_jg"]


@dataclass(frozen=True, eq=False)
class QrelsJG(Grouped):
    """Judgement-group qrels: for each query, ``(jg, docno, rel)`` entries.

    The layout is :class:`~ranklens.data.grouped.Grouped`'s; the entries of a query are sorted
    by (jg, docno); ``groups`` and ``rels`` hold each entry's group and relevance.
    """

    groups: tuple[str, ...]
    rels: Int64Array

    def __post_init__(self) -> None:
        super().__post_init__()
        self.rels.flags.writeable = False

    @classmethod
    def from_records(
        cls, records: Iterable[tuple[str, str, str, int]], source: str = "<records>"
    ) -> QrelsJG:
        """Build from ``(qid, jg, docno, rel)`` tuples.

        Examples
        --------
        >>> QrelsJG.from_records([("q1", "a", "d1", 1), ("q1", "b", "d1", 0)]).groups
        ('a', 'b')
        """
        rows = []
        for row, (qid, jg, docno, rel) in enumerate(records, start=1):
            try:
                ok = not isinstance(rel, bool) and int(rel) == rel and -(2**63) <= rel < 2**63
            except (TypeError, ValueError, OverflowError):
                ok = False
            if not ok:
                raise InputError(f"relevance {rel!r} is not an integer", path=source, line=row)
            rows.append((str(qid), str(jg), str(docno), int(rel), row))
        if not rows:
            raise EmptyInputError("holds no judgments", path=source)
        return _build(rows, source)

    def records(self) -> list[tuple[str, str, str, int]]:
        """All entries as ``(qid, jg, docno, rel)``, in grouped order."""
        docs = self.docids()
        rels = self.rels.tolist()
        qidx = self.query_of_entries().tolist()
        return [(self.qids[q], self.groups[i], docs[i], rels[i]) for i, q in enumerate(qidx)]


def _build(rows: list[tuple[str, str, str, int, int]], source: str) -> QrelsJG:
    rows.sort(key=lambda r: (r[0], r[1], r[2]))  # stable: (qid, jg, docno), as get_qrels_jg.c
    for prev, row in pairwise(rows):
        if prev[:3] == row[:3]:
            first, second = sorted((prev[4], row[4]))
            unit = "line" if not source.startswith("<") else "row"
            raise DuplicateError(
                f"qrels_jg has document '{row[2]}' twice in judgement group '{row[1]}' of "
                f"query '{row[0]}' ({unit}s {first} and {second})",
                path=source,
                lines=(first, second),
                query=row[0],
                document=row[2],
            )
    qids, q_offsets = offsets_of_sorted([r[0] for r in rows])
    doc_data, doc_offsets = encode_ids([r[2] for r in rows])
    return QrelsJG(
        qids=qids,
        q_offsets=q_offsets,
        doc_data=doc_data,
        doc_offsets=doc_offsets,
        lines=np.asarray([r[4] for r in rows], dtype=np.int64),
        source=source,
        unique=True,
        groups=tuple(r[1] for r in rows),
        rels=np.asarray([r[3] for r in rows], dtype=np.int64),
    )


_INT = re.compile(r"[+-]?[0-9]+\Z")
_FLOAT = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?\Z")


def _parse_rel(text: str, path: str, line: int) -> int:
    """A relevance as the qrels reader takes it: an integer of 64 bits, or a decimal
    literal with an integral value below 2^53 in magnitude (``2.0``)."""
    if _INT.match(text) and -(2**63) <= int(text) < 2**63:
        return int(text)
    value = float(text) if _FLOAT.match(text) else math.nan
    if not (math.isfinite(value) and value.is_integer() and abs(value) < 2.0**53):
        raise ParseError(f"relevance '{text}' is not an integer", path=path, line=line)
    return int(value)


def read_qrels_jg(source: Source) -> QrelsJG:
    """Read a ``qrels_jg`` file: ``qid jg docno rel`` per line.

    ``source`` is a path, ``-`` (stdin) or a file object; gzip, bzip2 and xz are recognised.

    Raises
    ------
    ParseError
        A line without exactly 4 fields, or a relevance that is not an integer.
    DuplicateError
        A docno twice in one judgement group of a query.
    EmptyInputError
        The file has no data line.
    """
    table, name = read_table(source, ("qid", "jg", "docno", "rel"), "qrels_jg")
    rows = [(f[0], f[1], f[2], _parse_rel(f[3], name, line), line) for f, line in table]
    return _build(rows, name)
