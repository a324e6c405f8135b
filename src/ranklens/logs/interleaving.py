r"""Interleaving experiments: interleaved lists, and the analysis of an interleaving log.

Making lists (:func:`interleave`, deterministic under a seed):

- ``"team_draft"`` (Radlinski, Kurup and Joachims 2008): in each round the rankers, in an
  order drawn at random, each add their highest document not yet shown to the list and
  to their team; with more than two rankers this is team-draft multileaving (Schuth et
  al. 2014).
- ``"balanced"`` (Joachims 2002, 2003): the two rankings are merged alternately, the one
  that goes first drawn at random, each turn adding the ranker's next document unless it
  is already shown; the list ends when either ranking runs out (or at ``length``). Each
  document's team is the ranker whose turn added it. :meth:`Interleaved.credit` gives the
  balanced outcome from the clicks (Joachims 2003; Chapelle et al. 2012): with
  :math:`d` the lowest clicked document of the interleaved list and
  :math:`k = \min\{j : a_j = d \lor b_j = d\}` (the smaller of its ranks in A and B;
  a ranking that does not list it does not count), each ranker's credit is the number of
  clicked documents in its top :math:`k`. On lists built this way a document absent
  from one ranking is never ranked below that ranking's length plus one in the other,
  so taking its missing rank as length + 1 gives the same :math:`k`.
- ``"probabilistic"`` (Hofmann, Whiteson and de Rijke 2011): each ranker is a softmax over
  its ranks, :math:`P(d) \propto \mathrm{rank}(d)^{-\tau}` (:math:`\tau = 3`); at each
  position a ranker drawn at random draws a document from its softmax over the documents
  not yet shown, and the document joins that ranker's team (credit by team, the sampled
  assignment; the marginalised estimator is not implemented).

Analysis (:func:`interleaving`): an impression's credit for each ranker is the number of
clicks on its team's documents; for a balanced log (``rankings`` given), the balanced
rule above with each query's two rankings. For two rankers A and B (A first in sorted order), an
impression is a win when A got more clicks than B, a loss when fewer, a tie otherwise
(an impression without clicks is a tie). The preference
:math:`\Delta = \frac{\mathrm{wins} + \mathrm{ties}_c / 2}{\mathrm{wins} + \mathrm{losses} +
\mathrm{ties}_c} - \frac{1}{2}` (Chapelle et al. 2012) counts only impressions with
clicks (:math:`\mathrm{ties}_c`: ties with clicks); its interval is a percentile bootstrap
over those impressions; ``p_value`` is the two-sided exact binomial test of wins against
losses (scipy's ``binomtest``, ties left out).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np

from ranklens.base.errors import InputError, OptionError
from ranklens.base.types import Float64Array, Int64Array
from ranklens.logs.log import ClickLog

METHODS = ("team_draft", "balanced", "probabilistic")
TAU = 3.0


@dataclass(frozen=True)
class Interleaved:
    """An interleaved list: the documents in order and, for each, the ranker (team) that
    contributed it; ``rankings`` are the rankers' lists it was made from."""

    docs: tuple[str, ...]
    teams: tuple[str, ...]
    method: str
    rankings: Mapping[str, tuple[str, ...]]

    def credit(self, clicked: Sequence[int] | Sequence[bool]) -> dict[str, float]:
        """Each ranker's credit for the clicks of one impression: 1-based clicked
        positions, or one boolean per position. Team methods: clicks on the ranker's team;
        balanced: the balanced rule (see the module's documentation). A position given
        twice is one click: the credit counts clicked documents, as a log does (one
        ``clicked`` flag per shown document).

        >>> shown = interleave({"A": ["a", "b"], "B": ["b", "c"]}, "team_draft", seed=3)
        >>> shown.docs, shown.teams
        (('b', 'a', 'c'), ('B', 'A', 'B'))
        >>> shown.credit([1, 3])  # both clicks on B's team
        {'A': 0.0, 'B': 2.0}
        >>> shown.credit([1, 1])  # one document clicked
        {'A': 0.0, 'B': 1.0}
        """
        positions = sorted(set(_clicked_positions(clicked, len(self.docs))))
        names = list(self.rankings)
        if self.method != "balanced":
            out = dict.fromkeys(names, 0.0)
            for p in positions:
                out[self.teams[p - 1]] += 1.0
            return out
        if not positions:
            return dict.fromkeys(names, 0.0)
        docs = [self.docs[p - 1] for p in positions]
        rank = {n: {d: i + 1 for i, d in enumerate(self.rankings[n])} for n in names}
        lowest = docs[-1]
        k = min(rank[n].get(lowest, math.inf) for n in names)
        return {n: float(sum(1 for d in docs if rank[n].get(d, math.inf) <= k)) for n in names}


