"""Writing results in the formats of ``ranklens eval --format``."""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Sequence
from typing import IO

from ranklens.evaluation.results import Results

TREC_LINE = "{:<22}\t{}\t{}\n"


def _is_count(results: Results, name: str) -> bool:
    """Whether ``name`` is a count (summed over queries; an estimated count such as
    ``infNumRel`` is not whole and is shown with decimals, see :func:`_whole`)."""
    return any(m.name == name and m.spec.aggregate == "sum" for m in results.measures)


def _whole(value: float, count: bool) -> bool:
    """Whether to show ``value`` as a whole number: a count that is whole."""
    return count and float(value).is_integer()


def trec_value(value: float, count: bool) -> str:
    if math.isnan(value):
        return "   nan"
    return str(int(value)) if _whole(value, count) else f"{value:6.4f}"


def shortest(value: float) -> float:
    """``value`` without binary noise: when it rounds at 15 significant digits to a decimal
    of at most 12 (``0.8``, not ``0.7999999999999998``; ``0.3``, not
    ``0.30000000000000004``), that decimal; otherwise ``value`` itself (``1/3`` and
    ``0.4174542400168801`` keep every digit)."""
    if not math.isfinite(value):
        return value
    text = f"{value:.15g}"
    mantissa = text.split("e")[0].lstrip("-").replace(".", "").lstrip("0")
    # noise is a long tail of 9s or 0s after a short decimal: 12 digits or fewer remain
    return float(text) if len(mantissa) <= 12 else value


def write_results(
    results: Sequence[Results], fmt: str, per_query: bool, out: IO[str], *, full: bool = False
) -> None:
    """Write ``results`` (one per run) to ``out`` in format ``fmt``; numbers of the text
    formats are :func:`shortest` unless ``full``."""

    def _json_value(value: float) -> float | None:
        if math.isnan(value):
            return None
        return value if full else shortest(value)

    def _text_value(value: float) -> str:
        return repr(value if full else shortest(value))

    def _json_run(r: Results) -> dict[str, object]:
        run: dict[str, object] = {
            "name": r.run,
            "aggregate": {k: _json_value(v) for k, v in r.aggregate.items()},
        }
        if per_query:
            run["per_query"] = {
                qid: {k: _json_value(v) for k, v in values.items()}
                for qid, values in r.per_query.items()
            }
        return run

    if fmt == "json":
        payload = {
            "measures": results[0].names if results else [],
            "runs": [_json_run(r) for r in results],
        }
        out.write(json.dumps(payload, allow_nan=False) + "\n")
    elif fmt == "jsonl":
        for r in results:
            rows = list(r.per_query.items()) if per_query else []
            rows.append(("all", r.aggregate))
            for qid, values in rows:
                record: dict[str, object] = {"run": r.run, "query": qid}
                record.update({k: _json_value(v) for k, v in values.items()})
                out.write(json.dumps(record, allow_nan=False) + "\n")
    elif fmt in ("tsv", "csv"):
        writer = csv.writer(out, delimiter="\t" if fmt == "tsv" else ",", lineterminator="\n")
        writer.writerow(["run", "query", "measure", "value"])
        for r in results:
            if per_query:
                for qid, values in r.per_query.items():
                    for name, value in values.items():
                        writer.writerow([r.run, qid, name, _text_value(value)])
            for name, value in r.aggregate.items():
                writer.writerow([r.run, "all", name, _text_value(value)])
    elif fmt == "trec":
        for r in results:
            if per_query:
                for qid, values in r.per_query.items():
                    for name, value in values.items():
                        out.write(
                            TREC_LINE.format(name, qid, trec_value(value, _is_count(r, name)))
                        )
            out.write(TREC_LINE.format("runid", "all", r.run))
            for name, value in r.aggregate.items():
                out.write(TREC_LINE.format(name, "all", trec_value(value, _is_count(r, name))))
    else:
        _write_table(results, per_query, out)


def format_cell(value: float, count: bool) -> str:
    if math.isnan(value):
        return "nan"
    return f"{value:.0f}" if _whole(value, count) else f"{value:.4f}"


def table_width(out: IO[str]) -> int:
    """The width to fit: the terminal's, or $COLUMNS; unlimited for a pipe or a file."""
    import os
    import shutil

    if os.environ.get("COLUMNS", "").isdigit():
        return int(os.environ["COLUMNS"])
    if out.isatty():
        return shutil.get_terminal_size().columns
    return 1 << 30


def emit_table(
    out: IO[str], header: list[str], rows: list[list[str]], title: str | None, bold: bool
) -> None:
    """One table: boxes on a terminal (the last row bold where ``bold``), aligned text
    otherwise, fitted to the terminal's width."""
    from ranklens.presentation.tables import render_plain, render_rich

    if out.isatty():
        render_rich(header, rows, out, title=title, bold_last=bold)
    else:
        if title:
            out.write(f"{title}\n")
        out.write(render_plain(header, rows, table_width(out)) + "\n")


def _write_table(results: Sequence[Results], per_query: bool, out: IO[str]) -> None:
    """Tables that never cut a number: boxes on a terminal, aligned text otherwise; wide
    tables are transposed or split to fit (see :mod:`ranklens.presentation.tables`)."""
    names = results[0].names if results else []

    def emit(header: list[str], rows: list[list[str]], title: str | None, bold: bool) -> None:
        emit_table(out, header, rows, title, bold)

    if per_query:
        for r in results:
            rows = [
                [qid, *(format_cell(values[n], _is_count(r, n)) for n in names)]
                for qid, values in r.per_query.items()
            ]
            rows.append(["all", *(format_cell(r.aggregate[n], _is_count(r, n)) for n in names)])
            emit(["query", *names], rows, f"{r.run}: per query", True)
    rows = [
        [r.run, *(format_cell(r.aggregate[n], _is_count(r, n)) for n in names)] for r in results
    ]
    emit(["run", *names], rows, summary_title(results), False)


def summary_title(results: Sequence[Results]) -> str:
    """The title of the table of the runs' values: over how many queries, and how."""
    counts = {len(r.queries) for r in results}
    if len(counts) == 1:
        count = counts.pop()
        over = f"{count} {'query' if count == 1 else 'queries'}"
    else:
        over = "each run's queries"
    kinds = {m.spec.aggregate for r in results for m in r.measures}
    if kinds <= {"mean"}:
        return f"mean over {over}"
    how = {"sum": "counts summed", "gmean": "geometric means", "run": "whole-run measures"}
    extra = ", ".join(how[k] for k in sorted(kinds - {"mean"}) if k in how)
    return f"mean over {over} ({extra})"


def write_plain_table(
    header: Sequence[str], rows: Sequence[Sequence[object]], out: IO[str]
) -> None:
    """``rows`` under ``header`` as aligned plain text (the first column left, the others
    right), floats with 4 decimals and ``nan``; never transposed or split (a command's table
    of a few columns, for pipes and terminals alike)."""
    from ranklens.presentation.tables import render_plain

    cells = [[_text(v) for v in row] for row in rows]
    out.write(render_plain(list(header), cells, width=1 << 30) + "\n")


def _text(value: object) -> str:
    return format_cell(value, False) if isinstance(value, float) else str(value)
