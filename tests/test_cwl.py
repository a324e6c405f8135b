"""C/W/L measures against cwl_eval's own classes (differential, to 1e-9, every reported
number and its residual), its documented test cases, and hand-computed values."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ranklens

cwl_ranking = pytest.importorskip("cwl.ruler.ranking")
from cwl.ruler.measures.cwl_ap import APCWLMetric  # noqa: E402
from cwl.ruler.measures.cwl_bpm import BPMCWLMetric  # noqa: E402
from cwl.ruler.measures.cwl_dcg import NDCGCWLMetric  # noqa: E402
from cwl.ruler.measures.cwl_insq import INSQCWLMetric  # noqa: E402
from cwl.ruler.measures.cwl_inst import INSTCWLMetric  # noqa: E402
from cwl.ruler.measures.cwl_nerr import (  # noqa: E402
    NERReq8CWLMetric,
    NERReq9CWLMetric,
    NERReq10CWLMetric,
    NERReq11CWLMetric,
)
from cwl.ruler.measures.cwl_precision import PrecisionCWLMetric  # noqa: E402
from cwl.ruler.measures.cwl_rbp import RBPCWLMetric  # noqa: E402
from cwl.ruler.measures.cwl_rr import RRCWLMetric  # noqa: E402

PEERS = {
    "INST(T=3.0)": lambda: INSTCWLMetric(3.0),
    "INST": lambda: INSTCWLMetric(1.0),
    "INSQ(T=2.0)": lambda: INSQCWLMetric(2.0),
    "BPM(K=5.0,T=2.0)": lambda: BPMCWLMetric(2.0, 5.0),
    "CWL_RBP(theta=0.8)": lambda: RBPCWLMetric(0.8),
    "CWL_P@3": lambda: PrecisionCWLMetric(3),
    "CWL_RR": RRCWLMetric,
    "CWL_AP": APCWLMetric,
    "SDCG@3": lambda: NDCGCWLMetric(3),
    "NERR8@3": lambda: NERReq8CWLMetric(3),
    "NERR9@4": lambda: NERReq9CWLMetric(4),
    "NERR10(p=0.7)": lambda: NERReq10CWLMetric(0.7),
    "NERR11(T=2.0)": lambda: NERReq11CWLMetric(2.0),
}
REPORTS = {
    "EU": "expected_utility",
    "ETU": "expected_total_utility",
    "EC": "expected_cost",
    "ETC": "expected_total_cost",
    "EI": "expected_items",
}


def _with(name: str, extra: str) -> str:
    """``name`` with parameters ``extra`` added (before any ``@``)."""
    base, _, at = name.partition("@")
    base = base[:-1] + "," + extra + ")" if base.endswith(")") else base + "(" + extra + ")"
    return base + ("@" + at if at else "")


docs = st.sampled_from([f"d{i}" for i in range(12)])


@settings(max_examples=40, deadline=None)
@given(
    grades=st.dictionaries(docs, st.integers(-1, 3), min_size=1),
    ranking=st.lists(docs, unique=True, min_size=1, max_size=12),
)
def test_equals_cwl_eval(grades: dict[str, int], ranking: list[str]) -> None:
    qrels = {"q": grades}
    run = {"q": {d: float(len(ranking) - i) for i, d in enumerate(ranking)}}
    gains = [
        (min(grades[d], 3) / 3 if grades[d] >= 0 else 0.0) if d in grades else math.nan
        for d in ranking
    ]
    costs = [math.nan] * len(ranking)
    names = []
    expected = []
    for name, make in PEERS.items():
        metric = make()
        metric.residuals = True
        metric.measure(cwl_ranking.Ranking("q", np.array(gains), np.array(costs)))
        for report, attr in REPORTS.items():
            top = "max_rel" if name.startswith(("SDCG", "NERR")) else "max_grade"
            names.append(_with(name, f"report='{report}',{top}=3"))
            expected.append(getattr(metric, attr))
            names.append(_with(name, f"report='{report}',{top}=3,residual=True"))
            expected.append(getattr(metric, "residual_" + attr))
    res = ranklens.evaluate(qrels, run, names)
    for name, value in zip(names, expected, strict=True):
        assert res[name] == pytest.approx(value, abs=1e-9, rel=1e-9), name


def test_cwl_eval_documented_cases() -> None:
    """cwl_eval's tests: P@1 is 1 on a ranking starting with gain 1 and 0 on one starting with
    0; P@5 of one relevant document at the top of a padded ranking is 0.2 with ETU 1."""
    qrels = {"q": {"a": 1, "b": 0}}
    assert ranklens.evaluate(qrels, {"q": {"a": 2.0, "b": 1.0}}, "CWL_P@1")["CWL_P@1"] == 1.0
    assert ranklens.evaluate(qrels, {"q": {"b": 2.0, "a": 1.0}}, "CWL_P@1")["CWL_P@1"] == 0.0
    res = ranklens.evaluate(qrels, {"q": {"a": 1.0}}, ["CWL_P@5", "CWL_P(report='ETU')@5"])
    assert res["CWL_P@5"] == pytest.approx(0.2)
    assert res["CWL_P(report='ETU')@5"] == pytest.approx(1.0)


def test_hand_computed() -> None:
    qrels = {"q1": {"a": 1, "b": 0, "c": 1}}
    run = {"q1": {"b": 0.9, "a": 0.8, "c": 0.7}}  # gains 0, 1, 1, then padding
    res = ranklens.evaluate(
        qrels, run, ["CWL_RR", "CWL_AP", "CWL_RBP(theta=0.5)", "BPM(K=2.0)", "CWL_RR(report='EI')"]
    )
    assert res["CWL_RR"] == pytest.approx(1 / 2)  # W = (1/2, 1/2)
    assert res["CWL_AP"] == pytest.approx((1 / 2 + 2 / 3) / 2)
    assert res["CWL_RBP(theta=0.5)"] == pytest.approx(0.5 * (0.5 + 0.25))
    assert res["BPM(K=2.0)"] == pytest.approx(1 / 2)
    assert res["CWL_RR(report='EI')"] == pytest.approx(2.0)
