"""Differential test: the numpy fallback (``ranklens.data.native_fallback``) against the C
module (``ranklens.data._core``) on generated inputs, error cases included, at every
thread count: the same values, dtypes, exception types and messages.

Skipped where the C module is not built (then there is nothing to compare against; the
fallback is still checked against plain-Python references by ``test_native_core.py``
under ``RANKLENS_NATIVE=0``)."""

from __future__ import annotations

import importlib
import itertools
import math
import re
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ranklens.data import native, native_fallback

try:
    _c: Any = importlib.import_module("ranklens.data._core")
except ImportError:  # pragma: no cover - an install without a compiler
    _c = None

pytestmark = pytest.mark.skipif(_c is None, reason="the C module ranklens.data._core is not built")

fb: Any = native_fallback

SETTINGS = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
THREADS = (0, 1, 2, 3, 8)


def _same_value(a: object, b: object) -> None:
    if isinstance(a, np.ndarray):
        assert isinstance(b, np.ndarray)
        assert a.dtype == b.dtype
        assert a.shape == b.shape
        if a.dtype.kind == "f":  # bit-exact, the sign of zeros included; NaN where NaN
            # (a NaN's sign bit depends on the order of the operands, as 0/0 + NaN in C's
            # loop and in numpy's add.at: not a value of its own)
            assert np.isnan(a).tolist() == np.isnan(b).tolist()
            bits = ~np.isnan(a)
            assert a[bits].view(np.int64).tolist() == b[bits].view(np.int64).tolist()
        else:
            assert a.tolist() == b.tolist()
    elif isinstance(a, tuple):
        assert isinstance(b, tuple)
        assert len(a) == len(b)
        for x, y in zip(a, b, strict=True):
            _same_value(x, y)
    else:
        assert type(a) is type(b)
        assert a == b


def same(name: str, *args: Any, **kwargs: Any) -> Any:
    """Calls ``name`` in both modules; asserts identical results or identical errors."""
    c_fn: Callable[..., Any] = getattr(_c, name)
    f_fn: Callable[..., Any] = getattr(fb, name)
    try:
        expected = c_fn(*args, **kwargs)
    except Exception as exc:
        with pytest.raises(type(exc)) as info:
            f_fn(*args, **kwargs)
        assert info.value.args == exc.args
        return exc
    got = f_fn(*args, **kwargs)
    _same_value(got, expected)
    return got


def make_column(strings: list[bytes]) -> tuple[np.ndarray, np.ndarray]:
    offsets = np.zeros(len(strings) + 1, dtype=np.int64)
    offsets[1:] = np.cumsum([len(s) for s in strings])
    return np.frombuffer(b"".join(strings), dtype=np.uint8).copy(), offsets


# ---------------------------------------------------------------------------
# parse_trec
# ---------------------------------------------------------------------------

QIDS = ["1", "9", "10", "100", "a", "A", "é", "日本", "q-1", "#q", "10a"]
DOCS = ["D", "D1", "d1", "a", "ab", "Ä", "𝄞x", "9", "10", "doc" * 12, "x\x01y"]
SCORES = ["0", "-0", "0.0", "-0.0", "1", "1.5", "-2.25", "1e3", ".5", "2.", "+7", "1e-400"]
SCORES += ["123456789012345678901234567890", "0.30000000000000004", "4.9e-324", "1_0"]
BAD_SCORES = ["nan", "inf", "-Infinity", "0x10", "1e", "abc", "1e999", "-", "1" * 64, "é" * 50]
RELS = ["0", "1", "2", "-1", "2.0", "+1", "-2.", "9223372036854775807", "1e2", "007"]
BAD_RELS = ["1.5", "x", "nan", "1e-3", "9223372036854775808", "1e20", "+", "0x1"]
# the rank field: read only with ranks=True, and never an error (INT64_MIN if no integer)
RANKS = ["1", "0", "-3", "007", "2.0", "+4", "9223372036854775807", "-9223372036854775808"]
RANKS += ["1.5", "x", "1e2", "9223372036854775808", "nan", "-", "1" * 70]
SEPS = [" ", "  ", "\t", " \t ", "\x0b", "\x0c", "\r "]
JUNK = [b"\xff", b"\xc3", b"\xed\xa0\x80", b"\x00", b"\r", b"\xef\xbb\xbf"]


