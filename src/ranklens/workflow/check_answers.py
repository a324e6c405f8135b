"""Checking a TREC RAG answer file (JSON lines) line by line, reporting every defect.

A line of a TREC RAG 2024 run is ``{"run_id", "topic_id", "topic", "references":
[segment id, ...], "response_length", "answer": [{"text", "citations": [index into
references, ...]}, ...]}``; TREC RAG 2025 puts ``run_id`` and ``topic_id`` (or
``narrative_id``) under ``metadata`` and may call the answer ``responses``
(:mod:`ranklens.data.rag.answers`). The strict reader
(:func:`ranklens.data.rag.answers.read_rag_runs`) stops at the first problem; this
scanner reports each at its line, and runs the reader's own parse of every line it finds
no defect in, so that what the reader refuses is always a defect here.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any

from ranklens.base.errors import InputError
from ranklens.data.rag._records import Record, file_stem_of
from ranklens.data.rag.answers import parse_answer
from ranklens.workflow.check_run import read_text
from ranklens.workflow.findings import Collector, Findings

MAX_WORDS = 400
"""The TREC RAG answer length limit, in words (whitespace-separated tokens)."""


def check_answers(source: str | os.PathLike[str], *, max_words: int = MAX_WORDS) -> Findings:
    """Every defect and warning of the TREC RAG answer file ``source``.

    Defects: a line that is not a JSON object, a missing field (the run id, the topic id,
    ``references``, the answer's sentences, a sentence's ``text`` or ``citations``), a
    field of the wrong type, a citation outside the references, an answer longer than
    ``max_words`` words, a topic answered twice by one run, a file without answers.
    Warnings: an answer without sentences.

    Raises
    ------
    InputError
        The file cannot be read (missing, unreadable, compressed and corrupt, binary).
    """
    if max_words < 1:
        from ranklens.base.errors import OptionError

        raise OptionError(f"max_words must be a positive number, not {max_words}")
    data, name = read_text(source, "JSON lines")
    found = Collector(name)
    default_run = file_stem_of(name, "run")
    answered: dict[tuple[str, str], int] = {}
    records = 0
    for number, raw in enumerate(data.split(b"\n"), 1):
        if number == 1 and raw.startswith(b"\xef\xbb\xbf"):
            raw = raw[3:]
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError:
            found.defect(number, "is not UTF-8 text")
            continue
        if not line.strip():
            continue
        if not records and line.lstrip().startswith("["):
            found.defect(
                number,
                "the file is one JSON array: a TREC RAG answer file holds one JSON object per "
                "line (JSON lines)",
            )
            return found.findings("answers")
        records += 1
        try:
            value = json.loads(line)
        except json.JSONDecodeError as exc:
            found.defect(number, f"is not a JSON object ({exc.msg} at column {exc.colno})")
            continue
        if not isinstance(value, dict):
            found.defect(number, f"holds a JSON {type(value).__name__}, not an object")
            continue
        before = found.defect_count
        key = _record(value, number, max_words, default_run, found)
        if key is not None and key in answered:
            found.defect(
                number,
                f"run '{key[0]}' answers topic '{key[1]}' again (first at line {answered[key]}); "
                "give one answer per topic",
            )
        elif key is not None:
            answered[key] = number
        if found.defect_count == before:
            try:  # the reader's own parse: what it refuses is a defect
                parse_answer(Record(value, number, records), name, default_run)
            except InputError as exc:
                found.defect(number, exc.message)
    if not records:
        found.defect(1, "holds no answers (the file is empty, or has only blank lines)")
    return found.findings("answers")


def _record(
    data: dict[str, Any], line: int, max_words: int, default_run: str, found: Collector
) -> tuple[str, str] | None:
    """The defects of one answer; its (run, topic) when both are known."""
    meta = data.get("metadata")
    modern = isinstance(meta, Mapping)
    holder: Mapping[str, Any] = meta if isinstance(meta, Mapping) else data
    prefix = "metadata." if modern else ""
    run = holder.get("run_id")
    if run is None:
        found.defect(line, f"missing field '{prefix}run_id'")
    elif isinstance(run, bool) or not isinstance(run, str | int) or not str(run).strip():
        found.defect(line, f"'{prefix}run_id' must be a non-empty string, not {run!r:.40}")
        run = None
    topic_keys = ("topic_id", "narrative_id") if modern else ("topic_id",)
    topic = next((holder[k] for k in topic_keys if k in holder), None)
    if topic is None and modern:
        topic = next((data[k] for k in topic_keys if k in data), None)
    if topic is None:
        found.defect(line, f"missing field '{prefix}topic_id'")
    elif isinstance(topic, bool) or not isinstance(topic, str | int) or not str(topic).strip():
        found.defect(line, f"'{prefix}topic_id' must be a non-empty string, not {topic!r:.40}")
        topic = None
    where = f"topic '{topic}': " if topic is not None else ""
    references = data.get("references")
    known: list[str] | None = None  # citations are checked against valid references only
    if references is None:
        found.defect(line, f"{where}missing field 'references' (the segments the answer used)")
    elif not isinstance(references, list) or not all(
        isinstance(r, str | int) and not isinstance(r, bool) for r in references
    ):
        found.defect(line, f"{where}'references' must be a list of segment ids")
    else:
        known = [str(r) for r in references]
    _answer(data, line, where, known, max_words, found)
    length = holder.get("response_length", data.get("response_length"))
    if length is not None and (isinstance(length, bool) or not isinstance(length, int)):
        found.defect(line, f"{where}'response_length' must be an integer, not {length!r:.40}")
    if topic is None:
        return None
    return (default_run if run is None else str(run), str(topic))


def _answer(
    data: dict[str, Any],
    line: int,
    where: str,
    references: list[str] | None,
    max_words: int,
    found: Collector,
) -> None:
    """The defects of the answer's sentences and citations, and its length."""
    key = next((k for k in ("answer", "responses") if k in data), None)
    if key is None:
        found.defect(line, f"{where}missing field 'answer' (a list of {{text, citations}})")
        return
    sentences = data[key]
    if not isinstance(sentences, list):
        found.defect(line, f"{where}'{key}' must be a list of {{text, citations}} sentences")
        return
    if not sentences:
        found.warning("empty", line, f"{where}the answer has no sentences", "empty answers")
    words = 0
    for k, sentence in enumerate(sentences, 1):
        if not isinstance(sentence, Mapping):
            found.defect(line, f"{where}sentence {k} must be an object {{text, citations}}")
            continue
        text = sentence.get("text")
        if not isinstance(text, str):
            missing = "missing field 'text'" if text is None else "'text' must be a string"
            found.defect(line, f"{where}sentence {k}: {missing}")
        else:
            words += len(text.split())
        citations = sentence.get("citations")
        if citations is None:
            found.defect(line, f"{where}sentence {k}: missing field 'citations' (may be [])")
            continue
        if not isinstance(citations, list):
            found.defect(line, f"{where}sentence {k}: 'citations' must be a list")
            continue
        if references is None:
            continue  # no valid references to hold the citations against
        for c in citations:
            problem = _citation(c, references)
            if problem:
                found.defect(line, f"{where}sentence {k} {problem}")
    if words > max_words:
        found.defect(
            line, f"{where}the answer has {words:,} words, over the limit of {max_words:,}"
        )


def _citation(cited: Any, references: list[str]) -> str:
    """What is wrong with one citation ('' when nothing is)."""
    if isinstance(cited, bool) or not isinstance(cited, int | str):
        return f"cites {cited!r:.40}: a citation is an index into 'references'"
    if isinstance(cited, int):
        if 0 <= cited < len(references):
            return ""
        span = f"0-{len(references) - 1}" if references else "none"
        return f"cites {cited}, outside its {len(references)} references (indices {span})"
    return "" if cited in references else f"cites '{cited:.40}', which is not in its references"
