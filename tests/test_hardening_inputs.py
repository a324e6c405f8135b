"""Issue #23, part A: the data-input layer (dicts, Arrow, subtopic qrels, Parquet / JSON
lines / DataFrame readers, streaming of non-text files) gives a correct number or a clear
:class:`~ranklens.RanklensError` naming the file and line or the row.

Every expected number comes from another input path (TREC text, or the equivalent clean
input), never from ranklens' own output copied in.
"""

from __future__ import annotations

import bz2
import gzip
import io
import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import ranklens
from ranklens import Qrels, Results, Run, evaluate
from ranklens.base.errors import DuplicateError, InputError, ParseError
from ranklens.cli import main
from ranklens.data.fields import parse_ints
from ranklens.data.subtopics import SubtopicQrels, read_subtopic_qrels

MEASURES = ["AP", "R@10", "nDCG@10", "P@2"]
QRELS = {"q1": {"a": 2, "b": 0, "c": 1}, "q2": {"d": 1, "e": 1}}
RUN = {"q1": {"a": 0.5, "b": 0.9, "x": 0.1}, "q2": {"e": 0.3, "y": 0.7}}


def _trec_run(run: dict[str, dict[str, float]], tag: str = "t") -> bytes:
    lines = [
        f"{q} Q0 {d} {i + 1} {s!r} {tag}\n"
        for q, docs in run.items()
        for i, (d, s) in enumerate(docs.items())
    ]
    return "".join(lines).encode()


def _trec_qrels(qrels: dict[str, dict[str, int]]) -> bytes:
    return "".join(
        f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items()
    ).encode()


def _reference() -> dict[str, float]:
    return dict(
        evaluate(io.BytesIO(_trec_qrels(QRELS)), io.BytesIO(_trec_run(RUN)), MEASURES).aggregate
    )


def _run_frame(run: dict[str, dict[str, float]] = RUN) -> pd.DataFrame:
    rows = [(q, d, s) for q, docs in run.items() for d, s in docs.items()]
    return pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])


# ------------------------------------------------------------------ 1. colliding keys


def test_dict_document_keys_that_name_one_id_are_duplicates() -> None:
    with pytest.raises(DuplicateError, match="document '1' twice"):
        evaluate({"q": {"1": 1}}, {"q": {"1": 0.5, 1: 0.9}}, ["AP", "R@10"])
    with pytest.raises(DuplicateError, match="document '1' twice"):
        evaluate({"q": {"1": 1, 1: 0}}, {"q": {"1": 0.5}}, ["AP"])


def test_dict_duplicates_policy_is_honoured_as_for_records() -> None:
    qrels = {"q": {"1": 1, "2": 1}}
    for policy in ("first", "max"):
        by_dict = evaluate(qrels, {"q": {"1": 0.5, 1: 0.9, "2": 0.7}}, MEASURES, duplicates=policy)
        by_records = evaluate(
            qrels, [("q", "1", 0.5), ("q", 1, 0.9), ("q", "2", 0.7)], MEASURES, duplicates=policy
        )
        assert by_dict.per_query == by_records.per_query
        assert max(by_dict.aggregate.values()) <= 1.0
    # qrels too: the key order no longer silently decides the grade
    got = evaluate({"q": {"1": 0, 1: 2}}, {"q": {"1": 0.5}}, ["AP"], duplicates="max")
    assert got.aggregate["AP"] == 1.0


def test_dict_query_keys_that_name_one_id() -> None:
    with pytest.raises(DuplicateError, match="query id '1' is given twice"):
        evaluate({"1": {"d": 1}}, {"1": {"d": 0.5}, 1: {"x": 0.3}}, ["AP"])
    with pytest.raises(DuplicateError, match="query id '1' is given twice"):
        Qrels.from_dict({"1": {"d": 1}, 1: {"e": 1}})
    merged = Run.from_dict({"1": {"d": 0.5}, 1: {"x": 0.3}}, duplicates="first")
    assert merged.to_dict() == {"1": {"d": 0.5, "x": 0.3}}


