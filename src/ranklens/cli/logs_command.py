"""The commands of user logs (``docs/logs.md``), each reading a click log ``LOG`` (JSON
lines, Parquet, CSV or TSV; ``--example``: a log simulated from the bundled example):

- ``ranklens click-models LOG``: fit click models, score them on held-out sessions;
- ``ranklens click-qrels LOG -o FILE``: qrels from a click model's estimates;
- ``ranklens click-measures LOG``: CTR, abandonment, clicks@k, ClickRR per query;
- ``ranklens interleaving LOG``: wins, losses, ties, the binomial test and the preference;
- ``ranklens counterfactual LOG --target RUN``: a new ranking's clicks, estimated offline.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from typing import IO, Any

from ranklens.cli import _options

MODELS = ("PBM", "Cascade", "DCM", "UBM", "DBN", "SDBN")
CLICK_MEASURES = ("CTR", "Abandonment", "Clicks@1", "Clicks@10", "ClickRR")
ESTIMATORS = ("ips", "snips", "sips", "iips", "rips", "snsips", "sniips", "snrips")


def _log_argument(p: argparse.ArgumentParser, kind: str) -> None:
    p.add_argument(
        "log",
        nargs="?",
        metavar="LOG",
        help="the click log: .jsonl, .parquet, .csv or .tsv (.gz for the text formats), one "
        "row per impression and position or one impression per row (docs/logs.md)",
    )
    p.add_argument(
        "--example",
        action="store_true",
        help=f"a log ({kind}) simulated from the bundled example (TREC DL 2019 queries, the "
        "top 10 of bm25 and rerank, users browsing as a DBN led by the qrels' grades)",
    )
    _options.add_quiet(p)


def _read(args: argparse.Namespace, kind: str) -> Any:
    from ranklens.base.errors import OptionError
    from ranklens.logs import read_log

    if args.example:
        if args.log is not None:
            raise OptionError("--example takes no LOG: it simulates the example log")
        from ranklens.logs.examples import example_log

        return read_log(example_log(kind))
    if args.log is None:
        raise OptionError("give a click log (LOG), or --example")
    return read_log(args.log)


def _inputs(args: argparse.Namespace) -> list[str]:
    paths = [args.log, getattr(args, "target", None), *(getattr(args, "balanced", None) or [])]
    return [p for p in paths if isinstance(p, str)]


def _number(value: float) -> str:
    return "nan" if math.isnan(value) else f"{value:.4f}"


def register(commands: Any) -> None:
    """Add the user-log commands."""
    p = commands.add_parser(
        "click-models",
        help="fit click models (PBM, UBM, Cascade, DCM, DBN, SDBN) to a click log and score "
        "them on held-out sessions",
        description=(
            "Fit click models to a click log and compare them on held-out sessions: the "
            "log-likelihood per session and the perplexity (per rank and its mean; lower is "
            "better). The sessions are split at random (--holdout, --seed); each model is "
            "fitted on the rest by maximum likelihood (EM, or the cascade's closed form). "
            "JSON output adds each model's parameters."
        ),
    )
    _log_argument(p, "clicks")
    p.add_argument(
        "--model",
        action="append",
        choices=MODELS,
        metavar="MODEL",
        help=f"a click model (repeatable; default: all of {', '.join(MODELS)})",
    )
    p.add_argument(
        "--holdout",
        type=float,
        default=0.25,
        metavar="F",
        help="the share of sessions held out for scoring (0.25)",
    )
    p.add_argument("--seed", type=int, default=42, help="seed of the held-out split (42)")
    _options.add_format(p, ("table", "json"))
    _options.add_output(p, "the table")
    p.set_defaults(handler=run_click_models)

    p = commands.add_parser(
        "click-qrels",
        help="qrels from a click model's estimates, for every other command",
        description=(
            "Write TREC qrels made from a click model fitted to a click log: each document's "
            "estimated relevance (DBN, SDBN: attractiveness x satisfaction; the other models: "
            "attractiveness) graded by --thresholds, or as an integer percentage (--scale)."
        ),
    )
    _log_argument(p, "clicks")
    p.add_argument("--model", choices=MODELS, default="DBN", metavar="MODEL", help="(DBN)")
    p.add_argument(
        "--thresholds",
        metavar="T,T,...",
        help="increasing cut points: grade = how many are at or below the value (e.g. "
        "0.1,0.3,0.5 gives grades 0-3)",
    )
    p.add_argument(
        "--scale",
        type=int,
        metavar="N",
        help="instead of thresholds: grade = round(N x value) (100: percent)",
    )
    p.add_argument(
        "--of",
        choices=("relevance", "attractiveness", "satisfaction"),
        default="relevance",
        help="what is graded (relevance)",
    )
    p.add_argument(
        "--min-impressions",
        type=int,
        default=1,
        metavar="N",
        help="leave out (unjudged) documents shown fewer than N times (1)",
    )
    _options.add_output(p, "the qrels")
    _options.example_defaults(p, {"thresholds": "0.1,0.3,0.5"}, unless=("scale",))
    p.set_defaults(handler=run_click_qrels)

    p = commands.add_parser(
        "click-measures",
        help="CTR, abandonment, clicks@k and the reciprocal rank of the first click per query",
        description=(
            "Click measures per query of a click log, and their means over queries: CTR "
            "(share of impressions with a click), Abandonment (without), Clicks@k (clicks in "
            "the top k per impression) and ClickRR (reciprocal rank of the first click)."
        ),
    )
    _log_argument(p, "clicks")
    p.add_argument(
        "-m",
        "--measure",
        action="append",
        dest="measures",
        metavar="MEASURE",
        help=f"a click measure (repeatable); default: {','.join(CLICK_MEASURES)}. The "
        "measures of judgments (the default set of the other commands, "
        f"{','.join(_options.DEFAULT_MEASURES)}) are computed on the qrels that click-qrels "
        "writes",
    )
    p.add_argument("-q", "--per-query", action="store_true", dest="per_query")
    _options.add_format(p)
    _options.add_output(p, "the measures")
    p.set_defaults(handler=run_click_measures)

    p = commands.add_parser(
        "interleaving",
        help="analyse an interleaving log: wins, losses, ties, binomial test, preference",
        description=(
            "Analyse an interleaving log (rows with the team that contributed each shown "
            "document): wins, losses and ties of the first ranker (sorted order) against "
            "the other, the two-sided binomial test of wins against losses, the preference "
            "delta with a bootstrap interval, per query; and the impressions needed for 80% "
            "power at the observed rates."
        ),
    )
    _log_argument(p, "team-draft interleaving")
    p.add_argument("--rankers", nargs=2, metavar=("A", "B"), help="the two teams to compare")
    p.add_argument(
        "--balanced",
        nargs=2,
        metavar=("RUN_A", "RUN_B"),
        help="a balanced interleaving log: the two runs its lists were made from; each "
        "impression is credited by the balanced rule (Joachims; Chapelle et al. 2012) "
        "instead of by team",
    )
    p.add_argument("--confidence", type=float, default=0.95, help="interval level (0.95)")
    _options.add_resamples(p, 10_000, "bootstrap resamples", dest="bootstrap")
    p.add_argument("--seed", type=int, default=42, help="seed of the bootstrap (42)")
    p.add_argument("-q", "--per-query", action="store_true", dest="per_query")
    _options.add_format(p, ("table", "json"))
    _options.add_output(p, "the analysis")
    p.set_defaults(handler=run_interleaving)

    p = commands.add_parser(
        "counterfactual",
        help="estimate a new ranking's clicks from a logged click log (IPS, slate estimators)",
        description=(
            "Estimate the clicks per impression a target ranking (a TREC run) would get, "
            "from a log of another ranker's impressions: the slate estimators (sips, iips, "
            "rips and their self-normalised sn*) with logged propensities, or ips with the "
            "position bias of a PBM (--position-bias pbm) or of intervention harvesting "
            "(--position-bias harvesting, which needs the log's ranker column)."
        ),
    )
    _log_argument(p, "clicks")
    p.add_argument("--target", metavar="RUN", help="the target ranking: a TREC run file")
    p.add_argument("--estimator", choices=ESTIMATORS, default="ips", help="(ips)")
    p.add_argument(
        "--position-bias",
        choices=("pbm", "harvesting"),
        help="estimate the examination of each position from the log and use ips by it",
    )
    p.add_argument("--cutoff", type=int, metavar="K", help="count clicks in the top K only")
    p.add_argument("--confidence", type=float, default=0.95, help="interval level (0.95)")
    p.add_argument("--interval", choices=("bootstrap", "normal"), default="bootstrap")
    _options.add_resamples(p, 10_000, "bootstrap resamples", dest="bootstrap")
    p.add_argument("--seed", type=int, default=42, help="seed of the bootstrap (42)")
    _options.add_format(p, ("table", "json"))
    _options.add_output(p, "the estimate")
    _options.example_defaults(p, {"position_bias": "pbm"})
    p.set_defaults(handler=run_counterfactual)


def _check_interval_options(args: argparse.Namespace) -> None:
    """--confidence, --resamples (and --cutoff where the command has it), checked under
    the options' own names."""
    from ranklens.base.errors import OptionError

    if not 0.0 < args.confidence < 1.0:
        raise OptionError(f"--confidence must be in (0, 1), not {args.confidence:g}")
    if args.bootstrap < 1:
        raise OptionError(f"--resamples must be a positive integer, not {args.bootstrap}")
    cutoff = getattr(args, "cutoff", None)
    if cutoff is not None and cutoff < 1:
        raise OptionError(f"--cutoff must be a positive integer, not {cutoff}")


