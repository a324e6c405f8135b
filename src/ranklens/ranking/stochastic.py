"""Sampled rankings joined with the qrels: what the measures of a stochastic run read.

A stochastic run holds several sampled rankings per query (``qid sample docno rank score``
lines, :mod:`ranklens.data.stochastic`); expected exposure (``EE-L``, ``EE-D``, ``EE-R``)
compares the exposure they give each document, or each group of documents (``groups=``),
with the exposure of an ideal policy. :func:`align_samples` joins such a run with the
qrels once, for every such measure.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ranklens.base.errors import OptionError
from ranklens.base.types import QUERY_POLICIES, QueryPolicy
from ranklens.data.qrels import Qrels
from ranklens.data.stochastic import DocGroups, StochasticRun


@dataclass(frozen=True)
class SampledRankings:
    """The evaluated queries of a stochastic run beside their judgments.

    ``qids``: the evaluated queries, in the qrels' order; ``judged[i]``: query ``i``'s
    judgments ``{docid: grade}`` (every grade, negative ones included); ``samples[i]``: its
    sampled rankings (document ids best first), ``None`` for a query the run lacks;
    ``groups``: the documents' group labels, ``None`` for document-level exposure.
    """

    qids: tuple[str, ...]
    judged: tuple[Mapping[str, int], ...]
    samples: tuple[Sequence[Sequence[str]] | None, ...]
    groups: DocGroups | None = None
    memo: dict[Hashable, Any] = field(default_factory=dict, compare=False, repr=False)
    """What the measures computed on these rankings, by their parameters (``EE-L``,
    ``EE-D`` and ``EE-R`` with the same parameters share one computation)."""

    @property
    def num_queries(self) -> int:
        """The number of evaluated queries."""
        return len(self.qids)


def align_samples(
    qrels: Qrels,
    run: StochasticRun,
    groups: DocGroups | None = None,
    queries: QueryPolicy = "qrels",
    depth: int | None = None,
) -> tuple[SampledRankings, dict[str, int]]:
    """Join the sampled rankings ``run`` with ``qrels``, and count the queries.

    ``queries="qrels"`` evaluates every judged query (one the run lacks gets the worst value
    of each measure); ``"both"`` and ``"run"`` only those in the run too (a run query
    without judgments has no target exposure, so it is never evaluated). ``depth`` keeps
    the top ``depth`` documents of each sample. The counts are those of
    :class:`~ranklens.evaluation.results.Results`' ``query_counts``.

    >>> from ranklens.data.qrels import Qrels
    >>> view, counts = align_samples(Qrels.from_dict({"q1": {"a": 1}}), {"q1": [["a"], ["b"]]})
    >>> view.samples, counts["evaluated"], counts["matched"]
    (([['a'], ['b']],), 1, 1)
    """
    if queries not in QUERY_POLICIES:
        raise OptionError(f"queries must be one of {list(QUERY_POLICIES)}, not {queries!r}")
    judged_all = qrels.to_dict()
    qids: list[str] = []
    judged: list[Mapping[str, int]] = []
    samples: list[Sequence[Sequence[str]] | None] = []
    for qid in qrels.qids:
        rankings = run.get(qid)
        if rankings is None and queries != "qrels":
            continue
        if rankings is not None and depth is not None:
            rankings = [ranking[:depth] for ranking in rankings]
        qids.append(qid)
        judged.append({d: int(g) for d, g in judged_all.get(qid, {}).items()})
        samples.append(rankings)
    shared = [q for q in run if q in judged_all]
    retrieving = matched = retrieved = 0
    for qid in shared:
        documents = [d for ranking in run[qid] for d in ranking]
        retrieved += len(documents)
        retrieving += bool(documents)
        matched += any(d in judged_all[qid] for d in documents)
    counts = {
        "qrels": len(qrels.qids),
        "run": len(run),
        "evaluated": len(qids),
        "missing": sum(s is None for s in samples),
        "unjudged": len(run) - len(shared),
        "shared": len(shared),
        "retrieving": retrieving,
        "matched": matched,
        "retrieved": retrieved,
    }
    view = SampledRankings(tuple(qids), tuple(judged), tuple(samples), groups)
    return view, counts
