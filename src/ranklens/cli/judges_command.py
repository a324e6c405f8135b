"""Checking a judge: ``ranklens agreement``, ``ranklens leaderboard``,
``ranklens reproduction`` and ``ranklens ppi`` (see :mod:`ranklens.analysis.agreement`,
:mod:`ranklens.analysis.leaderboard`, :mod:`ranklens.analysis.reproduction` and
:mod:`ranklens.analysis.ppi`)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import IO, Any

from ranklens.cli import _inputs, _options

FORMATS = _options.TABLE_FORMATS
DEFAULT_MEASURES = _options.DEFAULT_MEASURES


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
    _two_qrels(p)
    p.add_argument("--rel", type=int, metavar="N", help="compare relevant (grade >= N) or not")
    p.add_argument("-q", "--per-query", action="store_true", help="also every query")
    _options.add_format(p, FORMATS)
    _options.add_output(p, "the tables")
    _options.add_example(p, _EXAMPLE_JUDGES)
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
    _two_qrels(p)
    p.add_argument("runs", nargs="*", metavar="RUN", help="three or more run files")
    _options.add_measures(p, DEFAULT_MEASURES)
    _options.add_names(p)
    p.add_argument("--top-k", type=int, default=5, metavar="K", help="depth of the top-k overlap")
    p.add_argument("--rbo-p", type=float, default=0.9, metavar="P", help="RBO's persistence")
    _options.add_format(p, FORMATS)
    _options.add_output(p, "the tables")
    p.add_argument("--report", metavar="FILE", help="also write an HTML report with slope charts")
    _options.add_conventions(p)
    _options.add_example(p, _EXAMPLE_JUDGES + " and the runs bm25, dense and rerank")
    _options.add_quiet(p)
    for side, what in (("a", "the reference leaderboard"), ("b", "the other leaderboard")):
        p.add_argument(
            f"--scores-{side}",
            action="extend",
            nargs="+",
            default=[],
            metavar="FILE",
            help=f"{what} as per-topic score files (e.g. TREC AutoJudge leaderboards; "
            "instead of QRELS, QRELS_B and the runs; docs/scores.md)",
        )
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
    p.add_argument("qrels", nargs="?", metavar="QRELS", help="the qrels file")
    p.add_argument("original", nargs="?", metavar="RUN", help="the original run")
    p.add_argument("reproduced", nargs="?", metavar="REPRODUCED", help="the reproduced run")
    _options.add_measures(p, DEFAULT_MEASURES)
    p.add_argument(
        "--baseline-runs",
        dest="baseline",
        nargs=2,
        metavar=("ORIGINAL", "REPRODUCED"),
        help="the original baseline run and its reproduction (for ER and DRI)",
    )
    # the spelling of earlier versions (--baseline names one run in compare and report)
    p.add_argument("--baseline", dest="baseline", nargs=2, help=argparse.SUPPRESS)
    _options.add_second_qrels(p, "qrels of the replication's collection", "--replication-qrels")
    _options.add_format(p, FORMATS)
    _options.add_output(p, "the table")
    _options.add_conventions(p)
    _options.add_example(p, "compare the bundled rerank run with its reproduction rerank-repro, on")
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
    p.add_argument(
        "human_qrels",
        nargs="?",
        metavar="QRELS",
        help="human judgments of a random sample of the queries",
    )
    p.add_argument(
        "llm_qrels", nargs="?", metavar="QRELS_B", help="the LLM's judgments of every query"
    )
    p.add_argument("run", nargs="?", metavar="RUN", help="the run file")
    _options.add_measures(p, DEFAULT_MEASURES)
    p.add_argument("--alpha", type=float, default=0.05, help="1 - the coverage (default 0.05)")
    p.add_argument(
        "--power-tuning", action="store_true", help="weight the LLM term (PPI++) instead of 1"
    )
    _options.add_format(p, FORMATS)
    _options.add_output(p, "the table")
    _options.add_conventions(p, queries=False)
    _options.add_example(
        p,
        "estimate on the bundled rerank run, with the human judgments of 15 of the 43 "
        "queries and the simulated LLM's of all, of",
    )
    _options.add_quiet(p)
    for side, what in (("a", "the human-judged sample"), ("b", "every topic under the LLM")):
        p.add_argument(
            f"--scores-{side}",
            metavar="FILE",
            help=f"{what}: a per-topic score file of the run (trec_eval -q output, a table; "
            "instead of QRELS, QRELS_B and RUN; docs/scores.md)",
        )
    p.set_defaults(handler=run_ppi)


_EXAMPLE_JUDGES = "compare the bundled human qrels with the simulated LLM's of"


def _two_qrels(p: argparse.ArgumentParser) -> None:
    """``QRELS QRELS_B``: the reference judgments first (optional with ``--example``)."""
    p.add_argument(
        "qrels_a", nargs="?", metavar="QRELS", help="the reference qrels (e.g. human judgments)"
    )
    p.add_argument(
        "qrels_b", nargs="?", metavar="QRELS_B", help="the other qrels (e.g. LLM judgments)"
    )


def _example_files(args: argparse.Namespace, *given: Any) -> None:
    """Refuse files beside ``--example``, or missing files without it."""
    from ranklens.base.errors import OptionError

    if args.example and any(g for g in given):
        raise OptionError("--example takes no files: it uses the bundled example data")


def _need(args: argparse.Namespace, what: str, *given: Any) -> None:
    from ranklens.base.errors import OptionError

    if not all(given):
        raise OptionError(f"give {what} (or --example)")


def _measures(args: argparse.Namespace) -> list[str]:
    return _options.measure_names(args.measures, DEFAULT_MEASURES)


def _conventions(args: argparse.Namespace) -> dict[str, Any]:
    return _options.conventions(args)


def _write(
    header: Sequence[str], rows: Sequence[Sequence[Any]], fmt: str, payload: Any, out: IO[str]
) -> None:
    """A plain-text table, CSV, or ``payload`` as JSON (non-finite numbers as null)."""
    from ranklens.cli.output import write_plain_table
    from ranklens.presentation.tables import json_ready

    if fmt == "json":
        out.write(json.dumps(json_ready(payload), allow_nan=False) + "\n")
        return
    if fmt in ("csv", "tsv"):
        writer = _options.csv_writer(out, fmt)
        writer.writerow(header)
        writer.writerows([[repr(v) if isinstance(v, float) else v for v in row] for row in rows])
        return
    write_plain_table(header, rows, out)


def run_agreement(args: argparse.Namespace) -> int:
    """Handle ``ranklens agreement``."""
    from ranklens.analysis.agreement import STATISTICS, agreement

    _example_files(args, args.qrels_a, args.qrels_b)
    if args.example:
        from ranklens.data.examples import example_llm_qrels_path, example_paths

        args.qrels_a, args.qrels_b = str(example_paths()[0]), str(example_llm_qrels_path())
    _need(args, "two qrels files", args.qrels_a, args.qrels_b)
    inputs = [args.qrels_a, args.qrels_b]
    _options.check_output(args, inputs)
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
    with _options.output_stream(args, inputs) as out:
        _write(header, rows, args.format, payload, out)
        if args.format == "table":
            out.write("\nconfusion (rows: first file, columns: second file)\n")
            grades = [str(g) for g in res.grades]
            matrix = [[g, *res.confusion[i].tolist()] for i, g in enumerate(grades)]
            _write(["grade", *grades], matrix, "table", None, out)
    return 0


def run_leaderboard(args: argparse.Namespace) -> int:
    """Handle ``ranklens leaderboard``."""
    from ranklens.analysis.leaderboard import NUMBERS, leaderboard_agreement
    from ranklens.data.output import check_destination

    _example_files(args, args.qrels_a, args.qrels_b, *args.runs, *args.scores_a, *args.scores_b)
    if args.example:
        from ranklens.data.examples import example_llm_qrels_path, example_paths, example_run_paths

        args.qrels_a, args.qrels_b = str(example_paths()[0]), str(example_llm_qrels_path())
        paths = example_run_paths()
        args.runs = [str(paths[name]) for name in ("bm25", "dense", "rerank")]
    if args.scores_a or args.scores_b:  # two leaderboards of per-topic scores
        set_a, set_b = _inputs.leaderboard_sets(args)
        inputs = [*args.scores_a, *args.scores_b]
        _options.check_output(args, inputs)
        if args.report:
            check_destination(args.report, inputs, args.force)
        res = leaderboard_agreement(set_a, set_b, top_k=args.top_k, p=args.rbo_p)
    else:
        _need(args, "two qrels files and three or more runs", args.qrels_a, args.qrels_b, args.runs)
        inputs = [args.qrels_a, args.qrels_b, *args.runs]
        _options.check_output(args, inputs)
        if args.report:
            check_destination(args.report, inputs, args.force)
        runs: Any = args.runs
        if args.names:
            runs = dict(zip(_options.given_names(args, len(args.runs)), args.runs, strict=True))
        res = leaderboard_agreement(
            args.qrels_a,
            args.qrels_b,
            runs,
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
    with _options.output_stream(args, inputs) as out:
        _write(header, rows, args.format, payload, out)
        if args.format == "table":
            for m, c in res.items():
                out.write(f"\n{m}: {' > '.join(c.order_a)}  vs  {' > '.join(c.order_b)}\n")
    if args.report:
        from ranklens.presentation.reporting.leaderboard import write_leaderboard_report

        write_leaderboard_report(args.report, res, args.qrels_a, args.qrels_b, inputs, args.force)
        if not args.quiet:
            sys.stderr.write(f"ranklens: wrote {args.report}\n")
    return 0


def run_reproduction(args: argparse.Namespace) -> int:
    """Handle ``ranklens reproduction``."""
    from ranklens.analysis.reproduction import NUMBERS, reproduction

    _example_files(args, args.qrels, args.original, args.reproduced)
    if args.example:
        from ranklens.data.examples import example_paths, example_run_paths

        paths = example_run_paths()
        args.qrels = str(example_paths()[0])
        args.original, args.reproduced = str(paths["rerank"]), str(paths["rerank-repro"])
    _need(
        args,
        "the qrels, the original run and its reproduction",
        args.qrels,
        args.original,
        args.reproduced,
    )
    inputs = [args.qrels, args.original, args.reproduced, args.qrels_b]
    if args.baseline:
        inputs += list(args.baseline)
    _options.check_output(args, inputs)
    res = reproduction(
        args.qrels,
        args.original,
        args.reproduced,
        _measures(args),
        baseline=tuple(args.baseline) if args.baseline else None,
        qrels_reproduced=args.qrels_b,
        **_conventions(args),
    )
    rows = [[m, *(v[n] for n in NUMBERS)] for m, v in res.items()]
    payload: dict[str, Any] = {"advanced": res.numbers}
    if res.baseline is not None:
        payload["baseline"] = res.baseline
        rows += [[f"{m} (baseline)", *(v[n] for n in NUMBERS)] for m, v in res.baseline.items()]
    with _options.output_stream(args, inputs) as out:
        _write(["measure", *NUMBERS], rows, args.format, payload, out)
    return 0


def run_ppi(args: argparse.Namespace) -> int:
    """Handle ``ranklens ppi``: from judgments and a run, or from two score files."""
    from ranklens.analysis.ppi import ppi_from_scores, ppi_mean
    from ranklens.base.errors import OptionError

    _example_files(args, args.human_qrels, args.llm_qrels, args.run, args.scores_a, args.scores_b)
    estimate: Any
    if args.scores_a or args.scores_b:
        from ranklens.evaluation.scores_files import read_scores

        if args.human_qrels or args.llm_qrels or args.run:
            raise OptionError(
                "give the judgments and a run, or --scores-a and --scores-b, not both"
            )
        _need(
            args,
            "both --scores-a (the human sample) and --scores-b (the LLM's)",
            args.scores_a,
            args.scores_b,
        )
        inputs = [args.scores_a, args.scores_b]
        _options.check_output(args, inputs)
        check = getattr(args, "check_all", True)
        human_scores = _one_run(read_scores(args.scores_a, check_all=check), "--scores-a")
        llm_scores = _one_run(read_scores(args.scores_b, check_all=check), "--scores-b")

        def estimate(m: str) -> Any:
            return ppi_from_scores(
                human_scores, llm_scores, m, args.alpha, power_tuning=args.power_tuning
            )
    else:
        human: Any = args.human_qrels
        if args.example:
            from ranklens.data.examples import example_llm_qrels_path, example_run_paths

            human = example_human_sample()
            args.llm_qrels = str(example_llm_qrels_path())
            args.run = str(example_run_paths()["rerank"])
        _need(args, "the human qrels, the LLM's qrels and a run", human, args.llm_qrels, args.run)
        inputs = [args.human_qrels, args.llm_qrels, args.run]
        _options.check_output(args, inputs)

        def estimate(m: str) -> Any:
            return ppi_mean(
                human,
                args.llm_qrels,
                args.run,
                m,
                args.alpha,
                power_tuning=args.power_tuning,
                ties=args.ties,
                depth=args.depth,
                duplicates=args.duplicates,
            )

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
        e = estimate(m)
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
    with _options.output_stream(args, inputs) as out:
        _write(header, rows, args.format, payload, out)
    return 0


def _one_run(read: Any, option: str) -> Any:
    """The one run of a score file given to ``ppi``."""
    from ranklens.base.errors import OptionError
    from ranklens.evaluation.results import Results

    if not isinstance(read, Results):
        raise OptionError(
            f"{option}: the file holds {len(read)} runs ({', '.join(read.runs)}); PPI estimates "
            "one run's mean: give a file of that run"
        )
    return read


def example_human_sample() -> dict[str, dict[str, int]]:
    """The human judgments of ``ppi --example``: the bundled qrels of 15 of its 43 queries,
    drawn at random with a fixed seed (the queries PPI's human sample stands for)."""
    import numpy as np

    from ranklens.data.examples import example_paths
    from ranklens.data.qrels import Qrels

    qrels = Qrels.from_file(example_paths()[0]).to_dict()
    queries = sorted(qrels)
    chosen = np.random.default_rng(2019).choice(len(queries), size=15, replace=False)
    return {queries[i]: dict(qrels[queries[i]]) for i in sorted(chosen)}
