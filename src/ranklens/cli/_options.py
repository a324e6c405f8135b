"""The command line's one option vocabulary, declared once.

Every command that takes these things takes them with these spellings (checked for every
command by ``tests/test_cli_vocabulary.py``):

=====================  ==================================================================
``QRELS RUN ...``      positional, judgments first (:func:`add_files`)
``-m/--measure``       repeatable; spaces or commas between measures (:func:`add_measures`)
``--example``          the bundled example data instead of files (:func:`add_example`)
``--ties``             :data:`TIES`, the same choices everywhere (:func:`add_conventions`)
``--queries``          :data:`QUERY_POLICIES` (:func:`add_conventions`)
``--name``             a name per run, repeatable (:func:`add_names`)
``-f/--format``        the output format
``-o/--output``        write to a file instead of stdout, ``--force`` to replace one
                       (:func:`add_output`)
``--quiet``            nothing on stderr but warnings and errors (:func:`add_quiet`)
``--plugin``           before or after the command (added to every command)
=====================  ==================================================================

and one default measure set per kind of data: :data:`DEFAULT_MEASURES` (ad hoc retrieval)
and :data:`RECOMMENDER_MEASURES`.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
from collections.abc import Callable, Iterator
from typing import IO, Any

TIES = ("trec_eval", "input", "docid_asc", "rank")
QUERY_POLICIES = ("qrels", "both", "run")
DUPLICATES = ("error", "first", "max")
TESTS = ("t", "wilcoxon", "sign", "randomization", "bootstrap")
CORRECTIONS = ("holm", "bonferroni", "bh", "none")

DEFAULT_MEASURES = ("AP", "nDCG", "nDCG@10", "P@10", "R@100", "RR")
"""The measures of every command that evaluates runs when no ``-m`` is given (ad hoc
retrieval): trec_eval's map, ndcg, ndcg_cut.10, P.10, recall.100 and recip_rank."""

RECOMMENDER_MEASURES = ("nDCG@10", "P@10", "R@10", "RR@10", "Coverage@10", "ARP@10")
"""The recommender set, named in the docs (``-m`` with these names); not a default."""


def add_plugin(p: argparse.ArgumentParser, dest: str) -> None:
    """``--plugin MODULE``: taken before the command (``dest='plugin'``) and after it
    (``dest='plugin_after'``, added to every command)."""
    p.add_argument(
        "--plugin",
        action="append",
        default=[],
        dest=dest,
        metavar="MODULE",
        help="import MODULE first: a module name or a .py file that defines measures with "
        "ranklens.define_measure (repeatable; before or after the command)",
    )


def add_files(p: argparse.ArgumentParser, runs_help: str) -> None:
    """``QRELS RUN ...`` (both optional so that ``--example`` can stand for them)."""
    p.add_argument(
        "qrels",
        nargs="?",
        metavar="QRELS",
        help="qrels file (TREC format, .gz/.bz2/.xz, - for stdin; or .parquet, .jsonl, .csv)",
    )
    p.add_argument("runs", nargs="*", metavar="RUN", help=runs_help)


def add_measures(p: argparse.ArgumentParser, default: tuple[str, ...]) -> None:
    """Repeatable ``-m/--measure``."""
    p.add_argument(
        "-m",
        "--measure",
        action="append",
        dest="measures",
        metavar="MEASURE",
        help=f"measures: repeat -m, or give several separated by commas or spaces "
        f"(-m nDCG@10,AP); default: {','.join(default)}",
    )


def add_example(p: argparse.ArgumentParser, what: str) -> None:
    """``--example``: the bundled TREC DL 2019 qrels and two runs."""
    p.add_argument(
        "--example",
        action="store_true",
        help=f"{what} the bundled example (TREC DL 2019 passage qrels, runs bm25 and rerank)",
    )


def add_names(p: argparse.ArgumentParser) -> None:
    """``--name NAME`` once per run, in order."""
    p.add_argument(
        "--name",
        action="append",
        dest="names",
        metavar="NAME",
        help="a name for each run, in order (repeat once per run; default: the run tag, or "
        "the file name's stem when runs share a tag or have none)",
    )


def given_names(args: argparse.Namespace, count: int) -> list[str | None]:
    """The ``--name`` values, one per run (``None`` where not given); refuses a count that
    differs from the runs'."""
    names = getattr(args, "names", None)
    if names is None:
        return [None] * count
    if len(names) != count:
        from ranklens.base.errors import OptionError

        raise OptionError(f"--name given {len(names)} times for {count} runs (once per run)")
    return list(names)


def add_output(p: argparse.ArgumentParser, what: str, *, required: bool = False) -> None:
    """``-o/--output FILE`` (stdout by default unless ``required``) and ``--force``."""
    p.add_argument(
        "-o",
        "--output",
        required=required,
        default=None if required else "-",
        metavar="FILE",
        help=f"write {what} to FILE" + ("" if required else " (default: stdout)"),
    )
    p.add_argument(
        "--force", action="store_true", help="overwrite FILE if it exists (never an input file)"
    )


