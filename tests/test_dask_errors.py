"""Dask's errors are the single machine's (issue 35, item 12): the same exception, message,
line and lines, for every kind of bad row, wherever it lies, in a DataFrame (rows counted
from 0), a Parquet file (lines counted from 1) and a dataset of Parquet files (counted
over the dataset in the single machine's file order, a bad value named in its file); and
the workers log no traceback (a task returns its error instead of raising it, so no
worker prints "Compute Failed" with a row numbered ``partition << 40 | position``).

The oracle is ``ranklens.evaluate`` on the same input. The rows and the partitioning are
drawn at random (generated runs with ties, graded labels and unjudged documents).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import ranklens
from dask_support import local_client
from scale_data import make_case

pd = pytest.importorskip("pandas")
dd = pytest.importorskip("dask.dataframe", reason="the Dask tests need dask[dataframe]")
distributed = pytest.importorskip("distributed", reason="the Dask tests need distributed")
pytest.importorskip("pyarrow")
dask = pytest.importorskip("dask")

import ranklens.dask as rdask  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::ranklens.InputWarning")


def _frames(seed: int) -> tuple[Any, Any]:
    case = make_case(seed, 12)
    q = pd.DataFrame(case.qrels, columns=["query_id", "doc_id", "relevance"])
    r = pd.DataFrame(case.run, columns=["query_id", "doc_id", "score"])
    ranks = np.zeros(len(r), dtype=np.int64)
    for rows in r.groupby("query_id", sort=False).indices.values():
        ranks[rows] = np.arange(1, len(rows) + 1)
    return q, r.assign(rank=ranks)


Breaker = Callable[[Any, Any, np.random.Generator], tuple[Any, Any, dict[str, Any]]]


def _row(frame: Any, rng: np.random.Generator) -> int:
    return int(rng.integers(1, len(frame)))


def _missing(column: str) -> Breaker:
    def broken(q: Any, r: Any, rng: np.random.Generator) -> tuple[Any, Any, dict[str, Any]]:
        r = r.astype({column: object}) if column != "score" else r.copy()
        r.loc[_row(r, rng), column] = None
        return q, r, {}

    return broken


def _duplicate(q: Any, r: Any, rng: np.random.Generator) -> tuple[Any, Any, dict[str, Any]]:
    at, copy = sorted(rng.choice(len(r), 2, replace=False).tolist())
    doubled = pd.concat([r.iloc[:copy], r.iloc[[at]], r.iloc[copy:]], ignore_index=True)
    return q, doubled, {}


def _repeated_rank(q: Any, r: Any, rng: np.random.Generator) -> tuple[Any, Any, dict[str, Any]]:
    rows = [v for v in r.groupby("query_id", sort=False).indices.values() if len(v) > 2]
    chosen = rows[int(rng.integers(len(rows)))]
    r = r.copy()
    r.loc[chosen[-1], "rank"] = r.loc[chosen[0], "rank"]
    return q, r, {"ties": "rank"}


def _fractional_rank(q: Any, r: Any, rng: np.random.Generator) -> tuple[Any, Any, dict[str, Any]]:
    r = r.assign(rank=r["rank"].astype(float))
    r.loc[_row(r, rng), "rank"] = 2.5
    return q, r, {"ties": "rank"}


def _fractional_grade(q: Any, r: Any, rng: np.random.Generator) -> tuple[Any, Any, dict[str, Any]]:
    q = q.assign(relevance=q["relevance"].astype(float))
    q.loc[_row(q, rng), "relevance"] = 1.5
    return q, r, {}


BREAKERS: dict[str, Breaker] = {
    "missing score": _missing("score"),
    "missing document": _missing("doc_id"),
    "missing query": _missing("query_id"),
    "duplicate document": _duplicate,
    "repeated rank": _repeated_rank,
    "fractional rank": _fractional_rank,
    "fractional grade": _fractional_grade,
}


def _forms(
    tmp_path: Path, q: Any, r: Any, rng: np.random.Generator, qrels_broken: bool
) -> Iterator[tuple[str, Any, Any, Any, Any]]:
    """``(form, qrels, run)`` as the single machine reads them and as Dask reads them."""
    yield (
        "DataFrame",
        q,
        r,
        dd.from_pandas(q, npartitions=int(rng.integers(1, 4)), sort=False),
        dd.from_pandas(r, npartitions=int(rng.integers(2, 6)), sort=False),
    )
    side, frame = ("qrels", q) if qrels_broken else ("run", r)
    path = tmp_path / f"{side}.parquet"
    frame.to_parquet(path, row_group_size=int(rng.integers(5, 40)))
    parquet = str(path)
    yield (
        "Parquet file",
        *((parquet, r, parquet, r) if qrels_broken else (q, parquet, q, parquet)),
    )
    if qrels_broken:
        return  # the single machine reads no qrels dataset (a directory)
    folder = tmp_path / "run"
    folder.mkdir()
    cuts = sorted(rng.choice(np.arange(1, len(r)), 2, replace=False).tolist())
    # byte order part.10, part.2, part.9; Dask's "natural" order part.2, part.9, part.10
    bounds = [0, *cuts, len(r)]
    for k, name in enumerate(("part.2", "part.10", "part.9")):
        r.iloc[bounds[k] : bounds[k + 1]].to_parquet(folder / f"{name}.parquet")
    yield ("Parquet dataset", q, str(folder), q, str(folder))


def _caught(evaluate: Callable[..., Any], *args: Any, **options: Any) -> BaseException:
    with pytest.raises(ranklens.InputError) as caught:
        evaluate(*args, ["P@5"], **options)
    return caught.value


def _same_error(single: BaseException, spread: BaseException) -> None:
    assert type(spread) is type(single)
    assert str(spread) == str(single)
    assert getattr(spread, "line", None) == getattr(single, "line", None)
    assert getattr(spread, "lines", None) == getattr(single, "lines", None)
    assert getattr(spread, "path", None) == getattr(single, "path", None)


@pytest.mark.parametrize("kind", sorted(BREAKERS))
@pytest.mark.parametrize("seed", [1, 2])
def test_errors_equal_the_single_machines(tmp_path: Path, kind: str, seed: int) -> None:
    rng = np.random.default_rng(seed * 100 + sorted(BREAKERS).index(kind))
    q, r = _frames(seed)
    q, r, options = BREAKERS[kind](q, r, rng)
    for form, q_single, r_single, q_dask, r_dask in _forms(
        tmp_path, q, r, rng, kind == "fractional grade"
    ):
        single = _caught(ranklens.evaluate, q_single, r_single, **options)
        with dask.config.set(scheduler="sync"):
            spread = _caught(rdask.evaluate, q_dask, r_dask, **options)
        _same_error(single, spread)
        if form == "DataFrame":
            assert "lines " not in str(spread)  # rows, from 0
        else:
            assert "rows " not in str(spread)  # lines, from 1


@pytest.fixture(scope="module")
def dask_client() -> Iterator[Any]:
    yield from local_client(2)


SENTINEL = re.compile(r"\d{13,}")  # a row numbered partition << 40 | position


def test_workers_log_no_traceback(dask_client: Any, tmp_path: Path) -> None:
    """Regression: a worker logged "Compute Failed" with a traceback and a row numbered
    ``partition << 40 | position`` for each input error. Also a user measure's error
    reaches the client as the user's, from a worker."""
    rng = np.random.default_rng(3)
    q, r = _frames(3)
    failing: list[tuple[Any, Any, Any, Any, dict[str, Any]]] = []
    for kind in ("missing score", "duplicate document", "repeated rank"):
        qq, rr, options = BREAKERS[kind](q, r, rng)
        shuffled = rr.sample(frac=1.0, random_state=1).reset_index(drop=True)  # not grouped
        path = tmp_path / f"{len(failing)}.parquet"
        shuffled.to_parquet(path, row_group_size=17)
        failing.append((qq, shuffled, qq, str(path), options))
        grouped = dd.from_pandas(rr, npartitions=3, sort=False)
        failing.append((qq, rr, qq, grouped, {**options, "partitioned_by_query": False}))
    # partitioned by query (an index with known divisions): no shuffle, the same guard
    qq, rr, _ = BREAKERS["missing score"](q, r, rng)
    indexed = dd.from_pandas(rr.set_index("query_id"), npartitions=3)
    assert indexed.known_divisions
    with pytest.raises(ranklens.InputError, match="column 'score' has a missing value"):
        rdask.evaluate(qq, indexed, ["P@5"])
    for q_single, r_single, q_dask, r_dask, options in failing:
        declared = {k: v for k, v in options.items() if k != "partitioned_by_query"}
        spread = _caught(rdask.evaluate, q_dask, r_dask, **options)
        # the single machine reads what Dask read: the Parquet file itself, or the frame
        r_read = r_dask if isinstance(r_dask, str) else r_single
        single = _caught(ranklens.evaluate, q_single, r_read, **declared)
        _same_error(single, spread)

    def boom(relevance: Any, scores: Any) -> float:
        if len(relevance) > 3:
            raise ZeroDivisionError("too long")
        return 0.0

    name = "DaskBoom"
    from ranklens.measures.user_registry import USER_MEASURES

    if USER_MEASURES.get(name) is None:  # a name is defined once per process
        ranklens.define_measure(name, boom)
    with pytest.raises(ranklens.UserMeasureError, match=r"^measure 'DaskBoom' failed on query"):
        rdask.evaluate(q, dd.from_pandas(r, npartitions=3, sort=False), [name])
    logs = "\n".join(
        text for entries in dask_client.get_worker_logs().values() for _, text in entries
    )
    assert "Compute Failed" not in logs
    assert "Traceback" not in logs
    assert not SENTINEL.search(logs.replace(":", " ")), logs[-2000:]
