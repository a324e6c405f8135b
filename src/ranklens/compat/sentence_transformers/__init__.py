"""sentence-transformers' ``InformationRetrievalEvaluator`` on ranklens: ``from
ranklens.compat.sentence_transformers import InformationRetrievalEvaluator`` for ``from
sentence_transformers.evaluation import InformationRetrievalEvaluator``.

The constructor, the call ``evaluator(model, output_path=None, epoch=-1, steps=-1)``, the
returned dict (its keys and values), ``primary_metric``, ``greater_is_better`` and the CSV
and predictions files are sentence-transformers' (6); the class is a subclass of its
``BaseEvaluator`` (``SentenceEvaluator``), so ``SentenceTransformerTrainer(evaluator=...)``,
``SequentialEvaluator`` and the model card take it. The corpus is searched as
sentence-transformers searches it (the score functions on each chunk of the corpus, then
``torch.topk``, on the embeddings' device), with the candidates of every query merged at
once; the measures are ranklens', on the runs of each query's top documents, with
sentence-transformers' conventions spelt as ranklens options:

====================  ==========================  ==========================================
sentence-transformers  ranklens                    the convention
====================  ==========================  ==========================================
``accuracy@k``        ``Success@k``               a relevant document in the top k
``precision@k``       ``P@k``                     divided by k, as trec_eval
``recall@k``          ``R@k``                     divided by the relevant documents, as
                                                  trec_eval
``mrr@k``             ``RR@k``                    0 past rank k
``ndcg@k``            ``nDCG@k``                  binary gains; the ideal ranking of every
                                                  relevant document, cut at k, as trec_eval
``map@k``             ``AP(norm='min')@k``        divided by min(k, relevant documents)
====================  ==========================  ==========================================

Relevance is binary (the sets of ``relevant_docs``: grade 1); equal scores are ordered by
corpus id ascending (Python's order of the ids; for string ids ranklens'
``ties="docid_asc"``), which the runs keep as their order of arrival (``ties="input"``);
only the queries with relevant documents are evaluated, each query's mean taken over them.

After a call, ``evaluator.results`` holds a :class:`ranklens.Results` per score function:
the value of every query, so two checkpoints or two models compare with
:func:`ranklens.compare` (paired tests, intervals) and plots take them; ``evaluator.runs``
(each query's top documents) with ``evaluator.qrels`` give any other measure and the
report, under ``ties="input"``.

The class is built on first access; it needs sentence-transformers (and so torch): ``pip
install 'ranklens[sentence-transformers]'``.
"""

from __future__ import annotations

from typing import Any

__all__ = ["InformationRetrievalEvaluator"]

InformationRetrievalEvaluator: type
"""Built on first access (a subclass of sentence-transformers' ``BaseEvaluator``)."""


def __getattr__(name: str) -> Any:
    if name == "InformationRetrievalEvaluator":
        from ranklens.compat.sentence_transformers._evaluator import evaluator_class

        return evaluator_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)
