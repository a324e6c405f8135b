"""The corpus search of sentence-transformers' ``InformationRetrievalEvaluator``, in torch,
for all queries at once: the best ``max_k`` documents of every query, chunk by chunk.

sentence-transformers (6) ranks a query's documents by score, descending, and orders equal
scores by corpus id, ascending (Python's comparison of the ids, so ``"d10"`` before
``"d9"`` and ``10`` after ``9``); its top ``max_k`` are the first ``max_k`` documents of that
order, whatever ``corpus_chunk_size`` is. It finds them with ``torch.topk`` per chunk, then
merges each query's candidates in a Python loop. :class:`TopDocuments` finds the same
documents in the same order with the same ``torch.topk`` per chunk, and merges the
candidates of every query at once on the scores' device (two stable sorts of at most
``2 * max_k`` candidates per query), with no Python loop over queries.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ranklens.base.errors import InputError


class TopDocuments:
    """The best ``max_k`` documents of each query among the chunks seen so far.

    Parameters
    ----------
    torch
        The torch module.
    max_k
        How many documents to keep per query.
    corpus_ranks
        ``(n,)`` int64 tensor: each corpus entry's position in the ascending order of the
        corpus ids (the order of equal scores).
    score_name
        The score function's name, for error messages.

    Examples
    --------
    >>> import torch
    >>> top = TopDocuments(torch, 2, torch.tensor([2, 0, 1]), "dot")
    >>> top.add(torch.tensor([[0.5, 0.5, 0.5]]), start=0)
    >>> positions, scores = top.result()
    >>> positions.tolist(), scores.tolist()  # ties: the smallest ids (ranks 0 and 1) first
    ([[1, 2]], [[0.5, 0.5]])
    """

    def __init__(self, torch: Any, max_k: int, corpus_ranks: Any, score_name: str) -> None:
        self.torch = torch
        self.max_k = max_k
        self.corpus_ranks = corpus_ranks
        self.score_name = score_name
        self.scores: Any = None
        self.positions: Any = None
        self._ranks_on_device: Any = None

    def add(self, pair_scores: Any, start: int) -> None:
        """Take the ``(queries, chunk)`` scores of the corpus entries ``start`` onwards.

        The candidates of a chunk are its ``max_k + 1`` best scores (one ``torch.topk``,
        which ranks NaN first): they hold its first ``max_k`` documents unless the last two
        candidates tie, and only the rows where they tie are chosen again, by corpus id. So
        no pass over the whole chunk is added to the model's ``topk``.
        """
        torch = self.torch
        n = int(pair_scores.shape[1])
        if n == 0:
            return
        k = min(self.max_k + 1, n)
        values, index = torch.topk(pair_scores, k, dim=1, largest=True, sorted=False)
        if bool(torch.isnan(values).any()):  # topk ranks NaN first: any NaN is here
            raise InputError(
                f"the score function {self.score_name!r} gave NaN scores (for corpus entries "
                f"{start} to {start + n - 1}): check the model's embeddings (NaN or infinite "
                "values)"
            )
        if k > self.max_k:
            # where the last two candidates tie, which of the tied documents are among the
            # first max_k depends on their corpus ids: those rows are chosen again by id
            lowest = values.min(dim=1, keepdim=True).values
            tied = torch.nonzero((values == lowest).sum(dim=1) > 1).flatten()
            if tied.numel():
                chosen = self._by_id(pair_scores[tied], lowest[tied], start, k)
                index[tied] = chosen
                values[tied] = pair_scores[tied].gather(1, chosen)
        positions = index + start
        if self.scores is not None:
            values = torch.cat([self.scores, values], dim=1)
            positions = torch.cat([self.positions, positions], dim=1)
        self.scores, self.positions = self._ordered(values, positions)

    def _ranks(self, device: Any) -> Any:
        """:attr:`corpus_ranks` on ``device`` (copied there once)."""
        if self._ranks_on_device is None or self._ranks_on_device.device != device:
            self._ranks_on_device = self.corpus_ranks.to(device)
        return self._ranks_on_device

    def _by_id(self, scores: Any, lowest: Any, start: int, k: int) -> Any:
        """The column of the ``k`` best entries of each row of ``scores`` by score, then
        corpus id: every score above the row's ``lowest``, then the entries at ``lowest``
        with the smallest ids (integer keys, so no row is sorted whole)."""
        torch = self.torch
        total = int(self.corpus_ranks.shape[0])
        ranks = self._ranks(scores.device)[start : start + scores.shape[1]]
        keys = torch.where(scores > lowest, ranks, 2 * total)
        keys = torch.where(scores == lowest, ranks + total, keys)
        return keys.topk(k, dim=1, largest=False).indices

    def _ordered(self, values: Any, positions: Any) -> tuple[Any, Any]:
        """The first ``max_k`` candidates of each row by score, descending, then corpus id,
        ascending."""
        torch = self.torch
        ranks = self._ranks(positions.device)[positions]
        by_id = torch.sort(ranks, dim=1, stable=True).indices
        # + 0.0: -0.0 becomes 0.0, equal to it as in Python (a radix sort would part them)
        by_score = torch.sort(values.gather(1, by_id) + 0.0, dim=1, descending=True, stable=True)
        order = by_id.gather(1, by_score.indices)[:, : self.max_k]
        return values.gather(1, order), positions.gather(1, order)

    def result(self) -> tuple[np.ndarray, np.ndarray]:
        """``(positions, scores)``: ``(queries, k)`` int64 corpus positions and their float64
        scores, each row in sentence-transformers' order (``k`` is ``max_k``, or the corpus
        size when smaller)."""
        if self.scores is None:
            raise InputError("the corpus is empty: there is nothing to search")
        positions = self.positions.cpu().numpy().astype(np.int64, copy=False)
        scores = self.scores.to(self.torch.float64).cpu().numpy()
        return positions, scores
