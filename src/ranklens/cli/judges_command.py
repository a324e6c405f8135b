"""Checking a judge: ``ranklens agreement``, ``ranklens leaderboard``,
``ranklens reproduction`` and ``ranklens ppi`` (see :mod:`ranklens.analysis.agreement`,
:mod:`ranklens.analysis.leaderboard`, :mod:`ranklens.analysis.reproduction` and
:mod:`ranklens.analysis.ppi`)."""

from __future__ import annotations

import argparse
import csv
import json
import sys
from collections.abc import Sequence
from typing import IO, Any

from ranklens.cli import _options

FORMATS = ("table", "csv", "json")
DEFAULT_MEASURES = ("nDCG@10", "AP", "P@10")


def register(commands: Any) -> None:
    """Add the ``agreement``, ``leaderboard``, ``reproduction`` and ``ppi`` subcommands."""
    p = commands.add_parser(
        "agreement",
        help="how far two sets of judgments agree (kappa, Krippendorff's alpha, Jaccard)",
        description=(
            "Compare two qrels files over the (query, document) pairs judged in both: Cohen's "
            "kappa (unweighted, linear, quadratic), Krippendorff's alpha (nominal, ordinal, "
            "interval), Jaccard of the relevant sets, the share of equal grades and the "
            "confusion matrix of grades; pairs judged in one file only are counted apart."
        ),
    )
    p.add_argument("qrels_a", help="the first qrels file (e.g. human judgments)")
    p.add_argument("qrels_b", help="the second qrels file (e.g. LLM judgments)")
    p.add_argument("--rel", type=int, metavar="N", help="compare relevant (grade >= N) or not")
    p.add_argument("-q", "--per-query", action="store_true", help="also every query")
    p.add_argument("-f", "--format", choices=FORMATS, default="table", help="output format")
    _options.add_quiet(p)
    p.set_defaults(handler=run_agreement)

    p = commands.add_parser(
        "leaderboard",
        help="do two sets of judgments order the runs alike (tau, tau_ap, RBO)",
        description=(
            "Evaluate every run under both qrels files and compare the two orderings of the "
            "runs per measure: Kendall's tau-b, tau_ap (against the first file's order), "
            "Spearman's rho, rank-biased overlap, the top-k overlap, the largest rank change "
            "and the pairs of runs that swap. --report writes an HTML report with a slope "
            "chart of the two orderings."
        ),
    )
    p.add_argument("qrels_a", help="the reference qrels file (e.g. human judgments)")
    p.add_argument("qrels_b", help="the other qrels file (e.g. LLM judgments)")
    p.add_argument("runs", nargs="+", metavar="run", help="three or more run files")
    _options.add_measures(p, DEFAULT_MEASURES)
    p.add_argument("--top-k", type=int, default=5, metavar="K", help="depth of the top-k overlap")
    p.add_argument("--rbo-p", type=float, default=0.9, metavar="P", help="RBO's persistence")
    p.add_argument("-f", "--format", choices=FORMATS, default="table", help="output format")
    p.add_argument("--report", metavar="FILE", help="also write an HTML report with slope charts")
    p.add_argument("--force", action="store_true", help="overwrite the report if it exists")
    _options.add_conventions(p)
    _options.add_quiet(p)
    p.set_defaults(handler=run_leaderboard)

    p = commands.add_parser(
        "reproduction",
        help="was a run reproduced (repro_eval's KTU, RBO, RMSE, ER, DRI, t-test)",
        description=(
            "Compare an original run with its reproduction, as repro_eval does: Kendall's "
            "tau union and RBO of the document orderings, RMSE and normalised RMSE of the "
            "per-topic values, the effect ratio and delta relative improvement against a "
            "baseline pair (--baseline ORIG REPRO), and the paired t-test (or, with "
            "--replication-qrels, the unpaired one)."
        ),
    )
    p.add_argument("qrels", help="the qrels file")
    p.add_argument("original", help="the original run")
    p.add_argument("reproduced", help="the reproduced run")
    _options.add_measures(p, DEFAULT_MEASURES)
    p.add_argument(
        "--baseline",
        nargs=2,
        metavar=("ORIGINAL", "REPRODUCED"),
        help="the original baseline run and its reproduction (for ER and DRI)",
    )
    p.add_argument(
        "--replication-qrels", metavar="FILE", help="qrels of the replication's collection"
    )
    p.add_argument("-f", "--format", choices=FORMATS, default="table", help="output format")
    _options.add_conventions(p)
    _options.add_quiet(p)
    p.set_defaults(handler=run_reproduction)

    p = commands.add_parser(
        "ppi",
        help="a measure's mean from LLM labels corrected by a human sample, with its interval",
        description=(
            "Prediction-powered inference: the mean of each measure over the LLM-judged "
            "queries, corrected by the human judgments of a random sample of them, with a "
            "confidence interval; the naive LLM-only and human-only intervals beside it."
        ),
    )
    p.add_argument("human_qrels", help="human judgments of a random sample of the queries")
    p.add_argument("llm_qrels", help="the LLM's judgments of every query")
    p.add_argument("run", help="the run file")
    _options.add_measures(p, DEFAULT_MEASURES)
    p.add_argument("--alpha", type=float, default=0.05, help="1 - the coverage (default 0.05)")
    p.add_argument(
        "--power-tuning", action="store_true", help="weight the LLM term (PPI++) instead of 1"
    )
    p.add_argument("-f", "--format", choices=FORMATS, default="table", help="output format")
    _options.add_conventions(p)
    _options.add_quiet(p)
    p.set_defaults(handler=run_ppi)


