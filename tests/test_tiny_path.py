"""The tiny path (``ranklens.evaluation.tiny``) against the general path, forced.

Small plain calls of :func:`ranklens.evaluate`, :meth:`ranklens.Evaluator.evaluate` and
``ranklens.compat.pytrec_eval.RelevanceEvaluator.evaluate`` skip the columnar tables, the
alignment and the numpy kernels. Here the same calls are made twice, once as they are and
once with the tiny path switched off (``general_path``), on generated inputs with tied
scores (also ties only in float32), graded, zero and negative labels, unjudged documents,
queries without relevant documents, queries on one side only, empty rankings, odd ids,
every tie and query policy and depth limits; and the outcomes must be the same: every
value bit for bit (NaN and the sign of zero included), the query ids and counts, the
tie-affected count, the error (type and message) or the warnings (category, message and
the line they point at). One test runs every measure of the registry this way (most of
them are not covered by the tiny path and must fall back to the general one); others
check that small calls do take the tiny path, and the compat module against pytrec_eval
itself.
"""

from __future__ import annotations

import contextlib
import math
import warnings
from collections.abc import Callable, Iterator
from typing import Any
from unittest import mock

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ranklens
import ranklens.compat.pytrec_eval as compat
from ranklens.evaluation import evaluator as evaluator_module
from ranklens.evaluation import tiny
from ranklens.evaluation.results import Results
from ranklens.measures.language import parse_measures
from ranklens.measures.registry import SPECS

DIFFERENTIAL = settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


@contextlib.contextmanager
def general_path() -> Iterator[None]:
    """Every entry point with its tiny path switched off."""
    with (
        mock.patch.object(evaluator_module, "_tiny_evaluate", return_value=None),
        mock.patch.object(evaluator_module.Evaluator, "_tiny_input", return_value=None),
        mock.patch.object(compat.RelevanceEvaluator, "_evaluate_tiny", return_value=None),
    ):
        yield


Outcome = tuple[Any, list[tuple[Any, ...]]]


