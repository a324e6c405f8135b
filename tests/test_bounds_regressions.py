"""Score ranges: graded RBP's moving normaliser, ``compare --bounds`` on queries with nothing
to grade, and huge ``max_grade`` values (issue 35, items 1, 8 and 9).

Every expected range is found by grading the unjudged documents every way and scoring each
grading with ``ranklens.evaluate`` (:func:`test_bounds_exhaustive._every_grading`), never
copied from ranklens' own output. The huge-grade checks run in a child process whose
address space is capped, so that a search that grows with the grade fails cleanly.
"""

from __future__ import annotations

import itertools
import json
import random
import subprocess
import sys
import textwrap
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

import ranklens
from ranklens.analysis.bounds import bounds
from test_bounds_exhaustive import MEASURES, _every_grading, _extremes, _same

pytestmark = pytest.mark.filterwarnings("ignore::ranklens.InputWarning")

Qrels = dict[str, dict[str, int]]
RunDict = dict[str, dict[str, float]]


# --- 1. graded RBP: grading an unjudged document can raise the query's highest grade ------


def test_graded_rbp_reaches_the_grading_that_moves_the_normaliser() -> None:
    """The issue's case: ``b`` graded 2 keeps L = 2 and scores higher than ``b`` at 3,
    which raises L (RBP divides each grade by L)."""
    qrels = {"q": {"a": 2}}
    run = {"q": {"a": 2.0, "b": 1.0}}
    for measure in ("RBP(gain='graded')", "RBP(p=0.9,gain='graded')"):
        values = [
            ranklens.evaluate({"q": {"a": 2, "b": g}}, run, measure)[measure] for g in range(4)
        ]
        low, value, high = bounds(qrels, run, [measure], max_grade=3)[measure]
        assert (low, high) == (min(values), max(values))
        assert value == values[0]
        assert high == values[2] > values[3]  # the top is not "every unjudged at G"


@pytest.mark.parametrize("seed", range(4))
def test_graded_rbp_on_longer_rankings(seed: int) -> None:
    """Up to 5 unjudged documents among judged ones of grades up to 4, every grading."""
    rng = random.Random(seed)
    docs = [f"d{i}" for i in range(rng.randint(4, 9))]
    unjudged = rng.sample(docs, min(5, len(docs) - 1))
    judged = {d: rng.choice([-1, 0, 1, 2, 3, 4]) for d in docs if d not in unjudged}
    judged["gone"] = rng.choice([0, 1, 3])  # judged, not retrieved: part of L
    qrels = {"q": judged}
    run = {"q": {d: float(rng.randint(0, 4)) for d in docs}}
    measures = ["RBP(gain='graded')", "RBP(p=0.5,gain='graded')", "RBP(p=0.95,gain='graded')"]
    for top in (1, 2, 4):
        result = bounds(qrels, run, measures, max_grade=top)
        reference = _every_grading(qrels, [run], measures, top)
        for m in result.measures:
            low, _value, high = result.query_values(m)["q"]
            assert (low, high) == pytest.approx(_extremes(reference["q"][0][m.name]), abs=1e-12)


def test_compare_bounds_of_graded_rbp_is_exact_beyond_the_joint_search() -> None:
    """A union of 8 unjudged documents at grades 0..2 (6,561 gradings: more than the joint
    search tries) is still exact, and equals every joint grading's extremes."""
    qrels = {q: {"r": 2, "n": 0} for q in ("q1", "q2")}
    xs = [f"x{i}" for i in range(8)]
    run_a = {q: {**{x: 10.0 - i for i, x in enumerate(xs)}, "r": 1.0, "n": 0.5} for q in qrels}
    run_b = {q: {"r": 11.0, **{x: 1.0 + i for i, x in enumerate(xs)}, "n": 0.5} for q in qrels}
    measure = "RBP(gain='graded')"
    cmp = ranklens.compare(qrels, {"a": run_a, "b": run_b}, [measure], bounds=True)
    assert cmp.flips is not None
    pb = cmp.flips[("a", "b")][measure]
    reference = _every_grading({"q1": qrels["q1"]}, [run_a, run_b], [measure], 2)["q1"]
    gaps = [b - a for a, b in zip(reference[0][measure], reference[1][measure], strict=True)]
    assert pb.exact
    assert (pb.low, pb.high) == pytest.approx((min(gaps), max(gaps)), abs=1e-12)


