"""``ranklens expeval`` and expected exposure / AWRF: expeval's output line for line (golden
files made by github.com/diazf/expeval itself, tests/data/expeval/README.md), its quirks
and their corrections checked by hand, the Python API against the front end's corrected
mode, invariants with hypothesis, AWRF against scipy, and bad input refused in one line."""

from __future__ import annotations

import io
import itertools
import json
import math
import random
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial.distance import jensenshannon

import ranklens
from ranklens.base.errors import InputError, OptionError, ParseError
from ranklens.cli import main
from ranklens.frontends.expeval import ExpevalOptions, expeval_values, run_expeval

DATA = Path(__file__).parent / "data" / "expeval"

# the option sets of tests/data/expeval/generate.py (out.SEED.NAME.txt)
OPTION_SETS: dict[str, list[str]] = json.loads((DATA / "options.json").read_text())


def test_every_golden_file_is_checked():
    names = {p.name for p in DATA.glob("out.*.txt")}
    expected = {f"out.{s}.{n}.txt" for s in (1, 2, 3, 4) for n in OPTION_SETS}
    assert names == expected


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
@pytest.mark.parametrize("name", list(OPTION_SETS))
def test_golden_outputs_line_for_line(seed, name, capsys):
    qrels, run = DATA / f"qrels.{seed}.txt", DATA / f"run.{seed}.txt"
    assert main(["expeval", *OPTION_SETS[name], str(qrels), str(run)]) == 0
    assert capsys.readouterr().out == (DATA / f"out.{seed}.{name}.txt").read_text()


def _values(qrels: str, run: str, **options: object):
    values, _ = expeval_values(
        io.BytesIO(qrels.encode()),
        io.BytesIO(run.encode()),
        ExpevalOptions(**options),  # type: ignore[arg-type]
    )
    return values


QRELS = "1 0 a 2\n1 1 b 1\n1 1 c 1\n2 0 a 2\n2 1 b 1\n"
RUN = "1 s1 a 1 0 t\n1 s1 x 2 0 t\n1 s2 b 1 0 t\n1 s2 a 2 0 t\n"  # query 2 missing


def test_group_relevance_bound_quirk_and_fix():
    # expeval's group EE-R upper bound stays 0, so the normalised value is always 1
    quirky = _values(QRELS, RUN, groups=True)
    assert quirky["1"].relevance == 1.0
    assert quirky["1"].relevance_raw > 0
    fixed = _values(QRELS, RUN, groups=True, fixed=True)
    assert 0.0 < fixed["1"].relevance < 1.0
    # corrected bound: every group gets all the exposure of the relevant positions
    # (targets: a 1, b and c (0.25 - 0.25^3) / 1.5 each; groups 0: a, 1: b + c)
    mass, total = (1 - 0.5**3) / (1 - 0.5), 1.0 + 2 * (0.25 - 0.25**3) / 1.5
    raw = _values(QRELS, RUN, groups=True, normalise=False)["1"]
    assert fixed["1"].relevance == pytest.approx(raw.relevance_raw / (mass * total))


def test_missing_query_quirk_and_fix():
    quirky = _values(QRELS, RUN)["2"]
    # EE-D at its upper bound (1), EE-R at its lower bound (0); EE-L takes EE-R's upper
    # bound (||target||^2) and is normalised by its own bound
    assert (quirky.disparity, quirky.relevance) == (1.0, 0.0)
    target = 1.0 + 0.25**2  # a: 1, b: p(1-u)
    assert quirky.difference_raw == pytest.approx(target)
    assert quirky.difference == pytest.approx(target / (target + 1 / (1 - 0.25)))
    fixed = _values(QRELS, RUN, fixed=True)["2"]
    assert (fixed.disparity, fixed.relevance, fixed.difference) == (1.0, 0.0, 1.0)
    # in group mode the quirk makes a missing query's EE-L 0 (the best value)
    assert _values(QRELS, RUN, groups=True)["2"].difference == 0.0
    assert _values(QRELS, RUN, groups=True, fixed=True)["2"].difference == 1.0


def test_single_grade_relevance_quirk_and_fix():
    # retrieval setting, every relevant document of one grade: expeval's EE-R bounds
    # collapse and every run gets 1; corrected, a run missing the relevant documents loses
    qrels, run = "1 0 a 1\n1 0 b 1\n", "1 s x 1 0 t\n1 s a 2 0 t\n"
    assert _values(qrels, run)["1"].relevance == 1.0
    fixed = _values(qrels, run, fixed=True)["1"]
    assert 0.0 < fixed.relevance < 1.0


