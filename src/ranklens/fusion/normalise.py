"""Score normalisations applied to each run, per query, before score-based fusion.

Every function reads one run of a :class:`~ranklens.fusion._pool.Pool` (its scores in
ranked order) and returns the normalised value of each entry; ``borda`` also returns the
value of the documents the run did not retrieve. Sums run in rank order, so the result
never depends on the order of the input lines.

========================  ==================================================================
name (aliases)            value of a document with score ``s`` in a query's list of ``n``
========================  ==================================================================
``min-max`` (min_max)     ``(s - min) / (max - min)``; ``1`` when ``max == min`` (one document,
                          or all scores equal): each is its run's top document
``min-max@k``             as ``min-max`` with ``min`` the score at rank ``min(k, n)``; documents
                          below rank ``k`` get ``0``
``max``                   ``s / max``
``sum``                   ``(s - min) / (sum - n * min)``
``zmuv`` (z-score)        ``(s - mean) / std`` (population standard deviation)
``rank``                  ``1 - (rank - 1) / n``
``borda``                 ``1 - (rank - 1) / c`` with ``c`` the query's candidates (documents
                          retrieved by any run); a candidate the run did not retrieve gets
                          ``0.5 - (n - 1) / (2 c)``, the mean of the ranks left over
``none``                  ``s``
========================  ==================================================================

Denominators of ``max``, ``sum`` and ``zmuv`` are at least ``1e-9``, as in ranx. Scores
near ``±1.8e308`` never make a value overflow: such queries are scaled by a power of two
first (see :func:`affine`), and ``max`` values beyond the float range are held at its ends.

>>> from ranklens.fusion import normalize
>>> run = {"q": {"a": 4.0, "b": 1.0, "c": 2.0, "d": 3.0}, "one": {"x": -2.0}}
>>> normalize([run], "min-max")[0].to_dict()  # ranked order; one document -> 1
{'one': {'x': 1.0}, 'q': {'a': 1.0, 'd': 0.6666666666666666, 'c': 0.3333333333333333, 'b': 0.0}}
>>> normalize([run], "min-max@2")[0].to_dict()["q"]  # min is the 2nd score; below -> 0
{'a': 1.0, 'd': 0.0, 'c': 0.0, 'b': 0.0}
>>> normalize([run], "rank")[0].to_dict()["q"]
{'a': 1.0, 'd': 0.75, 'c': 0.5, 'b': 0.25}
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ranklens.base.errors import OptionError
from ranklens.base.types import BoolArray, Float64Array
from ranklens.data.native import core as _core
from ranklens.fusion._pool import Pool

NORMS = ("min-max", "min-max@k", "max", "sum", "zmuv", "rank", "borda", "none")
_ALIASES = {
    "minmax": "min-max",
    "zmuv": "zmuv",
    "zscore": "zmuv",
    "z": "zmuv",
    "standard": "zmuv",
    "max": "max",
    "sum": "sum",
    "rank": "rank",
    "borda": "borda",
    "none": "none",
}
_FLOOR = 1e-9


def parse_norm(norm: str) -> tuple[str, int | None]:
    """The canonical name of a normalisation and its ``k`` (for ``min-max@k``)."""
    if not isinstance(norm, str):
        raise OptionError(f"norm must be a string such as 'min-max', not {norm!r}")
    text = norm.strip().lower()
    k: int | None = None
    if "@" in text:
        text, _, tail = text.partition("@")
        try:
            k = int(tail)
        except ValueError:
            k = None
        if k is None or k < 1:
            raise OptionError(f"norm {norm!r}: k after '@' must be a positive integer")
    key = text.replace("-", "").replace("_", "").replace(" ", "")
    name = _ALIASES.get(key)
    if name is None:
        raise OptionError(f"unknown norm {norm!r}; choose one of {', '.join(NORMS)}")
    if k is not None:
        if name != "min-max":
            raise OptionError(f"norm {norm!r}: '@k' applies to min-max only")
        return "min-max@k", k
    return name, None


AFFINE = ("min-max", "min-max@k", "max", "sum", "zmuv", "none")
"""The normalisations that map each score ``s`` of a query to ``(s - shift) / scale`` (or 1
where the query is flat), whose sums over runs :func:`normalised_total` adds up natively."""


@dataclass(frozen=True)
class Affine:
    """An affine normalisation of one run: per union query, ``(s - shift) / scale``."""

    shift: Float64Array
    scale: Float64Array
    flat: BoolArray
    """Queries whose entries all get ``1`` (min-max: one document, or all scores equal)."""
    clip: bool
    """Whether negative values become ``0`` (``min-max@k``)."""
    scores: Float64Array | None = None
    """The run's scores (entry order) that ``shift`` and ``scale`` apply to, where they are
    not the run's own: the queries whose statistics would overflow are scaled by a power of
    two first (see :func:`affine`); None when no query needed it."""
    saturate: bool = False
    """Whether some values overflow (``max`` of scores near ``-1.8e308`` over a tiny top
    score) and are held at the largest finite float, keeping their order."""

    @property
    def native(self) -> bool:
        """Whether the run's own scores can be summed natively, with no care for overflow."""
        return self.scores is None and not self.saturate


