"""ranklens.bounds: exact score ranges under incomplete judgments.

The differential test compares every range with an exhaustive search: each assignment of
grades to a query's unjudged retrieved documents evaluated by ``ranklens.evaluate`` on
its own qrels, on generated queries with graded and negative labels, tied scores,
unjudged documents, queries without relevant documents, and queries on one side only.
"""

from __future__ import annotations

import itertools
import math
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ranklens
from ranklens.analysis.bounds import bounds, method_of
from ranklens.base.errors import MeasureError, OptionError
from ranklens.measures import parse_measure

# generated runs miss most qrels queries: evaluate's warning says so, as it should
pytestmark = pytest.mark.filterwarnings("ignore::ranklens.InputWarning")

MEASURES = [
    "P@3",
    "R@3",
    "R(norm='min')@3",
    "AP",
    "AP@3",
    "AP(norm='min')@3",
    "AP(norm='ret')",
    "GMAP",
    "nDCG",
    "nDCG@3",
    "nDCG(dcg='exp-log2')@4",
    "nDCG(judged_only=True)",
    "RR",
    "Bpref",
    "GMBpref",
    "Rprec",
    "ERR@4",
    "RBP",
    "infAP",
    "P(judged_only=True)@3",
    "AP(judged_only=True)",
    "P(rel=2)@3",
    "AP(rel=2)",
    "nDCG(gains={1:3,2:1})",
    "Success@2",
    "NumRelRet",
    "NumRel",
    "NumRet(rel=1)",
    "SetF",
    "RelP@3",
    "IPrec@0.5",
    "11ptAvg",
    "DCG@3",
    "IDCG",
    "CG@3",
    "YAAP",
    "BinG",
    "G",
    "Judged@3",
    "Unjudged@3",
    "AUC",
    "F1@3",
]


