"""The judgments of generated answers, gathered in one :class:`RagJudgments`: what the
RAG measures read in place of qrels.

Each kind of judgment is read by its own reader; :func:`read_rag_judgments` tells the
kind of a file (or records) from its first record, so a single file can be given where
ranklens expects judgments; the first record has:

* gold answers: ``answers`` (or ``answer``, ``gold_answers``) as text (``read_gold``);
* nuggets: ``nuggets`` without ``assignment`` (``read_nuggets``);
* nugget assignments: ``nuggets`` with ``assignment`` (``read_assignments``);
* nugget assignments to segments: the same with a ``docid``
  (``read_segment_assignments``);
* support judgments: ``support_eval``, or ``sentence`` and ``support`` (``read_support``).

Several files (a list of paths) are read one by one and gathered; judgments of several
runs (nugget assignments, support judgments) are kept per run.

>>> j = read_rag_judgments({"q1": ["Paris"]})
>>> j.kinds(), j.gold.qids
(('gold',), ('q1',))
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TypeVar

from ranklens.base.errors import InputError, RanklensError
from ranklens.data.frames import is_frame
from ranklens.data.rag._records import Records, is_path, read_records
from ranklens.data.rag._topics import byte_order
from ranklens.data.rag.gold import ANSWER_FIELDS, GoldAnswers, is_gold_mapping, read_gold
from ranklens.data.rag.gold import TOPIC_FIELDS as GOLD_TOPIC_FIELDS
from ranklens.data.rag.nuggets import (
    SEGMENT_FIELDS,
    NuggetSet,
    SegmentNuggets,
    read_assignments,
    read_nuggets,
    read_segment_assignments,
)
from ranklens.data.rag.support import SupportSet, read_support

KINDS = ("gold", "nuggets", "assignments", "segments", "support")
"""The kinds of judgments, as the measures name them (``MeasureSpec.judgments``)."""

_NAMES = {
    "gold": "gold answers",
    "nuggets": "nuggets",
    "assignments": "nugget assignments",
    "segments": "nugget assignments to segments",
    "support": "support judgments",
}


def kind_name(kind: str) -> str:
    """The kind of judgments in words (``"nugget assignments"``)."""
    return _NAMES.get(kind, kind)


@dataclass(frozen=True)
class RagJudgments:
    """The judgments of generated answers, by kind; the per-run kinds hold one set per run.

    Attributes
    ----------
    gold : gold answers by topic.
    nuggets : the nuggets of each topic (the topics judged, their importance).
    assignments : nugget assignments, one :class:`NuggetSet` per run.
    segments : nugget assignments to retrieved segments.
    support : support judgments, one :class:`SupportSet` per run.
    """

    gold: GoldAnswers | None = None
    nuggets: NuggetSet | None = None
    assignments: tuple[NuggetSet, ...] = ()
    segments: SegmentNuggets | None = None
    support: tuple[SupportSet, ...] = ()

    def kinds(self) -> tuple[str, ...]:
        """The kinds present, in the order of :data:`KINDS`."""
        present = {
            "gold": self.gold is not None,
            "nuggets": self.nuggets is not None,
            "assignments": bool(self.assignments),
            "segments": self.segments is not None,
            "support": bool(self.support),
        }
        return tuple(k for k in KINDS if present[k])

    @property
    def qids(self) -> tuple[str, ...]:
        """Every topic some judgment covers, in byte order."""
        found: set[str] = set()
        for part in (self.gold, self.nuggets, self.segments, *self.assignments, *self.support):
            if part is not None:
                found.update(part.qids)
        return tuple(sorted(found, key=byte_order))

    def merged(self, other: RagJudgments) -> RagJudgments:
        """These judgments and ``other``'s; a kind given twice is an error (the per-run
        kinds: a run judged twice)."""
        for kind in ("gold", "nuggets", "segments"):
            if getattr(self, kind) is not None and getattr(other, kind) is not None:
                raise InputError(f"{kind_name(kind)} are given twice: give them once")
        assignments = _runs(self.assignments + other.assignments, "nugget assignments")
        support = _runs(self.support + other.support, "support judgments")
        return RagJudgments(
            self.gold if self.gold is not None else other.gold,
            self.nuggets if self.nuggets is not None else other.nuggets,
            assignments,
            self.segments if self.segments is not None else other.segments,
            support,
        )

    def as_records(self) -> list[tuple[str, str, int]]:
        """``(topic, item, 1)`` for the topics judged (their gold answers or nuggets), for
        the ordinary qrels that stand for these judgments."""
        out: list[tuple[str, str, int]] = []
        if self.gold is not None:
            out += [(q, str(i), 1) for q in self.gold for i in range(len(self.gold[q]) or 1)]
        if self.nuggets is not None:
            out += [(t.topic, f"n{i}", 1) for t in self.nuggets for i in range(len(t.texts))]
        for run in self.assignments:
            out += [(t.topic, f"n{i}", 1) for t in run for i in range(len(t.texts))]
        for judged in self.support:
            out += [(t.topic, f"s{s}:{c}", 1) for t in judged for s, c in t.labels]
        if self.segments is not None:
            out += [(t.topic, d, 1) for t in self.segments for d in t.segments]
        return out


RunSets = TypeVar("RunSets", NuggetSet, SupportSet)
"""A kind of judgments kept per run."""


def _runs(sets: Sequence[RunSets], what: str) -> tuple[RunSets, ...]:
    seen: dict[str, object] = {}
    for s in sets:
        if s.name in seen:
            raise InputError(
                f"{what} of run '{s.name}' are given twice (in {seen[s.name] or 'memory'} and "
                f"{s.source or 'memory'}); give each run's once"
            )
        seen[s.name] = s.source
    return tuple(sets)


def sniff(records: Records) -> str:
    """The kind of judgments (or ``"run"``: a RAG run) of ``records``, told by the first
    record (and, for nuggets, by the first nugget of any record: with an ``assignment``
    they are assignments)."""
    first = records.records[0].data
    if "support_eval" in first or ("sentence" in first and _has(first, ("support", "label"))):
        return "support"
    if "nuggets" in first:
        listed = [
            n
            for r in records.records
            if isinstance(r.data.get("nuggets"), list)
            for n in r.data["nuggets"]
            if isinstance(n, Mapping)
        ]
        if listed and not any("assignment" in n for n in listed):
            return "nuggets"
        if not listed and not _has(first, ("run_id", "answer_text")):
            return "nuggets"
        segments = _has(first, SEGMENT_FIELDS) and "answer_text" not in first
        return "segments" if segments else "assignments"
    if "importance" in first:  # a table, one row per nugget
        return "assignments" if "assignment" in first else "nuggets"
    if _has(first, ("run_id", "references", "metadata", "responses")):
        return "run"
    for name in ANSWER_FIELDS:
        value = first.get(name)
        if isinstance(value, str) or (
            isinstance(value, list) and value and all(isinstance(v, str) for v in value)
        ):
            return "gold"
        if name in ("answers", "gold_answers") and value == []:
            return "gold"
    if _has(first, GOLD_TOPIC_FIELDS) and any(_not_sentences(first, n) for n in ANSWER_FIELDS):
        return "gold"  # a gold record with a bad answer: read_gold says what is wrong
    return "run"


def _not_sentences(data: Mapping[str, object], name: str) -> bool:
    """Whether ``data[name]`` is there and is not what a run's ``answer`` is (a list of
    sentence objects): a number, ``null``, a list of numbers... (a bad gold answer)."""
    if name not in data:
        return False
    value = data[name]
    if isinstance(value, list):
        return not any(isinstance(v, Mapping) for v in value)
    return not isinstance(value, Mapping)


def first_record_kind(path: object) -> str | None:
    """The kind of judgments (:data:`KINDS`, or ``"run"``) that a JSON lines file's first
    record holds, reading that line only; ``None`` for anything else (not a path, not a
    file, a first line that is no JSON object: TREC qrels, say).

    >>> first_record_kind("no such file") is None
    True
    """
    import json
    import lzma
    import os

    from ranklens.data.chunks import _open_stream, close_stream

    if not isinstance(path, str | os.PathLike) or not os.path.isfile(path):
        return None
    try:
        stream, _ = _open_stream(path)
        try:
            line = stream.readline(1 << 20)
        finally:
            close_stream(stream)
        value = json.loads(line.decode("utf-8-sig"))
    except (RanklensError, OSError, EOFError, ValueError, lzma.LZMAError):
        return None
    if not isinstance(value, dict):
        return None
    from ranklens.data.rag._records import Record

    return sniff(Records((Record(value, 1, 1),), os.fspath(path)))


def _has(data: Mapping[str, object], names: Sequence[str]) -> bool:
    return any(n in data for n in names)


def _single(kind: str, source: object) -> RagJudgments:
    if kind == "gold":
        return RagJudgments(gold=read_gold(source))
    if kind == "nuggets":
        return RagJudgments(nuggets=read_nuggets(source))
    if kind == "assignments":
        return RagJudgments(assignments=read_assignments(source))
    if kind == "segments":
        return RagJudgments(segments=read_segment_assignments(source))
    return RagJudgments(support=read_support(source))


def read_rag_judgments(obj: object) -> RagJudgments:
    """The judgments in ``obj``: a :class:`RagJudgments`, ``None`` (none), gold answers
    ``{topic: [answer, ...]}``, a path or file object, records or a table of one kind (told
    by its first record), or a list of paths (gathered).

    Raises
    ------
    InputError
        ``obj`` holds a RAG run rather than judgments, or is none of these.
    """
    if obj is None:
        return RagJudgments()
    if isinstance(obj, RagJudgments):
        return obj
    if isinstance(obj, GoldAnswers):
        return RagJudgments(gold=obj)
    if isinstance(obj, SegmentNuggets):
        return RagJudgments(segments=obj)
    if isinstance(obj, NuggetSet):
        return RagJudgments(assignments=(obj,)) if obj.assigned else RagJudgments(nuggets=obj)
    if isinstance(obj, SupportSet):
        return RagJudgments(support=(obj,))
    if isinstance(obj, Mapping):
        if is_gold_mapping(obj) or all(isinstance(v, str) for v in obj.values()):
            return RagJudgments(gold=read_gold(obj))
        raise InputError(
            "judgments of generated answers given as a mapping must be gold answers "
            f"{{topic: [answer, ...]}}, not {obj!r:.60}; gather other kinds with "
            "ranklens.rag.judgments(nuggets=..., assignments=..., support=..., gold=...)"
        )
    if isinstance(obj, list | tuple) and obj and all(is_path(p) for p in obj):
        gathered = RagJudgments()
        for one in obj:
            gathered = gathered.merged(read_rag_judgments(one))
        return gathered
    if is_path(obj) or is_frame(obj) or isinstance(obj, list | tuple | Records):
        records = read_records(obj, "judgments")
        kind = sniff(records)
        if kind == "run":
            where = records.source or "the records"
            raise InputError(
                f"{where} holds generated answers (a RAG run), not judgments: give the gold "
                "answers, nuggets, nugget assignments or support judgments first and the runs "
                "after them",
                path=None,
            )
        return _single(kind, obj if is_frame(obj) else records)
    raise InputError(
        f"cannot read judgments of generated answers from {type(obj).__name__} {obj!r:.60}"
    )


def rag_judgments(
    *,
    gold: object = None,
    nuggets: object = None,
    assignments: object = None,
    segments: object = None,
    support: object = None,
) -> RagJudgments:
    """Judgments of several kinds gathered (each argument as its reader takes it; the
    per-run kinds also as a list of files, or ``{run: file}`` to name runs whose records
    name none).

    >>> j = rag_judgments(gold={"q1": ["4"]}, assignments=[{"qid": "q1", "run_id": "r",
    ...     "nuggets": [{"text": "t", "importance": "vital", "assignment": "support"}]}])
    >>> j.kinds()
    ('gold', 'assignments')
    """
    out = RagJudgments(
        gold=None if gold is None else read_gold(gold),
        nuggets=None if nuggets is None else read_nuggets(nuggets),
        segments=None if segments is None else read_segment_assignments(segments),
    )
    if assignments is not None:
        out = replace(
            out, assignments=_per_run(assignments, read_assignments, "nugget assignments")
        )
    if support is not None:
        out = replace(out, support=_per_run(support, read_support, "support judgments"))
    return out


def _per_run(
    obj: object, reader: Callable[[object], tuple[RunSets, ...]], what: str
) -> tuple[RunSets, ...]:
    """The sets of ``reader`` from ``obj``: one source, a list of them, or ``{run: source}``
    (each then holding one run, named by its key)."""
    found: list[RunSets] = []
    if isinstance(obj, Mapping):
        for name, source in obj.items():
            sets = reader(source)
            if len(sets) != 1:
                raise InputError(
                    f"the {what} given for run '{name}' hold {len(sets)} runs; give one run's"
                )
            found.append(sets[0].renamed(str(name)))
    elif (
        isinstance(obj, list | tuple)
        and obj
        and all(is_path(p) or isinstance(p, NuggetSet | SupportSet) for p in obj)
    ):
        for one in obj:
            found.extend(reader(one))
    else:
        found.extend(reader(obj))
    return _runs(found, what)