def _clicked_positions(clicked: Sequence[int] | Sequence[bool], length: int) -> list[int]:
    values = list(clicked)
    if values and all(isinstance(v, bool | np.bool_) for v in values):
        if len(values) != length:
            raise OptionError(f"give one click flag per position ({length}), not {len(values)}")
        return [i + 1 for i, v in enumerate(values) if v]
    out = []
    for v in values:
        if not isinstance(v, int | np.integer) or not 1 <= int(v) <= length:
            raise OptionError(f"a clicked position must be in 1..{length}, not {v!r}")
        out.append(int(v))
    return out


def interleave(
    rankings: Mapping[str, Sequence[str]],
    method: str = "team_draft",
    *,
    length: int | None = None,
    seed: int | np.random.Generator | None = 42,
) -> Interleaved:
    """Interleave the rankers' lists for one query.

    Parameters
    ----------
    rankings
        ``{ranker: [doc, ...]}``, two rankers (``"balanced"``) or two or more
        (``"team_draft"``: multileaving beyond two; ``"probabilistic"``).
    method
        ``"team_draft"``, ``"balanced"`` or ``"probabilistic"``.
    length
        Documents in the list at most (default: as many as the longest ranking, capped by
        the distinct documents; a balanced list also ends when either ranking runs out).
    seed
        A seed (the same list every time) or a numpy ``Generator`` (for a stream of
        impressions).

    Examples
    --------
    >>> interleave({"A": ["a", "b", "c"], "B": ["c", "a", "d"]}, "balanced", seed=1).docs
    ('a', 'c', 'b')
    """
    if method not in METHODS:
        raise OptionError(f"unknown interleaving method {method!r}: choose one of {METHODS}")
    names = list(rankings)
    lists = {n: [str(d) for d in rankings[n]] for n in names}
    for n, docs in lists.items():
        if len(set(docs)) != len(docs):
            raise OptionError(f"ranker {n!r} lists a document twice")
    if len(names) < 2 or (method == "balanced" and len(names) != 2):
        need = "exactly two" if method == "balanced" else "at least two"
        raise OptionError(f"{method} interleaving needs {need} rankers, got {len(names)}")
    pool = list(dict.fromkeys(d for n in names for d in lists[n]))
    limit = len(pool) if length is None else min(int(length), len(pool))
    if length is not None and length < 1:
        raise OptionError(f"length must be positive, not {length!r}")
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    chosen: list[str] = []
    teams: list[str] = []
    shown: set[str] = set()
    if method == "team_draft":
        pointers = dict.fromkeys(names, 0)
        while len(chosen) < limit:
            for i in rng.permutation(len(names)).tolist():
                name = names[i]
                ranking = lists[name]
                while pointers[name] < len(ranking) and ranking[pointers[name]] in shown:
                    pointers[name] += 1
                if pointers[name] >= len(ranking) or len(chosen) >= limit:
                    continue
                doc = ranking[pointers[name]]
                chosen.append(doc)
                teams.append(name)
                shown.add(doc)
            if all(pointers[n] >= len(lists[n]) for n in names) and len(chosen) < limit:
                break
    elif method == "balanced":
        a, b = names
        first_a = bool(rng.integers(2) == 0)
        ka = kb = 0
        # Joachims' loop: while both rankings have documents left
        while len(chosen) < limit and ka < len(lists[a]) and kb < len(lists[b]):
            take_a = ka < kb or (ka == kb and first_a)
            name = a if take_a else b
            if take_a:
                doc, ka = lists[a][ka], ka + 1
            else:
                doc, kb = lists[b][kb], kb + 1
            if doc not in shown:
                chosen.append(doc)
                teams.append(name)
                shown.add(doc)
    else:
        while len(chosen) < limit:
            name = names[int(rng.integers(len(names)))]
            remaining = [d for d in lists[name] if d not in shown]
            if not remaining:
                others = [n for n in names if any(d not in shown for d in lists[n])]
                if not others:
                    break
                name = others[int(rng.integers(len(others)))]
                remaining = [d for d in lists[name] if d not in shown]
            rank = {d: i + 1 for i, d in enumerate(lists[name])}
            weights = np.asarray([rank[d] ** -TAU for d in remaining])
            doc = remaining[int(rng.choice(len(remaining), p=weights / weights.sum()))]
            chosen.append(doc)
            teams.append(name)
            shown.add(doc)
    return Interleaved(tuple(chosen), tuple(teams), method, {n: tuple(lists[n]) for n in names})


