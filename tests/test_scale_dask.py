"""ranklens.dask.evaluate on a four-worker LocalCluster (a multi-node rehearsal) gives
ranklens.evaluate's Results, with Arrow-backed tables hash-partitioned by query (or not
shuffled at all when the run is already partitioned by query)."""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ranklens
from dask_support import local_client
from scale_data import MEASURES, MEASURES_FIXED, make_case

pd = pytest.importorskip("pandas")
dd = pytest.importorskip("dask.dataframe", reason="the Dask tests need dask[dataframe]")
distributed = pytest.importorskip("distributed", reason="the Dask tests need distributed")
pytest.importorskip("pyarrow")
dask = pytest.importorskip("dask")

import ranklens.dask as rdask  # noqa: E402

MEMORY_LIMIT = "1GiB"


@pytest.fixture(scope="module")
def dask_client() -> Iterator[Any]:
    """One LocalCluster for this module standing in for four nodes: four worker processes
    of one thread each, each with its own memory limit; its HTTP server on a free local
    port (with None, distributed takes 8787 and warns when another cluster holds it, which
    fails the tests)."""
    yield from local_client(4, MEMORY_LIMIT)


def same(a: ranklens.Results, b: ranklens.Results) -> None:
    assert a.queries == b.queries
    assert a.names == b.names
    np.testing.assert_array_equal(a.values, b.values)
    for name in a.names:
        x, y = a.aggregate[name], b.aggregate[name]
        assert x == y or (math.isnan(x) and math.isnan(y)), name
    assert dict(a.query_counts) == dict(b.query_counts)


def frames(seed: int, n_queries: int = 40) -> tuple[Any, Any]:
    case = make_case(seed, n_queries)
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
        (2, "run", "input", 7),
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


# --- Arrow end to end, hash partitioning, no shuffle for data partitioned by query -------