_HEADROOM = 500
"""Overflowing queries are scaled so that ``n * max |s| < 2 ** 500``: sums, spans and
squared deviations then stay far below ``1.8e308``."""


def affine(pool: Pool, name: str, k: int | None, i: int) -> Affine:
    """The per-query statistics of run ``i`` for an :data:`AFFINE` normalisation (canonical
    ``name`` and ``k`` from :func:`parse_norm`).

    Scores near ``±1.8e308`` (a common sentinel) overflow a span, a sum or a squared
    deviation. The queries where that happens are multiplied by a power of two first
    (exact, and every operation of the normalisation commutes with it, the ``1e-9`` floor
    included), so their values are finite and the same as with unbounded floats; every
    other query keeps the very same arithmetic.
    """
    raw = pool.raw_scores[i]
    stats = _affine(pool, name, k, i, raw, None)
    if name == "none":
        return stats
    lengths = pool.run_len[i]
    has = lengths > 0
    stop = np.cumsum(lengths)
    ranked = raw[pool.perm[i]] if raw.shape[0] else raw
    top = np.zeros(lengths.shape[0], dtype=np.float64)
    bottom = np.zeros(lengths.shape[0], dtype=np.float64)
    top[has] = ranked[(stop - lengths)[has]]
    bottom[has] = ranked[(stop - 1)[has]]
    with np.errstate(over="ignore", invalid="ignore"):
        ends = ((top - stats.shift) / stats.scale, (bottom - stats.shift) / stats.scale)
        bad = has & ~(
            np.isfinite(stats.shift)
            & np.isfinite(stats.scale)
            & np.isfinite(ends[0])
            & np.isfinite(ends[1])
        )
    if not bad.any():
        return stats
    if name == "max":  # s / max(top, 1e-9) is too large for a float: hold it at the largest
        return Affine(stats.shift, stats.scale, stats.flat, stats.clip, saturate=True)
    largest = np.maximum(np.abs(top), np.abs(bottom))
    exponent = np.frexp(largest)[1]  # largest < 2 ** exponent
    room = _HEADROOM - np.ceil(np.log2(np.maximum(lengths, 1))).astype(np.int64)
    factor = np.where(bad, np.ldexp(1.0, np.minimum(room - exponent, 0)), 1.0)
    per_entry = np.ones(raw.shape[0], dtype=np.float64)
    per_entry[pool.perm[i]] = np.repeat(factor, lengths)
    scaled = raw * per_entry
    return _affine(pool, name, k, i, scaled, factor)