@st.composite
def trec_text(draw: st.DrawFn, kind: int) -> bytes:
    out = []
    sep = st.sampled_from(SEPS)
    for _ in range(draw(st.integers(0, 25))):
        what = draw(st.integers(0, 20))
        lead = draw(st.sampled_from(["", "", " ", "\t"]))
        trail = draw(st.sampled_from(["", "", " ", "\r"]))
        if what == 0:
            out.append(lead + trail)
            continue
        if what == 1:
            out.append(lead + "#" + draw(st.sampled_from(["", " c", "1 Q0 d 1 1 t"])))
            continue
        bad = draw(st.integers(0, 30)) == 0
        qid, doc = draw(st.sampled_from(QIDS)), draw(st.sampled_from(DOCS))
        if kind == 0:
            score = draw(st.sampled_from(BAD_SCORES if bad else SCORES))
            if draw(st.booleans()):
                score = repr(draw(st.floats(allow_nan=False, allow_infinity=False)))
            rank = draw(st.sampled_from(RANKS))
            fields = [qid, "Q0", doc, rank, score, draw(st.sampled_from(["run", "☃"]))]
            fields += draw(st.lists(st.sampled_from(["x", "1"]), max_size=2))
        else:
            fields = [qid, "0", doc, draw(st.sampled_from(BAD_RELS if bad else RELS))]
        if draw(st.integers(0, 30)) == 0:
            fields = fields[: draw(st.integers(1, len(fields)))] + ["extra"] * (kind == 1)
        out.append(lead + "".join(f + draw(sep) for f in fields[:-1]) + fields[-1] + trail)
    text = "\n".join(out).encode()
    if draw(st.integers(0, 10)) == 0:  # a stray byte somewhere
        at = draw(st.integers(0, len(text)))
        text = text[:at] + draw(st.sampled_from(JUNK)) + text[at:]
    if out and draw(st.booleans()):
        text += b"\n"
    return text


@SETTINGS
@given(
    st.sampled_from([0, 1]).flatmap(lambda k: st.tuples(st.just(k), trec_text(k))), st.booleans()
)
def test_parse_trec(case: tuple[int, bytes], comments: bool) -> None:
    kind, buf = case
    for threads in THREADS:
        same("parse_trec", buf, kind, int(comments), threads=threads)
        same("parse_trec", buf, kind, int(comments), threads=threads, ranks=True)
        same("parse_trec", buf, kind, int(comments), threads=threads, ranks=2)


@SETTINGS
@given(st.binary(max_size=120), st.sampled_from([0, 1]), st.booleans())
def test_parse_trec_arbitrary_bytes(buf: bytes, kind: int, comments: bool) -> None:
    for threads in (0, 2):
        same("parse_trec", buf, kind, comments, threads)


@SETTINGS
@given(st.floats(allow_nan=False, allow_infinity=False), st.sampled_from(["r", "e", "f", "g"]))
def test_parse_trec_scores(value: float, style: str) -> None:
    text = {"r": repr(value), "e": f"{value:.17e}", "f": f"{value:.6f}", "g": f"{value:.12g}"}
    same("parse_trec", f"q Q0 d 1 {text[style]} t\n".encode(), 0, 1)
    if math.isfinite(value) and value == int(value):
        same("parse_trec", f"q 0 d {text[style]}\n".encode(), 1, 1)


@pytest.mark.parametrize(
    "args",
    [
        ("a str", 0, 1),
        (b"q Q0 d 1 1 t", 2, 1),
        (b"q Q0 d 1 1 t", -1, 1),
        (bytearray(b"2 Q0 b 1 1.5 t\n1 Q0 a 1 2.5 t\n"), 0, 1),
        (memoryview(b"1 0 d 1\n"), 1, 0),
        (np.frombuffer(b"1 0 d 1\n1 0 e 2", dtype=np.uint8), 1, 1),
        (b"", 0, 1),
        (b"# only\n", 1, 1),
        (b"1 Q0 d 1 1 t\n" * 40 + b"1 Q0 d 1 x t", 0, 1),
    ],
)
def test_parse_trec_arguments(args: tuple) -> None:
    for threads in THREADS:
        same("parse_trec", *args, threads=threads)