_RESULT_KEYS = (
    "rankers",
    "wins",
    "losses",
    "ties",
    "no_clicks",
    "p_value",
    "delta",
    "interval",
    "per_query",
    "impressions",
)
"""The names an :class:`InterleavingResult` answers to as a mapping, in order."""


@dataclass(frozen=True)
class InterleavingResult:
    """The outcome of an interleaving experiment between two rankers.

    Attributes
    ----------
    rankers : the two rankers ``(A, B)``, A first in sorted order.
    wins, losses, ties : impressions where A got more, fewer, as many clicks as B.
    no_clicks : the ties without any click.
    p_value : two-sided exact binomial test of wins against losses (1.0 without either).
    delta : the preference for A, :math:`\\Delta` (module documentation); NaN without clicks.
    interval : the bootstrap percentile interval of ``delta`` at ``confidence``.
    per_query : ``{query: (wins, losses, ties)}``.
    credit : float64 (impressions x 2): A's and B's credit per impression (the clicks on
        each one's team; balanced: the balanced rule's counts).
    queries : the query of each impression.
    """

    rankers: tuple[str, str]
    wins: int
    losses: int
    ties: int
    no_clicks: int
    p_value: float
    delta: float
    interval: tuple[float, float]
    confidence: float
    per_query: dict[str, tuple[int, int, int]] = field(repr=False)
    credit: Float64Array = field(repr=False)
    queries: tuple[str, ...] = field(repr=False)

    @property
    def impressions(self) -> int:
        """All impressions counted."""
        return self.wins + self.losses + self.ties

    def __getitem__(self, key: str) -> Any:
        """``result["wins"]`` as ``result.wins``."""
        if key in _RESULT_KEYS:
            return getattr(self, key)
        raise KeyError(key)

    def keys(self) -> list[str]:
        """The names :meth:`__getitem__` answers to."""
        return list(_RESULT_KEYS)

    def impressions_needed(self, power: float = 0.8, alpha: float = 0.05) -> int:
        """The impressions for this experiment's observed win and loss rates to be
        detected with ``power`` (:func:`impressions_needed`, which raises
        :class:`NotEstimableError` for equal rates or more than ``max_impressions``)."""
        n = self.impressions
        if n == 0:
            raise OptionError("no impressions: nothing to plan from")
        return impressions_needed(self.wins / n, self.losses / n, power=power, alpha=alpha)


