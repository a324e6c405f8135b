"""What to judge next: :func:`judge_next`.

The ranges of :func:`ranklens.bounds` are as wide as the unjudged documents leave them.
Judging one document fixes its grade and narrows every range it takes part in. The
criterion, one greedy step over the documents the runs retrieved and the qrels do not
judge (each run's top ``depth`` when given):

``narrowing(q, d) = min over g in {0..G} of sum over runs r and measures m of
(width_{r,m,q} - width_{r,m,q}(d judged g))``

``width_{r,m,q} = high - low`` of run ``r``'s range of ``m`` on query ``q``, and
``width(d judged g)`` the same once ``d`` is in the qrels with grade ``g``. The minimum
over the grades makes it the narrowing *guaranteed* whatever the assessor answers. A
judgment only changes its own query, so every candidate is scored on its own query: each
``(q, d, g)`` becomes one query of a single :func:`~ranklens.analysis.bounds.bounds` call
per run. The ``budget`` documents with the largest narrowing are chosen (equal ones by
query id, then document id); each is scored alone, so two documents of one query that
settle the same thing both count it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ranklens.analysis.bounds import bounds, check_max_grade
from ranklens.base.errors import MeasureError, OptionError
from ranklens.base.progress import Progress, report
from ranklens.data.coerce import QrelsLike, RunLike, as_qrels, as_run
from ranklens.data.qrels import Qrels
from ranklens.data.run import Run
from ranklens.measures.base import Measure
from ranklens.measures.language import parse_measures

PSEUDO_LIMIT = 1_000_000
"""The most (query, document, grade) triples :func:`judge_next` scores: each is a copy of
its query's ranking and judgments."""

CHUNK = 2_048
"""About how many (query, document, grade) triples are scored together (whole queries at a
time): memory stays bounded, and progress is reported after each chunk."""


@dataclass(frozen=True)
class Candidate:
    """An unjudged document and how much judging it narrows the ranges (see the module)."""

    qid: str
    docid: str
    narrowing: float


