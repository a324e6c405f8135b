"""Padded batches on any Array API namespace: validation and the ranking of each row.

A batch is ``Q`` queries padded to ``N`` documents: ``scores`` and ``labels`` of shape
``(Q, N)``, and which entries are real (``mask``, or ``labels >= 0`` without one). A
:class:`View` is the batch ranked by a tie policy: every array is in rank order, the real
documents first (padding sorts last, with a score of ``-inf``), so rank ``i`` is column
``i``. All of it runs on the namespace and device of the inputs, with no loop over queries.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Literal

from ranklens.base.errors import InputError, MissingDependencyError, OptionError
from ranklens.base.optional import require
from ranklens.tensor._order import (
    host_max,
    host_min,
    packs_rows,
    sort_rows,
    stable_argsort,
    take_rows,
    two_key_order,
)
from ranklens.tensor._validate import check_ideal, check_labels, check_n_rel, ranking_dtype

Array = Any
"""An array of any Array API namespace (numpy, torch, CuPy, JAX, ...)."""

TensorTies = Literal["trec_eval", "input", "pessimistic", "optimistic", "average"]
TENSOR_TIES: tuple[TensorTies, ...] = ("trec_eval", "input", "pessimistic", "optimistic", "average")
"""The tie policies of the tensor path (see :func:`ranklens.tensor.evaluate`)."""


def _compat() -> Any:
    try:
        return require("array_api_compat", "ranklens.tensor")
    except MissingDependencyError as exc:
        raise MissingDependencyError(
            "ranklens.tensor needs the optional package 'array_api_compat', which is not "
            "installed: pip install 'ranklens[torch]' (or pip install array-api-compat)"
        ) from exc


def namespace(*arrays: Array) -> Any:
    """The Array API namespace of ``arrays`` (through ``array_api_compat``)."""
    return _compat().array_namespace(*[a for a in arrays if a is not None])


def device_of(x: Array) -> Any:
    """The device ``x`` lives on (as the Array API names it)."""
    return _compat().device(x)


def least(xp: Any, x: Array) -> float:
    """The least value of a non-empty array as a Python float: numpy's reduction where
    numpy can read the memory, else the library's (one host synchronisation)."""
    return float(host_min(x)) if packs_rows(xp, x) else float(xp.min(x))


def greatest(xp: Any, x: Array) -> float:
    """The greatest value, as :func:`least`."""
    return float(host_max(x)) if packs_rows(xp, x) else float(xp.max(x))


def _is_torch(xp: Any) -> bool:
    return "torch" in getattr(xp, "__name__", "")


