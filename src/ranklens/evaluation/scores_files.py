r"""Per-topic scores made elsewhere, read into :class:`~ranklens.Results`; results written
in the formats other tools read.

:func:`read_scores` reads per-topic scores that ranklens did not compute, so that
:func:`ranklens.compare`, reports, topic-set analyses, discriminative power, leaderboard
agreement and PPI work on them as on computed results:

============  ==========================================================================
format        what it is
============  ==========================================================================
trec_eval     ``trec_eval -q`` output: ``measure  topic  value`` lines, then the ``all``
              lines (``runid all NAME`` names the run); several runs concatenated are
              told apart by their blocks
autojudge     a TREC AutoJudge leaderboard: ``run  measure  topic  value`` lines (values
              may be ``True``/``False``), several runs, ``all`` rows; an
              ``ir-metadata.yml`` beside it is the set's metadata
nuggetizer    nuggetizer's metric JSON lines: ``{"qid": ..., "strict_vital_score": ...}``,
              the last line ``{"qid": "all", ...}``
jsonl         JSON lines ``{"run", "query_id", "<measure>": value, ...}``
              (:meth:`Results.to_jsonl`, ``ranklens eval -f jsonl``; ``qid``, ``query``,
              ``topic`` and ``run_id`` are understood too)
csv, tsv      a table, long (``run, query_id, measure, value``) or wide (``run, query_id``
              and a column per measure); ``ranklens eval -f csv`` output included
parquet       the same tables as Parquet (and :meth:`Results.to_parquet` files)
DataFrame     a pandas or polars DataFrame or an Arrow table, long or wide
============  ==========================================================================

The format is told from the file name (``.csv``, ``.tsv``, ``.parquet``, ``.jsonl``)
and otherwise from the first line (3 fields: trec_eval; 4 fields: autojudge; a header
naming a query column: a table; ``{``: JSON lines). Compressed files (gzip, bzip2, xz)
are read as the others.

**Measures.** A column keeps its file's name, read as ranklens reads names: trec_eval's
value names (``map``, ``ndcg_cut_10``, ``P_10``, ``iprec_at_recall_0.10``) are the
ranklens measures (``AP``, ``nDCG@10``, ``P@10``, ``IPrec@0.1``), so
``results["nDCG@10"]`` and ``results["ndcg_cut_10"]`` are the same value and such results
compare with computed ones; names ranklens does not know (``strict_vital_score``) are
external measures (:mod:`ranklens.evaluation.score_measures`): averaged over topics,
higher better unless listed in ``lower_is_better``. A file written with trec_eval's
options (``-l 2``, ``-M 100``, ``-J``) holds values under the default names: the file
does not say, so the measure is named as if without them.

**The ``all`` lines are checked.** Each is compared with the aggregate of the per-topic
values as the measure declares it (the mean; the sum for counts such as ``num_ret``;
for ``gm_map`` and ``gm_bpref``, which have only an ``all`` line, the geometric mean of
``map``'s or ``bpref``'s per-topic values, floored at 1e-5; ``num_q`` must be the number
of topics), allowing exactly the rounding of the printed digits: a value read to ``d``
decimals may be off by half a unit of the ``d``-th (trec_eval's ``%.4f``: 0.00005), and
the interval of the aggregate over those ranges, widened by the ``all`` value's own
rounding, must hold the printed ``all``. Values printed with a fixed number of decimals
(``0.5000``) are read to the most decimals a per-topic value of the column has; values
each printed as their float's shortest text (``repr``, ``json.dumps``: nuggetizer's
``0.5`` and ``0.6875`` beside ``0.17854506039656948``) are read, the ``all`` value
included, to the most decimals any of them has: not rounded to their own digits, so a
file of full-precision values is checked to the float's precision. Otherwise the file is
refused with the difference shown (``check_all=False`` reads it anyway). trec_eval 9's
``-c`` output, for instance, averages over topics it prints no line for, and is refused.
A measure with only an ``all`` line and no per-topic values is kept when it is run-level
(``Coverage@10``: its value, as :meth:`Results.from_jsonl` keeps it), and otherwise left
out with an :class:`~ranklens.InputWarning`. Values that are not numbers (trec_eval's
``relstring``) are skipped; ``nan``, the infinities and ``null`` are refused at their
line; a value outside the measure's range (an ``AP`` of 7.5) is read as given, with an
:class:`~ranklens.InputWarning` naming the first. A ``trec_eval`` block names its run by
its ``runid`` line, at the start of its ``all`` lines or at the start of the block.

:func:`write_scores` writes :class:`~ranklens.Results` or a
:class:`~ranklens.ResultSet` in each of these formats; every format reads back equal
(values exactly, as ``repr`` writes them, unless ``digits`` rounds them as trec_eval
does), the run's name kept where the format has a place for it.

>>> import io, ranklens
>>> text = '''map  q1  0.5000
... map  q2  0.2500
... runid  all  bm25
... map  all  0.3750
... '''
>>> res = read_scores(io.StringIO(text))
>>> res.run, res.names, res.per_query["q2"]["map"], res["AP"]
('bm25', ['AP'], 0.25, 0.375)
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import IO, Any, Literal

import numpy as np

from ranklens.base.errors import (
    DuplicateError,
    EmptyInputError,
    InputError,
    InputWarning,
    OptionError,
    ParseError,
)
from ranklens.base.optional import require
from ranklens.data.ir_metadata import IrMetadata, beside
from ranklens.data.naming import file_stem
from ranklens.evaluation.result_set import ResultSet
from ranklens.evaluation.results import Results, aggregate
from ranklens.evaluation.results_files import StoredRunValue, run_values
from ranklens.evaluation.score_measures import measure_named
from ranklens.measures.base import Measure, RunStatistic, is_run_level
from ranklens.measures.user import BOUND_TOLERANCE

FORMATS: tuple[str, ...] = (
    "trec_eval",
    "autojudge",
    "nuggetizer",
    "jsonl",
    "csv",
    "tsv",
    "parquet",
)
"""The file formats of :func:`read_scores` and :func:`write_scores` (``"frame"``, a
DataFrame, is read only: :meth:`ResultSet.to_pandas` and :meth:`Results.to_pandas` make
them)."""
ALL = "all"
"""The topic id of the lines that hold a run's aggregate (trec_eval's ``all``)."""
QUERY_COLUMNS = ("query_id", "query", "qid", "topic_id", "topic", "q_id", "query id")
RUN_COLUMNS = ("run", "run_id", "runid", "system", "run_name", "tag")
MEASURE_COLUMNS = ("measure", "metric", "measure_name")
VALUE_COLUMNS = ("value", "score")
META_KEY = b"ranklens.scores"
"""The key of the Parquet schema metadata :func:`write_scores` writes (JSON: the runs,
their ir_metadata, the measures in order, the layout)."""
_SUM_SLACK = 1e-9
"""Relative slack of the ``all`` check for float arithmetic (summing in another order)."""
_BASE_OF_GMEAN = {"GMAP": "AP", "GMBpref": "Bpref"}
"""The measure whose per-topic values a geometric-mean measure aggregates (trec_eval prints
``gm_map`` and ``gm_bpref`` only in the ``all`` lines)."""
Source = str | os.PathLike[str] | IO[str] | IO[bytes] | Any


# --------------------------------------------------------------------------- gathering


@dataclass
class _Value:
    value: float
    text: str | None  # as printed, for its precision; None: exact
    line: int | None


@dataclass
class _RunScores:
    """One run's scores as read, before they become a Results."""

    run: str | None
    where: str
    cells: dict[str, dict[str, _Value]] = field(default_factory=dict)
    alls: dict[str, _Value] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)
    all_order: list[str] = field(default_factory=list)
    metadata: IrMetadata | None = None

    def add(self, measure: str, topic: str, value: _Value) -> None:
        if measure not in self.cells and measure not in self.alls:
            self.order.append(measure)
        if topic == ALL:
            earlier = self.alls.get(measure)
            if earlier is not None:
                self._twice(measure, topic, earlier, value)
            self.alls[measure] = value
            self.all_order.append(measure)
            return
        column = self.cells.setdefault(measure, {})
        earlier = column.get(topic)
        if earlier is not None:
            self._twice(measure, topic, earlier, value)
        column[topic] = value

    def _twice(self, measure: str, topic: str, first: _Value, second: _Value) -> None:
        run = f"run {self.run!r}: " if self.run else ""
        lines = (first.line, second.line) if first.line and second.line else None
        where = f" (lines {lines[0]} and {lines[1]})" if lines else ""
        raise DuplicateError(
            f"{run}{measure} of topic {topic!r} is given twice{where}: one value per run, "
            "topic and measure (two files or two evaluations concatenated?)",
            path=self.where,
            lines=lines,
            query=topic,
        )


