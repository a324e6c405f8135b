"""Tests of the native core ``ranklens.data._core`` against plain-Python references."""

from __future__ import annotations

import functools
import math
import mmap
import re
import tempfile
import threading
from collections.abc import Sequence

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ranklens.data.native import core as _core

SETTINGS = settings(
    max_examples=80,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

NUL_MSG = "contains a NUL byte: this looks like a binary file, not TREC text"
RUN_COLS = "expected 6 columns (qid Q0 docid rank score tag), found {}"
QRELS_COLS = "expected 4 columns (qid iter docid relevance), found {}"
UTF8_MSG = "is not valid UTF-8 text"

# ---------------------------------------------------------------------------
# Plain-Python references
# ---------------------------------------------------------------------------

FLOAT_RE = re.compile(rb"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
SPECIAL_RE = re.compile(rb"[+-]?(?:inf(?:inity)?|nan(?:\([0-9A-Za-z_]*\))?)", re.IGNORECASE)
INT_RE = re.compile(rb"[+-]?[0-9]+")


def _text(field: bytes) -> str:
    return field[:160].decode("utf-8", "replace")[:40]  # the core keeps 160 bytes


def ref_score(field: bytes, line: int) -> float:
    # numbers of any length (the core copies long ones to the heap)
    if FLOAT_RE.fullmatch(field):
        value = float(field)
        if math.isfinite(value):
            return value
        raise ValueError(line, f"score '{_text(field)}' is not finite (NaN or infinity)")
    if SPECIAL_RE.fullmatch(field):
        raise ValueError(line, f"score '{_text(field)}' is not finite (NaN or infinity)")
    raise ValueError(line, f"score '{_text(field)}' is not a number")


def ref_rel(field: bytes, line: int) -> int:
    if INT_RE.fullmatch(field) and -(2**63) <= int(field) < 2**63:
        return int(field)
    if FLOAT_RE.fullmatch(field):
        value = float(field)
        if math.isfinite(value) and value == int(value) and abs(value) < 2**53:
            return int(value)
    raise ValueError(line, f"relevance '{_text(field)}' is not an integer")


def _check_utf8(field: bytes, line: int) -> None:
    try:
        field.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(line, UTF8_MSG) from None


def ref_parse(buf: bytes, kind: int, comments: int) -> tuple:
    """What parse_trec must return (or raise), written the obvious way."""
    if b"\0" in buf:
        raise ValueError(buf[: buf.index(b"\0")].count(b"\n") + 1, NUL_MSG)
    entries: list[tuple[bytes, bytes, float | int, int]] = []
    tag = None
    for line_no, line in enumerate(buf.split(b"\n"), 1):
        fields = line.split()  # ASCII whitespace, like C isspace
        if not fields or (comments and fields[0].startswith(b"#")):
            continue
        if kind == 0 and len(fields) < 6:
            raise ValueError(line_no, RUN_COLS.format(len(fields)))
        if kind == 1 and len(fields) != 4:
            raise ValueError(line_no, QRELS_COLS.format(len(fields)))
        _check_utf8(fields[0], line_no)
        _check_utf8(fields[2], line_no)
        if kind == 0:
            value: float | int = ref_score(fields[4], line_no)
            _check_utf8(fields[5], line_no)
            tag = fields[5].decode()
        else:
            value = ref_rel(fields[3], line_no)
        entries.append((fields[0], fields[2], value, line_no))
    qids = sorted({e[0] for e in entries})
    grouped = sorted(entries, key=lambda e: qids.index(e[0]))  # stable: file order kept
    counts = [sum(1 for e in entries if e[0] == q) for q in qids]
    q_offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    docs = [e[1] for e in grouped]
    dtype = np.float64 if kind == 0 else np.int64
    return (
        [q.decode() for q in qids],
        q_offsets,
        docs,
        np.array([e[2] for e in grouped], dtype=dtype),
        np.array([e[3] for e in grouped], dtype=np.int64),
        tag,
    )


def column(data: np.ndarray, offsets: np.ndarray) -> list[bytes]:
    raw = data.tobytes()
    return [raw[offsets[i] : offsets[i + 1]] for i in range(len(offsets) - 1)]


def make_column(strings: Sequence[bytes]) -> tuple[np.ndarray, np.ndarray]:
    offsets = np.zeros(len(strings) + 1, dtype=np.int64)
    offsets[1:] = np.cumsum([len(s) for s in strings])
    data = np.frombuffer(b"".join(strings), dtype=np.uint8).copy()
    return data, offsets


THREADS = (1, 2, 3, 8)
"""Thread counts every parse and rank check runs with (0, the default, is automatic:
one thread for inputs this small)."""


def check_parse(buf: bytes, kind: int, comments: int = 1) -> tuple:
    """Runs parse_trec (with every count of THREADS and the default) and the reference;
    asserts they agree (result or error)."""
    try:
        expected = ref_parse(buf, kind, comments)
    except ValueError as exc:
        for threads in (0, *THREADS):
            with pytest.raises(ValueError) as info:
                _core.parse_trec(buf, kind, comments, threads=threads)
            assert info.value.args == exc.args
            assert isinstance(info.value.args[0], int)
        return ()
    for threads in THREADS:
        got = _core.parse_trec(buf, kind, comments, threads=threads)
        check_parsed(got, expected)
    got = _core.parse_trec(buf, kind, comments)
    return check_parsed(got, expected)


def check_parsed(got: tuple, expected: tuple) -> tuple:
    """Asserts that a parse_trec result equals the reference's."""
    qids, q_offsets, doc_data, doc_offsets, values, lines, tag = got
    assert qids == expected[0]
    np.testing.assert_array_equal(q_offsets, expected[1])
    assert column(doc_data, doc_offsets) == expected[2]
    assert values.dtype == expected[3].dtype
    assert values.tolist() == expected[3].tolist()  # exact, including the sign of zeros
    assert [math.copysign(1, v) for v in values.tolist()] == [
        math.copysign(1, v) for v in expected[3].tolist()
    ]
    np.testing.assert_array_equal(lines, expected[4])
    assert tag == expected[5]
    for array in (q_offsets, doc_offsets, lines):
        assert array.dtype == np.int64
    assert doc_data.dtype == np.uint8
    return got


def ref_rank(
    q_offsets: np.ndarray, docs: list[bytes], scores: np.ndarray, policy: int
) -> list[int]:
    def cmp(a: int, b: int) -> int:
        if scores[a] != scores[b]:
            return -1 if scores[a] > scores[b] else 1
        if policy != 1 and docs[a] != docs[b]:
            smaller = docs[a] < docs[b]
            return (1 if smaller else -1) if policy == 0 else (-1 if smaller else 1)
        return -1 if a < b else (1 if a > b else 0)

    out: list[int] = []
    for j in range(len(q_offsets) - 1):
        seg = range(int(q_offsets[j]), int(q_offsets[j + 1]))
        out.extend(sorted(seg, key=functools.cmp_to_key(cmp)))
    return out


def ref_duplicates(
    q_offsets: np.ndarray, docs: list[bytes], order: np.ndarray | None, limit: int
) -> tuple[list[int], list[int]]:
    dup, first = [], []
    for j in range(len(q_offsets) - 1):
        a, b = int(q_offsets[j]), int(q_offsets[j + 1])
        seq = list(range(a, b)) if order is None else [int(x) for x in order[a:b]]
        if limit >= 0:
            seq = seq[:limit]
        seen: dict[bytes, int] = {}
        for e in seq:
            if docs[e] in seen:
                dup.append(e)
                first.append(seen[docs[e]])
            else:
                seen[docs[e]] = e
    return dup, first


def ref_align(
    run_q_offsets: np.ndarray,
    run_docs: list[bytes],
    perm: np.ndarray,
    run_to_qrels: np.ndarray,
    qrels_q_offsets: np.ndarray,
    qrels_docs: list[bytes],
    qrels_rel: np.ndarray,
) -> list[int]:
    out = []
    for j in range(len(run_q_offsets) - 1):
        k = int(run_to_qrels[j])
        judged: dict[bytes, int] = {}
        if k >= 0:
            for t in range(int(qrels_q_offsets[k]), int(qrels_q_offsets[k + 1])):
                judged.setdefault(qrels_docs[t], int(qrels_rel[t]))
        for i in range(int(run_q_offsets[j]), int(run_q_offsets[j + 1])):
            rel = judged.get(run_docs[int(perm[i])])
            out.append(-1 if rel is None else (rel if rel >= 0 else -2))
    return out


# ---------------------------------------------------------------------------
# parse_trec: hand-written cases
# ---------------------------------------------------------------------------


def test_parse_run_basic_grouping_and_byte_order() -> None:
    buf = b"10 Q0 d1 1 1.5 tagA\n9 Q0 d2 1 2 tagA\n100 Q0 d3 1 -0.5 tagA\n10 Q0 d4 2 0.25 tagB\n"
    qids, q_offsets, doc_data, doc_offsets, values, lines, tag = check_parse(buf, 0)
    assert qids == ["10", "100", "9"]  # byte order, not numeric order
    assert q_offsets.tolist() == [0, 2, 3, 4]
    assert column(doc_data, doc_offsets) == [b"d1", b"d4", b"d3", b"d2"]
    assert values.tolist() == [1.5, 0.25, -0.5, 2.0]
    assert lines.tolist() == [1, 4, 3, 2]
    assert tag == "tagB"  # the tag of the last data line


def test_parse_whitespace_crlf_blank_and_comment_lines() -> None:
    buf = (
        b"# a comment\r\n"
        b"\r\n"
        b"   \t \n"
        b"  q1\tQ0  d1 \x0b 1 \x0c3.0   run1  extra columns here\r\n"
        b"\t# indented comment\n"
        b"q1 Q0 d2 2 2.0 run1\r\n"
    )
    qids, _q_offsets, doc_data, doc_offsets, values, lines, tag = check_parse(buf, 0)
    assert qids == ["q1"]
    assert column(doc_data, doc_offsets) == [b"d1", b"d2"]
    assert values.tolist() == [3.0, 2.0]
    assert lines.tolist() == [4, 6]
    assert tag == "run1"


def test_parse_qrels_basic() -> None:
    buf = b"301 0 FBIS3-10082 1\n301 0 FBIS3-10169 0\n302 0 X -1\n301 0 Y 2.0\n303 0 Z +2.\n"
    qids, _q_offsets, _doc_data, _doc_offsets, values, lines, tag = check_parse(buf, 1)
    assert qids == ["301", "302", "303"]
    assert values.dtype == np.int64
    assert values.tolist() == [1, 0, 2, -1, 2]
    assert lines.tolist() == [1, 2, 4, 3, 5]
    assert tag is None


def test_parse_missing_final_newline_and_last_line_tag() -> None:
    got = check_parse(b"1 Q0 a 1 1 first\n1 Q0 b 2 0.5 last", 0)
    assert got[6] == "last"
    assert got[5].tolist() == [1, 2]
    with pytest.raises(ValueError) as info:
        _core.parse_trec(b"1 Q0 a 1 1 t\n\n1 Q0 b 2 x t", 0, 1)
    assert info.value.args == (3, "score 'x' is not a number")


@pytest.mark.parametrize("kind", [0, 1])
@pytest.mark.parametrize(
    "buf", [b"", b"\n", b"\n\n  \t\r\n", b"# only a comment", b"#c1\n   # c2\n\n"]
)
def test_parse_empty_inputs(buf: bytes, kind: int) -> None:
    qids, q_offsets, doc_data, doc_offsets, values, lines, tag = _core.parse_trec(buf, kind, 1)
    assert qids == []
    assert q_offsets.tolist() == [0]
    assert doc_data.shape == (0,)
    assert doc_offsets.tolist() == [0]
    assert values.shape == (0,)
    assert values.dtype == (np.float64 if kind == 0 else np.int64)
    assert lines.shape == (0,)
    assert tag is None


def test_parse_comments_disabled() -> None:
    got = check_parse(b"#q Q0 d 1 1 t\n", 0, comments=0)
    assert got[0] == ["#q"]
    with pytest.raises(ValueError) as info:
        _core.parse_trec(b"# a comment\n", 0, 0)
    assert info.value.args == (1, RUN_COLS.format(3))


def test_parse_column_errors_report_physical_lines() -> None:
    buf = b"# header\n\n1 Q0 d 1 1.0 t\n  \n1 Q0 d2 2 0.5\n"
    with pytest.raises(ValueError) as info:
        _core.parse_trec(buf, 0, 1)
    assert info.value.args == (5, RUN_COLS.format(5))
    with pytest.raises(ValueError) as info:
        _core.parse_trec(b"1 0 d 1\n\n#x\n1 0 d2 1 extra\n", 1, 1)
    assert info.value.args == (4, QRELS_COLS.format(5))
    with pytest.raises(ValueError) as info:
        _core.parse_trec(b"1 0 d\n", 1, 1)
    assert info.value.args == (1, QRELS_COLS.format(3))


def test_parse_first_problem_in_file_order() -> None:
    # the queries are parsed grouped ('1' before '2'), but the error reported must be
    # the first one of the file
    buf = b"2 Q0 d 1 oops t\n1 Q0 d 1 1.0 t\n1 Q0 d 1 bad t\n"
    with pytest.raises(ValueError) as info:
        _core.parse_trec(buf, 0, 1)
    assert info.value.args == (1, "score 'oops' is not a number")


def test_parse_nul_byte() -> None:
    with pytest.raises(ValueError) as info:
        _core.parse_trec(b"1 Q0 d 1 1 t\n\n1 Q0 \x00 1 1 t\n", 0, 1)
    assert info.value.args == (3, NUL_MSG)
    with pytest.raises(ValueError) as info:
        _core.parse_trec(b"\x00", 1, 1)
    assert info.value.args == (1, NUL_MSG)


@pytest.mark.parametrize(
    ("score", "message"),
    [
        ("nan", "score 'nan' is not finite (NaN or infinity)"),
        ("-NaN", "score '-NaN' is not finite (NaN or infinity)"),
        ("inf", "score 'inf' is not finite (NaN or infinity)"),
        ("-Infinity", "score '-Infinity' is not finite (NaN or infinity)"),
        ("1e999", "score '1e999' is not finite (NaN or infinity)"),
        ("-1.5e400", "score '-1.5e400' is not finite (NaN or infinity)"),
        ("0x1p3", "score '0x1p3' is not a number"),
        ("0X10", "score '0X10' is not a number"),
        ("1.2.3", "score '1.2.3' is not a number"),
        ("1e", "score '1e' is not a number"),
        ("--1", "score '--1' is not a number"),
        (".", "score '.' is not a number"),
        ("abc", "score 'abc' is not a number"),
        ("1,5", "score '1,5' is not a number"),
        ("infx", "score 'infx' is not a number"),
        ("1" * 64 + "x", f"score '{'1' * 40}' is not a number"),
        ("x" * 100, f"score '{'x' * 40}' is not a number"),
        ("é" * 50, f"score '{'é' * 40}' is not a number"),
    ],
)
def test_parse_bad_scores(score: str, message: str) -> None:
    buf = f"\n1 Q0 d 1 1.0 t\n1 Q0 d 2 {score} t\n".encode()
    with pytest.raises(ValueError) as info:
        _core.parse_trec(buf, 0, 1)
    assert info.value.args == (3, message)


@pytest.mark.parametrize(
    ("score", "value"),
    [
        ("1", 1.0),
        ("-0", -0.0),
        ("+.5", 0.5),
        ("5.", 5.0),
        ("1e-400", 0.0),
        ("1E+3", 1000.0),
        ("0.1", 0.1),
        ("-12.3456789012345678901234", -12.3456789012345678901234),
        ("123456789012345678901234567890", 123456789012345678901234567890.0),
        ("4.9406564584124654e-324", 5e-324),
        ("1.7976931348623157e308", 1.7976931348623157e308),
        ("0.30000000000000004", 0.30000000000000004),
        ("9007199254740993", 9007199254740993.0),
        ("1" * 63, float("1" * 63)),
    ],
)
def test_parse_good_scores(score: str, value: float) -> None:
    got = _core.parse_trec(f"1 Q0 d 1 {score} t".encode(), 0, 1)
    assert got[4].tolist() == [value]
    assert math.copysign(1, got[4][0]) == math.copysign(1, value)


@pytest.mark.parametrize("rel", ["1.5", "x", "1e-1", "nan", "inf", "0x1", "", "1e20", "2..0"])
def test_parse_bad_relevance(rel: str) -> None:
    buf = f"#c\n1 0 d 1\n1 0 e {rel} \n".encode()
    if rel == "":
        with pytest.raises(ValueError) as info:
            _core.parse_trec(buf, 1, 1)
        assert info.value.args == (3, QRELS_COLS.format(3))
        return
    with pytest.raises(ValueError) as info:
        _core.parse_trec(buf, 1, 1)
    assert info.value.args == (3, f"relevance '{rel}' is not an integer")


@pytest.mark.parametrize(
    ("rel", "value"),
    [
        ("0", 0),
        ("-1", -1),
        ("+3", 3),
        ("2.0", 2),
        ("2.", 2),
        ("-0.0", 0),
        ("1e2", 100),
        ("9223372036854775807", 2**63 - 1),
        ("-9223372036854775808", -(2**63)),
        ("007", 7),
    ],
)
def test_parse_good_relevance(rel: str, value: int) -> None:
    got = check_parse(f"1 0 d {rel}\n".encode(), 1)
    assert got[4].tolist() == [value]


@pytest.mark.parametrize(
    ("buf", "line"),
    [
        (b"q\xff Q0 d 1 1 t\n", 1),
        (b"q Q0 d 1 1 t\nq Q0 d\xc3 1 1 t\n", 2),
        (b"q Q0 d 1 1 t\xed\xa0\x80\n", 1),  # a surrogate
        (b"\nq Q0 d\xc0\xaf 1 1 t\n", 2),  # an overlong '/'
        (b"q Q0 d\xf4\x90\x80\x80 1 1 t\n", 1),  # above U+10FFFF
        (b"q Q0 d 1 1 t\n\n\xe2\x82 Q0 d 1 1 t\n", 3),
    ],
)
def test_parse_invalid_utf8(buf: bytes, line: int) -> None:
    with pytest.raises(ValueError) as info:
        _core.parse_trec(buf, 0, 1)
    assert info.value.args == (line, UTF8_MSG)


def test_parse_unicode_ids() -> None:
    buf = "é Q0 日本 1 1 ☃\nz Q0 𝄞x 1 2 ☃\né Q0 ä 2 0 tag\n".encode()
    got = check_parse(buf, 0)
    assert got[0] == ["z", "é"]
    assert column(got[2], got[3]) == ["𝄞x".encode(), "日本".encode(), "ä".encode()]
    assert got[6] == "tag"


def test_parse_buffer_types() -> None:
    text = b"2 Q0 b 1 1.5 t\n1 Q0 a 1 2.5 t\n"
    expected = _core.parse_trec(text, 0, 1)
    with tempfile.TemporaryFile() as f:
        f.write(text)
        f.flush()
        with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
            sources = [
                bytearray(text),
                memoryview(text),
                np.frombuffer(text, dtype=np.uint8),
                mapped,
            ]
            for source in sources:
                got = _core.parse_trec(source, 0, 1)
                assert got[0] == expected[0]
                assert got[4].tolist() == expected[4].tolist()
                assert column(got[2], got[3]) == column(expected[2], expected[3])
    with pytest.raises(TypeError):
        _core.parse_trec("a str", 0, 1)
    with pytest.raises(ValueError):
        _core.parse_trec(text, 2, 1)


@pytest.mark.parametrize("final_newline", [True, False])
def test_parse_buffer_ending_at_a_page_boundary(final_newline: bool) -> None:
    # an mmap of a file whose size is a multiple of the page size: any read past the
    # end of the buffer would fault
    size = mmap.PAGESIZE * 2
    line = b"q Q0 doc 1 0.5 tag\n"
    body = line * (size // len(line) - 1)
    last = b"q Q0 end 1 0.25 " + b"t" * (size - len(body) - 17) + b"\n"
    text = body + (last if final_newline else last[:-1] + b"x")
    assert len(text) == size
    with tempfile.TemporaryFile() as f:
        f.write(text)
        f.flush()
        with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
            got = _core.parse_trec(mapped, 0, 1)
    assert got[6] == last.split()[5].decode() + ("" if final_newline else "x")
    assert len(got[4]) == text.count(b"\n") + (0 if final_newline else 1)


def test_parse_long_lines_and_region_boundaries() -> None:
    # lines around the 32/64-byte fast-path limits, and files whose end falls on
    # every position relative to the in-place/copied boundary
    rng = np.random.default_rng(7)
    for n_lines in (1, 2, 3, 5, 40):
        for _ in range(6):
            lines = []
            for i in range(n_lines):
                doc = "d" * int(rng.integers(1, 90))
                tag = "t" * int(rng.integers(1, 40))
                lines.append(f"q{i % 3} Q0 {doc} {i} {rng.normal():.4f} {tag}")
            text = "\n".join(lines)
            for end in ("", "\n", "\r\n", "\n\n", "  "):
                check_parse((text + end).encode(), 0)
    for pad in range(0, 80):
        check_parse(b"1 0 d 1\n" + b" " * pad + b"2 0 e 0", 1)
        check_parse(b"1 Q0 d 1 2 t\n#" + b"c" * pad + b"\n1 Q0 dd 1 1 t", 0)


def test_parse_many_queries_and_interleaving() -> None:
    rng = np.random.default_rng(3)
    lines = []
    for i in range(3000):
        q = int(rng.integers(0, 400))
        lines.append(f"{q} Q0 D{int(rng.integers(0, 50))} {i} {float(rng.integers(-5, 5)) / 4} r")
    check_parse("\n".join(lines).encode(), 0)


def test_parse_is_thread_safe() -> None:
    rng = np.random.default_rng(5)
    text = "".join(
        f"{int(rng.integers(0, 50))} Q0 doc{int(rng.integers(0, 10**6))} 1 {rng.normal():.6f} t\n"
        for _ in range(20000)
    ).encode()
    expected = _core.parse_trec(text, 0, 1)
    results: list[tuple] = []

    def work() -> None:
        results.append(_core.parse_trec(text, 0, 1))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 4
    for got in results:
        assert got[0] == expected[0]
        np.testing.assert_array_equal(got[4], expected[4])
        np.testing.assert_array_equal(got[2], expected[2])


# ---------------------------------------------------------------------------
# parse_trec: property tests
# ---------------------------------------------------------------------------

QIDS = ["1", "9", "10", "100", "a", "A", "é", "日本", "q-1", "10a"]
DOCS = ["D", "D1", "D10", "d1", "a", "ab", "abc", "Ä", "𝄞x", "9", "10", "doc" * 12]
SCORES = ["0", "-0", "0.0", "-0.0", "1", "1.5", "-2.25", "1e3", "3.14159", ".5", "2.", "+7"]
BAD_SCORES = ["nan", "inf", "0x10", "1e", "abc", "1e999", "-"]
RELS = ["0", "1", "2", "-1", "3", "2.0", "+1", "-2."]
BAD_RELS = ["1.5", "x", "nan", "1e-3"]
SEPS = [" ", "  ", "\t", " \t ", "\x0b", "\x0c", "\r "]


@st.composite
def trec_text(draw: st.DrawFn, kind: int) -> bytes:
    n = draw(st.integers(0, 25))
    out = []
    sep = st.sampled_from(SEPS)
    for _ in range(n):
        what = draw(st.integers(0, 20))
        lead = draw(st.sampled_from(["", "", " ", "\t", " \r"]))
        trail = draw(st.sampled_from(["", "", " ", "\r", "\t\r"]))
        if what == 0:
            out.append(lead + trail)  # blank
            continue
        if what == 1:
            out.append(lead + "#" + draw(st.sampled_from(["", " comment", "1 Q0 d 1 1 t"])))
            continue
        qid = draw(st.sampled_from(QIDS))
        doc = draw(st.sampled_from(DOCS))
        bad = draw(st.integers(0, 40)) == 0
        if kind == 0:
            score = draw(st.sampled_from(BAD_SCORES if bad else SCORES))
            if draw(st.booleans()):
                score = repr(draw(st.floats(allow_nan=False, allow_infinity=False)))
            fields = [qid, "Q0", doc, str(draw(st.integers(0, 99))), score]
            fields.append(draw(st.sampled_from(["run", "tag2", "☃"])))
            fields += draw(st.lists(st.sampled_from(["x", "1"]), max_size=2))
        else:
            rel = draw(st.sampled_from(BAD_RELS if bad else RELS))
            fields = [qid, "0", doc, rel]
        if draw(st.integers(0, 30)) == 0:  # wrong column count
            fields = fields[: draw(st.integers(1, len(fields)))] + ["extra"] * (kind == 1)
        line = lead + fields[0]
        for f in fields[1:]:
            line += draw(sep) + f
        out.append(line + trail)
    text = "\n".join(out)
    if out and draw(st.booleans()):
        text += "\n"
    return text.encode()


@SETTINGS
@given(trec_text(0), st.booleans())
def test_parse_run_matches_reference(buf: bytes, comments: bool) -> None:
    check_parse(buf, 0, int(comments))


@SETTINGS
@given(trec_text(1))
def test_parse_qrels_matches_reference(buf: bytes) -> None:
    check_parse(buf, 1, 1)


@SETTINGS
@given(st.binary(max_size=200))
def test_parse_arbitrary_bytes(buf: bytes) -> None:
    check_parse(buf, 0, 1)
    check_parse(buf, 1, 0)


@SETTINGS
@given(st.floats(allow_nan=False, allow_infinity=False), st.sampled_from(["r", "e", "f", "g"]))
def test_parse_scores_are_exact(value: float, style: str) -> None:
    text = {"r": repr(value), "e": f"{value:.17e}", "f": f"{value:.6f}", "g": f"{value:.12g}"}
    field = text[style]
    buf = f"q Q0 d 1 {field} t\n".encode()
    got = _core.parse_trec(buf, 0, 1)[4]
    assert got.tolist() == [float(field)]


# ---------------------------------------------------------------------------
# encode_strings, group_by_query, take_strings
# ---------------------------------------------------------------------------


@SETTINGS
@given(st.lists(st.text(max_size=8)))
def test_encode_strings(strings: list[str]) -> None:
    data, offsets = _core.encode_strings(strings)
    assert data.dtype == np.uint8
    assert offsets.dtype == np.int64
    assert column(data, offsets) == [s.encode() for s in strings]
    data2, offsets2 = _core.encode_strings(tuple(strings))
    np.testing.assert_array_equal(data2, data)
    np.testing.assert_array_equal(offsets2, offsets)


def test_encode_strings_errors() -> None:
    with pytest.raises(TypeError, match=r"expected str, got int.*index 2"):
        _core.encode_strings(["a", "b", 3])
    with pytest.raises(TypeError, match="expected str, got bytes"):
        _core.encode_strings([b"a"])
    with pytest.raises(TypeError):
        _core.encode_strings(5)
    with pytest.raises(TypeError):
        _core.encode_strings("abc")
    with pytest.raises(UnicodeEncodeError):
        _core.encode_strings(["\ud800"])
    data, offsets = _core.encode_strings([])
    assert data.shape == (0,)
    assert offsets.tolist() == [0]


@SETTINGS
@given(st.integers(1, 6).flatmap(lambda k: st.tuples(st.just(k), st.lists(st.integers(0, k - 1)))))
def test_group_by_query(case: tuple[int, list[int]]) -> None:
    n_queries, codes = case
    order, q_offsets = _core.group_by_query(np.array(codes, dtype=np.int64), n_queries)
    expected = sorted(range(len(codes)), key=lambda i: codes[i])
    assert order.tolist() == expected
    counts = np.bincount(np.array(codes, dtype=np.int64), minlength=n_queries)
    assert q_offsets.tolist() == [0, *np.cumsum(counts).tolist()]


def test_group_by_query_errors() -> None:
    with pytest.raises(ValueError):
        _core.group_by_query(np.array([0, 3], dtype=np.int64), 3)
    with pytest.raises(ValueError):
        _core.group_by_query(np.array([-1], dtype=np.int64), 3)
    order, q_offsets = _core.group_by_query(np.array([], dtype=np.int64), 0)
    assert order.tolist() == []
    assert q_offsets.tolist() == [0]


@SETTINGS
@given(st.lists(st.binary(max_size=6), max_size=12), st.data())
def test_take_strings(strings: list[bytes], data: st.DataObject) -> None:
    n = len(strings)
    idx = data.draw(st.lists(st.integers(0, n - 1), max_size=20)) if n else []
    col, off = make_column(strings)
    data2, off2 = _core.take_strings(col, off, np.array(idx, dtype=np.int64))
    assert column(data2, off2) == [strings[i] for i in idx]


def test_take_strings_bounds() -> None:
    col, off = make_column([b"a", b"bc"])
    with pytest.raises(IndexError):
        _core.take_strings(col, off, np.array([2], dtype=np.int64))
    with pytest.raises(IndexError):
        _core.take_strings(col, off, np.array([-1], dtype=np.int64))
    with pytest.raises(ValueError):
        _core.take_strings(col, np.array([0, 5, 1], dtype=np.int64), np.array([0]))


# ---------------------------------------------------------------------------
# rank
# ---------------------------------------------------------------------------


def test_rank_trec_eval_ties() -> None:
    docs = [b"A", b"a", b"B", b"10", b"9"]
    data, offsets = make_column(docs)
    q_offsets = np.array([0, 5], dtype=np.int64)
    scores = np.ones(5)
    perm = _core.rank(q_offsets, data, offsets, scores, 0)
    assert [docs[i] for i in perm] == [b"a", b"B", b"A", b"9", b"10"]
    perm = _core.rank(q_offsets, data, offsets, scores, 2)
    assert [docs[i] for i in perm] == [b"10", b"9", b"A", b"B", b"a"]
    perm = _core.rank(q_offsets, data, offsets, scores, 1)
    assert perm.tolist() == [0, 1, 2, 3, 4]


def test_rank_zero_signs_and_identical_docids() -> None:
    docs = [b"x", b"y", b"x", b"y"]
    data, offsets = make_column(docs)
    scores = np.array([0.0, -0.0, -0.0, 0.0])
    q_offsets = np.array([0, 4], dtype=np.int64)
    assert _core.rank(q_offsets, data, offsets, scores, 0).tolist() == [1, 3, 0, 2]
    assert _core.rank(q_offsets, data, offsets, scores, 1).tolist() == [0, 1, 2, 3]
    assert _core.rank(q_offsets, data, offsets, scores, 2).tolist() == [0, 2, 1, 3]


@st.composite
def ranked_input(draw: st.DrawFn, max_seg: int = 80) -> tuple:
    seg_lens = draw(st.lists(st.integers(0, max_seg), min_size=1, max_size=4))
    n = sum(seg_lens)
    pool = draw(
        st.lists(
            st.sampled_from(
                [0.0, -0.0, 1.0, 1.0 + 2**-40, 1.0 + 2**-30, -1.0, 2.5, 1e300, -1e-300, 3.0]
            )
            | st.floats(-5, 5, allow_nan=False).map(lambda x: round(x, 1)),
            min_size=1,
            max_size=8,
        )
    )
    scores = np.array(draw(st.lists(st.sampled_from(pool), min_size=n, max_size=n)), dtype=float)
    if draw(st.booleans()):  # already in score order inside each segment
        q = np.cumsum([0, *seg_lens])
        for j in range(len(seg_lens)):
            scores[q[j] : q[j + 1]] = np.sort(scores[q[j] : q[j + 1]])[::-1]
    docs = [d.encode() for d in draw(st.lists(st.sampled_from(DOCS), min_size=n, max_size=n))]
    q_offsets = np.array([0, *np.cumsum(seg_lens)], dtype=np.int64)
    return q_offsets, docs, scores


@SETTINGS
@given(ranked_input(), st.sampled_from([0, 1, 2]))
def test_rank_matches_reference(case: tuple, policy: int) -> None:
    q_offsets, docs, scores = case
    data, offsets = make_column(docs)
    expected = ref_rank(q_offsets, docs, scores, policy)
    for threads in (0, *THREADS):
        perm = _core.rank(q_offsets, data, offsets, scores, policy, threads=threads)
        assert perm.dtype == np.int64
        assert perm.tolist() == expected


def test_rank_large_segments() -> None:
    rng = np.random.default_rng(11)
    n_q, size = 6, 700
    scores = np.round(rng.normal(size=n_q * size) * 3, 1)
    scores[::7] = -0.0
    docs = [f"d{int(x)}".encode() for x in rng.integers(0, 900, size=n_q * size)]
    data, offsets = make_column(docs)
    q_offsets = np.arange(0, n_q * size + 1, size, dtype=np.int64)
    for policy in (0, 1, 2):
        expected_perm = ref_rank(q_offsets, docs, scores, policy)
        for threads in (0, *THREADS):
            perm = _core.rank(q_offsets, data, offsets, scores, policy, threads=threads)
            assert perm.tolist() == expected_perm
    seg = np.repeat(np.arange(n_q), size)
    expected = np.lexsort((np.arange(len(scores)), -scores, seg))
    np.testing.assert_array_equal(_core.rank(q_offsets, data, offsets, scores, 1), expected)


def test_rank_argument_errors() -> None:
    data, offsets = make_column([b"a", b"b"])
    with pytest.raises(ValueError):
        _core.rank(np.array([0, 2]), data, offsets, np.zeros(2), 3)
    with pytest.raises(ValueError):
        _core.rank(np.array([0, 1]), data, offsets, np.zeros(2), 0)
    with pytest.raises(ValueError):
        _core.rank(np.array([0, 2]), data, offsets, np.zeros(3), 0)
    empty = _core.rank(np.array([0]), *make_column([]), np.zeros(0), 0)
    assert empty.tolist() == []


# ---------------------------------------------------------------------------
# find_duplicates
# ---------------------------------------------------------------------------


@SETTINGS
@given(ranked_input(max_seg=40), st.integers(-1, 8), st.booleans())
def test_find_duplicates_matches_reference(case: tuple, limit: int, ranked: bool) -> None:
    q_offsets, docs, scores = case
    data, offsets = make_column(docs)
    order = _core.rank(q_offsets, data, offsets, scores, 0) if ranked else None
    expected = ref_duplicates(q_offsets, docs, order, limit)
    for threads in (0, *THREADS):
        dup, first = _core.find_duplicates(q_offsets, data, offsets, order, limit, threads)
        assert dup.dtype == np.int64
        assert first.dtype == np.int64
        assert (dup.tolist(), first.tolist()) == expected


def test_find_duplicates_basic() -> None:
    docs = [b"a", b"b", b"a", b"a", b"c", b"c", b"a"]
    data, offsets = make_column(docs)
    q_offsets = np.array([0, 4, 7], dtype=np.int64)
    dup, first = _core.find_duplicates(q_offsets, data, offsets, None, -1)
    assert dup.tolist() == [2, 3, 5]
    assert first.tolist() == [0, 0, 4]
    dup, first = _core.find_duplicates(q_offsets, data, offsets, None, 2)
    assert dup.tolist() == [5]
    order = np.array([3, 2, 1, 0, 6, 5, 4], dtype=np.int64)
    dup, first = _core.find_duplicates(q_offsets, data, offsets, order, 3)
    assert dup.tolist() == [2, 4]
    assert first.tolist() == [3, 5]
    with pytest.raises(IndexError):
        _core.find_duplicates(q_offsets, data, offsets, np.full(7, 9, dtype=np.int64), -1)
    with pytest.raises(ValueError):
        _core.find_duplicates(q_offsets, data, offsets, None, -2)


# ---------------------------------------------------------------------------
# align
# ---------------------------------------------------------------------------


@SETTINGS
@given(ranked_input(max_seg=30), st.data())
def test_align_matches_reference(case: tuple, data: st.DataObject) -> None:
    q_offsets, docs, scores = case
    n_queries = len(q_offsets) - 1
    run_data, run_offsets = make_column(docs)
    perm = _core.rank(q_offsets, run_data, run_offsets, scores, 0)
    # qrels: per query a set of docids (no duplicates within a query), any order
    n_qrels_queries = data.draw(st.integers(0, 4))
    qrels_docs: list[bytes] = []
    qrels_rel: list[int] = []
    qrels_q = [0]
    for _ in range(n_qrels_queries):
        judged = data.draw(st.lists(st.sampled_from(DOCS), unique=True, max_size=8))
        qrels_docs += [d.encode() for d in judged]
        qrels_rel += [data.draw(st.integers(-3, 3)) for _ in judged]
        qrels_q.append(len(qrels_docs))
    run_to_qrels = np.array(
        [data.draw(st.integers(-1, n_qrels_queries - 1)) for _ in range(n_queries)],
        dtype=np.int64,
    )
    qd, qo = make_column(qrels_docs)
    args = (
        q_offsets,
        run_data,
        run_offsets,
        perm,
        run_to_qrels,
        np.array(qrels_q, dtype=np.int64),
        qd,
        qo,
        np.array(qrels_rel, dtype=np.int64),
    )
    expected = ref_align(q_offsets, docs, perm, run_to_qrels, args[5], qrels_docs, args[8])
    for threads in (0, *THREADS):
        rel = _core.align(*args, threads=threads)
        assert rel.dtype == np.int64
        assert rel.tolist() == expected


def test_align_basic_and_errors() -> None:
    run_docs = [b"d1", b"d2", b"d3", b"x"]
    rd, ro = make_column(run_docs)
    run_q = np.array([0, 3, 4], dtype=np.int64)
    perm = np.array([2, 0, 1, 3], dtype=np.int64)
    qd, qo = make_column([b"d3", b"d1", b"zz"])
    qrels_q = np.array([0, 2, 3], dtype=np.int64)
    rels = np.array([-1, 2, 1], dtype=np.int64)
    rel = _core.align(run_q, rd, ro, perm, np.array([0, -1]), qrels_q, qd, qo, rels)
    assert rel.tolist() == [-2, 2, -1, -1]
    rel = _core.align(run_q, rd, ro, perm, np.array([1, 1]), qrels_q, qd, qo, rels)
    assert rel.tolist() == [-1, -1, -1, -1]
    with pytest.raises(ValueError):
        _core.align(run_q, rd, ro, perm, np.array([0, 2]), qrels_q, qd, qo, rels)
    bad = np.array([2, 0, 9, 3], dtype=np.int64)
    for threads in (0, *THREADS):
        with pytest.raises(IndexError, match=r"perm\[2\] = 9"):
            _core.align(run_q, rd, ro, bad, np.array([0, 0]), qrels_q, qd, qo, rels, threads)


def test_automatic_threads_on_a_large_input() -> None:
    # large enough (600k lines) for the automatic thread count to use every core
    rng = np.random.default_rng(17)
    n = 600_000
    qids = np.sort(rng.integers(0, 3000, size=n))
    docs = rng.integers(0, 400, size=n)
    scores = np.round(rng.normal(size=n), 1)
    text = "".join(
        f"{q} Q0 d{d} 1 {s} t\n"
        for q, d, s in zip(qids.tolist(), docs.tolist(), scores.tolist(), strict=True)
    ).encode()
    auto = _core.parse_trec(text, 0, 1)
    one = _core.parse_trec(text, 0, 1, threads=1)
    assert auto[0] == one[0]
    for got, want in zip(auto[1:6], one[1:6], strict=True):
        np.testing.assert_array_equal(got, want)
    q_offsets, data, offsets, values = auto[1], auto[2], auto[3], auto[4]
    perm = _core.rank(q_offsets, data, offsets, values, 0)
    np.testing.assert_array_equal(perm, _core.rank(q_offsets, data, offsets, values, 0, 1))
    dups = _core.find_duplicates(q_offsets, data, offsets, perm, -1)
    assert len(dups[0]) > 0
    for got, want in zip(
        dups, _core.find_duplicates(q_offsets, data, offsets, perm, -1, 1), strict=True
    ):
        np.testing.assert_array_equal(got, want)
    qrels_rel = np.arange(len(values), dtype=np.int64) % 4 - 1
    args = (q_offsets, data, offsets, perm, np.arange(len(auto[0]), dtype=np.int64))
    qrels = (q_offsets, data, offsets, qrels_rel)
    # judgments with repeated docids are fine for align (the first match wins either way)
    np.testing.assert_array_equal(_core.align(*args, *qrels), _core.align(*args, *qrels, threads=1))


# ---------------------------------------------------------------------------
# affine_sum (rank fusion's normalised sums)
# ---------------------------------------------------------------------------

AFFINE_SCORES = [0.0, -0.0, 1.0, -1.0, 2.5, 1e300, -1e300, 5e-324, 0.1, 0.7, math.inf, math.nan]


@st.composite
def affine_case(draw: st.DrawFn) -> tuple:
    """Runs over ``n_total`` fused documents: per run, queries of distinct fids, a random
    permutation, scores, per-query shift/scale/flat and a weight."""
    n_total = draw(st.integers(1, 12))
    runs = []
    for _ in range(draw(st.integers(0, 3))):
        lengths = draw(st.lists(st.integers(0, 4), min_size=0, max_size=3))
        n = sum(lengths)
        if n > n_total:
            lengths, n = [n_total], n_total
        q_offsets = np.array([0, *np.cumsum(lengths)], dtype=np.int64)
        nq = len(lengths)
        values = st.sampled_from(AFFINE_SCORES) | st.floats(-9, 9, allow_nan=False)
        runs.append(
            (
                q_offsets,
                np.array(draw(st.permutations(range(n))), dtype=np.int64),
                np.array(draw(st.lists(values, min_size=n, max_size=n)), dtype=np.float64),
                np.array(draw(st.permutations(range(n_total)))[:n], dtype=np.int64),
                np.array(draw(st.lists(values, min_size=nq, max_size=nq)), dtype=np.float64),
                np.array(draw(st.lists(values, min_size=nq, max_size=nq)), dtype=np.float64),
                np.array(draw(st.lists(st.booleans(), min_size=nq, max_size=nq)), dtype=np.uint8),
                draw(st.sampled_from([1.0, 0.5, -2.0, 3.0])),
            )
        )
    return n_total, runs, draw(st.booleans())


def ref_affine_sum(n_total: int, runs: list, clip: bool) -> list[float]:
    """Plain Python, one entry at a time; clip as numpy's maximum(v, 0) (NaN stays, -0 -> 0)."""
    total = [0.0] * n_total
    for q_offsets, perm, scores, fid, shift, scale, flat, weight in runs:
        for j in range(len(q_offsets) - 1):
            for p in range(int(q_offsets[j]), int(q_offsets[j + 1])):
                if flat[j]:
                    v = 1.0
                else:
                    v = float(scores[perm[p]]) - float(shift[j])
                    try:
                        v = v / float(scale[j])
                    except ZeroDivisionError:
                        v = (
                            math.nan
                            if v == 0 or math.isnan(v)
                            else math.copysign(math.inf, v) * math.copysign(1.0, float(scale[j]))
                        )
                if clip and not v > 0 and not math.isnan(v):
                    v = 0.0
                total[int(fid[p])] += v if weight == 1.0 else weight * v
    return total


@SETTINGS
@given(affine_case())
def test_affine_sum_matches_reference(case: tuple) -> None:
    n_total, runs, clip = case
    expected = np.array(ref_affine_sum(n_total, runs, clip), dtype=np.float64)
    for threads in (0, *THREADS):
        with np.errstate(all="ignore"):
            got = _core.affine_sum(n_total, runs, clip, threads=threads)
        assert got.dtype == np.float64
        np.testing.assert_array_equal(got, expected)
        numbers = ~np.isnan(expected)  # the sign of zeros too (a NaN's sign bit is the CPU's)
        assert np.signbit(got[numbers]).tolist() == np.signbit(expected[numbers]).tolist()


def test_affine_sum_basic_and_errors() -> None:
    q_offsets = np.array([0, 3, 4], dtype=np.int64)
    perm = np.array([2, 0, 1, 3], dtype=np.int64)
    scores = np.array([3.0, 1.0, 5.0, 7.0])
    fid = np.array([1, 2, 0, 3], dtype=np.int64)
    shift, scale = np.array([1.0, 0.0]), np.array([4.0, 1.0])
    flat = np.array([0, 1], dtype=np.uint8)
    run = (q_offsets, perm, scores, fid, shift, scale, flat, 1.0)
    # query 0 ranked: 5, 3, 1 -> (s - 1) / 4 = 1, 0.5, 0; query 1 is flat -> 1
    assert _core.affine_sum(5, [run]).tolist() == [0.0, 1.0, 0.5, 1.0, 0.0]
    twice = _core.affine_sum(5, [run, (*run[:7], 2.0)])
    assert twice.tolist() == [0.0, 3.0, 1.5, 3.0, 0.0]
    with pytest.raises(IndexError, match="out of bounds"):
        _core.affine_sum(3, [run])
    with pytest.raises(ValueError, match="n_total"):
        _core.affine_sum(-1, [run])
    with pytest.raises(TypeError, match="7 arrays and a weight"):
        _core.affine_sum(5, [run[:7]])
    with pytest.raises(ValueError, match="match perm"):
        _core.affine_sum(5, [(q_offsets, perm, scores[:3], *run[3:])])
