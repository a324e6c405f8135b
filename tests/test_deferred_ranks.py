"""A TREC run's rank column (its 4th field) is read only when the tie policy ``"rank"``
first needs it (:class:`ranklens.data.trec_text.FileRanks`): the file is read again then.
These tests check that the deferred column is the column read at once, through duplicate
resolution, renaming, copying and pickling, that ``ties="rank"`` gives the same numbers
either way, and that a file changed or removed in between is refused, never read."""

from __future__ import annotations

import copy
import io
import os
import pickle
import random
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ranklens
from ranklens import Run
from ranklens.base.errors import InputError
from ranklens.data.run import NO_RANK
from ranklens.data.trec_text import FileRanks

MEASURES = ["AP", "nDCG@3", "P@2", "RR", "R@5"]


def run_text(seed: int, lines: int, bad_ranks: bool = True) -> tuple[str, str]:
    """A run with tied scores, ranks that disagree with the scores (some not integers),
    repeated (query, document) pairs, and its qrels (graded, negative and missing labels,
    a query without relevant documents, queries on one side only)."""
    rng = random.Random(seed)
    run_lines, qrels_lines = [], []
    used: dict[str, set[int]] = {}  # each query's ranks, distinct unless bad_ranks
    for _ in range(lines):
        q, d = f"q{rng.randrange(4)}", f"d{rng.randrange(8)}"
        rank = str(rng.choice(sorted(set(range(-3, 60)) - used.setdefault(q, set()))))
        used[q].add(int(rank))
        if bad_ranks and rng.random() < 0.3:
            rank = rng.choice(["x", "1.5", "5"])  # not an integer, or a rank given twice
        run_lines.append(f"{q} Q0 {d} {rank} {rng.choice([0, 1, 1, 2.5])} tag")
    for q in ("q0", "q1", "q2", "q5"):
        for d in range(8):
            if rng.random() < 0.6:
                grade = 0 if q == "q2" else rng.choice([-1, 0, 1, 2])
                qrels_lines.append(f"{q} 0 d{d} {grade}")
    return "\n".join(run_lines) + "\n", "\n".join(qrels_lines) + "\n"


def write(tmp: Path, seed: int, lines: int, bad_ranks: bool = True) -> tuple[Path, Path]:
    run, qrels = run_text(seed, lines, bad_ranks)
    run_path, qrels_path = tmp / f"run{seed}.txt", tmp / f"qrels{seed}.txt"
    run_path.write_text(run)
    qrels_path.write_text(qrels)
    return run_path, qrels_path


def values(results: object) -> str:
    """The means and per-query values, as text (a NaN equals a NaN there)."""
    return repr(results.to_dict())  # type: ignore[attr-defined]


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    seed=st.integers(0, 10**6), lines=st.integers(1, 40), policy=st.sampled_from(["first", "max"])
)
def test_the_deferred_column_is_the_column_read_at_once(
    tmp_path: Path, seed: int, lines: int, policy: str
) -> None:
    run_path, _ = write(tmp_path, seed, lines)
    deferred = Run.from_file(run_path, duplicates=policy)  # type: ignore[arg-type]
    eager = Run.from_file(run_path, duplicates=policy, ranks=True)  # type: ignore[arg-type]
    assert isinstance(deferred.__dict__["ranks"], FileRanks)
    assert isinstance(eager.__dict__["ranks"], np.ndarray)
    # renamed, copied and pickled runs carry the column unread, and read the same one
    for other in (
        deferred.renamed("other"),
        copy.copy(deferred),
        pickle.loads(pickle.dumps(deferred)),
    ):
        assert other.ranks is not None
        assert other.ranks.tolist() == eager.ranks.tolist()  # type: ignore[union-attr]
    assert deferred.ranks is not None and eager.ranks is not None
    assert deferred.ranks.tolist() == eager.ranks.tolist()
    assert not deferred.ranks.flags.writeable
    assert deferred.__dict__["ranks"] is deferred.ranks  # loaded once, then kept
    # the same as the rank column of a run given as a stream (read at once)
    stream = Run.from_file(io.BytesIO(run_path.read_bytes()), duplicates=policy)  # type: ignore[arg-type]
    assert stream.ranks is not None and stream.ranks.tolist() == eager.ranks.tolist()


@pytest.mark.parametrize("seed", range(12))
def test_ties_by_rank_give_the_same_numbers_either_way(tmp_path: Path, seed: int) -> None:
    run_path, qrels_path = write(tmp_path, seed, 30, bad_ranks=seed % 4 == 0)
    for queries in ("qrels", "run", "both"):
        got: dict[bool | None, str] = {}
        for ranks in (None, True):
            run = Run.from_file(run_path, duplicates="first", ranks=ranks)
            try:
                got[ranks] = values(
                    ranklens.evaluate(qrels_path, run, MEASURES, ties="rank", queries=queries)
                )
            except InputError as exc:  # a rank that is not an integer: the same refusal
                got[ranks] = f"error: {exc}"
        assert got[None] == got[True]
        assert got[None].startswith("error: ") == (seed % 4 == 0)


def test_ranks_false_keeps_no_column(tmp_path: Path) -> None:
    run_path, _ = write(tmp_path, 1, 10)
    assert Run.from_file(run_path, duplicates="first", ranks=False).ranks is None


def test_a_rank_that_is_not_an_integer_stays_marked(tmp_path: Path) -> None:
    path = tmp_path / "run.txt"
    path.write_text("q Q0 a x 1 t\nq Q0 b 2 1 t\n")
    assert Run.from_file(path).ranks.tolist() == [NO_RANK, 2]  # type: ignore[union-attr]


@pytest.mark.parametrize("change", ["rewritten", "appended", "removed", "replaced"])
def test_a_file_changed_before_the_column_is_read_is_refused(tmp_path: Path, change: str) -> None:
    path = tmp_path / "run.txt"
    path.write_text("q Q0 a 1 1 t\nq Q0 b 2 1 t\n")
    run = Run.from_file(path)
    stamp = os.stat(path)
    if change == "rewritten":  # same size, another time
        path.write_text("q Q0 a 2 1 t\nq Q0 b 1 1 t\n")
        os.utime(path, ns=(stamp.st_atime_ns, stamp.st_mtime_ns + 10**9))
    elif change == "appended":
        with open(path, "a") as handle:
            handle.write("q Q0 c 3 1 t\n")
    elif change == "removed":
        path.unlink()
    else:  # another file moved into its place
        other = tmp_path / "other.txt"
        other.write_text("q Q0 a 1 1 t\nq Q0 b 2 1 t\n")
        other.replace(path)
    with pytest.raises(InputError, match="changed \\(or was removed\\) after the run was read"):
        _ = run.ranks
    with pytest.raises(InputError, match="ranks=True"):
        ranklens.evaluate({"q": {"a": 1}}, run, ["AP"], ties="rank")


def test_an_unchanged_file_is_read_again_with_the_same_column(tmp_path: Path) -> None:
    path = tmp_path / "run.txt"
    path.write_text("q Q0 a 1 1 t\nq Q0 b 2 1 t\n")
    run = Run.from_file(path)
    got = ranklens.evaluate({"q": {"a": 1}}, run, ["RR"], ties="rank")
    assert got["RR"] == 1.0  # a (rank 1) before b (rank 2) whatever the tied scores
    # trec_eval's order of tied scores (document ids descending) puts b first
    assert ranklens.evaluate({"q": {"a": 1}}, run, ["RR"])["RR"] == 0.5
