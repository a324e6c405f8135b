"""ranx's API on ranklens: ``from ranklens.compat.ranx import Qrels, Run, evaluate, compare, fuse``.

The names, arguments and return shapes are ranx's (0.3): :class:`Qrels` and :class:`Run`
built from dicts, files and DataFrames; :func:`evaluate` returning a float for one metric,
a dict for several, per-query arrays with ``return_mean=False``, and storing the scores in
the run; :func:`compare` returning a :class:`Report` with ranx's ``to_dict``,
``to_latex``, ``to_dataframe`` and table; :func:`fuse` with ranx's methods and
normalisations. Metric names are ranx's (``ndcg@10``, ``map@100``, ``mrr``,
``precision@5``, ``hits@k``, ``hit_rate@k``, ``r-precision``, ``ndcg_burges@k``,
``rbp.95`` ...; :mod:`ranklens.measures.peer_names`); ranklens names are accepted too.

The numbers are ranklens': equal to ranx's on runs without tied scores. The one intended
difference is ties: ranx sorts documents with an unstable sort, so the order of equal
scores is arbitrary in long lists; here it is trec_eval's (document id descending) by
default, or ``ties="input"`` (the dict's or file's order, which is ranx's order wherever
ranx's is deterministic). ranx is never imported.

>>> from ranklens.compat.ranx import Qrels, Run, evaluate
>>> qrels = Qrels({"q_1": {"d_12": 5, "d_25": 3}, "q_2": {"d_11": 6, "d_22": 1}})
>>> run = Run({"q_1": {"d_12": 0.9, "d_23": 0.8, "d_25": 0.7},
...            "q_2": {"d_12": 0.9, "d_11": 0.8, "d_25": 0.7}}, name="bm25")
>>> round(evaluate(qrels, run, "ndcg@5"), 4)
0.757
>>> {m: round(v, 4) for m, v in evaluate(qrels, run, ["map@5", "mrr"]).items()}
{'map@5': 0.5417, 'mrr': 0.75}
>>> {q: round(v, 4) for q, v in run.scores["mrr"].items()}
{'q_1': 1.0, 'q_2': 0.5}
"""

from __future__ import annotations

import json
import os
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from itertools import chain
from typing import Any

import numpy as np

from ranklens.base.errors import InputError, MissingDependencyError, OptionError
from ranklens.base.optional import require
from ranklens.base.types import TIE_POLICIES, Float64Array, TiePolicy
from ranklens.data.qrels import Qrels as _Qrels
from ranklens.data.run import Run as _Run
from ranklens.measures.peer_names import translate

__all__ = ["Qrels", "Report", "Run", "compare", "evaluate", "fuse"]

_KINDS = ("trec", "json", "gz", "parquet")
_EXTENSIONS = {
    ".json": "json",
    ".trec": "trec",
    ".txt": "trec",
    ".gz": "gz",
    ".parq": "parquet",
    ".parquet": "parquet",
}


def _file_kind(path: str | os.PathLike[str], kind: str | None) -> str:
    """ranx's rule: the kind named, else the file's extension, else TREC text."""
    if kind is not None:
        if kind not in _KINDS:
            raise OptionError(f"kind must be one of {list(_KINDS)}, not {kind!r}")
        return kind
    return _EXTENSIONS.get(os.path.splitext(os.fspath(path))[1].lower(), "trec")


def _read_json(path: str | os.PathLike[str]) -> Any:
    try:
        with open(path, encoding="utf-8") as handle:
            return json.load(handle)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"not JSON ({exc.msg}); ranx's JSON files hold {{q_id: {{doc_id: value}}}}",
            path=os.fspath(path),
            line=exc.lineno,
        ) from None


def _frame(rows: list[tuple[str, str, Any]], feature: str) -> Any:
    """ranx's DataFrame: ``q_id`` and ``doc_id`` of dtype object, then ``score``."""
    pandas = require("pandas", feature)
    q_ids, doc_ids, values = zip(*rows, strict=True) if rows else ((), (), ())
    return pandas.DataFrame(
        {
            "q_id": pandas.Series(q_ids, dtype=object),
            "doc_id": pandas.Series(doc_ids, dtype=object),
            "score": pandas.Series(values),
        }
    )