def _measures(args: argparse.Namespace) -> list[str]:
    return _options.measure_names(args.measures, DEFAULT_MEASURES)


def _conventions(args: argparse.Namespace) -> dict[str, Any]:
    return _options.chosen(args, _options.CONVENTIONS)


def _write(
    header: Sequence[str], rows: Sequence[Sequence[Any]], fmt: str, payload: Any, out: IO[str]
) -> None:
    """A plain-text table, CSV, or ``payload`` as JSON (non-finite numbers as null)."""
    from ranklens.cli.output import write_plain_table
    from ranklens.presentation.tables import json_ready

    if fmt == "json":
        out.write(json.dumps(json_ready(payload), allow_nan=False) + "\n")
        return
    if fmt == "csv":
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(header)
        writer.writerows([[repr(v) if isinstance(v, float) else v for v in row] for row in rows])
        return
    write_plain_table(header, rows, out)


def run_agreement(args: argparse.Namespace) -> int:
    """Handle ``ranklens agreement``."""
    from ranklens.analysis.agreement import STATISTICS, agreement

    res = agreement(args.qrels_a, args.qrels_b, rel=args.rel, per_query=args.per_query)
    scopes = [("all", res), *res.per_query.items()]
    header = ["query", *STATISTICS, "pairs", "only_a", "only_b"]
    rows = [[q, *(a[s] for s in STATISTICS), a.pairs, a.only_a, a.only_b] for q, a in scopes]
    payload: dict[str, Any] = {
        "rel": args.rel,
        "all": {**res.numbers, "pairs": res.pairs, "only_a": res.only_a, "only_b": res.only_b},
        "grades": list(res.grades),
        "confusion": res.confusion.tolist(),
    }
    if args.per_query:
        payload["per_query"] = {
            q: {**a.numbers, "pairs": a.pairs, "only_a": a.only_a, "only_b": a.only_b}
            for q, a in res.per_query.items()
        }
    _write(header, rows, args.format, payload, sys.stdout)
    if args.format == "table":
        sys.stdout.write("\nconfusion (rows: first file, columns: second file)\n")
        grades = [str(g) for g in res.grades]
        matrix = [[g, *res.confusion[i].tolist()] for i, g in enumerate(grades)]
        _write(["grade", *grades], matrix, "table", None, sys.stdout)
    return 0