# ------------------------------------------------------- 2. nulls in Arrow dictionaries


@pytest.mark.parametrize("column", ["query_id", "doc_id"])
def test_null_inside_an_arrow_dictionary_is_a_missing_value(column: str) -> None:
    values = {"query_id": ["q1", "q1", "q1"], "doc_id": ["a", "b", "c"]}
    values[column] = [*values[column][:2], None]
    arrays = {
        name: pa.array(v).dictionary_encode(null_encoding="encode") if name == column else v
        for name, v in values.items()
    }
    table = pa.table({**arrays, "score": [0.3, 0.2, 0.1]})
    assert table.column(column).null_count == 0  # the trap: Arrow counts no null
    with pytest.raises(InputError, match=rf"<DataFrame>:2: column '{column}' has a missing"):
        Run.from_frame(table)
    polars = pl.from_arrow(table)
    with pytest.raises(InputError, match="missing value"):
        Run.from_frame(polars)
    frame = pd.DataFrame({k: pd.Categorical(v) for k, v in values.items()}).assign(score=1.0)
    with pytest.raises(InputError, match="missing value"):
        Run.from_frame(frame)


def test_a_null_dictionary_entry_no_row_uses_is_fine() -> None:
    words = pa.array(["q1", None])
    column = pa.DictionaryArray.from_arrays(pa.array([0, 0], pa.int32()), words)
    table = pa.table({"query_id": column, "doc_id": ["a", "b"], "score": [0.5, 0.1]})
    assert Run.from_frame(table).to_dict() == {"q1": {"a": 0.5, "b": 0.1}}


# ------------------------------------------------------------- 3, 4, 21. subtopic qrels

SUBTOPIC_TEXT = b"q1 1 a 1\nq1 2 a 0\nq1 2 b 1\nq1 3 c 2\nq2 1 d 1\nq2 2 e 0\nq2 2 d 1\n"


def _subtopic_rows() -> list[tuple[str, int, str, int]]:
    return [
        (q, int(s), d, int(g))
        for q, s, d, g in (line.split() for line in SUBTOPIC_TEXT.decode().splitlines())
    ]


def _same_subtopics(got: SubtopicQrels, want: SubtopicQrels) -> None:
    assert got.qids == want.qids and got.docids == want.docids
    for name in ("doc_offsets", "pair_offsets", "pair_sub", "sub_offsets", "declared"):
        assert getattr(got, name).tolist() == getattr(want, name).tolist(), name
    assert got.doc_grade.tolist() == want.doc_grade.tolist()


def _subtopic_frames() -> dict[str, Any]:
    rows = _subtopic_rows()
    frame = pd.DataFrame(rows, columns=["query_id", "subtopic", "doc_id", "relevance"])
    return {
        "pandas": frame,
        "polars": pl.from_pandas(frame),
        "arrow": pa.Table.from_pandas(frame, preserve_index=False),
        "records": rows,
        "dict": {
            q: {
                d: {s: g for q3, s, d3, g in rows if (q3, d3) == (q, d)}
                for q2, _, d, _ in rows
                if q2 == q
            }
            for q in ("q1", "q2")
        },
    }


@pytest.mark.parametrize("kind", ["pandas", "polars", "arrow", "records", "dict"])
def test_subtopic_qrels_from_every_input_equal_the_file(kind: str) -> None:
    want = SubtopicQrels.from_file(io.BytesIO(SUBTOPIC_TEXT))
    source = _subtopic_frames()[kind]
    _same_subtopics(read_subtopic_qrels(source), want)


