"""The results of several runs evaluated in one call: :class:`ResultSet`."""

from __future__ import annotations

import warnings
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from ranklens.base.errors import OptionError
from ranklens.base.optional import require
from ranklens.data.ir_metadata import IrMetadata
from ranklens.evaluation.results import MeasureValues, Results

Layout = Literal["long", "wide"]


@dataclass(frozen=True, eq=False)
class ResultSet:
    """The :class:`~ranklens.Results` of several runs on the same qrels and measures, in
    the order given; what ``ranklens.evaluate(qrels, [run1, run2], ...)`` and
    ``evaluate(qrels, {"bm25": run1, "dense": run2}, ...)`` return.

    A run is looked up by name (``rs["bm25"]``) or position (``rs[0]``); iterating gives
    the Results. :meth:`to_pandas` and :meth:`to_polars` give a tidy long table
    (``run, query_id, measure, value``: one row per value) or a wide one (``run,
    query_id`` and one column per measure).

    Examples
    --------
    >>> import ranklens
    >>> qrels = {"q1": {"a": 1}, "q2": {"b": 1}}
    >>> good = {"q1": {"a": 0.9, "x": 0.1}, "q2": {"b": 0.9, "x": 0.1}}
    >>> bad = {"q1": {"a": 0.1, "x": 0.9}, "q2": {"b": 0.1, "x": 0.9}}
    >>> rs = ranklens.evaluate(qrels, {"good": good, "bad": bad}, ["P@1", "RR"])
    >>> rs.runs
    ('good', 'bad')
    >>> rs.aggregate
    {'good': {'P@1': 1.0, 'RR': 1.0}, 'bad': {'P@1': 0.0, 'RR': 0.5}}
    >>> rs["bad"].per_query["q2"]
    {'P@1': 0.0, 'RR': 0.5}
    >>> rs.to_records()[:2]
    [('good', 'q1', 'P@1', 1.0), ('good', 'q1', 'RR', 1.0)]
    """

    results: tuple[Results, ...]
    metadata: IrMetadata | None = field(default=None, kw_only=True)
    """The ir_metadata of the set as a whole (the ``ir-metadata.yml`` beside a leaderboard
    it was read from: how the scores were made, e.g. by which judge), or ``None``; each
    run's own is on its :class:`~ranklens.Results`."""

    def __post_init__(self) -> None:
        names = [r.run for r in self.results]
        seen: dict[str, int] = {}
        for i, name in enumerate(names):
            if name in seen:
                raise OptionError(
                    f"runs {seen[name] + 1} and {i + 1} are both named {name!r}; give each run "
                    "its own name (name=[...] or a mapping {name: run}; --name on the "
                    "command line)"
                )
            seen[name] = i

    @property
    def runs(self) -> tuple[str, ...]:
        """The runs' names, in the order given."""
        return tuple(r.run for r in self.results)

    @property
    def names(self) -> list[str]:
        """The canonical names of the measures (the same for every run)."""
        return self.results[0].names if self.results else []

    @property
    def aggregate(self) -> dict[str, dict[str, float]]:
        """``{run: {measure: aggregate}}``."""
        return {r.run: MeasureValues(r.aggregate) for r in self.results}

    @property
    def means(self) -> dict[str, dict[str, float]]:
        """Deprecated: :attr:`aggregate` (see :attr:`Results.means`)."""
        warnings.warn(
            "ResultSet.means is deprecated: use ResultSet.aggregate (the same values)",
            DeprecationWarning,
            stacklevel=2,
        )
        return self.aggregate

    def __len__(self) -> int:
        return len(self.results)

    def __iter__(self) -> Iterator[Results]:
        return iter(self.results)

    def __getitem__(self, key: str | int) -> Results:
        """The Results of the run named ``key`` (or at position ``key``)."""
        if isinstance(key, int):
            return self.results[key]
        for r in self.results:
            if r.run == key:
                return r
        raise KeyError(f"no run named {key!r} (runs: {', '.join(self.runs)})")

    def to_dict(self, per_query: bool = True) -> dict[str, Any]:
        """``{"measures": [...], "runs": [Results.to_dict(), ...]}`` (the shape of
        ``ranklens eval --format json``)."""
        return {"measures": self.names, "runs": [r.to_dict(per_query) for r in self.results]}

    def to_records(self) -> list[tuple[str, str, str, float]]:
        """``(run, query_id, measure, value)`` tuples: runs in order, queries in byte order,
        measures in the order asked."""
        out: list[tuple[str, str, str, float]] = []
        for r in self.results:
            names = r.names
            for qid, row in zip(r.queries, r.values.tolist(), strict=True):
                out.extend((r.run, qid, n, v) for n, v in zip(names, row, strict=True))
        return out

    def _long_columns(self) -> dict[str, Any]:
        runs: list[np.ndarray] = []
        qids: list[np.ndarray] = []
        measures: list[np.ndarray] = []
        parts: list[np.ndarray] = []
        for r in self.results:
            nq, nm = r.values.shape
            runs.append(np.full(nq * nm, r.run, dtype=object))
            qids.append(np.repeat(np.array(r.queries, dtype=object), nm))
            measures.append(np.tile(np.array(r.names, dtype=object), nq))
            parts.append(np.asarray(r.values).reshape(-1))
        return {
            "run": _joined(runs, object),
            "query_id": _joined(qids, object),
            "measure": _joined(measures, object),
            "value": _joined(parts, np.float64),
        }

    def _wide_columns(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "run": _joined(
                [np.full(len(r.queries), r.run, dtype=object) for r in self.results], object
            ),
            "query_id": _joined([np.array(r.queries, dtype=object) for r in self.results], object),
        }
        for n in self.names:
            cols = [np.asarray(r.values[:, r.names.index(n)]) for r in self.results]
            data[n] = _joined(cols, np.float64)
        return data

    def _columns(self, layout: Layout) -> dict[str, Any]:
        if layout == "long":
            return self._long_columns()
        if layout == "wide":
            return self._wide_columns()
        raise OptionError(f"layout must be 'long' or 'wide', not {layout!r}")

    def to_pandas(self, layout: Layout = "long") -> Any:
        """A pandas DataFrame: ``layout="long"`` (default) has columns ``run, query_id,
        measure, value`` (one row per value); ``"wide"`` has ``run, query_id`` and one
        column per measure (one row per run and query)."""
        pd = require("pandas", "ResultSet.to_pandas")
        return pd.DataFrame(self._columns(layout))

    def to_polars(self, layout: Layout = "long") -> Any:
        """A polars DataFrame, in the layouts of :meth:`to_pandas`."""
        pl = require("polars", "ResultSet.to_polars")
        return pl.DataFrame(self._columns(layout))

    def _repr_html_(self) -> str:
        """HTML for Jupyter: one table of aggregates (a row per run), then each run's
        per-query values in a collapsed ``<details>`` block."""
        from html import escape

        head = "".join(f"<th>{escape(n)}</th>" for n in self.names)
        rows = "".join(
            f"<tr><td>{escape(r.run)}</td>"
            + "".join(f"<td>{v:.4f}</td>" for v in r.aggregate.values())
            + "</tr>"
            for r in self.results
        )
        details = "".join(r._per_query_html() for r in self.results)
        return (
            f"<table><thead><tr><th>run</th>{head}</tr></thead><tbody>{rows}</tbody></table>"
            + details
        )

    def __repr__(self) -> str:
        return f"ResultSet(runs={list(self.runs)!r}, measures={self.names!r})"


