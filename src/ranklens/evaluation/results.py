"""Evaluation results: a (queries x measures) matrix and the aggregate of each measure."""

from __future__ import annotations

import math
import os
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import IO, TYPE_CHECKING, Any, TypeVar

import numpy as np

from ranklens.base.errors import MeasureError, RanklensError
from ranklens.base.optional import require
from ranklens.base.segments import ordered_total
from ranklens.base.types import Float64Array
from ranklens.data.ir_metadata import IrMetadata
from ranklens.measures.base import (
    GMEAN_FLOOR,
    Measure,
    RunStatistic,
    is_run_level,
    no_per_query_message,
)
from ranklens.measures.language import parse_measure

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure


def aggregate(measure: Measure, values: Float64Array) -> float:
    """Combine per-query values as ``measure`` declares: the mean (summed in query order,
    divided once, as trec_eval), the sum, or the geometric mean of ``max(v, 1e-5)``.

    Raises
    ------
    MeasureError
        ``measure`` is run-level (aggregate ``"run"``): its value is not made from per-query
        values (:attr:`Results.aggregate` has it).
    """
    kind = measure.spec.aggregate
    if kind == "run":
        raise MeasureError(
            f"{measure.name} is computed over the whole run, not from per-query values"
        )
    if kind == "sum":
        return ordered_total(values)
    if values.shape[0] == 0:
        return math.nan
    if kind == "gmean":
        # C's libm log, as trec_eval: numpy 1.x's SIMD log can differ in the last bit
        # (once per query per aggregate, not a hot path)
        floored = np.maximum(values, GMEAN_FLOOR).tolist()
        logs = np.array([math.log(v) for v in floored], dtype=np.float64)
        return math.exp(ordered_total(logs) / float(values.shape[0]))
    return ordered_total(values) / float(values.shape[0])


def _trec_value_name(key: object) -> str | None:
    """The canonical name of trec_eval's printed value name ``key`` (``relative_P_10``,
    ``Rprec_mult_0.20``, ``unj_5``: names of ``trec_eval -q`` output that the measure
    language does not read), or ``None``."""
    if not isinstance(key, str):
        return None
    from ranklens.evaluation.score_measures import trec_value_measure

    found = trec_value_measure(key)
    return None if found is None else found.name


def canonical_name(key: object) -> str | None:
    """The canonical name of the measure ``key`` spells (any name the measure language
    reads, a :class:`Measure`, an ir_measures measure, or a value name of trec_eval's
    output), or ``None`` where it spells none.

    >>> canonical_name("map"), canonical_name("ndcg_cut.10"), canonical_name("relative_P_10")
    ('AP', 'nDCG@10', 'RelP@10')
    >>> canonical_name("no such measure") is None
    True
    """
    try:
        return parse_measure(key).name  # type: ignore[arg-type]
    except (RanklensError, TypeError, ValueError, RecursionError):
        return _trec_value_name(key)


_V = TypeVar("_V")


class ByMeasure(dict[str, _V]):
    """``{measure: value}`` under the canonical names, that also answers to any other
    spelling of a measure it holds: ``by["MRR"]`` is ``by["RR"]``, ``by["ndcg_cut.10"]``
    and ``by[ir_measures.nDCG@10]`` are ``by["nDCG@10"]``, and trec_eval's printed value
    names (``relative_P_10``) are their measures' (``in`` and ``get`` too). It is a
    ``dict``, equal to and printed as one. :class:`MeasureValues` (numbers) is one, and
    every measure-keyed mapping of a :class:`~ranklens.analysis.comparison.Comparison`.

    >>> by = ByMeasure({"RR": "stats of RR"})
    >>> by["MRR"], "recip_rank" in by, by.get("P@5")
    ('stats of RR', True, None)
    """

    def _canonical(self, key: object) -> str | None:
        name = canonical_name(key)
        return name if name is not None and dict.__contains__(self, name) else None

    def __missing__(self, key: object) -> _V:
        name = self._canonical(key)
        if name is None:
            raise KeyError(key)
        return self[name]

    def __contains__(self, key: object) -> bool:
        return dict.__contains__(self, key) or self._canonical(key) is not None

    def get(self, key: object, default: Any = None) -> Any:
        """The value of ``key`` (any spelling), or ``default``."""
        if key in self:
            return self[key]  # type: ignore[index]
        return default


