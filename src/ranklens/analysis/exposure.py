r"""Fair exposure: expected exposure EE-L, EE-D, EE-R of stochastic runs (Diaz et al., CIKM
2020) and the TREC Fair Ranking 2022 score AWRF x nDCG.

:func:`expected_exposure` uses the corrected definitions (``ranklens expeval --fixed``);
``ranklens expeval`` reproduces github.com/diazf/expeval, quirks included (docs/expeval.md).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from typing import Any

from ranklens.base.errors import InputError, OptionError
from ranklens.data.coerce import as_qrels
from ranklens.data.stochastic import read_groups, read_stochastic_run
from ranklens.kernels.exposure import (
    UserModel,
    UserModelKind,
    fair_ndcg,
)
from ranklens.kernels.exposure import (
    awrf as ranking_awrf,
)
from ranklens.kernels.exposure_measures import kept_grades, query_exposure

EE_MEASURES = ("EE-L", "EE-D", "EE-R")


@dataclass(frozen=True)
class FairnessResults:
    """Per-query values and their means.

    ``per_query`` is ``{qid: {measure: value}}`` (expected exposure: in the qrels' query
    order; AWRF: in the run's); ``aggregate`` the mean of each measure over those queries,
    NaN values left out (NaN where every value is NaN).
    """

    per_query: dict[str, dict[str, float]]
    aggregate: dict[str, float]
    measures: tuple[str, ...]

    def to_pandas(self) -> Any:
        """A pandas DataFrame: one row per query, one column per measure."""
        from ranklens.base.optional import require

        pd = require("pandas", "frames")
        frame = pd.DataFrame.from_dict(self.per_query, orient="index", columns=list(self.measures))
        frame.index.name = "query_id"
        return frame


def _means(per_query: dict[str, dict[str, float]], measures: tuple[str, ...]) -> dict[str, float]:
    out = {}
    for name in measures:
        values = [v[name] for v in per_query.values() if not math.isnan(v[name])]
        out[name] = math.fsum(values) / len(values) if values else math.nan
    return out


def _grades(qrels: object, binary: bool, complete: bool) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for qid, judged in as_qrels(qrels).to_dict().items():
        kept = kept_grades(judged, binary, complete)
        if kept:
            out[qid] = kept
    return out


def expected_exposure(
    qrels: object,
    run: object,
    groups: object | None = None,
    *,
    model: UserModelKind = "gerr",
    patience: float = 0.5,
    utility: float = 0.5,
    binary: bool = False,
    complete: bool = False,
    normalise: bool = True,
    single_ranking: bool = False,
) -> FairnessResults:
    r"""Expected exposure EE-L, EE-D and EE-R of a stochastic run, per query and mean.

    For each query with a relevant document (with ``complete``, any judged document), the
    run's expected exposure :math:`\epsilon` (the mean over its sampled rankings) is
    compared with the target :math:`\epsilon^*` of an ideal policy:
    EE-D :math:`= \lVert\epsilon\rVert^2`, EE-R :math:`= \epsilon^\top\epsilon^*`, EE-L
    :math:`= \lVert\epsilon - \epsilon^*\rVert^2 = \text{EE-D} - 2\,\text{EE-R} +
    \lVert\epsilon^*\rVert^2` (the last term is reported as ``target``), each normalised to
    ``[0, 1]`` by its bounds unless ``normalise=False`` (formulas in docs/expeval.md). With
    ``groups``, documents are replaced by groups: a group's exposure is the sum over its
    judged relevant documents (with ``complete``, its judged documents). A query the run
    lacks gets the worst value of each measure. These are the corrected definitions of
    ``ranklens expeval --fixed``.

    Parameters
    ----------
    qrels
        Judgments, anything :func:`ranklens.evaluate` takes.
    run
        Sampled rankings: a ``qid sample docno rank score [tag]`` file, a DataFrame with a
        sample column, or ``{qid: [[docid, ...], ...]}`` (:mod:`ranklens.data.stochastic`);
        a sample that ranks a document twice is refused
        (:class:`~ranklens.base.errors.DuplicateError`, naming its lines, rows or positions).
    groups
        Group labels of the documents, ``{docid: label or [labels]}``, a DataFrame or a
        ``docid,group`` file; ``None`` for document-level exposure.
    model, patience, utility
        The browsing model: ``"gerr"`` (exposure :math:`p^i (1-u)^{r_i}` at 0-based
        position :math:`i` below :math:`r_i` relevant documents) or ``"rbp"`` (:math:`p^i`).
    binary
        Every grade above 0 counts as 1.
    complete
        Complete judgments (a reranking task: the candidates are the judged documents).
    normalise
        Normalise each measure by its bounds (otherwise the raw values).
    single_ranking
        Accept a run without sample numbers, one deterministic ranking per query.

    Examples
    --------
    >>> qrels = {"q1": {"a": 1, "b": 1, "c": 0}}
    >>> fair = {"q1": [["a", "b"], ["b", "a"]]}
    >>> res = expected_exposure(qrels, fair, model="rbp")
    >>> res.per_query["q1"]["EE-L"], res.per_query["q1"]["EE-R"]
    (0.0, 1.0)
    """
    user = UserModel(model, patience, utility)
    grades = _grades(qrels, binary, complete)
    if not grades:
        raise InputError(
            "no query has a relevant document (a judgment above 0) to compute a target "
            "exposure; with complete=True every judged document counts"
        )
    rankings = read_stochastic_run(run, single_ranking=single_ranking)
    labels = read_groups(groups) if groups is not None else None
    per_query: dict[str, dict[str, float]] = {}
    for qid, judged in grades.items():
        value = query_exposure(qid, judged, rankings.get(qid), labels, user, complete)
        if normalise:
            scores = (value.difference, value.disparity, value.relevance)
        else:
            scores = (value.difference_raw, value.disparity_raw, value.relevance_raw)
        per_query[qid] = {**dict(zip(EE_MEASURES, scores, strict=True)), "target": value.target}
    measures = (*EE_MEASURES, "target")
    return FairnessResults(per_query, _means(per_query, measures), measures)


FAIR_MEASURES = ("nDCG", "AWRF", "Score")


def awrf(
    qrels: object,
    run: object,
    groups: object,
    target: Mapping[Any, Any] | None = None,
    *,
    target_length: int = 500,
) -> FairnessResults:
    r"""TREC Fair Ranking 2022 (Task 1): AWRF, nDCG and their product ``Score`` per query.

    AWRF :math:`= 1 - JSD(a, t)`: the Jensen-Shannon divergence (natural logarithm) between
    the ranking's attention-weighted group distribution
    :math:`a_g = \sum_i w_i A_{d_i g} / \sum_i w_i` (over the ranked documents with a group;
    :math:`w_i = 1/\log_2 \max(i, 2)` at 1-based rank :math:`i`; a document with
    :math:`k` labels counts :math:`1/k` in each) and the target distribution :math:`t`.
    nDCG is binary (judgment above 0) with the same discount, ideal over
    :math:`\min(K, |R|)` ranks, ``K = target_length``. ``Score = AWRF x nDCG``. A run with
    sampled rankings gets the mean over its samples. Queries in the run and with a relevant
    document are evaluated.

    Parameters
    ----------
    qrels
        Judgments, anything :func:`ranklens.evaluate` takes.
    run
        A TREC run (``Q0`` in the second column: one ranking per query, in rank order) or
        sampled rankings (:func:`ranklens.data.stochastic.read_stochastic_run`).
    groups
        Group labels of the documents, ``{docid: label or [labels]}``, a DataFrame or a
        ``docid,group`` file (intersectional groups: give combined labels).
    target
        The target distribution ``{group: weight}`` for every query, or
        ``{qid: {group: weight}}`` per query; weights are scaled to sum 1. ``None``: uniform
        over the groups in ``groups``.
    target_length
        ``K``; a ranking longer than it is an error.

    Examples
    --------
    >>> res = awrf({"q": {"a": 1, "b": 1}}, {"q": [["a", "b"]]}, {"a": "x", "b": "y"})
    >>> res.per_query["q"]
    {'nDCG': 1.0, 'AWRF': 1.0, 'Score': 1.0}
    """
    if target_length < 1:
        raise OptionError(f"target_length must be at least 1, not {target_length}")
    judged = _grades(qrels, binary=False, complete=False)
    rankings = read_stochastic_run(run, single_ranking=True)
    labels = read_groups(groups)
    alignment = {d: {g: 1.0 / len(ls) for g in ls} for d, ls in labels.items()}
    everyone: dict[Hashable, float] = {}
    for ls in labels.values():
        for g in ls:
            everyone.setdefault(g, 1.0)
    per_query: dict[str, dict[str, float]] = {}
    for qid, samples in rankings.items():
        if qid not in judged:
            continue
        wanted = _target_for(qid, target, everyone)
        values = [
            (fair_ndcg(s, judged[qid], target_length), ranking_awrf(s, alignment, wanted))
            for s in samples
        ]
        ndcg = math.fsum(v[0] for v in values) / len(values)
        fairness = math.fsum(v[1] for v in values) / len(values)
        score = math.fsum(v[0] * v[1] for v in values) / len(values)
        per_query[qid] = {"nDCG": ndcg, "AWRF": fairness, "Score": score}
    if not per_query:
        raise InputError(
            "no query of the run has a relevant document (a judgment above 0) in the qrels; "
            "check that the query ids match"
        )
    return FairnessResults(per_query, _means(per_query, FAIR_MEASURES), FAIR_MEASURES)


def _target_for(
    qid: str, target: Mapping[Any, Any] | None, everyone: dict[Hashable, float]
) -> Mapping[Hashable, float]:
    if target is None:
        return everyone
    if target and all(isinstance(v, Mapping) for v in target.values()):
        if qid not in target:
            raise InputError(f"query {qid!r} has no target distribution in target=")
        chosen: Mapping[Hashable, float] = target[qid]
    else:
        chosen = target
    if not chosen or any(not isinstance(v, int | float) or v < 0 for v in chosen.values()):
        raise InputError(
            "target= must map groups to non-negative weights (or queries to such maps), e.g. "
            "{'x': 0.5, 'y': 0.5}"
        )
    return chosen
