"""C/W/L measures with per-document costs (the evaluator's ``costs=``) against cwl_eval's
cost-file machinery, to 1e-9: its cost-file reader, its ranking maker (element types from
the run's second column, unpriced types at max_cost / min_cost) and its measures, every
reported number and residual; and the three ways of giving costs agree."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ranklens
from ranklens.base.errors import InputError, MeasureError
from ranklens.measures import parse_measure

cwl_eval = pytest.importorskip("cwl.cwl_eval")
from cwl.ruler.measures.cwl_ap import APCWLMetric  # noqa: E402
from cwl.ruler.measures.cwl_bpm import BPMCWLMetric  # noqa: E402
from cwl.ruler.measures.cwl_dcg import NDCGCWLMetric  # noqa: E402
from cwl.ruler.measures.cwl_insq import INSQCWLMetric  # noqa: E402
from cwl.ruler.measures.cwl_inst import INSTCWLMetric  # noqa: E402
from cwl.ruler.measures.cwl_nerr import NERReq8CWLMetric, NERReq11CWLMetric  # noqa: E402
from cwl.ruler.measures.cwl_precision import PrecisionCWLMetric  # noqa: E402
from cwl.ruler.measures.cwl_rbp import RBPCWLMetric  # noqa: E402
from cwl.ruler.measures.cwl_rr import RRCWLMetric  # noqa: E402
from cwl.ruler.ranking import Ranking, RankingMaker  # noqa: E402

from test_cwl import REPORTS, _with  # noqa: E402  (the same names and cwl_eval attributes)

DATA = Path(__file__).parent / "data" / "ir_measures"
PEERS = {
    "INST": lambda: INSTCWLMetric(1.0),
    "INSQ(T=2.0)": lambda: INSQCWLMetric(2.0),
    "BPM(T=2.0)@10": lambda: BPMCWLMetric(2.0, 10),
    "BPM(T=1.0)@7.5": lambda: BPMCWLMetric(1.0, 7.5),
    "BPM(T=1000.0)@12": lambda: BPMCWLMetric(1000.0, 12),
    "CWL_RBP(theta=0.9)": lambda: RBPCWLMetric(0.9),
    "CWL_P@5": lambda: PrecisionCWLMetric(5),
    "CWL_RR": RRCWLMetric,
    "CWL_AP": APCWLMetric,
    "SDCG@10": lambda: NDCGCWLMetric(10),
    "NERR8@10": lambda: NERReq8CWLMetric(10),
    "NERR11(T=2.0)": lambda: NERReq11CWLMetric(2.0),
}


def _names_and_values(
    metric_of: dict[str, object], extra: str
) -> tuple[list[str], list[tuple[str, str, bool]]]:
    names, keys = [], []
    for name in metric_of:
        for report in REPORTS:
            for residual in (False, True):
                more = f"report='{report}'" + (",residual=True" if residual else "")
                names.append(_with(name, f"{more},{extra}" if extra else more))
                keys.append((name, report, residual))
    return names, keys


def _peer_value(metric: object, report: str, residual: bool) -> float:
    attr = REPORTS[report]
    return float(getattr(metric, "residual_" + attr if residual else attr))


@pytest.mark.parametrize(
    ("cost_lines", "max_cost", "min_cost"),
    [
        (None, 1.0, 1.0),  # the cost file itself: every type priced
        ("E1 1.0\nE2 2.0\n", 3.0, 0.5),  # E3 unpriced: max_cost, min_cost for the best case
    ],
)
def test_cost_file_equals_cwl_eval(
    tmp_path: Path, cost_lines: str | None, max_cost: float, min_cost: float
) -> None:
    """ir_measures' cwl.qrels / cwl.run (element types E1-E3 in the run's second column)
    with cwl_eval's test cost file, read by cwl_eval's own reader and ranking maker."""
    cost_file = DATA / "cwl_eval.costs"
    if cost_lines is not None:
        cost_file = tmp_path / "costs"
        cost_file.write_text(cost_lines)
    type_cost = cwl_eval.read_in_cost_file(str(cost_file))
    qrh = cwl_eval.TrecQrelHandler(str(DATA / "cwl.qrels"))
    lines = [line.split() for line in (DATA / "cwl.run").read_text().splitlines() if line]
    makers: dict[str, RankingMaker] = {}
    for topic, element_type, doc, *_ in lines:  # the file is in rank order, as cwl_eval reads it
        maker = makers.setdefault(
            topic,
            RankingMaker(topic, qrh, type_cost, max_cost=max_cost, min_cost=min_cost),
        )
        maker.add(doc, element_type)
    # ranklens: the same costs per (query, document)
    costs = {
        topic: {doc: type_cost[t] for q, t, doc, *_ in lines if q == topic and t in type_cost}
        for topic in makers
    }
    names, keys = _names_and_values(PEERS, f"max_cost={max_cost},min_cost={min_cost}")
    res = ranklens.evaluate(
        str(DATA / "cwl.qrels"), str(DATA / "cwl.run"), names, costs=costs
    ).per_query
    for topic, maker in makers.items():
        ranking = maker.get_ranking()
        for name, make in PEERS.items():
            metric = make()
            metric.residuals = True
            metric.measure(ranking)
            for text, (key, report, residual) in zip(names, keys, strict=True):
                if key != name:
                    continue
                want = _peer_value(metric, report, residual)
                got = res[topic][str(parse_measure(text))]
                assert got == pytest.approx(want, abs=1e-9, rel=1e-9), (topic, text)


docs = [f"d{i}" for i in range(10)]


@settings(max_examples=40, deadline=None)
@given(
    grades=st.dictionaries(st.sampled_from(docs), st.integers(-1, 3), min_size=1),
    ranking=st.lists(st.sampled_from(docs), unique=True, min_size=1, max_size=10),
    priced=st.dictionaries(
        st.sampled_from(docs), st.sampled_from([0.5, 1.0, 2.0, 3.5, 7.0]), max_size=10
    ),
    max_cost=st.sampled_from([1.0, 4.0]),
    min_cost=st.sampled_from([0.25, 1.0]),
)
def test_equals_cwl_eval_on_generated_costs(
    grades: dict[str, int],
    ranking: list[str],
    priced: dict[str, float],
    max_cost: float,
    min_cost: float,
) -> None:
    """Graded, unjudged and unpriced documents; cwl_eval's Ranking with NaN for an unjudged
    gain and for an unpriced cost (what its ranking maker builds)."""
    qrels = {"q": grades}
    run = {"q": {d: float(len(ranking) - i) for i, d in enumerate(ranking)}}
    gains = [
        (min(grades[d], 3) / 3 if grades[d] >= 0 else 0.0) if d in grades else math.nan
        for d in ranking
    ]
    costs = [priced.get(d, math.nan) for d in ranking]
    peer_ranking = Ranking(
        "q", np.array(gains), np.array(costs), max_cost=max_cost, min_cost=min_cost
    )
    names, keys = _names_and_values(PEERS, f"max_cost={max_cost},min_cost={min_cost},{'{top}'}=3")
    names = [
        n.replace("{top}", "max_rel" if n.startswith(("SDCG", "NERR")) else "max_grade")
        for n in names
    ]
    res = ranklens.evaluate(qrels, run, names, costs={"q": priced})
    for name, make in PEERS.items():
        metric = make()
        metric.residuals = True
        metric.measure(peer_ranking)
        for text, (key, report, residual) in zip(names, keys, strict=True):
            if key == name:
                want = _peer_value(metric, report, residual)
                assert res[text] == pytest.approx(want, abs=1e-9, rel=1e-9), text


def test_cost_forms_agree(tmp_path: Path) -> None:
    qrels = {"q1": {"a": 1, "b": 0}, "q2": {"a": 1}}
    run = {"q1": {"a": 2.0, "b": 1.0, "c": 0.5}, "q2": {"b": 2.0, "a": 1.0}}
    names = ["INST(report='EC')", "BPM(T=2.0,report='ETC')@3", "CWL_P(report='EC')@2"]
    shared = {"a": 2.0, "b": 3.0}
    per_query = {"q1": shared, "q2": shared}
    two = tmp_path / "two.costs"
    two.write_text("# docid cost\na 2.0\nb 3\n")
    three = tmp_path / "three.costs"
    three.write_text("q1 a 2.0\nq1 b 3.0\n\nq2 a 2\nq2 b 3\n")
    values = [
        ranklens.evaluate(qrels, run, names, costs=c).per_query
        for c in (shared, per_query, str(two), three)
    ]
    assert all(v == values[0] for v in values[1:])
    # CWL_P@2 weighs the first two documents equally: q1 costs a 2, b 3; q2 b 3, a 2
    assert values[0]["q1"]["CWL_P(report='EC')@2"] == pytest.approx(2.5)
    # BPM budget 3: q1 spends 2 (a) < 3, then 5 (a, b): the user stops after b
    assert values[0]["q1"][str(parse_measure("BPM(T=2.0,report='ETC')@3"))] == pytest.approx(5.0)


def test_without_costs_every_document_costs_one() -> None:
    qrels = {"q": {"a": 1}}
    run = {"q": {"a": 2.0, "b": 1.0}}
    res = ranklens.evaluate(qrels, run, ["INST(report='EC')", "INST(report='EC',max_cost=2.0)"])
    assert res["INST(report='EC')"] == pytest.approx(1.0)
    assert res["INST(report='EC',max_cost=2.0)"] == pytest.approx(2.0)  # nothing priced


def test_bad_costs_are_errors(tmp_path: Path) -> None:
    qrels, run = {"q": {"a": 1}}, {"q": {"a": 1.0}}
    with pytest.raises(InputError, match="finite number >= 0"):
        ranklens.evaluate(qrels, run, "INST", costs={"a": -1.0})
    with pytest.raises(InputError, match="not a mix"):
        ranklens.evaluate(qrels, run, "INST", costs={"a": 1.0, "q": {"a": 1.0}})
    bad = tmp_path / "bad.costs"
    bad.write_text("a 1.0\nb\n")
    with pytest.raises(InputError, match=r"bad.costs:2"):
        ranklens.evaluate(qrels, run, "INST", costs=str(bad))
    with pytest.raises(MeasureError, match="min_cost <= max_cost"):
        ranklens.evaluate(qrels, run, "INST(min_cost=2.0)")


def test_command_line_costs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from ranklens.cli import main

    costs = tmp_path / "costs.txt"
    costs.write_text("T1 D1 3\nD2 2.5\n")
    measures = ["INST(report='EC')", "BPM(T=2.0,report='ETC')@4"]
    qrels, run = str(DATA / "cwl.qrels"), str(DATA / "cwl.run")
    args = ["eval", qrels, run, "-f", "json", "--precision", "full", "--costs", str(costs)]
    assert main([*args, *(x for m in measures for x in ("-m", m))]) == 0
    out = capsys.readouterr().out
    want = ranklens.evaluate(qrels, run, measures, costs=str(costs))
    for m in measures:
        assert repr(want[m]) in out, m
    assert want["INST(report='EC')"] > 1.0
