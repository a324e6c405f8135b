"""What each document costs the user to examine, for the C/W/L measures' expected cost and
the Bejewelled Player Model's budget (``cwl_eval``'s cost file).

Costs are given per document, for every query (``{docid: cost}``) or per query
(``{qid: {docid: cost}}``), or as a file: two columns ``docid cost`` or three ``qid docid
cost`` (``#`` comments and blank lines skipped). A document without a cost is unknown: the
measure takes its ``max_cost`` (and ``min_cost`` for the best case of a residual), as
``cwl_eval`` does for an element type its cost file does not list.

``cwl_eval`` itself prices documents by element type (the run's second column) and a cost
file ``element_type cost``; the per-query mapping ``{qid: {docid: cost[type]}}`` is the
same thing.

>>> costs = DocumentCosts.of({"q1": {"a": 2.0}, "q2": {"a": 0.5}})
>>> costs.lookup("q1", ["a", "b"]).tolist(), costs.lookup("q2", ["a"]).tolist()
([2.0, nan], [0.5])
>>> DocumentCosts.of({"a": 3.0}).lookup("q9", ["a"]).tolist()
[3.0]
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import IO

import numpy as np

from ranklens.base.errors import InputError, ParseError
from ranklens.base.types import Float64Array
from ranklens.data.source import read_bytes

CostsLike = (
    Mapping[str, float]
    | Mapping[str, Mapping[str, float]]
    | str
    | os.PathLike[str]
    | IO[bytes]
    | IO[str]
)
"""Document costs: ``{docid: cost}``, ``{qid: {docid: cost}}``, or a cost file."""


def _checked(value: object, where: str, path: str | None = None, line: int | None = None) -> float:
    try:
        cost = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise ParseError(
            f"cost of {where} is not a number: {value!r}", path=path, line=line
        ) from None
    if not math.isfinite(cost) or cost < 0.0:
        raise InputError(
            f"cost of {where} must be a finite number >= 0, got {value!r}", path=path, line=line
        )
    return cost


@dataclass(frozen=True)
class DocumentCosts:
    """Costs per document: ``per_query[qid][docid]``, else ``shared[docid]``, else unknown."""

    per_query: Mapping[str, Mapping[str, float]] = field(default_factory=dict)
    shared: Mapping[str, float] = field(default_factory=dict)
    source: str | None = None

    @classmethod
    def of(cls, costs: CostsLike | DocumentCosts) -> DocumentCosts:
        """Costs from a mapping or a file (see the module's description).

        Raises
        ------
        InputError
            A cost is negative or not finite, or the mapping mixes the two forms
            (:class:`~ranklens.base.errors.ParseError` names a file's bad line).
        """
        if isinstance(costs, DocumentCosts):
            return costs
        if isinstance(costs, Mapping):
            return cls._of_mapping(costs)
        return cls._of_file(costs)

    @classmethod
    def _of_mapping(cls, costs: Mapping[str, object]) -> DocumentCosts:
        nested = [isinstance(v, Mapping) for v in costs.values()]
        if any(nested) and not all(nested):
            raise InputError("costs: give either {docid: cost} or {qid: {docid: cost}}, not a mix")
        if nested and all(nested):
            per_query = {
                str(q): MappingProxyType(
                    {str(d): _checked(c, f"document {d!r} of query {q!r}") for d, c in docs.items()}
                )
                for q, docs in costs.items()
                if isinstance(docs, Mapping)
            }
            return cls(per_query=MappingProxyType(per_query))
        shared = {str(d): _checked(c, f"document {d!r}") for d, c in costs.items()}
        return cls(shared=MappingProxyType(shared))

    @classmethod
    def _of_file(cls, source: object) -> DocumentCosts:
        data, name = read_bytes(source)
        per_query: dict[str, dict[str, float]] = {}
        shared: dict[str, float] = {}
        for number, raw in enumerate(data.decode("utf-8").splitlines(), start=1):
            fields = raw.split()
            if not fields or fields[0].startswith("#"):
                continue
            if len(fields) == 2:
                shared[fields[0]] = _checked(fields[1], f"document {fields[0]!r}", name, number)
            elif len(fields) == 3:
                where = f"document {fields[1]!r} of query {fields[0]!r}"
                cost = _checked(fields[2], where, name, number)
                per_query.setdefault(fields[0], {})[fields[1]] = cost
            else:
                raise ParseError(
                    f"a cost line has 2 fields (docid cost) or 3 (qid docid cost), not "
                    f"{len(fields)}",
                    path=name,
                    line=number,
                )
        frozen = {q: MappingProxyType(d) for q, d in per_query.items()}
        return cls(MappingProxyType(frozen), MappingProxyType(shared), name)

    def lookup(self, qid: str, docids: Iterable[str]) -> Float64Array:
        """The costs of ``docids`` for query ``qid``, NaN where unknown."""
        own = self.per_query.get(qid, {})
        values = [own.get(d, self.shared.get(d, math.nan)) for d in docids]
        out: Float64Array = np.asarray(values, dtype=np.float64).reshape(-1)
        return out
