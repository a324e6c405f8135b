"""Per-topic score files wherever the command line takes runs to compare, and logging what a
command computed to MLflow: one place, for every command that does either.

``--scores FILE ...`` (:func:`add_scores`) gives runs as their per-topic scores
(``trec_eval -q`` output, AutoJudge leaderboards, nuggetizer metrics, tables: whatever
:func:`ranklens.read_scores` reads); without QRELS every run is given so, with QRELS the run
files are evaluated and the scores taken as they are (docs/scores.md). ``--mlflow``
(:func:`ranklens.cli._options.add_mlflow`) logs the results or the comparison to MLflow
(docs/mlflow.md).
"""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Iterator
from typing import Any

from ranklens.cli import _options


def add_scores(p: argparse.ArgumentParser, what: str = "runs", *, each: str | None = None) -> None:
    """``--scores FILE ...`` and ``--no-check-all``; with ``each`` (``"collection"``),
    ``--scores`` is repeated once per ``each`` and keeps its files apart (a list of lists)."""
    p.add_argument(
        "--scores",
        action="extend" if each is None else "append",
        nargs="+",
        default=[],
        metavar="FILE",
        help=f"{what} given as per-topic scores (trec_eval -q output, an AutoJudge "
        "leaderboard, nuggetizer metrics, a CSV/TSV/Parquet table, JSON lines; a file may "
        "hold several runs)"
        + ("; QRELS may then be left out" if each is None else f"; once per {each}")
        + " (docs/scores.md)",
    )
    p.add_argument(
        "--no-check-all",
        dest="check_all",
        action="store_false",
        help="read score files whose 'all' lines are not the aggregate of their per-topic "
        "values (they are refused by default, the difference shown)",
    )


def read_score_files(args: argparse.Namespace) -> list[Any]:
    """The Results of every run in ``args.scores``, in order (a file of several runs gives
    each of them)."""
    from ranklens.evaluation.scores_files import read_score_set

    out: list[Any] = []
    for path in getattr(args, "scores", None) or []:
        out.extend(read_score_set(path, check_all=getattr(args, "check_all", True)))
    return out


def load_run_or_scores(args: argparse.Namespace, min_runs: int, *extra_files: Any) -> list[Any]:
    """The runs to compare: the run files (paths, evaluated by the command against QRELS)
    then the runs of the score files (:class:`~ranklens.Results`); the inputs checked as
    :func:`~ranklens.cli._options.resolve_inputs` checks them, QRELS optional when every run
    is given as scores.

    Raises
    ------
    OptionError
        Too few runs, run files without QRELS, ``--example`` with score files.
    """
    from ranklens.base.errors import OptionError

    if not getattr(args, "scores", None):
        _options.resolve_inputs(args, min_runs, *extra_files)
        return list(args.runs)
    if getattr(args, "example", False):
        raise OptionError("--example takes no score files: it uses the bundled runs")
    if args.runs and args.qrels is None:
        raise OptionError("run files are evaluated against QRELS: give the qrels first")
    scores = read_score_files(args)
    total = len(args.runs) + len(scores)
    if total < min_runs:
        raise OptionError(f"give at least {min_runs} runs (run files or score files), not {total}")
    _options.check_stdin_and_depth(args, *extra_files)
    return [*args.runs, *scores]


def measures_for(args: argparse.Namespace, entries: list[Any], defaults: Any) -> list[str]:
    """The measures to compare: those of ``-m``; without ``-m``, when runs are given as
    scores, the measures the score files hold (every scored run has them; with run files
    too, those ranklens can compute), in the first file's order; else ``defaults``.

    ``num_q`` (1 for every topic) and run-level values (no per-topic values) are left
    out: they are no per-topic scores to compare.

    Raises
    ------
    OptionError
        Without ``-m``, the score files share no measure (or none ranklens computes for
        the run files).
    """
    from ranklens.base.errors import OptionError
    from ranklens.evaluation.results import Results

    given = _options.measure_names(args.measures, ())
    if given:
        return list(given)
    scored = [e for e in entries if isinstance(e, Results)]
    if not getattr(args, "scores", None) or not scored:
        return list(defaults)
    from ranklens.evaluation.score_measures import is_external
    from ranklens.measures.base import is_run_level

    shared = set.intersection(*(set(r.names) for r in scored))
    chosen = [
        m
        for m in scored[0].measures
        if m.name in shared
        and m.name != "NumQ"
        and not is_run_level(m)
        and not (len(scored) < len(entries) and is_external(m))
    ]
    if not chosen:
        held = "; ".join(f"{r.run}: {', '.join(r.names)}" for r in scored[:3])
        runs = " and the run files" if len(scored) < len(entries) else ""
        raise OptionError(
            f"the score files{runs} share no measure to compare ({held}): name the measures with -m"
        )
    return [m.name for m in chosen]


