"""``explain`` for alpha-nDCG, alpha-DCG, ERR-IA and nERR-IA: the explained value is the
evaluator's (to the last bit) on the TREC 2012 Web track data, under both tie policies that
ndeval knows; the rows follow the definition (checked against a hand computation); the
command line reads subtopic qrels."""

from __future__ import annotations

import gzip
import math
import warnings
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ranklens
from ranklens.base.errors import InputWarning
from ranklens.cli import main
from ranklens.presentation.explanation import explain_measures

DATA = Path(__file__).parent / "data" / "ndeval"
QRELS = DATA / "qrels.web2012.txt.gz"
RUN = DATA / "run.ql-cata.txt.gz"

MEASURES = [
    "alpha_nDCG@20",
    "alpha_nDCG@5",
    "alpha_nDCG(alpha=0.8)@10",
    "alpha_DCG@20",
    "ERR_IA@20",
    "ERR_IA@2",
    "ERR_IA(alpha=0.3)@10",
    "nERR_IA@20",
    "alpha_DCG@1",
    "nERR_IA@1",
]
QUERIES = ["151", "152", "160", "175", "188", "200"]


@pytest.mark.parametrize("ties", ["trec_eval", "rank"])
def test_explained_value_is_the_evaluators(ties: str) -> None:
    per_query = ranklens.evaluate(QRELS, RUN, MEASURES, ties=ties).per_query
    for query in QUERIES:
        found = explain_measures(QRELS, RUN, query, MEASURES, ties=ties)
        assert [e.measure for e in found] == MEASURES
        for e in found:
            assert e.value == per_query[query][e.measure], (query, e.measure)
            assert e.rows  # a derivation, rank by rank


def test_rows_follow_the_definition_on_the_2012_data() -> None:
    """Each row's gain is the sum of (1 - alpha)^c over its subtopics, c counting the
    earlier rows that covered the subtopic; the running sum adds gain / log2(k + 1)."""
    ex = ranklens.explain(QRELS, RUN, "152", "alpha_nDCG@20", max_rows=None)
    seen: dict[str, int] = {}
    total = 0.0
    covers = ex.column("subtopics (c)")
    for k, (cover, gain, running) in enumerate(
        zip(covers, ex.column("gain"), ex.column("sum@k"), strict=True), start=1
    ):
        expected = 0.0
        for item in (cover or "").split(", ") if cover else []:
            sub, c = item.split(" (")
            assert int(c.rstrip(")")) == seen.get(sub, 0)
            expected += 0.5 ** seen.get(sub, 0)
            seen[sub] = seen.get(sub, 0) + 1
        assert gain == pytest.approx(expected)
        total += expected / math.log2(k + 1)
        assert running == pytest.approx(total)
    assert any(covers)
    ideal = ex.column("ideal sum@k")
    assert ex.value == pytest.approx(total / ideal[-1])


def test_hand_computed_example() -> None:
    """q: a covers subtopics 1 and 2, b covers 2, c covers 1; the run ranks b, a, c.
    gains 1, 1 + 0.5, 0.5; ideal a, c, b (c before b: equal gains, the larger docno) with
    gains 2, 0.5, 0.5. ERR-IA@3 = (1 + 1.5/2 + 0.5/3) / (2 (1 + 0.5/2 + 0.25/3))."""
    qrels = {"q": {"a": {"1": 1, "2": 1}, "b": {"2": 1}, "c": {"1": 1}}}
    run = {"q": {"b": 3.0, "a": 2.0, "c": 1.0}}
    err = ranklens.explain(qrels, run, "q", "ERR_IA@3")
    assert err.value == pytest.approx((1 + 1.5 / 2 + 0.5 / 3) / (2 * (1 + 0.5 / 2 + 0.25 / 3)))
    assert err.column("gain") == [1.0, 1.5, 0.5]
    ndcg = ranklens.explain(qrels, run, "q", "alpha_nDCG@3")
    assert ndcg.column("ideal doc") == ["a", "c", "b"]
    dcg = 1 + 1.5 / math.log2(3) + 0.5 / 2
    ideal = 2 + 0.5 / math.log2(3) + 0.5 / 2
    assert ndcg.value == pytest.approx(dcg / ideal)
    assert ndcg.quantity("ideal") == pytest.approx(ideal)


