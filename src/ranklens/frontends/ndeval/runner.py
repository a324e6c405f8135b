"""``ndeval [options] qrels run``: NIST ndeval 4.5's CSV from the diversity kernels.

What ndeval does, reproduced:

* runs are ordered by their rank column (``-traditional``: score descending, then docno
  descending, as trec_eval); ``-M depth`` cuts them; a run's topic number may carry a prefix
  ending in ``-`` (``wt09-1``); a docno twice for a topic (after the cut) is an error;
* topics, subtopics, ranks and judgments are read by ndeval's ``naturalNumber``
  (:func:`natural_number`: ASCII digits up to 1000009, ``01`` is 1; anything else is a syntax
  error naming the line), so topics ``01`` and ``1`` are one topic in both files;
* judgments above 1 count as 1; a subtopic without a relevant document is ignored;
* one CSV row per run topic (a topic without judgments scores 0), in topic order, then
  ``amean`` over the topics in both files (``-c``: over every qrels topic);
* ``-baseline FILE -riskAlpha a``: each value is ``x - b`` if ``x >= b``, else
  ``(1 + a)(x - b)``, against the baseline run's value ``b`` (0 where a file lacks the topic).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ranklens.base.errors import DuplicateError, InputError, ParseError
from ranklens.base.types import Float64Array, Int64Array
from ranklens.data.fields import split_columns
from ranklens.data.source import read_bytes
from ranklens.data.subtopics import SubtopicQrels
from ranklens.kernels import diversity as dv

CUTOFFS = (5, 10, 20)
DEPTH = 20
HEADER = (
    "runid,topic,ERR-IA@5,ERR-IA@10,ERR-IA@20,nERR-IA@5,nERR-IA@10,nERR-IA@20,"
    "alpha-DCG@5,alpha-DCG@10,alpha-DCG@20,alpha-nDCG@5,alpha-nDCG@10,alpha-nDCG@20,"
    "NRBP,nNRBP,MAP-IA,P-IA@5,P-IA@10,P-IA@20,strec@5,strec@10,strec@20"
)


@dataclass(frozen=True)
class NdevalOptions:
    """ndeval's command-line options."""

    alpha: float = 0.5
    beta: float = 0.5
    traditional: bool = False
    complete: bool = False
    depth: int = 0
    baseline: object | None = None
    risk_alpha: float = 0.0
    risk_alpha_text: str = "0"


@dataclass(frozen=True)
class _RunFile:
    runid: str
    name: str  # the file, for messages
    topics: Int64Array  # the distinct topics, ascending
    offsets: Int64Array
    docs: np.ndarray  # byte strings, ranked


NATURAL_MAX = 100_000 * 10 + 9
"""The largest number ndeval's ``naturalNumber`` reads: it refuses a number once the value
read so far exceeds 100000 (``LARGE_ENOUGH``), so 1000009 is the largest."""


def natural_number(text: str) -> int:
    """ndeval's ``naturalNumber``: ASCII digits only (leading zeros allowed, ``01`` is 1),
    at most :data:`NATURAL_MAX`; -1 for anything else (a sign, a Unicode digit, a 20-digit
    number), which ndeval reports as a syntax error.

    >>> natural_number("007"), natural_number("1000009"), natural_number("1000010")
    (7, 1000009, -1)
    """
    if not text or not all("0" <= c <= "9" for c in text):
        return -1
    significant = text.lstrip("0")
    if len(significant) > 7:
        return -1
    value = int(significant or "0")
    return value if value <= NATURAL_MAX else -1


def _topic(text: str) -> int:
    """ndeval's ``parseTopic`` of a run's topic: a number, or a prefix ending in ``-`` and a
    number (``wt09-1`` is 1); -1 if ndeval cannot read it. A topic without a digit first and
    without a ``-`` makes ndeval read past the field (it parses the next one): an error
    here."""
    if text[:1].isascii() and text[:1].isdigit():
        return natural_number(text)
    if "-" not in text:
        return -1
    return natural_number(text.split("-", 1)[1])


_NO_RANK = -(2**63)