def check_output(args: argparse.Namespace, inputs: list[Any] | tuple[Any, ...] = ()) -> None:
    """Refuse ``-o FILE`` before the work (see :func:`output_stream`)."""
    target = getattr(args, "output", "-")
    if target not in (None, "-"):
        from ranklens.data.output import check_destination

        named = [p for p in inputs if isinstance(p, str) and p != "-"]
        check_destination(target, named, args.force)


@contextlib.contextmanager
def output_stream(
    args: argparse.Namespace, inputs: list[Any] | tuple[Any, ...] = ()
) -> Iterator[IO[str]]:
    """Where a command writes: stdout, or the file of ``-o`` (checked before the work:
    never one of ``inputs``, an existing file only with ``--force``; written whole at the
    end, atomically, so a failure leaves nothing half-written)."""
    target = getattr(args, "output", "-")
    if target in (None, "-"):
        yield sys.stdout
        return
    from ranklens.data.output import check_destination, write_atomically

    named = [p for p in inputs if isinstance(p, str) and p != "-"]
    check_destination(target, named, args.force)
    buffer = io.StringIO()
    yield buffer
    write_atomically(target, buffer.getvalue(), inputs=named, force=args.force)


def add_quiet(p: argparse.ArgumentParser, what: str | None = None) -> None:
    """``--quiet``: nothing on stderr but warnings and errors; every subcommand takes it, so
    that scripts can pass it to any (``what`` says what it silences, if anything)."""
    silences = f" ({what})" if what else " (this command prints nothing else there)"
    p.add_argument(
        "--quiet", action="store_true", help=f"nothing on stderr but warnings and errors{silences}"
    )


def resolve_one_run(args: argparse.Namespace) -> None:
    """Fill in ``args.qrels`` and ``args.run`` for ``--example`` (the bundled qrels and the
    bm25 run) and check that both files are given and at most one is ``-`` (stdin)."""
    from ranklens.base.errors import OptionError

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


def add_ties(p: argparse.ArgumentParser) -> None:
    """``--ties``: how equal scores are ordered (:data:`TIES`, the same everywhere)."""
    p.add_argument(
        "--ties",
        choices=TIES,
        default="trec_eval",
        help="order of equal scores: docid descending as trec_eval (default), input order, "
        "or docid ascending; 'rank': by the run's rank column instead of scores (as ndeval)",
    )


def add_conventions(
    p: argparse.ArgumentParser, duplicates: bool = True, queries: bool = True
) -> None:
    """``--ties``, ``--queries`` (unless the command decides the queries itself),
    ``--depth`` (and ``--duplicates``)."""
    add_ties(p)
    if queries:
        p.add_argument(
            "--queries",
            choices=QUERY_POLICIES,
            default="qrels",
            help="which queries count: the qrels' (default; missing from a run = 0), those in "
            "both, or the run's",
        )
    p.add_argument("--depth", type=int, metavar="N", help="only the top N documents per query")
    if duplicates:
        p.add_argument(
            "--duplicates",
            choices=DUPLICATES,
            default="error",
            help="a repeated (query, document) pair: an error (default), or keep the first/max",
        )


def add_stream(p: argparse.ArgumentParser) -> None:
    """``--stream``/``--no-stream``: read run files in chunks of whole queries."""
    p.add_argument(
        "--stream",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="read each run file in chunks of whole queries, in bounded memory (the run must "
        "be grouped by query); default: only files over 2 GiB or a quarter of the free memory",
    )


def add_scale(p: argparse.ArgumentParser) -> None:
    """``--stream``/``--no-stream`` and ``--dask`` (ranklens.scale)."""
    add_stream(p)
    p.add_argument(
        "--dask",
        metavar="SCHEDULER",
        help="evaluate on Dask: a scheduler address (tcp://host:8786) or 'local' for a "
        "LocalCluster; QRELS and RUN are then Parquet files or globs (pip install "
        "'ranklens[dask]')",
    )