def _number(raw: Any, where: str, line: int | None, what: str) -> _Value | None:
    """A score as a number with its printed text, ``None`` for a value that is no number
    (skipped by the caller); booleans count 1 and 0."""
    if isinstance(raw, bool | np.bool_):
        return _Value(1.0 if raw else 0.0, None, line)
    if isinstance(raw, int | np.integer):
        return _Value(float(raw), str(int(raw)), line)
    if isinstance(raw, float | np.floating):
        # a value given as a binary float: its shortest text (repr), read as the column's
        # precision says (see _precision)
        value = float(raw)
        if not math.isfinite(value):
            raise _not_finite(repr(value), where, line, what)
        return _Value(value, None if value.is_integer() else repr(value), line)
    if raw is None:
        raise _not_finite("null", where, line, what)
    text = str(raw).strip()
    low = text.lower()
    if low in ("true", "false"):
        return _Value(1.0 if low == "true" else 0.0, None, line)
    if low == "":
        raise ParseError(f"{what} has no value", path=where, line=line)
    if low in ("null", "none"):
        raise _not_finite(text, where, line, what)
    try:
        value = float(text)
    except ValueError:
        return None
    if not math.isfinite(value):
        raise _not_finite(text, where, line, what)
    return _Value(value, text, line)


def _not_finite(text: str, where: str, line: int | None, what: str) -> ParseError:
    """The error for a score that is NaN, an infinity or missing (``null``)."""
    return ParseError(
        f"{what} is {text}, not a number: each per-topic score must be a finite number (a "
        "topic a measure has no value for: leave its line out, or give the value the "
        "topic scores)",
        path=where,
        line=line,
    )


# --------------------------------------------------------------------------- text formats


def _lines(text: str) -> list[tuple[int, str]]:
    return [
        (number, line)
        for number, line in enumerate(text.splitlines(), 1)
        if line.strip() and not line.lstrip().startswith("#")
    ]


def _fields(line: str, names: Sequence[str], layout: str, where: str, number: int) -> list[str]:
    """The white-space separated fields of a line of a text layout, which must be as many
    as ``names`` (named in the error, with ``layout``: how the format holds them)."""
    fields = line.split()
    if len(fields) != len(names):
        raise ParseError(
            f"expected {len(names)} fields ({', '.join(names)}) {layout}, got {len(fields)}",
            path=where,
            line=number,
        )
    return fields


def _read_trec_eval(text: str, where: str) -> list[_RunScores]:
    """``trec_eval -q`` output: a run's block is its topic lines, then its ``all`` lines
    (``runid all NAME`` among them, naming it). A new block begins where a topic line
    follows ``all`` lines, and where a second ``runid`` line comes; a file whose first line
    is a ``runid`` line puts each block's ``runid`` line first, so there each ``runid``
    line begins its block."""
    runs: list[_RunScores] = []
    current = _RunScores(None, where)
    in_all = False
    leading: bool | None = None  # whether runid lines open their blocks
    for number, line in _lines(text):
        measure, topic, raw = _fields(
            line, ("measure", "topic", "value"), "as trec_eval -q prints them", where, number
        )
        is_runid = measure == "runid" and topic == ALL
        if leading is None:
            leading = is_runid
        if is_runid:
            if current.run is not None or (leading and (current.cells or current.alls)):
                runs.append(current)  # the runid line of the next block
                current = _RunScores(None, where)
            current.run, in_all = raw, not leading
            continue
        if topic == ALL:
            in_all = True
        elif in_all:  # the next run's topics
            runs.append(current)
            current, in_all = _RunScores(None, where), False
        value = _number(raw, where, number, f"{measure} of topic {topic!r}")
        if value is None:
            if not measure.startswith("relstring"):
                raise ParseError(
                    f"the value of {measure} for topic {topic!r} is not a number: {raw!r}",
                    path=where,
                    line=number,
                )
            continue  # trec_eval's relevance strings (relstring): no numbers
        current.add(measure, topic, value)
    runs.append(current)
    return [r for r in runs if r.cells or r.alls]


