"""Reading qrels and runs from every supported source gives the same data and numbers."""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import math
from pathlib import Path

import numpy as np
import pandas as pd
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ranklens
from ranklens import Qrels, Run
from ranklens.base.errors import DuplicateError, EmptyInputError, InputError, ParseError

QRELS = {"10": {"a": 1, "b": 0, "c": 2, "x": -1}, "9": {"a": 1}, "100": {"z": 0}}
RUN = {"10": {"a": 0.5, "b": 0.5, "c": 0.25, "u": 1.0}, "9": {"b": 2.0, "a": 1.0}, "7": {"a": 1.0}}
MEASURES = ["AP", "nDCG@10", "P@2", "RR", "Bpref", "NumRet", "R@1"]


def reference() -> dict[str, float]:
    return ranklens.evaluate(QRELS, RUN, MEASURES).aggregate


def run_text(sep: str = " ", newline: str = "\n") -> str:
    lines = []
    for qid, docs in RUN.items():
        for rank, (doc, score) in enumerate(docs.items(), start=1):
            lines.append(sep.join([qid, "Q0", doc, str(rank), repr(score), "tag"]))
    return newline.join(lines) + newline


def qrels_text() -> str:
    return "".join(f"{q} 0 {d} {r}\n" for q, docs in QRELS.items() for d, r in docs.items())


def test_queries_are_grouped_in_byte_order() -> None:
    qrels = Qrels.from_dict(QRELS)
    assert qrels.qids == ("10", "100", "9")
    assert qrels.to_dict() == {q: QRELS[q] for q in ("10", "100", "9")}


@pytest.mark.parametrize(
    "compress,suffix",
    [(lambda b: b, ".txt"), (gzip.compress, ".gz"), (bz2.compress, ".bz2"), (lzma.compress, ".xz")],
)
def test_compressed_files(tmp_path: Path, compress, suffix: str) -> None:
    q, r = tmp_path / f"q{suffix}", tmp_path / f"r{suffix}"
    q.write_bytes(compress(qrels_text().encode()))
    r.write_bytes(compress(run_text().encode()))
    assert ranklens.evaluate(q, r, MEASURES).aggregate == reference()


def test_compression_is_detected_by_content_not_name(tmp_path: Path) -> None:
    r = tmp_path / "run.txt"
    r.write_bytes(gzip.compress(run_text().encode()))
    assert ranklens.evaluate(QRELS, r, MEASURES).aggregate == reference()


def test_broken_gzip_is_a_clear_error(tmp_path: Path) -> None:
    r = tmp_path / "run.gz"
    r.write_bytes(gzip.compress(run_text().encode())[:30])
    with pytest.raises(InputError, match=r"run\.gz: is not a valid gzip file"):
        Run.from_file(r)


def test_whitespace_crlf_comments_and_blank_lines(tmp_path: Path) -> None:
    text = "# a comment\n\n" + run_text(sep=" \t  ", newline="\r\n").replace(
        "\r\n", "\r\n   # x\r\n", 1
    )
    r = tmp_path / "run.txt"
    r.write_text(text)
    assert ranklens.evaluate(QRELS, r, MEASURES).aggregate == reference()


def test_missing_final_newline_and_extra_columns(tmp_path: Path) -> None:
    r = tmp_path / "run.txt"
    r.write_text(run_text().replace(" tag\n", " tag extra cols\n").rstrip("\n"))
    run = Run.from_file(r)
    assert len(run) == sum(len(d) for d in RUN.values())
    assert run.name == "tag"


def test_run_name_falls_back_to_file_name_and_can_be_given(tmp_path: Path) -> None:
    r = tmp_path / "bm25.run"
    r.write_text(run_text())
    assert Run.from_file(r).name == "tag"
    assert Run.from_file(r, name="mine").name == "mine"


def test_file_objects_and_stdin(monkeypatch) -> None:
    assert len(Run.from_file(io.StringIO(run_text()))) == len(Run.from_dict(RUN))
    assert len(Qrels.from_file(io.BytesIO(qrels_text().encode()))) == 6
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(run_text().encode())))
    assert Run.from_file("-").to_dict() == Run.from_dict(RUN).to_dict()


