"""The fusion methods: how each turns the pooled runs into one fused score per document.

A method reads a :class:`~ranklens.fusion._pool.Pool` and returns one float64 score per
fused document. Score-based methods read the normalised scores; rank-based methods read
the 1-based ranks of the runs ordered by the tie policy (their ``norm`` is ignored).
Every method is a handful of vectorised operations over ``(runs, fused documents)``
arrays, except Condorcet (pairwise votes, one query at a time: O(c^2) for c candidates).

What a run contributes to a document it did not retrieve is stated per method in
:data:`METHODS` (``missing``); a run that lacks a query altogether contributes nothing
to that query under every method. See docs/fusion.md for formulas and references.

>>> from ranklens.fusion import fuse
>>> a = {"q": {"x": 3.0, "y": 2.0, "z": 1.0}}  # ranks x 1, y 2, z 3
>>> b = {"q": {"z": 9.0, "x": 8.0}}            # ranks z 1, x 2
>>> fuse([a, b], "bordafuse").to_dict()["q"]   # x 3 + 2, y 2 + (3 - 2 + 1) / 2, z 1 + 3
{'x': 5.0, 'y': 3.0, 'z': 4.0}
>>> fuse([a, b], "isr").to_dict()["q"]         # x (1 + 1/4) * 2, y 1/4, z (1/9 + 1) * 2
{'x': 2.5, 'y': 0.25, 'z': 2.2222222222222223}
>>> fuse([a, b], "condorcet").to_dict()["q"]   # x beats y; x-z and y-z draw 1-1
{'x': 2.5, 'y': 1.5, 'z': 2.0}
>>> fuse([a, b], "comb_max", norm="none").to_dict()["q"]
{'x': 8.0, 'y': 2.0, 'z': 9.0}
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from itertools import pairwise
from typing import Any

import numpy as np

from ranklens.base.errors import OptionError
from ranklens.base.types import BoolArray, Float64Array, Int64Array
from ranklens.fusion._pool import Pool
from ranklens.fusion.normalise import normalise, normalised_total

REQUIRED = object()
"""Marks a parameter without a default."""

SEGFUSE_BOUNDS = np.array([0] + [10 * 2 ** (k - 1) - 5 for k in range(1, 11)], dtype=np.int64)
"""SegFuse's segment boundaries (0-based ranks): 0, 5, 15, 35, ..., 5115 (Shokouhi 2007)."""
BAYES_CUTOFFS = (0, 5, 10, 15, 20, 30, 100, 200, 500, 1000)
"""The rank segments over which BayesFuse's log-odds are estimated (as ranx)."""
MIN_LOG_ODDS = float(np.log(0.001 / 0.999))
"""BayesFuse's log-odds of a document a run did not retrieve."""


@dataclass(frozen=True)
class Context:
    """What a method reads: the pool, per-run values, weights and parameters."""

    pool: Pool
    norm: str | None
    """The normalisation of the scores (score-based methods), or None (raw scores)."""
    weights: Float64Array
    params: Mapping[str, Any]

    @cached_property
    def _normalised(self) -> tuple[tuple[Float64Array, ...], tuple[Float64Array | None, ...]]:
        if self.norm is None:
            return self.pool.score, (None,) * self.pool.num_runs
        pairs = [normalise(self.pool, self.norm, i) for i in range(self.pool.num_runs)]
        return tuple(v for v, _ in pairs), tuple(f for _, f in pairs)

    @property
    def values(self) -> tuple[Float64Array, ...]:
        """Per run, in ranked order, the normalised score of each entry."""
        return self._normalised[0]

    @property
    def fill(self) -> tuple[Float64Array | None, ...]:
        """Per run, the value of candidates it did not retrieve (``borda`` norm), or None."""
        return self._normalised[1]

    def dense(self) -> tuple[Float64Array, BoolArray]:
        """``(runs, fused documents)`` normalised scores and presence."""
        return self.pool.dense(self.values, self.fill)

    def sum_count(
        self, sum_weights: bool = False, count_weights: bool = False
    ) -> tuple[Float64Array, Float64Array | Int64Array]:
        """Per fused document, the sum of its (normalised) scores and how many runs have it
        (with the run weights where asked). With the ``borda`` norm, a run "has" every
        candidate of the queries it has. Affine normalisations (min-max, max, sum, zmuv)
        are summed natively, without the per-entry values."""
        sw = self.weights if sum_weights else None
        cw = self.weights if count_weights else None
        if self.norm is not None:
            total = normalised_total(self.pool, self.norm, sw)
            if total is not None:
                return total, self.pool.count(cw)
        if any(f is not None for f in self.fill):
            values, present = self.dense()
            return _wsum(values, sw), _wsum(present.astype(np.float64), cw)
        return self.pool.total(self.values, sw), self.pool.count(cw)