@pytest.mark.parametrize(
    ("grade", "match"),
    [
        (0.5, "not an integer"),
        (0.9, "not an integer"),
        (True, "not a number"),
        ("1", "not a number"),
    ],
)
def test_subtopic_judgments_are_checked_as_ordinary_qrels(grade: Any, match: str) -> None:
    with pytest.raises(InputError, match=match):
        SubtopicQrels.from_records([("q1", 1, "a", 1), ("q1", 2, "b", grade)])
    with pytest.raises(InputError, match=match):
        SubtopicQrels.from_dict({"q1": {"a": {1: 1}, "b": {2: grade}}})
    if isinstance(grade, float):
        frame = pd.DataFrame(
            {
                "query_id": ["q1", "q1"],
                "subtopic": [1, 2],
                "doc_id": ["a", "b"],
                "relevance": [1, grade],
            }
        )
        with pytest.raises(InputError, match=r"<DataFrame>:1: column 'relevance'"):
            SubtopicQrels.from_frame(frame)


def test_subtopic_missing_ids_are_errors_not_a_query_nan() -> None:
    frame = pd.DataFrame(
        {"query_id": ["q1", None], "subtopic": [1, 2], "doc_id": ["a", "b"], "relevance": [1, 1]}
    )
    with pytest.raises(InputError, match=r"<DataFrame>:1: column 'query_id' has a missing"):
        SubtopicQrels.from_frame(frame)
    with pytest.raises(InputError, match=r"<records>:2: query and document ids"):
        SubtopicQrels.from_records([("q1", 1, "a", 1), (float("nan"), 1, "b", 1)])
    with pytest.raises(InputError, match=r"<records>:1: .*subtopic None"):
        SubtopicQrels.from_records([("q1", None, "a", 1)])


@pytest.mark.parametrize(
    "grade", ["9223372036854775808", "-9223372036854775809", "12345678901234567890123"]
)
def test_subtopic_grades_beyond_64_bits_are_errors(grade: str) -> None:
    text = f"q1 1 a 1\nq1 2 b {grade}\n".encode()
    with pytest.raises(ParseError, match=r":2: judgment .* does not fit a 64-bit integer"):
        SubtopicQrels.from_file(io.BytesIO(text))


def test_19_digit_numbers_within_64_bits_read_exactly() -> None:
    column = np.array(
        [b"9223372036854775807", b"-9223372036854775808", b"0000000000000000000000042", b"-7"]
    )
    assert parse_ints(column, "x", "n", signed=True).tolist() == [
        2**63 - 1,
        -(2**63),
        42,
        -7,
    ]
    with pytest.raises(ParseError, match=r"x:1: rank '18446744073709551617' does not fit"):
        parse_ints(np.array([b"18446744073709551617"]), "x", "rank")


# ---------------------------------------------------------------------- 17. Parquet