@dataclass(frozen=True, eq=False)
class Batch:
    """Validated inputs, cast to one floating dtype on one device.

    Attributes
    ----------
    xp, device, dtype : the namespace, the device and the floating dtype of the results.
    scores : (Q, N) float; ``-inf`` at padding. In ``dtype``, or float32 when ``dtype`` is
        float64 and the scores were float32: only their order is read. Integer scores are
        float64 (exact up to 2**53, as ``ranklens.evaluate`` reads them).
    grades : (Q, N) the labels, integers as given (else floats of ``dtype``): the grade of
        a judged document, negative for unjudged or padding.
    labels : (Q, N) float; ``grades`` as ``dtype`` (cast on first use).
    valid : (Q, N) bool; real documents; None when all of them are (no padding).
    doc_ids : (Q, N) int or None.
    n_rel : (Q,) float or None; relevant documents per query (grade >= 1), all of them.
    ideal : (Q, M) float or None; every judged grade of each query, padded with negatives.
    """

    xp: Any
    device: Any
    dtype: Any
    scores: Array
    grades: Array
    valid: Array | None
    doc_ids: Array | None
    n_rel: Array | None
    ideal: Array | None
    eager: bool = True
    """Whether host synchronisations are allowed (``validate``; off under ``jax.jit``):
    a kernel may then read a value such as the highest grade to pick a cheaper form."""
    _views: dict[tuple[bool, str], View] = field(default_factory=dict, repr=False)
    memo: dict[tuple[str, int], Array] = field(default_factory=dict, repr=False)
    """Values shared by the measures of one call (the relevant documents per threshold)."""

    @property
    def labels(self) -> Array:
        """The grades as the result dtype."""
        if ("labels", 0) not in self.memo:
            self.memo["labels", 0] = self.as_float(self.grades)
        return self.memo["labels", 0]

    def as_float(self, x: Array) -> Array:
        """``x`` as the result dtype (``x`` itself when it has it)."""
        return self.xp.astype(x, self.dtype, copy=False)

    @property
    def shape(self) -> tuple[int, int]:
        """``(Q, N)``."""
        q, n = self.scores.shape
        return int(q), int(n)

    def view(self, judged_only: bool, ties: TensorTies) -> View:
        """The batch ranked by ``ties`` (unjudged documents dropped with ``judged_only``),
        computed once per setting."""
        key = (judged_only, ties)
        if key not in self._views:
            self._views[key] = _rank(self, judged_only, ties)
        return self._views[key]

    def top_values(self, x: Array, k: int) -> Array:
        """The ``k`` largest values of each row of ``x``, in decreasing order."""
        xp = self.xp
        n = int(x.shape[1])
        k = min(k, n)
        if packs_rows(xp, x):  # numpy's vectorised sort beats a top-k on the CPU
            return xp.flip(sort_rows(xp, x)[:, n - k :], axis=1)
        if _is_torch(xp) and k < n:
            import torch  # the namespace is torch's, so torch is installed

            return torch.topk(x, k, dim=1, sorted=True).values
        return xp.sort(x, axis=1, descending=True)[:, :k]


def prepare(
    scores: Array,
    labels: Array,
    *,
    mask: Array | None,
    doc_ids: Array | None,
    n_rel: Array | None,
    ideal_labels: Array | None,
    dtype: Any,
    validate: bool,
) -> Batch:
    """Check the shapes (and, with ``validate``, that real scores are finite) and cast."""
    xp = namespace(scores, labels, mask, doc_ids, n_rel, ideal_labels)
    if len(scores.shape) != 2:
        raise InputError(f"scores must have shape (queries, documents), got {tuple(scores.shape)}")
    shape = tuple(scores.shape)
    for name, arr in (("labels", labels), ("mask", mask), ("doc_ids", doc_ids)):
        if arr is not None and tuple(arr.shape) != shape:
            raise InputError(
                f"{name} has shape {tuple(arr.shape)}, scores {shape}: they must match"
            )
    if n_rel is not None and tuple(n_rel.shape) != shape[:1]:
        raise InputError(f"n_rel must have shape ({shape[0]},), got {tuple(n_rel.shape)}")
    if ideal_labels is not None and (
        len(ideal_labels.shape) != 2 or int(ideal_labels.shape[0]) != shape[0]
    ):
        raise InputError(
            f"ideal_labels must have shape ({shape[0]}, M), got {tuple(ideal_labels.shape)}"
        )
    if doc_ids is not None and not xp.isdtype(doc_ids.dtype, "integral"):
        raise InputError(f"doc_ids must be integers, got {doc_ids.dtype}")
    if dtype is None:
        dtype = xp.float64 if scores.dtype == xp.float64 else xp.float32
    elif not xp.isdtype(dtype, "real floating"):
        raise OptionError(f"dtype must be a real floating dtype, got {dtype}")
    # The ranking reads only the order of the scores: float32 scores widened to float64
    # results are ranked as float32 (the same order, and exact packed keys, see _order).
    widened = scores.dtype == xp.float32 and dtype == xp.float64
    # Integer scores are ranked as float64 (float32 would tie 2**24 + 1 with 2**24): exact
    # up to 2**53, and beyond it the order ranklens.evaluate (and trec_eval) give them.
    s = scores if widened else xp.astype(scores, ranking_dtype(xp, scores, dtype), copy=False)
    valid: Array | None
    if mask is not None:
        valid = mask if mask.dtype == xp.bool else mask != 0
    elif (packs_rows(xp, s) or validate) and not (shape[0] * shape[1] and least(xp, labels) < 0):
        # Without padding (checked where a host synchronisation costs little: eager on the
        # CPU, or where validation synchronises anyway, as on a GPU) the scores need
        # neither a -inf fill nor a masked check: three passes over the batch fewer.
        valid = None
    else:
        valid = labels >= 0
    bad: Any = False
    if valid is not None:
        if validate:
            bad = xp.any(xp.logical_and(valid, xp.logical_not(xp.isfinite(s))))
        s = xp.where(valid, s, xp.asarray(-math.inf, dtype=s.dtype, device=device_of(s)))
    elif validate and shape[0] * shape[1]:  # min or max is NaN with a NaN
        bad = not math.isfinite(least(xp, s)) or not math.isfinite(greatest(xp, s))
    if validate and bool(bad):
        raise InputError(
            "a real (unmasked) score is NaN or infinite; ranklens needs finite scores "
            "(mask the entry out instead)"
        )
    # Integer grades stay integers until a kernel needs them as floats: gathering and
    # sorting them first casts only the ranks a measure reads.
    keep = xp.isdtype(labels.dtype, "integral")
    grades = labels if keep else xp.astype(labels, dtype, copy=False)
    if mask is not None and valid is not None:  # else padding has a negative label
        minus_one = xp.asarray(-1, dtype=grades.dtype, device=device_of(s))
        grades = xp.where(valid, grades, minus_one)
    if validate:  # labels, n_rel and ideal_labels that would give wrong numbers
        check_labels(xp, labels, valid if mask is not None else None)
        if n_rel is not None:
            check_n_rel(xp, n_rel, grades, dtype)
        if ideal_labels is not None:
            check_ideal(xp, ideal_labels, grades, dtype)
    ideal = None
    if ideal_labels is not None:
        ideal = xp.astype(ideal_labels, dtype)
    return Batch(
        xp=xp,
        device=device_of(s),
        dtype=dtype,
        scores=s,
        grades=grades,
        valid=valid,
        doc_ids=doc_ids,
        n_rel=None if n_rel is None else xp.astype(n_rel, dtype),
        ideal=ideal,
        eager=validate,
    )


