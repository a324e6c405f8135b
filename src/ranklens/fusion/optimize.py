"""``fuse_optimize``: grid search of a fusion method's weights and parameters."""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ranklens.base.errors import OptionError
from ranklens.base.progress import Progress, report
from ranklens.base.types import TIE_POLICIES, TiePolicy
from ranklens.data.coerce import QrelsLike, RunLike, as_qrels, as_run
from ranklens.data.qrels import Qrels
from ranklens.data.run import Run
from ranklens.fusion._pool import pool
from ranklens.fusion.combine import _parameters, check_weights, fuse, fuse_pool
from ranklens.fusion.methods import SUPERVISED, get_method

DEFAULT_GRIDS: dict[str, dict[str, tuple[float, ...]]] = {
    "rrf": {"k": (1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100)},
    "rbc": {"phi": (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99)},
    "comb_gmnz": {"gamma": (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)},
    "logn_isr": {"sigma": (0.0001, 0.001, 0.01, 0.1, 0.5, 1.0)},
    "slidefuse": {"w": (1, 2, 3, 4, 5, 6, 7, 8, 9, 10)},
}
"""The default values tried per parameter; weight vectors default to a simplex grid."""


@dataclass(frozen=True)
class FusionSetting:
    """The best setting found by :func:`fuse_optimize`.

    ``params`` holds the method's scalar parameters (``k``, ``phi`` ...); for supervised
    methods, ``trained`` holds the parameters estimated on the training queries.
    """

    method: str
    norm: str | None
    weights: tuple[float, ...] | None
    params: tuple[tuple[str, Any], ...]
    measure: str
    value: float
    trained: Mapping[str, Any] = field(default_factory=dict, compare=False, hash=False)

    def fuse(
        self, runs: Sequence[RunLike], ties: TiePolicy = "trec_eval", name: str | None = None
    ) -> Run:
        """Fuse ``runs`` with this setting."""
        return fuse(
            runs,
            self.method,
            norm=self.norm,
            weights=self.weights,
            params={**dict(self.params), **self.trained},
            ties=ties,
            name=name,
        )


MAX_GRID = 100_000
"""The most settings :func:`fuse_optimize` tries (weightings times parameter values): each
is one fusion and one evaluation. Larger grids are refused before any work, with their size."""


def _weight_units(step: float) -> int:
    """How many steps of ``step`` make 1 (``step`` must divide 1)."""
    if isinstance(step, bool) or not isinstance(step, int | float | np.floating | np.integer):
        raise OptionError(f"the weight step must be a number such as 0.1, not {step!r}")
    value = float(step)
    if not math.isfinite(value) or not 0 < value <= 1:
        raise OptionError(f"the weight step must be a number in (0, 1], such as 0.1, not {step}")
    units = round(1 / value)
    if units < 1 or abs(units * value - 1) > 1e-9:
        raise OptionError(f"the weight step must divide 1 (0.1, 0.05, 0.25 ...), not {step}")
    return units


def weight_grid_size(n_runs: int, step: float = 0.1) -> int:
    """How many weight vectors :func:`weight_grid` has: ``C(1/step + n_runs - 1, n_runs - 1)``.

    >>> weight_grid_size(8, 0.1)
    19448
    """
    units = _weight_units(step)
    return math.comb(units + n_runs - 1, n_runs - 1) if n_runs > 0 else 0


def _count(number: int) -> str:
    return f"{number:,}" if number < 10**12 else f"{float(number):.3g}"


def _too_large(count: int, n_runs: int, step: float, others: int = 1) -> OptionError:
    total = count * others
    times = f" x {others} parameter settings = {_count(total)} settings" if others > 1 else ""
    return OptionError(
        f"the weight grid of {n_runs} runs at step {step} has {_count(count)} weightings{times}, "
        f"more than the limit of {MAX_GRID:,}; use a coarser step (--step), fewer runs, or "
        "give the weight vectors to try (grid={'weights': [...]})"
    )