Combine = Callable[[Context], Float64Array]


@dataclass(frozen=True)
class Method:
    """A fusion method: its name, aliases, parameters and how it combines."""

    name: str
    combine: Combine
    params: dict[str, Any] = field(default_factory=dict)
    weights: bool = False
    """Whether it takes one weight per run (default: 1 for every run)."""
    scores: bool = False
    """Whether it reads (normalised) scores; else ranks only."""
    aliases: tuple[str, ...] = ()
    missing: str = "nothing"
    formula: str = ""
    reference: str = ""


# --- building blocks ---------------------------------------------------------------------


def _wsum(values: Float64Array, weights: Float64Array | None = None) -> Float64Array:
    """Sum over runs (rows), run by run (as ranx's ``sum([...])``): ``0 + v_0 + v_1 + ...``."""
    out = np.zeros(values.shape[1], dtype=np.float64)
    for i in range(values.shape[0]):
        out += values[i] if weights is None else weights[i] * values[i]
    return out


def _ranks(ctx: Context) -> tuple[Int64Array, ...]:
    return ctx.pool.rank


def _float_ranks(ctx: Context) -> list[Float64Array]:
    return [r.astype(np.float64) for r in ctx.pool.rank]


def _run_len_of_entries(ctx: Context, i: int) -> Int64Array:
    lengths: Int64Array = ctx.pool.run_len[i][ctx.pool.query[i]]
    return lengths


def _param_array(ctx: Context, name: str, i: int) -> Float64Array:
    per_run = ctx.params[name]
    array: Float64Array = np.asarray(per_run[i], dtype=np.float64).ravel()
    return array


def _inverse_squares(ctx: Context) -> Float64Array:
    return ctx.pool.total([1.0 / (r * r) for r in _float_ranks(ctx)])


# --- score-based ------------------------------------------------------------------------


def comb_sum(ctx: Context) -> Float64Array:
    """CombSUM: ``sum_i s_i``."""
    return ctx.sum_count()[0]


def comb_mnz(ctx: Context) -> Float64Array:
    """CombMNZ: ``n * sum_i s_i``, ``n`` the runs that retrieved the document."""
    total, count = ctx.sum_count()
    out: Float64Array = np.multiply(total, count, out=total)
    return out


def comb_max(ctx: Context) -> Float64Array:
    """CombMAX: ``max_i s_i`` over the runs that retrieved the document."""
    values, present = ctx.dense()
    out: Float64Array = np.where(present, values, -np.inf).max(axis=0)
    return out


def comb_min(ctx: Context) -> Float64Array:
    """CombMIN: ``min_i s_i`` over the runs that retrieved the document."""
    values, present = ctx.dense()
    out: Float64Array = np.where(present, values, np.inf).min(axis=0)
    return out


