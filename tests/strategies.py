"""Generators of qrels and runs for ranklens's differential and property tests.

Two front ends share one builder (:func:`build_case`):

* :func:`random_case` draws from a seeded ``numpy.random.Generator`` (fast loops of
  hundreds of cases, fully deterministic);
* :func:`cases` is a hypothesis strategy (shrinks to a small failing example).

Every generated case holds, on purpose, all the awkward inputs at once:

* tied scores (scores come from a handful of values, and a tie is forced);
* graded labels 0..4 and negative labels (-1, -2: "in the pool, not judged");
* retrieved documents that the qrels do not mention (unjudged);
* a qrels query with no relevant document (only 0 or negative judgments);
* a qrels query missing from the run and a run query missing from the qrels;
* document ids that are prefixes of each other and differ by case (``d1``, ``d10``,
  ``D1``) and query ids whose byte order is not their numeric order (``1``, ``10``, ``9``);
* a run query with a single document.

Scores are multiples of 1/8 of small magnitude: exactly representable in float32, so
pytrec_eval (trec_eval 9.0.8, which may hold scores as float) ranks them as ranklens does.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from hypothesis import strategies as st

Qrels = dict[str, dict[str, int]]
Run = dict[str, dict[str, float]]

QIDS: tuple[str, ...] = ("1", "10", "9", "2", "100", "11", "19", "91")
"""Query ids whose byte order ("1" < "10" < "100" < "11" < "19" < "2" < "9" < "91") is not
their numeric order."""

DOC_POOL: tuple[str, ...] = (
    "d1", "d10", "D1", "d100", "D10", "d", "D", "d11", "d1a", "D1a", "d2", "d20",
    "d21", "d3", "D3", "a", "A", "b", "x", "X", "d01", "d001", "d.1", "d-1", "d_1",
    "dd", "d1d", "D1D",
)  # fmt: skip
"""Document ids: prefixes of each other, mixed case, punctuation that sorts before digits."""

LABELS: tuple[int, ...] = (-2, -1, 0, 0, 0, 1, 1, 1, 2, 2, 3, 4)
"""Relevance labels, weighted by repetition (0 and 1 most common)."""

NO_REL_LABELS: tuple[int, ...] = (0, 0, -1, -2)

SCORE_VALUES: tuple[float, ...] = (
    *(k / 8 for k in range(-32, 33)), 100.0, -100.0, 0.5, 0.5, 1.0, 1.0, 2.0, 2.0,
)  # fmt: skip
"""Candidate scores: exact in float32; a run query draws only a few of them (ties)."""

CUTOFFS: tuple[int, ...] = (1, 2, 3, 5, 10, 20)
RECALL_LEVELS: tuple[float, ...] = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
REL_THRESHOLDS: tuple[int, ...] = (0, 1, 2, 3)


@dataclass
class Case:
    """One generated evaluation input (plain dicts, in a deliberately unsorted order)."""

    qrels: Qrels
    run: Run
    roles: dict[str, str] = field(default_factory=dict)
    """Why each query is there: ``qrels_only``, ``run_only``, ``no_relevant``,
    ``single_doc`` or ``both``."""

    def __repr__(self) -> str:  # a reproducer that can be pasted
        return f"Case(qrels={self.qrels!r}, run={self.run!r})"


class _Source:
    """The random choices :func:`build_case` needs, from numpy or from hypothesis."""

    def integer(self, lo: int, hi: int) -> int:  # inclusive bounds
        raise NotImplementedError

    def choice(self, seq: Sequence[Any]) -> Any:
        return seq[self.integer(0, len(seq) - 1)]

    def sample(self, seq: Sequence[Any], k: int) -> list[Any]:
        """``k`` distinct elements of ``seq``, in random order."""
        raise NotImplementedError

    def shuffled(self, seq: Sequence[Any]) -> list[Any]:
        return self.sample(seq, len(seq))

    def coin(self, p: float = 0.5) -> bool:
        return self.integer(0, 999) < int(p * 1000)


class NumpySource(_Source):
    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng

    def integer(self, lo: int, hi: int) -> int:
        return int(self.rng.integers(lo, hi + 1))

    def sample(self, seq: Sequence[Any], k: int) -> list[Any]:
        idx = self.rng.permutation(len(seq))[:k]
        return [seq[i] for i in idx]


class DrawSource(_Source):
    def __init__(self, draw: Callable[[st.SearchStrategy[Any]], Any]) -> None:
        self.draw = draw

    def integer(self, lo: int, hi: int) -> int:
        return int(self.draw(st.integers(lo, hi)))

    def sample(self, seq: Sequence[Any], k: int) -> list[Any]:
        if k == 0:
            return []
        idx = self.draw(st.lists(st.integers(0, len(seq) - 1), min_size=k, max_size=k, unique=True))
        return [seq[i] for i in idx]


def _qrels_query(src: _Source, no_relevant: bool, pytrec_safe: bool) -> dict[str, int]:
    n = src.integer(1, 14)
    docs = src.sample(DOC_POOL, n)
    if no_relevant:
        labels = [src.choice(NO_REL_LABELS) for _ in docs]
        all_negative_ok = not pytrec_safe and src.coin(0.5)
        if not all_negative_ok and max(labels) < 0:
            labels[src.integer(0, n - 1)] = 0
    else:
        labels = [src.choice(LABELS) for _ in docs]
        if pytrec_safe and max(labels) < 0:
            # pytrec_eval (trec_eval 9.0.8) crashes on a query whose judgments are all
            # negative (bpref reads rel_levels[0] of an empty array); keep one judged.
            labels[src.integer(0, n - 1)] = src.integer(0, 4)
    return dict(zip(docs, labels, strict=True))


def _run_query(src: _Source, judged: Mapping[str, int], n: int) -> dict[str, float]:
    in_qrels = list(judged)
    k_judged = src.integer(0, min(n, len(in_qrels)))
    others = [d for d in DOC_POOL if d not in judged]
    k_other = min(n - k_judged, len(others))
    docs = src.sample(in_qrels, k_judged) + src.sample(others, k_other)
    docs = src.shuffled(docs)
    palette = src.sample(SCORE_VALUES, src.integer(1, 5))
    return {d: float(src.choice(palette)) for d in docs}


def build_case(src: _Source, *, pytrec_safe: bool = True, max_docs: int = 16) -> Case:
    """A case with every feature listed in the module docstring.

    ``pytrec_safe`` keeps at least one judgment >= 0 in every qrels query (pytrec_eval can
    crash otherwise); with ``pytrec_safe=False`` the query without relevant documents may
    have only negative judgments.
    """
    n_queries = src.integer(4, len(QIDS))
    qids = src.sample(QIDS, n_queries)
    qrels_only, run_only, no_rel, single, *rest = qids
    roles = {qrels_only: "qrels_only", run_only: "run_only", no_rel: "no_relevant"}
    roles[single] = "single_doc"
    roles.update({q: "both" for q in rest})

    qrels: Qrels = {}
    run: Run = {}
    for q in [qrels_only, no_rel, single, *rest]:
        qrels[q] = _qrels_query(src, q == no_rel, pytrec_safe)
    for q in [run_only, no_rel, single, *rest]:
        n = 1 if q == single else src.integer(2, max_docs)
        run[q] = _run_query(src, qrels.get(q, {}), n)

    _force_features(src, qrels, run, no_rel, single)
    # Dict insertion order: random, not sorted, so nothing relies on it.
    qrels = {q: _shuffle_dict(src, qrels[q]) for q in src.shuffled(list(qrels))}
    run = {q: _shuffle_dict(src, run[q]) for q in src.shuffled(list(run))}
    return Case(qrels, run, roles)


def _shuffle_dict(src: _Source, d: dict[str, Any]) -> dict[str, Any]:
    return {k: d[k] for k in src.shuffled(list(d))}


def _force_features(src: _Source, qrels: Qrels, run: Run, no_rel: str, single: str) -> None:
    """Make sure the whole case has ties, high grades, negative labels and unjudged
    retrieved documents, whatever the dice said."""
    multi = [q for q in run if len(run[q]) >= 2 and q != single]
    target = multi[0] if multi else None
    # A tie: two documents of one query with the same score.
    if target is not None:
        docs = list(run[target])
        a, b = src.sample(docs, 2)
        run[target][b] = run[target][a]
    judged_queries = [q for q in qrels if q != no_rel]
    # A grade >= 2 that is retrieved, and a negative label that is retrieved.
    in_both = [q for q in judged_queries if q in run]
    if in_both:
        q = src.choice(in_both)
        retrieved_judged = [d for d in run[q] if d in qrels[q]]
        if retrieved_judged:
            qrels[q][src.choice(retrieved_judged)] = src.integer(2, 4)
        else:
            d = src.choice(list(run[q]))
            qrels[q][d] = src.integer(2, 4)
    neg_q = src.choice([q for q in qrels if q in run and q != single] or [single])
    top = max(qrels[neg_q].values())
    candidates = [d for d in run[neg_q] if d in qrels[neg_q] and qrels[neg_q][d] != top]
    if candidates:
        qrels[neg_q][src.choice(candidates)] = src.choice((-1, -2))
    else:
        extra = [d for d in DOC_POOL if d not in qrels[neg_q] and d not in run[neg_q]]
        d = src.choice(extra)
        qrels[neg_q][d] = src.choice((-1, -2))
        if neg_q != single:
            run[neg_q][d] = float(src.choice(SCORE_VALUES))
    # An unjudged retrieved document somewhere.
    if not any(d not in qrels[q] for q in run if q in qrels for d in run[q]):
        q = src.choice([q for q in run if q in qrels and q != single])
        extra = [d for d in DOC_POOL if d not in qrels[q] and d not in run[q]]
        run[q][src.choice(extra)] = float(src.choice(SCORE_VALUES))


def random_case(rng: np.random.Generator, *, pytrec_safe: bool = True, max_docs: int = 16) -> Case:
    """A case drawn from a seeded numpy generator."""
    return build_case(NumpySource(rng), pytrec_safe=pytrec_safe, max_docs=max_docs)


def random_cases(
    seed: int, n: int, *, pytrec_safe: bool = True, max_docs: int = 16
) -> Iterable[Case]:
    """``n`` cases from one seed."""
    rng = np.random.default_rng(seed)
    for _ in range(n):
        yield random_case(rng, pytrec_safe=pytrec_safe, max_docs=max_docs)


@st.composite
def cases(draw: Any, pytrec_safe: bool = True, max_docs: int = 12) -> Case:
    """Hypothesis strategy for :class:`Case`."""
    return build_case(DrawSource(draw), pytrec_safe=pytrec_safe, max_docs=max_docs)


# --- smaller strategies for properties -------------------------------------------------

qids_st = st.sampled_from(QIDS)
docids_st = st.sampled_from(DOC_POOL)
labels_st = st.sampled_from((-2, -1, 0, 1, 2, 3, 4))
scores_st = st.sampled_from(SCORE_VALUES)
rel_st = st.sampled_from(REL_THRESHOLDS)
judged_only_st = st.booleans()
cutoff_st = st.integers(1, 25)

# Text that survives a whitespace-separated TREC file: no blanks, not starting with '#'.
_ID_ALPHABET = "abcXYZ019_-.:/é"
trec_ids_st = st.text(_ID_ALPHABET, min_size=1, max_size=6).filter(lambda s: not s.startswith("#"))
finite_floats_st = st.floats(allow_nan=False, allow_infinity=False)
qrels_labels_st = st.integers(-5, 10**6)


@st.composite
def run_dicts(
    draw: Any,
    ids: st.SearchStrategy[str] = trec_ids_st,
    scores: st.SearchStrategy[float] = finite_floats_st,
    max_queries: int = 4,
    max_docs: int = 8,
) -> Run:
    """``{qid: {docid: score}}`` with at least one document per query."""
    qids = draw(st.lists(ids, min_size=1, max_size=max_queries, unique=True))
    return {q: draw(st.dictionaries(ids, scores, min_size=1, max_size=max_docs)) for q in qids}


@st.composite
def qrels_dicts(
    draw: Any,
    ids: st.SearchStrategy[str] = trec_ids_st,
    labels: st.SearchStrategy[int] = qrels_labels_st,
    max_queries: int = 4,
    max_docs: int = 8,
) -> Qrels:
    """``{qid: {docid: label}}`` with at least one judgment per query."""
    qids = draw(st.lists(ids, min_size=1, max_size=max_queries, unique=True))
    return {q: draw(st.dictionaries(ids, labels, min_size=1, max_size=max_docs)) for q in qids}


# --- helpers shared by the tests -------------------------------------------------------


def byte_sorted(ids: Iterable[str]) -> list[str]:
    """Ids in byte order (trec_eval's strcmp order)."""
    return sorted(ids, key=lambda s: s.encode("utf-8"))


def trec_ranking(docs: Mapping[str, float]) -> list[str]:
    """Document ids ranked as trec_eval does: score descending, ties by docid descending
    in byte order."""
    return sorted(docs, key=lambda d: (docs[d], d.encode("utf-8")), reverse=True)


def input_ranking(docs: Mapping[str, float]) -> list[str]:
    """Score descending, ties in insertion order (a stable sort)."""
    return sorted(docs, key=lambda d: -docs[d])


def lround(value: float) -> int:
    """C's ``lround`` for a non-negative double: halves away from zero, exactly."""
    whole = math.floor(value)
    return int(whole) + (1 if value - whole >= 0.5 else 0)


def float32_exact(value: float) -> bool:
    return float(np.float32(value)) == value