def _read_autojudge(text: str, where: str) -> list[_RunScores]:
    """A TREC AutoJudge leaderboard: ``run measure topic value`` lines."""
    runs: dict[str, _RunScores] = {}
    for number, line in _lines(text):
        run, measure, topic, raw = _fields(
            line,
            ("run", "measure", "topic", "value"),
            "as an AutoJudge leaderboard holds them",
            where,
            number,
        )
        value = _number(raw, where, number, f"{measure} of run {run!r}, topic {topic!r}")
        target = runs.setdefault(run, _RunScores(run, where))
        if value is None:
            raise ParseError(
                f"the value of {measure} (run {run!r}, topic {topic!r}) is not a number: {raw!r}",
                path=where,
                line=number,
            )
        target.add(measure, topic, value)
    return list(runs.values())


def _pick(columns: Sequence[str], choices: Sequence[str]) -> str | None:
    lowered = {c.strip().lower(): c for c in columns}
    for choice in choices:
        if choice in lowered:
            return lowered[choice]
    return None


def _read_records(
    records: Iterable[tuple[int | None, Mapping[str, Any]]], where: str, columns: Sequence[str]
) -> list[_RunScores]:
    """Rows of a table or JSON lines: long (a measure and a value column) or wide (a
    column per measure)."""
    query = _pick(columns, QUERY_COLUMNS)
    if query is None:
        raise InputError(
            f"no query column: expected one of {', '.join(QUERY_COLUMNS)} among the columns "
            f"({', '.join(map(str, columns))})",
            path=where,
        )
    run_col = _pick(columns, RUN_COLUMNS)
    measure_col = _pick(columns, MEASURE_COLUMNS)
    value_col = _pick(columns, VALUE_COLUMNS)
    long = measure_col is not None and value_col is not None
    known = {query, run_col, measure_col, value_col} if long else {query, run_col}
    measures = [c for c in columns if c not in known]
    if long and measures:
        raise InputError(
            f"a long table (columns {measure_col!r} and {value_col!r}) has other columns "
            f"too ({', '.join(map(str, measures))}); keep run, query, measure and value only",
            path=where,
        )
    if not long and not measures:
        raise InputError(
            "no measure columns: a wide table has a column per measure, a long one "
            "'measure' and 'value' columns",
            path=where,
        )
    runs: dict[str | None, _RunScores] = {}
    for line, row in records:
        run = None if run_col is None else _text(row.get(run_col), where, line, "the run")
        target = runs.setdefault(run, _RunScores(run, where))
        topic = _text(row.get(query), where, line, "the query id")
        pairs = (
            [(_text(row.get(measure_col), where, line, "the measure"), row.get(value_col))]
            if measure_col is not None and value_col is not None
            else [(str(m), row.get(m)) for m in measures]
        )
        for measure, raw in pairs:
            value = _number(raw, where, line, f"{measure} of topic {topic!r}")
            if value is None:
                raise ParseError(
                    f"the value of {measure} for topic {topic!r} is not a number: {raw!r}",
                    path=where,
                    line=line,
                )
            target.add(measure, topic, value)
    return list(runs.values())


def _text(raw: Any, where: str, line: int | None, what: str) -> str:
    if raw is None or (isinstance(raw, float) and math.isnan(raw)) or str(raw).strip() == "":
        raise ParseError(f"{what} is missing", path=where, line=line)
    if isinstance(raw, float) and raw.is_integer():
        return str(int(raw))
    return str(raw).strip()


def _read_jsonl(text: str, where: str) -> list[_RunScores]:
    records: list[tuple[int | None, Mapping[str, Any]]] = []
    columns: dict[str, None] = {}
    for number, line in _lines(text):
        try:  # numbers kept as printed, for their precision
            record = json.loads(line, parse_float=str, parse_int=str)
        except json.JSONDecodeError:
            raise ParseError("not a JSON object", path=where, line=number) from None
        if not isinstance(record, dict):
            raise ParseError("each line must be a JSON object", path=where, line=number)
        columns.update(dict.fromkeys(record))
        records.append((number, record))
    return _read_records(records, where, list(columns))


def _read_delimited(text: str, where: str, delimiter: str) -> list[_RunScores]:
    rows = [row for row in csv.reader(io.StringIO(text), delimiter=delimiter)]
    content = [(i + 1, row) for i, row in enumerate(rows) if any(c.strip() for c in row)]
    if not content:
        raise EmptyInputError("holds no scores (no lines)", path=where)
    _, header = content[0]
    names = [h.strip() for h in header]
    records = []
    for number, row in content[1:]:
        if len(row) != len(names):
            raise ParseError(
                f"expected {len(names)} fields as the header has, got {len(row)}",
                path=where,
                line=number,
            )
        records.append((number, dict(zip(names, row, strict=True))))
    return _read_records(records, where, names)


def _frame_columns(frame: Any) -> dict[str, list[Any]]:
    """The columns of a pandas or polars DataFrame or an Arrow table as lists (a pandas
    index named like a query or run column becomes a column)."""
    module = type(frame).__module__.split(".")[0]
    if module == "pandas":
        names = [n for n in (frame.index.names or []) if n is not None]
        if names and any(_pick([str(n)], QUERY_COLUMNS + RUN_COLUMNS) for n in names):
            frame = frame.reset_index()
        return {str(c): frame[c].tolist() for c in frame.columns}
    if module == "polars":
        return {str(k): list(v) for k, v in frame.to_dict(as_series=False).items()}
    if module == "pyarrow":
        return {str(k): list(v) for k, v in frame.to_pydict().items()}
    raise OptionError(
        f"cannot read scores from a {type(frame).__name__}: give a path, a file object, or a "
        "pandas or polars DataFrame or an Arrow table"
    )


def _read_columns(columns: dict[str, list[Any]], where: str) -> list[_RunScores]:
    names = list(columns)
    size = len(next(iter(columns.values()))) if columns else 0
    records = (
        (row + 1, {n: columns[n][row] for n in names}) for row in range(size)
    )  # row numbers, 1-based, for messages
    return _read_records(records, where, names)


# --------------------------------------------------------------------------- building


def _decimals(value: _Value) -> int | None:
    """The number of decimals ``value`` is printed with (``1e-05``: 5), ``None`` for a
    value given exactly or printed as a whole number."""
    if value.text is None:
        return None
    try:
        exponent = Decimal(value.text).as_tuple().exponent
    except InvalidOperation:
        return None
    if not isinstance(exponent, int) or exponent >= 0:
        return None
    return -exponent


