"""``ranklens curve pr|ipr|roc QRELS RUN`` (or ``--example``): the points of a curve (see
:mod:`ranklens.analysis.curves`); the kind as ``plot`` takes it, or as ``--kind``."""

from __future__ import annotations

import argparse
import json
from typing import IO, Any

from ranklens.cli import _options

KINDS = ("pr", "ipr", "roc")
FORMATS = _options.TABLE_FORMATS


def register(commands: Any) -> None:
    """Add the ``curve`` subcommand."""
    p = commands.add_parser(
        "curve",
        help="print precision-recall, interpolated precision-recall or ROC curves",
        description=(
            "Print the points of a curve per query: pr (recall and precision at every rank), "
            "ipr (interpolated precision at the 11 standard recall levels, per query and "
            "averaged; equals IPrec@x) or roc (FPR and TPR over the judged documents, "
            "unretrieved judged documents appended as one tied group, with the AUC and the "
            "optimal cut-offs by Youden's J, distance to (0, 1) and TPR * (1 - FPR))."
        ),
    )
    p.add_argument("kind_arg", nargs="?", metavar="KIND", help=f"which curve: {', '.join(KINDS)}")
    p.add_argument("qrels", nargs="?", metavar="QRELS", help="qrels file (- for stdin)")
    p.add_argument("run", nargs="?", metavar="RUN", help="run file")
    p.add_argument("--kind", choices=KINDS, help="which curve (the same as KIND)")
    p.add_argument("--query", metavar="Q", help="only this query")
    p.add_argument("--rel", type=int, default=1, metavar="N", help="minimum relevant grade")
    _options.add_format(p, FORMATS)
    _options.add_output(p, "the points")
    _options.add_conventions(p)
    _options.add_example(
        p,
        "draw the curves of (with the bm25 run)",
        help_text="draw the curves of the bundled example (TREC DL 2019 passage qrels, the "
        "bm25 run); without KIND, pr",
    )
    _options.add_quiet(p)
    p.set_defaults(handler=run_curve)


Rows = list[list[Any]]


def run_curve(args: argparse.Namespace) -> int:
    """Handle ``ranklens curve``."""
    _resolve_kind(args)
    _options.resolve_one_run(args)
    _options.check_output(args, [args.qrels, args.run])
    options = _options.chosen(args, _options.CONVENTIONS)
    if args.kind == "pr":
        payload, tables = _pr(args, options)
    elif args.kind == "ipr":
        payload, tables = _ipr(args, options)
    else:
        payload, tables = _roc(args, options)
    with _options.output_stream(args, [args.qrels, args.run]) as out:
        _write(payload, tables, args.format, out)
    return 0


def _resolve_kind(args: argparse.Namespace) -> None:
    """The kind from ``KIND`` (first, as ``plot`` takes it) or ``--kind``; the positional
    arguments move over when ``KIND`` was not given (``curve --kind pr QRELS RUN``)."""
    from ranklens.base.errors import OptionError

    given = args.kind_arg
    if given is not None and given not in KINDS:
        if args.run is not None:
            raise OptionError(f"the curve's kind must be one of {', '.join(KINDS)}, not {given!r}")
        args.kind_arg, args.qrels, args.run = None, given, args.qrels
    if args.kind_arg is not None and args.kind is not None and args.kind_arg != args.kind:
        raise OptionError(f"two kinds given: {args.kind_arg} and --kind {args.kind}; give one")
    args.kind = args.kind_arg or args.kind or ("pr" if args.example else None)
    if args.kind is None:
        raise OptionError(f"give the curve's kind first: one of {', '.join(KINDS)}")


def _pr(args: argparse.Namespace, options: dict[str, Any]) -> tuple[dict[str, Any], list[Any]]:
    from ranklens.analysis.curves import pr_curve

    curves = _selected(pr_curve(args.qrels, args.run, rel=args.rel, **options), args.query)
    queries = {
        q: {"rank": c.rank.tolist(), "recall": c.recall.tolist(), "precision": c.precision.tolist()}
        for q, c in curves.items()
    }
    rows = [
        [q, rank, recall, precision]
        for q, c in queries.items()
        for rank, recall, precision in zip(c["rank"], c["recall"], c["precision"], strict=True)
    ]
    payload = {"kind": "pr", "rel": args.rel, "queries": queries}
    return payload, [("points", ["query", "rank", "recall", "precision"], rows)]


