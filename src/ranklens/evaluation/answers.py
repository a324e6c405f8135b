"""Evaluating generated answers (RAG runs) with the measures that read them
(:mod:`ranklens.measures.catalog_rag`): the path :class:`~ranklens.Evaluator` takes when
such measures are asked for, or when the judgments are gold answers.

What plays the part of the qrels is a :class:`~ranklens.data.rag.judgments.RagJudgments`
(gold answers, nuggets, nugget assignments, support judgments, nugget assignments to
segments; :func:`~ranklens.data.rag.judgments.read_rag_judgments`), and what plays the run
is a :class:`~ranklens.data.rag.answers.RagRun`: a TREC RAG 2024 or 2025 run,
``{topic: text}``, or a file of nugget assignments or support judgments, which carry the
answers they judge (their judgments then count as given, for that run).

Which topics are evaluated (``queries``):

* ``"qrels"`` (default): the topics every kind of judgment the measures read covers (the
  gold answers' topics, the nuggets file's or else the run's assignments' topics, the run's
  support judgments' topics); a topic the run does not answer has an empty answer (its
  nuggets are not supported, its text is ``""``). Measures that read no judgment evaluate
  the run's topics.
* ``"both"``: those the run answers too; ``"run"``: the run's topics (one without
  judgments has none: no gold answer, no nugget, no judged citation; it scores 0).

Judgments of several runs (assignments or support judgments with run ids) are matched to
a run by its name; a single set of judgments without a run id goes with any run.
Support judgments that judge no citation of the run's answers (a sentence past the
answer's last, a segment the sentence does not cite: judgments numbered from 1, or made
for another run) are left out, counted in ``query_counts["unmatched_judgments"]`` and
warned about, naming the file. Labels outside the defined sets are counted in
``query_counts["unknown_labels"]``, and warned about once per run
(:class:`~ranklens.base.errors.InputWarning`) where a measure scores them by its default
policy; a measure with ``unknown='error'`` refuses them, naming
the file and line.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from ranklens.base.errors import InputError, InputWarning, MeasureError, OptionError
from ranklens.data.frames import is_frame
from ranklens.data.qrels import Qrels
from ranklens.data.rag._records import Record, is_path, read_records
from ranklens.data.rag.answers import (
    RagRun,
    by_topic,
    is_answers_mapping,
    parse_answer,
    read_answers,
    read_rag_runs,
)
from ranklens.data.rag.gold import is_gold_mapping
from ranklens.data.rag.judgments import (
    RagJudgments,
    first_record_kind,
    kind_name,
    read_rag_judgments,
    sniff,
)
from ranklens.data.rag.nuggets import NuggetSet, read_assignments
from ranklens.data.rag.support import SupportSet, read_support
from ranklens.data.rag.view import (
    AnswerView,
    Unknown,
    Unmatched,
    answers_of,
    citation_arrays,
    coverage_arrays,
    gold_of,
    nugget_arrays,
    support_arrays,
)
from ranklens.evaluation.result_set import ResultSet
from ranklens.evaluation.results import Results
from ranklens.measures.base import Measure
from ranklens.measures.catalog_rag import (
    READS_CITATIONS,
    answer_spelling,
    is_answer_measure,
    measures_reading,
)

if TYPE_CHECKING:
    from ranklens.evaluation.evaluator import Evaluator

RECORD_KEYS = frozenset(
    {
        "topic_id",
        "qid",
        "query_id",
        "metadata",
        "run_id",
        "answer",
        "responses",
        "references",
        "nuggets",
        "support_eval",
        "answer_text",
    }
)
"""Keys that mark a dict as one record of a RAG file (not ``{topic: text}``)."""
EMBEDDABLE = ("assignments", "support")
"""Kinds of judgments a run's file may carry itself."""


@dataclass(frozen=True)
class AnswerSetup:
    """What :class:`~ranklens.Evaluator` prepares once for generated answers: the measures
    (``F1`` as the token F1), the kinds of judgments they read and the judgments."""

    measures: tuple[Measure, ...]
    kinds: tuple[str, ...]
    judgments: RagJudgments

    @property
    def qrels(self) -> Qrels | None:
        """Ordinary qrels standing for the judgments (the topics judged), or ``None``."""
        records = self.judgments.as_records()
        if not records:
            return None
        return Qrels.from_records(records, duplicates="max", source="<judgments of answers>")


