"""ranx's ``Run`` on ranklens: ``Run({q_id: {doc_id: score}}, name="bm25")``."""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Iterable, Mapping
from typing import Any, Literal, TypeAlias

from ranklens.base.errors import OptionError
from ranklens.base.types import TiePolicy
from ranklens.compat.ranx import _convert
from ranklens.compat.ranx._errors import ranx_errors
from ranklens.compat.ranx._order import reordered
from ranklens.compat.ranx.data_structures._entries import Entries, read_parquet
from ranklens.data.run import Run as _Run

__all__ = ["Run", "get_file_kind"]


def get_file_kind(path: str = "run.json", kind: str | None = None) -> str:
    """ranx's kind of a run file: ``kind`` if given, else from the extension (``.json``,
    ``.trec``, ``.txt``, ``.lz4``, ``.gz``, ``.parquet``, ``.parq``).

    Raises
    ------
    RanxAssertionError
        Any other kind (an ``AssertionError`` too, as ranx's).

    Examples
    --------
    >>> get_file_kind("run.txt"), get_file_kind("run.trec.gz"), get_file_kind("x", "lz4")
    ('trec', 'gz', 'lz4')
    """
    return _convert.file_kind(path, kind, _convert.RUN_KINDS)


RanxTies: TypeAlias = Literal["ranx", "trec_eval", "input", "docid_asc"]
"""The module's ``ties`` option: ``"ranx"`` (default) orders equal scores as ranx does (its
numba sort, :mod:`ranklens.compat.ranx._order`); the others are ranklens' policies
(:data:`ranklens.base.types.TiePolicy`), ``"trec_eval"`` document id descending."""

RANX_TIES: tuple[str, ...] = ("ranx", "trec_eval", "input", "docid_asc")


def check_ties(ties: str) -> RanxTies:
    """``ties`` if it is one of the module's tie policies (:data:`RanxTies`)."""
    if ties not in RANX_TIES:
        raise OptionError(f"ties must be one of {list(RANX_TIES)}, not {ties!r}")
    return ties  # type: ignore[return-value]


def ranklens_ties(ties: RanxTies) -> TiePolicy:
    """The ranklens policy that ranks a table as ``ties`` asks: ``"input"`` for ``"ranx"``
    (the tables of this module hold ranx's order)."""
    return "input" if ties == "ranx" else ties


