"""The reference documentation of every measure: equivalents in other tools and a worked
example, keyed by the measure's name, rendered for ``ranklens measures NAME`` and for the
generated page ``docs/measures-reference.md``.

Each registered :class:`~ranklens.measures.base.MeasureSpec` has a :class:`MeasureDoc`
(declared in :mod:`ranklens.measures.reference_core`, ``reference_trec``,
``reference_prefs`` and ``reference_more``, next to nothing else). An example's expected
value is computed by hand and written as arithmetic in the source and in its narration;
the tests evaluate every example and run every rendered doctest.

>>> from ranklens.measures.reference import measure_doc, render_doctest
>>> doc = measure_doc("AP")
>>> doc.example.measure, round(doc.example.expected, 4)
('AP', 0.5556)
>>> print(render_doctest(doc.example).splitlines()[-1])
0.5556
"""

from __future__ import annotations

import json
import math
import textwrap
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from ranklens.base.errors import MeasureError
from ranklens.measures import (
    reference_core,
    reference_cwl,
    reference_diversity,
    reference_exposure,
    reference_irm,
    reference_more,
    reference_prefs,
    reference_rag,
    reference_recsys,
    reference_sampled,
    reference_trec,
)
from ranklens.measures.base import MeasureSpec, Param
from ranklens.measures.reference_model import MeasureDoc, MeasureExample


def all_docs() -> Mapping[str, MeasureDoc]:
    """Every measure's :class:`MeasureDoc`, by the measure's canonical name."""

    merged: dict[str, MeasureDoc] = {}
    for module in (
        reference_core,
        reference_trec,
        reference_prefs,
        reference_more,
        reference_diversity,
        reference_cwl,
        reference_irm,
        reference_sampled,
        reference_recsys,
        reference_exposure,
        reference_rag,
    ):
        merged.update(module.DOCS)
    return MappingProxyType(merged)


def measure_doc(name: str) -> MeasureDoc:
    """The :class:`MeasureDoc` of the measure called ``name`` (or with that alias).

    Raises
    ------
    MeasureError
        No measure has that name, or it has no documentation.
    """
    from ranklens.measures.registry import get_spec

    spec = get_spec(name)
    found = all_docs().get(spec.name)
    if found is None:
        raise MeasureError(f"{spec.name} has no reference documentation")
    return found


# --- rendering ---------------------------------------------------------------------------


def _literal(nested: Mapping[str, Any]) -> str:
    """``nested`` as a Python dict literal with double-quoted keys (sampled rankings as
    lists of lists)."""
    queries = []
    for qid, docs in nested.items():
        if not isinstance(docs, Mapping):  # sampled rankings
            queries.append(f"{json.dumps(qid)}: {json.dumps(docs)}")
            continue
        inner = ", ".join(f"{json.dumps(d)}: {v!r}" for d, v in docs.items())
        queries.append(f"{json.dumps(qid)}: {{{inner}}}")
    return "{" + ", ".join(queries) + "}"


def shown_value(value: float) -> str:
    """How a doctest prints ``value``: rounded to 4 decimals."""
    return repr(round(float(value), 4))


def render_doctest(example: MeasureExample) -> str:
    """``example`` as doctest lines: the data, the call and the rounded expected value."""
    lines: list[str] = []
    if isinstance(example.qrels, str):
        lines.append(">>> import io, ranklens")
        lines.append('>>> qrels = io.StringIO("""\\')
        lines.extend(f"... {line}" for line in example.qrels.strip().splitlines())
        lines.append('... """)')
    else:
        lines.append(">>> import ranklens")
        lines.append(f">>> qrels = {_literal(example.qrels)}")
    lines.append(f">>> run = {_literal(example.run)}")
    m = json.dumps(example.measure)
    extra = "".join(f", {k}={v!r}" for k, v in (example.options or {}).items())
    lines.append(f">>> round(ranklens.evaluate(qrels, run, {m}{extra})[{m}], 4)")
    lines.append(shown_value(example.expected))
    return "\n".join(lines)


def _number(value: float) -> str:
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return f"{value:g}"


def conventions(spec: MeasureSpec, notes: str = "") -> str:
    """The measure's conventions in one paragraph: aggregation, direction, range, the value
    of a query without relevant documents, what it reads, and ``notes``."""
    agg = {
        "mean": "the mean over queries",
        "sum": "summed over queries",
        "gmean": "the geometric mean over queries (values below 1e-5 raised to 1e-5)",
        "run": "computed over the whole run (all users' lists at once), no per-query values",
    }[spec.aggregate]
    low, high = spec.bounds
    parts = [
        f"aggregate: {agg}",
        "higher is better" if spec.higher_is_better else "lower is better",
        f"range {_number(low)} to {_number(high)}",
    ]
    if spec.no_rel_value is not None:
        parts.append(f"a query without relevant documents scores {_number(spec.no_rel_value)}")
    if spec.rankings == "answer":
        from ranklens.measures.catalog_rag import reads_text

        parts.append(reads_text(spec))
        text = "; ".join(parts) + "."
        return f"{text} {notes}" if notes else text
    reads = {
        "qrels": "reads ordinary qrels; equal scores are ordered by the evaluator's ties "
        "policy (default: document id descending, as trec_eval)",
        "qrels_jg": "reads judgement-group qrels (qid jg docno rel); ties: document id descending",
        "prefs": "reads preference judgments (trec_eval -R prefs / qrels_prefs); ties: "
        "document id ascending, as trec_eval's preference code",
        "subtopics": "reads subtopic qrels (qid subtopic docno judgment); equal scores are "
        "ordered by the evaluator's ties policy (default: as ndeval -traditional)",
        "strata": "reads stratified sampled qrels (topic 0 docno stratum judgment, -1 for "
        "pooled but not sampled); ties: document id descending, as sample_eval",
    }[spec.judgments]
    if spec.rankings == "sampled":
        reads = (
            "reads ordinary qrels and a stochastic run (several sampled rankings per query: "
            "qid sample docno rank score lines), each sample in rank order"
        )
    parts.append(reads)
    text = "; ".join(parts) + "."
    return f"{text} {notes}" if notes else text


