"""The run-level measures (``Coverage``, ``Gini``, ``Entropy``, ``PSP``, ``PSnDCG``, ``PSR``,
``PopREO``) of a run evaluated in parts, streamed from TREC text or Parquet in small chunks,
are ``==`` the in-memory ``ranklens.evaluate`` (values to the bit), beside per-user and
accuracy measures; the merged states, the bootstrap over users where it is kept, its
refusal where it is not, and the results files that keep the run-level values."""

from __future__ import annotations

import io
import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ranklens
from ranklens.analysis.comparison import compare_results
from ranklens.base.errors import MeasureError
from ranklens.cli import main
from ranklens.data.native import core as _core
from ranklens.evaluation import parts as parts_module
from ranklens.evaluation.streaming import evaluate_runs, evaluate_stream
from ranklens.kernels.run_parts import ExposureState, merge_exposure
from run_level_data import MEASURES, RUN_LEVEL, RecCase, make_rec_case

pytestmark = pytest.mark.filterwarnings("ignore::ranklens.base.errors.InputWarning")
pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


def same(a: ranklens.Results, b: ranklens.Results, counts: bool = True) -> None:
    """Equal results: queries, per-query values (NaN where run-level), every aggregate to
    the bit, the query counts."""
    assert a.queries == b.queries
    assert a.names == b.names
    np.testing.assert_array_equal(a.values, b.values)
    for name in a.names:
        x, y = a.aggregate[name], b.aggregate[name]
        assert x == y or (math.isnan(x) and math.isnan(y)), (name, x, y)
    assert not counts or dict(a.query_counts) == dict(b.query_counts)
    assert set(a.run_statistics) == set(b.run_statistics) == set(RUN_LEVEL) & set(a.names)


def evaluator(case: RecCase, queries: str = "qrels", measures: list[str] = MEASURES) -> Any:
    q, _ = case.frames()
    return ranklens.Evaluator(q, measures, queries=queries, **case.item_data())


def in_memory(case: RecCase, queries: str = "qrels", measures: list[str] = MEASURES) -> Any:
    q, r = case.frames()
    return ranklens.evaluate(q, r, measures, queries=queries, name="rec", **case.item_data())


def write_parquet(case: RecCase, path: Path, row_group: int) -> Path:
    _, r = case.frames()
    pq.write_table(pa.Table.from_pandas(r, preserve_index=False), path, row_group_size=row_group)
    return path


@pytest.mark.parametrize("queries", ["qrels", "run", "both"])
@pytest.mark.parametrize("seed", [1, 2])
def test_trec_text_streamed_equals_in_memory(seed: int, queries: str) -> None:
    case = make_rec_case(seed)
    expected = in_memory(case, queries)
    ev = evaluator(case, queries)
    for chunk in (64, 900):  # one user per chunk, several
        got = evaluate_stream(ev, io.BytesIO(case.run_text().encode()), "rec", chunk_bytes=chunk)
        same(got, expected)


@pytest.mark.parametrize("queries", ["qrels", "run"])
def test_parquet_streamed_equals_in_memory(tmp_path: Path, queries: str) -> None:
    from ranklens.data.parquet_stream import parquet_runs

    case = make_rec_case(4)
    expected = in_memory(case, queries)
    path = write_parquet(case, tmp_path / "rec.parquet", row_group=7)
    ev = evaluator(case, queries)
    for chunk_rows, batch_rows in ((1, 1), (23, 5), (10_000, 64)):
        got = evaluate_runs(
            ev, parquet_runs(path, "rec", chunk_rows=chunk_rows, batch_rows=batch_rows)
        )
        same(got, expected)
    same(ev.evaluate(path, "rec", stream=True), expected)  # Evaluator.evaluate on the file


def test_many_parts_fold_their_exposure_counts(monkeypatch: pytest.MonkeyPatch) -> None:
    """With the fold threshold at one item, the exposure states are merged part by part
    (the path a 1M-item catalogue takes): the same results."""
    monkeypatch.setattr(parts_module, "FOLD_ITEMS", 1)
    case = make_rec_case(5, n_users=90)
    expected = in_memory(case)
    got = evaluate_stream(
        evaluator(case), io.BytesIO(case.run_text().encode()), "rec", chunk_bytes=90
    )
    same(got, expected)


def test_catalogue_smaller_than_the_items_shown_is_caught_after_merging() -> None:
    """Each chunk shows fewer items than the catalogue, the whole run more: the merged
    counts are checked, with the in-memory error."""
    case = make_rec_case(6)
    shown = len({i for _, i, _ in case.run})
    q, r = case.frames()
    small = {"popularity": case.popularity, "num_items": shown - 1, "queries": "run"}
    with pytest.raises(MeasureError, match="num_items") as memory_error:
        ranklens.evaluate(q, r, ["Coverage@100"], **small)
    ev = ranklens.Evaluator(q, ["Coverage@100"], **small)
    with pytest.raises(MeasureError, match="num_items") as stream_error:
        evaluate_stream(ev, io.BytesIO(case.run_text().encode()), chunk_bytes=64)
    assert str(stream_error.value) == str(memory_error.value)


