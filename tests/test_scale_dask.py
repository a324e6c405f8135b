"""ranklens.dask.evaluate on a two-worker LocalCluster gives ranklens.evaluate's Results."""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import ranklens
from scale_data import MEASURES, make_case

pd = pytest.importorskip("pandas")
dd = pytest.importorskip("dask.dataframe", reason="the Dask tests need dask[dataframe]")
distributed = pytest.importorskip("distributed", reason="the Dask tests need distributed")
pytest.importorskip("pyarrow")

import ranklens.dask as rdask  # noqa: E402


@pytest.fixture(scope="session")
def dask_client() -> Iterator[Any]:
    """One LocalCluster (2 worker processes, 1 thread each) for the test session; its
    HTTP server on a free local port (with None, distributed takes 8787 and warns when
    another cluster holds it, which fails the tests)."""
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address="127.0.0.1:0"
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        yield client


def same(a: ranklens.Results, b: ranklens.Results) -> None:
    assert a.queries == b.queries
    assert a.names == b.names
    np.testing.assert_array_equal(a.values, b.values)
    for name in a.names:
        x, y = a.aggregate[name], b.aggregate[name]
        assert x == y or (math.isnan(x) and math.isnan(y)), name
    assert dict(a.query_counts) == dict(b.query_counts)


def frames(seed: int) -> tuple[Any, Any]:
    case = make_case(seed)
    q = pd.DataFrame(case.qrels, columns=["query_id", "doc_id", "relevance"])
    r = pd.DataFrame(case.run, columns=["query_id", "doc_id", "score"])
    return q, r


@pytest.mark.parametrize(
    ("seed", "queries", "ties", "depth"),
    [
        (1, "qrels", "trec_eval", None),
        (1, "both", "input", 5),
        (1, "run", "docid_asc", None),
        (2, "qrels", "input", 3),
        (2, "both", "trec_eval", None),
        (2, "run", "input", 7),
        (3, "qrels", "docid_asc", 5),
    ],
)
def test_dask_equals_single_machine(
    dask_client: Any, seed: int, queries: str, ties: str, depth: int | None
) -> None:
    q, r = frames(seed)
    options = {"ties": ties, "queries": queries, "depth": depth}
    expected = ranklens.evaluate(q, r, MEASURES, **options)
    got = rdask.evaluate(
        dd.from_pandas(q, npartitions=3), dd.from_pandas(r, npartitions=4), MEASURES, **options
    )
    same(got, expected)


def test_duplicates_first_follows_the_input_order(dask_client: Any) -> None:
    q, r = frames(8)
    r = pd.concat([r, r.assign(score=r["score"] + 1.0)]).sample(frac=1.0, random_state=3)
    for policy in ("first", "max"):
        expected = ranklens.evaluate(q, r, MEASURES, duplicates=policy, ties="input")
        got = rdask.evaluate(
            q,
            dd.from_pandas(r, npartitions=5, sort=False),
            MEASURES,
            duplicates=policy,
            ties="input",
        )
        same(got, expected)


def test_cli_eval_dask_on_parquet(dask_client: Any, tmp_path: Path) -> None:
    import subprocess
    import sys

    q, r = frames(2)
    q.to_parquet(tmp_path / "qrels.parquet")
    r.to_parquet(tmp_path / "bm25.parquet")
    address = dask_client.scheduler.address
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "ranklens",
            "eval",
            str(tmp_path / "qrels.parquet"),
            str(tmp_path / "bm25.parquet"),
            "--dask",
            address,
            "-m",
            "AP",
            "-m",
            "nDCG@10",
            "-f",
            "tsv",
            "--precision",
            "full",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    expected = ranklens.evaluate(q, r, ["AP", "nDCG@10"])
    lines = out.stdout.strip().splitlines()[1:]
    got = {line.split("\t")[2]: float(line.split("\t")[3]) for line in lines}
    assert lines[0].startswith("bm25\t")
    assert got == expected.aggregate


def test_categorical_and_integer_ids_and_other_column_names(dask_client: Any) -> None:
    q, r = frames(3)
    expected = ranklens.evaluate(q, r, MEASURES)
    qc = q.astype({"query_id": "category", "doc_id": "category"})
    rc = r.astype({"query_id": "category"}).rename(columns={"query_id": "qid", "doc_id": "docid"})
    same(
        rdask.evaluate(
            dd.from_pandas(qc, npartitions=2), dd.from_pandas(rc, npartitions=3), MEASURES
        ),
        expected,
    )
    qi = pd.DataFrame(
        {"query_id": [1, 1, 2, 10], "doc_id": [5, 6, 5, 7], "relevance": [1, 0, 2, 1]}
    )
    ri = pd.DataFrame(
        {
            "query_id": [10, 1, 1, 2, 3],
            "doc_id": [7, 6, 5, 9, 1],
            "score": [1.0, 0.5, 0.5, 0.2, 0.1],
        }
    )
    same(
        rdask.evaluate(qi, ri, ["AP", "nDCG@3", "P@2"]),
        ranklens.evaluate(qi, ri, ["AP", "nDCG@3", "P@2"]),
    )


def test_parquet_paths_and_globs(dask_client: Any, tmp_path: Path) -> None:
    q, r = frames(4)
    q.to_parquet(tmp_path / "qrels.parquet")
    (tmp_path / "run").mkdir()
    half = len(r) // 2
    r.iloc[:half].to_parquet(tmp_path / "run" / "part-0.parquet")
    r.iloc[half:].to_parquet(tmp_path / "run" / "part-1.parquet")
    got = rdask.evaluate(
        str(tmp_path / "qrels.parquet"), str(tmp_path / "run" / "*.parquet"), MEASURES
    )
    same(got, ranklens.evaluate(q, r, MEASURES))


def test_results_feed_compare(dask_client: Any) -> None:
    q, r = frames(5)
    r2 = r.assign(score=r["score"][::-1].to_numpy())
    measures = ["AP", "nDCG@10"]
    distributed_results = [
        rdask.evaluate(q, r, measures, name="a"),
        rdask.evaluate(q, r2, measures, name="b"),
    ]
    local = [
        ranklens.evaluate(q, ranklens.Run.from_frame(r, name="a"), measures),
        ranklens.evaluate(q, ranklens.Run.from_frame(r2, name="b"), measures),
    ]
    from ranklens.analysis.comparison import compare_results

    got = compare_results(distributed_results, test="t")
    expected = compare_results(local, test="t")
    assert got.to_dict() == expected.to_dict()
