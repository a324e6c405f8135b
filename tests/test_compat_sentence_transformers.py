"""ranklens.compat.sentence_transformers against sentence-transformers' own
``InformationRetrievalEvaluator``.

Both evaluators run on the same models of fixed embeddings (no weights: a stub with
``encode_query``, ``encode_document``, ``similarity``, ``similarity_fn_name`` and
``model_card_data``), and on a real ``SentenceTransformer`` of static embeddings trained by
its trainer. The embeddings are small integers, so scores tie often, within a chunk and
across chunks; queries without relevant documents, relevant documents of queries that are
not asked, several score functions, non-default cut-offs, chunks of one document and a
chunk larger than the corpus are in the data. Per-query values are checked against
sentence-transformers run on each query alone.
"""

from __future__ import annotations

import json
import math
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ranklens
from ranklens.base.errors import InputError, MissingDependencyError, OptionError

torch = pytest.importorskip("torch", reason="needs torch (the sentence-transformers extra)")
pytest.importorskip(
    "sentence_transformers", reason="needs sentence-transformers (the sentence-transformers extra)"
)
from sentence_transformers.base.evaluation import BaseEvaluator, SequentialEvaluator  # noqa: E402
from sentence_transformers.sentence_transformer.evaluation import (  # noqa: E402
    InformationRetrievalEvaluator as Peer,
)
from sentence_transformers.util import (  # noqa: E402
    cos_sim,
    dot_score,
    euclidean_sim,
    manhattan_sim,
)

from ranklens.compat.sentence_transformers import InformationRetrievalEvaluator  # noqa: E402

TOLERANCE = 1e-12


class CardData:
    """What the evaluators tell the model card: every call's metrics."""

    def __init__(self) -> None:
        self.calls: list[tuple[dict[str, float], object, object]] = []

    def set_evaluation_metrics(self, evaluator, metrics, epoch=0, step=0) -> None:
        self.calls.append((dict(metrics), epoch, step))


class FixedModel:
    """A model of fixed embeddings: ``vectors[text]``, queries and documents alike."""

    def __init__(self, vectors, similarity=cos_sim, name="cosine", dtype=torch.float32):
        self.vectors = vectors
        self.similarity = similarity
        self.similarity_fn_name = name
        self.model_card_data = CardData()
        self.dtype = dtype
        self.calls: list[dict] = []

    def _encode(self, texts, **kwargs):
        self.calls.append(kwargs)
        rows = [self.vectors[t] for t in texts]
        width = len(next(iter(self.vectors.values())))
        return torch.tensor(np.array(rows).reshape(len(rows), width), dtype=self.dtype)

    encode = encode_query = encode_document = _encode


def make_data(seed: int, n_queries: int = 30, n_docs: int = 80, dim: int = 3, int_ids=False):
    """Queries, corpus, relevant documents and vectors with many tied scores."""
    rng = np.random.default_rng(seed)
    queries = {f"q{i}": f"query {i}" for i in range(n_queries)}
    doc_id = (lambda i: int(i) * 7 % 101) if int_ids else (lambda i: f"d{int(i) * 7 % 101}")
    corpus = {doc_id(i): f"doc {i}" for i in range(n_docs)}
    ids = list(corpus)
    relevant: dict = {}
    for i in range(n_queries):
        kind = rng.integers(0, 6)
        if kind == 0:
            continue  # no judgments: left out
        if kind == 1:
            relevant[f"q{i}"] = set()  # an empty set: left out too
            continue
        chosen = rng.choice(len(ids), min(len(ids), int(rng.integers(1, 6))), replace=False)
        relevant[f"q{i}"] = {ids[j] for j in chosen}
    relevant["not asked"] = {ids[0]}
    vectors = {text: rng.integers(-2, 3, dim).astype(float) for text in queries.values()}
    vectors.update({text: rng.integers(-2, 3, dim).astype(float) for text in corpus.values()})
    return queries, corpus, relevant, vectors