def _joined(parts: list[np.ndarray], dtype: Any) -> Any:
    """The arrays end to end (an empty array of ``dtype`` for none); object arrays of
    strings become lists, which pandas and polars both read as strings."""
    out = np.concatenate(parts) if parts else np.zeros(0, dtype)
    return out.tolist() if dtype is object else out


def is_many_runs(obj: object) -> bool:
    """Whether ``obj`` holds several runs rather than being one run: a list or tuple of runs
    (paths, Run objects, dicts, DataFrames; not ``(qid, docid, score)`` records) or a
    mapping ``{name: run}`` (whose values are not ``{docid: score}`` mappings)."""
    import os

    if isinstance(obj, list | tuple):
        if not obj:
            return False
        first = obj[0]
        if isinstance(first, tuple | list):  # a record (qid, docid, score)
            return False
        return (
            isinstance(first, str | os.PathLike | Mapping)
            or hasattr(first, "q_offsets")
            or (
                hasattr(first, "read")
                or type(first).__module__.split(".")[0] in ("pandas", "polars", "pyarrow")
            )
        )
    if isinstance(obj, Mapping) and obj:
        return _mapping_of_runs(obj)
    return False


def _mapping_of_runs(mapping: Mapping[Any, Any]) -> bool:
    """Whether a non-empty mapping is ``{name: run}`` rather than ``{qid: {docid: score}}``,
    decided from every value: a run (a path, a Run, a DataFrame, ``{qid: {docid: score}}``)
    or a query's ``{docid: score}`` (an empty mapping says nothing).

    Raises
    ------
    InputError
        Some values are runs and others a query's scores."""
    from ranklens.base.errors import InputError

    kinds: dict[bool, object] = {}
    for key, value in mapping.items():
        if isinstance(value, Mapping):
            if not value:
                continue
            is_run = isinstance(next(iter(value.values())), Mapping)
        else:
            is_run = True
        kinds.setdefault(is_run, key)
        if len(kinds) == 2:
            raise InputError(
                f"the mapping mixes runs and queries: {kinds[True]!r} holds a run "
                f"({{name: run}}) but {kinds[False]!r} a query's {{docid: score}}; give one "
                "run {qid: {docid: score}} or several {name: run}"
            )
    return True in kinds