def conventions(args: argparse.Namespace) -> dict[str, Any]:
    """The conventions a command evaluated with, for MLflow's params."""
    return {name: getattr(args, name) for name in _options.CONVENTIONS if hasattr(args, name)}


def log_to_mlflow(args: argparse.Namespace, computed: Any) -> None:
    """With ``--mlflow``: log ``computed`` (Results, several, or a Comparison) to MLflow —
    a new run (named ``--mlflow-run-name``) of the experiment ``--mlflow-experiment``, at
    the tracking server of ``MLFLOW_TRACKING_URI`` — and say where on stderr (unless
    ``--quiet``). MLflow's own messages ("View run ...") go to stderr, never into the
    output on stdout (and nowhere with ``--quiet``); MLflow's failures are one line naming
    the tracking URI (:func:`mlflow_session`)."""
    if not getattr(args, "mlflow", False):
        return
    import sys

    from ranklens.analysis.comparison import Comparison
    from ranklens.presentation import mlflow_logging

    quiet = bool(getattr(args, "quiet", False))
    experiment = getattr(args, "mlflow_experiment", None)
    with mlflow_session(quiet) as (mlflow, uri):
        run_id = None
        started = False
        if mlflow.active_run() is None:
            if experiment is not None:
                mlflow.set_experiment(experiment)
            run_name = getattr(args, "mlflow_run_name", None)
            run_id = mlflow.start_run(run_name=run_name).info.run_id
            started = True
        try:
            if isinstance(computed, Comparison):
                logged = mlflow_logging.log_comparison(
                    computed, run_id=run_id, conventions=conventions(args)
                )
            else:
                logged = mlflow_logging.log_results(
                    computed, run_id=run_id, conventions=conventions(args)
                )
        finally:
            if started:
                mlflow.end_run()
    if not quiet:
        sys.stderr.write(f"ranklens: logged to MLflow run {logged} ({uri})\n")


def check_mlflow_options(args: argparse.Namespace) -> None:
    """Before the work: ``--mlflow-experiment`` or ``--mlflow-run-name`` without
    ``--mlflow`` is refused (they would be ignored), and with ``--mlflow`` the tracking
    store must answer and accept (a server that is down, a store MLflow refuses: one line,
    before anything is computed; :func:`mlflow_session`)."""
    from ranklens.base.errors import OptionError

    if getattr(args, "mlflow", False):
        with mlflow_session(quiet=True) as (mlflow, _):
            mlflow.MlflowClient().search_experiments(max_results=1)
        return
    for option in ("mlflow_experiment", "mlflow_run_name"):
        if getattr(args, option, None) is not None:
            spelled = "--" + option.replace("_", "-")
            raise OptionError(
                f"{spelled} names what --mlflow logs, and nothing is logged without it: "
                "give --mlflow too"
            )


MLFLOW_RETRIES = "2"
MLFLOW_TIMEOUT = "30"
"""The command line's bounds on MLflow's HTTP requests (``MLFLOW_HTTP_REQUEST_MAX_RETRIES``
and ``MLFLOW_HTTP_REQUEST_TIMEOUT``, seconds) unless the environment sets them: MLflow's
own (7 retries with backoff, 120 s each) keep a command waiting minutes on a server that
is down."""


@contextlib.contextmanager
def mlflow_session(quiet: bool) -> Iterator[tuple[Any, str]]:
    """MLflow and its tracking URI, for the calls of one command: the server checked to be
    reachable first (an ``http(s)`` URI), its requests' retries and timeout bounded
    (:data:`MLFLOW_RETRIES`, :data:`MLFLOW_TIMEOUT`), what MLflow prints sent to stderr
    (nowhere when ``quiet``), and an error of MLflow's one line naming the URI
    (:class:`~ranklens.base.errors.InputError`)."""
    import io
    import os
    import sys

    from ranklens.base.errors import InputError, RanklensError
    from ranklens.presentation import mlflow_logging

    mlflow = mlflow_logging.mlflow_module()
    uri = str(mlflow.get_tracking_uri())
    check_reachable(uri)
    bounds = {"MLFLOW_HTTP_REQUEST_MAX_RETRIES": MLFLOW_RETRIES}
    bounds["MLFLOW_HTTP_REQUEST_TIMEOUT"] = MLFLOW_TIMEOUT
    unset = [name for name in bounds if name not in os.environ]
    os.environ.update({name: bounds[name] for name in unset})
    try:
        with contextlib.redirect_stdout(io.StringIO() if quiet else sys.stderr):
            yield mlflow, uri
    except RanklensError:
        raise
    except Exception as exc:
        if not _is_mlflows(exc):
            raise
        text = " ".join(str(exc).split()) or type(exc).__name__
        raise InputError(f"MLflow could not log to {uri}: {text}") from None
    finally:
        for name in unset:
            os.environ.pop(name, None)


