"""Progress of long work: library callbacks (ranklens.base.progress) and the command
line's bar (ranklens.presentation.progress), which shows on a terminal only.

The callbacks must report monotone progress that ends at its total, and change no result;
the bar must appear on stderr when stderr is a terminal (a pseudo-terminal here), and
nothing must appear when stderr is piped or with ``--quiet``.
"""

from __future__ import annotations

import gzip
import io
import os
import select
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import ranklens
from ranklens.analysis.stats.bootstrap import bootstrap_test
from ranklens.analysis.stats.randomization import randomization_test
from ranklens.base.progress import stage
from ranklens.data.examples import example_paths
from ranklens.presentation.progress import progress_bar

pty = pytest.importorskip("pty", reason="the terminal tests need a pseudo-terminal (POSIX)")


class Calls:
    """A progress callback that records its calls."""

    def __init__(self) -> None:
        self.calls: list[tuple[int, int]] = []

    def __call__(self, done: int, total: int) -> None:
        self.calls.append((done, total))

    def check(self, total: int | None = None) -> None:
        """Monotone, within its total, ending at it."""
        assert self.calls, "never called"
        dones = [d for d, _ in self.calls]
        totals = {t for _, t in self.calls}
        assert len(totals) == 1, totals
        (whole,) = totals
        if total is not None:
            assert whole == total
        assert dones == sorted(dones) and dones[0] >= 0 and dones[-1] == whole


def test_stages_share_one_total() -> None:
    calls = Calls()
    parts = [stage(calls, 0, 3, 10), stage(calls, 3, 7, 10)]
    for part, of in zip(parts, (2, 9), strict=True):
        for done in range(1, of + 1):
            part(done, of)  # type: ignore[misc]
    calls.check(10)
    assert calls.calls[0] == (1, 10) and calls.calls[1] == (3, 10)
    assert stage(None, 0, 1, 1) is None