def test_gerr_bounds_use_one_minus_utility_when_fixed():
    qrels, run = "1 0 a 2\n1 0 b 1\n1 0 c 0\n", "1 s c 1 0 t\n1 s b 2 0 t\n1 s a 3 0 t\n"
    same = [_values(qrels, run, complete=True, utility=0.5, fixed=f)["1"] for f in (False, True)]
    assert same[0] == same[1]  # u = 0.5: p*u = p*(1-u)
    other = [_values(qrels, run, complete=True, utility=0.2, fixed=f)["1"] for f in (False, True)]
    assert other[0].disparity != other[1].disparity
    assert other[0].disparity_raw == other[1].disparity_raw


def test_no_group_exposure_quirk_and_fix():
    # -G, a run without relevant documents: expeval's EE-D is infinite (its l2 of a zero
    # vector), corrected it is 0
    qrels, run = "1 0 a 1\n1 1 b 1\n", "1 s x 1 0 t\n"
    assert _values(qrels, run, groups=True)["1"].disparity == math.inf
    assert _values(qrels, run, groups=True, fixed=True)["1"].disparity == 0.0


def test_messages_and_empty_sample():
    out = run_expeval(io.BytesIO((DATA / "qrels.4.txt").read_bytes()), DATA / "run.4.txt")
    assert out.splitlines()[:2] == ["invalid rank 0", "duplicate item at position 1"]


def test_mean_lines():
    out = run_expeval(
        io.BytesIO(QRELS.encode()), io.BytesIO(RUN.encode()), ExpevalOptions(mean=True)
    )
    lines = out.splitlines()
    assert [line.split("\t")[:2] for line in lines[-3:]] == [
        ["disparity", "all"],
        ["relevance", "all"],
        ["difference", "all"],
    ]
    per_query = [float(line.split("\t")[2]) for line in lines[:-3] if line.startswith("relevance")]
    assert float(lines[-2].split("\t")[2]) == pytest.approx(sum(per_query) / 2, abs=1e-6)