def _looks_like_answer_judgments(qrels: object) -> bool:
    return (
        isinstance(qrels, RagJudgments)
        or is_gold_mapping(qrels)
        or first_record_kind(qrels) == "gold"
    )


def reads_answers(measures: Sequence[Measure], qrels: object) -> bool:
    """Whether evaluating ``measures`` with ``qrels`` is an evaluation of answers: some
    measure reads answers, or the judgments are gold answers and the measures are ``F1``."""
    if any(is_answer_measure(m) for m in measures):
        return True
    return (
        bool(measures)
        and _looks_like_answer_judgments(qrels)
        and all(m.spec.name == "F1" for m in measures)
    )


def refuse_ranking_measures(measures: Sequence[Measure], qrels: object) -> None:
    """Refuse measures of rankings given judgments of generated answers (a gold answers
    file, nuggets, assignments...): what the measures of answers are, rather than the
    qrels reader's complaint about the file.

    Raises
    ------
    MeasureError
        ``qrels`` is a file of judgments of answers.
    """
    kind = first_record_kind(qrels)
    if kind is None or kind == "run":
        return
    rankings = [m.name for m in measures if not is_answer_measure(m)]
    verb = "is a measure" if len(rankings) == 1 else "are measures"
    raise MeasureError(
        f"{os.fspath(cast(Any, qrels))} holds {kind_name(kind)}, judgments of generated "
        f"answers, but {', '.join(rankings[:3])} {verb} of rankings: the measures of "
        f"answers that read {kind_name(kind)} are "
        f"{', '.join(measures_reading(kind))} (ranklens measures NAME describes each)"
    )


def prepare_answers(measures: Sequence[Measure], qrels: object) -> AnswerSetup | None:
    """The setup of an evaluation of answers, or ``None`` when ``measures`` are measures of
    rankings (and the judgments are not gold answers).

    Raises
    ------
    MeasureError
        Measures of answers mixed with measures of rankings; a measure needs a kind of
        judgment that is not given (and cannot come with the runs).
    """
    if not reads_answers(measures, qrels):
        refuse_ranking_measures(measures, qrels)
        return None
    converted = tuple(answer_spelling(m) for m in measures)
    others = [m.name for m in converted if not is_answer_measure(m)]
    if others:
        first = next(m.name for m in converted if is_answer_measure(m))
        raise MeasureError(
            f"{first} reads generated answers and {others[0]} a ranking: evaluate them "
            "separately (the measures of rankings on the answers' references: "
            "ranklens.rag.references(run))"
        )
    kinds = tuple(dict.fromkeys(m.spec.judgments for m in converted if m.spec.judgments != "none"))
    judgments = read_rag_judgments(qrels)
    present = set(judgments.kinds())
    for kind in kinds:
        if kind not in present and kind not in EMBEDDABLE:
            needing = next(m.name for m in converted if m.spec.judgments == kind)
            raise MeasureError(
                f"{needing} needs {kind_name(kind)}: give them as the judgments (first "
                "argument; ranklens.rag.judgments(...) gathers several kinds)"
            )
    return AnswerSetup(converted, kinds, judgments)


# --- reading runs -------------------------------------------------------------------------


def _is_record(obj: object) -> bool:
    return isinstance(obj, Mapping) and any(k in RECORD_KEYS for k in obj)


def _topic_records(mapping: Mapping[Any, Any]) -> bool:
    """``{topic: record}``: every value is a dict with a record's fields."""
    return bool(mapping) and all(_is_record(v) for v in mapping.values())


def read_answer_run(obj: object, name: str | None = None) -> RagRun:
    """One run's answers from any form :mod:`ranklens.evaluation.answers` takes, with the
    judgments its file carries (``RagRun.embedded``).

    Raises
    ------
    InputError
        The input holds judgments other than assignments or support judgments, several
        runs, or nothing a run can be made of.
    """
    runs = read_answer_runs(obj)
    if len(runs) != 1:
        names = ", ".join(r.name for r in runs)
        raise InputError(
            f"holds {len(runs)} runs ({names}); evaluate one, or give them all as a list of runs",
            path=runs[0].source,
        )
    return runs[0].renamed(name) if name else runs[0]