def _is_shortest(value: _Value) -> bool:
    """Whether ``value`` is printed as the shortest text of its float (Python's ``repr``,
    ``json.dumps``), or exactly: ``0.5``, ``0.6875``; not ``0.5000``."""
    if value.text is None:
        return True
    try:
        return repr(float(value.text)) == value.text
    except ValueError:
        return False


def _precision(column: Sequence[_Value], printed: _Value) -> tuple[np.ndarray, float]:
    """How far each per-topic value of a column, and its ``all`` value, may be from what
    was computed: half a unit of the last decimal they are read to (module docstring).

    Values printed with a fixed number of decimals (trec_eval's ``%.4f``: ``0.5000``,
    trailing zeros kept) are rounded to the column's ``d``, the most decimals of a
    per-topic value, and the ``all`` value to its own. Values each printed as their
    float's shortest text (``repr``, ``json.dumps``: nuggetizer's ``0.5`` and ``0.6875``
    beside ``0.17854506039656948``) are not rounded to their own digits: all of them, the
    ``all`` value included, are read to the most decimals any of them has (17 digits are
    exact; only a file of short texts throughout, ``0.25``, ``0.5``, may have been rounded
    before it was written, and is read so)."""
    found = [d for d in (_decimals(v) for v in column) if d is not None]
    decimals = max(found) if found else None
    own = _decimals(printed)
    if _is_shortest(printed) and all(_is_shortest(v) for v in column):
        most = max([d for d in (decimals, own) if d is not None], default=None)
        decimals = own = most
    half = _half_unit(decimals)
    halves = [0.0 if _decimals(v) is None else half for v in column]
    printed_half = 0.0 if own is None else _half_unit(max(own, decimals or 0))
    return np.array(halves, dtype=np.float64), printed_half


def _half_unit(decimals: int | None) -> float:
    """Half a unit of the last of ``decimals`` decimals (0 for an exact value)."""
    return 0.0 if decimals is None else 0.5 * 10.0**-decimals


def _check_all(
    scores: _RunScores,
    label: str,
    measure: Measure,
    column: list[_Value],
    printed: _Value,
) -> None:
    """Refuse an ``all`` value that the per-topic values cannot give (module docstring)."""
    values = np.array([v.value for v in column], dtype=np.float64)
    computed = aggregate(measure, values)
    halves, printed_half = _precision(column, printed)
    low = aggregate(measure, values - halves)
    high = aggregate(measure, values + halves)
    slack = printed_half + _SUM_SLACK * max(1.0, abs(printed.value), abs(computed))
    if low - slack <= printed.value <= high + slack:
        return
    kind = {"mean": "mean", "sum": "sum", "gmean": "geometric mean"}.get(
        measure.spec.aggregate, measure.spec.aggregate
    )
    run = f"run {scores.run!r}: " if scores.run else ""
    shown = printed.text if printed.text is not None else repr(printed.value)
    allowed = max(abs(high - computed), abs(computed - low)) + printed_half
    raise InputError(
        f"{run}the 'all' value of {label} ({shown}) is not the {kind} of its "
        f"{len(column)} per-topic values ({computed:.6g}, a difference of "
        f"{abs(printed.value - computed):.2g}; the printed digits allow {allowed:.2g}): the "
        "'all' line was computed over other topics (trec_eval 9's -c averages over topics "
        "it prints no line for) or is not a "
        f"{kind}. Check the file, or read it without this check (check_all=False, "
        "--no-check-all)",
        path=scores.where,
        line=printed.line,
    )


def _build(
    scores: _RunScores,
    name: str | None,
    check_all: bool,
    lower_is_better: frozenset[str],
    rename: Mapping[str, str],
) -> Results:
    """The Results of one run's scores (module docstring: names, checks)."""
    run = name or scores.run or file_stem(scores.where)
    if not scores.cells:
        only = f" (only 'all' lines: {', '.join(scores.alls)})" if scores.alls else ""
        hint = "; trec_eval writes them with -q" if scores.alls else ""
        raise EmptyInputError(f"run {run!r} has no per-topic scores{only}{hint}", path=scores.where)
    topics = sorted(
        {t for column in scores.cells.values() for t in column},
        key=lambda t: t.encode("utf-8", "surrogatepass"),
    )
    if set(scores.order) == set(scores.all_order):
        scores.order = list(scores.all_order)  # every measure has an 'all' line: their order
    named: dict[str, Measure] = {}
    owner: dict[str, str] = {}
    for label in scores.order:
        target = rename.get(label, label)
        down = label in lower_is_better or target in lower_is_better
        try:
            measure = measure_named(target, False if down else None)
        except Exception as exc:
            raise InputError(f"measure {label!r}: {exc}", path=scores.where) from None
        if measure.name in owner:
            raise InputError(
                f"run {run!r}: {owner[measure.name]!r} and {label!r} are both {measure.name}; "
                "keep one of them (or rename one, rename={...})",
                path=scores.where,
            )
        owner[measure.name] = label
        named[label] = measure
    columns: dict[str, np.ndarray] = {}
    statistics: dict[str, RunStatistic] = {}
    kept: list[str] = []
    for label in scores.order:
        measure = named[label]
        cells = scores.cells.get(label)
        if cells is not None and is_run_level(measure):
            # a run-level measure (Coverage@10) has one value for the run, given on every
            # line of a table: its value, as Results.from_jsonl keeps it
            given = {v.value for v in cells.values()}
            if len(given) != 1:
                raise InputError(
                    f"run {run!r}: {label} is computed over the whole run and has one value, "
                    f"but the file gives {len(given)} different ones",
                    path=scores.where,
                )
            statistics[measure.name] = StoredRunValue(measure.name, given.pop(), len(topics))
            columns[label] = np.full(len(topics), math.nan)
            kept.append(label)
            continue
        if cells is not None:
            if len(cells) < len(topics):
                missing = next(t for t in topics if t not in cells)
                raise InputError(
                    f"run {run!r}: {label} has no value for topic {missing!r} "
                    f"({len(topics) - len(cells)} of the run's {len(topics)} topics have none); "
                    "every measure needs a value for every topic of the run",
                    path=scores.where,
                )
            ordered = [cells[t] for t in topics]
            _check_range(scores, run, label, measure, ordered, topics)
            if check_all and label in scores.alls:
                _check_all(scores, label, measure, ordered, scores.alls[label])
            columns[label] = np.array([v.value for v in ordered], dtype=np.float64)
            kept.append(label)
            continue
        printed = scores.alls[label]
        derived = _all_only(scores, run, label, measure, printed, topics, named, check_all)
        if derived is None:
            if is_run_level(measure):
                statistics[measure.name] = StoredRunValue(measure.name, printed.value, len(topics))
                columns[label] = np.full(len(topics), math.nan)
                kept.append(label)
            else:
                warnings.warn(
                    f"{scores.where}: run {run!r}: {label} has only an 'all' value and no "
                    "per-topic values: left out",
                    InputWarning,
                    stacklevel=4,
                )
            continue
        columns[label] = derived
        kept.append(label)
    values = np.column_stack([columns[k] for k in kept]) if kept else np.zeros((len(topics), 0))
    return Results(
        run,
        tuple(named[k] for k in kept),
        tuple(topics),
        np.ascontiguousarray(values, dtype=np.float64),
        {},
        run_statistics=statistics,
        metadata=scores.metadata,
    )


