r"""Expected exposure (Diaz, Mitra, Ekstrand, Biega and Carterette, CIKM 2020) and the TREC
Fair Ranking 2022 attention-weighted rank fairness (AWRF), on plain Python containers.

Expected exposure compares the exposure a stochastic ranking policy gives each document,
averaged over its sampled rankings, with the exposure an ideal policy would give it
(documents of one grade share the positions of their grade equally):

- browsing model ``rbp``: the exposure at 0-based position :math:`i` is :math:`p^i`;
  ``gerr``: :math:`p^i (1 - u)^{r_i}`, where :math:`r_i` counts the relevant documents
  above position :math:`i` (patience :math:`p`, utility :math:`u`);
- target :math:`\epsilon^*_d`: for the grades in descending order, a grade held by
  :math:`m` documents with :math:`b` documents of higher grades gets, per document,
  :math:`(\gamma^b - \gamma^{b+m}) / (m (1 - \gamma))` with :math:`\gamma = p` (``rbp``),
  :math:`\gamma = p(1-u)` (``gerr``, relevant grades) and
  :math:`(1-u)^b (p^b - p^{b+m}) / (m (1 - p))` (``gerr``, grades of 0 and below);
- EE-D (disparity) :math:`\lVert\epsilon\rVert^2`, EE-R (relevance)
  :math:`\epsilon^\top\epsilon^*`, EE-L (loss, expeval's "difference")
  :math:`\lVert\epsilon - \epsilon^*\rVert^2 = \text{EE-D} - 2\,\text{EE-R} +
  \lVert\epsilon^*\rVert^2`, each normalised as :math:`(x - lo) / (hi - lo)` by bounds
  that depend on the setting (:func:`document_bounds`, :func:`group_bounds`).

The bounds come in two versions: ``fixed=False`` is what github.com/diazf/expeval computes
(its quirks, listed in docs/expeval.md), ``fixed=True`` the corrected bounds.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ranklens.base.errors import DuplicateError, OptionError
from ranklens.kernels.options import USER_MODELS

UserModelKind = Literal["gerr", "rbp"]
Vector = Mapping[Any, float]  # document or group -> exposure


@dataclass(frozen=True)
class UserModel:
    """The browsing model of expected exposure.

    ``kind`` ``"gerr"`` (the default, a cascade that stops after a relevant document with
    probability ``utility``) or ``"rbp"``; ``patience`` is the probability of going on to
    the next position, in ``[0, 1)``; ``utility`` in ``[0, 1]``.
    """

    kind: UserModelKind = "gerr"
    patience: float = 0.5
    utility: float = 0.5

    def __post_init__(self) -> None:
        if self.kind not in USER_MODELS:
            raise OptionError(f"user model must be one of {list(USER_MODELS)}, not {self.kind!r}")
        if not 0.0 <= self.patience < 1.0:
            raise OptionError(
                f"patience must be in [0, 1) (1 never stops browsing), not {self.patience!r}"
            )
        if not 0.0 <= self.utility <= 1.0:
            raise OptionError(f"utility must be in [0, 1], not {self.utility!r}")

    def relevant_decay(self) -> float:
        """The per-position decay over relevant documents: ``p`` (rbp) or ``p (1 - u)``."""
        return self.patience if self.kind == "rbp" else self.patience * (1.0 - self.utility)


def geometric_series(ratio: float, terms: float) -> float:
    r""":math:`\sum_{i=0}^{n-1} r^i`; ``terms`` may be ``math.inf``.

    >>> geometric_series(0.5, 3), geometric_series(0.5, math.inf)
    (1.75, 2.0)
    """
    if terms == math.inf:
        return 1.0 / (1.0 - ratio)
    return float((1.0 - ratio**terms) / (1.0 - ratio))


def grade_levels(grades: Mapping[str, int]) -> list[tuple[int, int]]:
    """``(grade, number of documents)`` for each grade, highest grade first.

    >>> grade_levels({"a": 2, "b": 1, "c": 2})
    [(2, 2), (1, 1)]
    """
    counts: dict[int, int] = {}
    for grade in grades.values():
        counts[grade] = counts.get(grade, 0) + 1
    return sorted(counts.items(), reverse=True)


def target_exposure(
    grades: Mapping[str, int], model: UserModel, fixed: bool = False
) -> dict[str, float]:
    """The ideal expected exposure of each judged document (see the module docstring).

    ``gerr`` discounts a grade of 0 or below by :math:`(1-u)^b`, ``b`` the documents of
    higher grades; with ``fixed``, ``b`` counts only the relevant ones among them (expeval
    also counts the non-relevant grades above, e.g. the 0s above the -1s under ``-C``).

    >>> target_exposure({"a": 1, "b": 1, "c": 0}, UserModel("rbp", 0.5))
    {'a': 0.75, 'b': 0.75, 'c': 0.25}
    """
    p, u = model.patience, model.utility
    per_grade: dict[int, float] = {}
    above = relevant_above = 0
    for grade, count in grade_levels(grades):
        if model.kind == "rbp":
            value = (p**above - p ** (above + count)) / (count * (1.0 - p))
        elif grade > 0:
            decay = p * (1.0 - u)
            value = (decay**above - decay ** (above + count)) / (count * (1.0 - decay))
        else:
            stops = relevant_above if fixed else above
            value = (1.0 - u) ** stops * (p**above - p ** (above + count)) / (count * (1.0 - p))
        per_grade[grade] = value
        above += count
        relevant_above += count if grade > 0 else 0
    return {doc: per_grade[grade] for doc, grade in grades.items()}


def run_exposure(
    samples: Sequence[Sequence[str]], grades: Mapping[str, int], model: UserModel
) -> dict[str, float]:
    """The expected exposure of each document over the sampled rankings of one query: the
    mean over the samples of its exposure in each (a document a sample lacks gets 0 there).

    Raises
    ------
    DuplicateError
        A sample holds a document twice (the readers refuse it first, naming the line).

    >>> run_exposure([["a", "b"], ["b", "a"]], {"a": 1}, UserModel("rbp", 0.5))
    {'a': 0.75, 'b': 0.75}
    """
    p, u = model.patience, model.utility
    exposure: dict[str, float] = {}
    for sample, ranking in enumerate(samples):
        if len(set(ranking)) != len(ranking):
            doc = next(d for j, d in enumerate(ranking) if d in ranking[:j])
            raise DuplicateError(
                f"sample {sample} (counted from 0) holds document {doc!r} twice; a sampled "
                "ranking ranks each document once",
                document=doc,
            )
        relevant_above = 0
        for position, doc in enumerate(ranking):
            weight = p**position
            if model.kind == "gerr":
                weight *= (1.0 - u) ** relevant_above
            exposure[doc] = exposure.get(doc, 0.0) + weight / len(samples)
            if grades.get(doc, 0) > 0:
                relevant_above += 1
    return exposure


def group_exposure(
    exposure: Mapping[str, float],
    doc_groups: Mapping[str, Sequence[Hashable]],
    counted: Iterable[str],
) -> dict[Hashable, float]:
    """The exposure of each group: the sum over the ``counted`` documents of the group (a
    document in several groups counts fully in each); a group whose documents got no
    exposure is 0. Documents outside ``counted`` or without groups add nothing.

    >>> group_exposure({"a": 1.0, "b": 0.5, "c": 0.25}, {"a": [1], "b": [1, 2], "c": [2]}, "abc")
    {1: 1.5, 2: 0.75}
    """
    totals: dict[Hashable, float] = {}
    for doc in counted:
        for group in doc_groups.get(doc, ()):
            totals[group] = totals.get(group, 0.0) + exposure.get(doc, 0.0)
    return totals


def squared_norm(vector: Vector) -> float:
    """:math:`\\sum_k x_k^2`."""
    return math.fsum(v * v for v in vector.values())


def dot(x: Vector, y: Vector) -> float:
    """:math:`\\sum_k x_k y_k` over the keys of both."""
    return math.fsum(v * y[k] for k, v in x.items() if k in y)


def squared_distance(x: Vector, y: Vector) -> float:
    """:math:`\\sum_k (x_k - y_k)^2` over the keys of either (a missing key is 0)."""
    keys = set(x) | set(y)
    return math.fsum((x.get(k, 0.0) - y.get(k, 0.0)) ** 2 for k in keys)


@dataclass(frozen=True)
class Bounds:
    """The normalisation bounds of EE-D, EE-R and EE-L for one query, ``(low, high)``."""

    disparity: tuple[float, float]
    relevance: tuple[float, float]
    difference: tuple[float, float]


@dataclass(frozen=True)
class ExposureValues:
    """EE-D, EE-R and EE-L of one query, raw and normalised, and :math:`\\lVert\\epsilon^*
    \\rVert^2` (``target``)."""

    disparity: float
    relevance: float
    difference: float
    disparity_raw: float
    relevance_raw: float
    difference_raw: float
    target: float


# the normalised value where a bound pair is degenerate (low == high), as expeval
_DEFAULT = {"disparity": 0.0, "relevance": 1.0, "difference": 0.0}


def normalised(value: float, bounds: tuple[float, float], default: float) -> float:
    """``(value - low) / (high - low)``, or ``default`` when ``low == high``."""
    low, high = bounds
    if low == high:
        return default
    return (value - low) / (high - low)


def _bound_decay(model: UserModel, fixed: bool) -> float:
    # expeval writes p * u for gerr in its bounds (its targets use p * (1 - u))
    if model.kind == "rbp":
        return model.patience
    return model.patience * (1.0 - model.utility) if fixed else model.patience * model.utility


def document_bounds(
    target: Mapping[str, float], levels: int, model: UserModel, complete: bool, fixed: bool
) -> Bounds:
    """The bounds of the document-level measures for one query.

    ``complete`` (a reranking task: the candidates are the judged documents) or retrieval
    (an unbounded collection); ``levels`` is the number of grades among the judged
    documents; ``fixed`` the corrected bounds (docs/expeval.md lists the differences).
    """
    p = model.patience
    n = len(target) if complete else math.inf
    decay = _bound_decay(model, fixed)
    ascending = sorted(target.values())
    disparity_low = geometric_series(decay, n) ** 2 / n if complete else 0.0
    disparity = (disparity_low, geometric_series(p * p, n))
    norm = squared_norm(target)
    relevance_high = norm if norm > 0 else math.inf
    relevance_low = 0.0
    if complete:
        relevance_low = math.fsum(decay**i * e for i, e in enumerate(ascending))
    relevance = (relevance_low, relevance_high)
    if levels <= 1 and (complete or not fixed):
        relevance = (0.0, 0.0)
    if complete:
        difference_high = math.fsum((decay**i - e) ** 2 for i, e in enumerate(ascending))
    else:
        difference_high = norm + geometric_series(p * p if fixed else decay, math.inf)
    return Bounds(disparity, relevance, (0.0, difference_high))


def group_bounds(
    target: Vector, relevant: int, model: UserModel, fixed: bool, counted: int | None = None
) -> Bounds:
    r"""The bounds of the group-level measures for one query with ``relevant`` relevant
    documents (``counted``: the documents whose exposure the groups sum, by default the
    relevant ones).

    expeval (``fixed=False``), with :math:`M = \sum_{i<r} p^i`, :math:`k` groups and
    :math:`E = \sum_{i<r} \gamma^i` (:math:`\gamma` = ``p``, or ``p u`` for gerr):
    EE-D in :math:`[k E^2, k M^2]` (both 0 for one group), EE-R in :math:`[0, 0]`, EE-L in
    :math:`[0, \max(\lVert\epsilon^*\rVert^2, \sum_g (M - \epsilon^*_g)^2)]`.
    Corrected (``fixed=True``), with :math:`M` over the ``counted`` documents: EE-D in
    :math:`[0, k M^2]` (a run may expose no counted document; expeval's lower bound is
    above what runs reach), EE-R in :math:`[0, M \sum_g \epsilon^*_g]`, EE-L in
    :math:`[0, \sum_g \max(\epsilon^{*2}_g, (M - \epsilon^*_g)^2)]` (each group's
    exposure lies in :math:`[0, M]`).
    """
    p = model.patience
    groups = len(target)
    mass = geometric_series(p, relevant if counted is None or not fixed else counted)
    if groups == 1:
        disparity = (0.0, 0.0)
    elif fixed:
        disparity = (0.0, mass * mass * groups)
    else:
        even = geometric_series(_bound_decay(model, fixed), relevant)
        disparity = (groups * even * even, mass * mass * groups)
    norm = squared_norm(target)
    if fixed:
        relevance_high = mass * math.fsum(target.values())
        difference_high = math.fsum(max(e * e, (mass - e) ** 2) for e in target.values())
    else:
        relevance_high = 0.0
        spread = math.fsum((mass - e) ** 2 for e in target.values())
        difference_high = norm if norm > spread else spread
    return Bounds(disparity, (0.0, relevance_high), (0.0, difference_high))


def exposure_values(
    target: Vector,
    run: Vector | None,
    bounds: Bounds,
    fixed: bool,
) -> ExposureValues:
    """EE-D, EE-R and EE-L of one query; ``run`` ``None`` for a query the run lacks, which
    gets the worst value of each (expeval, ``fixed=False``: EE-L takes EE-R's upper bound
    instead of its own). expeval's EE-D is infinite when no group got any exposure (a run
    without relevant documents, ``-G``); ``fixed``: 0, as the formula says."""
    norm = squared_norm(target)
    if run is None:
        disparity = bounds.disparity[1]
        relevance = bounds.relevance[0]
        difference = bounds.difference[1] if fixed else bounds.relevance[1]
    else:
        total = squared_norm(run)
        # expeval: infinite when no document or group got any exposure
        disparity = total if fixed or (run and total > 0) else math.inf
        relevance = dot(target, run)
        difference = squared_distance(target, run)
    return ExposureValues(
        disparity=normalised(disparity, bounds.disparity, _DEFAULT["disparity"]),
        relevance=normalised(relevance, bounds.relevance, _DEFAULT["relevance"]),
        difference=normalised(difference, bounds.difference, _DEFAULT["difference"]),
        disparity_raw=disparity,
        relevance_raw=relevance,
        difference_raw=difference,
        target=norm,
    )


# ---------------------------------------------------------------------------------------
# TREC Fair Ranking 2022: AWRF x nDCG


def fair_discount(rank: int) -> float:
    """The TREC Fair Ranking 2022 discount of a 1-based rank: ``1 / log2(max(rank, 2))``.

    >>> fair_discount(1), fair_discount(2), fair_discount(4)
    (1.0, 1.0, 0.5)
    """
    return 1.0 / math.log2(max(rank, 2))


def jensen_shannon_divergence(p: Sequence[float], q: Sequence[float]) -> float:
    r"""The Jensen-Shannon divergence (natural logarithm) of two distributions, each first
    scaled to sum 1: :math:`\frac12 KL(p \Vert m) + \frac12 KL(q \Vert m)`,
    :math:`m = (p + q)/2`; NaN when either sums to 0.

    >>> round(jensen_shannon_divergence([1, 0], [0, 1]), 6)  # ln 2
    0.693147
    """
    p_total, q_total = math.fsum(p), math.fsum(q)
    if p_total <= 0 or q_total <= 0:
        return math.nan
    terms = []
    for a_raw, b_raw in zip(p, q, strict=True):
        a, b = a_raw / p_total, b_raw / q_total
        m = (a + b) / 2
        if a > 0:
            terms.append(a * math.log(a / m))
        if b > 0:
            terms.append(b * math.log(b / m))
    return max(0.0, math.fsum(terms) / 2)


def awrf(
    ranking: Sequence[str],
    alignment: Mapping[str, Mapping[Hashable, float]],
    target: Mapping[Hashable, float],
) -> float:
    r"""Attention-weighted rank fairness of one ranking (TREC Fair Ranking 2022, Task 1):
    :math:`1 - JSD(a, t)`, where :math:`a_g = \sum_i w_i A_{d_i g} / \sum_i w_i` over the
    ranked documents with an alignment, :math:`w_i` = :func:`fair_discount` of the
    document's rank (its rank in the whole ranking), and :math:`t` the target distribution.
    NaN when no ranked document has an alignment.

    >>> awrf(["a", "b"], {"a": {"x": 1.0}, "b": {"y": 1.0}}, {"x": 0.5, "y": 0.5})
    1.0
    """
    groups = list(target)
    weighted = dict.fromkeys(groups, 0.0)
    total = 0.0
    for rank, doc in enumerate(ranking, 1):
        share = alignment.get(doc)
        if share is None:
            continue
        weight = fair_discount(rank)
        total += weight
        for group, value in share.items():
            weighted[group] = weighted.get(group, 0.0) + weight * value
    if total <= 0:
        return math.nan
    labels = groups + [g for g in weighted if g not in target]
    ranked = [weighted.get(g, 0.0) / total for g in labels]
    wanted = [target.get(g, 0.0) for g in labels]
    return 1.0 - jensen_shannon_divergence(ranked, wanted)


def fair_ndcg(ranking: Sequence[str], relevant: Iterable[str], target_length: int = 500) -> float:
    r"""The binary nDCG of TREC Fair Ranking 2022 Task 1: :math:`\sum_i [d_i \in R] w_i /
    \sum_{i \le \min(K, |R|)} w_i` with :func:`fair_discount` weights and ``K`` the target
    length of a ranking (500); NaN without relevant documents.

    >>> fair_ndcg(["a", "x", "b"], {"a", "b"})
    0.8154648767857288
    """
    relevant_set = set(relevant)
    if len(ranking) > target_length:
        raise OptionError(
            f"a ranking of {len(ranking)} documents is longer than the target length "
            f"{target_length}; cut it or raise target_length"
        )
    ideal = math.fsum(fair_discount(r) for r in range(1, min(target_length, len(relevant_set)) + 1))
    if ideal <= 0:
        return math.nan
    gained = math.fsum(fair_discount(r) for r, d in enumerate(ranking, 1) if d in relevant_set)
    return gained / ideal
