"""The worker of test_tensor_distributed: one process of a two-process gloo group."""

from __future__ import annotations

import datetime
from typing import Any

import numpy as np

from tensor_data import generated, padded

MEASURES = ["nDCG@10", "AP", "R@20", "RR", "P@5"]


def batches(rank: int, world: int) -> list[dict[str, Any]]:
    """This rank's share of the rows of a generated data set, in batches of unequal size."""
    import torch

    data = padded(*generated(21, 50))
    rows = np.arange(len(data.qids))[rank::world]
    out = []
    for chunk in np.array_split(rows, 2 + rank):
        out.append(
            {
                "scores": torch.from_numpy(data.scores[chunk]),
                "labels": torch.from_numpy(data.labels[chunk]),
                "mask": torch.from_numpy(data.mask[chunk]),
                "doc_ids": torch.from_numpy(data.doc_ids[chunk]),
                "n_rel": torch.from_numpy(data.n_rel[chunk]),
                "ideal_labels": torch.from_numpy(data.ideal_labels[chunk]),
            }
        )
    return out


def run(rank: int, world: int, port: int, results: Any) -> None:
    import torch.distributed as dist

    from ranklens.tensor import MeasureAccumulator, RetrievalMeasures

    dist.init_process_group(
        "gloo",
        init_method=f"tcp://127.0.0.1:{port}",
        rank=rank,
        world_size=world,
        timeout=datetime.timedelta(seconds=60),
    )
    try:
        metric = RetrievalMeasures(MEASURES)
        acc = MeasureAccumulator(MEASURES)
        for batch in batches(rank, world):
            metric.update(**batch)
            acc.update(**batch)
        synced = {k: float(v) for k, v in metric.compute().items()}
        acc.all_reduce()
        reduced = {k: float(v) for k, v in acc.compute().items()}
        results.put((rank, synced, reduced, float(acc.count)))
    finally:
        dist.destroy_process_group()
