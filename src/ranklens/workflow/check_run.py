"""Checking a TREC run file line by line, reporting every defect rather than the first.

The strict reader (:meth:`ranklens.Run.from_file`) stops at the first problem; this
scanner goes on, and reports each problem at its line. It is at least as strict as the
reader: what the reader refuses is a defect here (or a file that cannot be read at all),
so a file without defects reads. It judges each field with the reader's own rules (the
parser's reference implementation, :mod:`ranklens.data.native_fallback`). It adds the
rules of the TREC tracks' run validators: exactly six columns, an integer rank, one run
tag, at most ``depth`` documents per query.
"""

from __future__ import annotations

import os
import re
import warnings
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

from ranklens.base.errors import InputError, ParseError
from ranklens.data.ir_metadata import header_of
from ranklens.data.native_fallback import parse_score, valid_utf8
from ranklens.data.source import read_source, release
from ranklens.workflow.findings import Collector, Findings

_LONE_CR = re.compile(rb"\r(?!\n)")
_INT = re.compile(rb"[+-]?[0-9]+")
_ARCHIVES = ((b"PK\x03\x04", "zip"), (b"\x28\xb5\x2f\xfd", "zstd"), (b"7z\xbc\xaf\x27\x1c", "7z"))


def read_text(source: str | os.PathLike[str], what: str) -> tuple[bytes, str]:
    """The (decompressed) bytes of a text file to check, and its name.

    Raises
    ------
    InputError
        The file cannot be read: missing, a directory, not readable, a corrupt or
        truncated compressed file, an archive, or binary data (a NUL byte).
    """
    content, name = read_source(source, check_line_ends=False)
    try:
        data = bytes(content)
    finally:
        release(content)
    for magic, kind in _ARCHIVES:
        if data.startswith(magic):
            raise InputError(
                f"is a {kind} archive, not {what}; extract the file first", path=name, line=None
            )
    nul = data.find(b"\0")
    if nul >= 0:
        raise InputError(
            f"contains a NUL byte: this looks like a binary file, not {what}",
            path=name,
            line=data.count(b"\n", 0, nul) + 1,
        )
    return data, name


def _shown(field: bytes) -> str:
    text = field[:160].decode("utf-8", "replace")
    return text if len(text) <= 40 else text[:39] + "…"


@dataclass
class _Query:
    """What the scan keeps of one query: (line, rank or None, score or None, document)
    per entry."""

    first_line: int
    entries: list[tuple[int, int | None, float | None, str]] = field(default_factory=list)


def check_run(
    source: str | os.PathLike[str],
    *,
    qrels: Any = None,
    depth: int | None = None,
) -> Findings:
    """Every defect and warning of the TREC run file ``source``.

    Defects: a line without exactly six columns (``qid Q0 docid rank score tag``), a
    score that is not a finite number, a rank that is not an integer, a query, document
    or tag that is not UTF-8, a carriage return that does not end a line, a (query,
    document) pair repeated, a second run tag, more than ``depth`` documents for a
    query, a file without run lines. Warnings: tied scores, ranks that disagree with the
    scores, a malformed ir_metadata header, and with ``qrels``: queries the qrels do not
    have, documents never judged (one summary line).

    Raises
    ------
    InputError
        The file cannot be read (see :func:`read_text`), or ``qrels`` cannot.
    """
    if depth is not None and depth < 1:
        from ranklens.base.errors import OptionError

        raise OptionError(f"depth must be a positive number, not {depth}")
    data, name = read_text(source, "a TREC run")
    found = Collector(name)
    lone = _LONE_CR.search(data)
    if lone is not None:
        found.defect(
            data.count(b"\n", 0, lone.start()) + 1,
            "has a carriage return (\\r) that does not end a line (classic-Mac line ends?); "
            "convert them, e.g. tr '\\r' '\\n'",
        )
    queries, lines = _scan(data, found)
    if not lines:
        found.defect(1, "holds no run lines (the file is empty, or has only blank and '#' lines)")
        return found.findings("run")
    _metadata(data, name, found)
    for qid, query in queries.items():
        _query_checks(qid, query, depth, found)
    if qrels is not None:
        _judgment_checks(queries, qrels, found)
    return found.findings("run")


def _scan(data: bytes, found: Collector) -> tuple[dict[str, _Query], int]:
    """One pass over the lines: the line defects, the entries of each query, and how many
    lines hold data (neither blank nor a comment)."""
    queries: dict[str, _Query] = {}
    lines = 0
    seen: dict[tuple[bytes, bytes], int] = {}
    tags: dict[bytes, int] = {}
    for number, raw in enumerate(data.split(b"\n"), 1):
        fields = raw.split()
        if not fields or fields[0][:1] == b"#":
            continue
        lines += 1
        if len(fields) != 6:
            found.defect(
                number,
                f"expected 6 columns (qid Q0 docid rank score tag), found {len(fields)}",
            )
            if len(fields) < 6:
                continue
        qid_field, _, doc, rank_field, score_field, tag = fields[:6]
        named = (("query id", qid_field), ("document id", doc))
        bad = [what for what, f in named if not valid_utf8(f)]
        if not valid_utf8(tag):
            bad.append("run tag")
        if bad:
            verb = "is" if len(bad) == 1 else "are"
            found.defect(number, f"the {' and the '.join(bad)} {verb} not valid UTF-8 text")
            if len(bad) > 1 or bad[0] != "run tag":
                continue
        score = parse_score(score_field)
        if isinstance(score, str):
            found.defect(number, score)
        rank: int | None = None
        if _INT.fullmatch(rank_field):
            rank = int(rank_field)
        else:
            found.defect(number, f"rank '{_shown(rank_field)}' is not an integer")
        if tag not in tags:
            if tags:
                first_tag, first_line = next(iter(tags.items()))
                found.defect(
                    number,
                    f"a second run tag '{_shown(tag)}' (line {first_line} has "
                    f"'{_shown(first_tag)}'): a run file holds one run; split it by tag",
                )
            tags[tag] = number
        qid = qid_field.decode("utf-8")
        key = (qid_field, doc)
        if key in seen:
            found.defect(
                number,
                f"query '{_shown(qid_field)}' retrieves document '{_shown(doc)}' again (first "
                f"at line {seen[key]}); keep one line per (query, document)",
            )
            continue
        seen[key] = number
        query = queries.get(qid)
        if query is None:
            query = queries[qid] = _Query(number)
        value = None if isinstance(score, str) else score
        query.entries.append((number, rank, value, doc.decode("utf-8")))
    return queries, lines