@dataclass(frozen=True, eq=False)
class View:
    """A ranked batch: column ``i`` holds rank ``i + 1`` of every query.

    Attributes
    ----------
    order : (Q, N) int; the column of the batch at each rank.
    valid : (Q, N) bool; the documents ranked (in input order: only counted); None: all.
    num_ret : (Q,) float; the documents ranked per query.
    bounds : ``(start, end)`` of the tie group of each rank (policy ``"average"``), or None.
    """

    batch: Batch
    order: Array
    valid: Array | None
    bounds: tuple[Array, Array] | None
    _memo: dict[tuple[str, int], Array] = field(default_factory=dict, repr=False)

    def labels(self, width: int | None = None) -> Array:
        """(Q, width) float; the label at each of the first ``width`` ranks (all when
        None; < 0: unjudged or past the ranking). Only those ranks are gathered."""
        n = self.batch.shape[1]
        width = n if width is None else min(width, n)
        wider = [w for kind, w in self._memo if kind == "labels" and w > width]
        if wider:  # a wider gather holds these ranks: slice it, gather nothing
            return self._memo["labels", min(wider)][:, :width]
        if ("labels", width) not in self._memo:
            order = self.order if width == n else self.order[:, :width]
            ranked = take_rows(self.batch.xp, self.batch.grades, order)
            self._memo["labels", width] = self.batch.as_float(ranked)
        return self._memo["labels", width]

    @property
    def num_ret(self) -> Array:
        """The documents ranked in each query."""
        if ("num_ret", 0) not in self._memo:
            xp, b = self.batch.xp, self.batch
            if self.valid is None:
                num_ret = xp.full(b.shape[0], float(b.shape[1]), dtype=b.dtype, device=b.device)
            else:
                num_ret = xp.sum(xp.astype(self.valid, b.dtype), axis=1)
            self._memo["num_ret", 0] = num_ret
        return self._memo["num_ret", 0]

    def averaged(self, x: Array) -> Array:
        """``x`` with each value replaced by the mean over its tie group (policy
        ``"average"``; the expectation over all orders of the tied documents), else ``x``."""
        if self.bounds is None:
            return x
        xp = self.batch.xp
        start, end = self.bounds
        q = int(x.shape[0])
        zero = xp.zeros((q, 1), dtype=x.dtype, device=self.batch.device)
        total = xp.concat([zero, xp.cumulative_sum(x, axis=1)], axis=1)
        sums = take_rows(xp, total, end) - take_rows(xp, total, start)
        return sums / xp.astype(end - start, x.dtype)

    def relevant(self, rel: int, width: int | None = None) -> Array:
        """1.0 where the document at a rank is relevant (judged, grade >= ``rel``), else 0;
        the first ``width`` ranks (all when None)."""
        xp, dtype = self.batch.xp, self.batch.dtype
        key = ("relevant", rel)
        if key in self._memo:
            return self._memo[key][:, :width]
        if self.bounds is None and width is not None and width < self.batch.shape[1]:
            return xp.astype(self.labels(width) >= max(rel, 0), dtype)
        self._memo[key] = self.averaged(xp.astype(self.labels() >= max(rel, 0), dtype))
        return self._memo[key][:, :width]

    def grades(self, width: int | None = None) -> Array:
        """The grade at each of the first ``width`` ranks as a gain: the label if positive,
        else 0 (not averaged over ties)."""
        xp = self.batch.xp
        zero = xp.asarray(0.0, dtype=self.batch.dtype, device=self.batch.device)
        top = self.labels(width)
        return xp.maximum(top, zero)  # not where(top > 0, ...): torch's is 10x slower


