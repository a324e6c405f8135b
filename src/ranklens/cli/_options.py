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
TEST_ALIASES = {"paired-t": "t"}
"""Other spellings ``--test`` takes for a test of :data:`TESTS` (``topics`` spelled the
paired t-test ``paired-t``)."""

FORMATS: dict[str, str] = {
    "table": "aligned text (boxes on a terminal)",
    "csv": "comma-separated rows under a header row",
    "tsv": "tab-separated rows under a header row",
    "json": "one JSON object",
    "jsonl": "one JSON object per line",
    "trec": "trec_eval's lines",
    "markdown": "a Markdown table or page",
    "latex": "a LaTeX table",
    "html": "an HTML page",
    "reference": "the measure's reference page (Markdown)",
    "png": "a PNG image",
    "svg": "an SVG image",
    "pdf": "a PDF document",
}
"""The one ``-f/--format`` vocabulary: each name means one kind of output in every
command. A command offers the names that fit what it writes: every command that prints a
table of results offers :data:`TABLE_FORMATS` (``table`` the default), plus those of its
own kind (``trec``, ``jsonl``, ``markdown``, ...); ``plot`` writes images."""

TABLE_FORMATS = ("table", "csv", "tsv", "json")
"""The formats of every command whose output is a table of results."""

FORMAT_ALIASES = {"text": "table"}
"""Other spellings of a format (``explain`` called its table ``text``)."""
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


def add_example(
    p: argparse.ArgumentParser,
    what: str,
    defaults: dict[str, Any] | None = None,
    *,
    needed: tuple[str, ...] = (),
    help_text: str | None = None,
) -> None:
    """``--example``: the bundled TREC DL 2019 qrels and two runs (``help_text`` instead of
    the sentence built from ``what``).

    ``defaults`` (by ``dest``) are the values ``--example`` takes for the options the user
    did not give, so that ``COMMAND --example`` alone runs (:func:`example_defaults`; the
    options must be declared before); ``needed`` names those of them that are required
    without ``--example`` (declared optional to argparse, checked by
    :func:`apply_example_defaults`)."""
    given = example_defaults(p, defaults or {}, needed=needed)
    p.add_argument(
        "--example",
        action="store_true",
        help=(
            help_text
            or f"{what} the bundled example (TREC DL 2019 passage qrels, runs bm25 and rerank)"
        )
        + given,
    )


def option_spellings(p: argparse.ArgumentParser) -> dict[str, str]:
    """The command line's spelling of each keyword argument the command passes on (an
    option's ``dest``): its first long option (``permutations`` -> ``--resamples``; the
    NIST tools' single-dash flags are their tools' and keep their messages), plus those
    recorded by :func:`python_names`."""
    spellings = {
        a.dest: next(o for o in a.option_strings if o.startswith("--"))
        for a in p._actions
        if any(o.startswith("--") for o in a.option_strings)
        and a.dest not in ("help", "plugin_after")
    }
    spellings.update(p.get_default("python_names") or {})
    return spellings


def python_names(p: argparse.ArgumentParser, **names: str) -> None:
    """Record the option that stands for a Python keyword argument whose name differs from
    the option's ``dest`` (``python_names(p, test_fraction="--holdout")``), so that an error
    naming the argument names the option on the command line (:func:`in_cli_words`)."""
    p.set_defaults(python_names={**(p.get_default("python_names") or {}), **names})


REQUIREMENTS = "must|needs|is|has|goes|takes|applies|cannot"
"""The verbs after a parameter's name that make a message name the parameter
(:func:`in_cli_words`)."""


def in_cli_words(message: str, p: argparse.ArgumentParser) -> str:
    """An error ``message`` of the Python layers in the command line's words: a keyword
    argument the message names (``depth=K (--depth K)``, ``permutations must be ...``,
    ``test_fraction must ...``) becomes the command's option (:func:`option_spellings`).

    Only the forms that name a parameter are rewritten: ``NAME=VALUE (--option VALUE)``,
    ``NAME=VALUE``, and ``NAME`` opening a requirement (``NAME must``, ``needs``, ``is``,
    ``has``, ``goes``, ``takes``, ``applies``, ``cannot``) at the start of the message or
    of a clause, not after a word such as ``the``.
    """
    import re

    for name, option in sorted(option_spellings(p).items(), key=lambda kv: -len(kv[0])):
        word = re.escape(name)
        message = re.sub(rf"(?<![\w.-]){word}=\S+ \((--[\w-]+[^)]*)\)", r"\1", message)
        message = re.sub(rf"(?<![\w.-]){word}=(?=[\w'\"(\[{{])", f"{option} ", message)
        message = re.sub(
            rf"(?:(?<=^)|(?<=[:;,(] )|(?<=give ))\b{word}\b(?= (?:{REQUIREMENTS}) )",
            option,
            message,
        )
    return message