def _ipr(args: argparse.Namespace, options: dict[str, Any]) -> tuple[dict[str, Any], list[Any]]:
    from ranklens.analysis.curves import interpolated_pr

    ip = interpolated_pr(args.qrels, args.run, rel=args.rel, **options)
    levels = ip.levels.tolist()
    per_query = {q: p.tolist() for q, p in ip.per_query().items()}
    if args.query is not None:
        per_query = {args.query: _selected(per_query, args.query)[args.query]}
    queries: dict[str, list[float]] = dict(per_query)
    if args.query is None:
        queries["all"] = ip.mean.tolist()
    rows = [[q, x, p] for q, values in queries.items() for x, p in zip(levels, values, strict=True)]
    payload: dict[str, Any] = {"kind": "ipr", "rel": args.rel, "levels": levels}
    payload["queries"] = per_query
    if args.query is None:
        payload["mean"] = queries["all"]
    return payload, [("points", ["query", "recall", "precision"], rows)]


def _roc(args: argparse.Namespace, options: dict[str, Any]) -> tuple[dict[str, Any], list[Any]]:
    from ranklens.analysis.curves import roc_curve, roc_optimal_cutoffs

    curves = _selected(roc_curve(args.qrels, args.run, rel=args.rel, **options), args.query)
    best = roc_optimal_cutoffs(args.qrels, args.run, rel=args.rel, **options)
    queries: dict[str, Any] = {}
    points: Rows = []
    cutoffs: Rows = []
    for q, c in curves.items():
        optimal = {
            b.criterion: {"cutoff": b.cutoff, "fpr": b.fpr, "tpr": b.tpr, "value": b.value}
            for b in best[q].as_tuple()
        }
        queries[q] = {
            "cutoff": c.cutoff.tolist(),
            "fpr": c.fpr.tolist(),
            "tpr": c.tpr.tolist(),
            "num_rel": c.num_rel,
            "num_nonrel": c.num_nonrel,
            "auc": c.auc,
            "optimal": optimal,
        }
        points += [
            [q, "unretrieved" if k < 0 else k, f, t]
            for k, f, t in zip(c.cutoff.tolist(), c.fpr.tolist(), c.tpr.tolist(), strict=True)
        ]
        cutoffs += [[q, "auc", "", "", "", c.auc]]
        cutoffs += [
            [q, name, o["cutoff"], o["fpr"], o["tpr"], o["value"]] for name, o in optimal.items()
        ]
    payload = {"kind": "roc", "rel": args.rel, "queries": queries}
    return payload, [
        ("points", ["query", "cutoff", "fpr", "tpr"], points),
        ("optimal cut-offs", ["query", "criterion", "cutoff", "fpr", "tpr", "value"], cutoffs),
    ]


def _selected(curves: dict[str, Any], query: str | None) -> dict[str, Any]:
    from ranklens.base.errors import OptionError

    if query is None:
        return curves
    if query not in curves:
        raise OptionError(f"query {query!r} is not among the evaluated queries")
    return {query: curves[query]}


def _write(payload: dict[str, Any], tables: list[Any], fmt: str, out: IO[str]) -> None:
    if fmt == "json":
        out.write(json.dumps(payload, allow_nan=False) + "\n")
        return
    if fmt in ("csv", "tsv"):
        writer = _options.csv_writer(out, fmt)
        for i, (_, header, rows) in enumerate(tables):
            if i:
                out.write("\n")
            writer.writerow(header)
            writer.writerows([[_csv(v) for v in row] for row in rows])
        return
    from rich.console import Console
    from rich.table import Table

    console = Console(file=out, highlight=False, soft_wrap=False)
    terminal = console.is_terminal
    if not terminal:  # a file or a pipe: plain text, never cropped (as eval writes)
        console = Console(file=out, highlight=False, soft_wrap=False, width=1 << 16)
    for title, header, rows in tables:
        table = Table(title=title)
        if not terminal:
            table.box = None
        for name in header:
            table.add_column(name, justify="left" if name in ("query", "criterion") else "right")
        for row in rows:
            table.add_row(*(f"{v:.4f}" if isinstance(v, float) else str(v) for v in row))
        console.print(table)


def _csv(value: Any) -> str:
    return repr(value) if isinstance(value, float) else str(value)