def _rank(batch: Batch, judged_only: bool, ties: TensorTies) -> View:
    xp = batch.xp
    scores, grades = batch.scores, batch.grades
    valid = batch.valid
    if judged_only:
        valid = grades >= 0 if valid is None else xp.logical_and(valid, grades >= 0)
        minus_inf = xp.asarray(-math.inf, dtype=scores.dtype, device=batch.device)
        scores = xp.where(valid, scores, minus_inf)
    q, n = batch.shape
    if ties == "trec_eval":
        if batch.doc_ids is None:
            raise OptionError("ties='trec_eval' orders equal scores by document id: pass doc_ids")
        perm = two_key_order(xp, scores, batch.doc_ids, True)
    elif ties == "pessimistic":
        perm = two_key_order(xp, scores, grades, False)
    elif ties == "optimistic":
        perm = two_key_order(xp, scores, grades, True)
    elif ties in ("input", "average"):
        perm = stable_argsort(xp, scores, descending=True)
    else:
        raise OptionError(f"ties must be one of {list(TENSOR_TIES)}, not {ties!r}")
    bounds = None
    if ties == "average":
        bounds = _tie_groups(xp, take_rows(xp, scores, perm), q, n, batch.device)
    return View(batch, perm, valid, bounds)


def _tie_groups(xp: Any, ranked: Array, q: int, n: int, device: Any) -> tuple[Array, Array]:
    """For every rank, the first rank of its tie group and the rank after the group's last
    (0-based), from the scores in rank order."""
    first = xp.ones((q, 1), dtype=xp.bool, device=device)
    starts = xp.concat([first, ranked[:, 1:] != ranked[:, :-1]], axis=1) if n else first[:, :0]
    group = xp.cumulative_sum(xp.astype(starts, xp.int64), axis=1) - 1
    # The ranks where groups start, in order, then n for the missing ones.
    where_start = stable_argsort(xp, xp.astype(xp.logical_not(starts), xp.int32), False)
    where_start = xp.astype(where_start, xp.int64)
    count = xp.sum(xp.astype(starts, xp.int64), axis=1, keepdims=True)
    column = xp.arange(n, dtype=xp.int64, device=device)
    size = xp.full((q, 1), n, dtype=xp.int64, device=device)
    where_start = xp.concat([xp.where(column < count, where_start, size), size], axis=1)
    start = take_rows(xp, where_start, group)
    end = take_rows(xp, where_start, group + 1)
    return start, end
