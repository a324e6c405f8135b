"""Fuzzing the readers and the native parser (issue 17).

Hypothesis generates TREC text, mostly well formed and then damaged on purpose (bad
numbers, long numbers, grades at and beyond 64 bits, NUL bytes, invalid UTF-8, lone and
paired carriage returns, byte-order marks, missing and extra columns, comment and blank
lines, compression, corrupt compressed bodies, random byte flips), and checks:

* **typed errors**: every reader, and ``evaluate`` over what they read, either returns a
  result or raises a :class:`~ranklens.RanklensError` subclass, never another exception
  (warnings are errors in this suite, so an overflow that would print a NaN fails too);
* **thread counts**: ``parse_trec`` gives the same result, or the same error, at 1, 2, 3
  and 8 threads;
* **a slow reference**: on every input, the result (or the error, its type and line)
  equals that of the obvious pure-Python reader below, written from the formats' rules.

The budget is short by default (seconds); a long run is one command::

    RANKLENS_FUZZ_EXAMPLES=100000 pytest tests/test_fuzz.py

(``RANKLENS_FUZZ_SEED=N`` fixes hypothesis' seed; by default the short budget is
derandomized so CI is reproducible, and the long one explores.)
"""

from __future__ import annotations

import bz2
import gzip
import io
import json
import lzma
import math
import os
import re
import warnings
import zlib
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, seed, settings
from hypothesis import strategies as st

import ranklens
from ranklens.base.errors import (
    EmptyInputError,
    InputError,
    ParseError,
    RanklensError,
)
from ranklens.cli import main
from ranklens.data import _core
from ranklens.data.trec_text import read_qrels, read_run

EXAMPLES = int(os.environ.get("RANKLENS_FUZZ_EXAMPLES", "0") or 0)
LONG = EXAMPLES > 0
FUZZ = settings(
    max_examples=EXAMPLES if LONG else 60,
    deadline=None,
    derandomize=not LONG and "RANKLENS_FUZZ_SEED" not in os.environ,
    database=None,
    suppress_health_check=list(HealthCheck),
)
_SEED = os.environ.get("RANKLENS_FUZZ_SEED")


def fuzz(test: Any) -> Any:
    """The fuzz settings (and the seed, when one is given) on a test."""
    test = FUZZ(test)
    return seed(int(_SEED))(test) if _SEED else test


THREADS = (1, 2, 3, 8)
RUN, QRELS = 0, 1

# ---------------------------------------------------------------------------
# The slow reference: the formats' rules, written the obvious way
# ---------------------------------------------------------------------------