def _affine(
    pool: Pool,
    name: str,
    k: int | None,
    i: int,
    raw: Float64Array,
    factor: Float64Array | None,
) -> Affine:
    """:func:`affine` over the scores ``raw`` (entry order), those of the queries scaled by
    ``factor`` (None: none is)."""
    lengths = pool.run_len[i]
    nq = lengths.shape[0]
    has = lengths > 0
    no_flat = np.zeros(nq, dtype=bool)
    if name == "none":
        return Affine(np.zeros(nq), np.ones(nq), no_flat, False)
    floor = _FLOOR if factor is None else _FLOOR * factor
    kept = None if factor is None else raw
    # per-query statistics on small arrays; ranked order puts the top score first
    stop = np.cumsum(lengths)
    start = stop - lengths
    perm = pool.perm[i]
    top = np.zeros(nq, dtype=np.float64)
    low = np.zeros(nq, dtype=np.float64)
    top[has] = raw[perm[start[has]]]
    if name == "max":
        return Affine(np.zeros(nq), np.maximum(top, floor), no_flat, False, kept)
    if name in ("min-max", "min-max@k"):
        depth = lengths if k is None else np.minimum(lengths, k)
        low[has] = raw[perm[(start + depth - 1)[has]]]
        with np.errstate(over="ignore", invalid="ignore"):
            span = top - low
        flat = has & (span <= 0)
        return Affine(low, np.maximum(span, floor), flat, k is not None, kept)
    s = raw[perm] if factor is not None else pool.score[i]
    q = pool.query[i]
    n = lengths.astype(np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        total = np.bincount(q, weights=s, minlength=nq)
        if name == "sum":
            low[has] = s[(stop - 1)[has]]
            return Affine(low, np.maximum(total - low * n, floor), no_flat, False, kept)
        if name != "zmuv":
            raise OptionError(f"norm {name!r} is not an affine normalisation")
        mean = np.divide(total, n, out=np.zeros(nq), where=has)
        dev = np.subtract(s, np.repeat(mean, lengths))
        sq = np.bincount(q, weights=dev * dev, minlength=nq)
        std = np.sqrt(np.divide(sq, n, out=np.zeros(nq), where=has))
    return Affine(mean, np.maximum(std, floor), no_flat, False, kept)


_LARGEST = float(np.finfo(np.float64).max)


def normalise(pool: Pool, norm: str, i: int) -> tuple[Float64Array, Float64Array | None]:
    """Run ``i``'s normalised values (ranked order) and, for ``borda``, the per-query
    value of the candidates it did not retrieve."""
    name, k = parse_norm(norm)
    s = pool.score[i]
    if name == "none":
        return s.copy(), None
    lengths = pool.run_len[i]
    n = lengths.astype(np.float64)

    def expand(per_query: Float64Array) -> Float64Array:
        """A per-query value repeated for each of the run's entries of that query."""
        out: Float64Array = np.repeat(per_query, lengths)
        return out

    if name == "rank":
        out = (pool.rank[i] - 1) / expand(n)
        return np.subtract(1.0, out, out=out), None
    if name == "borda":
        has = lengths > 0
        c = pool.candidates().astype(np.float64)
        # 0.5 - (n - 1) / (2 c) as ranx writes it; nothing where the run lacks the query
        fill = np.zeros(lengths.shape[0], dtype=np.float64)
        fill[has] = 0.5 - (n[has] - 1.0) / (2.0 * c[has])
        out = (pool.rank[i] - 1) / expand(c)
        return np.subtract(1.0, out, out=out), fill
    stats = affine(pool, name, k, i)
    if stats.scores is not None:
        s = stats.scores[pool.perm[i]]
    with np.errstate(over="ignore"):
        out = np.subtract(s, expand(stats.shift))
        np.divide(out, expand(stats.scale), out=out)
    if stats.saturate:
        np.clip(out, -_LARGEST, _LARGEST, out=out)
    if stats.flat.any():  # one document, or all scores equal: each is the run's top document
        out[np.repeat(stats.flat, lengths)] = 1.0
    if stats.clip:
        np.maximum(out, 0.0, out=out)
    return out, None


def normalised_total(
    pool: Pool, norm: str, weights: Float64Array | None = None
) -> Float64Array | None:
    """Per fused document, ``sum_i w_i v_i`` of the runs' normalised values (runs added in
    order, as :meth:`Pool.total` of :func:`normalise`'s values, to the last bit), computed
    in one native pass per run without the per-entry arrays; None for a normalisation
    that is not :data:`AFFINE`, or where some query's scores overflow it (near
    ``±1.8e308``): :func:`normalise` then computes them safely."""
    name, k = parse_norm(norm)
    if name not in AFFINE:
        return None
    every = [affine(pool, name, k, i) for i in range(pool.num_runs)]
    if not all(stats.native for stats in every):
        return None  # overflow-safe values, summed per entry (Pool.total of normalise's)
    runs = []
    for i, stats in enumerate(every):
        lengths = pool.run_len[i]
        has = lengths > 0
        offsets = np.zeros(int(has.sum()) + 1, dtype=np.int64)
        np.cumsum(lengths[has], out=offsets[1:])
        weight = 1.0 if weights is None else float(weights[i])
        runs.append(
            (
                offsets,
                pool.perm[i],
                pool.raw_scores[i],
                pool.fid[i],
                stats.shift[has],
                stats.scale[has],
                stats.flat[has],
                weight,
            )
        )
    clip = name == "min-max@k"
    return _core.affine_sum(pool.num_docs, runs, clip)
