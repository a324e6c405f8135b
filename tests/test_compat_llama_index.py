"""ranklens.compat.llama_index against LlamaIndex's own retrieval metrics (llama-index-core).

Every metric and option is computed by both on hypothesis-generated id lists: repeated
retrieved and expected ids, expected ids never retrieved, empty lists, long lists. Where
LlamaIndex counts a repeated id twice, ranklens refuses it (``duplicates="error"``) or, with
``duplicates="first"``, gives LlamaIndex's value of the lists without repeats. The classes
also run inside LlamaIndex's ``RetrieverEvaluator`` (a retriever of fixed nodes, no model),
and :func:`retrieval_results` gives each query the value ``compute`` gives.
"""

from __future__ import annotations

import pickle
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ranklens
from ranklens.base.errors import InputError, MissingDependencyError, OptionError

peer = pytest.importorskip(
    "llama_index.core.evaluation.retrieval.metrics",
    reason="needs llama-index-core (the llama-index extra)",
)
from llama_index.core.evaluation import RetrieverEvaluator  # noqa: E402
from llama_index.core.retrievers import BaseRetriever  # noqa: E402
from llama_index.core.schema import NodeWithScore, TextNode  # noqa: E402

from ranklens.compat import llama_index as compat  # noqa: E402

TOLERANCE = 1e-12

CONFIGS = [
    ("HitRate", {}),
    ("HitRate", {"use_granular_hit_rate": True}),
    ("MRR", {}),
    ("MRR", {"use_granular_mrr": True}),
    ("Precision", {}),
    ("Recall", {}),
    ("AveragePrecision", {}),
    ("NDCG", {}),
    ("NDCG", {"mode": "exponential"}),
]
CONFIG_IDS = [name + "".join(f"-{v}" for v in fields.values()) for name, fields in CONFIGS]

ids = st.text(alphabet="abcdefgh", min_size=0, max_size=2)
id_lists = st.lists(ids, max_size=12) | st.lists(ids, min_size=30, max_size=80)


def pair(name: str, fields: dict[str, object], **ours: object) -> tuple[object, object]:
    return getattr(peer, name)(**fields), getattr(compat, name)(**fields, **ours)


def without_repeats(values: list[str]) -> list[str]:
    return list(dict.fromkeys(values))


def counts_repeats(metric: object) -> tuple[bool, bool]:
    """Where LlamaIndex's value counts a repeated retrieved / expected id twice: read off
    LlamaIndex itself (its value changes when a retrieved id, or an expected id, is
    repeated)."""
    expected, retrieved = ["a", "b"], ["x", "a", "y", "b"]
    base = metric.compute(expected_ids=expected, retrieved_ids=retrieved).score
    in_retrieved = {
        metric.compute(expected_ids=expected, retrieved_ids=repeated).score
        for repeated in (["x", *retrieved], [*retrieved, "a"], ["a", *retrieved])
    }
    in_expected = metric.compute(expected_ids=[*expected, "a"], retrieved_ids=retrieved).score
    return in_retrieved != {base}, in_expected != base


@pytest.mark.parametrize(("name", "fields"), CONFIGS, ids=CONFIG_IDS)
@settings(max_examples=150, deadline=None)
@given(expected=id_lists, retrieved=id_lists)
def test_every_metric_equals_llama_index(name, fields, expected, retrieved) -> None:
    theirs, ours = pair(name, fields)
    first = getattr(compat, name)(**fields, duplicates="first")
    if not expected or not retrieved:
        for metric in (theirs, ours, first):
            with pytest.raises(ValueError, match="Retrieved ids and expected ids must be provided"):
                metric.compute(expected_ids=expected, retrieved_ids=retrieved)
        return
    in_retrieved, in_expected = counts_repeats(theirs)
    repeated = (in_retrieved and len(set(retrieved)) < len(retrieved)) or (
        in_expected and len(set(expected)) < len(expected)
    )
    if repeated:
        with pytest.raises(compat.LlamaIndexInputError, match=r"twice.*duplicates='first'"):
            ours.compute(expected_ids=expected, retrieved_ids=retrieved)
    else:
        value = ours.compute(expected_ids=expected, retrieved_ids=retrieved)
        assert isinstance(value, peer.RetrievalMetricResult)
        want = theirs.compute(expected_ids=expected, retrieved_ids=retrieved).score
        assert value.score == pytest.approx(want, abs=TOLERANCE)
    # duplicates="first": LlamaIndex's value of the lists without repeats
    want_first = theirs.compute(
        expected_ids=without_repeats(expected), retrieved_ids=without_repeats(retrieved)
    ).score
    got_first = first.compute(expected_ids=expected, retrieved_ids=retrieved).score
    assert got_first == pytest.approx(want_first, abs=TOLERANCE)


