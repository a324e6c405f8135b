"""The arithmetic of evaluating a run where it lies, without Spark: a run grouped by query
cut into partitions at any rows (each partition evaluated by ``evaluate_rows`` as a task
would, the batches gathered as the driver does) gives ``ranklens.evaluate``'s Results;
a run whose queries come back in another partition is refused."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ranklens
from ranklens.evaluation.parts import combine
from ranklens.scale.in_place import (
    Broadcast,
    NotGroupedError,
    RunColumns,
    evaluate_rows,
    gather,
    qrels_rows,
)
from ranklens.scale.partition import DOC, QUERY, Options
from scale_data import MEASURES_FIXED, make_case, same

pa = pytest.importorskip("pyarrow")

pytestmark = pytest.mark.filterwarnings("ignore::ranklens.base.errors.InputWarning")

POSITION_BITS = 33


def cut_and_gather(
    qrels: list[tuple[str, str, int]],
    run: list[tuple[str, str, float]],
    cuts: list[int],
    options: Options,
) -> list[Any]:
    """The run's rows cut before each row of ``cuts``, each piece evaluated as a task, the
    tasks' batches gathered."""
    q_table = pa.table(
        {
            "q": [q for q, _, _ in qrels],
            "d": [d for _, d, _ in qrels],
            "r": pa.array([r for _, _, r in qrels], pa.int64()),
        }
    )
    sent = Broadcast(
        options, qrels_rows(q_table, pa), RunColumns(QUERY, DOC, "score"), True, 1 << 40
    )
    table = pa.table(
        {
            QUERY: [q for q, _, _ in run],
            DOC: [d for _, d, _ in run],
            "score": pa.array([s for _, _, s in run], pa.float64()),
        }
    )
    bounds = [0, *sorted(set(cuts)), len(run)]
    batches = [
        evaluate_rows(table.slice(a, b - a), k << POSITION_BITS, sent)
        for k, (a, b) in enumerate(itertools.pairwise(bounds))
        if b > a
    ]
    return gather(pa.Table.from_batches(batches), sent)


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    cuts=st.lists(st.integers(0, 2_000), max_size=12),
    conventions=st.sampled_from(
        [
            ("trec_eval", "qrels", "error"),
            ("input", "both", "first"),
            ("docid_asc", "run", "max"),
        ]
    ),
)
def test_any_cut_of_a_grouped_run_gives_the_in_memory_results(
    seed: int, cuts: list[int], conventions: tuple[str, str, str]
) -> None:
    ties, queries, duplicates = conventions
    case = make_case(seed, n_queries=12)
    run = list(case.run)
    if duplicates != "error" and run:  # a repeat of the last row, another score
        q, d, s = run[-1]
        run.append((q, d, 1.0 - s))
    options = Options.of(MEASURES_FIXED, ties, queries, None, duplicates)  # type: ignore[arg-type]
    parts = cut_and_gather(case.qrels, run, [c % (len(run) + 1) for c in cuts], options)
    got = combine("run", options.measures, options.queries, parts)
    expected = ranklens.evaluate(
        case.qrels,
        run,
        MEASURES_FIXED,
        ties=ties,  # type: ignore[arg-type]
        queries=queries,  # type: ignore[arg-type]
        duplicates=duplicates,  # type: ignore[arg-type]
    )
    same(got, expected)


def test_a_query_back_in_another_partition_is_refused() -> None:
    """A query whose rows are in two stretches of one partition, or inner in two
    partitions, cannot be evaluated where it lies."""
    case = make_case(3, n_queries=12)
    options = Options.of(MEASURES_FIXED, "trec_eval", "qrels", None, "error")
    counts: dict[str, int] = {}
    for q, _, _ in case.run:
        counts[q] = counts.get(q, 0) + 1
    moved_q = next(q for q, n in counts.items() if n >= 2)
    mine = [r for r in case.run if r[0] == moved_q]
    rows = [r for r in case.run if r[0] != moved_q]
    starts = [k for k in range(1, len(rows)) if rows[k - 1][0] != rows[k][0]]
    assert len(starts) >= 5
    a, middle, b = starts[1], starts[len(starts) // 2], starts[-2]
    twice = [*rows[:a], *mine[:1], *rows[a:b], *mine[1:], *rows[b:]]
    with pytest.raises(NotGroupedError):  # two stretches of one partition
        cut_and_gather(case.qrels, twice, [], options)
    # inner in the partition before ``middle`` and in the one after: each partition's
    # queries are in stretches, so only the driver sees it
    with pytest.raises(NotGroupedError):
        cut_and_gather(case.qrels, twice, [middle + 1], options)


@pytest.mark.parametrize("queries", ["qrels", "run", "both"])
def test_a_query_without_judgments_back_in_another_partition_is_refused(queries: str) -> None:
    """A run query the qrels lack (not evaluated under ``queries="qrels"``, so listed by
    no part's values), inner in one partition and an edge of another: refused too, rather
    than counted twice among the run's queries."""
    case = make_case(7, n_queries=12)
    judged = {q for q, _, _ in case.qrels}
    options = Options.of(MEASURES_FIXED, "trec_eval", queries, None, "error")  # type: ignore[arg-type]
    lone = next(q for q, _, _ in case.run if q not in judged)
    mine = [r for r in case.run if r[0] == lone]
    rows = [r for r in case.run if r[0] != lone]
    assert len(mine) >= 2
    starts = [k for k in range(1, len(rows)) if rows[k - 1][0] != rows[k][0]]
    a, b = starts[1], starts[-2]
    split = [*rows[:a], *mine[:1], *rows[a:b], *mine[1:]]  # its rest at the run's end
    with pytest.raises(NotGroupedError) as refused:
        cut_and_gather(case.qrels, split, [b + 1], options)
    assert refused.value.query == lone
