"""``ranklens explain QRELS RUN --query Q -m MEASURE``: the worked computation of a measure
on one query (see :mod:`ranklens.presentation.explanation`).

``--query`` may be left out when the run has a single query:

>>> _only_query(("q1",), "run.txt")
'q1'
"""

from __future__ import annotations

import argparse
import json
from typing import IO, Any

from ranklens.cli import _options

FORMATS = ("table", "markdown", "json")
LISTED_QUERIES = 5
"""How many query ids an error about ``--query`` names."""


def register(commands: Any) -> None:
    """Add the ``explain`` subcommand."""
    p = commands.add_parser(
        "explain",
        help="show how a measure gets its value on one query, rank by rank",
        description=(
            "Print the worked computation of a measure on one query: for each rank the "
            "document, its judgment, the gain and discount (or precision, stop probability, "
            "...), the running sum and the ideal ranking beside it, then the value with its "
            "formula and the conventions in effect. Families: P/R/F1/F/Success/Rprec, "
            "AP/GMAP, RR, CG, DCG/nDCG/IDCG, RBP/RBPResid, ERR, Bpref/GMBpref. The value "
            "equals 'ranklens eval'."
        ),
    )
    p.add_argument("qrels", nargs="?", metavar="QRELS", help="qrels file (- for stdin)")
    p.add_argument("run", nargs="?", metavar="RUN", help="run file")
    p.add_argument(
        "--query",
        metavar="Q",
        help="the query to explain (needed unless the run has a single query)",
    )
    p.add_argument(
        "-m",
        "--measure",
        action="append",
        dest="measures",
        metavar="MEASURE",
        help="measures, e.g. nDCG@10, AP(norm='ret')@5, ERR(p=0.9): repeat -m or separate "
        "them by commas or spaces (one explanation after another)",
    )
    p.add_argument(
        "-f",
        "--format",
        type=_options.format_name,
        choices=FORMATS,
        default="table",
        help="table (coloured on a terminal; also spelled text), markdown or json",
    )
    _options.add_output(p, "the explanations")
    p.add_argument("--digits", type=int, default=4, metavar="N", help="decimals shown (default 4)")
    p.add_argument(
        "--all-ranks",
        action="store_true",
        help="show every rank (default: the first --max-rows ranks, then only the ranks that "
        "add to the measure, and the last)",
    )
    p.add_argument(
        "--max-rows",
        type=int,
        default=20,
        metavar="N",
        help="ranks always shown before only the contributing ones are (default 20)",
    )
    _options.add_conventions(p, duplicates=False)
    _options.add_example(
        p,
        "explain on (with the bm25 run)",
        {"measures": ["nDCG@10"], "query": "1037798"},
        needed=("measures",),
    )
    _options.add_quiet(p)
    p.set_defaults(handler=run_explain)


def run_explain(args: argparse.Namespace) -> int:
    """Handle ``ranklens explain``."""
    from ranklens.base.errors import OptionError
    from ranklens.data.coerce import as_qrels, as_run
    from ranklens.presentation.explanation import explain_measures

    if args.example:
        from ranklens.data.examples import example_paths

        if args.qrels is not None:
            raise OptionError("--example takes no files: it uses the bundled example data")
        qrels_path, run_paths = example_paths()
        args.qrels, args.run = str(qrels_path), str(run_paths[0])
    if args.qrels is None or args.run is None:
        raise OptionError("give a qrels file and a run file (or --example)")
    if args.qrels == "-" and args.run == "-":
        raise OptionError("only one of the files can be '-' (stdin)")
    if args.digits < 0 or args.digits > 17:
        raise OptionError(f"--digits must be between 0 and 17, not {args.digits}")
    if args.max_rows < 0:
        raise OptionError(f"--max-rows must be >= 0, not {args.max_rows}")
    if args.depth is not None and args.depth < 1:
        raise OptionError(f"--depth must be a positive number, not {args.depth}")
    _options.check_output(args, [args.qrels, args.run])
    names = _options.measure_names(args.measures, ())
    # diversity measures read the qrels as subtopic qrels: the evaluator reads them then
    qrels = args.qrels if _reads_subtopics(names) else as_qrels(args.qrels)
    run = as_run(args.run)
    query = args.query if args.query is not None else _only_query(run.qids, args.run)
    explanations = explain_measures(
        qrels,
        run,
        query,
        names,
        ties=args.ties,
        queries=args.queries,
        depth=args.depth,
        max_rows=None if args.all_ranks else args.max_rows,
    )
    with _options.output_stream(args, [args.qrels, args.run]) as out:
        write(explanations, args.format, args.digits, out)
    return 0


def _reads_subtopics(names: list[str]) -> bool:
    """Whether a measure named in ``names`` reads subtopic qrels (a diversity measure)."""
    from ranklens.base.errors import MeasureError
    from ranklens.measures.language import parse_measures

    try:
        parsed = parse_measures(names)
    except MeasureError:  # explain_measures reports it
        return False
    return any(m.spec.judgments == "subtopics" for m in parsed)


def _only_query(qids: tuple[str, ...], path: str) -> str:
    """The run's one query, or an error that lists some of its queries."""
    from ranklens.base.errors import OptionError

    if len(qids) == 1:
        return qids[0]
    if not qids:
        raise OptionError(f"{path} has no queries to explain")
    some = ", ".join(qids[:LISTED_QUERIES])
    more = ", ..." if len(qids) > LISTED_QUERIES else ""
    raise OptionError(f"--query is needed: {path} has {len(qids)} queries ({some}{more}); pick one")


def write(explanations: Any, fmt: str, digits: int, out: IO[str]) -> None:
    """Write ``explanations`` in format ``fmt``: JSON as one object, Markdown and text one
    after another; text as a rich table on a terminal, plain text otherwise."""
    if fmt == "json":
        payload = {"explanations": [e.to_dict(digits) for e in explanations]}
        out.write(json.dumps(payload, allow_nan=False) + "\n")
        return
    if fmt == "markdown":
        out.write("\n".join(e.to_markdown(digits) for e in explanations))
        return
    if not out.isatty():
        out.write("\n".join(e.to_text(digits) for e in explanations))
        return
    from rich.console import Console

    console = Console(file=out, highlight=False, soft_wrap=False)
    for i, e in enumerate(explanations):
        if i:
            console.print()
        console.print(e.to_rich(digits))