def add_statistics(p: argparse.ArgumentParser) -> None:
    """The significance comparison: baseline, test, correction, level, draws, pairs."""
    p.add_argument("--baseline", metavar="NAME", help="the baseline run's name (default: first)")
    p.add_argument(
        "--test",
        choices=TESTS,
        default="t",
        help="paired test: t (default), wilcoxon (signed-rank), sign, randomization "
        "(sign flips), bootstrap (studentized shift method)",
    )
    p.add_argument(
        "--correction",
        choices=CORRECTIONS,
        default="holm",
        help="correction over the comparisons of each measure: holm (default), bonferroni, "
        "bh (Benjamini-Hochberg), none",
    )
    p.add_argument("--alpha", type=float, default=0.05, help="significance level (0.05)")
    p.add_argument(
        "--confidence",
        type=float,
        default=0.95,
        help="level of the confidence intervals (0.95): t-interval for --test t, percentile "
        "bootstrap otherwise",
    )
    p.add_argument(
        "--permutations",
        type=int,
        default=10_000,
        metavar="B",
        help="random permutations of the randomization test, and bootstrap resamples (10000)",
    )
    p.add_argument("--seed", type=int, default=42, help="seed of the random draws (42)")
    p.add_argument(
        "--all-pairs",
        action="store_true",
        help="compare every pair of runs (the correction covers all pairs), and add Tukey's HSD",
    )


def add_groups(p: argparse.ArgumentParser) -> None:
    """``--groups FILE``: groups of queries (slices) compared alone too."""
    p.add_argument(
        "--groups",
        metavar="FILE",
        help="compare each group of queries alone too: a two-column file (query id, group)",
    )


def add_leaderboard_statistics(p: argparse.ArgumentParser) -> None:
    """Query groups, a region of practical equivalence and the risk weight of a
    comparison (``compare``'s ``groups``, ``rope``, ``risk_alpha``)."""
    add_groups(p)
    p.add_argument(
        "--rope",
        type=float,
        metavar="R",
        help="region of practical equivalence [-R, R] of the mean difference: the posterior "
        "probability of equivalence and a verdict per comparison",
    )
    p.add_argument(
        "--risk-alpha",
        type=float,
        metavar="A",
        help="risk weight: a loss weighs 1 + A times a gain in URisk, TRisk, ZRisk and "
        "GeoRisk (default 1; shows the risk table)",
    )


LEADERBOARD_STATISTICS = ("groups", "rope", "risk_alpha")


STATISTICS = (
    "baseline",
    "test",
    "correction",
    "alpha",
    "confidence",
    "permutations",
    "seed",
    "all_pairs",
)
CONVENTIONS = ("ties", "queries", "depth", "duplicates")


def conventions(args: argparse.Namespace) -> dict[str, Any]:
    """The conventions the command took (of :data:`CONVENTIONS`), as keyword arguments."""
    return {name: getattr(args, name) for name in CONVENTIONS if hasattr(args, name)}


def add_item_data(p: argparse.ArgumentParser) -> None:
    """``--popularity``, ``--num-items`` and ``--num-users``: the side data of the
    recommender measures (:mod:`ranklens.ranking.items`)."""
    p.add_argument(
        "--popularity",
        metavar="FILE",
        help="item popularity for the recommender measures (ARP, APLT, ACLT; the catalogue "
        "of Coverage and Gini): lines 'item count' (training interactions per item), or a "
        "Parquet table with an item column and a count column or one row per interaction",
    )
    p.add_argument(
        "--num-items",
        type=int,
        metavar="N",
        help="the catalogue size for Coverage and Gini (default: the items of --popularity)",
    )
    p.add_argument(
        "--num-users",
        type=int,
        metavar="N",
        help="the number of training users for the propensity-scored measures (PSP, "
        "PSnDCG, PSR; default: the distinct users of a --popularity table of interactions)",
    )
    p.add_argument(
        "--item-features",
        metavar="FILE",
        help="item features for ILD: lines 'item v1 v2 ...' (vectors, cosine distance), "
        "lines 'item label' (label sets, one line per label; ILD(distance='jaccard')), a "
        ".csv of the same, or a Parquet table with an item column",
    )
    p.add_argument(
        "--train",
        metavar="FILE",
        help="training interactions for PopRSP: lines 'user item' (more fields ignored), a "
        ".csv, or a Parquet table with user and item columns; also the popularity when "
        "--popularity is not given",
    )


MAX_GRADE = 2**63 - 1
"""The largest ``--max-grade``: a qrels grade is a 64-bit integer."""