@pytest.mark.parametrize(
    ("qrels", "run", "message"),
    [
        ("1 0 a 1\n1 0\n", "1 s a 1 0 t\n", ":2: expected"),
        ("1 0 a x\n", "1 s a 1 0 t\n", "relevance 'x'"),
        ("1 a;b a 1\n", "1 s a 1 0 t\n", "not integers joined by '|'"),
        ("1 0 a 1\n", "1 s a 1\n", "got 4 field(s)"),
        ("1 0 a 1\n", "1 s a one 0 t\n", "rank 'one'"),
        ("1 0 a 1\n", "1 s a 1 high t\n", "score 'high'"),
        ("1 0 a 1\n", "1 s a 1 0 t\n1 s b 3 0 t\n", "rank 2 is missing"),
    ],
)
def test_bad_input_one_line(qrels, run, message, tmp_path, capsys):
    (tmp_path / "q").write_text(qrels)
    (tmp_path / "r").write_text(run)
    assert main(["expeval", str(tmp_path / "q"), str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err and "internal error" not in err


@pytest.mark.parametrize(
    ("options", "message"),
    [(["-u", "dcg"], "-u must be gerr or rbp"), (["-p", "1"], "patience"), (["-r", "x"], "-r")],
)
def test_bad_options(options, message, tmp_path, capsys):
    (tmp_path / "q").write_text("1 0 a 1\n")
    (tmp_path / "r").write_text("1 s a 1 0 t\n")
    assert main(["expeval", *options, str(tmp_path / "q"), str(tmp_path / "r")]) == 2
    assert message in capsys.readouterr().err


# --- the Python API: the corrected definitions ------------------------------------------


def _trec_qrels(grades: dict[str, dict[str, int]]) -> str:
    return "".join(f"{q} 0 {d} {g}\n" for q, docs in grades.items() for d, g in docs.items())


def _expeval_files(grades, samples, labels):
    qrels = "".join(
        f"{q} {'|'.join(str(g) for g in labels[d])} {d} {r}\n"
        for q, docs in grades.items()
        for d, r in docs.items()
    )
    run = "".join(
        f"{q} {s} {d} {i} 0 t\n"
        for q, rankings in samples.items()
        for s, ranking in enumerate(rankings)
        for i, d in enumerate(ranking, 1)
    )
    return qrels, run


@st.composite
def stochastic_case(draw):
    grades: dict[str, dict[str, int]] = {}
    samples: dict[str, list[list[str]]] = {}
    labels: dict[str, list[int]] = {}
    for q in range(draw(st.integers(1, 4))):
        qid = f"q{q}"
        docs = [f"{qid}d{j}" for j in range(draw(st.integers(1, 7)))]
        for d in docs:
            labels[d] = sorted(set(draw(st.lists(st.integers(0, 2), min_size=1, max_size=2))))
        grades[qid] = {d: draw(st.integers(-1, 3)) for d in docs}
        if draw(st.booleans()) or q == 0:
            pool = [*docs, f"{qid}u"]
            rankings = []
            for _ in range(draw(st.integers(1, 4))):
                order = draw(st.permutations(pool))
                rankings.append(list(order[: draw(st.integers(1, len(pool)))]))
            samples[qid] = rankings
    return grades, samples, labels


MODELS = st.sampled_from([("gerr", 0.5, 0.5), ("gerr", 0.8, 0.3), ("rbp", 0.7, 0.5)])


@settings(max_examples=40, deadline=None)
@given(case=stochastic_case(), user=MODELS, grouped=st.booleans(), complete=st.booleans())
def test_api_equals_front_end_fixed(case, user, grouped, complete):
    grades, samples, labels = case
    model, p, u = user
    if not any(g > 0 or complete for docs in grades.values() for g in docs.values()):
        return
    res = ranklens.expected_exposure(
        io.BytesIO(_trec_qrels(grades).encode()),
        samples,
        labels if grouped else None,
        model=model,
        patience=p,
        utility=u,
        complete=complete,
    )
    qrels, run = _expeval_files(grades, samples, labels)
    front = _values(
        qrels,
        run,
        model=model,
        patience=p,
        utility=u,
        groups=grouped,
        complete=complete,
        fixed=True,
    )
    assert list(res.per_query) == list(front)
    for qid, value in front.items():
        mine = res.per_query[qid]
        assert mine["EE-L"] == pytest.approx(value.difference, rel=1e-12, abs=1e-12)
        assert mine["EE-D"] == pytest.approx(value.disparity, rel=1e-12, abs=1e-12)
        assert mine["EE-R"] == pytest.approx(value.relevance, rel=1e-12, abs=1e-12)


@settings(max_examples=40, deadline=None)
@given(case=stochastic_case(), user=MODELS, grouped=st.booleans())
def test_loss_decomposes_and_corrected_values_lie_in_unit_interval(case, user, grouped):
    grades, samples, labels = case
    model, p, u = user
    if not any(g > 0 for docs in grades.values() for g in docs.values()):
        return
    qrels = io.BytesIO(_trec_qrels(grades).encode())
    kwargs = {"model": model, "patience": p, "utility": u}
    raw = ranklens.expected_exposure(
        qrels, samples, labels if grouped else None, normalise=False, **kwargs
    )
    for qid, v in raw.per_query.items():
        if qid in samples:  # EE-L = EE-D - 2 EE-R + ||target||^2
            assert v["EE-L"] == pytest.approx(v["EE-D"] - 2 * v["EE-R"] + v["target"], abs=1e-12)
    qrels.seek(0)
    norm = ranklens.expected_exposure(qrels, samples, labels if grouped else None, **kwargs)
    for v in norm.per_query.values():  # retrieval setting
        for name in ("EE-L", "EE-D", "EE-R"):
            assert -1e-12 <= v[name] <= 1 + 1e-12, (name, v)


@pytest.mark.parametrize("complete", [False, True])
@pytest.mark.parametrize(
    ("model", "p", "u"), [("gerr", 0.5, 0.5), ("gerr", 0.9, 0.2), ("rbp", 0.6, 0.5)]
)
def test_ideal_policy_has_zero_loss(model, p, u, complete):
    # the target is the exposure of the policy that shuffles each grade's documents
    grades = {"a": 3, "b": 3, "c": 1, "d": 1, "e": 1, "f": 2, "g": 0, "h": -1, "i": -1}
    kept = {d: g for d, g in grades.items() if complete or g > 0}
    by_grade = sorted(set(kept.values()), reverse=True)
    blocks = [[d for d in kept if kept[d] == g] for g in by_grade]
    rankings = [
        [d for block in choice for d in block]
        for choice in itertools.product(*(list(itertools.permutations(b)) for b in blocks))
    ]
    res = ranklens.expected_exposure(
        {"q": grades}, {"q": rankings}, model=model, patience=p, utility=u, complete=complete
    )
    assert res.per_query["q"]["EE-L"] == pytest.approx(0.0, abs=1e-12)
    if not complete:
        assert res.per_query["q"]["EE-R"] == pytest.approx(1.0, abs=1e-12)


def test_target_below_non_relevant_grades_quirk_and_fix():
    # -C, gerr: expeval discounts the -1s by (1-u) for the 0 above them as well
    qrels, run = "1 0 a 1\n1 0 b 0\n1 0 c -1\n", "1 s a 1 0 t\n1 s b 2 0 t\n1 s c 3 0 t\n"
    quirky = _values(qrels, run, complete=True, normalise=False)["1"]
    fixed = _values(qrels, run, complete=True, normalise=False, fixed=True)["1"]
    # the ranking by grade is the ideal policy: no loss once the target is right
    assert fixed.difference_raw == pytest.approx(0.0, abs=1e-15)
    assert quirky.difference_raw == pytest.approx((0.125 - 0.0625) ** 2)  # c: p^2 (1-u) vs (1-u)^2


def test_run_readers_agree(tmp_path):
    pd = pytest.importorskip("pandas")
    rankings = {"q1": [["a", "b", "c"], ["c", "a"]], "q2": [["b"]]}
    rows = [
        (q, s, d, r)
        for q, samples in rankings.items()
        for s, ranking in enumerate(samples)
        for r, d in enumerate(ranking, 1)
    ]
    frame = pd.DataFrame(rows, columns=["query_id", "sample", "doc_id", "rank"])
    path = tmp_path / "run.txt"
    path.write_text("".join(f"{q} {s} {d} {r} 1.0 t\n" for q, s, d, r in reversed(rows)))
    qrels = {"q1": {"a": 1, "c": 2}, "q2": {"b": 1}}
    sources = [rankings, frame, path]
    pl = pytest.importorskip("polars")
    sources.append(pl.DataFrame(rows, schema=["qid", "iteration", "docno", "rank"], orient="row"))
    results = [ranklens.expected_exposure(qrels, r).per_query for r in sources]
    assert all(r == results[0] for r in results)
    assert results[0]["q1"] != results[0]["q2"]


def test_run_without_sample_numbers_is_refused(tmp_path):
    path = tmp_path / "plain.run"
    path.write_text("q1 Q0 a 1 2.0 t\nq1 Q0 b 2 1.0 t\n")
    with pytest.raises(InputError, match="no sample numbers"):
        ranklens.expected_exposure({"q1": {"a": 1}}, path)
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"query_id": ["q1"], "doc_id": ["a"], "rank": [1]})
    with pytest.raises(InputError, match="no sample numbers"):
        ranklens.expected_exposure({"q1": {"a": 1}}, frame)
    single = ranklens.expected_exposure({"q1": {"a": 1}}, path, single_ranking=True)
    assert single.per_query["q1"]["EE-R"] == 1.0


