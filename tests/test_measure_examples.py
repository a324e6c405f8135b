"""Every registered measure is documented (:mod:`ranklens.measures.reference`): equivalents
in other tools and a worked example whose hand-computed value ranklens reproduces; the
rendered doctests run, ``docs/measures-reference.md`` is current and its doctests run too,
and ``ranklens measures NAME`` prints the whole documentation."""

from __future__ import annotations

import doctest
import io
import json
import math
import re
from pathlib import Path

import pytest

import ranklens
from ranklens.base.errors import MeasureError
from ranklens.cli import main
from ranklens.measures import parse_measure
from ranklens.measures.reference import (
    all_docs,
    measure_doc,
    reference_page,
    render_doctest,
    shown_value,
)
from ranklens.measures.reference_model import TOOLS, MeasureExample, doc
from ranklens.measures.registry import REGISTRY

PAGE = Path(__file__).resolve().parents[1] / "docs" / "measures-reference.md"
DOCS = all_docs()
NAMES = sorted(REGISTRY)


def evaluate(example: MeasureExample) -> float:
    qrels = io.StringIO(example.qrels) if isinstance(example.qrels, str) else example.qrels
    options = example.options or {}
    return ranklens.evaluate(qrels, example.run, example.measure, **options)[example.measure]


# --- (a) no measure escapes --------------------------------------------------------------


def test_every_registered_measure_is_documented_and_nothing_else() -> None:
    assert set(DOCS) == set(REGISTRY)
    assert len(DOCS) >= 60


@pytest.mark.parametrize("name", NAMES)
def test_documentation_is_complete(name: str) -> None:
    mdoc = DOCS[name]
    assert mdoc.equivalents, f"{name}: no equivalents (say 'other' when no tool has it)"
    tools = [tool for tool, _ in mdoc.equivalents]
    assert set(tools) <= set(TOOLS) and len(set(tools)) == len(tools)
    assert tools == sorted(tools, key=TOOLS.index)
    assert all(text.strip() for _, text in mdoc.equivalents)
    example = mdoc.example
    assert parse_measure(example.measure).spec.name == name
    assert len(example.narration) > 20 and math.isfinite(example.expected)
    if REGISTRY[name].trec_name:
        assert "trec_eval" in tools, f"{name} is a trec_eval measure"


def test_examples_cover_the_awkward_cases() -> None:
    """Across the examples: tied scores, graded labels, unjudged and negatively judged
    documents, relevant documents not retrieved, queries without relevant documents, queries
    missing from the run, several queries, and judgement files."""
    seen: dict[str, list[str]] = {}

    def mark(what: str, name: str) -> None:
        seen.setdefault(what, []).append(name)

    for name, mdoc in DOCS.items():
        ex = mdoc.example
        if isinstance(ex.qrels, str):
            mark("judgement file", name)
            continue
        for qid, docs in ex.run.items():
            scores = list(docs.values())
            if len(set(scores)) < len(scores):
                mark("ties", name)
            judged = ex.qrels.get(qid, {})
            if any(d not in judged for d in docs):
                mark("unjudged", name)
        for qid, judged in ex.qrels.items():
            if any(g > 1 for g in judged.values()):
                mark("graded", name)
            if any(g < 0 for g in judged.values()):
                mark("negative", name)
            if not any(g >= 1 for g in judged.values()):
                mark("no relevant", name)
            if qid not in ex.run:
                mark("missing query", name)
            elif any(g >= 1 and d not in ex.run[qid] for d, g in judged.items()):
                mark("relevant not retrieved", name)
        if len(ex.qrels) > 1:
            mark("several queries", name)
    for what in (
        "ties",
        "graded",
        "unjudged",
        "negative",
        "no relevant",
        "missing query",
        "relevant not retrieved",
        "several queries",
        "judgement file",
    ):
        assert what in seen, what
    assert len(seen["ties"]) >= 3 and len(seen["graded"]) >= 10 and len(seen["unjudged"]) >= 15


