"""Running a trec_eval command line on the shared engine and printing trec_eval's output.

The work is the library's: the run is read and ranked by the native core, joined with the
qrels once (:func:`ranklens.ranking.align.align`), and every value comes from a registered measure's
kernel. This module only chooses the queries as trec_eval 10.0 (or 9.0.8) would, applies
``-M``/``-J``/``-Z``, forms the summary and formats the lines.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from itertools import pairwise
from typing import IO

import numpy as np

from ranklens.base.errors import DuplicateError, InputError
from ranklens.base.segments import ordered_total
from ranklens.base.types import Float64Array
from ranklens.data.chunks import DEFAULT_CHUNK_BYTES, grouped_runs, should_stream
from ranklens.data.native import core as _core
from ranklens.data.qrels import Qrels
from ranklens.data.run import Run
from ranklens.evaluation.parts import absent_id
from ranklens.measures.base import GMEAN_FLOOR
from ranklens.measures.trec_table import Options, Slot, TrecUsageError, request
from ranklens.ranking.align import Aligned, GradeCounts, PreparedQrels, Ranked, align

Source = str | os.PathLike[str] | IO[bytes]

MISSING_Z = -1000000.0
"""trec_eval's z-score for a value without an entry in the ``-Z`` file."""


@dataclass(frozen=True)
class TrecOptions:
    """trec_eval's command-line options (see ``ranklens trec-eval --help``)."""

    measures: tuple[str, ...] = ()
    per_query: bool = False
    complete: bool = False
    no_summary: bool = False
    level: int = 1
    depth: int | None = None
    judged_only: bool = False
    num_docs: int = 0
    rel_format: str = "qrels"
    zscores: Source | None = None
    only_query: str | None = None
    v9: bool = False
    stream: bool | None = None
    """Read the run in chunks of whole queries (``True``), in memory (``False``), or chunks
    only for a file over :data:`~ranklens.data.chunks.STREAM_THRESHOLD` (``None``)."""
    chunk_bytes: int = DEFAULT_CHUNK_BYTES
    """Bytes of run text per chunk when streaming."""


@dataclass
class Table:
    """Per-query values (``values[slot name]`` in ``queries`` order) and the run's name."""

    queries: tuple[str, ...]
    values: dict[str, np.ndarray]
    run_name: str
    divisor: int
    missing: int
    """Queries counted in the divisor but not evaluated (9.0.8 with -c)."""
    missing_sums: dict[str, float] = field(default_factory=dict)
    """What those queries add to summed values (their ``num_rel``)."""


def read_ranked_run(source: Source, opts: TrecOptions) -> Run:
    """Read the run, apply 9.0.8's float32 scores, and check duplicates as trec_eval does
    (only within the ``-M`` window, after ranking)."""
    from ranklens.data.trec_text import read_run

    run = Run(**read_run(source))
    if opts.v9:
        run = replace(run, scores=run.scores.astype(np.float32).astype(np.float64))
    perm = run.ranking("trec_eval")
    limit = -1 if opts.depth is None else opts.depth
    dup, first = _core.find_duplicates(run.q_offsets, run.doc_data, run.doc_offsets, perm, limit)
    if dup.shape[0]:
        i = int(np.argmin(dup))
        d, f = int(dup[i]), int(first[i])
        lines = None if run.lines is None else (int(run.lines[f]), int(run.lines[d]))
        where = f" (lines {lines[0]} and {lines[1]})" if lines else ""
        query = run.qids[int(np.searchsorted(run.q_offsets, d, side="right")) - 1]
        raise DuplicateError(
            f"run has document '{run.docid(d)}' twice for query '{query}'{where}",
            path=run.source,
            lines=lines,
            query=query,
            document=run.docid(d),
        )
    return replace(run, unique=True)


def _relstrings(view: Ranked, length: int) -> np.ndarray:
    """trec_eval's ``relstring``: one character per rank for the first ``length`` ranks."""
    rel = view.rel
    chars = np.full(rel.shape[0], "<", dtype="<U1")
    digits = (rel >= 0) & (rel <= 9)
    chars[digits] = rel[digits].astype(str)
    chars[rel > 9] = ">"
    chars[rel == -1] = "-"
    chars[rel == -2] = "."
    bounds = view.offsets.tolist()
    text = "".join(chars.tolist())
    return np.array(
        [text[a : min(b, a + length)] for a, b in pairwise(bounds)],
        dtype=object,
    )


