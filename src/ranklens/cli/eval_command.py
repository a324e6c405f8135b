"""``ranklens eval QRELS RUN [RUN ...] -m MEASURE ...``."""

from __future__ import annotations

import argparse
import sys
import warnings
from typing import Any

from ranklens.cli import _inputs, _options

DEFAULT_MEASURES = _options.DEFAULT_MEASURES
FORMATS = ("table", "trec", "tsv", "csv", "json", "jsonl")


def register(commands: Any) -> None:
    """Add the ``eval`` subcommand."""
    p = commands.add_parser(
        "eval",
        help="compute measures for one or more runs",
        description=(
            "Compute measures for runs against qrels. Measures use the ir_measures language "
            "(nDCG@10, P(rel=2)@10, AP) or trec_eval names (ndcg_cut.10, P.5,10, official). "
            "By default every number equals trec_eval 10.0's with -c."
        ),
    )
    _options.add_files(p, "run file(s) (TREC format)")
    _options.add_measures(p, DEFAULT_MEASURES)
    p.add_argument("-q", "--per-query", action="store_true", help="also print per-query values")
    _options.add_names(p)
    _options.add_format(p, FORMATS)
    _options.add_output(p, "the results")
    p.add_argument(
        "--num-docs",
        type=int,
        metavar="N",
        help="documents in the collection, for the measures that need it (Utility, the "
        "confusion-matrix rates) and were not given num_docs themselves",
    )
    p.add_argument(
        "--judgments",
        metavar="FILE",
        help="judgement file for trec_eval's preference (PrefsSimp, ...) and judgement-group "
        "(APAvgJG, PAvgJG@k, RprecMultAvgJG@x) measures: a prefs file (qid jg jsg docno "
        "rel_level, as -R prefs) or a qrels file whose 2nd column is the judgement group "
        "(as -R qrels_prefs / qrels_jg); default: the qrels file",
    )
    p.add_argument(
        "--costs",
        metavar="FILE",
        help="what each document costs to examine, for the C/W/L measures (INST, BPM, "
        "CWL_P, ...: report='EC'/'ETC' and BPM's budget): lines 'docid cost' or 'qid docid "
        "cost'; unlisted documents cost the measure's max_cost (default: every document 1)",
    )
    _options.add_item_data(p)
    p.add_argument(
        "--groups",
        metavar="FILE",
        help="group labels of the documents for expected exposure (EE-L, EE-D, EE-R, which "
        "read a stochastic run: 'qid sample docno rank score' lines): lines 'docid,group' "
        "(TREC Fair Ranking's groups CSV) or 'docid group'",
    )
    _options.add_conventions(p)
    _options.add_scale(p)
    _options.add_example(p, "evaluate")
    p.add_argument(
        "--bounds",
        action="store_true",
        help="add each measure's exact range over every grading of the unjudged retrieved "
        "documents (columns M_low, M_high; see docs/incomplete.md)",
    )
    _options.add_max_grade(p)
    _options.add_quiet(p, "the notices on queries and ties")
    p.add_argument(
        "--precision",
        choices=("short", "full"),
        default="short",
        help="numbers in tsv/csv/json/jsonl: 'short' (default) drops binary noise (0.8, not "
        "0.7999999999999998), 'full' prints the exact float (the shortest text that reads "
        "back as it)",
    )
    _options.add_mlflow(p)
    p.set_defaults(handler=run_eval)


def with_num_docs(names: list[str], num_docs: int | None) -> list[Any]:
    """The measures, with ``num_docs`` filled in where a measure has it and left it unset."""
    from ranklens.measures.language import parse_measures

    measures = parse_measures(names)
    if num_docs is None:
        return list(measures)
    if not any(m.spec.param("num_docs") is not None for m in measures):
        from ranklens.base.errors import InputWarning
        from ranklens.measures.registry import SPECS

        readers = ", ".join(s.name for s in SPECS if s.param("num_docs") is not None)
        warnings.warn(
            f"--num-docs is read by none of the measures asked for; it sets num_docs of "
            f"{readers} (ir_measures' Accuracy is pairwise accuracy and takes none; the "
            "classification accuracy is ClassAccuracy)",
            InputWarning,
            stacklevel=2,
        )
    out = []
    for m in measures:
        if m.spec.param("num_docs") is not None and not m["num_docs"]:
            m = m.spec.make(**{**m.params, "num_docs": num_docs})
        out.append(m)
    return out