def _check_range(
    scores: _RunScores,
    run: str,
    label: str,
    measure: Measure,
    column: list[_Value],
    topics: list[str],
) -> None:
    """Warn about per-topic values outside the measure's declared range (beyond its
    printed rounding and float rounding, as user measures are held to their bounds): the
    file names the measure as another, or holds values of another scale."""
    low, high = measure.spec.bounds
    if low == -math.inf and high == math.inf:
        return
    values = np.array([v.value for v in column], dtype=np.float64)
    scale = max([1.0, *(abs(b) for b in (low, high) if math.isfinite(b))])
    halves, _ = _precision(column, _Value(math.nan, None, None))
    slack = halves + BOUND_TOLERANCE * scale
    outside = np.flatnonzero((values < low - slack) | (values > high + slack))
    if outside.size == 0:
        return
    first = int(outside[0])
    value = column[first]
    shown = value.text if value.text is not None else repr(value.value)
    at = f" (line {value.line})" if value.line is not None else ""
    warnings.warn(
        f"{scores.where}: run {run!r}: {outside.size} per-topic values of {label} lie outside "
        f"the range of {measure.name}, [{low:g}, {high:g}] (the first, {shown} for topic "
        f"{topics[first]!r}{at}); they are read as given: check that the file holds "
        f"{measure.name} (rename={{{label!r}: 'other_name'}} reads it as a measure of its own)",
        InputWarning,
        stacklevel=5,
    )


def _all_only(
    scores: _RunScores,
    run: str,
    label: str,
    measure: Measure,
    printed: _Value,
    topics: list[str],
    named: Mapping[str, Measure],
    check_all: bool,
) -> np.ndarray | None:
    """The per-topic values of a measure that has only an ``all`` line, where they follow
    from the file: ``num_q`` (1 per topic, the count checked) and ``gm_map`` /
    ``gm_bpref`` (the per-topic values of ``map`` / ``bpref``, the geometric mean
    checked); ``None`` otherwise."""
    if measure.name == "NumQ":
        if check_all and printed.value != len(topics):
            raise InputError(
                f"run {run!r}: num_q says {printed.text or printed.value} topics but the file "
                f"has per-topic values for {len(topics)}: the 'all' lines were computed over "
                "other topics (trec_eval 9's -c counts topics it prints no line for); check "
                "the file, or read it without this check (check_all=False, --no-check-all)",
                path=scores.where,
                line=printed.line,
            )
        return np.ones(len(topics), dtype=np.float64)
    base = _BASE_OF_GMEAN.get(measure.name)
    if base is None:
        return None
    source = next((k for k, m in named.items() if m.name == base and k in scores.cells), None)
    if source is None:
        return None
    column = [scores.cells[source][t] for t in topics]
    if check_all:
        _check_all(scores, label, measure, column, printed)
    return np.array([v.value for v in column], dtype=np.float64)


# --------------------------------------------------------------------------- reading


def _decoded(source: Any) -> tuple[str, str]:
    from ranklens.data.source import read_binary

    raw, where = read_binary(source)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise ParseError("not UTF-8 text", path=where, line=line) from None
    return text.removeprefix("\ufeff"), where


def _suffix(where: str) -> str:
    base = where.lower()
    for packed in (".gz", ".bz2", ".xz"):
        base = base.removesuffix(packed)
    return os.path.splitext(base)[1]


def _sniff(text: str) -> str:
    """The format of score text from its first line (module docstring)."""
    first = next((line for _, line in _lines(text)), None)
    if first is None:
        return "empty"
    if first.lstrip().startswith("{"):
        return "jsonl"
    for delimiter in ("\t", ","):
        header = [h.strip() for h in first.split(delimiter)]
        if len(header) > 1 and _pick(header, QUERY_COLUMNS) is not None:
            return "tsv" if delimiter == "\t" else "csv"
    fields = len(first.split())
    return {3: "trec_eval", 4: "autojudge"}.get(fields, f"unknown:{fields}")


def _is_frame(source: Any) -> bool:
    return type(source).__module__.split(".")[0] in ("pandas", "polars", "pyarrow")


def _read_runs(source: Any, fmt: str | None) -> list[_RunScores]:
    """The runs' scores in ``source`` (a path, ``-``, a file object or a DataFrame)."""
    if fmt is not None and fmt not in (*FORMATS, "frame"):
        raise OptionError(f"format must be one of {list(FORMATS)}, not {fmt!r}")
    if _is_frame(source) or fmt == "frame":
        return _read_columns(_frame_columns(source), f"<{type(source).__name__}>")
    is_path = isinstance(source, str | os.PathLike)
    where = os.fspath(source) if is_path else getattr(source, "name", "<stream>")
    suffix = _suffix(str(where)) if is_path else ""
    if fmt == "parquet" or (fmt is None and suffix == ".parquet"):
        return _read_parquet(source)
    text, where = _decoded(source)
    chosen = fmt
    if chosen is None:
        chosen = {".csv": "csv", ".jsonl": "jsonl", ".json": "jsonl", ".ndjson": "jsonl"}.get(
            suffix
        ) or _sniff(text)
    if chosen == "empty":
        raise EmptyInputError("holds no scores (no lines but blank and '#' ones)", path=where)
    if chosen.startswith("unknown:"):
        raise ParseError(
            f"cannot tell the format: the first line has {chosen.split(':')[1]} fields "
            "(trec_eval -q output has 3, an AutoJudge leaderboard 4; a table needs a header "
            f"naming a query column: {', '.join(QUERY_COLUMNS[:4])}, ...); give format=",
            path=where,
        )
    readers = {
        "trec_eval": _read_trec_eval,
        "autojudge": _read_autojudge,
        "jsonl": _read_jsonl,
        "nuggetizer": _read_jsonl,
    }
    if chosen in readers:
        runs = readers[chosen](text, where)
    elif chosen in ("csv", "tsv"):
        runs = _read_delimited(text, where, "\t" if chosen == "tsv" else ",")
    else:
        raise OptionError(f"format {chosen!r} is written, not read, this way")
    if not runs:
        raise EmptyInputError("holds no scores", path=where)
    return runs


