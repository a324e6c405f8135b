"""Streaming a Parquet run (a file, a directory, a glob, hive partitions) by record batches
in chunks of whole queries gives the in-memory Results, per query and aggregate."""

from __future__ import annotations

import itertools
import math
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ranklens
from ranklens.base.errors import DuplicateError, EmptyInputError, InputError
from ranklens.data import parquet_stream
from ranklens.data.parquet_stream import (
    is_parquet_source,
    parquet_runs,
    query_tables,
    should_stream_parquet,
)
from ranklens.evaluation.streaming import evaluate_runs, evaluate_stream
from scale_data import MEASURES, MEASURES_FIXED, Case, make_case

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


def same(a: ranklens.Results, b: ranklens.Results, name: bool = True) -> None:
    """Queries in the same order, every value and aggregate ``==``, the same counts."""
    assert a.queries == b.queries
    assert a.names == b.names
    np.testing.assert_array_equal(a.values, b.values)  # NaN == NaN here, nothing else
    for measure in a.names:
        x, y = a.aggregate[measure], b.aggregate[measure]
        assert x == y or (math.isnan(x) and math.isnan(y)), measure
    assert a.per_query.keys() == b.per_query.keys()
    assert dict(a.query_counts) == dict(b.query_counts)
    assert a.tie_affected_queries == b.tie_affected_queries
    if name:
        assert a.run == b.run


def run_table(rows: list[tuple[str, str, float]], ranks: bool = False) -> Any:
    columns: dict[str, Any] = {
        "query_id": pa.array([q for q, _, _ in rows], pa.string()),
        "doc_id": pa.array([d for _, d, _ in rows], pa.string()),
        "score": pa.array([s for _, _, s in rows], pa.float64()),
    }
    if ranks:  # a rank column, read for ties="rank" (here the reverse of the row order)
        columns["rank"] = pa.array(np.arange(len(rows), 0, -1), pa.int64())
    return pa.table(columns)


def write_run(case: Case, path: Path, row_group: int, ranks: bool = False) -> Path:
    """The case's run as Parquet in row groups of ``row_group`` rows (queries straddle
    them)."""
    pq.write_table(run_table(case.run, ranks), path, row_group_size=row_group)
    return path


@pytest.mark.parametrize("queries", ["qrels", "both", "run"])
@pytest.mark.parametrize(("ties", "seed"), [("trec_eval", 1), ("input", 2), ("rank", 3)])
def test_parquet_stream_equals_in_memory(
    tmp_path: Path, seed: int, queries: str, ties: str
) -> None:
    case = make_case(seed)
    run = write_run(case, tmp_path / "run.parquet", row_group=7, ranks=ties == "rank")
    measures = MEASURES if queries == "qrels" else MEASURES_FIXED
    for depth in (None, 5):
        ev = ranklens.Evaluator(case.qrels, measures, ties=ties, queries=queries, depth=depth)  # type: ignore[arg-type]
        expected = ev.evaluate(str(run), stream=False)
        for chunk_rows, batch_rows in ((2, 1), (50, 7), (100_000, 64)):
            runs = parquet_runs(run, chunk_rows=chunk_rows, batch_rows=batch_rows)
            same(evaluate_runs(ev, runs), expected)
        same(ev.evaluate(run, stream=True), expected)
        same(evaluate_stream(ev, str(run)), expected)


def test_matches_the_trec_text_and_ranklens_evaluate(tmp_path: Path) -> None:
    """The streamed Parquet run against the module-level evaluate of the same run as
    TREC text: the readers agree too."""
    case = make_case(5)
    run = write_run(case, tmp_path / "run.parquet", row_group=11)
    text = tmp_path / "run.txt"
    text.write_text(case.run_text())
    measures = ["AP", "nDCG@10", "P(rel=2)@5", "AP(judged_only=True)", "RR", "R@20"]
    expected = ranklens.evaluate(case.qrels, str(text), measures)
    streamed = ranklens.Evaluator(case.qrels, measures).evaluate(run, "tagged", stream=True)
    same(streamed, expected)
    assert streamed.per_query == expected.per_query


def split_files(case: Case, folder: Path, cuts: list[int]) -> list[Path]:
    """The run cut into files at the row positions ``cuts`` (queries straddle files),
    named so that path order is row order."""
    folder.mkdir()
    bounds = [0, *cuts, len(case.run)]
    paths = []
    for k, (a, b) in enumerate(itertools.pairwise(bounds)):
        path = folder / f"part-{k:03d}.parquet"
        pq.write_table(run_table(case.run[a:b]), path, row_group_size=9)
        paths.append(path)
    (folder / "_SUCCESS").write_text("")  # what Spark leaves: not a data file
    return paths