NUL_MSG = "contains a NUL byte: this looks like a binary file, not TREC text"
RUN_COLS = "expected 6 columns (qid Q0 docid rank score tag), found {}"
QRELS_COLS = "expected 4 columns (qid iter docid relevance), found {}"
UTF8_MSG = "is not valid UTF-8 text"
FLOAT_RE = re.compile(rb"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
SPECIAL_RE = re.compile(rb"[+-]?(?:inf(?:inity)?|nan(?:\([0-9A-Za-z_]*\))?)", re.IGNORECASE)
INT_RE = re.compile(rb"[+-]?[0-9]+")
BOM = b"\xef\xbb\xbf"


class RefError(Exception):
    """What the reference expects instead of a result: a line number and a message."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(line, message)
        self.line = line
        self.message = message


def _shown(field: bytes) -> str:
    # the native core keeps 160 bytes of the field and shows its first 40 characters
    return field[:160].decode("utf-8", "replace")[:40]


def ref_score(field: bytes, line: int) -> float:
    """A score: a decimal literal of any length (hexadecimal and words refused), finite."""
    if FLOAT_RE.fullmatch(field):
        value = float(field)
        if math.isfinite(value):
            return value
        raise RefError(line, f"score '{_shown(field)}' is not finite (NaN or infinity)")
    if SPECIAL_RE.fullmatch(field):
        raise RefError(line, f"score '{_shown(field)}' is not finite (NaN or infinity)")
    raise RefError(line, f"score '{_shown(field)}' is not a number")


def ref_rel(field: bytes, line: int) -> int:
    """A relevance: an integer of 64 bits, or a decimal literal whose value is an integer
    below 2^53 in magnitude."""
    if INT_RE.fullmatch(field) and -(2**63) <= int(field) < 2**63:
        return int(field)
    if FLOAT_RE.fullmatch(field):
        value = float(field)
        if math.isfinite(value) and value == int(value) and abs(value) < 2**53:
            return int(value)
    raise RefError(line, f"relevance '{_shown(field)}' is not an integer")


def _utf8(field: bytes, line: int) -> None:
    try:
        field.decode("utf-8")
    except UnicodeDecodeError:
        raise RefError(line, UTF8_MSG) from None


def ref_parse(buf: bytes, kind: int, comments: int = 1) -> tuple[Any, ...]:
    """What ``parse_trec`` returns: (qids, q_offsets, docs, values, lines, tag)."""
    if b"\0" in buf:
        raise RefError(buf[: buf.index(b"\0")].count(b"\n") + 1, NUL_MSG)
    entries: list[tuple[bytes, bytes, float | int, int]] = []
    tag = None
    for number, line in enumerate(buf.split(b"\n"), 1):
        fields = line.split()  # ASCII whitespace: C's isspace
        if not fields or (comments and fields[0].startswith(b"#")):
            continue
        if kind == RUN and len(fields) < 6:
            raise RefError(number, RUN_COLS.format(len(fields)))
        if kind == QRELS and len(fields) != 4:
            raise RefError(number, QRELS_COLS.format(len(fields)))
        _utf8(fields[0], number)
        _utf8(fields[2], number)
        if kind == RUN:
            value: float | int = ref_score(fields[4], number)
            _utf8(fields[5], number)
            tag = fields[5].decode()
        else:
            value = ref_rel(fields[3], number)
        entries.append((fields[0], fields[2], value, number))
    qids = sorted({e[0] for e in entries})
    rank = {q: i for i, q in enumerate(qids)}
    grouped = sorted(entries, key=lambda e: rank[e[0]])  # stable: file order within a query
    counts = [0] * (len(qids) + 1)
    for e in grouped:
        counts[rank[e[0]] + 1] += 1
    return (
        [q.decode() for q in qids],
        np.cumsum(counts, dtype=np.int64),
        [e[1] for e in grouped],
        [e[2] for e in grouped],
        [e[3] for e in grouped],
        tag,
    )


class RefReadError(Exception):
    """What the reference reader expects: an exception type and a line (or None)."""

    def __init__(self, kind: type[Exception], line: int | None) -> None:
        super().__init__(kind, line)
        self.kind = kind
        self.line = line


def ref_read(data: bytes, kind: int) -> tuple[Any, ...]:
    """What a reader (``Qrels.from_file``/``Run.from_file``) does with the bytes of a file."""
    magic = {b"\x1f\x8b": gzip.decompress, b"BZh": bz2.decompress, b"\xfd7zXZ\x00": lzma.decompress}
    for head, decompress in magic.items():
        if data.startswith(head):
            try:
                data = decompress(data)
            except (OSError, EOFError, ValueError, lzma.LZMAError, zlib.error):
                raise RefReadError(InputError, None) from None
            break
    lone = re.search(rb"\r(?!\n)", data)
    if lone:  # classic-Mac line ends are refused, naming the line
        raise RefReadError(ParseError, data[: lone.start()].count(b"\n") + 1)
    if data.startswith(BOM):
        data = data[3:]
    try:
        parsed = ref_parse(data, kind)
    except RefError as exc:
        raise RefReadError(ParseError, exc.line or None) from None
    if not parsed[0]:
        raise RefReadError(EmptyInputError, None)
    return parsed


# ---------------------------------------------------------------------------
# Generators: TREC text, mostly well formed, then damaged
# ---------------------------------------------------------------------------

QIDS = [b"1", b"2", b"10", b"q", b"Q", b"\xc3\xa9", b"\xe6\x97\xa5", b"q-1", b"#q", b"\xff", b"a\xc3"]
DOCS = [b"d", b"d1", b"D10", b"\xc3\x84", b"\xf0\x9d\x84\x9ex", b"9", b"doc" * 12, b"\xed\xa0\x80"]
SCORES = [
    b"0", b"-0", b"1", b"1.5", b"-2.25", b"1e3", b".5", b"2.", b"+7", b"3.14159",
    b"1e308", b"1e-400", b"4.9e-324", b"0." + b"0" * 70 + b"25", b"1" * 80, b"1" * 80 + b".5",
    b"1e309", b"nan", b"inf", b"-Infinity", b"NaN(1)", b"0x10", b"1e", b"abc", b"-", b"1_0",
    b"1,5", b"", b"\xc3\xa9",
]  # fmt: skip
RELS = [
    b"0", b"1", b"2", b"-1", b"2.0", b"+1", b"-2.", b"1e3", b"0" * 90 + b"7",
    str(2**63 - 1).encode(), str(-(2**63)).encode(), str(2**63).encode(), b"9007199254740992.0",
    b"9007199254740991.0", b"1.5", b"x", b"nan", b"1e-3", b"1_0", b"\xd9\xa1",
]  # fmt: skip
SEPS = [b" ", b"  ", b"\t", b"\x0b", b"\x0c", b" \t "]
ENDS = [b"\n"] * 8 + [b"\r\n"] * 3 + [b"\r", b" \n", b"\t\r\n"]


def _valid(values: list[bytes], check: Any) -> list[bytes]:
    good = []
    for value in values:
        try:
            check(value, 1)
            _utf8(value, 1)
        except RefError:
            continue
        good.append(value)
    return good


GOOD_QIDS = _valid(QIDS, lambda v, n: None)
GOOD_DOCS = _valid(DOCS, lambda v, n: None)
GOOD_SCORES = _valid(SCORES, ref_score)
GOOD_RELS = _valid(RELS, ref_rel)


@st.composite
def trec_lines(draw: st.DrawFn, kind: int, broken: bool) -> bytes:
    """Up to 60 lines of a run or qrels file; if ``broken``, some of them wrong."""
    out = []
    n = draw(st.integers(0, 60))
    qids = draw(
        st.lists(st.sampled_from(QIDS if broken else GOOD_QIDS), min_size=1, max_size=4, unique=True)
    )
    end = draw(st.sampled_from(ENDS if broken else [b"\n", b"\r\n", b" \n", b"\t\r\n"]))
    for i in range(n):
        what = draw(st.integers(0, 30))
        if what == 0:
            out.append(draw(st.sampled_from([b"", b" ", b"\t"])) + end)
            continue
        if what == 1:
            out.append(b"# a comment" + end)
            continue
        qid = draw(st.sampled_from(qids))
        doc = draw(st.sampled_from(DOCS if broken else GOOD_DOCS))
        doc += str(draw(st.integers(0, 30)) if broken else i).encode()  # duplicates if broken
        careful = draw(st.integers(0, 9)) > 0
        if kind == RUN:
            score = (
                repr(draw(st.floats(allow_nan=False, allow_infinity=False))).encode()
                if careful
                else draw(st.sampled_from(SCORES if broken else GOOD_SCORES))
            )
            rank = str(draw(st.integers(0, 999))).encode()
            tag = draw(st.sampled_from([b"run", b"t2", b"\xe2\x98\x83"]))
            fields = [qid, b"Q0", doc, rank, score, tag]
            fields += draw(st.lists(st.sampled_from([b"x", b"\xff"]), max_size=2))
        else:
            rel = (
                str(draw(st.integers(-2, 4))).encode()
                if careful
                else draw(st.sampled_from(RELS if broken else GOOD_RELS))
            )
            fields = [qid, b"0", doc, rel]
        if broken and draw(st.integers(0, 40)) == 0:
            fields = fields[: draw(st.integers(1, len(fields)))] + [b"extra"] * (kind == QRELS)
        sep = draw(st.sampled_from(SEPS))
        line = sep.join(f for f in fields if f) if draw(st.booleans()) else b" ".join(fields)
        if broken and draw(st.integers(0, 50)) == 0:
            line = b" " + line.replace(b" ", b"\r", 1)  # a carriage return inside the line
        if broken and draw(st.integers(0, 30)) == 0:
            out.append(line + draw(st.sampled_from(ENDS)))
        else:
            out.append(line + end)
    text = b"".join(out)
    if text and draw(st.booleans()):
        text = text.rstrip(b"\r\n")  # no final line end
    return text


@st.composite
def damaged(draw: st.DrawFn, kind: int) -> bytes:
    """TREC text: well formed half of the time, else with wrong lines, maybe a NUL and
    flipped bytes; maybe a byte-order mark."""
    broken = draw(st.booleans())
    text = draw(trec_lines(kind, broken))
    if draw(st.integers(0, 5)) == 0:
        text = BOM + text
    if broken and text and draw(st.integers(0, 25)) == 0:
        at = draw(st.integers(0, len(text) - 1))
        text = text[:at] + b"\0" + text[at + 1 :]
    for _ in range(draw(st.integers(0, 2)) if broken and draw(st.integers(0, 4)) == 0 else 0):
        if text:
            at = draw(st.integers(0, len(text) - 1))
            text = text[:at] + bytes([draw(st.integers(0, 255))]) + text[at + 1 :]
    return text


@st.composite
def files(draw: st.DrawFn, kind: int) -> bytes:
    """The bytes of a file: text, compressed, or compressed and then damaged."""
    text = draw(damaged(kind))
    how = draw(st.integers(0, 9))
    if how < 6:
        return text
    packed = [gzip.compress, bz2.compress, lzma.compress][how % 3](text)
    if how == 9 and len(packed) > 20:
        cut = draw(st.integers(10, len(packed) - 1))
        if draw(st.booleans()):
            return packed[:cut]  # truncated
        flip = bytes([packed[cut] ^ draw(st.integers(1, 255))])
        return packed[:cut] + flip + packed[cut + 1 :]  # corrupt body
    return packed


# ---------------------------------------------------------------------------
# Properties
# ---------------------------------------------------------------------------


def _core_outcome(buf: bytes, kind: int, comments: int, threads: int) -> tuple[Any, ...]:
    """parse_trec's result as plain lists, or ("error", line, message)."""
    try:
        qids, q_offsets, doc_data, doc_offsets, values, lines, tag = _core.parse_trec(
            buf, kind, comments, threads=threads
        )
    except ValueError as exc:  # the core's typed contract: ValueError(line, message)
        assert len(exc.args) == 2 and isinstance(exc.args[0], int), exc.args
        assert isinstance(exc.args[1], str)
        return ("error", exc.args[0], exc.args[1])
    raw = doc_data.tobytes()
    docs = [raw[doc_offsets[i] : doc_offsets[i + 1]] for i in range(len(doc_offsets) - 1)]
    assert q_offsets.dtype == lines.dtype == doc_offsets.dtype == np.int64
    assert values.dtype == (np.float64 if kind == RUN else np.int64)
    signs = [math.copysign(1.0, v) for v in values.tolist()]  # -0.0 stays -0.0
    return (qids, q_offsets.tolist(), docs, values.tolist(), signs, lines.tolist(), tag)


def _ref_outcome(buf: bytes, kind: int, comments: int) -> tuple[Any, ...]:
    try:
        qids, q_offsets, docs, values, lines, tag = ref_parse(buf, kind, comments)
    except RefError as exc:
        return ("error", exc.line, exc.message)
    signs = [math.copysign(1.0, v) for v in values]
    return (qids, q_offsets.tolist(), docs, values, signs, lines, tag)


@fuzz
@given(st.sampled_from([RUN, QRELS]), st.booleans(), st.data())
def test_native_parser_equals_the_reference_at_every_thread_count(
    kind: int, comments: bool, data: st.DataObject
) -> None:
    buf = data.draw(damaged(kind))
    expected = _ref_outcome(buf, kind, int(comments))
    for threads in THREADS:
        assert _core_outcome(buf, kind, int(comments), threads) == expected, threads
    event("parse error" if expected[0] == "error" else "parsed")


@fuzz
@given(st.sampled_from([RUN, QRELS]), st.binary(max_size=400))
def test_native_parser_on_arbitrary_bytes(kind: int, buf: bytes) -> None:
    expected = _ref_outcome(buf, kind, 1)
    for threads in THREADS:
        assert _core_outcome(buf, kind, 1, threads) == expected, threads


def _reader_outcome(data: bytes, kind: int) -> tuple[Any, ...]:
    read = read_run if kind == RUN else read_qrels
    try:
        got = read(io.BytesIO(data))
    except RanklensError as exc:
        return ("error", type(exc), getattr(exc, "line", None))
    raw = got["doc_data"].tobytes()
    offsets = got["doc_offsets"]
    docs = [raw[offsets[i] : offsets[i + 1]] for i in range(len(offsets) - 1)]
    values = got["scores" if kind == RUN else "rels"].tolist()
    return (
        list(got["qids"]),
        got["q_offsets"].tolist(),
        docs,
        values,
        [math.copysign(1.0, v) for v in values],
        got["lines"].tolist(),
        got.get("name") if kind == RUN else None,
    )


@fuzz
@given(st.sampled_from([RUN, QRELS]), st.data())
def test_readers_give_a_typed_error_or_the_reference_result(kind: int, data: st.DataObject) -> None:
    buf = data.draw(files(kind))
    try:
        qids, q_offsets, docs, values, lines, tag = ref_read(buf, kind)
        expected: tuple[Any, ...] = (
            qids,
            q_offsets.tolist(),
            docs,
            values,
            [math.copysign(1.0, v) for v in values],
            lines,
            (tag or "<stream>") if kind == RUN else None,
        )
    except RefReadError as exc:
        expected = ("error", exc.kind, exc.line)
    assert _reader_outcome(buf, kind) == expected
    event(expected[1].__name__ if expected[0] == "error" else "read")


def _table(data: st.DataObject, columns: int, last: list[bytes]) -> bytes:
    lines = []
    for _ in range(data.draw(st.integers(0, 12))):
        fields = [data.draw(st.sampled_from(QIDS))]
        fields += [data.draw(st.sampled_from(DOCS)) for _ in range(columns - 2)]
        fields.append(data.draw(st.sampled_from(last)))
        if data.draw(st.integers(0, 15)) == 0:
            fields = fields[: data.draw(st.integers(0, columns))]
        lines.append(b" ".join(fields) + data.draw(st.sampled_from(ENDS)))
    text = b"".join(lines)
    if data.draw(st.integers(0, 4)) == 0:
        text = BOM + text
    return text


@fuzz
@given(st.data())
def test_judgement_file_readers_give_a_typed_error_or_a_result(data: st.DataObject) -> None:
    from ranklens.data.judgement_groups import read_qrels_jg
    from ranklens.data.prefs import read_prefs

    prefs = _table(data, 5, [b"0", b"1", b"2.5", b"-1", b"1e400", b"x", b"nan", b"\xd9\xa1"])
    jg = _table(data, 4, RELS)
    for read, text in ((read_prefs, prefs), (read_qrels_jg, jg)):
        try:
            got = read(io.BytesIO(text))
        except RanklensError:
            continue
        # a byte-order mark changes nothing
        again = read(io.BytesIO(BOM + text.removeprefix(BOM)))
        assert again.qids == got.qids and again.docids() == got.docids()


MEASURES = ["AP", "nDCG@10", "nDCG", "P@5", "RR", "Bpref", "ERR@10", "RBP", "infAP", "Rprec"]


@fuzz
@given(st.data())
def test_evaluate_gives_a_typed_error_or_finite_numbers(data: st.DataObject) -> None:
    qrels = data.draw(damaged(QRELS))
    run = data.draw(damaged(RUN))
    try:
        with warnings.catch_warnings():  # the one deliberate warning: most queries missing
            warnings.simplefilter("ignore", ranklens.InputWarning)
            results = ranklens.evaluate(io.BytesIO(qrels), io.BytesIO(run), MEASURES)
    except RanklensError as exc:
        event(type(exc).__name__)
        return
    event("evaluated")
    for name, value in results.aggregate.items():
        assert math.isfinite(value), (name, value)


@fuzz
@given(data=st.data())
def test_trec_eval_command_exits_cleanly(data: st.DataObject, tmp_path_factory: Any) -> None:
    folder = tmp_path_factory.mktemp("fuzz")
    qrels, run = folder / "qrels", folder / "run"
    qrels.write_bytes(data.draw(files(QRELS)))
    run.write_bytes(data.draw(files(RUN)))
    args = data.draw(st.sampled_from([[], ["-q"], ["-c", "-m", "all_trec"], ["-m", "ndcg_cut.5"]]))
    out, err = io.StringIO(), io.StringIO()
    from contextlib import redirect_stderr, redirect_stdout

    with redirect_stdout(out), redirect_stderr(err):
        code = main(["trec-eval", *args, str(qrels), str(run)])
    message = err.getvalue()
    assert code in (0, 2, 4, 7), (code, message)
    if code:
        assert message.count("\n") == 1 and "internal error" not in message, message
        assert message.startswith("ranklens trec-eval: error: "), message
    else:
        assert "nan" not in out.getvalue().lower(), out.getvalue()  # no id or name has it


@pytest.mark.parametrize("threads", THREADS)
def test_a_large_fuzzed_file_splits_across_threads_identically(threads: int) -> None:
    # Long enough that pass 1 really cuts the file between threads (short inputs are all
    # "tail"), with queries interleaved and a problem near the end.
    rng = np.random.default_rng(17)
    lines = [
        f"q{rng.integers(0, 40)} Q0 d{i} {i} {rng.standard_normal()!r} run\n".encode()
        for i in range(5000)
    ]
    buf = b"".join(lines)
    assert _core_outcome(buf, RUN, 1, threads) == _ref_outcome(buf, RUN, 1)
    bad = b"".join([*lines[:4000], b"q1 Q0 d x 1e999 run\n", *lines[4000:]])
    assert _core_outcome(bad, RUN, 1, threads) == ("error", 4001, _ref_outcome(bad, RUN, 1)[2])


# ---------------------------------------------------------------------------
# Dicts, Arrow tables and JSON lines (issue 23): the numbers of the equivalent TREC text,
# or a RanklensError, never another exception
# ---------------------------------------------------------------------------

_IDS = st.one_of(
    st.sampled_from(["1", "2", "a", "b", "é", "d\u4e2d", "10"]),
    st.sampled_from([1, 2, 10, np.int64(2)]),
    st.sampled_from(["\ud800", "x\udfff"]),  # lone surrogates: never valid ids
)
_SCORES = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True, width=64),
    st.integers(-(2**70), 2**70),
    st.sampled_from([True, None, "1", 1e308 * 10, np.float32(0.5), np.int64(-3)]),
)
_ENTRIES = st.lists(st.tuples(_IDS, _IDS, _SCORES), min_size=1, max_size=12)
_FUZZ_QRELS = {"1": {"1": 1, "a": 2, "b": 0}, "2": {"2": 1, "10": 1}, "a": {"é": 1}}
_FUZZ_MEASURES = ["AP", "nDCG@5", "P@3", "R@10"]