def test_parse_trec_large_input_at_every_thread_count() -> None:
    rng = np.random.default_rng(3)
    lines = [
        f"{int(rng.integers(0, 300))} Q0 D{int(rng.integers(0, 80))} {i} "
        f"{float(rng.integers(-8, 8)) / 4} r"
        for i in range(20000)
    ]
    buf = "\n".join(lines).encode()
    for threads in THREADS:
        same("parse_trec", buf, 0, 1, threads=threads)
        same("parse_trec", buf, 0, 1, threads=threads, ranks=True)
        same("parse_trec", buf, 0, 1, threads=threads, ranks=2)


@pytest.mark.parametrize("rank", RANKS)
def test_parse_trec_rank_fields(rank: str) -> None:
    got = same("parse_trec", f"q Q0 d {rank} 1 t\nq Q0 e 5 1 t\n".encode(), 0, 1, ranks=True)
    assert len(got) == 8 and got[7][1] == 5
    # a relevance's syntax: an int64 literal, or a decimal float with an integral value
    # below 2^53 in magnitude; anything else is INT64_MIN
    expected = -(2**63)
    if re.fullmatch(r"[+-]?[0-9]+", rank) and -(2**63) <= int(rank) < 2**63:
        expected = int(rank)
    elif re.fullmatch(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?", rank):
        value = float(rank)
        if value == math.trunc(value) and abs(value) < 2**53:
            expected = int(value)
    assert got[7][0] == expected
    # NIST ndeval's syntax: digits only, on a line of exactly 6 fields
    strict = same("parse_trec", f"q Q0 d {rank} 1 t\nq Q0 e 5 1 t x\n".encode(), 0, 1, ranks=2)
    digits = rank.isdigit() and len(rank) <= 18
    assert strict[7].tolist() == [int(rank) if digits else -(2**63), -(2**63)]


def test_parse_trec_ranks_only_for_runs() -> None:
    same("parse_trec", b"q 0 d 1\n", 1, 1, ranks=True)
    same("parse_trec", b"q Q0 d 1 1 t\n", 0, 1, ranks=0)
    same("parse_trec", b"q Q0 d 1 1 t\n", 0, 1, ranks=3)
    same("parse_trec", b"q Q0 d 1 1 t\n", 0, 1, ranks=-1)


# ---------------------------------------------------------------------------
# encode_strings, group_by_query, take_strings
# ---------------------------------------------------------------------------


class Named:
    pass


class Reiterable:
    """An iterable that is not a sequence (each call gets a fresh iterator)."""

    def __init__(self, items: list[str]) -> None:
        self.items = items

    def __iter__(self) -> Any:
        return iter(self.items)


@SETTINGS
@given(st.lists(st.text(max_size=6) | st.sampled_from(["\ud800", "a\x00b"]), max_size=10))
def test_encode_strings(strings: list[str]) -> None:
    same("encode_strings", strings)
    same("encode_strings", tuple(strings))
    same("encode_strings", seq=Reiterable(strings))


@pytest.mark.parametrize(
    "arg",
    [["a", "b", 3], [b"a"], 5, "abc", b"abc", ["x", Named()], [np.float64(1.0)], None, []],
)
def test_encode_strings_errors(arg: object) -> None:
    same("encode_strings", arg)


@SETTINGS
@given(
    st.lists(
        st.sampled_from(["q1", "q2", "é", "", "\ud800", "a\x00b"])
        | st.none()
        | st.integers(0, 3)
        | st.text(max_size=3),
        max_size=12,
    ),
    st.booleans(),
    st.booleans(),
    st.integers(1, 3),
)
def test_encode_objects(values: list[object], copies: bool, runs: bool, step: int) -> None:
    """Object arrays (also strided), with the same object repeated and with equal but
    distinct objects, non-str values and strings that are not valid Unicode."""
    if copies:  # equal strings as distinct objects
        values = ["".join(list(v)) if isinstance(v, str) else v for v in values]
    array = np.empty(len(values), dtype=object)
    array[:] = values
    same("encode_objects", array[::step], runs)
    same("encode_objects", values=array, runs=runs)


@pytest.mark.parametrize("arg", [["a"], np.array(["a"]), np.zeros((2, 2), dtype=object), None])
def test_encode_objects_errors(arg: object) -> None:
    same("encode_objects", arg)


@SETTINGS
@given(st.lists(st.integers(-(2**63), 2**63 - 1), max_size=20))
def test_decimal_strings(values: list[int]) -> None:
    same("decimal_strings", np.array(values, dtype=np.int64))
    same("decimal_strings", np.array(values, dtype=np.int64)[::2])
    data, offsets = _c.decimal_strings(np.array(values, dtype=np.int64))
    texts = [bytes(data[a:b]).decode() for a, b in itertools.pairwise(offsets.tolist())]
    assert texts == [str(v) for v in values]


@pytest.mark.parametrize("arg", [np.array([1.5]), np.array([2**64 - 1], dtype=np.uint64), None])
def test_decimal_strings_errors(arg: object) -> None:
    same("decimal_strings", arg)


def _plain_decimal(text: bytes) -> int:
    """``decimal_values``' definition: the integer ``text`` writes as ``str(v)`` does for
    ``0 <= v < 10**18``, else -1."""
    if not text.isdigit() or not text.isascii():
        return -1
    value = int(text)
    return value if str(value).encode() == text and value < 10**18 else -1


_DECIMAL_TEXTS = st.one_of(
    st.integers(0, 10**19).map(lambda v: str(v).encode()),
    st.sampled_from(
        [b"", b"0", b"00", b"017", b"-1", b"+1", b"1e3", b" 1", b"1 ", b"\x00", b"9" * 18,
         b"9" * 19, b"1" + b"0" * 17, b"1" + b"0" * 18, "\u0663".encode(), b"/", b":"]
    ),
    st.binary(max_size=4),
)  # fmt: skip


@SETTINGS
@given(st.lists(_DECIMAL_TEXTS, max_size=25))
def test_decimal_values(texts: list[bytes]) -> None:
    data, offsets = make_column(texts)
    got = same("decimal_values", data, offsets)
    assert got.tolist() == [_plain_decimal(t) for t in texts]
    if len(texts) > 1:  # a column that starts inside the data
        same("decimal_values", data, offsets[1:])


@pytest.mark.parametrize(
    "args",
    [
        (np.zeros(2, dtype=np.uint8), np.array([0, 3], dtype=np.int64)),
        (np.zeros(2, dtype=np.uint8), np.array([2, 1], dtype=np.int64)),
        (np.zeros(2, dtype=np.uint8), np.zeros((1, 2), dtype=np.int64)),
        (None, np.array([0], dtype=np.int64)),
    ],
)
def test_decimal_values_errors(args: tuple[object, object]) -> None:
    same("decimal_values", *args)


@SETTINGS
@given(
    st.lists(st.tuples(st.integers(-(2**63), 2**63 - 1), st.integers(-1, 4)), max_size=8),
    st.integers(-3, 3),
)
def test_ranges(runs: list[tuple[int, int]], step: int) -> None:
    starts = np.array([s for s, _ in runs], dtype=np.int64)
    counts = np.array([c for _, c in runs], dtype=np.int64)
    same("ranges", starts, counts, step)
    if (counts >= 0).all():  # the values, by plain Python (wrapping as int64)
        want = [((s + i * step + 2**63) % 2**64) - 2**63 for s, c in runs for i in range(c)]
        assert _c.ranges(starts, counts, step).tolist() == want


@pytest.mark.parametrize(
    "args", [(np.zeros(2, np.int64), np.zeros(3, np.int64)), (None, None), ([1.5], [1])]
)
def test_ranges_errors(args: tuple) -> None:
    same("ranges", *args)


@pytest.mark.parametrize(
    "args", [(3, "int64"), (0, "uint8"), (2, "float64"), (-1, "int64"), (2, "int32"), (2, 7)]
)
def test_empty(args: tuple) -> None:
    if args[0] < 0 or args[1] not in ("int64", "uint8", "float64"):
        same("empty", *args)  # the same error
        return
    native, fallback = _c.empty(*args), fb.empty(*args)
    assert (native.dtype, native.shape) == (fallback.dtype, fallback.shape)


@SETTINGS
@given(st.lists(st.integers(-1, 6), max_size=30), st.integers(-1, 7))
def test_group_by_query(codes: list[int], n_queries: int) -> None:
    same("group_by_query", np.array(codes, dtype=np.int64), n_queries)
    same("group_by_query", codes, n_queries)


@SETTINGS
@given(
    st.lists(st.binary(max_size=5), max_size=10),
    st.lists(st.integers(-2, 11), max_size=15),
    st.sampled_from(["ok", "ok", "decreasing", "outside", "empty", "float", "2d", "none"]),
)
def test_take_strings(strings: list[bytes], idx: list[int], damage: str) -> None:
    data, offsets = make_column(strings)
    index: Any = np.array(idx, dtype=np.int64)
    if damage == "decreasing" and len(offsets) > 2:
        offsets[1] = offsets[-1] + 1 if offsets[-1] > 0 else 0
        offsets[1], offsets[2] = offsets[2] + 1, offsets[2]
    elif damage == "outside":
        offsets = offsets + 1
    elif damage == "empty":
        offsets = np.zeros(0, dtype=np.int64)
    elif damage == "float":
        index = index.astype(np.float64)
    elif damage == "2d":
        index = index.reshape(1, -1)
    elif damage == "none":
        index = None
    same("take_strings", data, offsets, index)


# ---------------------------------------------------------------------------
# rank, find_duplicates, align
# ---------------------------------------------------------------------------

RANK_DOCS = [b"D", b"D1", b"D10", b"d1", b"a", b"ab", b"abc", b"", b"a\x00", b"\xc3\x84", b"9"]


@st.composite
def ranked(draw: st.DrawFn, max_seg: int = 70) -> tuple:
    seg_lens = draw(st.lists(st.integers(0, max_seg), min_size=1, max_size=4))
    n = sum(seg_lens)
    pool = draw(
        st.lists(
            st.sampled_from([0.0, -0.0, 1.0, 1.0 + 2**-40, -1.0, 2.5, 1e300, -1e-300, 5e-324])
            | st.floats(-5, 5, allow_nan=False).map(lambda x: round(x, 1)),
            min_size=1,
            max_size=6,
        )
    )
    scores = np.array(draw(st.lists(st.sampled_from(pool), min_size=n, max_size=n)), dtype=float)
    if draw(st.booleans()):
        q = np.cumsum([0, *seg_lens])
        for j in range(len(seg_lens)):
            scores[q[j] : q[j + 1]] = np.sort(scores[q[j] : q[j + 1]])[::-1]
    docs = draw(st.lists(st.sampled_from(RANK_DOCS), min_size=n, max_size=n))
    return np.array([0, *np.cumsum(seg_lens)], dtype=np.int64), docs, scores


@SETTINGS
@given(ranked(), st.integers(-1, 3))
def test_rank(case: tuple, policy: int) -> None:
    q_offsets, docs, scores = case
    data, offsets = make_column(docs)
    for threads in THREADS:
        same("rank", q_offsets, data, offsets, scores, policy, threads=threads)


def test_rank_large_segments() -> None:
    rng = np.random.default_rng(11)
    scores = np.round(rng.normal(size=3000) * 3, 1)
    scores[::7] = -0.0
    docs = [f"d{int(x)}".encode() for x in rng.integers(0, 900, size=3000)]
    data, offsets = make_column(docs)
    q_offsets = np.array([0, 700, 700, 2500, 3000], dtype=np.int64)
    for policy in (0, 1, 2):
        for threads in THREADS:
            same("rank", q_offsets, data, offsets, scores, policy, threads)


@pytest.mark.parametrize(
    "args",
    [
        (np.array([0, 2]), "ab", np.array([0, 1, 2]), np.zeros(2), 0),
        (np.array([0, 1]), np.frombuffer(b"ab", np.uint8), np.array([0, 1, 2]), np.zeros(2), 0),
        (np.array([1, 2]), np.frombuffer(b"ab", np.uint8), np.array([0, 1, 2]), np.zeros(2), 0),
        (np.array([0, 2, 1, 2]), np.frombuffer(b"ab", np.uint8), np.array([0, 1, 2]), [0, 0], 0),
        (np.array([0, 2]), np.frombuffer(b"ab", np.uint8), np.array([0, 1, 2]), np.zeros(3), 0),
        (np.array([0, 2]), np.frombuffer(b"ab", np.uint8), np.array([0, 1, 2]), np.zeros(2), 3),
        (np.array([], dtype=np.int64), np.zeros(0, np.uint8), np.array([0]), np.zeros(0), 1),
        (None, np.zeros(0, np.uint8), np.array([0]), np.zeros(0), 1),
        (np.array([0]), np.zeros(0, np.uint8), np.array([0]), np.zeros(0, np.float32), 2),
        (np.array([0.0]), np.zeros(0, np.uint8), np.array([0]), np.zeros(0), 2),
    ],
)
def test_rank_argument_errors(args: tuple) -> None:
    same("rank", *args)


@SETTINGS
@given(ranked(max_seg=40), st.integers(-2, 8), st.sampled_from(["none", "rank", "bad", "short"]))
def test_find_duplicates(case: tuple, limit: int, how: str) -> None:
    q_offsets, docs, scores = case
    data, offsets = make_column(docs)
    n = len(docs)
    order: Any = None
    if how == "rank":
        order = _c.rank(q_offsets, data, offsets, scores, 0)
    elif how == "bad":
        order = np.arange(n, dtype=np.int64)[::-1] + (n // 2)
    elif how == "short":
        order = np.arange(max(n - 1, 0), dtype=np.int64)
    for threads in THREADS:
        same("find_duplicates", q_offsets, data, offsets, order, limit, threads)


@SETTINGS
@given(ranked(max_seg=30), st.data())
def test_align(case: tuple, data: st.DataObject) -> None:
    q_offsets, docs, scores = case
    n_queries = len(q_offsets) - 1
    run_data, run_offsets = make_column(docs)
    perm = _c.rank(q_offsets, run_data, run_offsets, scores, 0)
    if data.draw(st.integers(0, 8)) == 0 and len(perm):
        perm = perm.copy()
        perm[data.draw(st.integers(0, len(perm) - 1))] = data.draw(st.sampled_from([-1, len(perm)]))
    n_qrels_queries = data.draw(st.integers(0, 4))
    qrels_docs: list[bytes] = []
    qrels_rel: list[int] = []
    qrels_q = [0]
    for _ in range(n_qrels_queries):  # repeated docids too: the first judgment counts
        judged = data.draw(st.lists(st.sampled_from(RANK_DOCS), max_size=9))
        qrels_docs += judged
        qrels_rel += [data.draw(st.integers(-3, 3)) for _ in judged]
        qrels_q.append(len(qrels_docs))
    run_to_qrels = np.array(
        [data.draw(st.integers(-2, n_qrels_queries)) for _ in range(n_queries)], dtype=np.int64
    )
    if data.draw(st.booleans()):
        run_to_qrels = np.clip(run_to_qrels, -1, n_qrels_queries - 1)
    qd, qo = make_column(qrels_docs)
    args = [
        q_offsets,
        run_data,
        run_offsets,
        perm,
        run_to_qrels,
        np.array(qrels_q, dtype=np.int64),
        qd,
        qo,
        np.array(qrels_rel, dtype=np.int64),
    ]
    if data.draw(st.integers(0, 10)) == 0:  # a wrong length or a damaged column
        k = data.draw(st.sampled_from([3, 4, 7, 8, 0, 5]))
        args[k] = args[k][:-1] if len(args[k]) else np.array([1], dtype=np.int64)
    for threads in THREADS:
        same("align", *args, threads=threads)


# ---------------------------------------------------------------------------
# the loader
# ---------------------------------------------------------------------------


def test_loader_picks_the_c_module_by_default_and_the_fallback_on_request() -> None:
    code = "from ranklens.data import native; print(native.is_native())"
    for env, expected in (({}, "True"), ({"RANKLENS_NATIVE": "0"}, "False")):
        out = subprocess.run(
            [sys.executable, "-W", "error", "-c", code],
            env={**_base_env(), **env},
            capture_output=True,
            text=True,
            check=True,
        )
        assert out.stdout.strip() == expected


def test_loader_falls_back_with_one_warning_when_the_import_fails() -> None:
    # the C module made unimportable: a meta path finder that refuses it
    code = (
        "import sys, warnings\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'ranklens.data._core':\n"
        "            raise ImportError('blocked for the test')\n"
        "sys.meta_path.insert(0, Block())\n"
        "with warnings.catch_warnings(record=True) as caught:\n"
        "    warnings.simplefilter('always')\n"
        "    from ranklens.data import native\n"
        "    import ranklens.data.native\n"
        "    import ranklens\n"
        "    q = ranklens.Qrels.from_dict({'q': {'a': 1}})\n"
        "print(native.is_native(), len(caught), caught[0].category.__name__)\n"
        "print(caught[0].message)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], env=_base_env(), capture_output=True, text=True, check=True
    )
    first, message = out.stdout.splitlines()[:2]
    assert first == "False 1 RuntimeWarning"
    assert "blocked for the test" in message
    assert "slower" in message
    assert "RANKLENS_NATIVE=0" in message


def test_module_attribute_is_one_of_the_two() -> None:
    assert native.core in (_c, native_fallback)


def _base_env() -> dict[str, str]:
    import os

    return {k: v for k, v in os.environ.items() if k != "RANKLENS_NATIVE"}


def test_pool_runs_fallback_equals_the_native_join() -> None:
    """Rank fusion's join: the numpy fallback gives the C module's pool, for several seeds."""
    from ranklens.data import _core as native
    from ranklens.data import native_fallback
    from ranklens.data.run import Run

    for seed in range(5):
        rng = np.random.default_rng(seed)
        runs = []
        for _ in range(3):
            docs = {
                f"q{q}": {
                    f"d{i}": float(rng.integers(0, 5)) for i in rng.choice(30, 10, replace=False)
                }
                for q in range(8)
                if rng.random() < 0.8
            }
            runs.append(Run.from_dict(docs or {"q0": {"d0": 1.0}}))
        union = np.asarray(sorted(set().union(*(r.qids for r in runs))), dtype=object)
        inputs = [
            (
                r.q_offsets,
                np.searchsorted(union, np.asarray(r.qids, dtype=object)).astype(np.int64),
                r.doc_data,
                r.doc_offsets,
                r.ranking("trec_eval"),
            )
            for r in runs
        ]
        got = native_fallback.pool_runs(inputs, len(union))
        want = native.pool_runs(inputs, len(union))
        for a, b in zip(got[:4], want[:4], strict=True):
            np.testing.assert_array_equal(a, b)
        for (fa, ra), (fb, rb) in zip(got[4], want[4], strict=True):
            np.testing.assert_array_equal(fa, fb)
            np.testing.assert_array_equal(ra, rb)


@st.composite
def affine_inputs(draw: st.DrawFn) -> tuple:
    n_total = draw(st.integers(0, 10))
    values = st.sampled_from([0.0, -0.0, 1.0, -1.0, 0.1, 1e308, -1e308, math.inf, math.nan])
    values = values | st.floats(-5, 5, allow_nan=False)
    runs = []
    for _ in range(draw(st.integers(0, 3))):
        lengths = draw(st.lists(st.integers(0, 3), max_size=3))
        n = min(sum(lengths), n_total)
        lengths = lengths if sum(lengths) == n else [n]
        nq = len(lengths)
        fid = draw(st.permutations(range(n_total)))[:n]
        if draw(st.integers(0, 9)) == 0 and n:  # out of bounds
            fid = [*fid[:-1], n_total]
        runs.append(
            (
                np.array([0, *np.cumsum(lengths)], dtype=np.int64),
                np.array(draw(st.permutations(range(n))), dtype=np.int64),
                np.array(draw(st.lists(values, min_size=n, max_size=n)), dtype=np.float64),
                np.array(fid, dtype=np.int64),
                np.array(draw(st.lists(values, min_size=nq, max_size=nq)), dtype=np.float64),
                np.array(draw(st.lists(values, min_size=nq, max_size=nq)), dtype=np.float64),
                np.array(draw(st.lists(st.booleans(), min_size=nq, max_size=nq))),
                draw(st.sampled_from([1.0, 0.25, -3.0, 2])),
            )
        )
    return n_total, runs, draw(st.booleans())


@SETTINGS
@given(affine_inputs())
def test_affine_sum(case: tuple) -> None:
    n_total, runs, clip = case
    with np.errstate(all="ignore"):
        for threads in THREADS:
            same("affine_sum", n_total, runs, clip, threads=threads)


@pytest.mark.parametrize(
    "args",
    [
        (-1, []),
        (3, None),
        (3, [None]),
        (3, [(np.zeros(1, dtype=np.int64),)]),
        (3, [(np.array([0, 1]), [0], [1.0], [0], [0.0], [1.0], [0], "1")]),
        (3, [(np.array([0, 2]), [0, 1], [1.0], [0, 1], [0.0], [1.0], [0], 1.0)]),
        (3, [(np.array([1, 1]), [0], [1.0], [0], [0.0], [1.0], [0], 1.0)]),
        (3, [(np.array([0, 1]), [1], [1.0], [0], [0.0], [1.0], [0], 1.0)]),
        (3, [(np.array([0, 1]), [0], [1.0], [0], [0.0, 1.0], [1.0], [0], 1.0)]),
        (3, [(np.array([0, 1]), [0], np.array([1], dtype=np.int64), [0], [0.0], [1.0], [0], 1.0)]),
        (3, [(np.array([0, 1]), [0], [1.0], [0], [0.0], [1.0], [0.5], 1.0)]),
    ],
)
def test_affine_sum_errors(args: tuple) -> None:
    same("affine_sum", *args)


@st.composite
def run_text_inputs(draw: st.DrawFn) -> tuple:
    lengths = draw(st.lists(st.integers(0, 4), max_size=4))
    n = sum(lengths)
    qids = [
        q.encode()
        for q in draw(st.lists(st.sampled_from(QIDS), min_size=len(lengths), max_size=len(lengths)))
    ]
    docs = [d.encode() for d in draw(st.lists(st.sampled_from(DOCS), min_size=n, max_size=n))]
    values = st.floats() | st.sampled_from([0.0, -0.0, 1e-05, 1e16, 0.1, 5e-324, -math.nan])
    scores = np.array(draw(st.lists(values, min_size=n, max_size=n)), dtype=np.float64)
    order = np.array(draw(st.permutations(range(n))), dtype=np.int64)
    if n and draw(st.integers(0, 9)) == 0:
        order[draw(st.integers(0, n - 1))] = draw(st.sampled_from([-1, n]))
    nq = len(lengths)
    lo = draw(st.integers(0, nq))
    hi = draw(st.integers(lo, nq))
    if draw(st.integers(0, 9)) == 0:
        lo, hi = draw(st.sampled_from([(-1, 0), (1, 0), (0, nq + 1)]))
    return (
        *make_column(qids),
        np.array([0, *np.cumsum(lengths)], dtype=np.int64),
        *make_column(docs),
        scores,
        order,
        draw(st.sampled_from([b"run", b"", "t\u00e9".encode()])),
        lo,
        hi,
    )


@SETTINGS
@given(run_text_inputs())
def test_format_run(args: tuple) -> None:
    for threads in THREADS:
        same("format_run", *args, threads=threads)


def test_format_run_errors() -> None:
    qd, qo = make_column([b"q"])
    dd, do = make_column([b"a", b"b"])
    good = (qd, qo, np.array([0, 2]), dd, do, np.array([1.0, 2.0]), np.array([1, 0]), b"t", 0, 1)
    same("format_run", *good[:7], "t", 0, 1)
    same("format_run", *good[:7], None, 0, 1)
    same("format_run", None, *good[1:])
    same("format_run", *good[:5], np.array([1.0]), *good[6:])
    same("format_run", *good[:2], np.array([0, 1]), *good[3:])
    same("format_run", qd, np.array([0, 1, 1]), *good[2:])
    same("format_run", *good[:6], np.array([1, 1.5]), *good[7:])
