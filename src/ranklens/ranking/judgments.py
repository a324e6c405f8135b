"""Judgement data beside the qrels, prepared once: trec_eval's preference judgments and
judgement-group qrels.

trec_eval's preference measures (``PrefsSimp``, ..., ``NumPrefsPoss``) and judgement-group
measures (``APAvgJG``, ``PAvgJG@k``, ``RprecMultAvgJG@x``) read a judgement file rather than
the ordinary qrels. :func:`read_judgments` reads that file once (only when such a measure is
asked for); :func:`ranklens.ranking.align.align` attaches the result to the aligned ranking,
and the measures' kernels (:mod:`ranklens.kernels.preferences`,
:mod:`ranklens.kernels.judgement_groups`) read it there, beside the same ranking every other
measure reads.

Which file, read how:

* ``judgments=PATH`` (or a file object): a 5-column file (``qid jg jsg docno rel_level``)
  is read as trec_eval's ``-R prefs`` for the preference measures; a 4-column one
  (``qid jg docno rel``) as ``-R qrels_prefs`` and ``-R qrels_jg``.
* otherwise the qrels, if they were given as a path: an ordinary qrels file read as
  ``-R qrels_prefs`` / ``-R qrels_jg`` (its second column is the judgement group), which is
  what trec_eval does with those options.
"""

from __future__ import annotations

import io
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, cast

from ranklens.base.errors import MeasureError
from ranklens.data.qrels import Qrels

if TYPE_CHECKING:
    # the readers are imported where a judgement file is read: every evaluation imports
    # this module, few read such a file (the readers cost about 8 ms of imports)
    from ranklens.data.judgement_groups import QrelsJG
    from ranklens.data.prefs import Prefs
    from ranklens.data.strata import StratifiedQrels
    from ranklens.data.subtopics import SubtopicQrels
    from ranklens.ranking.costs import DocumentCosts
    from ranklens.ranking.items import ItemData

JudgmentsLike = str | os.PathLike[str] | IO[bytes] | IO[str]
"""A judgement file: a path (``.gz``/``.bz2``/``.xz`` recognised), ``-`` or a file object."""

_FORMAT_OF = {
    "prefs": "preference judgments",
    "qrels_jg": "judgement-group qrels",
    "subtopics": "subtopic qrels",
    "strata": "stratified sampled qrels",
}


@dataclass(frozen=True)
class Judgments:
    """Preference judgments and/or judgement-group qrels, read once for many runs, and the
    documents' costs for the C/W/L measures (:mod:`ranklens.ranking.costs`)."""

    prefs: Prefs | None = None
    qrels_jg: QrelsJG | None = None
    subtopics: SubtopicQrels | None = None
    costs: DocumentCosts | None = None
    strata: StratifiedQrels | None = None
    items: ItemData | None = None
    """Item popularity and catalogue size for the recommender measures
    (:mod:`ranklens.ranking.items`)."""

    def as_qrels(self) -> Qrels:
        """The judgement file as ordinary qrels, for the set of queries when no measure
        needs ordinary qrels: every judged document with its highest grade over the groups
        (a preference level counts as 1 if it is > 0, else 0)."""
        if self.subtopics is not None:
            return self.subtopics.as_qrels()
        if self.strata is not None:
            return self.strata.as_qrels()
        if self.qrels_jg is not None:
            source = self.qrels_jg.source or "<judgments>"
            records = [(q, d, r) for q, _, d, r in self.qrels_jg.records()]
        elif self.prefs is not None:
            source = self.prefs.source or "<judgments>"
            records = [(q, d, int(x > 0)) for q, _, _, d, x in self.prefs.records()]
        else:
            raise MeasureError("no judgement file was read")
        return Qrels.from_records(records, duplicates="max", source=source)


def _first_field_count(data: bytes) -> int:
    """The number of fields on the first line that is neither blank nor a ``#`` comment."""
    start = 0
    while start < len(data):
        end = data.find(b"\n", start)
        if end < 0:
            end = len(data)
        fields = data[start:end].split()
        if fields and not fields[0].startswith(b"#"):
            return len(fields)
        start = end + 1
    return 0


