"""Every core measure equals trec_eval 10.0's printed value, per query and overall, on
trec_eval's own test files (tests/data/trec_eval; commands in its README)."""

from __future__ import annotations

from pathlib import Path

import pytest

import ranklens
from ranklens.measures.base import Measure
from ranklens.measures.trec_names import parse_trec_name, with_relevance_level

# expected output -> (qrels, run, options: rel threshold, depth)
CASES = {
    "out.test.aq": ("qrels.test", "results.test", 1, None),
    "out.test.aqc": ("qrels.test", "results.trunc", 1, None),
    "out.test.aqcM": ("qrels.test", "results.trunc", 1, 100),
    "out.test.aql": ("qrels.rel_level", "results.test", 2, None),
    "out.test": ("qrels.test", "results.test", 1, None),
    "out.comment.test": ("qrels.comment.test", "results.comment.test", 1, None),
}


def read_expected(path: Path) -> dict[tuple[str, str], str]:
    """``{(value name, qid): printed value}`` from a trec_eval output file."""
    out = {}
    for line in path.read_text().splitlines():
        name, qid, value = line.split("\t")
        out[(name.strip(), qid)] = value
    return out


def measure_for(value_name: str, rel: int) -> Measure | None:
    """The ranklens measure behind a trec_eval value name, with ``-l rel``, if it has one."""
    found = parse_trec_name(value_name)
    if not found or len(found) != 1:
        return None
    return with_relevance_level(found[0], rel)


def printed(value: float, measure: Measure) -> str:
    return str(int(value)) if measure.spec.aggregate == "sum" else f"{value:6.4f}"


@pytest.mark.parametrize("expected_file", sorted(CASES))
def test_core_measures_match_trec_eval(trec_eval_data: Path, expected_file: str) -> None:
    qrels, run, rel, depth = CASES[expected_file]
    expected = read_expected(trec_eval_data / expected_file)
    measures: dict[str, Measure] = {}
    for name, _ in expected:
        measure = measure_for(name, rel)
        if measure is not None:
            measures[name] = measure
    assert len(measures) >= 10, "the file should exercise the core measures"
    res = ranklens.evaluate(
        trec_eval_data / qrels, trec_eval_data / run, list(measures.values()), depth=depth
    )
    checked = 0
    for (name, qid), want in expected.items():
        if name not in measures:
            continue
        measure = measures[name]
        got = res.aggregate[measure.name] if qid == "all" else res.per_query[qid][measure.name]
        assert printed(got, measure) == want, f"{name} {qid}: {got!r} vs trec_eval {want}"
        checked += 1
    assert checked >= len(measures)


def test_official_nickname_covers_trec_eval_default_output(trec_eval_data: Path) -> None:
    """``official`` gives every value of trec_eval's default output (out.test) but runid."""
    res = ranklens.evaluate(
        trec_eval_data / "qrels.test", trec_eval_data / "results.test", ["official"]
    )
    expected = read_expected(trec_eval_data / "out.test")
    names = {name for name, _ in expected} - {"runid"}
    assert len(res.measures) == len(names)
    assert res.run == expected[("runid", "all")]
