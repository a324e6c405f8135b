"""trec_eval's preference judgments, read and held: ``-R prefs`` and ``-R qrels_prefs``.

``prefs`` (:func:`read_prefs`), five whitespace-separated columns::

    qid  jg  jsg  docno  rel_level

``jg`` names a *judgement group*, ``jsg`` a *judgement sub-group* inside it, ``rel_level``
is a number. ``qrels_prefs`` (:func:`read_qrels_prefs`) is an ordinary qrels file, ``qid jg
docno rel_level``, each group a single sub-group. Blank lines and ``#`` lines are skipped;
any other line must have exactly 5 (4) fields and a decimal ``rel_level``, otherwise
:class:`~ranklens.base.errors.ParseError` names the file and the physical line. The
measures are computed by :mod:`ranklens.kernels.preferences`.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import IO

import numpy as np

from ranklens.base.errors import EmptyInputError, InputError, ParseError
from ranklens.base.types import Float64Array
from ranklens.data.grouped import Grouped, encode_ids, offsets_of_sorted
from ranklens.data.source import read_bytes

__all__ = ["Prefs", "read_prefs", "read_qrels_prefs", "read_table"]

Source = str | os.PathLike[str] | IO[bytes] | IO[str]
"""A judgement file: a path (``.gz``/``.bz2``/``.xz`` recognised), ``-`` or a file object."""

_DECIMAL = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?\Z")


def read_table(
    source: object, columns: Sequence[str], what: str
) -> tuple[list[tuple[list[str], int]], str]:
    """Split a whitespace-separated text file into rows of exactly ``len(columns)`` fields.

    Blank lines and lines whose first non-blank character is ``#`` are skipped. Returns the
    rows as ``(fields, physical line number)`` and the source's display name.

    Raises
    ------
    ParseError
        A line with another number of fields, or not UTF-8.
    EmptyInputError
        No data line at all.
    """
    data, name = read_bytes(source)
    rows: list[tuple[list[str], int]] = []
    for number, raw in enumerate(data.split(b"\n"), start=1):
        fields = raw.split()
        if not fields or fields[0].startswith(b"#"):
            continue
        if len(fields) != len(columns):
            raise ParseError(
                f"expected {len(columns)} fields ({' '.join(columns)}), found {len(fields)}",
                path=name,
                line=number,
            )
        try:
            rows.append(([f.decode("utf-8") for f in fields], number))
        except UnicodeDecodeError:
            raise ParseError("is not valid UTF-8 text", path=name, line=number) from None
    if not rows:
        raise EmptyInputError(
            f"holds no {what} lines (the file is empty, or has only blank and '#' lines)",
            path=name,
        )
    return rows, name


def _parse_level(text: str, path: str | None, line: int | None) -> float:
    if not _DECIMAL.match(text):
        raise ParseError(f"rel_level '{text}' is not a decimal number", path=path, line=line)
    value = float(text)
    if not math.isfinite(value):
        raise ParseError(f"rel_level '{text}' is out of range", path=path, line=line)
    return value


@dataclass(frozen=True, eq=False)
class Prefs(Grouped):
    """Preference judgments: for each query, ``(jg, jsg, docno, rel_level)`` entries.

    The layout is :class:`~ranklens.data.grouped.Grouped`'s (queries in ``strcmp`` order,
    entries of a query sorted by docno); ``groups``, ``subgroups`` and ``levels`` hold the
    judgement group, sub-group and ``rel_level`` of every entry.
    """

    groups: tuple[str, ...]
    subgroups: tuple[str, ...]
    levels: Float64Array
    rel_format: str = "prefs"
    """``"prefs"`` or ``"qrels_prefs"``: the format it was read from."""

    def __post_init__(self) -> None:
        super().__post_init__()
        self.levels.flags.writeable = False

    @classmethod
    def from_records(
        cls,
        records: Iterable[tuple[str, str, str, str, float]],
        source: str = "<records>",
    ) -> Prefs:
        """Build from ``(qid, jg, jsg, docno, rel_level)`` tuples.

        Examples
        --------
        >>> Prefs.from_records([("q1", "u", "s", "d1", 1.0), ("q1", "u", "s", "d2", 0.0)]).qids
        ('q1',)
        """
        rows = []
        for row, record in enumerate(records, start=1):
            qid, jg, jsg, docno, level = record
            value = float(level)
            if not math.isfinite(value):
                raise InputError(f"rel_level {level!r} is not finite", path=source, line=row)
            rows.append((str(qid), str(jg), str(jsg), str(docno), value, row))
        if not rows:
            raise EmptyInputError("holds no preferences", path=source)
        return _build_prefs(rows, source, "prefs")

    def records(self) -> list[tuple[str, str, str, str, float]]:
        """All entries as ``(qid, jg, jsg, docno, rel_level)``, in grouped order."""
        docs = self.docids()
        qidx = self.query_of_entries().tolist()
        levels = self.levels.tolist()
        return [
            (self.qids[q], self.groups[i], self.subgroups[i], docs[i], levels[i])
            for i, q in enumerate(qidx)
        ]


def _build_prefs(
    rows: list[tuple[str, str, str, str, float, int]], source: str, rel_format: str
) -> Prefs:
    rows.sort(key=lambda r: (r[0], r[3]))  # stable: (qid, docno), as get_prefs.c
    qids, q_offsets = offsets_of_sorted([r[0] for r in rows])
    doc_data, doc_offsets = encode_ids([r[3] for r in rows])
    return Prefs(
        qids=qids,
        q_offsets=q_offsets,
        doc_data=doc_data,
        doc_offsets=doc_offsets,
        lines=np.asarray([r[5] for r in rows], dtype=np.int64),
        source=source,
        groups=tuple(r[1] for r in rows),
        subgroups=tuple(r[2] for r in rows),
        levels=np.asarray([r[4] for r in rows], dtype=np.float64),
        rel_format=rel_format,
    )


def read_prefs(source: Source) -> Prefs:
    """Read a trec_eval ``prefs`` file: ``qid jg jsg docno rel_level`` per line.

    ``source`` is a path, ``-`` (stdin) or a file object; gzip, bzip2 and xz are recognised.

    Raises
    ------
    ParseError
        A line without exactly 5 fields, or a ``rel_level`` that is not a decimal number.
    EmptyInputError
        The file has no preference line.
    """
    table, name = read_table(source, ("qid", "jg", "jsg", "docno", "rel_level"), "prefs")
    rows = [(f[0], f[1], f[2], f[3], _parse_level(f[4], name, line), line) for f, line in table]
    return _build_prefs(rows, name, "prefs")


def read_qrels_prefs(source: Source) -> Prefs:
    """Read a qrels file as preferences (``-R qrels_prefs``): ``qid jg docno rel_level``.

    Column 2 (the qrels ``iter`` column) is the judgement group; every group has the single
    sub-group ``"0"``, so it orders all its documents by ``rel_level``.

    Raises
    ------
    ParseError
        A line without exactly 4 fields, or a ``rel_level`` that is not a decimal number.
    EmptyInputError
        The file has no data line.
    """
    table, name = read_table(source, ("qid", "jg", "docno", "rel_level"), "qrels")
    rows = [(f[0], f[1], "0", f[2], _parse_level(f[3], name, line), line) for f, line in table]
    return _build_prefs(rows, name, "qrels_prefs")