def _scipy_stats() -> Any:
    """scipy.stats (untyped: scipy ships no stubs)."""
    import importlib

    return importlib.import_module("scipy.stats")


def _binomial_p(wins: int, losses: int) -> float:
    if wins + losses == 0:
        return 1.0
    stats = _scipy_stats()
    return float(stats.binomtest(wins, wins + losses, 0.5, alternative="two-sided").pvalue)


def _delta(outcome: Int64Array) -> float:
    """Delta over impressions with clicks: outcome +1 win, -1 loss, 0 tie."""
    if outcome.shape[0] == 0:
        return math.nan
    wins = float((outcome > 0).sum())
    ties = float((outcome == 0).sum())
    return float((wins + ties / 2.0) / outcome.shape[0] - 0.5)


def interleaving(
    log: Any,
    rankers: tuple[str, str] | None = None,
    *,
    rankings: Mapping[str, Any] | None = None,
    confidence: float = 0.95,
    bootstrap: int = 10_000,
    seed: int = 42,
) -> InterleavingResult:
    """Analyse an interleaving log.

    Parameters
    ----------
    log
        A :class:`~ranklens.logs.ClickLog` or anything :func:`~ranklens.logs.read_log`
        reads: with the ``team`` of each shown document (team credit), or a balanced
        interleaving log with ``rankings``.
    rankers
        The two teams to compare, ``(A, B)``; default: the log's two teams in sorted order
        (a log of three or more teams, multileaving, needs them named; see
        :func:`multileaving`). With ``rankings``: two of its rankers.
    rankings
        A balanced interleaving log's rankings: ``{ranker: ranking}``, each ranking a
        :class:`~ranklens.Run`, ``{query: [doc, ...]}`` or ``{query: {doc: score}}``
        (higher first). Each impression is then credited by the balanced rule (module
        documentation) instead of by team; the log needs no ``team`` column.
    confidence, bootstrap, seed
        The level, resamples and seed of the bootstrap interval of ``delta``.

    Examples
    --------
    >>> from ranklens.logs import read_log
    >>> log = read_log({"session_id": [1, 1, 2, 2, 3, 3], "query_id": ["q"] * 6,
    ...                 "doc_id": ["a", "b"] * 3, "position": [1, 2] * 3,
    ...                 "clicked": [True, False, True, False, False, False],
    ...                 "team": ["A", "B", "A", "B", "B", "A"]})
    >>> result = interleaving(log)
    >>> result.wins, result.losses, result.ties, result.p_value
    (2, 0, 1, 0.5)
    >>> balanced = interleaving(log, rankings={"A": {"q": ["a", "b"]}, "B": {"q": ["b", "a"]}})
    >>> balanced.wins, balanced.losses, balanced.ties
    (2, 0, 1)
    """
    from ranklens.logs.read import read_log

    log = read_log(log)
    if not 0.0 < confidence < 1.0:
        raise OptionError(f"confidence must be in (0, 1), not {confidence!r}")
    if isinstance(bootstrap, bool) or not isinstance(bootstrap, int) or bootstrap < 1:
        raise OptionError(f"bootstrap must be a positive integer, not {bootstrap!r}")
    if rankings is not None:
        rankers, credit = _balanced_credit(log, rankings, rankers)
    else:
        rankers, credit = _team_credit(log, rankers)
    imp = log.impression_of_rows
    outcome = np.sign(credit[:, 0] - credit[:, 1]).astype(np.int64)
    any_click = (
        np.bincount(imp, weights=log.clicked.astype(np.float64), minlength=credit.shape[0]) > 0
    )
    wins = int((outcome > 0).sum())
    losses = int((outcome < 0).sum())
    ties = int((outcome == 0).sum())
    no_clicks = int((~any_click).sum())
    with_clicks = outcome[any_click]
    delta = _delta(with_clicks)
    interval = _bootstrap_delta(with_clicks, confidence, bootstrap, seed)
    per_query: dict[str, tuple[int, int, int]] = {}
    n_q = len(log.queries)
    w = np.bincount(log.query, weights=(outcome > 0).astype(float), minlength=n_q)
    lo = np.bincount(log.query, weights=(outcome < 0).astype(float), minlength=n_q)
    t = np.bincount(log.query, weights=(outcome == 0).astype(float), minlength=n_q)
    seen = np.bincount(log.query, minlength=n_q) > 0
    for q in np.flatnonzero(seen).tolist():
        per_query[log.queries[q]] = (int(w[q]), int(lo[q]), int(t[q]))
    return InterleavingResult(
        rankers=(rankers[0], rankers[1]),
        wins=wins,
        losses=losses,
        ties=ties,
        no_clicks=no_clicks,
        p_value=_binomial_p(wins, losses),
        delta=delta,
        interval=interval,
        confidence=confidence,
        per_query=per_query,
        credit=credit,
        queries=tuple(log.queries[q] for q in log.query.tolist()),
    )


