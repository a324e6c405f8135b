"""``ranklens eval QRELS RUN [RUN ...] -m MEASURE ...``."""

from __future__ import annotations

import argparse
import sys
from typing import Any

DEFAULT_MEASURES = ("AP", "nDCG", "nDCG@10", "P@10", "R@100", "RR")
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
    p.add_argument("qrels", nargs="?", help="qrels file (TREC format; .gz/.bz2/.xz; - for stdin)")
    p.add_argument("runs", nargs="*", metavar="run", help="run file(s) (TREC format)")
    p.add_argument(
        "-m",
        "--measure",
        action="append",
        dest="measures",
        metavar="MEASURE",
        help=f"a measure (repeatable; several per value separated by spaces); default: "
        f"{' '.join(DEFAULT_MEASURES)}",
    )
    p.add_argument("-q", "--per-query", action="store_true", help="also print per-query values")
    p.add_argument("-f", "--format", choices=FORMATS, default="table", help="output format")
    p.add_argument(
        "--ties",
        choices=("trec_eval", "input", "docid_asc"),
        default="trec_eval",
        help="order of equal scores: docid descending as trec_eval (default), input order, "
        "or docid ascending",
    )
    p.add_argument(
        "--queries",
        choices=("qrels", "both", "run"),
        default="qrels",
        help="which queries count: the qrels' (default; missing from a run = 0), those in both, "
        "or the run's",
    )
    p.add_argument("--depth", type=int, metavar="N", help="only the top N documents per query")
    p.add_argument(
        "--num-docs",
        type=int,
        metavar="N",
        help="documents in the collection, for the measures that need it (Utility, the "
        "confusion-matrix rates) and were not given num_docs themselves",
    )
    p.add_argument(
        "--duplicates",
        choices=("error", "first", "max"),
        default="error",
        help="a repeated (query, document) pair: an error (default), or keep the first/max",
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
        "--example",
        action="store_true",
        help="evaluate the bundled example (TREC DL 2019 passage qrels and two example runs)",
    )
    p.add_argument("--quiet", action="store_true", help="no query counts on stderr")
    p.set_defaults(handler=run_eval)


def _measure_names(values: list[str] | None) -> list[str]:
    if not values:
        return list(DEFAULT_MEASURES)
    names: list[str] = []
    for value in values:
        names.extend(_split_measures(value))
    return names


def _split_measures(value: str) -> list[str]:
    """Split on whitespace outside parentheses and braces."""
    out: list[str] = []
    current: list[str] = []
    depth = 0
    for ch in value:
        depth += ch in "({"
        depth -= ch in ")}"
        if ch.isspace() and depth == 0:
            if current:
                out.append("".join(current))
                current = []
        else:
            current.append(ch)
    if current:
        out.append("".join(current))
    return out


def with_num_docs(names: list[str], num_docs: int | None) -> list[Any]:
    """The measures, with ``num_docs`` filled in where a measure has it and left it unset."""
    from ranklens.measures.language import parse_measures

    measures = parse_measures(names)
    if num_docs is None:
        return list(measures)
    out = []
    for m in measures:
        if m.spec.param("num_docs") is not None and not m["num_docs"]:
            m = m.spec.make(**{**m.params, "num_docs": num_docs})
        out.append(m)
    return out


def run_eval(args: argparse.Namespace) -> int:
    """Handle ``ranklens eval``."""
    from ranklens.errors import OptionError

    if args.example:
        from ranklens.examples import example_paths

        if args.qrels is not None:
            raise OptionError("--example takes no files: it uses the bundled example data")
        qrels_path, run_paths = example_paths()
        args.qrels, args.runs = str(qrels_path), [str(p) for p in run_paths]
    if args.qrels is None or not args.runs:
        raise OptionError("give a qrels file and at least one run (or --example)")
    if sum(1 for p in [args.qrels, *args.runs, args.judgments] if p == "-") > 1:
        raise OptionError("only one of the files can be '-' (stdin)")
    if args.depth is not None and args.depth < 1:
        raise OptionError(f"--depth must be a positive number, not {args.depth}")

    from ranklens.cli.output import write_results
    from ranklens.evaluator import Evaluator

    if args.num_docs is not None and args.num_docs < 1:
        raise OptionError(f"--num-docs must be a positive number, not {args.num_docs}")
    evaluator = Evaluator(
        args.qrels,
        with_num_docs(_measure_names(args.measures), args.num_docs),
        ties=args.ties,
        queries=args.queries,
        depth=args.depth,
        duplicates=args.duplicates,
        judgments=args.judgments,
    )
    results = []
    for path in args.runs:
        result = evaluator.evaluate(path)
        if not args.quiet:
            _report_counts(path, result.query_counts, args.queries)
        results.append(result)
    write_results(results, args.format, args.per_query, sys.stdout)
    return 0


def _report_counts(path: str, counts: dict[str, int] | Any, policy: str) -> None:
    parts = [
        f"{counts['qrels']} queries in the qrels, {counts['run']} in the run",
        f"{counts['evaluated']} evaluated",
    ]
    if counts.get("missing"):
        parts.append(f"{counts['missing']} qrels queries missing from the run scored 0")
    if counts.get("unjudged"):
        parts.append(f"{counts['unjudged']} run queries without judgments left out")
    sys.stderr.write(f"ranklens: {path}: {'; '.join(parts)} (--queries {policy})\n")