def both(queries, corpus, relevant, **kwargs):
    return Peer(queries, corpus, relevant, **kwargs), InformationRetrievalEvaluator(
        queries, corpus, relevant, **kwargs
    )


def assert_same(theirs: dict, ours: dict) -> None:
    assert list(ours) == list(theirs)
    for key, value in theirs.items():
        assert isinstance(ours[key], float)
        assert abs(ours[key] - value) <= TOLERANCE, (key, ours[key], value)


CUTOFFS = {
    "mrr_at_k": [1, 4, 10],
    "ndcg_at_k": [3, 25, 10],
    "accuracy_at_k": [2, 7],
    "precision_recall_at_k": [1, 6, 40],
    "map_at_k": [3, 50],
}
SCORES = {"cos": cos_sim, "dot": dot_score, "euclid": euclidean_sim, "manhattan": manhattan_sim}


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("chunk", [1, 7, 50_000])
def test_values_equal_sentence_transformers(seed: int, chunk: int) -> None:
    queries, corpus, relevant, vectors = make_data(seed, int_ids=seed % 2 == 1)
    peer, ours = both(
        queries,
        corpus,
        relevant,
        corpus_chunk_size=chunk,
        score_functions=SCORES,
        name="data" if seed % 3 else "",
        **CUTOFFS,
    )
    model = FixedModel(vectors)
    assert_same(peer(model), ours(model))
    assert ours.primary_metric == peer.primary_metric
    assert list(ours.results) == list(SCORES)


@pytest.mark.parametrize("seed", range(3))
def test_the_default_arguments_and_the_models_similarity(seed: int) -> None:
    queries, corpus, relevant, vectors = make_data(seed, n_docs=150)
    peer, ours = both(queries, corpus, relevant)
    for similarity, name in ((cos_sim, "cosine"), (dot_score, "dot")):
        model = FixedModel(vectors, similarity, name)
        assert_same(peer(model), ours(model))
        assert ours.primary_metric == peer.primary_metric == f"{name}_ndcg@10"
        assert ours.csv_headers == peer.csv_headers


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10_000),
    n_docs=st.integers(1, 40),
    chunk=st.integers(1, 45),
    dim=st.integers(1, 3),
    cutoff=st.integers(1, 12),
)
def test_random_collections_equal_sentence_transformers(seed, n_docs, chunk, dim, cutoff) -> None:
    queries, corpus, relevant, vectors = make_data(seed, n_queries=8, n_docs=n_docs, dim=dim)
    if not any(relevant.get(q) for q in queries):
        relevant["q0"] = {next(iter(corpus))}
    kwargs = {
        "corpus_chunk_size": chunk,
        "mrr_at_k": [cutoff],
        "ndcg_at_k": [cutoff, 2],
        "accuracy_at_k": [cutoff],
        "precision_recall_at_k": [cutoff],
        "map_at_k": [cutoff + 1],
        "score_functions": {"dot": dot_score, "cos": cos_sim},
    }
    peer, ours = both(queries, corpus, relevant, **kwargs)
    model = FixedModel(vectors)
    assert_same(peer(model), ours(model))


def test_per_query_values_are_sentence_transformers_on_each_query_alone() -> None:
    queries, corpus, relevant, vectors = make_data(11)
    kwargs = {"corpus_chunk_size": 9, "score_functions": {"dot": dot_score}, **CUTOFFS}
    ours = InformationRetrievalEvaluator(queries, corpus, relevant, **kwargs)
    model = FixedModel(vectors)
    ours(model)
    results = ours.results["dot"]
    assert isinstance(results, ranklens.Results)
    evaluated = [q for q in queries if relevant.get(q)]
    assert set(results.queries) == set(evaluated)
    names = {"accuracy": "Success", "precision": "P", "recall": "R", "mrr": "RR", "ndcg": "nDCG"}
    for qid in evaluated:
        alone = Peer({qid: queries[qid]}, corpus, relevant, **kwargs)(model)
        mine = results.per_query[qid]
        for key, value in alone.items():
            family, k = key.split("_", 1)[1].split("@")
            measure = f"AP(norm='min')@{k}" if family == "map" else f"{names[family]}@{k}"
            assert abs(mine[measure] - value) <= TOLERANCE, (qid, key)


