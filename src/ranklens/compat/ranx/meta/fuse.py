"""ranx's ``fuse`` (``ranx.meta.fuse``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ranklens.base.errors import OptionError
from ranklens.base.types import TiePolicy
from ranklens.compat.ranx._convert import run_from_dict
from ranklens.compat.ranx._errors import (
    QueryMismatchError,
    RanxAssertionError,
    ranx_errors,
)
from ranklens.compat.ranx._order import reordered, row_ranked
from ranklens.compat.ranx.data_structures.run import RanxTies, Run, check_ties
from ranklens.compat.ranx.meta._common import RunLike, run_side
from ranklens.data.run import Run as _Run

__all__ = ["fuse", "fused_run", "negated", "norm_name"]

_NORMS = {
    "min-max": "min-max",
    "min_max": "min-max",
    "min-max-inverted": "inverted",
    "min_max_inverted": "inverted",
    "max": "max",
    "sum": "sum",
    "zmuv": "zmuv",
    "rank": "rank",
    "borda": "borda",
}


def norm_name(norm: str | None) -> str:
    """ranklens' name of a ranx normalisation (``None``: the raw scores); ``"inverted"`` is
    ranx's ``min-max-inverted``."""
    if norm is None:
        return "none"
    if not isinstance(norm, str) or norm not in _NORMS:
        raise OptionError(
            f"Normalization method {norm!r} not supported: use one of {sorted(_NORMS)} or None"
        )
    return _NORMS[norm]


def negated(run: _Run) -> _Run:
    """``run`` with every score negated (min-max of the negated scores is ranx's
    ``min-max-inverted``: ``(max - s) / (max - min)``)."""
    import dataclasses

    return dataclasses.replace(run, scores=-run.scores)


def _doc_lists(table: _Run) -> dict[str, list[str]]:
    """Each query's document ids in the table's row order (ranx's dict order here)."""
    docs = table.docids()
    bounds = table.q_offsets.tolist()
    return {q: docs[bounds[j] : bounds[j + 1]] for j, q in enumerate(table.qids)}


def _candidates(lists: Sequence[Sequence[str]]) -> list[str]:
    """ranx's ``get_candidates`` of one query: the documents of every run, in the order of
    the Python set ranx builds (the same strings added in the same order give the same
    order within one process)."""
    return list({doc_id for docs in lists for doc_id in docs})


def normalised_tables(tables: Sequence[_Run], norm: str, ties: TiePolicy) -> list[_Run]:
    """``tables`` normalised by ranx's ``norm`` (ranklens' name, :func:`norm_name`), each
    query's rows in the order of ranx's normalised dict: the run's own, ranx's sort of the
    new scores for ``inverted`` (which ranx sorts again), the candidates' set order for
    ``borda``. ``ties="rank"`` ranks each run by its rows' order (ranx's: its dict's)."""
    from ranklens.fusion import normalize as normalize_runs

    if norm == "none":
        return list(tables)
    inverted = norm == "inverted"
    if norm != "borda" and not inverted:
        # one run at a time: ranklens' normalised run then keeps the rows' order
        if ties == "rank":
            return [normalize_runs([row_ranked(t)], norm, ties=ties)[0] for t in tables]
        return [normalize_runs([t], norm, ties=ties)[0] for t in tables]
    given = [negated(t) for t in tables] if inverted else list(tables)
    if ties == "rank" and inverted:
        ties = "input"  # min-max reads no rank; the negated scores are not in rank order
    elif ties == "rank":
        given = [row_ranked(t) for t in given]
    out = normalize_runs(given, "min-max" if inverted else norm, ties=ties)
    inputs = [_doc_lists(t) for t in tables]
    if norm == "borda":
        queries = {q for lists in inputs for q in lists}
        order = {q: _candidates([lists.get(q, []) for lists in inputs]) for q in queries}
        return [_in_order(t, order) for t in out]
    # ranklens' normalised tables follow the pool of all the runs: back to each run's order
    kept = [_in_order(t, lists) for t, lists in zip(out, inputs, strict=True)]
    return [reordered(t) for t in kept]


def _in_order(table: _Run, order: Mapping[str, Sequence[str]]) -> _Run:
    """``table`` with each query's rows in the order ``order`` lists its documents."""
    scores = dict(
        zip(
            zip(table.query_of_entries().tolist(), table.docids(), strict=True),
            table.scores.tolist(),
            strict=True,
        )
    )
    out: dict[str, dict[str, float]] = {}
    for j, q in enumerate(table.qids):
        out[q] = {d: scores[(j, d)] for d in order[q]}
    return run_from_dict(out, table.name)[0]