def test_repeats_are_refused_only_where_llama_index_counts_them_twice() -> None:
    for name, fields in CONFIGS:
        theirs, ours = pair(name, fields)
        assert compat.metric_of(ours).counts_repeats() == counts_repeats(theirs), (name, fields)
    # LlamaIndex's values above 1, from an id retrieved twice
    assert peer.AveragePrecision().compute(expected_ids=["a"], retrieved_ids=["a", "a"]).score == 2
    with pytest.raises(compat.LlamaIndexInputError, match="retrieved_ids lists 'a' twice"):
        compat.AveragePrecision().compute(expected_ids=["a"], retrieved_ids=["a", "a"])
    with pytest.raises(InputError, match="expected_ids lists 'b' twice"):
        compat.NDCG().compute(expected_ids=["b", "b"], retrieved_ids=["a"])


def test_classes_are_llama_index_classes_with_its_names_and_fields() -> None:
    for name, fields in CONFIGS:
        theirs, ours = pair(name, fields)
        assert isinstance(ours, type(theirs))
        assert type(ours).__module__ == "ranklens.compat.llama_index"
        assert ours.metric_name == theirs.metric_name
        for field, value in fields.items():
            assert getattr(ours, field) == value
    assert set(compat.METRIC_REGISTRY) == {"hit_rate", "mrr", "precision", "recall", "ap", "ndcg"}
    assert compat.resolve_metrics(["mrr", "ndcg"]) == [compat.MRR, compat.NDCG]
    with pytest.raises(ValueError, match="Invalid metric name: cohere"):
        compat.resolve_metrics(["cohere"])
    granular = compat.MRR(use_granular_mrr=True, duplicates="first")
    assert pickle.loads(pickle.dumps(granular)) == granular
    with pytest.raises(ValueError, match="duplicates"):
        compat.HitRate(duplicates="max")
    with pytest.raises(ValueError, match="mode"):
        compat.NDCG(mode="cubic")


def test_ids_written_alike_and_ids_of_other_types() -> None:
    # 1 and "1" are different ids to LlamaIndex; ranklens keeps ids as text and refuses
    with pytest.raises(compat.LlamaIndexInputError, match="written the same way"):
        compat.Recall().compute(expected_ids=[1], retrieved_ids=["1"])
    want = peer.NDCG().compute(expected_ids=[3, 1], retrieved_ids=[2, 1]).score
    assert compat.NDCG().compute(expected_ids=[3, 1], retrieved_ids=[2, 1]).score == want
    with pytest.raises(ValueError, match="Retrieved ids and expected ids must be provided"):
        compat.MRR().compute(expected_ids=None, retrieved_ids=["a"])


class FixedRetriever(BaseRetriever):
    """Returns, for each query, the nodes listed for it (no model, no embeddings)."""

    def __init__(self, ranked: dict[str, list[str]]) -> None:
        super().__init__()
        self._ranked = ranked

    def _retrieve(self, query_bundle):
        ranked = self._ranked[query_bundle.query_str]
        return [
            NodeWithScore(node=TextNode(id_=node_id, text=f"text {node_id}"), score=1.0 / (i + 1))
            for i, node_id in enumerate(ranked)
        ]


DATASET = {
    "q1": (["n1", "n4"], ["n2", "n1", "n3", "n4"]),
    "q2": (["n5"], ["n6", "n7", "n8"]),
    "q3": (["n9", "n10", "n11"], ["n10"]),
}


def test_inside_llama_index_retriever_evaluator() -> None:
    retriever = FixedRetriever({q: retrieved for q, (_, retrieved) in DATASET.items()})
    theirs = RetrieverEvaluator(
        metrics=[getattr(peer, name)(**fields) for name, fields in CONFIGS], retriever=retriever
    )
    ours = RetrieverEvaluator(
        metrics=[getattr(compat, name)(**fields) for name, fields in CONFIGS], retriever=retriever
    )
    named = RetrieverEvaluator.from_metric_names(list(compat.METRIC_REGISTRY), retriever=retriever)
    assert all(type(m).__module__ == "ranklens.compat.llama_index" for m in ours.metrics)
    evaluated = []
    for query, (expected, _) in DATASET.items():
        want = theirs.evaluate(query, expected).metric_vals_dict
        got = ours.evaluate(query, expected)
        assert got.metric_vals_dict == pytest.approx(want, abs=TOLERANCE)
        assert named.evaluate(query, expected).metric_dict.keys() == set(compat.METRIC_REGISTRY)
        evaluated.append(got)
    # RetrievalEvalResult objects give ranklens Results, each query's values compute's;
    # LlamaIndex's own metric objects name the same measures
    results = compat.retrieval_results(evaluated, ours.metrics)
    assert isinstance(results, ranklens.Results)
    assert compat.retrieval_results(evaluated, theirs.metrics).per_query == results.per_query
    assert results.query_values("AP") == pytest.approx(
        {
            q: peer.AveragePrecision().compute(expected_ids=e, retrieved_ids=r).score
            for q, (e, r) in DATASET.items()
        },
        abs=TOLERANCE,
    )