def _read_parquet(source: Any) -> list[_RunScores]:
    from ranklens.data.table_files import open_parquet

    if not isinstance(source, str | os.PathLike):
        raise OptionError("a Parquet file is read from its path")
    where = os.fspath(source)
    table = open_parquet(where, "reading scores from Parquet")
    meta = table.schema.metadata or {}
    if META_KEY not in meta and b"ranklens.results" in meta:
        return [_from_results(Results.from_parquet(where), where)]
    runs = _read_columns({str(k): list(v) for k, v in table.to_pydict().items()}, where)
    if META_KEY in meta:
        saved = json.loads(meta[META_KEY])
        texts = {r["run"]: r.get("metadata") for r in saved.get("runs", [])}
        for r in runs:
            text = texts.get(r.run or "")
            if text:
                r.metadata = IrMetadata(text, where)
            r.order = [m for m in saved.get("measures", r.order) if m in r.order] or r.order
    return runs


def _from_results(results: Results, where: str) -> _RunScores:
    """Results read by :meth:`Results.from_parquet`, as scores (their values exactly)."""
    scores = _RunScores(results.run, where, metadata=results.metadata)
    kept = run_values(results)
    for j, name in enumerate(results.names):
        if name in kept:
            scores.add(name, ALL, _Value(kept[name], None, None))
            continue
        for qid, value in zip(results.queries, results.values[:, j].tolist(), strict=True):
            scores.add(name, qid, _Value(value, None, None))
    return scores


def _options(
    lower_is_better: Iterable[str] | str, rename: Mapping[str, str] | None
) -> tuple[frozenset[str], Mapping[str, str]]:
    lower = frozenset([lower_is_better] if isinstance(lower_is_better, str) else lower_is_better)
    return lower, dict(rename or {})


def _metadata_of(source: Any, metadata: Any) -> IrMetadata | None:
    if metadata is None or metadata is False:
        return None
    if isinstance(metadata, IrMetadata):
        return metadata
    if metadata == "auto":
        if isinstance(source, str | os.PathLike) and os.fspath(source) != "-":
            return beside(source)
        return None
    if isinstance(metadata, str | os.PathLike):
        return IrMetadata.read_yaml(metadata)
    raise OptionError(
        f"metadata must be 'auto', None, an IrMetadata or a path to an ir-metadata.yml, not "
        f"{metadata!r}"
    )


def read_score_set(
    source: Source | Sequence[Source],
    *,
    format: str | None = None,
    names: Sequence[str] | None = None,
    check_all: bool = True,
    lower_is_better: Iterable[str] | str = (),
    rename: Mapping[str, str] | None = None,
    metadata: Any = "auto",
) -> ResultSet:
    """Every run in one or more score sources, as a :class:`~ranklens.ResultSet`.

    Parameters
    ----------
    source
        A path (``-`` for stdin), a file object, a DataFrame or Arrow table, or a list of
        them; their runs end to end, in the order read.
    format
        One of :data:`FORMATS` (default: told from the name and the first line).
    names
        A name for each run, in order (default: the run's name in the file, else the file
        name without its extension).
    check_all
        Check each ``all`` value against the per-topic values (module docstring).
    lower_is_better
        Measures of the file that ranklens does not know and for which lower is better.
    rename
        ``{name in the file: name to use}``, e.g. ``{"Measure-01": "nDCG@10"}``.
    metadata
        ``"auto"`` (default): the ``ir-metadata.yml`` beside a file, if there is one,
        becomes the set's and each run's metadata (unless the run has its own); ``None``:
        none; or an :class:`~ranklens.data.ir_metadata.IrMetadata` or a path to one.

    Raises
    ------
    InputError
        A line or value that is not what the format needs, a measure missing for a topic,
        a value given twice, an ``all`` value the per-topic values cannot give (with the
        difference), two runs with one name.
    """
    sources = list(source) if isinstance(source, list | tuple) else [source]
    lower, renames = _options(lower_is_better, rename)
    gathered: list[_RunScores] = []
    set_metadata: IrMetadata | None = None
    for one in sources:
        runs = _read_runs(one, format)
        found = _metadata_of(one, metadata)
        set_metadata = set_metadata or found
        for r in runs:
            r.metadata = r.metadata or found
        gathered.extend(runs)
    if names is not None and len(names) != len(gathered):
        raise OptionError(f"{len(names)} names for {len(gathered)} runs")
    chosen = list(names) if names is not None else [None] * len(gathered)
    results = tuple(
        _build(r, n, check_all, lower, renames) for r, n in zip(gathered, chosen, strict=True)
    )
    first: dict[str, int] = {}
    for i, built in enumerate(results):
        if built.run in first:
            j = first[built.run]
            raise InputError(
                f"runs {j + 1} and {i + 1} are both named {built.run!r} (in "
                f"{gathered[j].where} and {gathered[i].where}); give each its own name "
                "(names=[...])"
            )
        first[built.run] = i
    return ResultSet(results, metadata=set_metadata)


