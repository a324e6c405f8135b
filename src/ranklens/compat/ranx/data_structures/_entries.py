"""What ranx's ``Qrels`` and ``Run`` share: ``{q_id: {doc_id: value}}`` kept two ways.

An object holds its entries as a ranklens table (columnar; what the evaluation reads
without conversion) until they are asked for as a dict: the ``run`` / ``qrels`` attribute
hands out ``{q_id: {doc_id: value}}``, and from then on that dict *is* the object (edit it
as ranx's users edit ranx's ``run.run``), read again at each evaluation. Reading single
queries (``run["q_1"]``) goes through a read-only view and hands out copies.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Generic, TypeVar

from ranklens.base.optional import require
from ranklens.base.types import Float64Array
from ranklens.compat.ranx import _convert
from ranklens.compat.ranx._errors import RanxInputError, describe
from ranklens.data.grouped import Grouped

T = TypeVar("T", bound=Grouped)


def read_parquet(
    path: str | os.PathLike[str], pd_kwargs: Mapping[str, Any] | None, feature: str
) -> Any:
    """The DataFrame of the Parquet file at ``path`` (``pandas.read_parquet(path,
    **pd_kwargs)``), for ``feature`` (named if pandas is missing)."""
    pandas = require("pandas", feature)
    _convert.check_exists(path)
    return pandas.read_parquet(path, **dict(pd_kwargs or {}))


class Entries(Generic[T]):
    """The state and the methods ranx's ``Qrels`` and ``Run`` have in common.

    Subclasses say how a value is cast (``float`` or ``int``), how a dict becomes a table
    (:meth:`_read`) and a table a dict in ranx's order (:meth:`_ordered`).
    """

    _cast: type = float
    _attribute = "run"

    def _init_entries(self, table: T | None, queries: Iterable[str] | None) -> None:
        self._table: T | None = None
        self._queries: tuple[str, ...] = ()
        self._dict: dict[str, dict[str, Any]] | None = None
        self._view: dict[str, dict[str, Any]] | None = None
        if table is None:
            self._dict = {}
        else:
            self._set_table(table, queries if queries is not None else table.qids)

    # --- subclass hooks ---------------------------------------------------------------

    def _read(self, content: Mapping[Any, Mapping[str, Any]]) -> tuple[T, list[str]]:
        raise NotImplementedError

    def _ordered(self, table: T, queries: Iterable[str]) -> dict[str, dict[str, Any]]:
        raise NotImplementedError

    # --- the two forms ----------------------------------------------------------------

    def _set_table(self, table: T, queries: Iterable[str]) -> None:
        self._table = table
        self._queries = tuple(sorted(set(queries)))
        self._dict = None
        self._view = None

    def _set_dict(self, content: Mapping[str, Mapping[str, Any]]) -> None:
        if not isinstance(content, Mapping):
            raise RanxInputError(
                f"{self._attribute} must be {{q_id: {{doc_id: value}}}}, not {describe(content)}"
            )
        self._dict = content if isinstance(content, dict) else dict(content)
        self._table = None
        self._view = None

    def _dict_form(self) -> dict[str, dict[str, Any]]:
        """The entries as the object's own dict (from now on the object's truth)."""
        if self._dict is None:
            self._dict = self._view_form()
            self._table = None
            self._view = None
        return self._dict

    def _view_form(self) -> dict[str, dict[str, Any]]:
        """The entries as a dict that nobody else holds (built once per table)."""
        if self._dict is not None:
            return self._dict
        if self._view is None:
            self._view = {} if self._table is None else self._ordered(self._table, self._queries)
        return self._view

    def _table_form(self) -> tuple[T, tuple[str, ...]]:
        """The entries as a ranklens table, and every query id (sorted; the queries without
        entries too, which the table leaves out)."""
        if self._table is not None:
            return self._table, self._queries
        table, order = self._read(self._dict or {})
        return table, tuple(sorted(set(order)))

    def _replace(self, content: Mapping[Any, Mapping[str, Any]]) -> None:
        """Read ``content`` as the new entries (validated, sorted)."""
        self._set_table(*self._read(content))
        self.sorted = True

    # --- ranx's methods ---------------------------------------------------------------

    def add_score(self, q_id: str, doc_id: str, score: Any) -> None:
        """Add a (document, value) pair to a query, or change its value."""
        self._dict_form().setdefault(q_id, {})[doc_id] = self._cast(score)
        self.sorted = False

    def add(self, q_id: str, doc_ids: Sequence[str], scores: Sequence[Any]) -> None:
        """Add a query with its documents and values (replacing the query if it exists)."""
        self.add_multi([q_id], [doc_ids], [scores])

    def add_multi(
        self,
        q_ids: Sequence[str],
        doc_ids: Sequence[Sequence[str]],
        scores: Sequence[Sequence[Any]],
    ) -> None:
        """Add queries with their documents and values (each replacing the query if it
        exists), then sort, as ranx does."""
        if not len(q_ids) == len(doc_ids) == len(scores):
            raise RanxInputError(
                f"add_multi needs as many lists of doc_ids ({len(doc_ids)}) and of scores "
                f"({len(scores)}) as q_ids ({len(q_ids)})"
            )
        merged = dict(self._view_form())
        for q_id, docs, values in zip(q_ids, doc_ids, scores, strict=True):
            if len(docs) != len(values):
                raise RanxInputError(
                    f"query {q_id!r}: {len(docs)} doc_ids and {len(values)} scores"
                )
            merged[q_id] = {d: self._cast(s) for d, s in zip(docs, values, strict=True)}
        self._replace(merged)

    def sort(self) -> None:
        """Sort the queries by id and each query's documents by value, decreasing."""
        self._replace(self._view_form())

    def keys(self) -> list[str]:
        """The query ids (sorted once sorted; ranx's order)."""
        return list(self._queries) if self._table is not None else list(self._dict or {})

    def get_query_ids(self) -> list[str]:
        """The query ids."""
        return self.keys()

    def get_doc_ids_and_scores(self) -> list[dict[str, Any]]:
        """Each query's ``{doc_id: value}``, in the order of :meth:`keys` (copies)."""
        return [dict(docs) for docs in self._view_form().values()]

    def to_typed_list(self) -> list[Float64Array]:
        """ranx's internal form: per query (sorted), a ``(n, 2)`` array of ``[hash(doc_id),
        value]`` rows in ranx's order (what the functions of
        :mod:`ranklens.compat.ranx.metrics` take; ids equal within one Python process).
        Sorts first, as ranx does."""
        if not self.sorted:
            self.sort()
        return _convert.hashed_arrays(self._view_form())

    def _save(
        self, path: str | os.PathLike[str], kind: str, write_trec: Callable[[Any], None]
    ) -> None:
        """Write the entries as a file of ``kind`` (checked): JSON, LZ4, Parquet, or by
        ``write_trec`` (given a path or a text handle) in TREC's format, gzipped for
        ``gz``."""
        if kind == "json":
            _convert.write_json(self.to_dict(), path)
        elif kind == "lz4":
            _convert.write_lz4(self.to_dict(), path)
        elif kind == "parquet":
            self.to_dataframe().to_parquet(path, index=False)
        elif kind == "gz":
            _convert.write_gzip_text(write_trec, path)
        else:
            write_trec(path)

    def to_dict(self) -> dict[str, dict[str, Any]]:
        """``{q_id: {doc_id: value}}`` (a copy)."""
        return {q: dict(docs) for q, docs in self._view_form().items()}

    def to_dataframe(self) -> Any:
        """A pandas DataFrame with ranx's columns ``q_id``, ``doc_id``, ``score`` (built from
        lists, as ranx builds it: the id columns have pandas' default string dtype)."""
        pandas = require("pandas", f"{type(self).__name__}.to_dataframe")
        columns: dict[str, list[Any]] = {"q_id": [], "doc_id": [], "score": []}
        for q_id, docs in self._view_form().items():
            columns["q_id"] += [q_id] * len(docs)
            columns["doc_id"] += list(docs)
            columns["score"] += list(docs.values())
        return pandas.DataFrame.from_dict(columns)

    @property
    def size(self) -> int:
        """The number of queries."""
        return len(self)

    def __len__(self) -> int:
        return len(self._queries) if self._table is not None else len(self._dict or {})

    def __getitem__(self, q_id: str) -> dict[str, Any]:
        return dict(self._view_form()[q_id])

    def __contains__(self, q_id: object) -> bool:
        return q_id in self._view_form()

    def __repr__(self) -> str:
        return repr(self._view_form())

    def __str__(self) -> str:
        return str(self._view_form())