class Run(Entries[_Run]):
    """A run, as ranx's ``Run``: ``Run({q_id: {doc_id: score}}, name="bm25")``.

    :func:`~ranklens.compat.ranx.evaluate` stores its results in :attr:`scores`
    (``{metric: {q_id: value}}``), :attr:`mean_scores` and :attr:`std_scores`, as ranx
    does. :attr:`run` is ``{q_id: {doc_id: score}}``, queries sorted and each query's
    documents ranked; queries without documents (``{"q_3": {}}``) are kept, as ranx keeps
    them. Equal scores are in ranx's order: its numba sort's, reproduced
    (:mod:`ranklens.compat.ranx._order`), on the dict's order.

    Parameters
    ----------
    run
        ``{q_id: {doc_id: score}}`` (or a :class:`ranklens.Run`); ``None`` for an empty run,
        filled with :meth:`add_score`, :meth:`add` or :meth:`add_multi`.
    name
        The run's name (reports and fused runs show it).

    Examples
    --------
    >>> run = Run({"q_1": {"d_1": 0.5, "d_2": 0.9}, "q_2": {}}, name="bm25")
    >>> run.run
    {'q_1': {'d_2': 0.9, 'd_1': 0.5}, 'q_2': {}}
    >>> run["q_1"]["d_1"], len(run), run.size
    (0.5, 2, 2)
    >>> run.add_score("q_2", "d_7", 3)
    >>> run.sorted, run.run["q_2"]
    (False, {'d_7': 3.0})
    """

    _cast = float
    _attribute = "Run.run"

    @ranx_errors
    def __init__(
        self, run: Mapping[str, Mapping[str, float]] | _Run | None = None, name: str | None = None
    ) -> None:
        self.name = name
        self.metadata: dict[str, Any] = {}
        self.scores: defaultdict[str, dict[str, float]] = defaultdict(dict)
        self.mean_scores: dict[str, float] = {}
        self.std_scores: dict[str, float] = {}
        self.sorted = run is not None
        if run is None:
            self._init_entries(None, None)
        elif isinstance(run, _Run):
            self._init_entries(reordered(run), None)
        else:
            self._init_entries(*self._read(run))

    def _read(self, content: Mapping[Any, Mapping[str, Any]]) -> tuple[_Run, list[str]]:
        table, order = _convert.run_from_dict(content, self.name or "run")
        return reordered(table), order

    def _ordered(self, table: _Run, queries: Iterable[str]) -> dict[str, dict[str, Any]]:
        return _convert.ranked_dict(table, queries, None)

    @property
    def run(self) -> dict[str, dict[str, float]]:
        """``{q_id: {doc_id: score}}``: the run itself (changes to it are the run's)."""
        return self._dict_form()

    @run.setter
    def run(self, value: Mapping[str, Mapping[str, float]]) -> None:
        self._set_dict(value)

    @property
    def data(self) -> _Run:
        """The documents as a :class:`ranklens.Run` (queries without documents left out)."""
        return self._table_form()[0]

    # --- building ---------------------------------------------------------------------

    @staticmethod
    @ranx_errors
    def from_dict(d: Mapping[str, Mapping[str, float]], name: str | None = None) -> Run:
        """``Run(d, name)``."""
        return Run(d, name)

    @staticmethod
    @ranx_errors
    def from_file(
        path: str | os.PathLike[str], kind: str | None = None, name: str | None = None
    ) -> Run:
        """Read a run: ranx's JSON or LZ4 file, a TREC run (gzipped for ``gz``) or Parquet,
        the kind from the extension (:func:`get_file_kind`) unless ``kind`` names it. A TREC
        run is named by its tag unless ``name`` is given."""
        chosen = get_file_kind(os.fspath(path), kind)
        _convert.check_exists(path)
        if chosen == "json":
            return Run(_convert.read_json(path), name)
        if chosen == "lz4":
            return Run(_convert.read_lz4(path), name)
        if chosen == "parquet":
            return Run.from_parquet(path, name=name)
        table = _Run.from_file(path)
        return Run(table, name if name is not None else table.name)

    @staticmethod
    @ranx_errors
    def from_df(
        df: Any,
        q_id_col: str = "q_id",
        doc_id_col: str = "doc_id",
        score_col: str = "score",
        name: str | None = None,
    ) -> Run:
        """From a pandas (or polars) DataFrame, with ranx's column names by default (id
        columns of strings, categories or integers; numeric scores)."""
        return Run(_Run.from_frame(df, name or "run", q_id_col, doc_id_col, score_col), name)

    @staticmethod
    @ranx_errors
    def from_parquet(
        path: str | os.PathLike[str],
        q_id_col: str = "q_id",
        doc_id_col: str = "doc_id",
        score_col: str = "score",
        pd_kwargs: Mapping[str, Any] | None = None,
        name: str | None = None,
    ) -> Run:
        """From a Parquet file (read by ``pandas.read_parquet(path, **pd_kwargs)``)."""
        frame = read_parquet(path, pd_kwargs, "Run.from_parquet")
        return Run.from_df(frame, q_id_col, doc_id_col, score_col, name)

    @staticmethod
    def from_ranxhub(id: str) -> Run:
        """ranx downloads runs from ranxhub; ranklens reads nothing from the network.

        Raises
        ------
        OptionError
            Always: download the ``.rh`` file with ranx and read its run with
            ``ranklens.compat.ranx.io.load_lz4(path)["run"]``.
        """
        raise OptionError(
            f"Run.from_ranxhub({id!r}) downloads from ranxhub, which ranklens does not do: "
            "download the .rh file with ranx, then Run(ranklens.compat.ranx.io."
            "load_lz4(path)['run'])"
        )

    # --- changing it ------------------------------------------------------------------

    @ranx_errors
    def add_multi(self, q_ids: Any, doc_ids: Any, scores: Any) -> None:
        """Add queries with their documents and scores (each replacing the query if it
        exists), then sort, as ranx does."""
        super().add_multi(q_ids, doc_ids, scores)

    @ranx_errors
    def sort(self) -> None:
        """Sort the queries by id and each query's documents by score, decreasing (equal
        scores as ranx's sort orders them)."""
        super().sort()

    @ranx_errors
    def make_comparable(self, qrels: Any) -> Run:
        """Keep the queries of ``qrels`` (adding those it lacks, without documents), sort,
        and return this run, changed (as ranx changes it)."""
        from ranklens.compat.ranx.data_structures.qrels import query_ids

        wanted = query_ids(qrels)
        table, _ = self._table_form()
        chosen = set(wanted)
        kept = [q for q in table.qids if q in chosen]
        if len(kept) != table.num_queries:
            table = self._read(_convert.ranked_dict(table, kept, None))[0]
        self._set_table(table, wanted)
        self.sorted = True
        return self

    # --- out --------------------------------------------------------------------------

    @ranx_errors
    def to_dict(self, ties: str = "ranx") -> dict[str, dict[str, float]]:
        """``{q_id: {doc_id: score}}`` (a copy), each query's documents ranked (equal scores
        by ``ties``: ranx's order by default, or a ranklens policy such as
        ``"trec_eval"``)."""
        policy = check_ties(ties)
        if policy in ("ranx", "input"):
            return {q: dict(docs) for q, docs in self._view_form().items()}
        table, queries = self._table_form()
        return _convert.ranked_dict(table, queries, ranklens_ties(policy))

    @ranx_errors
    def save(self, path: str | os.PathLike[str] = "run.json", kind: str | None = None) -> None:
        """Write the run as ranx does: JSON, LZ4, a TREC run (``q_id Q0 doc_id rank score
        name``; gzipped for ``gz``) or Parquet, the kind from the extension unless ``kind``
        names it."""
        chosen = get_file_kind(os.fspath(path), kind)
        self._save(
            path, chosen, lambda target: self._table_form()[0].write(target, name=str(self.name))
        )