JUDGED_ONLY = [
    "nDCG(judged_only=True)",
    "nDCG(judged_only=True)@3",
    "nDCG(judged_only=True,dcg='exp-log2')@2",
    "AP(judged_only=True)",
    "AP(judged_only=True)@3",
    "R(judged_only=True)@3",
    "Rprec(judged_only=True)",
]


@pytest.mark.parametrize("seed", [12, 16, 20, 38, 95, 193, *range(6)])
def test_judged_only_ranges_skip_the_negative_judgments(seed: int) -> None:
    """Found auditing the methods: with ``judged_only`` a negatively judged document is out
    of every grading's ranking, so the unjudged documents below it move up (into a cutoff,
    or to other precisions); the searched measures must reason on those ranks."""
    rng = random.Random(seed)
    docs = [f"d{i}" for i in range(rng.randint(3, 8))]
    unjudged = rng.sample(docs, rng.randint(1, 3))
    qrels = {"q": {d: rng.choice([-1, -1, 0, 1, 2]) for d in docs if d not in unjudged}}
    qrels["q"]["gone"] = rng.choice([1, 2])
    run = {"q": {d: float(rng.randint(0, 3)) for d in docs}}
    top = rng.choice([1, 2])
    result = bounds(qrels, run, JUDGED_ONLY, top)
    reference = _every_grading(qrels, [run], JUDGED_ONLY, top)
    for m in result.measures:
        low, _value, high = result.query_values(m)["q"]
        assert (low, high) == pytest.approx(_extremes(reference["q"][0][m.name]), abs=1e-12)


# --- 8. compare --bounds where a query has nothing to grade in either run ----------------


def _fully_judged_pair() -> tuple[Qrels, RunDict, RunDict]:
    """q1 has unjudged documents; q2 and q3 have none in either run (q3: no relevant one)."""
    qrels = {
        "q1": {"r": 2, "n": 0, "m": -1},
        "q2": {"r": 1, "s": 2, "n": 0, "m": -1},
        "q3": {"n": 0, "o": 0},
    }
    run_a = {
        "q1": {"x": 3.0, "r": 2.0, "n": 2.0},
        "q2": {"n": 3.0, "r": 2.0, "m": 1.0, "s": 1.0},
        "q3": {"n": 1.0, "o": 1.0},
    }
    run_b = {
        "q1": {"r": 3.0, "y": 2.0, "m": 1.0},
        "q2": {"s": 3.0, "r": 1.0, "n": 1.0},
        "q3": {"o": 2.0},
    }
    return qrels, run_a, run_b


def _check_flips(qrels: Qrels, run_a: RunDict, run_b: RunDict, flips: Mapping[str, Any]) -> None:
    reference = _every_grading(qrels, [run_a, run_b], MEASURES, 2)
    for measure in ranklens.parse_measures(MEASURES):
        pb = flips[measure.name]
        if measure.spec.aggregate not in ("mean", "sum"):
            continue  # a geometric mean: an outer bound (test_bounds_exhaustive samples it)
        scale = 1.0 if measure.spec.aggregate == "sum" else 1.0 / len(qrels)
        lows, highs = 0.0, 0.0
        for q in qrels:
            a, b = reference[q][0][measure.name], reference[q][1][measure.name]
            low, high = _extremes([vb - va for va, vb in zip(a, b, strict=True)])
            lows, highs = lows + low, highs + high
        assert pb.exact, measure.name
        assert _same(pb.low, lows * scale), (measure.name, pb.low, lows * scale)
        assert _same(pb.high, highs * scale), (measure.name, pb.high, highs * scale)


def test_compare_bounds_with_queries_without_unjudged_documents() -> None:
    """Every measure ``bounds`` supports, in one comparison: no crash, and exact ranges."""
    qrels, run_a, run_b = _fully_judged_pair()
    cmp = ranklens.compare(qrels, {"a": run_a, "b": run_b}, MEASURES, bounds=True)
    assert cmp.flips is not None
    _check_flips(qrels, run_a, run_b, cmp.flips[("a", "b")])


def test_compare_bounds_with_nothing_to_grade_at_all() -> None:
    """Every retrieved document judged: each range is the observed difference."""
    qrels, run_a, run_b = _fully_judged_pair()
    del run_a["q1"]["x"], run_b["q1"]["y"]
    cmp = ranklens.compare(qrels, {"a": run_a, "b": run_b}, MEASURES, bounds=True)
    assert cmp.flips is not None
    for name, pb in cmp.flips[("a", "b")].items():
        assert _same(pb.low, pb.delta) and _same(pb.high, pb.delta), name


