r"""The expected exposure measures ``EE-L``, ``EE-D`` and ``EE-R`` of the measure language,
per query, on sampled rankings joined with the qrels
(:class:`~ranklens.ranking.stochastic.SampledRankings`).

They use the corrected definitions of :mod:`ranklens.kernels.exposure` (``fixed=True``,
``ranklens expeval --fixed``); :func:`query_exposure` computes one query, for these
measures and for :func:`ranklens.analysis.exposure.expected_exposure`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from ranklens.base.errors import InputError
from ranklens.base.types import Float64Array
from ranklens.data.stochastic import DocGroups
from ranklens.kernels.exposure import (
    ExposureValues,
    UserModel,
    UserModelKind,
    Vector,
    document_bounds,
    exposure_values,
    grade_levels,
    group_bounds,
    group_exposure,
    run_exposure,
    target_exposure,
)
from ranklens.ranking.stochastic import SampledRankings

EE_NAMES = ("EE-L", "EE-D", "EE-R")
"""The measures: loss (expeval's difference), disparity and relevance."""


def kept_grades(judged: Mapping[str, int], binary: bool, complete: bool) -> dict[str, int]:
    """The judgments expected exposure reads: the relevant ones (grade above 0), or with
    ``complete`` every judged document; with ``binary`` every grade above 0 is 1.

    >>> kept_grades({"a": 2, "b": 0}, binary=True, complete=False)
    {'a': 1}
    """
    return {d: (1 if binary and g > 0 else g) for d, g in judged.items() if complete or g > 0}


def query_exposure(
    qid: str,
    judged: Mapping[str, int],
    samples: Sequence[Sequence[str]] | None,
    labels: DocGroups | None,
    user: UserModel,
    complete: bool,
) -> ExposureValues:
    """EE-D, EE-R and EE-L of one query with the kept judgments ``judged`` (non-empty,
    :func:`kept_grades`) and its sampled rankings (``None``: the run lacks the query and
    gets the worst value of each), by document, or by group with ``labels`` (a group's
    exposure is the sum over its judged documents that :func:`kept_grades` keeps; a
    document without a label counts in no group).

    Raises
    ------
    InputError
        ``labels`` give none of the query's kept documents a group.
    """
    doc_target = target_exposure(judged, user, fixed=True)
    doc_run = run_exposure(samples, judged, user) if samples else None
    target: Vector = doc_target
    exposure: Vector | None = doc_run
    if labels is not None:
        counted = [d for d in judged if (complete or judged[d] > 0) and d in labels]
        target = group_exposure(doc_target, labels, counted)
        if not target:
            raise InputError(
                f"query {qid!r}: none of its judged documents has a group label; give "
                "groups for the judged documents"
            )
        relevant = sum(1 for g in judged.values() if g > 0)
        bounds = group_bounds(target, relevant, user, True, len(counted))
        if doc_run is not None:
            exposure = group_exposure(doc_run, labels, counted)
    else:
        levels = len(grade_levels(judged))
        bounds = document_bounds(doc_target, levels, user, complete, fixed=True)
    return exposure_values(target, exposure or None, bounds, fixed=True)


def expected_exposure(
    sampled: SampledRankings,
    name: str,
    model: UserModelKind = "gerr",
    p: float = 0.5,
    u: float = 0.5,
    binary: bool = False,
    complete: bool = False,
    normalize: bool = True,
) -> Float64Array:
    r"""The values of the expected exposure measure ``name`` (one of :data:`EE_NAMES`) for
    each query of ``sampled``: NaN for a query without a kept judgment (no relevant
    document; with ``complete``, no judged document), which has no target exposure.

    EE-D :math:`= \lVert\epsilon\rVert^2`, EE-R :math:`= \epsilon^\top\epsilon^*`, EE-L
    :math:`= \lVert\epsilon - \epsilon^*\rVert^2`, normalised by their corrected bounds
    unless ``normalize`` is false (:mod:`ranklens.kernels.exposure`).

    >>> from ranklens.ranking.stochastic import SampledRankings
    >>> view = SampledRankings(("q",), ({"a": 1, "b": 1},), ([["a", "b"], ["b", "a"]],))
    >>> expected_exposure(view, "EE-L", "rbp").tolist()
    [0.0]
    """
    user = UserModel(model, p, u)
    key = ("expected exposure", user, binary, complete)
    per_query: list[ExposureValues | None] | None = sampled.memo.get(key)
    if per_query is None:
        per_query = []
        for qid, judged, samples in zip(sampled.qids, sampled.judged, sampled.samples, strict=True):
            kept = kept_grades(judged, binary, complete)
            per_query.append(
                query_exposure(qid, kept, samples, sampled.groups, user, complete) if kept else None
            )
        sampled.memo[key] = per_query
    out = np.full(sampled.num_queries, math.nan, dtype=np.float64)
    for i, value in enumerate(per_query):
        if value is None:
            continue
        if name == "EE-L":
            out[i] = value.difference if normalize else value.difference_raw
        elif name == "EE-D":
            out[i] = value.disparity if normalize else value.disparity_raw
        else:
            out[i] = value.relevance if normalize else value.relevance_raw
    return out