def max_grade(text: str) -> int:
    """``--max-grade``'s value: a whole grade from 0 to :data:`MAX_GRADE`, refused with one
    line before anything is read otherwise."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole grade >= 0, not {text!r}") from None
    if not 0 <= value <= MAX_GRADE:
        raise argparse.ArgumentTypeError(
            f"must be a grade from 0 to {MAX_GRADE} (the largest a qrels grade, a 64-bit "
            f"integer, can hold), not {text}"
        )
    return value


def add_max_grade(
    p: argparse.ArgumentParser,
    help_text: str = "with --bounds: the highest grade an unjudged document may get "
    "(default: the qrels' highest grade)",
) -> None:
    """``--max-grade``: the highest grade an unjudged document may get (under ``--bounds``,
    or for ``judge-next``)."""
    p.add_argument("--max-grade", type=max_grade, metavar="G", help=help_text)


def chosen(args: argparse.Namespace, names: tuple[str, ...]) -> dict[str, Any]:
    """The values of the options ``names`` (e.g. :data:`STATISTICS`, :data:`CONVENTIONS`)
    as keyword arguments of the Python API."""
    return {name: getattr(args, name) for name in names}


def resolve_inputs(args: argparse.Namespace, min_runs: int, *extra_files: Any) -> None:
    """Fill in the files for ``--example`` and check the inputs: at least ``min_runs`` runs,
    at most one ``-`` (stdin) among the files, a positive ``--depth``."""
    from ranklens.base.errors import OptionError

    if args.example:
        from ranklens.data.examples import example_paths

        if args.qrels is not None:
            raise OptionError("--example takes no files: it uses the bundled example data")
        qrels_path, run_paths = example_paths()
        args.qrels, args.runs = str(qrels_path), [str(p) for p in run_paths]
    if args.qrels is None or len(args.runs) < min_runs:
        runs = "at least one run" if min_runs == 1 else f"at least {min_runs} runs"
        raise OptionError(f"give a qrels file and {runs} (or --example)")
    check_stdin_and_depth(args, *extra_files)


def check_stdin_and_depth(args: argparse.Namespace, *extra_files: Any) -> None:
    """At most one ``-`` (stdin) among the qrels, the runs and ``extra_files``; a positive
    ``--depth`` where the command has one."""
    from ranklens.base.errors import OptionError

    if sum(1 for p in [args.qrels, *args.runs, *extra_files] if p == "-") > 1:
        raise OptionError("only one of the files can be '-' (stdin)")
    depth = getattr(args, "depth", None)
    if depth is not None and depth < 1:
        raise OptionError(f"--depth must be a positive number, not {depth}")


def measure_names(values: list[str] | None, default: tuple[str, ...]) -> list[str]:
    """The measures of repeated ``-m`` options, each split on whitespace and commas outside
    parentheses and braces; ``default`` when none was given.

    A comma followed by a digit continues a trec_eval parameter list (``P.5,10``,
    ``ndcg_cut.10,20``) rather than starting a measure (no measure name starts with one):

    >>> measure_names(["nDCG@10,AP", "P.5,10 RBP(p=0.8,gain='graded')"], ())
    ['nDCG@10', 'AP', 'P.5,10', "RBP(p=0.8,gain='graded')"]
    """
    if not values:
        return list(default)
    names: list[str] = []
    for value in values:
        names.extend(_split_measures(value))
    return names


def _split_measures(value: str) -> list[str]:
    out: list[str] = []
    current: list[str] = []
    depth = 0
    for i, ch in enumerate(value):
        depth += ch in "({"
        depth -= ch in ")}"
        ends = ch.isspace() or (ch == "," and not value[i + 1 : i + 2].isdigit())
        if ends and depth == 0:
            if current:
                out.append("".join(current))
                current = []
        else:
            current.append(ch)
    if current:
        out.append("".join(current))
    return out


def looks_like_qrels(path: str) -> bool:
    """Whether the TREC text file ``path`` (plain, .gz, .bz2 or .xz) starts like qrels: its
    first line that is not blank or a ``#`` comment has four fields, the last a whole
    number (a run line has six). Anything else, or a file that cannot be read, is not."""
    import bz2
    import gzip
    import lzma

    if path == "-":
        return False
    openers: dict[str, Callable[..., Any]] = {
        ".gz": gzip.open,
        ".bz2": bz2.open,
        ".xz": lzma.open,
    }
    opener: Callable[..., Any] = next(
        (o for suffix, o in openers.items() if path.endswith(suffix)), open
    )
    try:
        with opener(path, "rb") as handle:
            head = handle.read(1 << 16)
    except (OSError, EOFError, ValueError, lzma.LZMAError):
        return False
    for raw in head.splitlines():
        line = raw.strip()
        if not line or line.startswith(b"#"):
            continue
        fields = line.split()
        return len(fields) == 4 and fields[3].lstrip(b"-").isdigit()
    return False


def add_mlflow(p: argparse.ArgumentParser) -> None:
    """``--mlflow``, ``--mlflow-experiment NAME`` and ``--mlflow-run-name NAME``: log what
    the command computed to MLflow (``ranklens.cli._inputs.log_to_mlflow``)."""
    p.add_argument(
        "--mlflow",
        action="store_true",
        help="also log the results to MLflow: a new run at MLFLOW_TRACKING_URI (aggregates "
        "as metrics, measures and conventions as params, the per-query table and the HTML "
        "report as artifacts; pip install 'ranklens[mlflow]'; docs/mlflow.md)",
    )
    p.add_argument(
        "--mlflow-experiment", metavar="NAME", help="the MLflow experiment (default: MLflow's)"
    )
    p.add_argument("--mlflow-run-name", metavar="NAME", help="the MLflow run's name")