def run_click_models(args: argparse.Namespace) -> int:
    """Handle ``ranklens click-models``."""
    from ranklens.base.errors import OptionError
    from ranklens.logs.click_models import check_ubm_log, fit_patterns
    from ranklens.logs.patterns import patterns_of

    _options.check_output(args, _inputs(args))
    if not 0.0 < args.holdout < 1.0:
        raise OptionError(f"--holdout must be a share in (0, 1), not {args.holdout:g}")
    log = _read(args, "clicks")
    train, test = log.split(args.holdout, seed=args.seed)
    if test.num_impressions == 0 or train.num_impressions == 0:
        raise OptionError(
            f"--holdout {args.holdout:g} of the log's {log.num_impressions} sessions holds out "
            f"{test.num_impressions}: the models are scored on held-out sessions, so at least "
            "one must be held out and one left to fit; give a log of more sessions or "
            "another --holdout"
        )
    if "UBM" in (args.model or MODELS):
        check_ubm_log(log)  # before its table is made, naming the session
    patterns = patterns_of(train)
    rows: list[dict[str, Any]] = []
    for name in args.model or MODELS:
        fit = fit_patterns(patterns, name)
        ev = fit.evaluate(test)
        row: dict[str, Any] = {
            "model": name,
            "log_likelihood_per_session": ev.log_likelihood_per_session,
            "perplexity": ev.perplexity,
            "perplexity_at": ev.perplexity_at,
            "iterations": fit.iterations,
            "converged": fit.converged,
            "unseen": ev.unseen,
        }
        if args.format == "json":
            row["attractiveness"] = fit.attractiveness
            if fit.satisfaction is not None:
                row["satisfaction"] = fit.satisfaction
            if fit.examination is not None:
                row["examination"] = {str(k): v for k, v in fit.examination.items()}
            if fit.continuation is not None:
                row["continuation"] = fit.continuation
        rows.append(row)
    with _options.output_stream(args, _inputs(args)) as out:
        if args.format == "json":
            json.dump(
                {
                    "train_sessions": train.num_impressions,
                    "heldout_sessions": test.num_impressions,
                    "models": rows,
                },
                out,
                indent=1,
            )
            out.write("\n")
            return 0
        out.write(f"{train.num_impressions} sessions to fit, {test.num_impressions} held out\n")
        out.write(f"{'model':<8} {'LL/session':>11} {'perplexity':>10}  iterations\n")
        for row in rows:
            done = "" if row["converged"] else " (not converged)"
            out.write(
                f"{row['model']:<8} {_number(row['log_likelihood_per_session']):>11} "
                f"{_number(row['perplexity']):>10}  {row['iterations']}{done}\n"
            )
    return 0