def test_records_and_dicts_agree() -> None:
    records = [(q, d, s) for q, docs in RUN.items() for d, s in docs.items()]
    qrecords = [(q, d, r) for q, docs in QRELS.items() for d, r in docs.items()]
    assert ranklens.evaluate(qrecords, records, MEASURES).aggregate == reference()
    assert Run.from_records(records).to_dict() == Run.from_dict(RUN).to_dict()


def _frames(module: str, categorical: bool, int_ids: bool) -> tuple[object, object]:
    qrows = [(q, d, r) for q, docs in QRELS.items() for d, r in docs.items()]
    rrows = [(q, d, s) for q, docs in RUN.items() for d, s in docs.items()]
    qcols = {
        "query_id": [r[0] for r in qrows],
        "doc_id": [r[1] for r in qrows],
        "relevance": [r[2] for r in qrows],
    }
    rcols = {
        "qid": [r[0] for r in rrows],
        "docid": [r[1] for r in rrows],
        "score": [r[2] for r in rrows],
    }
    if int_ids:
        qcols["query_id"] = [int(q) for q in qcols["query_id"]]
        rcols["qid"] = [int(q) for q in rcols["qid"]]
    if module == "pandas":
        qf, rf = pd.DataFrame(qcols), pd.DataFrame(rcols)
        if categorical:
            qf["doc_id"] = qf["doc_id"].astype("category")
            rf["docid"] = rf["docid"].astype("category")
        return qf, rf
    qf, rf = pl.DataFrame(qcols), pl.DataFrame(rcols)
    if categorical:
        qf = qf.with_columns(pl.col("doc_id").cast(pl.Categorical))
        rf = rf.with_columns(pl.col("docid").cast(pl.Categorical))
    return qf, rf


@pytest.mark.parametrize("module", ["pandas", "polars"])
@pytest.mark.parametrize("categorical", [False, True])
@pytest.mark.parametrize("int_ids", [False, True])
def test_dataframes(module: str, categorical: bool, int_ids: bool) -> None:
    qf, rf = _frames(module, categorical, int_ids)
    assert ranklens.evaluate(qf, rf, MEASURES).aggregate == reference()


def test_dataframe_column_names_can_be_given_and_errors_are_clear() -> None:
    frame = pd.DataFrame({"q": ["1"], "d": ["a"], "s": [1.0]})
    run = Run.from_frame(frame, qid_col="q", doc_col="d", score_col="s")
    assert run.to_dict() == {"1": {"a": 1.0}}
    with pytest.raises(InputError, match="no query id column"):
        Run.from_frame(frame)
    with pytest.raises(InputError, match="column 'score' has a missing value"):
        Run.from_frame(pd.DataFrame({"qid": ["1", "1"], "docid": ["a", "b"], "score": [1.0, None]}))
    with pytest.raises(InputError, match="is not a finite number"):
        Run.from_frame(pd.DataFrame({"qid": ["1"], "docid": ["a"], "score": [np.inf]}))
    with pytest.raises(InputError, match="is not an integer"):
        Qrels.from_frame(pd.DataFrame({"qid": ["1"], "docid": ["a"], "rel": [1.5]}))


def test_in_memory_errors_name_the_entry() -> None:
    with pytest.raises(InputError, match=r"query 'q', document 'd': score 'x' is not a number"):
        Run.from_dict({"q": {"d": "x"}})
    with pytest.raises(InputError, match="score nan is not finite"):
        Run.from_dict({"q": {"d": float("nan")}})
    with pytest.raises(InputError, match=r"relevance 1\.5 is not an integer"):
        Qrels.from_dict({"q": {"d": 1.5}})
    with pytest.raises(InputError, match="must be str or int"):
        Run.from_records([(1.5, "d", 1.0)])
    with pytest.raises(DuplicateError, match="rows 1 and 2") as info:
        Run.from_records([("q", "d", 1.0), ("q", "d", 2.0)])
    assert info.value.lines == (1, 2)
    with pytest.raises(EmptyInputError):
        Qrels.from_dict({})
    assert len(Run.from_dict({})) == 0  # an empty run in Python retrieves nothing


