r"""Click models (Chuklin, Markov and de Rijke, *Click Models for Web Search*, 2015),
estimated from a click log, evaluated on held-out sessions and turned into qrels.

Notation: a session shows documents :math:`d_1, \dots, d_n` for query :math:`q`;
:math:`E_r` (examined), :math:`A_r` (attractive), :math:`C_r = E_r A_r` (clicked),
:math:`S_r` (satisfied); :math:`\alpha_{qd} = P(A = 1)`, :math:`\sigma_{qd} = P(S=1 \mid C=1)`.

========  ==================================================  ===========================
model     users                                                estimation
========  ==================================================  ===========================
PBM       :math:`P(E_r=1) = \gamma_r`                           EM
UBM       :math:`P(E_r=1 \mid \text{last click at } r') =       EM
          \gamma_{rr'}` (:math:`r'=0`: no click above)
Cascade   examine down to the first click, then stop            closed form (its MLE)
DCM       after a click at :math:`r` go on with                 EM; ``method="closed"``: the
          :math:`\lambda_r`, after a skip always                closed form (the last click
                                                                satisfies)
SDBN      DBN with :math:`\gamma = 1`                           EM; ``method="closed"`` as
                                                                DCM
DBN       after a click satisfied with :math:`\sigma_{qd}`;     EM
          otherwise go on with :math:`\gamma`
========  ==================================================  ===========================

EM is exact: its E-step sums over the hidden variables (whether the last click satisfied,
how far below it the user read) without approximation; ``tests/test_logs_click_models.py``
checks the likelihood and its maximum against brute-force enumeration.

Every estimate adds ``prior = (clicks, views)`` pseudo-counts to each parameter (by
default one click in two views, as PyClick: a parameter without data is 0.5); EM keeps
every probability in :math:`[10^{-6}, 1 - 10^{-6}]`.

EM stopping rule: stop after the first iteration in which no parameter (PBM and UBM: no
click probability :math:`\alpha\gamma`, what the data identify) moved by more than
``tol`` (default :math:`10^{-6}`), or after ``max_iter`` iterations (default 2000;
``converged`` says which). PBM and UBM are identified only up to a common factor between
attractiveness and examination; after fitting, the examination probabilities are scaled so
that the most examined position (PBM) or cell (UBM) is 1 and the attractiveness by the
inverse factor (``normalize=False`` keeps the raw EM point): every click probability
:math:`\alpha\gamma` is unchanged.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np

from ranklens.base.errors import EmptyInputError, OptionError
from ranklens.base.types import BoolArray, Float64Array, Int64Array
from ranklens.logs.log import ClickLog
from ranklens.logs.patterns import BEFORE, BELOW, LAST, LogStats, Patterns

if TYPE_CHECKING:
    from ranklens.data.qrels import Qrels

MODELS = ("PBM", "Cascade", "DCM", "UBM", "DBN", "SDBN")
"""The click models :func:`fit_click_model` estimates."""
PROB_MIN = 1e-6
"""Probabilities are kept in ``[PROB_MIN, 1 - PROB_MIN]`` (so no log of 0)."""
DEFAULT_PRIOR = (1.0, 2.0)
DEFAULT_TOL = 1e-6
DEFAULT_MAX_ITER = 2000
UBM_MAX_POSITIONS = 1000
"""The longest session UBM takes: its examination table has a probability for each
(position, previous click position) pair, :math:`n(n + 1)` for sessions of :math:`n`
positions (8 MB at 1,000 positions, 6.7 GiB at 30,000)."""


def check_ubm_length(length: int, session: str | None = None, source: str | None = None) -> None:
    """Refuse, before any table is made, a UBM of sessions longer than
    :data:`UBM_MAX_POSITIONS`, naming the session when it is known."""
    if length <= UBM_MAX_POSITIONS:
        return
    from ranklens.base.errors import InputError

    who = f"session '{session}'" if session is not None else "a session"
    cells = length * (length + 1)
    raise InputError(
        f"{who} shows {length:,} documents: UBM's examination table has one probability per "
        f"(position, previous click position), {cells:,} of them ({cells * 8 / 2**30:.2g} GiB), "
        f"and UBM takes sessions of at most {UBM_MAX_POSITIONS:,} positions. Keep the top "
        f"{UBM_MAX_POSITIONS:,} positions of each session (drop the rows with a larger "
        "position; users rarely read further), or fit PBM or a cascade model (DBN, SDBN, "
        "DCM), whose parameters grow with the length only",
        path=source,
    )


def check_ubm_log(log: ClickLog) -> None:
    """:func:`check_ubm_length` for the longest session of ``log``."""
    if log.num_impressions and log.max_length > UBM_MAX_POSITIONS:
        longest = int(np.argmax(log.lengths))
        check_ubm_length(int(log.lengths[longest]), log.sessions[longest], log.source)


def _clip(values: Float64Array) -> Float64Array:
    return np.clip(values, PROB_MIN, 1.0 - PROB_MIN)


def _model_name(model: str) -> str:
    for name in MODELS:
        if name.lower() == str(model).lower():
            return name
    raise OptionError(f"unknown click model {model!r}: choose one of {', '.join(MODELS)}")


class IdDict(dict[str, Any]):
    """A dict keyed by ids as text, that also answers to an id given as a number:
    ``values[7]`` is ``values["7"]`` (the log's ids are read as text). It is a ``dict``,
    equal to and printed as one.

    >>> values = IdDict({"7": 0.5})
    >>> values[7], 7 in values, values.get(8)
    (0.5, True, None)
    """

    def __missing__(self, key: object) -> Any:
        if isinstance(key, str):
            raise KeyError(key)
        text = _id_text(key)
        if text is None or not dict.__contains__(self, text):
            raise KeyError(key)
        return self[text]

    def __contains__(self, key: object) -> bool:
        if dict.__contains__(self, key):
            return True
        text = None if isinstance(key, str) else _id_text(key)
        return text is not None and dict.__contains__(self, text)

    def get(self, key: object, default: Any = None) -> Any:
        """The value of ``key`` (an id as text or as a number), or ``default``."""
        if key not in self:
            return default
        return self[key]  # type: ignore[index]


def _id_text(key: object) -> str | None:
    """An id as the reader writes it: integers (and whole floats) in decimal."""
    if isinstance(key, bool):
        return None
    if isinstance(key, int | np.integer):
        return str(int(key))
    if isinstance(key, float | np.floating) and float(key).is_integer():
        return str(int(key))
    return None


@dataclass(frozen=True)
class Evaluation:
    """How well a fitted click model predicts held-out sessions.

    Attributes
    ----------
    log_likelihood : :math:`\\sum_s \\log P(C^{(s)})`, natural log, the sessions'
        clicks predicted rank by rank from the clicks above (conditional probabilities).
    log_likelihood_per_session : the same divided by the number of sessions.
    log_likelihood_per_rank : divided by the number of shown (session, rank) cells (PyClick's
        figure when every session shows the same number of documents).
    perplexity_at : ``{rank: perplexity}``, :math:`2^{-\\frac{1}{|S_r|}\\sum_{s \\in S_r}
        \\log_2 P(C_r = c^{(s)}_r)}` with the full click probability :math:`P(C_r = 1)`
        (not conditioned on the clicks above), over the sessions that show rank ``r``.
    perplexity : the mean of ``perplexity_at`` over ranks (1 is perfect, 2 is a coin).
    sessions : how many sessions were evaluated.
    unseen : how many shown (query, document) pairs had no estimate (given 0.5).
    """

    log_likelihood: float
    log_likelihood_per_session: float
    log_likelihood_per_rank: float
    perplexity: float
    perplexity_at: dict[int, float]
    sessions: int
    unseen: int


@dataclass(frozen=True, eq=False)
class ClickModel:
    """A fitted click model; build one with :func:`fit_click_model`.

    Attributes
    ----------
    model : the model's name (one of :data:`MODELS`).
    queries, documents : the id tables of the log it was fitted on.
    pair_query, pair_doc : the query and document index of each (query, document) pair.
    alpha : attractiveness per pair.
    sigma : satisfaction per pair (DBN, SDBN), else ``None``.
    impressions : how many times each pair was shown.
    gamma : PBM: examination per rank; UBM: (rank x previous click rank) matrix with
        ``gamma[r - 1, r']``; DCM: continuation per rank; DBN: a 1-element array holding
        the continuation :math:`\\gamma`; Cascade, SDBN: empty.
    iterations, converged : the EM iterations done and whether the stopping rule was met
        (closed forms: 0 and ``True``).
    train_log_likelihood : the log-likelihood of the training sessions.
    """

    model: str
    queries: tuple[str, ...]
    documents: tuple[str, ...]
    pair_query: Int64Array
    pair_doc: Int64Array
    alpha: Float64Array
    sigma: Float64Array | None
    impressions: Float64Array
    gamma: Float64Array
    iterations: int = 0
    converged: bool = True
    train_log_likelihood: float = math.nan
    prior: tuple[float, float] | None = field(default=DEFAULT_PRIOR)

    def __repr__(self) -> str:
        return (
            f"ClickModel({self.model}, {self.pair_query.shape[0]} query-document pairs, "
            f"iterations={self.iterations}, converged={self.converged})"
        )

    def _per_pair(self, values: Float64Array) -> dict[str, dict[str, float]]:
        out: dict[str, dict[str, float]] = IdDict()
        queries, documents = self.queries, self.documents
        for q, d, v in zip(
            self.pair_query.tolist(), self.pair_doc.tolist(), values.tolist(), strict=True
        ):
            out.setdefault(queries[q], IdDict())[documents[d]] = v
        return out

    @cached_property
    def attractiveness(self) -> dict[str, dict[str, float]]:
        """``{query: {document: P(A = 1)}}``."""
        return self._per_pair(self.alpha)

    @cached_property
    def satisfaction(self) -> dict[str, dict[str, float]] | None:
        """``{query: {document: P(S = 1 | C = 1)}}`` (DBN, SDBN), else ``None``."""
        return None if self.sigma is None else self._per_pair(self.sigma)

    @property
    def relevance_values(self) -> Float64Array:
        """Per pair: :math:`\\alpha\\sigma` for DBN and SDBN (the probability that a user
        who examines the document is satisfied by it), :math:`\\alpha` otherwise."""
        return self.alpha if self.sigma is None else self.alpha * self.sigma

    @cached_property
    def relevance(self) -> dict[str, dict[str, float]]:
        """``{query: {document: relevance}}`` (:attr:`relevance_values`)."""
        return self._per_pair(self.relevance_values)

    @cached_property
    def examination(self) -> dict[Any, float] | None:
        """PBM: ``{position: P(E = 1)}``; UBM: ``{(position, previous click position):
        P(E = 1)}`` (previous click position 0: no click above); else ``None``."""
        if self.model == "PBM":
            return {r + 1: float(g) for r, g in enumerate(self.gamma.tolist())}
        if self.model == "UBM":
            return {
                (r + 1, p): float(self.gamma[r, p])
                for r in range(self.gamma.shape[0])
                for p in range(r + 1)
            }
        return None

    @cached_property
    def continuation(self) -> dict[int, float] | float | None:
        """DCM: ``{position: P(go on after a click there)}``; DBN: :math:`\\gamma`, the
        probability of going on after an unsatisfying document; else ``None``."""
        if self.model == "DCM":
            return {r + 1: float(g) for r, g in enumerate(self.gamma.tolist())}
        if self.model == "DBN":
            return float(self.gamma[0])
        return None

    # ---- applying the model to a log --------------------------------------------------

    def _pairs_of(self, log: ClickLog) -> tuple[Int64Array, BoolArray]:
        """For each row of ``log``: the index of its pair in this model, and whether known."""
        own = (
            np.char.add(
                np.char.add(np.asarray(self.queries, dtype=str)[self.pair_query], "\x00"),
                np.asarray(self.documents, dtype=str)[self.pair_doc],
            )
            if self.pair_query.shape[0]
            else np.zeros(0, dtype=str)
        )
        order = np.argsort(own, kind="stable")
        ordered = own[order]
        if log.num_rows == 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=bool)
        query_of_rows = np.asarray(log.queries, dtype=str)[log.query[log.impression_of_rows]]
        keys = np.char.add(
            np.char.add(query_of_rows, "\x00"), np.asarray(log.documents, dtype=str)[log.doc]
        )
        at = np.searchsorted(ordered, keys)
        at_clipped = np.minimum(at, max(ordered.shape[0] - 1, 0))
        known = (
            (at < ordered.shape[0]) & (ordered[at_clipped] == keys)
            if ordered.shape[0]
            else (np.zeros(keys.shape[0], dtype=bool))
        )
        index = np.where(known, order[at_clipped] if ordered.shape[0] else 0, -1)
        return index.astype(np.int64), known

    def _cells(self, log: ClickLog) -> tuple[Float64Array, Float64Array, BoolArray, BoolArray, int]:
        """Attractiveness, satisfaction, clicks and validity per (session, rank) cell."""
        n, width = log.num_impressions, max(log.max_length, 1)
        index, known = self._pairs_of(log)
        alpha_rows = np.where(known, self.alpha[np.maximum(index, 0)], 0.5)
        a = np.zeros((n, width))
        s = np.zeros((n, width))
        c = np.zeros((n, width), dtype=bool)
        valid = np.zeros((n, width), dtype=bool)
        rows, cols = log.impression_of_rows, log.positions - 1
        a[rows, cols] = alpha_rows
        if self.sigma is not None:
            s[rows, cols] = np.where(known, self.sigma[np.maximum(index, 0)], 0.5)
        elif self.model == "DCM":
            s[rows, cols] = 1.0 - self._gamma_at(width)[cols]
        c[rows, cols] = log.clicked
        valid[rows, cols] = True
        return a, s, c, valid, int((~known).sum())

    def _gamma_at(self, width: int) -> Float64Array:
        """The rank parameters for ``width`` ranks (0.5 past the fitted ranks)."""
        if self.model in ("PBM", "DCM"):
            out = np.full(width, 0.5)
            k = min(width, self.gamma.shape[0])
            out[:k] = self.gamma[:k]
            return out
        if self.model == "UBM":
            out = np.full((width, width + 1), 0.5)
            k = min(width, self.gamma.shape[0])
            out[:k, : k + 1] = self.gamma[:k, : k + 1]
            return out
        return self.gamma

    def probabilities(self, log: Any) -> tuple[Float64Array, Float64Array]:
        """Per row of ``log`` (read with :func:`~ranklens.logs.read_log`): the conditional
        probability of the observed click or skip given the clicks above, and the full
        click probability :math:`P(C_r = 1)`."""
        from ranklens.logs.read import read_log

        log = read_log(log)
        if self.model == "UBM":
            check_ubm_log(log)
        a, s, c, valid, _ = self._cells(log)
        cond, full = _session_probabilities(self.model, a, s, c, valid, self._gamma_at(a.shape[1]))
        rows, cols = log.impression_of_rows, log.positions - 1
        return cond[rows, cols], full[rows, cols]

    def evaluate(self, log: Any) -> Evaluation:
        """Log-likelihood and per-rank perplexity of the sessions of ``log`` (held-out
        sessions, read with :func:`~ranklens.logs.read_log`): see :class:`Evaluation`.

        A (query, document) pair the model has no estimate for gets attractiveness (and
        satisfaction) 0.5; :attr:`Evaluation.unseen` counts them.
        """
        from ranklens.logs.read import read_log

        log = read_log(log)
        if self.model == "UBM":
            check_ubm_log(log)
        a, s, c, valid, unseen = self._cells(log)
        cond, full = _session_probabilities(self.model, a, s, c, valid, self._gamma_at(a.shape[1]))
        cond = np.where(valid, _clip(cond), 1.0)
        total = float(np.log(cond).sum())
        observed = np.where(c, full, 1.0 - full)
        observed = np.where(valid, _clip(observed), 1.0)
        shown = valid.sum(axis=0)
        per_rank = np.log2(observed).sum(axis=0)
        perplexity_at = {
            r + 1: float(2.0 ** (-per_rank[r] / shown[r])) for r in range(a.shape[1]) if shown[r]
        }
        sessions = log.num_impressions
        cells = int(valid.sum())
        return Evaluation(
            log_likelihood=total,
            log_likelihood_per_session=total / sessions if sessions else math.nan,
            log_likelihood_per_rank=total / cells if cells else math.nan,
            perplexity=float(np.mean(list(perplexity_at.values()))) if perplexity_at else math.nan,
            perplexity_at=perplexity_at,
            sessions=sessions,
            unseen=unseen,
        )

    def to_qrels(
        self,
        thresholds: Sequence[float] | None = None,
        *,
        scale: int | None = None,
        of: str = "relevance",
        min_impressions: float = 1,
    ) -> Qrels:
        """Judgments from the model's estimates, for every measure of ranklens.

        Parameters
        ----------
        thresholds
            Increasing cut points :math:`t_1 < t_2 < \\dots`: the grade of a document is the
            number of cut points at or below its value (below :math:`t_1`: 0). ``[0.5]``
            gives binary judgments.
        scale
            Instead of thresholds: the value as an integer grade ``round(scale * value)``
            (``scale=100``: percent), so that gain-based measures (nDCG with linear gains,
            ...) weigh documents by the estimated probability, to within ``1/scale``.
        of
            ``"relevance"`` (default: :attr:`relevance_values`), ``"attractiveness"`` or
            ``"satisfaction"`` (DBN, SDBN).
        min_impressions
            Pairs shown fewer times are left out (unjudged).

        Examples
        --------
        >>> from ranklens.logs import read_log, fit_click_model
        >>> log = read_log({"session_id": [1, 1, 2, 2], "query_id": ["q"] * 4,
        ...                 "doc_id": ["a", "b", "a", "b"], "position": [1, 2, 1, 2],
        ...                 "clicked": [True, False, True, True]})
        >>> model = fit_click_model(log, "SDBN", prior=None, method="closed")
        >>> model.relevance  # a: clicked twice, last click once; b: clicked once, last
        {'q': {'a': 0.5, 'b': 1.0}}
        >>> model.to_qrels([0.25, 0.75]).to_dict()
        {'q': {'a': 1, 'b': 2}}
        >>> model.to_qrels(scale=100).to_dict()
        {'q': {'a': 50, 'b': 100}}
        """
        from ranklens.data.qrels import Qrels

        if of == "relevance":
            values = self.relevance_values
        elif of == "attractiveness":
            values = self.alpha
        elif of == "satisfaction":
            if self.sigma is None:
                raise OptionError(f"{self.model} has no satisfaction; use of='attractiveness'")
            values = self.sigma
        else:
            raise OptionError(
                f"of must be 'relevance', 'attractiveness' or 'satisfaction', not {of!r}"
            )
        if (thresholds is None) == (scale is None):
            raise OptionError("give either thresholds (graded) or scale (probabilities), one")
        if thresholds is not None:
            cuts = np.asarray(list(thresholds), dtype=np.float64)
            if cuts.size == 0 or not np.all(np.isfinite(cuts)) or np.any(np.diff(cuts) <= 0):
                raise OptionError(
                    f"thresholds must be increasing finite numbers, not {list(thresholds)!r}"
                )
            grades = np.searchsorted(cuts, values, side="right").astype(np.int64)
        else:
            if not isinstance(scale, int) or isinstance(scale, bool) or scale < 1:
                raise OptionError(f"scale must be a positive integer, not {scale!r}")
            grades = np.rint(values * scale).astype(np.int64)
        keep = self.impressions >= min_impressions
        if not keep.any():
            raise EmptyInputError(
                f"no (query, document) pair was shown {min_impressions} times or more: no "
                "judgments to make (lower min_impressions)"
            )
        records = [
            (self.queries[q], self.documents[d], int(g))
            for q, d, g in zip(
                self.pair_query[keep].tolist(),
                self.pair_doc[keep].tolist(),
                grades[keep].tolist(),
                strict=True,
            )
        ]
        return Qrels.from_records(records, source=f"<{self.model} click model>")


# ---- likelihoods ------------------------------------------------------------------------


def _session_probabilities(
    model: str,
    a: Float64Array,
    s: Float64Array,
    c: BoolArray,
    valid: BoolArray,
    gamma: Float64Array,
) -> tuple[Float64Array, Float64Array]:
    """Per cell: P(observed click or skip | clicks above) and P(C_r = 1)."""
    n, width = a.shape
    cond = np.ones((n, width))
    full = np.zeros((n, width))
    if model == "PBM":
        p = a * gamma[None, :width]
        return np.where(c, p, 1.0 - p), p
    if model == "UBM":
        prev = np.zeros(n, dtype=np.int64)
        # reach[:, r'] = P(C_r' = 1 and no click from r' + 1 down to the current rank - 1)
        # (r' = 0: the start); then P(C_r = 1) = sum over r' < r of reach[:, r'] a gamma[r, r']
        reach = np.zeros((n, width + 1))
        reach[:, 0] = 1.0
        for r in range(width):
            p = a[:, r] * gamma[r, prev]
            cond[:, r] = np.where(c[:, r], p, 1.0 - p)
            prev = np.where(c[:, r] & valid[:, r], r + 1, prev)
            click = a[:, r, None] * gamma[None, r, : r + 1]
            total = (reach[:, : r + 1] * click).sum(axis=1)
            reach[:, : r + 1] *= 1.0 - click
            reach[:, r + 1] = total
            full[:, r] = total
        return cond, full
    # the cascade family: a click at r satisfies with s (Cascade: always; DCM: 1 - lambda_r)
    if model == "Cascade":
        sat = np.ones_like(a)
        go_on = 1.0
    elif model in ("DCM", "SDBN"):  # DCM: the caller fills s with 1 - lambda of each rank
        sat, go_on = s, 1.0
    else:
        sat, go_on = s, float(gamma[0])
    sat = np.clip(sat, 0.0, 1.0)
    exam_cond = np.ones(n)
    exam_full = np.ones(n)
    for r in range(width):
        ar = a[:, r]
        clicked = c[:, r]
        p_click = ar * exam_cond
        cond[:, r] = np.where(clicked, p_click, 1.0 - p_click)
        after_skip = exam_cond * (1.0 - ar) / np.maximum(1.0 - p_click, 1e-300) * go_on
        exam_cond = np.where(clicked, (1.0 - sat[:, r]) * go_on, after_skip)
        full[:, r] = ar * exam_full
        exam_full = exam_full * go_on * (ar * (1.0 - sat[:, r]) + (1.0 - ar))
    return cond, full


# ---- estimation ---------------------------------------------------------------------------


def _ratio(
    numerator: Any,
    denominator: Any,
    prior: tuple[float, float] | None,
    clip: bool = True,
) -> Float64Array:
    """``(numerator + prior clicks) / (denominator + prior views)``; without a prior, 0.5
    where the denominator is 0. EM keeps the result inside ``[PROB_MIN, 1 - PROB_MIN]``
    (``clip``); the closed forms report it as it is."""
    if prior is None:
        safe = np.where(denominator > 0, denominator, 1.0)
        out = np.where(denominator > 0, numerator / safe, 0.5)
    else:
        out = (numerator + prior[0]) / (denominator + prior[1])
    result = np.asarray(out, dtype=np.float64)
    return _clip(result) if clip else result


def _check_prior(prior: tuple[float, float] | None) -> tuple[float, float] | None:
    if prior is None:
        return None
    try:
        clicks, views = (float(prior[0]), float(prior[1]))
    except (TypeError, ValueError, IndexError):
        raise OptionError(f"prior must be (clicks, views) or None, not {prior!r}") from None
    if not (0 <= clicks <= views and views > 0 and math.isfinite(views)):
        raise OptionError(
            f"prior must be (clicks, views) with 0 <= clicks <= views and views > 0, not {prior!r}"
        )
    return clicks, views


def _aggregate_cells(
    pair: Int64Array, slot: Int64Array, click: BoolArray, count: Float64Array
) -> tuple[Int64Array, Int64Array, BoolArray, Float64Array]:
    """Cells with the same (pair, slot, click) merged."""
    if pair.shape[0] == 0:
        return pair, slot, click, count
    width = np.int64(slot.max() + 1)
    key = (pair * width + slot) * 2 + click
    unique, inverse = np.unique(key, return_inverse=True)
    summed = np.bincount(inverse.reshape(-1), weights=count, minlength=unique.shape[0])
    rest = unique // 2
    return rest // width, rest % width, (unique % 2).astype(bool), summed.astype(np.float64)


def _fit_position_em(
    stats: LogStats,
    ubm: bool,
    prior: tuple[float, float] | None,
    tol: float,
    max_iter: int,
) -> tuple[Float64Array, Float64Array, BoolArray, int, bool]:
    width = stats.ranks
    slots = stats.cell_rank * (width + 1) + stats.cell_prev if ubm else stats.cell_rank
    n_slots = width * (width + 1) if ubm else width
    alpha, theta, observed, iterations, converged = position_em(
        stats.cell_pair,
        slots,
        stats.cell_click,
        stats.cell_count,
        stats.num_pairs,
        n_slots,
        prior,
        tol,
        max_iter,
    )
    if ubm:
        theta = theta.reshape(width, width + 1)
        observed = observed.reshape(width, width + 1)
    return alpha, theta, observed, iterations, converged


def position_em(
    pair: Int64Array,
    slot: Int64Array,
    click: BoolArray,
    weight: Float64Array,
    n_pairs: int,
    n_slots: int,
    prior: tuple[float, float] | None,
    tol: float,
    max_iter: int,
) -> tuple[Float64Array, Float64Array, BoolArray, int, bool]:
    """EM for :math:`P(C = 1) = \\alpha_{pair}\\theta_{slot}` over weighted cells (PBM:
    the slot is the rank; UBM: the rank and the previous click). Returns alpha, theta,
    which slots have data, the iterations and whether the stopping rule was met."""
    cp, cs, cc, cw = _aggregate_cells(pair, slot, click, weight)
    alpha = np.full(n_pairs, 0.5)
    theta = np.full(n_slots, 0.5)
    alpha_den = np.bincount(cp, weights=cw, minlength=n_pairs)
    theta_den = np.bincount(cs, weights=cw, minlength=n_slots)
    iterations, converged = 0, False
    while iterations < max_iter:
        a = alpha[cp]
        t = theta[cs]
        joint = 1.0 - a * t
        post_a = np.where(cc, 1.0, a * (1.0 - t) / joint)
        post_t = np.where(cc, 1.0, t * (1.0 - a) / joint)
        new_alpha = _ratio(
            np.bincount(cp, weights=cw * post_a, minlength=n_pairs), alpha_den, prior
        )
        new_theta = _ratio(
            np.bincount(cs, weights=cw * post_t, minlength=n_slots), theta_den, prior
        )
        # the stopping rule looks at what the data identify: the click probabilities
        change = float(np.max(np.abs(new_alpha[cp] * new_theta[cs] - a * t), initial=0.0))
        alpha, theta = new_alpha, new_theta
        iterations += 1
        if change < tol:
            converged = True
            break
    return alpha, theta, theta_den > 0, iterations, converged


def _fit_closed(
    stats: LogStats, model: str, prior: tuple[float, float] | None
) -> tuple[Float64Array, Float64Array | None, Float64Array]:
    """Cascade, DCM and SDBN by their closed forms: counts over the ranks the model says
    were read (Cascade: down to the first click; DCM, SDBN: down to the last, all of them
    without a click)."""
    pair, count, click, zone = stats.cell_pair, stats.cell_count, stats.cell_click, stats.cell_zone
    n_pairs, width = stats.num_pairs, stats.ranks
    read = stats.cell_prev == 0 if model == "Cascade" else zone != BELOW
    views = np.bincount(pair[read], weights=count[read], minlength=n_pairs)
    hits = np.bincount(pair[read & click], weights=count[read & click], minlength=n_pairs)
    alpha = _ratio(hits, views, prior, clip=False)
    if model == "SDBN":
        clicked = np.bincount(pair[click], weights=count[click], minlength=n_pairs)
        last = zone == LAST
        lasts = np.bincount(pair[last], weights=count[last], minlength=n_pairs)
        return alpha, _ratio(lasts, clicked, prior, clip=False), np.zeros(0)
    if model == "DCM":
        rank = stats.cell_rank
        clicked = np.bincount(rank[click], weights=count[click], minlength=width)
        on = click & (zone == BEFORE)
        went_on = np.bincount(rank[on], weights=count[on], minlength=width)
        return alpha, None, _ratio(went_on, clicked, prior, clip=False)
    return alpha, None, np.zeros(0)


def _fit_cascade_em(
    stats: LogStats,
    model: str,
    prior: tuple[float, float] | None,
    tol: float,
    max_iter: int,
) -> tuple[Float64Array, Float64Array, Float64Array, int, bool]:
    """Exact EM for the DBN family: DBN (satisfaction per pair, gamma estimated), SDBN
    (gamma = 1) and DCM (satisfaction per rank, 1 - lambda_r; gamma = 1).

    Above a session's last click ``l`` nothing is hidden: every rank was read, a skipped
    document was not attractive, a clicked one did not satisfy, the user went on; those
    cells add fixed counts. Below ``l`` (the tails), with ``B_r = P(no click at r..n |
    E_r = 1)`` and ``p = P(E_{l+1} = 1 | C_{<=l})``, the posteriors are ``P(S_l = 1 | C) =
    s_l / Z``, ``P(E_r = 1 | C) = p prod_{l<j<r} (1 - a_j) gamma B_r / Z``
    (``Z = 1 - p + p B_{l+1}``) and ``P(A_r = 1 | C) = a_r (1 - P(E_r = 1 | C))`` for a
    skipped document. The E-step runs over slices of the tails, so its work arrays stay
    bounded. Returns attractiveness, satisfaction (per pair, or per rank for DCM), gamma,
    the iterations and whether the stopping rule was met.
    """
    n_pairs, width = stats.num_pairs, stats.ranks
    by_rank = model == "DCM"
    n_sat = width if by_rank else n_pairs
    pair, count, click, zone = stats.cell_pair, stats.cell_count, stats.cell_click, stats.cell_zone
    alpha_den = np.bincount(pair, weights=count, minlength=n_pairs)
    slot = stats.cell_rank if by_rank else pair
    sigma_den = np.bincount(slot[click], weights=count[click], minlength=n_sat)
    above = zone == BEFORE
    fixed_a = np.bincount(
        pair[above & click], weights=count[above & click], minlength=n_pairs
    ).astype(np.float64)
    fixed_moves = float(count[above].sum())
    alpha = np.full(n_pairs, 0.5)
    sigma = np.full(n_sat, 0.5)
    gamma = 0.5 if model == "DBN" else 1.0
    iterations, converged = 0, False
    while iterations < max_iter:
        sum_a = fixed_a.copy()
        sum_s = np.zeros(n_sat)
        moves = np.array([fixed_moves, fixed_moves])
        for chunk in stats.tails.chunks():
            _cascade_estep(chunk, alpha, sigma, gamma, by_rank, sum_a, sum_s, moves)
        new_alpha = _ratio(sum_a, alpha_den, prior)
        if by_rank:  # the prior is on the continuation lambda = 1 - satisfaction
            new_sigma = 1.0 - _ratio(sigma_den - sum_s, sigma_den, prior)
        else:
            new_sigma = _ratio(sum_s, sigma_den, prior)
        new_gamma = gamma
        if model == "DBN":
            new_gamma = float(_ratio(np.array([moves[0]]), np.array([moves[1]]), prior)[0])
        change = max(
            float(np.max(np.abs(new_alpha - alpha), initial=0.0)),
            float(np.max(np.abs(new_sigma - sigma), initial=0.0)),
            abs(new_gamma - gamma),
        )
        alpha, sigma, gamma = new_alpha, new_sigma, new_gamma
        iterations += 1
        if change < tol:
            converged = True
            break
    return alpha, sigma, np.array([gamma]), iterations, converged


def _first_and_last_click(patterns: Patterns) -> tuple[Int64Array, Int64Array]:
    """1-based rank of each row's first and last click (its length + 1 and 0 if none)."""
    clicks = patterns.clicks & patterns.valid
    width = patterns.ranks
    any_click = clicks.any(axis=1)
    first = np.where(any_click, np.argmax(clicks, axis=1) + 1, patterns.length + 1)
    last = np.where(any_click, width - np.argmax(clicks[:, ::-1], axis=1), 0)
    return first.astype(np.int64), last.astype(np.int64)


def _cascade_estep(
    chunk: Patterns,
    alpha: Float64Array,
    sigma: Float64Array,
    gamma: float,
    by_rank: bool,
    sum_a: Float64Array,
    sum_s: Float64Array,
    moves: Float64Array,
) -> None:
    """Add one slice of tails' expected counts (see :func:`_fit_cascade_em`) to ``sum_a``
    (attracted, per pair), ``sum_s`` (satisfied, per pair or rank) and ``moves`` (went on
    to the next rank, could have)."""
    valid = chunk.valid
    n, width = chunk.pair.shape
    clicks = chunk.clicks & valid
    pair = np.where(valid, chunk.pair, 0)
    count = chunk.count
    weights = np.broadcast_to(count[:, None], valid.shape)
    _, last = _first_and_last_click(chunk)
    ranks = np.arange(1, width + 1)[None, :]
    after = valid & (ranks > last[:, None])  # cells below the last click
    before = valid & (ranks < last[:, None])
    has_last = last > 0
    last_index = np.maximum(last - 1, 0)
    rows = np.arange(n)
    last_slot = chunk.offset + last_index if by_rank else pair[rows, last_index]
    a = np.where(valid, alpha[pair], 0.0)
    s_last = np.where(has_last, sigma[last_slot], 0.0)
    # tail[:, r] = P(no click at ranks r+1..n | E_{r+1} = 1), 1 past the end
    tail = np.ones((n, width + 1))
    for r in range(width - 1, -1, -1):
        step = (1.0 - a[:, r]) * (1.0 - gamma + gamma * tail[:, r + 1])
        tail[:, r] = np.where(valid[:, r], step, 1.0)
    start = np.where(has_last, (1.0 - s_last) * gamma, 1.0)
    z = 1.0 - start + start * tail[rows, last]
    forward = np.zeros((n, width + 1))
    forward[rows, last] = start
    for r in range(width):
        move = forward[:, r] * (1.0 - a[:, r]) * gamma
        forward[:, r + 1] = np.where(r + 1 > last, move, forward[:, r + 1])
    exam = np.where(before | clicks, 1.0, 0.0)
    exam = np.where(after, forward[:, :width] * tail[:, :width] / z[:, None], exam)
    post_a = np.where(clicks, 1.0, np.where(after, a * (1.0 - exam), 0.0))
    post_s = np.where(has_last, s_last / z, 0.0)
    sum_a += np.bincount(chunk.pair[valid], weights=(weights * post_a)[valid], minlength=sum_a.size)
    sum_s += np.bincount(
        last_slot[has_last], weights=count[has_last] * post_s[has_last], minlength=sum_s.size
    )
    # continuation: expected (E_r = 1, S_r = 0) and E_{r+1} = 1 for r < length
    trans = (np.arange(width)[None, :] < (chunk.length - 1)[:, None]) & valid
    den = np.where(before, 1.0, np.where(after, exam, 0.0))
    den[rows[has_last], last_index[has_last]] = 1.0 - post_s[has_last]
    num = np.zeros((n, width))
    num[:, : width - 1] = exam[:, 1:]
    moves[0] += float((weights * num)[trans].sum())
    moves[1] += float((weights * den)[trans].sum())


def _train_log_likelihood(fit: ClickModel, stats: LogStats) -> float:
    """The log-likelihood of the sessions the counts come from."""
    pair, count, click, zone = stats.cell_pair, stats.cell_count, stats.cell_click, stats.cell_zone
    a = fit.alpha[pair]
    if fit.model in ("PBM", "UBM"):
        gamma = fit._gamma_at(stats.ranks)
        t = (
            gamma[stats.cell_rank]
            if fit.model == "PBM"
            else gamma[stats.cell_rank, stats.cell_prev]
        )
        p = _clip(a * t)
        return float((count * np.where(click, np.log(p), np.log(1.0 - p))).sum())
    # above the last click: read, not satisfied by a click, went on
    go_on = float(fit.gamma[0]) if fit.model == "DBN" else 1.0
    sat = _satisfaction_of_cells(fit, pair, stats.cell_rank)
    above = zone == BEFORE
    factor = np.where(click, _clip(a) * _clip(1.0 - sat), _clip(1.0 - a)) * go_on
    total = float((count[above] * np.log(factor[above])).sum()) if go_on > 0 else -math.inf
    # the tails: from the last click on (the whole session without clicks)
    for chunk in stats.tails.chunks():
        valid = chunk.valid
        tail_pair = np.where(valid, chunk.pair, 0)
        ta = np.where(valid, fit.alpha[tail_pair], 0.0)
        ranks = chunk.offset[:, None] + np.arange(chunk.ranks)[None, :]
        ts = np.where(valid, _satisfaction_of_cells(fit, tail_pair, ranks), 0.0)
        cond, _ = _session_probabilities(
            fit.model, ta, ts, chunk.clicks & valid, valid, fit._gamma_at(chunk.ranks)
        )
        cond = np.where(valid, _clip(cond), 1.0)
        total += float((np.log(cond).sum(axis=1) * chunk.count).sum())
    return total


def _satisfaction_of_cells(fit: ClickModel, pair: Any, rank: Any) -> Any:
    """The probability that a click satisfies, for cells given by pair and 0-based rank."""
    if fit.sigma is not None:
        return fit.sigma[pair]
    if fit.model == "DCM":
        return 1.0 - fit._gamma_at(int(np.max(rank, initial=0)) + 1)[rank]
    return np.ones(np.shape(pair))


def fit_patterns(
    stats: LogStats,
    model: str,
    *,
    prior: tuple[float, float] | None = DEFAULT_PRIOR,
    tol: float = DEFAULT_TOL,
    max_iter: int = DEFAULT_MAX_ITER,
    normalize: bool = True,
    method: str | None = None,
) -> ClickModel:
    """Fit ``model`` on a log's counts (see :func:`fit_click_model`)."""
    name = _model_name(model)
    if method not in (None, "em", "closed"):
        raise OptionError(f"method must be 'em' or 'closed', not {method!r}")
    if method == "closed" and name not in ("Cascade", "DCM", "SDBN"):
        raise OptionError(f"{name} has no closed form: it is estimated by EM (method='em' or None)")
    if method == "em" and name == "Cascade":
        raise OptionError("the cascade model's estimate is its closed form (method='closed')")
    method = method or ("closed" if name == "Cascade" else "em")
    prior = _check_prior(prior)
    if not (isinstance(max_iter, int) and max_iter >= 1):
        raise OptionError(f"max_iter must be a positive integer, not {max_iter!r}")
    if not (tol >= 0 and math.isfinite(tol)):
        raise OptionError(f"tol must be a non-negative number, not {tol!r}")
    sigma: Float64Array | None = None
    iterations, converged = 0, True
    if name == "UBM":
        check_ubm_length(stats.ranks)
    if name in ("PBM", "UBM"):
        alpha, gamma, observed, iterations, converged = _fit_position_em(
            stats, name == "UBM", prior, tol, max_iter
        )
        if normalize and observed.any():
            top = float(gamma[observed].max())
            gamma = np.where(observed, gamma / top, gamma)
            alpha = _clip(alpha * top)
    elif name == "DBN" or (name in ("DCM", "SDBN") and method == "em"):
        alpha, sat, gamma, iterations, converged = _fit_cascade_em(
            stats, name, prior, tol, max_iter
        )
        if name == "DCM":
            gamma = 1.0 - sat  # the continuation per rank
        else:
            sigma = sat
            if name == "SDBN":
                gamma = np.zeros(0)
    else:
        alpha, sigma, gamma = _fit_closed(stats, name, prior)
    fit = ClickModel(
        model=name,
        queries=stats.queries,
        documents=stats.documents,
        pair_query=stats.pair_query,
        pair_doc=stats.pair_doc,
        alpha=alpha,
        sigma=sigma,
        impressions=stats.pair_counts(),
        gamma=gamma,
        iterations=iterations,
        converged=converged,
        prior=prior,
    )
    object.__setattr__(fit, "train_log_likelihood", _train_log_likelihood(fit, stats))
    return fit


def fit_click_model(
    log: Any,
    model: str,
    *,
    prior: tuple[float, float] | None = DEFAULT_PRIOR,
    tol: float = DEFAULT_TOL,
    max_iter: int = DEFAULT_MAX_ITER,
    normalize: bool = True,
    method: str | None = None,
) -> ClickModel:
    """Estimate a click model from a click log.

    Parameters
    ----------
    log
        A :class:`~ranklens.logs.ClickLog` or anything :func:`~ranklens.logs.read_log`
        reads; a Parquet path is streamed by record batches into counts that do not grow
        with the log's length (:mod:`ranklens.logs.patterns`; its sessions' rows must be
        consecutive).
    model
        ``"PBM"``, ``"Cascade"``, ``"DCM"``, ``"UBM"``, ``"DBN"`` or ``"SDBN"`` (any case).
    prior
        ``(clicks, views)`` pseudo-counts added to every parameter's counts (default
        ``(1, 2)``, PyClick's); ``None``: maximum likelihood (a parameter without data is 0.5).
    tol, max_iter
        The EM stopping rule: stop once no parameter (PBM, UBM: no click probability)
        moves by more than ``tol`` in an iteration, or after ``max_iter`` iterations.
    normalize
        PBM and UBM: scale the examination probabilities so the largest is 1 (see the
        module's documentation); ``False`` keeps the raw EM point.
    method
        ``None`` (default): the maximum likelihood estimate, by EM for every model but
        Cascade (whose closed form is its maximum likelihood estimate). ``"closed"`` for DCM
        and SDBN: the closed forms of Chuklin et al. (and PyClick), which take the last
        click of a session as satisfying and the documents below it as unexamined: quick,
        but biased where users go on reading after their last click (DCM's continuation
        too low, SDBN's satisfaction and attractiveness too high; ``docs/logs.md``).

    Returns
    -------
    ClickModel
        With ``attractiveness`` (``{query: {doc: probability}}``), ``examination`` (PBM:
        ``{position: probability}``), ``satisfaction``, ``continuation``, ``relevance``,
        :meth:`~ClickModel.evaluate` and :meth:`~ClickModel.to_qrels`.

    Examples
    --------
    >>> from ranklens.logs import read_log, fit_click_model
    >>> log = read_log({"session_id": [1, 1, 2, 2, 3, 3], "query_id": ["q"] * 6,
    ...                 "doc_id": ["a", "b"] * 3, "position": [1, 2] * 3,
    ...                 "clicked": [True, False, False, True, False, False]})
    >>> cascade = fit_click_model(log, "Cascade", prior=None)
    >>> cascade.attractiveness
    {'q': {'a': 0.3333333333333333, 'b': 0.5}}
    """
    from ranklens.logs.stream import patterns_from_source

    patterns = patterns_from_source(_checked_for_ubm(log, [model]))
    return fit_patterns(
        patterns,
        model,
        prior=prior,
        tol=tol,
        max_iter=max_iter,
        normalize=normalize,
        method=method,
    )


def fit_click_models(
    log: Any, models: Sequence[str] = MODELS, **options: Any
) -> dict[str, ClickModel]:
    """Several models fitted on one reading of ``log``: ``{name: ClickModel}``."""
    from ranklens.logs.stream import patterns_from_source

    patterns = patterns_from_source(_checked_for_ubm(log, models))
    return {_model_name(m): fit_patterns(patterns, m, **options) for m in models}


def _checked_for_ubm(log: Any, models: Sequence[str]) -> Any:
    """``log`` ready for :func:`~ranklens.logs.stream.patterns_from_source`: with UBM among
    ``models``, a log read whole is read here and its longest session checked
    (:func:`check_ubm_log`, naming it) before any table is made; a streamed Parquet log is
    checked on its counts (:func:`fit_patterns`)."""
    import os

    from ranklens.logs.read import file_kind, read_log

    if "UBM" not in {_model_name(m) for m in models}:
        return log
    if isinstance(log, str | os.PathLike) and file_kind(os.fspath(log)) == "parquet":
        return log
    log = read_log(log)
    check_ubm_log(log)
    return log