def test_query_without_relevant_subtopic_is_zero() -> None:
    qrels = {"q": {"a": {"1": 1, "2": 1}}, "r": {"a": {"1": 0, "2": 0}}}
    run = {"q": {"a": 1.0}, "r": {"a": 1.0}}
    for m in ("alpha_nDCG@5", "ERR_IA@5"):
        ex = ranklens.explain(qrels, run, "r", m)
        assert ex.value == 0.0 == ranklens.evaluate(qrels, run, [m]).query_values(m)["r"]


def test_cli_explains_alpha_ndcg_from_subtopic_qrels(tmp_path: Path, capsys) -> None:
    qrels = tmp_path / "qrels.txt"
    qrels.write_bytes(gzip.decompress(QRELS.read_bytes()))
    code = main(
        ["explain", str(qrels), str(RUN), "--query", "160", "-m", "alpha_nDCG@20 ERR_IA@20",
         "--ties", "rank", "-f", "markdown"]
    )
    out, err = capsys.readouterr()
    assert code == 0 and err == ""
    assert "### alpha_nDCG@20, query `160`" in out and "### ERR_IA@20, query `160`" in out
    values = ranklens.evaluate(qrels, RUN, ["alpha_nDCG@20", "ERR_IA@20"], ties="rank")
    for name in ("alpha_nDCG@20", "ERR_IA@20"):
        assert f"= {values.query_values(name)['160']:.4f}**" in out


@st.composite
def _subtopic_case(draw: st.DrawFn) -> tuple[dict, dict]:
    docs = [f"d{i}" for i in range(draw(st.integers(1, 9)))]
    qrels: dict = {}
    run: dict = {}
    for q in ("q1", "q2"):
        judged = draw(st.lists(st.sampled_from(docs), unique=True, max_size=len(docs)))
        qrels[q] = {
            d: {str(s): draw(st.integers(-1, 2)) for s in draw(st.sets(st.integers(1, 4)))}
            for d in judged
        }
        qrels[q] = {d: subs for d, subs in qrels[q].items() if subs}
        ranked = draw(st.lists(st.sampled_from(docs), unique=True, max_size=len(docs)))
        run[q] = {d: float(draw(st.integers(0, 3))) for d in ranked}  # many ties
    qrels["q3"] = {"x": {"1": 1, "2": 1}}  # keeps the qrels diverse and shares a query
    run["q3"] = {"x": 1.0, "d0": 1.0}
    return qrels, run


@settings(max_examples=60, deadline=None)
@given(
    _subtopic_case(),
    st.sampled_from(["alpha_nDCG", "alpha_DCG", "ERR_IA", "nERR_IA"]),
    st.sampled_from(["", "(alpha=0.0)", "(alpha=1.0)", "(alpha=0.7)"]),
    st.integers(1, 12),
    st.sampled_from([{}, {"ties": "input"}, {"ties": "docid_asc", "depth": 3}]),
)
def test_generated_explained_value_is_the_evaluators(
    case: tuple[dict, dict], name: str, params: str, k: int, options: dict
) -> None:
    qrels, run = case
    measure = f"{name}{params}@{k}"
    with warnings.catch_warnings():  # most qrels queries missing from the run: on purpose
        warnings.simplefilter("ignore", InputWarning)
        evaluated = ranklens.evaluate(qrels, run, [measure], **options).query_values(measure)
        for query, value in evaluated.items():
            ex = ranklens.explain(qrels, run, query, measure, **options)
            assert ex.value == value, (query, measure)