def _columns(mapping: Mapping[str, Mapping[str, Any]], value: type) -> Any:
    """``{q_id: {doc_id: value}}`` as a pyarrow Table (``query_id`` dictionary-encoded,
    ``doc_id``, ``value``), built with C loops; ``None`` when pyarrow is missing or an id or
    value is not of the plain type (then the caller's validating path reports it)."""
    try:
        pyarrow = require("pyarrow", "reading dicts fast")
    except MissingDependencyError:
        return None
    qids = list(mapping)
    docs = mapping.values()
    if not qids or not all(isinstance(q, str) and d for q, d in mapping.items()):
        return None
    sizes = [len(d) for d in docs]
    doc_ids = list(chain.from_iterable(docs))
    values = list(chain.from_iterable(d.values() for d in docs))
    if value is float:
        plain = all(isinstance(v, float) or type(v) is int for v in values)
    else:
        plain = all(type(v) is int for v in values)
    if not plain or not all(isinstance(d, str) for d in doc_ids):
        return None
    dtype = np.float64 if value is float else np.int64
    codes = np.repeat(np.arange(len(qids), dtype=np.int32), sizes)
    return pyarrow.table(
        {
            "query_id": pyarrow.DictionaryArray.from_arrays(
                codes, pyarrow.array([str(q) for q in qids], pyarrow.string())
            ),
            "doc_id": pyarrow.array(doc_ids, pyarrow.string()),
            "value": np.asarray(values, dtype=dtype),
        }
    )


def _run_from_dict(mapping: Mapping[str, Mapping[str, float]], name: str) -> _Run:
    """:meth:`ranklens.Run.from_dict`, through Arrow when the dict is plain (about ten
    times faster on large dicts, the same run)."""
    table = _columns(mapping, float)
    if table is None:
        return _Run.from_dict(mapping, name)
    return _Run.from_frame(table, name, "query_id", "doc_id", "value")


def _qrels_from_dict(mapping: Mapping[str, Mapping[str, int]]) -> _Qrels:
    """:meth:`ranklens.Qrels.from_dict`, through Arrow when the dict is plain."""
    table = _columns(mapping, int)
    if table is None:
        return _Qrels.from_dict(mapping)
    return _Qrels.from_frame(table, "query_id", "doc_id", "value")


def _check_ties(ties: str) -> TiePolicy:
    if ties not in TIE_POLICIES:
        raise OptionError(f"ties must be one of {list(TIE_POLICIES)}, not {ties!r}")
    return ties


class Qrels:
    """Relevance judgments, as ranx's ``Qrels``: ``Qrels({q_id: {doc_id: relevance}})``.

    Parameters
    ----------
    qrels
        ``{q_id: {doc_id: int}}`` (or a :class:`ranklens.Qrels`); ``None`` for an empty
        qrels, filled with :meth:`add`.
    name
        A name, kept as ranx keeps it.

    Examples
    --------
    >>> q = Qrels({"q_1": {"d_1": 1, "d_2": 2}}, name="msmarco")
    >>> q.to_dict(), len(q), q.get_query_ids()
    ({'q_1': {'d_1': 1, 'd_2': 2}}, 1, ['q_1'])
    """

    def __init__(
        self, qrels: Mapping[str, Mapping[str, int]] | _Qrels | None = None, name: str | None = None
    ) -> None:
        self._data: _Qrels | None = None
        if isinstance(qrels, _Qrels):
            self._data = qrels
        elif qrels:
            self._data = _qrels_from_dict(qrels)
        self.name = name

    @property
    def data(self) -> _Qrels:
        """The judgments as a :class:`ranklens.Qrels`."""
        if self._data is None:
            raise InputError("the qrels are empty: add judgments (Qrels.add) first")
        return self._data

    @classmethod
    def from_dict(cls, d: Mapping[str, Mapping[str, int]], name: str | None = None) -> Qrels:
        """``Qrels(d, name)``."""
        return cls(d, name)

    @classmethod
    def from_file(
        cls, path: str | os.PathLike[str], kind: str | None = None, name: str | None = None
    ) -> Qrels:
        """Read TREC qrels (``q_id 0 doc_id rel``; ``.gz`` too), ranx's JSON or Parquet;
        the kind follows the extension unless ``kind`` names it."""
        chosen = _file_kind(path, kind)
        if chosen == "json":
            return cls(_read_json(path), name)
        if chosen == "parquet":
            pandas = require("pandas", "Qrels.from_file(kind='parquet')")
            return cls.from_df(pandas.read_parquet(path), name=name)
        return cls(_Qrels.from_file(path), name)

    @classmethod
    def from_df(
        cls,
        df: Any,
        q_id_col: str = "q_id",
        doc_id_col: str = "doc_id",
        score_col: str = "score",
        name: str | None = None,
    ) -> Qrels:
        """From a pandas (or polars) DataFrame with ranx's column names by default."""
        return cls(_Qrels.from_frame(df, q_id_col, doc_id_col, score_col), name)

    @classmethod
    def from_parquet(
        cls,
        path: str | os.PathLike[str],
        q_id_col: str = "q_id",
        doc_id_col: str = "doc_id",
        score_col: str = "score",
        name: str | None = None,
    ) -> Qrels:
        """From a Parquet file with ranx's column names by default."""
        pandas = require("pandas", "Qrels.from_parquet")
        return cls.from_df(pandas.read_parquet(path), q_id_col, doc_id_col, score_col, name)

    def add(self, q_id: str, doc_ids: Sequence[str], scores: Sequence[int]) -> None:
        """Add (or replace) the judgments of one query."""
        self.add_multi([q_id], [doc_ids], [scores])

    def add_multi(
        self,
        q_ids: Sequence[str],
        doc_ids: Sequence[Sequence[str]],
        scores: Sequence[Sequence[int]],
    ) -> None:
        """Add (or replace) the judgments of several queries."""
        merged = self.to_dict()
        for q_id, docs, values in zip(q_ids, doc_ids, scores, strict=True):
            merged[q_id] = dict(zip(docs, values, strict=True))
        self._data = _Qrels.from_dict(merged)

    def keys(self) -> list[str]:
        """The query ids, sorted (ranx's order)."""
        return sorted(self._data.qids) if self._data is not None else []

    get_query_ids = keys

    def to_dict(self) -> dict[str, dict[str, int]]:
        """``{q_id: {doc_id: relevance}}``."""
        return self._data.to_dict() if self._data is not None else {}

    def to_dataframe(self) -> Any:
        """A pandas DataFrame with ranx's columns ``q_id``, ``doc_id``, ``score``."""
        rows = [(q, d, r) for q, docs in self.to_dict().items() for d, r in docs.items()]
        return _frame(rows, "Qrels.to_dataframe")

    def save(self, path: str | os.PathLike[str] = "qrels.json", kind: str | None = None) -> None:
        """Write JSON, TREC qrels or Parquet (by extension unless ``kind`` says)."""
        chosen = _file_kind(path, kind)
        if chosen == "json":
            with open(path, "w", encoding="utf-8") as handle:
                json.dump(self.to_dict(), handle)
        elif chosen == "parquet":
            self.to_dataframe().to_parquet(path, index=False)
        else:
            self.data.write(path)

    @property
    def size(self) -> int:
        """The number of queries."""
        return len(self.keys())

    def __len__(self) -> int:
        return len(self.keys())

    def __getitem__(self, q_id: str) -> dict[str, int]:
        return self.to_dict()[q_id]

    def __repr__(self) -> str:
        return repr(self.to_dict())


