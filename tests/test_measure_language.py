"""Measure names: the ir_measures language, trec_eval names, aliases, errors."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ranklens.base.errors import MeasureError
from ranklens.measures import REGISTRY, parse_measure, parse_measures
from ranklens.measures.trec_names import DEFAULT_CUTOFFS, trec_value_name


@pytest.mark.parametrize(
    "text,canonical",
    [
        ("P@10", "P@10"),
        ("P(rel=2)@10", "P(rel=2)@10"),
        ("P(rel=1)@10", "P@10"),
        ("nDCG(judged_only=True)@10", "nDCG(judged_only=True)@10"),
        ("AP(judged_only=True, rel=2)", "AP(judged_only=True,rel=2)"),
        ("  RR @ 10 ", "RR@10"),
        ("MAP", "AP"),
        ("MRR@10", "RR@10"),
        ("NDCG@5", "nDCG@5"),
        ("IPrec@0.5", "IPrec@0.5"),
        ("NumRet(rel=1)", "NumRet(rel=1)"),
        ("map", "AP"),
        ("P_5", "P@5"),
        ("ndcg_cut.10", "nDCG@10"),
        ("ndcg_cut_10", "nDCG@10"),
        ("recip_rank", "RR"),
        ("map_cut.100", "AP@100"),
        ("recall_1000", "R@1000"),
        ("success.1", "Success@1"),
        ("iprec_at_recall_0.10", "IPrec@0.1"),
        ("gm_map", "GMAP"),
        ("set_P", "P"),
        ("ndcg", "nDCG"),
    ],
)
def test_parse_to_canonical(text: str, canonical: str) -> None:
    assert parse_measure(text).name == canonical


def test_trec_names_with_several_values_expand() -> None:
    assert [m.name for m in parse_measures(["P.5,10"])] == ["P@5", "P@10"]
    assert [m.name for m in parse_measures(["P"])] == ["P"]  # ir_measures: set precision
    assert [m.name for m in parse_measures(["recall"])] == [f"R@{k}" for k in DEFAULT_CUTOFFS]
    assert [m.name for m in parse_measures(["ndcg_cut.20,10,23.4"])] == [
        "nDCG@10",
        "nDCG@20",
        "nDCG@23",
    ]
    official = [m.name for m in parse_measures(["official"])]
    assert official[:6] == ["NumQ", "NumRet", "NumRel", "NumRelRet", "AP", "GMAP"]
    assert "IPrec@0.0" in official and "IPrec@1.0" in official and "P@1000" in official
    assert len(official) == 10 + 11 + 9 - 1  # 11 recall levels, 9 cut-offs, no runid


def test_duplicates_are_kept_once_in_order() -> None:
    names = [m.name for m in parse_measures(["P@10", "P_10", "AP", "map", "nDCG@10"])]
    assert names == ["P@10", "AP", "nDCG@10"]


def test_measures_are_hashable_and_equal_by_canonical_name() -> None:
    assert parse_measure("P(rel=1)@10") == parse_measure("P_10")
    assert len({parse_measure("MAP"), parse_measure("AP"), parse_measure("map")}) == 1


@pytest.mark.parametrize(
    "text,fragment",
    [
        ("nDGC@10", "did you mean 'nDCG'"),
        ("ndcg_cutt.10", "unknown measure 'ndcg_cutt'"),
        ("P(rel=2", "expected"),
        ("P(foo=1)@10", "P has no parameter 'foo'"),
        ("P(rel='x')@10", "parameter rel must be int"),
        ("P@0", "must be at least 1"),
        ("P@1.5", "parameter cutoff must be int"),
        ("Rprec@10", "Rprec takes no '@' value"),
        ("Success", "Success needs '@cutoff'"),
        ("P(rel=1, rel=2)", "sets 'rel' twice"),
        ("P.0", "cut-offs must be positive"),
        ("P.5,5", "duplicate cut-offs"),
        ("P@10 junk", "unexpected"),
        ("official@5", "cannot parse"),
    ],
)
def test_errors_say_what_is_wrong(text: str, fragment: str) -> None:
    with pytest.raises(MeasureError) as info:
        parse_measure(text)
    assert fragment in str(info.value)


def test_parse_measure_refuses_a_name_that_stands_for_several() -> None:
    with pytest.raises(MeasureError, match="stands for 2 measures"):
        parse_measure("P.5,10")


def test_trec_value_names() -> None:
    assert trec_value_name(parse_measure("P@10")) == "P_10"
    assert trec_value_name(parse_measure("AP")) == "map"
    assert trec_value_name(parse_measure("AP@100")) == "map_cut_100"
    assert trec_value_name(parse_measure("IPrec@0.1")) == "iprec_at_recall_0.10"
    assert trec_value_name(parse_measure("P(rel=2)@10")) is None
    assert trec_value_name(parse_measure("Judged@10")) is None


@st.composite
def instances(draw: st.DrawFn) -> str:
    """A random valid measure in the ir_measures language."""
    spec = REGISTRY[draw(st.sampled_from(sorted(REGISTRY)))]
    params = []
    drawn: set[str] = set()
    for p in spec.params:
        if p.name == "max_rel" and "max_grade" in drawn:
            continue  # ir_measures' other name for max_grade: one of the two (else they clash)
        if draw(st.booleans()):
            lowest = 0 if p.minimum is None else p.minimum
            if p.choices is not None:
                value = draw(st.sampled_from(p.choices))
            elif p.type is bool:
                value = draw(st.booleans())
            elif p.type is int:
                value = draw(st.integers(max(0, math.ceil(lowest)), 4))
            elif p.type is float:
                value = draw(st.sampled_from([v for v in (0.5, 0.8, 0.95) if p.in_range(v)]))
            else:
                continue
            params.append(f"{p.name}={value!r}")
            drawn.add(p.name)
    text = spec.name + (f"({', '.join(params)})" if params else "")
    if spec.at is not None and (spec.at_required or draw(st.booleans())):
        if spec.at.type is int:
            text += f"@{draw(st.integers(1, 1000))}"
        else:
            levels = [v for v in (0.0, 0.1, 0.25, 0.5, 1.0) if spec.at.in_range(v)]
            text += f"@{draw(st.sampled_from(levels))}"
    return text


@given(instances())
def test_canonical_names_round_trip(text: str) -> None:
    measure = parse_measure(text)
    again = parse_measure(measure.name)
    assert again == measure
    assert again.name == measure.name
    assert again.params == measure.params


def test_every_trec_eval_name_evaluates_like_trec_eval(trec_eval_data) -> None:
    """``evaluate(..., ["set_F"])`` (any trec_eval measure name, default parameters) gives
    the 'all' value of trec_eval 10.0's own expected output (``-m all_trec -q -c``)."""
    import ranklens
    from ranklens.measures.trec_table import MEASURES, Options, request

    expected: dict[str, str] = {}
    for line in (trec_eval_data / "out.test.aqc").read_text().splitlines():
        name, qid, value = line.split("\t")
        if qid == "all":
            expected[name.strip()] = value
    checked = 0
    for trec in MEASURES:
        if trec.source != "qrels" or trec.name in ("runid", "relstring"):
            continue
        # 'P' is also ranklens' own name (set precision, as ir_measures): spell trec_eval's
        # default cut-offs out for it
        text = f"P.{trec.default}" if trec.name == "P" else trec.name
        measures = parse_measures([text])
        slots = request([text], Options())
        assert len(measures) == len(slots), trec.name
        res = ranklens.evaluate(
            trec_eval_data / "qrels.test", trec_eval_data / "results.trunc", measures
        )
        for measure, slot in zip(measures, slots, strict=True):
            if slot.name not in expected:  # 10.0 prints it only when asked (unj, rbp)
                continue
            want = float(expected[slot.name])
            assert res[measure] == pytest.approx(want, abs=5.1e-5), (trec.name, slot.name)
            checked += 1
    assert checked > 80