def _insertion_orders(method: str, tables: Sequence[_Run]) -> dict[str, list[str]]:
    """The order in which ranx's fusion ``method`` adds each query's documents to the fused
    dict: first seen over the runs in order (the runs' documents in their dict order), or
    for Borda fusion the first run's documents, then the other candidates in set order."""
    lists = [_doc_lists(t) for t in tables]
    queries = {q for docs in lists for q in docs}
    out: dict[str, list[str]] = {}
    for q in queries:
        per_run = [docs.get(q, []) for docs in lists]
        if method in ("bordafuse", "w_bordafuse"):
            first = per_run[0]
            seen = set(first)
            out[q] = list(first) + [d for d in _candidates(per_run) if d not in seen]
        else:
            out[q] = list(dict.fromkeys(d for docs in per_run for d in docs))
    return out


def ranx_condorcet(tables: Sequence[_Run], weights: Sequence[float] | None, name: str) -> _Run:
    """ranx's (weighted) Condorcet fusion, as ranx computes it: each query's candidates (in
    ranx's set order) sorted by Python's stable sort with ranx's pairwise majority
    comparison (``x`` first when its weighted votes are at least ``y``'s; a run without a
    document ranks it at 1,000,000), scored ``n``, ``n - 1``, ... in that order. A cycle of
    majorities is broken as ranx's sort breaks it."""
    from functools import cmp_to_key

    lists = [_doc_lists(t) for t in tables]
    votes = [1.0] * len(tables) if weights is None else [float(w) for w in weights]
    out: dict[str, dict[str, float]] = {}
    for q in dict.fromkeys(q for docs in lists for q in docs):
        per_run = [docs.get(q, []) for docs in lists]
        candidates = _candidates(per_run)
        places = [{d: i for i, d in reversed(list(enumerate(docs)))} for docs in per_run]
        index = [[place.get(d, 1_000_000) for d in candidates] for place in places]

        def majority(x: int, y: int, index: list[list[int]] = index) -> int:
            x_votes = y_votes = 0.0
            for vote, ranks in zip(votes, index, strict=True):
                if ranks[x] < ranks[y]:
                    x_votes += vote
                else:
                    y_votes += vote
            return -1 if x_votes >= y_votes else 1

        order = sorted(range(len(candidates)), key=cmp_to_key(majority))
        out[q] = {candidates[k]: float(len(order) - i) for i, k in enumerate(order)}
    return run_from_dict(out, name)[0]


def ranx_fused(fused: _Run, method: str, tables: Sequence[_Run]) -> _Run:
    """``fused`` with each query's rows in ranx's order: the fused dict's insertion order
    (:func:`_insertion_orders`), sorted by ranx's sort (``Run.sort``)."""
    if method in ("bordafuse", "w_bordafuse"):
        fused = _in_order(fused, _insertion_orders(method, tables))
    # otherwise ranklens' fused rows are already in the order the documents were first met
    # over the runs (its pool's), which is ranx's insertion order
    return reordered(fused)


def _rbc_as_sums(tables: Sequence[_Run], phi: float) -> list[_Run]:
    """ranx's RBC of a ``phi`` outside (0, 1), which ranklens' ``rbc`` refuses: each row
    scored ``(1 - phi) * phi**i`` by its position ``i`` in its query (``phi**i`` as numba
    computes it), for CombSUM to add up, as ranx's ``rbc`` does."""
    import dataclasses

    from ranklens.compat.ranx.meta._common import _power

    out = []
    for table in tables:
        counts = np.diff(table.q_offsets)
        positions = np.arange(len(table.scores)) - np.repeat(table.q_offsets[:-1], counts)
        scores = np.array([(1 - phi) * _power(phi, int(i)) for i in positions.tolist()])
        out.append(dataclasses.replace(table, scores=scores.astype(np.float64)))
    return out


