"""``ranklens measures``: every measure, generated from the registry; ``ranklens measures
NAME``: one measure's full documentation (:mod:`ranklens.measures.reference`)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ranklens.cli import _options


def register(commands: Any) -> None:
    """Add the ``measures`` subcommand."""
    p = commands.add_parser(
        "measures",
        help="list every measure, or document one (ranklens measures AP)",
        description="List every measure ranklens computes (generated from its registry), or "
        "print one measure's documentation: formula, parameters, conventions, equivalents in "
        "other tools and a worked example. --format reference prints the page "
        "docs/measures-reference.md.",
    )
    p.add_argument("name", nargs="?", help="a measure name or alias, e.g. AP or nDCG")
    _options.add_quiet(p)
    _options.add_format(p, ("table", "markdown", "json", "reference"))
    _options.add_example(
        p, "", {"name": "nDCG"}, help_text="document one measure with its worked example"
    )
    p.set_defaults(handler=run_measures)


def describe_all(users: bool = True) -> list[dict[str, Any]]:
    """One record per measure declaration: the built-in ones, then (``users``) the user's
    (:func:`ranklens.define_measure`, ``--plugin``)."""
    from ranklens.measures.registry import REGISTRY
    from ranklens.measures.user_registry import USER_MEASURES

    out = []
    specs = [*REGISTRY.values(), *(USER_MEASURES.snapshot().values() if users else ())]
    for spec in specs:
        with_at, _, without_at = (spec.trec_name or "|").partition("|")
        trec = " / ".join(
            t.replace("{at}", "k").replace("{at:.2f}", "x") for t in (without_at, with_at) if t
        )
        out.append(
            {
                "name": spec.name,
                "aliases": list(spec.aliases),
                "parameters": {p.name: p.default for p in spec.params},
                "at": None
                if spec.at is None
                else {"name": spec.at.name, "required": spec.at_required},
                "aggregate": spec.aggregate,
                "higher_is_better": spec.higher_is_better,
                "trec_eval": trec or None,
                "judgments": spec.judgments,
                "description": spec.summary,
                "formula": spec.formula,
            }
        )
    return out


def _signature(entry: dict[str, Any]) -> str:
    params = ", ".join(f"{k}={v!r}" for k, v in entry["parameters"].items())
    text = str(entry["name"]) + (f"({params})" if params else "")
    at = entry["at"]
    if at is not None:
        text += f"@{at['name']}" if at["required"] else f"[@{at['name']}]"
    return text


def describe_one(name: str) -> dict[str, Any]:
    """The record of the measure called ``name`` (or with that alias), with its reference
    documentation: equivalents, conventions and example."""
    from ranklens.measures.reference import conventions, measure_doc, render_doctest

    spec, _ = _resolve(name)
    mdoc = measure_doc(spec.name)
    entry = next(e for e in describe_all() if e["name"] == spec.name)
    example = mdoc.example
    entry.update(
        {
            "at_default": None if spec.at is None else spec.at.default,
            "bounds": list(spec.bounds),
            "no_rel_value": spec.no_rel_value,
            "parameter_help": {p.name: p.help for p in spec.all_params()},
            "conventions": conventions(spec, mdoc.notes),
            "equivalents": dict(mdoc.equivalents),
            "example": {
                "measure": example.measure,
                "expected": example.expected,
                "narration": example.narration,
                "doctest": render_doctest(example),
            },
        }
    )
    return entry


def _resolve(name: str) -> tuple[Any, str]:
    """The declaration ``name`` stands for, and a line saying how a name in another tool's
    language (``ndcg@10``, ``hits@10``, ``ndcg_cut.10``) was read ("" for a ranklens name)."""
    from ranklens.base.errors import MeasureError
    from ranklens.measures import parse_measure, peer_names
    from ranklens.measures.registry import get_spec, lookup

    spec = lookup(name)
    if spec is not None:
        return spec, ""
    try:
        measure = parse_measure(name)
    except MeasureError:
        return get_spec(name), ""  # raises with suggestions
    told = peer_names.note(name)
    origin = f" ({told})" if told else ""
    return measure.spec, f"{name}{origin} is {measure.name} in ranklens.\n\n"


def _run_one(name: str, fmt: str) -> int:
    from ranklens.measures.reference import measure_doc, render_markdown, render_text
    from ranklens.measures.user_registry import USER_MEASURES

    spec, reading = _resolve(name)
    if USER_MEASURES.get(spec.name) is spec:  # a measure of the user's: its own words
        return _run_user(spec, fmt)
    if fmt != "json":
        sys.stdout.write(reading)
    if fmt == "json":
        sys.stdout.write(json.dumps(describe_one(name), indent=2) + "\n")
    elif fmt in ("markdown", "reference"):
        sys.stdout.write(render_markdown(spec, measure_doc(spec.name)))
    else:
        sys.stdout.write(render_text(spec, measure_doc(spec.name)))
    return 0


def _run_user(spec: Any, fmt: str) -> int:
    """A user measure's record: its description, parameters and conventions (it has no
    reference documentation of ranklens')."""
    entry = next(e for e in describe_all() if e["name"] == spec.name)
    if fmt == "json":
        sys.stdout.write(json.dumps({**entry, "user_measure": True}, indent=2) + "\n")
        return 0
    lines = [f"{spec.name}: {spec.summary} (a user measure, define_measure)", ""]
    if spec.formula and spec.formula != spec.summary:
        lines += ["Description", *(f"  {line}" for line in spec.formula.splitlines()), ""]
    lines.append("Parameters")
    lines += [
        f"  {p.name} ({p.type.__name__}, default {p.default!r}): {p.help}"
        for p in spec.all_params()
    ]
    lines += [
        "",
        "Conventions",
        f"  aggregate: {spec.aggregate}; "
        + ("higher" if spec.higher_is_better else "lower")
        + f" is better; range {spec.bounds[0]:g} to {spec.bounds[1]:g}",
    ]
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


def run_measures(args: argparse.Namespace) -> int:
    """Handle ``ranklens measures [NAME]``."""
    if args.name:
        return _run_one(args.name, args.format)
    if args.format == "reference":
        from ranklens.measures.reference import reference_page

        sys.stdout.write(reference_page())
        return 0
    # the Markdown table is docs/measures.md: the built-in measures only
    entries = describe_all(users=args.format != "markdown")
    if args.format == "json":
        sys.stdout.write(json.dumps(entries, indent=2) + "\n")
        return 0
    rows = [
        (
            _signature(e),
            ", ".join(e["aliases"]),
            e["aggregate"],
            e["trec_eval"] or "",
            e["description"],
        )
        for e in entries
    ]
    header = ("measure (defaults)", "aliases", "aggregate", "trec_eval", "description")
    if args.format == "markdown":
        sys.stdout.write("| " + " | ".join(header) + " |\n|" + "---|" * len(header) + "\n")
        for row in rows:
            sys.stdout.write("| " + " | ".join(c.replace("|", "\\|") for c in row) + " |\n")
        sys.stdout.write("\n## Formulas\n\n")
        for e in entries:
            sys.stdout.write(f"- **{e['name']}**: {e['formula']}\n")
        return 0
    from rich.console import Console

    console = Console()
    if not console.is_terminal:  # a file or a pipe: one tab-separated line per measure
        for row in (header, *rows):
            sys.stdout.write("\t".join(cell.replace("\t", " ") for cell in row) + "\n")
        return 0
    from rich.table import Table

    table = Table(title="ranklens measures", show_lines=False)
    for name in header:
        table.add_column(name, overflow="fold")
    for row in rows:
        table.add_row(*row)
    console.print(table)
    return 0
