"""Benchmark of sentence-transformers' ``InformationRetrievalEvaluator`` against
``ranklens.compat.sentence_transformers.InformationRetrievalEvaluator``, side by side in one
process, with a model of fixed embeddings (no weights: the cost of a real model's encoding
is the same on both sides and left out).

The data: ``--queries`` queries and ``--docs`` documents, each a random unit vector of
``--dim`` dimensions (float32, seeded), 1 to 5 relevant documents per query, and the
evaluator's defaults (``corpus_chunk_size`` 50,000, cut-offs 1, 3, 5, 10 and MAP@100, the
model's cosine similarity), or ``--chunk``. A relevant document is placed close to its
query (``--signal``), so that the metrics are not all zero.

Timed, each the best of ``--repeat`` calls after an untimed one:

* ``call``: the whole ``evaluator(model)`` of each tool;
* ``search floor``: what both must do and do the same way, the model's cost: the queries'
  and each chunk's embeddings, the score function on each chunk, ``torch.topk`` per chunk;
* ``measure side``: ``call`` minus the floor: for sentence-transformers the merge of each
  query's candidates across chunks (a Python loop over queries) and ``compute_metrics``
  (another); for ranklens the merge (two sorts of every query at once), the runs and
  ``Evaluator.evaluate_part``;
* ``compute_metrics`` / ``evaluate``: the measures alone (sentence-transformers'
  ``compute_metrics`` against ranklens' run building plus ``evaluate_part``).

It also prints the largest difference between the two dicts (0 or about 1e-16).

Usage::

    python benchmarks/sentence_transformers_bench.py [--queries 10000] [--docs 100000]
        [--dim 64] [--chunk 50000] [--repeat 3] [--device cpu] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from compat_peers_bench import best_of  # benchmarks/ is the script's folder


class FixedModel:
    """A model of fixed embeddings: the texts are row numbers of its matrices."""

    similarity_fn_name = "cosine"

    def __init__(self, torch: Any, queries: Any, documents: Any) -> None:
        from sentence_transformers.base.model_card import BaseModelCardData
        from sentence_transformers.util import cos_sim

        self.torch = torch
        self.queries, self.documents = queries, documents
        self.similarity = cos_sim
        self.model_card_data = BaseModelCardData()

    def encode_query(self, rows: list[int], **_: Any) -> Any:
        return self.queries[self.torch.tensor(rows)]

    def encode_document(self, rows: list[int], **_: Any) -> Any:
        return self.documents[self.torch.tensor(rows)]


def make_data(args: argparse.Namespace, torch: Any) -> tuple[Any, ...]:
    rng = np.random.default_rng(7)
    queries = rng.standard_normal((args.queries, args.dim)).astype(np.float32)
    documents = rng.standard_normal((args.docs, args.dim)).astype(np.float32)
    relevant: dict[str, set[str]] = {}
    for q in range(args.queries):
        chosen = rng.choice(args.docs, int(rng.integers(1, 6)), replace=False)
        documents[chosen] = queries[q] * args.signal + documents[chosen]
        relevant[f"q{q}"] = {f"d{d}" for d in chosen}
    queries /= np.linalg.norm(queries, axis=1, keepdims=True)
    documents /= np.linalg.norm(documents, axis=1, keepdims=True)
    device = torch.device(args.device)
    model = FixedModel(
        torch, torch.from_numpy(queries).to(device), torch.from_numpy(documents).to(device)
    )
    query_texts = {f"q{q}": q for q in range(args.queries)}
    corpus = {f"d{d}": d for d in range(args.docs)}
    return model, query_texts, corpus, relevant


def search_floor(model: Any, torch: Any, evaluator: Any, max_k: int) -> None:
    """The embeddings, the scores and torch.topk of every chunk (what both tools do)."""
    q = model.encode_query(evaluator.queries)
    n = len(evaluator.corpus)
    for start in range(0, n, evaluator.corpus_chunk_size):
        end = min(start + evaluator.corpus_chunk_size, n)
        d = model.encode_document(evaluator.corpus[start:end])
        scores = model.similarity(q, d)
        torch.topk(scores, min(max_k, end - start), dim=1, largest=True, sorted=False)
    if q.is_cuda:
        torch.cuda.synchronize()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--docs", type=int, default=100_000)
    parser.add_argument("--dim", type=int, default=64)
    parser.add_argument("--chunk", type=int, default=50_000)
    parser.add_argument("--signal", type=float, default=0.6)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args()

    import sentence_transformers
    import torch
    from sentence_transformers.sentence_transformer.evaluation import (
        InformationRetrievalEvaluator as Peer,
    )

    from ranklens.compat.sentence_transformers import InformationRetrievalEvaluator as Ours

    model, queries, corpus, relevant = make_data(args, torch)
    kwargs = {"corpus_chunk_size": args.chunk, "write_csv": False}
    start = time.perf_counter()
    peer = Peer(queries, corpus, relevant, **kwargs)
    peer_setup = time.perf_counter() - start
    start = time.perf_counter()
    ours = Ours(queries, corpus, relevant, **kwargs)
    ours_setup = time.perf_counter() - start

    timings: dict[str, float] = {"peer_setup": peer_setup, "ours_setup": ours_setup}
    measures = {"peer": 0.0, "ours": 0.0}

    def timed(key: str, function: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(*a: Any, **k: Any) -> Any:
            begin = time.perf_counter()
            try:
                return function(*a, **k)
            finally:
                measures[key] += time.perf_counter() - begin

        return wrapper

    peer.compute_metrics = timed("peer", peer.compute_metrics)
    evaluator = ours._prepared.evaluator
    evaluator.evaluate_part = timed("ours", evaluator.evaluate_part)
    prepared_run = type(ours._prepared).run
    type(ours._prepared).run = timed("ours", prepared_run)

    max_k = 100
    timings["search_floor"], _ = best_of(
        args.repeat, lambda: search_floor(model, torch, peer, max_k)
    )
    for key, tool in (("peer", peer), ("ours", ours)):
        measures[key] = 0.0
        best, values = best_of(args.repeat, lambda tool=tool: tool(model))
        timings[f"{key}_call"] = best
        timings[f"{key}_measures"] = measures[key] / (args.repeat + 1)
        timings[f"{key}_values"] = values
    type(ours._prepared).run = prepared_run
    a, b = timings.pop("peer_values"), timings.pop("ours_values")
    assert list(a) == list(b), "the keys differ"
    difference = max(abs(a[k] - b[k]) for k in a)

    print(
        f"sentence-transformers {sentence_transformers.__version__}, torch {torch.__version__}, "
        f"{args.queries:,} queries x {args.docs:,} documents, dim {args.dim}, chunk "
        f"{args.chunk:,}, {args.device}; best of {args.repeat}"
    )
    floor = timings["search_floor"]
    rows = [
        ("constructor", timings["peer_setup"], timings["ours_setup"]),
        ("call", timings["peer_call"], timings["ours_call"]),
        ("search floor (both)", floor, floor),
        ("measure side (call - floor)", timings["peer_call"] - floor, timings["ours_call"] - floor),
        ("compute_metrics / evaluate", timings["peer_measures"], timings["ours_measures"]),
    ]
    print(f"{'':32}{'sentence-transformers':>24}{'ranklens':>12}{'ratio':>8}")
    for label, theirs, mine in rows:
        ratio = theirs / mine if mine > 0 else float("nan")
        print(f"{label:32}{theirs:>23.3f}s{mine:>11.3f}s{ratio:>7.1f}x")
    print(f"largest difference between the two dicts: {difference:.2e}")
    print(f"primary metric: {ours.primary_metric} = {b[ours.primary_metric]:.6f}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump({**vars(args), **timings, "difference": difference}, out, indent=2)


if __name__ == "__main__":
    main()
