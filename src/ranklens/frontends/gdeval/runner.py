r"""``gdeval [options] qrels run``: NIST gdeval.pl 1.3's CSV (TREC Web track 2010-2014),
byte for byte.

What gdeval does, reproduced:

* **qrels** ``topic 0 docno judgment``: the topic loses everything up to its last ``-``
  (``wt12-151`` is ``151``) and must then be digits; the second field must be 0 as a number
  (``Q0`` is 0 to Perl); the judgment an integer of at most 4. Only judgments above 0 are
  kept; a topic without one is not evaluated at all (not even with ``-c``). A document
  judged twice adds both judgments to the ideal ranking, and the lower one is its gain.
* **runs** ``topic Q0 docno rank score runid``: the rank column must be digits and the run
  id present (and not ``0``); the run's id is the last line's. Documents are ordered by
  score descending (as Perl reads a number: its longest numeric prefix, else 0), then by
  docno descending; the rank column is ignored. A document retrieved twice counts twice.
* per topic in both files: nDCG@k with gain :math:`2^g - 1` and discount
  :math:`\log_2(i + 1)` over the ideal ranking of the judged documents, and ERR@k with stop
  probability :math:`(2^g - 1)/16` (grades on gdeval's fixed 0-4 scale); printed ``%.5f``
  in the run's topic order (numeric), then ``amean``: the sum over the printed topics
  divided by their number (``-c``: by the number of qrels topics with a relevant document;
  the missing ones count 0).
* ``-baseline RUN -riskAlpha a``: each value is ``x - b`` if ``x >= b``, else
  ``(1 + a)(x - b)``, against the baseline's value ``b`` for the topic (0 where the baseline
  lacks it); with ``-c`` the qrels topics the run lacks are printed after the others with
  ``x = 0``, and, as in gdeval, a topic the baseline also lacks takes the baseline values
  of the previous such topic. The run id becomes ``RUN (rel to. BASE, rs=1+a, a=ALPHA)``
  with ALPHA as given.

Deliberate differences (where gdeval dies in Perl or reads garbage): bad input is a
one-line error naming the file and line; qrels that spell one topic two ways (``151`` and
``0151``, which gdeval would divide by zero on or silently mismatch) are refused; a
non-finite ``-riskAlpha`` is refused.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from ranklens.base.errors import InputError, OptionError, ParseError
from ranklens.data.source import read_bytes

MAX_JUDGMENT = 4
DEFAULT_DEPTH = 20
LOG2 = math.log(2.0)

_PERL_NUMBER = re.compile(rb"\s*([+-]?(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?))")
_PERL_SPECIAL = re.compile(rb"\s*([+-]?)(inf(?:inity)?|nan)", re.IGNORECASE)
_DIGITS = re.compile(rb"[0-9]+")
_JUDGMENT = re.compile(rb"-?[0-9]+")


def perl_number(text: bytes) -> float:
    """The number Perl reads from ``text`` in a numeric context: its longest numeric
    prefix (after white space), ``inf``/``infinity``/``nan`` in any case, else 0.

    >>> perl_number(b"12.5abc"), perl_number(b"Q0"), perl_number(b"-1e3"), perl_number(b".5")
    (12.5, 0.0, -1000.0, 0.5)
    """
    match = _PERL_NUMBER.match(text)
    if match:
        return float(match.group(1))
    special = _PERL_SPECIAL.match(text)
    if special:
        value = float(special.group(2).decode("ascii"))
        return -value if special.group(1) == b"-" else value
    return 0.0


@dataclass(frozen=True)
class GdevalOptions:
    """gdeval.pl's command-line options."""

    complete: bool = False
    depth: int = DEFAULT_DEPTH
    baseline: object | None = None
    risk_alpha: float = 0.0
    risk_alpha_text: str = "0"


@dataclass
class _Qrels:
    ideal: dict[int, float]  # numeric topic -> ideal DCG@k
    judgment: dict[tuple[bytes, bytes], int]  # (topic as written, docno) -> gain
    seen: dict[bytes, int]  # topic as written -> numeric topic, in first-seen order


@dataclass
class _Scores:
    runid: bytes
    ndcg: dict[bytes, float] = field(default_factory=dict)
    err: dict[bytes, float] = field(default_factory=dict)


def _lines(source: object) -> tuple[list[bytes], str]:
    data, name = read_bytes(source)
    return data.replace(b"\r", b"").split(b"\n")[: -1 if data.endswith(b"\n") else None], name


def _topic(raw: bytes) -> bytes:
    """The topic without its prefix up to the last ``-``."""
    cut = raw.rfind(b"-")
    return raw[cut + 1 :] if cut >= 0 else raw


