"""``ranklens run MANIFEST``: run the experiment a manifest describes (YAML or TOML) and
write its results file, byte for byte the same on every run over the same files (see
:mod:`ranklens.workflow.manifest` and :mod:`ranklens.workflow.experiment`)."""

from __future__ import annotations

import argparse
import sys
import tempfile
from typing import IO, Any

from ranklens.cli import _options


def register(commands: Any) -> None:
    """Add the ``run`` subcommand."""
    p = commands.add_parser(
        "run",
        help="run the experiment of a manifest (YAML/TOML) into a reproducible results file",
        description=(
            "Read a manifest (qrels, runs by name, measures, and optionally conventions, "
            "compare, groups, report, mlflow and output; paths relative to it), evaluate and "
            "compare the runs, and write the results file: the numbers, the sha256 of every "
            "input, the options and the ranklens version, the same bytes on every run (the "
            "time goes in OUTPUT.meta.json). Also the HTML report and the MLflow run the "
            "manifest asks for. See docs/workflow.md."
        ),
    )
    p.add_argument("manifest", nargs="?", metavar="MANIFEST", help="the manifest (.yaml or .toml)")
    _options.add_format(
        p, ("table", "json"), help_text="what stdout shows: table (the means) or json (the results)"
    )
    _options.add_output(p, "the results", default="the manifest's output file")
    _options.add_example(
        p, "run", help_text="run an experiment over the bundled example (bm25 against rerank)"
    )
    _options.add_quiet(p, "the names of the files written")
    p.set_defaults(handler=run_manifest)


def run_manifest(args: argparse.Namespace) -> int:
    """Handle ``ranklens run``."""
    from ranklens.base.errors import OptionError
    from ranklens.workflow.experiment import write_experiment

    def written(path: str) -> None:
        if not args.quiet:
            sys.stderr.write(f"ranklens: wrote {path}\n")

    if args.example:
        if args.manifest is not None:
            raise OptionError("--example takes no manifest: it runs the bundled example")
        from ranklens.workflow.examples import write_example_manifest

        with tempfile.TemporaryDirectory() as folder:
            manifest = write_example_manifest(folder)
            document = write_experiment(manifest, output=args.output, force=args.force)
            if args.output != "-":
                written(args.output)
    else:
        if args.manifest is None:
            raise OptionError("give the manifest to run (or --example)")
        output = None if args.output == "-" else args.output
        document = write_experiment(
            args.manifest, output=output, force=args.force, on_written=written
        )
    if args.format == "json":
        from ranklens.workflow.store import dumps

        sys.stdout.write(dumps(document))
    else:
        write_means(document, sys.stdout)
    return 0


def write_means(document: dict[str, Any], out: IO[str]) -> None:
    """The means of each run and measure as an aligned table; with a comparison, a run
    significantly better (worse) than the baseline is marked ▲ (▼)."""
    measures = document["options"]["measures"]
    comparison = document.get("comparison") or {}
    stats = {r["name"]: r.get("vs_baseline", {}) for r in comparison.get("runs", [])}
    rows = [["run", *measures]]
    for run, entry in document["runs"].items():
        cells = [run]
        for m in measures:
            value = entry["aggregate"].get(m)
            cell = "-" if value is None else f"{value:.4f}"
            st = stats.get(run, {}).get(m)
            corrected = (st or {}).get("p_value_corrected")
            if st and corrected is not None and corrected <= comparison["alpha"]:
                cell += " ▲" if (st.get("delta") or 0) > 0 else " ▼"
            cells.append(cell)
        rows.append(cells)
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    queries = len(next(iter(document["runs"].values()))["per_query"])
    out.write(f"{document['name']}: means over {queries} queries")
    if comparison:
        out.write(
            f"; ▲/▼ significantly better/worse than {comparison['baseline']} "
            f"({comparison['test']} test, {comparison['correction']} correction, alpha "
            f"{comparison['alpha']:g})"
        )
    out.write("\n")
    for row in rows:
        out.write("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() + "\n")
