"""``fuse``: combine runs into one run."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ranklens.base.errors import OptionError
from ranklens.base.types import TIE_POLICIES, Float64Array, TiePolicy
from ranklens.data.coerce import RunLike, as_run
from ranklens.data.run import Run
from ranklens.fusion._pool import Pool, pool
from ranklens.fusion.methods import REQUIRED, SUPERVISED, Context, Method, get_method
from ranklens.fusion.normalise import normalise, parse_norm


def fuse(
    runs: Sequence[RunLike],
    method: str = "rrf",
    *,
    norm: str | None = None,
    weights: Sequence[float] | None = None,
    params: Mapping[str, Any] | None = None,
    ties: TiePolicy = "trec_eval",
    name: str | None = None,
    depth: int | None = None,
    **kwargs: Any,
) -> Run:
    """Fuse ``runs`` into one run.

    Every input run is first put in ranked order (score descending, equal scores by
    ``ties``: trec_eval's document id descending by default), so ranks, and the fused run,
    never depend on the order of the input lines. The fused run holds the union of the
    runs' queries and, per query, every document any run retrieved; its own ties are
    broken by the same policy when it is ranked or written (:meth:`Run.write`).

    Parameters
    ----------
    runs
        Runs: :class:`~ranklens.Run` objects, paths of TREC run files, ``{qid: {docid:
        score}}`` dicts or DataFrames.
    method
        One of :data:`ranklens.fusion.METHODS` (ranx's names and spellings are accepted:
        ``comb_sum``, ``combsum``, ``sum``, ``CombMNZ``, ``w_bordafuse`` ...). Default
        ``"rrf"`` (reciprocal rank fusion, ``k = 60``), which needs no parameter.
    norm
        Score normalisation per run and query for score-based methods (``min-max``,
        ``min-max@k``, ``max``, ``sum``, ``zmuv``, ``rank``, ``borda``, ``none``);
        default ``min-max``. Rank-based methods read ranks and ignore it.
    weights
        One weight per run, for the methods that take weights (``wsum``, ``wmnz``,
        ``mixed``, ``rrf``, ``rbc``, ``w_bordafuse``, ``w_condorcet``); default 1 each.
    params, **kwargs
        The method's parameters (``k`` for ``rrf``, ``gamma``, ``sigma``, ``phi``, ``w``,
        ``probs``, ``log_odds``, ``map_scores``), as a mapping (ranx's style) or keywords.
    ties
        Tie policy for ranking the inputs (see :data:`ranklens.base.types.TiePolicy`).
    name
        The fused run's name (its tag); default the method's name.
    depth
        Keep only the top ``depth`` fused documents of each query (ranked by fused score,
        ties by ``ties``); default all of them.

    Returns
    -------
    Run
        The fused run (scores as the method defines them; higher is better).

    Raises
    ------
    OptionError
        For an unknown method, norm or parameter, a missing required parameter, weights
        for a method without weights or of the wrong length.

    Examples
    --------
    Ranks: ``a`` has d1, d2, d3; ``b`` has d3, d1. RRF with k = 1 gives d1
    ``1/2 + 1/3``, d3 ``1/4 + 1/2`` and d2 ``1/3``:

    >>> a = {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}}
    >>> b = {"q1": {"d3": 0.9, "d1": 0.5}}
    >>> fused = fuse([a, b], "rrf", k=1)
    >>> {d: round(s * 12) for d, s in fused.to_dict()["q1"].items()}  # in twelfths
    {'d1': 10, 'd2': 4, 'd3': 9}

    CombMNZ over min-max scores: d1 ``(1 + 0) * 2``, d2 ``0.5 * 1``, d3 ``(0 + 1) * 2``:

    >>> fuse([a, b], "combmnz", norm="min-max").to_dict()["q1"]
    {'d1': 2.0, 'd2': 0.5, 'd3': 2.0}
    """
    spec = get_method(method)
    chosen = _parameters(spec, params, kwargs)
    if ties not in TIE_POLICIES:
        raise OptionError(f"ties must be one of {list(TIE_POLICIES)}, not {ties!r}")
    inputs = [as_run(run) for run in _as_list(runs)]
    w = check_weights(spec, weights, len(inputs))
    _check_per_run(spec, chosen, len(inputs))
    if depth is not None and (isinstance(depth, bool) or not isinstance(depth, int) or depth < 1):
        raise OptionError(f"depth must be a positive number of documents, not {depth!r}")
    pooled = pool(inputs, ties)
    scores = fuse_pool(pooled, spec, norm, w, chosen)
    fused = pooled.to_run(scores, name or spec.name)
    return fused if depth is None else cut(fused, depth, ties)


def cut(run: Run, depth: int, ties: TiePolicy = "trec_eval") -> Run:
    """The top ``depth`` documents of each query of ``run`` (ranked by ``ties``)."""
    from ranklens.base.segments import positions, segment_ids
    from ranklens.data.grouped import subset_entries

    counts = np.diff(run.q_offsets)
    if int(counts.max(initial=0)) <= depth:
        return run
    perm = run.ranking(ties)
    top = positions(run.q_offsets, segment_ids(run.q_offsets)) < depth
    keep = np.sort(perm[top])
    columns = subset_entries(run, keep)
    return Run(scores=run.scores[keep], name=run.name, **columns)  # type: ignore[arg-type]


def fuse_pool(
    pooled: Pool,
    spec: Method,
    norm: str | None,
    weights: Float64Array,
    params: Mapping[str, Any],
) -> Float64Array:
    """The fused score of every document of ``pooled`` (arguments already checked)."""
    norm_name = "min-max" if norm is None else norm
    parse_norm(norm_name)
    ctx = Context(pooled, norm_name if spec.scores else None, weights, params)
    with np.errstate(over="ignore", invalid="ignore"):
        scores = spec.combine(ctx)
    _check_finite(pooled, spec, norm_name, scores)
    return scores


def _check_finite(pooled: Pool, spec: Method, norm: str, scores: Float64Array) -> None:
    """Refuse fused scores that overflowed: raw scores near ``±1.8e308`` summed (norm
    ``none`` or ``max``), or enormous weights; the normalisations themselves never overflow
    (see :mod:`ranklens.fusion.normalise`)."""
    bad = np.flatnonzero(~np.isfinite(scores))
    if bad.shape[0] == 0:
        return
    first = int(bad[0])
    query = pooled.qids[int(pooled.doc_query[first])]
    doc = pooled.doc_data[pooled.doc_offsets[first] : pooled.doc_offsets[first + 1]]
    hint = (
        "scale the weights down"
        if spec.scores is False or norm not in ("none", "max")
        else "choose a normalisation that bounds the scores (min-max, sum, zmuv, rank)"
    )
    raise OptionError(
        f"{spec.name}: the fused score of document {bytes(doc).decode('utf-8', 'replace')!r} "
        f"of query {query!r} overflows ({float(scores[first])}) with norm {norm!r}; {hint}"
    )


def _as_list(runs: Sequence[RunLike]) -> list[RunLike]:
    if isinstance(runs, Run | str | Mapping) or not isinstance(runs, Sequence):
        raise OptionError("runs must be a list of runs (Run objects, paths, dicts)")
    if len(runs) == 0:
        raise OptionError("fusion needs at least one run")
    return list(runs)


def check_weights(spec: Method, weights: Sequence[float] | None, n: int) -> Float64Array:
    """The weight vector (ones by default), checked against the method and the runs."""
    if weights is None:
        return np.ones(n, dtype=np.float64)
    if not spec.weights:
        raise OptionError(f"method {spec.name!r} takes no weights")
    try:
        array = np.asarray([float(x) for x in weights], dtype=np.float64)
    except (TypeError, ValueError):
        raise OptionError(f"weights must be numbers, not {weights!r}") from None
    if array.shape[0] != n:
        raise OptionError(f"{array.shape[0]} weights given for {n} runs; give one weight per run")
    if not np.isfinite(array).all():
        raise OptionError(f"weights must be finite numbers, not {list(weights)!r}")
    return array


def _parameters(
    spec: Method, params: Mapping[str, Any] | None, kwargs: Mapping[str, Any]
) -> dict[str, Any]:
    given = dict(params or {})
    overlap = set(given) & set(kwargs)
    if overlap:
        raise OptionError(f"parameter {sorted(overlap)[0]!r} given twice (params and keyword)")
    given.update(kwargs)
    unknown = sorted(set(given) - set(spec.params))
    if unknown:
        known = ", ".join(spec.params) or "none"
        raise OptionError(
            f"method {spec.name!r} has no parameter {unknown[0]!r} (its parameters: {known})"
        )
    chosen = {**spec.params, **given}
    missing = [p for p, v in chosen.items() if v is REQUIRED]
    if missing:
        hint = ""
        if spec.name in SUPERVISED:
            hint = (
                f"; estimate it from training qrels with "
                f"ranklens.fusion.train({spec.name!r}, qrels, runs)"
            )
        raise OptionError(f"method {spec.name!r} needs parameter {missing[0]!r}{hint}")
    _check_scalars(spec, chosen)
    return chosen


def _number(spec: Method, name: str, value: Any) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise OptionError(f"{spec.name}: {name} must be a number, not {value!r}") from None
    if not math.isfinite(number):
        raise OptionError(f"{spec.name}: {name} must be finite, not {value!r}")
    return number


def _check_scalars(spec: Method, chosen: dict[str, Any]) -> None:
    if "k" in chosen and _number(spec, "k", chosen["k"]) < 0:
        raise OptionError(f"{spec.name}: k must be >= 0, not {chosen['k']!r}")
    if "phi" in chosen and not 0 < _number(spec, "phi", chosen["phi"]) < 1:
        raise OptionError(f"{spec.name}: phi must be in (0, 1), not {chosen['phi']!r}")
    if "sigma" in chosen and _number(spec, "sigma", chosen["sigma"]) < 0:
        raise OptionError(f"{spec.name}: sigma must be >= 0, not {chosen['sigma']!r}")
    if "gamma" in chosen:
        _number(spec, "gamma", chosen["gamma"])
    if "w" in chosen:
        w = _number(spec, "w", chosen["w"])
        if w < 0 or w != int(w):
            raise OptionError(f"{spec.name}: w must be a whole number >= 0, not {chosen['w']!r}")


def _check_per_run(spec: Method, chosen: Mapping[str, Any], n: int) -> None:
    for key in ("probs", "log_odds", "map_scores"):
        if key not in chosen:
            continue
        value = chosen[key]
        try:
            count = len(value)
        except TypeError:
            count = -1
        if count != n:
            raise OptionError(
                f"{spec.name}: {key} must hold one entry per run ({n}), got {value!r:.60}"
            )
        for entry in value:
            array = np.asarray(entry, dtype=np.float64)
            if array.size == 0 or not np.isfinite(array).all():
                raise OptionError(f"{spec.name}: {key} entries must be finite and non-empty")


def normalize(
    runs: Sequence[RunLike], norm: str = "min-max", *, ties: TiePolicy = "trec_eval"
) -> list[Run]:
    """Each run with its scores normalised per query (see :mod:`ranklens.fusion.normalise`).

    With ``borda``, every run also receives the candidates of its queries that it did not
    retrieve (the documents the other runs retrieved), at the value of the ranks left over.

    Examples
    --------
    >>> [r.to_dict() for r in normalize([{"q1": {"a": 4.0, "b": 2.0, "c": 3.0}, "q2": {"x": 7.0}}])]
    [{'q1': {'a': 1.0, 'c': 0.5, 'b': 0.0}, 'q2': {'x': 1.0}}]
    """
    parse_norm(norm)
    if ties not in TIE_POLICIES:
        raise OptionError(f"ties must be one of {list(TIE_POLICIES)}, not {ties!r}")
    inputs = [as_run(run) for run in _as_list(runs)]
    pooled = pool(inputs, ties)
    out = []
    for i, run in enumerate(inputs):
        values, fill = normalise(pooled, norm, i)
        if fill is None:
            dense = np.zeros(pooled.num_docs, dtype=np.float64)
            dense[pooled.fid[i]] = values
            present = np.zeros(pooled.num_docs, dtype=bool)
            present[pooled.fid[i]] = True
        else:
            both, mask = pooled.dense(
                [values if j == i else pooled.score[j] for j in range(pooled.num_runs)],
                [fill if j == i else None for j in range(pooled.num_runs)],
            )
            dense, present = both[i], mask[i]
        out.append(_subset(pooled, dense, present, run.name))
    return out


def _subset(pooled: Pool, scores: Float64Array, present: Any, name: str) -> Run:
    from ranklens.data.grouped import subset_entries

    fused = pooled.to_run(scores, name)
    keep = np.flatnonzero(present).astype(np.int64)
    columns = subset_entries(fused, keep)
    counts = np.diff(columns["q_offsets"])  # type: ignore[call-overload]
    has = counts > 0
    offsets = np.zeros(int(has.sum()) + 1, dtype=np.int64)
    np.cumsum(counts[has], out=offsets[1:])
    columns["qids"] = tuple(q for q, h in zip(pooled.qids, has.tolist(), strict=True) if h)
    columns["q_offsets"] = offsets
    return Run(scores=scores[keep], name=name, **columns)  # type: ignore[arg-type]