def weight_grid(n_runs: int, step: float = 0.1) -> list[tuple[float, ...]]:
    """Every weight vector of ``n_runs`` multiples of ``step`` that sum to 1, in
    lexicographic order (the compositions of ``1/step`` into ``n_runs`` parts, generated
    directly); more than :data:`MAX_GRID` of them is refused.

    >>> weight_grid(2, 0.5)
    [(0.0, 1.0), (0.5, 0.5), (1.0, 0.0)]
    """
    count = weight_grid_size(n_runs, step)
    if count > MAX_GRID:
        raise _too_large(count, n_runs, step)
    units = _weight_units(step)
    return [tuple(round(c * step, 10) for c in combo) for combo in _compositions(units, n_runs)]


def _compositions(total: int, parts: int) -> Iterator[tuple[int, ...]]:
    """The tuples of ``parts`` non-negative integers summing to ``total``, lexicographically."""
    if parts <= 0:
        return
    if parts == 1:
        yield (total,)
        return
    for first in range(total + 1):
        for rest in _compositions(total - first, parts - 1):
            yield (first, *rest)


def fuse_optimize(
    qrels: QrelsLike,
    runs: Sequence[RunLike],
    method: str = "rrf",
    measure: str = "nDCG@10",
    grid: Mapping[str, Iterable[Any]] | None = None,
    train_queries: Iterable[str] | None = None,
    *,
    norm: str | None = None,
    step: float = 0.1,
    ties: TiePolicy = "trec_eval",
    progress: Progress | None = None,
) -> tuple[Any, FusionSetting]:
    """Grid-search a method's weights and parameters on training queries.

    Every combination of the grid is fused (the runs are pooled once) and evaluated with
    ``measure`` over the training queries of ``qrels``; supervised methods (ProbFuse ...)
    are first trained on the same queries (:func:`ranklens.fusion.train`).

    Parameters
    ----------
    qrels, runs
        The judgments and the runs to fuse.
    method
        A fusion method (see :data:`ranklens.fusion.METHODS`).
    measure
        The measure to maximise (any ranklens measure name); averaged over the queries.
    grid
        Values to try per parameter name, and ``"weights"``: a list of weight vectors.
        Default: :data:`DEFAULT_GRIDS` for the method's parameter, and every weight vector
        of multiples of ``step`` summing to 1 for methods with weights (``rrf``: ``k``
        only, unless ``weights`` are in ``grid``).
    train_queries
        The query ids to optimise on (default: every query of the qrels).
    norm
        The normalisation (fixed), as in :func:`fuse`.
    step
        The step of the default weight grid.
    ties
        Tie policy for ranking the runs.
    progress
        Called as ``progress(done, settings)`` after each setting of the grid is evaluated
        (:mod:`ranklens.base.progress`).

    Returns
    -------
    (DataFrame, FusionSetting)
        The whole grid, one row per setting (columns: the parameters, ``weights``, and the
        measure), and the best setting (the first in grid order among equal values).
    """
    from ranklens.base.optional import require
    from ranklens.evaluation.evaluator import Evaluator
    from ranklens.measures.language import parse_measure

    pd = require("pandas", "fuse_optimize")
    spec = get_method(method)
    _weight_units(step)  # a bad step is refused even where the grid does not use it
    if ties not in TIE_POLICIES:
        raise OptionError(f"ties must be one of {list(TIE_POLICIES)}, not {ties!r}")
    measure_name = str(parse_measure(measure))
    judgments = as_qrels(qrels)
    if train_queries is not None:
        judgments = _restrict(judgments, set(train_queries))
    inputs = [as_run(run) for run in runs]
    n = len(inputs)
    if n == 0:
        raise OptionError("fusion needs at least one run")

    trained: dict[str, Any] = {}
    if spec.name in SUPERVISED:
        from ranklens.fusion.supervised import train

        trained = train(spec.name, judgments, inputs, ties=ties)

    axes = _axes(spec, grid, n, step)
    pooled = pool(inputs, ties)
    # a fused run has no rank column: ties="rank" orders the inputs, trec_eval the fused run
    evaluator = Evaluator(judgments, [measure_name], ties="trec_eval" if ties == "rank" else ties)
    rows = []
    best: tuple[float, dict[str, Any]] | None = None
    settings = math.prod(len(values) for values in axes.values())
    for combo in itertools.product(*axes.values()):
        setting = dict(zip(axes, combo, strict=True))
        weights = setting.pop("weights", None)
        chosen = _parameters(spec, {**trained, **setting}, {})
        w = check_weights(spec, weights, n)
        scores = fuse_pool(pooled, spec, norm, w, chosen)
        value = evaluator.evaluate(pooled.to_run(scores, spec.name)).aggregate[measure_name]
        rows.append({**setting, "weights": weights, measure_name: value})
        if best is None or value > best[0]:
            best = (value, {**setting, "weights": weights})
        report(progress, len(rows), settings)
    frame = pd.DataFrame(rows)
    if best is None:  # pragma: no cover - the grid always has one combination
        raise OptionError("the grid is empty")
    value, chosen_setting = best
    weights = chosen_setting.pop("weights")
    result = FusionSetting(
        method=spec.name,
        norm=norm,
        weights=None if weights is None else tuple(float(x) for x in weights),
        params=tuple(sorted(chosen_setting.items())),
        measure=measure_name,
        value=float(value),
        trained=trained,
    )
    return frame, result