def _team_credit(
    log: ClickLog, rankers: tuple[str, str] | None
) -> tuple[tuple[str, str], Float64Array]:
    """The rankers compared and each impression's clicks on each one's team."""
    if log.team is None or log.teams is None:
        raise InputError(
            "the log has no 'team' column: an interleaving log names the ranker (team) that "
            "contributed each shown document (a balanced interleaving log is analysed with "
            "its two rankings instead)",
            path=log.source,
        )
    if rankers is None:
        if len(log.teams) != 2:
            raise OptionError(
                f"the log has {len(log.teams)} teams ({', '.join(log.teams)}): name the two to "
                "compare, or compare every pair (multileaving)"
            )
        rankers = (log.teams[0], log.teams[1])
    for name in rankers:
        if name not in log.teams:
            raise OptionError(f"no team {name!r} in the log (teams: {', '.join(log.teams)})")
    credit = np.zeros((log.num_impressions, 2))
    imp = log.impression_of_rows
    for j, name in enumerate(rankers):
        hits = log.clicked & (log.team == log.teams.index(name))
        credit[:, j] = np.bincount(imp, weights=hits.astype(np.float64), minlength=credit.shape[0])
    return (rankers[0], rankers[1]), credit


def _balanced_credit(
    log: ClickLog, rankings: Mapping[str, Any], rankers: tuple[str, str] | None
) -> tuple[tuple[str, str], Float64Array]:
    """The rankers compared and each impression's balanced credit: with d the lowest
    clicked document and k the smaller of its ranks in the two rankings, the clicked
    documents in each ranking's top k."""
    from ranklens.logs.counterfactual import target_ranks

    if not isinstance(rankings, Mapping):
        raise OptionError("rankings must be {ranker: ranking}, two rankers")
    names = [str(n) for n in rankings]
    if rankers is None:
        if len(names) != 2:
            raise OptionError(
                f"a balanced log is analysed with two rankings, not {len(names)} "
                f"({', '.join(names)})"
            )
        rankers = (sorted(names)[0], sorted(names)[1])
    for name in rankers:
        if name not in names:
            raise OptionError(f"no ranking of {name!r} (rankings: {', '.join(names)})")
    by_name = {str(n): r for n, r in rankings.items()}
    ranks = [target_ranks(log, by_name[name]) for name in rankers]
    listed = np.isfinite(ranks[0]) | np.isfinite(ranks[1])
    if not listed.all():
        row = int(np.flatnonzero(~listed)[0])
        imp_of_row = int(log.impression_of_rows[row])
        raise InputError(
            f"session '{log.sessions[imp_of_row]}' shows document "
            f"{log.documents[int(log.doc[row])]!r} at position {int(log.positions[row])}, "
            f"which neither ranking lists for query "
            f"'{log.queries[int(log.query[imp_of_row])]}': give the rankings the balanced "
            "lists were made from",
            path=log.source,
        )
    n = log.num_impressions
    imp = log.impression_of_rows
    clicked_rows = np.flatnonzero(log.clicked)
    lowest = np.full(n, -1, dtype=np.int64)
    np.maximum.at(lowest, imp[clicked_rows], clicked_rows)  # rows are by position
    has_click = lowest >= 0
    k = np.full(n, -np.inf)
    at = lowest[has_click]
    k[has_click] = np.minimum(ranks[0][at], ranks[1][at])
    credit = np.zeros((n, 2))
    for j in range(2):
        hits = log.clicked & (ranks[j] <= k[imp])
        credit[:, j] = np.bincount(imp, weights=hits.astype(np.float64), minlength=n)
    return (rankers[0], rankers[1]), credit