def test_duplicate_policies_first_and_max(tmp_path: Path) -> None:
    r = tmp_path / "run.txt"
    r.write_text("q Q0 d 1 1.0 t\nq Q0 e 2 0.5 t\nq Q0 d 3 3.0 t\nq Q0 d 4 2.0 t\n")
    with pytest.raises(DuplicateError) as info:
        Run.from_file(r)
    assert info.value.lines == (1, 3) and info.value.path == str(r)
    assert Run.from_file(r, duplicates="first").to_dict() == {"q": {"d": 1.0, "e": 0.5}}
    assert Run.from_file(r, duplicates="max").to_dict() == {"q": {"e": 0.5, "d": 3.0}}
    q = tmp_path / "qrels.txt"
    q.write_text("q 0 d 1\nq 0 d 2\n")
    assert Qrels.from_file(q, duplicates="max").to_dict() == {"q": {"d": 2}}


def test_write_and_read_back_round_trips(tmp_path: Path) -> None:
    run = Run.from_dict({"q": {"a": 0.1, "b": 1 / 3, "c": 1e-300, "d": -2.5}}, name="sys")
    path = tmp_path / "run.txt"
    run.write(path)
    back = Run.from_file(path)
    assert back.to_dict() == run.to_dict() and back.name == "sys"
    lines = path.read_text().splitlines()
    assert [line.split()[2] for line in lines] == ["b", "a", "c", "d"]
    assert [line.split()[3] for line in lines] == ["1", "2", "3", "4"]
    qrels = Qrels.from_dict(QRELS)
    qpath = tmp_path / "qrels.txt"
    qrels.write(qpath)
    assert Qrels.from_file(qpath).to_dict() == qrels.to_dict()


def test_to_pandas_frames() -> None:
    frame = Run.from_dict(RUN).to_pandas()
    assert list(frame.columns) == ["query_id", "doc_id", "score"] and len(frame) == 7
    assert Qrels.from_dict(QRELS).to_pandas()["relevance"].tolist()[:4] == [1, 0, 2, -1]


def test_parse_error_has_path_and_line(tmp_path: Path) -> None:
    r = tmp_path / "run.txt"
    r.write_text("q Q0 d 1 1.0 t\n\n# c\nq Q0 e 2 x t\n")
    with pytest.raises(ParseError) as info:
        Run.from_file(r)
    assert (info.value.path, info.value.line) == (str(r), 4)
    assert str(info.value) == f"{r}:4: score 'x' is not a number"


def test_inputs_are_not_mutated() -> None:
    qrels = {"q": {"a": 1, "b": 0}}
    run = {"q": {"a": 0.1, "b": 0.9}}
    snapshot = (repr(qrels), repr(run))
    ranklens.evaluate(qrels, run, ["AP", "nDCG"])
    assert (repr(qrels), repr(run)) == snapshot
    loaded = Run.from_dict(run)
    with pytest.raises(ValueError):
        loaded.scores[0] = 5.0


# --- the TREC run writer: byte-identical to one Python string per line with repr ---------

ID_TEXT = st.text(
    st.characters(blacklist_categories=("Cs", "Zs", "Zl", "Zp", "Cc")) | st.sampled_from("#\x7fé𝄞"),
    min_size=1,
    max_size=8,
)
SCORE = st.floats(allow_nan=False, allow_infinity=False) | st.sampled_from(
    [0.0, -0.0, 1.0, 1e-05, 1e-4, 1e16, 1e15, 0.1, 5e-324, 1.7976931348623157e308, -2.5]
)