def _metadata(data: bytes, name: str, found: Collector) -> None:
    """Warnings about an ir_metadata header the reader would not read (or not as YAML)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        header = header_of(data, name)
    for warning in caught:
        text = str(warning.message)
        line = re.match(r".*?:(\d+): ", text)
        where = int(line.group(1)) if line else 1
        found.warning("metadata", where, text.split(": ", 1)[-1], "metadata warnings")
    if header is None:
        return
    try:
        header.data  # noqa: B018  (reading it as YAML is the check)
    except ParseError as exc:
        found.warning("metadata", exc.line or header.line or 1, exc.message, "metadata warnings")
    except ImportError:  # PyYAML missing: the text is kept, nothing to check
        return


def _query_checks(qid: str, query: _Query, depth: int | None, found: Collector) -> None:
    """Depth (a defect), ties and ranks that disagree with the scores (warnings)."""
    entries = query.entries
    if depth is not None and len(entries) > depth:
        found.defect(
            entries[depth][0],
            f"query '{qid}' has {len(entries):,} documents, more than the depth {depth:,} "
            "(this is its first one beyond it)",
        )
    by_score: dict[float, list[int]] = {}
    for line, _, score, _ in entries:
        if score is not None:
            by_score.setdefault(score, []).append(line)
    tied = [lines for lines in by_score.values() if len(lines) > 1]
    if tied:
        first = min(tied, key=lambda lines: lines[0])
        score = next(s for s, lines in by_score.items() if lines is first)
        others = f" ({len(tied) - 1} more tied groups in the query)" if len(tied) > 1 else ""
        found.warning(
            "ties",
            first[0],
            f"query '{qid}': {len(first)} documents tie at score {score!r}{others}; their "
            "order is set by the tie policy (trec_eval's: docid descending), not by the file",
            "queries with tied scores",
        )
    ranked = sorted((r, -s, line) for line, r, s, _ in entries if r is not None and s is not None)
    for (rank_a, neg_a, line_a), (rank_b, neg_b, line_b) in pairwise(ranked):
        if rank_a == rank_b or neg_b < neg_a:
            problem = (
                f"rank {rank_b} is given to more than one document (lines {line_a} and {line_b})"
                if rank_a == rank_b
                else f"rank {rank_b} (line {line_b}) has a higher score than rank {rank_a} "
                f"(line {line_a})"
            )
            found.warning(
                "ranks",
                line_b,
                f"query '{qid}': {problem}; documents are ranked by score, not by the rank column",
                "queries whose ranks disagree with their scores",
            )
            break


def _judgment_checks(queries: dict[str, _Query], qrels: Any, found: Collector) -> None:
    """Queries the qrels do not have (a warning each), and one line summing up the
    retrieved documents that were never judged."""
    from ranklens.data.coerce import as_qrels

    judgments = as_qrels(qrels)
    judged: dict[str, set[str]] = {q: set() for q in judgments.qids}
    owners = judgments.query_of_entries().tolist()
    for q, doc in zip(owners, judgments.docids(), strict=True):
        judged[judgments.qids[q]].add(doc)
    unjudged = 0
    retrieved = 0
    first_line = 0
    worst = ("", 0, 0)
    for qid, query in queries.items():
        known = judged.get(qid)
        if known is None:
            found.warning(
                "queries",
                query.first_line,
                f"query '{qid}' is not in the qrels: it is left out of the evaluation (or "
                "scores 0 for its documents with --queries run)",
                "queries not in the qrels",
            )
            continue
        missing = [line for line, _, _, doc in query.entries if doc not in known]
        retrieved += len(query.entries)
        unjudged += len(missing)
        if missing and (not first_line or missing[0] < first_line):
            first_line = missing[0]
        if len(missing) > worst[1]:
            worst = (qid, len(missing), len(query.entries))
    if unjudged:
        share = unjudged / retrieved
        found.warning(
            "unjudged",
            first_line,
            f"{unjudged:,} of the {retrieved:,} documents retrieved for the judged queries "
            f"({share:.1%}) were never judged (this is the first); the most in query "
            f"'{worst[0]}' ({worst[1]:,} of {worst[2]:,}); measures count them as not "
            "relevant: see bpref, judged@k and ranklens eval --bounds",
            "unjudged summaries",
        )