def test_dataset_directory_and_glob(tmp_path: Path) -> None:
    case = make_case(3)
    whole = write_run(case, tmp_path / "whole.parquet", row_group=1000)
    split_files(case, tmp_path / "parts", [5, 6, 40, 41, 100, len(case.run) - 1])
    ev = ranklens.Evaluator(case.qrels, MEASURES)
    expected = ev.evaluate(str(whole), "r", stream=False)
    folder = str(tmp_path / "parts")
    pattern = str(tmp_path / "parts" / "part-*.parquet")
    for source in (folder, pattern):
        assert is_parquet_source(source)
        assert should_stream_parquet(source)  # a dataset is always streamed by default
        same(ev.evaluate(source, "r"), expected)
        same(ev.evaluate(source, "r", stream=False), expected)  # read whole, in memory
        for chunk_rows in (1, 17, 10_000):
            runs = parquet_runs(source, "r", chunk_rows=chunk_rows, batch_rows=4)
            same(evaluate_runs(ev, runs), expected)
    assert ev.evaluate(folder).run == "parts"  # named after the folder, as a file is


def test_hive_partitioned_by_query(tmp_path: Path) -> None:
    """A dataset partitioned on the query column (``query_id=.../*.parquet``): the query
    id comes from the folder name (URL-decoded, kept as text: ``01`` stays ``01``)."""
    case = make_case(4)
    rows = [(q if q != "1" else "01", d, s) for q, d, s in case.run]
    qrels = [(q if q != "1" else "01", d, r) for q, d, r in case.qrels]
    root = tmp_path / "hive"
    pq.write_to_dataset(run_table(rows), root, partition_cols=["query_id"])
    assert any(p.name.startswith("query_id=") for p in root.iterdir())
    flat = tmp_path / "flat.parquet"
    pq.write_table(run_table(rows), flat)
    ev = ranklens.Evaluator(qrels, MEASURES)
    expected = ev.evaluate(str(flat), "r", stream=False)
    assert "01" in expected.queries
    same(ev.evaluate(str(root), "r"), expected)
    same(evaluate_runs(ev, parquet_runs(root, "r", chunk_rows=3, batch_rows=2)), expected)