def read_scores(
    source: Source | Sequence[Source],
    *,
    format: str | None = None,
    run: str | None = None,
    name: str | None = None,
    check_all: bool = True,
    lower_is_better: Iterable[str] | str = (),
    rename: Mapping[str, str] | None = None,
    metadata: Any = "auto",
) -> Results | ResultSet:
    """Per-topic scores made elsewhere, as :class:`~ranklens.Results`: the
    :class:`~ranklens.Results` of a source that holds one run (or the one named ``run``),
    a :class:`~ranklens.ResultSet` of one that holds several (as
    :func:`ranklens.evaluate` returns one or the other for one run or several).
    :func:`read_score_set` always returns a ResultSet.

    Parameters
    ----------
    source, format, check_all, lower_is_better, rename, metadata
        As for :func:`read_score_set`.
    run
        Of a source with several runs, the one to read.
    name
        The name of the run read (default: its name in the file, else the file name
        without its extension).

    Examples
    --------
    >>> import ranklens
    >>> res = ranklens.read_scores("tests/data/trec_eval/out.test.aq")  # doctest: +SKIP
    >>> res["nDCG@10"] == res["ndcg_cut_10"]  # doctest: +SKIP
    True
    """
    found = read_score_set(
        source,
        format=format,
        check_all=check_all,
        lower_is_better=lower_is_better,
        rename=rename,
        metadata=metadata,
    )
    if run is not None:
        if run not in found.runs:
            raise OptionError(f"no run named {run!r} (runs: {', '.join(found.runs)})")
        chosen = found[run]
        return chosen if name is None else _renamed(chosen, name)
    if len(found) == 1:
        return found[0] if name is None else _renamed(found[0], name)
    if name is not None:
        raise OptionError(
            f"name= names one run, but the source holds {len(found)} "
            f"({', '.join(found.runs)}): pick one with run=, or read them all"
        )
    return found


def _renamed(results: Results, name: str) -> Results:
    from dataclasses import replace

    return replace(results, run=name)


# --------------------------------------------------------------------------- writing


def _as_list(results: Results | ResultSet | Sequence[Results]) -> list[Results]:
    if isinstance(results, Results):
        return [results]
    out = list(results)
    if not out or not all(isinstance(r, Results) for r in out):
        raise OptionError("give Results, a ResultSet or a list of Results to write")
    return out


def _set_metadata(results: Results | ResultSet | Sequence[Results]) -> IrMetadata | None:
    if isinstance(results, ResultSet):
        return results.metadata
    return None


def _shown(value: float, digits: int | None, count: bool) -> str:
    if math.isnan(value):
        return "nan"
    if count and float(value).is_integer() and abs(value) < 2**53:
        return str(int(value))
    if digits is None:
        return repr(float(value))
    return f"{value:.{digits}f}"


def _label(measure: Measure, trec: bool) -> str:
    if trec:
        from ranklens.measures.trec_names import trec_value_name

        return trec_value_name(measure) or measure.name
    return measure.name


def _per_topic(results: Results, trec: bool) -> list[tuple[int, str]]:
    """(column, label) of the measures written per topic: all but run-level measures and,
    in trec_eval's layout, ``gm_map``/``gm_bpref`` beside their per-topic base and ``num_q``
    (trec_eval prints those in the ``all`` lines only)."""
    names = set(results.names)
    out = []
    for j, m in enumerate(results.measures):
        if is_run_level(m):
            continue
        if trec and (m.name == "NumQ" or _BASE_OF_GMEAN.get(m.name) in names):
            continue
        out.append((j, _label(m, trec)))
    return out


def _trec_eval_text(runs: list[Results], digits: int | None, autojudge: bool) -> str:
    out: list[str] = []
    for r in runs:
        columns = _per_topic(r, not autojudge)
        counts = [m.spec.aggregate == "sum" for m in r.measures]
        rows = r.values.tolist()
        for qid, row in zip(r.queries, rows, strict=True):
            for j, label in columns:
                shown = _shown(row[j], digits, counts[j])
                out.append(
                    f"{r.run}\t{label}\t{qid}\t{shown}\n"
                    if autojudge
                    else f"{label:<22}\t{qid}\t{shown}\n"
                )
        if not autojudge:
            out.append(f"{'runid':<22}\t{ALL}\t{r.run}\n")
        aggregates = r.aggregate
        for j, m in enumerate(r.measures):
            label = _label(m, not autojudge)
            shown = _shown(aggregates[m.name], digits, counts[j])
            out.append(
                f"{r.run}\t{label}\t{ALL}\t{shown}\n"
                if autojudge
                else f"{label:<22}\t{ALL}\t{shown}\n"
            )
    return "".join(out)


def _check_text_ids(runs: list[Results], fmt: str) -> None:
    """Ids that a whitespace-separated format cannot hold, refused before writing."""
    for r in runs:
        ids = [("run", r.run)] if fmt == "autojudge" else []
        ids += [("topic", q) for q in r.queries] + [("measure", n) for n in r.names]
        for what, text in ids:
            if not text or any(c.isspace() for c in text) or (what == "topic" and text == ALL):
                raise InputError(
                    f"{what} {text!r} of run {r.run!r} cannot be written in {fmt} text (ids "
                    "are separated by whitespace, and 'all' marks the aggregate); write a "
                    "table (csv, parquet) instead"
                )


def _long_rows(runs: list[Results]) -> Iterable[tuple[str, str, str, float]]:
    for r in runs:
        kept = run_values(r)
        for qid, row in zip(r.queries, r.values.tolist(), strict=True):
            for name, value in zip(r.names, row, strict=True):
                yield r.run, qid, name, kept.get(name, value)


def _delimited_text(runs: list[Results], delimiter: str, layout: str) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter=delimiter, lineterminator="\n")
    if layout == "long":
        writer.writerow(["run", "query_id", "measure", "value"])
        for run, qid, name, value in _long_rows(runs):
            writer.writerow([run, qid, name, repr(value)])
    else:
        names = _same_measures(runs)
        writer.writerow(["run", "query_id", *names])
        for r in runs:
            kept = run_values(r)
            for qid, row in zip(r.queries, r.values.tolist(), strict=True):
                values = [kept.get(n, v) for n, v in zip(r.names, row, strict=True)]
                writer.writerow([r.run, qid, *[repr(v) for v in values]])
    return buffer.getvalue()


def _same_measures(runs: list[Results]) -> list[str]:
    names = runs[0].names
    for r in runs[1:]:
        if r.names != names:
            raise OptionError(
                f"a wide table needs the same measures for every run ({r.run!r}: "
                f"{', '.join(r.names)}; {runs[0].run!r}: {', '.join(names)}); write it long"
            )
    return names


def _jsonl_text(runs: list[Results], nuggetizer: bool) -> str:
    out: list[str] = []
    for r in runs:
        kept = run_values(r)
        for qid, row in zip(r.queries, r.values.tolist(), strict=True):
            record: dict[str, Any] = {"qid": qid} if nuggetizer else {"run": r.run, "query_id": qid}
            for name, value in zip(r.names, row, strict=True):
                value = kept.get(name, value)
                record[name] = None if math.isnan(value) else value
            out.append(json.dumps(record, ensure_ascii=False) + "\n")
        if nuggetizer:
            record = {"qid": ALL}
            record.update({k: None if math.isnan(v) else v for k, v in r.aggregate.items()})
            out.append(json.dumps(record, ensure_ascii=False) + "\n")
    return "".join(out)