def run_click_qrels(args: argparse.Namespace) -> int:
    """Handle ``ranklens click-qrels``."""
    from ranklens.base.errors import OptionError
    from ranklens.logs import fit_click_model

    _options.check_output(args, _inputs(args))
    if args.example == (args.log is not None):
        raise OptionError("give a click log (LOG), or --example (not both)")
    if (args.thresholds is None) == (args.scale is None):
        raise OptionError("give either --thresholds (graded) or --scale (probabilities), one")
    thresholds = None
    if args.thresholds is not None:
        try:
            thresholds = [float(t) for t in args.thresholds.split(",")]
        except ValueError:
            raise OptionError(
                f"--thresholds must be numbers separated by commas, not {args.thresholds!r}"
            ) from None
    # a Parquet log is streamed (bounded memory), anything else read whole
    fit = fit_click_model(_read(args, "clicks") if args.example else args.log, args.model)
    qrels = fit.to_qrels(
        thresholds, scale=args.scale, of=args.of, min_impressions=args.min_impressions
    )
    with _options.output_stream(args, _inputs(args)) as out:
        qrels.write(out)
    if not args.quiet:
        sys.stderr.write(
            f"ranklens: {len(qrels)} judgments of {qrels.num_queries} queries from the "
            f"{args.model} model\n"
        )
    return 0