def test_a_run_without_the_query_still_gets_the_other_runs_documents_graded() -> None:
    """``compare`` grades a document only the other run retrieved in the qrels this run
    is scored with; a run with no ranking for that query used to crash AP's formula."""
    from ranklens.analysis.comparison_bounds import joint_bounds

    qrels = {"q0": {"j": 1}, "q1": {"d0": -1, "r": 1}}
    run_a = {"q0": {"d0": 1.0}, "q1": {"d0": 1.0, "x": 2.0}}
    run_b = {"q1": {"d0": 0.0}}
    measures = ["AP", "AP(judged_only=True)", "R@2", "Rprec", "nDCG", "RBP(gain='graded')"]
    the_qrels = ranklens.Qrels(qrels)
    ranges = joint_bounds(
        the_qrels, ranklens.Run(run_b, name="b"), ranklens.Run(run_a, name="a"),
        ranklens.parse_measures(measures),
    )  # fmt: skip
    reference = _every_grading(qrels, [run_a, run_b], measures, 1)
    for m in ranges.measures:
        for qid, (low, _value, high) in ranges.query_values(m).items():
            expected = _extremes(reference[qid][1][m.name])
            assert (low, high) == pytest.approx(expected, abs=1e-12), (m.name, qid)


def test_err_with_every_judgment_negative_is_not_refused() -> None:
    """ERR's default max_rel is at least 0: grading at 0 cannot change it."""
    qrels, run = {"q": {"d": -1}}, {"q": {"x": 1.0, "d": 0.5}}
    low, value, high = bounds(qrels, run, ["ERR"])["ERR"]
    assert low == value == high == ranklens.evaluate(qrels, run, "ERR")["ERR"]


