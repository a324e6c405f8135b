"""LlamaIndex's retrieval metrics on ranklens: ``from ranklens.compat.llama_index import
HitRate, MRR, NDCG`` for ``from llama_index.core.evaluation import HitRate, MRR, NDCG``.

``HitRate``, ``MRR``, ``Precision``, ``Recall``, ``AveragePrecision`` and ``NDCG`` take
LlamaIndex's fields (``use_granular_hit_rate``, ``use_granular_mrr``, ``mode``), keep its
``metric_name`` and its call ``compute(query=None, expected_ids=None, retrieved_ids=None,
expected_texts=None, retrieved_texts=None, **kwargs)``, and return its
``RetrievalMetricResult``: they *are* subclasses of LlamaIndex's classes (0.14), so
``RetrieverEvaluator(metrics=[HitRate(), MRR()], retriever=...)`` takes them.
``METRIC_REGISTRY`` and ``resolve_metrics`` map LlamaIndex's names to them. The values are
ranklens measures on the retrieved list as ranked (``ties="input"``) against the expected
ids as relevant documents of grade 1, none cut (the list is the retriever's top k):

=================================  ===============================  ========================
LlamaIndex                         ranklens                         the convention
=================================  ===============================  ========================
``HitRate()``                      ``Success@n``                    a relevant id retrieved
``HitRate(use_granular_hit_rate)`` ``R``                            hits / expected ids
``MRR()``                          ``RR``                           1 / first relevant rank
``MRR(use_granular_mrr)``          ``LlamaIndexGranularRR``         mean of 1 / rank over
                                                                    the relevant ids found
``Precision()``                    ``P``                            / ids retrieved (no k)
``Recall()``                       ``R``                            / ids expected
``AveragePrecision()``             ``AP``                           / ids expected (trec_eval)
``NDCG()``                         ``nDCG``                         binary gains; the ideal
                                                                    of every expected id
``NDCG(mode="exponential")``       ``nDCG(dcg='exp-log2')``         the same for grade 1
=================================  ===============================  ========================

``n`` is the length of the longest retrieved list. The granular MRR is no reciprocal rank
(finding a second relevant id lowers it), so it is no option of ``RR``: it is defined, on
first use, as the ranklens user measure ``LlamaIndexGranularRR``.

One difference: LlamaIndex counts an id retrieved twice at each occurrence in MRR, AP,
nDCG and the granular hit rate (a repeat shifts the ranks after it, and values above 1
occur: ``AveragePrecision`` of ``["a", "a"]`` against ``["a"]`` is 2), and an id expected
twice twice in the granular hit rate's and nDCG's denominators. There, a repeated id is an
error (``duplicates="error"``, a field of every class), or counts once, at its first rank
(``duplicates="first"``, trec_eval's value). Where LlamaIndex's value does not depend on
repeats (``HitRate()``, ``Precision``, ``Recall``) they are taken as it takes them. Missing
or empty id lists raise :class:`LlamaIndexInputError`, a ``ValueError`` as LlamaIndex's.

Beyond LlamaIndex, :func:`retrieval_results` gives ranklens :class:`~ranklens.Results` of
many queries (per-query values for :func:`ranklens.compare`, reports and plots), from
``{query: (expected_ids, retrieved_ids)}`` or from the ``RetrievalEvalResult`` list of
``RetrieverEvaluator.evaluate_dataset``; it needs no LlamaIndex.

>>> from ranklens.compat.llama_index import retrieval_results
>>> results = retrieval_results({"q1": (["a", "b"], ["a", "x", "b"]), "q2": (["c"], ["x"])})
>>> results.query_values("AP")
{'q1': 0.8333333333333333, 'q2': 0.0}

The classes are built on first access; they need LlamaIndex: ``pip install
'ranklens[llama-index]'``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import cache
from typing import Any, Literal, NamedTuple

import numpy as np

from ranklens.base.errors import InputError, MeasureError, MissingDependencyError, OptionError
from ranklens.base.optional import require
from ranklens.data.qrels import Qrels
from ranklens.data.run import Run
from ranklens.evaluation.evaluator import Evaluator
from ranklens.evaluation.results import Results
from ranklens.measures import parse_measures

__all__ = [
    "METRIC_REGISTRY",
    "MRR",
    "NDCG",
    "AveragePrecision",
    "HitRate",
    "LlamaIndexInputError",
    "Precision",
    "Recall",
    "resolve_metrics",
    "retrieval_results",
]

MODULE = "ranklens.compat.llama_index"
CLASS_NAMES = ("HitRate", "MRR", "Precision", "Recall", "AveragePrecision", "NDCG")
METRIC_NAMES = ("hit_rate", "mrr", "precision", "recall", "ap", "ndcg")
"""LlamaIndex's ``metric_name`` of each class, in the same order."""
DUPLICATES = ("error", "first")
GRANULAR_RR = "LlamaIndexGranularRR"