class _TaskSizes(distributed.diagnostics.plugin.SchedulerPlugin):  # type: ignore[misc]
    """Records the size (``nbytes``) of every task result held in a worker's memory."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.sizes: dict[str, int] = {}
        self.inputs: dict[str, list[str]] = {}
        self.scheduler: Any = None

    async def start(self, scheduler: Any) -> None:
        self.scheduler = scheduler

    def transition(self, key: Any, start: str, finish: str, *args: Any, **kwargs: Any) -> None:
        if finish == "memory" and self.scheduler is not None:
            task = self.scheduler.tasks.get(key)
            if task is not None and task.nbytes is not None and task.nbytes >= 0:
                self.sizes[str(key)] = max(self.sizes.get(str(key), 0), int(task.nbytes))
                self.inputs[str(key)] = [str(dep.key) for dep in task.dependencies]


def _sizes(name: str, dask_scheduler: Any) -> tuple[dict[str, int], dict[str, list[str]]]:
    plugin = dask_scheduler.plugins[name]
    return dict(plugin.sizes), dict(plugin.inputs)


@pytest.mark.parametrize("method", ["tasks", "p2p"])
def test_no_task_holds_the_whole_table(dask_client: Any, method: str) -> None:
    """The multi-node rehearsal's structural check: the tables go through Dask's hash
    shuffle (no set_index, no sort), and no task's result, in any worker, holds more than a
    fraction of the rows (the inputs are 8 partitions; a task that gathered a table would
    hold all of it)."""
    case = make_case(21, n_queries=400)
    q = pd.DataFrame(case.qrels, columns=["query_id", "doc_id", "relevance"])
    r = pd.DataFrame(case.run, columns=["query_id", "doc_id", "score"])
    dask_client.register_plugin(_TaskSizes(f"ranklens-task-sizes-{method}"))
    with dask.config.set({"dataframe.shuffle.method": method}):
        got = rdask.evaluate(
            dd.from_pandas(q, npartitions=8, sort=False),
            dd.from_pandas(r, npartitions=8, sort=False),
            MEASURES,
            queries="both",
        )
    same(got, ranklens.evaluate(q, r, MEASURES, queries="both"))
    sizes, inputs = dask_client.run_on_scheduler(_sizes, f"ranklens-task-sizes-{method}")
    names = {key.strip("('").split("-")[0] for key in sizes}
    assert any(("p2p" if method == "p2p" else "taskshuffle") in key for key in sizes), names
    assert not any("set_index" in key or "sort" in key for key in sizes), names
    prepared = [n for key, n in sizes.items() if "_prepare_partition" in key]
    whole = sum(prepared)  # both tables, prepared (Arrow strings), over all partitions
    assert len(prepared) == 16
    biggest = max((n, key) for key, n in sizes.items() if "frompandas" not in key)
    assert biggest[0] < whole / 3, biggest
    evaluations = [key for key in inputs if "_evaluate_pair" in key]
    assert len(evaluations) == 8  # one per shuffled partition
    for key in evaluations:  # each reads one partition of each table, a share of the rows
        assert len(inputs[key]) == 2, inputs[key]
        assert all(sizes[dep] < whole / 3 for dep in inputs[key])


def test_prepared_rows_are_arrow_backed() -> None:
    """An object-dtype input partition becomes Arrow strings (no Python object column),
    categories decoded, integers as decimal digits; the query key depends on the id alone."""
    from ranklens.scale.arrow_parts import KEY, prepared

    frame = pd.DataFrame(
        {
            "query_id": pd.Series(["q1", "q2", "q1"], dtype=object),
            "doc_id": pd.Categorical(["a", "b", "a"]),
            "relevance": [1, 0, 2],
        }
    )
    out = prepared(frame, ("query_id", "doc_id", "relevance"), "<qrels>", "int64", 3)
    assert not any(getattr(dtype, "kind", "") == "O" for dtype in out.dtypes)
    assert str(out.dtypes["query_id"]) == "large_string[pyarrow]"
    assert out["doc_id"].tolist() == ["a", "b", "a"]
    assert out["_row"].tolist() == [3 << 40, (3 << 40) + 1, (3 << 40) + 2]
    again = prepared(
        pd.DataFrame({"qid": pd.Categorical(["q2", "x"]), "d": [7, 8], "v": [1, 1]}),
        ("qid", "d", "v"),
        "<qrels>",
        "int64",
        0,
    )
    assert again["doc_id"].tolist() == ["7", "8"]
    assert again[KEY].iloc[0] == out[KEY].iloc[1]  # "q2" in both tables: the same key
    assert out[KEY].iloc[0] == out[KEY].iloc[2] != out[KEY].iloc[1]


def _grouped(frame: Any, groups: int) -> Any:
    """A Dask frame whose partitions each hold whole queries (no divisions known)."""
    ids = sorted(set(frame["query_id"]))
    parts = [frame[frame["query_id"].isin(ids[g::groups])] for g in range(groups)]
    return dd.concat([dd.from_pandas(p, npartitions=1, sort=False) for p in parts])


def _run_inputs(plan_tasks: tuple[Any, ...], run_keys: set[Any]) -> list[int]:
    """For each task of a plan, how many input partitions of the run it depends on."""
    from dask.core import get_dependencies

    counts = []
    for task in plan_tasks:
        graph = dict(task.__dask_graph__())
        seen: set[Any] = set()
        stack = [task.key]
        while stack:
            key = stack.pop()
            if key not in seen:
                seen.add(key)
                stack.extend(get_dependencies(graph, key))
        counts.append(len(seen & run_keys))
    return counts


@pytest.mark.parametrize(("queries", "ties"), [("qrels", "trec_eval"), ("both", "input")])
def test_declared_partitioned_by_query_is_not_shuffled(
    dask_client: Any, queries: str, ties: str
) -> None:
    from ranklens.scale.dask_backend import plan

    q, r = frames(11)
    run = _grouped(r, 5)
    qrels = dd.from_pandas(q, npartitions=3, sort=False)  # not partitioned by query
    options = {"queries": queries, "ties": ties}
    expected = ranklens.evaluate(q, r, MEASURES, **options)
    got = rdask.evaluate(qrels, run, MEASURES, partitioned_by_query=True, **options)
    same(got, expected)
    planned = plan(qrels, run, ["AP"], partitioned_by_query=True, **options)
    assert not planned.shuffled and planned.partitions == 5
    keys = {k for k in run.__dask_keys__()}
    assert _run_inputs(planned.tasks, keys) == [1] * 5 + [0] * (len(planned.tasks) - 5)
    forced = plan(qrels, run, ["AP"], partitioned_by_query=False)
    assert forced.shuffled


def test_declared_but_not_partitioned_by_query_is_refused(dask_client: Any) -> None:
    from ranklens.base.errors import InputError

    q, r = frames(12)
    run = dd.from_pandas(r, npartitions=4, sort=False)  # rows split, queries cut
    with pytest.raises(InputError, match=r"partitioned_by_query=True.* has rows in partitions"):
        rdask.evaluate(q, run, ["AP"], partitioned_by_query=True)
    same(rdask.evaluate(q, run, MEASURES), ranklens.evaluate(q, r, MEASURES))


def test_query_index_with_known_divisions_is_not_shuffled(dask_client: Any) -> None:
    from ranklens.scale.dask_backend import plan

    q, r = frames(13)
    run = dd.from_pandas(r.set_index("query_id"), npartitions=4, sort=True)
    assert run.known_divisions
    qrels = dd.from_pandas(q.set_index("query_id"), npartitions=2, sort=True)
    for queries in ("qrels", "run"):
        # from_pandas(sort=True) sorts by the index: the same rows, sorted, in memory
        expected = ranklens.evaluate(
            q.sort_values("query_id", kind="stable"),
            r.sort_values("query_id", kind="stable"),
            MEASURES,
            queries=queries,
        )
        same(rdask.evaluate(qrels, run, MEASURES, queries=queries), expected)
    assert not plan(qrels, run, ["AP"]).shuffled


def test_parquet_dataset_partitioned_on_the_query_is_not_shuffled(
    dask_client: Any, tmp_path: Path
) -> None:
    """A hive-partitioned dataset (``query_id=.../``), ids pyarrow would read as numbers
    (``007``) or that need escaping in a path: read as strings, evaluated unshuffled."""
    from ranklens.scale.dask_backend import plan

    q, r = frames(14, n_queries=12)
    rename = {"0": "007", "1": "q \u00e9/x", "2": "a=b"}
    q = q.replace({"query_id": rename})
    r = r.replace({"query_id": rename})
    r.to_parquet(tmp_path / "run", partition_cols=["query_id"])
    q.to_parquet(tmp_path / "qrels.parquet")
    q.to_parquet(tmp_path / "qrels", partition_cols=["query_id"])
    for qrels in (tmp_path / "qrels.parquet", tmp_path / "qrels"):
        got = rdask.evaluate(str(qrels), str(tmp_path / "run"), MEASURES_FIXED, queries="both")
        same(got, ranklens.evaluate(q, r, MEASURES_FIXED, queries="both"))
        assert got.run == "run"
        assert not plan(str(qrels), str(tmp_path / "run"), ["AP"]).shuffled


def test_errors_are_the_single_machines(dask_client: Any, tmp_path: Path) -> None:
    """Duplicates, missing ids and bad values raise the error the single machine raises,
    naming the row over the whole table, whichever partition holds it."""
    from ranklens.base.errors import DuplicateError, InputError

    q, r = frames(15)
    doubled = pd.concat([r.iloc[:50], r.iloc[[7]], r.iloc[50:]], ignore_index=True)
    with pytest.raises(DuplicateError) as single:
        ranklens.evaluate(q, doubled, ["AP"])
    with pytest.raises(DuplicateError) as spread:
        rdask.evaluate(q, dd.from_pandas(doubled, npartitions=4, sort=False), ["AP"])
    assert str(spread.value) == str(single.value)
    assert spread.value.lines == single.value.lines == (7, 50)
    late = len(r) - 3
    broken = r.assign(score=r["score"].where(r.index != late, None))
    with pytest.raises(InputError) as single_frame:
        ranklens.evaluate(q, broken, ["AP"])
    assert single_frame.value.line == late  # a DataFrame's rows counted from 0
    broken.to_parquet(tmp_path / "broken.parquet", row_group_size=40)
    with pytest.raises(InputError) as single_missing:
        ranklens.evaluate(q, str(tmp_path / "broken.parquet"), ["AP"])
    with pytest.raises(InputError) as spread_missing:
        rdask.evaluate(q, str(tmp_path / "broken.parquet"), ["AP"])
    # a Parquet file's rows counted from 1, as its lines, on both machines
    assert spread_missing.value.line == single_missing.value.line == late + 1
    assert str(spread_missing.value) == str(single_missing.value)
    graded = q.assign(relevance=q["relevance"].astype(float))
    graded.loc[len(q) - 2, "relevance"] = 1.5
    with pytest.raises(InputError) as single_grade:
        ranklens.evaluate(graded, r, ["AP"])
    with pytest.raises(InputError) as spread_grade:
        rdask.evaluate(dd.from_pandas(graded, npartitions=3, sort=False), r, ["AP"])
    assert str(spread_grade.value) == str(single_grade.value)


def _ranked(frame: Any, seed: int) -> Any:
    """The run with a ``rank`` column that disagrees with the scores: each query's rows
    numbered in a random order, from a random start (gaps allowed, never a repeat)."""
    rng = np.random.default_rng(seed)
    ranks = np.zeros(len(frame), dtype=np.int64)
    for rows in frame.groupby("query_id", sort=False).indices.values():
        ranks[rows] = rng.permutation(len(rows)) * 2 + int(rng.integers(-3, 4))
    return frame.assign(rank=ranks)


@pytest.mark.parametrize(("queries", "depth"), [("qrels", None), ("both", 5), ("run", 3)])
def test_ties_rank_equals_single_machine(
    dask_client: Any, tmp_path: Path, queries: str, depth: int | None
) -> None:
    """The run's rank column travels with its rows: ``ties="rank"`` gives the in-memory
    Results whether the queries are cut across partitions (hash-partitioned), read from
    Parquet row groups, or already partitioned by query (no shuffle)."""
    q, r = frames(16)
    r = _ranked(r, 16)
    options = {"ties": "rank", "queries": queries, "depth": depth}
    expected = ranklens.evaluate(q, r, MEASURES, **options)
    assert expected.values.shape[0] > 0
    by_score = ranklens.evaluate(q, r, MEASURES, queries=queries, depth=depth)
    assert not np.array_equal(by_score.values, expected.values)  # the ranks matter here
    cut = dd.from_pandas(r, npartitions=4, sort=False)
    same(rdask.evaluate(dd.from_pandas(q, npartitions=2), cut, MEASURES, **options), expected)
    r.assign(rank=r["rank"].astype(float)).to_parquet(tmp_path / "run.parquet", row_group_size=50)
    same(rdask.evaluate(q, str(tmp_path / "run.parquet"), MEASURES, **options), expected)
    grouped = _grouped(r, 3)
    order = pd.concat(grouped.to_delayed()[k].compute() for k in range(3))
    in_order = ranklens.evaluate(q, order, MEASURES, **options)
    got = rdask.evaluate(q, grouped, MEASURES, partitioned_by_query=True, **options)
    same(got, in_order)


def test_ties_rank_errors_are_the_single_machines(dask_client: Any) -> None:
    """A repeated rank within a query, a rank that is not an integer, and a run without a
    rank column: the in-memory error (the rows counted over the whole table), in one line."""
    q, r = frames(17)
    r = _ranked(r, 17)
    rows = r.groupby("query_id", sort=False).indices
    longest = max(rows.values(), key=len)
    repeated = r.copy()
    repeated.loc[longest[-1], "rank"] = repeated.loc[longest[0], "rank"]
    broken = r.assign(rank=r["rank"].astype(float))
    broken.loc[longest[len(longest) // 2], "rank"] = 2.5
    for bad in (repeated, broken):
        with pytest.raises(ranklens.InputError) as single:
            ranklens.evaluate(q, bad, ["P@5"], ties="rank")
        with pytest.raises(ranklens.InputError) as spread:
            rdask.evaluate(q, dd.from_pandas(bad, npartitions=5, sort=False), ["P@5"], ties="rank")
        assert spread.value.message == single.value.message
        assert spread.value.line == single.value.line
    assert "rows" in str(single.value) or "not an integer" in str(single.value)
    with pytest.raises(ranklens.OptionError, match="'rank' column") as caught:
        rdask.evaluate(
            q, dd.from_pandas(r.drop(columns="rank"), npartitions=2), ["P@5"], ties="rank"
        )
    assert "\n" not in str(caught.value)


def test_arrow_shuffle_moves_arrow_tables_of_a_share_of_the_rows(dask_client: Any) -> None:
    """The default shuffle: one task per input partition splits its Arrow rows by query
    hash, each part's evaluation reads one table from each input partition, each table a
    share of the rows; no pandas shuffle, no set_index, no sort."""
    case = make_case(22, n_queries=400)
    q = pd.DataFrame(case.qrels, columns=["query_id", "doc_id", "relevance"])
    r = pd.DataFrame(case.run, columns=["query_id", "doc_id", "score"])
    dask_client.register_plugin(_TaskSizes("ranklens-task-sizes-arrow"))
    with dask.config.set({"dataframe.shuffle.method": None}):
        got = rdask.evaluate(
            dd.from_pandas(q, npartitions=8, sort=False),
            dd.from_pandas(r, npartitions=8, sort=False),
            MEASURES,
            queries="both",
        )
    same(got, ranklens.evaluate(q, r, MEASURES, queries="both"))
    sizes, inputs = dask_client.run_on_scheduler(_sizes, "ranklens-task-sizes-arrow")
    names = {
        key.strip("('").split("-")[1] for key in sizes if key.strip("('").startswith("ranklens")
    }
    assert not any("shuffle" in key or "set_index" in key or "sort" in key for key in sizes)
    splits = [n for key, n in sizes.items() if "ranklens-split" in key]
    assert len(splits) == 16, names
    whole = sum(splits)  # both tables, prepared, over all partitions
    evaluations = [key for key in inputs if "ranklens-evaluate" in key]
    assert len(evaluations) == 8  # one per part
    for key in evaluations:
        pieces = [dep for dep in inputs[key] if "ranklens-piece" in dep]
        assert len(pieces) == 16, inputs[key]  # a table from each input partition
        assert all("ranklens-g-max" in dep for dep in set(inputs[key]) - set(pieces))  # ERR
        assert sum(sizes[dep] for dep in pieces) < whole / 3


@settings(max_examples=60, deadline=None)
@given(
    runs=st.lists(
        st.tuples(st.sampled_from(["q1", "q2", "\u65e5", "", "007", None]), st.integers(1, 12)),
        max_size=30,
    ),
    parts=st.integers(1, 7),
)
def test_query_keys_and_split_by_stretches_match_the_dictionary(
    runs: list[tuple[str | None, int]], parts: int
) -> None:
    """Hashing once per stretch of equal ids (the fast path for rows grouped by query)
    gives each row the key of the per-distinct-id hash; the split puts every query in one
    part, keeps the input order within each part, and loses no row."""
    import pyarrow as pa

    from ranklens.scale.arrow_parts import _distinct_keys, prepared_table, query_keys, split_table

    ids = [qid for qid, count in runs for _ in range(count)]
    column = pa.chunked_array([pa.array(ids, pa.large_string())])
    np.testing.assert_array_equal(query_keys(column), _distinct_keys(column))
    present = [x if x is not None else "none" for x in ids]
    frame = pd.DataFrame(
        {
            "q": pd.Series(present, dtype="string[pyarrow]"),
            "d": pd.Series([f"d{k}" for k in range(len(ids))], dtype="string[pyarrow]"),
            "v": np.ones(len(ids)),
        }
    )
    table = prepared_table(frame, ("q", "d", "v"), "<run>", "float64", 2)
    pieces = split_table(table, parts)
    assert len(pieces) == parts
    owner: dict[str, int] = {}
    for j, piece in enumerate(pieces):
        rows = piece.column("_row").to_pylist()
        assert rows == sorted(rows)
        for qid in piece.column("query_id").to_pylist():
            assert owner.setdefault(qid, j) == j
    everything = sorted(r for piece in pieces for r in piece.column("_row").to_pylist())
    assert everything == table.column("_row").to_pylist()
