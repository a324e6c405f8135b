r"""How far two sets of relevance judgments agree: Cohen's kappa, Krippendorff's alpha,
the confusion matrix of grades and the Jaccard index of the relevant sets.

The two sets (say, human and LLM judgments) are ordinary qrels. Only the (query, document)
pairs judged in **both** are compared; a pair judged by one side alone is not a
disagreement and is counted apart (:attr:`Agreement.only_a`, :attr:`Agreement.only_b`).
A negative grade means "in the pool but not judged" (trec_eval's convention): such a pair
counts as not judged on that side.

With ``rel=None`` the grades themselves are compared; with ``rel=r`` each grade is first
made binary (relevant when ``grade >= r``). The numbers, for :math:`N` common pairs
:math:`(a_i, b_i)` over the grades :math:`g_1 < \dots < g_K`:

* **Cohen's kappa** :math:`\kappa = 1 - \sum_{jk} w_{jk} O_{jk} / \sum_{jk} w_{jk} E_{jk}`,
  with :math:`O` the confusion matrix, :math:`E_{jk} = O_{j\cdot} O_{\cdot k} / N` and the
  weights :math:`w_{jk} = [j \ne k]` (``kappa``), :math:`|g_j - g_k|` (``kappa_linear``) or
  :math:`(g_j - g_k)^2` (``kappa_quadratic``). The weights are distances between **grade
  values**, so a grade no one used still counts as a step between its neighbours: this
  equals :func:`sklearn.metrics.cohen_kappa_score` given ``labels`` = every integer from
  the lowest to the highest grade (scikit-learn's default, the observed labels only,
  measures distances in positions instead when a grade in between is never used). The
  sums run over the grades that occur (a grade no pair has adds a zero row and column),
  so a grade of :math:`10^{12}` costs no more than a grade of 3; the distances are taken
  between the integers themselves, exact for every grade up to :math:`2^{63} - 1`.
* **Krippendorff's alpha** :math:`\alpha = 1 - (n - 1) \sum_{ck} o_{ck}\,\delta^2_{ck} /
  \sum_{ck} n_c n_k\,\delta^2_{ck}`, with the coincidence matrix :math:`o` (each pair adds
  :math:`(a_i, b_i)` and :math:`(b_i, a_i)`), :math:`n_c = \sum_k o_{ck}`, :math:`n = 2N`,
  and :math:`\delta^2_{ck}` nominal (:math:`[c \ne k]`), ordinal
  (:math:`(\sum_{g=c}^{k} n_g - (n_c + n_k)/2)^2`) or interval (:math:`(c - k)^2`)
  (``alpha_nominal``, ``alpha_ordinal``, ``alpha_interval``), as the ``krippendorff``
  package computes them.
* **Jaccard** :math:`|A \cap B| / |A \cup B|` of the pairs each side calls relevant
  (``grade >= rel``, 1 when ``rel`` is not given), among the common pairs.
* ``agreement``: the share of common pairs with the same (binarised) grade.

A statistic whose denominator is 0 (a single grade used by both sides, no relevant pair)
is nan, as is every statistic of a query without common pairs. At most :data:`MAX_GRADES`
distinct grades are compared (more is refused with an :class:`InputError`: binarise
them with ``rel``).

References
----------
Cohen (1968). Weighted kappa. Psychological Bulletin 70(4).
Krippendorff (2011). Computing Krippendorff's alpha-reliability. Annenberg School for
Communication Departmental Papers.

Examples
--------
>>> a = {"q1": {"d1": 2, "d2": 0, "d3": 1}, "q2": {"d4": 1, "d5": 0}}
>>> b = {"q1": {"d1": 2, "d2": 1, "d3": 1}, "q2": {"d4": 1, "d6": 1}}
>>> res = agreement(a, b)
>>> res.pairs, res.only_a, res.only_b
(4, 1, 1)
>>> round(res["kappa"], 4), round(res["alpha_nominal"], 4), res["jaccard"]
(0.5556, 0.5882, 0.75)
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ranklens.analysis.named_numbers import NamedNumbers
from ranklens.base.errors import InputError, OptionError
from ranklens.base.types import Float64Array, Int64Array
from ranklens.data.coerce import QrelsLike, as_qrels
from ranklens.data.qrels import Qrels

STATISTICS = (
    "kappa",
    "kappa_linear",
    "kappa_quadratic",
    "alpha_nominal",
    "alpha_ordinal",
    "alpha_interval",
    "jaccard",
    "agreement",
)
"""The names of the numbers :func:`agreement` gives, in the order it gives them."""

MAX_GRADES = 1024
"""The most distinct grades :func:`agreement` compares (its confusion matrix and the
weight matrices have a row and a column per grade that occurs)."""


@dataclass(frozen=True)
class Agreement(NamedNumbers[float]):
    """The agreement of two sets of judgments: a mapping ``{statistic: value}``
    (:data:`STATISTICS`) with the counts and the confusion matrix beside it."""

    numbers: dict[str, float]
    """``{statistic: value}``, what the mapping holds."""
    pairs: int
    """Pairs judged (with a grade of 0 or more) in both sets."""
    only_a: int
    """Pairs judged in the first set only."""
    only_b: int
    """Pairs judged in the second set only."""
    grades: tuple[int, ...]
    """The grades of the confusion matrix's rows and columns: those that occur in a common
    pair, ascending (binarised: ``(0, 1)``)."""
    confusion: Int64Array
    """``confusion[j, k]``: common pairs graded ``grades[j]`` by A and ``grades[k]`` by B."""
    rel: int | None = None
    """The binarising threshold, or ``None`` when grades were compared as they are."""
    per_query: dict[str, Agreement] = field(default_factory=dict)
    """Per query (every query judged in either set), when asked for with ``per_query=True``."""

    def __repr__(self) -> str:
        shown = ", ".join(f"{k}={v:.4f}" for k, v in self.numbers.items())
        return f"Agreement({shown}; pairs={self.pairs}, only_a={self.only_a}, only_b={self.only_b})"


def agreement(
    qrels_a: QrelsLike,
    qrels_b: QrelsLike,
    *,
    rel: int | None = None,
    per_query: bool = False,
) -> Agreement:
    """Compare two sets of judgments over the (query, document) pairs judged in both.

    Parameters
    ----------
    qrels_a, qrels_b
        Judgments in any form :func:`ranklens.evaluate` reads (paths, dicts, frames ...).
    rel
        ``None`` (default) to compare grades; an integer to compare "relevant"
        (``grade >= rel``) against "not relevant" instead. It is also the threshold of the
        Jaccard index (1 when ``None``).
    per_query
        Also compute every statistic per query (:attr:`Agreement.per_query`).

    Returns
    -------
    Agreement
        ``{statistic: value}`` for every name in :data:`STATISTICS`, with the counts.
    """
    if rel is not None and (isinstance(rel, bool) or not isinstance(rel, int | np.integer)):
        raise OptionError(f"rel must be an integer grade or None, not {rel!r}")
    a = as_qrels(qrels_a)
    b = as_qrels(qrels_b)
    joined = _join(a, b)
    threshold = 1 if rel is None else int(rel)
    overall = _agreement_of(
        joined.grade_a, joined.grade_b, joined.only_a, joined.only_b, rel, threshold
    )
    if not per_query:
        return overall
    queries: dict[str, Agreement] = {}
    for index, qid in enumerate(joined.qids):
        mine = joined.query == index
        queries[qid] = _agreement_of(
            joined.grade_a[mine],
            joined.grade_b[mine],
            int(joined.only_a_per_query[index]),
            int(joined.only_b_per_query[index]),
            rel,
            threshold,
        )
    return Agreement(
        overall.numbers,
        overall.pairs,
        overall.only_a,
        overall.only_b,
        overall.grades,
        overall.confusion,
        rel,
        queries,
    )


@dataclass(frozen=True)
class _Joined:
    qids: tuple[str, ...]
    query: Int64Array  # query index of each common pair
    grade_a: Int64Array
    grade_b: Int64Array
    only_a: int
    only_b: int
    only_a_per_query: Int64Array
    only_b_per_query: Int64Array


def judged_pairs(qrels: Qrels) -> dict[tuple[str, str], int]:
    """``{(qid, docid): grade}`` of the judged pairs (grade >= 0)."""
    docids = qrels.docids()
    rels = qrels.rels.tolist()
    out: dict[tuple[str, str], int] = {}
    for index, qid in enumerate(qrels.qids):
        start, stop = int(qrels.q_offsets[index]), int(qrels.q_offsets[index + 1])
        for entry in range(start, stop):
            if rels[entry] >= 0:
                out[(qid, docids[entry])] = rels[entry]
    return out


def _join(a: Qrels, b: Qrels) -> _Joined:
    judged_a = judged_pairs(a)
    judged_b = judged_pairs(b)
    qids = tuple(sorted(set(a.qids) | set(b.qids), key=lambda q: q.encode("utf-8")))
    position = {qid: i for i, qid in enumerate(qids)}
    query: list[int] = []
    grade_a: list[int] = []
    grade_b: list[int] = []
    only_a = np.zeros(len(qids), dtype=np.int64)
    only_b = np.zeros(len(qids), dtype=np.int64)
    for key, grade in judged_a.items():
        other = judged_b.get(key)
        if other is None:
            only_a[position[key[0]]] += 1
        else:
            query.append(position[key[0]])
            grade_a.append(grade)
            grade_b.append(other)
    for key in judged_b:
        if key not in judged_a:
            only_b[position[key[0]]] += 1
    return _Joined(
        qids,
        np.asarray(query, dtype=np.int64),
        np.asarray(grade_a, dtype=np.int64),
        np.asarray(grade_b, dtype=np.int64),
        int(only_a.sum()),
        int(only_b.sum()),
        only_a,
        only_b,
    )


def _agreement_of(
    grade_a: Int64Array,
    grade_b: Int64Array,
    only_a: int,
    only_b: int,
    rel: int | None,
    threshold: int,
) -> Agreement:
    relevant_a = grade_a >= threshold
    relevant_b = grade_b >= threshold
    if rel is None:
        x, y = grade_a, grade_b
        grades = np.unique(np.concatenate((x, y)))  # the grades that occur, ascending
        if grades.size > MAX_GRADES:
            raise InputError(
                f"the two judgments use {grades.size} distinct grades; agreement compares at "
                f"most {MAX_GRADES} (its confusion matrix has a row and a column per grade): "
                "binarise them with rel= (--rel), or map them to fewer grades"
            )
    else:
        x, y = relevant_a.astype(np.int64), relevant_b.astype(np.int64)
        grades = np.arange(2, dtype=np.int64)
    confusion = np.zeros((grades.size, grades.size), dtype=np.int64)
    np.add.at(confusion, (np.searchsorted(grades, x), np.searchsorted(grades, y)), 1)
    union = int(np.count_nonzero(relevant_a | relevant_b))
    both = int(np.count_nonzero(relevant_a & relevant_b))
    pairs = int(x.size)
    out = {
        "kappa": _kappa(confusion, grades, "unweighted"),
        "kappa_linear": _kappa(confusion, grades, "linear"),
        "kappa_quadratic": _kappa(confusion, grades, "quadratic"),
        "alpha_nominal": _alpha(confusion, grades, "nominal"),
        "alpha_ordinal": _alpha(confusion, grades, "ordinal"),
        "alpha_interval": _alpha(confusion, grades, "interval"),
        "jaccard": both / union if union else float("nan"),
        "agreement": float(np.trace(confusion)) / pairs if pairs else float("nan"),
    }
    used = tuple(int(g) for g in grades)
    return Agreement(out, pairs, only_a, only_b, used, confusion, rel)


def _distances(grades: Int64Array) -> Float64Array:
    """``|g_j - g_k|`` for the grades (ascending, non-negative), computed in integers (the
    difference of two grades near 2**63 is exact, where their float64 values may be
    equal) and then made float64."""
    distance: Float64Array = np.abs(grades[:, None] - grades[None, :]).astype(np.float64)
    return distance


def _kappa(confusion: Int64Array, grades: Int64Array, weighting: str) -> float:
    total = float(confusion.sum())
    if total == 0:
        return float("nan")
    if weighting == "unweighted":
        weights = 1.0 - np.eye(grades.size)
    elif weighting == "linear":
        weights = _distances(grades)
    else:
        weights = _distances(grades) ** 2
    observed = confusion.astype(np.float64)
    expected = np.outer(observed.sum(axis=1), observed.sum(axis=0)) / total
    disagreement_expected = float((weights * expected).sum())
    if disagreement_expected == 0:
        return float("nan")
    return 1.0 - float((weights * observed).sum()) / disagreement_expected


def _alpha(confusion: Int64Array, grades: Int64Array, level: str) -> float:
    coincidence = (confusion + confusion.T).astype(np.float64)
    totals = coincidence.sum(axis=1)
    used = totals > 0
    coincidence = coincidence[np.ix_(used, used)]
    totals = totals[used]
    values = grades[used]
    n = float(totals.sum())
    if values.size < 2:
        return float("nan")
    if level == "nominal":
        delta = 1.0 - np.eye(values.size)
    elif level == "interval":
        delta = _distances(values) ** 2
    else:
        # sum of n_g for g from c to k (inclusive), minus (n_c + n_k) / 2: a grade that
        # occurs on neither side has n_g = 0 and changes nothing
        cumulative = np.cumsum(totals)
        high = np.maximum.outer(np.arange(values.size), np.arange(values.size))
        low = np.minimum.outer(np.arange(values.size), np.arange(values.size))
        between = cumulative[high] - cumulative[low] + totals[low]
        delta = (between - (totals[:, None] + totals[None, :]) / 2.0) ** 2
    expected = float((np.outer(totals, totals) * delta).sum())
    if expected == 0:
        return float("nan")
    return 1.0 - (n - 1.0) * float((coincidence * delta).sum()) / expected