def test_bad_groups_and_runs(tmp_path):
    groups = tmp_path / "groups.csv"
    groups.write_text("a,1\nb\n")
    with pytest.raises(ParseError, match=r"groups.csv:2: expected 'docid,group'"):
        ranklens.expected_exposure({"q1": {"a": 1}}, {"q1": [["a"]]}, groups)
    run = tmp_path / "run.txt"
    run.write_text("q1 0 a 1 0 t\nq1 0 b 1 0 t\n")
    with pytest.raises(ParseError, match=r"run.txt:2: rank 1 occurs twice"):
        ranklens.expected_exposure({"q1": {"a": 1}}, run)
    with pytest.raises(InputError, match="has a group label"):
        ranklens.expected_exposure({"q1": {"a": 1}}, {"q1": [["a"]]}, {"z": 1})
    with pytest.raises(OptionError, match="patience"):
        ranklens.expected_exposure({"q1": {"a": 1}}, {"q1": [["a"]]}, patience=1.0)
    with pytest.raises(InputError, match="no query has a relevant document"):
        ranklens.expected_exposure({"q1": {"a": 0}}, {"q1": [["a"]]})
    with pytest.raises(InputError, match="no query of the run"):
        ranklens.awrf({"q1": {"a": 1}}, {"q2": [["a"]]}, {"a": "x"})


