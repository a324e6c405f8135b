"""What the Dask tests share: a LocalCluster standing in for nodes, and a record of which
way each evaluation took."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest


def local_client(workers: int, memory_limit: str = "1GiB") -> Iterator[Any]:
    """A ``distributed.Client`` on a LocalCluster of ``workers`` single-threaded worker
    processes, each with its own memory limit (standing in for nodes), for a module's
    fixture; its HTTP server on a free local port (with None, distributed takes 8787 and
    warns when another cluster holds it, which fails the tests)."""
    import distributed

    with (
        distributed.LocalCluster(
            n_workers=workers,
            threads_per_worker=1,
            processes=True,
            memory_limit=memory_limit,
            dashboard_address="127.0.0.1:0",
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        yield client


def ways_taken(monkeypatch: pytest.MonkeyPatch, name: str) -> list[bool]:
    """Records, for each call of ``ranklens.scale.dask_backend``'s ``name`` (a way that
    returns ``None`` to leave the evaluation to the shuffle), whether it took it."""
    from ranklens.scale import dask_backend

    taken: list[bool] = []
    real = getattr(dask_backend, name)

    def recorded(*args: Any, **kwargs: Any) -> Any:
        parts = real(*args, **kwargs)
        taken.append(parts is not None)
        return parts

    monkeypatch.setattr(dask_backend, name, recorded)
    return taken