def read_answer_runs(obj: object) -> tuple[RagRun, ...]:
    """Every run in ``obj`` (a file of nugget assignments or support judgments may hold
    several runs' answers, by run id)."""
    if isinstance(obj, RagRun):
        return (obj,)
    if isinstance(obj, Mapping):
        if is_answers_mapping(obj):
            return (read_answers(obj),)
        if _topic_records(obj):
            made = [
                parse_answer(Record({**v, "topic_id": str(k)}, None, i), None, "run")
                for i, (k, v) in enumerate(obj.items(), 1)
            ]
            return tuple(
                by_topic([a for n, a in made if n == run], run, None)
                for run in dict.fromkeys(n for n, _ in made)
            )
        raise InputError(
            "a run of generated answers given as a mapping is {topic: text}, {topic: "
            '[sentence, ...]} or {topic: {"references": [...], "answer": [...]}}, not '
            f"{obj!r:.60}"
        )
    if is_frame(obj):
        return read_rag_runs(obj)
    records = read_records(obj, "RAG run")
    kind = sniff(records)
    if kind == "assignments":
        return tuple(_from_assignments(s) for s in read_assignments(records))
    if kind == "support":
        return tuple(_from_support(s) for s in read_support(records))
    if kind != "run":
        raise InputError(
            f"holds {kind_name(kind)}, not generated answers: give the judgments first and "
            "the runs after them",
            path=records.source,
        )
    return read_rag_runs(records)


def runs_from_assignments(obj: object) -> tuple[RagRun, ...]:
    """The runs whose answers nugget assignments judge (path, records or a table with one
    row per nugget; see :func:`~ranklens.data.rag.nuggets.read_assignments`), each with its
    assignments as its own judgments."""
    return tuple(_from_assignments(s) for s in read_assignments(obj))


def _from_assignments(judged: NuggetSet) -> RagRun:
    answers = [
        parse_answer(
            Record({"topic_id": t.topic, "answer_text": t.answer_text or ""}, t.line, 1),
            judged.source,
            judged.name,
        )[1]
        for t in judged
    ]
    return by_topic(answers, judged.name, judged.source, RagJudgments(assignments=(judged,)))


def _from_support(judged: SupportSet) -> RagRun:
    answers = [t.answer for t in judged if t.answer is not None]
    if len(answers) != len(judged):
        raise InputError(
            "support judgments given as a run must carry the answers they judge (the track's "
            "layout with 'answer'); give the run itself, and these as the judgments",
            path=judged.source,
        )
    return by_topic(answers, judged.name, judged.source, RagJudgments(support=(judged,)))


def is_many_answer_runs(obj: object) -> bool:
    """Whether ``obj`` holds several runs: a list or tuple of runs (paths, file objects,
    :class:`RagRun`, tables, ``{topic: text}``; not the records of one file), or a mapping
    ``{name: run}`` (not ``{topic: text}`` or ``{topic: record}``)."""
    if isinstance(obj, list | tuple):
        if not obj:
            return False
        first = obj[0]
        if _is_record(first):
            return False
        return is_path(first) or isinstance(first, RagRun | Mapping) or is_frame(first)
    if isinstance(obj, Mapping) and obj:
        return not (is_answers_mapping(obj) or _topic_records(obj))
    return False


def named_runs(
    runs: Sequence[object] | Mapping[str, object], names: Sequence[str | None] | None = None
) -> list[RagRun]:
    """Each run read, named by ``names`` (or the mapping's keys), else its run id, else its
    file's stem, else ``run1``, ``run2``... by position; the names must be distinct."""
    if isinstance(runs, Mapping):
        if names is not None:
            raise OptionError("give the runs' names either as the mapping's keys or as names")
        given: list[str | None] = [str(k) for k in runs]
        sources = list(runs.values())
    else:
        sources = list(runs)
        given = list(names) if names is not None else [None] * len(sources)
    if len(given) != len(sources):
        raise OptionError(f"{len(given)} names for {len(sources)} runs")
    read = [read_answer_run(s, n) for s, n in zip(sources, given, strict=True)]
    out = []
    for i, (run, explicit, source) in enumerate(zip(read, given, sources, strict=True), 1):
        if explicit is None and run.name == "run" and not isinstance(source, str | os.PathLike):
            run = run.renamed(f"run{i}")
        out.append(run)
    seen: dict[str, int] = {}
    for i, run in enumerate(out):
        if run.name in seen:
            raise OptionError(
                f"runs {seen[run.name] + 1} and {i + 1} are both named {run.name!r}: give "
                "each run its own name (name=[...] or {name: run}; --name)"
            )
        seen[run.name] = i
    return out