def test_equal_scores_are_ordered_by_corpus_id_across_chunks() -> None:
    """Every document scores the same: the top k are the smallest ids, in Python's order of
    the ids ("d10" before "d9"; 10 after 9), wherever the chunks split them."""
    for ids, expected in (
        (["d9", "d10", "d1", "d30", "d2"], ["d1", "d10", "d2"]),
        ([9, 10, 1, 30, 2], [1, 2, 9]),
    ):
        corpus = {cid: f"doc {cid}" for cid in ids}
        vectors = {f"doc {cid}": [1.0, 1.0] for cid in ids} | {"query": [1.0, 1.0]}
        relevant = {"q": {ids[1]}}
        for chunk in (1, 2, 3, 10):
            peer, ours = both(
                {"q": "query"},
                corpus,
                relevant,
                corpus_chunk_size=chunk,
                mrr_at_k=[3],
                ndcg_at_k=[2, 3],
                accuracy_at_k=[1],
                precision_recall_at_k=[3],
                map_at_k=[3],
            )
            model = FixedModel(vectors)
            assert_same(peer(model), ours(model))
            run = ours.runs["cosine"]
            assert run.docids() == [str(c) for c in expected]
            # for string ids the order is ranklens' ties="docid_asc"
            if isinstance(ids[0], str):
                again = ranklens.evaluate(
                    {"q": {ids[1]: 1}}, run.to_dict(), "RR@3", ties="docid_asc"
                )
                assert again["RR@3"] == ours.results["cosine"]["RR@3"]


def test_compare_two_models_through_the_results() -> None:
    queries, corpus, relevant, vectors = make_data(5, n_queries=40)
    better = dict(vectors)
    for qid, docs in relevant.items():  # move a relevant document onto its query
        if qid in queries and docs:
            better[corpus[sorted(docs, key=str)[0]]] = vectors[queries[qid]]
    evaluator = InformationRetrievalEvaluator(queries, corpus, relevant)
    first = evaluator(FixedModel(vectors))
    base = evaluator.results["cosine"]
    second = evaluator(FixedModel(better))
    tuned = evaluator.results["cosine"]
    comparison = ranklens.compare(
        None, [base, tuned], ["nDCG@10", "RR@10"], names=["base", "tuned"]
    )
    before, after = base.query_values("nDCG@10"), tuned.query_values("nDCG@10")
    deltas = np.array([after[q] - before[q] for q in base.queries])
    assert second["cosine_ndcg@10"] - first["cosine_ndcg@10"] == pytest.approx(deltas.mean())
    pair = comparison.vs_baseline["tuned"]["nDCG@10"]
    assert pair.delta == pytest.approx(deltas.mean())
    assert pair.ci_low < pair.delta < pair.ci_high
    assert 0.0 <= pair.p_value < 0.05


def test_the_sentence_evaluator_interface() -> None:
    queries, corpus, relevant, vectors = make_data(2)
    ours = InformationRetrievalEvaluator(queries, corpus, relevant, name="tiny")
    assert isinstance(ours, BaseEvaluator)
    assert ours.greater_is_better is True
    assert ours.primary_metric is None
    assert ours.description == "Information Retrieval"
    model = FixedModel(vectors)
    metrics = ours(model, epoch=2, steps=40)
    assert ours.primary_metric == "tiny_cosine_ndcg@10"
    assert model.model_card_data.calls == [(metrics, 2, 40)]
    kwargs = {"query_prompt": "query: ", "corpus_prompt_name": "doc", "truncate_dim": 3}
    peer, ours = both(queries, corpus, relevant, main_score_function="dot", **kwargs)
    assert ours.get_config_dict() == peer.get_config_dict()
    theirs_model, our_model = FixedModel(vectors), FixedModel(vectors)
    assert_same(peer(theirs_model), ours(our_model))
    assert ours.primary_metric == peer.primary_metric == "dot_ndcg@10"
    assert our_model.calls == theirs_model.calls  # prompts, batch size, truncate_dim