def _bootstrap_delta(
    outcome: Int64Array, confidence: float, draws: int, seed: int
) -> tuple[float, float]:
    """Percentile bootstrap interval of delta over impressions (resampled with
    replacement, ``draws`` times; counts drawn as multinomials, so memory stays small)."""
    n = outcome.shape[0]
    if n == 0:
        return (math.nan, math.nan)
    rng = np.random.default_rng(seed)
    kinds = np.array([(outcome > 0).sum(), (outcome < 0).sum(), (outcome == 0).sum()], float)
    counts = rng.multinomial(n, kinds / n, size=draws)
    values = (counts[:, 0] + counts[:, 2] / 2.0) / n - 0.5
    tail = (1.0 - confidence) / 2.0
    low, high = np.quantile(values, [tail, 1.0 - tail])
    return (float(low), float(high))


def multileaving(log: Any, **options: Any) -> dict[tuple[str, str], InterleavingResult]:
    """Every pair of teams of a (multileaved) log: ``{(A, B): InterleavingResult}`` with
    A before B in sorted order. The p-values are not corrected for the number of pairs."""
    from ranklens.logs.read import read_log

    log = read_log(log)
    if log.teams is None:
        raise InputError(
            "the log has no 'team' column: a multileaving log names the ranker (team) that "
            "contributed each shown document",
            path=log.source,
        )
    teams = log.teams
    return {
        (a, b): interleaving(log, (a, b), **options)
        for i, a in enumerate(teams)
        for b in teams[i + 1 :]
    }


def _rejection_bound(trials: Int64Array, alpha: float) -> Int64Array:
    """For each number of decisive impressions N: the largest c with
    ``2 * P(Binomial(N, 1/2) <= c) <= alpha`` (-1 if none): the two-sided binomial test
    rejects when min(wins, losses) <= c."""
    binom = _scipy_stats().binom
    c = binom.ppf(alpha / 2.0, trials, 0.5).astype(np.int64)
    c = np.where(2.0 * binom.cdf(c, trials, 0.5) <= alpha + 1e-12, c, c - 1)
    return np.where(trials > 0, c, -1)


EXACT_IMPRESSIONS = 100_000
"""Up to this many impressions :func:`interleaving_power` sums the exact binomial
probabilities (a cost that grows with the impressions); beyond, it uses the normal
approximation, whose cost does not."""