# --- evaluating ---------------------------------------------------------------------------


def _pick(sets: Sequence[Any], run: RagRun, kind: str) -> Any:
    """The judgments of ``kind`` made for ``run``: by name, or the only unnamed set."""
    for s in sets:
        if s.name == run.name:
            return s
    if len(sets) == 1 and not sets[0].named:
        return sets[0]
    if not sets:
        raise MeasureError(
            f"no {kind_name(kind)} are given for run '{run.name}': give them as the judgments "
            "(first argument), or evaluate their file itself as the run"
        )
    judged = ", ".join(repr(s.name) for s in sets[:5])
    raise InputError(
        f"no {kind_name(kind)} for run '{run.name}' (they judge runs {judged}): name the "
        "run as its judgments do (its run_id, name=..., --name)",
        path=run.source,
    )


def _judgments_for(setup: AnswerSetup, run: RagRun) -> RagJudgments:
    """The judgments given, with the run's own for the kinds not given."""
    given = setup.judgments
    own = run.embedded
    if not isinstance(own, RagJudgments):
        return given
    return RagJudgments(
        given.gold,
        given.nuggets,
        given.assignments or own.assignments,
        given.segments,
        given.support or own.support,
    )


def _judged_topics(
    kind: str, judgments: RagJudgments, per_run: Mapping[str, Any], answered: set[str]
) -> set[str]:
    if kind == "gold" and judgments.gold is not None:
        return set(judgments.gold.qids)
    if kind == "assignments":
        if judgments.nuggets is not None:
            return set(judgments.nuggets.qids)
        return set(per_run["assignments"].qids)
    if kind == "support":  # the answers' citations are what is judged: every answer
        return set(per_run["support"].qids) | set(answered)
    if kind == "segments" and judgments.segments is not None:
        return set(judgments.segments.qids)
    return set()


def _order(topics: set[str]) -> tuple[str, ...]:
    return tuple(sorted(topics, key=lambda q: q.encode("utf-8", "surrogatepass")))


@dataclass(frozen=True)
class Joined:
    """One run's answers joined with their judgments: the run, the view the kernels read
    (its evaluated topics), the topic counts and the labels outside the defined sets."""

    run: RagRun
    view: AnswerView
    counts: dict[str, int]
    unknown: dict[str, Unknown]
    judgments: RagJudgments
    per_run: dict[str, Any]


def join_answers(evaluator: Evaluator, run: object, name: str | None = None) -> Joined:
    """Read ``run`` and join it with ``evaluator``'s judgments (the topics of the module
    docstring); what :func:`evaluate_answers` computes on, and the worked computations
    (:mod:`ranklens.presentation.explanation.answers`) show.

    Raises
    ------
    InputError
        The run shares no topic with its judgments; a label outside the defined sets where
        a measure refuses them (``unknown='error'``).
    MeasureError
        A measure's judgments are missing for this run.
    """
    setup = evaluator.answers
    if setup is None:
        raise MeasureError("none of the measures reads generated answers")
    rag = read_answer_run(run, name)
    _check_citations(setup.measures, rag)
    judgments = _judgments_for(setup, rag)
    per_run: dict[str, Any] = {}
    if "assignments" in setup.kinds:
        per_run["assignments"] = _pick(judgments.assignments, rag, "assignments")
    if "support" in setup.kinds:
        per_run["support"] = _pick(judgments.support, rag, "support")
    answered = set(rag.qids)
    if "assignments" in per_run:  # an answer was judged: it was given
        answered |= set(per_run["assignments"].qids)
    judged: set[str] | None = None
    for kind in setup.kinds:
        topics = _judged_topics(kind, judgments, per_run, answered)
        judged = topics if judged is None else judged & topics
    if judged is None:  # no judgment is read: the run's topics
        judged = set(answered)
    policy = evaluator.queries
    chosen = judged if policy == "qrels" else judged & answered if policy == "both" else answered
    qids = _order(chosen)
    counts = {
        "qrels": len(judged),
        "run": len(answered),
        "shared": len(judged & answered),
        "missing": len(judged - answered) if policy == "qrels" else 0,
        "unjudged": len(answered - judged) if policy != "run" else 0,
        "evaluated": len(qids),
    }
    if setup.kinds and answered and judged and not judged & answered:
        shown = ", ".join(repr(q) for q in _order(answered)[:3])
        raise InputError(
            f"run '{rag.name}' and its judgments share no topic: the run answers "
            f"{len(answered)} ({shown}, ...), the judgments cover {len(judged)}; check that "
            "these are the right files and that the topic ids are written the same way",
            path=rag.source,
        )
    view, unknown = _view(setup, judgments, per_run, rag, qids)
    _check_unknown(setup.measures, unknown)
    return Joined(rag, view, counts, unknown, judgments, per_run)