def _columns_native(data: bytes) -> tuple[Int64Array, np.ndarray, Int64Array, Float64Array] | None:
    """Topics, docnos (``S`` array), ranks and scores of every line in file order, read by
    the native parser in ndeval's syntax; ``None`` when a line falls outside what it reads
    alike (a problem to report, a 7th field, a rank that is not digits, a topic that is not
    a number, a score the native parser refuses): :func:`_columns_split` then reads the
    file (and names the problem)."""
    from ranklens.data.native import core as _core
    from ranklens.data.native import is_native

    if not is_native():  # the numpy fallback's parser is slower than splitting
        return None
    try:
        qids, q_offsets, doc_data, doc_offsets, scores, lines, _, ranks = _core.parse_trec(
            data, 0, 0, ranks=2
        )
    except ValueError:
        return None
    parsed = np.array([_topic(q) for q in qids], dtype=np.int64)
    if (parsed < 0).any() or (ranks == _NO_RANK).any() or (ranks > NATURAL_MAX).any():
        return None
    order = np.argsort(lines, kind="stable")  # back to file order
    topics = np.repeat(parsed, np.diff(q_offsets))[order]
    lengths = np.diff(doc_offsets)
    width = max(int(lengths.max(initial=0)), 1)
    matrix = np.zeros((len(lengths), width), dtype=np.uint8)
    column = np.arange(len(doc_data), dtype=np.int64) - np.repeat(doc_offsets[:-1], lengths)
    matrix[np.repeat(np.arange(len(lengths)), lengths), column] = doc_data
    docs = matrix.view(f"S{width}").reshape(-1)[order]
    run_scores: Float64Array = np.asarray(scores, dtype=np.float64)[order]
    return topics, docs, ranks[order], run_scores


def _columns_split(
    data: bytes, name: str
) -> tuple[Int64Array, np.ndarray, Int64Array, Float64Array]:
    """The same columns read by splitting the text with numpy (errors name the line)."""
    cols = split_columns(data, 6, name, (0, 2, 3, 4))
    distinct_text, inverse = np.unique(cols[0], return_inverse=True)
    parsed = np.array(
        [_topic(t.decode("utf-8", errors="replace")) for t in distinct_text.tolist()],
        dtype=np.int64,
    )
    if (parsed < 0).any():
        bad = int(np.flatnonzero(parsed[inverse.reshape(-1)] < 0)[0])
        text = cols[0][bad].decode("utf-8", errors="replace")
        raise ParseError(
            f"the topic {text!r} is not a number ndeval reads: ASCII digits up to "
            f"{NATURAL_MAX}, after an optional prefix ending in '-' (wt09-1)",
            path=name,
            line=_line_of(data, bad),
        )
    topics = parsed[inverse.reshape(-1)]
    docs = cols[2]
    ranks = _naturals(cols[3], data, name, "rank")
    try:
        scores = cols[4].astype(np.float64)
    except ValueError as exc:
        raise ParseError(f"a score is not a number ({exc})", path=name) from None
    return topics, docs, ranks, scores


def _line_of(data: bytes, row: int) -> int:
    """The 1-based line number of the ``row``-th non-blank line of ``data`` (for messages
    only: it walks the lines)."""
    seen = -1
    for number, line in enumerate(data.split(b"\n"), start=1):
        if line.strip():
            seen += 1
            if seen == row:
                return number
    return row + 1


def _naturals(column: np.ndarray, data: bytes, name: str, what: str) -> Int64Array:
    """A column of numbers as ndeval's ``naturalNumber`` reads them (ASCII digits, at most
    :data:`NATURAL_MAX`); a :class:`ParseError` naming the line otherwise (never a number
    wrapped to 64 bits)."""
    width = column.dtype.itemsize
    matrix = column.view(np.uint8).reshape(-1, width)
    length = np.count_nonzero(matrix, axis=1)
    inside = np.arange(width)[None, :] < length[:, None]
    digits = (matrix >= 48) & (matrix <= 57)
    bad = ~(digits | ~inside).all(axis=1) | (length == 0)
    significant = np.zeros(len(column), dtype=np.int64)
    if width:
        # digits after the leading zeros: more than 7 is over ndeval's limit
        leading = np.argmax((matrix != 48) | ~inside, axis=1)
        significant = length - leading
    bad |= significant > 7
    values = np.zeros(len(column), dtype=np.int64)
    ok = ~bad
    if ok.any():
        power = 10 ** np.maximum(length[ok, None] - 1 - np.arange(width)[None, :], 0)
        values[ok] = np.where(inside[ok], (matrix[ok] - 48) * power, 0).sum(axis=1)
    bad |= values > NATURAL_MAX
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        text = column[row].decode("utf-8", errors="replace")
        raise ParseError(
            f"the {what} {text!r} is not a number ndeval reads (ASCII digits, at most "
            f"{NATURAL_MAX})",
            path=name,
            line=_line_of(data, row),
        )
    return values


