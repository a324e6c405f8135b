r"""Counterfactual (off-policy) estimates of a new ranking's clicks from a logged log.

The value estimated is the expected number of clicks per impression (in the top
``cutoff`` positions) had the target ranking been shown. With :math:`r_{ik}` the click at
position :math:`k` of impression :math:`i` (of :math:`n`), :math:`\pi_b` the logging policy
and :math:`\pi_e` the target:

- ``"sips"`` (standard slate IPS): :math:`\hat V = \frac1n\sum_i w_i \sum_k r_{ik}`,
  :math:`w_i = \prod_k \frac{\pi_e(a_{ik} \mid a_{i,<k})}{\pi_b(a_{ik} \mid a_{i,<k})}`;
- ``"iips"`` (independent IPS): :math:`\hat V = \frac1n\sum_i \sum_k w_{ik} r_{ik}`,
  :math:`w_{ik} = \frac{\pi_e(a_{ik} \text{ at } k)}{\pi_b(a_{ik} \text{ at } k)}`
  (marginal probabilities);
- ``"rips"`` (reward-interaction IPS): :math:`w_{ik} = \prod_{j \le k}
  \frac{\pi_e(a_{ij} \mid a_{i,<j})}{\pi_b(a_{ij} \mid a_{i,<j})}` (McInerney et al. 2020);
- ``"snsips"``, ``"sniips"``, ``"snrips"``: self-normalised, :math:`\sum_k \frac{\sum_i
  w_{ik} r_{ik}}{\sum_i w_{ik}}` (each position's weights divided by their sum);
- ``"ips"``: ``"iips"`` with logged propensities; with a ``position_bias``
  :math:`\theta` instead (PBM), the target re-ranks the documents each impression showed
  and :math:`\hat V = \frac1n\sum_i\sum_k r_{ik}\frac{\theta_{\pi_e(d_{ik})}}{\theta_k}`
  (Joachims, Swaminathan and Schnabel 2017), unbiased under the PBM when every
  examination probability is positive;
- ``"snips"``: ``"sniips"`` (logged propensities only).

The logging policy's probabilities come from the log: ``propensity`` (the probability of
showing the document at that position, for ``iips``) and ``step_propensity`` (given the
documents above it, for ``sips`` and ``rips``). The target is a deterministic ranking per
query (then :math:`\pi_e` is 1 where it agrees with the log and 0 elsewhere) or its own
probabilities per log row.

Intervals: a percentile bootstrap over impressions (``interval="bootstrap"``: impressions
drawn with replacement, ``bootstrap`` times, seeded), or the normal approximation
(``"normal"``, plain estimators only).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ranklens.base.errors import InputError, InputWarning, OptionError
from ranklens.base.types import Float64Array
from ranklens.logs.log import ClickLog

ESTIMATORS = ("ips", "snips", "sips", "iips", "rips", "snsips", "sniips", "snrips")


@dataclass(frozen=True)
class Estimate:
    """A counterfactual estimate.

    Attributes
    ----------
    estimator : its name.
    value : the estimated clicks per impression under the target.
    interval : the confidence interval at ``confidence``.
    standard_error : the standard error of ``value`` (plain estimators: of the mean of the
        per-impression terms; self-normalised: the bootstrap's standard deviation).
    impressions : how many logged impressions it is made from.
    terms : float64 (impressions x positions): each position's weighted click, the terms
        that the plain estimators average (self-normalised: before normalising).
    weights : float64 (impressions x positions): the importance weights.
    """

    estimator: str
    value: float
    interval: tuple[float, float]
    confidence: float
    standard_error: float
    impressions: int
    terms: Float64Array = field(repr=False)
    weights: Float64Array = field(repr=False)


def target_ranks(log: ClickLog, target: Any) -> Float64Array:
    """For each row: the rank the target gives its document for its query (inf: not
    ranked)."""
    ranking = _target_lists(target)
    n_docs = np.int64(max(len(log.documents), 1))
    keys = log.query[log.impression_of_rows] * n_docs + log.doc
    unique, inverse = np.unique(keys, return_inverse=True)
    queries, documents = log.queries, log.documents
    ranks = np.fromiter(
        (
            ranking.get(queries[int(k // n_docs)], {}).get(documents[int(k % n_docs)], math.inf)
            for k in unique.tolist()
        ),
        dtype=np.float64,
        count=unique.shape[0],
    )
    out: Float64Array = ranks[inverse.reshape(-1)]
    return out


def _target_positions(log: ClickLog, target: Any) -> Float64Array:
    """For each row: the 1-based position the target gives its document among the
    documents the impression showed (the target's order; documents it does not rank after
    them, in the logged order)."""
    imp = log.impression_of_rows
    order = np.lexsort((log.positions, target_ranks(log, target), imp))
    out = np.empty(log.num_rows)
    out[order] = np.arange(log.num_rows) - log.offsets[imp[order]] + 1
    return out


def _target_lists(target: Any) -> dict[str, dict[str, int]]:
    """``{query: {doc: rank}}`` from ``{query: [doc, ...]}``, ``{query: {doc: score}}``
    (higher first, ties by doc id) or a :class:`~ranklens.Run`."""
    if hasattr(target, "to_dict") and not isinstance(target, Mapping):
        target = target.to_dict()
    if not isinstance(target, Mapping):
        raise OptionError(
            "target must be {query: [doc, ...]}, {query: {doc: score}} or a ranklens.Run"
        )
    out: dict[str, dict[str, int]] = {}
    for query, value in target.items():
        if isinstance(value, Mapping):
            docs = sorted(value, key=lambda d: (-float(value[d]), str(d)))
        else:
            docs = list(value)
        out[str(query)] = {str(d): r + 1 for r, d in enumerate(docs)}
    return out


def check_target_queries(log: ClickLog, target: Any) -> None:
    """A target that ranks none of the log's queries is an error (its estimate would be 0
    clicks with the interval [0, 0], from ids that do not match: a typo, numbers against
    text); one that ranks some of them, a warning naming how many it misses (their
    impressions count 0 clicks under the target)."""
    ranked = set(_target_lists(target))
    shown = np.unique(log.query[log.impression_of_rows]) if log.num_rows else np.zeros(0, int)
    names = [log.queries[int(q)] for q in shown.tolist()]
    missing = [q for q in names if q not in ranked]
    if not missing:
        return
    examples = ", ".join(repr(q) for q in missing[:3])
    if len(missing) == len(names):
        theirs = ", ".join(repr(q) for q in sorted(ranked)[:3]) or "none"
        raise InputError(
            f"the target ranks none of the log's {len(names)} queries (the log's: {examples}"
            f"{', ...' if len(missing) > 3 else ''}; the target's: {theirs}"
            f"{', ...' if len(ranked) > 3 else ''}): its estimate would be 0 clicks. Check "
            "that the target and the log use the same query ids",
            path=log.source,
        )
    warnings.warn(
        f"the target ranks {len(names) - len(missing)} of the log's {len(names)} queries; "
        f"the impressions of the other {len(missing)} ({examples}"
        f"{', ...' if len(missing) > 3 else ''}) count 0 clicks under it: check the query ids",
        InputWarning,
        stacklevel=3,
    )


def _deterministic_probabilities(log: ClickLog, target: Any) -> tuple[Float64Array, Float64Array]:
    """Marginal and step probabilities of a deterministic target for each logged row: 1
    where the target puts the row's document at the row's position, else 0."""
    marginal = (target_ranks(log, target) == log.positions).astype(np.float64)
    return marginal, marginal.copy()


def counterfactual(
    log: Any,
    target: Any = None,
    estimator: str = "ips",
    *,
    position_bias: Mapping[int, float] | None = None,
    target_propensity: Sequence[float] | Float64Array | None = None,
    target_step_propensity: Sequence[float] | Float64Array | None = None,
    cutoff: int | None = None,
    confidence: float = 0.95,
    interval: str = "bootstrap",
    bootstrap: int = 10_000,
    seed: int = 42,
) -> Estimate:
    """Estimate the clicks per impression of a target ranking from a logged log.

    Parameters
    ----------
    log
        A :class:`~ranklens.logs.ClickLog` or anything :func:`~ranklens.logs.read_log`
        reads; with ``propensity`` and/or ``step_propensity`` columns for the slate
        estimators.
    target
        The target ranking: ``{query: [doc, ...]}``, ``{query: {doc: score}}`` or a
        :class:`~ranklens.Run`; or ``None`` with ``target_propensity`` /
        ``target_step_propensity`` (the target policy's probabilities for each log row, in
        the log's row order).
    estimator
        One of :data:`ESTIMATORS` (module documentation).
    position_bias
        ``{position: examination probability}`` (from :func:`position_bias`): ``"ips"``
        by the PBM instead of logged propensities.
    cutoff
        Count clicks in the top ``cutoff`` positions only.
    confidence, interval, bootstrap, seed
        The interval: its level, ``"bootstrap"`` (percentile, ``bootstrap`` resamples of
        the impressions, seeded) or ``"normal"``.

    Raises
    ------
    InputError
        A target that ranks none of the log's queries (a partial overlap is an
        :class:`~ranklens.base.errors.InputWarning` naming how many queries it misses).

    Examples
    --------
    >>> from ranklens.logs import read_log
    >>> log = read_log({"session_id": [1, 1, 2, 2], "query_id": ["q"] * 4,
    ...                 "doc_id": ["a", "b", "b", "a"], "position": [1, 2, 1, 2],
    ...                 "clicked": [True, False, False, True],
    ...                 "propensity": [0.5] * 4, "step_propensity": [0.5, 1, 0.5, 1]})
    >>> counterfactual(log, {"q": ["a", "b"]}, "sips").value
    1.0
    >>> counterfactual(log, {"q": ["a", "b"]}, "ips", position_bias={1: 1.0, 2: 0.5}).value
    1.5
    """
    from ranklens.logs.read import read_log

    log = read_log(log)
    if estimator not in ESTIMATORS:
        raise OptionError(f"unknown estimator {estimator!r}: choose one of {', '.join(ESTIMATORS)}")
    if interval not in ("bootstrap", "normal"):
        raise OptionError(f"interval must be 'bootstrap' or 'normal', not {interval!r}")
    if not 0.0 < confidence < 1.0:
        raise OptionError(f"confidence must be in (0, 1), not {confidence!r}")
    if not isinstance(bootstrap, int) or bootstrap < 1:
        raise OptionError(f"bootstrap must be a positive integer, not {bootstrap!r}")
    if cutoff is not None and (not isinstance(cutoff, int) or cutoff < 1):
        raise OptionError(f"cutoff must be a positive integer, not {cutoff!r}")
    if target is not None:
        check_target_queries(log, target)
    reward = log.clicked.astype(np.float64)
    if cutoff is not None:
        reward = reward * (log.positions <= cutoff)
    imp = log.impression_of_rows
    n = log.num_impressions
    self_normalised = estimator.startswith("sn")
    if position_bias is not None:
        if estimator != "ips":
            raise OptionError(
                f"position_bias goes with estimator 'ips' (the PBM estimator), not {estimator!r}: "
                "the slate estimators read logged propensities"
            )
        if target is None:
            raise OptionError("the PBM estimator needs a target ranking")
        theta = _bias_table(position_bias, log.max_length)
        new_pos = _target_positions(log, target).astype(np.int64)
        weights = theta[new_pos - 1] / theta[log.positions - 1]
        if cutoff is not None:
            reward = log.clicked.astype(np.float64) * (new_pos <= cutoff)
        kind = "pbm"
    else:
        kind = {"ips": "iips", "snips": "sniips"}.get(estimator, estimator)
        kind = kind[2:] if kind.startswith("sn") else kind
        if target is not None:
            if target_propensity is not None or target_step_propensity is not None:
                raise OptionError("give a target ranking or the target's probabilities, not both")
            marginal_probs, step_probs = _deterministic_probabilities(log, target)
            marginal: Float64Array | None = marginal_probs
            step: Float64Array | None = step_probs
        else:
            marginal = _row_values(target_propensity, log, "target_propensity")
            step = _row_values(target_step_propensity, log, "target_step_propensity")
            if (kind == "iips" and marginal is None) or (kind != "iips" and step is None):
                need = "target_propensity" if kind == "iips" else "target_step_propensity"
                raise OptionError(f"{estimator} needs a target ranking or {need}")
        if kind == "iips":
            if log.propensity is None:
                raise InputError(
                    f"{estimator} needs the logging policy's 'propensity' column (the "
                    "probability of each document at its position)",
                    path=log.source,
                )
            weights = _required(marginal) / log.propensity
        else:
            if log.step_propensity is None:
                raise InputError(
                    f"{estimator} needs the logging policy's 'step_propensity' column (the "
                    "probability of each document given the documents above it)",
                    path=log.source,
                )
            ratio = _required(step) / log.step_propensity
            log_ratio = np.log(np.where(ratio > 0, ratio, 1.0))
            zero = (ratio == 0).astype(np.int64)
            if kind == "rips":
                cum_log = _segment_cumsum(log_ratio, log.offsets)
                cum_zero = _segment_cumsum(zero.astype(np.float64), log.offsets)
                weights = np.where(cum_zero > 0, 0.0, np.exp(cum_log))
            else:  # sips: the whole slate's ratio on every position
                total_log = np.bincount(imp, weights=log_ratio, minlength=n)
                total_zero = np.bincount(imp, weights=zero, minlength=n)
                joint = np.where(total_zero > 0, 0.0, np.exp(total_log))
                weights = joint[imp]
    width = max(log.max_length, 1)
    w = np.zeros((n, width))
    r = np.zeros((n, width))
    cols = log.positions - 1
    w[imp, cols] = weights
    r[imp, cols] = reward
    terms = w * r
    level = confidence
    rng = np.random.default_rng(seed)
    if not self_normalised:
        per_imp = terms.sum(axis=1)
        value = float(per_imp.mean()) if n else math.nan
        se = float(per_imp.std(ddof=1) / math.sqrt(n)) if n > 1 else math.nan
        if interval == "normal":
            import importlib

            stats: Any = importlib.import_module("scipy.stats")  # untyped: no stubs
            z = float(stats.norm.ppf(0.5 + level / 2.0))
            bounds = (value - z * se, value + z * se)
        else:
            draws = _bootstrap_means(per_imp[:, None], np.ones((n, 1)), bootstrap, rng, False)
            bounds = _percentiles(draws, level)
        kind_name = estimator
    else:
        if kind == "pbm":
            raise OptionError("the self-normalised estimators read logged propensities")
        if interval == "normal":
            raise OptionError(
                f"{estimator} is a ratio: its interval is the bootstrap's (interval='bootstrap')"
            )
        value = _self_normalised(terms.sum(axis=0), w.sum(axis=0))
        draws = _bootstrap_means(terms, w, bootstrap, rng, True)
        bounds = _percentiles(draws, level)
        se = float(np.std(draws, ddof=1)) if draws.shape[0] > 1 else math.nan
        kind_name = estimator
    return Estimate(
        estimator=kind_name,
        value=value,
        interval=bounds,
        confidence=level,
        standard_error=se,
        impressions=n,
        terms=terms,
        weights=w,
    )


def _required(values: Float64Array | None) -> Float64Array:
    if values is None:  # the callers check first; this keeps the types exact
        raise OptionError("the target's probabilities are missing")
    return values


def _self_normalised(numerator: Float64Array, denominator: Float64Array) -> float:
    keep = denominator > 0
    return float((numerator[keep] / denominator[keep]).sum())


def _bootstrap_means(
    terms: Float64Array, weights: Float64Array, draws: int, rng: np.random.Generator, ratio: bool
) -> Float64Array:
    """``draws`` resamples of the impressions with replacement (in chunks of bounded
    size): the mean of the per-impression sums, or the self-normalised value."""
    n, width = terms.shape
    if n == 0:
        return np.full(draws, math.nan)
    per_draw = n * (width if ratio else 1)
    chunk = max(1, min(draws, 4_000_000 // max(per_draw, 1)))
    out = np.empty(draws)
    done = 0
    per_imp = terms.sum(axis=1)
    while done < draws:
        size = min(chunk, draws - done)
        index = rng.integers(0, n, size=(size, n))
        if ratio:
            num = terms[index].sum(axis=1)
            den = weights[index].sum(axis=1)
            safe = np.where(den > 0, den, 1.0)
            out[done : done + size] = np.where(den > 0, num / safe, 0.0).sum(axis=1)
        else:
            out[done : done + size] = per_imp[index].mean(axis=1)
        done += size
    return out


def _percentiles(draws: Float64Array, confidence: float) -> tuple[float, float]:
    tail = (1.0 - confidence) / 2.0
    low, high = np.quantile(draws, [tail, 1.0 - tail])
    return (float(low), float(high))


def _segment_cumsum(values: Float64Array, offsets: Any) -> Float64Array:
    total = np.cumsum(values)
    starts = offsets[:-1]
    before = np.where(starts > 0, total[np.maximum(starts - 1, 0)], 0.0)
    before = np.where(starts > 0, before, 0.0)
    out: Float64Array = total - np.repeat(before, np.diff(offsets))
    return out


def _row_values(values: Any, log: ClickLog, what: str) -> Float64Array | None:
    if values is None:
        return None
    array = np.asarray(values, dtype=np.float64)
    if array.shape != (log.num_rows,):
        raise OptionError(f"{what} needs one value per log row ({log.num_rows}), not {array.shape}")
    if not np.all((array >= 0) & (array <= 1)):
        raise OptionError(f"{what} must hold probabilities in [0, 1]")
    return array


def _bias_table(position_bias: Mapping[int, float], width: int) -> Float64Array:
    theta = np.zeros(max(width, 1))
    for r in range(1, width + 1):
        value = position_bias.get(r)
        if value is None or not (0 < float(value) <= 1):
            raise OptionError(
                f"position_bias needs an examination probability in (0, 1] for every shown "
                f"position; position {r} has {value!r}"
            )
        theta[r - 1] = float(value)
    return theta


def position_bias(
    log: Any,
    method: str = "pbm",
    *,
    tol: float = 1e-8,
    max_iter: int = 5000,
) -> dict[int, float]:
    """The examination probability of each position, relative to the most examined (1).

    Parameters
    ----------
    log
        A :class:`~ranklens.logs.ClickLog` or anything :func:`~ranklens.logs.read_log` reads.
    method
        ``"pbm"``: the examination of a PBM fitted to the whole log (maximum likelihood, no
        prior). ``"harvesting"``: intervention harvesting (Agarwal et al. 2019): the PBM
        fitted only to the (query, document) pairs that were shown at two or more
        positions (by different rankers: the log's ``ranker`` column), each impression
        weighted by one over its ranker's impressions of that query, so that every ranker
        weighs the same for each query (the relative examination of two positions then
        comes from the same documents shown at both).

    Examples
    --------
    >>> from ranklens.logs import read_log
    >>> log = read_log({"session_id": [1, 1, 2, 2], "query_id": ["q"] * 4,
    ...                 "doc_id": ["a", "b", "b", "a"], "position": [1, 2, 1, 2],
    ...                 "clicked": [True, False, True, False], "ranker": ["A", "A", "B", "B"]})
    >>> {k: round(v, 3) for k, v in position_bias(log, "harvesting").items()}
    {1: 1.0, 2: 0.0}
    """
    from ranklens.logs.click_models import fit_patterns, position_em
    from ranklens.logs.patterns import patterns_of, session_matrix
    from ranklens.logs.read import read_log

    log = read_log(log)
    if method == "pbm":
        fit = fit_patterns(patterns_of(log), "PBM", prior=None, tol=tol, max_iter=max_iter)
        return {int(k): float(v) for k, v in (fit.examination or {}).items()}
    if method != "harvesting":
        raise OptionError(f"method must be 'pbm' or 'harvesting', not {method!r}")
    if log.ranker is None or log.rankers is None:
        raise InputError(
            "intervention harvesting needs the 'ranker' of each impression (pairs of rankers "
            "that put the same documents at different positions)",
            path=log.source,
        )
    _, table, _, _, pair_of_rows = session_matrix(log)
    n_pairs = table.shape[1]
    positions = log.positions
    seen = np.zeros((n_pairs, max(log.max_length, 1)), dtype=bool)
    seen[pair_of_rows, positions - 1] = True
    intervened = seen.sum(axis=1) >= 2
    if not intervened.any():
        raise InputError(
            "no (query, document) pair was shown at two positions: nothing to harvest (the "
            "rankers must disagree on where documents go)",
            path=log.source,
        )
    n_rankers = len(log.rankers)
    key = log.query * n_rankers + log.ranker
    per_key = np.bincount(key, minlength=len(log.queries) * n_rankers).astype(np.float64)
    imp_weight = 1.0 / per_key[key]
    row_weight = imp_weight[log.impression_of_rows]
    keep = intervened[pair_of_rows]
    _, theta, observed, _, _ = position_em(
        pair_of_rows[keep],
        positions[keep] - 1,
        log.clicked[keep],
        row_weight[keep],
        n_pairs,
        max(log.max_length, 1),
        None,
        tol,
        max_iter,
    )
    top = float(theta[observed].max())
    return {r + 1: float(theta[r] / top) for r in range(theta.shape[0]) if observed[r]}
