"""ranklens.compat.pytrec_eval against pytrec_eval itself (trec_eval 9.0.8).

* values: every measure of ``supported_measures`` (through ``all_trec``) and measure strings
  in every spelling, per query and exactly (NaN only equals NaN), at relevance levels 1
  and 2, with and without ``judged_docs_only_flag``, on generated data with tied scores
  (also ties only in float32), graded and negative labels, unjudged documents, queries
  without relevant documents, empty score dicts, queries only in the run or only in the
  qrels, integer scores;
* result keys and query order;
* errors: the same exception type for the same misuse;
* pytrec_eval's own trec_eval integration cases (its suite only generates them when run as
  a script; tests/peer_suites/test_pytrec_eval_suite.py holds the rest of its suite).

pytrec_eval crashes (segfault) on a query whose judgments are all negative, so the
generated qrels give every query a judgment >= 0.
"""

from __future__ import annotations

import math
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import ranklens.compat.pytrec_eval as compat
from compat_data import generated

pytrec_eval = pytest.importorskip("pytrec_eval")

DATA = Path(__file__).parent / "data" / "trec_eval"


def same_results(expected: dict[str, dict[str, float]], got: dict[str, dict[str, float]]) -> None:
    assert list(got) == list(expected)
    for qid, values in expected.items():
        assert list(got[qid]) == list(values) or set(got[qid]) == set(values), qid
        for name, value in values.items():
            mine = got[qid][name]
            assert mine == value or (math.isnan(value) and math.isnan(mine)), (qid, name)


