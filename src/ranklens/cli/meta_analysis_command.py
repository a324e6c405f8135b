"""``ranklens meta-analysis QRELS RUN ... [QRELS RUN ...] -m MEASURE``: each run's gain
over the baseline pooled across collections, random effects (see
:func:`ranklens.meta_analysis`).

The files are read in order; each qrels file (TREC text whose first line has four fields)
starts a collection, and the run files after it are its runs. ``--scores FILE ...`` (once
per collection) gives a collection as per-topic score files instead.
"""

from __future__ import annotations

import argparse
import json
import os
from typing import Any

from ranklens.cli import _inputs, _options

DEFAULT_MEASURES = _options.DEFAULT_MEASURES
FORMATS = (*_options.TABLE_FORMATS, "html")


def register(commands: Any) -> None:
    """Add the ``meta-analysis`` subcommand."""
    p = commands.add_parser(
        "meta-analysis",
        help="does a gain hold across collections: random-effects meta-analysis, forest plot",
        description=(
            "Does a gain hold across collections? In each collection every run is compared "
            "with the baseline as 'ranklens compare' pairs them (the mean per-query "
            "difference and its variance s^2/n, or the standardised mean difference with "
            "--effect); the collections' effects are pooled by DerSimonian and Laird's "
            "random-effects model, with Cochran's Q and I^2 for the heterogeneity and the "
            "fixed-effect summary beside it. Give the collections one after the other: each "
            "qrels file (TREC text) starts one, the run files after it are its runs; or one "
            "--scores FILE ... per collection of per-topic score files. Runs are matched "
            "across collections by name."
        ),
    )
    _options.add_files(p, "run files of the collection of the qrels before them")
    _options.add_measures(p, DEFAULT_MEASURES)
    p.add_argument(
        "--collection",
        action="append",
        dest="collections",
        metavar="NAME",
        help="a name for each collection, in order (repeat once per collection; default: "
        "the qrels' file names, or the folder of the first score file)",
    )
    _inputs.add_scores(p, "one collection's runs", each="collection")
    p.add_argument("--baseline", metavar="NAME", help="the baseline run's name (default: first)")
    p.add_argument(
        "--effect",
        choices=("difference", "d_z", "g_z"),
        default="difference",
        help="the effect pooled: the mean paired difference (default), its standardised mean "
        "difference d_z, or Hedges' g_z (d_z with the small-sample correction)",
    )
    _options.add_levels(p, "the runs' pooled p-values", "normal intervals")
    p.add_argument(
        "--plot",
        metavar="FILE",
        help="write the forest plots of the first measure (one panel per run) to FILE (.png, "
        ".svg, .pdf; needs matplotlib)",
    )
    _options.add_format(p, FORMATS)
    _options.add_output(p, "the meta-analysis")
    _options.add_conventions(p)
    _options.add_example(
        p,
        "",
        help_text="pool over the bundled example split into three collections (the 43 TREC "
        "DL 2019 queries dealt into dl19-a, dl19-b, dl19-c; runs bm25, the baseline, dense, "
        "rerank and rerank-repro)",
    )
    _options.add_quiet(p)
    p.set_defaults(handler=run_meta_analysis)


def _default_names(paths: list[str]) -> list[str]:
    """The qrels' (or first score files') stems; their folders' names where the stems
    repeat; refused where both repeat."""
    from ranklens.base.errors import OptionError
    from ranklens.data.naming import file_stem

    stems = [file_stem(p) for p in paths]
    if len(set(stems)) == len(stems):
        return stems
    folders = [os.path.basename(os.path.dirname(os.path.abspath(p))) for p in paths]
    if len(set(folders)) == len(folders):
        return folders
    raise OptionError(
        "the collections' files share their names and folders: name each collection with "
        "--collection NAME (once per collection, in order)"
    )