def compute_table(
    qrels_source: Source, run_source: Source, opts: TrecOptions
) -> tuple[list[Slot], Table]:
    """Evaluate as trec_eval: the slots to print and their per-query values."""
    options = Options(level=opts.level, num_docs=opts.num_docs, v9=opts.v9)
    slots = request(list(opts.measures), options)
    sources = {s.kind for s in slots} - {"measure", "runid", "num_q", "relstring"}
    wanted = {"qrels": "measure", "qrels_jg": "jg", "prefs": "prefs", "qrels_prefs": "prefs"}
    if opts.rel_format not in wanted:
        raise TrecUsageError(f"trec_eval: Illegal rel_format '{opts.rel_format}'", 2)
    for slot in slots:
        if slot.kind in ("measure", "relstring") and opts.rel_format != "qrels":
            raise TrecUsageError(
                f"trec_eval: measure '{slot.name}' needs -R qrels, not -R {opts.rel_format}", 1
            )
    if sources - {wanted[opts.rel_format]}:
        raise TrecUsageError(
            f"trec_eval: the measures asked for need another -R than '{opts.rel_format}'", 1
        )
    if opts.rel_format == "qrels" and _streams(run_source, opts):
        return slots, _streamed_qrels_table(qrels_source, run_source, slots, opts)
    run = read_ranked_run(run_source, opts)
    if opts.rel_format == "qrels":
        return slots, _qrels_table(qrels_source, run, slots, opts)
    return slots, _external_table(qrels_source, run, slots, opts)


def _streams(run_source: Source, opts: TrecOptions) -> bool:
    if opts.stream is None:
        return should_stream(run_source)
    return opts.stream


def _query_set(qrels: Qrels, run: Run, opts: TrecOptions) -> Qrels:
    """Restrict the qrels to ``-D 0.qid`` and check trec_eval's query rules."""
    if opts.only_query is not None:
        if opts.only_query not in qrels.query_index() or opts.only_query not in run.query_index():
            raise TrecUsageError("trec_eval: No queries with both results and relevance info", 7)
        qrels = _one_query(qrels, opts.only_query)
    run_qids = run.query_index()
    if not opts.v9 and not opts.complete:
        for qid in qrels.qids:
            if qid not in run_qids:
                raise _missing_query(qid)
    if not any(q in run_qids for q in qrels.qids):
        raise TrecUsageError("trec_eval: No queries with both results and relevance info", 7)
    return qrels


def _read_qrels(qrels_source: Source) -> Qrels:
    try:
        return Qrels.from_file(qrels_source)
    except DuplicateError as exc:
        # trec_eval's words and exit code (form_res_rels.c), with the file and lines added
        where = exc.path or "qrels"
        if exc.lines:
            where += f", lines {exc.lines[0]} and {exc.lines[1]}"
        raise TrecUsageError(
            f"trec_eval.form_res_rels: duplicate docs {exc.document} (query '{exc.query}', "
            f"{where})",
            4,
        ) from None


def _slot_values(view: Ranked, slots: list[Slot]) -> dict[str, np.ndarray]:
    """The per-query values of every slot that has them, in ``view.qids`` order."""
    values: dict[str, np.ndarray] = {}
    for slot in slots:
        if slot.measure is not None:
            values[slot.name] = slot.measure.compute_on(view)
        elif slot.kind == "relstring":
            values[slot.name] = _relstrings(view, int(slot.arg))  # type: ignore[call-overload]
    return values


def _qrels_table(qrels_source: Source, run: Run, slots: list[Slot], opts: TrecOptions) -> Table:
    qrels = _query_set(_read_qrels(qrels_source), run, opts)
    aligned: Aligned = align(
        PreparedQrels.of(qrels),
        run,
        "trec_eval",
        "both" if opts.v9 else "qrels",
        opts.depth,
    )
    view = aligned.view(opts.judged_only)
    values = _slot_values(view, slots)
    return _finish_table(qrels, view.qids, values, run.name, slots, opts)