def dcg(depth: int, gains: list[int]) -> float:
    """gdeval's DCG@depth: the sum of ``(2^g - 1) / log2(i + 2)`` over the first gains."""
    score = 0.0
    for i, gain in enumerate(gains[:depth]):
        score += (2**gain - 1) / (math.log(i + 2) / LOG2)
    return score


def err(depth: int, gains: list[int]) -> float:
    """gdeval's ERR@depth, stop probability ``(2^g - 1) / 2^4``."""
    score = 0.0
    decay = 1.0
    for i, gain in enumerate(gains[:depth]):
        r = (2**gain - 1) / (2**MAX_JUDGMENT)
        score += r * decay / (i + 1)
        decay *= 1 - r
    return score


def _read_qrels(source: object, depth: int) -> _Qrels:
    lines, name = _lines(source)
    kept: list[tuple[int, bytes, bytes, int]] = []  # (topic number, topic, docno, judgment)
    seen: dict[bytes, int] = {}
    for number, line in enumerate(lines, 1):
        fields = line.split()
        if len(fields) < 4:
            raise ParseError(
                "expected 'topic 0 docno judgment' (4 fields), as gdeval requires",
                path=name,
                line=number,
            )
        topic = _topic(fields[0])
        judgment = fields[3]
        if (
            not _DIGITS.fullmatch(topic)
            or perl_number(fields[1]) != 0
            or not _JUDGMENT.fullmatch(judgment)
            or int(judgment) > MAX_JUDGMENT
        ):
            raise ParseError(
                "format error: gdeval needs a numeric topic (a prefix ending in '-' is "
                f"dropped), 0 in the second field and an integer judgment of at most "
                f"{MAX_JUDGMENT}",
                path=name,
                line=number,
            )
        grade = int(judgment)
        if grade > 0:
            kept.append((int(topic), topic, fields[2], grade))
            seen.setdefault(topic, int(topic))
    spelled: dict[int, bytes] = {}
    for topic, numeric in seen.items():
        if spelled.setdefault(numeric, topic) != topic:
            raise InputError(
                f"topic {numeric} is written both as '{spelled[numeric].decode(errors='replace')}'"
                f" and '{topic.decode(errors='replace')}'; gdeval would not match them "
                "(write every topic one way)",
                path=name,
            )
    # by topic, then judgment descending (a stable sort, as Perl's)
    kept.sort(key=lambda row: (row[0], -row[3]))
    gains: dict[int, list[int]] = {}
    judgment_of: dict[tuple[bytes, bytes], int] = {}
    for numeric, topic, docno, grade in kept:
        gains.setdefault(numeric, []).append(grade)
        judgment_of[(topic, docno)] = grade  # the last in this order: the lowest
    ideal = {numeric: dcg(depth, g) for numeric, g in gains.items()}
    return _Qrels(ideal, judgment_of, seen)


def _read_run(source: object) -> tuple[bytes, list[tuple[int, bytes, bytes, float]], str]:
    lines, name = _lines(source)
    runid = b"?????"
    rows: list[tuple[int, bytes, bytes, float]] = []
    for number, line in enumerate(lines, 1):
        fields = line.split()
        topic = _topic(fields[0]) if fields else b""
        if (
            len(fields) < 6
            or not _DIGITS.fullmatch(topic)
            or fields[1] != b"Q0"
            or not _DIGITS.fullmatch(fields[3])
            or fields[5] == b"0"
        ):
            raise ParseError(
                "format error: gdeval needs 'topic Q0 docno rank score runid' with a numeric "
                "topic and rank and a run id",
                path=name,
                line=number,
            )
        runid = fields[5]
        rows.append((int(topic), topic, fields[2], perl_number(fields[4])))
    # topic ascending, score descending, docno descending (two stable sorts); NaN scores
    # compare equal to everything in gdeval: they keep their docno order
    rows.sort(key=lambda row: row[2], reverse=True)
    rows.sort(key=lambda row: (row[0], 0.0 if math.isnan(row[3]) else -row[3]))
    return runid, rows, name


def _risk(value: float, base: float, alpha: float) -> float:
    return (1 + alpha) * (value - base) if value < base else value - base