def test_csv_and_predictions_files_are_sentence_transformers(tmp_path) -> None:
    queries, corpus, relevant, vectors = make_data(3)
    kwargs = {
        "name": "nano",
        "write_predictions": True,
        "score_functions": {"dot": dot_score, "cos": cos_sim},
        "corpus_chunk_size": 13,
        **CUTOFFS,
    }
    peer, ours = both(queries, corpus, relevant, **kwargs)
    for tool, folder in ((peer, "peer"), (ours, "ours")):
        for epoch, steps in ((0, 10), (1.0, 20)):
            tool(FixedModel(vectors), output_path=str(tmp_path / folder), epoch=epoch, steps=steps)
    files = sorted(p.name for p in (tmp_path / "peer").iterdir())
    assert files == sorted(p.name for p in (tmp_path / "ours").iterdir())
    assert len(files) == 3
    for name in files:
        theirs = (tmp_path / "peer" / name).read_text(encoding="utf-8").splitlines()
        mine = (tmp_path / "ours" / name).read_text(encoding="utf-8").splitlines()
        assert len(mine) == len(theirs)
        if name.endswith(".csv"):
            assert mine[0] == theirs[0]
            for a, b in zip(theirs[1:], mine[1:], strict=True):
                assert np.allclose(
                    [float(x) for x in a.split(",")],
                    [float(x) for x in b.split(",")],
                    rtol=0,
                    atol=TOLERANCE,
                )
        else:
            assert [json.loads(line) for line in mine] == [json.loads(line) for line in theirs]


def test_a_model_with_another_similarity_resets_the_columns(tmp_path) -> None:
    queries, corpus, relevant, vectors = make_data(4)
    peer, ours = both(queries, corpus, relevant)
    for model in (FixedModel(vectors), FixedModel(vectors, dot_score, "dot")):
        assert_same(peer(model, output_path=str(tmp_path / "p")), ours(model, str(tmp_path / "o")))
        assert ours.primary_metric == peer.primary_metric
        assert ours.csv_headers == peer.csv_headers
    assert list(ours.results) == ["dot"]


def test_precomputed_corpus_embeddings_and_another_corpus_model() -> None:
    queries, corpus, relevant, vectors = make_data(6)
    peer, ours = both(queries, corpus, relevant, corpus_chunk_size=11)
    model = FixedModel(vectors)
    embedded = model.encode_document(list(corpus.values()))
    assert_same(peer(model, corpus_embeddings=embedded), ours(model, corpus_embeddings=embedded))
    shifted = {t: v + 1 for t, v in vectors.items()}
    other = FixedModel(shifted)
    assert_same(peer(model, corpus_model=other), ours(model, corpus_model=other))


def test_half_precision_scores() -> None:
    queries, corpus, relevant, vectors = make_data(8, dim=4)
    peer, ours = both(queries, corpus, relevant, corpus_chunk_size=17)
    model = FixedModel({t: v / 3 for t, v in vectors.items()}, dtype=torch.bfloat16)
    assert_same(peer(model), ours(model))


def test_missing_relevant_count_is_sentence_transformers() -> None:
    queries, corpus, relevant, vectors = make_data(9)
    qid = next(q for q in queries if relevant.get(q))
    relevant[qid] = relevant[qid] | {"nowhere"}
    with pytest.raises(InputError, match="'nowhere', which is not in the corpus"):
        InformationRetrievalEvaluator(queries, corpus, relevant)
    peer = Peer(queries, corpus, relevant)
    ours = InformationRetrievalEvaluator(queries, corpus, relevant, missing_relevant="count")
    model = FixedModel(vectors)
    assert_same(peer(model), ours(model))


