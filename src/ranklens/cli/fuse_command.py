"""``ranklens fuse RUN RUN ... --method rrf -o fused.run``: rank fusion (see
:mod:`ranklens.fusion`); with judgments, ``ranklens fuse QRELS RUN RUN ... --optimize`` (or
``--train`` for a supervised method), judgments first as everywhere."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from ranklens.cli import _options


def register(commands: Any) -> None:
    """Add the ``fuse`` subcommand."""
    p = commands.add_parser(
        "fuse",
        help="fuse runs into one run (RRF, CombSUM, CombMNZ, Borda, Condorcet, ...)",
        description=(
            "Fuse runs into one TREC run. Each run is ranked by the tie policy first, so the "
            "result never depends on the order of the input lines. Methods and "
            "normalisations use ranx's names (rrf, comb_sum/sum, comb_mnz/mnz, wsum, "
            "bordafuse, condorcet, ...); see docs/fusion.md. With QRELS first and --optimize, "
            "the weights and parameters are grid-searched for -m first and the best fused "
            "run is written; with QRELS first and --train, a supervised method's parameters "
            "are estimated from them (the older --optimize QRELS and --train QRELS work too)."
        ),
    )
    p.add_argument(
        "runs",
        nargs="*",
        metavar="RUN",
        help="run files (TREC format); with --optimize or --train, the qrels first",
    )
    p.add_argument("--method", default="rrf", help="fusion method (default: rrf, k=60)")
    p.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a method parameter, e.g. k=60, phi=0.8, gamma=0.5, sigma=0.01, w=3 (repeatable); "
        "with --optimize, NAME=V1,V2,... gives the values to try",
    )
    p.add_argument(
        "--norm",
        help="score normalisation for score-based methods: min-max (default), min-max@K, max, "
        "sum, zmuv, rank, borda, none",
    )
    p.add_argument("--weights", metavar="W1,W2,...", help="one weight per run")
    _options.add_output(p, "the fused run (and --grid-out's)")
    p.add_argument("--tag", metavar="NAME", help="run tag of the output (default: the method)")
    p.add_argument(
        "--depth",
        type=int,
        metavar="N",
        help="keep the top N fused documents per query (default: all)",
    )
    _options.add_ties(p)
    p.add_argument(
        "--train",
        nargs="?",
        const=True,
        metavar="QRELS",
        help="estimate the parameters of a supervised method (bayesfuse, posfuse, probfuse, "
        "segfuse, slidefuse, mapfuse) from the qrels given first (or given here)",
    )
    p.add_argument(
        "--optimize",
        nargs="?",
        const=True,
        metavar="QRELS",
        help="grid-search weights and parameters against the qrels given first (or given "
        "here); write the best run",
    )
    p.add_argument(
        "-m",
        "--measure",
        action="append",
        dest="measures",
        metavar="MEASURE",
        help="with --optimize: the one measure to maximise (default nDCG@10)",
    )
    p.add_argument(
        "--train-queries",
        metavar="Q1,Q2,...|@FILE",
        help="optimise on these queries only (a comma list, or @FILE with one id per line)",
    )
    p.add_argument("--step", type=float, default=0.1, help="step of the weight grid (default 0.1)")
    p.add_argument(
        "--grid-out",
        metavar="CSV",
        help="with --optimize: write the whole grid as CSV (never over an input; --force "
        "overwrites)",
    )
    _options.add_example(p, "fuse the bm25 and rerank runs of (--optimize: against its qrels)")
    _options.add_quiet(p, "the summary line")
    p.set_defaults(handler=run_fuse)


def _resolve_files(args: argparse.Namespace) -> None:
    """The qrels of ``--optimize``/``--train`` given as a flag are the first file; with
    ``--example``, the bundled qrels and its bm25 and rerank runs."""
    from ranklens.base.errors import OptionError

    flagged = [option for option in ("optimize", "train") if getattr(args, option) is True]
    if len(flagged) > 1:
        raise OptionError("--optimize trains supervised methods itself; leave out --train")
    if args.example:
        if args.runs or any(isinstance(getattr(args, o), str) for o in ("optimize", "train")):
            raise OptionError("--example takes no files: it uses the bundled example data")
        from ranklens.data.examples import example_paths

        qrels, runs = example_paths()
        args.runs = [str(path) for path in runs]
        if flagged:
            setattr(args, flagged[0], str(qrels))
        return
    if flagged:
        if not args.runs:
            raise OptionError(f"--{flagged[0]} needs the qrels first: QRELS RUN RUN ...")
        setattr(args, flagged[0], args.runs[0])
        args.runs = args.runs[1:]
    if not args.runs:
        raise OptionError("give the runs to fuse (or --example)")


def _value(text: str) -> Any:
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def _params(items: list[str], lists: bool) -> dict[str, Any]:
    from ranklens.base.errors import OptionError

    out: dict[str, Any] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name.strip() or not value.strip():
            raise OptionError(f"--param expects NAME=VALUE, not {item!r}")
        if lists:
            out[name.strip()] = [_value(v.strip()) for v in value.split(",") if v.strip()]
        else:
            parsed = _value(value.strip())
            if isinstance(parsed, str):
                raise OptionError(f"--param {name.strip()}: {value!r} is not a number")
            out[name.strip()] = parsed
    return out


def _weights(text: str | None) -> list[float] | None:
    from ranklens.base.errors import OptionError

    if text is None:
        return None
    try:
        return [float(w) for w in text.split(",")]
    except ValueError:
        raise OptionError(f"--weights expects numbers separated by commas, not {text!r}") from None


def _queries(text: str | None) -> list[str] | None:
    if text is None:
        return None
    if text.startswith("@"):
        with open(text[1:], encoding="utf-8") as handle:
            return [line.strip() for line in handle if line.strip()]
    return [q.strip() for q in text.split(",") if q.strip()]


def run_fuse(args: argparse.Namespace) -> int:
    """Handle ``ranklens fuse``."""
    from ranklens.base.errors import OptionError
    from ranklens.fusion import SUPERVISED, fuse, get_method

    _resolve_files(args)
    spec = get_method(args.method)
    if len(args.runs) < 2:
        raise OptionError(
            f"fusing needs at least two runs, got one ({args.runs[0]}); give the runs to fuse"
        )
    if args.runs.count("-") > 1:
        raise OptionError("only one run can be '-' (stdin)")
    if args.optimize and args.train:
        raise OptionError("--optimize trains supervised methods itself; leave out --train")
    weights = _weights(args.weights)
    params: dict[str, Any] = {}
    if not args.optimize:  # the options first, then the outputs, then the work
        from ranklens.fusion.combine import check_weights

        params = _params(args.param, lists=False)
        if spec.name in SUPERVISED and not args.train:
            raise OptionError(
                f"method {spec.name!r} is supervised: give --train QRELS (or --optimize QRELS)"
            )
        check_weights(spec, weights, len(args.runs))
    if args.depth is not None and args.depth < 1:
        raise OptionError(f"--depth must be a positive number, not {args.depth}")
    _check_outputs(args)  # before any reading or fusing: never over an input
    from ranklens.data.coerce import as_run

    runs = [as_run(path) for path in args.runs]  # TREC text, or Parquet / JSON lines by suffix
    if args.optimize:
        fused = _optimized(args, spec.name, runs, weights)
    else:
        if spec.name in SUPERVISED:
            from ranklens.fusion import train

            params = {**train(spec.name, args.train, runs, ties=args.ties), **params}
        fused = fuse(
            runs, spec.name, norm=args.norm, weights=weights, params=params, ties=args.ties
        )
    # --ties rank orders the input runs by their rank column; the fused run has its own
    # scores and no rank column: its equal scores are ordered as trec_eval does
    output_ties: Any = "trec_eval" if args.ties == "rank" else args.ties
    if args.depth is not None:
        from ranklens.fusion.combine import cut

        fused = cut(fused, args.depth, output_ties)
    tag = args.tag or spec.name
    if args.output == "-":
        fused.write(sys.stdout, ties=output_ties, name=tag)
    else:  # never over an input, never half-written (see ranklens.data.output)
        from ranklens.data.output import write_atomically
        from ranklens.data.trec_text import trec_run_chunks

        chunks = trec_run_chunks(fused, fused.ranking(output_ties), tag)
        write_atomically(args.output, chunks, inputs=_inputs(args), force=args.force)
    if not args.quiet:
        sys.stderr.write(
            f"ranklens: fused {len(runs)} runs with {spec.name}: {fused.num_queries} queries, "
            f"{len(fused)} documents\n"
        )
    return 0


def _inputs(args: argparse.Namespace) -> list[str]:
    """Every file the command reads: an output may be none of them."""
    named = [*args.runs, args.optimize, args.train]
    if args.train_queries and args.train_queries.startswith("@"):
        named.append(args.train_queries[1:])
    return [path for path in named if path]


def _check_outputs(args: argparse.Namespace) -> None:
    """Refuse ``-o`` and ``--grid-out`` before the work: an input, an existing file or link
    without ``--force``, a folder, or the same file twice."""
    from ranklens.base.errors import OptionError
    from ranklens.data.output import check_destination

    inputs = _inputs(args)
    if args.grid_out and not args.optimize:
        raise OptionError("--grid-out writes the grid of --optimize; give --optimize QRELS")
    if args.output != "-":
        check_destination(args.output, inputs, args.force)
    if args.grid_out:
        check_destination(args.grid_out, inputs, args.force)
        if args.output != "-" and os.path.abspath(args.output) == os.path.abspath(args.grid_out):
            raise OptionError(f"-o and --grid-out both name {args.output}; give two files")


def _optimized(args: argparse.Namespace, method: str, runs: list[Any], weights: Any) -> Any:
    from ranklens.base.errors import OptionError
    from ranklens.fusion import fuse_optimize

    if weights is not None:
        raise OptionError("--optimize searches the weights; leave out --weights")
    grid = _params(args.param, lists=True)
    from ranklens.presentation.progress import progress_bar

    with progress_bar(f"fuse --optimize {method}", enabled=not args.quiet) as progress:
        frame, best = fuse_optimize(
            args.optimize,
            runs,
            method,
            _optimized_measure(args),
            grid=grid or None,
            train_queries=_queries(args.train_queries),
            norm=args.norm,
            step=args.step,
            ties=args.ties,
            progress=progress,
        )
    if args.grid_out:  # checked before the search; written as -o is
        from ranklens.data.output import write_atomically

        text = frame.to_csv(index=False, lineterminator="\n")
        write_atomically(args.grid_out, text, inputs=_inputs(args), force=args.force)
    if not args.quiet:
        shown = ", ".join(f"{k}={v}" for k, v in best.params)
        if best.weights is not None:
            shown = ", ".join(filter(None, [shown, f"weights={','.join(map(str, best.weights))}"]))
        sys.stderr.write(
            f"ranklens: best of {len(frame)} settings: {shown or 'no parameters'} "
            f"({best.measure} = {best.value:.4f} on the training queries)\n"
        )
    return best.fuse(runs, ties=args.ties)


def _optimized_measure(args: argparse.Namespace) -> str:
    """The one measure ``--optimize`` maximises (nDCG@10 unless ``-m`` names another)."""
    from ranklens.base.errors import OptionError

    names = _options.measure_names(args.measures, ("nDCG@10",))
    if len(names) != 1:
        raise OptionError(f"--optimize maximises one measure, not {len(names)}: {' '.join(names)}")
    return names[0]