def _process(
    source: object,
    qrels: _Qrels,
    opts: GdevalOptions,
    out: list[str] | None,
    base: _Scores | None,
) -> _Scores:
    runid, rows, _ = _read_run(source)
    label = runid.decode("utf-8", errors="surrogateescape")
    if base is not None:
        label = (
            f"{label} (rel to. {base.runid.decode('utf-8', errors='surrogateescape')}, "
            f"rs=1+a, a={opts.risk_alpha_text})"
        )
    scores = _Scores(runid)
    if out is not None:
        out.append(f"runid,topic,ndcg@{opts.depth},err@{opts.depth}\n")
    totals = [0.0, 0.0]
    count = 0

    def done(
        topic: bytes, numeric: int, gains: list[int], base_values: tuple[float, float]
    ) -> None:
        nonlocal count
        if topic not in qrels.seen:
            return
        ndcg_value = dcg(opts.depth, gains) / qrels.ideal[numeric]
        err_value = err(opts.depth, gains)
        if base is not None:
            ndcg_value = _risk(ndcg_value, base_values[0], opts.risk_alpha)
            err_value = _risk(err_value, base_values[1], opts.risk_alpha)
        totals[0] += ndcg_value
        totals[1] += err_value
        count += 1
        scores.ndcg[topic] = ndcg_value
        scores.err[topic] = err_value
        if out is not None:
            text = topic.decode("utf-8", errors="surrogateescape")
            out.append(f"{label},{text},{ndcg_value:.5f},{err_value:.5f}\n")

    def base_of(topic: bytes) -> tuple[float, float]:
        if base is None:
            return (0.0, 0.0)
        return (base.ndcg.get(topic, 0.0), base.err.get(topic, 0.0))

    processed: set[bytes] = set()
    start = 0
    while start < len(rows):
        numeric, topic = rows[start][0], rows[start][1]
        stop = start
        gains: list[int] = []
        while stop < len(rows) and rows[stop][0] == numeric:
            gains.append(qrels.judgment.get((rows[stop][1], rows[stop][2]), 0))
            stop += 1
        done(topic, numeric, gains, base_of(topic))
        processed.add(topic)
        start = stop
    denominator = count
    if opts.complete:
        denominator = len(qrels.seen)
        if base is not None:  # the qrels topics the run lacks, each scored on nothing
            carried = (0.0, 0.0)
            for topic in sorted(qrels.seen, key=lambda t: qrels.seen[t]):
                if topic in processed:
                    continue
                carried = (
                    base.ndcg.get(topic, carried[0]),
                    base.err.get(topic, carried[1]),
                )
                done(topic, qrels.seen[topic], [], carried)
    if out is not None:
        ndcg_mean = totals[0] / denominator if denominator > 0 else totals[0]
        err_mean = totals[1] / denominator if denominator > 0 else totals[1]
        out.append(f"{label},amean,{ndcg_mean:.5f},{err_mean:.5f}\n")
    return scores


def _checked(opts: GdevalOptions | None) -> GdevalOptions:
    opts = opts or GdevalOptions()
    if isinstance(opts.depth, bool) or not isinstance(opts.depth, int) or opts.depth < 1:
        raise OptionError(f"-k must be a whole number of at least 1, not {opts.depth!r}")
    if not math.isfinite(opts.risk_alpha) or opts.risk_alpha < 0:
        raise OptionError(f"-riskAlpha must be a finite number >= 0, not {opts.risk_alpha_text!r}")
    return opts


def gdeval_values(
    qrels: object, run: object, opts: GdevalOptions | None = None
) -> dict[str, tuple[float, float]]:
    """The unrounded ``(nDCG@k, ERR@k)`` of every topic gdeval prints (risk-weighted with a
    baseline), keyed by the topic as printed.

    >>> import io
    >>> qrels = io.BytesIO(b"151 0 a 2\\n151 0 b 1\\n")
    >>> run = io.BytesIO(b"151 Q0 b 1 2.0 myrun\\n151 Q0 a 2 1.0 myrun\\n")
    >>> ndcg, err = gdeval_values(qrels, run)["151"]
    >>> round(ndcg, 10), round(err, 10)
    (0.796707581, 0.150390625)
    """
    opts = _checked(opts)
    read = _read_qrels(qrels, opts.depth)
    base = _process(opts.baseline, read, opts, None, None) if opts.baseline is not None else None
    scores = _process(run, read, opts, None, base)
    return {
        topic.decode("utf-8", errors="surrogateescape"): (scores.ndcg[topic], scores.err[topic])
        for topic in scores.ndcg
    }


def run_gdeval(qrels: object, run: object, opts: GdevalOptions | None = None) -> str:
    """gdeval.pl's output for ``run`` (a path, file or stdin ``-``) against ``qrels``.

    Examples
    --------
    >>> import io
    >>> qrels = io.BytesIO(b"151 0 a 2\\n151 0 b 1\\n")
    >>> run = io.BytesIO(b"151 Q0 b 1 2.0 myrun\\n151 Q0 a 2 1.0 myrun\\n")
    >>> print(run_gdeval(qrels, run), end="")
    runid,topic,ndcg@20,err@20
    myrun,151,0.79671,0.15039
    myrun,amean,0.79671,0.15039
    """
    opts = _checked(opts)
    read = _read_qrels(qrels, opts.depth)
    base = _process(opts.baseline, read, opts, None, None) if opts.baseline is not None else None
    out: list[str] = []
    _process(run, read, opts, out, base)
    return "".join(out)
