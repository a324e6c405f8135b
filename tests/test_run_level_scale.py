"""The run-level measures (``Coverage``, ``Gini``, ``Entropy``, ``PSP``, ``PSnDCG``, ``PSR``,
``PopREO``) on Dask: each partition sends back a small state (exposure counts by item id,
or a few numbers per user), merged on the client into the in-memory ``ranklens.evaluate``
values to the bit; through ``ranklens.dask.evaluate`` and ``ranklens eval --dask`` (whose
``--popularity``, ``--num-items`` and ``--num-users`` reach the partitions)."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import ranklens
from dask_support import local_client
from ranklens.cli import main
from run_level_data import MEASURES, RUN_LEVEL, make_rec_case

pd = pytest.importorskip("pandas")
pytest.importorskip("dask.dataframe", reason="the Dask tests need dask[dataframe]")
pytest.importorskip("distributed", reason="the Dask tests need distributed")
pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

import ranklens.dask as rdask  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::ranklens.base.errors.InputWarning")


@pytest.fixture(scope="module")
def dask_client() -> Iterator[Any]:
    """One LocalCluster of two single-threaded worker processes for this module (its
    HTTP server on a free local port)."""
    yield from local_client(2)


def same(a: ranklens.Results, b: ranklens.Results) -> None:
    assert a.queries == b.queries
    assert a.names == b.names
    np.testing.assert_array_equal(a.values, b.values)
    for name in a.names:
        x, y = a.aggregate[name], b.aggregate[name]
        assert x == y or (math.isnan(x) and math.isnan(y)), (name, x, y)
    assert dict(a.query_counts) == dict(b.query_counts)
    assert set(a.run_statistics) == set(b.run_statistics) == set(RUN_LEVEL)


@pytest.mark.parametrize(("seed", "queries", "npartitions"), [(1, "qrels", 3), (2, "run", 5)])
def test_dask_equals_in_memory(dask_client: Any, seed: int, queries: str, npartitions: int) -> None:
    case = make_rec_case(seed)
    q, r = case.frames()
    expected = ranklens.evaluate(q, r, MEASURES, queries=queries, **case.item_data())
    got = rdask.evaluate(
        q, r, MEASURES, queries=queries, npartitions=npartitions, **case.item_data()
    )
    same(got, expected)
    # the per-user states keep the bootstrap over users
    weights = np.random.default_rng(seed).integers(0, 3, size=(3, len(got.queries))).astype(float)
    for name in ("PSnDCG@10", "PopREO@10"):
        np.testing.assert_array_equal(
            got.run_statistics[name].values(weights), expected.run_statistics[name].values(weights)
        )


def test_eval_dask_passes_the_item_data(
    dask_client: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``ranklens eval --dask ADDRESS`` with ``--popularity`` (a file), ``--num-items`` and
    ``--num-users``: the numbers of ``ranklens eval`` in memory."""
    case = make_rec_case(3)
    q, r = case.frames()
    qrels = tmp_path / "test.parquet"
    run = tmp_path / "rec.parquet"
    pq.write_table(pa.Table.from_pandas(q, preserve_index=False), qrels)
    pq.write_table(pa.Table.from_pandas(r, preserve_index=False), run, row_group_size=50)
    pop = tmp_path / "pop.txt"
    pop.write_text(case.popularity_text(), encoding="utf-8")
    names = ["Coverage@10", "Gini@10", "Entropy@10", "ARP@10", "APLT@10", "PSP@5", "nDCG@10"]
    common = ["eval", str(qrels), str(run), "--popularity", str(pop), "-f", "json", "--quiet"]
    common += ["--num-items", str(case.num_items), "--num-users", "200", "--precision", "full"]
    for name in names:
        common += ["-m", name]
    address = dask_client.scheduler.address
    outputs = []
    for extra in (["--dask", address], ["--no-stream"]):
        assert main([*common, *extra]) == 0
        outputs.append(json.loads(capsys.readouterr().out))
    assert outputs[0] == outputs[1]
    assert set(outputs[0]["runs"][0]["aggregate"]) == set(names)