def add_nist_example(p: argparse.ArgumentParser, tool: str) -> None:
    """``--example`` of a NIST tool's reproduction: the bundled qrels and bm25 run in the
    tool's input format (:func:`ranklens.data.examples.nist_example`)."""
    p.add_argument(
        "--example",
        action="store_true",
        help=f"evaluate the bundled example (TREC DL 2019 passage qrels, run bm25) in {tool}'s "
        "input format",
    )


def nist_inputs(args: argparse.Namespace, tool: str) -> tuple[Any, Any]:
    """The qrels and run of a NIST tool's reproduction: the files given, or ``--example``'s
    (:func:`add_nist_example`)."""
    from ranklens.base.errors import OptionError

    if args.example:
        if args.qrels is not None:
            raise OptionError("--example takes no files: it uses the bundled example data")
        from ranklens.data.examples import nist_example

        return nist_example(tool)
    if args.qrels is None or args.run is None:
        raise OptionError("give a qrels file and a run file (or --example)")
    return args.qrels, args.run


def example_defaults(
    p: argparse.ArgumentParser,
    defaults: dict[str, Any],
    *,
    needed: tuple[str, ...] = (),
    unless: tuple[str, ...] = (),
) -> str:
    """Record the values ``--example`` gives the options (by ``dest``) left unset, and
    which of them are required otherwise; returns the words for ``--example``'s help
    ("; unless given: --depth 10"), added to that help where ``--example`` is declared
    already. ``unless``: options (by ``dest``) whose value, given, stands in for the
    defaults (``--scale`` instead of ``--thresholds``): none is filled in then."""
    spellings = {
        a.dest: max(a.option_strings, key=len)
        if a.option_strings
        else str(a.metavar or a.dest.upper())
        for a in p._actions
    }
    p.set_defaults(
        example_defaults=dict(defaults),
        example_unless=tuple(unless),
        example_needed={dest: spellings.get(dest, dest) for dest in needed},
    )
    if not defaults:
        return ""
    shown = [
        f"{spellings.get(dest, dest)} {','.join(map(str, v)) if isinstance(v, list) else v}"
        for dest, v in defaults.items()
    ]
    words = "; unless given: " + ", ".join(shown).replace("%", "%%")
    declared = next((a for a in p._actions if "--example" in a.option_strings), None)
    if declared is not None:  # --example declared before: its help says it
        declared.help = f"{declared.help}{words}"
    return words


def apply_example_defaults(args: argparse.Namespace) -> None:
    """Fill in the ``--example`` defaults of :func:`example_defaults` (the options the user
    left unset), or, without ``--example``, refuse a needed option that is missing."""
    from ranklens.base.errors import OptionError

    defaults: dict[str, Any] = getattr(args, "example_defaults", None) or {}
    needed: dict[str, str] = getattr(args, "example_needed", None) or {}
    example = bool(getattr(args, "example", False))
    unless: tuple[str, ...] = getattr(args, "example_unless", None) or ()
    if any(getattr(args, dest, None) is not None for dest in unless):
        defaults = {}
    for dest, value in defaults.items():
        if example and getattr(args, dest, None) is None:
            setattr(args, dest, list(value) if isinstance(value, list) else value)
    for dest, spelling in needed.items():
        if getattr(args, dest, None) is None:
            raise OptionError(f"give {spelling} (or --example)")


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


def add_output(
    p: argparse.ArgumentParser, what: str, *, required: bool = False, default: str = "stdout"
) -> None:
    """``-o/--output FILE`` (``default``, stdout, unless ``required``: then no default, and
    the command refuses its absence unless ``--example`` names a file) and ``--force``."""
    p.add_argument(
        "-o",
        "--output",
        default=None if required else "-",
        metavar="FILE",
        help=f"write {what} to FILE" + ("" if required else f" (default: {default})"),
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
        type=test_name,
        choices=TESTS,
        default="t",
        help="paired test: t (default; also paired-t), wilcoxon (signed-rank), sign, "
        "randomization (sign flips), bootstrap (studentized shift method)",
    )
    add_levels(
        p,
        "the comparisons of each measure",
        "t-interval for --test t, percentile bootstrap otherwise",
    )
    add_resamples(
        p,
        10_000,
        "random permutations of the randomization test, and bootstrap resamples",
        dest="permutations",
    )
    p.add_argument("--seed", type=int, default=42, help="seed of the random draws (42)")
    p.add_argument(
        "--all-pairs",
        action="store_true",
        help="compare every pair of runs (the correction covers all pairs), and add Tukey's HSD",
    )