def read_run(source: object, traditional: bool, depth: int, native: bool = True) -> _RunFile:
    """A run file ordered and cut as ndeval does (``native``: try the native parser
    first, which reads a well-formed file several times faster, with the same result)."""
    data, name = read_bytes(source)
    if not data.strip():
        raise InputError(f'run file "{name}" is empty')
    found = _columns_native(data) if native else None
    topics, docs, ranks, scores = found if found is not None else _columns_split(data, name)
    runid = data.split(maxsplit=6)[5].decode("utf-8", errors="replace")
    if traditional:
        # score descending, then docno descending
        _, doc_rank = np.unique(docs, return_inverse=True)
        order = np.lexsort((-doc_rank.reshape(-1), -scores, topics))
    else:
        order = np.lexsort((ranks, topics))
        t, r = topics[order], ranks[order]
        dup = (t[1:] == t[:-1]) & (r[1:] == r[:-1])
        if dup.any():
            i = int(np.flatnonzero(dup)[0])
            raise InputError(
                f'duplicate rank ({int(r[i])}) for topic {int(t[i])} in run file "{name}"'
            )
    topics, docs = topics[order], docs[order]
    distinct, counts = np.unique(topics, return_counts=True)
    if depth > 0:
        pos = np.arange(len(topics)) - np.repeat(np.cumsum(counts) - counts, counts)
        keep = pos < depth
        topics, docs = topics[keep], docs[keep]
        counts = np.minimum(counts, depth)
    offsets = np.zeros(len(distinct) + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    return _RunFile(runid, name, distinct.astype(np.int64), offsets, docs)


def _refuse_repeated_docs(run: _RunFile, doc_codes: Int64Array, name: str) -> None:
    """ndeval's check after the ``-M`` cut: a docno twice for a topic is a fatal error
    (``duplicate docno (D) for topic T``); counting it twice would score alpha-nDCG above 1.
    ``doc_codes`` numbers the run's documents (equal codes, equal docnos)."""
    if len(doc_codes) < 2:
        return
    width = int(doc_codes.max()) + 1
    topic_of = np.repeat(np.arange(len(run.topics), dtype=np.int64), np.diff(run.offsets))
    key = np.sort(topic_of * width + doc_codes)
    same = key[1:] == key[:-1]
    if same.any():
        i = int(np.flatnonzero(same)[0])
        where = int(np.flatnonzero(topic_of * width + doc_codes == key[i])[0])
        doc = run.docs[where].decode("utf-8", errors="replace")
        topic = int(run.topics[topic_of[where]])
        raise DuplicateError(
            f'duplicate docno ({doc}) for topic {topic} in run file "{name}" (ndeval refuses '
            "the run: a document is ranked once per topic)",
            path=name,
            query=str(topic),
            document=doc,
        )


def read_qrels(source: object) -> SubtopicQrels:
    """Subtopic qrels read as ndeval reads them: ``topic subtopic docno judgment``, the
    topic, subtopic and judgment each a number by :func:`natural_number` (no prefix on a
    qrels topic, no sign: a negative judgment is a syntax error in ndeval). Topics that
    ndeval reads as the same number (``01`` and ``1``) are one topic, their judgments
    merged.

    Raises
    ------
    ParseError
        A field ndeval cannot read (the message names the line).
    DuplicateError
        A document judged twice for the same topic and subtopic (also as ``01`` and ``1``):
        ndeval would count it twice in MAP-IA's denominator.
    """
    data, name = read_bytes(source)
    if not data.strip():
        raise InputError(f'qrel file "{name}" is empty')
    cols = split_columns(data, 4, name)
    distinct_text, inverse = np.unique(cols[0], return_inverse=True)
    inverse = inverse.reshape(-1)
    parsed = [natural_number(t.decode("utf-8", errors="replace")) for t in distinct_text.tolist()]
    for code, value in enumerate(parsed):
        if value < 0:
            row = int(np.flatnonzero(inverse == code)[0])
            raise ParseError(
                f"the topic {cols[0][row].decode('utf-8', errors='replace')!r} is not a "
                f"number ndeval reads in a qrels file (ASCII digits, at most {NATURAL_MAX}; "
                "no prefix such as wt09-)",
                path=name,
                line=_line_of(data, row),
            )
    topics = np.asarray(parsed, dtype=np.int64)[inverse]
    subtopics = _naturals(cols[1], data, name, "subtopic")
    judgments = _naturals(cols[3], data, name, "judgment")
    docs = cols[2]
    order = np.lexsort((docs, subtopics, topics))
    t, u, d = topics[order], subtopics[order], docs[order]
    same = (t[1:] == t[:-1]) & (u[1:] == u[:-1]) & (d[1:] == d[:-1])
    if same.any():
        i = int(np.flatnonzero(same)[0])
        first, second = sorted((int(order[i]), int(order[i + 1])))
        doc = d[i].decode("utf-8", errors="replace")
        raise DuplicateError(
            f"document {doc} is judged twice for topic {int(t[i])} subtopic {int(u[i])} "
            f"(lines {_line_of(data, first)} and {_line_of(data, second)}; ndeval would count "
            "it twice towards the subtopic's relevant documents; it reads 01 and 1 as one "
            "topic)",
            path=name,
            lines=(_line_of(data, first), _line_of(data, second)),
            query=str(int(t[i])),
            document=doc,
        )
    # the topics as ndeval numbers them (01 is 1), then the reader's own constructor
    canonical = np.array([str(v).encode() for v in parsed], dtype="S")[inverse]
    return SubtopicQrels._build(canonical, subtopics, docs, judgments, name)


def _rows(sq: SubtopicQrels, run: _RunFile, judged_q: Int64Array, name: str) -> Int64Array:
    """The subtopic-qrels row of every ranked document (-1 if not judged)."""
    qrels_docs = np.char.encode(np.asarray(sq.docids, dtype=str), "utf-8")
    every = np.concatenate(
        (
            qrels_docs.astype(
                run.docs.dtype
                if run.docs.dtype.itemsize >= qrels_docs.dtype.itemsize
                else qrels_docs.dtype
            ),
            run.docs,
        )
    )
    _, ids = np.unique(every, return_inverse=True)
    ids = ids.reshape(-1).astype(np.int64)
    _refuse_repeated_docs(run, ids[len(qrels_docs) :], name)
    width = int(ids.max(initial=0)) + 1
    row_query = np.repeat(np.arange(sq.num_queries, dtype=np.int64), np.diff(sq.doc_offsets))
    qrels_key = row_query * width + ids[: len(qrels_docs)]  # ascending: rows are sorted
    run_query = np.repeat(judged_q, np.diff(run.offsets))
    run_key = run_query * width + ids[len(qrels_docs) :]
    at = np.searchsorted(qrels_key, run_key)
    at = np.minimum(at, max(len(qrels_key) - 1, 0))
    found = (run_query >= 0) & (len(qrels_key) > 0)
    if len(qrels_key):
        found &= qrels_key[at] == run_key
    out: Int64Array = np.where(found, at, -1).astype(np.int64)
    return out


def _measures(
    sq: SubtopicQrels, run: _RunFile, opts: NdevalOptions
) -> tuple[Float64Array, BoolMask]:
    """The 21 values of every run topic (rows), and which topics are judged."""
    qindex = {int(q): i for i, q in enumerate(sq.qids) if q.isdigit()}
    judged_q = np.array([qindex.get(int(t), -1) for t in run.topics], dtype=np.int64)
    rows = _rows(sq, run, judged_q, run.name)
    nsub = np.where(judged_q >= 0, sq.num_subtopics[np.maximum(judged_q, 0)], 0)
    a, b = opts.alpha, opts.beta
    pairs = dv.pairs_of(run.offsets, rows, sq)
    gains = dv.rank_gains(pairs, a)
    ideal = dv.IdealValues(sq, a)

    def ideal_of(values: Float64Array) -> Float64Array:
        out = np.zeros(len(judged_q))
        ok = judged_q >= 0
        out[ok] = values[judged_q[ok]]
        return out

    cols: dict[str, Float64Array] = {}
    for kind, name in (("err", "ERR-IA"), ("dcg", "alpha-DCG")):
        for k in CUTOFFS:
            raw = dv.raw_at(run.offsets, gains, kind, k)
            cols[f"{name}@{k}"] = dv.normalised_at(raw, nsub, a, kind, k)
            cols[f"n{name}@{k}"] = dv.ratio(raw, ideal_of(ideal.raw_at(kind, k)), nsub, k, a, kind)
    cols["NRBP"] = dv.nrbp(run.offsets, gains, nsub, a, b)
    ideal_nrbp = ideal_of(ideal.nrbp(b))
    cols["nNRBP"] = dv.ratio(cols["NRBP"], ideal_nrbp, nsub)
    # ndeval divides 0 by 0 for a judged topic without a relevant document
    cols["nNRBP"][(judged_q >= 0) & (nsub == 0)] = np.nan
    cols["MAP-IA"] = dv.map_ia(pairs, nsub, sq)
    for k in CUTOFFS:
        cols[f"P-IA@{k}"] = dv.precision_ia(pairs, nsub, k)
    for k in CUTOFFS:
        cols[f"strec@{k}"] = dv.subtopic_recall(pairs, nsub, min(k, DEPTH))
    names = HEADER.split(",")[2:]
    order = [n.replace("alpha-nDCG", "nalpha-DCG") for n in names]
    table = np.column_stack([cols[n] for n in order])
    return table, judged_q >= 0


BoolMask = np.ndarray


def _fmt(value: float) -> str:
    """C's ``%.6f``; 0/0 is printed ``-nan`` as by glibc on x86-64."""
    return "-nan" if value != value else f"{value:.6f}"


def _risk(run: Float64Array, base: Float64Array, a: float) -> Float64Array:
    out: Float64Array = np.where(run >= base, run - base, (a + 1.0) * (run - base))
    return out


def run_ndeval(qrels: object, run: object, opts: NdevalOptions | None = None) -> str:
    """ndeval's CSV output for ``run`` against subtopic ``qrels`` (paths or file objects).

    Raises
    ------
    InputError
        Unreadable files, a syntax error (with the line), a rank twice for a topic.
    """
    opts = opts or NdevalOptions()
    sq = read_qrels(qrels)
    the_run = read_run(run, opts.traditional, opts.depth)
    values, judged = _measures(sq, the_run, opts)
    actual = int(judged.sum())
    lines = [HEADER]
    runid = the_run.runid
    rows: list[tuple[int, Float64Array]] = []
    if opts.baseline is None:
        rows = [(int(t), values[i]) for i, t in enumerate(the_run.topics.tolist())]
    else:
        base = read_run(opts.baseline, opts.traditional, opts.depth)
        bvalues, _ = _measures(sq, base, opts)
        runid = f"{runid} (rel to. {base.runid}; rs=1+a; a={opts.risk_alpha_text})"
        zero = np.zeros(values.shape[1])
        i = j = 0
        rt, bt = the_run.topics.tolist(), base.topics.tolist()
        while i < len(rt) or (j < len(bt) and opts.complete):
            if i < len(rt) and j < len(bt) and rt[i] == bt[j]:
                rows.append((rt[i], _risk(values[i], bvalues[j], opts.risk_alpha)))
                i, j = i + 1, j + 1
            elif i < len(rt) and (j >= len(bt) or rt[i] < bt[j]):
                rows.append((rt[i], _risk(values[i], zero, opts.risk_alpha)))
                i += 1
            else:
                if opts.complete:
                    rows.append((bt[j], _risk(zero, bvalues[j], opts.risk_alpha)))
                j += 1
    if opts.complete:
        actual = sq.num_queries
    if opts.baseline is not None:
        actual = max(actual, len(rows))
    for topic, vals in rows:
        lines.append(f"{runid},{topic}," + ",".join(_fmt(v) for v in vals.tolist()))
    total = np.zeros(values.shape[1])
    for _, vals in rows:  # ndeval's running sums, in row order
        total = total + vals
    mean = total / actual if actual else total * np.nan
    lines.append(f"{runid},amean," + ",".join(_fmt(v) for v in mean.tolist()))
    return "\n".join(lines) + "\n"
