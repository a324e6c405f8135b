"""A click log held in memory: one row per (impression, position), columnar.

The rows of one impression are consecutive and in position order (1, 2, ...), so a row's
position is implicit: ``row - offsets[i] + 1``. Query and document ids are interned once;
the optional columns (the team that contributed each document to an interleaved list, the
dwell time, the logged propensities, the ranker that produced the impression) are ``None``
when the log has none.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from ranklens.base.errors import OptionError
from ranklens.base.types import BoolArray, Float64Array, Int64Array


@dataclass(frozen=True, eq=False)
class ClickLog:
    """A click log: impressions (a query and the documents shown, in order) and clicks.

    Build one with :func:`ranklens.logs.read_log`.

    Attributes
    ----------
    sessions : the id of each impression (``session_id``), in log order.
    queries : the distinct query ids, sorted.
    documents : the distinct document ids, sorted.
    offsets : int64, impression ``i`` is rows ``offsets[i]:offsets[i + 1]``.
    query : int64 per impression, an index into ``queries``.
    doc : int64 per row, an index into ``documents``.
    clicked : bool per row.
    teams, team : the distinct ``team`` values (sorted) and an index per row, or ``None``.
    dwell : float64 per row (NaN where not logged), or ``None``.
    propensity : float64 per row, the logging policy's probability of showing this
        document at this position, or ``None``.
    step_propensity : float64 per row, that probability given the documents above, or
        ``None``.
    rankers, ranker : the distinct ``ranker`` values and an index per impression, or ``None``.
    source : where the log came from (a path or ``"<frame>"``).

    Examples
    --------
    >>> from ranklens.logs import read_log
    >>> log = read_log({"session_id": ["s1", "s1", "s2"], "query_id": ["q", "q", "q"],
    ...                 "doc_id": ["a", "b", "b"], "position": [1, 2, 1],
    ...                 "clicked": [False, True, True]})
    >>> log.num_impressions, log.num_rows, log.positions.tolist()
    (2, 3, [1, 2, 1])
    """

    sessions: tuple[str, ...]
    queries: tuple[str, ...]
    documents: tuple[str, ...]
    offsets: Int64Array
    query: Int64Array
    doc: Int64Array
    clicked: BoolArray
    teams: tuple[str, ...] | None = None
    team: Int64Array | None = None
    dwell: Float64Array | None = None
    propensity: Float64Array | None = None
    step_propensity: Float64Array | None = None
    rankers: tuple[str, ...] | None = None
    ranker: Int64Array | None = None
    source: str = field(default="<frame>")

    def __post_init__(self) -> None:
        for name in (
            "offsets",
            "query",
            "doc",
            "clicked",
            "team",
            "dwell",
            "propensity",
            "step_propensity",
            "ranker",
        ):
            array = getattr(self, name)
            if array is not None:
                array.flags.writeable = False

    def __repr__(self) -> str:
        return (
            f"ClickLog({self.num_impressions} impressions, {len(self.queries)} queries, "
            f"{self.num_rows} rows, {int(self.clicked.sum())} clicks, source={self.source!r})"
        )

    @property
    def num_impressions(self) -> int:
        """The number of impressions (sessions)."""
        return int(self.offsets.shape[0] - 1)

    @property
    def num_rows(self) -> int:
        """The number of (impression, position) rows."""
        return int(self.doc.shape[0])

    @cached_property
    def lengths(self) -> Int64Array:
        """The number of documents shown in each impression."""
        return np.diff(self.offsets)

    @cached_property
    def impression_of_rows(self) -> Int64Array:
        """The impression of each row."""
        return np.repeat(np.arange(self.num_impressions, dtype=np.int64), self.lengths)

    @cached_property
    def positions(self) -> Int64Array:
        """The 1-based position of each row."""
        return np.arange(self.num_rows, dtype=np.int64) - self.offsets[self.impression_of_rows] + 1

    @cached_property
    def max_length(self) -> int:
        """The longest impression's number of documents."""
        return int(self.lengths.max()) if self.num_impressions else 0

    def subset(self, impressions: Int64Array | BoolArray) -> ClickLog:
        """The log of some impressions (indices or a mask), in the order given; the id
        tables are kept as they are.

        >>> from ranklens.logs import read_log
        >>> log = read_log({"session_id": ["s1", "s2"], "query_id": ["q", "r"],
        ...                 "doc_id": ["a", "a"], "position": [1, 1], "clicked": [True, False]})
        >>> log.subset(np.array([1])).sessions
        ('s2',)
        """
        index = np.asarray(impressions)
        if index.dtype == np.bool_:
            index = np.flatnonzero(index)
        index = index.astype(np.int64)
        lengths = self.lengths[index]
        offsets = np.zeros(index.shape[0] + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        starts = self.offsets[index]
        rows = np.repeat(starts - offsets[:-1], lengths) + np.arange(offsets[-1], dtype=np.int64)

        def pick(array: np.ndarray | None) -> np.ndarray | None:
            return None if array is None else array[rows].copy()

        return ClickLog(
            sessions=tuple(self.sessions[i] for i in index.tolist()),
            queries=self.queries,
            documents=self.documents,
            offsets=offsets,
            query=self.query[index].copy(),
            doc=self.doc[rows].copy(),
            clicked=self.clicked[rows].copy(),
            teams=self.teams,
            team=pick(self.team),
            dwell=pick(self.dwell),
            propensity=pick(self.propensity),
            step_propensity=pick(self.step_propensity),
            rankers=self.rankers,
            ranker=None if self.ranker is None else self.ranker[index].copy(),
            source=self.source,
        )

    def split(self, test_fraction: float = 0.25, seed: int = 42) -> tuple[ClickLog, ClickLog]:
        """A random split of the impressions into a training and a held-out log (each
        impression in one of them; seeded, so the same split every time).

        >>> from ranklens.logs import read_log
        >>> log = read_log({"session_id": list("abcd"), "query_id": list("qqqq"),
        ...                 "doc_id": list("xxxx"), "position": [1] * 4,
        ...                 "clicked": [True, False, True, False]})
        >>> train, test = log.split(0.5, seed=1)
        >>> train.num_impressions, test.num_impressions
        (2, 2)
        """
        if not 0.0 < test_fraction < 1.0:
            raise OptionError(f"test_fraction must be in (0, 1), not {test_fraction!r}")
        order = np.random.default_rng(seed).permutation(self.num_impressions)
        cut = round(self.num_impressions * test_fraction)
        test = np.sort(order[:cut])
        train = np.sort(order[cut:])
        return self.subset(train), self.subset(test)