@pytest.mark.parametrize("draws", [1, 999, 30_000])
def test_resampling_tests_report_their_draws_and_give_the_same_numbers(draws: int) -> None:
    rng = np.random.default_rng(1)
    d = np.round(rng.normal(0.05, 0.2, size=(150, 3)), 3)  # chunks of 13,981 draws
    calls = Calls()
    with_bar = randomization_test(d, draws, 7, progress=calls)
    calls.check(draws)
    assert len(calls.calls) == -(-draws // (2**21 // 150))
    plain = randomization_test(d, draws, 7)
    np.testing.assert_array_equal(with_bar.p_value, plain.p_value)
    calls = Calls()
    boot = bootstrap_test(d, draws, 7, progress=calls)
    calls.check(draws)
    again = bootstrap_test(d, draws, 7)
    for field in ("p_value", "ci_low", "ci_high", "statistic"):
        np.testing.assert_array_equal(getattr(boot, field), getattr(again, field))


@pytest.mark.parametrize("test", ["randomization", "bootstrap", "wilcoxon"])
def test_compare_reports_through_one_total(test: str) -> None:
    qrels, runs = example_paths()
    calls = Calls()
    cmp = ranklens.compare(qrels, runs, ["AP"], test=test, permutations=1000, progress=calls)
    calls.check(2000 if test == "randomization" else 1000)
    plain = ranklens.compare(qrels, runs, ["AP"], test=test, permutations=1000)
    assert cmp.to_dict() == plain.to_dict()


def test_a_t_test_reports_nothing() -> None:
    qrels, runs = example_paths()
    calls = Calls()
    ranklens.compare(qrels, runs, ["AP"], progress=calls)
    assert calls.calls == []


def test_fuse_optimize_reports_each_setting() -> None:
    pytest.importorskip("pandas", reason="fuse_optimize returns a pandas DataFrame")
    qrels, runs = example_paths()
    calls = Calls()
    grid, best = ranklens.fuse_optimize(qrels, runs, "wsum", "AP", step=0.25, progress=calls)
    calls.check(len(grid))
    assert [d for d, _ in calls.calls] == list(range(1, len(grid) + 1))
    assert best == ranklens.fuse_optimize(qrels, runs, "wsum", "AP", step=0.25)[1]


@pytest.mark.parametrize("compress", [False, True])
def test_a_streamed_run_reports_the_bytes_of_its_file(tmp_path: Path, compress: bool) -> None:
    qrels, runs = example_paths()
    with gzip.open(runs[1], "rb") as f:
        text = f.read()
    path = tmp_path / ("run.gz" if compress else "run.txt")
    path.write_bytes(gzip.compress(text) if compress else text)
    evaluator = ranklens.Evaluator(qrels, ["nDCG@10", "AP"])
    calls = Calls()
    from ranklens.evaluation.streaming import evaluate_stream

    streamed = evaluate_stream(evaluator, path, chunk_bytes=4096, progress=calls)
    calls.check(path.stat().st_size)
    assert len(calls.calls) > 3
    in_memory = evaluator.evaluate(path, stream=False)
    assert streamed.per_query == in_memory.per_query
    assert streamed.aggregate == in_memory.aggregate
    via = Calls()
    assert evaluator.evaluate(path, stream=True, progress=via).per_query == streamed.per_query
    via.check(path.stat().st_size)


def test_a_pipe_has_no_size_and_reports_nothing() -> None:
    _, runs = example_paths()
    with gzip.open(runs[1], "rb") as f:
        text = f.read()
    read, write = os.pipe()
    with os.fdopen(write, "wb") as w:
        w.write(text[:60_000])  # less than the pipe holds
    calls = Calls()
    from ranklens.data.chunks import query_chunks

    with os.fdopen(read, "rb") as r:
        chunks = list(query_chunks(r, 4096, calls))
    assert chunks and calls.calls == []


def test_the_bar_is_none_off_a_terminal() -> None:
    with progress_bar("x", stream=io.StringIO()) as progress:
        assert progress is None
    with progress_bar("x", enabled=False) as progress:
        assert progress is None


def _run_on_a_terminal(args: list[str], cwd: Path) -> tuple[int, bytes, bytes]:
    """Run ``ranklens ARGS`` with stderr on a pseudo-terminal: exit status, stdout, stderr."""
    leader, follower = pty.openpty()
    env = {**os.environ, "COLUMNS": "100", "TERM": "xterm"}
    env.pop("NO_COLOR", None)
    with (cwd / "stdout.bin").open("w+b") as stdout:  # a file: a pipe could fill and block
        proc = subprocess.Popen(
            [sys.executable, "-m", "ranklens", *args],
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=stdout,
            stderr=follower,
            env=env,
        )
        os.close(follower)
        err = b""
        while True:
            ready, _, _ = select.select([leader], [], [], 0.1)
            if ready:
                try:
                    chunk = os.read(leader, 65536)
                except OSError:  # the terminal closed with the process
                    break
                if not chunk:
                    break
                err += chunk
            elif proc.poll() is not None:
                break
        os.close(leader)
        status = proc.wait(timeout=600)
        stdout.seek(0)
        return status, stdout.read(), err


COMMANDS = {
    "compare": ["compare", "--example", "--test", "randomization", "--permutations", "2000"],
    "fuse": ["fuse", "bm25.run", "rerank.run", "--method", "wsum", "--optimize", "qrels.txt"],
    "stream": ["eval", "qrels.txt", "run.txt", "--stream"],
}
SHOWN = {"compare": b"randomization test", "fuse": b"fuse --optimize", "stream": b"reading"}


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_bar_on_a_terminal_nothing_piped_or_quiet(command: str, tmp_path: Path) -> None:
    if command == "fuse":
        pytest.importorskip("pandas", reason="fuse --optimize needs pandas")
    subprocess.run(
        [sys.executable, "-m", "ranklens", "examples"],
        cwd=tmp_path,
        check=True,
        capture_output=True,
    )
    args = COMMANDS[command]
    status, out, err = _run_on_a_terminal(args, tmp_path)
    assert status == 0, err.decode(errors="replace")
    assert SHOWN[command] in err, err[:2000]
    assert "━".encode() in err  # the bar itself

    piped = subprocess.run(
        [sys.executable, "-m", "ranklens", *args], cwd=tmp_path, capture_output=True
    )
    assert piped.returncode == 0, piped.stderr
    assert SHOWN[command] not in piped.stderr and "━".encode() not in piped.stderr
    assert b"\x1b[" not in piped.stderr
    assert piped.stdout.replace(b"\r\n", b"\n") == out.replace(b"\r\n", b"\n")

    status, _, quiet = _run_on_a_terminal([*args, "--quiet"], tmp_path)
    assert status == 0
    assert SHOWN[command] not in quiet and "━".encode() not in quiet


def test_dask_reports_its_partitions() -> None:
    pytest.importorskip("dask.dataframe", reason="the Dask evaluation needs dask[dataframe]")
    import dask

    from ranklens.scale.dask_backend import evaluate as dask_evaluate

    qrels, runs = example_paths()
    q = ranklens.Qrels.from_file(qrels).to_pandas()
    r = ranklens.Run.from_file(runs[1]).to_pandas()
    import dask.dataframe as dd

    for scheduler in ("sync", "threads"):
        with dask.config.set(scheduler=scheduler):
            calls = Calls()  # shuffled into 3 parts
            got = dask_evaluate(
                q, r, ["AP"], npartitions=3, progress=calls, partitioned_by_query=False
            )
            calls.check(3)
            assert got.per_query == dask_evaluate(q, r, ["AP"], npartitions=3).per_query
            calls = Calls()  # 3 partitions of a run grouped by query, evaluated in place
            in_place = dask_evaluate(
                q, dd.from_pandas(r, npartitions=3, sort=False), ["AP"], progress=calls
            )
            calls.check(3)
            assert in_place.per_query == got.per_query


def test_the_t_test_draws_no_bar(tmp_path: Path) -> None:
    status, _, err = _run_on_a_terminal(["compare", "--example"], tmp_path)
    assert status == 0
    assert "━".encode() not in err