@pytest.mark.parametrize("content", [b"", b"PAR1", b"not parquet at all\n"])
def test_bad_parquet_files_are_input_errors_naming_the_file(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "run.parquet"
    path.write_bytes(content)
    for read in (Run.from_parquet, Qrels.from_parquet, Results.from_parquet):
        with pytest.raises(InputError, match=r"run\.parquet: cannot read it as Parquet"):
            read(path)
    with pytest.raises(InputError, match=r"run\.parquet: cannot read it as Parquet"):
        evaluate(QRELS, str(path), ["AP"])


def test_truncated_parquet_and_dask(tmp_path: Path) -> None:
    good = tmp_path / "good.parquet"
    Run.from_dict(RUN).to_parquet(good)
    cut = tmp_path / "cut.parquet"
    cut.write_bytes(good.read_bytes()[: good.stat().st_size // 2])
    with pytest.raises(InputError, match=r"cut\.parquet: cannot read it as Parquet"):
        Run.from_parquet(cut)
    pytest.importorskip("dask", reason="the Dask half needs the dask extra")
    import ranklens.dask as rd

    with pytest.raises(InputError, match=r"cut\.parquet: cannot read it as Parquet"):
        rd.evaluate(Qrels.from_dict(QRELS).to_pandas(), str(cut), ["AP"])


def test_parquet_run_name_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "run.parquet"
    table = pa.table({"query_id": ["q1"], "doc_id": ["a"], "score": [1.0]})
    pq.write_table(table.replace_schema_metadata({b"ranklens.run": b"\xff\xfe"}), path)
    with pytest.raises(InputError, match=r"run\.parquet: the run name saved in it"):
        Run.from_parquet(path)
    assert Run.from_parquet(path, name="given").name == "given"


def test_parquet_errors_name_the_file_and_row(tmp_path: Path) -> None:
    path = tmp_path / "run.parquet"
    frame = pd.DataFrame(
        {"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "c"], "score": [0.1, None, 0.3]}
    )
    frame.to_parquet(path)
    with pytest.raises(InputError, match=r"run\.parquet:2: column 'score' has a missing value"):
        Run.from_parquet(path)
    frame.assign(score=1.0, doc_id=["a", "b", "a"], query_id="q1").to_parquet(path)
    with pytest.raises(DuplicateError, match=r"run\.parquet:3: .*'a' twice"):
        Run.from_parquet(path)


def test_compressed_parquet_reads_as_the_plain_file(tmp_path: Path) -> None:
    plain = tmp_path / "run.parquet"
    Run.from_dict(RUN, name="r").to_parquet(plain)
    packed = tmp_path / "run.parquet.gz"
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    assert (
        evaluate(QRELS, str(packed), MEASURES).per_query
        == evaluate(QRELS, str(plain), MEASURES).per_query
    )


# ------------------------------------------------------------------- 18. JSON lines


def _jsonl(run: dict[str, dict[str, float]] = RUN) -> bytes:
    return "".join(
        json.dumps({"query_id": q, "doc_id": d, "score": s, "run": "t"}) + "\n"
        for q, docs in run.items()
        for d, s in docs.items()
    ).encode()


def test_jsonl_with_a_bom_and_compressed_read_as_text(tmp_path: Path) -> None:
    want = _reference()
    for name, content in (
        ("bom.jsonl", b"\xef\xbb\xbf" + _jsonl()),
        ("run.jsonl.bz2", bz2.compress(_jsonl())),
        ("run.jsonl.gz", gzip.compress(_jsonl())),
    ):
        path = tmp_path / name
        path.write_bytes(content)
        assert evaluate(_trec_qrels_path(tmp_path), str(path), MEASURES).aggregate == want


def _trec_qrels_path(tmp_path: Path) -> str:
    path = tmp_path / "qrels.txt"
    path.write_bytes(_trec_qrels(QRELS))
    return str(path)


@pytest.mark.parametrize(
    ("line", "match"),
    [
        (b'{"query_id": "q", "doc_id": "d\xff", "score": 1}', "not UTF-8"),
        (b"\x00\x01\x02\x03\xff\xfe binary", "not UTF-8"),
        (b'{"query_id": "q", "doc_id": "d", "score": ' + b"[" * 100_000, "nested too deeply"),
        (b'{"query_id": "q", "doc_id": "d", "score": ' + b"9" * 5000 + b"}", "not JSON"),
        (b'{"query_id": "q", "doc_id": "\\ud800", "score": 1}', "lone surrogate"),
        (b'{"query_id": "\\udfff", "doc_id": "d", "score": 1}', "lone surrogate"),
        (b'{"query_id": "q", "doc_id": "d", "score": true}', "not a number"),
        (b'["q", "d", 1]', "must be an object"),
    ],
)
def test_bad_jsonl_lines_name_file_and_line(tmp_path: Path, line: bytes, match: str) -> None:
    path = tmp_path / "run.jsonl"
    path.write_bytes(_jsonl({"q0": {"a": 1.0}}) + b"\n" + line + b"\n")
    with pytest.raises(InputError, match=rf"run\.jsonl:3: .*{match}"):
        Run.from_jsonl(path)


def test_truncated_or_corrupt_jsonl_gz(tmp_path: Path) -> None:
    packed = gzip.compress(_jsonl())
    path = tmp_path / "run.jsonl.gz"
    path.write_bytes(packed[: len(packed) // 2])
    with pytest.raises(InputError, match=r"run\.jsonl\.gz: is not a valid gzip file"):
        Run.from_jsonl(path)
    path.write_bytes(b"\x1f\x8b garbage")
    with pytest.raises(InputError, match=r"run\.jsonl\.gz: is not a valid gzip file"):
        Qrels.from_jsonl(path)


def test_jsonl_duplicates_name_the_file_lines(tmp_path: Path) -> None:
    path = tmp_path / "qrels.jsonl"
    row = json.dumps({"query_id": "q", "doc_id": "d", "relevance": 1})
    path.write_text(f"{row}\n\n\n{row}\n")
    with pytest.raises(DuplicateError, match=r"qrels\.jsonl:4: .*lines 1 and 4"):
        Qrels.from_jsonl(path)


# -------------------------------------------------------------------- 19. DataFrames


def test_unrelated_columns_are_not_converted() -> None:
    frame = _run_frame().assign(junk=[object()] * 5, more=[{"a": 1}] * 5)
    assert evaluate(QRELS, frame, MEASURES).aggregate == _reference()


def test_duplicate_column_names() -> None:
    frame = _run_frame()
    doubled = pd.concat([frame, frame[["score"]]], axis=1)
    with pytest.raises(InputError, match="2 columns named 'score'"):
        Run.from_frame(doubled)
    unused = pd.concat([frame, frame[["score"]].set_axis(["x"], axis=1)] * 1, axis=1)
    unused = pd.concat([unused, unused[["x"]]], axis=1)  # 'x' twice, not read
    assert evaluate(QRELS, unused, MEASURES).aggregate == _reference()


def test_complex_scores() -> None:
    frame = _run_frame().assign(score=lambda f: f["score"] + 1j)
    with pytest.raises(InputError, match="column 'score' holds complex numbers"):
        Run.from_frame(frame)


# ------------------------------------------------------------------ 20. lone surrogates


def test_lone_surrogates_in_ids_are_refused_at_input() -> None:
    with pytest.raises(InputError, match="lone surrogate"):
        Run.from_dict({"q1": {"\ud800": 1.0}})
    with pytest.raises(InputError, match="lone surrogate"):
        Qrels.from_dict({"q\udc80": {"a": 1}})
    with pytest.raises(InputError, match=r"<records>:2: query id .* lone surrogate"):
        Run.from_records([("q", "a", 1.0), ("\udfff", "b", 1.0)])


# ----------------------------------------------------------------- 21. other inputs


def test_polars_int128_ids() -> None:
    frame = pl.DataFrame(
        {
            "query_id": pl.Series([1, 1, 2], dtype=pl.Int128),
            "doc_id": pl.Series([2**100, 5, 7], dtype=pl.Int128),
            "score": [0.1, 0.2, 0.3],
        }
    )
    run = Run.from_frame(frame)
    assert run.to_dict() == {"1": {str(2**100): 0.1, "5": 0.2}, "2": {"7": 0.3}}
    grades = pl.DataFrame(
        {"query_id": ["1"], "doc_id": ["5"], "relevance": pl.Series([2**70], dtype=pl.Int128)}
    )
    with pytest.raises(InputError, match="does not fit a 64-bit integer"):
        Qrels.from_frame(grades)


@pytest.mark.parametrize("bad", [5, None, 2.5])
def test_not_a_run_or_qrels_is_an_input_error(bad: Any) -> None:
    with pytest.raises(InputError, match="cannot make a run from"):
        evaluate(QRELS, bad, ["AP"])
    with pytest.raises(InputError, match="cannot make qrels from"):
        evaluate(bad, RUN, ["AP"])


def test_lazy_frames_ask_for_collect() -> None:
    lazy = pl.from_pandas(_run_frame()).lazy()
    with pytest.raises(InputError, match=r"\.collect\(\)"):
        evaluate(QRELS, lazy, ["AP"])
    with pytest.raises(InputError, match=r"\.collect\(\)"):
        evaluate(lazy, RUN, ["AP"])
    with pytest.raises(InputError, match=r"\.collect\(\)"):
        read_subtopic_qrels(pl.DataFrame({"query_id": ["q"]}).lazy())


# ----------------------------------------------------------------- 22. streaming


@pytest.mark.parametrize("suffix", [".parquet", ".jsonl", ".jsonl.bz2"])
def test_streaming_reads_table_files_in_memory(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"run{suffix}"
    if suffix == ".parquet":
        Run.from_dict(RUN, name="t").to_parquet(path)
    else:
        path.write_bytes(bz2.compress(_jsonl()) if suffix.endswith("bz2") else _jsonl())
    qrels = _trec_qrels_path(tmp_path)
    want = _reference()
    ev = ranklens.Evaluator(qrels, MEASURES)
    assert ev.evaluate(str(path), stream=True).aggregate == want
    from ranklens.scale.streaming import evaluate_stream, should_stream

    assert evaluate_stream(ev, str(path)).aggregate == want
    assert not should_stream(str(path), threshold=0)


def test_cli_eval_stream_and_fuse_read_parquet(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    qrels = _trec_qrels_path(tmp_path)
    text = tmp_path / "run.txt"
    text.write_bytes(_trec_run(RUN))
    table = tmp_path / "run.parquet"
    Run.from_dict(RUN, name="t").to_parquet(table)
    assert main(["eval", qrels, str(text), "-m", "AP", "-f", "tsv", "--quiet"]) == 0
    want = capsys.readouterr().out
    assert main(["eval", qrels, str(table), "-m", "AP", "-f", "tsv", "--quiet", "--stream"]) == 0
    assert capsys.readouterr().out == want
    other = tmp_path / "other.txt"
    other.write_bytes(_trec_run({"q1": {"c": 2.0, "a": 1.0}, "q2": {"d": 1.0}}, "o"))
    other_jsonl = tmp_path / "other.jsonl"
    other_jsonl.write_bytes(_jsonl({"q1": {"c": 2.0, "a": 1.0}, "q2": {"d": 1.0}}))
    out_text, out_table = tmp_path / "a.txt", tmp_path / "b.txt"
    assert main(["fuse", str(text), str(other), "-o", str(out_text), "--quiet"]) == 0
    assert main(["fuse", str(table), str(other_jsonl), "-o", str(out_table), "--quiet"]) == 0
    assert out_text.read_bytes() == out_table.read_bytes()


# ------------------------------------------------------------------ 23. input parts


def test_a_mapping_of_runs_is_decided_from_every_value() -> None:
    with pytest.raises(InputError, match="mixes runs and queries"):
        evaluate(QRELS, {"a": RUN, "b": {"d": 1.0}}, ["AP"])
    with pytest.raises(InputError, match="mixes runs and queries"):
        evaluate(QRELS, {"q1": {"a": 1.0}, "q2": RUN}, ["AP"])
    # an empty first value said "one run" before; the other values say "several runs"
    both = evaluate(QRELS, {"empty": {}, "full": RUN}, MEASURES, queries="qrels")
    assert isinstance(both, ranklens.ResultSet)
    assert both.aggregate["full"] == _reference()


def test_dask_errors_name_the_users_columns_and_rows() -> None:
    pytest.importorskip("dask", reason="needs the dask extra")
    import ranklens.dask as rd

    qrels = pd.DataFrame({"qid": ["q1", "q2"], "docno": ["a", "d"], "grade": [1, 1]})
    run = pd.DataFrame(
        {"qid": ["q1", "q2", "q1", "q2"], "docno": ["a", "d", "b", None], "sim": [1.0] * 4}
    )
    with pytest.raises(InputError, match=r"<DataFrame>:3: column 'docno' has a missing value"):
        rd.evaluate(qrels, run, ["AP"], npartitions=2)
    run = run.assign(docno=["a", "d", "a", "e"])
    with pytest.raises(DuplicateError, match=r"<DataFrame>:2: .*'a' twice .*rows 0 and 2"):
        rd.evaluate(qrels, run, ["AP"], npartitions=2)
