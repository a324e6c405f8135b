"""The Python API: evaluate(), Evaluator, Results and the named options."""

from __future__ import annotations

import io
import math

import numpy as np
import pytest

import ranklens
from ranklens import Evaluator, OptionError, Results
from ranklens.measures import parse_measure

QRELS = {"q1": {"a": 2, "b": 0, "c": 1}, "q2": {"a": 1}, "q3": {"z": 1}, "q4": {"n": 0}}
RUN = {
    "q1": {"a": 0.2, "b": 0.9, "c": 0.2, "u": 0.5},
    "q2": {"b": 1.0, "a": 1.0},
    "q4": {"n": 1.0},
    "x": {"a": 1.0},
}


def test_evaluate_returns_floats_and_query_counts() -> None:
    res = ranklens.evaluate(QRELS, RUN, ["AP", "P@2", "NumQ"])
    assert isinstance(res, Results)
    assert all(type(v) is float for v in res.aggregate.values())
    assert all(type(v) is float for row in res.per_query.values() for v in row.values())
    assert res.queries == ("q1", "q2", "q3", "q4")
    assert res.query_counts == {
        "qrels": 4,
        "run": 4,
        "evaluated": 4,
        "missing": 1,
        "unjudged": 1,
        "shared": 3,
        "retrieving": 3,
        "matched": 3,
        "retrieved": 7,
    }
    assert res["NumQ"] == 4.0
    assert res["map"] == res["AP"] == res.aggregate["AP"]
    assert res.query_values("P@2")["q3"] == 0.0


def test_means_are_over_the_evaluated_queries() -> None:
    res = ranklens.evaluate(QRELS, RUN, ["RR"])
    # q1: first relevant (grade >= 1) is a/c tied at 0.2 -> c first (docid desc) at rank 3
    # q2: a and b tie at 1.0 -> b first (docid descending), a at rank 2
    assert res.per_query == {
        "q1": {"RR": 1 / 3},
        "q2": {"RR": 0.5},
        "q3": {"RR": 0.0},
        "q4": {"RR": 0.0},
    }
    assert res["RR"] == (1 / 3 + 0.5) / 4


@pytest.mark.parametrize(
    "policy,queries",
    [
        ("qrels", ("q1", "q2", "q3", "q4")),
        ("both", ("q1", "q2", "q4")),
        ("run", ("q1", "q2", "q4", "x")),
    ],
)
def test_query_policies(policy: str, queries: tuple[str, ...]) -> None:
    res = ranklens.evaluate(QRELS, RUN, ["NumQ", "NumRel"], queries=policy)
    assert res.queries == queries
    assert res["NumQ"] == len(queries)
    if policy == "run":
        assert res.per_query["x"]["NumRel"] == 0.0


@pytest.mark.parametrize(
    "ties,order",
    [("trec_eval", ["b", "a"]), ("input", ["b", "a"]), ("docid_asc", ["a", "b"])],
)
def test_tie_policies_decide_rank_order(ties: str, order: list[str]) -> None:
    # q2 ranks b and a with equal scores; a is relevant
    res = ranklens.evaluate(QRELS, RUN, ["RR"], ties=ties)
    assert res.per_query["q2"]["RR"] == 1.0 / (order.index("a") + 1)


def test_input_order_tie_policy_keeps_file_order() -> None:
    run = {"q2": {"a": 1.0, "b": 1.0}}
    with pytest.warns(ranklens.InputWarning, match="missing from run"):
        assert ranklens.evaluate(QRELS, run, "RR", ties="input").per_query["q2"]["RR"] == 1.0
    with pytest.warns(ranklens.InputWarning):
        assert ranklens.evaluate(QRELS, run, "RR").per_query["q2"]["RR"] == 0.5


def test_depth_truncates_before_judged_only() -> None:
    res = ranklens.evaluate(QRELS, RUN, ["NumRet", "NumRet(judged_only=True)"], depth=2)
    assert res.per_query["q1"]["NumRet"] == 2.0  # b, u
    assert res.per_query["q1"]["NumRet(judged_only=True)"] == 1.0  # u is unjudged


def test_judged_only_removes_unjudged_and_negative_documents() -> None:
    qrels = {"q": {"a": 1, "b": -1}}
    run = {"q": {"u": 3.0, "b": 2.0, "a": 1.0}}
    res = ranklens.evaluate(qrels, run, ["RR", "RR(judged_only=True)", "Judged@3"])
    assert res.aggregate == {"RR": 1 / 3, "RR(judged_only=True)": 1.0, "Judged@3": 1 / 3}


