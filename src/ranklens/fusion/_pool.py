"""The join every fusion method reads: the runs' documents pooled per query, once.

Each input run is put in ranked order (score descending, ties by the tie policy), so a
document's rank never depends on the order of the input lines. The union of the runs'
queries is taken, and the documents of each query are pooled: a *fused document* is one
distinct (query, document id) pair retrieved by at least one run. For every run the pool
keeps, in ranked order, the fused document of each entry, its 1-based rank, its score and
its query; the methods scatter per-run values into ``(runs, fused documents)`` arrays.

The documents are matched per query by one native hash join over all runs
(:func:`ranklens.data._core.pool_runs`, threaded over queries).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ranklens.base.errors import OptionError
from ranklens.base.segments import segment_ids
from ranklens.base.types import BoolArray, Float64Array, Int64Array, TiePolicy, UInt8Array
from ranklens.data.native import core as _core
from ranklens.data.run import Run


@dataclass(frozen=True, eq=False)
class Pool:
    """The runs' documents pooled per query (see the module docstring).

    Attributes
    ----------
    qids : the union of the runs' queries, in byte order.
    q_offsets : int64 (nq + 1); fused documents of query ``j`` are ``q_offsets[j]:q_offsets[j+1]``.
    doc_data, doc_offsets : the fused documents' ids (a string column).
    hits : int64; how many runs retrieved each fused document.
    fid, rank : per run, in ranked order: the fused document and the 1-based rank of each
        entry (:attr:`query`, its union query, is computed on first use).
    run_len : per run, the number of documents it retrieved for each union query (0 when
        the run lacks the query).
    perm, raw_scores : per run, its ranking (entry indices) and its scores (entry order).
    """

    qids: tuple[str, ...]
    q_offsets: Int64Array
    doc_data: UInt8Array
    doc_offsets: Int64Array
    hits: Int64Array
    fid: tuple[Int64Array, ...]
    rank: tuple[Int64Array, ...]
    run_len: tuple[Int64Array, ...]
    perm: tuple[Int64Array, ...]
    raw_scores: tuple[Float64Array, ...]

    @cached_property
    def query(self) -> tuple[Int64Array, ...]:
        """Per run, the union query index of each entry in ranked order."""
        every = np.arange(len(self.qids), dtype=np.int64)
        return tuple(np.repeat(every, lengths) for lengths in self.run_len)

    @cached_property
    def score(self) -> tuple[Float64Array, ...]:
        """Per run, the score of each entry in ranked order (gathered on first use)."""
        return tuple(s[p] for s, p in zip(self.raw_scores, self.perm, strict=True))

    @property
    def num_docs(self) -> int:
        """The number of fused documents."""
        return int(self.q_offsets[-1])

    @property
    def num_runs(self) -> int:
        """The number of input runs."""
        return len(self.fid)

    @cached_property
    def doc_query(self) -> Int64Array:
        """The union query index of every fused document."""
        return segment_ids(self.q_offsets)

    def candidates(self) -> Int64Array:
        """Per union query, the number of fused documents (the candidates)."""
        return np.diff(self.q_offsets)

    def total(
        self, values: Sequence[Float64Array], weights: Float64Array | None = None
    ) -> Float64Array:
        """Per fused document, the sum over runs of the (weighted) values of its entries.

        The runs are added in order, ``((0 + v_0) + v_1) + ...`` (a run without the document
        adds 0), so sums do not depend on the input lines.
        """
        out = np.zeros(self.num_docs, dtype=np.float64)
        for i, v in enumerate(values):
            w = 1.0 if weights is None else float(weights[i])
            np.add.at(out, self.fid[i], v if w == 1.0 else w * v)
        return out

    def count(self, weights: Float64Array | None = None) -> Float64Array | Int64Array:
        """Per fused document, the number of runs that retrieved it (or their weights)."""
        if weights is None:
            return self.hits
        out = np.zeros(self.num_docs, dtype=np.float64)
        for i, fid in enumerate(self.fid):
            np.add.at(out, fid, weights[i])
        return out

    def dense(
        self, values: Sequence[Float64Array], fill: Sequence[Float64Array | None] | None = None
    ) -> tuple[Float64Array, BoolArray]:
        """Scatter per-run values (in ranked order) into ``(runs, fused documents)`` arrays.

        Returns the values (0 where a run lacks a document) and the mask of present
        documents. Where ``fill[i]`` is given (one value per union query), run ``i``'s
        absent documents of the queries it has take that value and count as present.
        """
        n = self.num_docs
        r = self.num_runs
        out = np.zeros((r, n), dtype=np.float64)
        present = np.zeros((r, n), dtype=bool)
        for i in range(r):
            f = fill[i] if fill is not None else None
            if f is not None:
                has_query = self.run_len[i][self.doc_query] > 0
                out[i] = np.where(has_query, f[self.doc_query], 0.0)
                present[i] = has_query
            out[i, self.fid[i]] = values[i]
            present[i, self.fid[i]] = True
        return out, present

    def to_run(self, scores: Float64Array, name: str) -> Run:
        """The fused run: every fused document with its fused score."""
        return Run(
            qids=self.qids,
            q_offsets=self.q_offsets.copy(),
            doc_data=self.doc_data,
            doc_offsets=self.doc_offsets,
            lines=None,
            source="<fused>",
            scores=np.ascontiguousarray(scores, dtype=np.float64),
            name=name,
            unique=True,
        )


def pool(runs: Sequence[Run], ties: TiePolicy = "trec_eval") -> Pool:
    """Pool the documents of ``runs`` per query (each run ranked by ``ties`` first)."""
    if len(runs) == 0:
        raise OptionError("fusion needs at least one run")
    runs = [run.deduplicated("error") for run in runs]
    union = sorted(set().union(*(run.qids for run in runs)))
    union_arr = np.asarray(union, dtype=object)
    inputs = []
    for run in runs:
        # union index of each of the run's queries (both lists are sorted)
        qmap = np.searchsorted(union_arr, np.asarray(run.qids, dtype=object)).astype(np.int64)
        inputs.append((run.q_offsets, qmap, run.doc_data, run.doc_offsets, run.ranking(ties)))
    q_offsets, doc_data, doc_offsets, counts, per_run = _core.pool_runs(inputs, len(union))
    run_len = []
    for run, (_, qmap, *_rest) in zip(runs, inputs, strict=True):
        lengths = np.zeros(len(union), dtype=np.int64)
        lengths[qmap] = np.diff(run.q_offsets)
        run_len.append(lengths)
    return Pool(
        qids=tuple(union),
        q_offsets=q_offsets,
        doc_data=doc_data,
        doc_offsets=doc_offsets,
        hits=counts,
        fid=tuple(r[0] for r in per_run),
        rank=tuple(r[1] for r in per_run),
        run_len=tuple(run_len),
        perm=tuple(item[4] for item in inputs),
        raw_scores=tuple(run.scores for run in runs),
    )