def _check_citations(measures: Sequence[Measure], rag: RagRun) -> None:
    """Refuse a measure of citations for a run whose answers came without them."""
    reading = [m.name for m in measures if m.spec.name in READS_CITATIONS]
    if not reading or not rag.answers or rag.cites:
        return
    where = (
        "nugget assignments carry only each answer's text"
        if isinstance(rag.embedded, RagJudgments) and rag.embedded.assignments
        else "they were given as text"
    )
    raise InputError(
        f"{', '.join(reading)} {'reads' if len(reading) == 1 else 'read'} the answers' "
        f"citations, but run '{rag.name}' has none ({where}): give the RAG run itself (its "
        "'answer' sentences with their 'citations' and 'references'), or leave "
        f"{'it' if len(reading) == 1 else 'them'} out",
        path=rag.source,
    )


def evaluate_answers(evaluator: Evaluator, run: object, name: str | None) -> Results:
    """The values of ``evaluator``'s measures (all of answers) on the run ``run``: per
    topic, and their means (the module docstring says which topics).

    Raises
    ------
    InputError
        As :func:`join_answers`.
    MeasureError
        As :func:`join_answers`.
    """
    joined = join_answers(evaluator, run, name)
    setup = cast(AnswerSetup, evaluator.answers)
    rag, view, counts, unknown = joined.run, joined.view, dict(joined.counts), joined.unknown
    qids, policy = view.qids, evaluator.queries
    values = np.empty((len(qids), len(setup.measures)), dtype=np.float64)
    for j, measure in enumerate(setup.measures):
        params = dict(measure.items)
        values[:, j] = np.asarray(measure.spec.kernel(view, **params), dtype=np.float64)
    total = sum(u.count for u in unknown.values())
    counts["unknown_labels"] = total
    for kind in _by_default(setup.measures, unknown):
        _warn_unknown(rag.name, kind, unknown[kind])
    if view.support is not None:
        counts["unmatched_judgments"] = view.support.unmatched.count
        if view.support.unmatched.count:
            _warn_unmatched(rag.name, view.support.unmatched)
    if policy == "qrels" and counts["missing"] * 2 > counts["qrels"] > 0 and setup.kinds:
        warnings.warn(
            f"{counts['missing']} of the {counts['qrels']} judged topics are not answered by "
            f"run '{rag.name}' and score as empty answers; to evaluate only the topics in "
            "both, pass queries='both' (--queries both)",
            InputWarning,
            stacklevel=4,
        )
    return Results(rag.name, setup.measures, qids, np.ascontiguousarray(values), counts)


def _view(
    setup: AnswerSetup,
    judgments: RagJudgments,
    per_run: Mapping[str, Any],
    rag: RagRun,
    qids: tuple[str, ...],
) -> tuple[AnswerView, dict[str, Unknown]]:
    answers = answers_of(rag, qids)
    unknown: dict[str, Unknown] = {}
    nuggets = support = coverage = None
    if "assignments" in setup.kinds:
        nuggets = nugget_arrays(per_run["assignments"], judgments.nuggets, rag, qids)
        unknown["assignments"] = nuggets.unknown
    if "support" in setup.kinds:
        support = support_arrays(per_run["support"], answers, rag.name, frozenset(rag.qids))
        unknown["support"] = support.unknown
    if "segments" in setup.kinds and judgments.segments is not None:
        coverage = coverage_arrays(judgments.segments, answers)
        unknown["segments"] = coverage.unknown
    gold = gold_of(judgments.gold, qids) if judgments.gold is not None else None
    view = AnswerView(qids, answers, gold, nuggets, support, coverage, citation_arrays(answers))
    return view, unknown


