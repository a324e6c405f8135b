"""ranx's ``Qrels`` on ranklens: ``Qrels({q_id: {doc_id: relevance}})``."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterable, Mapping
from typing import Any

from ranklens.compat.ranx import _convert
from ranklens.compat.ranx._errors import RanxInputError, describe, ranx_errors
from ranklens.compat.ranx.data_structures._entries import Entries, read_parquet
from ranklens.data.qrels import Qrels as _Qrels

__all__ = ["Qrels", "get_file_kind", "query_ids"]


def get_file_kind(path: str = "qrels.json", kind: str | None = None) -> str:
    """ranx's kind of a qrels file: ``kind`` if given, else from the extension (``.json``,
    ``.trec``, ``.txt``, ``.gz``, ``.parquet``, ``.parq``).

    Raises
    ------
    RanxAssertionError
        Any other kind (an ``AssertionError`` too, as ranx's).

    Examples
    --------
    >>> get_file_kind("qrels.txt"), get_file_kind("qrels.parq")
    ('trec', 'parquet')
    """
    return _convert.file_kind(path, kind, _convert.QRELS_KINDS)


class Qrels(Entries[_Qrels]):
    """Relevance judgments, as ranx's ``Qrels``: ``Qrels({q_id: {doc_id: relevance}})``.

    :attr:`qrels` is ``{q_id: {doc_id: relevance}}``, queries sorted and each query's
    documents by decreasing relevance; queries without judgments are kept (ranx scores
    them 0).

    Parameters
    ----------
    qrels
        ``{q_id: {doc_id: int}}`` (or a :class:`ranklens.Qrels`); ``None`` for empty qrels,
        filled with :meth:`add_score`, :meth:`add` or :meth:`add_multi`.
    name
        A name, kept as ranx keeps it.

    Examples
    --------
    >>> q = Qrels({"q_1": {"d_1": 1, "d_2": 2}}, name="msmarco")
    >>> q.qrels, len(q), q.get_query_ids()
    ({'q_1': {'d_2': 2, 'd_1': 1}}, 1, ['q_1'])
    >>> q.set_relevance_level(2)  # ranx's: every judgment lowered by 2 - 1
    >>> q["q_1"]
    {'d_2': 1, 'd_1': 0}
    """

    _cast = int
    _attribute = "Qrels.qrels"

    @ranx_errors
    def __init__(
        self, qrels: Mapping[str, Mapping[str, int]] | _Qrels | None = None, name: str | None = None
    ) -> None:
        self.name = name
        self.sorted = qrels is not None
        if qrels is None or isinstance(qrels, _Qrels):
            self._init_entries(qrels, None)
        else:
            self._init_entries(*self._read(qrels))

    def _read(self, content: Mapping[Any, Mapping[str, Any]]) -> tuple[_Qrels, list[str]]:
        return _convert.qrels_from_dict(content)

    def _ordered(self, table: _Qrels, queries: Iterable[str]) -> dict[str, dict[str, Any]]:
        return _convert.graded_dict(table, queries)

    @property
    def qrels(self) -> dict[str, dict[str, int]]:
        """``{q_id: {doc_id: relevance}}``: the judgments themselves (changes to it are the
        qrels')."""
        return self._dict_form()

    @qrels.setter
    def qrels(self, value: Mapping[str, Mapping[str, int]]) -> None:
        self._set_dict(value)

    @property
    def data(self) -> _Qrels:
        """The judgments as a :class:`ranklens.Qrels` (queries without judgments left out)."""
        return self._table_form()[0]

    # --- building ---------------------------------------------------------------------

    @staticmethod
    @ranx_errors
    def from_dict(d: Mapping[str, Mapping[str, int]], name: str | None = None) -> Qrels:
        """``Qrels(d)``."""
        return Qrels(d, name)

    @staticmethod
    @ranx_errors
    def from_file(
        path: str | os.PathLike[str], kind: str | None = None, name: str | None = None
    ) -> Qrels:
        """Read TREC qrels (``q_id 0 doc_id rel``; gzipped for ``gz``), ranx's JSON or
        Parquet, the kind from the extension (:func:`get_file_kind`) unless ``kind`` names
        it."""
        chosen = get_file_kind(os.fspath(path), kind)
        _convert.check_exists(path)
        if chosen == "json":
            return Qrels(_convert.read_json(path), name)
        if chosen == "parquet":
            return Qrels.from_parquet(path, name=name)
        return Qrels(_Qrels.from_file(path), name)

    @staticmethod
    @ranx_errors
    def from_df(
        df: Any,
        q_id_col: str = "q_id",
        doc_id_col: str = "doc_id",
        score_col: str = "score",
        name: str | None = None,
    ) -> Qrels:
        """From a pandas (or polars) DataFrame, with ranx's column names by default (id
        columns of strings, categories or integers; integer relevance)."""
        return Qrels(_Qrels.from_frame(df, q_id_col, doc_id_col, score_col), name)

    @staticmethod
    @ranx_errors
    def from_parquet(
        path: str | os.PathLike[str],
        q_id_col: str = "q_id",
        doc_id_col: str = "doc_id",
        score_col: str = "score",
        pd_kwargs: Mapping[str, Any] | None = None,
        name: str | None = None,
    ) -> Qrels:
        """From a Parquet file (read by ``pandas.read_parquet(path, **pd_kwargs)``)."""
        frame = read_parquet(path, pd_kwargs, "Qrels.from_parquet")
        return Qrels.from_df(frame, q_id_col, doc_id_col, score_col, name)

    @staticmethod
    @ranx_errors
    def from_ir_datasets(dataset_id: str) -> Qrels:
        """The qrels of an ir_datasets dataset (downloaded by ir_datasets if missing), named
        by the dataset id; a pair judged twice keeps its last judgment, as
        ``qrels_dict()`` (and so ranx) keeps it."""
        from ranklens.data.irds import load

        dataset = load(dataset_id)
        if not dataset.has_qrels():
            raise RanxInputError("this ir_datasets dataset has no qrels", path=dataset_id)
        return Qrels(dataset.qrels_dict(), name=dataset_id)

    # --- changing it ------------------------------------------------------------------

    @ranx_errors
    def add_multi(self, q_ids: Any, doc_ids: Any, scores: Any) -> None:
        """Add queries with their documents and judgments (each replacing the query if it
        exists), then sort, as ranx does."""
        super().add_multi(q_ids, doc_ids, scores)

    @ranx_errors
    def sort(self) -> None:
        """Sort the queries by id and each query's documents by relevance, decreasing."""
        super().sort()

    @ranx_errors
    def set_relevance_level(self, rel_lvl: int = 1) -> None:
        """Lower every judgment by ``rel_lvl - 1`` (ranx's way of making ``rel_lvl`` the
        lowest relevant grade: grades below it become 0 or negative, not relevant)."""
        if isinstance(rel_lvl, bool) or not isinstance(rel_lvl, int):
            raise RanxInputError(f"rel_lvl must be an integer, not {describe(rel_lvl)}")
        shift = rel_lvl - 1
        if self._table is not None:
            table = self._table
            self._set_table(dataclasses.replace(table, rels=table.rels - shift), self._queries)
            return
        for docs in self._dict_form().values():
            for doc_id in docs:
                docs[doc_id] = docs[doc_id] - shift

    # --- out --------------------------------------------------------------------------

    def to_dict(self) -> dict[str, dict[str, int]]:
        """``{q_id: {doc_id: relevance}}`` (a copy)."""
        return super().to_dict()

    @ranx_errors
    def save(self, path: str | os.PathLike[str] = "qrels.json", kind: str | None = None) -> None:
        """Write JSON, TREC qrels (``q_id 0 doc_id rel``; gzipped for ``gz``) or Parquet, the
        kind from the extension unless ``kind`` names it."""
        chosen = get_file_kind(os.fspath(path), kind)
        self._save(path, chosen, lambda target: self._table_form()[0].write(target))


def query_ids(qrels: Any) -> list[str]:
    """The query ids of qrels given as :class:`Qrels`, a ranklens ``Qrels`` or a dict."""
    if isinstance(qrels, Qrels):
        return qrels.keys()
    if isinstance(qrels, _Qrels):
        return list(qrels.qids)
    if isinstance(qrels, Mapping):
        return _convert.qrels_from_dict(qrels)[1]
    raise RanxInputError(
        f"expected Qrels or {{q_id: {{doc_id: relevance}}}}, got {describe(qrels)}"
    )