def _finish_table(
    qrels: Qrels,
    evaluated: tuple[str, ...],
    values: dict[str, np.ndarray],
    run_name: str,
    slots: list[Slot],
    opts: TrecOptions,
) -> Table:
    """The table of the ``evaluated`` queries: trec_eval's divisor, and with 9.0.8's ``-c``
    what the qrels queries left out add to summed values."""
    divisor = len(qrels.qids) if (opts.complete or not opts.v9) else len(evaluated)
    missing_sums: dict[str, float] = {}
    if opts.v9 and opts.complete:
        # trec_eval's -c summary of num_rel counts every qrels query (m_num_rel.c)
        done = set(evaluated)
        absent = np.array([i for i, q in enumerate(qrels.qids) if q not in done], np.int64)
        if absent.shape[0]:
            counts = GradeCounts.of(qrels.query_of_entries(), qrels.rels, len(qrels.qids))
            absent_counts = counts.select(absent)
            relevant = absent_counts.total(absent_counts.grade >= max(opts.level, 0))
            for slot in slots:
                if slot.measure is not None and slot.measure.spec.name == "NumRel":
                    missing_sums[slot.name] = float(relevant.sum())
    return Table(evaluated, values, run_name, divisor, divisor - len(evaluated), missing_sums)


def _streamed_qrels_table(
    qrels_source: Source, run_source: Source, slots: list[Slot], opts: TrecOptions
) -> Table:
    """:func:`_qrels_table` on a run read in chunks of whole queries (grouped by query): the
    same table, holding only per-query values.

    Each chunk is ranked, checked for duplicates and joined with the qrels on its own;
    trec_eval's query rules (every qrels query in the run, ``-c``, ``-D 0.qid``) are applied
    once the whole run is read, and the rows are put in the in-memory order (the qrels').
    """
    qrels = _read_qrels(qrels_source)
    if opts.only_query is not None:
        if opts.only_query not in qrels.query_index():
            raise TrecUsageError("trec_eval: No queries with both results and relevance info", 7)
        qrels = _one_query(qrels, opts.only_query)
    prepared = PreparedQrels.of(qrels)
    present: set[str] = set()
    run_name = ""
    evaluated: list[str] = []
    blocks: dict[str, list[np.ndarray]] = {}
    read_chunk = partial(read_ranked_run, opts=opts)
    for run in grouped_runs(run_source, opts.chunk_bytes, read_chunk):
        present.update(run.qids)
        run_name = run.name
        view = align(prepared, run, "trec_eval", "both", opts.depth).view(opts.judged_only)
        evaluated.extend(view.qids)
        for name, column in _slot_values(view, slots).items():
            blocks.setdefault(name, []).append(column)
    if not any(q in present for q in qrels.qids):
        raise TrecUsageError("trec_eval: No queries with both results and relevance info", 7)
    absent = [q for q in qrels.qids if q not in present]
    if absent and not opts.v9:
        if not opts.complete:
            raise _missing_query(absent[0])
        # trec_eval 10's -c: a qrels query without results is evaluated on an empty ranking
        empty = Run.from_dict({absent_id(qrels.qids): {"d": 0.0}})
        view = align(prepared, empty, "trec_eval", "qrels", opts.depth).view(opts.judged_only)
        rows = np.array([i for i, q in enumerate(view.qids) if q not in present], np.int64)
        evaluated.extend(view.qids[i] for i in rows.tolist())
        for name, column in _slot_values(view, slots).items():
            blocks.setdefault(name, []).append(column[rows])
    position = qrels.query_index()
    order = np.array(sorted(range(len(evaluated)), key=lambda i: position[evaluated[i]]), np.int64)
    values = {name: np.concatenate(parts)[order] for name, parts in blocks.items()}
    queries = tuple(evaluated[i] for i in order.tolist())
    return _finish_table(qrels, queries, values, run_name, slots, opts)


def _one_query(qrels: Qrels, qid: str) -> Qrels:
    index = qrels.query_index()[qid]
    a, b = int(qrels.q_offsets[index]), int(qrels.q_offsets[index + 1])
    return Qrels.from_records([(qid, qrels.docid(i), int(qrels.rels[i])) for i in range(a, b)])


def _missing_query(qid: str) -> TrecUsageError:
    return TrecUsageError(
        f"trec_eval: qrels query '{qid}' has no results in the run (trec_eval "
        "10 stops here); give -c to score it 0, or --v9 to leave it out as "
        "trec_eval 9.0.8 does",
        4,
    )


def _external_table(qrels_source: Source, run: Run, slots: list[Slot], opts: TrecOptions) -> Table:
    from ranklens.frontends.trec_eval import formats

    queries, per_query, divisor = formats.evaluate(qrels_source, run, opts.rel_format, opts, slots)
    values: dict[str, np.ndarray] = {}
    for slot in slots:
        if slot.kind in ("prefs", "jg"):
            values[slot.name] = np.array(
                [per_query[q][slot.name] for q in queries], dtype=np.float64
            )
    return Table(tuple(queries), values, run.name, divisor, divisor - len(queries))