def _write_parquet(
    runs: list[Results], path: str, layout: str, metadata: IrMetadata | None
) -> None:
    pa = require("pyarrow", "writing scores to Parquet")
    pq = require("pyarrow.parquet", "writing scores to Parquet")
    if layout == "long":
        rows = list(_long_rows(runs))
        data: dict[str, Any] = {
            "run": pa.array([r[0] for r in rows], pa.string()),
            "query_id": pa.array([r[1] for r in rows], pa.string()),
            "measure": pa.array([r[2] for r in rows], pa.string()),
            "value": pa.array([r[3] for r in rows], pa.float64()),
        }
        measures = list(dict.fromkeys(n for r in runs for n in r.names))
    else:
        measures = _same_measures(runs)
        data = {
            "run": pa.array([r.run for r in runs for _ in r.queries], pa.string()),
            "query_id": pa.array([q for r in runs for q in r.queries], pa.string()),
        }
        for j, name in enumerate(measures):
            parts = []
            for r in runs:
                kept = run_values(r)
                column = np.asarray(r.values[:, j], dtype=np.float64)
                parts.append(np.full_like(column, kept[name]) if name in kept else column)
            data[name] = pa.array(np.concatenate(parts), pa.float64())
    meta = {
        "layout": layout,
        "measures": measures,
        "runs": [
            {"run": r.run, "metadata": None if r.metadata is None else r.metadata.text}
            for r in runs
        ],
        "metadata": None if metadata is None else metadata.text,
    }
    table = pa.table(data).replace_schema_metadata({META_KEY: json.dumps(meta).encode()})
    pq.write_table(table, path)


def write_scores(
    results: Results | ResultSet | Sequence[Results],
    destination: str | os.PathLike[str] | IO[str],
    format: str | None = None,
    *,
    layout: Literal["long", "wide"] = "long",
    digits: int | None = None,
) -> None:
    """Write ``results`` in one of :data:`FORMATS`; :func:`read_scores` reads them back
    equal.

    Parameters
    ----------
    results
        :class:`~ranklens.Results`, a :class:`~ranklens.ResultSet` or a list of Results.
    destination
        A path or a text stream (Parquet: a path).
    format
        ``"trec_eval"`` (``measure topic value`` lines in trec_eval's layout, trec_eval's
        value names where a measure has one, ``runid`` and the ``all`` lines after each
        run's topics), ``"autojudge"`` (``run measure topic value``, with ``all`` rows; a
        ResultSet's metadata is written to ``ir-metadata.yml`` beside the file),
        ``"nuggetizer"`` (one run: ``{"qid", <measure>: value}`` lines and the ``all``
        line), ``"jsonl"`` (``{"run", "query_id", <measure>: value}``), ``"csv"``,
        ``"tsv"``, ``"parquet"`` (tables, ``layout`` long or wide; Parquet keeps the runs'
        ir_metadata). Default: from the destination's extension (``.csv``, ``.tsv``,
        ``.parquet``, ``.jsonl``).
    layout
        The tables' layout: ``"long"`` (``run, query_id, measure, value``) or
        ``"wide"`` (``run, query_id`` and a column per measure).
    digits
        trec_eval and autojudge text: print values with this many decimals
        (trec_eval prints 4; counts stay whole) instead of exactly. Values printed so are
        rounded: they read back within that precision, not equal.

    Raises
    ------
    OptionError
        An unknown format or layout; several runs for nuggetizer; a wide table of runs
        with different measures.
    InputError
        Ids that a text format cannot hold (whitespace, a topic named ``all``); an
        ``ir-metadata.yml`` beside the leaderboard that holds other metadata.
    """
    runs = _as_list(results)
    where = os.fspath(destination) if isinstance(destination, str | os.PathLike) else None
    fmt = format
    if fmt is None:
        suffix = _suffix(where) if where is not None else ""
        fmt = {".csv": "csv", ".tsv": "tsv", ".parquet": "parquet", ".jsonl": "jsonl"}.get(suffix)
        if fmt is None:
            raise OptionError(
                f"cannot tell the format from {where or 'a stream'}: give format= (one of "
                f"{', '.join(FORMATS)})"
            )
    if fmt not in FORMATS:
        raise OptionError(f"format must be one of {list(FORMATS)}, not {fmt!r}")
    if layout not in ("long", "wide"):
        raise OptionError(f"layout must be 'long' or 'wide', not {layout!r}")
    if digits is not None and (isinstance(digits, bool) or not 0 <= digits <= 17):
        raise OptionError(f"digits must be a whole number from 0 to 17, not {digits!r}")
    if fmt == "parquet":
        if where is None:
            raise OptionError("Parquet is written to a path")
        _write_parquet(runs, where, layout, _set_metadata(results))
        return
    if fmt in ("trec_eval", "autojudge"):
        _check_text_ids(runs, fmt)
        text = _trec_eval_text(runs, digits, fmt == "autojudge")
    elif fmt == "nuggetizer":
        if len(runs) != 1:
            raise OptionError(
                f"a nuggetizer metrics file holds one run, not {len(runs)}: write one file per run"
            )
        text = _jsonl_text(runs, True)
    elif fmt == "jsonl":
        text = _jsonl_text(runs, False)
    else:
        text = _delimited_text(runs, "\t" if fmt == "tsv" else ",", layout)
    if where is None:
        destination.write(text)  # type: ignore[union-attr]
    else:
        with open(where, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
    meta = _set_metadata(results)
    if fmt == "autojudge" and meta is not None and where is not None:
        _write_beside(where, meta)


def _write_beside(where: str, meta: IrMetadata) -> None:
    from ranklens.data.ir_metadata import FILE_NAMES

    target = os.path.join(os.path.dirname(os.path.abspath(where)), FILE_NAMES[0])
    if os.path.exists(target):
        existing = IrMetadata.read_yaml(target)
        if existing.text == meta.text:
            return
        raise InputError(
            "an ir-metadata.yml with other metadata is already beside the leaderboard; "
            "remove it, or write the leaderboard into another folder",
            path=target,
        )
    meta.write_yaml(target)


__all__ = [
    "ALL",
    "FORMATS",
    "read_score_set",
    "read_scores",
    "write_scores",
]