def _as_trec_run(entries: list[tuple[Any, Any, Any]]) -> bytes | None:
    """The TREC text of ``entries`` (ids as text, scores as the shortest exact float), or
    None where it has none (an id or score the text cannot hold)."""
    lines = []
    for i, (q, d, s) in enumerate(entries):
        if isinstance(s, bool) or not isinstance(s, int | float | np.integer | np.floating):
            return None
        try:
            number = float(s)
        except OverflowError:
            return None
        if not math.isfinite(number):
            return None
        lines.append(f"{q} Q0 {d} {i + 1} {number!r} t\n")
    try:
        return "".join(lines).encode("utf-8")
    except UnicodeEncodeError:
        return None


def _outcome(run: Any) -> tuple[str, Any]:
    """``("ok", per-query values)`` or ``("error", its type)``; any exception other than a
    RanklensError fails the test."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            got = ranklens.evaluate(_FUZZ_QRELS, run, _FUZZ_MEASURES, queries="both")
        except RanklensError as exc:
            return "error", type(exc).__name__
    return "ok", got.per_query


def _check_against_text(entries: list[tuple[Any, Any, Any]], run: Any) -> None:
    kind, value = _outcome(run)
    if kind == "error":
        return
    text = _as_trec_run(entries)
    assert text is not None, f"read {entries!r}, which TREC text cannot hold"
    assert _outcome(io.BytesIO(text)) == ("ok", value)


@fuzz
@given(entries=_ENTRIES)
def test_fuzzed_dicts_give_the_texts_numbers_or_a_ranklens_error(
    entries: list[tuple[Any, Any, Any]],
) -> None:
    nested: dict[Any, dict[Any, Any]] = {}
    kept = []  # what the dict holds: Python keeps one value per equal key
    for q, d, s in entries:
        if d in nested.setdefault(q, {}):
            continue
        nested[q][d] = s
        kept.append((q, d, s))
    _check_against_text(kept, nested)


_ARROW_ENTRIES = st.lists(
    st.tuples(
        st.sampled_from(["1", "2", "a", "é", "10"]),
        st.sampled_from(["1", "2", "a", "b", "é", "10"]),
        st.floats(-1e6, 1e6, allow_nan=False),
    ),
    min_size=1,
    max_size=12,
)


@fuzz
@given(
    entries=_ARROW_ENTRIES,
    encode=st.sampled_from(["plain", "dictionary", "chunked"]),
    missing=st.sampled_from([None, "query_id", "doc_id", "score"]),
    at=st.integers(0, 11),
)
def test_fuzzed_arrow_tables_give_the_texts_numbers_or_a_ranklens_error(
    entries: list[tuple[str, str, float]], encode: str, missing: str | None, at: int
) -> None:
    import pyarrow as pa

    names = ("query_id", "doc_id", "score")
    values: dict[str, list[Any]] = {n: [e[i] for e in entries] for i, n in enumerate(names)}
    if missing is not None:
        values[missing][at % len(entries)] = None  # a null: an error, never an id or a 0
    columns = {
        n: pa.array(v, pa.float64() if n == "score" else pa.string()) for n, v in values.items()
    }
    if encode == "dictionary":  # nulls inside the dictionary: null_count is 0
        columns = {
            n: c.dictionary_encode(null_encoding="encode") if n != "score" else c
            for n, c in columns.items()
        }
    table = pa.table(columns)
    if encode == "chunked":
        table = pa.concat_tables([table.slice(0, len(table) // 2), table.slice(len(table) // 2)])
    if missing is not None:
        assert _outcome(table)[0] == "error"
        return
    _check_against_text(entries, table)


@fuzz
@given(
    entries=_ENTRIES,
    damage=st.sampled_from(["none", "bom", "blank", "cut", "bytes", "deep", "digits", "gzip"]),
)
def test_fuzzed_json_lines_give_the_texts_numbers_or_a_ranklens_error(
    entries: list[tuple[Any, Any, Any]], damage: str, tmp_path_factory: Any
) -> None:
    lines = []
    for q, d, s in entries:
        value = s.item() if isinstance(s, np.generic) else s
        ident = [x.item() if isinstance(x, np.generic) else x for x in (q, d)]
        try:
            lines.append(
                json.dumps({"query_id": ident[0], "doc_id": ident[1], "score": value}).encode()
            )
        except ValueError:
            return
    body = b"\n".join(lines) + b"\n"
    body = {
        "none": body,
        "bom": b"\xef\xbb\xbf" + body,
        "blank": b"\n\n" + body.replace(b"\n", b"\n\n"),
        "cut": body[: len(body) // 2],
        "bytes": body + b"\xff\xfe\x00garbage\n",
        "deep": body + b'{"query_id": ' + b"[" * 5000 + b"\n",
        "digits": body + b'{"query_id": "1", "doc_id": "1", "score": ' + b"9" * 5000 + b"}\n",
        "gzip": gzip.compress(body)[:-3],
    }[damage]
    path = tmp_path_factory.mktemp("jsonl") / ("run.jsonl.gz" if damage == "gzip" else "run.jsonl")
    path.write_bytes(body)
    if damage in ("cut", "bytes", "deep", "digits", "gzip"):
        kind, _ = _outcome(str(path))
        assert kind == "error" or damage == "cut"  # a cut may fall between two lines
        return
    _check_against_text(entries, str(path))