def _load_zscores(source: Source) -> dict[tuple[str, str], tuple[float, float]]:
    from ranklens.data.source import read_bytes

    content, name = read_bytes(source)
    out: dict[tuple[str, str], tuple[float, float]] = {}
    try:
        text = content.decode("utf-8")
    except UnicodeDecodeError as exc:
        where = content[: exc.start].count(b"\n") + 1
        raise InputError("is not valid UTF-8 text", path=name, line=where) from None
    for number, line in enumerate(text.split("\n"), start=1):
        fields = line.split()
        if not fields or fields[0].startswith("#"):
            continue
        if len(fields) != 4:
            raise InputError(
                f"expected 4 columns (qid measure mean stddev), found {len(fields)}",
                path=name,
                line=number,
            )
        try:
            out[(fields[0], fields[1])] = (float(fields[2]), float(fields[3]))
        except ValueError:
            raise InputError("mean and stddev must be numbers", path=name, line=number) from None
    return out


def _zscore(
    values: Float64Array,
    name: str,
    queries: Sequence[str],
    table: dict[tuple[str, str], tuple[float, float]],
) -> Float64Array:
    out = np.empty(values.shape[0], dtype=np.float64)
    for i, (qid, value) in enumerate(zip(queries, values.tolist(), strict=True)):
        entry = table.get((qid, name))
        if entry is None:
            out[i] = MISSING_Z
            continue
        mean, std = entry
        if std == 0.0:
            out[i] = 0.0 if value == mean else MISSING_Z
        else:
            out[i] = (value - mean) / std
    return out


def _fmt(value: float) -> str:
    if math.isnan(value):
        return "  -nan" if math.copysign(1.0, value) < 0 else "   nan"
    return f"{value:6.4f}"


def format_output(slots: list[Slot], table: Table, opts: TrecOptions) -> list[str]:
    """trec_eval's output lines (each ending in a newline)."""
    z = _load_zscores(opts.zscores) if opts.zscores is not None else None
    prefix = "Z" if z is not None else ""
    queries = table.queries
    numeric: dict[str, np.ndarray] = {}
    for slot in slots:
        if slot.name not in table.values or slot.kind == "relstring":
            continue
        values = table.values[slot.name].astype(np.float64)
        if slot.summary == "gm":
            # C's libm log, as trec_eval (numpy 1.x's SIMD log can differ in the last bit)
            floored = np.maximum(values, GMEAN_FLOOR).tolist()
            values = np.array([math.log(v) for v in floored], dtype=np.float64)
        if z is not None:
            values = _zscore(values, slot.name, queries, z)
        numeric[slot.name] = values
    lines: list[str] = []
    if opts.per_query:
        for i, qid in enumerate(queries):
            for slot in slots:
                if not slot.per_query or slot.name not in table.values:
                    continue
                if slot.kind == "relstring":
                    text = f"'{table.values[slot.name][i]}'"
                    lines.append(f"{slot.name:<22}\t{qid}\t{text}\n")
                    continue
                value = float(numeric[slot.name][i])
                shown = str(int(value)) if slot.integer and z is None else _fmt(value)
                lines.append(f"{prefix}{slot.name:<22}\t{qid}\t{shown}\n")
    if opts.no_summary:
        return lines
    for slot in slots:
        if slot.summary == "runid":
            lines.append(f"{'runid':<22}\tall\t{table.run_name}\n")
        elif slot.summary == "num_q":
            count = float(table.divisor)
            shown = _fmt(count) if z is not None else str(table.divisor)
            lines.append(f"{prefix}{'num_q':<22}\tall\t{shown}\n")
        elif slot.summary == "none" or slot.name not in numeric:
            continue
        else:
            value = _summary(slot, numeric[slot.name], table)
            integer = slot.integer and z is None
            shown = str(int(value)) if integer else _fmt(value)
            lines.append(f"{prefix}{slot.name:<22}\tall\t{shown}\n")
    return lines


def _summary(slot: Slot, values: Float64Array, table: Table) -> float:
    total = ordered_total(values)
    if slot.summary == "sum":
        return total + table.missing_sums.get(slot.name, 0.0)
    if table.divisor == 0:
        return math.nan
    if slot.summary == "gm":
        total += table.missing * math.log(GMEAN_FLOOR)
        return math.exp(total / table.divisor)
    return total / table.divisor


def trec_eval(qrels_source: Source, run_source: Source, opts: TrecOptions) -> str:
    """The text trec_eval would print for these files and options."""
    slots, table = compute_table(qrels_source, run_source, opts)
    return "".join(format_output(slots, table, opts))
