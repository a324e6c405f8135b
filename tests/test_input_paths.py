"""Every way in gives the file's numbers: TREC text, dicts (the native walk and the checked
path), records, pandas (object, ``string[pyarrow]``, categorical with unused categories,
integer ids), polars (string, categorical), pyarrow Tables (chunked, dictionary,
``large_string``) and RecordBatches.

Generated cases hold tied scores, graded and negative labels, unjudged documents, queries
without relevant documents and queries missing from either side (tests/strategies.py).
"""

from __future__ import annotations

import io
import itertools
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest
from hypothesis import given, settings

import ranklens
from ranklens import Qrels, Run
from ranklens.base.errors import InputError, InputWarning
from ranklens.data import _core
from ranklens.data.memory import from_records
from strategies import Case, cases, random_cases

MEASURES = ["nDCG@10", "AP", "P@5", "RR", "R@10", "Bpref", "nDCG(dcg='exp-log2')@5", "Rprec"]


def _trec_files(case: Case) -> tuple[io.BytesIO, io.BytesIO]:
    qrels = "".join(f"{q} 0 {d} {r}\n" for q, docs in case.qrels.items() for d, r in docs.items())
    run = "".join(
        f"{q} Q0 {d} 0 {s!r} tag\n" for q, docs in case.run.items() for d, s in docs.items()
    )
    return io.BytesIO(qrels.encode()), io.BytesIO(run.encode())


def _rows(nested: dict[str, dict[str, Any]]) -> list[tuple[str, str, Any]]:
    return [(q, d, v) for q, docs in nested.items() for d, v in docs.items()]


def _frame(nested: dict[str, dict[str, Any]], value: str) -> pd.DataFrame:
    rows = _rows(nested)
    return pd.DataFrame(
        {
            "query_id": [q for q, _, _ in rows],
            "doc_id": [d for _, d, _ in rows],
            value: [v for _, _, v in rows],
        }
    )


def _pandas_object(nested: dict[str, dict[str, Any]], value: str) -> Any:
    frame = _frame(nested, value)
    return frame.astype({"query_id": object, "doc_id": object})


def _pandas_object_shuffled(nested: dict[str, dict[str, Any]], value: str) -> Any:
    """Rows in a random order (queries interleaved), and every id its own str object
    (equal ids are not the same object, as after a CSV read or a merge)."""
    frame = _pandas_object(nested, value)
    order = np.random.default_rng(len(frame)).permutation(len(frame))
    frame = frame.iloc[order].reset_index(drop=True)
    for column in ("query_id", "doc_id"):
        frame[column] = pd.Series(["".join(list(s)) for s in frame[column]], dtype=object)
    return frame


def _pandas_arrow(nested: dict[str, dict[str, Any]], value: str) -> Any:
    return _frame(nested, value).astype(
        {"query_id": "string[pyarrow]", "doc_id": pd.ArrowDtype(pa.large_string())}
    )


def _pandas_categorical(nested: dict[str, dict[str, Any]], value: str) -> Any:
    frame = _frame(nested, value)
    qids = sorted({q for q in frame["query_id"]} | {"unused-query"})
    docs = sorted({d for d in frame["doc_id"]} | {"unused-doc"})
    return frame.astype(
        {"query_id": pd.CategoricalDtype(qids), "doc_id": pd.CategoricalDtype(docs[::-1])}
    )


def _polars(nested: dict[str, dict[str, Any]], value: str) -> Any:
    return pl.from_pandas(_frame(nested, value))


def _polars_categorical(nested: dict[str, dict[str, Any]], value: str) -> Any:
    return _polars(nested, value).with_columns(pl.col("query_id").cast(pl.Categorical))