def run_click_measures(args: argparse.Namespace) -> int:
    """Handle ``ranklens click-measures``."""
    from ranklens.cli.output import write_results
    from ranklens.logs import click_measures

    _options.check_output(args, _inputs(args))
    log = _read(args, "clicks")
    names = _options.measure_names(args.measures, CLICK_MEASURES)
    results = click_measures(log, names, name="clicks")
    with _options.output_stream(args, _inputs(args)) as out:
        write_results([results], args.format, args.per_query, out)
    return 0


def run_interleaving(args: argparse.Namespace) -> int:
    """Handle ``ranklens interleaving``."""
    from ranklens.base.errors import OptionError
    from ranklens.data.run import Run
    from ranklens.logs import interleaving

    _options.check_output(args, _inputs(args))
    _check_interval_options(args)
    log = _read(args, "interleaving")
    rankings = None
    if args.balanced:
        runs = [Run.from_file(path) for path in args.balanced]
        if runs[0].name == runs[1].name:
            raise OptionError(
                f"the two runs of --balanced are both named {runs[0].name!r}: give runs of "
                "two rankers"
            )
        rankings = {run.name: run for run in runs}
    elif args.rankers is None and log.teams is not None and len(log.teams) != 2:
        raise OptionError(
            f"the log has {len(log.teams)} teams ({', '.join(log.teams)}): name the two to "
            "compare with --rankers A B"
        )
    result = interleaving(
        log,
        tuple(args.rankers) if args.rankers else None,
        rankings=rankings,
        confidence=args.confidence,
        bootstrap=args.bootstrap,
        seed=args.seed,
    )
    a, b = result.rankers
    needed, needed_note = _planned_impressions(result)
    with _options.output_stream(args, _inputs(args)) as out:
        if args.format == "json":
            data = {
                "rankers": [a, b],
                "impressions": result.impressions,
                "wins": result.wins,
                "losses": result.losses,
                "ties": result.ties,
                "no_clicks": result.no_clicks,
                "p_value": result.p_value,
                "delta": None if math.isnan(result.delta) else result.delta,
                "interval": list(result.interval),
                "confidence": result.confidence,
                "impressions_needed": needed,
                "impressions_needed_note": needed_note,
            }
            if args.per_query:
                data["per_query"] = {q: list(v) for q, v in result.per_query.items()}
            json.dump(data, out, indent=1)
            out.write("\n")
            return 0
        _interleaving_table(result, needed, needed_note, args.per_query, out)
    return 0