def run_leaderboard(args: argparse.Namespace) -> int:
    """Handle ``ranklens leaderboard``."""
    from ranklens.analysis.leaderboard import NUMBERS, leaderboard_agreement
    from ranklens.data.output import check_destination

    inputs = [args.qrels_a, args.qrels_b, *args.runs]
    if args.report:
        check_destination(args.report, inputs, args.force)
    res = leaderboard_agreement(
        args.qrels_a,
        args.qrels_b,
        args.runs,
        _measures(args),
        top_k=args.top_k,
        p=args.rbo_p,
        **_conventions(args),
    )
    header = ["measure", *NUMBERS, "moved", "swaps"]
    rows = [
        [m, *(c[n] for n in NUMBERS), c.max_rank_change_run or "-", len(c.swaps)]
        for m, c in res.items()
    ]
    payload = {
        m: {
            **c.numbers,
            "max_rank_change_run": c.max_rank_change_run,
            "order_a": list(c.order_a),
            "order_b": list(c.order_b),
            "scores_a": c.scores_a,
            "scores_b": c.scores_b,
            "swaps": [list(s) for s in c.swaps],
        }
        for m, c in res.items()
    }
    _write(header, rows, args.format, payload, sys.stdout)
    if args.format == "table":
        for m, c in res.items():
            sys.stdout.write(f"\n{m}: {' > '.join(c.order_a)}  vs  {' > '.join(c.order_b)}\n")
    if args.report:
        from ranklens.presentation.reporting.leaderboard import write_leaderboard_report

        write_leaderboard_report(args.report, res, args.qrels_a, args.qrels_b, inputs, args.force)
        if not args.quiet:
            sys.stderr.write(f"wrote {args.report}\n")
    return 0


def run_reproduction(args: argparse.Namespace) -> int:
    """Handle ``ranklens reproduction``."""
    from ranklens.analysis.reproduction import NUMBERS, reproduction

    res = reproduction(
        args.qrels,
        args.original,
        args.reproduced,
        _measures(args),
        baseline=tuple(args.baseline) if args.baseline else None,
        qrels_reproduced=args.replication_qrels,
        **_conventions(args),
    )
    rows = [[m, *(v[n] for n in NUMBERS)] for m, v in res.items()]
    payload: dict[str, Any] = {"advanced": res.numbers}
    if res.baseline is not None:
        payload["baseline"] = res.baseline
        rows += [[f"{m} (baseline)", *(v[n] for n in NUMBERS)] for m, v in res.baseline.items()]
    _write(["measure", *NUMBERS], rows, args.format, payload, sys.stdout)
    return 0


def run_ppi(args: argparse.Namespace) -> int:
    """Handle ``ranklens ppi``."""
    from ranklens.analysis.ppi import ppi_mean

    header = [
        "measure",
        "estimate",
        "low",
        "high",
        "llm_only",
        "human_only",
        "labeled",
        "unlabeled",
    ]
    rows: list[list[Any]] = []
    payload: dict[str, Any] = {}
    for m in _measures(args):
        e = ppi_mean(
            args.human_qrels,
            args.llm_qrels,
            args.run,
            m,
            args.alpha,
            power_tuning=args.power_tuning,
            ties=args.ties,
            depth=args.depth,
            duplicates=args.duplicates,
        )
        rows.append(
            [
                m,
                e.estimate,
                e.low,
                e.high,
                e.llm_only[0],
                e.human_only[0],
                e.n_labeled,
                e.n_unlabeled,
            ]
        )
        payload[m] = {
            "estimate": e.estimate,
            "low": e.low,
            "high": e.high,
            "llm_only": list(e.llm_only),
            "human_only": list(e.human_only),
            "n_labeled": e.n_labeled,
            "n_unlabeled": e.n_unlabeled,
            "weight": e.weight,
        }
    _write(header, rows, args.format, payload, sys.stdout)
    return 0
