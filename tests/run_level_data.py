"""Generated recommender data for the differential tests of the run-level measures on a
run evaluated in parts (streamed, Dask, Spark): ``user_id``/``item_id`` rows with tied
scores, graded and negative labels, users without relevant items, users only in the test
interactions or only in the recommendations, catalogue items never shown, and popularity
data that misses some of the items shown."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

RUN_LEVEL = [
    "Coverage@10",
    "Gini@10",
    "Gini(scope='shown')@5",
    "Gini(form='elliot')@10",
    "Entropy@10",
    "Entropy(log='log2')@3",
    "Coverage",
    "PSP@5",
    "PSnDCG@10",
    "PSR@10",
    "PSP(A=0.5,B=0.4,rel=2)@3",
    "PopREO@10",
    "PopREO(head_share=0.5,unlisted='ignore')@5",
    "PopRSP@10",
    "PopRSP(head_share=0.5,unlisted='ignore')@5",
]
"""Every run-level measure, with options."""
PER_USER = ["ARP@10", "APLT@10", "ACLT(head_share=0.5)@5", "EPC@10", "EFD@10", "ILD@10"]
"""Popularity measures computed per user (a mean over users)."""
ACCURACY = ["nDCG@10", "P@5", "AP", "RR"]
MEASURES = RUN_LEVEL + PER_USER + ACCURACY


@dataclass(frozen=True)
class RecCase:
    """Test interactions (qrels) and recommendations (run) as rows, the run grouped by
    user (users in a shuffled order); item popularity; the catalogue size; the training
    users."""

    qrels: list[tuple[str, str, int]]
    run: list[tuple[str, str, float]]
    popularity: dict[str, int]
    num_items: int
    num_users: int
    train: list[tuple[str, str]]
    features: dict[str, list[float]]

    def run_text(self) -> str:
        return "".join(f"{u} Q0 {i} {k + 1} {s!r} rec\n" for k, (u, i, s) in enumerate(self.run))

    def qrels_text(self) -> str:
        return "".join(f"{u} 0 {i} {g}\n" for u, i, g in self.qrels)

    def popularity_text(self) -> str:
        return "".join(f"{i} {c}\n" for i, c in self.popularity.items())

    def frames(self) -> tuple[Any, Any]:
        import pandas as pd

        q = pd.DataFrame(self.qrels, columns=["user_id", "item_id", "relevance"])
        r = pd.DataFrame(self.run, columns=["user_id", "item_id", "score"])
        return q, r

    def item_data(self) -> dict[str, Any]:
        import pandas as pd

        return {
            "popularity": self.popularity,
            "num_items": self.num_items,
            "num_users": self.num_users,
            "train": pd.DataFrame(self.train, columns=["user_id", "item_id"]),
            "item_features": self.features,
        }


def make_rec_case(seed: int, n_users: int = 60, n_items: int = 80) -> RecCase:
    """A recommender case (see the module docstring); user and item ids whose byte order
    differs from their numeric order, some of them non-ASCII."""
    rng = np.random.default_rng(seed)
    items = [f"i{k}" for k in range(n_items - 2)] + ["\u00eftem", "\u65e5"]
    users = [str(k) for k in range(n_users - 3)] + ["u\u00e9", "U-1", "\u7528"]
    roles = rng.choice(["both", "both", "both", "qrels", "run", "norel", "one"], size=n_users)
    # a popular head: items drawn with Zipf-like weights, a long tail never shown
    shown_pool = rng.permutation(n_items)[: int(n_items * 0.7)]
    weights = 1.0 / np.arange(1, shown_pool.shape[0] + 1)
    weights /= weights.sum()
    qrels: list[tuple[str, str, int]] = []
    groups: list[list[tuple[str, str, float]]] = []
    for user, role in zip(users, roles, strict=True):
        if role in ("both", "run", "norel", "one"):
            size = int(rng.integers(1, 16)) if role != "one" else 1
            picked = rng.choice(
                shown_pool, size=min(size, shown_pool.shape[0]), replace=False, p=weights
            )
            scores = rng.integers(0, 4, size=picked.shape[0]).astype(float) / 2  # ties
            groups.append([(user, items[k], float(s)) for k, s in zip(picked, scores, strict=True)])
        if role in ("both", "qrels", "norel"):
            judged = rng.choice(n_items, size=int(rng.integers(1, 8)), replace=False)
            for k in judged:
                grade = 0 if role == "norel" else int(rng.choice([-1, 0, 1, 1, 2]))
                qrels.append((user, items[k], grade))
    order = rng.permutation(len(groups))
    run = [row for g in order for row in groups[g]]
    listed = rng.permutation(n_items)[: int(n_items * 0.8)]  # some shown items unlisted
    popularity = {items[k]: int(rng.choice([0, 1, 1, 2, 3, 5, 8, 13, 40])) for k in listed}
    train = [(u, items[k]) for u in users for k in rng.choice(n_items, 3, replace=False)]
    features = {
        i: (rng.integers(0, 3, size=4) + np.array([1, 0, 0, 0])).astype(float).tolist()
        for i in items
    }
    for item in items[:3]:
        features[item] = [1.0, 0.0, 0.0, 0.0]  # equal vectors
    return RecCase(qrels, run, popularity, n_items + 5, 200, train, features)