def _planned_impressions(result: Any) -> tuple[int | None, str | None]:
    """The impressions for 80% power at the observed rates, or why there is no number:
    ``(number, None)``, ``(None, "more than N")`` or ``(None, "not estimable: ...")``;
    beyond the exact sums the number is the normal approximation's (said so)."""
    from ranklens.logs.interleaving import EXACT_IMPRESSIONS, NotEstimableError

    if result.impressions == 0 or result.wins == result.losses:
        return None, "not estimable: as many wins as losses"
    try:
        needed = int(result.impressions_needed())
    except NotEstimableError as exc:
        if exc.more_than is None:
            return None, "not estimable"
        return None, f"more than {exc.more_than:,}"
    if needed > EXACT_IMPRESSIONS:
        return needed, "normal approximation"
    return needed, None


def _interleaving_table(
    result: Any, needed: int | None, note: str | None, per_query: bool, out: IO[str]
) -> None:
    a, b = result.rankers
    level = round(100 * result.confidence)
    out.write(f"{a} against {b}: {result.impressions} impressions\n")
    out.write(
        f"wins {result.wins}  losses {result.losses}  ties {result.ties} "
        f"({result.no_clicks} without clicks)\n"
    )
    out.write(f"binomial test (two-sided): p = {result.p_value:.3g}\n")
    low, high = result.interval
    out.write(
        f"preference for {a}: delta = {_number(result.delta)}  {level}% CI "
        f"[{_number(low)}, {_number(high)}]\n"
    )
    if needed is None:
        out.write(f"impressions for 80% power at these rates: {note}\n")
    else:
        told = f" ({note})" if note else ""
        out.write(f"impressions for 80% power at these rates: {needed}{told}\n")
    if per_query:
        out.write("query  wins  losses  ties\n")
        for q, (w, lo, t) in result.per_query.items():
            out.write(f"{q}  {w}  {lo}  {t}\n")


def run_counterfactual(args: argparse.Namespace) -> int:
    """Handle ``ranklens counterfactual``."""
    from ranklens.base.errors import OptionError
    from ranklens.data.run import Run
    from ranklens.logs import counterfactual, position_bias

    _options.check_output(args, _inputs(args))
    _check_interval_options(args)
    log = _read(args, "clicks")
    if args.target is None:
        if not args.example:
            raise OptionError("give the target ranking: --target RUN")
        from ranklens.data.examples import example_paths

        args.target = str(example_paths()[1][1])  # the rerank run
    target = Run.from_file(args.target)
    bias = position_bias(log, args.position_bias) if args.position_bias else None
    result = counterfactual(
        log,
        target,
        args.estimator,
        position_bias=bias,
        cutoff=args.cutoff,
        confidence=args.confidence,
        interval=args.interval,
        bootstrap=args.bootstrap,
        seed=args.seed,
    )
    with _options.output_stream(args, _inputs(args)) as out:
        if args.format == "json":
            data: dict[str, Any] = {
                "estimator": result.estimator,
                "value": result.value,
                "interval": list(result.interval),
                "confidence": result.confidence,
                "standard_error": result.standard_error,
                "impressions": result.impressions,
            }
            if bias is not None:
                data["position_bias"] = {str(k): v for k, v in bias.items()}
            json.dump(data, out, indent=1)
            out.write("\n")
            return 0
        level = round(100 * result.confidence)
        low, high = result.interval
        out.write(
            f"{result.estimator}: {_number(result.value)} clicks per impression, {level}% CI "
            f"[{_number(low)}, {_number(high)}] ({result.impressions} impressions)\n"
        )
    return 0