@settings(max_examples=60, deadline=None)
@given(
    st.dictionaries(
        st.text(alphabet="xyz", min_size=1, max_size=3),
        st.tuples(
            st.lists(ids, min_size=1, max_size=6, unique=True),
            st.lists(ids, max_size=10, unique=True),
        ),
        min_size=1,
        max_size=8,
    )
)
def test_retrieval_results_holds_each_querys_compute_value(queries) -> None:
    metrics = [getattr(compat, name)(**fields) for name, fields in CONFIGS]
    results = compat.retrieval_results(queries, metrics)
    longest = max(len(r) for _, r in queries.values())
    for metric in metrics:
        measure = compat.metric_of(metric).measure(longest)
        values = results.query_values(measure)
        assert set(values) == set(queries)
        for query, (expected, retrieved) in queries.items():
            # a query that retrieved nothing (which LlamaIndex refuses) scores 0
            want = (
                metric.compute(expected_ids=expected, retrieved_ids=retrieved).score
                if retrieved
                else 0.0
            )
            assert values[query] == pytest.approx(want, abs=TOLERANCE), (measure, query)


def test_retrieval_results_compare_two_retrievers() -> None:
    better = {f"q{i}": ([f"d{i}"], [f"d{i}", "x"]) for i in range(12)}
    worse = {f"q{i}": ([f"d{i}"], ["x", f"d{i}"] if i % 3 else ["x"]) for i in range(12)}
    first = compat.retrieval_results(better, ["mrr"], name="better")
    second = compat.retrieval_results(worse, ["mrr"], name="worse")
    comparison = ranklens.compare(None, [second, first], ["RR"], names=["worse", "better"])
    # better - worse, paired over the 12 queries
    assert comparison.stats("better", "RR").delta == pytest.approx(1.0 - 8 * 0.5 / 12)
    assert first.aggregate["RR"] == 1.0
    assert second.aggregate["RR"] == pytest.approx(8 * 0.5 / 12)


def test_retrieval_results_errors() -> None:
    with pytest.raises(OptionError, match="unknown LlamaIndex metric 'map'"):
        compat.retrieval_results({"q": (["a"], ["a"])}, ["map"])
    with pytest.raises(OptionError, match="duplicates"):
        compat.retrieval_results({"q": (["a"], ["a"])}, duplicates="max")
    with pytest.raises(InputError, match="query 'q' has no expected ids"):
        compat.retrieval_results({"q": ([], ["a"])})
    with pytest.raises(InputError, match=r"give \(expected_ids, retrieved_ids\)"):
        compat.retrieval_results({"q": ["a"]})
    with pytest.raises(InputError, match="retrieved_ids must be a list of ids"):
        compat.retrieval_results({"q": (["a"], "a")})
    with pytest.raises(InputError, match="no query given"):
        compat.retrieval_results({})
    with pytest.raises(InputError, match="query '1' is given twice"):
        compat.retrieval_results({1: (["a"], ["a"]), "1": (["a"], ["a"])})
    with pytest.raises(InputError, match="RetrievalEvalResult"):
        compat.retrieval_results([("q", ["a"], ["a"])])
    with pytest.raises(InputError, match="retrieved_ids lists 'a' twice"):
        compat.retrieval_results({"q": (["a"], ["a", "a"])}, ["ap"])
    # where LlamaIndex's value does not count repeats they are taken
    assert compat.retrieval_results({"q": (["a"], ["a", "a"])}, ["precision"])["P"] == 1.0


def test_without_llama_index_the_classes_say_what_to_install(monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "llama_index.core.evaluation.retrieval.metrics", None)
    compat.classes.cache_clear()
    try:
        with pytest.raises(MissingDependencyError, match=r"ranklens\[llama-index\]"):
            compat.HitRate  # noqa: B018
        # the Results of many queries need no LlamaIndex
        assert compat.retrieval_results({"q": (["a"], ["a"])}, ["ndcg"])["nDCG"] == 1.0
    finally:
        monkeypatch.undo()
        compat.classes.cache_clear()
    assert compat.HitRate.__module__ == "ranklens.compat.llama_index"
