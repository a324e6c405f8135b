"""The evaluator class, built on first use as a subclass of sentence-transformers'
``BaseEvaluator`` (``SentenceEvaluator``), so that its trainer, ``SequentialEvaluator``
and model cards take it as one of its own."""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, cast

import numpy as np

from ranklens.base.errors import InputError, MissingDependencyError, OptionError
from ranklens.base.optional import require
from ranklens.compat.sentence_transformers._search import TopDocuments
from ranklens.data.grouped import encode_ids
from ranklens.data.native import core
from ranklens.data.qrels import Qrels
from ranklens.data.run import Run
from ranklens.evaluation.evaluator import Evaluator
from ranklens.evaluation.results import Results
from ranklens.measures import Measure, parse_measures

MODULE = "ranklens.compat.sentence_transformers"

logger = logging.getLogger(MODULE)

FAMILIES = (
    ("accuracy@k", "accuracy_at_k", "Success@{k}"),
    ("precision@k", "precision_recall_at_k", "P@{k}"),
    ("recall@k", "precision_recall_at_k", "R@{k}"),
    ("ndcg@k", "ndcg_at_k", "nDCG@{k}"),
    ("mrr@k", "mrr_at_k", "RR@{k}"),
    ("map@k", "map_at_k", "AP(norm='min')@{k}"),
)
"""sentence-transformers' metric families, in the order of its results, each with the
constructor argument holding its cut-offs and the ranklens measure that computes it."""

LOG_LINES = (
    ("accuracy@k", "Accuracy", True),
    ("precision@k", "Precision", True),
    ("recall@k", "Recall", True),
    ("mrr@k", "MRR", False),
    ("ndcg@k", "NDCG", False),
    ("map@k", "MAP", False),
)
"""The lines sentence-transformers logs for a score function: family, label, as a
percentage."""

SIMILARITY_NAMES = ("cosine", "dot", "euclidean", "manhattan")
MISSING_RELEVANT = ("error", "count")

EVALUATOR_DOC = """sentence-transformers' ``InformationRetrievalEvaluator``, computed by ranklens.

The constructor and the call are sentence-transformers' (6): ``evaluator(model,
output_path=None, epoch=-1, steps=-1)`` embeds the queries and the corpus (chunk by chunk),
finds each query's top documents with every score function, and returns the same dict
(``"{name}_{score function}_ndcg@10"``, ...) with the same values; ``primary_metric``,
``greater_is_better``, the CSV file and the predictions file are sentence-transformers'
too. After a call, :attr:`results` holds a :class:`ranklens.Results` per score function
(per-query values, for :func:`ranklens.compare` and plots) and :attr:`runs` the
:class:`ranklens.Run` of each query's top documents, which with :attr:`qrels` (the
relevant documents as ranklens qrels of grade 1) give every other measure and the report
(``ties="input"`` keeps sentence-transformers' order of equal scores).

Parameters
----------
queries, corpus, relevant_docs
    ``{query id: query}``, ``{corpus id: document}`` and ``{query id: set of corpus ids}``.
    Only the queries with relevant documents are evaluated.
corpus_chunk_size, mrr_at_k, ndcg_at_k, accuracy_at_k, precision_recall_at_k, map_at_k,
show_progress_bar, batch_size, name, write_csv, truncate_dim, score_functions,
main_score_function, query_prompt, query_prompt_name, corpus_prompt, corpus_prompt_name,
write_predictions
    As in sentence-transformers.
missing_relevant
    A relevant document that is not in the corpus is an error (``"error"``, the default),
    or counts as a relevant document no model can retrieve (``"count"``, what
    sentence-transformers does: it lowers recall, nDCG and MAP).

Raises
------
InputError
    No query with relevant documents, an empty corpus, a relevant document missing from
    the corpus, ids that cannot be told apart as text or ordered, a set of relevant
    documents that is not a set; at a call, embeddings or scores of the wrong shape, or
    NaN scores.
OptionError
    A cut-off list that is empty or holds something other than positive integers, a bad
    ``corpus_chunk_size``, ``main_score_function`` or ``missing_relevant``.
"""


