"""The ``ranklens`` ir_measures provider against the provider ir_measures picks without it.

For every measure family the provider declares (ir_measures' ``pytrec_eval`` provider's
list), with each kind of parameter (cut-offs, ``rel``, ``judged_only``, custom gains,
``beta``, ``relative``, recall levels), per query and exactly (NaN only equals NaN), on
generated data with tied scores (also ties only in float32), graded and negative labels,
unjudged documents, queries without relevant documents, queries only in the run or only in
the qrels and empty rankings. Also: the provider is registered and tried first, the
measures it does not support are left to their providers, and the result objects are the
same (``Metric`` with ir_measures' measure objects).
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ir_measures = pytest.importorskip("ir_measures")
pytest.importorskip("pytrec_eval")

import ranklens.compat.ir_measures as provider_module  # noqa: E402
from compat_data import generated  # noqa: E402

RANKLENS = ir_measures.providers.registry["ranklens"]
REFERENCE = ir_measures.providers.registry["pytrec_eval"]

MEASURES = [
    "P@1", "P@5", "P(rel=2)@3", "P(judged_only=True)@5", "RR", "RR(rel=2)",
    "RR(judged_only=True)", "Rprec", "Rprec(rel=2)", "AP", "AP@5", "AP(rel=2)",
    "AP(judged_only=True)", "nDCG", "nDCG@3", "nDCG@10", "nDCG(judged_only=True)@5",
    "nDCG(gains={0:0,1:1,2:5,3:9})", "R@5", "R@1000", "R(judged_only=True)@5", "Bpref",
    "Bpref(rel=2)", "NumRet", "NumRet(rel=1)", "NumRet(rel=2)", "NumQ", "NumRel", "SetAP",
    "SetAP(rel=2)", "SetF", "SetF(beta=0.5)", "SetP", "SetP(relative=True)", "SetP(rel=2)",
    "SetR", "Success@1", "Success(rel=2)@5", "IPrec@0.0", "IPrec@0.1", "IPrec@0.5",
    "IPrec@1.0", "IPrec(judged_only=True)@0.2", "infAP", "infAP(rel=2)",
]  # fmt: skip


MSMARCO = ir_measures.providers.registry["msmarco"]
CUT_RR = ["RR@1", "RR@3", "RR@10", "RR(rel=2)@5", "RR(rel=3)@1000"]


def by_query(metrics: Any) -> dict[tuple[str, str], float]:
    out: dict[tuple[str, str], float] = {}
    for metric in metrics:
        key = (str(metric.measure), metric.query_id)
        assert key not in out, key
        out[key] = metric.value
    return out


def test_every_listed_measure_is_supported() -> None:
    for name in MEASURES:
        measure = ir_measures.parse_measure(name)
        assert RANKLENS.supports(measure), name
        assert REFERENCE.supports(measure), name


SEEDS = range(20)
_REFERENCE_SCRIPT = """
import json, sys
sys.path.insert(0, sys.argv[3])
import ir_measures
from compat_data import generated
provider = ir_measures.providers.registry["pytrec_eval"]
measures = [ir_measures.parse_measure(name) for name in json.loads(sys.argv[1])]
out = {}
for seed in json.loads(sys.argv[2]):
    qrels, run = generated(seed)
    out[seed] = [[str(m.measure), m.query_id, m.value] for m in provider.iter_calc(measures, qrels, run)]
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def reference_values() -> dict[int, dict[tuple[str, str], float]]:
    """The reference provider's values for every seed, computed in a fresh interpreter.

    pytrec_eval keeps trec_eval's measure table as process-wide state that each evaluator
    rewrites with its measures' parameters (and frees memory allocated with ``new[]``
    with ``free``: AddressSanitizer's alloc-dealloc-mismatch). In a test worker that has
    run many other tests, its ``evaluate`` crashed here twice (a segmentation fault inside
    pytrec_eval, 2026-11-27), taking the worker and the tests after it down; in a fresh
    process these calls never crashed (600 rounds tried). So the reference runs in a child
    process, which is started again if the peer crashes (a signal), up to three times; an
    error of any other kind fails the test with the child's message."""
    args = [json.dumps(MEASURES), json.dumps(list(SEEDS)), str(Path(__file__).parent)]
    for _attempt in range(3):
        child = subprocess.run(
            [sys.executable, "-c", _REFERENCE_SCRIPT, *args], capture_output=True, text=True
        )
        if child.returncode >= 0:
            break
    if child.returncode != 0:
        pytest.fail(f"the reference provider failed ({child.returncode}): {child.stderr[-2000:]}")
    found = json.loads(child.stdout)
    out: dict[int, dict[tuple[str, str], float]] = {}
    for seed, rows in found.items():
        values: dict[tuple[str, str], float] = {}
        for measure, query, value in rows:
            assert (measure, query) not in values, (measure, query)
            values[(measure, query)] = float(value)
        out[int(seed)] = values
    return out