def _arrow_chunked(nested: dict[str, dict[str, Any]], value: str) -> Any:
    table = pa.Table.from_pandas(_frame(nested, value), preserve_index=False)
    cut = max(1, table.num_rows // 3)
    return pa.concat_tables([table.slice(0, cut), table.slice(cut)])


def _arrow_dictionary(nested: dict[str, dict[str, Any]], value: str) -> Any:
    table = _arrow_chunked(nested, value)
    qids = table.column("query_id").dictionary_encode()
    docs = table.column("doc_id").cast(pa.large_string())
    return pa.table({"query_id": qids, "doc_id": docs, value: table.column(value)})


def _record_batch(nested: dict[str, dict[str, Any]], value: str) -> Any:
    return pa.RecordBatch.from_pandas(_frame(nested, value), preserve_index=False)


def _records(nested: dict[str, dict[str, Any]], value: str) -> Any:
    return _rows(nested)


def _dict(nested: dict[str, dict[str, Any]], value: str) -> Any:
    return nested


def _dict_numpy_values(nested: dict[str, dict[str, Any]], value: str) -> Any:
    kind = np.int64 if value == "relevance" else np.float64
    return {q: {d: kind(v) for d, v in docs.items()} for q, docs in nested.items()}


BUILDERS: dict[str, Callable[[dict[str, dict[str, Any]], str], Any]] = {
    "dict": _dict,
    "dict-numpy-values": _dict_numpy_values,
    "records": _records,
    "pandas-object": _pandas_object,
    "pandas-object-shuffled": _pandas_object_shuffled,
    "pandas-arrow": _pandas_arrow,
    "pandas-categorical": _pandas_categorical,
    "polars": _polars,
    "polars-categorical": _polars_categorical,
    "arrow-chunked": _arrow_chunked,
    "arrow-dictionary": _arrow_dictionary,
    "arrow-record-batch": _record_batch,
}


def _same(a: ranklens.Results, b: ranklens.Results) -> None:
    assert a.queries == b.queries
    assert a.names == b.names
    assert np.array_equal(a.values, b.values, equal_nan=True)
    for x, y in zip(a.aggregate.values(), b.aggregate.values(), strict=True):
        assert x == y or (x != x and y != y)


@pytest.mark.parametrize("kind", sorted(BUILDERS))
def test_every_input_type_gives_the_files_numbers(kind: str) -> None:
    build = BUILDERS[kind]
    for case in random_cases(1805, 25):
        qrels_file, run_file = _trec_files(case)
        expected = ranklens.evaluate(qrels_file, run_file, MEASURES)
        got = ranklens.evaluate(build(case.qrels, "relevance"), build(case.run, "score"), MEASURES)
        _same(expected, got)


@settings(max_examples=60, deadline=None)
@given(cases())
def test_native_dict_walk_equals_the_checked_path(case: Case) -> None:
    for nested, integer in ((case.qrels, True), (case.run, False)):
        fast = _core.dict_columns(nested, integer)
        assert fast is not None
        slow = from_records(_rows(nested), integer, "<dict>")
        qids, counts, data, offsets, values = fast
        assert qids == [q for q in nested]
        assert counts.tolist() == [len(d) for d in nested.values()]
        flat = [d for docs in nested.values() for d in docs]
        pairs = itertools.pairwise(offsets.tolist())
        assert [bytes(data[a:b]).decode() for a, b in pairs] == flat
        assert values.tolist() == [v for docs in nested.values() for v in docs.values()]
        assert tuple(sorted(qids)) == slow["qids"]


@settings(max_examples=40, deadline=None)
@given(cases())
def test_dict_and_records_build_the_same_columns(case: Case) -> None:
    for fast, slow in (
        (Run.from_dict(case.run), Run.from_records(_rows(case.run))),
        (Qrels.from_dict(case.qrels), Qrels.from_records(_rows(case.qrels))),
    ):
        assert fast.qids == slow.qids
        assert np.array_equal(fast.q_offsets, slow.q_offsets)
        assert fast.docids() == slow.docids()
        assert np.array_equal(fast.lines, slow.lines)


def test_the_native_walk_declines_what_it_does_not_check() -> None:
    assert _core.dict_columns({1: {"d": 1.0}}, False) is None
    assert _core.dict_columns({"q": {"d": "x"}}, False) is None
    assert _core.dict_columns({"q": {"d": float("inf")}}, False) is None
    assert _core.dict_columns({"q": {"d": True}}, True) is None
    assert _core.dict_columns({"q": {"d": 2**70}}, True) is None
    assert _core.dict_columns({"q": [("d", 1)]}, True) is None
    assert _core.dict_columns({"q": {"d": 1}}, True) is not None


def test_integer_ids_are_kept_as_their_digits() -> None:
    qrels = {1: {10: 1, 2: 0}, 2: {3: 2}}
    run = {1: {10: 0.5, 2: 0.7}, 2: {3: 0.1, np.int64(4): 0.2}}
    res = ranklens.evaluate(qrels, run, ["AP", "P@1"])
    as_text = ranklens.evaluate(
        {"1": {"10": 1, "2": 0}, "2": {"3": 2}},
        {"1": {"10": 0.5, "2": 0.7}, "2": {"3": 0.1, "4": 0.2}},
        ["AP", "P@1"],
    )
    _same(as_text, res)
    frame = pd.DataFrame(
        {"qid": [1, 1, 2, 2], "docid": [10, 2, 3, 4], "score": [0.5, 0.7, 0.1, 0.2]}
    )
    _same(as_text, ranklens.evaluate(qrels, frame, ["AP", "P@1"]))
    _same(as_text, ranklens.evaluate(qrels, pl.from_pandas(frame), ["AP", "P@1"]))


@pytest.mark.parametrize("seed", range(4))
def test_integer_id_columns_equal_their_decimal_text(seed: int) -> None:
    """Integer id columns (int64 with negatives and extremes, int32, uint64) in grouped
    and interleaved order give the numbers of the same ids as strings, from pandas,
    polars and pyarrow."""
    rng = np.random.default_rng(seed)
    n = 400
    extremes = np.array([-(2**63), 2**63 - 1, 0, -1, 10, 9, 100], dtype=np.int64)
    qpool = np.concatenate([extremes, rng.integers(-50, 50, 5)])
    dpool = np.concatenate([extremes, rng.integers(-(2**40), 2**40, 60)])
    qids = rng.choice(qpool, n)
    if seed % 2:
        qids = np.sort(qids, kind="stable")  # grouped: long runs
    docs = rng.choice(dpool, n)
    run = pd.DataFrame({"query_id": qids, "doc_id": docs, "score": rng.integers(0, 5, n) / 4})
    run = run.drop_duplicates(["query_id", "doc_id"]).reset_index(drop=True)
    qrels = pd.DataFrame(
        {
            "query_id": rng.choice(qpool, 200),
            "doc_id": rng.choice(dpool, 200),
            "relevance": rng.integers(-1, 3, 200),
        }
    ).drop_duplicates(["query_id", "doc_id"])
    text = ranklens.evaluate(
        qrels.astype({"query_id": str, "doc_id": str}),
        run.astype({"query_id": str, "doc_id": str}),
        MEASURES,
    )
    _same(text, ranklens.evaluate(qrels, run, MEASURES))
    _same(text, ranklens.evaluate(pl.from_pandas(qrels), pl.from_pandas(run), MEASURES))
    fits = [run[c].between(-(2**31), 2**31 - 1) for c in ("query_id", "doc_id")]
    small = run[fits[0] & fits[1]]
    as32 = small.astype({"query_id": np.int32, "doc_id": np.int32})
    with warnings.catch_warnings():  # the small ids leave most queries no judged document
        warnings.simplefilter("ignore", InputWarning)
        want = ranklens.evaluate(qrels, small.astype({"query_id": str, "doc_id": str}), MEASURES)
        _same(want, ranklens.evaluate(qrels, as32, MEASURES))
    unsigned = run[(run.query_id >= 0) & (run.doc_id >= 0)]
    as_u64 = pa.table(
        {
            "query_id": pa.array(unsigned.query_id.to_numpy().astype(np.uint64)),
            "doc_id": pa.array(unsigned.doc_id.to_numpy().astype(np.uint64) + np.uint64(2**63)),
            "score": unsigned.score.to_numpy(),
        }
    )
    got = Run.from_frame(as_u64)  # doc ids above int64's range keep their digits
    assert got.docids() == [str(int(d) + 2**63) for d in unsigned.doc_id.to_numpy()[got.lines]]
    assert list(got.qids) == sorted({str(q) for q in unsigned.query_id}, key=got.qids.index)


def test_object_id_columns_that_are_not_all_str() -> None:
    """Object columns: ints convert as integer ids; None or NaN is a missing value named
    by its row; mixed ints and strings, and strings that are not valid Unicode, are clear
    errors."""
    ints = pd.DataFrame(
        {"query_id": [1, 1, 2], "doc_id": [10, 2, 3], "score": [0.5, 0.7, 0.1]}, dtype=object
    ).astype({"score": float})
    assert Run.from_frame(ints).qids == ("1", "2")
    for missing in (None, float("nan")):
        frame = pd.DataFrame(
            {"query_id": ["a", "a", "b"], "doc_id": ["x", missing, "z"], "score": [1.0] * 3},
            dtype=object,
        ).astype({"score": float})
        with pytest.raises(InputError, match="'doc_id' has a missing value") as err:
            Run.from_frame(frame)
        assert str(err.value).startswith("<DataFrame>:1: ")  # the row, from 0
        frame = frame.astype({"doc_id": str}).assign(query_id=["a", missing, "b"])
        with pytest.raises(InputError, match="'query_id' has a missing value"):
            Run.from_frame(frame)
    mixed = pd.DataFrame(
        {"query_id": ["a", 2], "doc_id": ["x", "y"], "score": [1.0, 2.0]}, dtype=object
    ).astype({"score": float})
    with pytest.raises(InputError, match="'query_id' mixes types"):
        Run.from_frame(mixed)
    bad = pd.DataFrame(
        {"query_id": ["a", "a"], "doc_id": ["x", "\ud800"], "score": [1.0, 2.0]}, dtype=object
    ).astype({"score": float})
    with pytest.raises(InputError, match="not valid UTF-8"):
        Run.from_frame(bad)


def test_unused_categories_do_not_become_queries() -> None:
    frame = pd.DataFrame({"query_id": ["a", "a"], "doc_id": ["x", "y"], "score": [1.0, 2.0]})
    frame["query_id"] = frame["query_id"].astype(pd.CategoricalDtype(["a", "b", "c"]))
    run = Run.from_frame(frame)
    assert run.qids == ("a",)


def test_bad_table_input_is_a_clear_error() -> None:
    with pytest.raises(InputError, match="missing value"):
        Run.from_frame(
            pa.table({"query_id": ["a", None], "doc_id": ["x", "y"], "score": [1.0, 2.0]})
        )
    with pytest.raises(InputError, match="must be numeric"):
        Run.from_frame(pa.table({"query_id": ["a"], "doc_id": ["x"], "score": ["high"]}))
    with pytest.raises(InputError, match="ids must be strings, categoricals or integers"):
        Run.from_frame(pa.table({"query_id": ["a"], "doc_id": [1.5], "score": [1.0]}))
    with pytest.raises(InputError, match="not an integer"):
        Qrels.from_frame(pa.table({"query_id": ["a"], "doc_id": ["x"], "relevance": [0.5]}))


@pytest.mark.parametrize("bad", [float("inf"), float("-inf"), float("nan")])
def test_a_frame_score_that_is_not_finite_names_its_row(bad: float) -> None:
    """Scores whose sum overflows are still fine; an infinite or NaN score is an error
    naming its row, from pandas and from pyarrow."""
    huge = pd.DataFrame({"query_id": ["q"] * 3, "doc_id": ["a", "b", "c"], "score": [1e308] * 3})
    assert Run.from_frame(huge).to_dict() == {"q": {"a": 1e308, "b": 1e308, "c": 1e308}}
    frame = huge.assign(score=[1.0, 2.0, bad])
    table = pa.table({name: frame[name].tolist() for name in frame.columns})  # NaN a value
    # pandas' NaN is its missing value
    message = "has a missing value" if bad != bad else "is not a finite number"
    for source, expected in ((frame, message), (table, "is not a finite number")):
        with pytest.raises(InputError, match=expected) as err:
            Run.from_frame(source)
        assert str(err.value).startswith("<DataFrame>:2: ")