def _positive(value: object, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise OptionError(f"{what} must be a positive whole number of documents, not {value!r}")
    return value


def _chunks(keys: Sequence[tuple[str, str, int]]) -> list[tuple[int, int]]:
    """``(first, last)`` index ranges of ``keys`` of about :data:`CHUNK` each, never
    splitting a query's keys."""
    chunks: list[tuple[int, int]] = []
    first = 0
    for i in range(1, len(keys) + 1):
        if i == len(keys) or (i - first >= CHUNK and keys[i][0] != keys[i - 1][0]):
            chunks.append((first, i))
            first = i
    return chunks


def _widths(
    qrels: Qrels, runs: Sequence[Run], measures: Sequence[Measure], top: int
) -> dict[str, float]:
    """The summed widths of every run's ranges per query of ``qrels``."""
    total: dict[str, float] = {q: 0.0 for q in qrels.qids}
    for run in runs:
        ranges = bounds(qrels, run, measures, top)
        widths = np.nansum(ranges.high - ranges.low, axis=1)
        for q, w in zip(ranges.queries, widths.tolist(), strict=True):
            total[q] += w
    return total


def judge_next(
    qrels: QrelsLike,
    runs: Sequence[RunLike] | Mapping[str, RunLike],
    measures: Iterable[str | Measure] | str,
    budget: int,
    max_grade: int | None = None,
    *,
    depth: int | None = None,
    progress: Progress | None = None,
) -> list[Candidate]:
    """The ``budget`` unjudged documents whose judgments narrow the ranges of ``measures``
    over ``runs`` the most (the module's greedy criterion), best first.

    The work grows with the unjudged documents retrieved times the grades: ``depth`` (each
    run's top ``depth`` only) bounds it. ``progress(done, total)`` is called as the
    candidates are scored (:mod:`ranklens.base.progress`).

    Examples
    --------
    >>> qrels = {"q1": {"r": 1, "n": 0}}
    >>> runs = [{"q1": {"x": 3.0, "r": 2.0, "y": 1.0}}]
    >>> [(c.docid, round(c.narrowing, 4)) for c in judge_next(qrels, runs, "P@1", 2)]
    [('x', 1.0), ('y', 0.0)]
    """
    _positive(budget, "budget")
    if depth is not None:
        _positive(depth, "depth")
    parsed = parse_measures(measures)
    if not parsed:
        raise MeasureError("judge_next: no measure given: name at least one, e.g. ['AP']")
    the_qrels = as_qrels(qrels)
    given = list(runs.values()) if isinstance(runs, Mapping) else list(runs)
    if not given:
        raise OptionError("judge_next: give at least one run")
    the_runs = [as_run(r) for r in given]
    top = max(int(np.max(the_qrels.rels)) if len(the_qrels) else 0, 0)
    if max_grade is not None:
        top = check_max_grade(max_grade, "max_grade")
    judged = the_qrels.to_dict()
    candidates: dict[str, set[str]] = {}
    rankings: list[dict[str, dict[str, float]]] = []
    for run in the_runs:
        as_dict = run.to_dict()
        rankings.append(as_dict)
        order = run.ranking()
        docs = run.docids()
        query_of = run.query_of_entries()
        seen: dict[str, int] = {}
        for entry in order.tolist():
            qid = run.qids[int(query_of[entry])]
            if qid not in judged:
                continue
            rank = seen.get(qid, 0)
            seen[qid] = rank + 1
            if depth is not None and rank >= depth:
                continue
            if docs[entry] not in judged[qid]:
                candidates.setdefault(qid, set()).add(docs[entry])
    documents = sum(len(docs) for docs in candidates.values())
    if documents * (top + 1) > PSEUDO_LIMIT:
        raise OptionError(
            f"judge_next: scoring {documents} documents at every grade 0..{top} needs "
            f"{documents} x {top + 1} = {documents * (top + 1)} evaluations, more than "
            f"{PSEUDO_LIMIT}: give a smaller max_grade (--max-grade) or depth (--depth)"
        )
    # one pseudo-query per (query, document, grade), in byte order of its id, scored a
    # chunk of whole queries at a time (a judgment changes only its own query)
    keys: list[tuple[str, str, int]] = [
        (q, d, g) for q in sorted(candidates) for d in sorted(candidates[q]) for g in range(top + 1)
    ]
    if not keys:
        return []
    chunks = _chunks(keys)
    total = (len(chunks) + 1) * len(the_runs)
    report(progress, 0, total)
    before = _widths(the_qrels, the_runs, parsed, top)
    done = len(the_runs)
    report(progress, done, total)
    after = np.zeros(len(keys))
    for first, last in chunks:
        chunk = keys[first:last]
        names = [f"{k:012d}" for k in range(first, last)]
        pseudo_qrels = Qrels.from_dict(
            {name: {**judged[q], d: g} for name, (q, d, g) in zip(names, chunk, strict=True)}
        )
        for run_dict in rankings:
            pseudo_run = Run.from_dict(
                {
                    name: run_dict[q]
                    for name, (q, _d, _g) in zip(names, chunk, strict=True)
                    if q in run_dict
                }
            )
            ranges = bounds(pseudo_qrels, pseudo_run, parsed, top)
            index = {q: i for i, q in enumerate(ranges.queries)}
            widths = np.nansum(ranges.high - ranges.low, axis=1)
            after[first:last] += np.array([widths[index[n]] for n in names])
            done += 1
            report(progress, done, total)
    narrowing: dict[tuple[str, str], float] = {}
    for (q, d, _g), width in zip(keys, after.tolist(), strict=True):
        gained = before[q] - width
        narrowing[(q, d)] = min(narrowing.get((q, d), gained), gained)
    ranked = sorted(narrowing.items(), key=lambda item: (-item[1], item[0]))
    return [Candidate(q, d, value) for (q, d), value in ranked[:budget]]