def run_eval(args: argparse.Namespace) -> int:
    """Handle ``ranklens eval``."""
    from ranklens.base.errors import OptionError

    _options.resolve_inputs(args, 1, args.judgments)
    inputs = [args.qrels, *args.runs, args.judgments, args.costs, args.popularity, args.train]
    _options.check_output(args, inputs)

    from ranklens.cli.output import write_results
    from ranklens.evaluation.evaluator import Evaluator

    if args.num_docs is not None and args.num_docs < 1:
        raise OptionError(f"--num-docs must be a positive number, not {args.num_docs}")
    if args.num_items is not None and args.num_items < 1:
        raise OptionError(f"--num-items must be a positive number, not {args.num_items}")
    measures = with_num_docs(_options.measure_names(args.measures, DEFAULT_MEASURES), args.num_docs)
    _refuse_run_level_per_query(measures, args.per_query)
    _check_bounds_options(args)
    if args.dask is not None or args.bounds:
        from ranklens.measures.base import is_sampled

        sampled = next((m.name for m in measures if is_sampled(m)), None)
        if sampled is not None:
            option = "--dask" if args.dask is not None else "--bounds"
            raise OptionError(f"{option} is not supported for {sampled} (a stochastic run)")
    if args.dask is not None:
        if args.costs is not None:
            raise OptionError("--costs is not supported with --dask")
        from ranklens.presentation.progress import progress_bar
        from ranklens.scale.dask_backend import evaluate_files

        with progress_bar("dask partitions", enabled=not args.quiet) as progress:
            results = evaluate_files(
                args.dask,
                args.qrels,
                args.runs,
                measures,
                progress=progress,
                popularity=args.popularity,
                num_items=args.num_items,
                num_users=args.num_users,
                item_features=args.item_features,
                train=args.train,
                **_options.chosen(args, ("ties", "queries", "depth", "duplicates")),
            )
        full = args.precision == "full"
        with _options.output_stream(args, inputs) as out:
            write_results(results, args.format, args.per_query, out, full=full)
        _inputs.log_to_mlflow(args, results[0] if len(results) == 1 else results)
        return 0
    evaluator = Evaluator(
        args.qrels,
        measures,
        ties=args.ties,
        queries=args.queries,
        depth=args.depth,
        duplicates=args.duplicates,
        judgments=args.judgments,
        costs=args.costs,
        popularity=args.popularity,
        num_items=args.num_items,
        num_users=args.num_users,
        item_features=args.item_features,
        train=args.train,
        groups=args.groups,
    )
    if args.names is not None and len(args.names) != len(args.runs):
        raise OptionError(
            f"--name given {len(args.names)} times for {len(args.runs)} runs (once per run)"
        )
    if evaluator.sampled is not None:  # stochastic runs: expected exposure
        return _eval_sampled(args, evaluator)
    if evaluator.answers is not None:  # generated answers (RAG runs): docs/rag.md
        from ranklens.evaluation.answers import named_runs

        answered = [evaluator.evaluate(r) for r in named_runs(args.runs, args.names)]
        if not args.quiet:
            from ranklens.cli.rag_command import answer_notices

            answer_notices(answered)
        with _options.output_stream(args, inputs) as out:
            write_results(answered, args.format, args.per_query, out)
        _inputs.log_to_mlflow(args, answered[0] if len(answered) == 1 else answered)
        return 0
    from ranklens.data.chunks import should_stream
    from ranklens.data.coerce import as_run
    from ranklens.data.naming import distinct_names

    given = args.names or [None] * len(args.runs)
    from ranklens.data.parquet_stream import parquet_default_name, should_stream_parquet

    streamed = args.stream is True or (
        args.stream is None
        and any(should_stream(path) or should_stream_parquet(path) for path in args.runs)
    )
    runs_read: list[Any] = []
    if streamed and args.bounds:
        streamed = False  # the ranges need the runs in memory
    if streamed:  # runs too large to hold together: each read and evaluated on its own
        from ranklens.presentation.progress import progress_bar

        pairs = []
        for path, name in zip(args.runs, given, strict=True):
            if name is None:  # a Parquet run without a saved name: its file stem, as in memory
                name = parquet_default_name(path)
            with progress_bar(f"reading {path}", enabled=not args.quiet) as progress:
                result = evaluator.evaluate(path, name, stream=args.stream, progress=progress)
            pairs.append((path, result))
    else:  # read first, so that runs sharing a tag can be named by their files
        runs = [
            as_run(path, args.duplicates, name) for path, name in zip(args.runs, given, strict=True)
        ]
        names = distinct_names(runs, given)
        _refuse_repeated(names)
        runs_read = [run.renamed(name) for run, name in zip(runs, names, strict=True)]
        pairs = [
            (path, evaluator.evaluate(run.renamed(name), stream=False))
            for path, run, name in zip(args.runs, runs, names, strict=True)
        ]
    _refuse_repeated([result.run for _, result in pairs])
    results = [result for _, result in pairs]
    if not args.quiet:
        report_notices(results, args.queries, args.ties, example=args.example)
    if args.bounds:
        from ranklens.analysis.bounds import bounds
        from ranklens.base.errors import InputWarning
        from ranklens.cli.bounds_output import write_bounds

        qrels = evaluator.qrels  # read once: it may be stdin
        from ranklens.base.progress import stage
        from ranklens.presentation.progress import progress_bar

        ranges = []
        with (
            warnings.catch_warnings(),  # evaluating the runs above said it already
            progress_bar("eval --bounds", enabled=not args.quiet) as progress,
        ):
            warnings.simplefilter("ignore", InputWarning)
            for i, run in enumerate(runs_read):
                share = stage(progress, 100 * i, 100, 100 * len(runs_read))
                ranges.append(bounds(qrels, run, measures, args.max_grade, progress=share))
        full = args.precision == "full"
        with _options.output_stream(args, inputs) as out:
            write_bounds(results, ranges, args.format, args.per_query, out, full=full)
        _inputs.log_to_mlflow(args, results[0] if len(results) == 1 else results)
        return 0
    with _options.output_stream(args, inputs) as out:
        write_results(results, args.format, args.per_query, out, full=args.precision == "full")
    _inputs.log_to_mlflow(args, results[0] if len(results) == 1 else results)
    return 0


