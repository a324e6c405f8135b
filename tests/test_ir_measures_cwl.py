"""ir_measures' expectations for its cwl_eval-provided measures (its tests/test_cwl_eval.py:
values "based on a manual execution of cwl-eval", to 4 places, on its cwl.qrels / cwl.run),
evaluated here under the same names in ranklens' measure language.

ir_measures' ``P@k``, ``RR``, ``AP`` and ``RBP(p=0.9, rel=1)`` come from cwl_eval there; in
ranklens those names are trec_eval's measures, and on these binary qrels (every relevant
document retrieved) they are equal; the C/W/L forms ``CWL_P@k``, ``CWL_RR``, ``CWL_AP`` and
``CWL_RBP(theta=0.9)`` are checked against the same numbers."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ranklens
from ranklens.base.errors import MeasureError
from ranklens.measures import parse_measure

DATA = Path(__file__).parent / "data" / "ir_measures"

# ir_measures' name, its C/W/L form in ranklens (None: the same name), expected T1, T2, T3
EXPECTED = [
    ("AP", "CWL_AP", (0.7087, 0.7438, 0.3068)),
    ("BPM(T=1.0, max_rel=1)@20", None, (1.0000, 1.0000, 0.1667)),
    ("BPM(T=2.0, max_rel=1)@10", None, (0.6667, 1.0000, 0.2857)),
    ("INSQ(T=1.0, max_rel=1)", None, (0.5872, 0.6629, 0.0880)),
    ("INSQ(T=2.0, max_rel=1)", None, (0.4513, 0.5068, 0.1292)),
    ("INST(T=1.0, max_rel=1)", None, (0.7934, 0.9226, 0.0888)),
    ("INST(T=2.0, max_rel=1)", None, (0.5994, 0.6924, 0.1397)),
    ("SDCG(max_rel=1)@10", None, (0.5645, 0.6531, 0.2848)),
    ("NERR8(max_rel=1)@10", None, (1.0000, 1.0000, 0.1667)),
    ("NERR9(max_rel=1)@10", None, (1.0000, 1.0000, 0.0680)),
    ("NERR10(p=0.8, max_rel=1)", None, (1.0000, 1.0000, 0.0888)),
    ("NERR11(T=2.0, max_rel=1)", None, (1.0000, 1.0000, 0.0691)),
    ("P@1", "CWL_P@1", (1.0000, 1.0000, 0.0000)),
    ("P@10", "CWL_P@10", (0.5000, 0.6000, 0.4000)),
    ("P@20", "CWL_P@20", (0.2500, 0.3000, 0.2000)),
    ("P@5", "CWL_P@5", (0.6000, 0.6000, 0.0000)),
    ("RBP(p=0.9, rel=1)", "CWL_RBP(theta=0.9)", (0.3501, 0.3996, 0.1988)),
    ("RR", "CWL_RR", (1.0000, 1.0000, 0.1667)),
]


@pytest.mark.parametrize(("name", "cwl_form", "expected"), EXPECTED, ids=[e[0] for e in EXPECTED])
def test_ir_measures_cwl_eval_expectations(
    name: str, cwl_form: str | None, expected: tuple[float, float, float]
) -> None:
    names = [name] if cwl_form is None else [name, cwl_form]
    res = ranklens.evaluate(str(DATA / "cwl.qrels"), str(DATA / "cwl.run"), names).per_query
    for text in names:
        key = str(parse_measure(text))
        got = [res[q][key] for q in ("T1", "T2", "T3")]
        assert got == pytest.approx(list(expected), abs=1e-4), text


def test_ir_measures_spellings() -> None:
    """ir_measures' parameters: max_rel for the grade of gain 1, min_rel for gain 0, and
    BPM's cutoff as its budget K."""
    assert parse_measure("BPM(T=2.0,max_rel=1)@10")["K"] == 10.0
    qrels = {"q": {"a": 3, "b": 1, "c": 2}}
    run = {"q": {"a": 3.0, "b": 2.0, "c": 1.0}}
    names = ["CWL_P(max_rel=3,min_rel=1)@3", "CWL_P(max_grade=3)@3"]
    names += ["INST(max_rel=3)", "INST(max_grade=3)"]
    res = ranklens.evaluate(qrels, run, names)
    # gains (3-1)/2, 0, (2-1)/2 with min_rel=1; 1, 1/3, 2/3 without
    assert res["CWL_P(max_rel=3,min_rel=1)@3"] == pytest.approx((1 + 0 + 0.5) / 3)
    assert res["CWL_P(max_grade=3)@3"] == pytest.approx((1 + 1 / 3 + 2 / 3) / 3)
    assert res["INST(max_rel=3)"] == res["INST(max_grade=3)"]
    with pytest.raises(MeasureError, match="disagree"):
        ranklens.evaluate(qrels, run, "INST(max_rel=3,max_grade=2)")


docs = [f"d{i}" for i in range(10)]


@settings(max_examples=30, deadline=None)
@given(
    grades=st.dictionaries(st.sampled_from(docs), st.integers(-1, 4), min_size=1),
    ranking=st.lists(st.sampled_from(docs), unique=True, min_size=1, max_size=10),
    min_rel=st.sampled_from([0, 1]),
    max_rel=st.sampled_from([2, 3]),
)
def test_equals_ir_measures_cwl_provider(
    grades: dict[str, int], ranking: list[str], min_rel: int, max_rel: int
) -> None:
    """ir_measures' cwl_eval provider on graded qrels (negative judgments, grades above
    max_rel), unjudged documents, min_rel and max_rel, under the same names."""
    irm = pytest.importorskip("ir_measures")
    rng = f"min_rel={min_rel},max_rel={max_rel}"
    names = [
        f"INST(T=1.5,{rng})",
        f"INSQ(T=2.0,{rng})",
        f"BPM(T=1.0,{rng})@4",
        f"SDCG({rng})@5",
        f"NERR8({rng})@5",
        f"NERR9({rng})@3",
        f"NERR10(p=0.7,{rng})",
        f"NERR11(T=2.0,{rng})",
    ]
    qrels = {"q": grades}
    run = {"q": {d: float(len(ranking) - i) for i, d in enumerate(ranking)}}
    got = ranklens.evaluate(qrels, run, names).per_query["q"]
    peer = {irm.parse_measure(n): n for n in names}
    values = {peer[m.measure]: m.value for m in irm.cwl_eval.iter_calc(list(peer), qrels, run)}
    assert set(values) == set(names)
    for name in names:
        assert got[str(parse_measure(name))] == pytest.approx(values[name], abs=1e-9), name