def _by_default(measures: Sequence[Measure], unknown: Mapping[str, Unknown]) -> list[str]:
    """The kinds of judgments whose labels outside the defined sets some measure scores by
    its default policy (not one the user chose): they are warned about."""
    kinds: dict[str, None] = {}
    for m in measures:
        found = unknown.get(m.spec.judgments)
        param = m.spec.param("unknown")
        scored = found is not None and found.count and param is not None
        if scored and param is not None and m.params.get("unknown") == param.default:
            kinds[m.spec.judgments] = None
    return list(kinds)


_DEFAULT_RULE = {
    "assignments": "scored as nuggetizer's scorer scores them (a nugget of another importance "
    "counts among all nuggets only, another assignment earns 0)",
    "segments": "scored as nuggetizer's scorer scores them (a nugget of another importance "
    "counts among all nuggets only, another assignment earns 0)",
    "support": "each weighs 0, as a judged citation with no support",
}
_DEFINED = {
    "assignments": "vital/okay and support/partial_support/not_support",
    "segments": "vital/okay and support/partial_support/not_support",
    "support": "FS/PS/NS (full, partial, no support)",
}


def _place(path: str | None, line: int | None, topic: str) -> str:
    """``FILE:LINE`` where both are known, else the topic."""
    if path and line:
        return f"{path}:{line}"
    return f"topic {topic!r}" + (f" of {path}" if path else "")


def _warn_unknown(run: str, kind: str, found: Unknown) -> None:
    """The warning about labels outside the defined sets, scored by the default policy."""
    shown = "the first" if found.label is None else f"the first, {found.label!r},"
    warnings.warn(
        f"run '{run}': {found.count} labels outside the defined sets in its "
        f"{kind_name(kind)} ({_DEFINED.get(kind, 'the defined labels')}; {shown} at "
        f"{_place(found.path, found.line, found.topic)}); {_DEFAULT_RULE.get(kind, 'scored')} "
        "(unknown='ignore' leaves them out, unknown='error' refuses them)",
        InputWarning,
        stacklevel=5,
    )


def _warn_unmatched(run: str, found: Unmatched) -> None:
    """The warning about support judgments that judge no citation of the run's answers."""
    sentence, segment = found.pair
    warnings.warn(
        f"run '{run}': {found.count} support judgments"
        + (f" of {found.path}" if found.path else "")
        + f" match no citation of the answers (the first, sentence {sentence} citing "
        f"{segment!r} at {_place(found.path, found.line, found.topic)}): the answer has no "
        "such sentence, or the sentence does not cite that segment; they are left out. "
        "Sentences are numbered from 0: check that the judgments were made for this run",
        InputWarning,
        stacklevel=5,
    )


def _check_unknown(measures: Sequence[Measure], unknown: Mapping[str, Unknown]) -> None:
    for m in measures:
        found = unknown.get(m.spec.judgments)
        if m.params.get("unknown") != "error" or found is None or not found.count:
            continue
        raise InputError(
            f"{found.count} labels outside the defined sets, the first {found.label!r} "
            f"(topic {found.topic!r}), which {m.name} refuses (unknown='error'); fix them, "
            "score them (the default unknown= policy) or leave them out with "
            "unknown='ignore'",
            path=found.path,
            line=found.line,
        )


def evaluate_many_answers(
    evaluator: Evaluator,
    runs: Sequence[object] | Mapping[str, object],
    names: Sequence[str | None] | None = None,
) -> ResultSet:
    """:func:`evaluate_answers` for each run (named as :func:`named_runs` says)."""
    return ResultSet(tuple(evaluator.evaluate(r) for r in named_runs(runs, names)))


def ppi_inputs(
    human: object, llm: object, run: object, measure: object
) -> tuple[RagJudgments, RagJudgments, RagRun] | None:
    """The two judges' judgments and the run of :func:`ranklens.ppi_mean` read as answers,
    when ``measure`` is a measure of answers (or ``F1`` with gold answers); else ``None``.
    """
    from ranklens.measures.language import parse_measure

    if not isinstance(measure, str | Measure):
        return None
    parsed = parse_measure(measure)
    if not is_answer_measure(parsed) and not (
        parsed.spec.name == "F1" and _looks_like_answer_judgments(llm)
    ):
        return None
    return read_rag_judgments(human), read_rag_judgments(llm), read_answer_run(run)