def _named(data: bytes, name: str) -> io.BytesIO:
    """``data`` as a file object that the readers report as ``name``."""
    stream = io.BytesIO(data)
    stream.name = name  # BytesIO takes attributes; describe() reads this one
    return stream


def read_judgments(
    needed: Mapping[str, str],
    judgments: JudgmentsLike | None,
    qrels: object,
    *,
    qrels_read: bool,
) -> Judgments:
    """Read the judgement file that the measures in ``needed`` ask for.

    Parameters
    ----------
    needed
        ``{kind: name of the first measure that needs it}``, kinds ``"prefs"``,
        ``"qrels_jg"``, ``"subtopics"`` and ``"strata"`` (stratified sampled qrels,
        :func:`~ranklens.data.strata.read_strata`; the name goes into error messages).
    judgments
        The file given for them, if any.
    qrels
        What the evaluator was given as qrels: a path to it stands in for a missing
        ``judgments``, and so do ``-`` (stdin) and a file object if it has not been read as
        ordinary qrels (``qrels_read``).

    Raises
    ------
    MeasureError
        No judgement file is available (no ``judgments`` and the qrels are not a path),
        or a judgement-group measure is given a 5-column (prefs) file.
    InputError
        The file cannot be read or parsed (:class:`~ranklens.base.errors.ParseError` names
        the line).
    """
    strata = None
    if "strata" in needed:
        given = judgments if judgments is not None else qrels
        readable = isinstance(given, str | os.PathLike) or hasattr(given, "read")
        if judgments is None and qrels_read:  # the qrels were read: only a path is read again
            readable = isinstance(given, str | os.PathLike) and os.fspath(given) != "-"
        if not readable:
            raise MeasureError(
                f"{needed['strata']} needs stratified sampled qrels (topic 0 docno stratum "
                "judgment) as a file: pass them as the qrels (a path or a file object), or "
                "as judgments=PATH"
            )
        from ranklens.data.strata import read_strata

        strata = read_strata(given)
        if set(needed) == {"strata"}:
            return Judgments(strata=strata)
        needed = {k: v for k, v in needed.items() if k != "strata"}
    subtopics = None
    if "subtopics" in needed:
        given = judgments if judgments is not None else qrels
        if given is None or (qrels_read and judgments is None and given == "-"):
            raise MeasureError(f"{needed['subtopics']} needs subtopic qrels (judgments=...)")
        from ranklens.data.subtopics import read_subtopic_qrels

        subtopics = read_subtopic_qrels(given)
        subtopics.check_diverse(needed["subtopics"])
        if set(needed) == {"subtopics"}:
            return Judgments(subtopics=subtopics, strata=strata)
    source = judgments
    if source is None:
        if isinstance(qrels, str | os.PathLike) and (not qrels_read or os.fspath(qrels) != "-"):
            source = qrels
        elif not qrels_read and hasattr(qrels, "read"):
            source = cast(JudgmentsLike, qrels)
        else:
            kind, first = next(iter(needed.items()))
            raise MeasureError(
                f"{first} needs {_FORMAT_OF[kind]}: pass "
                "judgments=PATH (ranklens eval --judgments FILE), a trec_eval prefs file "
                "(qid jg jsg docno rel_level) or a qrels file whose second column is the "
                "judgement group (the qrels were not given as a file to read again)"
            )
    from ranklens.data.judgement_groups import read_qrels_jg
    from ranklens.data.prefs import read_prefs, read_qrels_prefs
    from ranklens.data.source import read_bytes

    data, name = read_bytes(source)
    five = _first_field_count(data) == 5
    prefs = None
    if "prefs" in needed:
        prefs = read_prefs(_named(data, name)) if five else read_qrels_prefs(_named(data, name))
    qrels_jg = None
    if "qrels_jg" in needed:
        if five:
            raise MeasureError(
                f"{needed['qrels_jg']} needs judgement-group qrels (qid jg docno rel), but "
                f"{name} has 5 columns (a trec_eval prefs file)"
            )
        qrels_jg = read_qrels_jg(_named(data, name))
    return Judgments(prefs, qrels_jg, subtopics, strata=strata)
