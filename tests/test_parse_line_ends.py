"""Line ends and NUL bytes found by the parser's first pass (``parse_trec(..., lone_cr=True)``).

A TREC file with a carriage return that does not end a line (classic-Mac line ends) or a
NUL byte is refused naming the line. The checks used to be passes of their own over the
whole file (a regular expression in ``data/source.py``, a ``memchr`` in the C core); the
native parser now makes them while it reads the lines, 16 bytes at a time. These tests
check it against the definitions (``\\r(?!\\n)`` and the first NUL, by line, a lone CR
first), at every thread count, with the carriage returns and NULs at every position of a
16-byte block (a CR LF split between two blocks included), against the numpy fallback, and
through the file readers against the check of :func:`ranklens.data.source.read_source`.
"""

from __future__ import annotations

import importlib
import io
import re
import warnings
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ranklens import Qrels, Run
from ranklens.base.errors import ParseError
from ranklens.data import native_fallback, source
from ranklens.data.source import LONE_CR_MESSAGE

try:
    _c: Any = importlib.import_module("ranklens.data._core")
except ImportError:  # pragma: no cover - an install without a compiler
    _c = None

PARSERS = [pytest.param(native_fallback, id="fallback")]
if _c is not None:
    PARSERS.insert(0, pytest.param(_c, id="C"))