def _param_rows(spec: MeasureSpec) -> list[tuple[str, str, str, str, str]]:
    """``(name, type, default, "" | "required" | "optional", help)`` per parameter."""
    rows = [(p.name, p.type.__name__, repr(p.default), "", _param_help(p)) for p in spec.params]
    if spec.at is not None:
        need = "required" if spec.at_required else "optional"
        at = spec.at
        rows.append((f"@{at.name}", at.type.__name__, repr(at.default), need, _param_help(at)))
    return rows


def _param_help(p: Param) -> str:
    extra = f" (one of {', '.join(repr(c) for c in p.choices)})" if p.choices else ""
    return p.help + extra


def _trec_names(spec: MeasureSpec) -> str:
    with_at, _, without_at = (spec.trec_name or "|").partition("|")
    names = [t.replace("{at}", "k").replace("{at:.2f}", "x") for t in (without_at, with_at) if t]
    return ", ".join(f"`{n}`" for n in names)


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def render_markdown(spec: MeasureSpec, mdoc: MeasureDoc) -> str:
    """The measure's section of ``docs/measures-reference.md``."""
    out = [f"### {spec.name}", "", f"*{spec.summary}*", ""]
    facts = []
    if spec.aliases:
        facts.append("aliases: " + ", ".join(f"`{a}`" for a in spec.aliases))
    trec = _trec_names(spec)
    if trec:
        facts.append(f"trec_eval: {trec}")
    if facts:
        out += [" · ".join(facts), ""]
    out += [f"**Formula.** {spec.formula}", ""]
    rows = _param_rows(spec)
    if rows:
        out += [
            "**Parameters.**",
            "",
            "| parameter | type | default | meaning |",
            "|---|---|---|---|",
        ]
        out += [
            f"| `{n}` | {t} | `{d}`{f' ({need})' if need else ''} | {_cell(h)} |"
            for n, t, d, need, h in rows
        ]
        out.append("")
    else:
        out += ["**Parameters.** none", ""]
    out += [f"**Conventions.** {conventions(spec, mdoc.notes)}", ""]
    out += ["**Equivalents.**", "", "| tool | name or call |", "|---|---|"]
    out += [f"| {tool} | {_cell(text)} |" for tool, text in mdoc.equivalents]
    out += ["", f"**Example.** {mdoc.example.narration}", "", "```pycon"]
    out += [render_doctest(mdoc.example), "```", ""]
    return "\n".join(out)


REFERENCE_HEADER = """\
# Measure reference

Every measure ranklens computes, one section each, generated from its registry and
`ranklens.measures.reference` with `ranklens measures --format reference` (a test checks
that this page is current, and runs every example below as a doctest). Each section gives
the formula, the parameters with their defaults, the conventions, the names of the same
measure in trec_eval, ir_measures, ranx, scikit-learn and torchmetrics (and how their
conventions differ), and a worked example whose value was computed by hand. The table of
all measures is [measures.md](measures.md); the conventions that give one name several
values are compared side by side in [conventions.md](conventions.md).
"""


def reference_page() -> str:
    """The whole of ``docs/measures-reference.md``."""
    from ranklens.measures.registry import REGISTRY

    docs = all_docs()
    toc = " · ".join(f"[{name}](#{name.lower()})" for name in REGISTRY)
    parts = [REFERENCE_HEADER, toc, ""]
    for name, spec in REGISTRY.items():
        mdoc = docs.get(name)
        if mdoc is None:
            raise MeasureError(f"{name} has no reference documentation")
        parts.append(render_markdown(spec, mdoc))
    return "\n".join(parts)


def _wrapped(text: str, indent: str = "  ", width: int = 92) -> list[str]:
    return textwrap.wrap(text, width, initial_indent=indent, subsequent_indent=indent + "  ")


def render_text(spec: MeasureSpec, mdoc: MeasureDoc) -> str:
    """The measure's full documentation as plain text (``ranklens measures NAME``)."""
    out = _wrapped(f"{spec.name}: {spec.summary}", indent="")
    if spec.aliases:
        out.append("aliases: " + ", ".join(spec.aliases))
    trec = _trec_names(spec).replace("`", "")
    if trec:
        out.append(f"trec_eval: {trec}")
    out += ["", "Formula", *_wrapped(spec.formula), "", "Parameters"]
    rows = _param_rows(spec)
    for n, t, d, need, h in rows:
        out += _wrapped(f"{n} ({t}, {need + ', ' if need else ''}default {d}): {h}")
    if not rows:
        out.append("  none")
    out += ["", "Conventions", *_wrapped(conventions(spec, mdoc.notes)), "", "Equivalents"]
    for tool, text in mdoc.equivalents:
        out += _wrapped(f"{tool}: {text}")
    out += ["", "Example", *_wrapped(mdoc.example.narration), ""]
    out += ["  " + line for line in render_doctest(mdoc.example).splitlines()]
    return "\n".join(out) + "\n"