def _write(tmp_path: Path, qrels: Qrels, runs: dict[str, RunDict]) -> tuple[str, list[str]]:
    qrels_path = tmp_path / "qrels.txt"
    qrels_path.write_text(
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
    return str(qrels_path), paths


def test_compare_bounds_on_the_command_line_for_every_measure(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from ranklens.cli import main

    qrels, run_a, run_b = _fully_judged_pair()
    qrels_path, paths = _write(tmp_path, qrels, {"a": run_a, "b": run_b})
    chosen = [arg for m in MEASURES for arg in ("-m", m)]
    code = main(["compare", qrels_path, *paths, *chosen, "--bounds", "-f", "json", "--quiet"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    flips = {row["measure"]: row for row in json.loads(captured.out)["flips"]}
    api = ranklens.compare(qrels_path, paths, MEASURES, bounds=True)
    assert api.flips is not None
    for name, pb in api.flips[("a", "b")].items():
        assert flips[name]["low"] == pytest.approx(pb.low, abs=1e-12), name
        assert flips[name]["high"] == pytest.approx(pb.high, abs=1e-12), name
        assert flips[name]["exact"] == pb.exact, name


# --- 9. huge max_grade: bounded by the documents to grade, not by the grade --------------


_CHILD = textwrap.dedent(
    """
    import json, resource, sys, tracemalloc, warnings
    resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))
    warnings.simplefilter("ignore")
    import ranklens
    from ranklens.analysis.bounds import bounds
    qrels, run, measures, grades = json.loads(sys.stdin.read())
    tracemalloc.start()
    out = {}
    for grade in grades:
        result = bounds(qrels, run, measures, max_grade=grade)
        out[str(grade)] = {m.name: result.query_values(m) for m in result.measures}
    print(json.dumps({"ranges": out, "peak": tracemalloc.get_traced_memory()[1]}))
    """
)


def _in_a_capped_child(script: str, stdin: str, *args: str) -> subprocess.CompletedProcess[str]:
    if not sys.platform.startswith("linux"):
        pytest.skip("the address-space cap (RLIMIT_AS) is Linux's")
    env_threads = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    import os

    return subprocess.run(
        [sys.executable, "-c", script, *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, **env_threads},
    )


def _huge_collection() -> tuple[Qrels, RunDict]:
    qrels = {
        "q1": {"a": 5, "b": 1, "c": 0, "far": 10**6},
        "q2": {"d": 1, "e": -1},
        "q3": {"f": 2},
    }
    run = {
        "q1": {"u1": 9.0, "a": 8.0, "u2": 7.0, "b": 6.0, "u3": 5.0, "c": 4.0},
        "q2": {"e": 3.0, "u4": 2.0, "d": 1.0, "u5": 1.0},
        "q3": {"f": 1.0},
    }
    return qrels, run


HUGE_MEASURES = [
    "nDCG",
    "nDCG@2",
    "nDCG(judged_only=True)",
    "AP",
    "P@3",
    "Bpref",
    "infAP",
    "RBP(gain='graded')",
    "ERR(max_rel=3)",
    "DCG",
    "IDCG@3",
]


def test_a_huge_max_grade_stays_small_and_exact() -> None:
    """``max_grade`` 10^9 and 2^63 - 1: the child (capped at 3 GiB of address space) stays
    under 64 MB of traced memory; each range is reached by gradings whose grades are those
    :func:`ndcg_grades` keeps (every such grading tried here), and gradings with any other
    grades never leave it."""
    from ranklens.analysis.bounds import ndcg_grades

    qrels, run = _huge_collection()
    grades = [10**9, 2**63 - 1]
    child = _in_a_capped_child(_CHILD, json.dumps([qrels, run, HUGE_MEASURES, grades]))
    assert child.returncode == 0, child.stderr[-2000:]
    found = json.loads(child.stdout)
    assert found["peak"] < 64 << 20
    rng = random.Random(9)
    for grade in grades:
        ranges = found["ranges"][str(grade)]
        for qid, judged in qrels.items():
            unjudged = sorted(d for d in run[qid] if d not in judged)
            alphabet = sorted(set(ndcg_grades(judged.values(), grade)) | {1, 2, 3, 4})
            tried = list(itertools.product(alphabet, repeat=len(unjudged)))
            enough = len(tried)  # these reach both extremes; the others stay inside
            tried += [
                tuple(rng.choice([0, rng.randint(0, grade)]) for _ in unjudged) for _ in range(30)
            ]
            assigned = {
                f"{qid}#{k:04d}": {**judged, **dict(zip(unjudged, g, strict=True))}
                for k, g in enumerate(tried)
            }
            values = ranklens.evaluate(
                assigned, {name: run[qid] for name in assigned}, HUGE_MEASURES
            )
            for name, per_query in ranges.items():
                low, _value, high = per_query[qid]
                by_query = values.query_values(name)
                seen = [by_query[f"{qid}#{k:04d}"] for k in range(len(tried))]
                assert low <= min(seen) + 1e-12 and max(seen) <= high + 1e-12, (name, qid)
                reached = seen[:enough]
                assert _same(low, min(reached)) and _same(high, max(reached)), (name, qid)


_CLI_CHILD = textwrap.dedent(
    """
    import resource, sys
    resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))
    from ranklens.cli import main
    sys.exit(main(sys.argv[1:]))
    """
)


def test_eval_bounds_with_a_huge_max_grade_on_the_command_line(tmp_path: Path) -> None:
    """The issue's case: nDCG on a two-line run with --max-grade 1000000000."""
    qrels_path, (run_path,) = _write(tmp_path, {"q": {"a": 2}}, {"r": {"q": {"a": 2.0, "b": 1.0}}})
    args = ["eval", qrels_path, run_path, "-m", "nDCG", "--bounds", "--quiet", "-f", "json"]
    child = _in_a_capped_child(_CLI_CHILD, "", *args, "--max-grade", "1000000000")
    assert child.returncode == 0, child.stderr[-2000:]
    low, high = json.loads(child.stdout)["runs"][0]["bounds"]["nDCG"]
    every = [
        ranklens.evaluate({"q": {"a": 2, "b": g}}, {"q": {"a": 2.0, "b": 1.0}}, "nDCG")["nDCG"]
        for g in (0, 1, 2, 3, 10**9)
    ]
    assert (low, high) == pytest.approx((min(every), max(every)), abs=1e-15)


@pytest.mark.parametrize("command", ["eval", "compare"])
@pytest.mark.parametrize("grade", ["99999999999999999999", "9223372036854775808", "-1", "2.5"])
def test_a_grade_the_format_cannot_hold_is_refused_in_one_line(
    tmp_path: Path, command: str, grade: str
) -> None:
    qrels_path, paths = _write(
        tmp_path,
        {"q": {"a": 2}, "p": {"c": 1}},
        {"r": {"q": {"a": 2.0, "b": 1.0}, "p": {"c": 1.0}}, "s": {"q": {"b": 1.0}, "p": {}}},
    )
    files = paths[:1] if command == "eval" else paths
    args = [command, qrels_path, *files, "-m", "nDCG", "--bounds", f"--max-grade={grade}"]
    child = _in_a_capped_child(_CLI_CHILD, "", *args)
    assert child.returncode == 2
    lines = child.stderr.strip().splitlines()
    assert len(lines) == 1 and "--max-grade" in lines[0], child.stderr
    assert "internal error" not in child.stderr and "Traceback" not in child.stderr


_REFUSALS = textwrap.dedent(
    """
    import json, resource, warnings
    resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))
    warnings.simplefilter("ignore")
    from ranklens.analysis.bounds import bounds
    from ranklens.analysis.judge_next import judge_next
    qrels, run = {"q": {"a": 2}}, {"q": {"a": 2.0, "b": 1.0, "c": 0.5}}
    calls = [
        lambda: bounds(qrels, run, ["nDCG(gains={1:3})"], max_grade=10**9),
        lambda: bounds(qrels, run, ["G"], max_grade=2**63 - 1),
        lambda: bounds(qrels, run, ["nDCG(dcg='exp-log2')"], max_grade=961),
        lambda: judge_next(qrels, [run], ["P@2"], 1, max_grade=10**9),
        lambda: bounds(qrels, run, ["nDCG"], max_grade=2**63 - 1).max_grade,
        lambda: bounds(qrels, run, ["nDCG(dcg='exp-log2')"], max_grade=960).max_grade,
    ]
    for grade in (2**63, 10**20, -1):
        calls.append(lambda grade=grade: bounds(qrels, run, ["nDCG"], max_grade=grade))
        calls.append(lambda grade=grade: judge_next(qrels, [run], ["nDCG"], 1, max_grade=grade))
    out = []
    for call in calls:
        try:
            out.append(["value", call()])
        except Exception as error:
            out.append([type(error).__name__, str(error)])
    print(json.dumps(out))
    """
)


def test_huge_grades_that_cannot_be_searched_are_refused_up_front() -> None:
    """Measures without a shorter method count their gradings before building any, and
    2^grade - 1 gains beyond a double are refused before anything is evaluated (in a
    child capped at 3 GiB of address space)."""
    child = _in_a_capped_child(_REFUSALS, "")
    assert child.returncode == 0, child.stderr[-2000:]
    (
        custom,
        anything,
        exponential,
        judging,
        largest,
        exponential_ok,
        *too_large,
    ) = json.loads(child.stdout)
    assert len(too_large) == 6
    for kind, message in too_large:  # what a qrels grade cannot hold
        assert kind == "OptionError" and "0 to 9223372036854775807" in message
        assert "\n" not in message
    assert custom[0] == "OptionError"
    assert "needs 1000000001^2 = about 10^18 assignments" in custom[1]
    assert anything[0] == "OptionError"
    assert "needs 9223372036854775808^2 assignments" in anything[1] and "far" in anything[1]
    assert exponential[0] == "OptionError" and "above grade 960" in exponential[1]
    assert judging[0] == "OptionError" and "max_grade (--max-grade) or depth" in judging[1]
    assert largest == ["value", 2**63 - 1]
    assert exponential_ok == ["value", 960]


@pytest.mark.parametrize("seed", range(4))
def test_the_ndcg_grades_suffice(seed: int) -> None:
    """nDCG's extremes over every grade 0..7 are reached with :func:`ndcg_grades`'s grades
    only (0, 7 and the judged grades between), here checked over every grading."""
    rng = random.Random(100 + seed)
    docs = [f"d{i}" for i in range(6)]
    unjudged = rng.sample(docs, 3)
    qrels = {"q": {d: rng.choice([-1, 0, 2, 5]) for d in docs if d not in unjudged}}
    qrels["q"]["gone"] = rng.choice([1, 3, 9])
    run = {"q": {d: float(rng.randint(0, 3)) for d in docs}}
    measures = ["nDCG", "nDCG@2", "nDCG(dcg='exp-log2')@4", "nDCG(judged_only=True)"]
    result = bounds(qrels, run, measures, max_grade=7)
    reference = _every_grading(qrels, [run], measures, 7)
    for m in result.measures:
        low, _value, high = result.query_values(m)["q"]
        assert (low, high) == pytest.approx(_extremes(reference["q"][0][m.name]), abs=1e-12)
