"""Pools of documents to judge, and how much each run depends on its own contributions.

:func:`pool` selects, per query, the documents of several runs that assessors should judge:

``"depth"``
    the union of every run's top ``depth`` documents (TREC's classic depth-K pool);
``"rbp"``
    the ``budget`` documents with the largest summed rank-biased-precision weight
    ``sum_r (1 - p) p^(rank_r - 1)`` over the runs that retrieved them (Moffat, Webber and
    Zobel 2007, "Strategic system comparisons via targeted relevance judgments");
``"rrf"``
    the ``budget`` documents with the largest reciprocal-rank-fusion score
    ``sum_r 1 / (k + rank_r)`` (Cormack, Clarke and Buettcher 2009).

Each run is ranked as ranklens ranks it everywhere (:meth:`ranklens.Run.ranking`: score
descending, equal scores by document id descending, as trec_eval), so a rank never depends
on the order of the input lines. A document's *contributors* are the runs that put it within
their top ``depth`` (every rank when ``depth`` is ``None``). Where documents tie for the last
places of a budget, the order is deterministic: for ``"depth"`` by best rank in any run, then
document id descending; for ``"rbp"`` and ``"rrf"`` by document id descending (trec_eval's
tie order, as :func:`ranklens.fuse`).

Compared with trectools (``TrecPoolMaker.make_pool``, strategies ``topX``, ``rbp``, ``rrf``):
trectools breaks equal scores by document id *ascending* and reads the rank column of the
file for RBP and RRF, where ranklens re-ranks by score with trec_eval's tie order; trectools
leaves ties at a budget's boundary to pandas' sort, and turns query ids into integers.
On runs without equal scores, ranked as their rank column says, with integer query ids and
no tie at the boundary, the pools are the same (``tests/test_pooling.py`` checks it).
trectools' ``rbp_strategy="max"`` is not offered.

:func:`pool_statistics` reports the pool's size per query, each run's share of it, the
documents only one run contributed (and, given qrels, how many of those are judged and
relevant), and the leave-one-run-out test of pool bias (Zobel 1998, "How reliable are the
results of large-scale information retrieval experiments?"): each run evaluated with the
qrels, and again with the judgments of the documents only it contributed removed, as if it
had not been in the pool.
"""

from __future__ import annotations

import math
import os
import warnings
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import IO, Any

from ranklens.base.errors import InputWarning, OptionError
from ranklens.base.types import TIE_POLICIES, TiePolicy
from ranklens.data.coerce import as_qrels, as_run
from ranklens.data.naming import distinct_names
from ranklens.data.run import Run

STRATEGIES = ("depth", "rbp", "rrf")
DEFAULT_MEASURES = ("AP", "P@10", "nDCG@10")


@dataclass(frozen=True, eq=False)
class Pool:
    """The documents selected for judging, per query, with the runs that contributed each.

    Attributes
    ----------
    runs : the names of the pooled runs, in the order given.
    strategy : ``"depth"``, ``"rbp"`` or ``"rrf"``.
    documents : ``{qid: {docid: contributors}}``, queries and documents in byte order;
        ``contributors`` are indices into :attr:`runs`, ascending.

    Examples
    --------
    >>> a = {"q1": {"d1": 0.9, "d2": 0.5, "d3": 0.1}}
    >>> b = {"q1": {"d3": 0.8, "d4": 0.7}}
    >>> p = pool([a, b], depth=1)
    >>> p.to_dict()
    {'q1': ['d1', 'd3']}
    >>> p.contributors("q1", "d3")
    ('run2',)
    """

    runs: tuple[str, ...]
    strategy: str
    documents: Mapping[str, Mapping[str, tuple[int, ...]]]

    @property
    def qids(self) -> tuple[str, ...]:
        """The pooled queries, in byte order."""
        return tuple(self.documents)

    def __len__(self) -> int:
        """The number of (query, document) pairs in the pool."""
        return sum(len(docs) for docs in self.documents.values())

    def sizes(self) -> dict[str, int]:
        """The number of pooled documents of each query."""
        return {qid: len(docs) for qid, docs in self.documents.items()}

    def contributors(self, qid: str, docid: str) -> tuple[str, ...]:
        """The names of the runs that contributed ``docid`` to the pool of ``qid``."""
        try:
            members = self.documents[qid][docid]
        except KeyError:
            raise OptionError(f"document '{docid}' of query '{qid}' is not in the pool") from None
        return tuple(self.runs[i] for i in members)

    def to_dict(self) -> dict[str, list[str]]:
        """``{qid: [docid, ...]}``, in byte order."""
        return {qid: list(docs) for qid, docs in self.documents.items()}

    def lines(self) -> Iterator[str]:
        """The pool as text lines ``qid docno`` (with their newline), by query then document."""
        for qid, docs in self.documents.items():
            for docid in docs:
                yield f"{qid} {docid}\n"

    def write(
        self,
        path: str | os.PathLike[str] | IO[str],
        *,
        inputs: Sequence[object] = (),
        force: bool = False,
    ) -> None:
        """Write :meth:`lines` to ``path`` (or an open text file).

        A path is written atomically and is never one of ``inputs``; an existing file is
        replaced only with ``force`` (see :mod:`ranklens.data.output`).
        """
        if not isinstance(path, str | os.PathLike):
            path.writelines(self.lines())
            return
        from ranklens.data.output import check_destination, write_atomically

        target = os.fspath(path)
        check_destination(target, inputs, force)
        write_atomically(target, "".join(self.lines()), inputs=inputs, force=force)