def test_gmap_aggregate_and_per_query_ap() -> None:
    res = ranklens.evaluate(QRELS, RUN, ["GMAP", "AP"])
    ap = np.array([row["AP"] for row in res.per_query.values()])
    assert [row["GMAP"] for row in res.per_query.values()] == ap.tolist()
    assert res["GMAP"] == pytest.approx(math.exp(np.mean(np.log(np.maximum(ap, 1e-5)))))


def test_evaluator_prepares_qrels_once_and_takes_measure_objects() -> None:
    ev = Evaluator(QRELS, [parse_measure("nDCG@10"), "P_5"])
    first = ev.evaluate(RUN, name="one")
    second = ev.evaluate(ranklens.Run.from_dict(RUN, name="two"))
    assert first.run == "one" and second.run == "two"
    np.testing.assert_array_equal(first.values, second.values)
    assert [m.name for m in ev.measures] == ["nDCG@10", "P@5"]


def test_results_conversions() -> None:
    res = ranklens.evaluate(QRELS, RUN, ["AP", "P@2"])
    frame = res.to_pandas()
    assert frame.index.name == "query_id" and list(frame.columns) == ["AP", "P@2"]
    assert frame.loc["q1", "AP"] == res.per_query["q1"]["AP"]
    pl_frame = res.to_polars()
    assert pl_frame.columns == ["query_id", "AP", "P@2"] and pl_frame.height == 4
    as_dict = res.to_dict()
    assert as_dict == {"name": "run", "aggregate": res.aggregate, "per_query": res.per_query}
    assert "AP=" in repr(res)
    with pytest.raises(KeyError, match="was not computed"):
        res["nDCG"]
    with pytest.raises(ValueError):
        res.values[0, 0] = 1.0


def test_invalid_options_are_named() -> None:
    with pytest.raises(OptionError, match="ties must be one of"):
        ranklens.evaluate(QRELS, RUN, "AP", ties="random")  # type: ignore[arg-type]
    with pytest.raises(OptionError, match="queries must be one of"):
        ranklens.evaluate(QRELS, RUN, "AP", queries="all")  # type: ignore[arg-type]
    with pytest.raises(OptionError, match="depth must be a positive"):
        ranklens.evaluate(QRELS, RUN, "AP", depth=0)
    with pytest.raises(OptionError, match="duplicates must be one of"):
        ranklens.evaluate(QRELS, RUN, "AP", duplicates="last")  # type: ignore[arg-type]


def test_no_queries_evaluated_gives_nan_means_not_a_crash() -> None:
    res = ranklens.evaluate({"q": {"a": 1}}, {}, ["AP", "NumQ"], queries="both")
    assert res.queries == () and math.isnan(res["AP"]) and res["NumQ"] == 0.0


def test_a_run_sharing_no_query_with_the_qrels_is_an_error() -> None:
    with pytest.raises(ranklens.InputError, match="share no query"):
        ranklens.evaluate({"q": {"a": 1}}, {"other": {"a": 1.0}}, ["AP"])
    with pytest.raises(ranklens.InputError, match="share no query"):
        ranklens.evaluate({"q": {"a": 1}}, {"other": {"a": 1.0}}, ["AP"], queries="both")
    # queries="run" evaluates the run's own queries, judged or not
    res = ranklens.evaluate({"q": {"a": 1}}, {"other": {"a": 1.0}}, ["AP"], queries="run")
    assert res.queries == ("other",)


def test_an_empty_run_in_python_scores_every_qrels_query_zero() -> None:
    res = ranklens.evaluate({"q": {"a": 1}, "r": {"b": 2}}, {}, ["AP", "nDCG@10", "P@5"])
    assert res.queries == ("q", "r") and res.aggregate == {"AP": 0.0, "nDCG@10": 0.0, "P@5": 0.0}
    with pytest.raises(ranklens.EmptyInputError):
        ranklens.evaluate({"q": {"a": 1}}, io.BytesIO(b""), ["AP"])  # an empty file is not


def test_most_qrels_queries_missing_is_a_loud_warning() -> None:
    qrels = {f"q{i}": {"a": 1} for i in range(10)}
    with pytest.warns(ranklens.InputWarning, match="9 of the 10 qrels queries are missing"):
        ranklens.evaluate(qrels, {"q0": {"a": 1.0}}, ["AP"])