def test_name(text: str) -> str:
    """``--test``'s value: a name of :data:`TESTS` or of its aliases (:data:`TEST_ALIASES`),
    as the name of :data:`TESTS`."""
    return TEST_ALIASES.get(text, text)


def format_name(text: str) -> str:
    """``-f``'s value, an alias (:data:`FORMAT_ALIASES`) read as its format."""
    return FORMAT_ALIASES.get(text, text)


def add_format(
    p: argparse.ArgumentParser,
    choices: tuple[str, ...] = TABLE_FORMATS,
    *,
    default: str | None = "table",
    help_text: str = "output format",
) -> None:
    """``-f/--format``: names of the one vocabulary (:data:`FORMATS`), table by default."""
    unknown = [name for name in choices if name not in FORMATS]
    if unknown:
        raise ValueError(f"formats outside the vocabulary of _options.FORMATS: {unknown}")
    shown = f" (default: {default})" if default else ""
    p.add_argument(
        "-f",
        "--format",
        type=format_name,
        choices=choices,
        default=default,
        help=f"{help_text}: {', '.join(choices)}{shown}",
    )


def csv_writer(out: IO[str], fmt: str) -> Any:
    """A :func:`csv.writer` on ``out`` for ``-f csv`` (commas) or ``-f tsv`` (tabs)."""
    import csv

    return csv.writer(out, delimiter="\t" if fmt == "tsv" else ",", lineterminator="\n")


def as_delimited(csv_text: str, fmt: str) -> str:
    """``csv_text`` (CSV rows) as ``-f fmt`` writes them: unchanged for csv, tab-separated
    for tsv."""
    if fmt != "tsv":
        return csv_text
    import csv

    out = io.StringIO()
    csv_writer(out, fmt).writerows(csv.reader(io.StringIO(csv_text)))
    return out.getvalue()


RESAMPLES = ("--resamples", "--permutations", "--bootstrap")
"""``--resamples B``, the number of random draws (permutations, bootstrap resamples); the
other spellings are aliases of earlier versions."""


def add_resamples(
    p: argparse.ArgumentParser, default: int, what: str, dest: str = "resamples"
) -> None:
    """``--resamples B`` (aliases ``--permutations``, ``--bootstrap``): the random draws,
    as the keyword argument ``dest`` of the Python function the command calls."""
    p.add_argument(
        *RESAMPLES,
        type=int,
        default=default,
        dest=dest,
        metavar="B",
        help=f"{what} ({default}; also spelled --permutations or --bootstrap)",
    )


SECOND_QRELS = "--qrels-b"
"""The spelling of a second set of judgments given as an option (``QRELS_B`` where it is
a positional argument)."""


def add_second_qrels(p: argparse.ArgumentParser, help_text: str, *aliases: str) -> None:
    """``--qrels-b FILE`` (and the ``aliases`` of earlier versions): a second set of
    judgments."""
    p.add_argument(
        SECOND_QRELS,
        *aliases,
        dest="qrels_b",
        metavar="FILE",
        help=help_text + (f" (also spelled {', '.join(aliases)})" if aliases else ""),
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


def add_levels(p: argparse.ArgumentParser, corrected_over: str, intervals: str) -> None:
    """``--correction`` (over ``corrected_over``), ``--alpha`` and ``--confidence`` (of the
    ``intervals``)."""
    p.add_argument(
        "--correction",
        choices=CORRECTIONS,
        default="holm",
        help=f"correction over {corrected_over}: holm (default), bonferroni, "
        "bh (Benjamini-Hochberg), none",
    )
    p.add_argument("--alpha", type=float, default=0.05, help="significance level (0.05)")
    p.add_argument(
        "--confidence",
        type=float,
        default=0.95,
        help=f"level of the confidence intervals (0.95): {intervals}",
    )


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
    """The measures of repeated ``-m`` options, each split as Python splits a string of
    measures (:func:`ranklens.measures.language.split_measure_names`: commas or whitespace
    outside parentheses and braces; a comma before a digit continues a trec_eval parameter
    list; ``NDCG@ 10`` is one measure); ``default`` when none was given.

    >>> measure_names(["nDCG@10,AP", "P.5,10 RBP(p=0.8,gain='graded')"], ())
    ['nDCG@10', 'AP', 'P.5,10', "RBP(p=0.8,gain='graded')"]
    """
    if not values:
        return list(default)
    from ranklens.measures.language import split_measure_names

    names: list[str] = []
    for value in values:
        names.extend(split_measure_names(value))
    return names


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