@pytest.mark.parametrize("seed", SEEDS)
def test_values_equal_the_reference_provider(
    seed: int, reference_values: dict[int, dict[tuple[str, str], float]]
) -> None:
    qrels, run = generated(seed)
    measures = [ir_measures.parse_measure(name) for name in MEASURES]
    expected = reference_values[seed]
    got = by_query(RANKLENS.iter_calc(measures, qrels, run))
    assert got.keys() == expected.keys()
    for key, value in expected.items():
        assert got[key] == value or (math.isnan(value) and math.isnan(got[key])), key


def test_ranklens_is_registered_and_tried_first() -> None:
    assert ir_measures.DefaultPipeline.providers[0] is RANKLENS
    assert provider_module.provider is RANKLENS
    qrels, run = generated(3)
    measures = [ir_measures.parse_measure(m) for m in ("nDCG@10", "P@5", "AP")]
    evaluator = ir_measures.evaluator(measures, qrels)
    assert type(evaluator).__module__ == "ir_measures.providers.pytrec_eval_provider"
    assert all(
        type(inv.evaluator).__module__ == "ranklens.compat.pytrec_eval"
        for inv in evaluator.invokers
    )
    expected = REFERENCE.calc_aggregate(measures, qrels, run)
    assert ir_measures.calc_aggregate(measures, qrels, run) == expected


def test_importing_again_registers_once() -> None:
    import importlib

    before = list(ir_measures.DefaultPipeline.providers)
    importlib.reload(provider_module)
    after = ir_measures.DefaultPipeline.providers
    assert sum(p.NAME == "ranklens" for p in after) == 1
    assert len(after) == len(before)


def test_other_measures_are_left_to_their_provider() -> None:
    """cwl_eval's and compat's (not bit for bit), gdeval's (a modified gdeval.pl), and
    Accuracy below rel=1 (unjudged documents relevant there)."""
    qrels, run = generated(4)
    qrels = {str(i): docs for i, docs in enumerate(qrels.values())}  # (gdeval: numeric ids)
    run = {str(i): docs for i, docs in enumerate(run.values())}
    for name in (
        "Compat",
        "RBP(rel=1)",
        "INST(T=1.0,max_rel=3)",
        "nDCG(dcg='exp-log2')@10",
        "ERR@10",
    ):
        measure = ir_measures.parse_measure(name)
        assert not RANKLENS.supports(measure), name
        pipeline_without = ir_measures.providers.FallbackProvider(
            [p for p in ir_measures.DefaultPipeline.providers if p is not RANKLENS]
        )
        expected = pipeline_without.calc_aggregate([measure], qrels, run)
        assert ir_measures.calc_aggregate([measure], qrels, run) == expected
    assert not RANKLENS.supports(ir_measures.parse_measure("Accuracy(rel=0)@5"))


def test_qrels_and_runs_in_ir_measures_forms() -> None:
    """Namedtuple iterables and DataFrames, as ir_measures accepts them."""
    pd = pytest.importorskip("pandas")
    qrels, run = generated(9)
    qrel_rows = [ir_measures.Qrel(q, d, r) for q, docs in qrels.items() for d, r in docs.items()]
    run_rows = [
        ir_measures.ScoredDoc(q, d, float(s)) for q, docs in run.items() for d, s in docs.items()
    ]
    measures = [ir_measures.parse_measure(m) for m in ("nDCG@10", "P(rel=2)@5", "AP")]
    expected = REFERENCE.calc_aggregate(measures, qrels, run)
    assert RANKLENS.calc_aggregate(measures, qrel_rows, run_rows) == expected
    frame = pd.DataFrame(run_rows)
    assert RANKLENS.calc_aggregate(measures, pd.DataFrame(qrel_rows), frame) == expected