def _is_mlflows(exc: BaseException) -> bool:
    """Whether ``exc`` comes from MLflow or the HTTP client under it."""
    module = type(exc).__module__
    return module.split(".")[0] in ("mlflow", "requests", "urllib3")


def check_reachable(uri: str, timeout: float = 5.0) -> None:
    """Refuse, in one line, an ``http(s)`` tracking URI where nothing answers (a server
    that is down, a wrong port), before MLflow retries for minutes."""
    from urllib.parse import urlsplit

    from ranklens.base.errors import InputError

    parts = urlsplit(uri)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return
    import socket

    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        with socket.create_connection((parts.hostname, port), timeout=timeout):
            pass
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise InputError(
            f"cannot reach the MLflow tracking server at {uri} ({reason}): start it, or "
            "set MLFLOW_TRACKING_URI to one that runs"
        ) from None


def results_for(args: argparse.Namespace, entries: list[Any], measures: list[str]) -> list[Any]:
    """The Results of ``entries`` (run files evaluated against ``args.qrels``, score files'
    runs as read), every one on the topics ``--queries`` keeps, named by ``--name`` or their
    own names: what ``compare`` compares (:mod:`ranklens.analysis.comparison_scores`)."""
    from ranklens.analysis.comparison_scores import prepare

    options = {k: getattr(args, k) for k in ("ties", "depth", "duplicates") if hasattr(args, k)}
    names = getattr(args, "names", None)
    results, _, _ = prepare(
        args.qrels, entries, names, measures, getattr(args, "queries", "qrels"), options
    )
    return results


def write_scores_report(args: argparse.Namespace, entries: list[Any], measures: list[str]) -> None:
    """``ranklens report`` of runs given (some or all) as scores: the summary with the
    significance tables, the runs' ir_metadata, the per-topic distributions and the
    per-query table (no worked computations: scores carry no rankings)."""
    from ranklens.base.errors import OptionError
    from ranklens.data.output import check_destination, write_atomically
    from ranklens.presentation.reporting import build_scores_report

    refused = [o for o in ("qrels_b", "popularity", "train", "item_features") if getattr(args, o)]
    if refused:
        raise OptionError(
            f"--{refused[0].replace('_', '-')} needs runs evaluated here, not --scores"
        )
    inputs = [args.qrels, *args.runs, *args.scores, args.groups]
    check_destination(args.output, inputs, args.force)
    comparison = None
    if len(entries) > 1:
        from ranklens.analysis.comparison import compare

        comparison = compare(
            args.qrels,
            entries,
            measures,
            names=args.names,
            **_options.chosen(
                args,
                _options.STATISTICS + _options.CONVENTIONS + _options.LEADERBOARD_STATISTICS,
            ),
        )
        results = list(comparison.results)
    else:
        results = entries  # one run's scores, as read
    html = build_scores_report(results, comparison, title=args.title, plots=not args.no_plots)
    write_atomically(args.output, html, inputs=inputs, force=args.force)


def leaderboard_sets(args: argparse.Namespace) -> tuple[Any, Any]:
    """The two ResultSets of ``ranklens leaderboard --scores-a ... --scores-b ...``: the
    same runs under two sets of judgments (a reference leaderboard and, say, an LLM
    judge's), each with the measures of ``-m`` (default: the measures both have)."""
    from ranklens.analysis.comparison_scores import select_measures
    from ranklens.base.errors import OptionError
    from ranklens.evaluation.result_set import ResultSet
    from ranklens.evaluation.score_measures import measure_named
    from ranklens.evaluation.scores_files import read_score_set

    if not args.scores_a or not args.scores_b:
        raise OptionError("give both --scores-a and --scores-b (the two leaderboards)")
    if args.qrels_a or args.qrels_b or args.runs:
        raise OptionError("give either qrels and runs, or --scores-a and --scores-b")
    check = getattr(args, "check_all", True)
    sets = [read_score_set(list(f), check_all=check) for f in (args.scores_a, args.scores_b)]
    if args.measures:
        chosen = [measure_named(n) for n in _options.measure_names(args.measures, ())]
    else:
        names_b = set(sets[1].names)
        chosen = [m for m in sets[0][0].measures if m.name in names_b]
        if not chosen:
            raise OptionError(
                f"the two leaderboards share no measure ({', '.join(sets[0].names)}; "
                f"{', '.join(sets[1].names)}); give the same names, or -m"
            )
    picked = [ResultSet(tuple(select_measures(r, chosen) for r in s)) for s in sets]
    return picked[0], picked[1]