ALL_TREC_SEEDS = range(24)
ALL_TREC_OPTIONS = [
    {"relevance_level": level, "judged_docs_only_flag": judged_only}
    for level in (1, 2)
    for judged_only in (False, True)
]
_ALL_TREC_SCRIPT = """
import json, sys
sys.path.insert(0, sys.argv[3])
import pytrec_eval
from compat_data import generated
out = {}
for seed in json.loads(sys.argv[1]):
    qrels, run = generated(seed)
    out[seed] = [
        pytrec_eval.RelevanceEvaluator(qrels, {"all_trec"}, **options).evaluate(run)
        for options in json.loads(sys.argv[2])
    ]
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def all_trec_reference() -> dict[int, list[dict[str, dict[str, float]]]]:
    """pytrec_eval's ``all_trec`` values for every seed and option, computed in a fresh
    interpreter: in a test worker that has run many other tests pytrec_eval's
    ``evaluate`` can crash (a segmentation fault in its process-wide measure table, seen
    here on 2026-11-27 and 2026-11-29; see tests/test_compat_ir_measures.py), taking the
    worker down. The child is started again if it dies of a signal, up to three times."""
    import json
    import subprocess
    import sys

    args = [json.dumps(list(ALL_TREC_SEEDS)), json.dumps(ALL_TREC_OPTIONS)]
    args.append(str(Path(__file__).parent))
    for _attempt in range(3):
        child = subprocess.run(
            [sys.executable, "-c", _ALL_TREC_SCRIPT, *args], capture_output=True, text=True
        )
        if child.returncode >= 0:
            break
    if child.returncode != 0:
        pytest.fail(f"pytrec_eval failed ({child.returncode}): {child.stderr[-2000:]}")
    return {int(seed): values for seed, values in json.loads(child.stdout).items()}


@pytest.mark.parametrize("seed", ALL_TREC_SEEDS)
def test_all_trec_equals_pytrec_eval(
    seed: int, all_trec_reference: dict[int, list[dict[str, dict[str, float]]]]
) -> None:
    qrels, run = generated(seed)
    for options, expected in zip(ALL_TREC_OPTIONS, all_trec_reference[seed], strict=True):
        got = compat.RelevanceEvaluator(qrels, {"all_trec"}, **options)
        same_results(expected, got.evaluate(run))


MEASURE_SETS = [
    {"map", "ndcg_cut.10,20", "P.5", "recall", "ndcg_cut"},
    {"official"},
    {"set", "ndcg"},
    ["ndcg_cut", "ndcg_cut.1,4", "ndcg_cut_20,4", "ndcg_cut_15", "recall.1000", "P"],
    {"P_5", "P.3,7", "iprec_at_recall_0.25", "iprec_at_recall.0.5,0.75", "success_2"},
    {"Rprec_mult.0.5,2", "11pt_avg.0.25,0.5", "set_F.0.5", "relstring.3"},
    {"map_cut.3,10", "relative_P_4", "gm_map", "gm_bpref", "infAP", "num_q", "runid"},
    set(),
]


@pytest.mark.parametrize("measures", MEASURE_SETS, ids=lambda m: ",".join(sorted(m)) or "none")
def test_measure_strings_equal_pytrec_eval(measures: Any) -> None:
    for seed in range(100, 112):
        qrels, run = generated(seed)
        for level in (1, 2):
            expected = pytrec_eval.RelevanceEvaluator(qrels, measures, relevance_level=level)
            got = compat.RelevanceEvaluator(qrels, measures, relevance_level=level)
            same_results(expected.evaluate(run), got.evaluate(run))


def test_evaluator_is_reusable_and_does_not_mutate_inputs() -> None:
    qrels, run = generated(7)
    frozen = repr((qrels, run))
    evaluator = compat.RelevanceEvaluator(qrels, {"all_trec"})
    first = evaluator.evaluate(run)
    assert evaluator.evaluate(run) == first or repr(evaluator.evaluate(run)) == repr(first)
    assert repr((qrels, run)) == frozen


def test_module_surface_matches() -> None:
    assert set(compat.supported_measures) == set(pytrec_eval.supported_measures)
    assert dict(compat.supported_nicknames) == {
        k: frozenset(v) for k, v in pytrec_eval.supported_nicknames.items()
    }
    assert set(pytrec_eval.__all__) <= set(dir(compat))
    lines = ["q1 Q0 d1 1 2.5 tag", "q1 Q0 d2 2 1.5 tag", "q2 Q0 d1 1 0.5 tag"]
    assert compat.parse_run(lines) == pytrec_eval.parse_run(lines)
    qrel_lines = ["q1 0 d1 1", "q1 0 d2 0", "q2 0 d3 2"]
    assert compat.parse_qrel(qrel_lines) == pytrec_eval.parse_qrel(qrel_lines)
    for measure in ("num_ret", "gm_map", "map"):
        values = [-1.5, 0.25, 3.0]
        assert compat.compute_aggregated_measure(
            measure, values
        ) == pytrec_eval.compute_aggregated_measure(measure, values)


QRELS = {"q1": {"d1": 1, "d2": 0}, "q2": {"d1": 2}}
RUN = {"q1": {"d1": 0.5, "d2": 0.2}}

MISUSE: list[tuple[str, Any]] = [
    ("qrels is a list", lambda m: m.RelevanceEvaluator([("q1", "d1", 1)], {"map"})),
    ("qrels is None", lambda m: m.RelevanceEvaluator(None, {"map"})),
    ("qid not a str", lambda m: m.RelevanceEvaluator({1: {"d1": 1}}, {"map"})),
    ("judgments not a dict", lambda m: m.RelevanceEvaluator({"q1": [("d1", 1)]}, {"map"})),
    ("docid not a str", lambda m: m.RelevanceEvaluator({"q1": {1: 1}}, {"map"})),
    ("relevance a float", lambda m: m.RelevanceEvaluator({"q1": {"d1": 1.0}}, {"map"})),
    ("relevance a str", lambda m: m.RelevanceEvaluator({"q1": {"d1": "1"}}, {"map"})),
    ("unknown measure", lambda m: m.RelevanceEvaluator(QRELS, {"mapp"})),
    ("unknown measure with params", lambda m: m.RelevanceEvaluator(QRELS, {"ndcg_cutt.10"})),
    ("prefs nickname", lambda m: m.RelevanceEvaluator(QRELS, {"prefs"})),
    ("measures not iterable", lambda m: m.RelevanceEvaluator(QRELS, 5)),
    ("relevance_level 0", lambda m: m.RelevanceEvaluator(QRELS, {"map"}, relevance_level=0)),
    ("relevance_level float", lambda m: m.RelevanceEvaluator(QRELS, {"map"}, 1.5)),
    ("scores a list", lambda m: m.RelevanceEvaluator(QRELS, {"map"}).evaluate([("q1", 1)])),
    ("score a str", lambda m: m.RelevanceEvaluator(QRELS, {"map"}).evaluate({"q1": {"d1": "1"}})),
    ("score None", lambda m: m.RelevanceEvaluator(QRELS, {"map"}).evaluate({"q1": {"d1": None}})),
    ("run qid not a str", lambda m: m.RelevanceEvaluator(QRELS, {"map"}).evaluate({1: {"d": 1}})),
    ("run docs a list", lambda m: m.RelevanceEvaluator(QRELS, {"map"}).evaluate({"q1": [1]})),
    ("duplicate run line", lambda m: m.parse_run(["q 0 d 1 1 t", "q 0 d 2 0.5 t"])),
    ("short qrels line", lambda m: m.parse_qrel(["q 0 d"])),
]


@pytest.mark.parametrize("call", [c for _, c in MISUSE], ids=[n for n, _ in MISUSE])
def test_same_error_for_same_misuse(call: Any) -> None:
    with pytest.raises(Exception) as theirs:
        call(pytrec_eval)
    with pytest.raises(type(theirs.value)):
        call(compat)


@pytest.mark.parametrize("given", [[], None, {}])
def test_empty_scores_give_empty_results(given: Any) -> None:
    assert compat.RelevanceEvaluator(QRELS, {"map"}).evaluate(given) == {}
    assert pytrec_eval.RelevanceEvaluator(QRELS, {"map"}).evaluate(given) == {}


def test_accepted_unusual_values_as_pytrec_eval() -> None:
    """bool relevance and numpy float64 scores are ints / floats to pytrec_eval."""
    qrels = {"q1": {"d1": True, "d2": False, "d3": 2}}
    run = {"q1": {"d1": np.float64(0.3), "d2": 0.9, "d3": True}}
    measures = {"map", "ndcg", "P_2"}
    expected = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
    same_results(expected, compat.RelevanceEvaluator(qrels, measures).evaluate(run))


@pytest.mark.parametrize(
    ("qrels_name", "expected_name", "options"),
    [("qrels.test", "out.test", {}), ("qrels.rel_level", "out.test.aql", {"relevance_level": 2})],
)
def test_pytrec_eval_integration_cases(
    tmp_path: Path, qrels_name: str, expected_name: str, options: dict[str, int]
) -> None:
    """pytrec_eval's ``generate_traditional_test`` on trec_eval 9.0.8's expected outputs."""
    import importlib.util

    path = Path(__file__).parent / "peer_suites" / "test_pytrec_eval_suite.py"
    spec = importlib.util.spec_from_file_location("pytrec_eval_peer_suite", path)
    assert spec is not None and spec.loader is not None
    suite = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(suite)
    for name in ("results.test", qrels_name):
        shutil.copy(DATA / name, tmp_path / name)
    shutil.copy(DATA / "v9.0.8" / expected_name, tmp_path / expected_name)
    case = suite.generate_traditional_test("results.test", qrels_name, expected_name, **options)
    holder = suite.PyTrecEvalIntegrationTest()
    suite.TREC_EVAL_TEST_DIR = str(tmp_path)  # this test's own copy of the module
    case(holder)


def larger(seed: int) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, Any]]]:
    """Generated qrels and a run past the tiny path's size (read by the native core in one
    walk, ``ranklens.data.memory.plain_dict_columns``), with the awkward cases of
    :func:`generated` repeated over many queries."""
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, Any]] = {}
    for part in range(12):
        more_qrels, more_run = generated(seed * 100 + part)
        more_run = {q: {f"{d}x{k}": s for k in range(20) for d, s in docs.items()}
                    for q, docs in more_run.items()}  # fmt: skip
        qrels.update({f"{part}_{q}": docs for q, docs in more_qrels.items()})
        run.update({f"{part}_{q}": docs for q, docs in more_run.items()})
    for q, docs in list(qrels.items())[::3]:  # judge some of the longer rankings' documents
        docs.update({d: len(d) % 4 - 1 for d in list(run.get(q, {}))[::5]})
        if all(v < 0 for v in docs.values()):
            docs["z"] = 0
    return qrels, run


@pytest.mark.parametrize("seed", range(4))
def test_larger_runs_equal_pytrec_eval(seed: int) -> None:
    """Past the tiny path, plain dicts are read by the native core without the type checks
    (which it proves unnecessary); unusual kinds (bool relevance, numpy scores) are checked
    first; both give pytrec_eval's values."""
    from ranklens.evaluation.tiny import TINY_ENTRIES

    qrels, run = larger(seed)
    assert sum(map(len, run.values())) > TINY_ENTRIES
    for measures in ({"all_trec"}, {"map", "ndcg_cut.10", "P.10", "recip_rank"}):
        for judged_only in (False, True):
            expected = pytrec_eval.RelevanceEvaluator(qrels, measures, 1, judged_only)
            got = compat.RelevanceEvaluator(qrels, measures, 1, judged_only)
            same_results(expected.evaluate(run), got.evaluate(run))
    unusual_run = {q: {d: np.float64(s) for d, s in docs.items()} for q, docs in run.items()}
    unusual_qrels = {q: {d: bool(g) if g in (0, 1) else g for d, g in docs.items()}
                     for q, docs in qrels.items()}  # fmt: skip
    expected = pytrec_eval.RelevanceEvaluator(unusual_qrels, {"all_trec"})
    got = compat.RelevanceEvaluator(unusual_qrels, {"all_trec"})
    same_results(expected.evaluate(unusual_run), got.evaluate(unusual_run))