HitRate: type
MRR: type
Precision: type
Recall: type
AveragePrecision: type
NDCG: type
METRIC_REGISTRY: dict[str, type]


class LlamaIndexInputError(InputError, ValueError):
    """Ids LlamaIndex's metrics refuse (missing or empty lists), ids that cannot be told
    apart as text, or a repeated id where LlamaIndex would count it twice: an
    :class:`~ranklens.base.errors.InputError` that is also the ``ValueError`` LlamaIndex
    raises, so ``except ValueError`` keeps working."""


class Metric(NamedTuple):
    """One LlamaIndex metric with its options: its ``metric_name``, whether it is granular
    (hit rate, MRR) and its gain mode (nDCG)."""

    name: str
    granular: bool = False
    mode: str = "linear"

    def measure(self, longest: int) -> str:
        """The ranklens measure that computes it, for retrieved lists of at most ``longest``
        ids."""
        if self.name == "hit_rate":
            return "R" if self.granular else f"Success@{max(longest, 1)}"
        if self.name == "mrr":
            return granular_rr() if self.granular else "RR"
        if self.name == "ndcg":
            return "nDCG(dcg='exp-log2')" if self.mode == "exponential" else "nDCG"
        return {"precision": "P", "recall": "R", "ap": "AP"}[self.name]

    def counts_repeats(self) -> tuple[bool, bool]:
        """Whether LlamaIndex counts a repeated retrieved id, and a repeated expected id,
        more than once."""
        retrieved = self.granular or self.name in ("mrr", "ap", "ndcg")
        expected = (self.granular and self.name == "hit_rate") or self.name == "ndcg"
        return retrieved, expected


def metric_of(value: Any) -> Metric:
    """The :class:`Metric` of a LlamaIndex metric name or metric object (LlamaIndex's own or
    this module's)."""
    if isinstance(value, Metric):
        return value
    if isinstance(value, str):
        if value not in METRIC_NAMES:
            raise OptionError(
                f"unknown LlamaIndex metric {value!r}: use one of {list(METRIC_NAMES)}"
            )
        return Metric(value)
    name = getattr(value, "metric_name", None)
    if name not in METRIC_NAMES:
        raise OptionError(
            f"{value!r} is not one of LlamaIndex's id-based retrieval metrics "
            f"({', '.join(CLASS_NAMES)}) nor one of their names"
        )
    granular = bool(
        getattr(value, "use_granular_hit_rate", False) or getattr(value, "use_granular_mrr", False)
    )
    mode = getattr(value, "mode", "linear")
    if mode not in ("linear", "exponential"):
        raise OptionError(f"NDCG's mode must be 'linear' or 'exponential', not {mode!r}")
    return Metric(str(name), granular, str(mode))


def _granular_rr(relevance: np.ndarray, scores: np.ndarray) -> float:
    """Mean of 1 / rank over the relevant documents retrieved (0 if none): LlamaIndex's
    granular MRR."""
    hits = np.flatnonzero(relevance > 0)
    return float(np.sum(1.0 / (hits + 1.0)) / hits.size) if hits.size else 0.0


def granular_rr() -> str:
    """The name of the user measure :data:`GRANULAR_RR`, defined on first use."""
    from ranklens.measures.user import define_measure
    from ranklens.measures.user_registry import USER_MEASURES

    if USER_MEASURES.get(GRANULAR_RR) is None:
        try:
            define_measure(
                GRANULAR_RR,
                _granular_rr,
                summary="LlamaIndex's granular MRR: mean of 1/rank over the relevant "
                "documents retrieved, 0 if none",
                bounds=(0.0, 1.0),
            )
        except MeasureError:  # defined by another thread meanwhile
            if USER_MEASURES.get(GRANULAR_RR) is None:
                raise
    return GRANULAR_RR


def _texts(ids: Sequence[Any], where: str, what: str) -> list[str]:
    """The ids as text (ranklens keeps ids as text), refusing two ids written alike."""
    texts: list[str] = []
    seen: dict[str, Any] = {}
    for given in ids:
        text = given if isinstance(given, str) else str(given)
        if text in seen and seen[text] != given:
            raise LlamaIndexInputError(
                f"{where}: {what} {seen[text]!r} and {given!r} are written the same "
                "way; ranklens keeps ids as text: make the ids distinct as strings"
            )
        seen[text] = given
        texts.append(text)
    return texts


