"""Writing ``ranklens eval --bounds``: each measure's value with its lowest and highest
value over every grading of the unjudged documents (:func:`ranklens.bounds`)."""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import IO

from ranklens.analysis.bounds import Bounds
from ranklens.analysis.comparison_bounds import PairBounds
from ranklens.cli.output import (
    TREC_LINE,
    emit_table,
    format_cell,
    shortest,
    summary_title,
    trec_value,
)
from ranklens.evaluation.results import Results


def _is_count(ranges: Bounds, name: str) -> bool:
    return any(m.name == name and m.spec.aggregate == "sum" for m in ranges.measures)


def write_bounds(
    results: Sequence[Results],
    ranges: Sequence[Bounds],
    fmt: str,
    per_query: bool,
    out: IO[str],
    *,
    full: bool = False,
) -> None:
    """Write ``results`` (one per run) with the two columns ``low`` and ``high`` of
    ``ranges`` beside each value, in format ``fmt`` (as ``ranklens eval``'s formats: the
    table has ``M_low`` and ``M_high`` after each measure ``M``; tsv/csv the columns
    ``low`` and ``high``; json a ``bounds`` object per run; jsonl ``M_low``/``M_high``
    keys; trec ``M_low``/``M_high`` lines after each measure's)."""

    def number(value: float) -> float | None:
        if math.isnan(value):
            return None
        return value if full else shortest(value)

    def text(value: float) -> str:
        return repr(value if full else shortest(value))

    def triples(r: Results, b: Bounds) -> list[tuple[str, dict[str, tuple[float, float, float]]]]:
        rows: list[tuple[str, dict[str, tuple[float, float, float]]]] = []
        if per_query:
            for qid, values in r.per_query.items():
                ranged = b.per_query[qid]
                rows.append((qid, {n: (ranged[n][0], v, ranged[n][2]) for n, v in values.items()}))
        agg = b.aggregate
        rows.append(("all", {n: (agg[n][0], v, agg[n][2]) for n, v in r.aggregate.items()}))
        return rows

    pairs = list(zip(results, ranges, strict=True))
    if fmt == "json":
        runs: list[dict[str, object]] = []
        for r, b in pairs:
            rows = triples(r, b)
            run: dict[str, object] = {
                "name": r.run,
                "aggregate": {n: number(v[1]) for n, v in rows[-1][1].items()},
                "bounds": {n: [number(v[0]), number(v[2])] for n, v in rows[-1][1].items()},
                "max_grade": b.max_grade,
            }
            if per_query:
                run["per_query"] = {
                    q: {n: number(v[1]) for n, v in t.items()} for q, t in rows[:-1]
                }
                run["per_query_bounds"] = {
                    q: {n: [number(v[0]), number(v[2])] for n, v in t.items()} for q, t in rows[:-1]
                }
            runs.append(run)
        payload = {"measures": results[0].names if results else [], "runs": runs}
        out.write(json.dumps(payload, allow_nan=False) + "\n")
    elif fmt == "jsonl":
        for r, b in pairs:
            for qid, t in triples(r, b):
                record: dict[str, object] = {"run": r.run, "query": qid}
                for n, (low, value, high) in t.items():
                    record[n] = number(value)
                    record[f"{n}_low"] = number(low)
                    record[f"{n}_high"] = number(high)
                out.write(json.dumps(record, allow_nan=False) + "\n")
    elif fmt in ("tsv", "csv"):
        writer = csv.writer(out, delimiter="\t" if fmt == "tsv" else ",", lineterminator="\n")
        writer.writerow(["run", "query", "measure", "value", "low", "high"])
        for r, b in pairs:
            for qid, t in triples(r, b):
                for n, (low, value, high) in t.items():
                    writer.writerow([r.run, qid, n, text(value), text(low), text(high)])
    elif fmt == "trec":
        for r, b in pairs:
            for qid, t in triples(r, b):
                if qid == "all":
                    out.write(TREC_LINE.format("runid", "all", r.run))
                for n, (low, value, high) in t.items():
                    count = _is_count(b, n)
                    for label, v in ((n, value), (f"{n}_low", low), (f"{n}_high", high)):
                        out.write(TREC_LINE.format(label, qid, trec_value(v, count)))
    else:
        _write_table(pairs, triples, per_query, out)


_Rows = list[tuple[str, dict[str, tuple[float, float, float]]]]


def _write_table(
    pairs: list[tuple[Results, Bounds]],
    triples: Callable[[Results, Bounds], _Rows],
    per_query: bool,
    out: IO[str],
) -> None:
    names = pairs[0][0].names if pairs else []
    header_cells = [c for n in names for c in (n, f"{n}_low", f"{n}_high")]
    emit = partial(emit_table, out)

    def cells(b: Bounds, t: dict[str, tuple[float, float, float]]) -> list[str]:
        return [format_cell(v, _is_count(b, n)) for n in names for v in (t[n][1], t[n][0], t[n][2])]

    every = [(r, b, triples(r, b)) for r, b in pairs]
    if per_query:
        for r, b, rows in every:
            emit(
                ["query", *header_cells],
                [[q, *cells(b, t)] for q, t in rows],
                f"{r.run}: per query",
                True,
            )
    emit(
        ["run", *header_cells],
        [[r.run, *cells(b, rows[-1][1])] for r, b, rows in every],
        summary_title([r for r, _ in pairs]),
        False,
    )


def flips_rows(
    flips: Mapping[tuple[str, str], Mapping[str, PairBounds]],
) -> tuple[list[str], list[list[str]], str]:
    """The table of ``compare --bounds``: one row per comparison and measure."""
    header = [
        "run",
        "vs",
        "measure",
        "delta",
        "low",
        "high",
        "exact",
        "could flip",
        "could lose sig.",
    ]
    rows = []
    for (other, run), per_measure in flips.items():
        for name, pb in per_measure.items():
            rows.append(
                [
                    run,
                    other,
                    name,
                    f"{pb.delta:+.4f}",
                    f"{pb.low:+.4f}",
                    f"{pb.high:+.4f}",
                    "yes" if pb.exact else "no",
                    "yes" if pb.could_flip else "no",
                    "yes" if pb.could_lose_significance else "no",
                ]
            )
    return header, rows, "ranges of the differences over the unjudged documents (run - vs)"


def flips_json(
    flips: Mapping[tuple[str, str], Mapping[str, PairBounds]],
) -> list[dict[str, object]]:
    """The ``flips`` list of ``compare --bounds -f json``."""
    return [
        {"run": run, "vs": other, "measure": name, **pb.to_dict()}
        for (other, run), per_measure in flips.items()
        for name, pb in per_measure.items()
    ]