class Run:
    """A run, as ranx's ``Run``: ``Run({q_id: {doc_id: score}}, name="bm25")``.

    :func:`evaluate` stores its results in :attr:`scores` (``{metric: {q_id: value}}``) and
    :attr:`mean_scores` (``{metric: mean}``), as ranx does; the run's documents are never
    changed (ranx's ``make_comparable`` edits the run; here it only chooses the queries).

    Examples
    --------
    >>> run = Run({"q_1": {"d_1": 0.5, "d_2": 0.9}}, name="bm25")
    >>> run.to_dict()  # ranked, as ranx keeps it
    {'q_1': {'d_2': 0.9, 'd_1': 0.5}}
    """

    def __init__(
        self, run: Mapping[str, Mapping[str, float]] | _Run | None = None, name: str | None = None
    ) -> None:
        if isinstance(run, _Run):
            self.data = run
        else:
            self.data = _run_from_dict(run if run is not None else {}, name or "run")
        self.name = name
        self.metadata: dict[str, Any] = {}
        self.scores: defaultdict[str, dict[str, float]] = defaultdict(dict)
        self.mean_scores: dict[str, float] = {}
        self.std_scores: dict[str, float] = {}

    @classmethod
    def from_dict(cls, d: Mapping[str, Mapping[str, float]], name: str | None = None) -> Run:
        """``Run(d, name)``."""
        return cls(d, name)

    @classmethod
    def from_file(
        cls, path: str | os.PathLike[str], kind: str | None = None, name: str | None = None
    ) -> Run:
        """Read a TREC run (``.gz`` too), ranx's JSON or Parquet; the name defaults to the
        TREC file's tag, as in ranx."""
        chosen = _file_kind(path, kind)
        if chosen == "json":
            return cls(_read_json(path), name)
        if chosen == "parquet":
            return cls.from_parquet(path, name=name)
        data = _Run.from_file(path)
        return cls(data, name if name is not None else data.name)

    @classmethod
    def from_df(
        cls,
        df: Any,
        q_id_col: str = "q_id",
        doc_id_col: str = "doc_id",
        score_col: str = "score",
        name: str | None = None,
    ) -> Run:
        """From a pandas (or polars) DataFrame with ranx's column names by default."""
        return cls(_Run.from_frame(df, name or "run", q_id_col, doc_id_col, score_col), name)

    @classmethod
    def from_parquet(
        cls,
        path: str | os.PathLike[str],
        q_id_col: str = "q_id",
        doc_id_col: str = "doc_id",
        score_col: str = "score",
        name: str | None = None,
    ) -> Run:
        """From a Parquet file with ranx's column names by default."""
        pandas = require("pandas", "Run.from_parquet")
        return cls.from_df(pandas.read_parquet(path), q_id_col, doc_id_col, score_col, name)

    def add(self, q_id: str, doc_ids: Sequence[str], scores: Sequence[float]) -> None:
        """Add (or replace) the documents of one query."""
        self.add_multi([q_id], [doc_ids], [scores])

    def add_multi(
        self,
        q_ids: Sequence[str],
        doc_ids: Sequence[Sequence[str]],
        scores: Sequence[Sequence[float]],
    ) -> None:
        """Add (or replace) the documents of several queries."""
        merged: dict[str, dict[str, float]] = self.data.to_dict()
        for q_id, docs, values in zip(q_ids, doc_ids, scores, strict=True):
            merged[q_id] = {d: float(s) for d, s in zip(docs, values, strict=True)}
        self.data = _Run.from_dict(merged, self.data.name)

    def keys(self) -> list[str]:
        """The query ids, sorted (ranx's order)."""
        return sorted(self.data.qids)

    get_query_ids = keys

    def to_dict(self, ties: TiePolicy = "trec_eval") -> dict[str, dict[str, float]]:
        """``{q_id: {doc_id: score}}``, each query's documents in ranked order (equal scores
        by ``ties``)."""
        run = self.data
        order = run.ranking(_check_ties(ties))
        docs = run.docids()
        scores = run.scores.tolist()
        bounds = run.q_offsets.tolist()
        out: dict[str, dict[str, float]] = {}
        for j, qid in enumerate(run.qids):
            rows = order[bounds[j] : bounds[j + 1]].tolist()
            out[qid] = {docs[i]: scores[i] for i in rows}
        return out

    def to_dataframe(self) -> Any:
        """A pandas DataFrame with ranx's columns ``q_id``, ``doc_id``, ``score``."""
        rows = [(q, d, s) for q, docs in self.to_dict().items() for d, s in docs.items()]
        return _frame(rows, "Run.to_dataframe")

    def save(self, path: str | os.PathLike[str] = "run.json", kind: str | None = None) -> None:
        """Write JSON, a TREC run (``q_id Q0 doc_id rank score name``) or Parquet."""
        chosen = _file_kind(path, kind)
        if chosen == "json":
            with open(path, "w", encoding="utf-8") as handle:
                json.dump(self.to_dict(), handle)
        elif chosen == "parquet":
            self.to_dataframe().to_parquet(path, index=False)
        else:
            self.data.write(path, name=self.name or "run")

    @property
    def size(self) -> int:
        """The number of queries."""
        return len(self.data.qids)

    def __len__(self) -> int:
        return len(self.data.qids)

    def __getitem__(self, q_id: str) -> dict[str, float]:
        return self.to_dict()[q_id]

    def __repr__(self) -> str:
        return repr(self.to_dict())