def _axes(
    spec: Any, grid: Mapping[str, Iterable[Any]] | None, n: int, step: float
) -> dict[str, list[Any]]:
    axes: dict[str, list[Any]] = {}
    if grid is not None:
        for key, values in grid.items():
            if key != "weights" and key not in spec.params:
                known = ", ".join([*spec.params, "weights"] if spec.weights else spec.params)
                raise OptionError(
                    f"grid: method {spec.name!r} has no parameter {key!r} (its parameters: "
                    f"{known or 'none'})"
                )
            if key == "weights" and not spec.weights:
                raise OptionError(f"grid: method {spec.name!r} takes no weights")
            axes[key] = list(values)
            if not axes[key]:
                raise OptionError(f"grid: no values given for {key!r}")
    for key, values in DEFAULT_GRIDS.get(spec.name, {}).items():
        axes.setdefault(key, list(values))
    others = math.prod(len(values) for values in axes.values())
    if spec.weights and "weights" not in axes and spec.name != "rrf":
        count = weight_grid_size(n, step)
        if count * others > MAX_GRID:
            raise _too_large(count, n, step, others)
        axes["weights"] = list(weight_grid(n, step))
    elif others > MAX_GRID:
        raise OptionError(
            f"the grid has {others:,} settings, more than the limit of {MAX_GRID:,}; give "
            "fewer values per parameter"
        )
    return axes


def _restrict(qrels: Qrels, keep: set[str]) -> Qrels:
    from ranklens.data.grouped import subset_entries

    if not keep:
        raise OptionError("train_queries is empty")
    unknown = sorted(keep - set(qrels.qids))
    if unknown:
        raise OptionError(f"train query {unknown[0]!r} is not in the qrels")
    chosen = np.asarray([q in keep for q in qrels.qids], dtype=bool)
    entries = np.flatnonzero(chosen[qrels.query_of_entries()]).astype(np.int64)
    columns = subset_entries(qrels, entries)
    qids = tuple(q for q in qrels.qids if q in keep)
    counts = np.diff(columns["q_offsets"])[chosen]  # type: ignore[call-overload]
    offsets = np.zeros(len(qids) + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    columns["qids"] = qids
    columns["q_offsets"] = offsets
    return Qrels(rels=qrels.rels[entries], **columns)  # type: ignore[arg-type]