def test_inside_the_trainer_beside_sentence_transformers(tmp_path) -> None:
    """A real SentenceTransformer (static embeddings, from a tokenizer built here: no
    weights to download) trained by SentenceTransformerTrainer, evaluated at every other
    step by both evaluators at once."""
    pytest.importorskip("datasets", reason="the trainer needs sentence-transformers[train]")
    pytest.importorskip("accelerate", reason="the trainer needs sentence-transformers[train]")
    from datasets import Dataset
    from sentence_transformers import (
        SentenceTransformer,
        SentenceTransformerTrainer,
        SentenceTransformerTrainingArguments,
    )
    from sentence_transformers.sentence_transformer.losses import MultipleNegativesRankingLoss
    from sentence_transformers.sentence_transformer.modules import StaticEmbedding
    from tokenizers import Tokenizer
    from tokenizers.models import WordLevel
    from tokenizers.pre_tokenizers import Whitespace

    words = [f"w{i}" for i in range(30)]
    tokenizer = Tokenizer(
        WordLevel({"[UNK]": 0} | {w: i + 1 for i, w in enumerate(words)}, "[UNK]")
    )
    tokenizer.pre_tokenizer = Whitespace()
    torch.manual_seed(0)
    model = SentenceTransformer(modules=[StaticEmbedding(tokenizer, embedding_dim=6)], device="cpu")
    rng = np.random.default_rng(0)
    corpus = {f"d{i}": " ".join(rng.choice(words, 3)) for i in range(25)}
    queries = {f"q{i}": " ".join(rng.choice(words, 2)) for i in range(8)}
    relevant = {q: {f"d{j}" for j in rng.choice(25, 2, replace=False)} for q in queries}
    pairs = [(queries[q], corpus[d]) for q in relevant for d in sorted(relevant[q])]
    train = Dataset.from_dict({"anchor": [a for a, _ in pairs], "positive": [p for _, p in pairs]})
    ours = InformationRetrievalEvaluator(queries, corpus, relevant, name="ours")
    peer = Peer(queries, corpus, relevant, name="peer")
    args = SentenceTransformerTrainingArguments(
        output_dir=str(tmp_path),
        num_train_epochs=2,
        per_device_train_batch_size=4,
        eval_strategy="steps",
        eval_steps=2,
        logging_steps=2,
        save_strategy="no",
        report_to=[],
        use_cpu=True,
        learning_rate=0.1,
        disable_tqdm=True,
    )
    trainer = SentenceTransformerTrainer(
        model=model,
        args=args,
        train_dataset=train,
        loss=MultipleNegativesRankingLoss(model),
        evaluator=SequentialEvaluator([ours, peer]),
    )
    trainer.train()
    logged = [entry for entry in trainer.state.log_history if "eval_ours_cosine_ndcg@10" in entry]
    assert len(logged) >= 3
    for entry in logged:
        for key, value in entry.items():
            if key.startswith("eval_peer_"):
                assert abs(entry[key.replace("_peer_", "_ours_")] - value) <= TOLERANCE
    assert ours.primary_metric == "ours_cosine_ndcg@10"
    csv = tmp_path / "eval" / "Information-Retrieval_evaluation_ours_results.csv"
    assert len(csv.read_text(encoding="utf-8").splitlines()) == len(logged) + 1
    assert set(ours.results["cosine"].queries) == set(queries)


# ----------------------------------------------------------------------------- bad input