def require_sentence_transformers() -> Any:
    """sentence-transformers' ``BaseEvaluator`` class, or a :class:`MissingDependencyError`
    that says what to install."""
    try:
        module = require("sentence_transformers.base.evaluation", MODULE)
    except MissingDependencyError as exc:
        raise MissingDependencyError(
            f"{MODULE} needs sentence-transformers (6 or later), which is not installed: "
            "pip install 'ranklens[sentence-transformers]'"
        ) from exc
    return module.BaseEvaluator


def _cutoffs(name: str, values: Any) -> list[int]:
    """A ``*_at_k`` list as sentence-transformers takes it: positive integers, at least one."""
    if isinstance(values, str | bytes) or not isinstance(values, Sequence) or not values:
        raise OptionError(f"{name} must be a non-empty list of positive integers, not {values!r}")
    for k in values:
        if isinstance(k, bool) or not isinstance(k, int | np.integer) or k < 1:
            raise OptionError(f"{name} must hold positive integers (cut-offs), not {k!r}")
    return [int(k) for k in values]


def _positive(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 1:
        raise OptionError(f"{name} must be a positive integer, not {value!r}")
    return int(value)


def _unique_strings(ids: Sequence[Any], what: str) -> list[str]:
    """``str`` of each id, refusing two ids with the same text (``1`` and ``"1"``): ranklens
    keeps ids as text."""
    texts = [i if isinstance(i, str) else str(i) for i in ids]
    if len(set(texts)) != len(texts):
        seen: dict[str, Any] = {}
        for original, text in zip(ids, texts, strict=True):
            if text in seen:
                raise InputError(
                    f"{what} {seen[text]!r} and {original!r} are written the same way; ranklens "
                    "keeps ids as text: make the ids distinct as strings"
                )
            seen[text] = original
    return texts


def _relevant_sets(
    relevant_docs: Mapping[Any, Any],
    query_ids: Sequence[Any],
    corpus: Mapping[Any, Any],
    corpus_texts: set[str],
    missing_relevant: str,
) -> dict[str, dict[str, int]]:
    """The qrels of the evaluated queries (``{qid: {docid: 1}}``, as text), each relevant
    document checked against the corpus."""
    qrels: dict[str, dict[str, int]] = {}
    for qid in query_ids:
        docs = relevant_docs[qid]
        if isinstance(docs, str | bytes) or not isinstance(docs, Collection):
            raise InputError(
                f"relevant_docs[{qid!r}] must be a set of corpus ids, not {type(docs).__name__} "
                f"{docs!r}"
            )
        listed = list(docs)
        if len(set(listed)) != len(listed):
            twice = next(d for d in listed if listed.count(d) > 1)
            raise InputError(
                f"relevant_docs[{qid!r}] lists {twice!r} twice: give each query a set of corpus "
                "ids (sentence-transformers would count it twice in recall and nDCG)"
            )
        judged: dict[str, int] = {}
        for doc in listed:
            text = doc if isinstance(doc, str) else str(doc)
            if doc not in corpus:
                if missing_relevant == "error":
                    raise InputError(
                        f"relevant_docs[{qid!r}] names {doc!r}, which is not in the corpus: add "
                        "it to the corpus, remove it from relevant_docs, or pass "
                        "missing_relevant='count' to count it as a relevant document no model "
                        "can retrieve (as sentence-transformers does)"
                    )
                if text in corpus_texts:
                    raise InputError(
                        f"relevant_docs[{qid!r}] names {doc!r}, which is not in the corpus but is "
                        "written as a corpus id is: make the ids distinct as strings"
                    )
            judged[text] = 1
        qrels[qid if isinstance(qid, str) else str(qid)] = judged
    return qrels


@dataclass(frozen=True)
class Prepared:
    """What every call reads, prepared once by the constructor: the judgments and their
    evaluator, the measures of each family and cut-off, the corpus ids as text (for the
    runs) and their order (for ties), and the queries in ranklens' byte order."""

    evaluator: Evaluator
    measures: dict[str, dict[int, Measure]]
    doc_data: np.ndarray
    doc_offsets: np.ndarray
    corpus_ranks: Any
    sorted_qids: tuple[str, ...]
    query_order: np.ndarray

    def run(self, positions: np.ndarray, scores: np.ndarray, name: str) -> Run:
        """The run of each query's top documents (rows in sentence-transformers' order of
        queries and, within a row, of documents), grouped as ranklens groups queries."""
        k = positions.shape[1]
        flat = np.ascontiguousarray(positions[self.query_order].reshape(-1))
        doc_data, doc_offsets = core.take_strings(self.doc_data, self.doc_offsets, flat)
        return Run(
            qids=self.sorted_qids,
            q_offsets=np.arange(len(self.sorted_qids) + 1, dtype=np.int64) * k,
            doc_data=doc_data,
            doc_offsets=doc_offsets,
            lines=None,
            source="<sentence-transformers>",
            scores=np.ascontiguousarray(scores[self.query_order].reshape(-1)),
            name=name,
            unique=True,
        )

    def values(self, results: Results) -> dict[str, dict[int, float]]:
        """sentence-transformers' ``{family: {k: value}}`` from the per-query results."""
        means = results.aggregate
        return {
            family: {k: float(means[m.name]) for k, m in by_k.items()}
            for family, by_k in self.measures.items()
        }


def prepare(
    torch: Any,
    queries_ids: Sequence[Any],
    corpus_ids: Sequence[Any],
    corpus: Mapping[Any, Any],
    relevant_docs: Mapping[Any, Any],
    cutoffs: Mapping[str, list[int]],
    missing_relevant: str,
) -> Prepared:
    """Check the data and prepare what every call reads (see :class:`Prepared`)."""
    if not queries_ids:
        raise InputError(
            "no query has relevant documents: relevant_docs must map some of the queries' ids "
            "to non-empty sets of corpus ids"
        )
    if not corpus_ids:
        raise InputError("the corpus is empty: give at least one document to search")
    qid_texts = _unique_strings(queries_ids, "the query ids")
    corpus_texts = _unique_strings(corpus_ids, "the corpus ids")
    try:
        ascending = sorted(range(len(corpus_ids)), key=corpus_ids.__getitem__)
    except TypeError as exc:
        raise InputError(
            f"the corpus ids cannot be ordered ({exc}); equal scores are ordered by corpus id, "
            "as sentence-transformers does: use ids of one type (all str, or all int)"
        ) from None
    ranks = torch.empty(len(corpus_ids), dtype=torch.long)
    ranks[torch.tensor(ascending, dtype=torch.long)] = torch.arange(len(corpus_ids))
    qrels = _relevant_sets(relevant_docs, queries_ids, corpus, set(corpus_texts), missing_relevant)
    measures: dict[str, dict[int, Measure]] = {}
    for family, argument, pattern in FAMILIES:
        ks = list(dict.fromkeys(cutoffs[argument]))
        measures[family] = dict(
            zip(ks, parse_measures([pattern.format(k=k) for k in ks]), strict=True)
        )
    every = list({m.name: m for by_k in measures.values() for m in by_k.values()}.values())
    # ties="input": each run lists a query's documents in sentence-transformers' order
    evaluator = Evaluator(Qrels.from_dict(qrels), every, ties="input")
    order = sorted(range(len(qid_texts)), key=qid_texts.__getitem__)
    doc_data, doc_offsets = encode_ids(corpus_texts)
    return Prepared(
        evaluator=evaluator,
        measures=measures,
        doc_data=doc_data,
        doc_offsets=doc_offsets,
        corpus_ranks=ranks,
        sorted_qids=tuple(qid_texts[i] for i in order),
        query_order=np.asarray(order, dtype=np.int64),
    )


def _shape(embeddings: Any) -> tuple[int, ...] | None:
    shape = getattr(embeddings, "shape", None)
    return None if shape is None else tuple(int(s) for s in shape)


def check_embeddings(embeddings: Any, count: int, what: str, width: int | None = None) -> int:
    """Refuse embeddings that are not one row of ``width`` values per input; their width."""
    shape = _shape(embeddings)
    if shape is None or len(shape) != 2 or shape[0] != count:
        found = "no shape" if shape is None else f"shape {shape}"
        raise InputError(
            f"the model's {what} embeddings have {found} for {count} inputs: expected a "
            f"({count}, dimensions) tensor, one row per input (encode with "
            "convert_to_tensor=True)"
        )
    if width is not None and shape[1] != width:
        raise InputError(
            f"the model's {what} embeddings have {shape[1]} dimensions and its query "
            f"embeddings {width}: queries and documents must be embedded in one space (the "
            "same model, or the same truncate_dim)"
        )
    return shape[1]


def check_scores(scores: Any, queries: int, documents: int, name: str) -> None:
    shape = _shape(scores)
    if shape != (queries, documents):
        raise InputError(
            f"the score function {name!r} returned {'no tensor' if shape is None else shape} "
            f"for {queries} queries and {documents} documents: expected a ({queries}, "
            f"{documents}) tensor of scores"
        )


@cache
def evaluator_class() -> type:
    """The ``InformationRetrievalEvaluator`` class, a subclass of sentence-transformers'
    ``BaseEvaluator``."""
    base = require_sentence_transformers()
    import torch
    from sentence_transformers.util.similarity import SimilarityFunction

    def similarity(main_score_function: Any) -> Any:
        """sentence-transformers' ``SimilarityFunction`` named by ``main_score_function``."""
        if not main_score_function:
            return None
        try:
            return SimilarityFunction(main_score_function)
        except ValueError:
            raise OptionError(
                f"main_score_function must be one of {list(SIMILARITY_NAMES)} (a "
                f"SimilarityFunction), "
                f"not {main_score_function!r}"
            ) from None

    class InformationRetrievalEvaluator(base):  # type: ignore[misc, valid-type]
        def __init__(
            self,
            queries: Mapping[Any, Any],
            corpus: Mapping[Any, Any],
            relevant_docs: Mapping[Any, Any],
            corpus_chunk_size: int = 50000,
            mrr_at_k: Sequence[int] = (10,),
            ndcg_at_k: Sequence[int] = (10,),
            accuracy_at_k: Sequence[int] = (1, 3, 5, 10),
            precision_recall_at_k: Sequence[int] = (1, 3, 5, 10),
            map_at_k: Sequence[int] = (100,),
            show_progress_bar: bool = False,
            batch_size: int = 32,
            name: str = "",
            write_csv: bool = True,
            truncate_dim: int | None = None,
            score_functions: Mapping[str, Callable[[Any, Any], Any]] | None = None,
            main_score_function: str | Any | None = None,
            query_prompt: str | None = None,
            query_prompt_name: str | None = None,
            corpus_prompt: str | None = None,
            corpus_prompt_name: str | None = None,
            write_predictions: bool = False,
            *,
            missing_relevant: str = "error",
        ) -> None:
            super().__init__()
            for what, given in (("queries", queries), ("corpus", corpus)):
                if not isinstance(given, Mapping):
                    raise InputError(
                        f"{what} must be a dict of id -> text, not {type(given).__name__}"
                    )
            if not isinstance(relevant_docs, Mapping):
                raise InputError(
                    "relevant_docs must be a dict of query id -> set of corpus ids, not "
                    f"{type(relevant_docs).__name__}"
                )
            if missing_relevant not in MISSING_RELEVANT:
                raise OptionError(
                    f"missing_relevant must be one of {list(MISSING_RELEVANT)}, not "
                    f"{missing_relevant!r}"
                )
            self.queries_ids = [
                qid for qid in queries if qid in relevant_docs and len(relevant_docs[qid]) > 0
            ]
            self.queries = [queries[qid] for qid in self.queries_ids]
            self.corpus_ids = list(corpus.keys())
            self.corpus = [corpus[cid] for cid in self.corpus_ids]
            self.query_prompt = query_prompt
            self.query_prompt_name = query_prompt_name
            self.corpus_prompt = corpus_prompt
            self.corpus_prompt_name = corpus_prompt_name
            self.relevant_docs = relevant_docs
            self.corpus_chunk_size = _positive("corpus_chunk_size", corpus_chunk_size)
            self.mrr_at_k = _cutoffs("mrr_at_k", mrr_at_k)
            self.ndcg_at_k = _cutoffs("ndcg_at_k", ndcg_at_k)
            self.accuracy_at_k = _cutoffs("accuracy_at_k", accuracy_at_k)
            self.precision_recall_at_k = _cutoffs("precision_recall_at_k", precision_recall_at_k)
            self.map_at_k = _cutoffs("map_at_k", map_at_k)
            self.show_progress_bar = show_progress_bar
            self.batch_size = batch_size
            self.name = name
            self.write_csv = write_csv
            if score_functions is not None and not score_functions:
                raise OptionError(
                    "score_functions is empty: give {name: function} pairs, or None for the "
                    "model's own similarity"
                )
            self.score_functions = score_functions
            self.score_function_names = sorted(score_functions) if score_functions else []
            self._score_functions_from_model = score_functions is None
            self.main_score_function = similarity(main_score_function)
            self.truncate_dim = truncate_dim
            self.missing_relevant = missing_relevant
            suffix = "_" + name if name else ""
            self.csv_file = "Information-Retrieval_evaluation" + suffix + "_results.csv"
            self.csv_headers = ["epoch", "steps"]
            self._append_csv_headers(self.score_function_names)
            self.write_predictions = write_predictions
            if write_predictions:
                self.predictions_file = (
                    "Information-Retrieval_evaluation" + suffix + "_predictions.jsonl"
                )
            self.results: dict[str, Results] = {}
            self.runs: dict[str, Run] = {}
            self._prepared = prepare(
                torch,
                self.queries_ids,
                self.corpus_ids,
                corpus,
                relevant_docs,
                {argument: getattr(self, argument) for _, argument, _ in FAMILIES},
                missing_relevant,
            )
            self.qrels = self._prepared.evaluator.qrels

        def _append_csv_headers(self, score_function_names: Sequence[str]) -> None:
            for score_name in score_function_names:
                for k in self.accuracy_at_k:
                    self.csv_headers.append(f"{score_name}-Accuracy@{k}")
                for k in self.precision_recall_at_k:
                    self.csv_headers.append(f"{score_name}-Precision@{k}")
                    self.csv_headers.append(f"{score_name}-Recall@{k}")
                for k in self.mrr_at_k:
                    self.csv_headers.append(f"{score_name}-MRR@{k}")
                for k in self.ndcg_at_k:
                    self.csv_headers.append(f"{score_name}-NDCG@{k}")
                for k in self.map_at_k:
                    self.csv_headers.append(f"{score_name}-MAP@{k}")

        def _model_score_functions(self, model: Any) -> dict[str, Callable[[Any, Any], Any]]:
            return {model.similarity_fn_name: model.similarity}

        def __call__(
            self,
            model: Any,
            output_path: str | None = None,
            epoch: int = -1,
            steps: int = -1,
            *args: Any,
            **kwargs: Any,
        ) -> dict[str, float]:
            if epoch != -1:
                out_txt = (
                    f" after epoch {epoch}"
                    if steps == -1
                    else f" in epoch {epoch} after {steps} steps"
                )
            else:
                out_txt = ""
            if self.truncate_dim is not None:
                out_txt += f" (truncated to {self.truncate_dim})"
            logger.info(
                "Information Retrieval Evaluation of the model on the "
                f"{self.name} dataset{out_txt}:"
            )
            headers_changed = False
            if self._score_functions_from_model:
                # each model scores with its own similarity
                self.score_functions = self._model_score_functions(model)
                if self.score_function_names != sorted(self.score_functions):
                    headers_changed = bool(self.score_function_names)
                    self.score_function_names = sorted(self.score_functions)
                    self.csv_headers = ["epoch", "steps"]
                    self._append_csv_headers(self.score_function_names)
                    self.primary_metric = None
            # extra positional arguments are corpus_model and corpus_embeddings, as there
            compute = cast(Callable[..., Any], self.compute_all_metrics)
            scores = compute(model, *args, output_path=output_path, **kwargs)
            if output_path is not None and self.write_csv:
                self._write_csv(output_path, scores, epoch, steps, headers_changed)
            if not self.primary_metric:
                at = max(self.ndcg_at_k)
                if self.main_score_function is None:
                    best = max(
                        [(n, scores[n]["ndcg@k"][at]) for n in self.score_function_names],
                        key=lambda x: x[1],
                    )[0]
                    self.primary_metric = f"{best}_ndcg@{at}"
                else:
                    self.primary_metric = f"{self.main_score_function.value}_ndcg@{at}"
            metrics = {
                f"{score_function}_{family.replace('@k', '@' + str(k))}": value
                for score_function, families in scores.items()
                for family, by_k in families.items()
                for k, value in by_k.items()
            }
            metrics = self.prefix_name_to_metrics(metrics, self.name)
            self.store_metrics_in_model_card_data(model, metrics, epoch, steps)
            return dict(metrics)

        def _write_csv(
            self,
            output_path: str,
            scores: Mapping[str, Mapping[str, Mapping[int, float]]],
            epoch: Any,
            steps: Any,
            headers_changed: bool,
        ) -> None:
            os.makedirs(output_path, exist_ok=True)
            csv_path = os.path.join(output_path, self.csv_file)
            exists = os.path.isfile(csv_path)
            if exists and headers_changed:
                logger.warning(
                    f"{self.csv_file} was written with different score function columns, so the "
                    f"rows appended for {self.score_function_names} are labeled with the "
                    "previous score function."
                )
            row: list[Any] = [epoch, steps]
            for name in self.score_function_names:
                values = scores[name]
                row += [values["accuracy@k"][k] for k in self.accuracy_at_k]
                for k in self.precision_recall_at_k:
                    row += [values["precision@k"][k], values["recall@k"][k]]
                row += [values["mrr@k"][k] for k in self.mrr_at_k]
                row += [values["ndcg@k"][k] for k in self.ndcg_at_k]
                row += [values["map@k"][k] for k in self.map_at_k]
            with open(csv_path, mode="a" if exists else "w", encoding="utf-8") as out:
                if not exists:
                    out.write(",".join(self.csv_headers) + "\n")
                out.write(",".join(map(str, row)) + "\n")

        def compute_all_metrics(
            self,
            model: Any,
            corpus_model: Any = None,
            corpus_embeddings: Any = None,
            output_path: str | None = None,
        ) -> dict[str, dict[str, dict[int, float]]]:
            """Search the corpus with every score function and evaluate each ranking;
            ``{score function: {family: {k: value}}}``. Keeps :attr:`results` and
            :attr:`runs`."""
            if corpus_model is None:
                corpus_model = model
            if not self.score_functions:
                self.score_functions = self._model_score_functions(model)
            prepared = self._prepared
            max_k = max(
                max(self.mrr_at_k),
                max(self.ndcg_at_k),
                max(self.accuracy_at_k),
                max(self.precision_recall_at_k),
                max(self.map_at_k),
            )
            query_embeddings = self.embed_inputs(
                model,
                self.queries,
                encode_fn_name="query",
                prompt_name=self.query_prompt_name,
                prompt=self.query_prompt,
            )
            width = check_embeddings(query_embeddings, len(self.queries), "query")
            tops = {
                name: TopDocuments(torch, max_k, prepared.corpus_ranks, name)
                for name in self.score_functions
            }
            n = len(self.corpus)
            for start in self._chunk_starts(n):
                end = min(start + self.corpus_chunk_size, n)
                chunk = self._chunk_embeddings(corpus_model, corpus_embeddings, start, end)
                check_embeddings(chunk, end - start, "document", width)
                for name, score_function in self.score_functions.items():
                    pair_scores = score_function(query_embeddings, chunk)
                    check_scores(pair_scores, len(self.queries), end - start, name)
                    tops[name].add(pair_scores, start)
            scores: dict[str, dict[str, dict[int, float]]] = {}
            self.results, self.runs = {}, {}
            for name, top in tops.items():
                positions, values = top.result()
                run_name = f"{self.name}_{name}" if self.name else name
                run = prepared.run(positions, values, run_name)
                results = prepared.evaluator.evaluate_part(run)
                self.runs[name], self.results[name] = run, results
                scores[name] = prepared.values(results)
                if self.write_predictions and output_path is not None:
                    self._write_predictions(output_path, name, positions, values)
            logger.info(f"Queries: {len(self.queries)}")
            logger.info(f"Corpus: {len(self.corpus)}\n")
            for name in self.score_function_names:
                logger.info(f"Score-Function: {name}")
                self.output_scores(scores[name])
            return scores

        compute_metrices = compute_all_metrics

        def _chunk_starts(self, n: int) -> Any:
            starts = range(0, n, self.corpus_chunk_size)
            if not self.show_progress_bar:
                return starts
            return require("tqdm", MODULE).tqdm(starts, desc="Corpus Chunks")

        def _chunk_embeddings(
            self, corpus_model: Any, corpus_embeddings: Any, start: int, end: int
        ) -> Any:
            if corpus_embeddings is None:
                return self.embed_inputs(
                    corpus_model,
                    self.corpus[start:end],
                    encode_fn_name="document",
                    prompt_name=self.corpus_prompt_name,
                    prompt=self.corpus_prompt,
                )
            if isinstance(corpus_embeddings, torch.Tensor) and corpus_embeddings.is_sparse:
                indices = torch.arange(start, end, device=corpus_embeddings.device)
                return corpus_embeddings.index_select(0, indices)
            return corpus_embeddings[start:end]

        def _write_predictions(
            self, output_path: str, name: str, positions: np.ndarray, values: np.ndarray
        ) -> None:
            """sentence-transformers' predictions file: one JSON line per query, its top
            documents with their scores."""
            os.makedirs(output_path, exist_ok=True)
            path = os.path.join(
                output_path, self.predictions_file.replace(".jsonl", f"_{name}.jsonl")
            )
            ids = self.corpus_ids
            with open(path, mode="w", encoding="utf-8") as out:
                for i, query_id in enumerate(self.queries_ids):
                    hits = [
                        {"corpus_id": ids[p], "score": s}
                        for p, s in zip(positions[i].tolist(), values[i].tolist(), strict=True)
                    ]
                    line = {"query_id": query_id, "query": self.queries[i], "results": hits}
                    out.write(json.dumps(line) + "\n")

        def embed_inputs(
            self,
            model: Any,
            sentences: Any,
            encode_fn_name: str | None = None,
            prompt_name: str | None = None,
            prompt: str | None = None,
            **kwargs: Any,
        ) -> Any:
            if encode_fn_name is None:
                encode = model.encode
            elif encode_fn_name == "query":
                encode = model.encode_query
            else:
                encode = model.encode_document
            return encode(
                sentences,
                prompt_name=prompt_name,
                prompt=prompt,
                batch_size=self.batch_size,
                show_progress_bar=self.show_progress_bar,
                convert_to_tensor=True,
                truncate_dim=self.truncate_dim,
                **kwargs,
            )

        def output_scores(self, scores: Mapping[str, Mapping[int, float]]) -> None:
            for family, label, percent in LOG_LINES:
                for k, value in scores[family].items():
                    shown = f"{value * 100:.2f}%" if percent else f"{value:.4f}"
                    logger.info(f"{label}@{k}: {shown}")

        def get_config_dict(self) -> dict[str, Any]:
            keys = (
                "truncate_dim",
                "query_prompt",
                "query_prompt_name",
                "corpus_prompt",
                "corpus_prompt_name",
            )
            return {key: getattr(self, key) for key in keys if getattr(self, key) is not None}

    cls = InformationRetrievalEvaluator
    cls.__module__ = MODULE  # pickled by reference, as the module's attribute
    cls.__qualname__ = cls.__name__
    cls.__doc__ = EVALUATOR_DOC
    return cls