NUL_MESSAGE = "contains a NUL byte: this looks like a binary file, not TREC text"
SETTINGS = settings(
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
THREADS = (0, 1, 2, 3)


def expected_error(text: bytes) -> tuple[int, str] | None:
    """What ``parse_trec(text, ..., lone_cr=True)`` must raise before parsing anything:
    the first lone carriage return's line, else the first NUL byte's line."""
    lone = re.search(rb"\r(?!\n)", text)
    if lone is not None:
        return text.count(b"\n", 0, lone.start()) + 1, LONE_CR_MESSAGE
    nul = text.find(b"\0")
    if nul >= 0:
        return text.count(b"\n", 0, nul) + 1, NUL_MESSAGE
    return None


def outcome(parser: Any, text: bytes, kind: int, **options: Any) -> Any:
    """The parser's result, or its ValueError's arguments."""
    try:
        return ("ok", parser.parse_trec(text, kind, 1, **options))
    except ValueError as exc:
        return ("error", exc.args)


def same_outcome(a: Any, b: Any) -> None:
    assert a[0] == b[0]
    if a[0] == "error":
        assert a[1] == b[1]
        return
    for x, y in zip(a[1], b[1], strict=True):
        if hasattr(x, "tolist"):
            assert x.dtype == y.dtype
            assert x.tolist() == y.tolist()
        else:
            assert x == y


RUN_LINES = [
    b"q1 Q0 d1 1 2.5 run",
    b"q1 Q0 doc-with-a-longer-name-0123456789 2 1.5 run",
    b"q2\tQ0\td3\t1\t0.25\tr",
    b"10 Q0 d 1 1 t",
    b"# a comment line",
    b"",
    b"   ",
]
QRELS_LINES = [b"q1 0 d1 1", b"q1 0 a-much-longer-document-identifier 0", b"q2 0 d3 2", b"#c", b""]
ODD = [b"\r", b"\r\n", b"\0", b"\r\r", b"\r \n", b" \r"]


@st.composite
def damaged_text(draw: st.DrawFn, kind: int) -> bytes:
    """Lines ending in ``\\n`` or ``\\r\\n``, then maybe a carriage return, CR LF or NUL
    put anywhere, and maybe no final line end (or a final lone CR)."""
    pool = RUN_LINES if kind == 0 else QRELS_LINES
    lines = draw(st.lists(st.sampled_from(pool), max_size=40))
    crlf = draw(st.booleans())
    text = b"".join(line + (b"\r\n" if crlf else b"\n") for line in lines)
    for _ in range(draw(st.integers(0, 2))):
        at = draw(st.integers(0, len(text)))
        text = text[:at] + draw(st.sampled_from(ODD)) + text[at:]
    end = draw(st.integers(0, 5))
    if end == 0:
        text = text.rstrip(b"\r\n")
    elif end == 1:
        text = text.rstrip(b"\r\n") + b"\r"
    return text


@pytest.mark.parametrize("parser", PARSERS)
@SETTINGS
@given(st.sampled_from([0, 1]).flatmap(lambda k: st.tuples(st.just(k), damaged_text(k))))
def test_lone_cr_and_nul_against_their_definitions(parser: Any, case: tuple[int, bytes]) -> None:
    kind, text = case
    wanted = expected_error(text)
    for threads in THREADS:
        got = outcome(parser, text, kind, threads=threads, lone_cr=True)
        if wanted is not None:
            assert got == ("error", wanted)
        else:  # nothing odd: exactly the parse without the check
            same_outcome(got, outcome(parser, text, kind, threads=threads))


@pytest.mark.parametrize("parser", PARSERS)
@SETTINGS
@given(st.sampled_from([0, 1]).flatmap(lambda k: st.tuples(st.just(k), damaged_text(k))))
def test_without_lone_cr_a_carriage_return_is_whitespace(
    parser: Any, case: tuple[int, bytes]
) -> None:
    """Without ``lone_cr`` only a NUL byte is refused before parsing (as before)."""
    kind, text = case
    nul = text.find(b"\0")
    got = outcome(parser, text, kind, threads=2)
    if nul >= 0:
        assert got == ("error", (text.count(b"\n", 0, nul) + 1, NUL_MESSAGE))


@pytest.mark.skipif(_c is None, reason="the C module ranklens.data._core is not built")
@SETTINGS
@given(st.sampled_from([0, 1]).flatmap(lambda k: st.tuples(st.just(k), damaged_text(k))))
def test_fallback_equals_c(case: tuple[int, bytes]) -> None:
    kind, text = case
    for threads in THREADS:
        for ranks in ((0, 1, 2) if kind == 0 else (0,)):
            same_outcome(
                outcome(_c, text, kind, threads=threads, ranks=ranks, lone_cr=True),
                outcome(native_fallback, text, kind, threads=threads, ranks=ranks, lone_cr=True),
            )


@pytest.mark.parametrize("parser", PARSERS)
@pytest.mark.parametrize("odd", [b"\r", b"\0", b"\r\n"])
def test_every_position_of_a_block(parser: Any, odd: bytes) -> None:
    """An odd byte at each position of the 16-byte blocks of a line (the query id's bytes,
    the rest of the line, the line end), on the line that starts a query and on a line
    that continues it, and a CR LF split between two blocks."""
    base = b"q1 Q0 d-0123456789abcdefghij 1 2.5 runtag"
    for target in (0, 1):
        for at in range(len(base) + 1):
            lines = [b"q1 Q0 first 1 3 t", base]
            if target == 0:
                lines = [base, b"q1 Q0 after 2 1 t"]
            text = bytearray(b"\n".join(lines) + b"\n")
            start = 0 if target == 0 else len(lines[0]) + 1
            text[start + at : start + at] = odd
            data = bytes(text)
            wanted = expected_error(data)
            for threads in (1, 2):
                got = outcome(parser, data, 0, threads=threads, lone_cr=True)
                if wanted is not None:
                    assert got == ("error", wanted), (at, target)
                else:
                    assert got[0] == "ok" or got[1][1] != LONE_CR_MESSAGE
    # CR LF endings where the CR is the last byte of a 16-byte block
    for width in range(1, 40):
        data = b"".join(b"q Q0 " + b"d" * width + b" 1 1 t\r\n" for _ in range(5))
        assert outcome(parser, data, 0, threads=1, lone_cr=True)[0] == "ok"
        broken = data[:-1]  # the last line ends in a lone CR: no '\n' follows it
        assert outcome(parser, broken, 0, threads=1, lone_cr=True) == (
            "error",
            (5, LONE_CR_MESSAGE),
        )


@pytest.mark.parametrize("parser", PARSERS)
def test_many_lines_on_several_threads(parser: Any) -> None:
    """The first odd line across the regions that threads scan (line numbers merged)."""
    lines = [f"{q} Q0 d{i} {i} {i / 7:.3f} r".encode() for q in range(40) for i in range(50)]
    clean = b"\n".join(lines) + b"\n"
    for where in (3, 999, 1000, 1001, 1999):
        for odd in (b"\r", b"\0"):
            text = bytearray(clean)
            offset = sum(len(line) + 1 for line in lines[:where]) + 4
            text[offset:offset] = odd
            data = bytes(text)
            # a later NUL does not hide an earlier lone CR, nor a later CR an earlier NUL
            data2 = data + b"x\0\n" if odd == b"\r" else data + b"y\r"
            for threads in THREADS:
                got = outcome(parser, data2, 0, threads=threads, lone_cr=True)
                assert got == ("error", expected_error(data2))


@pytest.mark.parametrize("reader", [Run.from_file, Qrels.from_file])
@SETTINGS
@given(st.data())
def test_readers_refuse_as_read_source_does(reader: Any, data: st.DataObject) -> None:
    """The file readers raise what the check of ``read_source`` raised (the line ends
    first, a BOM skipped), now that the parser makes the check."""
    kind = 0 if reader == Run.from_file else 1
    text = data.draw(damaged_text(kind))
    if data.draw(st.booleans()):
        text = source.BOM + text
    try:
        source.read_source(io.BytesIO(text))
        wanted = None
    except ParseError as exc:
        wanted = (exc.line, exc.message)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            reader(io.BytesIO(text))
        except ParseError as exc:
            if wanted is not None:
                assert (exc.line, exc.message) == wanted
            else:
                assert exc.message != LONE_CR_MESSAGE
        except Exception:  # empty input, duplicates ...: not a line end
            assert wanted is None
        else:
            assert wanted is None


def test_run_file_with_a_lone_cr_names_its_line(tmp_path: Any) -> None:
    path = tmp_path / "run.txt"
    path.write_bytes(b"q1 Q0 d1 1 2 r\nq1 Q0 d2 2 1 r\rq1 Q0 d3 3 0 r\n")
    with pytest.raises(ParseError, match=r"run\.txt:2: has a carriage return"):
        Run.from_file(path)
    path.write_bytes(b"q1 0 d1 1\r\nq1 0 d2 0\r\n")
    assert Qrels.from_file(path).to_dict() == {"q1": {"d1": 1, "d2": 0}}


def test_a_header_warning_comes_before_a_parse_error(tmp_path: Any) -> None:
    """A header's warning is given before a parse error, as when it was read first; a
    lone CR is refused before the header is read."""
    path = tmp_path / "run.txt"
    path.write_bytes(b"# ir_metadata.start\n# tag: x\nq1 Q0 d1 1 x r\n")
    with (
        pytest.warns(Warning, match="without '# ir_metadata.end'"),
        pytest.raises(ParseError, match=":3: score 'x' is not a number"),
    ):
        Run.from_file(path)
    path.write_bytes(b"# ir_metadata.start\n# tag: x\nq1 Q0 d1 1 2 r\r")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ParseError, match=":3: has a carriage return"):
            Run.from_file(path)