def interleaving_power(
    win_rate: float, loss_rate: float, impressions: int, alpha: float = 0.05
) -> float:
    r"""The power of the two-sided binomial test of wins against losses after
    ``impressions`` impressions, each a win with probability ``win_rate`` (:math:`w`) and
    a loss with ``loss_rate`` (:math:`l`), a tie otherwise.

    Up to :data:`EXACT_IMPRESSIONS` impressions it is exact: summed over the number
    :math:`N \sim \mathrm{Binomial}(n, w + l)` of decisive impressions, the probability
    that the test of :math:`\mathrm{Binomial}(N, \frac{w}{w + l})` wins rejects. Beyond,
    the normal approximation of the win-minus-loss count :math:`D` (mean :math:`n\mu`,
    :math:`\mu = w - l`; variance :math:`n\sigma^2`, :math:`\sigma^2 = w + l - \mu^2`),
    which the test rejects when :math:`|D| > z_{1-\alpha/2}\sqrt{n(w + l)}`:

    .. math:: \mathrm{power} \approx \Phi\Big(\frac{n|\mu| - z\sqrt{n(w+l)}}{\sqrt{n}\,\sigma}
        \Big) + \Phi\Big(\frac{-n|\mu| - z\sqrt{n(w+l)}}{\sqrt{n}\,\sigma}\Big)

    (``tests/test_logs_interleaving.py`` checks that the two agree where both run).

    >>> round(interleaving_power(0.3, 0.2, 500), 3)
    0.877
    >>> round(interleaving_power(0.3, 0.25, 10**9), 3)
    1.0
    """
    _check_rates(win_rate, loss_rate, alpha)
    if isinstance(impressions, bool) or not isinstance(impressions, int | np.integer):
        raise OptionError(f"impressions must be a positive integer, not {impressions!r}")
    if impressions < 1:
        raise OptionError(f"impressions must be a positive integer, not {impressions!r}")
    decisive = win_rate + loss_rate
    if decisive == 0:
        return 0.0
    if impressions > EXACT_IMPRESSIONS:
        return _normal_power(win_rate, loss_rate, int(impressions), alpha)
    binom = _scipy_stats().binom
    trials = np.arange(int(impressions) + 1, dtype=np.int64)
    weight = binom.pmf(trials, impressions, decisive)
    q = win_rate / decisive
    c = _rejection_bound(trials, alpha)
    reject = np.where(c >= 0, binom.cdf(c, trials, q) + binom.sf(trials - c - 1, trials, q), 0.0)
    return float(np.clip((weight * reject).sum(), 0.0, 1.0))


def _normal_power(
    win_rate: float, loss_rate: float, impressions: int, alpha: float = 0.05
) -> float:
    """The normal approximation of :func:`interleaving_power` (its formula)."""
    norm = _scipy_stats().norm
    decisive = win_rate + loss_rate
    mean = abs(win_rate - loss_rate)
    spread = math.sqrt(max(decisive - mean * mean, 0.0))
    z = float(norm.isf(alpha / 2.0))
    bound = z * math.sqrt(impressions * decisive)
    if spread == 0.0:  # every impression decisive one way: D = n mu exactly
        return 1.0 if impressions * mean > bound else 0.0
    scale = math.sqrt(impressions) * spread
    upper = float(norm.cdf((impressions * mean - bound) / scale))
    lower = float(norm.cdf((-impressions * mean - bound) / scale))
    return min(upper + lower, 1.0)


def _check_rates(win_rate: float, loss_rate: float, alpha: float) -> None:
    if not (0 <= win_rate <= 1 and 0 <= loss_rate <= 1 and win_rate + loss_rate <= 1):
        raise OptionError(
            f"win_rate and loss_rate must be probabilities summing to at most 1, not "
            f"{win_rate!r} and {loss_rate!r}"
        )
    if not 0 < alpha < 1:
        raise OptionError(f"alpha must be in (0, 1), not {alpha!r}")


class NotEstimableError(OptionError):
    """:func:`impressions_needed` has no answer: the rates are equal (no number of
    impressions detects no difference), or more than ``max_impressions`` would be needed
    (``more_than`` holds that bound, else ``None``)."""

    def __init__(self, message: str, more_than: int | None = None) -> None:
        super().__init__(message)
        self.more_than = more_than