def fused_run(
    runs: Sequence[RunLike],
    method: str,
    norm: str | None,
    params: Mapping[str, Any],
    name: str,
    ties: RanxTies,
    sides: Sequence[tuple[_Run, Sequence[str]]] | None = None,
) -> Run:
    """Fuse ``runs`` (any run form) with ranklens; the queries of every run are kept, those
    without documents too. With ``ties="ranx"`` the runs are read in ranx's order and the
    fused run's equal scores come out in ranx's order. ``sides``: ``runs`` already read
    (``run_side(run, sort=False)`` of each), not read again."""
    from ranklens.fusion import fuse as fuse_runs
    from ranklens.fusion import get_method

    if sides is None:
        sides = [run_side(run, sort=False) for run in runs]
    tables: list[_Run] = []
    queries: set[str] = set()
    for table, order in sides:
        tables.append(table)
        queries.update(order)
    # ranx's fusion reads each (normalised) run's dict order as its ranking
    policy: TiePolicy = "rank" if ties == "ranx" else ties
    normalised = normalised_tables(tables, norm_name(norm), policy)
    if ties == "ranx":
        normalised = [row_ranked(t) for t in normalised]
    options = dict(params)
    weights = options.pop("weights", None)
    spec = get_method(method).name
    phi = options.get("phi")
    if spec == "rbc" and isinstance(phi, int | float | np.number) and not 0 < phi < 1:
        # ranx takes any phi (its optimize_fusion's default grid ends at 1.0)
        normalised = _rbc_as_sums(normalised, float(options.pop("phi")))
        method = "sum"
        spec = get_method(method).name
    if ties == "ranx" and spec in ("condorcet", "w_condorcet"):
        chosen = weights if spec == "w_condorcet" else None
        out = Run(None, name)
        out._set_table(ranx_condorcet(normalised, chosen, name), queries)
        out.sorted = False
        return out
    fused = fuse_runs(
        normalised,
        method,
        norm="none",
        weights=None if weights is None else list(weights),
        params=options,
        ties=policy,
        name=name,
    )
    if ties == "ranx":
        fused = ranx_fused(fused, spec, normalised)
    out = Run(None, name)
    out._set_table(fused, queries)
    out.sorted = True
    return out


_DEFAULT_NAMES = {"wsum": "weighted_sum", "w_bordafuse": "weighted_bordafuse"}


@ranx_errors
def fuse(
    runs: Sequence[RunLike],
    norm: str | None = "min-max",
    method: str = "wsum",
    params: Mapping[str, Any] | None = None,
    *,
    ties: RanxTies = "ranx",
) -> Run:
    """ranx's ``fuse``: normalise each run's scores, then combine them with ``method``.

    Parameters
    ----------
    runs
        Two or more runs with the same queries (ranx's rule).
    norm
        ranx's normalisations: ``"min-max"`` (default), ``"min-max-inverted"``, ``"max"``,
        ``"sum"``, ``"zmuv"``, ``"rank"``, ``"borda"``, or ``None``.
    method
        ranx's method names: ``"wsum"`` (default), ``"rrf"``, ``"sum"``, ``"mnz"``,
        ``"max"``, ``"min"``, ``"med"``, ``"anz"``, ``"gmnz"``, ``"isr"``, ``"log_isr"``,
        ``"logn_isr"``, ``"bordafuse"``, ``"w_bordafuse"``, ``"condorcet"``,
        ``"w_condorcet"``, ``"mixed"``, ``"wmnz"``, ``"rbc"``, ``"posfuse"``,
        ``"probfuse"``, ``"segfuse"``, ``"slidefuse"``, ``"bayesfuse"``, ``"mapfuse"``.
    params
        The method's parameters as ranx takes them (``{"weights": [...]}``, ``{"k": 60}``,
        ``{"phi": 0.8}``: any ``phi``, as ranx, ``{"probs": ...}``, ...); ``wsum`` without
        weights weighs the runs equally; ``"name"`` names the fused run.
    ties
        How equal scores are ranked, in the runs before rank-based methods read ranks and
        in the fused run: ``"ranx"`` (default) as ranx does (the fused dict in the order
        ranx fills it, sorted by ranx's sort), or a ranklens policy (``"trec_eval"``).

    Returns
    -------
    Run
        The fused run, named as ranx names it (``weighted_sum``, ``rrf``, ``comb_sum``...).

    Raises
    ------
    RanxAssertionError
        Fewer than two runs (an ``AssertionError``, as ranx's).
    QueryMismatchError
        Runs with different query ids (an ``AssertionError``, as ranx's).
    """
    from ranklens.fusion import get_method

    policy = check_ties(ties)
    if isinstance(runs, Run | _Run | Mapping | str) or len(runs) < 2:
        raise RanxAssertionError(
            "fuse needs a list of at least two runs (ranx: 'Only one run provided')"
        )
    sides = [run_side(run, sort=False) for run in runs]
    for i, (_, order) in enumerate(sides[1:], start=1):
        if set(order) != set(sides[0][1]):
            raise QueryMismatchError(
                f"runs 0 and {i} have different query ids; ranx fuses runs that have the same"
            )
    options = dict(params or {})
    spec = get_method(method)
    name = options.pop("name", None)
    if name is None:
        name = _DEFAULT_NAMES.get(spec.name, spec.name)
    return fused_run(runs, method, norm, options, name, policy, sides)