# --- AWRF and the TREC Fair Ranking 2022 score ------------------------------------------


def _track_awrf(ranking, alignment, target):
    """The track's definition, written with numpy and scipy's jensenshannon."""
    groups = sorted(target)
    disc = 1 / np.log2(np.maximum(np.arange(1, len(ranking) + 1), 2))
    known = [i for i, d in enumerate(ranking) if d in alignment]
    matrix = np.array([[alignment[ranking[i]].get(g, 0.0) for g in groups] for i in known])
    dist = (disc[known][:, None] * matrix).sum(axis=0) / disc[known].sum()
    return 1 - jensenshannon(dist, np.array([target[g] for g in groups])) ** 2


def test_awrf_and_score_against_scipy():
    rng = random.Random(7)
    docs = [f"d{i}" for i in range(30)]
    labels = {d: rng.sample(["x", "y", "z"], rng.randint(1, 2)) for d in docs[:25]}
    alignment = {d: {g: 1 / len(ls) for g in ls} for d, ls in labels.items()}
    target = {"x": 0.5, "y": 0.3, "z": 0.2}
    runs = {f"q{k}": [rng.sample(docs, rng.randint(1, 30))] for k in range(8)}
    qrels = {q: {d: rng.choice([0, 1, 2]) for d in rng.sample(docs, 10)} for q in runs}
    qrels = {q: j for q, j in qrels.items() if any(v > 0 for v in j.values())}
    res = ranklens.awrf(qrels, runs, labels, target)
    assert set(res.per_query) == set(qrels)
    for q, values in res.per_query.items():
        ranking = runs[q][0]
        relevant = {d for d, g in qrels[q].items() if g > 0}
        disc = 1 / np.log2(np.maximum(np.arange(1, 501), 2))
        ideal = disc[: min(500, len(relevant))].sum()
        ndcg = sum(disc[i] for i, d in enumerate(ranking) if d in relevant) / ideal
        fairness = _track_awrf(ranking, alignment, target)
        assert values["nDCG"] == pytest.approx(ndcg, rel=1e-12)
        assert values["AWRF"] == pytest.approx(fairness, rel=1e-9, abs=1e-12)
        assert values["Score"] == pytest.approx(ndcg * fairness, rel=1e-9, abs=1e-12)
    assert res.aggregate["Score"] == pytest.approx(
        sum(v["Score"] for v in res.per_query.values()) / len(res.per_query)
    )


def test_awrf_bounds_and_targets():
    labels = {"a": "x", "b": "y"}
    one_group = ranklens.awrf({"q": {"a": 1}}, {"q": [["a"]]}, labels, {"y": 1.0})
    assert one_group.per_query["q"]["AWRF"] == pytest.approx(1 - math.log(2))  # disjoint
    per_query = ranklens.awrf(
        {"q": {"a": 1}, "r": {"b": 1}},
        {"q": [["a"]], "r": [["b"]]},
        labels,
        {"q": {"x": 1}, "r": {"y": 2}},
    )
    assert [v["AWRF"] for v in per_query.per_query.values()] == [1.0, 1.0]
    with pytest.raises(OptionError, match="target length"):
        ranklens.awrf({"q": {"a": 1}}, {"q": [["a", "b"]]}, labels, target_length=1)
    with pytest.raises(InputError, match="no target distribution"):
        ranklens.awrf({"q": {"a": 1}}, {"q": [["a"]]}, labels, {"r": {"x": 1}})


@settings(max_examples=40, deadline=None)
@given(
    ranking=st.lists(st.sampled_from("abcdefgh"), min_size=1, max_size=8, unique=True),
    weights=st.lists(st.floats(0.01, 1.0), min_size=3, max_size=3),
)
def test_awrf_in_unit_interval(ranking, weights):
    labels = {"a": "x", "b": "y", "c": "z", "d": "x", "e": ["x", "y"], "f": "z"}
    target = dict(zip("xyz", weights, strict=True))
    res = ranklens.awrf({"q": {"a": 1}}, {"q": [ranking]}, labels, target)
    value = res.per_query["q"]["AWRF"]
    if any(d in labels for d in ranking):
        assert 1 - math.log(2) - 1e-12 <= value <= 1 + 1e-12
    else:
        assert math.isnan(value)