QrelsLike = Qrels | _Qrels | Mapping[str, Mapping[str, int]]
RunLike = Run | _Run | Mapping[str, Mapping[str, float]]


def _qrels_data(qrels: QrelsLike) -> _Qrels:
    if isinstance(qrels, Qrels):
        return qrels.data
    if isinstance(qrels, _Qrels):
        return qrels
    if isinstance(qrels, Mapping):
        return _qrels_from_dict(qrels)
    raise OptionError(f"qrels must be a Qrels or a {{q_id: {{doc_id: int}}}} dict, not {qrels!r}")


def _run_data(run: RunLike) -> _Run:
    if isinstance(run, Run):
        return run.data
    if isinstance(run, _Run):
        return run
    if isinstance(run, Mapping):
        return _run_from_dict(run, "run")
    raise OptionError(f"run must be a Run or a {{q_id: {{doc_id: score}}}} dict, not {run!r}")


def _metric_names(metrics: Iterable[str] | str) -> list[str]:
    names = [metrics] if isinstance(metrics, str) else list(metrics)
    if not names or not all(isinstance(m, str) for m in names):
        raise OptionError(f"metrics must be a metric name or a list of names, not {metrics!r}")
    return names


def _per_query(
    qrels: _Qrels, run: _Run, names: list[str], make_comparable: bool, ties: TiePolicy
) -> tuple[list[str], Float64Array]:
    """The sorted evaluated query ids and their (queries x metrics) values."""
    from ranklens.evaluation.evaluator import evaluate as evaluate_run

    if not make_comparable and set(qrels.qids) != set(run.qids):
        only_qrels = sorted(set(qrels.qids) - set(run.qids))[:3]
        only_run = sorted(set(run.qids) - set(qrels.qids))[:3]
        raise InputError(
            f"qrels and run query ids do not match (only in the qrels: {only_qrels}, only in "
            f"the run: {only_run}); pass make_comparable=True to score the queries missing "
            "from the run 0 and leave out the run's queries the qrels do not judge"
        )
    measures = [translate(name) or name for name in names]
    results = evaluate_run(qrels, run, measures, ties=_check_ties(ties), queries="qrels")
    order = sorted(range(len(results.queries)), key=results.queries.__getitem__)
    return [results.queries[i] for i in order], results.values[order]


