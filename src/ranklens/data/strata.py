"""Stratified sampled qrels (NIST sample_eval.pl's input): ``topic 0 docno stratum judgment``.

The pool of each topic is split into strata and a random sample of each stratum is judged;
a pooled document that was not sampled has a negative judgment (``-1``). :func:`read_strata`
reads such a file once, keeping what the estimators of :mod:`ranklens.kernels.sampled` need:
per topic, each document's judgment and stratum, and per stratum the number of pooled,
sampled and relevant lines and the relevant lines of each grade.

It reads as sample_eval does: a document judged twice keeps its last judgment and stratum
while both lines count in their strata; grades are kept by their text for the ideal DCG. It
refuses what sample_eval would silently misread: a line without its 5 fields (ordinary
4-column qrels are told to use ``ranklens eval``) and a judgment that is not a finite number.

>>> import io
>>> strata = read_strata(io.BytesIO(b"1 0 a 1 1\\n1 0 b 1 0\\n1 0 c 2 -1\\n"))
>>> topic = strata.topics[b"1"]
>>> topic.docs, topic.sampled, topic.relevant
({b'1': 2, b'2': 1}, {b'1': 2}, {b'1': 1})
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ranklens.base.errors import EmptyInputError, ParseError
from ranklens.data.source import read_bytes

if TYPE_CHECKING:
    from ranklens.data.qrels import Qrels


@dataclass
class StrataTopic:
    """One topic of stratified qrels: judgments and the per-stratum counts."""

    rel: dict[bytes, float] = field(default_factory=dict)
    """docno -> judgment (its last line; negative: pooled but not sampled)."""
    stratum: dict[bytes, bytes] = field(default_factory=dict)
    """docno -> stratum (its last line)."""
    docs: dict[bytes, int] = field(default_factory=dict)
    """stratum -> pooled lines."""
    sampled: dict[bytes, int] = field(default_factory=dict)
    """stratum -> judged lines (judgment >= 0)."""
    relevant: dict[bytes, int] = field(default_factory=dict)
    """stratum -> relevant lines (judgment > 0)."""
    per_grade: dict[bytes, dict[bytes, int]] = field(default_factory=dict)
    """stratum -> {judgment text -> relevant lines}."""

    def strata(self) -> list[bytes]:
        """The strata in sample_eval's order (byte order of their labels)."""
        return sorted(self.docs)


@dataclass(frozen=True)
class StratifiedQrels:
    """Stratified sampled qrels, read once: ``topics`` by topic id (bytes, as in the
    file), and the file's name for messages."""

    topics: dict[bytes, StrataTopic]
    source: str | None = None

    def as_qrels(self) -> Qrels:
        """Ordinary qrels for the set of queries and the overlap checks: every pooled
        document with its judgment truncated to an integer (``-1``: not sampled; the highest
        where a document has several lines)."""
        from ranklens.data.qrels import Qrels

        records = [
            (
                topic.decode("utf-8", errors="surrogateescape"),
                docno.decode("utf-8", errors="surrogateescape"),
                int(grade),
            )
            for topic, entry in self.topics.items()
            for docno, grade in entry.rel.items()
        ]
        return Qrels.from_records(records, duplicates="max", source=self.source or "<strata>")


def read_strata(source: object) -> StratifiedQrels:
    """Read stratified qrels (``topic 0 docno stratum judgment``) from a path, ``-`` or a
    file object (gzip, bzip2 and xz recognised).

    Raises
    ------
    ParseError
        A line without exactly 5 fields (ordinary qrels, a run), or a judgment that is not
        a finite number; the message names the file and the line.
    EmptyInputError
        The file holds no line.
    """
    data, name = read_bytes(source)
    topics: dict[bytes, StrataTopic] = {}
    for number, line in enumerate(data.splitlines(), 1):
        fields = line.split()
        if not fields:
            continue
        if len(fields) != 5:
            raise ParseError(
                f"expected 'topic 0 docno stratum judgment' (5 fields), found {len(fields)}: "
                "sampled measures and sample_eval read stratified qrels; give ordinary qrels "
                "to 'ranklens eval' with the ordinary measures",
                path=name,
                line=number,
            )
        topic, _, docno, stratum, judgment = fields
        try:
            grade = float(judgment)
        except ValueError:
            raise ParseError(
                f"the judgment {judgment.decode(errors='replace')!r} is not a number",
                path=name,
                line=number,
            ) from None
        if not math.isfinite(grade):
            raise ParseError("the judgment must be a finite number", path=name, line=number)
        entry = topics.setdefault(topic, StrataTopic())
        entry.rel[docno] = grade
        entry.stratum[docno] = stratum
        entry.docs[stratum] = entry.docs.get(stratum, 0) + 1
        if grade >= 0:
            entry.sampled[stratum] = entry.sampled.get(stratum, 0) + 1
        if grade > 0:
            grades = entry.per_grade.setdefault(stratum, {})
            grades[judgment] = grades.get(judgment, 0) + 1  # sample_eval keys grades by text
            entry.relevant[stratum] = entry.relevant.get(stratum, 0) + 1
    if not topics:
        raise EmptyInputError(
            "holds no stratified qrels lines (the file is empty, or has only blank lines)",
            path=name,
        )
    return StratifiedQrels(topics, name)