def _positive(value: object, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise OptionError(f"{what} must be a positive whole number of documents, not {value!r}")
    return value


def check_options(
    strategy: str, depth: int | None, budget: int | None, p: float, k: float
) -> tuple[int | None, int | None]:
    if strategy not in STRATEGIES:
        raise OptionError(
            f"unknown pooling strategy {strategy!r}; choose one of {', '.join(STRATEGIES)}"
        )
    depth = None if depth is None else _positive(depth, "depth")
    budget = None if budget is None else _positive(budget, "budget")
    if strategy == "depth" and depth is None:
        raise OptionError("the depth pool needs a depth: give depth=K (--depth K)")
    if strategy != "depth" and budget is None:
        raise OptionError(
            f"the {strategy} pool needs a budget, the documents to judge per query: give "
            "budget=N (--budget N)"
        )
    if strategy == "rbp" and not (isinstance(p, int | float) and 0.0 < p < 1.0):
        raise OptionError(f"RBP's p must lie strictly between 0 and 1, not {p!r}")
    if strategy == "rrf" and not (
        isinstance(k, int | float) and not isinstance(k, bool) and math.isfinite(k) and k >= 0
    ):
        raise OptionError(f"RRF's k must be a finite number >= 0, not {k!r}")
    return depth, budget


def _ranked(run: Run, depth: int | None, ties: TiePolicy) -> dict[str, list[str]]:
    """Each query's documents in ranked order (by the tie policy ``ties``), cut at
    ``depth``."""
    order = run.ranking(ties).tolist()
    docids = run.docids()
    bounds = run.q_offsets.tolist()
    out: dict[str, list[str]] = {}
    for j, qid in enumerate(run.qids):
        a, b = bounds[j], bounds[j + 1]
        if depth is not None:
            b = min(b, a + depth)
        out[qid] = [docids[i] for i in order[a:b]]
    return out


def _runs(runs: Sequence[Any]) -> tuple[list[Run], list[str]]:
    if isinstance(runs, str | bytes | os.PathLike | Mapping) or not isinstance(runs, Sequence):
        raise OptionError("runs must be a list of runs (paths, Run objects or dicts)")
    if not runs:
        raise OptionError("a pool needs at least one run")
    loaded = [as_run(r) for r in runs]
    return loaded, distinct_names(loaded, [None] * len(loaded))


def pool(
    runs: Sequence[Any],
    strategy: str = "depth",
    depth: int | None = None,
    budget: int | None = None,
    p: float = 0.8,
    k: float = 60,
    *,
    ties: TiePolicy = "trec_eval",
) -> Pool:
    """Pool the documents of ``runs`` for judging (see the module docstring).

    Parameters
    ----------
    runs
        The runs: paths, :class:`~ranklens.Run` objects, ``{qid: {docid: score}}`` ...
    strategy
        ``"depth"`` (the union of each run's top ``depth``), ``"rbp"`` (largest summed
        ``(1 - p) p^(rank - 1)``) or ``"rrf"`` (largest summed ``1 / (k + rank)``).
    depth
        Each run's top ``depth`` documents are read (required for ``"depth"``; for
        ``"rbp"`` and ``"rrf"`` ``None`` reads every rank).
    budget
        The most documents pooled per query (required for ``"rbp"`` and ``"rrf"``; for
        ``"depth"`` an optional cap, filled by best rank in any run, then document id
        descending).
    p, k
        RBP's persistence (``0 < p < 1``) and RRF's constant (``k >= 0``).
    ties
        How each run's equal scores are ordered before it is cut at ``depth``: trec_eval's
        order (document id descending; the default), ``"input"``, ``"docid_asc"``, or
        ``"rank"`` (the runs' rank column).

    Examples
    --------
    >>> a = {"q1": {"d1": 0.9, "d2": 0.5, "d3": 0.1}}
    >>> b = {"q1": {"d3": 0.8, "d2": 0.7, "d1": 0.6}}
    >>> pool([a, b], "rrf", budget=2, k=60).to_dict()  # d1, d3: 1/61 + 1/63 > d2: 2/62
    {'q1': ['d1', 'd3']}
    >>> pool([a, b], "rbp", budget=1, p=0.5).to_dict()  # d1, d3: 0.5 + 0.125 (tie: d3)
    {'q1': ['d3']}
    """
    depth, budget = check_options(strategy, depth, budget, p, k)
    loaded, names = _runs(runs)
    if ties not in TIE_POLICIES:
        raise OptionError(f"ties must be one of {list(TIE_POLICIES)}, not {ties!r}")
    ranked = [_ranked(run, depth, ties) for run in loaded]
    qids = sorted({qid for per_run in ranked for qid in per_run})
    documents: dict[str, Mapping[str, tuple[int, ...]]] = {}
    for qid in qids:
        members: dict[str, list[int]] = {}
        value: dict[str, float] = {}
        for index, per_run in enumerate(ranked):
            for rank, docid in enumerate(per_run.get(qid, ()), start=1):
                members.setdefault(docid, []).append(index)
                if strategy == "depth":
                    value[docid] = max(value.get(docid, -math.inf), -float(rank))
                elif strategy == "rbp":
                    value[docid] = value.get(docid, 0.0) + (1.0 - p) * p ** (rank - 1)
                else:
                    value[docid] = value.get(docid, 0.0) + 1.0 / (k + rank)
        chosen = list(members)
        if budget is not None and len(chosen) > budget:
            # value descending (for depth: best rank ascending), then docid descending
            chosen = sorted(chosen, key=lambda d: (value[d], d), reverse=True)[:budget]
        documents[qid] = MappingProxyType({d: tuple(members[d]) for d in sorted(chosen)})
    return Pool(tuple(names), strategy, MappingProxyType(documents))


@dataclass(frozen=True)
class RunPoolStatistics:
    """One run's part in a pool (see :func:`pool_statistics`).

    ``contributed`` and ``unique`` are per query; ``share`` is the run's contributed
    documents over the pool's size, all queries together. The fields from ``unique_judged``
    on are ``None`` without qrels; ``scores`` are the run's means with the qrels,
    ``scores_without`` with the judgments of its unique documents removed, and ``change``
    is ``scores_without - scores`` per measure.
    """

    name: str
    contributed: Mapping[str, int]
    unique: Mapping[str, int]
    share: float
    unique_judged: int | None = None
    unique_relevant: int | None = None
    scores: Mapping[str, float] | None = None
    scores_without: Mapping[str, float] | None = None
    change: Mapping[str, float] | None = None


@dataclass(frozen=True)
class PoolStatistics:
    """A pool's size per query and each run's part in it (see :func:`pool_statistics`);
    ``measures`` are named as :attr:`ranklens.Results.aggregate` names them (``bpref`` is
    ``Bpref``)."""

    sizes: Mapping[str, int]
    runs: tuple[RunPoolStatistics, ...]
    measures: tuple[str, ...]

    @property
    def total(self) -> int:
        """The number of (query, document) pairs in the pool."""
        return sum(self.sizes.values())


def pool_statistics(
    pool: Pool,
    runs: Sequence[Any],
    qrels: Any = None,
    measures: Sequence[str] | str = DEFAULT_MEASURES,
) -> PoolStatistics:
    """The pool's size per query, each run's share, its unique documents and (with qrels)
    the leave-one-run-out test of pool bias.

    A run's *unique* documents are the pooled documents it alone contributed. Given qrels,
    ``unique_judged`` counts those with a judgment (relevance ``>= 0``; a negative one means
    "pooled, not judged", as trec_eval) and ``unique_relevant`` those with relevance
    ``>= 1``. The run is then evaluated with :func:`ranklens.evaluate` (trec_eval's
    conventions) twice: with the qrels, and with every judgment of its unique documents
    removed, as if it had not been pooled (Zobel 1998); ``change`` is the second mean minus
    the first. A query whose every judgment is removed leaves the second evaluation, as it
    would leave trec_eval's.

    Parameters
    ----------
    pool
        A pool made by :func:`pool` from ``runs``.
    runs
        The same runs, in the same order (their names must match the pool's).
    qrels
        Judgments (a path, :class:`~ranklens.Qrels`, ``{qid: {docid: rel}}`` ...), or
        ``None`` for the counts alone.
    measures
        The measures of the leave-one-run-out test.

    Examples
    --------
    >>> a = {"q1": {"d1": 0.9, "d2": 0.5}}
    >>> b = {"q1": {"d2": 0.8, "d3": 0.7}}
    >>> p = pool([a, b], depth=2)
    >>> s = pool_statistics(p, [a, b], {"q1": {"d1": 1, "d2": 0, "d3": 1}}, ["P@1"])
    >>> s.sizes, s.runs[0].unique, s.runs[0].unique_relevant
    ({'q1': 3}, {'q1': 1}, 1)
    >>> s.runs[0].scores, s.runs[0].change
    ({'P@1': 1.0}, {'P@1': -1.0})
    """
    loaded, names = _runs(runs)
    if tuple(names) != pool.runs:
        raise OptionError(
            f"the runs ({', '.join(names)}) are not the pool's ({', '.join(pool.runs)}); give "
            "the runs the pool was made from, in the same order"
        )
    wanted = [measures] if isinstance(measures, str) else list(measures)
    judged: dict[tuple[str, str], int] | None = None
    the_qrels = None
    if qrels is not None:
        the_qrels = as_qrels(qrels)
        judged = {}
        for qid, grades_of in the_qrels.to_dict().items():
            for docid, rel in grades_of.items():
                judged[(qid, docid)] = rel
    stats: list[RunPoolStatistics] = []
    total = len(pool)
    for index, (name, run) in enumerate(zip(names, loaded, strict=True)):
        contributed: dict[str, int] = {}
        unique: dict[str, int] = {}
        only: list[tuple[str, str]] = []
        for qid, docs in pool.documents.items():
            contributed[qid] = sum(1 for m in docs.values() if index in m)
            mine = [docid for docid, m in docs.items() if m == (index,)]
            unique[qid] = len(mine)
            only.extend((qid, docid) for docid in mine)
        share = sum(contributed.values()) / total if total else 0.0
        if judged is None or the_qrels is None:
            stats.append(RunPoolStatistics(name, contributed, unique, share))
            continue
        grades = [judged[pair] for pair in only if pair in judged]
        scores, without = _leave_out(the_qrels, run, wanted, {p for p in only if p in judged})
        stats.append(
            RunPoolStatistics(
                name,
                contributed,
                unique,
                share,
                unique_judged=sum(1 for g in grades if g >= 0),
                unique_relevant=sum(1 for g in grades if g >= 1),
                scores=scores,
                scores_without=without,
                change={m: without[m] - scores[m] for m in scores},
            )
        )
    first = stats[0].scores
    named = tuple(wanted) if first is None else tuple(first)  # the measures' own names
    return PoolStatistics(pool.sizes(), tuple(stats), named)


def _leave_out(
    qrels: Any, run: Run, measures: list[str], removed: set[tuple[str, str]]
) -> tuple[dict[str, float], dict[str, float]]:
    """The run's means with ``qrels`` and with the judgments ``removed`` left out."""
    from ranklens.data.qrels import Qrels
    from ranklens.evaluation.evaluator import evaluate

    scores = dict(evaluate(qrels, run, measures).aggregate)
    if not removed:
        return scores, dict(scores)
    kept = [r for r in qrels.to_records() if (r[0], r[1]) not in removed]
    reduced = Qrels.from_records(kept, source=f"{qrels.source} less the run's unique documents")
    with warnings.catch_warnings():  # the first evaluation warned already
        warnings.simplefilter("ignore", InputWarning)
        without = dict(evaluate(reduced, run, measures).aggregate)
    return scores, without
