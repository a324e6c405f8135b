"""Run-level statistics of a run evaluated in parts (streamed chunks, Dask or Spark
partitions): a small state per part, merged exactly into the statistic of the whole run.

Two kinds of run-level statistic exist (:mod:`ranklens.kernels.recommender`):

- *exposure* (``Coverage``, ``Gini``, ``Entropy``): a function of the items' exposure
  counts. A part's state is :class:`ExposureState`: the items its users' top-k lists
  show and their integer counts, the items of the popularity data by their row in it
  (their code, the same in every part evaluated against that data: checked by its
  fingerprint), the others by id (strings, since each part numbers them in its own
  order). States are merged by code and by item id, adding integer counts, so the merged
  counts are the in-memory ones exactly; the value is then computed by the same code as
  in memory (:func:`~ranklens.kernels.recommender.exposure_value` on the sorted
  exposures). The state is bounded by the catalogue, not by the run (16 bytes per shown
  item, plus the id's bytes of one the popularity data does not list; keeping every item
  by id, written out and interned again per part, cost a 100M-row run about 3 s,
  2026-11-27). It keeps no user's list, so the result is
  a :class:`MergedExposureStatistic`, whose value with users resampled (the bootstrap of
  :func:`ranklens.compare`) is refused with a clear error: that needs the lists in memory.
- *per user* (``PSP``, ``PSnDCG``, ``PSR``, ``PopREO``, ``PopRSP``): a few numbers per user, summed
  over the users at the end. A part's state is the statistic of its users (rows in the
  part's query order); merging concatenates them and puts the users in the order of the
  combined results, which gives arrays equal to the in-memory ones, and so the same
  value and the same bootstrap.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np

from ranklens.base.errors import MeasureError
from ranklens.base.types import Float64Array, Int64Array, UInt8Array
from ranklens.data.native import core as _core
from ranklens.kernels.recommender import (
    ExposureKind,
    ExposureStatistic,
    GroupRateStatistic,
    RatioStatistic,
    exposure_value,
)

PER_USER = (RatioStatistic, GroupRateStatistic)
"""The statistics made of per-user arrays (first axis: the users in query order)."""


def _join(columns: Sequence[tuple[UInt8Array, Int64Array]]) -> tuple[UInt8Array, Int64Array]:
    """One string column from several (``(data, offsets)`` each)."""
    datas: list[UInt8Array] = []
    bounds: list[Int64Array] = [np.zeros(1, dtype=np.int64)]
    shift = 0
    for data, offsets in columns:
        datas.append(np.asarray(data, dtype=np.uint8))
        bounds.append(np.asarray(offsets[1:], dtype=np.int64) - int(offsets[0]) + shift)
        shift += int(offsets[-1] - offsets[0])
    data_out = np.concatenate(datas) if datas else np.zeros(0, dtype=np.uint8)
    return data_out.astype(np.uint8), np.concatenate(bounds).astype(np.int64)


_NONE = np.zeros(0, dtype=np.int64)


@dataclass(frozen=True, eq=False)
class ExposureState:
    """The exposure counts of the items shown to some users: by the item's row in the
    popularity data (its code) for the items that data lists, by item id for the others.

    Attributes
    ----------
    ids_data, ids_offsets : the distinct ids of the items shown that are kept by id (a
        UTF-8 string column): those the popularity data does not list.
    counts : int64, how many of the users' top-k lists show each of them (> 0).
    num_queries : the users (evaluated queries) covered.
    catalogue, kind, scope, variant : as :class:`~ranklens.kernels.recommender.ExposureStatistic`.
    known_codes, known_counts : the items of the popularity data shown, by code (sorted,
        distinct), and their counts (> 0).
    known_key : the popularity data's fingerprint
        (:meth:`~ranklens.ranking.items.ItemData.fingerprint`), which the codes index;
        ``None`` when no code is kept.
    """

    ids_data: UInt8Array
    ids_offsets: Int64Array
    counts: Int64Array
    num_queries: int
    catalogue: int | None
    kind: ExposureKind
    scope: str
    variant: str
    known_codes: Int64Array = field(default_factory=lambda: _NONE)
    known_counts: Int64Array = field(default_factory=lambda: _NONE)
    known_key: str | None = None

    @property
    def size(self) -> int:
        """The number of items it holds."""
        return int(self.counts.shape[0] + self.known_codes.shape[0])

    @property
    def nbytes(self) -> int:
        """Its memory in bytes (the arrays)."""
        arrays = (self.ids_data, self.ids_offsets, self.counts, self.known_codes)
        return int(sum(a.nbytes for a in arrays) + self.known_counts.nbytes)


def _distinct_counts(items: Int64Array) -> tuple[Int64Array, Int64Array]:
    """The distinct codes of ``items`` (sorted) and how often each occurs."""
    if items.shape[0] == 0:
        return _NONE, _NONE
    codes, counts = np.unique(items, return_counts=True)
    return codes.astype(np.int64), counts.astype(np.int64)


def exposure_state(stat: ExposureStatistic, rows: Int64Array | None = None) -> ExposureState:
    """The state of ``stat`` (of the users ``rows`` only, when given): the items the
    popularity data lists kept by code (parts evaluated against the same data share the
    codes), the others by id."""
    if rows is None and stat.shown is not None:
        (codes, counts), num_queries = stat.shown, stat.num_queries
    else:
        items, num_queries = stat.items, stat.num_queries
        if rows is not None:
            keep = np.zeros(stat.num_queries, dtype=bool)
            keep[rows] = True
            items, num_queries = items[keep[stat.users]], int(rows.shape[0])
        codes, counts = _distinct_counts(items)
    known = 0 if stat.known_ids is None else int(stat.known_ids[1].shape[0] - 1)
    split = int(np.searchsorted(codes, known))  # codes below ``known``: its rows
    unknown_ids = stat.unknown_ids if stat.unknown_ids is not None else _core.encode_strings([])
    data, offsets = _core.take_strings(unknown_ids[0], unknown_ids[1], codes[split:] - known)
    key = stat.known_key if split else None
    if split and key is None:  # no fingerprint: keyed by id, as every item once was
        known_ids = cast("tuple[UInt8Array, Int64Array]", stat.known_ids)
        data, offsets = _join(
            [_core.take_strings(known_ids[0], known_ids[1], codes[:split]), (data, offsets)]
        )
        split = 0
    return ExposureState(
        data,
        offsets,
        counts[split:],
        num_queries,
        stat.catalogue,
        stat.kind,
        stat.scope,
        stat.variant,
        codes[:split],
        counts[:split],
        key,
    )


def _merge_known(states: Sequence[ExposureState]) -> tuple[Int64Array, Int64Array, str | None]:
    """The known codes and counts of ``states`` added by code.

    Raises
    ------
    MeasureError
        Two parts keep codes of different popularity data (their codes mean other items).
    """
    keyed = [s for s in states if s.known_codes.shape[0]]
    if not keyed:
        return _NONE, _NONE, None
    key = keyed[0].known_key
    if any(s.known_key != key for s in keyed):
        raise MeasureError(
            "the parts of the run were evaluated against different popularity data (their "
            "item codes differ), so their exposure counts cannot be added: evaluate every "
            "part with the same popularity= (and num_items=)"
        )
    if len(keyed) == 1:
        return keyed[0].known_codes, keyed[0].known_counts, key
    codes = np.concatenate([s.known_codes for s in keyed])
    counts = np.concatenate([s.known_counts for s in keyed])
    # codes are rows of the popularity data: counted in a table of them, no sort; integer
    # counts below 2**53 add exactly in float64
    summed = np.bincount(codes, weights=counts.astype(np.float64))
    shown = np.flatnonzero(summed)
    return shown.astype(np.int64), np.rint(summed[shown]).astype(np.int64), key


def merge_exposure(states: Sequence[ExposureState]) -> ExposureState:
    """One state from several of the same measure (disjoint users): counts added by code
    and by item id (integers, exactly).

    Raises
    ------
    MeasureError
        Parts kept codes of different popularity data.
    """
    first = states[0]
    if len(states) == 1:
        return first
    known_codes, known_counts, key = _merge_known(states)
    data, offsets = _join([(s.ids_data, s.ids_offsets) for s in states])
    counts = np.concatenate([s.counts for s in states])
    if counts.shape[0]:
        codes, where = _core.intern_strings(data, offsets)
        # integer counts below 2**53 add exactly in float64
        summed = np.bincount(codes, weights=counts.astype(np.float64), minlength=where.shape[0])
        data, offsets = _core.take_strings(data, offsets, where)
        counts = np.rint(summed).astype(np.int64)
    return dataclasses.replace(
        first,
        ids_data=data,
        ids_offsets=offsets,
        counts=counts.astype(np.int64),
        num_queries=sum(s.num_queries for s in states),
        known_codes=known_codes,
        known_counts=known_counts,
        known_key=key,
    )


@dataclass(frozen=True, eq=False)
class MergedExposureStatistic:
    """``Coverage``, ``Gini`` or ``Entropy`` of a run evaluated in parts: the items'
    exposure counts merged by item id (no user's list is kept).

    ``value(None)`` is the in-memory value, bit for bit; ``value(weights)`` (the bootstrap
    over users) raises :class:`~ranklens.base.errors.MeasureError`.
    """

    exposures: Float64Array
    """The exposures of the items shown, in increasing order."""
    num_queries: int
    catalogue: int | None
    kind: ExposureKind
    scope: str
    variant: str
    name: str

    def value(self, weights: Float64Array | None = None) -> float:
        """The measure's value on the run (``weights`` only as ``None``)."""
        if weights is not None:
            raise MeasureError(
                f"{self.name}: the run was evaluated in parts (streamed, Dask or Spark), which "
                "keeps each item's exposure count but not each user's list, so its value "
                "cannot be recomputed with the users resampled (the bootstrap of compare) or "
                "on a subset of them; evaluate the run in memory (stream=False, --no-stream) "
                "to compare it"
            )
        return exposure_value(self.exposures, self.catalogue, self.kind, self.scope, self.variant)

    def values(self, weights: Float64Array) -> Float64Array:
        """Refused (see :meth:`value`)."""
        self.value(np.asarray(weights, dtype=np.float64))
        return np.zeros(0)  # not reached


def finish_exposure(state: ExposureState, name: str) -> MergedExposureStatistic:
    """The statistic of the whole run from its merged state.

    Raises
    ------
    MeasureError
        More distinct items are shown than the catalogue holds (as in memory).
    """
    if state.catalogue is not None and state.size > state.catalogue:
        raise MeasureError(
            f"{name}: the lists show {state.size} distinct items, more than the "
            f"catalogue's {state.catalogue}: pass the catalogue size as num_items= (ranklens "
            "eval --num-items N)"
        )
    counts = np.concatenate([state.known_counts, state.counts])
    exposures = np.sort(counts[counts > 0].astype(np.float64))
    return MergedExposureStatistic(
        exposures, state.num_queries, state.catalogue, state.kind, state.scope, state.variant, name
    )


# --- every kind ---------------------------------------------------------------------------


def state_of(stat: Any, name: str, rows: Int64Array | None = None) -> Any:
    """The mergeable state of a part's run-level statistic (of its users ``rows`` only,
    when given, in that order).

    Raises
    ------
    MeasureError
        A statistic of a kind that cannot be evaluated in parts.
    """
    if isinstance(stat, ExposureStatistic):
        return exposure_state(stat, rows)
    if isinstance(stat, PER_USER):
        if rows is None:
            return stat
        fields = dataclasses.fields(stat)
        return type(stat)(*[np.asarray(getattr(stat, f.name))[rows] for f in fields])
    raise MeasureError(
        f"{name} is computed over the whole run and cannot be computed from parts (streamed, "
        "Dask, Spark): evaluate it in memory (stream=False)"
    )


def merge_states(states: Sequence[Any]) -> Any:
    """One state from the states of parts (per-user ones in the parts' order)."""
    if isinstance(states[0], ExposureState):
        return merge_exposure(states)
    if len(states) == 1:
        return states[0]
    kind = type(states[0])
    fields = dataclasses.fields(kind)
    return kind(*[np.concatenate([getattr(s, f.name) for s in states]) for f in fields])


def state_size(state: Any) -> int:
    """How many rows (items or users) a state holds."""
    if isinstance(state, ExposureState):
        return state.size
    return int(np.asarray(getattr(state, dataclasses.fields(state)[0].name)).shape[0])


def finish(state: Any, name: str, order: Int64Array) -> Any:
    """The run-level statistic of the combined results: an exposure state's merged
    statistic, or the per-user arrays with their users put in the results' query order
    (``order[j]``: the row of the combined results' ``j``-th query)."""
    if isinstance(state, ExposureState):
        return finish_exposure(state, name)
    fields = dataclasses.fields(state)
    return type(state)(
        *[np.ascontiguousarray(np.asarray(getattr(state, f.name))[order]) for f in fields]
    )