def test_the_cli_streams_a_parquet_run_with_the_in_memory_numbers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    case = make_rec_case(7)
    run = write_parquet(case, tmp_path / "rec.parquet", row_group=5)
    qrels = tmp_path / "test.qrels"
    qrels.write_text(case.qrels_text(), encoding="utf-8")
    pop = tmp_path / "pop.txt"
    pop.write_text(case.popularity_text(), encoding="utf-8")
    train = tmp_path / "train.txt"
    train.write_text("".join(f"{u} {i}\n" for u, i in case.train), encoding="utf-8")
    features = tmp_path / "features.txt"
    lines = [f"{i} {' '.join(map(repr, v))}\n" for i, v in case.features.items()]
    features.write_text("".join(lines), encoding="utf-8")
    names = [m for m in MEASURES if m != "RR"]
    common = ["eval", str(qrels), str(run), "--popularity", str(pop), "--train", str(train)]
    common += ["--item-features", str(features)]
    for name in names:
        common += ["-m", name]
    common += ["--num-items", str(case.num_items), "--num-users", "200", "-f", "json", "--quiet"]
    outputs = []
    for flag in ("--stream", "--no-stream"):
        assert main([*common, flag, "--precision", "full"]) == 0
        outputs.append(json.loads(capsys.readouterr().out))
    assert outputs[0] == outputs[1]
    assert set(RUN_LEVEL) <= set(outputs[0]["runs"][0]["aggregate"])


# --- the bootstrap over users -----------------------------------------------------------


def test_per_user_statistics_keep_the_bootstrap_exposure_ones_refuse_it() -> None:
    case = make_rec_case(8)
    expected = in_memory(case)
    got = evaluate_stream(
        evaluator(case), io.BytesIO(case.run_text().encode()), "rec", chunk_bytes=200
    )
    weights = np.random.default_rng(0).integers(0, 3, size=(5, len(expected.queries))).astype(float)
    for name in ("PSP@5", "PSnDCG@10", "PSR@10", "PopREO@10"):
        a, b = (
            expected.run_statistics[name].values(weights),
            got.run_statistics[name].values(weights),
        )
        np.testing.assert_array_equal(a, b)
    for name in ("Coverage@10", "Gini@10", "Entropy@10"):
        with pytest.raises(MeasureError, match="evaluated in parts"):
            got.run_statistics[name].values(weights)
    names = ["streamed", "in memory"]
    with pytest.raises(MeasureError, match="stream=False"):
        compare_results([got, expected], names=names, measures=["Coverage@10"])
    # kept per user: the streamed results compare as the in-memory ones do
    twice = compare_results([expected, expected], names=names, measures=["PSP@5"])
    mixed = compare_results([got, expected], names=names, measures=["PSP@5"])
    assert mixed.means == twice.means
    assert repr(mixed.vs_baseline) == repr(twice.vs_baseline)  # NaN effect sizes: by repr


# --- the merged state -------------------------------------------------------------------


def state(ids: list[str], counts: list[int]) -> ExposureState:
    data, offsets = _core.encode_strings(ids)
    return ExposureState(
        data, offsets, np.asarray(counts, dtype=np.int64), 1, 10, "coverage", "catalogue", ""
    )


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from(["a", "b", "\u00e9", "z9", "\u65e5"]), st.integers(1, 9))),
    st.integers(1, 5),
    st.randoms(use_true_random=False),
)
def test_merging_adds_integer_counts_by_item_id(entries, cuts, rnd) -> None:
    """However the entries are split into parts (each with its own item order), the
    merged counts are the whole's."""
    whole: dict[str, int] = {}
    for item, count in entries:
        whole[item] = whole.get(item, 0) + count
    shuffled = list(entries)
    rnd.shuffle(shuffled)
    pieces = [shuffled[k::cuts] for k in range(cuts)]
    states = []
    for piece in pieces:
        local: dict[str, int] = {}
        for item, count in piece:
            local[item] = local.get(item, 0) + count
        states.append(state(list(local), list(local.values())))
    merged = merge_exposure(states)
    ids = [
        bytes(merged.ids_data[a:b]).decode()
        for a, b in zip(merged.ids_offsets[:-1], merged.ids_offsets[1:], strict=True)
    ]
    assert dict(zip(ids, merged.counts.tolist(), strict=True)) == whole
    assert merged.num_queries == cuts


def test_the_merged_state_holds_each_item_once() -> None:
    """Parts showing the same items merge into one entry per item: the state is bounded
    by the catalogue (ids, an offset and a count per item), not by the parts or the run."""
    ids = [f"i{k:06d}" for k in range(100_000)]
    thirds = [state(ids[k::3], [1] * len(ids[k::3])) for k in range(3)]
    merged = merge_exposure([*thirds, state(ids, [2] * len(ids))])
    assert merged.size == 100_000
    assert merged.ids_data.nbytes == 7 * 100_000
    assert set(merged.counts.tolist()) == {3}
    assert merged.nbytes == 7 * 100_000 + 8 * 100_001 + 8 * 100_000


# --- results files ----------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["parquet", "jsonl"])
def test_results_files_keep_the_run_level_values(tmp_path: Path, kind: str) -> None:
    case = make_rec_case(10)
    expected = in_memory(case)
    path = tmp_path / f"res.{kind}"
    if kind == "parquet":
        expected.to_parquet(path)
        back = ranklens.Results.from_parquet(path)
    else:
        expected.to_jsonl(path)
        back = ranklens.Results.from_jsonl(path)
    same(back, expected, counts=kind == "parquet")  # JSON lines keep no query counts
    with pytest.raises(MeasureError, match="read from a file"):
        back.run_statistics["Coverage@10"].values(np.ones((1, len(back.queries))))