def _refuse_repeats(ids: list[str], where: str, what: str, metric: Metric) -> None:
    if len(set(ids)) == len(ids):
        return
    seen: set[str] = set()
    twice = next(i for i in ids if i in seen or seen.add(i))  # type: ignore[func-returns-value]
    raise LlamaIndexInputError(
        f"{where}: {what} lists {twice!r} twice, which LlamaIndex's {metric.name} "
        f"{'(granular) ' if metric.granular else ''}counts at each occurrence (a repeat "
        "shifts the ranks after it; values above 1 are possible): remove the repeat, or "
        "pass duplicates='first' to count its first rank only (trec_eval's value)"
    )


def _rows(
    queries: Mapping[Any, tuple[Any, Any]] | Iterable[Any],
) -> list[tuple[Any, Any, Any]]:
    """``(query, expected_ids, retrieved_ids)`` of a dict or of ``RetrievalEvalResult`` s."""
    if isinstance(queries, Mapping):
        rows = []
        for query, pair in queries.items():
            if not isinstance(pair, Sequence) or isinstance(pair, str) or len(pair) != 2:
                raise LlamaIndexInputError(
                    f"query {query!r}: give (expected_ids, retrieved_ids), not {pair!r}"
                )
            rows.append((query, pair[0], pair[1]))
        return rows
    rows = []
    for result in queries:
        try:
            rows.append((result.query, result.expected_ids, result.retrieved_ids))
        except AttributeError:
            raise LlamaIndexInputError(
                "give {query: (expected_ids, retrieved_ids)} or RetrieverEvaluator's "
                f"RetrievalEvalResult objects, not {type(result).__name__}"
            ) from None
    return rows


def _id_list(ids: Any, where: str, what: str) -> list[Any]:
    if ids is None or isinstance(ids, str | bytes) or not isinstance(ids, Iterable):
        raise LlamaIndexInputError(
            f"{where}: {what} must be a list of ids, not {type(ids).__name__}"
        )
    return list(ids)


def _checked_ids(
    where: str,
    expected_given: Any,
    retrieved_given: Any,
    metrics: Sequence[Metric],
    duplicates: str,
) -> tuple[list[str], list[str]]:
    """One query's expected and retrieved ids as text, checked: lists, some expected id,
    no two ids written alike, no repeat that one of ``metrics`` counts twice (unless
    ``duplicates="first"``)."""
    expected_list = _id_list(expected_given, where, "expected_ids")
    retrieved_list = _id_list(retrieved_given, where, "retrieved_ids")
    if not expected_list:
        raise LlamaIndexInputError(f"{where} has no expected ids: each query needs a relevant id")
    texts = _texts(expected_list + retrieved_list, where, "ids")
    expected, retrieved = texts[: len(expected_list)], texts[len(expected_list) :]
    if duplicates == "error":
        for metric in metrics:
            in_retrieved, in_expected = metric.counts_repeats()
            if in_retrieved:
                _refuse_repeats(retrieved, where, "retrieved_ids", metric)
            if in_expected:
                _refuse_repeats(expected, where, "expected_ids", metric)
    return expected, retrieved


def retrieval_results(
    queries: Mapping[Any, tuple[Any, Any]] | Iterable[Any],
    metrics: Iterable[Any] = METRIC_NAMES,
    *,
    duplicates: Literal["error", "first"] = "error",
    name: str = "retriever",
) -> Results:
    """ranklens :class:`~ranklens.Results` of LlamaIndex's metrics over many queries.

    Parameters
    ----------
    queries
        ``{query: (expected_ids, retrieved_ids)}``, the retrieved ids in rank order, or
        the ``RetrievalEvalResult`` list of ``RetrieverEvaluator.evaluate_dataset``. The
        query ids of the results are the queries as text.
    metrics
        LlamaIndex metric names (``"hit_rate"``, ``"mrr"``, ``"precision"``,
        ``"recall"``, ``"ap"``, ``"ndcg"``) or metric objects (their options read); the
        results hold the ranklens measure of each (see the module's table).
    duplicates
        A repeated id where LlamaIndex counts it twice: an error (``"error"``), or counted
        once at its first rank (``"first"``).
    name
        The run's name in the results.

    Returns
    -------
    Results
        One value per query and measure; a query's value is the one ``compute`` gives
        (a query that retrieved nothing, which LlamaIndex refuses, scores 0).

    Raises
    ------
    LlamaIndexInputError
        No query, a query without expected ids, ids that are not lists, two ids written
        alike, a repeated id where LlamaIndex counts it twice (``duplicates="error"``).
    OptionError
        An unknown metric or ``duplicates``.

    Examples
    --------
    >>> r = retrieval_results({"q": (["a", "b"], ["x", "a"])}, ["mrr", "ndcg"])
    >>> r.query_values("RR"), round(r.query_values("nDCG")["q"], 4)
    ({'q': 0.5}, 0.3869)
    """
    if duplicates not in DUPLICATES:
        raise OptionError(f"duplicates must be one of {list(DUPLICATES)}, not {duplicates!r}")
    chosen = list(dict.fromkeys(metric_of(m) for m in metrics))
    if not chosen:
        raise OptionError("no metric given: name at least one of " + ", ".join(METRIC_NAMES))
    rows = _rows(queries)
    if not rows:
        raise LlamaIndexInputError("no query given: nothing to evaluate")
    judged: list[tuple[str, str, int]] = []
    ranked: list[tuple[str, str, float]] = []
    seen: set[str] = set()
    longest = 0
    for query, expected_given, retrieved_given in rows:
        qid = query if isinstance(query, str) else str(query)
        if qid in seen:
            raise LlamaIndexInputError(f"query {qid!r} is given twice: give each query once")
        seen.add(qid)
        expected, retrieved = _checked_ids(
            f"query {qid!r}", expected_given, retrieved_given, chosen, duplicates
        )
        judged += [(qid, doc, 1) for doc in dict.fromkeys(expected)]
        unique = list(dict.fromkeys(retrieved))  # the first rank of each id
        ranked += [(qid, doc, float(len(unique) - i)) for i, doc in enumerate(unique)]
        longest = max(longest, len(unique))
    measures = parse_measures(list(dict.fromkeys(m.measure(longest) for m in chosen)))
    run = Run.from_records(ranked, name=name) if ranked else Run.from_dict({}, name=name)
    evaluator = Evaluator(Qrels.from_records(judged), measures, ties="input")
    return evaluator.evaluate_part(run)