def evaluate(
    qrels: QrelsLike,
    run: RunLike,
    metrics: Iterable[str] | str,
    return_mean: bool = True,
    return_std: bool = False,
    threads: int = 0,
    save_results_in_run: bool = True,
    make_comparable: bool = False,
    *,
    ties: TiePolicy = "trec_eval",
) -> Any:
    """ranx's ``evaluate``: the mean of each metric over the qrels' queries.

    Parameters
    ----------
    qrels, run
        :class:`Qrels` and :class:`Run` (or ``{q_id: {doc_id: value}}`` dicts, or ranklens'
        own ``Qrels`` and ``Run``).
    metrics
        A ranx metric name (``"ndcg@10"``) or a list of them; ranklens names work too.
    return_mean
        The means (default), or, when false, each metric's per-query values as an array in
        sorted query order (ranx's).
    return_std
        With ``return_mean``: ``{"mean": ..., "std": ...}`` for each metric.
    threads
        Accepted for ranx's signature; ranklens' evaluation needs no threads setting.
    save_results_in_run
        Store the values in ``run.scores`` and ``run.mean_scores`` when ``run`` is a
        :class:`Run` (as ranx does).
    make_comparable
        Score the qrels' queries missing from the run 0 and leave out the run's queries the
        qrels do not judge; otherwise the two must have the same queries (ranx's rule).
    ties
        How equal scores are ordered (the one intended difference from ranx, whose order of
        ties is arbitrary): ``"trec_eval"`` (default: document id descending) or
        ``"input"`` (the order of the dict or file, ranx's wherever ranx's is stable).

    Returns
    -------
    float, dict or numpy.ndarray
        A float for one metric, ``{metric: float}`` for several (ranx's shapes).

    Raises
    ------
    InputError
        The qrels and the run have different queries and ``make_comparable`` is false.
    """
    names = _metric_names(metrics)
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 0:
        raise OptionError(f"threads must be a non-negative integer, not {threads!r}")
    qids, values = _per_query(_qrels_data(qrels), _run_data(run), names, make_comparable, ties)
    if isinstance(run, Run) and save_results_in_run:
        for j, name in enumerate(names):
            column = values[:, j]
            run.mean_scores[name] = float(np.mean(column))
            if return_std:
                run.std_scores[name] = float(np.std(column))
            run.scores[name] = dict(zip(qids, column.tolist(), strict=True))
    out: dict[str, Any] = {}
    for j, name in enumerate(names):
        column = values[:, j].copy()
        if not return_mean:
            out[name] = column
        elif return_std:
            out[name] = {"mean": float(np.mean(column)), "std": float(np.std(column))}
        else:
            out[name] = float(np.mean(column))
    return out[names[0]] if len(names) == 1 else out


# ----------------------------------------------------------------------------- compare

_CHARS = "abcdefghijklmnopqrstuvwxyz"
_SUPERSCRIPTS = "ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖ۹ʳˢᵗᵘᵛʷˣʸᶻ"
_LABELS = {
    "hits": "Hits",
    "hit_rate": "Hit Rate",
    "precision": "P",
    "recall": "Recall",
    "f1": "F1",
    "r-precision": "R-Prec",
    "mrr": "MRR",
    "map": "MAP",
    "dcg": "DCG",
    "dcg_burges": "DCG Burges",
    "ndcg": "NDCG",
    "ndcg_burges": "NDCG Burges",
    "bpref": "BPref",
}
_TEST_LABELS = {
    "fisher": "Fisher's randomization test",
    "student": "paired Student's t-test",
    "tukey": "Tukey's HSD test",
}


def _label(metric: str) -> str:
    """ranx's column header of a metric (``ndcg@10`` is ``NDCG@10``)."""
    base, _, level = metric.partition("-l")
    name, at, cutoff = base.partition("@")
    label = name.upper() if name.startswith("rbp.") else _LABELS.get(name, name)
    text = f"{label}@{cutoff}" if at else label
    return f"{text}-l{level}" if level else text