def test_bad_data_is_one_clear_error() -> None:
    queries, corpus, relevant, _ = make_data(1)
    cases = [
        ((queries, {}, relevant), "the corpus is empty"),
        ((queries, corpus, {"other": {"d0"}}), "no query has relevant documents"),
        ((queries, corpus, {"q1": "d7"}), r"relevant_docs\['q1'\] must be a set"),
        ((queries, corpus, {"q1": ["d7", "d7"]}), "lists 'd7' twice"),
        ((queries, {"1": "a", 1: "b"}, {"q1": {1}}), "written the same way"),
        ((queries, {"a": "x", 1: "y"}, {"q1": {1}}), "cannot be ordered"),
        ((["q1"], corpus, relevant), "queries must be a dict"),
    ]
    for args, message in cases:
        with pytest.raises(InputError, match=message):
            InformationRetrievalEvaluator(*args)
    for option, message in (
        ({"mrr_at_k": []}, "mrr_at_k must be a non-empty list"),
        ({"ndcg_at_k": [0]}, "ndcg_at_k must hold positive integers"),
        ({"map_at_k": [2.5]}, "map_at_k must hold positive integers"),
        ({"corpus_chunk_size": 0}, "corpus_chunk_size must be a positive integer"),
        ({"main_score_function": "cos"}, "main_score_function must be one of"),
        ({"score_functions": {}}, "score_functions is empty"),
        ({"missing_relevant": "skip"}, "missing_relevant must be one of"),
    ):
        with pytest.raises(OptionError, match=message):
            InformationRetrievalEvaluator(queries, corpus, relevant, **option)


class WrongModel(FixedModel):
    def __init__(self, vectors, query_rows=0, document_rows=0, document_width=0):
        super().__init__(vectors)
        self.shapes = (query_rows, document_rows, document_width)

    def encode_query(self, texts, **kwargs):
        return self._encode(texts)[: len(texts) + self.shapes[0]]

    def encode_document(self, texts, **kwargs):
        out = self._encode(texts)
        if self.shapes[2]:
            out = torch.cat([out, torch.zeros(len(out), self.shapes[2])], dim=1)
        return out[: len(texts) + self.shapes[1]]


def test_embeddings_of_the_wrong_shape_are_one_clear_error() -> None:
    queries, corpus, relevant, vectors = make_data(1)
    ours = InformationRetrievalEvaluator(queries, corpus, relevant, corpus_chunk_size=10)
    for model, message in (
        (
            WrongModel(vectors, query_rows=-1),
            r"query embeddings have shape \(\d+, 3\) for \d+ inputs",
        ),
        (WrongModel(vectors, document_rows=-1), r"document embeddings have shape \(9, 3\) for 10"),
        (
            WrongModel(vectors, document_width=2),
            "document embeddings have 5 dimensions and its query embeddings 3",
        ),
    ):
        with pytest.raises(InputError, match=message):
            ours(model)
    nan = FixedModel({t: v * math.nan if t == "doc 3" else v for t, v in vectors.items()})
    with pytest.raises(InputError, match="gave NaN scores"):
        ours(nan)
    flat = FixedModel(vectors, similarity=lambda a, b: (a @ b.T).flatten())
    with pytest.raises(InputError, match=r"score function 'cosine' returned \(\d+,\)"):
        ours(flat)


def test_the_install_hint_without_sentence_transformers(monkeypatch) -> None:
    from ranklens.compat.sentence_transformers import _evaluator

    monkeypatch.setitem(sys.modules, "sentence_transformers.base.evaluation", None)
    _evaluator.evaluator_class.cache_clear()
    try:
        with pytest.raises(MissingDependencyError, match=r"ranklens\[sentence-transformers\]"):
            _evaluator.evaluator_class()
    finally:
        monkeypatch.undo()
        _evaluator.evaluator_class.cache_clear()
    assert _evaluator.evaluator_class().__module__ == "ranklens.compat.sentence_transformers"


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_on_the_gpu_the_values_are_the_cpus() -> None:
    queries, corpus, relevant, vectors = make_data(7, n_queries=60, n_docs=400)

    class OnGpu(FixedModel):
        def _encode(self, texts, **kwargs):
            return super()._encode(texts, **kwargs).cuda()

        encode_query = encode_document = _encode

    peer, ours = both(queries, corpus, relevant, corpus_chunk_size=70, score_functions=SCORES)
    assert_same(peer(OnGpu(vectors)), ours(OnGpu(vectors)))
    assert_same(ours(FixedModel(vectors)), ours(OnGpu(vectors)))