def impressions_needed(
    win_rate: float,
    loss_rate: float,
    *,
    power: float = 0.8,
    alpha: float = 0.05,
    max_impressions: int = 10_000_000,
) -> int:
    r"""The fewest impressions for :func:`interleaving_power` to reach ``power``.

    The normal approximation's closed form (one tail) gives a first answer,
    :math:`n_0 = \Big\lceil\Big(\frac{z_{1-\alpha/2}\sqrt{w + l} +
    z_{\mathrm{power}}\,\sigma}{|w - l|}\Big)^2\Big\rceil` (notation of
    :func:`interleaving_power`). Where the exact power is cheap (up to
    :data:`EXACT_IMPRESSIONS`), the answer is searched on it by doubling then bisection
    (the exact power of a discrete test is not quite monotone in the number of
    impressions; the answer is the first found reaching it); beyond, by bisection on the
    normal approximation. Either way the work is bounded, whatever the rates and ``alpha``.

    Raises
    ------
    NotEstimableError
        (an :class:`~ranklens.base.errors.OptionError`) when the rates are equal, or when
        more than ``max_impressions`` impressions would be needed (``more_than``).

    >>> impressions_needed(0.3, 0.2)
    408
    >>> impressions_needed(0.3, 0.2999999)
    Traceback (most recent call last):
    ...
    ranklens.logs.interleaving.NotEstimableError: more than 10,000,000 impressions needed ...
    """
    _check_rates(win_rate, loss_rate, alpha)
    if not 0 < power < 1:
        raise OptionError(f"power must be in (0, 1), not {power!r}")
    if isinstance(max_impressions, bool) or not isinstance(max_impressions, int):
        raise OptionError(f"max_impressions must be a positive integer, not {max_impressions!r}")
    if max_impressions < 1:
        raise OptionError(f"max_impressions must be a positive integer, not {max_impressions!r}")
    if win_rate == loss_rate:
        raise NotEstimableError(
            "not estimable: the win rate equals the loss rate, and no number of impressions "
            "detects no difference"
        )
    norm = _scipy_stats().norm
    decisive = win_rate + loss_rate
    mean = abs(win_rate - loss_rate)
    spread = math.sqrt(max(decisive - mean * mean, 0.0))
    root = float(norm.isf(alpha / 2.0)) * math.sqrt(decisive) + float(norm.ppf(power)) * spread
    closed = math.ceil(max(root / mean, 0.0) ** 2) if math.isfinite(root / mean) else math.inf
    too_many = NotEstimableError(
        f"more than {max_impressions:,} impressions needed for power {power:g} at alpha "
        f"{alpha:g}: the difference between the win and loss rates ({mean:.3g}) is too small",
        more_than=max_impressions,
    )
    if closed > 4 * max_impressions:
        raise too_many
    if closed <= EXACT_IMPRESSIONS // 2:
        high = 16
        while interleaving_power(win_rate, loss_rate, high, alpha) < power:
            if high >= min(EXACT_IMPRESSIONS, max_impressions):
                break
            high = min(high * 2, EXACT_IMPRESSIONS, max_impressions)
        else:
            exact = partial(interleaving_power, win_rate, loss_rate, alpha=alpha)
            return _first_reaching(exact, high // 2 if high > 16 else 1, high, power)
    # the normal approximation, beyond the exact sums: its power grows with n
    low = min(EXACT_IMPRESSIONS + 1, max_impressions + 1)
    high = max(low, int(min(closed, 4 * max_impressions)))
    while _normal_power(win_rate, loss_rate, high, alpha) < power:
        if high > max_impressions:
            raise too_many
        high *= 2
    approximate = partial(_normal_power, win_rate, loss_rate, alpha=alpha)
    found = _first_reaching(approximate, low, high, power)
    if found > max_impressions:
        raise too_many
    return found


def _first_reaching(power_at: Callable[[int], float], low: int, high: int, power: float) -> int:
    """Bisection: the first n in [low, high] with ``power_at(n) >= power`` (``high``
    reaches it)."""
    while low < high:
        mid = (low + high) // 2
        if power_at(mid) >= power:
            high = mid
        else:
            low = mid + 1
    return high