class Report:
    """The outcome of :func:`compare`, shaped as ranx's ``Report``.

    Attributes
    ----------
    model_names
        The runs' names, in the order given.
    results
        ``{model: {metric: mean}}``.
    comparisons
        ``{frozenset({model_a, model_b}): {metric: {"p_value": p, "significant": bool}}}``.
    win_tie_loss
        ``{(model_a, model_b): {metric: {"W": .., "T": .., "L": ..}}}``: queries where
        ``model_a`` scores higher, the same, lower.
    """

    def __init__(
        self,
        model_names: list[str],
        results: dict[str, dict[str, float]],
        comparisons: dict[frozenset[str], dict[str, dict[str, Any]]],
        metrics: list[str],
        max_p: float,
        win_tie_loss: dict[tuple[str, str], dict[str, dict[str, int]]],
        rounding_digits: int = 3,
        show_percentages: bool = False,
        stat_test: str = "student",
    ) -> None:
        self.model_names = model_names
        self.results = results
        self.comparisons = comparisons
        self.metrics = metrics
        self.max_p = max_p
        self.win_tie_loss = win_tie_loss
        self.rounding_digits = rounding_digits
        self.show_percentages = show_percentages
        self.stat_test = stat_test

    def format_score(self, score: float) -> str:
        """A mean as shown: ``rounding_digits`` decimals, or a percentage with two fewer."""
        if self.show_percentages:
            digits = max(0, self.rounding_digits - 2)
            return f"{round(score * 100, digits):.{digits}f}"
        return f"{round(score, self.rounding_digits):.{self.rounding_digits}f}"

    def _better_than(self, model: str, metric: str) -> list[int]:
        """Positions of the models ``model`` beats significantly on ``metric``."""
        mine = self.results[model][metric]
        return [
            j
            for j, other in enumerate(self.model_names)
            if other != model
            and self.comparisons[frozenset((model, other))][metric]["significant"]
            and mine > self.results[other][metric]
        ]

    def to_table(self) -> str:
        """ranx's plain-text table (superscripts: the runs this one beats significantly)."""
        rows = []
        for i, model in enumerate(self.model_names):
            cells = [_CHARS[i], model]
            for metric in self.metrics:
                marks = "".join(_SUPERSCRIPTS[j] for j in self._better_than(model, metric))
                cells.append(self.format_score(self.results[model][metric]) + marks)
            rows.append(cells)
        return _tabulate(rows, ["#", "Model", *(_label(m) for m in self.metrics)])

    def to_latex(self) -> str:
        """ranx's LaTeX table (booktabs), best scores in bold, superscripts as letters."""
        best: dict[str, str | None] = {}
        for metric in self.metrics:
            best_model, best_score = None, 0.0
            for model in self.model_names:
                rounded = round(self.results[model][metric], self.rounding_digits)
                if best_score < rounded:
                    best_model, best_score = model, rounded
            best[metric] = best_model
        preamble = (
            "========================\n% Add in preamble\n\\usepackage{graphicx}\n"
            "\\usepackage{booktabs}\n========================\n\n"
        )
        head = (
            "% To change the table size, act on the resizebox argument `0.8`.\n"
            "\\begin{table*}[ht]\n\\centering\n\\caption{\nOverall effectiveness of the models.\n"
            "The best results are highlighted in boldface.\n"
            "Superscripts denote significant differences in "
            f"{_TEST_LABELS[self.stat_test]} with $p \\le {self.max_p}$.\n}}\n"
            "\\resizebox{0.8\\textwidth}{!}{\n\\begin{tabular}{c|l"
            + "|c" * len(self.metrics)
            + "}\n\\toprule\n\\textbf{\\#}\n& \\textbf{Model}"
            + "".join(f"\n& \\textbf{{{_label(m)}}}" for m in self.metrics)
            + " \\\\ \n\\midrule"
        )
        rows = []
        for i, model in enumerate(self.model_names):
            cells = []
            for metric in self.metrics:
                score = self.format_score(self.results[model][metric])
                if best[metric] == model:
                    score = f"\\textbf{{{score}}}"
                wins = set(self._better_than(model, metric))
                marks = "".join(_CHARS[j] for j in sorted(wins))
                phantoms = "".join(
                    _CHARS[j]
                    for j, other in enumerate(self.model_names)
                    if other != model and j not in wins
                )
                cells.append(f"{score}$^{{{marks}}}$\\hphantom{{$^{{{phantoms}}}$}} &")
            cells[-1] = cells[-1][:-1]
            rows.append(f"{_CHARS[i]} &\n{model} &\n" + "\n".join(cells) + "\\\\")
        body = "\n".join(rows).replace("_", "\\_").replace("$^{}$", "")
        tail = "\\bottomrule\n\\end{tabular}\n}\n\\label{tab:results}\n\\end{table*}"
        return preamble + "\n" + head + "\n" + body + "\n" + tail

    def to_dict(self) -> dict[str, Any]:
        """ranx's dict: ``stat_test``, ``metrics``, ``model_names``, then for each model its
        ``scores``, ``comparisons`` (p-values against each other model) and
        ``win_tie_loss``."""
        out: dict[str, Any] = {
            "stat_test": self.stat_test,
            "metrics": self.metrics,
            "model_names": self.model_names,
        }
        for a in self.model_names:
            p_values: dict[str, dict[str, float]] = {}
            wtl: dict[str, dict[str, dict[str, int]]] = {}
            for b in self.model_names:
                if a != b:
                    pair = self.comparisons[frozenset((a, b))]
                    p_values[b] = {m: pair[m]["p_value"] for m in self.metrics}
                    wtl[b] = {m: self.win_tie_loss[(a, b)][m] for m in self.metrics}
            out[a] = {"scores": self.results[a], "comparisons": p_values, "win_tie_loss": wtl}
        return out

    def to_dataframe(self) -> Any:
        """A pandas DataFrame: a ``model_names`` column, then one column per metric."""
        pandas = require("pandas", "Report.to_dataframe")
        rows = [{"model_names": m, **self.results[m]} for m in self.model_names]
        return pandas.DataFrame(rows, columns=["model_names", *self.metrics])

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write :meth:`to_dict` as indented JSON."""
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(json.dumps(self.to_dict(), indent=4))

    def __repr__(self) -> str:
        return self.to_table()

    def __str__(self) -> str:
        return self.to_table()


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _tabulate(rows: list[list[str]], headers: list[str]) -> str:
    """The ``tabulate`` package's default ("simple") layout, as ranx prints it: a column of
    numbers is shown in ``g`` format and aligned on the decimal point, any other column is
    left-aligned; columns at least two wider than their header, two spaces between them,
    dashes under the headers."""
    columns = [list(col) for col in zip(*rows, strict=True)] if rows else [[] for _ in headers]
    shown: list[list[str]] = []
    for col in columns:
        if col and all(_is_number(c) for c in col):
            text = [format(float(c), "g") for c in col]
            whole = [len(t.split(".")[0]) if "." in t else len(t) for t in text]
            frac = [len(t) - w for t, w in zip(text, whole, strict=True)]
            width_w, width_f = max(whole), max(frac)
            text = [
                " " * (width_w - w) + t + " " * (width_f - f)
                for t, w, f in zip(text, whole, frac, strict=True)
            ]
            shown.append(text)
        else:
            shown.append(list(col))
    widths = [
        max([len(h) + 2] + [len(c) for c in col]) for h, col in zip(headers, shown, strict=True)
    ]
    numeric = [bool(col) and all(_is_number(c) for c in col) for col in columns]

    def line(cells: Sequence[str], right: Sequence[bool]) -> str:
        parts = [
            c.rjust(w) if r else c.ljust(w) for c, w, r in zip(cells, widths, right, strict=True)
        ]
        return "  ".join(parts).rstrip()

    out = [line(headers, numeric), "  ".join("-" * w for w in widths)]
    out += [line([col[i] for col in shown], numeric) for i in range(len(rows))]
    return "\n".join(out)


def _significance(
    names: list[str],
    values: dict[str, Float64Array],
    metrics: list[str],
    stat_test: str,
    n_permutations: int,
    max_p: float,
    random_seed: int,
) -> dict[frozenset[str], dict[str, dict[str, Any]]]:
    """ranx's comparisons dict, with ranklens' tests."""
    from ranklens.analysis.stats.paired_tests import t_test
    from ranklens.analysis.stats.randomization import randomization_test
    from ranklens.analysis.stats.tukey import tukey_hsd

    out: dict[frozenset[str], dict[str, dict[str, Any]]] = {}
    if stat_test == "tukey":
        for j, metric in enumerate(metrics):
            table = np.column_stack([values[n][:, j] for n in names])
            p = tukey_hsd(table).p_value
            for a, name_a in enumerate(names):
                for b, name_b in enumerate(names):
                    p_ab = float(p[a, b])
                    entry = {"p_value": p_ab, "significant": bool(p_ab <= max_p)}
                    out.setdefault(frozenset((name_a, name_b)), {})[metric] = entry
        return out
    for a, name_a in enumerate(names):
        for name_b in names[a + 1 :]:
            diffs = values[name_a] - values[name_b]
            if stat_test == "student":
                p_values = t_test(diffs).p_value
            else:
                p_values = randomization_test(diffs, n_permutations, random_seed).p_value
            out[frozenset((name_a, name_b))] = {
                m: {"p_value": float(p_values[j]), "significant": bool(p_values[j] <= max_p)}
                for j, m in enumerate(metrics)
            }
    return out


def compare(
    qrels: QrelsLike,
    runs: Sequence[RunLike],
    metrics: Iterable[str] | str,
    stat_test: str = "student",
    n_permutations: int = 1000,
    max_p: float = 0.01,
    random_seed: int = 42,
    threads: int = 0,
    rounding_digits: int = 3,
    show_percentages: bool = False,
    make_comparable: bool = False,
    *,
    ties: TiePolicy = "trec_eval",
) -> Report:
    """ranx's ``compare``: evaluate ``runs`` and test every pair of them.

    Parameters
    ----------
    qrels, runs
        The qrels and a list of runs (named by their ``name``, else ``run_1``, ``run_2``...).
    metrics
        ranx metric names (or ranklens names).
    stat_test
        ``"student"`` (paired t-test, default), ``"fisher"`` (paired randomization test
        with ``n_permutations`` sign flips seeded by ``random_seed``) or ``"tukey"``
        (Tukey's HSD, one-way, as :func:`scipy.stats.tukey_hsd`). The p-values are not
        corrected for multiple comparisons (ranx's); :func:`ranklens.compare` corrects them.
    max_p
        A difference is significant when its p-value is at most ``max_p``.
    threads
        Accepted for ranx's signature.
    rounding_digits, show_percentages
        How the report shows the means.
    make_comparable, ties
        As for :func:`evaluate`.

    Returns
    -------
    Report
    """
    if stat_test not in _TEST_LABELS:
        raise OptionError(f"stat_test must be one of {list(_TEST_LABELS)}, not {stat_test!r}")
    if isinstance(runs, Run | _Run | Mapping) or len(runs) < 2:
        raise OptionError("compare needs a list of at least two runs")
    if not 0 < max_p <= 1:
        raise OptionError(f"max_p must be in (0, 1], not {max_p!r}")
    names = _metric_names(metrics)
    qrels_data = _qrels_data(qrels)
    model_names: list[str] = []
    values: dict[str, Float64Array] = {}
    for i, run in enumerate(runs):
        given = run.name if isinstance(run, Run) else None
        model = given if given is not None else f"run_{i + 1}"
        if model in values:
            raise OptionError(f"two runs are named {model!r}; give each run its own name")
        model_names.append(model)
        _, values[model] = _per_query(qrels_data, _run_data(run), names, make_comparable, ties)
    results = {
        model: {m: float(np.mean(values[model][:, j])) for j, m in enumerate(names)}
        for model in model_names
    }
    comparisons = _significance(
        model_names, values, names, stat_test, n_permutations, max_p, random_seed
    )
    win_tie_loss: dict[tuple[str, str], dict[str, dict[str, int]]] = {}
    for a in model_names:
        for b in model_names:
            if a != b:
                win_tie_loss[(a, b)] = {
                    m: {
                        "W": int(np.sum(values[a][:, j] > values[b][:, j])),
                        "T": int(np.sum(values[a][:, j] == values[b][:, j])),
                        "L": int(np.sum(values[a][:, j] < values[b][:, j])),
                    }
                    for j, m in enumerate(names)
                }
    return Report(
        model_names,
        results,
        comparisons,
        names,
        max_p,
        win_tie_loss,
        rounding_digits,
        show_percentages,
        stat_test,
    )


# ----------------------------------------------------------------------------- fuse


def fuse(
    runs: Sequence[RunLike],
    norm: str | None = "min-max",
    method: str = "wsum",
    params: Mapping[str, Any] | None = None,
    *,
    ties: TiePolicy = "trec_eval",
) -> Run:
    """ranx's ``fuse``: normalise each run's scores, then combine them with ``method``.

    Parameters
    ----------
    runs
        Two or more runs with the same queries (ranx's rule).
    norm
        ranx's normalisations: ``"min-max"`` (default), ``"max"``, ``"sum"``, ``"zmuv"``,
        ``"rank"``, ``"borda"``, or ``None``.
    method
        ranx's method names: ``"wsum"`` (default), ``"rrf"``, ``"sum"``, ``"mnz"``,
        ``"max"``, ``"min"``, ``"med"``, ``"anz"``, ``"gmnz"``, ``"isr"``, ``"log_isr"``,
        ``"logn_isr"``, ``"bordafuse"``, ``"w_bordafuse"``, ``"condorcet"``,
        ``"w_condorcet"``, ``"mixed"``, ``"rbc"``, ``"posfuse"``, ``"probfuse"``,
        ``"segfuse"``, ``"slidefuse"``, ``"bayesfuse"``, ``"mapfuse"`` (see
        :func:`ranklens.fuse`).
    params
        The method's parameters as ranx takes them (``{"weights": [...]}``, ``{"k": 60}``,
        ``{"phi": 0.8}``, ...); ``wsum`` without weights weighs the runs equally.
    ties
        How equal scores are ranked before rank-based methods read ranks (ranklens'
        deterministic order; ranx's is arbitrary).

    Returns
    -------
    Run
        The fused run.
    """
    from ranklens.fusion import fuse as fuse_runs

    if isinstance(runs, Run | _Run | Mapping) or len(runs) < 2:
        raise OptionError("fuse needs a list of at least two runs")
    data = [_run_data(r) for r in runs]
    first = set(data[0].qids)
    for i, other in enumerate(data[1:], start=1):
        if set(other.qids) != first:
            raise InputError(f"runs 0 and {i} have different query ids; ranx fuses runs that do")
    chosen = dict(params or {})
    weights = chosen.pop("weights", None)
    name = chosen.pop("name", None)
    fused = fuse_runs(
        data,
        method,
        norm="none" if norm is None else norm,
        weights=weights,
        params=chosen,
        ties=_check_ties(ties),
    )
    default = "weighted_sum" if fused.name == "wsum" else fused.name  # ranx's names
    return Run(fused, name if name is not None else default)