def outcome(call: Callable[[], Any]) -> Outcome:
    """What ``call`` gives: its result or its error (type, message), and its warnings
    (category, message, file and line)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = call()
        except Exception as exc:  # (the error is what is compared)
            result = (type(exc), str(exc))
    return result, [(w.category, str(w.message), w.filename, w.lineno) for w in caught]


def bits(values: Any) -> bytes:
    return np.ascontiguousarray(np.asarray(values, dtype=np.float64)).tobytes()


def same_results(a: Results, b: Results) -> None:
    assert a.run == b.run
    assert a.names == b.names
    assert a.queries == b.queries
    assert a.values.shape == b.values.shape
    assert bits(a.values) == bits(b.values)
    assert dict(a.query_counts) == dict(b.query_counts)
    assert list(a.query_counts) == list(b.query_counts)
    assert a.tie_affected_queries == b.tie_affected_queries
    assert a.metadata == b.metadata
    assert list(a.run_statistics) == list(b.run_statistics)
    for key, statistic in a.run_statistics.items():
        assert bits(statistic.value(None)) == bits(b.run_statistics[key].value(None))
    assert list(a.aggregate) == list(b.aggregate)
    assert bits(list(a.aggregate.values())) == bits(list(b.aggregate.values()))


def where(caught: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """The warnings, with the line left out where it is inside ``ranklens.evaluate``
    (whose warnings point into it, one frame short of the caller, on either path)."""
    return [w[:3] if w[2] == evaluator_module.__file__ else w for w in caught]


def same_outcome(fast: Outcome, general: Outcome) -> None:
    assert where(fast[1]) == where(general[1])
    if isinstance(general[0], Results):
        assert isinstance(fast[0], Results), fast[0]
        same_results(fast[0], general[0])
    else:
        assert fast[0] == general[0]


QIDS = ["q1", "q2", "q10", "q", "Q3", "a b", ""]
DOCS = ["d1", "d2", "d10", "d1a", "D", "x", "d", "e 1", ""]
GRADES = st.integers(-3, 4) | st.sampled_from([0, 1, 2, 1 << 40])
SCORES = (
    st.sampled_from([0.0, -0.0, 0.5, 0.5 + 1e-9, 1.0, 1.5, 2.0, -1.0, 1e300, 5e-324])
    | st.floats(-10, 10, allow_nan=False)
    | st.integers(-3, 3)
)
QRELS = st.dictionaries(
    st.sampled_from(QIDS), st.dictionaries(st.sampled_from(DOCS), GRADES, max_size=6), max_size=4
)
RUNS = st.dictionaries(
    st.sampled_from(QIDS), st.dictionaries(st.sampled_from(DOCS), SCORES, max_size=7), max_size=4
)
TINY_MEASURES = [
    "P@1", "P@3", "P@10", "P", "P(rel=2)@2", "P(judged_only=True)@3", "P(rel=0)@3",
    "P(rel=-1)@2", "R@2", "R@5", "R", "R(norm='min')@2", "R(norm='min')",
    "R(rel=2,judged_only=True)@3", "AP", "AP@2", "AP(rel=2)", "AP(norm='min')@3",
    "AP(norm='ret')@2", "AP(norm='min')", "AP(norm='ret')", "AP(judged_only=True)", "GMAP",
    "GMAP(rel=2)", "RR", "RR@2", "RR(rel=2)", "RR(judged_only=True)@3", "nDCG", "nDCG@1",
    "nDCG@3", "nDCG(judged_only=True)@5", "nDCG(ideal='trec_eval')@2", "Rprec", "Rprec(rel=2)",
    "Rprec(judged_only=True)", "Bpref", "Bpref(rel=2)", "Bpref(rel=0)", "IPrec@0.0",
    "IPrec@0.3", "IPrec@1.0", "IPrec(rounding='trec9')@0.5",
    "IPrec(rel=2,judged_only=True)@0.1", "Success@1", "Success(rel=2)@3", "Judged@1",
    "Judged@5", "Judged", "NumRet", "NumRet@2", "NumRet(rel=0)", "NumRet(rel=2)@3",
    "NumRelRet", "NumRelRet(rel=2)@2", "Hits@3", "NumRel", "NumRel(rel=2)", "NumQ",
    "official", "map", "ndcg_cut.2,5", "P.1,3", "recall.2", "recip_rank", "bpref", "Rprec",
]  # fmt: skip
OTHER_MEASURES = ["nDCG(dcg='exp-log2')@3", "nDCG(gains={0:0,1:1,2:5})", "ERR@3", "infAP"]

COMPAT_QRELS = st.dictionaries(
    st.sampled_from(QIDS),
    st.dictionaries(st.sampled_from(DOCS), st.integers(-2, 3), max_size=6),
    max_size=4,
)
"""Qrels as pytrec_eval takes them (it crashes on grades beyond a C int)."""


@st.composite
def pairs(
    draw: st.DrawFn, qrels_strategy: st.SearchStrategy[dict[str, dict[str, int]]] = QRELS
) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, Any]]]:
    """Qrels and a run that mostly share queries and documents (and sometimes do not)."""
    qrels = draw(qrels_strategy)
    if not any(qrels.values()) and draw(st.booleans()):  # (mostly qrels with a judgment)
        qrels = {**qrels, "q1": {"d1": draw(st.integers(-1, 3))}}
    shared = draw(st.lists(st.sampled_from(sorted(qrels) or QIDS), max_size=4))
    run: dict[str, dict[str, Any]] = {}
    for qid in [*shared, *draw(st.lists(st.sampled_from(QIDS), max_size=1))]:
        pool = sorted(qrels.get(qid, {})) + draw(st.lists(st.sampled_from(DOCS), max_size=3))
        run[qid] = draw(st.dictionaries(st.sampled_from(pool or DOCS), SCORES, max_size=7))
    return qrels, run


MEASURES = st.one_of(
    *[st.lists(st.sampled_from(TINY_MEASURES), min_size=1, max_size=5)] * 3,
    st.lists(st.sampled_from(TINY_MEASURES + OTHER_MEASURES), min_size=1, max_size=5),
)  # (mostly measures the tiny path covers)
TIES = st.sampled_from(["trec_eval", "docid_asc", "input"]) | st.just("rank")
QUERIES = st.sampled_from(["qrels", "both", "run"])
DEPTH = st.none() | st.integers(1, 4)


@DIFFERENTIAL
@given(
    pairs() | st.tuples(QRELS, RUNS),
    MEASURES,
    TIES,
    QUERIES,
    DEPTH,
    st.sampled_from([None, "", "bm25"]),
)
def test_evaluate_equals_the_general_path(
    data: Any, measures: list[str], ties: Any, queries: Any, depth: Any, name: Any
) -> None:
    qrels, run = data

    def call() -> Any:
        return ranklens.evaluate(
            qrels, run, measures, ties=ties, queries=queries, depth=depth, name=name
        )

    fast = outcome(call)
    with general_path():
        general = outcome(call)
    same_outcome(fast, general)


@DIFFERENTIAL
@given(pairs(), st.lists(RUNS, max_size=2), MEASURES, TIES, QUERIES, DEPTH)
def test_evaluator_equals_the_general_path(
    data: Any, more: list[Any], measures: list[str], ties: Any, queries: Any, depth: Any
) -> None:
    qrels, first = data
    runs = [first, *more]

    def make() -> Any:
        return ranklens.Evaluator(qrels, measures, ties=ties, queries=queries, depth=depth)

    made = outcome(make)
    if not isinstance(made[0], ranklens.Evaluator):
        return  # refused before any run: no tiny path involved
    fast_evaluator = made[0]
    with general_path():
        general_evaluator = make()

    def call(evaluator: Any, run: Any) -> Any:
        return evaluator.evaluate(run)  # (one line: the warnings point at it)

    for run in runs:  # the same evaluator for several runs (its kept judgments)
        fast = outcome(lambda run=run: call(fast_evaluator, run))
        with general_path():
            general = outcome(lambda run=run: call(general_evaluator, run))
        same_outcome(fast, general)


SUPPORTED = sorted(compat.supported_measures)
TINY_TREC = [
    "map", "ndcg_cut.3,10", "P.1,5", "recall.2", "recip_rank", "ndcg", "Rprec", "bpref",
    "num_ret", "num_rel", "num_rel_ret", "num_q", "runid", "relstring", "gm_map",
    "iprec_at_recall", "success", "set_P", "set_recall", "official",
]  # fmt: skip


@DIFFERENTIAL
@given(
    pairs(COMPAT_QRELS) | st.tuples(COMPAT_QRELS, RUNS),
    st.lists(st.sampled_from(TINY_TREC) | st.sampled_from(SUPPORTED), min_size=1, max_size=4),
    st.sampled_from([1, 2]),
    st.booleans(),
)
def test_pytrec_eval_module_equals_the_general_path(
    data: Any, measures: list[str], level: int, judged_only: bool
) -> None:
    qrels, run = data

    def evaluate() -> Any:
        evaluator = compat.RelevanceEvaluator(qrels, set(measures), level, judged_only)
        return evaluator.evaluate(run)

    fast = outcome(evaluate)
    with general_path():
        general = outcome(evaluate)
    assert fast[1] == general[1]
    if isinstance(general[0], dict):
        assert isinstance(fast[0], dict)
        assert list(fast[0]) == list(general[0])
        for qid, values in general[0].items():
            assert list(fast[0][qid]) == list(values)
            assert bits(list(fast[0][qid].values())) == bits(list(values.values()))
    else:
        assert fast[0] == general[0]


def registry_measure(spec: Any) -> str:
    """One instance of every declared measure."""
    if spec.at is not None and spec.at_required:
        return f"{spec.name}@{0.5 if spec.at.type is float else 3}"
    return spec.name


SMALL_INPUTS = [
    (
        {"q1": {"d1": 1, "d2": 0, "d3": 2}, "q2": {"d4": 1}},
        {"q1": {"d1": 0.5, "d3": 0.5, "x": 1.0}},
    ),
    (
        {"q1": {"d1": -1, "d2": 3}, "q3": {"d9": 0}, "q4": {"a": 1, "b": 1}},
        {"q1": {"d2": 1.0, "d1": 1, "u": 2.0}, "q3": {"d9": 0.0}, "q5": {"d1": 3.0}},
    ),
]


@pytest.mark.parametrize("spec", SPECS, ids=lambda spec: spec.name)
def test_every_registry_measure_equals_the_general_path(spec: Any) -> None:
    """The tiny path takes the measures it covers and leaves the others (their errors
    included) to the general path."""
    measure = registry_measure(spec)
    for qrels, run in SMALL_INPUTS:
        for ties in ("trec_eval", "input"):
            for queries in ("qrels", "run"):

                def call(
                    qrels: Any = qrels, run: Any = run, ties: Any = ties, queries: Any = queries
                ) -> Any:
                    return ranklens.evaluate(
                        qrels, run, [measure, "P@2"], ties=ties, queries=queries
                    )

                fast = outcome(call)
                with general_path():
                    general = outcome(call)
                same_outcome(fast, general)


@pytest.mark.parametrize("measure", TINY_MEASURES)
def test_small_calls_take_the_tiny_path(measure: str) -> None:
    """No columnar run is built for a small plain call of any covered measure (so the
    tests above compare two different paths)."""
    qrels = {"q1": {"d1": 1, "d2": 0, "d3": 2}, "q2": {"d2": 1}}
    run = {"q1": {"d1": 0.5, "d3": 0.5, "u": 1.0}, "q2": {"d2": 0.3, "d1": 0.1}}
    refuse = mock.patch.object(ranklens.Run, "from_dict", side_effect=AssertionError("general"))
    with refuse:
        ranklens.evaluate(qrels, run, [measure])
        ranklens.Evaluator(qrels, [measure]).evaluate(run)
    assert tiny.scalar_kernels(parse_measures([measure])) is not None


def test_pytrec_eval_module_takes_the_tiny_path() -> None:
    qrel = {"q1": {"d1": 0, "d2": 1, "d3": 0}, "q2": {"d2": 1, "d3": 1}}
    run = {"q1": {"d1": 1.0, "d2": 0.0, "d3": 1.5}, "q2": {"d1": 0.5, "d2": 0.2}}
    evaluator = compat.RelevanceEvaluator(qrel, {"map", "ndcg_cut.10", "P.10", "recip_rank"})
    with mock.patch.object(compat.Run, "from_dict", side_effect=AssertionError("general")):
        result = evaluator.evaluate(run)
    assert result["q1"]["map"] == pytest.approx(1 / 3)


def test_large_calls_take_the_general_path() -> None:
    """Beyond TINY_ENTRIES entries the vectorised path is used."""
    qrels = {"q1": {f"d{i}": i % 3 for i in range(50)}}
    run = {"q1": {f"d{i}": float(i % 7) for i in range(tiny.TINY_ENTRIES)}}
    calls = []
    original = ranklens.Run.from_dict

    def spy(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return original(*args, **kwargs)

    with mock.patch.object(ranklens.Run, "from_dict", side_effect=spy):
        fast = ranklens.evaluate(qrels, run, ["AP", "nDCG@10"])
    assert calls
    with general_path():
        same_results(fast, ranklens.evaluate(qrels, run, ["AP", "nDCG@10"]))


pytrec_eval = pytest.importorskip("pytrec_eval")


@DIFFERENTIAL
@given(
    pairs(COMPAT_QRELS),
    st.lists(st.sampled_from(TINY_TREC), min_size=1, max_size=4),
    st.sampled_from([1, 2]),
    st.booleans(),
)
def test_pytrec_eval_module_equals_pytrec_eval(
    data: Any, measures: list[str], level: int, judged_only: bool
) -> None:
    """The tiny path against pytrec_eval itself (whose queries need a judgment >= 0: it
    crashes on one whose judgments are all negative, and on a ranking that
    ``judged_docs_only_flag`` leaves empty). Where trec_eval 9.0.8 divides 0 by 0
    (``iprec_at_recall`` on an empty ranking) pytrec_eval's value is undefined: it reads
    memory it did not set, and may give NaN or 0 for the same call (the module gives NaN
    where 9.0.8's count of relevant documents for the level is 0, 0 otherwise); so are its
    ``runid`` and ``relstring`` (trec_eval prints text for them; pytrec_eval gives a
    number read from such memory, often a denormal; the module gives 0)."""
    qrels = {q: docs for q, docs in data[0].items() if any(g >= 0 for g in docs.values())}
    run = {q: {d: float(s) for d, s in docs.items()} for q, docs in data[1].items()}
    if judged_only:  # (pytrec_eval also crashes on a ranking that -J leaves empty)
        run = {q: docs for q, docs in run.items() if any(d in qrels.get(q, {}) for d in docs)}
    expected = pytrec_eval.RelevanceEvaluator(qrels, set(measures), level, judged_only)
    got = compat.RelevanceEvaluator(qrels, set(measures), level, judged_only)
    want, have = expected.evaluate(run), got.evaluate(run)
    assert list(have) == list(want)
    for qid, values in want.items():
        assert set(have[qid]) == set(values)
        for key, value in values.items():
            mine = have[qid][key]
            ranked = [d for d in run.get(qid, {}) if not judged_only or qrels[qid].get(d, -1) >= 0]
            if key in ("runid", "relstring") or (not ranked and key.startswith("iprec")):
                continue  # (undefined in pytrec_eval)
            assert mine == value or (math.isnan(value) and math.isnan(mine)), (qid, key)


def test_parsed_names_are_cached_and_failures_are_not() -> None:
    """A name parses once (the same measure objects come back); a name that fails to parse
    is not remembered, so a user measure defined later under it is found."""
    import uuid

    from ranklens.base.errors import MeasureError
    from ranklens.measures.language import parsed_text
    from ranklens.measures.user import define_measure

    assert parsed_text("nDCG@10") is parsed_text("nDCG@10")
    assert parse_measures(["ndcg_cut.10"])[0] is parsed_text("ndcg_cut.10")[0]
    name = "TinyPathProbe" + uuid.uuid4().hex[:8]
    with pytest.raises(MeasureError):
        parse_measures([name])
    define_measure(name, lambda relevance, scores: float(relevance.sum()))
    assert parse_measures([name])[0].name == name
    # a user measure has no per-query kernel of the tiny path: the general path computes it
    qrels, run = {"q1": {"a": 2, "b": 1}}, {"q1": {"a": 0.5, "b": 0.7}}
    assert tiny.scalar_kernels(parse_measures([name])) is None
    # ranked b (grade 1), a (grade 2): the sum of the grades is 3, P@1 is 1
    assert ranklens.evaluate(qrels, run, [name, "P@1"]).aggregate == {name: 3.0, "P@1": 1.0}


@pytest.mark.parametrize("name", ["foo12", "abc_7", "Probe0a12", "P10"])
def test_unknown_names_with_digits_are_refused_with_a_message(name: str) -> None:
    """A name run together with digits that no measure has is a MeasureError (the search
    for a "did you mean" once recursed without end on such names)."""
    from ranklens.base.errors import MeasureError

    with pytest.raises(MeasureError, match="unknown measure"):
        parse_measures([name])


@settings(max_examples=60, deadline=None)
@given(RUNS, st.booleans())
def test_plain_columns_without_rows_are_the_grouped_columns(run: Any, integer: bool) -> None:
    """``plain_dict_columns(..., rows=False)`` (what the pytrec_eval module reads larger
    dicts with) gives the columns of the general grouping, rows aside, or declines."""
    from ranklens.base.errors import EmptyInputError
    from ranklens.data.memory import from_dict, plain_dict_columns

    if integer:
        run = {q: {d: int(s) for d, s in docs.items()} for q, docs in run.items()}
    try:
        fast = plain_dict_columns(run, integer, "<dict>", rows=False)
    except EmptyInputError:
        with pytest.raises(EmptyInputError):
            from_dict(run, integer, "<dict>")
        return
    if fast is None:
        return  # (declined: non-finite or non-plain values; the checked path says why)
    general = from_dict(run, integer, "<dict>")
    assert fast["qids"] == general["qids"]
    assert fast["lines"] is None and fast["unique"] is general["unique"] is True
    for key in ("q_offsets", "doc_data", "doc_offsets", "values"):
        assert np.array_equal(fast[key], general[key]), key
        assert fast[key].dtype == general[key].dtype, key