def compute_score(
    metric: Metric,
    expected_ids: Any,
    retrieved_ids: Any,
    duplicates: Literal["error", "first"],
    query: Any = None,
) -> float:
    """One query's value of ``metric``, as LlamaIndex's ``compute`` gives it."""
    if not retrieved_ids or not expected_ids:
        # LlamaIndex's check and message
        raise LlamaIndexInputError("Retrieved ids and expected ids must be provided")
    where = "compute()" if query is None else f"query {query!r}"
    checked = _checked_ids(where, expected_ids, retrieved_ids, [metric], duplicates)
    # checked: what a repeat may still hold counts at its first rank
    results = retrieval_results({"query": checked}, [metric], duplicates="first")
    (value,) = results.aggregate.values()  # the one measure of the one query
    return float(value)


def require_llama_index() -> Any:
    """LlamaIndex's ``llama_index.core.evaluation.retrieval.metrics`` module, or a
    :class:`MissingDependencyError` that says what to install."""
    try:
        return require("llama_index.core.evaluation.retrieval.metrics", MODULE)
    except MissingDependencyError as exc:
        raise MissingDependencyError(
            f"{MODULE} needs LlamaIndex (llama-index-core 0.14 or later), which is not "
            "installed: pip install 'ranklens[llama-index]'"
        ) from exc


@cache
def classes() -> dict[str, Any]:
    """The six metric classes (subclasses of LlamaIndex's), ``METRIC_REGISTRY`` and
    ``resolve_metrics``, built once."""
    metrics = require_llama_index()
    result_type = metrics.RetrievalMetricResult

    def compute(
        self: Any,
        query: str | None = None,
        expected_ids: list[str] | None = None,
        retrieved_ids: list[str] | None = None,
        expected_texts: list[str] | None = None,
        retrieved_texts: list[str] | None = None,
        **kwargs: Any,
    ) -> Any:
        score = compute_score(metric_of(self), expected_ids, retrieved_ids, self.duplicates, query)
        return result_type(score=score)

    built: dict[str, Any] = {}
    for class_name in CLASS_NAMES:
        base = getattr(metrics, class_name)
        namespace = {
            "__annotations__": {"duplicates": Literal["error", "first"]},
            "duplicates": "error",
            "compute": compute,
            "__module__": MODULE,
            "__qualname__": class_name,
            "__doc__": f"LlamaIndex's ``{class_name}``, computed by ranklens "
            f"(``{MODULE}``). ``duplicates``: a repeated id that LlamaIndex would count "
            "twice is an error (``'error'``) or counts at its first rank (``'first'``).",
        }
        built[class_name] = type(class_name, (base,), namespace)
    registry = {cls.metric_name: cls for cls in built.values()}

    def resolve_metrics(names: list[str]) -> list[type]:
        """The classes of LlamaIndex metric names (LlamaIndex's ``resolve_metrics``)."""
        for metric_name in names:
            if metric_name not in registry:
                raise ValueError(f"Invalid metric name: {metric_name}")
        return [registry[metric_name] for metric_name in names]

    built["METRIC_REGISTRY"] = registry
    built["resolve_metrics"] = resolve_metrics
    return built


resolve_metrics: Callable[[list[str]], list[type]]


def __getattr__(name: str) -> Any:
    if name in CLASS_NAMES or name in ("METRIC_REGISTRY", "resolve_metrics"):
        return classes()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)
