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
    return any(m.name == name and m.spec.aggregate == "sum" for m in results.measures)


def _trec_value(value: float, count: bool) -> str:
    if math.isnan(value):
        return "   nan"
    return str(int(value)) if count else f"{value:6.4f}"


def _json_value(value: float) -> float | None:
    return None if math.isnan(value) else value


def write_results(results: Sequence[Results], fmt: str, per_query: bool, out: IO[str]) -> None:
    """Write ``results`` (one per run) to ``out`` in format ``fmt``."""
    if fmt == "json":
        payload = {
            "measures": results[0].names if results else [],
            "runs": [_json_run(r, per_query) for r in results],
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
                        writer.writerow([r.run, qid, name, repr(value)])
            for name, value in r.aggregate.items():
                writer.writerow([r.run, "all", name, repr(value)])
    elif fmt == "trec":
        for r in results:
            if per_query:
                for qid, values in r.per_query.items():
                    for name, value in values.items():
                        out.write(
                            TREC_LINE.format(name, qid, _trec_value(value, _is_count(r, name)))
                        )
            out.write(TREC_LINE.format("runid", "all", r.run))
            for name, value in r.aggregate.items():
                out.write(TREC_LINE.format(name, "all", _trec_value(value, _is_count(r, name))))
    else:
        _write_table(results, per_query, out)


def _json_run(r: Results, per_query: bool) -> dict[str, object]:
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


def _cell(value: float, count: bool) -> str:
    if math.isnan(value):
        return "nan"
    return f"{value:.0f}" if count else f"{value:.4f}"


def _write_table(results: Sequence[Results], per_query: bool, out: IO[str]) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console(file=out, highlight=False, soft_wrap=False)
    names = results[0].names if results else []
    if per_query:
        for r in results:
            table = Table(title=f"{r.run}: per query")
            table.add_column("query")
            for name in names:
                table.add_column(name, justify="right")
            for qid, values in r.per_query.items():
                table.add_row(qid, *(_cell(values[n], _is_count(r, n)) for n in names))
            table.add_row(
                "all", *(_cell(r.aggregate[n], _is_count(r, n)) for n in names), style="bold"
            )
            console.print(table)
    table = Table(title=None if len(results) == 1 else "all queries")
    table.add_column("run")
    for name in names:
        table.add_column(name, justify="right")
    for r in results:
        table.add_row(r.run, *(_cell(r.aggregate[n], _is_count(r, n)) for n in names))
    console.print(table)