# --- (b) the hand-computed values --------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_example_value_is_the_hand_computed_one(name: str) -> None:
    example = DOCS[name].example
    got = evaluate(example)
    assert got == pytest.approx(example.expected, rel=1e-12, abs=1e-12), (
        f"{name}: ranklens {got!r}, by hand {example.expected!r} ({example.narration})"
    )


# --- (c) the doctests run ----------------------------------------------------------------

FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def run_doctest(text: str, name: str) -> doctest.TestResults:
    parser = doctest.DocTestParser()
    test = parser.get_doctest(text, {}, name, None, 0)
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    runner.run(test)
    return runner.summarize(verbose=False)


@pytest.mark.parametrize("name", NAMES)
def test_rendered_doctest_runs(name: str) -> None:
    text = render_doctest(DOCS[name].example)
    assert text.splitlines()[-1] == shown_value(DOCS[name].example.expected)
    result = run_doctest(text, name)
    assert result.attempted >= 4 and result.failed == 0


def test_reference_page_is_up_to_date(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["measures", "--format", "reference"]) == 0
    generated = capsys.readouterr().out
    assert generated == reference_page()
    assert PAGE.read_text() == generated, (
        "regenerate docs/measures-reference.md with: "
        "ranklens measures --format reference > docs/measures-reference.md"
    )


def test_reference_page_doctests_run() -> None:
    blocks = re.findall(r"```pycon\n(.*?)```", PAGE.read_text(), flags=re.S)
    assert len(blocks) == len(REGISTRY)
    attempted = 0
    for i, block in enumerate(blocks):
        result = run_doctest(block, f"measures-reference.md block {i}")
        assert result.failed == 0, block
        attempted += result.attempted
    assert attempted >= 4 * len(REGISTRY)


def test_every_section_has_formula_parameters_equivalents_and_example() -> None:
    text = PAGE.read_text()
    sections = re.split(r"^### ", text, flags=re.M)[1:]
    assert [s.split("\n", 1)[0] for s in sections] == list(REGISTRY)
    for section in sections:
        for part in ("**Formula.**", "**Parameters.**", "**Conventions.**", "**Equivalents.**"):
            assert part in section, (section.split("\n", 1)[0], part)
        assert "**Example.**" in section and "```pycon" in section


# --- ranklens measures NAME ------------------------------------------------------------


def test_measures_name_prints_the_full_documentation(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["measures", "MAP"]) == 0  # an alias
    out = capsys.readouterr().out
    assert out.startswith("AP: average precision")
    for part in ("Formula", "Parameters", "Conventions", "Equivalents", "Example"):
        assert f"\n{part}\n" in out
    assert "norm (str, default 'R')" in out and "@cutoff (int, optional, default None)" in out
    assert "torchmetrics: RetrievalMAP" in out
    assert '>>> round(ranklens.evaluate(qrels, run, "AP")["AP"], 4)\n  0.5556' in out


def test_measures_name_json_and_markdown(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["measures", "nDCG", "-f", "json"]) == 0
    entry = json.loads(capsys.readouterr().out)
    assert entry["name"] == "nDCG"
    assert entry["parameters"] == {
        "judged_only": False,
        "gains": None,
        "dcg": "log2",
        "ideal": "sorted",
    }
    assert entry["parameter_help"]["cutoff"].startswith("only the top k")
    assert "ignore_ties=True" in entry["equivalents"]["sklearn"]
    assert entry["example"]["expected"] == pytest.approx(0.63878788647)
    assert "IDCG" in entry["example"]["narration"]
    assert main(["measures", "nDCG", "-f", "markdown"]) == 0
    assert capsys.readouterr().out.startswith("### nDCG\n")


def test_measures_unknown_name(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["measures", "nDGC"]) == 2
    err = capsys.readouterr().err
    assert "unknown measure 'nDGC'" in err and "nDCG" in err


def test_measure_doc_lookup_and_validation() -> None:
    assert measure_doc("MRR") is DOCS["RR"]
    with pytest.raises(MeasureError):
        measure_doc("NoSuchMeasure")
    example = DOCS["P"].example
    with pytest.raises(MeasureError, match="unknown tools"):
        doc(example, trec_evall="P")
    with pytest.raises(TypeError):
        example.run["q1"]["z"] = 1.0  # type: ignore[index]