def _check_bounds_options(args: argparse.Namespace) -> None:
    """``--bounds`` takes trec_eval's conventions only; ``--max-grade`` needs it."""
    from ranklens.base.errors import OptionError

    if args.max_grade is not None and not args.bounds:
        raise OptionError("--max-grade sets the grades of --bounds: give --bounds too")
    if not args.bounds:
        return
    chosen = _options.chosen(args, ("ties", "queries", "depth"))
    others = [f"--{k}" for k, v in chosen.items() if v not in (None, "trec_eval", "qrels")]
    others += ["--dask"] if args.dask is not None else []
    others += ["--stream"] if args.stream is True else []
    others += ["--costs"] if args.costs is not None else []
    if others:
        raise OptionError(
            f"--bounds computes ranges under trec_eval's conventions only, not with "
            f"{', '.join(others)}; leave {'it' if len(others) == 1 else 'them'} out"
        )


def _refuse_run_level_per_query(measures: list[Any], per_query: bool) -> None:
    """A run-level measure (``Coverage@10``, ...) has no per-query values: refuse ``-q``."""
    from ranklens.base.errors import OptionError
    from ranklens.measures.base import is_run_level

    run_level = [m.name for m in measures if is_run_level(m)]
    if per_query and run_level:
        raise OptionError(
            f"-q: {', '.join(run_level)} {'is' if len(run_level) == 1 else 'are'} computed "
            "over the whole run (all users' lists at once) and has no per-query values; "
            "evaluate it without -q, and the per-query measures with -q"
        )