class MeasureValues(ByMeasure[float]):
    """``{measure name: value}`` under the canonical names, that also answers to any other
    spelling of a measure it holds: ``values["map"]`` is ``values["AP"]``, and
    ``values["ndcg_cut.10"]``, ``values[ir_measures.nDCG@10]`` are ``values["nDCG@10"]``
    (``in`` and ``get`` too). It is a ``dict``, equal to and printed as one.

    >>> values = MeasureValues({"AP": 0.5})
    >>> values["map"], "map" in values, values.get("P@5")
    (0.5, True, None)
    """


@dataclass(frozen=True, eq=False)
class Results:
    """The values of some measures for one run.

    Attributes
    ----------
    run : the run's name.
    measures : the measures, in the order asked.
    queries : the evaluated query ids, in byte order.
    values : float64 array (queries x measures), read-only.
    query_counts : how many queries the qrels and the run had, how many were evaluated,
        missing from the run (scored on an empty ranking) or left out for lack of judgments,
        and how many of the queries in both retrieve any document (``retrieving``) and a
        document the qrels list (``matched``).

    Examples
    --------
    >>> import ranklens
    >>> qrels = {"q1": {"d1": 1, "d2": 0}, "q2": {"d3": 1}}
    >>> run = {"q1": {"d1": 0.9, "d2": 0.8}, "q2": {"d4": 0.5, "d3": 0.4}}
    >>> res = ranklens.evaluate(qrels, run, ["P@1", "RR"])
    >>> res.aggregate
    {'P@1': 0.5, 'RR': 0.75}
    >>> res.per_query["q2"]
    {'P@1': 0.0, 'RR': 0.5}
    """

    run: str
    measures: tuple[Measure, ...]
    queries: tuple[str, ...]
    values: Float64Array
    query_counts: Mapping[str, int] = field(default_factory=dict)
    tie_affected_queries: int | None = field(default=None, kw_only=True)
    """How many evaluated queries have a group of tied scores, beginning within the
    deepest cut-off, that mixes documents of different gains: their values depend on how
    ties are ordered, which other tools may do differently (``docs/conventions.md``).
    ``None`` where not counted (``ties="rank"``, which does not order by score)."""
    run_statistics: Mapping[str, RunStatistic] = field(default_factory=dict, kw_only=True)
    """The run-level measures' statistics (aggregate ``"run"``, such as ``Coverage@10``),
    by measure name: their value for the run, recomputable with the users resampled (the
    bootstrap of :func:`ranklens.compare`). Their columns of :attr:`values` are NaN: they
    have no per-query values, :attr:`per_query` and the frames leave them out and
    :meth:`query_values` refuses them."""
    metadata: IrMetadata | None = field(default=None, kw_only=True)
    """The run's ir_metadata (the header of its TREC file, or the ``ir-metadata.yml``
    beside a leaderboard it was read from; :mod:`ranklens.data.ir_metadata`), or
    ``None``. Shown in reports, logged to MLflow as tags, written back by the writers
    that can hold it (:mod:`ranklens.evaluation.scores_files`)."""

    def __post_init__(self) -> None:
        self.values.flags.writeable = False

    @property
    def per_query_names(self) -> list[str]:
        """The names of the measures with per-query values (all but the run-level ones)."""
        return [m.name for m in self.measures if not is_run_level(m)]

    def run_value(self, measure: Measure) -> float:
        """The value of the run-level ``measure`` for the run.

        Raises
        ------
        MeasureError
            Its statistic was not kept (results read back from a file).
        """
        stat = self.run_statistics.get(measure.name)
        if stat is None:
            raise MeasureError(
                f"{measure.name} is computed over the whole run and its value was not kept "
                "with these results (read from a file?): evaluate the run again"
            )
        return stat.value(None)

    @property
    def names(self) -> list[str]:
        """The canonical names of the measures."""
        return [m.name for m in self.measures]

    @cached_property
    def aggregate(self) -> dict[str, float]:
        """Each measure's aggregate (mean, sum or geometric mean as it declares), readable
        under any spelling of the measure (:class:`MeasureValues`)."""
        return MeasureValues(
            {
                m.name: self.run_value(m) if is_run_level(m) else aggregate(m, self.values[:, j])
                for j, m in enumerate(self.measures)
            }
        )

    @property
    def means(self) -> dict[str, float]:
        """Deprecated: :attr:`aggregate`, under a name that was wrong for counts (summed) and
        GMAP (a geometric mean); warns once per call site."""
        warnings.warn(
            "Results.means is deprecated: use Results.aggregate (the same values: means, or "
            "sums and geometric means where a measure declares them)",
            DeprecationWarning,
            stacklevel=2,
        )
        return self.aggregate

    @cached_property
    def per_query(self) -> dict[str, dict[str, float]]:
        """``{qid: {measure: value}}`` (each row a :class:`MeasureValues`); run-level
        measures (``Coverage@10``, ...) have no per-query values and are left out."""
        names = self.names
        if len(self.per_query_names) < len(names):
            keep = [j for j, m in enumerate(self.measures) if not is_run_level(m)]
            return {
                qid: MeasureValues(zip(self.per_query_names, row, strict=True))
                for qid, row in zip(self.queries, self.values[:, keep].tolist(), strict=True)
            }
        return {
            qid: MeasureValues(zip(names, row, strict=True))
            for qid, row in zip(self.queries, self.values.tolist(), strict=True)
        }

    def _column(self, measure: str | Measure) -> int:
        name = measure.name if isinstance(measure, Measure) else measure
        names = self.names
        if name not in names:
            name = _trec_value_name(name) or parse_measure(name).name
        if name not in names:
            raise KeyError(f"{name} was not computed (measures: {', '.join(names)})")
        return names.index(name)

    def __getitem__(self, measure: str | Measure) -> float:
        """The aggregate of ``measure`` (a name in either language, or a Measure)."""
        return self.aggregate[self.names[self._column(measure)]]

    def query_values(self, measure: str | Measure) -> dict[str, float]:
        """``{qid: value}`` for one measure.

        Raises
        ------
        MeasureError
            ``measure`` is run-level: it has no per-query values.
        """
        j = self._column(measure)
        if is_run_level(self.measures[j]):
            raise MeasureError(no_per_query_message(self.measures[j].name))
        column = self.values[:, j].tolist()
        return dict(zip(self.queries, column, strict=True))

    def to_dict(self, per_query: bool = True) -> dict[str, Any]:
        """``{"name", "aggregate", "per_query"}`` (the shape of ``ranklens eval --format json``)."""
        out: dict[str, Any] = {"name": self.run, "aggregate": dict(self.aggregate)}
        if per_query:
            out["per_query"] = self.per_query
        return out

    def to_pandas(self) -> Any:
        """A pandas DataFrame: one row per query (index ``query_id``), one column per measure
        (run-level measures, which have no per-query values, left out)."""
        pd = require("pandas", "Results.to_pandas")
        keep = [j for j, m in enumerate(self.measures) if not is_run_level(m)]
        frame = pd.DataFrame(np.array(self.values[:, keep]), columns=self.per_query_names)
        frame.index = pd.Index(list(self.queries), name="query_id")
        return frame

    def to_polars(self) -> Any:
        """A polars DataFrame: a ``query_id`` column and one column per measure (run-level
        measures left out)."""
        pl = require("polars", "Results.to_polars")
        data: dict[str, Any] = {"query_id": list(self.queries)}
        for j, m in enumerate(self.measures):
            if not is_run_level(m):
                data[m.name] = np.array(self.values[:, j])
        return pl.DataFrame(data)

    def to_parquet(self, path: str | os.PathLike[str]) -> None:
        """Save as Parquet: a ``query_id`` column and a float64 column per measure; the
        run's name, the measures, the query counts, the run-level measures' values
        (``Coverage@10``, ...) and the run's ir_metadata in the file's metadata.
        :meth:`from_parquet` reads back equal Results (see
        :mod:`ranklens.evaluation.results_files`)."""
        from ranklens.evaluation.results_files import write_parquet

        write_parquet(self, path)

    @classmethod
    def from_parquet(cls, path: str | os.PathLike[str]) -> Results:
        """Read Results saved by :meth:`to_parquet`."""
        from ranklens.evaluation.results_files import (
            read_parquet,
            read_parquet_metadata,
            read_parquet_run_values,
        )

        parts = read_parquet(path)  # run-level measures: their saved values
        return cls(
            *parts,
            run_statistics=read_parquet_run_values(path),
            metadata=read_parquet_metadata(path),
        )

    def to_jsonl(self, path: str | os.PathLike[str] | IO[str]) -> None:
        """Save as JSON lines, ``{"run", "query_id", "<measure>": value, ...}`` per query
        (exact floats, nan as null; a run-level measure's value on every line; the query
        counts are not kept)."""
        from ranklens.evaluation.results_files import write_jsonl

        write_jsonl(self, path)

    @classmethod
    def from_jsonl(cls, path: str | os.PathLike[str] | IO[str]) -> Results:
        """Read Results saved by :meth:`to_jsonl`."""
        from ranklens.evaluation.results_files import read_jsonl, split_run_values

        parts, statistics = split_run_values(read_jsonl(path))
        return cls(*parts, run_statistics=statistics)

    def plot_dist(
        self, measure: str | Measure, style: str = "box", *, ax: Axes | None = None
    ) -> Figure:
        """The distribution of ``measure`` over the queries as a box or violin plot
        (``style="box"`` or ``"violin"``); see :func:`ranklens.presentation.plots.plot_dist`."""
        from ranklens.presentation.plots import plot_dist

        return plot_dist([self], measure, style, ax=ax)

    def plot_delta(
        self, other: Results, measure: str | Measure, *, ax: Axes | None = None
    ) -> Figure:
        """The per-query differences ``other - self`` of ``measure``, sorted, as bars; see
        :func:`ranklens.presentation.plots.plot_delta`."""
        from ranklens.presentation.plots import plot_delta

        return plot_delta(self, other, measure, ax=ax)

    def _repr_html_(self) -> str:
        """An HTML table for Jupyter: the aggregate of each measure, then the per-query
        values in a collapsed ``<details>`` block (click to open; ids and names are
        escaped)."""
        from html import escape

        head = "".join(f"<th>{escape(n)}</th>" for n in self.names)
        cells = "".join(f"<td>{v:.4f}</td>" for v in self.aggregate.values())
        return (
            f"<table><thead><tr><th>run</th>{head}</tr></thead><tbody><tr>"
            f"<td>{escape(self.run)}</td>{cells}</tr></tbody></table>" + self._per_query_html()
        )

    def _per_query_html(self, limit: int = 1000) -> str:
        """The per-query values as a table inside a closed ``<details>`` block (at most
        ``limit`` rows; the rest through :meth:`to_pandas`)."""
        from html import escape

        shown = min(limit, len(self.queries))
        head = "".join(f"<th>{escape(n)}</th>" for n in self.names)
        rows = "".join(
            f"<tr><td>{escape(q)}</td>" + "".join(f"<td>{v:.4f}</td>" for v in row) + "</tr>"
            for q, row in zip(self.queries[:shown], self.values[:shown].tolist(), strict=True)
        )
        more = (
            f"<p>first {shown} of {len(self.queries)} queries; all of them: to_pandas()</p>"
            if shown < len(self.queries)
            else ""
        )
        return (
            f"<details><summary>{escape(self.run)}: {len(self.queries)} queries "
            f"(per-query values)</summary><table><thead><tr><th>query_id</th>{head}</tr>"
            f"</thead><tbody>{rows}</tbody></table>{more}</details>"
        )

    def __repr__(self) -> str:
        shown = ", ".join(f"{k}={v:.4f}" for k, v in self.aggregate.items())
        return f"Results(run={self.run!r}, queries={len(self.queries)}, {shown})"