def comb_med(ctx: Context) -> Float64Array:
    """CombMED: the median of the ``s_i`` of the runs that retrieved the document."""
    values, present = ctx.dense()
    ordered = np.sort(np.where(present, values, np.inf), axis=0)
    count = present.sum(axis=0)
    cols = np.arange(values.shape[1])
    out: Float64Array = (ordered[(count - 1) // 2, cols] + ordered[count // 2, cols]) / 2.0
    return out


def comb_anz(ctx: Context) -> Float64Array:
    """CombANZ: ``sum_i s_i / n``."""
    total, count = ctx.sum_count()
    out: Float64Array = total / count
    return out


def comb_gmnz(ctx: Context) -> Float64Array:
    """CombGMNZ: ``n^gamma * sum_i s_i``."""
    total, count = ctx.sum_count()
    out: Float64Array = total * count ** float(ctx.params["gamma"])
    return out


def wsum(ctx: Context) -> Float64Array:
    """Weighted sum: ``sum_i w_i s_i``."""
    return ctx.sum_count(sum_weights=True)[0]


def wmnz(ctx: Context) -> Float64Array:
    """Weighted MNZ: ``(sum of w_i over the runs that retrieved it) * sum_i s_i``."""
    total, weight_sum = ctx.sum_count(count_weights=True)
    out: Float64Array = total * weight_sum
    return out


def mixed(ctx: Context) -> Float64Array:
    """Mixed: ``sqrt(n) * sum_i w_i s_i``."""
    total, count = ctx.sum_count(sum_weights=True)
    out: Float64Array = total * np.sqrt(count)
    return out


def segfuse(ctx: Context) -> Float64Array:
    """SegFuse: ``sum_i P_i(segment of r_i) * (s_i + 1)``."""
    per_run = []
    for i, rank in enumerate(_ranks(ctx)):
        probs = _param_array(ctx, "probs", i)
        table = np.zeros(SEGFUSE_BOUNDS.shape[0], dtype=np.float64)
        table[: min(probs.shape[0], table.shape[0] - 1)] = probs[: table.shape[0] - 1]
        segment = np.searchsorted(SEGFUSE_BOUNDS, rank - 1, side="right") - 1
        per_run.append(table[segment] * (ctx.values[i] + 1.0))
    return ctx.pool.total(per_run)


# --- rank-based -------------------------------------------------------------------------


def rrf(ctx: Context) -> Float64Array:
    """(Weighted) reciprocal rank fusion: ``sum_i w_i / (k + r_i)``."""
    k = float(ctx.params["k"])
    values = []
    for r in _ranks(ctx):
        v = r + k  # float64
        values.append(np.reciprocal(v, out=v))
    return ctx.pool.total(values, ctx.weights)


def isr(ctx: Context) -> Float64Array:
    """ISR: ``n * sum_i 1 / r_i^2``."""
    out: Float64Array = _inverse_squares(ctx) * ctx.pool.count()
    return out


def log_isr(ctx: Context) -> Float64Array:
    """log_ISR: ``log(n) * sum_i 1 / r_i^2``."""
    out: Float64Array = _inverse_squares(ctx) * np.log(ctx.pool.count())
    return out


def logn_isr(ctx: Context) -> Float64Array:
    """logn_ISR: ``log(n + sigma) * sum_i 1 / r_i^2``."""
    sigma = float(ctx.params["sigma"])
    out: Float64Array = _inverse_squares(ctx) * np.log(ctx.pool.count() + sigma)
    return out


def _borda(ctx: Context, weights: Float64Array | None) -> Float64Array:
    """Borda points: ``c - r + 1`` for a retrieved document, ``(c - n_i + 1) / 2`` for a
    candidate of a query the run has but did not retrieve; the runs' (weighted) points
    added in run order, ``((0 + w_0 p_0) + w_1 p_1) + ...``, as ranx adds them."""
    pool = ctx.pool
    c = pool.candidates().astype(np.float64)
    points = [c[pool.query[i]] - (r - 1) for i, r in enumerate(_ranks(ctx))]
    fill = [
        np.where(pool.run_len[i] > 0, (c - pool.run_len[i] + 1) / 2.0, 0.0)
        for i in range(pool.num_runs)
    ]
    values, _ = pool.dense(points, fill)
    return _wsum(values, weights)


def bordafuse(ctx: Context) -> Float64Array:
    """BordaFuse: ``sum_i (c - r_i + 1)``; ``(c - n_i + 1) / 2`` from a run without the document."""
    return _borda(ctx, None)


def w_bordafuse(ctx: Context) -> Float64Array:
    """Weighted BordaFuse: ``sum_i w_i (c - r_i + 1)``."""
    return _borda(ctx, ctx.weights)


def rbc(ctx: Context) -> Float64Array:
    """Rank-biased centroid: ``sum_i w_i (1 - phi) phi^(r_i - 1)``."""
    phi = float(ctx.params["phi"])
    return ctx.pool.total([(1.0 - phi) * phi ** (r - 1.0) for r in _float_ranks(ctx)], ctx.weights)


def posfuse(ctx: Context) -> Float64Array:
    """PosFuse: ``sum_i P_i(r_i)`` (0 past the end of ``P_i``)."""
    per_run = []
    for i, rank in enumerate(_ranks(ctx)):
        probs = np.append(_param_array(ctx, "probs", i), 0.0)
        per_run.append(probs[np.minimum(rank - 1, probs.shape[0] - 1)])
    return ctx.pool.total(per_run)


def probfuse(ctx: Context) -> Float64Array:
    """ProbFuse: ``sum_i P_i(k) / k``, ``k`` the (1-based) segment of ``r_i``."""
    per_run = []
    for i, rank in enumerate(_ranks(ctx)):
        probs = _param_array(ctx, "probs", i)
        n_seg = probs.shape[0]
        size = -(-_run_len_of_entries(ctx, i) // n_seg)  # ceil(n / n_segments)
        k = (rank - 1) // size
        per_run.append(probs[k] / (k + 1))
    return ctx.pool.total(per_run)


def _sum_in_order(values: Float64Array) -> float:
    """``((0 + v_0) + v_1) + ...``: the sum in order, as Python's and numba's ``sum``."""
    total = 0.0
    for v in values.tolist():
        total += v
    return total


def slidefuse(ctx: Context) -> Float64Array:
    """SlideFuse: ``sum_i`` the mean of ``P_i`` over ranks ``r_i - w .. r_i + w``."""
    w = int(ctx.params["w"])
    per_run = []
    for i, rank in enumerate(_ranks(ctx)):
        probs = _param_array(ctx, "probs", i)
        p = rank - 1
        n = _run_len_of_entries(ctx, i)
        a = np.maximum(p - w, 0)
        b = np.minimum(p + w, n - 1)
        stop = np.minimum(b + 1, probs.shape[0])
        start = np.minimum(a, probs.shape[0])
        # each window summed left to right, as ranx sums it (a cumulative sum's
        # difference can differ in the last bit and so reorder near-equal documents)
        key = start * (probs.shape[0] + 1) + stop
        windows, where = np.unique(key, return_inverse=True)
        sums = np.array(
            [
                _sum_in_order(probs[k // (probs.shape[0] + 1) : k % (probs.shape[0] + 1)])
                for k in windows.tolist()
            ],
            dtype=np.float64,
        )
        per_run.append(sums[where] / (b - a + 1))
    return ctx.pool.total(per_run)


def bayesfuse(ctx: Context) -> Float64Array:
    """Log-odds per rank; a run that has the query but not the document adds the minimum."""
    pool = ctx.pool
    per_run = []
    for i, rank in enumerate(_ranks(ctx)):
        odds = np.append(_param_array(ctx, "log_odds", i), MIN_LOG_ODDS)
        per_run.append(odds[np.minimum(rank - 1, odds.shape[0] - 1)])
    fill = np.full(len(pool.qids), MIN_LOG_ODDS)
    # the runs added in order, ((0 + o_0) + o_1) + ..., as ranx adds them
    values, _ = pool.dense(per_run, [fill] * pool.num_runs)
    return _wsum(values)


def mapfuse(ctx: Context) -> Float64Array:
    """MAPFuse: ``sum_i MAP_i / r_i``."""
    scores = [float(s) for s in ctx.params["map_scores"]]
    return ctx.pool.total([scores[i] / r for i, r in enumerate(_float_ranks(ctx))])


def _condorcet(ctx: Context) -> Float64Array:
    """Copeland scores: 1 + pairwise majority wins + half the pairwise draws."""
    pool = ctx.pool
    ranks = np.full((pool.num_runs, pool.num_docs), np.inf)
    for i, r in enumerate(_ranks(ctx)):
        ranks[i, pool.fid[i]] = r
    out = np.empty(pool.num_docs, dtype=np.float64)
    bounds = pool.q_offsets.tolist()
    w = ctx.weights
    for a, b in pairwise(bounds):  # O(c^2) per query: not a hot path
        if b == a:
            continue
        votes = np.zeros((b - a, b - a), dtype=np.float64)
        for i in range(pool.num_runs):
            col = ranks[i, a:b]
            votes += w[i] * (col[:, None] < col[None, :])
        wins = (votes > votes.T).sum(axis=1)
        draws = (votes == votes.T).sum(axis=1) - 1
        out[a:b] = 1.0 + wins + 0.5 * draws
    return out


def condorcet(ctx: Context) -> Float64Array:
    """CondorcetFuse as Copeland scores (see :func:`_condorcet`)."""
    return _condorcet(ctx)


def w_condorcet(ctx: Context) -> Float64Array:
    """Weighted CondorcetFuse: votes weighted by ``w_i``."""
    return _condorcet(ctx)


# --- the table --------------------------------------------------------------------------

_FOX = "Fox & Shaw, Combination of Multiple Searches, TREC-2 1993"
_LEE = "Lee, Analyses of Multiple Evidence Combination, SIGIR 1997"
_WU = "Wu & Crestani, Data fusion with estimated weights, CIKM 2002"
_MOURAO = (
    "Mourao, Martins & Magalhaes, Multimodal medical information retrieval with "
    "unsupervised rank fusion, CMIG 2015"
)
_ASLAM = "Aslam & Montague, Models for Metasearch, SIGIR 2001"
_MONTAGUE = "Montague & Aslam, Condorcet Fusion for Improved Retrieval, CIKM 2002"
_LILLIS10 = (
    "Lillis, Zhang, Toolan, Collier, Leonard & Dunnion, Estimating probabilities for "
    "effective data fusion, SIGIR 2010"
)

METHODS: dict[str, Method] = {
    m.name: m
    for m in [
        Method(
            "comb_sum",
            comb_sum,
            scores=True,
            aliases=("sum", "combsum"),
            missing="0",
            formula="sum_i s_i",
            reference=_FOX,
        ),
        Method(
            "comb_mnz",
            comb_mnz,
            scores=True,
            aliases=("mnz", "combmnz"),
            missing="0 (and not counted in n)",
            formula="n * sum_i s_i",
            reference=_FOX,
        ),
        Method(
            "comb_max",
            comb_max,
            scores=True,
            aliases=("max", "combmax"),
            missing="left out of the max",
            formula="max_i s_i",
            reference=_FOX,
        ),
        Method(
            "comb_min",
            comb_min,
            scores=True,
            aliases=("min", "combmin"),
            missing="left out of the min",
            formula="min_i s_i",
            reference=_FOX,
        ),
        Method(
            "comb_med",
            comb_med,
            scores=True,
            aliases=("med", "combmed"),
            missing="left out of the median",
            formula="median_i s_i",
            reference=_FOX,
        ),
        Method(
            "comb_anz",
            comb_anz,
            scores=True,
            aliases=("anz", "combanz"),
            missing="left out of the mean",
            formula="sum_i s_i / n",
            reference=_FOX,
        ),
        Method(
            "comb_gmnz",
            comb_gmnz,
            params={"gamma": 1.0},
            scores=True,
            aliases=("gmnz", "combgmnz"),
            missing="0 (and not counted in n)",
            formula="n^gamma * sum_i s_i",
            reference=_LEE,
        ),
        Method(
            "wsum",
            wsum,
            weights=True,
            scores=True,
            aliases=("weighted_sum", "wcombsum", "linear"),
            missing="0",
            formula="sum_i w_i s_i",
            reference=_WU,
        ),
        Method(
            "wmnz",
            wmnz,
            weights=True,
            scores=True,
            aliases=("weighted_mnz", "wcombmnz"),
            missing="0 (its weight not counted)",
            formula="(sum_{i retrieved} w_i) * sum_i s_i",
            reference=_WU,
        ),
        Method(
            "mixed",
            mixed,
            weights=True,
            scores=True,
            missing="0 (and not counted in n)",
            formula="sqrt(n) * sum_i w_i s_i",
            reference=_WU,
        ),
        Method(
            "rrf",
            rrf,
            params={"k": 60.0},
            weights=True,
            aliases=("reciprocal_rank_fusion", "w_rrf", "weighted_rrf", "wrrf"),
            missing="0",
            formula="sum_i w_i / (k + r_i)",
            reference="Cormack, Clarke & Buettcher, Reciprocal rank fusion outperforms "
            "Condorcet and individual rank learning methods, SIGIR 2009",
        ),
        Method(
            "isr",
            isr,
            missing="0 (and not counted in n)",
            formula="n * sum_i 1 / r_i^2",
            reference=_MOURAO,
        ),
        Method(
            "log_isr",
            log_isr,
            missing="0 (and not counted in n)",
            formula="log(n) * sum_i 1 / r_i^2",
            reference=_MOURAO,
        ),
        Method(
            "logn_isr",
            logn_isr,
            params={"sigma": 0.01},
            missing="0 (and not counted in n)",
            formula="log(n + sigma) * sum_i 1 / r_i^2",
            reference=_MOURAO,
        ),
        Method(
            "bordafuse",
            bordafuse,
            aliases=("borda", "borda_fuse"),
            missing="(c - n_i + 1) / 2, the mean of the points left over",
            formula="sum_i (c - r_i + 1)",
            reference=_ASLAM,
        ),
        Method(
            "w_bordafuse",
            w_bordafuse,
            weights=True,
            aliases=("weighted_bordafuse", "wbordafuse", "weighted_borda"),
            missing="(c - n_i + 1) / 2",
            formula="sum_i w_i (c - r_i + 1)",
            reference=_ASLAM,
        ),
        Method(
            "condorcet",
            condorcet,
            aliases=("condorcet_fuse", "condorcetfuse"),
            missing="ranked below every document the run retrieved; no vote between two "
            "documents it both missed",
            formula="1 + #{d' beaten by d} + #{d' drawn with d} / 2 (Copeland)",
            reference=_MONTAGUE,
        ),
        Method(
            "w_condorcet",
            w_condorcet,
            weights=True,
            aliases=("weighted_condorcet", "wcondorcet"),
            missing="as condorcet",
            formula="as condorcet, votes weighted by w_i",
            reference=_MONTAGUE,
        ),
        Method(
            "rbc",
            rbc,
            params={"phi": 0.8},
            weights=True,
            aliases=("rank_biased_centroid", "rank_biased_centroids"),
            missing="0",
            formula="sum_i w_i (1 - phi) phi^(r_i - 1)",
            reference="Bailey, Moffat, Scholer & Thomas, Retrieval Consistency in the "
            "Presence of Query Variations, SIGIR 2017",
        ),
        Method(
            "bayesfuse",
            bayesfuse,
            params={"log_odds": REQUIRED},
            aliases=("bayes_fuse",),
            missing="log(0.001 / 0.999)",
            formula="sum_i log_odds_i[r_i]",
            reference=_ASLAM,
        ),
        Method(
            "posfuse",
            posfuse,
            params={"probs": REQUIRED},
            aliases=("pos_fuse",),
            missing="0",
            formula="sum_i P_i(r_i)",
            reference=_LILLIS10,
        ),
        Method(
            "probfuse",
            probfuse,
            params={"probs": REQUIRED},
            aliases=("prob_fuse",),
            missing="0",
            formula="sum_i P_i(segment k of r_i) / k",
            reference="Lillis, Toolan, Collier & Dunnion, ProbFuse: a probabilistic "
            "approach to data fusion, SIGIR 2006",
        ),
        Method(
            "segfuse",
            segfuse,
            params={"probs": REQUIRED},
            scores=True,
            aliases=("seg_fuse",),
            missing="0",
            formula="sum_i P_i(segment of r_i) * (s_i + 1)",
            reference="Shokouhi, Segmentation of Search Engine Results for Effective "
            "Data-Fusion, ECIR 2007",
        ),
        Method(
            "slidefuse",
            slidefuse,
            params={"probs": REQUIRED, "w": REQUIRED},
            aliases=("slide_fuse",),
            missing="0",
            formula="sum_i mean(P_i[r_i - w .. r_i + w])",
            reference="Lillis, Toolan, Collier & Dunnion, Extending Probabilistic Data "
            "Fusion Using Sliding Windows, ECIR 2008",
        ),
        Method(
            "mapfuse",
            mapfuse,
            params={"map_scores": REQUIRED},
            aliases=("map_fuse",),
            missing="0",
            formula="sum_i MAP_i / r_i",
            reference=_LILLIS10,
        ),
    ]
}

SUPERVISED = ("bayesfuse", "posfuse", "probfuse", "segfuse", "slidefuse", "mapfuse")
"""Methods whose parameters are estimated from training qrels (:func:`ranklens.fusion.train`)."""


def _key(name: str) -> str:
    return name.strip().lower().replace("-", "").replace("_", "").replace(" ", "")


_LOOKUP: dict[str, str] = {
    _key(alias): m.name for m in METHODS.values() for alias in (m.name, *m.aliases)
}


def get_method(name: str) -> Method:
    """The method called ``name`` (ranx's names and spellings, case and ``-``/``_`` ignored)."""
    if not isinstance(name, str):
        raise OptionError(f"method must be a string such as 'rrf', not {name!r}")
    canonical = _LOOKUP.get(_key(name))
    if canonical is None:
        raise OptionError(f"unknown fusion method {name!r}; choose one of {', '.join(METHODS)}")
    return METHODS[canonical]