def test_as_the_evaluator_of_nanobeir() -> None:
    """NanoBEIREvaluator builds one evaluator per dataset from its
    ``information_retrieval_class``: with this class, its aggregated dict is the same. The
    datasets are generated here in place of the Hub's."""
    from sentence_transformers.sentence_transformer.evaluation import NanoBEIREvaluator

    collections = {name: make_data(seed, n_docs=60) for seed, name in enumerate(["a", "b"])}
    vectors = {}
    for name, (queries, corpus, _, vecs) in collections.items():
        texts = {t: f"{name} {t}" for t in (*queries.values(), *corpus.values())}
        vectors |= {texts[t]: v for t, v in vecs.items()}

    def subsets(self, subset, split, required_columns):
        name = "a" if split == "NanoMSMARCO" else "b"
        queries, corpus, relevant, _ = collections[name]
        if subset == "corpus":
            return [{"_id": c, "text": f"{name} {t}"} for c, t in corpus.items()]
        if subset == "queries":
            return [{"_id": q, "text": f"{name} {t}"} for q, t in queries.items()]
        return [{"query-id": q, "corpus-id": d} for q, ds in relevant.items() for d in ds]

    made = {}
    for key, cls in (("peer", Peer), ("ours", InformationRetrievalEvaluator)):
        nano = type(
            "Nano",
            (NanoBEIREvaluator,),
            {"information_retrieval_class": cls, "_load_dataset_subset_split": subsets},
        )
        made[key] = nano(dataset_names=["msmarco", "nfcorpus"], ndcg_at_k=[5, 10])
    model = FixedModel(vectors)
    assert_same(made["peer"](model), made["ours"](model))
    assert made["ours"].primary_metric == made["peer"].primary_metric
    assert [list(e.results) for e in made["ours"].evaluators] == [["cosine"], ["cosine"]]


def test_the_log_lines_are_sentence_transformers(caplog) -> None:
    queries, corpus, relevant, vectors = make_data(12)
    peer, ours = both(queries, corpus, relevant, name="logged", **CUTOFFS)
    logged = {}
    for key, tool in (("peer", peer), ("ours", ours)):
        caplog.clear()
        with caplog.at_level("INFO"):
            tool(FixedModel(vectors), epoch=1, steps=5)
        logged[key] = [r.getMessage() for r in caplog.records if r.levelname == "INFO"]
    assert logged["ours"] == logged["peer"]
    assert len(logged["ours"]) > 10


def test_the_runs_and_qrels_give_the_report_and_other_measures() -> None:
    """``evaluator.runs`` with ``evaluator.qrels`` under ties="input" give the same numbers
    to ranklens.evaluate and to the HTML report."""
    from ranklens.presentation.reporting import build_report

    queries, corpus, relevant, vectors = make_data(13, n_docs=120)
    peer, ours = both(queries, corpus, relevant, corpus_chunk_size=50)
    model = FixedModel(vectors)
    theirs = peer(model)
    ours(model)
    run = ours.runs["cosine"]
    again = ranklens.evaluate(ours.qrels, run, ["nDCG@10", "AP(norm='min')@100"], ties="input")
    assert abs(again["nDCG@10"] - theirs["cosine_ndcg@10"]) <= TOLERANCE
    assert abs(again["AP(norm='min')@100"] - theirs["cosine_map@100"]) <= TOLERANCE
    html = build_report(ours.qrels, {"model": run}, ["nDCG@10"], ties="input", plots=False)
    assert f"{theirs['cosine_ndcg@10']:.4f}" in html