def test_hive_partition_on_another_column(tmp_path: Path) -> None:
    """Partitioned on a column that is not the query (a shard number): the query rows stay
    in the files, and the shards are read in path order."""
    case = make_case(6)
    table = run_table(case.run)
    shard = np.repeat(np.arange(4), -(-len(case.run) // 4))[: len(case.run)]
    root = tmp_path / "sharded"
    pq.write_to_dataset(table.append_column("shard", pa.array(shard)), root, ["shard"])
    ev = ranklens.Evaluator(case.qrels, MEASURES)
    whole = write_run(case, tmp_path / "whole.parquet", row_group=100)
    same(ev.evaluate(str(root), "r", stream=True), ev.evaluate(str(whole), "r", stream=False))


def ungrouped(case: Case) -> list[tuple[str, str, float]]:
    """The run with the first query's first row moved to the end (it reappears after
    every other query)."""
    return [*case.run[1:], case.run[0]]


def test_not_grouped_by_query_is_an_error_saying_how_to_sort(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    case = make_case(2)
    rows = ungrouped(case)
    path = tmp_path / "run.parquet"
    pq.write_table(run_table(rows), path, row_group_size=10)
    ev = ranklens.Evaluator(case.qrels, MEASURES)
    with pytest.raises(InputError, match="not grouped by query") as caught:
        evaluate_runs(ev, parquet_runs(path, chunk_rows=20, batch_rows=8))
    message = str(caught.value)
    assert f"query '{case.run[0][0]}'" in message
    assert "maintain_order=True" in message and "--no-stream" in message
    assert caught.value.path == str(path) and caught.value.line == len(rows)  # its row
    monkeypatch.setattr(parquet_stream, "DEFAULT_CHUNK_ROWS", 20)  # several chunks
    with pytest.raises(InputError, match="not grouped by query"):
        ev.evaluate(path, stream=True)
    # in memory the rows are grouped by the reader, as for TREC text
    expected = ranklens.evaluate(case.qrels, write_run(case, tmp_path / "g.parquet", 50), MEASURES)
    same(ev.evaluate(path, "g.parquet", stream=False), expected)
    # a reappearing query whose rows all fall in one chunk is grouped there
    same(evaluate_runs(ev, parquet_runs(path, "g.parquet", chunk_rows=10**6)), expected)


def counted(batches: Iterator[Any], pulled: list[int]) -> Iterator[Any]:
    for batch in batches:
        pulled[0] += 1
        yield batch


def test_memory_is_bounded_by_a_chunk_and_a_batch(tmp_path: Path) -> None:
    """Structural: the reader pulls batches only as it needs them (no read-ahead), and no
    table it makes, hence no Run evaluated, holds ``chunk_rows`` rows plus one batch plus
    the longest query, while the file is many times larger."""
    case = make_case(8, n_queries=120)
    path = write_run(case, tmp_path / "run.parquet", row_group=16)
    chunk_rows, batch_rows = 64, 16
    longest = max(np.unique([q for q, _, _ in case.run], return_counts=True)[1])
    bound = chunk_rows + batch_rows + int(longest)
    files = parquet_stream.parquet_source(path)
    batches, columns, _ = parquet_stream.source_batches(files, batch_rows)
    pulled = [0]
    seen_rows = 0
    for table, before in query_tables(counted(batches, pulled), columns.query, chunk_rows):
        assert before == seen_rows
        assert table.num_rows < bound
        seen_rows += table.num_rows
        # at most the batches of the rows yielded and of one carried query (no read-ahead)
        assert (pulled[0] - 1) * batch_rows < seen_rows + longest
    assert seen_rows == len(case.run) > 10 * bound


def test_evaluation_never_sees_the_whole_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Through ``Evaluator.evaluate``: each part evaluated holds at most a chunk, a batch
    and the longest query (the defaults made small), and the result is the in-memory
    one."""
    import ranklens.evaluation.streaming as streaming

    case = make_case(9, n_queries=100)
    path = write_run(case, tmp_path / "run.parquet", row_group=25)
    monkeypatch.setattr(parquet_stream, "DEFAULT_CHUNK_ROWS", 60)
    monkeypatch.setattr(parquet_stream, "DEFAULT_BATCH_ROWS", 10)
    sizes: list[int] = []
    original = streaming.evaluate_run_part

    def recording(evaluator: Any, run: ranklens.Run, measures: Any = None) -> Any:
        sizes.append(len(run))
        return original(evaluator, run, measures)

    monkeypatch.setattr(streaming, "evaluate_run_part", recording)
    ev = ranklens.Evaluator(case.qrels, MEASURES)
    streamed = ev.evaluate(path, stream=True)
    longest = int(max(np.unique([q for q, _, _ in case.run], return_counts=True)[1]))
    assert len(sizes) > 5 and max(sizes) < 60 + 10 + longest and sum(sizes) == len(case.run)
    same(streamed, ev.evaluate(path, stream=False))


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(["a", "b", "cc", "d\u00e9", "10", "9"]), st.integers(1, 6)),
        min_size=1,
        max_size=12,
    ),
    st.integers(1, 30),
    st.integers(1, 9),
)
def test_tables_never_split_a_query(groups: list[tuple[str, int]], chunk: int, batch: int) -> None:
    """Whatever the chunk and batch sizes, the tables are the rows in order, and a run of
    equal query ids is never cut between two tables."""
    ids = [q for q, n in groups for _ in range(n)]
    table = pa.table({"query_id": ids, "k": list(range(len(ids)))})
    tables = list(query_tables(table.to_batches(max_chunksize=batch), "query_id", chunk))
    assert [k for t, _ in tables for k in t.column("k").to_pylist()] == list(range(len(ids)))
    for (a, _), (b, _) in itertools.pairwise(tables):
        assert a.column("query_id")[-1] != b.column("query_id")[0]


def test_duplicates_and_errors_name_the_file_and_row(tmp_path: Path) -> None:
    case = make_case(1)
    rows = list(case.run)
    rows.insert(3, rows[2])  # the same (query, document) twice
    path = tmp_path / "dup.parquet"
    pq.write_table(run_table(rows), path, row_group_size=5)
    ev = ranklens.Evaluator(case.qrels, ["AP"])
    with pytest.raises(DuplicateError):
        ev.evaluate(path, stream=True)
    first = ranklens.Evaluator(case.qrels, ["AP"], duplicates="first")
    same(first.evaluate(path, stream=True), first.evaluate(path, stream=False))

    folder = tmp_path / "parts"
    paths = split_files(case, folder, [30])
    bad = pq.read_table(paths[1])
    scores = bad.column("score").to_pylist()
    scores[4] = None
    pq.write_table(bad.set_column(2, "score", pa.array(scores, pa.float64())), paths[1])
    with pytest.raises(InputError, match="missing value") as caught:
        ev.evaluate(folder, stream=True)
    assert caught.value.path == str(paths[1]) and caught.value.line == 5  # the file's row

    other = tmp_path / "other.parquet"
    pq.write_table(pa.table({"qid": ["q"], "doc": ["d"], "value": [1.0]}), other)
    with pytest.raises(InputError, match="no score column") as caught:
        ev.evaluate(other, stream=True)
    assert str(other) in str(caught.value)

    junk = tmp_path / "junk.parquet"
    junk.write_bytes(b"not parquet at all")
    with pytest.raises(InputError, match="cannot read it as Parquet"):
        ev.evaluate(junk, stream=True)

    empty = tmp_path / "empty.parquet"
    pq.write_table(run_table([]), empty)
    with pytest.raises(EmptyInputError):
        ev.evaluate(empty, stream=True)

    nothing = tmp_path / "nothing"
    nothing.mkdir()
    (nothing / "readme.txt").write_text("x")
    assert not is_parquet_source(nothing)
    with pytest.raises(InputError, match="no file matches"):
        list(parquet_runs(str(tmp_path / "none-*.parquet")))


def test_name_saved_in_the_file_and_err_default(tmp_path: Path) -> None:
    case = make_case(2)
    run = ranklens.Run.from_records(case.run, name="bm25")
    path = tmp_path / "saved.parquet"
    run.to_parquet(path)
    ev = ranklens.Evaluator(case.qrels, MEASURES)
    streamed = ev.evaluate(path, stream=True)
    assert streamed.run == "bm25"
    same(streamed, ev.evaluate(path, stream=False))
    both = ranklens.Evaluator(case.qrels, ["ERR@10"], queries="both")
    with pytest.raises(ranklens.OptionError, match="max_rel"):
        both.evaluate(path, stream=True)


def test_should_stream_parquet_by_rows(tmp_path: Path) -> None:
    case = make_case(1)
    path = write_run(case, tmp_path / "run.parquet", row_group=50)
    assert not should_stream_parquet(path)  # small: read in memory
    assert should_stream_parquet(path, threshold=len(case.run) * 40 - 1)
    assert not should_stream_parquet(path, threshold=len(case.run) * 40)
    assert not should_stream_parquet(tmp_path / "run.txt")
    assert not should_stream_parquet({"q": {"d": 1.0}})


def test_cli_stream_flags(tmp_path: Path) -> None:
    case = make_case(2)
    qrels = tmp_path / "qrels.txt"
    qrels.write_text(case.qrels_text())
    run = write_run(case, tmp_path / "run.parquet", row_group=6)
    folder = tmp_path / "parts"
    split_files(case, folder, [20, 21, 70])

    def eval_cli(*args: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "ranklens", "eval", str(qrels), *args]
        command += ["-m", "AP", "-m", "nDCG@10", "-q", "-f", "json", "--precision", "full"]
        return subprocess.run(command, capture_output=True, text=True, check=False)

    streamed, in_memory = eval_cli(str(run), "--stream"), eval_cli(str(run), "--no-stream")
    assert streamed.returncode == 0, streamed.stderr
    assert streamed.stdout == in_memory.stdout
    by_folder = eval_cli(str(folder), "--name", "run")
    assert by_folder.returncode == 0, by_folder.stderr
    assert by_folder.stdout == in_memory.stdout

    bad = tmp_path / "bad.parquet"
    pq.write_table(run_table(ungrouped(case)), bad, row_group_size=4)
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    refused = subprocess.run(
        [sys.executable, "-c", _SMALL_CHUNKS, str(qrels), str(bad)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert refused.returncode != 0
    assert "not grouped by query" in refused.stderr and "Traceback" not in refused.stderr


_SMALL_CHUNKS = """
import sys
from ranklens.data import parquet_stream
from ranklens.cli import main
parquet_stream.DEFAULT_CHUNK_ROWS = 8
parquet_stream.DEFAULT_BATCH_ROWS = 4
sys.exit(main(["eval", sys.argv[1], sys.argv[2], "--stream", "-m", "AP", "-q"]))
"""


def test_progress_reports_rows(tmp_path: Path) -> None:
    case = make_case(3)
    folder = tmp_path / "parts"
    split_files(case, folder, [30, 90])
    calls: list[tuple[int, int]] = []
    runs = parquet_runs(folder, chunk_rows=25, batch_rows=10, progress=lambda *a: calls.append(a))
    assert sum(len(run) for run in runs) == len(case.run)
    assert len(calls) > 3 and calls[-1] == (len(case.run), len(case.run))
    assert [done for done, _ in calls] == sorted({done for done, _ in calls})