def reference_lines(run: Run, ties: str = "trec_eval", name: str | None = None) -> str:
    """The writer as it was: one f-string per line, ``repr`` of each score."""
    order = run.ranking(ties)
    qidx_array = run.query_of_entries()
    starts = run.q_offsets[:-1][qidx_array[order]]
    ranks = (np.arange(len(run), dtype=np.int64) - starts + 1).tolist()
    qidx, docs, scores = qidx_array.tolist(), run.docids(), run.scores.tolist()
    tag = name or run.name
    return "".join(
        f"{run.qids[qidx[i]]} Q0 {docs[i]} {rank} {float(scores[i])!r} {tag}\n"
        for i, rank in zip(order.tolist(), ranks, strict=True)
    )


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.dictionaries(
        ID_TEXT.filter(lambda q: not q.startswith("#")),  # a '#' line is a comment: refused
        st.dictionaries(ID_TEXT, SCORE, min_size=1, max_size=6),
        min_size=1,
    ),
    st.sampled_from(["trec_eval", "input", "docid_asc"]),
    st.none() | ID_TEXT,
)
def test_run_writer_is_byte_identical_to_repr_lines(tmp_path_factory, docs, ties, name) -> None:
    run = Run.from_dict(docs, name="my run")
    want = reference_lines(run, ties, name)
    stream = io.StringIO()
    run.write(stream, ties=ties, name=name)
    assert stream.getvalue() == want
    path = tmp_path_factory.mktemp("w") / "run.txt"
    run.write(path, ties=ties, name=name)
    assert path.read_bytes() == want.encode("utf-8")


def test_run_writer_in_chunks_of_queries(monkeypatch, tmp_path: Path) -> None:
    """Chunks of whole queries join up to the same text (ties and repeated scores too)."""
    from ranklens.data import trec_text

    rng = np.random.default_rng(7)
    docs = {
        f"q{q}": {
            f"d{i}": float(rng.choice([0.5, 1.0, 1 / 3, -0.0, 2e-7])) for i in range(q % 9 + 1)
        }
        for q in range(40)
    }
    run = Run.from_dict(docs)
    monkeypatch.setattr(trec_text, "CHUNK_LINES", 7)
    path = tmp_path / "run.txt"
    run.write(path)
    assert path.read_text(encoding="utf-8") == reference_lines(run)


def test_scores_written_as_repr_on_many_doubles() -> None:
    """Native score text against ``repr``: random bit patterns (NaNs among them), every
    binary exponent, powers of ten and their neighbours, subnormals, rounded decimals,
    integers, infinities."""
    from ranklens.data.native import core

    rng = np.random.default_rng(2026)
    n = 20_000
    special = [0.0, -0.0, 1e-5, 1e-4, 1e16, 9999999999999998.0, 1e22, 1e23, 0.3, 5e-324]
    special += [float(np.ldexp(1.0, e)) for e in range(-1074, 1024)]
    special += [float(10.0**e) for e in range(-323, 309)]
    near = np.array(special)
    with np.errstate(over="ignore"):
        special += np.nextafter(near, np.inf).tolist() + np.nextafter(near, -np.inf).tolist()
    scores = np.concatenate(
        [
            rng.integers(0, 2**64, n, dtype=np.uint64).view(np.float64),
            rng.integers(0, 2**53, n) * np.ldexp(1.0, rng.integers(-1074, 971, n)),
            np.round(rng.random(n) * 30, 3),
            rng.random(n),
            rng.integers(-(10**6), 10**6, n).astype(np.float64),
            np.array(special),
            np.array([math.inf, -math.inf, math.nan, -math.nan]),
        ]
    )
    m = len(scores)
    text = core.format_run(
        np.frombuffer(b"q", dtype=np.uint8),
        np.array([0, 1]),
        np.array([0, m]),
        np.full(m, ord("d"), dtype=np.uint8),
        np.arange(m + 1, dtype=np.int64),
        scores,
        np.arange(m, dtype=np.int64),
        b"t",
        0,
        1,
    )
    got = [line.split(b" ")[4].decode() for line in text.splitlines()]
    assert got == [repr(x) for x in scores.tolist()]