@pytest.mark.parametrize("seed", range(20))
def test_cut_rr_equals_the_msmarco_provider(seed: int) -> None:
    qrels, run = generated(seed)
    measures = [ir_measures.parse_measure(name) for name in CUT_RR]
    assert all(RANKLENS.supports(m) and MSMARCO.supports(m) for m in measures)
    assert not any(REFERENCE.supports(m) for m in measures)  # msmarco is the pick
    expected = by_query(MSMARCO.iter_calc(measures, qrels, run))
    got = by_query(RANKLENS.iter_calc(measures, qrels, run))
    assert got == expected


@pytest.mark.parametrize("seed", range(5))
def test_mixed_families_equal_the_default_pipeline(seed: int) -> None:
    qrels, run = generated(seed)
    measures = [ir_measures.parse_measure(n) for n in ("RR@10", "nDCG@10", "P(rel=2)@5", "RR")]
    without = ir_measures.providers.FallbackProvider(
        [p for p in ir_measures.DefaultPipeline.providers if p is not RANKLENS]
    )
    expected = by_query(without.iter_calc(measures, qrels, run))
    assert by_query(ir_measures.iter_calc(measures, qrels, run)) == expected
    assert ir_measures.calc_aggregate(measures, qrels, run) == without.calc_aggregate(
        measures, qrels, run
    )


JUDGED = ["Judged@1", "Judged@5", "Judged"]
ACCURACY = ["Accuracy@1", "Accuracy@5", "Accuracy(rel=2)", "Accuracy(rel=3)@10"]


def metrics_or_error(provider: Any, measures: list[Any], qrels: Any, run: Any) -> Any:
    """The metrics in order (measure, query, value), or the error's type."""
    try:
        return [
            (str(m.measure), m.query_id, m.value) for m in provider.iter_calc(measures, qrels, run)
        ]
    except Exception as exc:  # (the error is what is compared)
        return type(exc)


@pytest.mark.parametrize(("reference", "names"), [("judged", JUDGED), ("accuracy", ACCURACY)])
@pytest.mark.parametrize("seed", range(30))
def test_judged_and_accuracy_equal_their_providers(
    reference: str, names: list[str], seed: int
) -> None:
    """Every metric in the same order with the same value (the queries reported, their
    defaults, the measures' order), or the same error (an empty ranking, a top k without a
    non-relevant document: both divide by zero), on awkward generated data (ties, negative
    grades, unjudged documents, queries on one side only)."""
    qrels, run = generated(seed)
    measures = [ir_measures.parse_measure(name) for name in names]
    assert all(RANKLENS.supports(m) for m in measures)
    peer = ir_measures.providers.registry[reference]
    assert metrics_or_error(RANKLENS, measures, qrels, run) == metrics_or_error(
        peer, measures, qrels, run
    )
    nonempty = {q: docs for q, docs in run.items() if docs}
    assert metrics_or_error(RANKLENS, measures, qrels, nonempty) == metrics_or_error(
        peer, measures, qrels, nonempty
    )


def test_every_family_through_the_default_pipeline() -> None:
    """pytrec_eval's, msmarco's, judged's and accuracy's measures asked together: the
    provider computes them all, with the values of the pipeline without it."""
    names = ["nDCG@10", "RR@5", "Judged@10", "Accuracy@5", "P(rel=2)@3", "Compat"]
    measures = [ir_measures.parse_measure(n) for n in names]
    without = ir_measures.providers.FallbackProvider(
        [p for p in ir_measures.DefaultPipeline.providers if p is not RANKLENS]
    )
    for seed in range(10):
        qrels, run = generated(seed)
        run = {q: docs for q, docs in run.items() if docs}  # (judged: no empty ranking)
        try:
            expected = by_query(without.iter_calc(measures, qrels, run))
        except ZeroDivisionError:
            with pytest.raises(ZeroDivisionError):
                by_query(ir_measures.iter_calc(measures, qrels, run))
            continue
        assert by_query(ir_measures.iter_calc(measures, qrels, run)) == expected