def collections_of(args: argparse.Namespace) -> dict[str, Any]:
    """``{name: (qrels, runs)}`` from the files in order (each qrels file starts a
    collection) and the ``--scores`` groups, named by ``--collection``."""
    from ranklens.base.errors import OptionError

    if args.example:
        if args.qrels is not None or args.scores or args.collections:
            raise OptionError(
                "--example takes no files or --collection names: it uses the bundled example"
            )
        from ranklens.analysis.meta_analysis import example_collections

        return dict(example_collections())
    files = [args.qrels, *args.runs] if args.qrels is not None else []
    if "-" in files:
        raise OptionError("meta-analysis reads files, not stdin ('-')")
    groups: list[tuple[str | None, list[Any]]] = []
    firsts: list[str] = []  # the file that names each collection by default
    for path in files:
        if _options.looks_like_qrels(path):
            groups.append((path, []))
            firsts.append(path)
        elif not groups:
            raise OptionError(
                f"{path}: the first file must be a qrels file (TREC text: 'query 0 document "
                "grade'), each qrels file followed by the runs of its collection"
            )
        else:
            groups[-1][1].append(path)
    if args.scores:
        from ranklens.evaluation.scores_files import read_score_set

        for score_files in args.scores:
            runs = [r for f in score_files for r in read_score_set(f, check_all=args.check_all)]
            groups.append((None, runs))
            firsts.append(score_files[0])
    if len(groups) < 2:
        raise OptionError(
            f"a meta-analysis needs at least 2 collections, not {len(groups)}: give each "
            "collection's qrels followed by its runs, or --scores FILE ... once per collection "
            "(or --example)"
        )
    names = args.collections
    if names is None:
        names = _default_names(firsts)
    elif len(names) != len(groups):
        raise OptionError(
            f"--collection given {len(names)} times for {len(groups)} collections (once per "
            "collection)"
        )
    if len(set(names)) != len(names):
        raise OptionError(f"two collections are named alike: {', '.join(names)}")
    return {name: group for name, group in zip(names, groups, strict=True)}


def run_meta_analysis(args: argparse.Namespace) -> int:
    """Handle ``ranklens meta-analysis``."""
    inputs = [p for p in [args.qrels, *args.runs, *(f for g in args.scores for f in g)] if p]
    _options.check_output(args, inputs)
    if args.plot is not None:
        from ranklens.data.output import check_destination

        check_destination(args.plot, inputs, args.force)
    collections = collections_of(args)
    measures = _options.measure_names(args.measures, DEFAULT_MEASURES)
    from ranklens.analysis.meta_analysis import collection_comparisons, meta_analysis

    comparisons = collection_comparisons(
        collections,
        measures,
        baseline=args.baseline,
        **_options.chosen(args, _options.CONVENTIONS),
    )
    metas = [
        meta_analysis(
            comparisons,
            measure,
            baseline=args.baseline,
            effect=args.effect,
            confidence=args.confidence,
            alpha=args.alpha,
            correction=args.correction,
        )
        for measure in measures
    ]
    if args.plot:
        _write_plot(args.plot, metas[0], inputs, args.force)
    with _options.output_stream(args, inputs) as out:
        if args.format == "json":
            payload = {"meta_analyses": [m.to_dict() for m in metas]}
            out.write(json.dumps(payload, allow_nan=False) + "\n")
        elif args.format in ("csv", "tsv"):
            from ranklens.presentation.meta_analysis_format import to_csv

            out.write(to_csv(metas, "\t" if args.format == "tsv" else ","))
        elif args.format == "html":
            from ranklens.presentation.reporting.meta_analysis import meta_analysis_html

            out.write(meta_analysis_html(metas))
        else:
            from ranklens.presentation.meta_analysis_format import to_text

            out.write(to_text(metas))
    return 0


def _write_plot(path: str, meta: Any, inputs: list[str], force: bool) -> None:
    """The forest plots of ``meta``'s runs, one panel each, into ``path`` (its extension
    the format)."""
    import io

    from ranklens.data.output import write_atomically
    from ranklens.presentation.plots.forest import plot_forests

    suffix = os.path.splitext(path)[1].lower().lstrip(".")
    buffer = io.BytesIO()
    plot_forests(meta).savefig(buffer, format=suffix if suffix in ("png", "svg", "pdf") else "png")
    write_atomically(path, buffer.getvalue(), inputs=inputs, force=force)