def _generate(seed: int) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]]:
    """Small awkward queries: at most 4 unjudged retrieved documents each."""
    rng = random.Random(seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(rng.randint(2, 4)):
        qid = f"q{q}"
        docs = [f"d{i}" for i in range(rng.randint(2, 7))]
        retrieved = rng.sample(docs, rng.randint(0, len(docs)))
        unjudged = set(rng.sample(retrieved, min(len(retrieved), rng.randint(0, 4))))
        judged = {d: rng.choice([-1, 0, 0, 1, 1, 2]) for d in docs if d not in unjudged}
        if rng.random() < 0.2:  # a query without relevant documents
            judged = {d: min(g, 0) for d, g in judged.items()}
        if judged:
            qrels[qid] = judged
        if retrieved:
            run[qid] = {d: float(rng.choice([1, 2, 2, 3])) for d in retrieved}  # ties
    run["only-run"] = {"z1": 1.0, "z2": 0.5}
    qrels.setdefault("only-qrels", {"y1": 1, "y2": 0})
    return qrels, run


def _exhaustive(
    qrels: dict[str, dict[str, int]],
    run: dict[str, dict[str, float]],
    measures: list[str],
    top: int,
) -> dict[str, dict[str, tuple[float, float]]]:
    """Per query and measure (low, high) over every assignment, by ranklens.evaluate."""
    out: dict[str, dict[str, tuple[float, float]]] = {}
    for qid, judged in qrels.items():
        ranking = run.get(qid, {})
        unjudged = sorted(d for d in ranking if d not in judged)
        seen: dict[str, list[float]] = {m: [] for m in measures}
        for grades in itertools.product(range(top + 1), repeat=len(unjudged)):
            assigned = {**judged, **dict(zip(unjudged, grades, strict=True))}
            # the whole qrels: ERR's default max_rel is the qrels' highest grade
            res = ranklens.evaluate({**qrels, qid: assigned}, run, measures)
            for m in measures:
                seen[m].append(res.query_values(m)[qid])
        out[qid] = {m: (min(v), max(v)) for m, v in seen.items()}
    return out


@pytest.mark.parametrize("seed", range(8))
def test_ranges_equal_an_exhaustive_search(seed: int) -> None:
    qrels, run = _generate(seed)
    result = bounds(qrels, run, MEASURES)
    top = max(max(0, *g.values()) for g in qrels.values())
    assert result.max_grade == top
    reference = _exhaustive(qrels, run, MEASURES, top)
    evaluated = ranklens.evaluate(qrels, run, MEASURES)
    assert set(result.queries) == set(reference)
    for m in MEASURES:
        values = result.query_values(m)
        for qid in reference:
            low, value, high = values[qid]
            assert (low, high) == pytest.approx(reference[qid][m], abs=1e-12), (m, qid)
            assert value == evaluated.query_values(m)[qid]
        agg_low, agg_value, agg_high = result[m]
        assert agg_value == evaluated[m]
        assert agg_low <= agg_high or math.isnan(agg_low)


@pytest.mark.parametrize("seed", range(4))
def test_max_grade_widens_the_grades_tried(seed: int) -> None:
    qrels, run = _generate(100 + seed)
    measures = ["nDCG", "AP(rel=3)", "P(rel=3)@3", "ERR(max_rel=3)@4"]
    result = bounds(qrels, run, measures, max_grade=3)
    reference = _exhaustive(qrels, run, measures, 3)
    for m in measures:
        for qid, (low, _value, high) in result.query_values(m).items():
            assert (low, high) == pytest.approx(reference[qid][m], abs=1e-12), (m, qid)


def test_aggregates_follow_the_measure() -> None:
    qrels, run = _generate(3)
    result = bounds(qrels, run, ["AP", "GMAP", "NumRelRet"])
    lows = result.low
    assert result["AP"][0] == pytest.approx(float(np.mean(lows[:, 0])))
    assert result["NumRelRet"][2] == pytest.approx(float(np.sum(result.high[:, 2])))
    floored = np.maximum(lows[:, 1], 1e-5)
    assert result["GMAP"][0] == pytest.approx(math.exp(float(np.mean(np.log(floored)))))


def test_methods_are_named() -> None:
    assert method_of(parse_measure("P@10")) == "corner"
    assert method_of(parse_measure("AP")) == "prefix"
    assert method_of(parse_measure("AP(norm='ret')")) == "exhaustive"
    assert method_of(parse_measure("nDCG@10")) == "counts"
    assert method_of(parse_measure("nDCG(gains={1:3})")) == "exhaustive"


def test_inputs_are_not_changed_and_frames_work() -> None:
    pd = pytest.importorskip("pandas")
    qrels, run = _generate(5)
    before = repr(qrels), repr(run)
    from_dicts = bounds(qrels, run, ["AP", "nDCG"])
    assert (repr(qrels), repr(run)) == before
    frame = pd.DataFrame(
        [(q, d, s) for q, docs in run.items() for d, s in docs.items()],
        columns=["query_id", "doc_id", "score"],
    )
    from_frame = bounds(ranklens.Qrels(qrels), frame, ["AP", "nDCG"])
    assert from_frame.aggregate == from_dicts.aggregate


def test_a_search_beyond_the_limit_is_refused() -> None:
    qrels = {"q": {"a": 2}}
    run = {"q": {f"d{i}": float(i) for i in range(12)}}
    with pytest.raises(OptionError, match=r"nDCG\(gains=\{1:3\}\) needs 3\^12 = 531441"):
        bounds(qrels, run, ["nDCG(gains={1:3})"])
    low, _value, high = bounds(qrels, run, ["nDCG"])["nDCG"]  # counts: C(14, 2) x 2
    assert low == 0.0 and 0.9 < high < 1.0  # "a" (grade 2) is not retrieved


def test_bad_options() -> None:
    with pytest.raises(OptionError, match="max_grade"):
        bounds({"q": {"a": 1}}, {"q": {"a": 1.0}}, "AP", max_grade=-1)
    with pytest.raises(OptionError, match="limit"):
        bounds({"q": {"a": 1}}, {"q": {"a": 1.0}}, "AP", limit=0)
    with pytest.raises(OptionError, match=r"ERR\(max_rel=3\)"):
        bounds({"q": {"a": 1}}, {"q": {"a": 1.0}}, "ERR", max_grade=3)
    with pytest.raises(MeasureError, match="subtopics"):
        bounds({"q": {"a": 1}}, {"q": {"a": 1.0}}, "alpha_nDCG@10")


@pytest.mark.parametrize("seed", range(6))
def test_the_ndcg_search_equals_the_sorted_assignments(seed: int) -> None:
    """limit=1 sends every nDCG query with unjudged documents to the Dinkelbach search;
    it must find what trying every sorted assignment finds (and the exhaustive search)."""
    qrels, run = _generate(200 + seed)
    measures = ["nDCG", "nDCG@3", "nDCG(dcg='exp-log2')", "nDCG(judged_only=True)@4"]
    searched = bounds(qrels, run, measures, limit=1)
    reference = _exhaustive(qrels, run, measures, searched.max_grade)
    for m in measures:
        for qid, (low, _value, high) in searched.query_values(m).items():
            assert (low, high) == pytest.approx(reference[qid][m], abs=1e-12), (m, qid)


@pytest.mark.parametrize("seed", range(6))
def test_the_ndcg_search_on_longer_rankings(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Rankings of up to 40 documents, half unjudged, grades up to 4: the search (limit=1)
    against every sorted assignment (the counts method, proven by rearrangement)."""
    rng = random.Random(300 + seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(3):
        docs = [f"d{i}" for i in range(rng.randint(5, 40))]
        qrels[f"q{q}"] = {d: rng.choice([-1, 0, 0, 1, 2, 3]) for d in docs if rng.random() < 0.5}
        qrels[f"q{q}"].setdefault("extra", rng.choice([0, 2, 4]))
        run[f"q{q}"] = {d: float(rng.randint(0, 9)) for d in docs}
    measures = ["nDCG", "nDCG@10", "nDCG(dcg='exp-log2')@20"]
    for top in (1, 4):  # one grade: scored at once; several: Dinkelbach's search
        searched = bounds(qrels, run, measures, top, limit=1)
        with monkeypatch.context() as patched:  # every sorted assignment, however many rows
            patched.setattr("ranklens.analysis.bounds._SEARCH_ROWS", 10**12)
            tried = bounds(qrels, run, measures, top, limit=10**7)
        np.testing.assert_allclose(searched.low, tried.low, rtol=0, atol=1e-12)
        np.testing.assert_allclose(searched.high, tried.high, rtol=0, atol=1e-12)


def _joint_differences(
    qrels: dict[str, dict[str, int]],
    run_a: dict[str, dict[str, float]],
    run_b: dict[str, dict[str, float]],
    measures: list[str],
    top: int,
) -> dict[str, dict[str, tuple[list[float], list[float]]]]:
    """Per query and measure, the values of a and of b under every joint assignment of the
    union of their unjudged retrieved documents (by ranklens.evaluate)."""
    out: dict[str, dict[str, tuple[list[float], list[float]]]] = {}
    for qid, judged in qrels.items():
        union = sorted({d for r in (run_a, run_b) for d in r.get(qid, {}) if d not in judged})
        seen: dict[str, tuple[list[float], list[float]]] = {m: ([], []) for m in measures}
        for grades in itertools.product(range(top + 1), repeat=len(union)):
            assigned = {**qrels, qid: {**judged, **dict(zip(union, grades, strict=True))}}
            for side, run in enumerate((run_a, run_b)):
                res = ranklens.evaluate(assigned, run, measures)
                for m in measures:
                    seen[m][side].append(res.query_values(m)[qid])
        out[qid] = seen
    return out


PAIR_MEASURES = ["P@3", "AP", "nDCG@3", "RR", "Bpref", "Rprec", "NumRel", "infAP"]


@pytest.mark.parametrize("seed", range(5))
def test_joint_ranges_and_pair_bounds_are_sound(seed: int) -> None:
    from ranklens.analysis.comparison_bounds import joint_bounds, pair_bounds, tried_jointly

    qrels, run_a = _generate(400 + seed)
    run_a.setdefault(next(iter(qrels)), {"w": 1.0})  # a query in both
    rng = random.Random(seed)
    run_b = {
        q: {d: s + rng.choice([-1.0, 0.0, 1.0]) for d, s in docs.items()}
        for q, docs in run_a.items()
    }
    for q in list(run_b):  # b drops some documents and retrieves others
        run_b[q] = {d: s for d, s in run_b[q].items() if rng.random() < 0.7}
        run_b[q][f"new{q}"] = 2.5
    the_qrels = ranklens.Qrels(qrels)
    a, b = ranklens.Run(run_a, name="a"), ranklens.Run(run_b, name="b")
    measures = ranklens.parse_measures(PAIR_MEASURES)
    ranges_b = joint_bounds(the_qrels, b, a, measures)
    ranges_a = joint_bounds(the_qrels, a, b, measures)
    top = ranges_a.max_grade
    reference = _joint_differences(qrels, run_a, run_b, PAIR_MEASURES, top)
    for m in PAIR_MEASURES:
        for qid, (values_a, values_b) in ((q, reference[q][m]) for q in reference):
            # each run's range over the union of the two runs' unjudged documents is exact
            assert ranges_a.query_values(m)[qid][::2] == pytest.approx(
                (min(values_a), max(values_a)), abs=1e-12
            ), (m, qid)
            assert ranges_b.query_values(m)[qid][::2] == pytest.approx(
                (min(values_b), max(values_b)), abs=1e-12
            ), (m, qid)
    outer = pair_bounds(ranges_b, ranges_a)
    joint = tried_jointly(the_qrels, b, a, measures, top)
    flips = pair_bounds(ranges_b, ranges_a, joint=joint)
    n = len(ranges_a.queries)
    for m in PAIR_MEASURES:
        per_query = [
            [vb - va for va, vb in zip(*reference[q][m], strict=True)] for q in ranges_a.queries
        ]
        lowest = sum(min(d) for d in per_query) / n
        highest = sum(max(d) for d in per_query) / n
        pb = flips[m]
        if m == "NumRel":  # a sum
            lowest, highest = lowest * n, highest * n
        assert outer[m].low <= lowest + 1e-12 and highest <= outer[m].high + 1e-12, m
        assert pb.exact  # every query's union is small here: tried jointly
        assert (pb.low, pb.high) == pytest.approx((lowest, highest), abs=1e-12), m


def test_compare_marks_a_comparison_that_could_flip() -> None:
    # b is ahead on the judged documents; the unjudged x, ranked first by a only,
    # could put a ahead
    qrels = {f"q{i}": {"r": 1, "n": 0} for i in range(4)}
    run_a = {q: {"x": 3.0, "n": 2.0, "r": 1.0} for q in qrels}
    run_b = {q: {"r": 3.0, "n": 2.0, "x": 1.0} for q in qrels}
    cmp = ranklens.compare(qrels, {"a": run_a, "b": run_b}, ["P@1", "NumRel"], bounds=True)
    assert cmp.flips is not None
    pb = cmp.flips[("a", "b")]["P@1"]
    assert pb.delta == 1.0 and pb.low == 0.0 and pb.could_flip
    safe = ranklens.compare(qrels, {"a": run_a, "b": run_b}, ["P@1"], bounds=False)
    assert safe.flips is None
    assert not cmp.flips[("a", "b")]["NumRel"].could_flip  # 0 = 0 whatever x is


def _files(tmp_path, qrels, runs):  # type: ignore[no-untyped-def]
    (tmp_path / "qrels.txt").write_text(
        "".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items())
    )
    paths = []
    for name, run in runs.items():
        path = tmp_path / f"{name}.run"
        path.write_text(
            "".join(
                f"{q} Q0 {d} {i + 1} {s} {name}\n"
                for q, docs in run.items()
                for i, (d, s) in enumerate(docs.items())
            )
        )
        paths.append(str(path))
    return str(tmp_path / "qrels.txt"), paths


def test_eval_bounds_adds_two_columns_and_leaves_the_default_alone(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    import csv
    import io
    import json

    from ranklens.cli import main

    qrels, run = _generate(7)
    del run["only-run"]
    qrels_path, (run_path,) = _files(tmp_path, qrels, {"a": run})
    args = ["eval", qrels_path, run_path, "-m", "AP nDCG@3 P@2", "--quiet"]
    assert main([*args, "-f", "csv"]) == 0
    plain = capsys.readouterr().out
    assert main([*args, "-f", "csv", "--bounds", "-q"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    expected = bounds(qrels_path, run_path, ["AP", "nDCG@3", "P@2"])
    for row in rows:
        low, value, high = (
            expected[row["measure"]]
            if row["query"] == "all"
            else expected.query_values(row["measure"])[row["query"]]
        )
        assert float(row["low"]) == pytest.approx(low, abs=1e-15)
        assert float(row["high"]) == pytest.approx(high, abs=1e-15)
        assert float(row["value"]) == pytest.approx(value, abs=1e-15)
    assert main([*args, "-f", "csv"]) == 0  # without --bounds: as before
    assert capsys.readouterr().out == plain
    assert main([*args, "--bounds"]) == 0
    table = capsys.readouterr().out
    assert table.splitlines()[0].startswith("mean over ")
    assert table.splitlines()[1].split() == [
        "run", "AP", "AP_low", "AP_high", "nDCG@3", "nDCG@3_low", "nDCG@3_high",
        "P@2", "P@2_low", "P@2_high",
    ]  # fmt: skip
    assert main([*args, "--bounds", "-f", "json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["runs"][0]["bounds"]["AP"] == pytest.approx(
        [expected["AP"][0], expected["AP"][2]]
    )
    assert main([*args, "--max-grade", "2"]) == 2
    assert "--max-grade" in capsys.readouterr().err
    assert main([*args, "--bounds", "--depth", "3"]) == 2
    assert "--depth" in capsys.readouterr().err


def test_compare_bounds_on_the_command_line(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    import json

    from ranklens.cli import main

    qrels = {f"q{i}": {"r": 1, "n": 0} for i in range(4)}
    runs = {
        "a": {q: {"x": 3.0, "n": 2.0, "r": 1.0} for q in qrels},
        "b": {q: {"r": 3.0, "n": 2.0, "x": 1.0} for q in qrels},
    }
    qrels_path, paths = _files(tmp_path, qrels, runs)
    assert main(["compare", qrels_path, *paths, "-m", "P@1", "--bounds", "-f", "json"]) == 0
    flips = json.loads(capsys.readouterr().out)["flips"]
    assert flips == [
        {
            "run": "b",
            "vs": "a",
            "measure": "P@1",
            "delta": 1.0,
            "low": 0.0,
            "high": 1.0,
            "could_flip": True,
            "could_lose_significance": True,  # significant (every query +1), could flip
            "p_value_worst": None,
            "exact": True,
        }
    ]
    assert main(["compare", qrels_path, *paths, "-m", "P@1", "--bounds", "-f", "csv"]) == 2
    assert "--bounds writes the table or json" in capsys.readouterr().err


@pytest.mark.parametrize("seed", range(10))
def test_the_ap_formula_equals_evaluate_on_every_prefix_and_suffix(seed: int) -> None:
    """bounds scores AP's 2 (u + 1) assignments by formula and evaluates only the
    extremes: the formula must give ranklens.evaluate's AP for every one of them."""
    from ranklens.analysis.bounds import _ap_values

    rng = random.Random(500 + seed)
    n = rng.randint(1, 25)
    docs = [f"d{i:02d}" for i in range(n)]
    grades = {d: rng.choice([-1, 0, 1, 2]) for d in docs if rng.random() < 0.5}
    grades["gone"] = rng.choice([0, 1, 2])  # judged, not retrieved
    also = ["u1", "u2"] if rng.random() < 0.5 else []  # graded, not retrieved
    run = {"q": {d: float(n - i) for i, d in enumerate(docs)}}  # ranked as listed
    unjudged = [d for d in docs if d not in grades] + also
    ranks = np.array([docs.index(d) if d in docs else n + also.index(d) for d in unjudged])
    for measure, cutoff, norm in (
        ("AP", None, "R"),
        ("AP@5", 5, "R"),
        ("AP(norm='min')@4", 4, "min"),
        ("AP(rel=2)", None, "R"),
    ):
        threshold = 2 if "rel=2" in measure else 1
        relevant = np.array([grades.get(d, -1) >= threshold for d in docs])
        judged_relevant = sum(g >= threshold for g in grades.values())
        best, worst = _ap_values(relevant, ranks, judged_relevant, cutoff, norm)
        for m in range(len(unjudged) + 1):
            for family, chosen in ((best, unjudged[:m]), (worst, unjudged[len(unjudged) - m :])):
                assigned = {**grades, **{d: (2 if d in chosen else 0) for d in unjudged}}
                expected = ranklens.evaluate({"q": assigned}, run, measure)[measure]
                assert family[m] == pytest.approx(expected, abs=1e-12), (measure, m)


@pytest.mark.parametrize("seed", range(10))
def test_the_recall_formulas_equal_evaluate(seed: int) -> None:
    """R@k and Rprec are scored by formula first, as AP."""
    from ranklens.analysis.bounds import _ApQuery, _prefix_values

    rng = random.Random(600 + seed)
    n = rng.randint(1, 25)
    docs = [f"d{i:02d}" for i in range(n)]
    grades = {d: rng.choice([-1, 0, 1, 2]) for d in docs if rng.random() < 0.5}
    grades["gone"] = rng.choice([0, 1])
    also = ["u1"] if rng.random() < 0.5 else []
    run = {"q": {d: float(n - i) for i, d in enumerate(docs)}}
    unjudged = [d for d in docs if d not in grades] + also
    ranks = np.array([docs.index(d) if d in docs else n + also.index(d) for d in unjudged])
    relevant = np.array([grades.get(d, -1) >= 1 for d in docs])
    query = _ApQuery(relevant, sum(g >= 1 for g in grades.values()))
    for measure, name, cutoff, norm in (
        ("R@5", "R", 5, "R"),
        ("R", "R", None, "R"),
        ("R(norm='min')@3", "R", 3, "min"),
        ("Rprec", "Rprec", None, "R"),
    ):
        best, worst = _prefix_values(name, query, ranks, cutoff, norm)
        for m in range(len(unjudged) + 1):
            for family, chosen in ((best, unjudged[:m]), (worst, unjudged[len(unjudged) - m :])):
                assigned = {**grades, **{d: (1 if d in chosen else 0) for d in unjudged}}
                expected = ranklens.evaluate({"q": assigned}, run, measure)[measure]
                assert family[m] == pytest.approx(expected, abs=1e-12), (measure, m)


@settings(max_examples=25, deadline=None)
@given(
    grades=st.lists(st.sampled_from([-1, 0, 1, 2, 3, None]), min_size=1, max_size=7),
    scores=st.lists(st.integers(0, 3), min_size=7, max_size=7),
)
def test_the_value_lies_in_the_range_where_unjudged_means_grade_0(grades, scores) -> None:  # type: ignore[no-untyped-def]
    """Scoring an unjudged document as not relevant is the assignment of grade 0 to it,
    for measures that do not drop unjudged documents: the value lies in the range, and
    the range is a single point when nothing is unjudged."""
    docs = [f"d{i}" for i in range(len(grades))]
    judged = {d: g for d, g in zip(docs, grades, strict=True) if g is not None}
    judged["other"] = 1
    qrels = {"q": judged}
    run = {"q": {d: float(s) for d, s in zip(docs, scores, strict=False)}}
    measures = ["P@3", "AP", "nDCG", "nDCG@3", "RR", "Rprec", "R@2", "ERR@3", "RBP"]
    result = bounds(qrels, run, measures)
    for m in measures:
        low, value, high = result[m]
        assert low - 1e-12 <= value <= high + 1e-12, m
        if result.unjudged["q"] == 0:
            assert low == value == high, m