def _eval_sampled(args: argparse.Namespace, evaluator: Any) -> int:
    """``ranklens eval`` of stochastic runs (the expected exposure measures)."""
    from pathlib import Path

    from ranklens.cli.output import write_results

    given = args.names or [None] * len(args.runs)
    results = []
    for path, name in zip(args.runs, given, strict=True):
        result = evaluator.evaluate(path, name or Path(path).stem or "run")
        if not args.quiet:
            _report_counts(result.run, result.query_counts, args.queries, sampled=True)
        results.append(result)
    _refuse_repeated([result.run for result in results])
    with _options.output_stream(args, [args.qrels, *args.runs]) as out:
        write_results(results, args.format, args.per_query, out, full=args.precision == "full")
    _inputs.log_to_mlflow(args, results[0] if len(results) == 1 else results)
    return 0


def _report_counts(
    name: str, counts: dict[str, int] | Any, policy: str, sampled: bool = False
) -> None:
    """One line on stderr for a run whose queries and the qrels' differ (nothing when every
    query of the qrels is in the run and the other way round)."""
    parts = []
    if counts.get("missing"):
        worst = "given the worst values" if sampled else "scored 0"
        parts.append(
            f"{counts['missing']} of the qrels' {counts['qrels']} queries missing from the "
            f"run, {worst}"
        )
    if counts.get("unjudged"):
        parts.append(
            f"{counts['unjudged']} of its {counts['run']} queries without judgments, left out"
        )
    if parts:
        sys.stderr.write(
            f"ranklens: {name}: {counts['evaluated']} queries evaluated; {'; '.join(parts)} "
            f"(--queries {policy})\n"
        )


_TIE_ORDER = {
    "trec_eval": "by document id descending, as trec_eval does",
    "docid_asc": "by document id ascending",
    "input": "in the run's order",
}


def report_notices(results: list[Any], policy: str, ties: str, *, example: bool = False) -> None:
    """What a reader of the table needs to know, on stderr, one line each: which data the
    example is, runs whose queries and the qrels' differ, and the queries whose values tied
    scores can change."""
    if example:
        from ranklens.data.examples import EXAMPLE_DESCRIPTION

        sys.stderr.write(f"ranklens: {EXAMPLE_DESCRIPTION}\n")
    for result in results:
        _report_counts(result.run, result.query_counts, policy)
    tied = [
        (r.run, r.tie_affected_queries, len(r.queries)) for r in results if r.tie_affected_queries
    ]
    if not tied:
        return
    order = _TIE_ORDER.get(ties, f"by --ties {ties}")
    which = ", ".join(f"{name} {affected} of {evaluated}" for name, affected, evaluated in tied)
    other = " (--ties input keeps the run's order)" if ties == "trec_eval" else ""
    why = "; the example's scores tie on purpose" if example else ""
    sys.stderr.write(
        f"ranklens: tied scores can change the values of some queries ({which}): equal scores "
        f"are ordered {order}{other}; other tools may order them otherwise{why}\n"
    )


def _refuse_repeated(names: list[str]) -> None:
    """Refuse runs that end up with one name (the same run twice), as Python does."""
    from ranklens.base.errors import OptionError

    seen: dict[str, int] = {}
    for i, name in enumerate(names):
        if name in seen:
            raise OptionError(
                f"runs {seen[name] + 1} and {i + 1} are both named {name!r} (the same run "
                "twice?); give each run its own name with --name, once per run"
            )
        seen[name] = i
